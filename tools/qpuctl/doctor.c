// SPDX-License-Identifier: MIT
/*
 * qpuctl doctor: checks what keeps /dev/qpu from working and says, for each
 * finding, why and the command or file line that fixes it. It reads files
 * only (sysfs, procfs, the kernel log, /lib/modules, /boot), never the
 * netlink family, so it works when qpu.ko is not loaded; every path is
 * taken under $QPUCTL_ROOT (default: /), so tests can stage the files of
 * another machine. The caller it judges is the one /proc/self/status
 * describes (its uid, groups and capabilities), under the same root.
 *
 * Each check gives one finding: ok, warn (works, but worth knowing), fail
 * (something will not work) or skip (does not apply here). The exit status
 * is 1 when any check failed. The checks, in order, and what they read:
 * module (/sys/module/qpu, and the kernel log's last qpu line when it is
 * not loaded), module_build (the installed qpu.ko's vermagic against the
 * running kernel's release), v3d_owner and overlay (the V3D's platform
 * device, its driver and compatible, config.txt and the overlay file),
 * cma (/proc/meminfo's CmaTotal against dev_mem_limit, where BOs come
 * from CMA), headers (/lib/modules/RELEASE/build, for DKMS), device_node
 * (/dev/qpu* against the caller's uid and groups) and submit
 * (CAP_SYS_RAWIO or allow_unprivileged_hw, where a real V3D's rules apply).
 * On a Pi 4 or 5, whose V3D is the v3d DRM driver's, doctor_v3d.c's
 * checks take their place.
 */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <qpu.h>

#include "qpuctl.h"
#include "doctor.h"


/* The udev rule's line that opens a real V3D's node to the video group. */
#define DOCTOR_UDEV_RULE \
	"SUBSYSTEM==\"misc\", KERNEL==\"qpu*\", DRIVERS==\"qpu-v3d\", GROUP=\"video\", MODE=\"0660\""


static const char * const status_names[] = {
	[DOCTOR_OK] = "ok",
	[DOCTOR_WARN] = "warn",
	[DOCTOR_FAIL] = "fail",
	[DOCTOR_SKIP] = "skip",
};


