/* SPDX-License-Identifier: MIT */
/*
 * The toolkit's private interfaces to the runtime: the core's timing model
 * and access kinds in libqpu's public terms (timing.c, emulator.c).
 */
#ifndef LIBQPU_TOOLKIT_H
#define LIBQPU_TOOLKIT_H

#include "qpu.h"

/* timing.c: the core's timing model in libqpu's terms */
struct qpu_timing;
struct qpu_timing_board;
/* The core's table of @board, or NULL for QPU_BOARD_NONE or an unknown one. */
const struct qpu_timing_board *qpu_timing_board_of(enum qpu_board board);
/*
 * The V3D emulator's board (enum qpu_v3d_emu_board) that @board names, or
 * -1 for QPU_BOARD_NONE or a VideoCore IV board; and the reverse.
 */
int qpu_board_to_v3d(enum qpu_board board);
enum qpu_board qpu_board_from_v3d(unsigned int v3d_board);
/* A job's modelled time, as struct qpu_job_timing says it. */
void qpu_timing_to_job(const struct qpu_timing *t, enum qpu_board board,
		       struct qpu_job_timing *out);

/* emulator.c: the core's access kinds and QPU states as libqpu's */
enum qpu_mem_access;
enum qpu_emu_qpu_state;
enum qpu_access qpu_access_from_emu(enum qpu_mem_access access);
enum qpu_activity qpu_activity_from_emu(enum qpu_emu_qpu_state state);

#endif /* LIBQPU_TOOLKIT_H */
