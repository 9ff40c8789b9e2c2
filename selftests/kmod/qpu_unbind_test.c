// SPDX-License-Identifier: GPL-2.0
/*
 * Unbinding the simulated V3D from its driver (sysfs) while files hold
 * jobs: the device's removal cancels every queued job, while other files
 * close at the same moment (their release frees what the removal walks),
 * and the files left open see their jobs canceled and later calls fail.
 * Each case binds the device back, so the other selftests find /dev/qpu.
 */

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/qpu.h>

#include "kselftest_harness.h"
#include "qpu_programs.h"
#include "qpu_util.h"

#define SIM_DRIVER	"/sys/bus/platform/drivers/qpu-sim/"
#define SIM_DEVICE	"qpu-sim.0"
#define FILES		8
#define JOBS		4

static int bind_back(void)
{
	struct stat st;
	int i;

	if (stat(QPU_NODE, &st) == 0)
		return 0;
	if (qpu_test_write(SIM_DRIVER "bind", SIM_DEVICE))
		return -1;
	for (i = 0; i < 100 && stat(QPU_NODE, &st); i++)
		usleep(10000);
	return stat(QPU_NODE, &st);
}

struct closer {
	pthread_barrier_t *go;
	int fd;
};

static void *close_at_go(void *arg)
{
	struct closer *c = arg;

	pthread_barrier_wait(c->go);
	close(c->fd);
	return NULL;
}

FIXTURE(unbind) {
	int unused;
};

FIXTURE_SETUP(unbind)
{
	ASSERT_EQ(0, bind_back());
}

FIXTURE_TEARDOWN(unbind)
{
	bind_back();
}

/*
 * Half the files close as the device goes, with jobs queued behind one
 * hung by the knob; the other half find every job canceled and the device
 * gone. Rounds give the race between the removal and the releases chances.
 */
TEST_F_TIMEOUT(unbind, removal_cancels_queued_jobs_beside_closing_files, 60)
{
	struct qpu_test_bo code[FILES], unif[FILES];
	struct closer closers[FILES / 2];
	pthread_t threads[FILES / 2];
	pthread_barrier_t go;
	struct qpu_submit s;
	__u64 seqno[FILES][JOBS];
	int fd[FILES], round, i, j;

	for (round = 0; round < 5; round++) {
		ASSERT_EQ(0, bind_back());
		ASSERT_EQ(0, qpu_test_write(QPU_DEBUGFS "hang", "1"));
		for (i = 0; i < FILES; i++) {
			fd[i] = open(QPU_NODE, O_RDWR | O_CLOEXEC);
			ASSERT_LE(0, fd[i]);
			ASSERT_EQ(0, qpu_test_bo_new(fd[i], 4096, qpu_prog_end,
						     sizeof(qpu_prog_end), &code[i]));
			ASSERT_EQ(0, qpu_test_bo_new(fd[i], 4096, NULL, 0, &unif[i]));
			for (j = 0; j < JOBS; j++) {
				ASSERT_EQ(0, qpu_test_submit(fd[i], &code[i], &unif[i], 1,
							     10000, 0, 0, &s));
				seqno[i][j] = s.seqno;
			}
		}
		ASSERT_EQ(0, pthread_barrier_init(&go, NULL, FILES / 2 + 1));
		for (i = 0; i < FILES / 2; i++) {
			/*
			 * A mapping would keep the old device, and /dev/qpu's
			 * number with it, past the round.
			 */
			munmap(code[i].map, code[i].size);
			munmap(unif[i].map, unif[i].size);
			closers[i] = (struct closer){ .go = &go, .fd = fd[i] };
			ASSERT_EQ(0, pthread_create(&threads[i], NULL, close_at_go,
						    &closers[i]));
		}
		pthread_barrier_wait(&go);
		ASSERT_EQ(0, qpu_test_write(SIM_DRIVER "unbind", SIM_DEVICE));
		for (i = 0; i < FILES / 2; i++)
			pthread_join(threads[i], NULL);
		pthread_barrier_destroy(&go);

		for (i = FILES / 2; i < FILES; i++) {
			for (j = 0; j < JOBS; j++)
				EXPECT_EQ(QPU_JOB_CANCELED,
					  qpu_test_wait(fd[i], seqno[i][j], 1000, NULL));
			/* The device is gone: new work is canceled at once. */
			ASSERT_EQ(0, qpu_test_submit(fd[i], &code[i], &unif[i], 1, 0, 0, 0, &s));
			EXPECT_EQ(QPU_JOB_CANCELED, qpu_test_wait(fd[i], s.seqno, 1000, NULL));
			qpu_test_bo_free(fd[i], &code[i]);
			qpu_test_bo_free(fd[i], &unif[i]);
			close(fd[i]);
		}
	}
}

TEST_HARNESS_MAIN
