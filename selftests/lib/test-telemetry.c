// SPDX-License-Identifier: MIT
/*
 * test-telemetry: qpu_dev_get_telemetry() where no firmware is (the
 * emulator: no values, the reason for each; bad arguments), and the
 * firmware property client of a Pi 4/5 (libqpu/runtime/fwprop.c) against
 * answers made here: a full answer, the firmware's error code, an unknown
 * tag, malformed answers, no /dev/vcio, a node that is no mailbox. The
 * simulated firmware (v3d_sim vcio=1) answers the same client in check-vm.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "testlib.h"

#include "qpu.h"
#include "qpu_fwprop.h"
#include "runtime/runtime.h"

/* The request's words as the firmware answers them (fwprop.c's layout). */
static void answer(uint32_t *b)
{
	qpu_fwprop_request(b);
	b[1] = QPU_FWPROP_SUCCESS;
	b[4] = QPU_FWPROP_RESPONSE | 8;
	b[6] = 500000000;
	b[9] = QPU_FWPROP_RESPONSE | 8;
	b[11] = 498000000;
	b[14] = QPU_FWPROP_RESPONSE | 8;
	b[16] = (uint32_t)-2500;
	b[19] = QPU_FWPROP_RESPONSE | 4;
	b[20] = 0x50005;
}

T_TEST(emu_has_none)
{
	struct qpu_dev *dev = qpu_dev_open("emu:v3d42");
	struct qpu_telemetry t;

	T_CHECK(dev != NULL);
	if (!dev)
		return;
	memset(&t, 0xff, sizeof(t));
	T_EQ_U64(0, qpu_dev_get_telemetry(dev, &t));
	T_EQ_U64(0, t.flags);
	T_EQ_STR("none", t.source);
	T_CHECK(t.why_clock && strstr(t.why_clock, "emulated"));
	T_CHECK(t.why_temp && t.why_throttled);
	T_EQ_U64(0, t.clock_hz);
	qpu_dev_close(dev);
}

T_TEST(bad_arguments)
{
	struct qpu_dev *dev = qpu_dev_open("emu");
	struct qpu_telemetry t;

	T_EQ_U64((uint64_t)-EINVAL, qpu_dev_get_telemetry(NULL, &t));
	T_EQ_U64((uint64_t)-EINVAL, qpu_dev_get_telemetry(dev, NULL));
	qpu_dev_close(dev);
}

T_TEST(request_layout)
{
	uint32_t b[QPU_FWPROP_WORDS];

	qpu_fwprop_request(b);
	T_EQ_U64(QPU_FWPROP_WORDS * 4, b[0]);
	T_EQ_U64(QPU_FWPROP_REQUEST, b[1]);
	T_EQ_U64(QPU_FWPROP_GET_CLOCK_RATE, b[2]);
	T_EQ_U64(QPU_FWPROP_CLK_V3D, b[5]);
	T_EQ_U64(QPU_FWPROP_GET_CLOCK_MEASURED, b[7]);
	T_EQ_U64(QPU_FWPROP_GET_TEMPERATURE, b[12]);
	T_EQ_U64(QPU_FWPROP_GET_THROTTLED, b[17]);
	/* asked with 0: 0xffff would clear the bits hwmon reports */
	T_EQ_U64(0, b[20]);
	T_EQ_U64(QPU_FWPROP_END, b[QPU_FWPROP_WORDS - 1]);
}

T_TEST(parse_full_answer)
{
	uint32_t b[QPU_FWPROP_WORDS];
	struct qpu_telemetry t = { 0 };

	answer(b);
	T_EQ_U64(0, qpu_fwprop_parse(b, &t));
	T_EQ_U64(QPU_TELEMETRY_CLOCK_SET | QPU_TELEMETRY_CLOCK | QPU_TELEMETRY_TEMP |
		 QPU_TELEMETRY_THROTTLED, t.flags);
	T_EQ_U64(500000000, t.clock_set_hz);
	T_EQ_U64(498000000, t.clock_hz);
	T_EQ_U64((uint64_t)(int64_t)-2500, (uint64_t)(int64_t)t.temp_mc);
	T_EQ_U64(0x50005, t.throttled);
	T_CHECK(!t.why_clock && !t.why_temp && !t.why_throttled);
}

