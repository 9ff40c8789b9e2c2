/* SPDX-License-Identifier: MIT */
/*
 * A board's publisher of detections and health to an MQTT broker
 * (qpu_mqtt.c, over libmosquitto): the topic tree of qpu-fleet(1), QoS 1
 * with the broker keeping the session, a bounded queue of what the broker
 * has not acknowledged yet, and a retained last will. libqpu does not link
 * it: a program that publishes links libqpu-mqtt.a and -lmosquitto.
 *
 * The topic tree, all under QPU_MQTT_ROOT ("qpu"), STREAM one level:
 *   qpu/STREAM/status      "online" at connect, "offline" at close or as
 *                          the last will when the board died; retained
 *   qpu/STREAM/detections  one JSON object per frame (qpu_mqtt_publish_frame)
 *   qpu/STREAM/health      one JSON object every few seconds
 *                          (qpu_mqtt_publish_health)
 *
 * Thread safety: one thread calls the functions of one struct qpu_mqtt;
 * libmosquitto's own thread sends, receives the acknowledgements and
 * reconnects.
 */
#ifndef QPU_TOOLS_MQTT_H
#define QPU_TOOLS_MQTT_H

#include <stddef.h>
#include <stdint.h>

#define QPU_MQTT_ROOT "qpu"
#define QPU_MQTT_DEFAULT_PORT 1883
/* The longest stream name: a topic level, and a client id with its prefix. */
#define QPU_MQTT_STREAM_MAX 64
/* Messages not yet acknowledged by the broker, kept for resending. */
#define QPU_MQTT_DEFAULT_QUEUE 4096
/* The password's environment variable, when no file names it. */
#define QPU_MQTT_PASSWORD_ENV "QPU_MQTT_PASSWORD"

struct qpu_mqtt;

/*
 * How to reach the broker. Only @host and @stream are needed; the TLS files
 * turn TLS on (@cafile, and @certfile with @keyfile for a client
 * certificate). The password comes from @password_file (its first line) or
 * else from $QPU_MQTT_PASSWORD, never from a command line.
 */
struct qpu_mqtt_config {
	const char *host;
	int port;			/* 0: QPU_MQTT_DEFAULT_PORT */
	const char *stream;		/* the topic level and the client id */
	const char *cafile;
	const char *certfile;
	const char *keyfile;
	const char *username;
	const char *password_file;
	unsigned int queue_max;		/* 0: QPU_MQTT_DEFAULT_QUEUE */
	unsigned int keepalive_s;	/* 0: 10 s */
};

/* One detected object, its box in pixels of the frame. */
struct qpu_mqtt_detection {
	const char *label;
	int class_id;
	float score;
	float x, y, w, h;
};

/*
 * One stage of a frame's pipeline: the time it took (a CPU re-run
 * included), where its result was made ("qpu", "cpu"), its modelled device
 * time (0: none) and whether a failed QPU run was re-run on the CPU.
 */
struct qpu_mqtt_stage {
	const char *name;
	uint64_t ns;
	const char *on;
	uint64_t model_ns;
	int recovered;
};

/* A frame's detections, numbered from 0 by the board. */
struct qpu_mqtt_frame {
	uint64_t frame;
	uint64_t capture_ns;	/* CLOCK_REALTIME when the frame came in */
	uint64_t done_ns;	/* CLOCK_REALTIME when its detections were ready */
	const struct qpu_mqtt_stage *stages;
	unsigned int nstages;
	const struct qpu_mqtt_detection *detections;
	unsigned int ndetections;
};

/*
 * A board's health. A value it cannot read is -1, published as null with
 * its why_* reason (or "unknown") under "null_reasons".
 */
struct qpu_mqtt_health {
	const char *device;	/* qpu_dev_describe() */
	const char *telemetry;	/* where the device's values came from:
				 * "qpu.ko", "firmware", "thermal zone", "sysfs", "none" */
	int64_t clock_hz;	/* the QPUs' clock as measured */
	int64_t temp_mc;	/* millidegrees Celsius */
	int64_t throttled;	/* the firmware's get_throttled bits */
	int64_t recoveries;	/* jobs the pipeline ran again after a fault */
	int64_t queue_depth;	/* frames submitted, not yet delivered */
	const char *why_clock, *why_temp, *why_throttled;
};

/* What the publisher did since qpu_mqtt_open(). */
struct qpu_mqtt_stats {
	uint64_t published;	/* handed to the queue */
	uint64_t acked;		/* acknowledged by the broker */
	uint64_t dropped;	/* refused: the queue was full */
	uint64_t queued;	/* waiting for an acknowledgement now */
	uint64_t reconnects;
};

/*
 * A publishing program's command line (qpu-detect(1)): the long options
 * QPU_MQTT_LONG_OPTIONS, their help QPU_MQTT_OPTIONS_HELP, read with
 * qpu_mqtt_take_option() into struct qpu_mqtt_opts.
 */
enum {
	QPU_MQTT_OPT_BROKER = 0x4d00,
	QPU_MQTT_OPT_STREAM,
	QPU_MQTT_OPT_CAFILE,
	QPU_MQTT_OPT_CERT,
	QPU_MQTT_OPT_KEY,
	QPU_MQTT_OPT_USER,
	QPU_MQTT_OPT_PASSWORD_FILE,
	QPU_MQTT_OPT_QUEUE,
	QPU_MQTT_OPT_HEALTH,
};