/* Copies @src into @dst, cut to fit. */
static void doctor_copy(char *dst, size_t size, const char *src)
{
	size_t n = strnlen(src, size - 1);

	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* A path under the root; "" when it does not fit. */
const char *doctor_path(const struct doctor *d, char *buf, size_t size,
			       const char *fmt, ...)
{
	char rel[PATH_MAX];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(rel, sizeof(rel), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(rel) ||
	    (size_t)snprintf(buf, size, "%s%s", d->root, rel) >= size)
		buf[0] = '\0';
	return buf;
}

/* The first line of a file, without its newline; false when unreadable. */
bool doctor_read_line(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	bool ok;

	if (!f)
		return false;
	ok = fgets(buf, size, f);
	fclose(f);
	if (ok)
		buf[strcspn(buf, "\n")] = '\0';
	return ok;
}

/* A module parameter of qpu as text; "" when there is none. */
static const char *doctor_param(const struct doctor *d, const char *name,
				char *buf, size_t size)
{
	char path[PATH_MAX];

	doctor_path(d, path, sizeof(path), "/sys/module/qpu/parameters/%s", name);
	if (!doctor_read_line(path, buf, size))
		buf[0] = '\0';
	return buf;
}

static bool doctor_param_set(const struct doctor *d, const char *name)
{
	char buf[32];

	doctor_param(d, name, buf, sizeof(buf));
	return buf[0] == 'Y' || buf[0] == '1';
}

/* Prints one finding; @detail and @fix may be NULL. */
/* @text's lines, the first after @first, the others after @indent. */
static void print_lines(const char *first, const char *indent, const char *text)
{
	const char *nl;

	for (; (nl = strchr(text, '\n')); text = nl + 1, first = indent)
		printf("%s%.*s\n", first, (int)(nl - text), text);
	printf("%s%s\n", first, text);
}

void doctor_finding(struct doctor *d, const char *check, int status,
			   const char *summary, const char *detail,
			   const char *fix)
{
	static const char * const tags[] = {
		[DOCTOR_OK] = "[ok]   ",
		[DOCTOR_WARN] = "[warn] ",
		[DOCTOR_FAIL] = "[FAIL] ",
		[DOCTOR_SKIP] = "[skip] ",
	};

	if (status == DOCTOR_FAIL)
		d->fails++;
	print_open_object(NULL);
	print_text(tags[status]);
	print_string("check", "%s: ", check);
	print_string("status", NULL, status_names[status]);
	print_string("summary", "%s\n", summary);
	if (detail && *detail)
		print_string("detail", "       %s\n", detail);
	if (fix && *fix && !print_json() && strchr(fix, '\n'))
		print_lines("       fix: ", "            ", fix);
	else if (fix && *fix)
		print_string("fix", "       fix: %s\n", fix);
	print_close_object();
}

/*
 * The kernel log's last line from qpu.ko (its messages start with "qpu",
 * as "qpu: ", "qpu-sim qpu-sim.0: " or "qpu-v3d 20c00000.v3d: "), from
 * /dev/kmsg's records ("PRI,SEQ,TIME,FLAGS;MESSAGE"), read without
 * blocking; a regular file of such lines does as well.
 */
static void doctor_read_log(struct doctor *d)
{
	char path[PATH_MAX], rec[8192], *msg;
	FILE *f;
	int fd;

	d->log_line[0] = '\0';
	doctor_path(d, path, sizeof(path), "/dev/kmsg");
	fd = open(path, O_RDONLY | O_NONBLOCK);
	if (fd < 0) {
		d->log_err = errno;
		return;
	}
	f = fdopen(fd, "r");
	if (!f) {
		d->log_err = errno;
		close(fd);
		return;
	}
	for (;;) {
		if (!fgets(rec, sizeof(rec), f)) {
			/* A record overwritten while reading: go on. */
			if (ferror(f) && errno == EPIPE) {
				clearerr(f);
				continue;
			}
			break;
		}
		if (rec[0] == ' ')	/* a record's key=value continuation */
			continue;
		msg = strchr(rec, ';');
		msg = msg ? msg + 1 : rec;
		msg[strcspn(msg, "\n")] = '\0';
		if (!strncmp(msg, "qpu", 3))
			doctor_copy(d->log_line, sizeof(d->log_line), msg);
	}
	fclose(f);
}

static void check_module(struct doctor *d)
{
	char path[PATH_MAX], state[32], detail[DOCTOR_TEXT + 32], fix_text[DOCTOR_TEXT + 64];
	const char *fix = fix_text;

	doctor_path(d, path, sizeof(path), "/sys/module/qpu/initstate");
	if (doctor_read_line(path, state, sizeof(state))) {
		d->loaded = !strcmp(state, "live");
		if (d->loaded) {
			doctor_finding(d, "module", DOCTOR_OK, "qpu.ko is loaded",
				       NULL, NULL);
			return;
		}
		snprintf(detail, sizeof(detail), "module state: %s", state);
		doctor_finding(d, "module", DOCTOR_FAIL,
			       "qpu.ko is not live", detail, NULL);
		return;
	}

	if (d->log_err)
		snprintf(detail, sizeof(detail),
			 "the kernel log cannot be read (%s): run qpuctl doctor as root to see why",
			 strerror(d->log_err));
	else if (d->log_line[0])
		snprintf(detail, sizeof(detail), "kernel log: %s", d->log_line);
	else
		snprintf(detail, sizeof(detail),
			 "nothing from qpu in the kernel log: it was not loaded since boot");
	/* libqpu's words for "no device", which every tool prints too */
	snprintf(fix_text, sizeof(fix_text),
		 "%s\n(a Pi at every boot: echo qpu > /etc/modules-load.d/qpu.conf)",
		 qpu_dev_open_hint(ENOENT));
	if (strstr(d->log_line, "version magic") ||
	    strstr(d->log_line, "disagrees about version") ||
	    strstr(d->log_line, "Invalid module format"))
		fix = "rebuild it for this kernel: dkms autoinstall, or make module && make install";
	else if (strstr(d->log_line, "invalid for parameter") ||
		 strstr(d->log_line, "expected"))
		fix = "correct the parameter in /etc/modprobe.d/qpu.conf (kmod/qpu-modprobe.conf), then modprobe qpu";
	doctor_finding(d, "module", DOCTOR_FAIL, "qpu.ko is not loaded", detail, fix);
}

/* The path of qpu.ko in modules.dep, relative to the release's directory. */
static bool doctor_find_module(const struct doctor *d, char *rel, size_t size)
{
	char path[PATH_MAX], line[4096], *end, *base;
	bool found = false;
	FILE *f;

	doctor_path(d, path, sizeof(path), "/lib/modules/%s/modules.dep", d->release);
	f = fopen(path, "r");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		end = strchr(line, ':');
		if (!end)
			continue;
		*end = '\0';
		base = strrchr(line, '/');
		base = base ? base + 1 : line;
		if (!strncmp(base, "qpu.ko", 6) &&
		    (!base[6] || base[6] == '.')) {
			doctor_copy(rel, size, line);
			found = true;
		}
	}
	fclose(f);
	return found;
}

