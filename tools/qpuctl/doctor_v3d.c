// SPDX-License-Identifier: MIT
/*
 * qpuctl doctor on a Pi 4 or 5: the V3D (4.2, 7.1) is the upstream v3d DRM
 * driver's, which libqpu drives itself (qpu.ko is not involved). The
 * findings, in order: v3d_driver (the V3D's platform device, a v3d@ node
 * of the device tree compatible with brcm,2711-v3d or brcm,2712-v3d, and
 * the driver bound to it), kms_overlay (config.txt's
 * dtoverlay=vc4-kms-v3d, without which Raspberry Pi OS probes no v3d),
 * v3d_node (its render node under /dev/dri against the caller's uid and
 * groups), csd (libqpu opens the node: a V3D 4.2 or 7.1 whose driver
 * runs compute jobs; skipped for a staged machine, $QPUCTL_ROOT) and
 * firmware (/dev/vcio against the caller, through which libqpu reads the
 * clock, temperature and throttling: a warning only, as jobs run without).
 */

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <qpu.h>

#include "qpuctl.h"
#include "doctor.h"

/* The device tree's compatibles of the Pi 4's and the Pi 5's V3D. */
static const char *const v3d_compatibles[] = { "brcm,2711-v3d", "brcm,2712-v3d" };

/* The Pi 4/5 V3D's platform device name into @dev; false when none is. */
static bool doctor_find_v3d(const struct doctor *d, char *dev, size_t size)
{
	char dir[PATH_MAX], node[PATH_MAX + 512], path[PATH_MAX + 1024], name[256];
	struct dirent *e;
	bool found = false;
	unsigned int i;
	DIR *dp;

	dp = opendir(doctor_path(d, dir, sizeof(dir), "/sys/bus/platform/devices"));
	while (dp && !found && (e = readdir(dp))) {
		snprintf(node, sizeof(node), "%s/%s/of_node", dir, e->d_name);
		if (!doctor_link_name(node, name, sizeof(name)) || strncmp(name, "v3d@", 4))
			continue;
		snprintf(path, sizeof(path), "%s/compatible", node);
		for (i = 0; i < sizeof(v3d_compatibles) / sizeof(v3d_compatibles[0]); i++)
			found |= doctor_compatible_has(path, v3d_compatibles[i]);
		if (found)
			snprintf(dev, size, "%s", e->d_name);
	}
	if (dp)
		closedir(dp);
	return found;
}

/* The render node's name (renderDN) of platform device @dev into @name. */
static bool doctor_render_node(const struct doctor *d, const char *dev,
			       char *name, size_t size)
{
	char dir[PATH_MAX];
	struct dirent *e;
	bool found = false;
	DIR *dp;

	dp = opendir(doctor_path(d, dir, sizeof(dir), "/sys/bus/platform/devices/%s/drm", dev));
	while (dp && !found && (e = readdir(dp)))
		if (!strncmp(e->d_name, "renderD", 7)) {
			snprintf(name, size, "%s", e->d_name);
			found = true;
		}
	if (dp)
		closedir(dp);
	return found;
}

static bool check_v3d_driver(struct doctor *d, const char *dev)
{
	char path[PATH_MAX], driver[256], text[DOCTOR_TEXT + 1024];

	doctor_path(d, path, sizeof(path), "/sys/bus/platform/devices/%s/driver", dev);
	if (doctor_link_name(path, driver, sizeof(driver)) && !strcmp(driver, "v3d")) {
		snprintf(text, sizeof(text),
			 "the V3D (%s) is the v3d DRM driver's: libqpu runs on it (QPU_DEVICE=v3d; qpuctl v3d); qpu.ko is not needed",
			 dev);
		doctor_finding(d, "v3d_driver", DOCTOR_OK, text, NULL, NULL);
		return true;
	}
	if (doctor_link_name(path, driver, sizeof(driver))) {
		snprintf(text, sizeof(text), "the V3D (%s) is owned by %s, not the v3d DRM driver",
			 dev, driver);
		doctor_finding(d, "v3d_driver", DOCTOR_FAIL, text, NULL,
			       "unbind it and load the v3d driver: modprobe v3d");
		return false;
	}
	snprintf(text, sizeof(text), "no driver has the V3D (%s)", dev);
	doctor_finding(d, "v3d_driver", DOCTOR_FAIL, text, NULL,
		       "modprobe v3d (it comes with the KMS overlay: see kms_overlay)");
	return false;
}

static void check_kms_overlay(struct doctor *d, bool bound)
{
	char config[PATH_MAX], fix[DOCTOR_TEXT + PATH_MAX];

	doctor_config_txt(d, config, sizeof(config));
	if (config[0] && doctor_file_has_line(config, "dtoverlay=vc4-kms-v3d")) {
		doctor_finding(d, "kms_overlay", DOCTOR_OK,
			       "config.txt has dtoverlay=vc4-kms-v3d", NULL, NULL);
		return;
	}
	snprintf(fix, sizeof(fix), "add the line dtoverlay=vc4-kms-v3d to %s and reboot",
		 config[0] ? config : "the boot partition's config.txt");
	doctor_finding(d, "kms_overlay", bound ? DOCTOR_WARN : DOCTOR_FAIL,
		       bound ? "config.txt has no dtoverlay=vc4-kms-v3d (the v3d driver is bound anyway)" :
			       "config.txt has no dtoverlay=vc4-kms-v3d: the v3d driver is not probed without it",
		       NULL, fix);
}

