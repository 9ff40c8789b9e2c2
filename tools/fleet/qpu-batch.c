// SPDX-License-Identifier: MIT
/*
 * qpu-batch: sgemm blocks as independent batches over the ranks of an MPI
 * job (qpu_mpi.h), each rank on its own device, C of every batch written
 * in order by rank 0. The batches are generated from their numbers, or
 * read one per file of a directory (A then B, N x N float32 each). Start it
 * with mpirun: `mpirun --hostfile boards -n 3 qpu-batch --out c.f32`.
 * Errors before the batches run are said once, by rank 0; a failed batch
 * is named with its rank and host, and the job exits 1.
 */

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <qpu.h>
#include <qpu_kernels.h>

#include "parse_num.h"
#include "qpu_mpi.h"

const char tool_name[] = "qpu-batch";

#define MAX_SIZE 1024
#define MAX_BATCHES 1000000

struct batch_ctx {
	struct qpu_dev *dev;
	struct qpu_kernels *kernels;
	struct qpu_bo *bo;	/* A, B, C: N x N each */
	unsigned int n, qpus;
	const char *dir;
	char **files;		/* NULL: generated batches */
	char *names;		/* the files' names, one block */
};

static int rank;

/* Said by rank 0 only; every rank leaves MPI and exits 1. */
static void start_error(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

static void start_error(const char *fmt, ...)
{
	va_list ap;

	if (rank == 0) {
		fprintf(stderr, "%s: ", tool_name);
		va_start(ap, fmt);
		vfprintf(stderr, fmt, ap);
		va_end(ap);
		fprintf(stderr, "\n");
	}
	MPI_Finalize();
	exit(EXIT_FAILURE);
}

/* Leave together when any rank could not start; it said why itself. */
static void agree(int ok)
{
	int all;

	MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	if (!all) {
		MPI_Finalize();
		exit(EXIT_FAILURE);
	}
}

/* Batch @index's operands, small integers over 4: exact in float. */
static void generate(float *a, float *b, unsigned int n, unsigned int index)
{
	unsigned int i;

	for (i = 0; i < n * n; i++) {
		a[i] = (float)((int)((i * 7u + index * 11u) % 17u) - 8) / 4;
		b[i] = (float)((int)((i * 5u + index * 3u) % 13u) - 6) / 4;
	}
}

static int read_batch(const struct batch_ctx *c, unsigned int index, float *ab, char *err,
		      size_t err_size)
{
	size_t want = 2 * (size_t)c->n * c->n * sizeof(float);
	char path[4096];
	struct stat st;
	FILE *fp;
	size_t got;

	snprintf(path, sizeof(path), "%s/%s", c->dir, c->files[index]);
	fp = fopen(path, "rb");
	if (!fp || fstat(fileno(fp), &st)) {
		snprintf(err, err_size, "%s: %s", path, strerror(errno));
		if (fp)
			fclose(fp);
		return -1;
	}
	if ((size_t)st.st_size != want) {
		snprintf(err, err_size, "%s: %lld bytes, not %zu (A then B, %ux%u float32 each)",
			 path, (long long)st.st_size, want, c->n, c->n);
		fclose(fp);
		return -1;
	}
	got = fread(ab, 1, want, fp);
	fclose(fp);
	if (got != want) {
		snprintf(err, err_size, "%s: short read", path);
		return -1;
	}
	return 0;
}

static int run_batch(void *data, unsigned int index, void *out, size_t out_size, char *err,
		     size_t err_size)
{
	struct batch_ctx *c = data;
	size_t nn = (size_t)c->n * c->n;
	float *map = qpu_bo_get_map(c->bo);
	struct qpu_matrix a = { c->bo, 0, c->n, c->n, c->n };
	struct qpu_matrix b = { c->bo, nn * sizeof(float), c->n, c->n, c->n };
	struct qpu_matrix cm = { c->bo, 2 * nn * sizeof(float), c->n, c->n, c->n };

	if (c->files) {
		if (read_batch(c, index, map, err, err_size))
			return -1;
	} else {
		generate(map, map + nn, c->n, index);
	}
	if (qpu_sgemm(c->kernels, c->qpus, 1.0f, &a, &b, 0.0f, &cm, NULL)) {
		snprintf(err, err_size, "sgemm: %s", qpu_kernels_last_error(c->kernels));
		return -1;
	}
	memcpy(out, map + 2 * nn, out_size);
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The regular files of @dir, sorted, as rank 0 sees them, sent to every
 * rank (each reads its own batches' files, at the same path on its board).
 */
static char **list_dir(const char *dir, unsigned int *count, char **block)
{
	char *names = NULL, **files;
	int len = 0, ok = 1;
	unsigned int i, n = 0;

	if (rank == 0) {
		DIR *d = opendir(dir);
		struct dirent *e;
		size_t cap = 0, used = 0;

		if (!d) {
			fprintf(stderr, "%s: %s: %s\n", tool_name, dir, strerror(errno));
			ok = 0;
		}
		while (d && (e = readdir(d))) {
			char path[4096];
			struct stat st;
			size_t l = strlen(e->d_name) + 1;

			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			if (stat(path, &st) || !S_ISREG(st.st_mode))
				continue;
			if (used + l > cap) {
				cap = (used + l) * 2;
				names = realloc(names, cap);
				if (!names) {
					fprintf(stderr, "%s: out of memory\n", tool_name);
					exit(EXIT_FAILURE);
				}
			}
			memcpy(names + used, e->d_name, l);
			used += l;
		}
		if (d)
			closedir(d);
		if (ok && !used) {
			fprintf(stderr, "%s: %s: no files\n", tool_name, dir);
			ok = 0;
		}
		len = (int)used;
	}
	agree(ok);
	MPI_Bcast(&len, 1, MPI_INT, 0, MPI_COMM_WORLD);
	if (rank != 0)
		names = malloc((size_t)len);
	agree(names != NULL);
	MPI_Bcast(names, len, MPI_CHAR, 0, MPI_COMM_WORLD);
	*block = names;
	for (i = 0; i < (unsigned int)len; i++)
		n += names[i] == '\0';
	files = malloc(n * sizeof(*files));
	agree(files != NULL);
	for (i = 0; i < n; i++) {
		files[i] = names;
		names += strlen(names) + 1;
	}
	qsort(files, n, sizeof(*files), by_name);
	*count = n;
	return files;
}

static void usage(void)
{
	if (rank)
		return;
	printf("Usage: mpirun [MPI OPTION]... qpu-batch [OPTION]... --out FILE\n"
	       "Spread sgemm blocks, C = A * B, over the ranks, each on its own device;\n"
	       "rank 0 writes every C in batch order.\n\n"
	       "  -o, --out FILE      C of every batch, N x N float32 each, in order\n"
	       "  -n, --size N        blocks of N x N (default 64, at most %d)\n"
	       "  -b, --batches B     B batches generated from their numbers (default 16)\n"
	       "  -d, --dir DIR       a batch per file of DIR, by name: A then B, float32\n"
	       "  -D, --device PATH   each rank's device (default $QPU_DEVICE, else /dev/qpu)\n"
	       "  -q, --qpus Q        QPUs per job (default: all)\n"
	       "  -s, --stats         rank 0: the time and batches per second on stderr\n"
	       "  -h, --help          this help; -V, --version  the version\n\n"
	       "See qpu-batch(1) and qpu-tools(7).\n", MAX_SIZE);
}

static uint64_t opt_num(const char *opt, const char *s, uint64_t min, uint64_t max)
{
	uint64_t v;

	if (!parse_u64(s, min, max, &v))
		start_error("%s '%s': not a number from %llu to %llu\n"
			    "Try 'qpu-batch --help' for more information.", opt, s,
			    (unsigned long long)min, (unsigned long long)max);
	return v;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "out", required_argument, NULL, 'o' },
		{ "size", required_argument, NULL, 'n' },
		{ "batches", required_argument, NULL, 'b' },
		{ "dir", required_argument, NULL, 'd' },
		{ "device", required_argument, NULL, 'D' },
		{ "qpus", required_argument, NULL, 'q' },
		{ "stats", no_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct batch_ctx ctx = { .n = 64 };
	const char *out_path = NULL, *device = NULL;
	unsigned int nbatches = 16, qpus = 0;
	struct qpu_mpi_failure fail;
	double t0, t1, cpu, cpus;
	struct timespec ts;
	uint64_t v;
	float *results = NULL;
	FILE *out = NULL;
	int c, size, stats = 0, rc;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	opterr = rank == 0;
	while ((c = getopt_long(argc, argv, "o:n:b:d:D:q:shV", opts, NULL)) != -1) {
		switch (c) {
		case 'o': out_path = optarg; break;
		case 'n': ctx.n = (unsigned int)opt_num("--size", optarg, 1, MAX_SIZE); break;
		case 'b': nbatches = (unsigned int)opt_num("--batches", optarg, 1, MAX_BATCHES); break;
		case 'd': ctx.dir = optarg; break;
		case 'D': device = optarg; break;
		case 'q': qpus = (unsigned int)opt_num("--qpus", optarg, 1, 64); break;
		case 's': stats = 1; break;
		case 'h': usage(); MPI_Finalize(); return 0;
		case 'V':
			if (rank == 0)
				printf("%s (libqpu) %s\n", tool_name, qpu_version());
			MPI_Finalize();
			return 0;
		default: start_error("Try 'qpu-batch --help' for more information.");
		}
	}
	if (optind != argc)
		start_error("unexpected '%s'\nTry 'qpu-batch --help' for more information.",
			    argv[optind]);
	if (!out_path)
		start_error("no --out FILE\nTry 'qpu-batch --help' for more information.");
	if (rank == 0) {
		out = fopen(out_path, "wb");
		if (!out)
			fprintf(stderr, "%s: %s: %s\n", tool_name, out_path, strerror(errno));
	}
	agree(rank != 0 || out);
	if (ctx.dir)
		ctx.files = list_dir(ctx.dir, &nbatches, &ctx.names);

	/* Each rank its own device: a board's /dev/qpu, or its own emulator. */
	ctx.dev = qpu_dev_open(device);
	if (!ctx.dev)
		fprintf(stderr, "%s: rank %d: %s: %s\n", tool_name, rank,
			device ? device : getenv("QPU_DEVICE") ? getenv("QPU_DEVICE") : "/dev/qpu",
			qpu_last_error());
	agree(ctx.dev != NULL);
	if (!qpus && !qpu_dev_get_param(ctx.dev, QPU_DEV_PARAM_NUM_QPUS, &v))
		qpus = (unsigned int)v;
	ctx.qpus = qpus ? qpus : 1;
	ctx.kernels = qpu_kernels_new(ctx.dev);
	ctx.bo = qpu_bo_new(ctx.dev, 3 * (size_t)ctx.n * ctx.n * sizeof(float));
	if (!ctx.kernels || !ctx.bo)
		fprintf(stderr, "%s: rank %d: %s\n", tool_name, rank, qpu_last_error());
	agree(ctx.kernels && ctx.bo);
	if (rank == 0) {
		results = malloc((size_t)nbatches * ctx.n * ctx.n * sizeof(float));
		if (!results)
			fprintf(stderr, "%s: out of memory for %u results\n", tool_name, nbatches);
	}
	agree(rank != 0 || results);

	MPI_Barrier(MPI_COMM_WORLD);
	t0 = MPI_Wtime();
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	cpu = ts.tv_sec + ts.tv_nsec / 1e9;
	rc = qpu_mpi_run_batches(MPI_COMM_WORLD, nbatches, (size_t)ctx.n * ctx.n * sizeof(float),
				 run_batch, &ctx, results, &fail);
	t1 = MPI_Wtime();
	/* the CPU time of every rank (its device's threads too) in the batches:
	 * on a shared machine, what they cost apart from what others ran */
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	cpu = ts.tv_sec + ts.tv_nsec / 1e9 - cpu;
	MPI_Reduce(&cpu, &cpus, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
	if (rc > 0 && rank == 0)
		fprintf(stderr, "%s: batch %d failed on rank %d (%s): %s (%d of %u batches failed)\n",
			tool_name, fail.batch, fail.rank, fail.host, fail.message, fail.failed,
			nbatches);
	else if (rc < 0)
		fprintf(stderr, "%s: rank %d: %s\n", tool_name, rank, fail.message);
	if (rc == 0 && rank == 0) {
		size_t bytes = (size_t)nbatches * ctx.n * ctx.n * sizeof(float);

		if (fwrite(results, 1, bytes, out) != bytes || fflush(out)) {
			fprintf(stderr, "%s: %s: %s\n", tool_name, out_path, strerror(errno));
			rc = -1;
		}
		if (stats)
			fprintf(stderr, "%s: %u batches of %ux%u sgemm on %d ranks in %.3f s: %.1f batches/s, %.2f CPU-s in all\n",
				tool_name, nbatches, ctx.n, ctx.n, size, t1 - t0,
				nbatches / (t1 - t0), cpus);
	}
	if (out && fclose(out) && rc == 0) {
		fprintf(stderr, "%s: %s: %s\n", tool_name, out_path, strerror(errno));
		rc = -1;
	}
	free(results);
	qpu_bo_free(ctx.bo);
	qpu_kernels_free(ctx.kernels);
	qpu_dev_close(ctx.dev);
	free(ctx.names);
	free(ctx.files);
	MPI_Finalize();
	return rc ? EXIT_FAILURE : EXIT_SUCCESS;
}
