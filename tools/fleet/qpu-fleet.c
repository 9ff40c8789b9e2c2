// SPDX-License-Identifier: MIT
/*
 * qpu-fleet: the subscriber of the boards' topic tree (qpu_mqtt.h), one
 * table of every stream's frames, rate, latency and health, and with --out
 * every message and every table row as JSON lines. Its session is kept by
 * the broker (clean_session false, QoS 1, the client id of --id), so what
 * the boards publish while it is away waits for it. QoS 1 may deliver a
 * message twice (a resend after a lost acknowledgement): a frame number
 * already seen on its stream is counted as a duplicate and marked so.
 */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <mosquitto.h>

#include "cli.h"
#include "die.h"
#include "json.h"
#include "qpu_mqtt.h"

const char tool_name[] = "qpu-fleet";

#define MAX_STREAMS 1024

struct stream {
	char name[QPU_MQTT_STREAM_MAX + 1];
	char status[16];
	char device[64];
	uint64_t frames;	/* distinct frames received */
	uint64_t dups;
	uint64_t gaps;		/* frames skipped: numbers never received */
	int64_t last_frame;	/* -1: none yet */
	uint64_t frames_at_tick;	/* @frames at the last table */
	double rate;		/* frames/s over the last table's interval */
	double latency_ms;	/* of the last frame */
	double latency_sum_ms;
	double temp_c;
	int64_t throttled, recoveries, queue_depth, mqtt_dropped;
};

/*
 * @lock covers the streams and the --out file: libmosquitto's thread
 * (on_message) writes them, the main thread prints the table.
 */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct stream streams[MAX_STREAMS];
static unsigned int nstreams;
static FILE *out;
static const char *sub_filter;
static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static struct stream *find_stream(const char *name, size_t len)
{
	struct stream *s;
	unsigned int i;

	for (i = 0; i < nstreams; i++)
		if (strlen(streams[i].name) == len && !memcmp(streams[i].name, name, len))
			return &streams[i];
	if (nstreams == MAX_STREAMS || len > QPU_MQTT_STREAM_MAX)
		return NULL;
	s = &streams[nstreams++];
	memset(s, 0, sizeof(*s));
	memcpy(s->name, name, len);
	strcpy(s->status, "?");
	s->last_frame = -1;
	s->temp_c = -1;
	s->throttled = s->recoveries = s->queue_depth = s->mqtt_dropped = -1;
	return s;
}

static int64_t get_i64(const char *p, size_t n, const char *key)
{
	double v;

	return json_get_num(p, n, key, &v) ? -1 : (int64_t)v;
}

/* A detections message: count it, unless its frame was seen already. */
static int take_frame(struct stream *s, const char *p, size_t n)
{
	double frame, lat;

	if (json_get_num(p, n, "frame", &frame))
		return 0;
	if ((int64_t)frame <= s->last_frame) {
		s->dups++;
		return 1;
	}
	if ((int64_t)frame > s->last_frame + 1)
		s->gaps += (uint64_t)((int64_t)frame - s->last_frame - 1);
	s->last_frame = (int64_t)frame;
	s->frames++;
	if (!json_get_num(p, n, "latency_ns", &lat)) {
		s->latency_ms = lat / 1e6;
		s->latency_sum_ms += s->latency_ms;
	}
	return 0;
}

static void take_health(struct stream *s, const char *p, size_t n)
{
	int64_t t = get_i64(p, n, "temp_mc");

	json_get_str(p, n, "device", s->device, sizeof(s->device));
	s->temp_c = t < 0 ? -1 : t / 1000.0;
	s->throttled = get_i64(p, n, "throttled");
	s->recoveries = get_i64(p, n, "recoveries");
	s->queue_depth = get_i64(p, n, "queue_depth");
	s->mqtt_dropped = get_i64(p, n, "mqtt_dropped");
}

