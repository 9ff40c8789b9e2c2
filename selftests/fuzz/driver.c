// SPDX-License-Identifier: MIT
/*
 * The standalone fuzzing engine, for compilers without libFuzzer: the same
 * harness functions, called first on every seed input and then on seeds
 * changed by a seeded xorshift PRNG (bit flips, random and "interesting"
 * bytes, inserted and erased runs, copies within and across inputs, and
 * dictionary tokens), until a time or run limit. It takes libFuzzer's
 * options that check-fuzz uses (-max_total_time, -timeout, -runs, -seed,
 * -max_len, -dict, -artifact_prefix) and ignores the others, so
 * run-fuzz.sh calls both engines alike. Without coverage feedback it finds
 * less than libFuzzer; it still finds what sanitizers see on mutated seeds.
 * An input that crashes, trips a sanitizer or overruns -timeout is written
 * to <artifact_prefix>crash-<hash> (or timeout-<hash>) and the run fails.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fuzz.h"

/* Optional in a harness, as with libFuzzer. */
extern int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/common_interface_defs.h>
#endif

struct input {
	uint8_t *data;
	size_t size;
};

static struct input *corpus;
static size_t ncorpus;
static struct input *dict;
static size_t ndict;

static uint8_t *cur;		/* the input being run, for the crash handlers */
static size_t cur_size;
static char artifact_prefix[512] = "./";
static const char *artifact_kind = "crash";

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t rnd64(void)
{
	uint64_t x = rng;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	rng = x;
	return x * 0x2545f4914f6cdd1dull;
}

static size_t rnd(size_t n)
{
	return n ? (size_t)(rnd64() >> 11) % n : 0;
}

/* Write the current input as an artifact; async-signal-safe. */
static void save_input(void)
{
	static const char hex[] = "0123456789abcdef";
	char path[600];
	uint64_t h = 0xcbf29ce484222325ull;
	size_t i, n = 0;
	int fd;

	for (i = 0; i < cur_size; i++)
		h = (h ^ cur[i]) * 0x100000001b3ull;
	for (i = 0; artifact_prefix[i] && n < sizeof(path) - 64; i++)
		path[n++] = artifact_prefix[i];
	for (i = 0; artifact_kind[i]; i++)
		path[n++] = artifact_kind[i];
	path[n++] = '-';
	for (i = 0; i < 16; i++)
		path[n++] = hex[(h >> (60 - 4 * i)) & 15];
	path[n] = '\0';
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd >= 0) {
		if (write(fd, cur, cur_size) != (ssize_t)cur_size)
			(void)!write(2, "driver: short artifact write\n", 29);
		close(fd);
	}
	(void)!write(2, "driver: input written to ", 25);
	(void)!write(2, path, n);
	(void)!write(2, "\n", 1);
}

static void on_signal(int sig)
{
	if (sig == SIGALRM) {
		artifact_kind = "timeout";
		(void)!write(2, "driver: timeout\n", 16);
	}
	save_input();
	_exit(sig == SIGALRM ? 70 : 1);
}

#ifdef __SANITIZE_ADDRESS__
static void on_sanitizer_death(void)
{
	save_input();
}
#endif

/*
 * Sanitizer reports end in abort(), which on_signal() catches: UBSan's own
 * runtime does not call the death callback registered with ASan's.
 */
const char *__asan_default_options(void);
const char *__ubsan_default_options(void);

const char *__asan_default_options(void)
{
	return "abort_on_error=1";
}

const char *__ubsan_default_options(void)
{
	return "abort_on_error=1:print_stacktrace=1";
}

static void add_input(struct input **arr, size_t *n, const uint8_t *data, size_t size)
{
	struct input *p = realloc(*arr, (*n + 1) * sizeof(**arr));

	if (!p) {
		fprintf(stderr, "driver: out of memory\n");
		exit(1);
	}
	*arr = p;
	p[*n].data = malloc(size ? size : 1);
	if (!p[*n].data) {
		fprintf(stderr, "driver: out of memory\n");
		exit(1);
	}
	memcpy(p[*n].data, data, size);
	p[*n].size = size;
	(*n)++;
}

