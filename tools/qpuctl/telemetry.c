// SPDX-License-Identifier: MIT
/*
 * The telemetry's fields as dev show, top and monitor print them: the V3D's
 * clock as set and as measured, the SoC's temperature, the firmware's
 * throttled word with its bits named, and the two hysteresis states
 * (uapi/linux/qpu.h, "DOC: telemetry"); a v3d node's from libqpu
 * (qpu_dev_get_telemetry()) with its source and the reasons for what it
 * lacks. JSON has the raw numbers; the text adds MHz, degrees and the
 * names of the bits.
 */

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <linux/qpu.h>
#include <netlink/attr.h>
#include <qpu.h>

#include "qpuctl.h"

static const struct {
	uint32_t bit;
	const char *name;
} throttled_bits[] = {
	{ QPU_THROTTLED_UNDER_VOLTAGE, "under_voltage" },
	{ QPU_THROTTLED_FREQ_CAPPED, "freq_capped" },
	{ QPU_THROTTLED_THROTTLED, "throttled" },
	{ QPU_THROTTLED_SOFT_TEMP_LIMIT, "soft_temp_limit" },
	{ QPU_THROTTLED_UNDER_VOLTAGE_OCCURRED, "under_voltage_occurred" },
	{ QPU_THROTTLED_FREQ_CAPPED_OCCURRED, "freq_capped_occurred" },
	{ QPU_THROTTLED_THROTTLED_OCCURRED, "throttled_occurred" },
	{ QPU_THROTTLED_SOFT_TEMP_LIMIT_OCCURRED, "soft_temp_limit_occurred" },
};

#define NUM_THROTTLED_BITS (sizeof(throttled_bits) / sizeof(throttled_bits[0]))

/* The sample's four fields, from the attribute ids of one set. */
static void telemetry_fields(struct telemetry *t, struct nlattr **tb, int set,
			     int measured, int temp, int throttled)
{
	t->have_clock_set = tb[set];
	t->clock_set_hz = qpu_nl_uint(tb[set]);
	t->have_clock_measured = tb[measured];
	t->clock_measured_hz = qpu_nl_uint(tb[measured]);
	t->have_temp = tb[temp];
	t->temp_mc = (int32_t)qpu_nl_uint(tb[temp]);
	t->have_throttled = tb[throttled];
	t->throttled = qpu_nl_uint(tb[throttled]);
}

void telemetry_from_dev(struct telemetry *t, struct nlattr **tb)
{
	memset(t, 0, sizeof(*t));
	telemetry_fields(t, tb, QPU_A_DEV_CLOCK_SET_HZ,
			 QPU_A_DEV_CLOCK_MEASURED_HZ, QPU_A_DEV_TEMP_MC,
			 QPU_A_DEV_THROTTLED);
	t->have_state = tb[QPU_A_DEV_TELEMETRY_AGE_MS];
	t->age_ms = qpu_nl_uint(tb[QPU_A_DEV_TELEMETRY_AGE_MS]);
	t->clock_low = qpu_nl_uint(tb[QPU_A_DEV_CLOCK_LOW]);
	t->throttling = qpu_nl_uint(tb[QPU_A_DEV_THROTTLING]);
}

void telemetry_from_event(struct telemetry *t, struct nlattr **tb)
{
	memset(t, 0, sizeof(*t));
	telemetry_fields(t, tb, QPU_A_EVENT_CLOCK_SET_HZ,
			 QPU_A_EVENT_CLOCK_MEASURED_HZ, QPU_A_EVENT_TEMP_MC,
			 QPU_A_EVENT_THROTTLED);
}

void telemetry_from_libqpu(struct telemetry *t, const struct qpu_telemetry *s)
{
	memset(t, 0, sizeof(*t));
	t->have_clock_set = s->flags & QPU_TELEMETRY_CLOCK_SET;
	t->clock_set_hz = (uint32_t)s->clock_set_hz;
	t->have_clock_measured = s->flags & QPU_TELEMETRY_CLOCK;
	t->clock_measured_hz = (uint32_t)s->clock_hz;
	t->have_temp = s->flags & QPU_TELEMETRY_TEMP;
	t->temp_mc = s->temp_mc;
	t->have_throttled = s->flags & QPU_TELEMETRY_THROTTLED;
	t->throttled = s->throttled;
}