static void write_message(const char *type, const struct stream *s, int dup,
			  const char *payload, size_t n)
{
	struct json_out j;

	json_out_init(&j);
	json_out_begin(&j, NULL, '{');
	json_out_key_str(&j, "type", type);
	json_out_key_str(&j, "stream", s->name);
	json_out_key_u64(&j, "recv_ns", now_ns());
	if (!strcmp(type, "detections"))
		json_out_key_raw(&j, "dup", dup ? "true" : "false", dup ? 4 : 5);
	if (n && payload[0] == '{') {
		json_out_key_raw(&j, "payload", payload, n);
	} else {
		char text[64];

		snprintf(text, sizeof(text), "%.*s", (int)n, payload);
		json_out_key_str(&j, "payload", text);
	}
	json_out_end(&j, '}');
	if (json_out_ok(&j))
		fprintf(out, "%s\n", j.buf);
	json_out_free(&j);
}

static void on_message(struct mosquitto *mosq, void *data, const struct mosquitto_message *msg)
{
	const char *topic = msg->topic, *name, *kind;
	const char *p = msg->payload ? msg->payload : "";
	size_t n = msg->payloadlen > 0 ? (size_t)msg->payloadlen : 0;
	struct stream *s;
	int dup = 0;

	(void)mosq;
	(void)data;
	/* qpu/STREAM/KIND, nothing else */
	if (strncmp(topic, QPU_MQTT_ROOT "/", sizeof(QPU_MQTT_ROOT)))
		return;
	name = topic + sizeof(QPU_MQTT_ROOT);
	kind = strchr(name, '/');
	if (!kind || strchr(kind + 1, '/'))
		return;
	pthread_mutex_lock(&lock);
	s = find_stream(name, (size_t)(kind - name));
	kind++;
	if (!s)
		goto out;
	if (!strcmp(kind, "detections"))
		dup = take_frame(s, p, n);
	else if (!strcmp(kind, "health"))
		take_health(s, p, n);
	else if (!strcmp(kind, "status"))
		snprintf(s->status, sizeof(s->status), "%.*s", (int)(n < 15 ? n : 15), p);
	else
		goto out;
	if (out)
		write_message(kind, s, dup, p, n);
out:
	pthread_mutex_unlock(&lock);
}

static void on_connect(struct mosquitto *mosq, void *data, int rc)
{
	(void)data;
	if (rc == 0)
		mosquitto_subscribe(mosq, NULL, sub_filter, 1);
}

static void on_subscribe(struct mosquitto *mosq, void *data, int mid, int qos_count,
			 const int *granted_qos)
{
	(void)mosq;
	(void)data;
	(void)mid;
	if (qos_count < 1 || granted_qos[0] > 2)
		fprintf(stderr, "%s: the broker refused the subscription to %s\n", tool_name,
			sub_filter);
	else
		fprintf(stderr, "%s: subscribed to %s\n", tool_name, sub_filter);
}

static void write_row(const struct stream *s)
{
	struct json_out j;

	json_out_init(&j);
	json_out_begin(&j, NULL, '{');
	json_out_key_str(&j, "type", "stream");
	json_out_key_str(&j, "stream", s->name);
	json_out_key_u64(&j, "time_ns", now_ns());
	json_out_key_str(&j, "status", s->status);
	json_out_key_u64(&j, "frames", s->frames);
	json_out_key_i64(&j, "last_frame", s->last_frame);
	json_out_key_u64(&j, "duplicates", s->dups);
	json_out_key_u64(&j, "gaps", s->gaps);
	json_out_key_f(&j, "rate", s->rate);
	json_out_key_f(&j, "latency_ms", s->latency_ms);
	json_out_key_f(&j, "mean_latency_ms", s->frames ? s->latency_sum_ms / s->frames : 0);
	json_out_key_str(&j, "device", s->device);
	json_out_key_f(&j, "temp_c", s->temp_c);
	json_out_key_i64(&j, "throttled", s->throttled);
	json_out_key_i64(&j, "recoveries", s->recoveries);
	json_out_key_i64(&j, "queue_depth", s->queue_depth);
	json_out_key_i64(&j, "mqtt_dropped", s->mqtt_dropped);
	json_out_end(&j, '}');
	if (json_out_ok(&j))
		fprintf(out, "%s\n", j.buf);
	json_out_free(&j);
}

static void num_or_dash(char *buf, size_t size, int64_t v, const char *fmt)
{
	if (v < 0)
		snprintf(buf, size, "-");
	else
		snprintf(buf, size, fmt, v);
}