/* The first word of the "vermagic=" string in a module file. */
static bool doctor_vermagic(const char *path, char *buf, size_t size)
{
	static const char key[] = "vermagic=";
	size_t matched = 0, n = 0;
	bool in = false;
	FILE *f = fopen(path, "rb");
	int c;

	if (!f)
		return false;
	while ((c = getc(f)) != EOF) {
		if (in) {
			if (c == ' ' || c == '\0' || n + 1 >= size)
				break;
			buf[n++] = c;
		} else if (c == key[matched]) {
			in = ++matched == sizeof(key) - 1;
		} else {
			matched = c == key[0];
		}
	}
	fclose(f);
	buf[n] = '\0';
	return in && n;
}

static void check_module_build(struct doctor *d)
{
	char rel[PATH_MAX], path[PATH_MAX], magic[128], text[2 * PATH_MAX];
	char fix[512];
	size_t len;

	snprintf(fix, sizeof(fix),
		 "build and install it for %s: dkms autoinstall -k %s, or make module && make install",
		 d->release, d->release);
	if (!doctor_find_module(d, rel, sizeof(rel))) {
		snprintf(text, sizeof(text), "no qpu.ko is installed for %s%s",
			 d->release, d->loaded ? " (the loaded one came from elsewhere: it will not load at boot)" : "");
		d->build = d->loaded ? DOCTOR_WARN : DOCTOR_FAIL;
		doctor_finding(d, "module_build", d->build, text, NULL, fix);
		return;
	}
	doctor_path(d, path, sizeof(path), "/lib/modules/%s/%s", d->release, rel);
	len = strlen(rel);
	if (len > 3 && strcmp(rel + len - 3, ".ko")) {
		snprintf(text, sizeof(text), "%s is compressed: its build is not checked", path);
		d->build = DOCTOR_SKIP;
		doctor_finding(d, "module_build", d->build, text, NULL, NULL);
		return;
	}
	if (!doctor_vermagic(path, magic, sizeof(magic))) {
		snprintf(text, sizeof(text), "%s has no vermagic: not a kernel module", path);
		d->build = DOCTOR_FAIL;
		doctor_finding(d, "module_build", d->build, text, NULL, fix);
		return;
	}
	if (strcmp(magic, d->release)) {
		snprintf(text, sizeof(text), "%s was built for kernel %s, not the running %s",
			 path, magic, d->release);
		d->build = DOCTOR_FAIL;
		doctor_finding(d, "module_build", d->build, text, NULL, fix);
		return;
	}
	snprintf(text, sizeof(text), "%s is built for %s", path, d->release);
	d->build = DOCTOR_OK;
	doctor_finding(d, "module_build", d->build, text, NULL, NULL);
}

/* True when the NUL-separated list in file @path holds @want. */
bool doctor_compatible_has(const char *path, const char *want)
{
	char buf[1024];
	size_t n, i;
	FILE *f = fopen(path, "rb");

	if (!f)
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	for (i = 0; i < n; i += strlen(buf + i) + 1)
		if (!strcmp(buf + i, want))
			return true;
	return false;
}

/* The basename of symlink @path's target into @buf; false if no link. */
bool doctor_link_name(const char *path, char *buf, size_t size)
{
	char target[PATH_MAX], *base;
	ssize_t n = readlink(path, target, sizeof(target) - 1);

	if (n < 0)
		return false;
	target[n] = '\0';
	base = strrchr(target, '/');
	doctor_copy(buf, size, base ? base + 1 : target);
	return true;
}

/* The boot partition's config.txt, bookworm's place first; "" if none. */
const char *doctor_config_txt(const struct doctor *d, char *buf, size_t size)
{
	static const char * const paths[] = {
		"/boot/firmware/config.txt", "/boot/config.txt",
	};
	unsigned int i;

	for (i = 0; i < 2; i++)
		if (!access(doctor_path(d, buf, size, "%s", paths[i]), R_OK))
			return buf;
	buf[0] = '\0';
	return buf;
}

