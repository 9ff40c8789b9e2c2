// SPDX-License-Identifier: GPL-2.0
/*
 * The simulated V3D's firmware telemetry: what a Raspberry Pi's firmware
 * would answer about the V3D's clock, the temperature and throttling,
 * played by per-device debugfs knobs in qpu/<node>/, so that every path of
 * qpu_telemetry.c (states, hysteresis, events) runs in the VM:
 *
 * "fw_clock_set_hz" (1 MHz to 1 GHz, default 250 MHz) and
 * "fw_clock_measured_hz" (0 to 1 GHz, default 250 MHz): GET_CLOCK_RATE and
 * GET_CLOCK_MEASURED; "fw_temp_mc" (0 to 125000, default 45000): the SoC's
 * temperature in millidegrees; "fw_throttled": the "now" bits of the
 * get-throttled word (QPU_THROTTLED_NOW only; under-voltage is bit 0),
 * each also set for good in the "occurred" bits above, as the firmware
 * does (reading gives the whole word); "fw_fail" (0 or 1): the firmware
 * does not answer. A value out of range is refused with -EINVAL.
 *
 * Knobs rather than module parameters: they are per device, like the
 * simulated V3D's other knobs, and root's only (debugfs).
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/device.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "qpu_drv.h"

#define QPU_SIM_TELEMETRY_CLOCK_MIN	1000000
#define QPU_SIM_TELEMETRY_CLOCK_MAX	1000000000
#define QPU_SIM_TELEMETRY_CLOCK_DEFAULT	250000000
#define QPU_SIM_TELEMETRY_TEMP_MAX	125000
#define QPU_SIM_TELEMETRY_TEMP_DEFAULT	45000
/* The firmware keeps each "now" bit, once seen, this far up. */
#define QPU_SIM_TELEMETRY_OCCURRED_SHIFT	16

struct qpu_sim_telemetry;

/**
 * struct qpu_sim_telemetry_knob - one numeric knob, the data of its file.
 * @model: the knobs it belongs to.
 * @value: its field in @model.
 * @min: the smallest value it takes.
 * @max: the largest.
 */
struct qpu_sim_telemetry_knob {
	struct qpu_sim_telemetry *model;
	u32 *value;
	u32 min;
	u32 max;
};

/* The numeric knobs, in qpu_sim_telemetry.knobs. */
enum {
	QPU_SIM_KNOB_CLOCK_SET,
	QPU_SIM_KNOB_CLOCK_MEASURED,
	QPU_SIM_KNOB_TEMP,
	QPU_SIM_KNOB_FAIL,
	QPU_SIM_KNOBS
};

/**
 * struct qpu_sim_telemetry - the knobs of one simulated V3D's firmware.
 * @lock: the fields below; knob writes against samples.
 * @clock_set_hz: fw_clock_set_hz.
 * @clock_measured_hz: fw_clock_measured_hz.
 * @temp_mc: fw_temp_mc.
 * @fail: fw_fail, 0 or 1.
 * @throttled: fw_throttled: the "now" bits and the "occurred" bits.
 * @knobs: the files of the numeric knobs.
 */
struct qpu_sim_telemetry {
	spinlock_t lock;		/* the knobs */
	u32 clock_set_hz;
	u32 clock_measured_hz;
	u32 temp_mc;
	u32 fail;
	u32 throttled;
	struct qpu_sim_telemetry_knob knobs[QPU_SIM_KNOBS];
};

static int qpu_sim_telemetry_knob_get(void *data, u64 *val)
{
	struct qpu_sim_telemetry_knob *knob = data;

	spin_lock(&knob->model->lock);
	*val = *knob->value;
	spin_unlock(&knob->model->lock);
	return 0;
}

static int qpu_sim_telemetry_knob_set(void *data, u64 val)
{
	struct qpu_sim_telemetry_knob *knob = data;

	if (val < knob->min || val > knob->max) {
		pr_debug_ratelimited("firmware knob write refused: %llu, not %u to %u\n",
				     val, knob->min, knob->max);
		return -EINVAL;
	}
	spin_lock(&knob->model->lock);
	*knob->value = val;
	spin_unlock(&knob->model->lock);
	return 0;
}

DEFINE_DEBUGFS_ATTRIBUTE(qpu_sim_telemetry_knob_fops,
			 qpu_sim_telemetry_knob_get,
			 qpu_sim_telemetry_knob_set, "%llu\n");

static int qpu_sim_telemetry_throttled_get(void *data, u64 *val)
{
	struct qpu_sim_telemetry *m = data;

	spin_lock(&m->lock);
	*val = m->throttled;
	spin_unlock(&m->lock);
	return 0;
}

