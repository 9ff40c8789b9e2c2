// SPDX-License-Identifier: MIT
/*
 * qpuctl v3d stats and v3d top: a Pi 4's or 5's GPU use as the upstream v3d
 * driver tells it from Linux 6.8 on (Debian's 6.1 tells none): the device's
 * sysfs gpu_stats (per queue: a timestamp, jobs completed, runtime in ns)
 * and each open file's fdinfo (drm-driver "v3d", drm-client-id,
 * drm-engine-<queue> ns, v3d-jobs-<queue> jobs). stats prints one sample
 * of every queue; top samples twice per interval and gives each node's
 * compute (csd) queue busy share and job rate, and each client's (process,
 * file) jobs and busy share. qpuctl stats and top show the same where
 * qpu.ko is not loaded and a node has gpu_stats. Every path is read under
 * $QPUCTL_ROOT, as for doctor, so that tests can stage a machine.
 */

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "qpuctl.h"
#include "doctor.h"

#define V3D_STATS_MAX_NODES	16
#define V3D_STATS_MAX_QUEUES	8
#define V3D_STATS_MAX_CLIENTS	64
/* The compute queue: what libqpu's jobs run on. */
#define V3D_STATS_CSD		"csd"

struct v3d_queue {
	char name[16];
	uint64_t timestamp_ns, jobs, runtime_ns;
};

struct v3d_node {
	char name[256];			/* renderDN */
	unsigned int nqueues;
	struct v3d_queue queues[V3D_STATS_MAX_QUEUES];
};

struct v3d_client {
	int pid;
	int fd;
	uint64_t id;
	char comm[32];
	uint64_t csd_jobs, csd_ns;
};

struct v3d_sample {
	unsigned int nnodes, nclients;
	struct v3d_node nodes[V3D_STATS_MAX_NODES];
	struct v3d_client clients[V3D_STATS_MAX_CLIENTS];
	uint64_t when_ns;
};

static const char *v3d_root(void)
{
	const char *root = getenv("QPUCTL_ROOT");

	return root ? root : "";
}

/* A node's gpu_stats into @n; false when it has none. */
static bool v3d_read_gpu_stats(const char *name, struct v3d_node *n)
{
	char path[4096], line[256];
	struct v3d_queue *q;
	FILE *f;

	snprintf(path, sizeof(path), "%s/sys/class/drm/%s/device/gpu_stats", v3d_root(), name);
	f = fopen(path, "re");
	if (!f)
		return false;
	memset(n, 0, sizeof(*n));
	snprintf(n->name, sizeof(n->name), "%s", name);
	/* the header, then one line per queue */
	if (fgets(line, sizeof(line), f))
		while (n->nqueues < V3D_STATS_MAX_QUEUES && fgets(line, sizeof(line), f)) {
			q = &n->queues[n->nqueues];
			if (sscanf(line, "%15s %" SCNu64 " %" SCNu64 " %" SCNu64, q->name,
				   &q->timestamp_ns, &q->jobs, &q->runtime_ns) == 4)
				n->nqueues++;
		}
	fclose(f);
	return true;
}

static int v3d_name_cmp(const void *a, const void *b)
{
	return strcmp(((const struct v3d_node *)a)->name, ((const struct v3d_node *)b)->name);
}

/* Every render node with gpu_stats; how many render nodes there are. */
static unsigned int v3d_read_nodes(struct v3d_sample *s)
{
	char dir[4096];
	unsigned int render = 0;
	struct dirent *e;
	DIR *dp;

	snprintf(dir, sizeof(dir), "%s/dev/dri", v3d_root());
	dp = opendir(dir);
	while (dp && (e = readdir(dp)))
		if (!strncmp(e->d_name, "renderD", 7)) {
			render++;
			if (s->nnodes < V3D_STATS_MAX_NODES &&
			    v3d_read_gpu_stats(e->d_name, &s->nodes[s->nnodes]))
				s->nnodes++;
		}
	if (dp)
		closedir(dp);
	qsort(s->nodes, s->nnodes, sizeof(s->nodes[0]), v3d_name_cmp);
	return render;
}

static const struct v3d_queue *v3d_queue_of(const struct v3d_node *n, const char *name)
{
	unsigned int i;

	for (i = 0; i < n->nqueues; i++)
		if (!strcmp(n->queues[i].name, name))
			return &n->queues[i];
	return NULL;
}

