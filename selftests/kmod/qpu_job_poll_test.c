// SPDX-License-Identifier: GPL-2.0
/*
 * The cases of qpu_job_test with the simulated V3D's poll_only knob set:
 * programs that end or fault no longer kick the scheduler, so every job's
 * end is found by its poll of SRQCS alone, as on a V3D without interrupts.
 */
#define QPU_JOB_POLL_ONLY "1"
#include "qpu_job_test.c"
