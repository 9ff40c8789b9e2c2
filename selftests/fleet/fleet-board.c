// SPDX-License-Identifier: MIT
/*
 * fleet-board: a board for test-fleet-mqtt.sh, publishing through
 * qpu_mqtt.h as qpu-detect --mqtt does, without a camera or a model: each
 * frame runs one vector add on the device (the "infer" stage, timed), and
 * its detections are a function of the frame number, so that a subscriber
 * can check them. Usage: fleet-board --mqtt HOST[:PORT] --stream NAME
 * [the other options of QPU_MQTT_LONG_OPTIONS] [--frames N] [--fps F]
 * [--device PATH] [--close-ms MS] (how long to wait at the end for the
 * broker's last acknowledgements).
 * Exit 0 when every message reached the broker, 1 otherwise.
 */

#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <qpu.h>
#include <qpu_kernels.h>

#include "cli.h"
#include "die.h"
#include "open_dev.h"
#include "qpu_mqtt.h"

const char tool_name[] = "fleet-board";

#define VEC_LEN 256

static uint64_t now_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void sleep_until(uint64_t mono_ns)
{
	struct timespec ts = {
		.tv_sec = (time_t)(mono_ns / 1000000000u),
		.tv_nsec = (long)(mono_ns % 1000000000u),
	};

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL))
		;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		QPU_MQTT_LONG_OPTIONS,
		{ "frames", required_argument, NULL, 'n' },
		{ "fps", required_argument, NULL, 'f' },
		{ "device", required_argument, NULL, 'd' },
		{ "close-ms", required_argument, NULL, 'c' },
		{ NULL, 0, NULL, 0 },
	};
	struct qpu_mqtt_opts mo = { 0 };
	uint64_t frames = 100, fps = 50, close_ms = 20000, f;
	const char *device = NULL;
	char err[256];
	struct qpu_mqtt_stats st;
	struct qpu_kernels *kernels;
	struct qpu_mqtt *m;
	struct qpu_dev *dev;
	struct qpu_bo *bo;
	uint64_t start, next_health = 0, lost;
	int c, taken;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		taken = qpu_mqtt_take_option(&mo, c, optarg, err, sizeof(err));
		if (taken < 0)
			die("%s", err);
		if (taken)
			continue;
		switch (c) {
		case 'n': frames = cli_opt_u64("--frames", optarg, 1, 1000000); break;
		case 'f': fps = cli_opt_u64("--fps", optarg, 1, 1000); break;
		case 'd': device = optarg; break;
		case 'c': close_ms = cli_opt_u64("--close-ms", optarg, 0, 600000); break;
		default: die("usage: fleet-board --mqtt HOST[:PORT] --stream NAME [options]");
		}
	}
	if (!mo.addr)
		die("usage: fleet-board --mqtt HOST[:PORT] --stream NAME [options]");
	dev = open_dev(device);
	kernels = qpu_kernels_new(dev);
	bo = qpu_bo_new(dev, 3 * VEC_LEN * sizeof(float));
	if (!kernels || !bo)
		die("%s", qpu_last_error());
	m = qpu_mqtt_open_opts(&mo, err, sizeof(err));
	if (!m)
		die("%s", err);

	start = now_ns(CLOCK_MONOTONIC);
	for (f = 0; f < frames; f++) {
		struct qpu_vector a = { bo, 0, VEC_LEN };
		struct qpu_vector b = { bo, VEC_LEN * sizeof(float), VEC_LEN };
		struct qpu_vector out = { bo, 2 * VEC_LEN * sizeof(float), VEC_LEN };
		float *v = qpu_bo_get_map(bo);
		struct qpu_mqtt_detection det[2];
		struct qpu_mqtt_stage stages[2];
		struct qpu_mqtt_frame fr = { 0 };
		uint64_t t0, t1, t2;
		unsigned int i;

		sleep_until(start + f * 1000000000u / fps);
		fr.frame = f;
		fr.capture_ns = now_ns(CLOCK_REALTIME);
		t0 = now_ns(CLOCK_MONOTONIC);
		for (i = 0; i < VEC_LEN; i++) {
			v[i] = (float)(f + i);
			v[VEC_LEN + i] = 0.5f;
		}
		t1 = now_ns(CLOCK_MONOTONIC);
		if (qpu_vector_add(kernels, 1, &a, &b, &out, NULL))
			die("frame %" PRIu64 ": %s", f, qpu_kernels_last_error(kernels));
		t2 = now_ns(CLOCK_MONOTONIC);
		stages[0] = (struct qpu_mqtt_stage){ "pre", t1 - t0 };
		stages[1] = (struct qpu_mqtt_stage){ "infer", t2 - t1 };
		det[0] = (struct qpu_mqtt_detection){ "person", 0, 0.5f,
			v[2 * VEC_LEN], 10, 20, 40 };
		det[1] = (struct qpu_mqtt_detection){ "cat \"tabby\"", 15, 0.25f, 1, 2, 3, 4 };
		fr.stages = stages;
		fr.nstages = 2;
		fr.detections = det;
		fr.ndetections = 1 + f % 2;
		fr.done_ns = now_ns(CLOCK_REALTIME);
		qpu_mqtt_publish_frame(m, &fr);
		if (t2 >= next_health) {
			struct qpu_mqtt_health h = {
				.device = qpu_dev_describe(dev),
				.clock_hz = -1,
				.recoveries = 0,
				.queue_depth = 0,
			};

			qpu_mqtt_read_sys_health(&h);
			qpu_mqtt_publish_health(m, &h);
			next_health = t2 + mo.health_interval_s * 1000000000ull;
		}
	}
	lost = qpu_mqtt_close(m, (int)close_ms, &st);
	printf("%s: %" PRIu64 " frames, %" PRIu64 " published, %" PRIu64 " acknowledged, %" PRIu64
	       " dropped, %" PRIu64 " reconnects, %" PRIu64 " lost\n", mo.cfg.stream, frames,
	       st.published, st.acked, st.dropped, st.reconnects, lost);
	qpu_bo_free(bo);
	qpu_kernels_free(kernels);
	qpu_dev_close(dev);
	return lost || st.dropped ? 1 : 0;
}
