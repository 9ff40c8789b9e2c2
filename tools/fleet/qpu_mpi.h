/* SPDX-License-Identifier: MIT */
/*
 * Independent batches spread over the ranks of an MPI job (qpu_mpi.c), one
 * rank per board, each on its own device, the results gathered in batch
 * order on rank 0: the same bits as one rank computing them all, since
 * every batch is computed by one rank alone. libqpu does not link MPI: a
 * program built with mpicc links libqpu-mpi.a (tools/fleet/fleet.mk).
 */
#ifndef QPU_TOOLS_MPI_H
#define QPU_TOOLS_MPI_H

#include <stddef.h>

#include <mpi.h>

/*
 * Computes batch @index into @out (@out_size bytes). Return: 0, or -1 with
 * what went wrong in @err.
 */
typedef int (*qpu_mpi_batch_fn)(void *ctx, unsigned int index, void *out, size_t out_size,
				char *err, size_t err_size);

/* The first failed batch (the lowest number), as every rank learns it. */
struct qpu_mpi_failure {
	int batch;		/* -1: none failed */
	int rank;
	int failed;		/* batches that failed, over all ranks */
	char host[64];
	char message[256];
};

/*
 * qpu_mpi_run_batches() - batch i of @nbatches on rank i % size of @comm
 * (collective: every rank calls it with the same @nbatches and @out_size),
 * the results gathered on rank 0 into @results (@nbatches * @out_size
 * bytes; other ranks may pass NULL). When a batch fails, every rank still
 * runs the others, then all learn the first failure; nothing is gathered.
 * Return: 0, the number of failed batches, or -1 when out of memory or a
 * rank's share is past MPI's int counts (then in @fail->message).
 */
int qpu_mpi_run_batches(MPI_Comm comm, unsigned int nbatches, size_t out_size,
			qpu_mpi_batch_fn fn, void *ctx, void *results,
			struct qpu_mpi_failure *fail);

#endif /* QPU_TOOLS_MPI_H */