/* One fdinfo file: a v3d client into @c, else false. */
static bool v3d_read_fdinfo(const char *path, struct v3d_client *c)
{
	char line[256];
	bool v3d = false;
	FILE *f = fopen(path, "re");

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		if (!strcmp(line, "drm-driver:\tv3d\n"))
			v3d = true;
		else if (!strncmp(line, "drm-client-id:", 14))
			c->id = strtoull(line + 14, NULL, 10);
		else if (!strncmp(line, "drm-engine-" V3D_STATS_CSD ":", 15))
			c->csd_ns = strtoull(line + 15, NULL, 10);
		else if (!strncmp(line, "v3d-jobs-" V3D_STATS_CSD ":", 13))
			c->csd_jobs = strtoull(line + 13, NULL, 10);
	}
	fclose(f);
	return v3d;
}

static void v3d_read_comm(int pid, char *comm, size_t size)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/proc/%d/comm", v3d_root(), pid);
	if (!doctor_read_line(path, comm, size))
		snprintf(comm, size, "?");
}

/* Every process's v3d files, by their fdinfo. */
static void v3d_read_clients(struct v3d_sample *s)
{
	char dir[4096], fddir[4096 + 64], path[8192];
	struct dirent *p, *e;
	DIR *dp, *fp;
	char *end;
	long pid;

	snprintf(dir, sizeof(dir), "%s/proc", v3d_root());
	dp = opendir(dir);
	while (dp && (p = readdir(dp))) {
		pid = strtol(p->d_name, &end, 10);
		if (*end || pid <= 0)
			continue;
		snprintf(fddir, sizeof(fddir), "%s/%ld/fdinfo", dir, pid);
		fp = opendir(fddir);
		while (fp && (e = readdir(fp)) && s->nclients < V3D_STATS_MAX_CLIENTS) {
			struct v3d_client *c = &s->clients[s->nclients];

			if (e->d_name[0] == '.')
				continue;
			memset(c, 0, sizeof(*c));
			snprintf(path, sizeof(path), "%s/%s", fddir, e->d_name);
			if (!v3d_read_fdinfo(path, c))
				continue;
			c->pid = (int)pid;
			c->fd = atoi(e->d_name);
			v3d_read_comm(c->pid, c->comm, sizeof(c->comm));
			s->nclients++;
		}
		if (fp)
			closedir(fp);
	}
	if (dp)
		closedir(dp);
}

static uint64_t v3d_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void v3d_sample(struct v3d_sample *s, bool clients)
{
	memset(s, 0, sizeof(*s));
	if (!v3d_read_nodes(s) || !s->nnodes)
		die("no v3d node with gpu_stats in %s/dev/dri (the v3d driver gives it from Linux 6.8 on; qpuctl v3d lists the nodes)",
		    v3d_root());
	if (clients)
		v3d_read_clients(s);
	s->when_ns = v3d_now_ns();
}

/* JSON: the busy share in per mille; text: in percent. */
static void v3d_print_busy(uint64_t permille)
{
	print_uint("csd_busy_permille", NULL, permille);
	if (!print_json())
		printf(" busy %.1f%%\n", permille / 10.0);
}

static void v3d_print_node(const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), "/dev/dri/%s", name);
	print_string("node", "node %s", path);
}

static void v3d_print_stats(const struct v3d_sample *s)
{
	unsigned int i, j;

	print_open_array(NULL);
	for (i = 0; i < s->nnodes; i++) {
		const struct v3d_node *n = &s->nodes[i];

		print_open_object(NULL);
		v3d_print_node(n->name);
		print_text("\n");
		print_open_array("queues");
		for (j = 0; j < n->nqueues; j++) {
			print_open_object(NULL);
			print_string("queue", "  %-12s", n->queues[j].name);
			print_uint("jobs", " jobs %" PRIu64, n->queues[j].jobs);
			print_uint("runtime_ns", " runtime_ns %" PRIu64 "\n",
				   n->queues[j].runtime_ns);
			print_close_object();
		}
		print_close_array();
		print_close_object();
	}
	print_close_array();
	print_flush();
}

/* A share of @span in per mille, rounded down, at most 1000. */
static uint64_t v3d_permille(uint64_t part, uint64_t span)
{
	return !span ? 0 : part >= span ? 1000 : part * 1000 / span;
}

