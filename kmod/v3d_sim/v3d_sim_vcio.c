// SPDX-License-Identifier: GPL-2.0
/*
 * v3d_sim's Raspberry Pi firmware: with vcio=1, a misc device /dev/vcio that
 * answers the mailbox property interface as raspberrypi/linux's vcio driver
 * and the firmware behind it do (libqpu/core/qpu_fwprop.h), for the tags a
 * Pi 4/5's telemetry asks: the V3D's clock as set and as measured, the
 * SoC's temperature, the throttled word. Their values are the writable
 * module parameters fw_clock_set_hz, fw_clock_measured_hz, fw_temp_mc and
 * fw_throttled (one firmware per machine, as on a Pi: not per device);
 * fw_fail makes the firmware answer with its error code (the ioctl then
 * fails with EINVAL, as rpi_firmware_property_list() does) and fw_unknown
 * names a tag the firmware does not know (left without its response bit,
 * as an older firmware leaves it). Refused as upstream: a buffer under 12
 * bytes or not a multiple of 4 (EINVAL), an unreadable one (EFAULT), another
 * ioctl (EINVAL); a malformed tag list is the firmware's parse error
 * (EINVAL). Differences: a buffer over V3D_SIM_VCIO_MAX_SIZE is refused
 * (the firmware fails from 1 MiB), and refusals log debug lines only.
 *
 * No state but the parameters, read once per tag: no lock.
 */
#include <linux/compat.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "qpu_fwprop.h"
#include "v3d_sim.h"

#define V3D_SIM_VCIO_IOCTL	_IOWR(QPU_FWPROP_IOC_MAGIC, QPU_FWPROP_IOC_NR, char *)
#ifdef CONFIG_COMPAT
#define V3D_SIM_VCIO_IOCTL32	_IOWR(QPU_FWPROP_IOC_MAGIC, QPU_FWPROP_IOC_NR, compat_uptr_t)
#endif
/* The largest request taken: telemetry's is 88 bytes. */
#define V3D_SIM_VCIO_MAX_SIZE	SZ_64K
/* A tag's header: its id, its value buffer's size, its request/response word. */
#define V3D_SIM_VCIO_TAG_HDR	12u

static bool vcio;
module_param(vcio, bool, 0444);
MODULE_PARM_DESC(vcio, "make /dev/vcio, a simulated Raspberry Pi firmware's mailbox");

static uint fw_clock_set_hz = 500000000;
module_param(fw_clock_set_hz, uint, 0644);
MODULE_PARM_DESC(fw_clock_set_hz, "the firmware's V3D clock as set (GET_CLOCK_RATE, Hz)");

static uint fw_clock_measured_hz = 500000000;
module_param(fw_clock_measured_hz, uint, 0644);
MODULE_PARM_DESC(fw_clock_measured_hz, "the firmware's V3D clock as measured (GET_CLOCK_MEASURED, Hz)");

static int fw_temp_mc = 45000;
module_param(fw_temp_mc, int, 0644);
MODULE_PARM_DESC(fw_temp_mc, "the SoC's temperature (GET_TEMPERATURE, millidegrees Celsius)");

static uint fw_throttled;
module_param(fw_throttled, uint, 0644);
MODULE_PARM_DESC(fw_throttled, "the firmware's throttled word (GET_THROTTLED)");

static bool fw_fail;
module_param(fw_fail, bool, 0644);
MODULE_PARM_DESC(fw_fail, "the firmware answers every request with its error code");

static uint fw_unknown;
module_param(fw_unknown, uint, 0644);
MODULE_PARM_DESC(fw_unknown, "a tag the firmware does not know (0: none)");

/*
 * The answer to @tag with argument @arg into @val (two words); its length
 * in bytes, or 0 for a tag the firmware does not know.
 */
