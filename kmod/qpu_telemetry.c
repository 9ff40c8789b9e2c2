// SPDX-License-Identifier: GPL-2.0
/*
 * Telemetry of a V3D: its clock as set and as measured, the SoC's
 * temperature and the firmware's throttled flags, sampled while the device
 * has a file open, every telemetry_period_ms (uapi's "DOC: telemetry" says
 * what is reported and the hysteresis of the two states and their events).
 *
 * The backend reads a sample (qpu_backend_ops.telemetry_read): the real
 * V3D through the Raspberry Pi firmware's mailbox, with the helpers at the
 * end of this file, the simulated one from its knobs. Sampling only while
 * files are open keeps the mailbox quiet on an idle system; a file is what
 * a program holds while it uses the GPU. A new period applies from the
 * next sample; after a period of 0 has stopped the sampling, from the next
 * time the device goes from no open file to one.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/device.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/of.h>
#include <net/genetlink.h>
#include <soc/bcm2835/raspberrypi-firmware.h>

#include "qpu_drv.h"

#define QPU_TELEMETRY_PERIOD_MIN_MS	10
#define QPU_TELEMETRY_PERIOD_MAX_MS	60000

static unsigned int qpu_telemetry_period_ms = 1000;
/* Bumped by every write of the period: a first open then samples at once. */
static atomic_t qpu_telemetry_period_gen = ATOMIC_INIT(0);

static int qpu_telemetry_period_set(const char *val,
				    const struct kernel_param *kp)
{
	unsigned int ms;
	int ret;

	ret = kstrtouint(val, 0, &ms);
	if (!ret && ms && (ms < QPU_TELEMETRY_PERIOD_MIN_MS ||
			   ms > QPU_TELEMETRY_PERIOD_MAX_MS))
		ret = -ERANGE;
	if (ret) {
		/* As the other parameters: setup, said at the error level. */
		pr_err("%s=%s: expected milliseconds from %u to %u, or 0\n",
		       kp->name, val, QPU_TELEMETRY_PERIOD_MIN_MS,
		       QPU_TELEMETRY_PERIOD_MAX_MS);
		return ret;
	}
	WRITE_ONCE(qpu_telemetry_period_ms, ms);
	atomic_inc(&qpu_telemetry_period_gen);
	return 0;
}

static const struct kernel_param_ops qpu_telemetry_period_ops = {
	.set = qpu_telemetry_period_set,
	.get = param_get_uint,
};

module_param_cb(telemetry_period_ms, &qpu_telemetry_period_ops,
		&qpu_telemetry_period_ms, 0644);
MODULE_PARM_DESC(telemetry_period_ms,
		 "Milliseconds between two samples of the V3D's clock, temperature and throttling while the device is open: 10 to 60000, 0 for none (default 1000)");

/* Clock low below 95 % of the set rate, back at 98 %: percent thresholds. */
#define QPU_TELEMETRY_CLOCK_LOW_PCT	95
#define QPU_TELEMETRY_CLOCK_OK_PCT	98

/* Runs the next sample after the period, or never when sampling is off. */
static void qpu_telemetry_schedule_locked(struct qpu_telemetry *t,
					  unsigned long delay)
{
	lockdep_assert_held(&t->lock);
	if (t->users && !t->stopped && READ_ONCE(qpu_telemetry_period_ms))
		mod_delayed_work(system_wq, &t->work, delay);
}

/*
 * The clock-low state after sample @s, with hysteresis; *@event gets the
 * change, if any.
 */
static void qpu_telemetry_clock_locked(struct qpu_telemetry *t,
				       const struct qpu_telemetry_sample *s,
				       u32 *event)
{
	const u32 both = QPU_TELEMETRY_HAVE_CLOCK_SET |
			 QPU_TELEMETRY_HAVE_CLOCK_MEASURED;
	u64 measured = s->clock_measured_hz, set = s->clock_set_hz;

	lockdep_assert_held(&t->lock);
	if ((s->have & both) != both || !set)
		return;
	if (!t->clock_low &&
	    measured * 100 < set * QPU_TELEMETRY_CLOCK_LOW_PCT) {
		t->clock_low = true;
		atomic64_inc(&t->clock_low_events);
		*event = QPU_TELEMETRY_CLOCK_LOW;
	} else if (t->clock_low &&
		   measured * 100 >= set * QPU_TELEMETRY_CLOCK_OK_PCT) {
		t->clock_low = false;
		*event = QPU_TELEMETRY_CLOCK_OK;
	}
}

