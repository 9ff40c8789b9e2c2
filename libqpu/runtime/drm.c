// SPDX-License-Identifier: MIT
/*
 * The DRM side of qpu_dev_open()'s probing: libdrm says which driver a
 * node that is not qpu.ko's belongs to (drmGetVersion()), and finds a v3d
 * node among the DRM devices (drmGetDevices2()). libdrm is loaded when
 * the probing needs it, so that libqpu neither links it nor needs it on
 * machines that have none; a static program (which has no loader: dlopen
 * is a weak reference) probes no DRM node.
 */

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <xf86drm.h>

#include "runtime/runtime.h"

#pragma weak dlopen
#pragma weak dlsym

/* The driver of the Pi 4's and Pi 5's V3D (V3D 4.2 and 7.1). */
#define QPU_DRM_V3D_DRIVER	"v3d"

/* libdrm's calls the probing makes. */
struct drm_lib {
	drmVersionPtr (*get_version)(int fd);
	void (*free_version)(drmVersionPtr version);
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
	*(void **)&lib->get_version = dlsym(h, "drmGetVersion");
	*(void **)&lib->free_version = dlsym(h, "drmFreeVersion");
	*(void **)&lib->get_devices2 = dlsym(h, "drmGetDevices2");
	*(void **)&lib->free_devices = dlsym(h, "drmFreeDevices");
	return lib->get_version && lib->free_version && lib->get_devices2 &&
	       lib->free_devices;
}

/* Whether the node @fd is the v3d driver's; @name gets the driver's name. */
static bool drm_is_v3d(const struct drm_lib *lib, int fd, char *name,
		       size_t size)
{
	drmVersionPtr v = lib->get_version(fd);
	bool v3d;

	if (!v)
		return false;
	snprintf(name, size, "%s", v->name ? v->name : "?");
	v3d = !strcmp(name, QPU_DRM_V3D_DRIVER);
	lib->free_version(v);
	return v3d;
}

int qpu_drm_probe(int fd, const char *path)
{
	struct drm_lib lib;
	char name[64] = "";

	if (!drm_lib_load(&lib))
		return qpu_fail(-ENODEV, "%s is not qpu.ko's node, and without libdrm.so.2 libqpu cannot tell what it is",
				path);
	if (drm_is_v3d(&lib, fd, name, sizeof(name)))
		return qpu_fail(-ENOTSUP, "%s is the v3d DRM driver's node (the V3D 4.2/7.1 of a Pi 4 or 5): libqpu has no v3d backend yet",
				path);
	if (*name)
		return qpu_fail(-ENODEV, "%s is a DRM node of the '%s' driver, neither qpu.ko's nor v3d's",
				path, name);
	return qpu_fail(-ENODEV, "%s is neither qpu.ko's node nor a DRM node", path);
}

bool qpu_drm_find_v3d(char *path, size_t size)
{
	drmDevicePtr devs[16];
	struct drm_lib lib;
	char name[64];
	bool found = false;
	int i, n, fd;

	if (!drm_lib_load(&lib))
		return false;
	n = lib.get_devices2(0, devs, 16);
	for (i = 0; i < n && !found; i++) {
		int node = devs[i]->available_nodes & (1 << DRM_NODE_RENDER) ?
			   DRM_NODE_RENDER : DRM_NODE_PRIMARY;

		if (!(devs[i]->available_nodes & (1 << node)))
			continue;
		fd = open(devs[i]->nodes[node], O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;
		found = drm_is_v3d(&lib, fd, name, sizeof(name));
		if (found)
			snprintf(path, size, "%s", devs[i]->nodes[node]);
		close(fd);
	}
	if (n > 0)
		lib.free_devices(devs, n);
	return found;
}
