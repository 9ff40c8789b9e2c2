// SPDX-License-Identifier: MIT
/*
 * The publisher of qpu_mqtt.h over libmosquitto. Why it is built this way:
 * QoS 1 with clean_session false makes the broker keep what it owes a
 * subscriber and makes libmosquitto keep every message the broker has not
 * acknowledged, resending it after a reconnect; libmosquitto's queue has
 * no bound, so this file counts what is outstanding (published minus
 * acknowledged) and refuses new messages past queue_max instead of growing
 * without end while the broker is away.
 */

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mosquitto.h>

#include "json.h"
#include "qpu_mqtt.h"

/*
 * A board's own health where the device has none of its own: the SoC's
 * temperature, and the Raspberry Pi kernels' firmware driver's view of
 * vcgencmd's throttled bits (hex).
 */
#define SYS_THERMAL_ZONE "/sys/class/thermal/thermal_zone0/temp"
#define SYS_GET_THROTTLED "/sys/devices/platform/soc/soc:firmware/get_throttled"

/* How long qpu_mqtt_open() waits for the broker's answer to CONNECT. */
#define CONNACK_WAIT_MS 5000

struct qpu_mqtt {
	struct mosquitto *mosq;
	char stream[QPU_MQTT_STREAM_MAX + 1];
	char topic_status[sizeof(QPU_MQTT_ROOT) + QPU_MQTT_STREAM_MAX + 16];
	char topic_detections[sizeof(QPU_MQTT_ROOT) + QPU_MQTT_STREAM_MAX + 16];
	char topic_health[sizeof(QPU_MQTT_ROOT) + QPU_MQTT_STREAM_MAX + 16];
	unsigned int queue_max;

	/*
	 * @lock covers what libmosquitto's thread changes (its callbacks)
	 * and the caller reads: the counts, the connection state; @cond
	 * signals the first CONNACK and each acknowledgement.
	 */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct qpu_mqtt_stats stats;
	int connack;		/* -1 none yet, else the broker's code */
	int connected;
	int dropping;		/* in a spell of drops: logged once */
};

static void set_err(char *err, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void set_err(char *err, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, size, fmt, ap);
	va_end(ap);
}

int qpu_mqtt_parse_addr(const char *addr, char *host, size_t host_size,
			int *port, char *err, size_t err_size)
{
	const char *colon, *end;
	size_t len;

	*port = QPU_MQTT_DEFAULT_PORT;
	if (addr[0] == '[') {
		end = strchr(addr, ']');
		if (!end) {
			set_err(err, err_size, "broker '%s': no ']' after the IPv6 address", addr);
			return -1;
		}
		addr++;
		len = end - addr;
		colon = end[1] == ':' ? end + 1 : NULL;
		if (end[1] && !colon) {
			set_err(err, err_size, "broker '%s': ':PORT' must follow ']'", addr - 1);
			return -1;
		}
	} else {
		colon = strrchr(addr, ':');
		if (colon && strchr(addr, ':') != colon) {
			set_err(err, err_size, "broker '%s': write an IPv6 address as [ADDR]:PORT", addr);
			return -1;
		}
		len = colon ? (size_t)(colon - addr) : strlen(addr);
	}
	if (len == 0 || len >= host_size) {
		set_err(err, err_size, "broker '%s': %s host name", addr,
			len ? "too long a" : "no");
		return -1;
	}
	memcpy(host, addr, len);
	host[len] = '\0';
	if (colon) {
		char *tail;
		long p;

		errno = 0;
		p = strtol(colon + 1, &tail, 10);
		if (errno || tail == colon + 1 || *tail || p < 1 || p > 65535) {
			set_err(err, err_size, "broker port '%s': not a port from 1 to 65535",
				colon + 1);
			return -1;
		}
		*port = (int)p;
	}
	return 0;
}