bool doctor_file_has_line(const char *path, const char *want)
{
	char line[512];
	bool found = false;
	FILE *f = fopen(path, "r");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\r\n")] = '\0';
		found = !strcmp(line, want);
	}
	fclose(f);
	return found;
}

/* The overlay's finding, for a VideoCore IV V3D whose node is @node. */
static void check_overlay(struct doctor *d, const char *node)
{
	char path[PATH_MAX + 1024], config[PATH_MAX], dtbo[PATH_MAX];
	char text[DOCTOR_TEXT], fix[DOCTOR_TEXT + PATH_MAX];
	bool has_dtbo;

	snprintf(path, sizeof(path), "%s/compatible", node);
	if (doctor_compatible_has(path, "brcm,bcm2835-v3d-qpu")) {
		doctor_finding(d, "overlay", DOCTOR_OK,
			       "the qpu-v3d overlay is applied", NULL, NULL);
		return;
	}
	doctor_config_txt(d, config, sizeof(config));
	has_dtbo = !access(doctor_path(d, dtbo, sizeof(dtbo),
				       "/boot/firmware/overlays/qpu-v3d.dtbo"), R_OK) ||
		   !access(doctor_path(d, dtbo, sizeof(dtbo),
				       "/boot/overlays/qpu-v3d.dtbo"), R_OK);
	if (!has_dtbo)
		snprintf(fix, sizeof(fix),
			 "install the overlay (make dtbo && make install-pi, or the qpu-dkms package), add the line dtoverlay=qpu-v3d to %s and reboot",
			 config[0] ? config : "/boot/firmware/config.txt");
	else if (config[0] && doctor_file_has_line(config, "dtoverlay=qpu-v3d"))
		snprintf(fix, sizeof(fix), "%s has dtoverlay=qpu-v3d: reboot to apply it",
			 config);
	else
		snprintf(fix, sizeof(fix), "add the line dtoverlay=qpu-v3d to %s and reboot",
			 config[0] ? config : "/boot/firmware/config.txt");
	snprintf(text, sizeof(text), "the qpu-v3d overlay is not applied%s",
		 d->hw_bound ? " (qpu has the V3D anyway: vc4 is not loaded)" : "");
	doctor_finding(d, "overlay", d->hw_bound ? DOCTOR_WARN : DOCTOR_FAIL, text,
		       NULL, fix);
}

/*
 * The V3D: the platform device whose device-tree node is a v3d@ node with
 * a VideoCore IV compatible, and the driver bound to it.
 */
static void check_v3d_owner(struct doctor *d)
{
	char dir[PATH_MAX], path[PATH_MAX + 1024], node[PATH_MAX + 512];
	char name[256], driver[256], text[DOCTOR_TEXT + 600], detail[DOCTOR_TEXT + 32];
	struct dirent *e;
	bool found = false;
	DIR *dp;

	dp = opendir(doctor_path(d, dir, sizeof(dir), "/sys/bus/platform/devices"));
	while (dp && !found && (e = readdir(dp))) {
		snprintf(node, sizeof(node), "%s/%s/of_node", dir, e->d_name);
		if (!doctor_link_name(node, name, sizeof(name)) ||
		    strncmp(name, "v3d@", 4))
			continue;
		snprintf(path, sizeof(path), "%s/compatible", node);
		if (!doctor_compatible_has(path, "brcm,bcm2835-v3d") &&
		    !doctor_compatible_has(path, "brcm,vc4-v3d") &&
		    !doctor_compatible_has(path, "brcm,bcm2835-v3d-qpu")) {
			/* A Pi 4's or 5's V3D: the v3d DRM driver's. */
			snprintf(text, sizeof(text),
				 "the V3D (%s) is not a VideoCore IV: the v3d DRM driver serves it",
				 e->d_name);
			doctor_finding(d, "v3d_owner", DOCTOR_SKIP, text, NULL, NULL);
			doctor_finding(d, "overlay", DOCTOR_SKIP,
				       "the qpu-v3d overlay is for VideoCore IV V3Ds", NULL, NULL);
			closedir(dp);
			return;
		}
		found = true;
		d->hw_present = true;
		snprintf(path, sizeof(path), "%s/%s/driver", dir, e->d_name);
		if (!doctor_link_name(path, driver, sizeof(driver)))
			driver[0] = '\0';
		d->hw_bound = !strcmp(driver, "qpu-v3d");
		if (d->hw_bound) {
			snprintf(text, sizeof(text), "the V3D (%s) is qpu's", e->d_name);
			doctor_finding(d, "v3d_owner", DOCTOR_OK, text, NULL, NULL);
		} else if (driver[0]) {
			snprintf(text, sizeof(text), "the V3D (%s) is owned by %s, not qpu",
				 e->d_name, driver);
			doctor_finding(d, "v3d_owner", DOCTOR_FAIL, text, NULL,
				       "give it to qpu with the qpu-v3d overlay (see the overlay finding)");
		} else {
			snprintf(text, sizeof(text), "no driver has the V3D (%s)", e->d_name);
			snprintf(detail, sizeof(detail), "kernel log: %s",
				 d->log_line[0] ? d->log_line : "nothing from qpu");
			doctor_finding(d, "v3d_owner", DOCTOR_FAIL, text, detail,
				       d->loaded ? "see the kernel log line: qpu's probe refused it" :
						   "modprobe qpu");
		}
		check_overlay(d, node);
	}
	if (dp)
		closedir(dp);
	if (!found) {
		doctor_finding(d, "v3d_owner", DOCTOR_SKIP,
			       "no VideoCore IV V3D in the device tree (not a Raspberry Pi 1-3): simulated V3Ds only (sim=N)",
			       NULL, NULL);
		doctor_finding(d, "overlay", DOCTOR_SKIP,
			       "no V3D for the qpu-v3d overlay", NULL, NULL);
	}
}