#define QPU_MQTT_LONG_OPTIONS \
	{ "mqtt", required_argument, NULL, QPU_MQTT_OPT_BROKER }, \
	{ "stream", required_argument, NULL, QPU_MQTT_OPT_STREAM }, \
	{ "mqtt-cafile", required_argument, NULL, QPU_MQTT_OPT_CAFILE }, \
	{ "mqtt-cert", required_argument, NULL, QPU_MQTT_OPT_CERT }, \
	{ "mqtt-key", required_argument, NULL, QPU_MQTT_OPT_KEY }, \
	{ "mqtt-user", required_argument, NULL, QPU_MQTT_OPT_USER }, \
	{ "mqtt-password-file", required_argument, NULL, QPU_MQTT_OPT_PASSWORD_FILE }, \
	{ "mqtt-queue", required_argument, NULL, QPU_MQTT_OPT_QUEUE }, \
	{ "health-interval", required_argument, NULL, QPU_MQTT_OPT_HEALTH }

#define QPU_MQTT_OPTIONS_HELP \
	"      --mqtt HOST[:PORT]   publish to the MQTT broker at HOST (port 1883)\n" \
	"      --stream NAME        the stream's name in the topics qpu/NAME/...\n" \
	"      --mqtt-cafile FILE   TLS, the broker checked against this CA\n" \
	"      --mqtt-cert FILE     TLS client certificate (with --mqtt-key FILE)\n" \
	"      --mqtt-user NAME     log in; the password is the first line of\n" \
	"                           --mqtt-password-file FILE, else $" QPU_MQTT_PASSWORD_ENV "\n" \
	"      --mqtt-queue N       messages kept for the broker at most (default 4096)\n" \
	"      --health-interval S  health every S seconds (default 5)\n"

/* What the options said; @addr NULL: no --mqtt, nothing to publish. */
struct qpu_mqtt_opts {
	const char *addr;
	unsigned int health_interval_s;
	struct qpu_mqtt_config cfg;
	char host[256];
};

/*
 * qpu_mqtt_take_option() - take getopt_long()'s @opt with @arg into @o.
 * Return: 1 taken, 0 not one of the options, -1 a bad value (@err says).
 */
int qpu_mqtt_take_option(struct qpu_mqtt_opts *o, int opt, const char *arg, char *err,
			 size_t err_size);

/*
 * qpu_mqtt_open_opts() - check what the options said together (a stream
 * without --mqtt, --mqtt without a stream) and qpu_mqtt_open() them.
 * Return: the publisher, NULL with @err empty when there was no --mqtt,
 * or NULL with the reason in @err.
 */
struct qpu_mqtt *qpu_mqtt_open_opts(struct qpu_mqtt_opts *o, char *err, size_t err_size);

/*
 * qpu_mqtt_parse_addr() - HOST[:PORT] (or [IPv6]:PORT) into @host (a copy
 * of at most @host_size - 1 bytes) and @port. Return: 0, or -1 with the
 * reason in @err.
 */
int qpu_mqtt_parse_addr(const char *addr, char *host, size_t host_size,
			int *port, char *err, size_t err_size);

/*
 * qpu_mqtt_check_stream() - whether @stream may be a topic level: 1 to
 * QPU_MQTT_STREAM_MAX letters, digits, '-', '_' or '.'. Return: 0, or -1
 * with the reason in @err.
 */
int qpu_mqtt_check_stream(const char *stream, char *err, size_t err_size);

/*
 * qpu_mqtt_open() - connect to the broker (at once: an unreachable broker,
 * a refused login or a bad TLS file is an error here, not later), with the
 * last will "offline" on the status topic, publish "online" there and start
 * libmosquitto's thread. Return: the publisher, or NULL with the reason in
 * @err.
 */
struct qpu_mqtt *qpu_mqtt_open(const struct qpu_mqtt_config *cfg, char *err,
			       size_t err_size);

/*
 * qpu_mqtt_publish_frame() - queue @f's detections for the broker. While
 * the broker is away the message waits in the queue and goes out when the
 * connection comes back; when the queue is full it is dropped, counted in
 * qpu_mqtt_stats.dropped, and the first drop after a good spell is logged
 * on stderr. Return: 0 queued, -1 dropped or out of memory.
 */
int qpu_mqtt_publish_frame(struct qpu_mqtt *m, const struct qpu_mqtt_frame *f);

/* qpu_mqtt_publish_health() - the same for @h on the health topic. */
int qpu_mqtt_publish_health(struct qpu_mqtt *m, const struct qpu_mqtt_health *h);

/*
 * qpu_mqtt_read_sys_health() - fill the fields of @h still -1 from what the
 * system tells: the SoC's temperature (thermal_zone0) and the firmware's
 * throttling bits where the kernel shows them, each with its reason when
 * it does not. The caller sets the device's own values first.
 */
void qpu_mqtt_read_sys_health(struct qpu_mqtt_health *h);

/*
 * qpu_mqtt_setup_client() - what a subscriber shares with the publisher:
 * MQTT 3.1.1, the reconnect delay, the login and TLS of @cfg on @mosq.
 * Return: 0, or -1 with the reason in @err.
 */
struct mosquitto;
int qpu_mqtt_setup_client(struct mosquitto *mosq, const struct qpu_mqtt_config *cfg,
			  char *err, size_t err_size);

void qpu_mqtt_get_stats(struct qpu_mqtt *m, struct qpu_mqtt_stats *stats);

/*
 * qpu_mqtt_close() - publish "offline", wait up to @timeout_ms for the
 * queue to empty, disconnect and free @m; the final counts into @stats
 * (or NULL). Return: the messages still queued (lost), 0 when all went out.
 */
uint64_t qpu_mqtt_close(struct qpu_mqtt *m, int timeout_ms, struct qpu_mqtt_stats *stats);

#endif /* QPU_TOOLS_MQTT_H */