int qpu_mqtt_check_stream(const char *stream, char *err, size_t err_size)
{
	size_t i, len = strlen(stream);

	if (len == 0 || len > QPU_MQTT_STREAM_MAX) {
		set_err(err, err_size, "stream name '%s': 1 to %d characters", stream,
			QPU_MQTT_STREAM_MAX);
		return -1;
	}
	for (i = 0; i < len; i++) {
		char c = stream[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.')) {
			set_err(err, err_size,
				"stream name '%s': '%c' may not be in a topic level (letters, digits, '-', '_', '.')",
				stream, c);
			return -1;
		}
	}
	return 0;
}

static void on_connect(struct mosquitto *mosq, void *data, int rc)
{
	struct qpu_mqtt *m = data;

	(void)mosq;
	pthread_mutex_lock(&m->lock);
	if (m->connack >= 0 && rc == 0) {
		m->stats.reconnects++;
		fprintf(stderr, "qpu-mqtt: %s: connected to the broker again, resending %" PRIu64
			" queued messages\n", m->stream, m->stats.queued);
	}
	m->connack = rc;
	m->connected = rc == 0;
	pthread_cond_broadcast(&m->cond);
	pthread_mutex_unlock(&m->lock);
}

static void on_disconnect(struct mosquitto *mosq, void *data, int rc)
{
	struct qpu_mqtt *m = data;

	(void)mosq;
	pthread_mutex_lock(&m->lock);
	if (m->connected && rc != 0)
		fprintf(stderr, "qpu-mqtt: %s: lost the broker (%s): queueing until it is back\n",
			m->stream, mosquitto_strerror(rc));
	m->connected = 0;
	pthread_cond_broadcast(&m->cond);
	pthread_mutex_unlock(&m->lock);
}

static void on_publish(struct mosquitto *mosq, void *data, int mid)
{
	struct qpu_mqtt *m = data;

	(void)mosq;
	(void)mid;
	pthread_mutex_lock(&m->lock);
	m->stats.acked++;
	if (m->stats.queued)
		m->stats.queued--;
	if (m->dropping && m->stats.queued < m->queue_max / 2) {
		m->dropping = 0;
		fprintf(stderr, "qpu-mqtt: %s: the queue drains again (%" PRIu64
			" messages dropped so far)\n", m->stream, m->stats.dropped);
	}
	pthread_cond_broadcast(&m->cond);
	pthread_mutex_unlock(&m->lock);
}

/* The first line of @path into @buf, without its newline. */
static int read_first_line(const char *path, char *buf, size_t size)
{
	FILE *fp = fopen(path, "r");
	char *ok;

	if (!fp)
		return -1;
	ok = fgets(buf, (int)size, fp);
	fclose(fp);
	if (!ok)
		return -1;
	buf[strcspn(buf, "\r\n")] = '\0';
	return 0;
}

static int set_login(struct mosquitto *mosq, const struct qpu_mqtt_config *cfg, char *err,
		     size_t err_size)
{
	char password[512];
	const char *pw = NULL;
	int rc;

	if (cfg->password_file) {
		if (read_first_line(cfg->password_file, password, sizeof(password))) {
			set_err(err, err_size, "password file %s: %s", cfg->password_file,
				errno ? strerror(errno) : "empty");
			return -1;
		}
		pw = password;
	} else {
		pw = getenv(QPU_MQTT_PASSWORD_ENV);
	}
	if (!cfg->username && pw) {
		set_err(err, err_size, "a password but no user name (--mqtt-user)");
		return -1;
	}
	if (!cfg->username)
		return 0;
	rc = mosquitto_username_pw_set(mosq, cfg->username, pw);
	memset(password, 0, sizeof(password));
	if (rc) {
		set_err(err, err_size, "user name: %s", mosquitto_strerror(rc));
		return -1;
	}
	return 0;
}

static int set_tls(struct mosquitto *mosq, const struct qpu_mqtt_config *cfg, char *err,
		   size_t err_size)
{
	int rc;

	if (!cfg->cafile && !cfg->certfile && !cfg->keyfile)
		return 0;
	if (!cfg->cafile) {
		set_err(err, err_size, "TLS needs the broker's CA file (--mqtt-cafile)");
		return -1;
	}
	if (!cfg->certfile != !cfg->keyfile) {
		set_err(err, err_size, "a client certificate needs both --mqtt-cert and --mqtt-key");
		return -1;
	}
	rc = mosquitto_tls_set(mosq, cfg->cafile, NULL, cfg->certfile, cfg->keyfile, NULL);
	if (rc) {
		set_err(err, err_size, "TLS files (%s%s%s): %s", cfg->cafile,
			cfg->certfile ? ", " : "", cfg->certfile ? cfg->certfile : "",
			mosquitto_strerror(rc));
		return -1;
	}
	return 0;
}