/* /proc/meminfo's CmaTotal in bytes; -1 when it has none. */
static long long doctor_cma_total(const struct doctor *d)
{
	char path[PATH_MAX], line[256];
	long long kib = -1;
	FILE *f;

	f = fopen(doctor_path(d, path, sizeof(path), "/proc/meminfo"), "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CmaTotal: %lld kB", &kib) == 1)
			break;
	fclose(f);
	return kib < 0 ? -1 : kib * 1024;
}

static void check_cma(struct doctor *d)
{
	char limit_text[32], text[DOCTOR_TEXT], fix[DOCTOR_TEXT];
	long long cma, limit;

	if (!d->loaded) {
		doctor_finding(d, "cma", DOCTOR_SKIP, "qpu.ko is not loaded", NULL, NULL);
		return;
	}
	/* A real V3D's BOs come from CMA once qpu has it, if not yet. */
	if (!d->hw_present && !doctor_param_set(d, "sim_dma")) {
		doctor_finding(d, "cma", DOCTOR_SKIP,
			       "no V3D takes buffers from CMA (simulated V3Ds use vmalloc unless sim_dma=1)",
			       NULL, NULL);
		return;
	}
	cma = doctor_cma_total(d);
	limit = atoll(doctor_param(d, "dev_mem_limit", limit_text, sizeof(limit_text)));
	if (cma <= 0) {
		doctor_finding(d, "cma", DOCTOR_FAIL,
			       "the kernel has no CMA (no CmaTotal in /proc/meminfo): buffers larger than a few pages fail",
			       NULL,
			       "add cma=256M to the kernel command line (/boot/firmware/cmdline.txt), or dtoverlay=cma,cma-256 to config.txt, and reboot");
		return;
	}
	if (cma < limit) {
		snprintf(text, sizeof(text),
			 "CMA has %lld MiB, less than dev_mem_limit's %lld MiB: allocations fail before the limit",
			 cma >> 20, limit >> 20);
		snprintf(fix, sizeof(fix),
			 "raise CMA (dtoverlay=cma,cma-256 in config.txt, or cma=256M on the command line), or lower the limit: qpuctl config set dev_mem_limit %lldM",
			 cma >> 20);
		doctor_finding(d, "cma", DOCTOR_FAIL, text, NULL, fix);
		return;
	}
	snprintf(text, sizeof(text), "CMA has %lld MiB, dev_mem_limit is %lld MiB",
		 cma >> 20, limit >> 20);
	doctor_finding(d, "cma", DOCTOR_OK, text, NULL, NULL);
}

