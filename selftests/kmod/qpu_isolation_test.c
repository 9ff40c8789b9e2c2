// SPDX-License-Identifier: GPL-2.0
/*
 * Isolation between clients on the simulated V3D: the submit gate of a real
 * V3D (CAP_SYS_RAWIO or allow_unprivileged_hw), enforced by the simulated
 * one with sim_hw_policy; and a clean machine for every job: what one
 * client's programs leave in the VPM, the semaphores, the mutex, the
 * registers, the TMU and VPM FIFOs and the DMA setups never reaches the
 * next client's, who runs under another uid with its own buffers only.
 *
 * Both variants run every state test. "sim": the simulated V3D clears the
 * machine before each job, so even a file's own next job finds it clean.
 * "hw_policy": it keeps the state from job to job, as a V3D does, and the
 * scheduler's reset between files is what keeps a client out; there a
 * file's own next job does see its state, which proves each probe program
 * can see a leftover at all.
 *
 * Programs are written in the assembler's syntax and assembled at run time
 * by libqpu's assembler.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/capability.h>
#include <linux/qpu.h>

#include "kselftest_harness.h"
#include "qpu_asm.h"
#include "qpu_util.h"

#define PARAMS QPU_PARAMS

/* The other client's uid: nobody. */
#define OTHER_UID	65534
/* What the first client leaves behind. */
#define SECRET		0x5ec2e7
/* A uniform that stands for the address of the run's scratch area. */
#define UNIF_SCRATCH	0xffffffffu
#define SCRATCH_OFFSET	2048
#define SCRATCH_WORDS	128

/* A program's end: thread end and its two delay slots. */
#define END "nop; thrend\nnop\nnop\n"

/* Leaves SECRET in VPM row 0. */
static const char vpm_leave[] =
	"ldi vw_setup, vpm_setup(1, 1, h32(0))\n"
	"ldi vpm, 0x5ec2e7\n" END;
/* Stores VPM row 0 (16 words) to the scratch area. */
static const char vpm_show[] =
	"ldi vw_setup, vdw_setup_0(1, 16, dma_h32(0, 0))\n"
	"mov vw_addr, unif\n"
	"mov -, vw_wait\n" END;

/* Ends holding the mutex. */
static const char mutex_leave[] = "mov r2, mutex\n" END;
/* Takes and gives back the mutex: blocks while another holds it. */
static const char mutex_show[] = "mov r2, mutex\nmov mutex, 0\n" END;

/* Ends with semaphore 0 at 15. */
static const char sem_leave[] = ".rep 15\nsrel -, 0\n.endr\n" END;
/* Raises semaphore 0 and lowers it again: blocks if it was at 15. */
static const char sem_show[] = "srel -, 0\nsacq -, 0\n" END;

/* Leaves SECRET in r0..r3, ra0 and rb0. */
static const char regs_leave[] =
	"ldi r0, 0x5ec2e7\nldi r1, 0x5ec2e7\nldi r2, 0x5ec2e7\n"
	"ldi r3, 0x5ec2e7\nldi ra0, 0x5ec2e7\nldi rb0, 0x5ec2e7\n" END;
/* Stores r0..r3, ra0 and rb0 (lane 0 of each row) to the scratch area. */
static const char regs_show[] =
	"ldi vw_setup, vpm_setup(6, 1, h32(0))\n"
	"mov vpm, r0\nmov vpm, r1\nmov vpm, r2\nmov vpm, r3\n"
	"mov vpm, ra0\nmov vpm, rb0\n"
	"ldi vw_setup, vdw_setup_0(6, 16, dma_h32(0, 0))\n"
	"mov vw_addr, unif\n"
	"mov -, vw_wait\n" END;

/* Asks TMU 0 for the word at its uniform and ends without reading it. */
static const char tmu_leave[] = "mov t0s, unif\n" END;
/*
 * Asks TMU 0 for the scratch area's first word and stores the first answer
 * the FIFO gives (row 0) to the scratch area: a leftover request comes out
 * first.
 */
