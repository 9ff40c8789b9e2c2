// SPDX-License-Identifier: MIT
/*
 * The DRM side of qpu_dev_open()'s probing: which driver a node that is
 * not qpu.ko's belongs to (DRM_IOCTL_VERSION), and where the v3d driver's
 * nodes are. The search asks libdrm (drmGetDevices2()), loaded when the
 * search needs it so that libqpu neither links it nor needs it; a program
 * without it (a static one has no loader: dlopen is a weak reference)
 * lists /dev/dri instead. Never a guessed minor number: a Pi 5 numbers
 * its card nodes in probe order.
 */

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <xf86drm.h>

#include "runtime/runtime.h"

#pragma weak dlopen
#pragma weak dlsym

/* The driver of the Pi 4's and Pi 5's V3D (V3D 4.2 and 7.1). */
#define QPU_DRM_V3D_DRIVER	"v3d"
/* Where DRM nodes are, for the search without libdrm. */
#define QPU_DRM_DIR		"/dev/dri"
/* DRM devices the search looks at. */
#define QPU_DRM_MAX_DEVICES	16

/* libdrm's calls the search makes. */
struct drm_lib {
	int (*get_devices2)(uint32_t flags, drmDevicePtr devices[], int max);
	void (*free_devices)(drmDevicePtr devices[], int count);
};

/* libdrm.so.2, loaded once and kept; false when it cannot be. */
static bool drm_lib_load(struct drm_lib *lib)
{
	void *h;

	if (!dlopen || !dlsym)
		return false;
	h = dlopen("libdrm.so.2", RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return false;
	*(void **)&lib->get_devices2 = dlsym(h, "drmGetDevices2");
	*(void **)&lib->free_devices = dlsym(h, "drmFreeDevices");
	return lib->get_devices2 && lib->free_devices;
}

/*
 * The name of the driver behind @fd into @name; false when @fd is no DRM
 * node. DRM_IOCTL_VERSION, as drmGetVersion() asks it, without libdrm.
 */
static bool drm_driver_name(int fd, char *name, size_t size)
{
	struct drm_version v;

	memset(&v, 0, sizeof(v));
	v.name = name;
	v.name_len = size - 1;
	if (ioctl(fd, DRM_IOCTL_VERSION, &v))
		return false;
	name[v.name_len < size - 1 ? v.name_len : size - 1] = '\0';
	return true;
}

int qpu_drm_probe(int fd, const char *path)
{
	char name[64] = "";

	if (!drm_driver_name(fd, name, sizeof(name)))
		return qpu_fail(-ENODEV, "%s is neither qpu.ko's node nor a DRM node", path);
	if (!strcmp(name, QPU_DRM_V3D_DRIVER))
		return 0;
	return qpu_fail(-ENODEV, "%s is a DRM node of the '%s' driver, neither qpu.ko's nor v3d's",
			path, name);
}

/* Whether @node is the v3d driver's. */
static bool drm_node_is_v3d(const char *node)
{
	char name[64];
	int fd = open(node, O_RDWR | O_CLOEXEC);
	bool v3d;

	if (fd < 0)
		return false;
	v3d = drm_driver_name(fd, name, sizeof(name)) &&
	      !strcmp(name, QPU_DRM_V3D_DRIVER);
	close(fd);
	return v3d;
}

/* libdrm's devices: each one's render node, else its card node. */
static int drm_find_libdrm(const struct drm_lib *lib,
			   char (*paths)[QPU_DRM_PATH_MAX], int max)
{
	drmDevicePtr devs[QPU_DRM_MAX_DEVICES];
	int i, n, found = 0;

	n = lib->get_devices2(0, devs, QPU_DRM_MAX_DEVICES);
	for (i = 0; i < n && found < max; i++) {
		int node = devs[i]->available_nodes & (1 << DRM_NODE_RENDER) ?
			   DRM_NODE_RENDER : DRM_NODE_PRIMARY;

		if (!(devs[i]->available_nodes & (1 << node)) ||
		    !drm_node_is_v3d(devs[i]->nodes[node]))
			continue;
		snprintf(paths[found++], QPU_DRM_PATH_MAX, "%s", devs[i]->nodes[node]);
	}
	if (n > 0)
		lib->free_devices(devs, n);
	return found;
}

static int drm_name_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/*
 * Without libdrm: /dev/dri's nodes named @prefix, in name order (a render
 * node is one device's, as a card node is).
 */
static int drm_find_dir(const char *prefix, char (*paths)[QPU_DRM_PATH_MAX],
			int max)
{
	char *names[QPU_DRM_MAX_DEVICES];
	DIR *dir = opendir(QPU_DRM_DIR);
	struct dirent *e;
	int i, n = 0, found = 0;

	if (!dir)
		return 0;
	while ((e = readdir(dir)) && n < QPU_DRM_MAX_DEVICES)
		if (!strncmp(e->d_name, prefix, strlen(prefix)) &&
		    (names[n] = strdup(e->d_name)))
			n++;
	closedir(dir);
	qsort(names, n, sizeof(*names), drm_name_cmp);
	for (i = 0; i < n; i++) {
		char node[QPU_DRM_PATH_MAX];

		snprintf(node, sizeof(node), QPU_DRM_DIR "/%s", names[i]);
		if (found < max && drm_node_is_v3d(node))
			snprintf(paths[found++], QPU_DRM_PATH_MAX, "%s", node);
		free(names[i]);
	}
	return found;
}

int qpu_drm_find_v3d(char (*paths)[QPU_DRM_PATH_MAX], int max)
{
	struct drm_lib lib;
	int found;

	if (drm_lib_load(&lib))
		return drm_find_libdrm(&lib, paths, max);
	found = drm_find_dir("renderD", paths, max);
	return found ? found : drm_find_dir("card", paths, max);
}
