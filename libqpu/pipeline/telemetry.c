// SPDX-License-Identifier: MIT
/*
 * The device's telemetry for the pipeline: the device model's own sample
 * (qpu_dev_get_telemetry(): qpu.ko's through its netlink family, a v3d
 * node's through the Raspberry Pi firmware or the first thermal zone,
 * nothing on the emulator) in the pipeline's terms, the clock being the
 * measured one.
 */

#include <string.h>

#include "pipeline/pipeline_internal.h"

int pl_telemetry_default(struct qpu_dev *dev, struct qpu_pipeline_telemetry *t)
{
	struct qpu_telemetry s;

	memset(t, 0, sizeof(*t));
	t->source = "none";
	if (!dev || qpu_dev_get_telemetry(dev, &s))
		return 0;
	t->source = s.source;
	if (s.flags & QPU_TELEMETRY_CLOCK) {
		t->clock_hz = s.clock_hz;
		t->flags |= QPU_PIPELINE_TELEMETRY_CLOCK;
	}
	if (s.flags & QPU_TELEMETRY_TEMP) {
		t->temp_mc = s.temp_mc;
		t->flags |= QPU_PIPELINE_TELEMETRY_TEMP;
	}
	if (s.flags & QPU_TELEMETRY_THROTTLED) {
		t->throttled = s.throttled;
		t->flags |= QPU_PIPELINE_TELEMETRY_THROTTLED;
	}
	return 0;
}