static const char tmu_show[] =
	"mov r0, unif\n"
	"mov t0s, r0\n"
	"nop; ldtmu0\n"
	"ldi vw_setup, vpm_setup(1, 1, h32(0))\n"
	"mov vpm, r4\n"
	"ldi vw_setup, vdw_setup_0(1, 16, dma_h32(0, 0))\n"
	"mov vw_addr, r0\n"
	"mov -, vw_wait\n" END;

/* Sets up a read of VPM row 0, which holds SECRET, and never reads it. */
static const char vpm_fifo_leave[] =
	"ldi vw_setup, vpm_setup(1, 1, h32(0))\n"
	"ldi vpm, 0x5ec2e7\n"
	"ldi vr_setup, vpm_setup(1, 1, h32(0))\n" END;
/*
 * Writes 0x0b0b to VPM row 1, reads row 1 back and stores what it read: a
 * read set up earlier would answer first, with row 0.
 */
static const char vpm_fifo_show[] =
	"ldi vw_setup, vpm_setup(1, 1, h32(1))\n"
	"ldi vpm, 0x0b0b\n"
	"ldi vr_setup, vpm_setup(1, 1, h32(1))\n"
	"nop\nnop\nnop\n"
	"mov r0, vpm\n"
	"ldi vw_setup, vpm_setup(1, 1, h32(2))\n"
	"mov vpm, r0\n"
	"ldi vw_setup, vdw_setup_0(1, 16, dma_h32(2, 0))\n"
	"mov vw_addr, unif\n"
	"mov -, vw_wait\n" END;

/* Leaves a DMA store stride of 64 bytes set up. */
static const char dma_setup_leave[] = "ldi vw_setup, vdw_setup_1(64)\n" END;
/*
 * Stores VPM rows 0 and 1 (1s and 2s) without a stride setup of its own: a
 * leftover stride would move the second row.
 */
static const char dma_setup_show[] =
	"ldi vw_setup, vpm_setup(2, 1, h32(0))\n"
	"ldi vpm, 1\nldi vpm, 2\n"
	"ldi vw_setup, vdw_setup_0(2, 16, dma_h32(0, 0))\n"
	"mov vw_addr, unif\n"
	"mov -, vw_wait\n" END;

/*
 * One program of one job: @src assembled into a code BO, @unif (UNIF_SCRATCH
 * for the scratch area's address) in a data BO whose scratch area holds
 * @fill. Returns the job's status, or -errno; the scratch area's words go
 * to @scratch (SCRATCH_WORDS) when not NULL.
 */
static int run_program(int fd, const char *src, const uint32_t *unif,
		       unsigned int unif_count, uint32_t fill, uint32_t *scratch)
{
	struct qpu_test_bo code, data;
	struct qpu_submit s;
	const uint64_t *words;
	struct qpu_asm *as;
	uint32_t *map;
	unsigned int i;
	size_t n;
	int ret;

	as = qpu_asm_new();
	if (!as)
		return -ENOMEM;
	ret = qpu_asm_string(as, "isolation", src);
	if (ret) {
		fprintf(stderr, "# cannot assemble:\n%s", src);
		qpu_asm_free(as);
		return ret;
	}
	n = qpu_asm_words(as, &words);
	ret = qpu_test_bo_new(fd, 4096, words, n * sizeof(*words), &code);
	qpu_asm_free(as);
	if (ret)
		return -errno;
	if (qpu_test_bo_new(fd, 4096, NULL, 0, &data)) {
		ret = -errno;
		qpu_test_bo_free(fd, &code);
		return ret;
	}
	map = data.map;
	for (i = 0; i < unif_count; i++)
		map[i] = unif[i] == UNIF_SCRATCH ? data.bus_addr + SCRATCH_OFFSET : unif[i];
	for (i = 0; i < SCRATCH_WORDS; i++)
		map[SCRATCH_OFFSET / 4 + i] = fill;

	ret = qpu_test_submit(fd, &code, &data, 1, 1000, 0, 0, &s);
	if (ret)
		ret = -errno;
	else
		ret = qpu_test_wait(fd, s.seqno, 10000, NULL);
	if (scratch)
		memcpy(scratch, map + SCRATCH_OFFSET / 4, SCRATCH_WORDS * 4);
	qpu_test_bo_free(fd, &data);
	qpu_test_bo_free(fd, &code);
	return ret;
}