T_TEST(parse_error_code)
{
	uint32_t b[QPU_FWPROP_WORDS];
	struct qpu_telemetry t = { 0 };

	answer(b);
	b[1] = QPU_FWPROP_ERROR;
	T_EQ_U64((uint64_t)-EPROTO, qpu_fwprop_parse(b, &t));
	T_EQ_U64(0, t.flags);
	T_CHECK(t.why_clock && strstr(t.why_clock, "not success"));
	T_CHECK(t.why_temp == t.why_clock && t.why_throttled == t.why_clock);
	/* a request the firmware left as it was */
	qpu_fwprop_request(b);
	T_EQ_U64((uint64_t)-EPROTO, qpu_fwprop_parse(b, &t));
}

T_TEST(parse_unknown_tag)
{
	uint32_t b[QPU_FWPROP_WORDS];
	struct qpu_telemetry t = { 0 };

	answer(b);
	b[9] = 0;		/* no GET_CLOCK_MEASURED: an old firmware */
	T_EQ_U64(0, qpu_fwprop_parse(b, &t));
	T_EQ_U64(QPU_TELEMETRY_CLOCK_SET | QPU_TELEMETRY_TEMP | QPU_TELEMETRY_THROTTLED,
		 t.flags);
	T_CHECK(t.why_clock && strstr(t.why_clock, "does not know GET_CLOCK_MEASURED"));
	T_CHECK(!t.why_temp);
	memset(&t, 0, sizeof(t));
	b[19] = 0;
	T_EQ_U64(0, qpu_fwprop_parse(b, &t));
	T_CHECK(!(t.flags & QPU_TELEMETRY_THROTTLED));
	T_CHECK(t.why_throttled && strstr(t.why_throttled, "GET_THROTTLED"));
}

T_TEST(parse_malformed)
{
	uint32_t b[QPU_FWPROP_WORDS];
	struct qpu_telemetry t = { 0 };

	answer(b);
	b[14] = QPU_FWPROP_RESPONSE | 12;	/* longer than asked: cut */
	b[10] = 3;				/* another clock's answer */
	T_EQ_U64(0, qpu_fwprop_parse(b, &t));
	T_EQ_U64(QPU_TELEMETRY_CLOCK_SET | QPU_TELEMETRY_THROTTLED, t.flags);
	T_CHECK(t.why_temp && strstr(t.why_temp, "malformed"));
	T_CHECK(t.why_clock && strstr(t.why_clock, "GET_CLOCK_MEASURED is malformed"));
	b[0] = 4;				/* the size word changed */
	T_EQ_U64((uint64_t)-EPROTO, qpu_fwprop_parse(b, &t));
}

T_TEST(read_without_node)
{
	struct qpu_telemetry t = { 0 };

	T_EQ_U64((uint64_t)-ENOENT, qpu_fwprop_read("/nonexistent/vcio", &t));
	T_EQ_U64(0, t.flags);
	T_CHECK(t.why_clock && strstr(t.why_clock, "no /dev/vcio"));
	T_CHECK(t.why_temp == t.why_clock && t.why_throttled == t.why_clock);
}

T_TEST(read_not_a_mailbox)
{
	struct qpu_telemetry t = { 0 };

	T_EQ_U64((uint64_t)-ENOTTY, qpu_fwprop_read("/dev/null", &t));
	T_EQ_U64(0, t.flags);
	T_CHECK(t.why_clock && strstr(t.why_clock, "ENOTTY"));
}

T_MAIN()
