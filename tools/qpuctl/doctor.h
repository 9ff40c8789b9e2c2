/* SPDX-License-Identifier: MIT */
/*
 * qpuctl doctor's shared parts: the findings, the paths under
 * $QPUCTL_ROOT and the caller, for doctor.c (qpu.ko on a Pi 1-3 or a PC)
 * and doctor_v3d.c (a Pi 4's or 5's V3D, the v3d DRM driver's).
 */
#ifndef QPUCTL_DOCTOR_H
#define QPUCTL_DOCTOR_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#define DOCTOR_TEXT	512
/* CAP_SYS_RAWIO's bit in /proc/self/status's CapEff (linux/capability.h). */
#define DOCTOR_CAP_SYS_RAWIO	17
#define DOCTOR_MAX_GROUPS	64

enum doctor_status { DOCTOR_OK, DOCTOR_WARN, DOCTOR_FAIL, DOCTOR_SKIP };

/* What the checks learn and later checks use. */
struct doctor {
	const char *root;
	char release[128];
	bool loaded;
	int build;		/* the module_build finding's status */
	bool hw_bound;		/* a real V3D is bound to qpu-v3d */
	bool hw_present;	/* a VideoCore IV V3D is in the device tree */
	char log_line[DOCTOR_TEXT];	/* the kernel log's last qpu line */
	int log_err;		/* errno reading the kernel log, or 0 */
	unsigned int fails;
};

/* The caller as /proc/self/status says: euid, egid, groups, CapEff. */
struct doctor_self {
	unsigned int uid, gid;
	unsigned int groups[DOCTOR_MAX_GROUPS];
	unsigned int ngroups;
	unsigned long long cap_eff;
};

const char *doctor_path(const struct doctor *d, char *buf, size_t size,
			const char *fmt, ...) __attribute__((format(printf, 4, 5)));
bool doctor_read_line(const char *path, char *buf, size_t size);
/* Prints one finding; @detail and @fix may be NULL. */
void doctor_finding(struct doctor *d, const char *check, int status,
		    const char *summary, const char *detail, const char *fix);
/* The basename of symlink @path's target into @buf; false if no link. */
bool doctor_link_name(const char *path, char *buf, size_t size);
/* The boot partition's config.txt, bookworm's place first; "" if none. */
const char *doctor_config_txt(const struct doctor *d, char *buf, size_t size);
bool doctor_file_has_line(const char *path, const char *want);
/* Whether the caller may open @st read-write, by its mode bits. */
bool doctor_may_open(const struct doctor_self *self, const struct stat *st);
/* A group's name from /etc/group, else its number. */
void doctor_group_name(const struct doctor *d, unsigned int gid, char *buf,
		       size_t size);
/* Whether the device-tree "compatible" file @path lists @want. */
bool doctor_compatible_has(const char *path, const char *want);

/*
 * doctor_v3d.c: when the V3D is a Pi 4's or 5's, its findings (the v3d
 * driver, the KMS overlay, the nodes against the caller, CSD) in place of
 * qpu.ko's, and true; false on any other machine.
 */
bool doctor_v3d_drm(struct doctor *d, const struct doctor_self *self,
		    bool have_self);

#endif /* QPUCTL_DOCTOR_H */
