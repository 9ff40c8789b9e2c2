// SPDX-License-Identifier: GPL-2.0
/*
 * Helpers of the simulated v3d node's kselftests: see v3d_sim_util.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include <linux/sync_file.h>

#include "qpu_asm.h"
#include "test-v3d.h"
#include "v3d_sim_util.h"

const char *v3d_sim_node_name(int gen)
{
	return gen == 71 ? V3D_SIM_PI5 : V3D_SIM_PI4;
}

int v3d_sim_open(int gen, int render)
{
	char path[128];

	snprintf(path, sizeof(path), V3D_SIM_BY_PATH "%s-%s",
		 v3d_sim_node_name(gen), render ? "render" : "card");
	return open(path, O_RDWR | O_CLOEXEC);
}

int v3d_sim_gem_close(int fd, uint32_t handle)
{
	struct drm_gem_close c = { .handle = handle };

	return ioctl(fd, DRM_IOCTL_GEM_CLOSE, &c);
}

int v3d_sim_bo_new(int fd, size_t size, struct v3d_sim_bo *bo)
{
	struct drm_v3d_create_bo c = { .size = size };
	struct drm_v3d_mmap_bo m = { 0 };

	memset(bo, 0, sizeof(*bo));
	if (ioctl(fd, DRM_IOCTL_V3D_CREATE_BO, &c))
		return -1;
	m.handle = c.handle;
	if (ioctl(fd, DRM_IOCTL_V3D_MMAP_BO, &m))
		goto fail;
	bo->map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		       m.offset);
	if (bo->map == MAP_FAILED)
		goto fail;
	bo->handle = c.handle;
	bo->offset = c.offset;
	bo->size = size;
	return 0;
fail:
	v3d_sim_gem_close(fd, c.handle);
	bo->map = NULL;
	return -1;
}

void v3d_sim_bo_free(int fd, struct v3d_sim_bo *bo)
{
	if (bo->map)
		munmap(bo->map, bo->size);
	if (bo->handle)
		v3d_sim_gem_close(fd, bo->handle);
	memset(bo, 0, sizeof(*bo));
}

/* A thread's end, as every V3D test program closes. */
static const char v3d_sim_end[] = V3D_THREAD_END;

size_t v3d_sim_assemble(int gen, const char *src, uint64_t *code,
			size_t max_words)
{
	struct qpu_asm *as = qpu_asm_new();
	size_t n = 0, len = strlen(src) + sizeof(v3d_sim_end) + 2;
	const uint64_t *words;
	char *full = malloc(len);

	if (!as || !full)
		goto out;
	snprintf(full, len, "%s\n%s", src, v3d_sim_end);
	if (qpu_asm_set_gen(as, gen) || qpu_asm_string(as, "test", full)) {
		const struct qpu_asm_diag *d;
		size_t nd = qpu_asm_diags(as, &d), i;

		for (i = 0; i < nd; i++)
			fprintf(stderr, "test:%u: %s\n", d[i].line, d[i].msg);
		goto out;
	}
	n = qpu_asm_words(as, &words);
	if (n > max_words) {
		fprintf(stderr, "program of %zu words > %zu\n", n, max_words);
		n = 0;
		goto out;
	}
	memcpy(code, words, n * sizeof(*code));
out:
	free(full);
	qpu_asm_free(as);
	return n;
}

void v3d_sim_cfg(uint32_t cfg[7], int gen, unsigned int batches, uint32_t code,
		 uint32_t unif)
{
	cfg[0] = batches << 16;
	cfg[1] = 1u << 16;
	cfg[2] = 1u << 16;
	cfg[3] = 1u << 8 | 16;		/* 1 workgroup of 16 per supergroup */
	cfg[4] = gen == 71 ? batches : batches - 1;
	cfg[5] = code | 1;		/* 4 threads per QPU */
	cfg[6] = unif;
}

int v3d_sim_submit(int fd, const uint32_t cfg[7], const uint32_t *bos,
		   unsigned int nbos, uint32_t in_sync, uint32_t out_sync)
{
	struct drm_v3d_submit_csd s = {
		.bo_handles = (uintptr_t)bos,
		.bo_handle_count = nbos,
		.in_sync = in_sync,
		.out_sync = out_sync,
	};

	memcpy(s.cfg, cfg, sizeof(s.cfg));
	return ioctl(fd, DRM_IOCTL_V3D_SUBMIT_CSD, &s);
}

uint32_t v3d_sim_syncobj_new(int fd)
{
	struct drm_syncobj_create c = { 0 };

	return ioctl(fd, DRM_IOCTL_SYNCOBJ_CREATE, &c) ? 0 : c.handle;
}

void v3d_sim_syncobj_free(int fd, uint32_t handle)
{
	struct drm_syncobj_destroy d = { .handle = handle };

	ioctl(fd, DRM_IOCTL_SYNCOBJ_DESTROY, &d);
}

int64_t v3d_sim_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int v3d_sim_syncobj_wait(int fd, uint32_t handle, int64_t timeout_ms)
{
	struct drm_syncobj_wait w = {
		.handles = (uintptr_t)&handle,
		.count_handles = 1,
		.timeout_nsec = (v3d_sim_now_ms() + timeout_ms) * 1000000,
		.flags = DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT,
	};

	return ioctl(fd, DRM_IOCTL_SYNCOBJ_WAIT, &w);
}

int v3d_sim_syncobj_sync_file(int fd, uint32_t handle)
{
	struct drm_syncobj_handle h = {
		.handle = handle,
		.flags = DRM_SYNCOBJ_HANDLE_TO_FD_FLAGS_EXPORT_SYNC_FILE,
		.fd = -1,
	};

	return ioctl(fd, DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD, &h) ? -1 : h.fd;
}

int v3d_sim_sync_file_status(int sync_fd)
{
	struct sync_file_info info = { 0 };

	if (ioctl(sync_fd, SYNC_IOC_FILE_INFO, &info))
		return -1000;
	return info.status;
}

/* Opens v3d_sim's parameter @name with @flags. */
static int v3d_sim_open_param(const char *name, int flags)
{
	char path[256];

	snprintf(path, sizeof(path), V3D_SIM_PARAMS "%s", name);
	return open(path, flags | O_CLOEXEC);
}

int v3d_sim_set_param(const char *name, const char *value)
{
	int fd = v3d_sim_open_param(name, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, value, strlen(value));
	close(fd);
	return n == (ssize_t)strlen(value) ? 0 : -1;
}

long v3d_sim_get_param(const char *name)
{
	int fd = v3d_sim_open_param(name, O_RDONLY);
	char buf[32] = { 0 };
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return n > 0 ? strtol(buf, NULL, 10) : -1;
}

int v3d_sim_slices(int gen)
{
	long qpus;

	if (gen == 42)
		return 2;
	qpus = v3d_sim_get_param("pi5_qpus");
	return qpus == 12 || qpus == 16 ? (int)(qpus / 4) : -1;
}