/* The table on stdout, each stream's rate over @secs, and the rows in --out. */
static void print_table(double secs, int show)
{
	unsigned int i;

	pthread_mutex_lock(&lock);
	if (show)
		printf("%-16s %-8s %8s %7s %8s %5s %5s %-20s %6s %9s %5s %5s %7s\n", "STREAM",
		       "STATUS", "FRAMES", "RATE/s", "LAT-ms", "DUPS", "GAPS", "DEVICE", "TEMP",
		       "THROTTLED", "RECOV", "QUEUE", "DROPPED");
	for (i = 0; i < nstreams; i++) {
		struct stream *s = &streams[i];
		char temp[24], thr[24], rec[24], q[24], drop[24];

		if (secs > 0)
			s->rate = (double)(s->frames - s->frames_at_tick) / secs;
		s->frames_at_tick = s->frames;
		if (s->temp_c < 0)
			snprintf(temp, sizeof(temp), "-");
		else
			snprintf(temp, sizeof(temp), "%.1fC", s->temp_c);
		num_or_dash(thr, sizeof(thr), s->throttled, "0x%" PRIx64);
		num_or_dash(rec, sizeof(rec), s->recoveries, "%" PRId64);
		num_or_dash(q, sizeof(q), s->queue_depth, "%" PRId64);
		num_or_dash(drop, sizeof(drop), s->mqtt_dropped, "%" PRId64);
		if (show)
			printf("%-16s %-8s %8" PRIu64 " %7.1f %8.2f %5" PRIu64 " %5" PRIu64
			       " %-20.20s %6s %9s %5s %5s %7s\n", s->name, s->status, s->frames,
			       s->rate, s->latency_ms, s->dups, s->gaps,
			       s->device[0] ? s->device : "-", temp, thr, rec, q, drop);
		if (out)
			write_row(s);
	}
	if (show) {
		if (!nstreams)
			printf("(no stream yet)\n");
		printf("\n");
		fflush(stdout);
	}
	if (out)
		fflush(out);
	pthread_mutex_unlock(&lock);
}

static void usage(void)
{
	printf("Usage: qpu-fleet [OPTION]... HOST[:PORT]\n"
	       "Show every board's stream from the MQTT broker at HOST (port %d):\n"
	       "frames, rate, latency and health, as qpu-detect --mqtt publishes them.\n\n"
	       "  -s, --stream NAME     only this stream (default: all under " QPU_MQTT_ROOT "/)\n"
	       "  -o, --out FILE        append every message and table row as JSON lines\n"
	       "  -i, --interval SECS   the table every SECS seconds (default 2; 0: at exit only)\n"
	       "  -t, --duration SECS   exit after SECS seconds (default: at SIGINT or SIGTERM)\n"
	       "  -q, --quiet           no table on standard output\n"
	       "      --id ID           the client id the broker keeps the session of (default qpu-fleet)\n"
	       "      --cafile FILE     TLS: the broker's CA certificate\n"
	       "      --cert FILE       TLS: a client certificate (with --key)\n"
	       "      --key FILE        TLS: its private key\n"
	       "      --user NAME       log in as NAME; the password is the first line of\n"
	       "                        --password-file FILE, else $" QPU_MQTT_PASSWORD_ENV "\n"
	       "  -h, --help            this help; -V, --version  the version\n\n"
	       "See qpu-fleet(1) for the topic tree and qpu-tools(7) for the conventions.\n",
	       QPU_MQTT_DEFAULT_PORT);
}