/*
 * A libqpu sample (a v3d node's): its fields, where they came from and,
 * for each one missing, why.
 */
void telemetry_print_libqpu(const struct qpu_telemetry *s)
{
	struct telemetry t;

	telemetry_from_libqpu(&t, s);
	telemetry_print(&t);
	print_string("telemetry", " telemetry %s", s->source);
	if (!t.have_clock_measured && s->why_clock)
		print_string("why_clock", " (no clock: %s)", s->why_clock);
	if (!t.have_temp && s->why_temp)
		print_string("why_temp", " (no temp: %s)", s->why_temp);
	if (!t.have_throttled && s->why_throttled)
		print_string("why_throttled", " (no throttled: %s)", s->why_throttled);
}

bool telemetry_any(const struct telemetry *t)
{
	return t->have_clock_set || t->have_clock_measured || t->have_temp ||
	       t->have_throttled || t->have_state;
}

/*
 * Prints the fields there are, each preceded by a space in the text; JSON
 * has the raw values, the text MHz and degrees.
 */
void telemetry_print(const struct telemetry *t)
{
	unsigned int i;

	if (t->have_clock_set)
		print_uint("clock_set_hz", NULL, t->clock_set_hz);
	if (t->have_clock_set && !print_json())
		printf(" clock_set %.1f MHz", t->clock_set_hz / 1e6);
	if (t->have_clock_measured)
		print_uint("clock_measured_hz", NULL, t->clock_measured_hz);
	if (t->have_clock_measured && !print_json())
		printf(" measured %.1f MHz", t->clock_measured_hz / 1e6);
	if (t->have_temp)
		print_int("temp_mc", NULL, t->temp_mc);
	if (t->have_temp && !print_json())
		printf(" temp %.1f C", t->temp_mc / 1000.0);
	if (t->have_throttled) {
		print_uint("throttled", " throttled 0x%" PRIx64, t->throttled);
		print_text(" (");
		print_open_array("throttled_flags");
		for (i = 0; i < NUM_THROTTLED_BITS; i++)
			if (t->throttled & throttled_bits[i].bit)
				print_string(NULL, " %s", throttled_bits[i].name);
		print_close_array();
		print_text(" )");
	}
	if (t->have_state) {
		print_uint("clock_low", " clock_low %" PRIu64, t->clock_low);
		print_uint("throttling", " throttling %" PRIu64, t->throttling);
		print_uint("telemetry_age_ms", " age_ms %" PRIu64, t->age_ms);
	}
}

/* The telemetry counters of a STATS message; none from an older kernel. */
void telemetry_print_stats(struct nlattr **tb)
{
	if (!tb[QPU_A_STATS_TELEMETRY_SAMPLES])
		return;
	print_text("     telemetry:");
	print_uint("telemetry_samples", " samples %" PRIu64,
		   qpu_nl_uint(tb[QPU_A_STATS_TELEMETRY_SAMPLES]));
	print_uint("clock_low_events", " clock_low_events %" PRIu64,
		   qpu_nl_uint(tb[QPU_A_STATS_CLOCK_LOW_EVENTS]));
	print_uint("throttle_events", " throttle_events %" PRIu64,
		   qpu_nl_uint(tb[QPU_A_STATS_THROTTLE_EVENTS]));
	print_text("\n");
}

const char *telemetry_event_name(uint64_t event)
{
	switch (event) {
	case QPU_TELEMETRY_CLOCK_LOW:
		return "clock_low";
	case QPU_TELEMETRY_CLOCK_OK:
		return "clock_ok";
	case QPU_TELEMETRY_THROTTLE_START:
		return "throttle_start";
	case QPU_TELEMETRY_THROTTLE_END:
		return "throttle_end";
	default:
		return "unknown";
	}
}
