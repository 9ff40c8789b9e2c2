/* SPDX-License-Identifier: MIT */
/*
 * qpuctl's private interfaces, grouped by the file that defines them:
 * the command line (qpuctl.c), the netlink requests (nl.c), the output in
 * text or JSON (print.c), the telemetry's fields (telemetry.c) and the
 * commands (dev.c, config.c, monitor.c, top.c, doctor.c).
 */
#ifndef QPUCTL_H
#define QPUCTL_H

#include <stdbool.h>
#include <stdint.h>

struct nl_msg;
struct nl_sock;
struct nlattr;

/* qpuctl.c */
#define QPUCTL_ANY_DEV	(-1)

/**
 * struct qpuctl - what the command line asked for.
 * @dev: the device of -d or of the command's DEV argument, or
 *	QPUCTL_ANY_DEV.
 * @json: -j.
 * @pretty: -p.
 */
struct qpuctl {
	int dev;
	bool json;
	bool pretty;
};

void die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
void die_errno(int err, const char *fmt, ...)
	__attribute__((noreturn, format(printf, 2, 3)));
bool is_help(const char *word);
bool parse_dev(const char *arg, int *dev);
void set_dev(struct qpuctl *ctl, const char *arg);

/* nl.c */

/**
 * struct qpu_nl - a socket talking to the qpu family.
 * @sk: the libnl socket.
 * @family: the family's id.
 * @ext_printed: the last request's extended-ack message went to stderr.
 */
struct qpu_nl {
	struct nl_sock *sk;
	int family;
	bool ext_printed;
};

/*
 * Called for each message of a reply, with its attributes parsed into
 * tb[0..maxattr]; returns 0 or a negative errno, which ends the request.
 */
typedef int (*qpu_nl_msg_fn)(struct nlattr **tb, void *arg);

void qpu_nl_open(struct qpu_nl *nl);
void qpu_nl_close(struct qpu_nl *nl);
struct nl_msg *qpu_nl_msg(struct qpu_nl *nl, uint8_t cmd, bool dump);
int qpu_nl_request(struct qpu_nl *nl, struct nl_msg *msg, int maxattr,
		   qpu_nl_msg_fn fn, void *arg);
void qpu_nl_die(struct qpu_nl *nl, int err, const char *what)
	__attribute__((noreturn));
void qpu_nl_put_u32(struct nl_msg *msg, int type, uint32_t value);
void qpu_nl_put_u64(struct nl_msg *msg, int type, uint64_t value);
uint64_t qpu_nl_uint(const struct nlattr *attr);
struct nlattr *qpu_nl_attrs(int *len);
const char *qpu_nl_str(const struct nlattr *attr);
void qpu_nl_parse_ext_ack(struct qpu_nl *nl, void *tlvs, int len);

/* print.c */
void print_init(bool json, bool pretty);
bool print_json(void);
void print_open_object(const char *key);
void print_close_object(void);
void print_open_array(const char *key);
void print_close_array(void);
void print_uint(const char *key, const char *fmt, uint64_t value);
void print_int(const char *key, const char *fmt, int64_t value);
void print_string(const char *key, const char *fmt, const char *value);
void print_text(const char *text);
void print_flush(void);

/* dev.c: the objects dev, stats and client, and the first grammar's words */
int cmd_dev(struct qpuctl *ctl, int argc, char **argv);
int cmd_stats(struct qpuctl *ctl, int argc, char **argv);
int cmd_client(struct qpuctl *ctl, int argc, char **argv);
int cmd_info(struct qpuctl *ctl, int argc, char **argv);
int cmd_clients(struct qpuctl *ctl, int argc, char **argv);
int cmd_reset(struct qpuctl *ctl, int argc, char **argv);
int cmd_hang(struct qpuctl *ctl, int argc, char **argv);
void clients_print(struct qpuctl *ctl, const char *key);

/* config.c */
int cmd_config(struct qpuctl *ctl, int argc, char **argv);

/* monitor.c */
int cmd_monitor(struct qpuctl *ctl, int argc, char **argv);

/* top.c */
int cmd_top(struct qpuctl *ctl, int argc, char **argv);
/* Takes "interval SECONDS" and "count N" pairs off the front of *@argv. */
void top_parse_interval(int *argc, char ***argv, double *interval,
			unsigned long *count);

/* telemetry.c */

/**
 * struct telemetry - a device's last telemetry sample, from DEV_GET or an
 *	event; a field is valid when its have_ flag is set.
 */
struct telemetry {
	bool have_clock_set, have_clock_measured, have_temp, have_throttled;
	bool have_state;
	uint32_t clock_set_hz;
	uint32_t clock_measured_hz;
	int32_t temp_mc;
	uint32_t throttled;
	uint32_t age_ms;
	bool clock_low;
	bool throttling;
};

void telemetry_from_dev(struct telemetry *t, struct nlattr **tb);
void telemetry_from_event(struct telemetry *t, struct nlattr **tb);
struct qpu_telemetry;
void telemetry_from_libqpu(struct telemetry *t, const struct qpu_telemetry *s);
void telemetry_print_libqpu(const struct qpu_telemetry *s);
bool telemetry_any(const struct telemetry *t);
void telemetry_print(const struct telemetry *t);
void telemetry_print_stats(struct nlattr **tb);
const char *telemetry_event_name(uint64_t event);

/* doctor.c */
int cmd_doctor(struct qpuctl *ctl, int argc, char **argv);

/* v3d.c */
int cmd_v3d(struct qpuctl *ctl, int argc, char **argv);

/* v3d_stats.c: v3d stats and v3d top, after their command word */
int cmd_v3d_stats(int argc, char **argv);
int cmd_v3d_top(int argc, char **argv);
/*
 * Whether stats and top show the v3d driver's statistics instead of
 * qpu.ko's: qpu.ko is not loaded and a render node has gpu_stats.
 */
bool v3d_stats_instead(void);

#endif /* QPUCTL_H */