int main(int argc, char **argv)
{
	enum { OPT_ID = 256, OPT_CAFILE, OPT_CERT, OPT_KEY, OPT_USER, OPT_PWFILE };
	static const struct option opts[] = {
		{ "stream", required_argument, NULL, 's' },
		{ "out", required_argument, NULL, 'o' },
		{ "interval", required_argument, NULL, 'i' },
		{ "duration", required_argument, NULL, 't' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "id", required_argument, NULL, OPT_ID },
		{ "cafile", required_argument, NULL, OPT_CAFILE },
		{ "cert", required_argument, NULL, OPT_CERT },
		{ "key", required_argument, NULL, OPT_KEY },
		{ "user", required_argument, NULL, OPT_USER },
		{ "password-file", required_argument, NULL, OPT_PWFILE },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct qpu_mqtt_config cfg = { .stream = "qpu-fleet" };
	uint64_t interval = 2, duration = 0;
	const char *out_path = NULL, *stream = NULL;
	char host[256], err[256], filter[QPU_MQTT_STREAM_MAX + 16];
	struct timespec start, last, now;
	struct mosquitto *mosq;
	int c, rc, quiet = 0;

	while ((c = getopt_long(argc, argv, "s:o:i:t:qhV", opts, NULL)) != -1) {
		switch (c) {
		case 's': stream = optarg; break;
		case 'o': out_path = optarg; break;
		case 'i': interval = cli_opt_u64("--interval", optarg, 0, 86400); break;
		case 't': duration = cli_opt_u64("--duration", optarg, 1, 86400 * 365); break;
		case 'q': quiet = 1; break;
		case OPT_ID: cfg.stream = optarg; break;
		case OPT_CAFILE: cfg.cafile = optarg; break;
		case OPT_CERT: cfg.certfile = optarg; break;
		case OPT_KEY: cfg.keyfile = optarg; break;
		case OPT_USER: cfg.username = optarg; break;
		case OPT_PWFILE: cfg.password_file = optarg; break;
		case 'h': usage(); return 0;
		case 'V': print_version(); return 0;
		default: try_help(EXIT_FAILURE);
		}
	}
	if (optind != argc - 1)
		usage_error(EXIT_FAILURE, optind == argc ? "no broker (HOST[:PORT])" :
			    "one broker only");
	if (qpu_mqtt_parse_addr(argv[optind], host, sizeof(host), &cfg.port, err, sizeof(err)))
		usage_error(EXIT_FAILURE, "%s", err);
	if (stream && qpu_mqtt_check_stream(stream, err, sizeof(err)))
		usage_error(EXIT_FAILURE, "%s", err);
	if (qpu_mqtt_check_stream(cfg.stream, err, sizeof(err)))
		usage_error(EXIT_FAILURE, "--id: %s", err);
	snprintf(filter, sizeof(filter), QPU_MQTT_ROOT "/%s/+", stream ? stream : "+");
	sub_filter = filter;
	if (out_path) {
		out = fopen(out_path, "a");
		if (!out)
			die("%s: %s", out_path, strerror(errno));
	}

	mosquitto_lib_init();
	mosq = mosquitto_new(cfg.stream, false, NULL);
	if (!mosq)
		die("mosquitto_new: %s", strerror(errno));
	if (qpu_mqtt_setup_client(mosq, &cfg, err, sizeof(err)))
		die("%s", err);
	mosquitto_connect_callback_set(mosq, on_connect);
	mosquitto_message_callback_set(mosq, on_message);
	mosquitto_subscribe_callback_set(mosq, on_subscribe);
	rc = mosquitto_connect(mosq, host, cfg.port, 10);
	if (rc)
		die("broker %s:%d: %s", host, cfg.port,
		    rc == MOSQ_ERR_ERRNO ? strerror(errno) : mosquitto_strerror(rc));
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	rc = mosquitto_loop_start(mosq);
	if (rc)
		die("libmosquitto's thread: %s", mosquitto_strerror(rc));

	clock_gettime(CLOCK_MONOTONIC, &start);
	last = start;
	while (!stop) {
		double since;

		usleep(100000);
		clock_gettime(CLOCK_MONOTONIC, &now);
		since = (double)(now.tv_sec - last.tv_sec) + (now.tv_nsec - last.tv_nsec) / 1e9;
		if (interval && since >= (double)interval) {
			print_table(since, !quiet);
			last = now;
		}
		if (duration && now.tv_sec - start.tv_sec >= (time_t)duration)
			break;
	}
	mosquitto_disconnect(mosq);
	mosquitto_loop_stop(mosq, false);
	clock_gettime(CLOCK_MONOTONIC, &now);
	print_table((double)(now.tv_sec - last.tv_sec) + (now.tv_nsec - last.tv_nsec) / 1e9,
		    !quiet);
	mosquitto_destroy(mosq);
	mosquitto_lib_cleanup();
	if (out && fclose(out))
		die("%s: %s", out_path, strerror(errno));
	return 0;
}
