/* SPDX-License-Identifier: MIT */
/*
 * qpu-run's V3D path (run_v3d.c): a program for a Pi 4 or 5 dispatched on
 * libqpu's emulated device "emu:v3d42" or "emu:v3d71", with its uniforms
 * and data in buffers at the GPU addresses the command line chose.
 */
#ifndef QPU_TOOLS_RUN_V3D_H
#define QPU_TOOLS_RUN_V3D_H

#include <stdbool.h>
#include <stdint.h>

#include <qpu.h>

/* One memory area: code, uniforms, a file or zeros, at GPU address @base. */
struct run_v3d_region {
	uint32_t base;
	uint32_t size;
	uint8_t *mem;		/* @size bytes: its contents; afterwards, the job's */
	const char *name;
};

struct run_dump {
	uint32_t addr;
	uint32_t size;
	const char *path;	/* NULL: hex words on standard output */
};

/**
 * struct run_v3d - what to run
 * @gen: QPU_GEN_V3D42 or QPU_GEN_V3D71
 * @regions: the areas; [0] the code, [1] the uniforms
 * @workgroups: workgroups dispatched (in X)
 * @wg_size: invocations per workgroup, 1 to 256 (a workgroup of more than
 *	16 runs as several 16-lane batches)
 * @threads: threads per QPU the program is written for: 1, 2 or 4
 * @budget: instructions each thread may issue (rounded up to whole
 *	milliseconds of the device's rate)
 * @stats: print the job's counters
 * @timing: print the job's modelled time (the emulated device's "timing")
 * @board: with @timing, the board modelled ("pi4"; "pi5" or "pi5-16"), or
 *	NULL for the device's default
 */
struct run_v3d {
	enum qpu_gen gen;
	struct run_v3d_region *regions;
	unsigned int nregions;
	const struct run_dump *dumps;
	unsigned int ndumps;
	unsigned int workgroups;
	unsigned int wg_size;
	unsigned int threads;
	uint64_t budget;
	bool stats;
	bool timing;
	const char *board;
};

/*
 * The lowest GPU address a region may have, and the multiple it must be
 * of: upstream v3d's granule, as the emulated device places buffers.
 */
#define RUN_V3D_GRANULE		(128u << 10)

/*
 * A dump's @size bytes at @p: into @path, or as hex words on standard
 * output when @path is NULL. 0, or 1 (said on standard error).
 */
int run_write_dump(const char *path, const uint8_t *p, uint32_t size);

/* Runs it: qpu-run's exit status (0 done, 2 fault, 3 deadlock, 4 budget, 1 error). */
int run_v3d(const struct run_v3d *run);

#endif /* QPU_TOOLS_RUN_V3D_H */