static void load_file(const char *path, size_t max_len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = malloc(max_len + 1);
	size_t n;

	if (!f || !buf) {
		fprintf(stderr, "driver: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	n = fread(buf, 1, max_len, f);
	fclose(f);
	add_input(&corpus, &ncorpus, buf, n);
	free(buf);
}

static void load_path(const char *path, size_t max_len)
{
	struct stat st;
	struct dirent *de;
	DIR *d;

	if (stat(path, &st)) {
		fprintf(stderr, "driver: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	if (!S_ISDIR(st.st_mode)) {
		load_file(path, max_len);
		return;
	}
	d = opendir(path);
	if (!d) {
		fprintf(stderr, "driver: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	while ((de = readdir(d))) {
		char p[4096];

		if (de->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%s", path, de->d_name);
		if (!stat(p, &st) && S_ISREG(st.st_mode))
			load_file(p, max_len);
	}
	closedir(d);
}

/* A dictionary in libFuzzer's format: one [name=]"token" per line. */
static void load_dict(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[1024];

	if (!f) {
		fprintf(stderr, "driver: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	while (fgets(line, sizeof(line), f)) {
		char *p = strchr(line, '"'), *end = strrchr(line, '"');
		uint8_t tok[1024];
		size_t n = 0;

		if (line[0] == '#' || !p || end == p)
			continue;
		for (p++; p < end; p++) {
			if (*p == '\\' && p[1] == 'x' && p + 3 < end) {
				char h[3] = { p[2], p[3], 0 };

				tok[n++] = (uint8_t)strtoul(h, NULL, 16);
				p += 3;
			} else if (*p == '\\' && p + 1 < end) {
				tok[n++] = (uint8_t)*++p;
			} else {
				tok[n++] = (uint8_t)*p;
			}
		}
		if (n)
			add_input(&dict, &ndict, tok, n);
	}
	fclose(f);
}

/* Change @buf (@*size bytes of @cap) in place a few times. */
static void mutate(uint8_t *buf, size_t *size, size_t cap)
{
	static const uint8_t interesting[] = {
		0, 1, 0x7f, 0x80, 0xff, 0x10, 0x20, 0x40, 0xe0, 0xf0, '\n', ';', ',',
	};
	size_t k, steps = 1 + rnd(4);

	for (k = 0; k < steps; k++) {
		size_t n = *size, pos = rnd(n + 1), len;
		const struct input *src;

		switch (rnd(8)) {
		case 0:		/* flip a bit */
			if (n)
				buf[rnd(n)] ^= (uint8_t)(1u << rnd(8));
			break;
		case 1:		/* a random byte */
			if (n)
				buf[rnd(n)] = (uint8_t)rnd64();
			break;
		case 2:		/* an interesting byte */
			if (n)
				buf[rnd(n)] = interesting[rnd(sizeof(interesting))];
			break;
		case 3:		/* erase a run */
			len = rnd(n - (pos < n ? pos : n) + 1);
			memmove(buf + pos, buf + pos + len, n - pos - len);
			*size = n - len;
			break;
		case 4:		/* insert random bytes */
			len = rnd(8) + 1;
			if (n + len > cap)
				break;
			memmove(buf + pos + len, buf + pos, n - pos);
			for (size_t i = 0; i < len; i++)
				buf[pos + i] = (uint8_t)rnd64();
			*size = n + len;
			break;
		case 5:		/* copy a run within */
			len = rnd(n) + 1;
			if (!n || n + len > cap)
				break;
			{
				uint8_t *run = malloc(len);
				size_t from = rnd(n - len + 1);

				if (!run)
					break;
				memcpy(run, buf + from, len);
				memmove(buf + pos + len, buf + pos, n - pos);
				memcpy(buf + pos, run, len);
				free(run);
				*size = n + len;
			}
			break;
		case 6:		/* splice in a piece of another input */
			src = &corpus[rnd(ncorpus)];
			if (!src->size)
				break;
			len = rnd(src->size) + 1;
			if (n + len > cap)
				break;
			memmove(buf + pos + len, buf + pos, n - pos);
			memcpy(buf + pos, src->data + rnd(src->size - len + 1), len);
			*size = n + len;
			break;
		default:	/* a dictionary token */
			if (!ndict)
				break;
			src = &dict[rnd(ndict)];
			if (n + src->size > cap)
				break;
			memmove(buf + pos + src->size, buf + pos, n - pos);
			memcpy(buf + pos, src->data, src->size);
			*size = n + src->size;
			break;
		}
	}
}

static void run_one(const uint8_t *data, size_t size, unsigned int timeout)
{
	/* a private copy, so that reads past the end are caught */
	uint8_t *copy = malloc(size ? size : 1);

	if (!copy)
		exit(1);
	memcpy(copy, data, size);
	cur = copy;
	cur_size = size;
	alarm(timeout);
	LLVMFuzzerTestOneInput(copy, size);
	alarm(0);
	cur = NULL;
	cur_size = 0;
	free(copy);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	unsigned long max_time = 0, runs = 0, done = 0, seed = 0;
	unsigned int timeout = 1200;
	size_t max_len = 4096, i;
	uint8_t *buf;
	double start;
	int a;

	for (a = 1; a < argc; a++) {
		const char *s = argv[a];

		if (s[0] != '-')
			continue;
		if (!strncmp(s, "-max_total_time=", 16))
			max_time = strtoul(s + 16, NULL, 10);
		else if (!strncmp(s, "-timeout=", 9))
			timeout = (unsigned int)strtoul(s + 9, NULL, 10);
		else if (!strncmp(s, "-runs=", 6))
			runs = strtoul(s + 6, NULL, 10);
		else if (!strncmp(s, "-seed=", 6))
			seed = strtoul(s + 6, NULL, 10);
		else if (!strncmp(s, "-max_len=", 9))
			max_len = strtoul(s + 9, NULL, 10);
		else if (!strncmp(s, "-dict=", 6))
			load_dict(s + 6);
		else if (!strncmp(s, "-artifact_prefix=", 17))
			snprintf(artifact_prefix, sizeof(artifact_prefix), "%s", s + 17);
		else
			fprintf(stderr, "driver: ignoring %s\n", s);
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!seed)
		seed = (unsigned long)time(NULL) ^ (unsigned long)getpid();
	rng ^= (uint64_t)seed * 0x9e3779b97f4a7c15ull;
	if (!rng)
		rng = 1;
	signal(SIGALRM, on_signal);
	signal(SIGSEGV, on_signal);
	signal(SIGBUS, on_signal);
	signal(SIGFPE, on_signal);
	signal(SIGABRT, on_signal);
#ifdef __SANITIZE_ADDRESS__
	__sanitizer_set_death_callback(on_sanitizer_death);
#endif
	if (LLVMFuzzerInitialize)
		LLVMFuzzerInitialize(&argc, &argv);
	for (a = 1; a < argc; a++)
		if (argv[a][0] != '-')
			load_path(argv[a], max_len);
	if (!ncorpus)
		add_input(&corpus, &ncorpus, (const uint8_t *)"", 0);
	printf("driver: seed %lu, %zu inputs, %zu dictionary tokens\n", seed,
	       ncorpus, ndict);

	start = now();
	for (i = 0; i < ncorpus; i++, done++)
		run_one(corpus[i].data, corpus[i].size, timeout);
	buf = malloc(max_len ? max_len : 1);
	if (!buf)
		return 1;
	while ((!runs || done < runs) && (!max_time || now() - start < (double)max_time) &&
	       (runs || max_time)) {
		const struct input *in = &corpus[rnd(ncorpus)];
		size_t size = in->size < max_len ? in->size : max_len;

		memcpy(buf, in->data, size);
		mutate(buf, &size, max_len);
		run_one(buf, size, timeout);
		done++;
	}
	printf("driver: done %lu runs in %.0f s\n", done, now() - start);
	free(buf);
	return 0;
}