/* What another client saw: the job's status and its scratch area. */
struct sight {
	int status;
	uint32_t scratch[SCRATCH_WORDS];
};

/*
 * Runs @src as another client: a child process with its own file, which it
 * opens and then becomes OTHER_UID, with no capability left, and its own
 * buffers. Returns 0 and fills @out, or -1.
 */
static int run_as_other(const char *src, const uint32_t *unif,
			unsigned int unif_count, uint32_t fill, struct sight *out)
{
	int pipefd[2], status;
	pid_t pid;

	if (pipe(pipefd))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		struct sight s = { 0 };
		int fd = open(QPU_NODE, O_RDWR | O_CLOEXEC);

		close(pipefd[0]);
		if (fd < 0 || setresgid(OTHER_UID, OTHER_UID, OTHER_UID) ||
		    setresuid(OTHER_UID, OTHER_UID, OTHER_UID))
			_exit(2);
		s.status = run_program(fd, src, unif, unif_count, fill, s.scratch);
		if (write(pipefd[1], &s, sizeof(s)) != sizeof(s))
			_exit(3);
		_exit(0);
	}
	close(pipefd[1]);
	status = read(pipefd[0], out, sizeof(*out)) == sizeof(*out) ? 0 : -1;
	close(pipefd[0]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		return -1;
	return 0;
}

FIXTURE(iso) {
	int fd;
};

FIXTURE_VARIANT(iso) {
	bool hw_policy;
};

FIXTURE_VARIANT_ADD(iso, sim) {
	.hw_policy = false,
};

FIXTURE_VARIANT_ADD(iso, hw_policy) {
	.hw_policy = true,
};

FIXTURE_SETUP(iso)
{
	ASSERT_EQ(0, qpu_test_write(PARAMS "sim_hw_policy", variant->hw_policy ? "1" : "0"));
	/* The other client runs without CAP_SYS_RAWIO. */
	ASSERT_EQ(0, qpu_test_write(PARAMS "allow_unprivileged_hw", variant->hw_policy ? "1" : "0"));
	self->fd = open(QPU_NODE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->fd) TH_LOG("open " QPU_NODE ": %s", strerror(errno));
}

FIXTURE_TEARDOWN(iso)
{
	close(self->fd);
	qpu_test_write(PARAMS "sim_hw_policy", "0");
	qpu_test_write(PARAMS "allow_unprivileged_hw", "0");
}

static const uint32_t unif_scratch[] = { UNIF_SCRATCH };

/* 1. Another client's DMA store of VPM row 0 stores zeros, not the secret. */
TEST_F(iso, vpm_contents)
{
	long long resets = qpu_test_stat("isolation_resets");
	uint32_t mine[SCRATCH_WORDS];
	struct sight other;
	unsigned int i;

	ASSERT_EQ(QPU_JOB_DONE, run_program(self->fd, vpm_leave, NULL, 0, 0, NULL));
	ASSERT_EQ(0, run_as_other(vpm_show, unif_scratch, 1, ~0u, &other));
	ASSERT_EQ(QPU_JOB_DONE, other.status);
	for (i = 0; i < 16; i++)
		EXPECT_EQ(0, other.scratch[i]) TH_LOG("VPM word %u", i);
	EXPECT_EQ(~0u, other.scratch[16]);	/* one row was stored */
	EXPECT_LT(resets, qpu_test_stat("isolation_resets"));

	/* The client's own next job: clean on the sim, as left on hardware. */
	ASSERT_EQ(QPU_JOB_DONE, run_program(self->fd, vpm_leave, NULL, 0, 0, NULL));
	ASSERT_EQ(QPU_JOB_DONE, run_program(self->fd, vpm_show, unif_scratch, 1, ~0u, mine));
	EXPECT_EQ(variant->hw_policy ? SECRET : 0, mine[0]);
}

