// SPDX-License-Identifier: GPL-2.0
/*
 * The simulated v3d node's round trip, run in the VM beside bench-vm (make
 * bench): an empty dispatch (one batch of 16 invocations that only end
 * their thread) from SUBMIT_CSD to its out-syncobj signalling, on the
 * Pi 4's and the Pi 5's render nodes; upstream's no-op dispatch (no
 * workgroups, which never reaches the emulator) for the driver's own
 * share; and as py-videocore waits, through WAIT_BO. Medians of 5 runs.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>

#include "../v3d_sim/v3d_sim_util.h"
#include "bench.h"

#define RUNS	5
#define JOBS	200

static void die(const char *what)
{
	fprintf(stderr, "bench-v3dsim: %s: %s\n", what, strerror(errno));
	exit(1);
}

enum wait_kind { WAIT_SYNCOBJ, WAIT_BO };

/* Microseconds per job of @jobs dispatches of @cfg, each waited for. */
static double round_trip_us(int fd, const uint32_t cfg[7], uint32_t bo,
			    uint32_t sync, enum wait_kind how, int jobs)
{
	struct drm_v3d_wait_bo w = { .handle = bo };
	double t0 = bench_now_s();
	int i;

	for (i = 0; i < jobs; i++) {
		if (v3d_sim_submit(fd, cfg, &bo, 1, 0, sync))
			die("SUBMIT_CSD");
		if (how == WAIT_SYNCOBJ) {
			if (v3d_sim_syncobj_wait(fd, sync, 10000))
				die("SYNCOBJ_WAIT");
		} else {
			w.timeout_ns = 10000000000ull;
			if (ioctl(fd, DRM_IOCTL_V3D_WAIT_BO, &w))
				die("WAIT_BO");
		}
	}
	return (bench_now_s() - t0) * 1e6 / jobs;
}

static void bench_node(int gen)
{
	double empty[RUNS], noop[RUNS], waitbo[RUNS];
	struct v3d_sim_bo code;
	uint32_t cfg[7], none[7], sync;
	int fd = v3d_sim_open(gen, 1), r;

	if (fd < 0)
		die(v3d_sim_node_name(gen));
	if (v3d_sim_bo_new(fd, 4096, &code))
		die("CREATE_BO");
	if (!v3d_sim_assemble(gen, "", code.map, 4096 / 8))
		die("assemble");
	sync = v3d_sim_syncobj_new(fd);
	if (!sync)
		die("SYNCOBJ_CREATE");
	v3d_sim_cfg(cfg, gen, 1, code.offset, code.offset);
	memcpy(none, cfg, sizeof(none));
	none[0] = 0;
	for (r = 0; r < RUNS; r++) {
		empty[r] = round_trip_us(fd, cfg, code.handle, sync, WAIT_SYNCOBJ, JOBS);
		noop[r] = round_trip_us(fd, none, code.handle, sync, WAIT_SYNCOBJ, JOBS);
		waitbo[r] = round_trip_us(fd, cfg, code.handle, 0, WAIT_BO, JOBS);
	}
	printf("  %-46s %10.1f us\n", gen == 42 ? "Pi 4 node: empty dispatch, syncobj wait" :
	       "Pi 5 node: empty dispatch, syncobj wait", bench_median(empty, RUNS));
	printf("  %-46s %10.1f us\n", "  no-op dispatch (no workgroups)",
	       bench_median(noop, RUNS));
	printf("  %-46s %10.1f us\n", "  empty dispatch, WAIT_BO (py-videocore)",
	       bench_median(waitbo, RUNS));
	v3d_sim_syncobj_free(fd, sync);
	v3d_sim_bo_free(fd, &code);
	close(fd);
}

int main(void)
{
	printf("v3d_sim node benchmarks (in the VM; median of %d runs of %d jobs)\n",
	       RUNS, JOBS);
	bench_node(42);
	bench_node(71);
	return 0;
}