int qpu_mqtt_setup_client(struct mosquitto *mosq, const struct qpu_mqtt_config *cfg,
			  char *err, size_t err_size)
{
	mosquitto_int_option(mosq, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V311);
	/* Back within 1 to 2 s of the broker's return, without doubling. */
	mosquitto_reconnect_delay_set(mosq, 1, 2, false);
	if (set_login(mosq, cfg, err, err_size) || set_tls(mosq, cfg, err, err_size))
		return -1;
	return 0;
}

/* Wait for the broker's CONNACK; 0 when it accepted us. */
static int wait_connack(struct qpu_mqtt *m, const char *host, int port, char *err,
			size_t err_size)
{
	struct timespec until;
	int rc = 0;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += CONNACK_WAIT_MS / 1000;
	pthread_mutex_lock(&m->lock);
	while (m->connack < 0 && rc == 0)
		rc = pthread_cond_timedwait(&m->cond, &m->lock, &until);
	rc = m->connack;
	pthread_mutex_unlock(&m->lock);
	if (rc < 0) {
		set_err(err, err_size, "broker %s:%d: no answer to CONNECT in %d s", host, port,
			CONNACK_WAIT_MS / 1000);
		return -1;
	}
	if (rc > 0) {
		set_err(err, err_size, "broker %s:%d refused the connection: %s", host, port,
			mosquitto_connack_string(rc));
		return -1;
	}
	return 0;
}

static int publish(struct qpu_mqtt *m, const char *topic, const char *payload, size_t len,
		   int retain)
{
	int rc;

	pthread_mutex_lock(&m->lock);
	if (m->stats.queued >= m->queue_max) {
		m->stats.dropped++;
		if (!m->dropping) {
			m->dropping = 1;
			fprintf(stderr, "qpu-mqtt: %s: queue full (%u messages the broker has not acknowledged): dropping new ones\n",
				m->stream, m->queue_max);
		}
		pthread_mutex_unlock(&m->lock);
		return -1;
	}
	m->stats.queued++;
	m->stats.published++;
	pthread_mutex_unlock(&m->lock);

	/*
	 * Disconnected, libmosquitto keeps a QoS 1 message and says NO_CONN:
	 * it goes out after the reconnect, so it counts as queued.
	 */
	rc = mosquitto_publish(m->mosq, NULL, topic, (int)len, payload, 1, retain);
	if (rc == MOSQ_ERR_SUCCESS || rc == MOSQ_ERR_NO_CONN)
		return 0;
	pthread_mutex_lock(&m->lock);
	m->stats.queued--;
	m->stats.published--;
	m->stats.dropped++;
	pthread_mutex_unlock(&m->lock);
	fprintf(stderr, "qpu-mqtt: %s: %s: %s\n", m->stream, topic, mosquitto_strerror(rc));
	return -1;
}

struct qpu_mqtt *qpu_mqtt_open(const struct qpu_mqtt_config *cfg, char *err, size_t err_size)
{
	char client_id[QPU_MQTT_STREAM_MAX + 8];
	int port = cfg->port ? cfg->port : QPU_MQTT_DEFAULT_PORT;
	struct qpu_mqtt *m;
	int rc;