/* 2. A mutex the first client's program ended holding does not block. */
TEST_F_TIMEOUT(iso, mutex_held_at_end, 30)
{
	struct sight other;

	ASSERT_EQ(QPU_JOB_DONE, run_program(self->fd, mutex_leave, NULL, 0, 0, NULL));
	ASSERT_EQ(0, run_as_other(mutex_show, NULL, 0, 0, &other));
	EXPECT_EQ(QPU_JOB_DONE, other.status);

	ASSERT_EQ(QPU_JOB_DONE, run_program(self->fd, mutex_leave, NULL, 0, 0, NULL));
	EXPECT_EQ(variant->hw_policy ? QPU_JOB_DEADLOCK : QPU_JOB_DONE,
		  run_program(self->fd, mutex_show, NULL, 0, 0, NULL));
}

/* 3. A semaphore left at 15 does not block another client's increment. */
TEST_F_TIMEOUT(iso, semaphore_left_full, 30)
{
	struct sight other;

	ASSERT_EQ(QPU_JOB_DONE, run_program(self->fd, sem_leave, NULL, 0, 0, NULL));
	ASSERT_EQ(0, run_as_other(sem_show, NULL, 0, 0, &other));
	EXPECT_EQ(QPU_JOB_DONE, other.status);

	ASSERT_EQ(QPU_JOB_DONE, run_program(self->fd, sem_leave, NULL, 0, 0, NULL));
	EXPECT_EQ(variant->hw_policy ? QPU_JOB_DEADLOCK : QPU_JOB_DONE,
		  run_program(self->fd, sem_show, NULL, 0, 0, NULL));
}

/* 4. Accumulators and both register files start at zero. */
TEST_F(iso, registers)
{
	struct sight other;
	unsigned int row;

	ASSERT_EQ(QPU_JOB_DONE, run_program(self->fd, regs_leave, NULL, 0, 0, NULL));
	ASSERT_EQ(0, run_as_other(regs_show, unif_scratch, 1, ~0u, &other));
	ASSERT_EQ(QPU_JOB_DONE, other.status);
	for (row = 0; row < 6; row++)
		EXPECT_EQ(0, other.scratch[16 * row]) TH_LOG("row %u", row);
}

/* 5. A TMU request the first client never read is not answered to the next. */
TEST_F(iso, tmu_fifo)
{
	uint32_t secret_unif[] = { UNIF_SCRATCH };
	struct sight other;

	ASSERT_EQ(QPU_JOB_DONE, run_program(self->fd, tmu_leave, secret_unif, 1,
					    SECRET, NULL));
	ASSERT_EQ(0, run_as_other(tmu_show, unif_scratch, 1, 0x0b0b, &other));
	ASSERT_EQ(QPU_JOB_DONE, other.status);
	EXPECT_EQ(0x0b0b, other.scratch[0]);
}

/* 6. A VPM read another client set up and never read does not answer ours. */
TEST_F(iso, vpm_fifo)
{
	struct sight other;

	ASSERT_EQ(QPU_JOB_DONE, run_program(self->fd, vpm_fifo_leave, NULL, 0, 0, NULL));
	ASSERT_EQ(0, run_as_other(vpm_fifo_show, unif_scratch, 1, ~0u, &other));
	ASSERT_EQ(QPU_JOB_DONE, other.status);
	EXPECT_EQ(0x0b0b, other.scratch[0]);
}

/* 7. DMA setups start at their reset values: no leftover stride. */
TEST_F(iso, dma_setup)
{
	struct sight other;
	unsigned int i;

	ASSERT_EQ(QPU_JOB_DONE, run_program(self->fd, dma_setup_leave, NULL, 0, 0, NULL));
	ASSERT_EQ(0, run_as_other(dma_setup_show, unif_scratch, 1, ~0u, &other));
	ASSERT_EQ(QPU_JOB_DONE, other.status);
	for (i = 0; i < 32; i++)
		EXPECT_EQ(i < 16 ? 1 : 2, other.scratch[i]) TH_LOG("word %u", i);
}

