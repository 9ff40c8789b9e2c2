// SPDX-License-Identifier: MIT
/*
 * Latency windows (the last N samples, allocated at start), their
 * percentiles and jitter, and the JSON form of every figure.
 *
 * Percentiles are exact over the window: the samples are copied into the
 * window's own scratch and sorted when asked, so the data path only stores
 * a number and nothing is allocated after qpu_pipeline_start().
 */

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline/pipeline_internal.h"

int pl_window_init(struct pl_window *w, unsigned int cap)
{
	memset(w, 0, sizeof(*w));
	w->ns = calloc(cap, sizeof(*w->ns));
	w->model_ns = calloc(cap, sizeof(*w->model_ns));
	w->scratch = calloc(cap, sizeof(*w->scratch));
	if (!w->ns || !w->model_ns || !w->scratch) {
		pl_window_fini(w);
		return -ENOMEM;
	}
	w->cap = cap;
	return 0;
}

void pl_window_fini(struct pl_window *w)
{
	free(w->ns);
	free(w->model_ns);
	free(w->scratch);
	memset(w, 0, sizeof(*w));
}

void pl_window_add(struct pl_window *w, uint64_t ns, uint64_t model_ns)
{
	if (!w->cap)
		return;
	w->ns[w->next] = ns;
	w->model_ns[w->next] = model_ns;
	w->next = (w->next + 1) % w->cap;
	if (w->count < w->cap)
		w->count++;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The nearest-rank percentile @p of @n sorted samples. */
static uint64_t rank(const uint64_t *sorted, unsigned int n, unsigned int p)
{
	unsigned int r = (unsigned int)(((uint64_t)p * n + 99) / 100);

	return sorted[r ? r - 1 : 0];
}

void pl_window_latency(struct pl_window *w, struct qpu_pipeline_latency *out)
{
	double sum = 0, sq = 0, mean, model_sum = 0;
	unsigned int i, modelled = 0;

	memset(out, 0, sizeof(*out));
	if (!w->count)
		return;
	for (i = 0; i < w->count; i++) {
		sum += (double)w->ns[i];
		if (w->model_ns[i]) {
			model_sum += (double)w->model_ns[i];
			modelled++;
		}
	}
	mean = sum / w->count;
	for (i = 0; i < w->count; i++)
		sq += ((double)w->ns[i] - mean) * ((double)w->ns[i] - mean);
	memcpy(w->scratch, w->ns, w->count * sizeof(*w->ns));
	qsort(w->scratch, w->count, sizeof(*w->scratch), cmp_u64);
	out->count = w->count;
	out->p50_ns = rank(w->scratch, w->count, 50);
	out->p90_ns = rank(w->scratch, w->count, 90);
	out->p99_ns = rank(w->scratch, w->count, 99);
	out->max_ns = w->scratch[w->count - 1];
	out->mean_ns = (uint64_t)mean;
	out->jitter_ns = (uint64_t)sqrt(sq / w->count);
	out->model_ns = modelled ? (uint64_t)(model_sum / modelled) : 0;
}

struct json {
	char *buf;
	size_t size;
	size_t len;
};

static void put(struct json *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(struct json *j, const char *fmt, ...)
{
	size_t room = j->len < j->size ? j->size - j->len : 0;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(room ? j->buf + j->len : NULL, room, fmt, ap);
	va_end(ap);
	if (n > 0)
		j->len += (size_t)n;
}

static void put_latency(struct json *j, const struct qpu_pipeline_latency *l)
{
	put(j, "{\"count\":%llu,\"p50_ns\":%llu,\"p90_ns\":%llu,\"p99_ns\":%llu,\"max_ns\":%llu,"
	    "\"mean_ns\":%llu,\"jitter_ns\":%llu,\"model_ns\":%llu}",
	    (unsigned long long)l->count, (unsigned long long)l->p50_ns,
	    (unsigned long long)l->p90_ns, (unsigned long long)l->p99_ns,
	    (unsigned long long)l->max_ns, (unsigned long long)l->mean_ns,
	    (unsigned long long)l->jitter_ns, (unsigned long long)l->model_ns);
}

int pl_stats_json(struct qpu_pipeline *pl, char *buf, size_t size)
{
	struct json j = { .buf = buf, .size = size };
	struct qpu_pipeline_stats s;
	const struct qpu_pipeline_telemetry *t = &s.telemetry;
	unsigned int i;

	qpu_pipeline_get_stats(pl, &s);
	put(&j, "{\"frames\":{\"submitted\":%llu,\"delivered\":%llu,\"failed\":%llu,\"refused\":%llu},"
	    "\"in_flight\":%u,\"recoveries\":%llu,\"warnings\":%llu,\"latency\":",
	    (unsigned long long)s.submitted, (unsigned long long)s.delivered,
	    (unsigned long long)s.failed, (unsigned long long)s.refused, s.in_flight,
	    (unsigned long long)s.recoveries, (unsigned long long)s.warnings);
	put_latency(&j, &s.latency);
	put(&j, ",\"telemetry\":{\"samples\":%llu,\"source\":\"%s\"",
	    (unsigned long long)s.telemetry_samples, t->source ? t->source : "none");
	if (t->flags & QPU_PIPELINE_TELEMETRY_CLOCK)
		put(&j, ",\"clock_hz\":%llu", (unsigned long long)t->clock_hz);
	if (t->flags & QPU_PIPELINE_TELEMETRY_TEMP)
		put(&j, ",\"temp_mc\":%d", (int)t->temp_mc);
	if (t->flags & QPU_PIPELINE_TELEMETRY_THROTTLED)
		put(&j, ",\"throttled\":%u", (unsigned int)t->throttled);
	put(&j, "},\"stages\":[");
	for (i = 0; i < s.stage_count; i++) {
		struct qpu_pipeline_stage_stats st;

		qpu_pipeline_get_stage_stats_v0_7(pl, i, &st);
		put(&j, "%s{\"name\":\"%s\",\"place\":\"%s\",\"frames\":%llu,\"qpu_runs\":%llu,"
		    "\"cpu_runs\":%llu,\"failed\":%llu,\"recoveries\":%llu,\"timeouts\":%llu,"
		    "\"faults\":%llu,\"canceled\":%llu,\"recovery_ns\":%llu,\"recovery_max_ns\":%llu,"
		    "\"back_to_qpu_max_ns\":%llu,\"slowdowns\":%llu,\"unsupported\":%llu,"
		    "\"timeout_ms\":%u,\"latency\":",
		    i ? "," : "", st.name, qpu_pipeline_place_name(st.place),
		    (unsigned long long)st.frames, (unsigned long long)st.qpu_runs,
		    (unsigned long long)st.cpu_runs, (unsigned long long)st.failed,
		    (unsigned long long)st.recoveries, (unsigned long long)st.timeouts,
		    (unsigned long long)st.faults, (unsigned long long)st.canceled,
		    (unsigned long long)st.recovery_ns, (unsigned long long)st.recovery_max_ns,
		    (unsigned long long)st.back_to_qpu_max_ns, (unsigned long long)st.slowdowns,
		    (unsigned long long)st.unsupported, st.timeout_ms);
		put_latency(&j, &st.latency);
		put(&j, ",\"chained\":%llu}", (unsigned long long)pl_stage_chained(pl, i));
	}
	put(&j, "]}");
	if (j.len > 0x7fffffff)
		return -EOVERFLOW;
	return (int)j.len;
}