	if (qpu_mqtt_check_stream(cfg->stream, err, err_size))
		return NULL;
	m = calloc(1, sizeof(*m));
	if (!m) {
		set_err(err, err_size, "out of memory");
		return NULL;
	}
	pthread_mutex_init(&m->lock, NULL);
	pthread_cond_init(&m->cond, NULL);
	m->connack = -1;
	m->queue_max = cfg->queue_max ? cfg->queue_max : QPU_MQTT_DEFAULT_QUEUE;
	snprintf(m->stream, sizeof(m->stream), "%s", cfg->stream);
	snprintf(m->topic_status, sizeof(m->topic_status), QPU_MQTT_ROOT "/%s/status", cfg->stream);
	snprintf(m->topic_detections, sizeof(m->topic_detections), QPU_MQTT_ROOT "/%s/detections",
		 cfg->stream);
	snprintf(m->topic_health, sizeof(m->topic_health), QPU_MQTT_ROOT "/%s/health", cfg->stream);
	snprintf(client_id, sizeof(client_id), "qpu-%s", cfg->stream);

	mosquitto_lib_init();
	m->mosq = mosquitto_new(client_id, false, m);
	if (!m->mosq) {
		set_err(err, err_size, "mosquitto_new: %s", strerror(errno));
		goto err_lib;
	}
	mosquitto_connect_callback_set(m->mosq, on_connect);
	mosquitto_disconnect_callback_set(m->mosq, on_disconnect);
	mosquitto_publish_callback_set(m->mosq, on_publish);
	rc = mosquitto_will_set(m->mosq, m->topic_status, 7, "offline", 1, true);
	if (rc) {
		set_err(err, err_size, "last will: %s", mosquitto_strerror(rc));
		goto err_mosq;
	}
	if (qpu_mqtt_setup_client(m->mosq, cfg, err, err_size))
		goto err_mosq;
	rc = mosquitto_connect(m->mosq, cfg->host, port,
			       cfg->keepalive_s ? (int)cfg->keepalive_s : 10);
	if (rc) {
		set_err(err, err_size, "broker %s:%d: %s", cfg->host, port,
			rc == MOSQ_ERR_ERRNO ? strerror(errno) : mosquitto_strerror(rc));
		goto err_mosq;
	}
	rc = mosquitto_loop_start(m->mosq);
	if (rc) {
		set_err(err, err_size, "libmosquitto's thread: %s", mosquitto_strerror(rc));
		goto err_mosq;
	}
	if (wait_connack(m, cfg->host, port, err, err_size))
		goto err_loop;
	if (publish(m, m->topic_status, "online", 6, 1)) {
		set_err(err, err_size, "could not publish on %s", m->topic_status);
		goto err_loop;
	}
	return m;

err_loop:
	mosquitto_disconnect(m->mosq);
	mosquitto_loop_stop(m->mosq, true);
err_mosq:
	mosquitto_destroy(m->mosq);
err_lib:
	mosquitto_lib_cleanup();
	pthread_cond_destroy(&m->cond);
	pthread_mutex_destroy(&m->lock);
	free(m);
	return NULL;
}

int qpu_mqtt_take_option(struct qpu_mqtt_opts *o, int opt, const char *arg, char *err,
			 size_t err_size)
{
	char *end;
	unsigned long v;

	switch (opt) {
	case QPU_MQTT_OPT_BROKER: o->addr = arg; return 1;
	case QPU_MQTT_OPT_STREAM: o->cfg.stream = arg; return 1;
	case QPU_MQTT_OPT_CAFILE: o->cfg.cafile = arg; return 1;
	case QPU_MQTT_OPT_CERT: o->cfg.certfile = arg; return 1;
	case QPU_MQTT_OPT_KEY: o->cfg.keyfile = arg; return 1;
	case QPU_MQTT_OPT_USER: o->cfg.username = arg; return 1;
	case QPU_MQTT_OPT_PASSWORD_FILE: o->cfg.password_file = arg; return 1;
	case QPU_MQTT_OPT_QUEUE:
	case QPU_MQTT_OPT_HEALTH:
		errno = 0;
		v = strtoul(arg, &end, 10);
		if (errno || end == arg || *end || arg[0] == '-' || v < 1 || v > 1000000) {
			set_err(err, err_size, "--%s '%s': not a number from 1 to 1000000",
				opt == QPU_MQTT_OPT_QUEUE ? "mqtt-queue" : "health-interval", arg);
			return -1;
		}
		if (opt == QPU_MQTT_OPT_QUEUE)
			o->cfg.queue_max = (unsigned int)v;
		else
			o->health_interval_s = (unsigned int)v;
		return 1;
	}
	return 0;
}