static void check_headers(struct doctor *d)
{
	char path[PATH_MAX], text[DOCTOR_TEXT], fix[DOCTOR_TEXT];
	int status;

	doctor_path(d, path, sizeof(path), "/lib/modules/%s/build/Makefile", d->release);
	if (!access(path, R_OK)) {
		snprintf(text, sizeof(text), "kernel headers for %s are installed", d->release);
		doctor_finding(d, "headers", DOCTOR_OK, text, NULL, NULL);
		return;
	}
	/* Needed now only when no good module for this kernel is installed. */
	status = d->build == DOCTOR_FAIL ? DOCTOR_FAIL : DOCTOR_WARN;
	snprintf(text, sizeof(text),
		 "no kernel headers for %s (/lib/modules/%s/build): DKMS cannot build qpu.ko for it",
		 d->release, d->release);
	snprintf(fix, sizeof(fix),
		 "apt install linux-headers-%s (Raspberry Pi OS: the board's linux-headers-rpi-*, see README)",
		 d->release);
	doctor_finding(d, "headers", status, text, NULL, fix);
}


static bool doctor_read_self(const struct doctor *d, struct doctor_self *self)
{
	char path[PATH_MAX], line[1024], *p, *end;
	unsigned int r;
	FILE *f;

	memset(self, 0, sizeof(*self));
	f = fopen(doctor_path(d, path, sizeof(path), "/proc/self/status"), "r");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Uid: %u %u", &r, &self->uid) == 2 ||
		    sscanf(line, "Gid: %u %u", &r, &self->gid) == 2 ||
		    sscanf(line, "CapEff: %llx", &self->cap_eff) == 1)
			continue;
		if (strncmp(line, "Groups:", 7))
			continue;
		for (p = line + 7; self->ngroups < DOCTOR_MAX_GROUPS; p = end) {
			unsigned long g = strtoul(p, &end, 10);

			if (end == p)
				break;
			self->groups[self->ngroups++] = g;
		}
	}
	fclose(f);
	return true;
}

static bool doctor_in_group(const struct doctor_self *self, unsigned int gid)
{
	unsigned int i;

	if (self->gid == gid)
		return true;
	for (i = 0; i < self->ngroups; i++)
		if (self->groups[i] == gid)
			return true;
	return false;
}

/* A group's name from /etc/group, else its number. */
void doctor_group_name(const struct doctor *d, unsigned int gid,
			      char *buf, size_t size)
{
	char path[PATH_MAX], line[1024], name[256];
	unsigned int g;
	FILE *f;

	snprintf(buf, size, "%u", gid);
	f = fopen(doctor_path(d, path, sizeof(path), "/etc/group"), "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%255[^:]:%*[^:]:%u:", name, &g) == 2 && g == gid) {
			doctor_copy(buf, size, name);
			break;
		}
	fclose(f);
}

/* Whether the caller may open @st read-write, by its mode bits. */
bool doctor_may_open(const struct doctor_self *self, const struct stat *st)
{
	mode_t need;

	if (!self->uid)
		return true;
	if (st->st_uid == self->uid)
		need = S_IRUSR | S_IWUSR;
	else if (doctor_in_group(self, st->st_gid))
		need = S_IRGRP | S_IWGRP;
	else
		need = S_IROTH | S_IWOTH;
	return (st->st_mode & need) == need;
}

static void check_device_node(struct doctor *d, const struct doctor_self *self,
			      bool have_self)
{
	char path[PATH_MAX], text[DOCTOR_TEXT + PATH_MAX], detail[DOCTOR_TEXT + 32];
	char group[256], fix[DOCTOR_TEXT];
	unsigned int i, nodes = 0, refused = 0;
	struct stat st;

	if (!d->loaded) {
		doctor_finding(d, "device_node", DOCTOR_SKIP, "qpu.ko is not loaded",
			       NULL, NULL);
		return;
	}
	for (i = 0; i < 16; i++) {
		doctor_path(d, path, sizeof(path), i ? "/dev/qpu%u" : "/dev/qpu", i);
		if (stat(path, &st))
			continue;
		nodes++;
		if (!have_self || doctor_may_open(self, &st))
			continue;
		refused++;
		doctor_group_name(d, st.st_gid, group, sizeof(group));
		snprintf(text, sizeof(text),
			 "%s (mode %04o, group %s) cannot be opened by uid %u",
			 path, (unsigned int)(st.st_mode & 07777), group, self->uid);
		if (st.st_gid && (st.st_mode & (S_IRGRP | S_IWGRP)) == (S_IRGRP | S_IWGRP))
			snprintf(fix, sizeof(fix),
				 "join the group: usermod -aG %s $USER, then log in again", group);
		else
			snprintf(fix, sizeof(fix),
				 "install kmod/60-qpu.rules as /etc/udev/rules.d/60-qpu.rules (its line %s), run udevadm trigger, and join the video group",
				 DOCTOR_UDEV_RULE);
		doctor_finding(d, "device_node", DOCTOR_FAIL, text, NULL, fix);
	}
	if (!nodes) {
		snprintf(detail, sizeof(detail), "kernel log: %s",
			 d->log_line[0] ? d->log_line : "nothing from qpu");
		doctor_finding(d, "device_node", DOCTOR_FAIL,
			       "qpu.ko is loaded but made no /dev/qpu: no V3D was probed",
			       detail,
			       "on a Pi, see the v3d_owner finding; elsewhere load it with sim=1 for a simulated V3D");
		return;
	}
	if (!refused) {
		snprintf(text, sizeof(text), "%u device node%s, usable by uid %u", nodes,
			 nodes > 1 ? "s" : "", self->uid);
		doctor_finding(d, "device_node", DOCTOR_OK, text, NULL, NULL);
	}
}