/* The throttling state after sample @s; *@event gets the change, if any. */
static void qpu_telemetry_throttle_locked(struct qpu_telemetry *t,
					  const struct qpu_telemetry_sample *s,
					  u32 *event)
{
	lockdep_assert_held(&t->lock);
	if (!(s->have & QPU_TELEMETRY_HAVE_THROTTLED))
		return;
	if (s->throttled & QPU_THROTTLED_NOW) {
		t->clear_samples = 0;
		if (!t->throttling) {
			t->throttling = true;
			atomic64_inc(&t->throttle_events);
			*event = QPU_TELEMETRY_THROTTLE_START;
		}
	} else if (t->throttling &&
		   ++t->clear_samples >= QPU_TELEMETRY_CLEAR_SAMPLES) {
		t->throttling = false;
		t->clear_samples = 0;
		*event = QPU_TELEMETRY_THROTTLE_END;
	}
}

static void qpu_telemetry_work(struct work_struct *work)
{
	struct qpu_telemetry *t = container_of(to_delayed_work(work),
					       struct qpu_telemetry, work);
	struct qpu_dev *qdev = container_of(t, struct qpu_dev, telemetry);
	struct qpu_telemetry_sample s = { };
	u32 clock_event = 0, throttle_event = 0;
	int ret;

	/* The mailbox may sleep: read outside the lock. */
	ret = qdev->ops->telemetry_read(qdev, &s);

	mutex_lock(&t->lock);
	t->tried = ktime_get();
	t->tried_gen = atomic_read(&qpu_telemetry_period_gen);
	if (!ret && s.have) {
		t->sample = s;
		t->when = ktime_get();
		atomic64_inc(&t->samples);
		qpu_telemetry_clock_locked(t, &s, &clock_event);
		qpu_telemetry_throttle_locked(t, &s, &throttle_event);
	} else {
		dev_dbg(qdev->dev, "no telemetry sample: %d\n", ret);
	}
	qpu_telemetry_schedule_locked(t,
				      msecs_to_jiffies(READ_ONCE(qpu_telemetry_period_ms)));
	mutex_unlock(&t->lock);

	if (clock_event)
		qpu_nl_telemetry_event(qdev, clock_event, &s);
	if (throttle_event)
		qpu_nl_telemetry_event(qdev, throttle_event, &s);
}

/**
 * qpu_telemetry_init() - set up a new device's telemetry, not sampling yet
 * @qdev: the device, from qpu_dev_alloc()
 */
void qpu_telemetry_init(struct qpu_dev *qdev)
{
	struct qpu_telemetry *t = &qdev->telemetry;

	mutex_init(&t->lock);
	INIT_DELAYED_WORK(&t->work, qpu_telemetry_work);
}

/**
 * qpu_telemetry_stop() - stop sampling for good, at the device's removal
 * @qdev: the device
 *
 * The last sample stays readable.
 */
void qpu_telemetry_stop(struct qpu_dev *qdev)
{
	struct qpu_telemetry *t = &qdev->telemetry;

	mutex_lock(&t->lock);
	t->stopped = true;
	mutex_unlock(&t->lock);
	cancel_delayed_work_sync(&t->work);
}

/*
 * When the first file's sample is due: now, unless the last sample is less
 * than a period old, so that opening and closing the device in a loop does
 * not call the firmware more often than the period says. A period written
 * since (an administrator's) lets it sample at once again.
 */
static unsigned long qpu_telemetry_first_delay_locked(struct qpu_telemetry *t)
{
	int gen = atomic_read(&qpu_telemetry_period_gen);
	s64 left_ms;

	lockdep_assert_held(&t->lock);
	if (!t->tried || t->tried_gen != gen)
		return 0;
	left_ms = ktime_ms_delta(ktime_add_ms(t->tried,
					      READ_ONCE(qpu_telemetry_period_ms)),
				 ktime_get());
	return left_ms > 0 ? msecs_to_jiffies(left_ms) : 0;
}

/**
 * qpu_telemetry_file_open() - a file opened: sample, then periodically
 * @qdev: the device
 *
 * The first sample comes at once, or a period after the last one.
 */