struct qpu_mqtt *qpu_mqtt_open_opts(struct qpu_mqtt_opts *o, char *err, size_t err_size)
{
	err[0] = '\0';
	if (!o->addr) {
		if (o->cfg.stream)
			set_err(err, err_size, "--stream names the stream of --mqtt: give both");
		return NULL;
	}
	if (!o->cfg.stream) {
		set_err(err, err_size, "--mqtt needs --stream NAME (the topics' qpu/NAME/...)");
		return NULL;
	}
	if (!o->health_interval_s)
		o->health_interval_s = 5;
	if (qpu_mqtt_parse_addr(o->addr, o->host, sizeof(o->host), &o->cfg.port, err, err_size))
		return NULL;
	o->cfg.host = o->host;
	return qpu_mqtt_open(&o->cfg, err, err_size);
}

/* A field that may be unknown (-1): the number or null. */
static void json_opt(struct json_out *j, const char *key, int64_t v)
{
	if (v < 0)
		json_out_key_null(j, key);
	else
		json_out_key_i64(j, key, v);
}

/* Why a field is null, when it is. */
static void json_why(struct json_out *j, const char *key, int64_t v, const char *why)
{
	if (v < 0)
		json_out_key_str(j, key, why ? why : "unknown");
}

int qpu_mqtt_publish_frame(struct qpu_mqtt *m, const struct qpu_mqtt_frame *f)
{
	struct json_out j;
	unsigned int i;
	int rc;

	json_out_init(&j);
	json_out_begin(&j, NULL, '{');
	json_out_key_str(&j, "stream", m->stream);
	json_out_key_u64(&j, "frame", f->frame);
	json_out_key_u64(&j, "capture_ns", f->capture_ns);
	json_out_key_u64(&j, "done_ns", f->done_ns);
	json_out_key_u64(&j, "latency_ns", f->done_ns > f->capture_ns ?
			 f->done_ns - f->capture_ns : 0);
	json_out_begin(&j, "stages", '{');
	for (i = 0; i < f->nstages; i++) {
		const struct qpu_mqtt_stage *st = &f->stages[i];

		json_out_begin(&j, st->name, '{');
		json_out_key_u64(&j, "ns", st->ns);
		if (st->on)
			json_out_key_str(&j, "on", st->on);
		if (st->model_ns)
			json_out_key_u64(&j, "model_ns", st->model_ns);
		if (st->recovered)
			json_out_key_raw(&j, "recovered", "true", 4);
		json_out_end(&j, '}');
	}
	json_out_end(&j, '}');
	json_out_begin(&j, "detections", '[');
	for (i = 0; i < f->ndetections; i++) {
		const struct qpu_mqtt_detection *d = &f->detections[i];

		json_out_begin(&j, NULL, '{');
		json_out_key_str(&j, "label", d->label ? d->label : "");
		json_out_key_i64(&j, "class", d->class_id);
		json_out_key_f(&j, "score", d->score);
		json_out_begin(&j, "box", '[');
		json_out_key_f(&j, NULL, d->x);
		json_out_key_f(&j, NULL, d->y);
		json_out_key_f(&j, NULL, d->w);
		json_out_key_f(&j, NULL, d->h);
		json_out_end(&j, ']');
		json_out_end(&j, '}');
	}
	json_out_end(&j, ']');
	json_out_end(&j, '}');
	if (!json_out_ok(&j)) {
		json_out_free(&j);
		return -1;
	}
	rc = publish(m, m->topic_detections, j.buf, j.len, 0);
	json_out_free(&j);
	return rc;
}

