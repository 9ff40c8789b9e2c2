// SPDX-License-Identifier: MIT
/*
 * qpu_mpi_run_batches() of qpu_mpi.h. Batch i goes to rank i % size, a
 * static deal: the batches are alike, and a static deal needs no
 * coordinator, so rank 0 computes its share too. Failures are agreed on
 * with two reductions (the lowest failed batch, the count) and one
 * broadcast of its message from the rank that ran it, so every rank can
 * report the same failure and all leave the call together.
 */

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "qpu_mpi.h"

#define TAG_RESULTS 1

/* The batches rank @rank of @size runs out of @n. */
static size_t share(unsigned int n, int rank, int size)
{
	return n > (unsigned int)rank ? (n - (unsigned int)rank + (unsigned int)size - 1) /
		(unsigned int)size : 0;
}

/* Rank 0: its own results and every other rank's, each into its place. */
static int gather(MPI_Comm comm, int size, unsigned int nbatches, size_t out_size,
		  const char *mine, char *results)
{
	size_t k, most = share(nbatches, 0, size);
	char *tmp;
	int r;

	for (k = 0; k < most; k++)
		memcpy(results + k * size * out_size, mine + k * out_size, out_size);
	tmp = malloc(most * out_size + 1);
	if (!tmp)
		return -1;
	for (r = 1; r < size; r++) {
		size_t n = share(nbatches, r, size);

		MPI_Recv(tmp, (int)(n * out_size), MPI_BYTE, r, TAG_RESULTS, comm,
			 MPI_STATUS_IGNORE);
		for (k = 0; k < n; k++)
			memcpy(results + ((size_t)r + k * size) * out_size, tmp + k * out_size,
			       out_size);
	}
	free(tmp);
	return 0;
}

/*
 * Wait for every rank, asleep: MPI's own waits poll the network flat out,
 * and a rank that finished first would take a CPU from one still
 * computing on the same machine (ranks on one board, or oversubscribed).
 */
static void idle_barrier(MPI_Comm comm)
{
	const struct timespec nap = { 0, 1000000 };
	MPI_Request req;
	int done = 0;

	MPI_Ibarrier(comm, &req);
	for (;;) {
		MPI_Test(&req, &done, MPI_STATUS_IGNORE);
		if (done)
			break;
		nanosleep(&nap, NULL);
	}
}

int qpu_mpi_run_batches(MPI_Comm comm, unsigned int nbatches, size_t out_size,
			qpu_mpi_batch_fn fn, void *ctx, void *results,
			struct qpu_mpi_failure *fail)
{
	char host[MPI_MAX_PROCESSOR_NAME];
	int rank, size, len, first, count, lfirst = INT_MAX, lcount = 0, gathered = 0;
	char *buf = NULL;
	size_t n, k;

	MPI_Comm_rank(comm, &rank);
	MPI_Comm_size(comm, &size);
	MPI_Get_processor_name(host, &len);
	memset(fail, 0, sizeof(*fail));
	fail->batch = -1;
	n = share(nbatches, rank, size);

	/* A rank that cannot hold or send its share fails each of its batches. */
	if (n * out_size > INT_MAX || out_size > INT_MAX) {
		snprintf(fail->message, sizeof(fail->message),
			 "%zu results of %zu bytes are past MPI's int count: use more ranks or smaller batches",
			 n, out_size);
	} else {
		buf = malloc(n * out_size + 1);
		if (!buf)
			snprintf(fail->message, sizeof(fail->message), "out of memory");
	}
	for (k = 0; k < n; k++) {
		unsigned int i = (unsigned int)rank + (unsigned int)(k * size);
		char err[sizeof(fail->message)];

		if (buf && !fn(ctx, i, buf + k * out_size, out_size, err, sizeof(err)))
			continue;
		lcount++;
		if (lfirst == INT_MAX) {
			lfirst = (int)i;
			if (buf)
				snprintf(fail->message, sizeof(fail->message), "%s", err);
		}
	}

	idle_barrier(comm);
	MPI_Allreduce(&lfirst, &first, 1, MPI_INT, MPI_MIN, comm);
	MPI_Allreduce(&lcount, &count, 1, MPI_INT, MPI_SUM, comm);
	if (count) {
		fail->batch = first;
		fail->rank = first % size;
		fail->failed = count;
		snprintf(fail->host, sizeof(fail->host), "%.*s", (int)sizeof(fail->host) - 1, host);
		MPI_Bcast(fail->host, sizeof(fail->host), MPI_CHAR, fail->rank, comm);
		MPI_Bcast(fail->message, sizeof(fail->message), MPI_CHAR, fail->rank, comm);
		free(buf);
		return count;
	}
	if (rank == 0)
		gathered = gather(comm, size, nbatches, out_size, buf, results);
	else
		MPI_Send(buf, (int)(n * out_size), MPI_BYTE, 0, TAG_RESULTS, comm);
	free(buf);
	if (gathered) {
		snprintf(fail->message, sizeof(fail->message), "rank 0: out of memory gathering");
		return -1;
	}
	return 0;
}