void qpu_telemetry_file_open(struct qpu_dev *qdev)
{
	struct qpu_telemetry *t = &qdev->telemetry;

	if (!qdev->ops->telemetry_read)
		return;
	mutex_lock(&t->lock);
	if (!t->users++)
		qpu_telemetry_schedule_locked(t, qpu_telemetry_first_delay_locked(t));
	mutex_unlock(&t->lock);
}

/**
 * qpu_telemetry_file_close() - a file closed: the last one stops sampling
 * @qdev: the device
 *
 * A sample under way finishes and does not schedule another.
 */
void qpu_telemetry_file_close(struct qpu_dev *qdev)
{
	struct qpu_telemetry *t = &qdev->telemetry;

	if (!qdev->ops->telemetry_read)
		return;
	mutex_lock(&t->lock);
	if (!--t->users)
		cancel_delayed_work(&t->work);
	mutex_unlock(&t->lock);
}

/* The attribute ids of a sample's fields in one attribute set. */
struct qpu_telemetry_attrs {
	int clock_set;
	int clock_measured;
	int temp;
	int throttled;
};

static int qpu_telemetry_put(struct sk_buff *skb,
			     const struct qpu_telemetry_sample *s,
			     const struct qpu_telemetry_attrs *a)
{
	if ((s->have & QPU_TELEMETRY_HAVE_CLOCK_SET &&
	     nla_put_u32(skb, a->clock_set, s->clock_set_hz)) ||
	    (s->have & QPU_TELEMETRY_HAVE_CLOCK_MEASURED &&
	     nla_put_u32(skb, a->clock_measured, s->clock_measured_hz)) ||
	    (s->have & QPU_TELEMETRY_HAVE_TEMP &&
	     nla_put_s32(skb, a->temp, s->temp_mc)) ||
	    (s->have & QPU_TELEMETRY_HAVE_THROTTLED &&
	     nla_put_u32(skb, a->throttled, s->throttled)))
		return -EMSGSIZE;
	return 0;
}

/**
 * qpu_telemetry_put_dev() - the last sample's attributes of a DEV_GET reply
 * @skb: the message
 * @qdev: the device
 *
 * Nothing when no sample was ever taken.
 *
 * Return: 0 or -EMSGSIZE.
 */
int qpu_telemetry_put_dev(struct sk_buff *skb, struct qpu_dev *qdev)
{
	static const struct qpu_telemetry_attrs attrs = {
		.clock_set = QPU_A_DEV_CLOCK_SET_HZ,
		.clock_measured = QPU_A_DEV_CLOCK_MEASURED_HZ,
		.temp = QPU_A_DEV_TEMP_MC,
		.throttled = QPU_A_DEV_THROTTLED,
	};
	struct qpu_telemetry *t = &qdev->telemetry;
	struct qpu_telemetry_sample s;
	bool clock_low, throttling;
	ktime_t when;
	s64 age;

	mutex_lock(&t->lock);
	s = t->sample;
	when = t->when;
	clock_low = t->clock_low;
	throttling = t->throttling;
	mutex_unlock(&t->lock);
	if (!when)
		return 0;

	age = ktime_ms_delta(ktime_get(), when);
	if (nla_put_u32(skb, QPU_A_DEV_TELEMETRY_AGE_MS, min_t(s64, age, U32_MAX)) ||
	    nla_put_u32(skb, QPU_A_DEV_CLOCK_LOW, clock_low) ||
	    nla_put_u32(skb, QPU_A_DEV_THROTTLING, throttling))
		return -EMSGSIZE;
	return qpu_telemetry_put(skb, &s, &attrs);
}

/**
 * qpu_telemetry_put_stats() - the telemetry counters of a STATS reply
 * @skb: the message
 * @qdev: the device
 *
 * Return: 0 or -EMSGSIZE.
 */
int qpu_telemetry_put_stats(struct sk_buff *skb, struct qpu_dev *qdev)
{
	struct qpu_telemetry *t = &qdev->telemetry;

	if (nla_put_u64_64bit(skb, QPU_A_STATS_TELEMETRY_SAMPLES,
			      atomic64_read(&t->samples), QPU_A_STATS_PAD) ||
	    nla_put_u64_64bit(skb, QPU_A_STATS_CLOCK_LOW_EVENTS,
			      atomic64_read(&t->clock_low_events), QPU_A_STATS_PAD) ||
	    nla_put_u64_64bit(skb, QPU_A_STATS_THROTTLE_EVENTS,
			      atomic64_read(&t->throttle_events), QPU_A_STATS_PAD))
		return -EMSGSIZE;
	return 0;
}

