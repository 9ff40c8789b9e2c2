/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vgem's buffers for the dma-buf tests (qpu_dmabuf_test on qpu.ko,
 * test-v3d-dev on v3d_sim's nodes): the vgem card, a dumb buffer with its
 * dma-buf fd and vgem's own CPU mapping of it. Header-only: each test
 * program includes it once. Needs libdrm's <drm.h> on the include path.
 */
#ifndef QPU_SELFTESTS_VGEM_BUF_H
#define QPU_SELFTESTS_VGEM_BUF_H

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <drm.h>
#include <drm_mode.h>

/* The first DRM card node of the vgem driver, opened; -1 without one. */
static int vgem_open(void)
{
	char path[32], name[16];
	int i, fd;

	for (i = 0; i < 16; i++) {
		struct drm_version v = { .name = name, .name_len = sizeof(name) - 1 };

		snprintf(path, sizeof(path), "/dev/dri/card%d", i);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;
		memset(name, 0, sizeof(name));
		if (!ioctl(fd, DRM_IOCTL_VERSION, &v) && !strcmp(name, "vgem"))
			return fd;
		close(fd);
	}
	return -1;
}

/* A vgem buffer: its dma-buf fd and a CPU mapping through vgem. */
struct vgem_buf {
	__u32 handle;
	int dmabuf;
	void *map;
	size_t size;
};

static int vgem_buf_new(int vgem, size_t size, struct vgem_buf *b)
{
	struct drm_mode_create_dumb create = {
		.width = size / 4, .height = 1, .bpp = 32,
	};
	struct drm_mode_map_dumb map = { 0 };
	struct drm_prime_handle prime = { 0 };

	if (ioctl(vgem, DRM_IOCTL_MODE_CREATE_DUMB, &create))
		return -1;
	b->handle = create.handle;
	b->size = create.size;
	map.handle = b->handle;
	prime.handle = b->handle;
	prime.flags = DRM_CLOEXEC | DRM_RDWR;
	if (ioctl(vgem, DRM_IOCTL_MODE_MAP_DUMB, &map) ||
	    ioctl(vgem, DRM_IOCTL_PRIME_HANDLE_TO_FD, &prime))
		return -1;
	b->dmabuf = prime.fd;
	b->map = mmap(NULL, b->size, PROT_READ | PROT_WRITE, MAP_SHARED, vgem,
		      map.offset);
	return b->map == MAP_FAILED ? -1 : 0;
}

static void vgem_buf_free(int vgem, struct vgem_buf *b)
{
	struct drm_gem_close c = { .handle = b->handle };

	if (b->map && b->map != MAP_FAILED)
		munmap(b->map, b->size);
	if (b->dmabuf >= 0)
		close(b->dmabuf);
	ioctl(vgem, DRM_IOCTL_GEM_CLOSE, &c);
	b->dmabuf = -1;
	b->map = NULL;
}

#endif /* QPU_SELFTESTS_VGEM_BUF_H */