static u32 v3d_sim_vcio_answer(u32 tag, u32 arg, u32 *val)
{
	if (tag == READ_ONCE(fw_unknown))
		return 0;
	val[0] = arg;
	switch (tag) {
	case QPU_FWPROP_GET_CLOCK_RATE:
	case QPU_FWPROP_GET_CLOCK_MEASURED:
		/* Only the V3D's clock is simulated; others run at 0 Hz. */
		val[1] = arg != QPU_FWPROP_CLK_V3D ? 0 :
			 tag == QPU_FWPROP_GET_CLOCK_RATE ? READ_ONCE(fw_clock_set_hz) :
							    READ_ONCE(fw_clock_measured_hz);
		return 8;
	case QPU_FWPROP_GET_TEMPERATURE:
		val[1] = (u32)READ_ONCE(fw_temp_mc);
		return 8;
	case QPU_FWPROP_GET_THROTTLED:
		val[0] = READ_ONCE(fw_throttled);
		return 4;
	default:
		return 0;
	}
}

/*
 * Answers the tags of @buf (@size bytes) in place, as the firmware: false
 * when the list is malformed (a tag's value buffer runs past the end).
 * The last word is the end tag's, as rpi_firmware_property_list() places it.
 */
static bool v3d_sim_vcio_tags(u32 *buf, u32 size)
{
	u32 off = 8, end = size - 4;

	while (off + V3D_SIM_VCIO_TAG_HDR <= end) {
		u32 *tag = &buf[off / 4];
		u32 bytes = tag[1], len, val[2] = {};

		if (tag[0] == QPU_FWPROP_END)
			return true;
		if (bytes > end - off - V3D_SIM_VCIO_TAG_HDR)
			return false;
		len = v3d_sim_vcio_answer(tag[0], bytes >= 4 ? tag[3] : 0, val);
		if (len) {
			memcpy(&tag[3], val, min(len, bytes));
			tag[2] = QPU_FWPROP_RESPONSE | len;
		}
		off += V3D_SIM_VCIO_TAG_HDR + ALIGN(bytes, 4);
	}
	return true;
}

static long v3d_sim_vcio_property(void __user *user)
{
	u32 size, *buf;
	long ret = 0;

	if (copy_from_user(&size, user, sizeof(size)))
		return -EFAULT;
	if (size < QPU_FWPROP_MIN_SIZE || size & 3 || size > V3D_SIM_VCIO_MAX_SIZE) {
		pr_debug("v3d_sim: vcio: a request of %u bytes\n", size);
		return -EINVAL;
	}
	buf = memdup_user(user, size);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	if (READ_ONCE(fw_fail)) {
		pr_debug("v3d_sim: vcio: the firmware answers with its error (fw_fail)\n");
		ret = -EINVAL;
		goto out;
	}
	if (!v3d_sim_vcio_tags(buf, size)) {
		pr_debug("v3d_sim: vcio: a tag runs past the request's end\n");
		ret = -EINVAL;
		goto out;
	}
	buf[1] = QPU_FWPROP_SUCCESS;
	if (copy_to_user(user, buf, size))
		ret = -EFAULT;
out:
	kfree(buf);
	return ret;
}

static long v3d_sim_vcio_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	if (cmd != V3D_SIM_VCIO_IOCTL) {
		pr_debug("v3d_sim: vcio: unknown ioctl 0x%x\n", cmd);
		return -EINVAL;
	}
	return v3d_sim_vcio_property((void __user *)arg);
}

#ifdef CONFIG_COMPAT
static long v3d_sim_vcio_compat_ioctl(struct file *file, unsigned int cmd,
				      unsigned long arg)
{
	if (cmd != V3D_SIM_VCIO_IOCTL32) {
		pr_debug("v3d_sim: vcio: unknown compat ioctl 0x%x\n", cmd);
		return -EINVAL;
	}
	return v3d_sim_vcio_property(compat_ptr(arg));
}
#endif

static const struct file_operations v3d_sim_vcio_fops = {
	.owner = THIS_MODULE,
	.unlocked_ioctl = v3d_sim_vcio_ioctl,
#ifdef CONFIG_COMPAT
	.compat_ioctl = v3d_sim_vcio_compat_ioctl,
#endif
	.llseek = noop_llseek,
};

static struct miscdevice v3d_sim_vcio_dev = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "vcio",
	.fops = &v3d_sim_vcio_fops,
};

int v3d_sim_vcio_init(void)
{
	return vcio ? misc_register(&v3d_sim_vcio_dev) : 0;
}

void v3d_sim_vcio_fini(void)
{
	if (vcio)
		misc_deregister(&v3d_sim_vcio_dev);
}