/**
 * qpu_telemetry_put_sample() - a sample's attributes in a TELEMETRY_NTF
 * @skb: the event
 * @s: the sample that changed a state
 *
 * Return: 0 or -EMSGSIZE.
 */
int qpu_telemetry_put_sample(struct sk_buff *skb,
			     const struct qpu_telemetry_sample *s)
{
	static const struct qpu_telemetry_attrs attrs = {
		.clock_set = QPU_A_EVENT_CLOCK_SET_HZ,
		.clock_measured = QPU_A_EVENT_CLOCK_MEASURED_HZ,
		.temp = QPU_A_EVENT_TEMP_MC,
		.throttled = QPU_A_EVENT_THROTTLED,
	};

	return qpu_telemetry_put(skb, s, &attrs);
}

/**
 * qpu_telemetry_fw_get() - the firmware, for a real V3D's telemetry
 * @dev: the V3D's device; the reference is dropped when it unbinds
 *
 * Return: the firmware, or NULL where there is none (or it is not probed
 * yet): the device then has no telemetry, which is no reason to fail.
 */
struct rpi_firmware *qpu_telemetry_fw_get(struct device *dev)
{
	struct rpi_firmware *fw = NULL;
	struct device_node *np;

	if (!IS_ENABLED(CONFIG_RASPBERRYPI_FIRMWARE))
		return NULL;
	np = of_find_compatible_node(NULL, NULL, "raspberrypi,bcm2835-firmware");
	if (np && of_device_is_available(np))
		fw = devm_rpi_firmware_get(dev, np);
	of_node_put(np);
	if (!fw)
		dev_dbg(dev, "no firmware: no clock, temperature or throttling telemetry\n");
	return fw;
}

/* One u32 answer of the firmware to @tag for @id; false when it gave none. */
static bool qpu_telemetry_fw_value(struct rpi_firmware *fw, u32 tag, u32 id,
				   u32 *value)
{
	struct {
		__le32 id;
		__le32 value;
	} msg = { cpu_to_le32(id), 0 };

	if (rpi_firmware_property(fw, tag, &msg, sizeof(msg)))
		return false;
	*value = le32_to_cpu(msg.value);
	return true;
}

/**
 * qpu_telemetry_fw_read() - a sample through the firmware's mailbox
 * @fw: the firmware, from qpu_telemetry_fw_get()
 * @s: the sample; each field the firmware answered is flagged in @s->have
 *
 * The throttled word is asked for with 0, not 0xffff as the hwmon driver
 * does: that would clear the "occurred" bits the hwmon driver watches.
 *
 * Return: 0, or -ENODEV without firmware.
 */
int qpu_telemetry_fw_read(struct rpi_firmware *fw,
			  struct qpu_telemetry_sample *s)
{
	__le32 throttled = 0;
	u32 temp;

	if (!fw)
		return -ENODEV;
	if (qpu_telemetry_fw_value(fw, RPI_FIRMWARE_GET_CLOCK_RATE,
				   QPU_FW_CLK_V3D, &s->clock_set_hz))
		s->have |= QPU_TELEMETRY_HAVE_CLOCK_SET;
	if (qpu_telemetry_fw_value(fw, RPI_FIRMWARE_GET_CLOCK_MEASURED,
				   QPU_FW_CLK_V3D, &s->clock_measured_hz))
		s->have |= QPU_TELEMETRY_HAVE_CLOCK_MEASURED;
	/* Sensor 0, the SoC's; the answer is in millidegrees. */
	if (qpu_telemetry_fw_value(fw, RPI_FIRMWARE_GET_TEMPERATURE, 0, &temp)) {
		s->temp_mc = temp;
		s->have |= QPU_TELEMETRY_HAVE_TEMP;
	}
	if (!rpi_firmware_property(fw, RPI_FIRMWARE_GET_THROTTLED, &throttled,
				   sizeof(throttled))) {
		s->throttled = le32_to_cpu(throttled);
		s->have |= QPU_TELEMETRY_HAVE_THROTTLED;
	}
	return 0;
}