/* Sets the "now" bits; those set stay in the "occurred" bits. */
static int qpu_sim_telemetry_throttled_set(void *data, u64 val)
{
	struct qpu_sim_telemetry *m = data;

	if (val & ~(u64)QPU_THROTTLED_NOW) {
		pr_debug_ratelimited("fw_throttled write refused: bits %#llx outside %#x\n",
				     val & ~(u64)QPU_THROTTLED_NOW, QPU_THROTTLED_NOW);
		return -EINVAL;
	}
	spin_lock(&m->lock);
	m->throttled = (m->throttled & ~QPU_THROTTLED_NOW) | val |
		       val << QPU_SIM_TELEMETRY_OCCURRED_SHIFT;
	spin_unlock(&m->lock);
	return 0;
}

DEFINE_DEBUGFS_ATTRIBUTE(qpu_sim_telemetry_throttled_fops,
			 qpu_sim_telemetry_throttled_get,
			 qpu_sim_telemetry_throttled_set, "0x%llx\n");

/**
 * qpu_sim_telemetry_init() - give a simulated V3D its firmware's knobs
 * @qdev: the device, before it is registered
 *
 * The state is device-managed: it goes at unbind, after the removal
 * stopped the sampling (qpu_telemetry_stop()).
 *
 * Return: 0 or -ENOMEM.
 */
int qpu_sim_telemetry_init(struct qpu_dev *qdev)
{
	struct qpu_sim_telemetry *m;

	m = devm_kzalloc(qdev->dev, sizeof(*m), GFP_KERNEL);
	if (!m)
		return -ENOMEM;
	spin_lock_init(&m->lock);
	m->clock_set_hz = QPU_SIM_TELEMETRY_CLOCK_DEFAULT;
	m->clock_measured_hz = QPU_SIM_TELEMETRY_CLOCK_DEFAULT;
	m->temp_mc = QPU_SIM_TELEMETRY_TEMP_DEFAULT;
	m->knobs[QPU_SIM_KNOB_CLOCK_SET] = (struct qpu_sim_telemetry_knob) {
		m, &m->clock_set_hz, QPU_SIM_TELEMETRY_CLOCK_MIN,
		QPU_SIM_TELEMETRY_CLOCK_MAX };
	m->knobs[QPU_SIM_KNOB_CLOCK_MEASURED] = (struct qpu_sim_telemetry_knob) {
		m, &m->clock_measured_hz, 0, QPU_SIM_TELEMETRY_CLOCK_MAX };
	m->knobs[QPU_SIM_KNOB_TEMP] = (struct qpu_sim_telemetry_knob) {
		m, &m->temp_mc, 0, QPU_SIM_TELEMETRY_TEMP_MAX };
	m->knobs[QPU_SIM_KNOB_FAIL] = (struct qpu_sim_telemetry_knob) {
		m, &m->fail, 0, 1 };
	qdev->telemetry.model = m;
	return 0;
}

/**
 * qpu_sim_telemetry_debugfs() - create the knobs
 * @qdev: the device, registered (its debugfs directory exists)
 */
void qpu_sim_telemetry_debugfs(struct qpu_dev *qdev)
{
	static const char * const names[QPU_SIM_KNOBS] = {
		[QPU_SIM_KNOB_CLOCK_SET] = "fw_clock_set_hz",
		[QPU_SIM_KNOB_CLOCK_MEASURED] = "fw_clock_measured_hz",
		[QPU_SIM_KNOB_TEMP] = "fw_temp_mc",
		[QPU_SIM_KNOB_FAIL] = "fw_fail",
	};
	struct qpu_sim_telemetry *m = qdev->telemetry.model;
	unsigned int i;

	for (i = 0; i < QPU_SIM_KNOBS; i++)
		debugfs_create_file_unsafe(names[i], 0600, qdev->debugfs,
					   &m->knobs[i],
					   &qpu_sim_telemetry_knob_fops);
	debugfs_create_file_unsafe("fw_throttled", 0600, qdev->debugfs, m,
				   &qpu_sim_telemetry_throttled_fops);
}

/**
 * qpu_sim_telemetry_read() - the simulated firmware's answer
 * @qdev: the device
 * @s: the sample, every field given
 *
 * Return: 0, or -EIO while fw_fail is set.
 */
int qpu_sim_telemetry_read(struct qpu_dev *qdev, struct qpu_telemetry_sample *s)
{
	struct qpu_sim_telemetry *m = qdev->telemetry.model;
	int ret = 0;

	spin_lock(&m->lock);
	if (m->fail) {
		ret = -EIO;
	} else {
		s->clock_set_hz = m->clock_set_hz;
		s->clock_measured_hz = m->clock_measured_hz;
		s->temp_mc = m->temp_mc;
		s->throttled = m->throttled;
		s->have = QPU_TELEMETRY_HAVE_CLOCK_SET |
			  QPU_TELEMETRY_HAVE_CLOCK_MEASURED |
			  QPU_TELEMETRY_HAVE_TEMP | QPU_TELEMETRY_HAVE_THROTTLED;
	}
	spin_unlock(&m->lock);
	return ret;
}