/* The render node against the caller; its path into @node when usable. */
static bool check_v3d_node(struct doctor *d, const struct doctor_self *self,
			   bool have_self, const char *dev, char *node, size_t size)
{
	char name[256], group[256], text[DOCTOR_TEXT + PATH_MAX], fix[DOCTOR_TEXT];
	struct stat st;

	if (!doctor_render_node(d, dev, name, sizeof(name))) {
		doctor_finding(d, "v3d_node", DOCTOR_FAIL,
			       "the v3d driver made no render node", NULL,
			       "see the kernel log's v3d lines (dmesg | grep v3d)");
		return false;
	}
	doctor_path(d, node, size, "/dev/dri/%s", name);
	if (stat(node, &st)) {
		snprintf(text, sizeof(text), "%s is missing", node);
		doctor_finding(d, "v3d_node", DOCTOR_FAIL, text, NULL,
			       "udev makes it: udevadm trigger, or reboot");
		return false;
	}
	if (have_self && !doctor_may_open(self, &st)) {
		doctor_group_name(d, st.st_gid, group, sizeof(group));
		snprintf(text, sizeof(text), "%s (mode %04o, group %s) cannot be opened by uid %u",
			 node, (unsigned int)(st.st_mode & 07777), group, self->uid);
		snprintf(fix, sizeof(fix), "join the group: usermod -aG %s $USER, then log in again",
			 group);
		doctor_finding(d, "v3d_node", DOCTOR_FAIL, text, NULL, fix);
		return false;
	}
	snprintf(text, sizeof(text), "%s is usable by uid %u", node, have_self ? self->uid : 0);
	doctor_finding(d, "v3d_node", DOCTOR_OK, text, NULL, NULL);
	return true;
}

/* libqpu on the node: a V3D it runs, a driver with CSD. */
static void check_csd(struct doctor *d, const char *node)
{
	char text[DOCTOR_TEXT + 256];
	struct qpu_dev *dev;

	if (*d->root) {
		doctor_finding(d, "csd", DOCTOR_SKIP, "a staged machine ($QPUCTL_ROOT): not opened",
			       NULL, NULL);
		return;
	}
	dev = qpu_dev_open(node);
	if (!dev) {
		doctor_finding(d, "csd", DOCTOR_FAIL, qpu_last_error(), NULL,
			       "a V3D 4.2 or 7.1 and Linux 5.6 or later (SUBMIT_CSD): update the kernel");
		return;
	}
	snprintf(text, sizeof(text), "libqpu runs compute jobs on it: %s", qpu_dev_describe(dev));
	doctor_finding(d, "csd", DOCTOR_OK, text, NULL, NULL);
	qpu_dev_close(dev);
}

/* The firmware's mailbox for telemetry (qpu_dev_get_telemetry()). */
static void check_firmware(struct doctor *d, const struct doctor_self *self,
			   bool have_self)
{
	char node[PATH_MAX], group[256], text[DOCTOR_TEXT + PATH_MAX], fix[DOCTOR_TEXT];
	struct stat st;

	doctor_path(d, node, sizeof(node), "/dev/vcio");
	if (stat(node, &st)) {
		snprintf(text, sizeof(text),
			 "%s is missing: the GPU's clock, temperature and throttling are not sampled",
			 node);
		doctor_finding(d, "firmware", DOCTOR_WARN, text, NULL,
			       "a Raspberry Pi OS kernel makes it (its vcio driver, CONFIG_BCM_VCIO)");
		return;
	}
	if (have_self && !doctor_may_open(self, &st)) {
		doctor_group_name(d, st.st_gid, group, sizeof(group));
		snprintf(text, sizeof(text),
			 "%s (mode %04o, group %s) cannot be opened by uid %u: no clock, temperature or throttling",
			 node, (unsigned int)(st.st_mode & 07777), group, self->uid);
		snprintf(fix, sizeof(fix), "join the group: usermod -aG %s $USER, then log in again",
			 group);
		doctor_finding(d, "firmware", DOCTOR_WARN, text, NULL, fix);
		return;
	}
	snprintf(text, sizeof(text),
		 "%s is usable by uid %u: libqpu reads the firmware's clock, temperature and throttling",
		 node, have_self ? self->uid : 0);
	doctor_finding(d, "firmware", DOCTOR_OK, text, NULL, NULL);
}

bool doctor_v3d_drm(struct doctor *d, const struct doctor_self *self,
		    bool have_self)
{
	char dev[512], node[PATH_MAX];
	bool bound;

	if (!doctor_find_v3d(d, dev, sizeof(dev)))
		return false;
	bound = check_v3d_driver(d, dev);
	check_kms_overlay(d, bound);
	if (!bound)
		doctor_finding(d, "v3d_node", DOCTOR_SKIP, "the v3d driver has no node without the V3D",
			       NULL, NULL);
	if (bound && check_v3d_node(d, self, have_self, dev, node, sizeof(node)))
		check_csd(d, node);
	else
		doctor_finding(d, "csd", DOCTOR_SKIP, "no usable v3d node", NULL, NULL);
	check_firmware(d, self, have_self);
	return true;
}