/* Drops CAP_SYS_RAWIO from the effective set, keeping root's uid and the rest. */
static int drop_rawio(void)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2];

	if (syscall(SYS_capget, &hdr, data))
		return -1;
	data[CAP_SYS_RAWIO / 32].effective &= ~(1u << (CAP_SYS_RAWIO % 32));
	return syscall(SYS_capset, &hdr, data);
}

static const char end_prog[] = END;

/*
 * The status of one job submitted by a child that dropped CAP_SYS_RAWIO
 * (uid stays 0) after opening the node and making its buffers: a job status,
 * or -errno of SUBMIT; -1000 when the child failed.
 */
static int submit_without_rawio(void)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1000;
	if (pid == 0) {
		int fd = open(QPU_NODE, O_RDWR | O_CLOEXEC);

		if (fd < 0 || drop_rawio())
			_exit(200);
		_exit(100 + run_program(fd, end_prog, NULL, 0, 0, NULL));
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) == 200)
		return -1000;
	return WEXITSTATUS(status) - 100;
}

/*
 * The bus address BO_CREATE answers to a child that dropped CAP_SYS_RAWIO;
 * -1 when the child failed.
 */
static long long bus_addr_without_rawio(void)
{
	int pipefd[2], status;
	long long addr = -1;
	pid_t pid;

	if (pipe(pipefd))
		return -1;
	pid = fork();
	if (pid == 0) {
		struct qpu_bo_create bc = { .size = 4096 };
		int fd = open(QPU_NODE, O_RDWR | O_CLOEXEC);

		if (fd < 0 || drop_rawio() || ioctl(fd, QPU_IOCTL_BO_CREATE, &bc))
			_exit(1);
		addr = bc.bus_addr;
		_exit(write(pipefd[1], &addr, sizeof(addr)) == sizeof(addr) ? 0 : 1);
	}
	close(pipefd[1]);
	if (pid < 0 || read(pipefd[0], &addr, sizeof(addr)) != sizeof(addr))
		addr = -1;
	close(pipefd[0]);
	if (pid > 0 && (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
			WEXITSTATUS(status)))
		addr = -1;
	return addr;
}

/* 8. With sim_hw_policy the gate is a real V3D's: CAP_SYS_RAWIO, or the parameter. */
TEST(submit_gate)
{
	int fd = open(QPU_NODE, O_RDWR | O_CLOEXEC);

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, qpu_test_write(PARAMS "allow_unprivileged_hw", "0"));

	/* The simulated V3D checks every access: anyone may submit. */
	ASSERT_EQ(0, qpu_test_write(PARAMS "sim_hw_policy", "0"));
	EXPECT_EQ(QPU_JOB_DONE, submit_without_rawio());

	EXPECT_LT(0, bus_addr_without_rawio());

	/* Gated: refused without the capability, with a clean EPERM... */
	ASSERT_EQ(0, qpu_test_write(PARAMS "sim_hw_policy", "1"));
	EXPECT_EQ(-EPERM, submit_without_rawio());
	/* ...and no bus address, which on hardware is a physical one... */
	EXPECT_EQ(0, bus_addr_without_rawio());
	/* ...allowed with it... */
	EXPECT_EQ(QPU_JOB_DONE, run_program(fd, end_prog, NULL, 0, 0, NULL));
	/* ...and without it when the administrator allows unprivileged use. */
	ASSERT_EQ(0, qpu_test_write(PARAMS "allow_unprivileged_hw", "1"));
	EXPECT_EQ(QPU_JOB_DONE, submit_without_rawio());

	qpu_test_write(PARAMS "allow_unprivileged_hw", "0");
	qpu_test_write(PARAMS "sim_hw_policy", "0");
	close(fd);
	/* Nothing a refused or allowed client made is left. */
	EXPECT_EQ(0, qpu_test_stats_wait_bo(5000, 0, 0, NULL, NULL));
}

TEST_HARNESS_MAIN