int qpu_mqtt_publish_health(struct qpu_mqtt *m, const struct qpu_mqtt_health *h)
{
	struct qpu_mqtt_stats s;
	struct timespec now;
	struct json_out j;
	int rc;

	qpu_mqtt_get_stats(m, &s);
	clock_gettime(CLOCK_REALTIME, &now);
	json_out_init(&j);
	json_out_begin(&j, NULL, '{');
	json_out_key_str(&j, "stream", m->stream);
	json_out_key_u64(&j, "time_ns", (uint64_t)now.tv_sec * 1000000000u + now.tv_nsec);
	json_out_key_str(&j, "device", h->device ? h->device : "");
	json_out_key_str(&j, "telemetry", h->telemetry ? h->telemetry : "none");
	json_opt(&j, "clock_hz", h->clock_hz);
	json_opt(&j, "temp_mc", h->temp_mc);
	json_opt(&j, "throttled", h->throttled);
	json_opt(&j, "recoveries", h->recoveries);
	json_opt(&j, "queue_depth", h->queue_depth);
	json_out_begin(&j, "null_reasons", '{');
	json_why(&j, "clock_hz", h->clock_hz, h->why_clock);
	json_why(&j, "temp_mc", h->temp_mc, h->why_temp);
	json_why(&j, "throttled", h->throttled, h->why_throttled);
	json_why(&j, "recoveries", h->recoveries, NULL);
	json_why(&j, "queue_depth", h->queue_depth, NULL);
	json_out_end(&j, '}');
	json_out_key_u64(&j, "mqtt_queued", s.queued);
	json_out_key_u64(&j, "mqtt_dropped", s.dropped);
	json_out_key_u64(&j, "mqtt_reconnects", s.reconnects);
	json_out_end(&j, '}');
	if (!json_out_ok(&j)) {
		json_out_free(&j);
		return -1;
	}
	rc = publish(m, m->topic_health, j.buf, j.len, 0);
	json_out_free(&j);
	return rc;
}

static int64_t read_sys_number(const char *path, int base)
{
	char line[64], *end;
	long long v;

	if (read_first_line(path, line, sizeof(line)))
		return -1;
	errno = 0;
	v = strtoll(line, &end, base);
	if (errno || end == line || v < 0)
		return -1;
	return v;
}

void qpu_mqtt_read_sys_health(struct qpu_mqtt_health *h)
{
	if (h->temp_mc < 0) {
		h->temp_mc = read_sys_number(SYS_THERMAL_ZONE, 10);
		if (h->temp_mc < 0)
			h->why_temp = "no thermal zone (" SYS_THERMAL_ZONE ")";
		else if (!h->telemetry || !strcmp(h->telemetry, "none"))
			h->telemetry = "sysfs";
	}
	if (h->throttled < 0) {
		h->throttled = read_sys_number(SYS_GET_THROTTLED, 16);
		if (h->throttled < 0)
			h->why_throttled = "no Raspberry Pi firmware's get_throttled in sysfs";
		else if (!h->telemetry || !strcmp(h->telemetry, "none"))
			h->telemetry = "sysfs";
	}
}

void qpu_mqtt_get_stats(struct qpu_mqtt *m, struct qpu_mqtt_stats *stats)
{
	pthread_mutex_lock(&m->lock);
	*stats = m->stats;
	pthread_mutex_unlock(&m->lock);
}

uint64_t qpu_mqtt_close(struct qpu_mqtt *m, int timeout_ms, struct qpu_mqtt_stats *stats)
{
	struct timespec until;
	uint64_t lost;

	publish(m, m->topic_status, "offline", 7, 1);
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += timeout_ms / 1000;
	until.tv_nsec += (long)(timeout_ms % 1000) * 1000000;
	if (until.tv_nsec >= 1000000000) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000;
	}
	pthread_mutex_lock(&m->lock);
	while (m->stats.queued &&
	       pthread_cond_timedwait(&m->cond, &m->lock, &until) == 0)
		;
	lost = m->stats.queued;
	if (stats)
		*stats = m->stats;
	pthread_mutex_unlock(&m->lock);
	if (lost)
		fprintf(stderr, "qpu-mqtt: %s: closing with %" PRIu64
			" messages the broker never acknowledged\n", m->stream, lost);
	mosquitto_disconnect(m->mosq);
	mosquitto_loop_stop(m->mosq, false);
	mosquitto_destroy(m->mosq);
	mosquitto_lib_cleanup();
	pthread_cond_destroy(&m->cond);
	pthread_mutex_destroy(&m->lock);
	free(m);
	return lost;
}
