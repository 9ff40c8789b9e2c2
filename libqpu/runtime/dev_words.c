// SPDX-License-Identifier: MIT
/*
 * What libqpu tells people about devices, in one place for every tool,
 * library user and the Python package: how to get a device when none opens,
 * and the names of the QPU_DEV_FEATURE_* bits.
 */

#include <errno.h>
#include <stddef.h>

#include "qpu.h"

QPU_API const char *qpu_dev_open_hint(int err)
{
	switch (err) {
	case ENOENT:
	case ENODEV:
	case ENXIO:
		return "no QPU device here; there are three ways to get one:\n"
		       "  on a PC: load qpu.ko with a simulated V3D: insmod build/qpu.ko sim=1\n"
		       "    (modprobe qpu sim=1 once installed)\n"
		       "  anywhere: the emulator in this process: QPU_DEVICE=emu, or --device emu\n"
		       "  on a Raspberry Pi: load qpu.ko: modprobe qpu";
	case EACCES:
	case EPERM:
		return "the device node is not yours to open: a real V3D's is the video group's\n"
		       "  (kmod/60-qpu.rules); qpuctl doctor says what is missing, and\n"
		       "  QPU_DEVICE=emu (or --device emu) runs on the emulator in this process";
	case ENOTTY:
		return "this node is not a qpu device: name /dev/qpu, /dev/qpuN, or emu";
	default:
		return NULL;
	}
}

/* Bit i's name is feature_names[i]; a new bit adds its name here. */
static const char *const feature_names[] = {
	"uniforms_anywhere",	/* QPU_DEV_FEATURE_UNIFORMS_ANYWHERE */
	"deadlock",		/* QPU_DEV_FEATURE_DEADLOCK */
	"all_bos",		/* QPU_DEV_FEATURE_ALL_BOS */
};

_Static_assert(QPU_DEV_FEATURE_UNIFORMS_ANYWHERE == 1u << 0 &&
	       QPU_DEV_FEATURE_DEADLOCK == 1u << 1 &&
	       QPU_DEV_FEATURE_ALL_BOS == 1u << 2,
	       "feature_names[] follows the QPU_DEV_FEATURE_* bits");

QPU_API const char *qpu_dev_feature_name(unsigned int bit)
{
	if (bit >= sizeof(feature_names) / sizeof(feature_names[0]))
		return NULL;
	return feature_names[bit];
}