static void check_submit(struct doctor *d, const struct doctor_self *self)
{
	bool rawio = self->cap_eff >> DOCTOR_CAP_SYS_RAWIO & 1;

	if (!d->loaded) {
		doctor_finding(d, "submit", DOCTOR_SKIP, "qpu.ko is not loaded", NULL, NULL);
		return;
	}
	if (!d->hw_present && !doctor_param_set(d, "sim_hw_policy")) {
		doctor_finding(d, "submit", DOCTOR_OK,
			       "simulated V3Ds check every access: anyone who opens the node may submit",
			       NULL, NULL);
		return;
	}
	if (rawio) {
		doctor_finding(d, "submit", DOCTOR_OK,
			       "you have CAP_SYS_RAWIO: you may submit programs to a real V3D",
			       NULL, NULL);
		return;
	}
	if (doctor_param_set(d, "allow_unprivileged_hw")) {
		doctor_finding(d, "submit", DOCTOR_WARN,
			       "allow_unprivileged_hw is set: anyone who opens the node may run programs that reach all memory",
			       NULL, "echo 0 > /sys/module/qpu/parameters/allow_unprivileged_hw");
		return;
	}
	doctor_finding(d, "submit", DOCTOR_FAIL,
		       "submitting to a real V3D needs CAP_SYS_RAWIO (QPU programs reach all memory), which you lack",
		       NULL,
		       "run as root, or setcap cap_sys_rawio+ep PROGRAM, or (every user then reaches all memory) echo 1 > /sys/module/qpu/parameters/allow_unprivileged_hw");
}

int cmd_doctor(struct qpuctl *ctl, int argc, char **argv)
{
	struct doctor d = { .root = getenv("QPUCTL_ROOT") };
	struct doctor_self self;
	char path[PATH_MAX];
	bool have_self;

	if (argc && is_help(argv[0])) {
		printf("Usage: qpuctl [-j [-p]] doctor\n"
		       "Check what /dev/qpu needs (module, its build, the V3D's owner and\n"
		       "overlay, CMA, kernel headers, the node's permissions, the submit\n"
		       "privilege) and say how to fix each problem. Exit status 1 when\n"
		       "any check fails. Files are read under $QPUCTL_ROOT (default /).\n");
		return 0;
	}
	if (argc)
		die("unknown doctor argument '%s': try 'qpuctl doctor help'", argv[0]);
	if (!d.root)
		d.root = "";
	if (!doctor_read_line(doctor_path(&d, path, sizeof(path),
					  "/proc/sys/kernel/osrelease"),
			      d.release, sizeof(d.release)))
		die_errno(errno, "%s", path);
	have_self = doctor_read_self(&d, &self);
	doctor_read_log(&d);

	print_open_object(NULL);
	print_open_array("findings");
	if (!doctor_v3d_drm(&d, &self, have_self)) {
		check_module(&d);
		check_module_build(&d);
		check_v3d_owner(&d);
		check_cma(&d);
		check_headers(&d);
		check_device_node(&d, &self, have_self);
		check_submit(&d, &self);
	}
	print_close_array();
	print_uint("problems", d.fails ? "qpuctl doctor: %" PRIu64 " problem(s) found\n" :
			       "qpuctl doctor: no problem found\n", d.fails);
	print_close_object();
	print_flush();
	return d.fails ? 1 : 0;
}