static const struct v3d_client *v3d_client_before(const struct v3d_sample *s,
						  const struct v3d_client *c)
{
	unsigned int i;

	for (i = 0; i < s->nclients; i++)
		if (s->clients[i].pid == c->pid && s->clients[i].id == c->id)
			return &s->clients[i];
	return NULL;
}

static void v3d_print_top(const struct v3d_sample *a, const struct v3d_sample *b)
{
	uint64_t span = b->when_ns - a->when_ns, busy, jobs, ns;
	const struct v3d_queue *qa, *qb;
	const struct v3d_client *c, *p;
	unsigned int i, j;

	print_open_object(NULL);
	print_uint("interval_ns", "interval %" PRIu64 " ns\n", span);
	print_open_array("nodes");
	for (i = 0; i < b->nnodes; i++) {
		qb = v3d_queue_of(&b->nodes[i], V3D_STATS_CSD);
		qa = NULL;
		for (j = 0; j < a->nnodes; j++)
			if (!strcmp(a->nodes[j].name, b->nodes[i].name))
				qa = v3d_queue_of(&a->nodes[j], V3D_STATS_CSD);
		if (!qa || !qb)
			continue;
		busy = v3d_permille(qb->runtime_ns - qa->runtime_ns,
				    qb->timestamp_ns - qa->timestamp_ns);
		print_open_object(NULL);
		v3d_print_node(b->nodes[i].name);
		print_uint("csd_jobs", " csd_jobs %" PRIu64, qb->jobs);
		print_uint("csd_jobs_delta", " (+%" PRIu64 ")", qb->jobs - qa->jobs);
		v3d_print_busy(busy);
		print_close_object();
	}
	print_close_array();
	print_open_array("clients");
	for (i = 0; i < b->nclients; i++) {
		c = &b->clients[i];
		p = v3d_client_before(a, c);
		jobs = p ? c->csd_jobs - p->csd_jobs : c->csd_jobs;
		ns = p ? c->csd_ns - p->csd_ns : c->csd_ns;
		print_open_object(NULL);
		print_uint("pid", "client pid %" PRIu64, (uint64_t)c->pid);
		print_string("comm", " comm %s", c->comm);
		print_uint("fd", " fd %" PRIu64, (uint64_t)c->fd);
		print_uint("client_id", " id %" PRIu64, c->id);
		print_uint("csd_jobs", " csd_jobs %" PRIu64, c->csd_jobs);
		print_uint("csd_jobs_delta", " (+%" PRIu64 ")", jobs);
		print_uint("csd_ns", " csd_ns %" PRIu64, c->csd_ns);
		v3d_print_busy(v3d_permille(ns, span));
		print_close_object();
	}
	print_close_array();
	print_close_object();
	print_flush();
}

bool v3d_stats_instead(void)
{
	struct v3d_sample *s;
	char path[4096];
	bool yes;

	snprintf(path, sizeof(path), "%s/sys/module/qpu", v3d_root());
	if (!access(path, F_OK))
		return false;
	s = calloc(1, sizeof(*s));
	if (!s)
		return false;
	v3d_read_nodes(s);
	yes = s->nnodes;
	free(s);
	return yes;
}

int cmd_v3d_stats(int argc, char **argv)
{
	struct v3d_sample *s;

	if (argc)
		die("unexpected argument '%s': try 'qpuctl v3d help'", argv[0]);
	s = calloc(1, sizeof(*s));
	if (!s)
		die("out of memory");
	v3d_sample(s, false);
	v3d_print_stats(s);
	free(s);
	return 0;
}

int cmd_v3d_top(int argc, char **argv)
{
	struct v3d_sample *a, *b, *t;
	unsigned long count = 0, n;
	double interval = 1;

	top_parse_interval(&argc, &argv, &interval, &count);
	if (argc)
		die("unknown v3d top argument '%s': try 'qpuctl v3d help'", argv[0]);
	a = calloc(1, sizeof(*a));
	b = calloc(1, sizeof(*b));
	if (!a || !b)
		die("out of memory");
	v3d_sample(a, true);
	for (n = 1; !count || n <= count; n++) {
		struct timespec ts = {
			.tv_sec = (time_t)interval,
			.tv_nsec = (long)((interval - (time_t)interval) * 1e9),
		};

		while (nanosleep(&ts, &ts) && errno == EINTR)
			;
		v3d_sample(b, true);
		v3d_print_top(a, b);
		t = a;
		a = b;
		b = t;
	}
	free(a);
	free(b);
	return 0;
}
