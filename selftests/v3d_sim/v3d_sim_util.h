/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers of the simulated v3d node's kselftests (linked into each by
 * v3d_sim.mk): the nodes by their by-path names, BOs, programs assembled
 * with libqpu's assembler, CSD submits, syncobjs and their sync_files.
 * Each returns what the ioctl returned (0 or -1 with errno) unless it
 * says otherwise.
 */
#ifndef V3D_SIM_UTIL_H
#define V3D_SIM_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include <drm/v3d_drm.h>

#define V3D_SIM_BY_PATH		"/dev/dri/by-path/"
#define V3D_SIM_PI4		"platform-fec00000.v3d"
#define V3D_SIM_PI5		"platform-1002000000.v3d"
#define V3D_SIM_PARAMS		"/sys/module/v3d_sim/parameters/"

/* The by-path name of generation @gen's node (42 or 71). */
const char *v3d_sim_node_name(int gen);

/* Opens generation @gen's card (@render 0) or render node: an fd or -1. */
int v3d_sim_open(int gen, int render);

/* A BO and its mapping. */
struct v3d_sim_bo {
	uint32_t handle;
	uint32_t offset;	/* GPU address */
	void *map;
	size_t size;
};

/* Creates and maps a BO of @size bytes. */
int v3d_sim_bo_new(int fd, size_t size, struct v3d_sim_bo *bo);
/* Unmaps it and closes its handle. */
void v3d_sim_bo_free(int fd, struct v3d_sim_bo *bo);
/* Closes a GEM handle. */
int v3d_sim_gem_close(int fd, uint32_t handle);

/*
 * Assembles @src (Mesa's syntax, the thread end appended) for @gen into
 * @code; returns the number of 64-bit words, or 0 with a message.
 */
size_t v3d_sim_assemble(int gen, const char *src, uint64_t *code,
			size_t max_words);

/*
 * The cfg words of a dispatch of @batches batches of 16 invocations (one
 * workgroup of 16 each), code at @code, uniforms at @unif, 4 threads, for
 * generation @gen (7.1.6, the Pi 5's, counts cfg[4] without the minus 1).
 */
void v3d_sim_cfg(uint32_t cfg[7], int gen, unsigned int batches, uint32_t code,
		 uint32_t unif);

/* SUBMIT_CSD of @cfg over @bos with the in/out syncobjs (0: none). */
int v3d_sim_submit(int fd, const uint32_t cfg[7], const uint32_t *bos,
		   unsigned int nbos, uint32_t in_sync, uint32_t out_sync);

/* Syncobjs: create (a handle, 0 on failure), destroy, wait. */
uint32_t v3d_sim_syncobj_new(int fd);
void v3d_sim_syncobj_free(int fd, uint32_t handle);
/* Waits up to @timeout_ms for the syncobj's fence to signal. */
int v3d_sim_syncobj_wait(int fd, uint32_t handle, int64_t timeout_ms);
/* Its fence as a sync_file fd, or -1. */
int v3d_sim_syncobj_sync_file(int fd, uint32_t handle);
/*
 * A sync_file's status: 1 signalled without error, 0 pending, or the
 * fence's negative error; -1000 when the query fails.
 */
int v3d_sim_sync_file_status(int sync_fd);

/* Writes @value to the module parameter @name (a writable knob). */
int v3d_sim_set_param(const char *name, const char *value);

/* The module parameter @name as a number, or -1 if it cannot be read. */
long v3d_sim_get_param(const char *name);

/* The slices generation @gen's node has: 2 (Pi 4), 3 or 4 (pi5_qpus); -1 unknown. */
int v3d_sim_slices(int gen);

/* Milliseconds of CLOCK_MONOTONIC. */
int64_t v3d_sim_now_ms(void);

#endif /* V3D_SIM_UTIL_H */
