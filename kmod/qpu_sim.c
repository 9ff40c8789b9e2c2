// SPDX-License-Identifier: GPL-2.0
/*
 * The simulated V3D: a model of the V3D registers that qpu.ko programs,
 * behind qpu_v3d_read()/qpu_v3d_write(), so the driver runs and is tested on
 * machines without a VideoCore.
 *
 * The "sim" module parameter creates that many "qpu-sim" platform devices at
 * load; each binds to the driver below and becomes a /dev/qpu node. The model
 * identifies itself as the BCM2835's V3D: 3 slices of 4 QPUs, 2 TMUs per
 * slice, 16 semaphores and a 12 KiB VPM. Registers it does not model read as
 * zero and ignore writes, as QEMU does for the real block.
 *
 * Memory: BOs are vmalloc'ed (nothing contiguous is needed) and placed in a
 * simulated 32-bit bus address space from 0xc0000000, each followed by an
 * unmapped guard gap, so a QPU access past a BO's end hits no other BO.
 * With the module parameter sim_dma, read at each probe, they come from
 * the DMA API on the simulated V3D's platform device instead, as a real
 * V3D's do (qpu_bo_dma_alloc()), so that tests meet the DMA API's rules,
 * such as its end at unbind; they still sit at simulated bus addresses.
 *
 * Programs: an SRQPC write queues a program; a work item hands queued
 * programs to idle QPUs of the shared emulator (libqpu/core/qpu_emu.h) and
 * runs them a slice at a time (the first slice of a job runs in the
 * scheduler's turn that starts it, qpu_sim_job_run(): on an idle device,
 * SUBMIT's, so an empty job needs no other thread), checking every memory
 * access against the
 * running job's BOs (uniform reads too: a program may point its stream
 * anywhere in them). A stray access stops the job with SRQCS's error flag,
 * before anything is written. Completed programs count in SRQCS as on the
 * hardware, and the scheduler is kicked as an interrupt would, unless the
 * "poll_only" knob leaves the scheduler to find them in SRQCS, as it must
 * on hardware.
 *
 * Time is the job's progress, not the wall clock's: the emulator stops the
 * job when one of its programs needs more than its timeout's worth of
 * work (QPU_EMU_INSTRUCTIONS_PER_MS instructions per millisecond, its DMAs
 * and TMU lookups charged as the instructions the V3D would take for
 * them, qpu_emu_set_limit()), so that a job's host time is bounded by its
 * timeout whatever its programs do, and when every
 * running program waits forever (a deadlock, whose QPU states it keeps).
 * qpu_sim_job_check() gives the scheduler that verdict, and says whether
 * programs are running, so the wall clock does not cut a job the host is
 * merely slow to emulate.
 *
 * Instruction counts come from the emulator's statistics, which a reset
 * clears: after every slice and before every reset, what the emulator
 * counted since the last look is added to per-QPU totals kept for the
 * device's life. A job's count is the growth of their sum from its begin
 * to its end; only one job runs at a time, so it is that job's alone.
 *
 * Every job starts from a clean machine: VPM, semaphores, mutex, every
 * QPU's registers and FIFOs and DMA setups are cleared before it, which a
 * real V3D cannot do without a power cycle. The module parameter
 * sim_hw_policy makes the model follow the hardware's rules instead, so
 * the driver's answers to them are tested: submitting needs CAP_SYS_RAWIO
 * (or allow_unprivileged_hw), and the machine keeps its state from job to
 * job, cleared only by the scheduler's reset between files' jobs.
 *
 * debugfs knobs in qpu/<node>/: "hang" (completed programs are not counted,
 * so jobs time out), "latency_us" (each program waits before starting),
 * "fault_next" (the next program faults as it starts), "strict_vpm" (a
 * generic VPM access past row 63 faults instead of wrapping as on the
 * hardware: qpu_emu_set_strict_vpm()), "poll_only" (programs that end or
 * fault do not kick the scheduler: only its poll of SRQCS finds them, as on
 * hardware without interrupts), "reset_noop" (a reset does nothing, so
 * the driver's check of it fails) and "resume_fail" (the device's runtime
 * resume fails, as a power domain that does not come back up);
 * qpu_sim_telemetry.c adds the telemetry's knobs.
 *
 * Power: the device is powered through runtime PM as a real V3D is, by the
 * functions qpu_hw.c uses (qpu_v3d.c, "the V3D's power"): one reference
 * from the probe on, and a reset is a power cycle before the model clears
 * itself. So the selftests meet the hardware's power path, failed resumes
 * included, and read its usage count in sysfs. DBQITE/DBQITC model
 * the QPUs' host interrupts; the interrupt line is a call to qpu_v3d_irq().
 */

#include <linux/bitfield.h>
#include <linux/debugfs.h>
#include <linux/dma-buf.h>
#include <linux/genalloc.h>
#include <linux/mm.h>
#include <linux/platform_device.h>
#include <linux/pm_runtime.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "qpu_compat.h"
#include "qpu_devmodel.h"
#include "qpu_drv.h"
#include "qpu_emu.h"
#include "qpu_v3d_regs.h"

#define QPU_SIM_DRV_NAME "qpu-sim"

static bool qpu_sim_hw_policy;
module_param_named(sim_hw_policy, qpu_sim_hw_policy, bool, 0644);
MODULE_PARM_DESC(sim_hw_policy,
		 "Simulated V3Ds follow a real one's rules: submitting needs CAP_SYS_RAWIO, and jobs start clean only after another file's (default N)");

static bool qpu_sim_dma;
module_param_named(sim_dma, qpu_sim_dma, bool, 0644);
MODULE_PARM_DESC(sim_dma,
		 "Simulated V3Ds probed from now on take BO memory from the DMA API, as a real one does, instead of vmalloc (for tests; default N)");

static bool qpu_sim_import_contiguous;
module_param_named(sim_import_contiguous, qpu_sim_import_contiguous, bool, 0644);
MODULE_PARM_DESC(sim_import_contiguous,
		 "Simulated V3Ds refuse imported dma-bufs that are not one run of DMA addresses, as a real one must (default N: they reach any pages)");

/* Read at each submit and each job's start: tests change it at run time. */
static bool qpu_sim_follows_hw_policy(void)
{
	return READ_ONCE(qpu_sim_hw_policy);
}

#define QPU_SIM_IDENT1 \
	(FIELD_PREP(V3D_IDENT1_VPMSZ, 12) | FIELD_PREP(V3D_IDENT1_NSEM, 16) | \
	 FIELD_PREP(V3D_IDENT1_TUPS, 2) | FIELD_PREP(V3D_IDENT1_QUPS, 4) | \
	 FIELD_PREP(V3D_IDENT1_NSLC, 3) | FIELD_PREP(V3D_IDENT1_REV, 1))

/*
 * The bus address space: 1 GiB from 0xc0000000 (the top 64 KiB unused), and
 * the unmapped gap after each BO.
 */
#define QPU_SIM_BUS_PAGE_SHIFT	12
#define QPU_SIM_BUS_START	QPU_DEVMODEL_BUS_START
#define QPU_SIM_BUS_SIZE	QPU_DEVMODEL_BUS_SIZE
#define QPU_SIM_BUS_GUARD	QPU_DEVMODEL_BUS_GUARD

/* Depth of the user-program request queue, as on the hardware. */
#define QPU_SIM_QUEUE_DEPTH	16
/*
 * Work run between two chances for the rest of the system: instructions,
 * and what their DMAs and TMU lookups are charged (qpu_emu_run()), so a
 * slice of the largest DMAs is no longer than one of ALU instructions.
 */
#define QPU_SIM_SLICE		20000

/**
 * struct qpu_sim - state of one simulated V3D.
 * @qdev: the device, to tell its scheduler when programs end.
 * @bus_space: allocator of bus addresses, each BO's range with its gap.
 * @lock: the registers below; taken by register accesses and by @exec.
 * @scratch: the SCRATCH register.
 * @srqua: the latched SRQUA, used by the next SRQPC write.
 * @reqs: SRQCS's requests count.
 * @done: SRQCS's completed count.
 * @error: SRQCS's error flag: a program faulted or the queue overflowed.
 * @queue_pc: programs queued by SRQPC and not yet on a QPU: code...
 * @queue_ua: ...and uniforms addresses.
 * @queue_len: entries in the queue, from index 0.
 * @dbqite: DBQITE, the QPUs whose host interrupts are enabled.
 * @dbqitc: DBQITC, the QPUs whose host interrupts are pending.
 * @run_inline: the scheduler runs the job's first slice itself
 *	(qpu_sim_job_run()), so SRQPC writes do not queue @exec; set by
 *	job_begin, cleared by job_run, both in one scheduler's turn.
 * @instructions: instructions each QPU issued since the device appeared,
 *	up to the last look at the emulator (under @lock, which netlink
 *	takes to read them while a slice runs).
 * @emu_lock: the emulator, @job, @emu_done, @fault, @emu_seen and
 *	@job_start; held while a slice runs, so a reset waits for the slice
 *	to end. Taken before @lock.
 * @emu: the 12 QPUs.
 * @job: the job whose BOs programs may touch; NULL between jobs, when
 *	every access faults.
 * @emu_done: the emulator's completed count already added to @done.
 * @fault: where the last fault happened.
 * @emu_seen: each QPU's count in the emulator's statistics already added
 *	to @instructions.
 * @job_start: the sum of @instructions when @job began.
 * @stop: QPU_JOB_TIMEOUT or QPU_JOB_DEADLOCK once the emulator stopped the
 *	running job for either reason, else 0; cleared by a reset.
 * @stop_qpus: for a deadlock, each QPU's state when it stopped.
 * @wq: ordered workqueue of @exec.
 * @exec: feeds queued programs to the QPUs and runs them a slice at a time.
 * @hang: debugfs knob: programs that end are not counted, so the running
 *	job looks hung and meets its timeout.
 * @latency_us: debugfs knob: each program waits this long before it starts.
 * @fault_next: debugfs knob: the next program to start faults at once, as
 *	if its first instruction could not run; the knob then clears itself.
 * @strict_vpm: debugfs knob: VPM addresses that would wrap fault instead
 *	(read before each slice).
 * @reset_noop: debugfs knob: a reset does nothing at all, SCRATCH and
 *	running programs included, as a power cycle that a runtime-PM
 *	reference held elsewhere turns into a no-op.
 * @poll_only: debugfs knob: what SRQCS shows (programs completed, a fault)
 *	does not kick the scheduler, whose poll must find it, as on hardware.
 *	The model's own verdicts (a deadlock, a spent budget) still do.
 * @dma_bos: BO memory comes from the DMA API (sim_dma at probe).
 * @powered: the driver holds its runtime-PM reference (qpu_v3d.c).
 * @resume_fail: debugfs knob: the device's runtime resume fails (-EIO).
 */
struct qpu_sim {
	struct qpu_dev *qdev;
	struct gen_pool *bus_space;

	spinlock_t lock;		/* the registers */
	u32 scratch;
	u32 srqua;
	u32 reqs;
	u32 done;
	bool error;
	u32 queue_pc[QPU_SIM_QUEUE_DEPTH];
	u32 queue_ua[QPU_SIM_QUEUE_DEPTH];
	unsigned int queue_len;
	u32 dbqite;
	u32 dbqitc;
	bool run_inline;
	u64 instructions[QPU_EMU_NUM_QPUS];

	struct mutex emu_lock;		/* the emulator and the running job */
	struct qpu_emu *emu;
	struct qpu_job *job;
	u32 emu_done;
	struct qpu_fault fault;
	u64 emu_seen[QPU_EMU_NUM_QPUS];
	u64 job_start;
	u32 stop;
	struct qpu_wait_qpu stop_qpus[QPU_EMU_NUM_QPUS];

	struct workqueue_struct *wq;
	struct delayed_work exec;
	bool hang;
	u32 latency_us;
	bool fault_next;
	bool strict_vpm;
	bool poll_only;
	bool reset_noop;
	bool dma_bos;
	bool powered;
	bool resume_fail;
};

/* The reg_read op: any context (struct qpu_backend_ops). */
static u32 qpu_sim_reg_read(struct qpu_dev *qdev, u32 reg)
{
	struct qpu_sim *sim = qdev->sim;
	unsigned long flags;
	u32 val = 0;

	spin_lock_irqsave(&sim->lock, flags);
	switch (reg) {
	case V3D_IDENT0:
		val = V3D_IDENT0_EXPECTED;
		break;
	case V3D_IDENT1:
		val = QPU_SIM_IDENT1;
		break;
	case V3D_SCRATCH:
		val = sim->scratch;
		break;
	case V3D_SRQUA:
		val = sim->srqua;
		break;
	case V3D_DBQITE:
		val = sim->dbqite;
		break;
	case V3D_DBQITC:
		val = sim->dbqitc;
		break;
	case V3D_SRQCS:
		val = FIELD_PREP(V3D_SRQCS_QLEN, sim->queue_len) |
		      (sim->error ? V3D_SRQCS_ERR : 0) |
		      FIELD_PREP(V3D_SRQCS_REQS, sim->reqs) |
		      FIELD_PREP(V3D_SRQCS_DONE, sim->done);
		break;
	}
	spin_unlock_irqrestore(&sim->lock, flags);
	return val;
}

/* Queues a program, as the hardware does on an SRQPC write. */
static void qpu_sim_queue_program_locked(struct qpu_sim *sim, u32 pc)
{
	lockdep_assert_held(&sim->lock);
	if (sim->queue_len == QPU_SIM_QUEUE_DEPTH) {
		sim->error = true;
		return;
	}
	sim->queue_pc[sim->queue_len] = pc;
	sim->queue_ua[sim->queue_len] = sim->srqua;
	sim->queue_len++;
	sim->reqs = (sim->reqs + 1) & 0xff;
	if (!sim->run_inline)
		queue_delayed_work(sim->wq, &sim->exec,
				   usecs_to_jiffies(READ_ONCE(sim->latency_us)));
}

/* The reg_write op: any context (struct qpu_backend_ops). */
static void qpu_sim_reg_write(struct qpu_dev *qdev, u32 reg, u32 val)
{
	struct qpu_sim *sim = qdev->sim;
	unsigned long flags;

	spin_lock_irqsave(&sim->lock, flags);
	switch (reg) {
	case V3D_SCRATCH:
		sim->scratch = val;
		break;
	case V3D_SRQUA:
		sim->srqua = val;
		break;
	case V3D_SRQPC:
		qpu_sim_queue_program_locked(sim, val);
		break;
	case V3D_DBQITE:
		sim->dbqite = val;
		break;
	case V3D_DBQITC:
		sim->dbqitc &= ~val;
		break;
	case V3D_SRQCS:
		if (val & V3D_SRQCS_ERR)
			sim->error = false;
		if (val & V3D_SRQCS_REQS_CLR)
			sim->reqs = 0;
		if (val & V3D_SRQCS_DONE_CLR)
			sim->done = 0;
		break;
	}
	spin_unlock_irqrestore(&sim->lock, flags);
}

/* Every memory access of a program, of any kind: inside a job's BO. */
static void *qpu_sim_translate(void *ctx, u32 addr, u32 len,
			       enum qpu_mem_access access)
{
	struct qpu_sim *sim = ctx;
	struct qpu_bo *bo;

	lockdep_assert_held(&sim->emu_lock);
	if (!sim->job)
		return NULL;
	bo = qpu_job_find_bo(sim->job, addr, len);
	return bo ? bo->vaddr + (addr - bo->bus_addr) : NULL;
}

/* A program wrote host_int: latch it; qpu_sim_exec() raises the line. */
static void qpu_sim_host_interrupt(void *ctx, unsigned int qpu)
{
	struct qpu_sim *sim = ctx;
	unsigned long flags;

	spin_lock_irqsave(&sim->lock, flags);
	sim->dbqitc |= BIT(qpu) & sim->dbqite;
	spin_unlock_irqrestore(&sim->lock, flags);
}

static const struct qpu_emu_ops qpu_sim_emu_ops = {
	.translate = qpu_sim_translate,
	.host_interrupt = qpu_sim_host_interrupt,
};

/*
 * Adds what the emulator counted since the last look to the totals; the
 * caller holds emu_lock and the register lock.
 */
static void qpu_sim_count_locked(struct qpu_sim *sim)
{
	const struct qpu_emu_stats *stats = qpu_emu_get_stats(sim->emu);
	unsigned int i;

	lockdep_assert_held(&sim->emu_lock);
	lockdep_assert_held(&sim->lock);
	for (i = 0; i < QPU_EMU_NUM_QPUS; i++) {
		sim->instructions[i] += stats->instructions[i] - sim->emu_seen[i];
		sim->emu_seen[i] = stats->instructions[i];
	}
}

/* Counts, and returns the sum of the totals; the caller holds emu_lock. */
static u64 qpu_sim_count(struct qpu_sim *sim)
{
	unsigned long flags;
	unsigned int i;
	u64 sum = 0;

	lockdep_assert_held(&sim->emu_lock);
	spin_lock_irqsave(&sim->lock, flags);
	qpu_sim_count_locked(sim);
	for (i = 0; i < QPU_EMU_NUM_QPUS; i++)
		sum += sim->instructions[i];
	spin_unlock_irqrestore(&sim->lock, flags);
	return sum;
}

/* Moves queued programs onto idle QPUs; emu_lock held. */
static void qpu_sim_start_programs(struct qpu_sim *sim)
{
	unsigned long flags;
	int ret;

	spin_lock_irqsave(&sim->lock, flags);
	while (sim->queue_len && !sim->error) {
		if (READ_ONCE(sim->fault_next)) {
			WRITE_ONCE(sim->fault_next, false);
			sim->fault = (struct qpu_fault){
				.reason = QPU_FAULT_REASON_INSTRUCTION,
				.pc = sim->queue_pc[0],
				.addr = sim->queue_pc[0],
			};
			sim->error = true;
			break;
		}
		ret = qpu_emu_start(sim->emu, sim->queue_pc[0], sim->queue_ua[0]);
		if (ret == -QPU_EMU_EBUSY)
			break;
		if (ret < 0) {
			/* A misaligned start address: the program faults. */
			sim->fault = (struct qpu_fault){
				.reason = QPU_FAULT_REASON_MISALIGNED,
				.pc = sim->queue_pc[0],
				.addr = sim->queue_pc[0],
				.access = QPU_MEM_FETCH,
			};
			sim->error = true;
		}
		sim->queue_len--;
		memmove(sim->queue_pc, sim->queue_pc + 1,
			sim->queue_len * sizeof(sim->queue_pc[0]));
		memmove(sim->queue_ua, sim->queue_ua + 1,
			sim->queue_len * sizeof(sim->queue_ua[0]));
	}
	spin_unlock_irqrestore(&sim->lock, flags);
}

/* Keeps where each QPU stopped; emu_lock held. */
static void qpu_sim_save_deadlock(struct qpu_sim *sim)
{
	unsigned int i;
	int sem;

	/* The emulator's QPU states are numbered as the uapi's. */
	BUILD_BUG_ON((int)QPU_EMU_QPU_WAIT_TMU != (int)QPU_QPU_WAIT_TMU);
	lockdep_assert_held(&sim->emu_lock);
	for (i = 0; i < QPU_EMU_NUM_QPUS; i++) {
		struct qpu_wait_qpu *q = &sim->stop_qpus[i];

		q->state = qpu_emu_get_qpu_state(sim->emu, i, &q->pc);
		sem = qpu_emu_get_wait_semaphore(sim->emu, i, NULL);
		q->semaphore = sem < 0 ? 0 : sem;
	}
	sim->stop = QPU_JOB_DEADLOCK;
}

/*
 * Are all the running job's programs on the QPUs? Only then is a deadlock
 * one: the QPU_EMU_DEADLOCK of programs that wait for one still queued
 * (SRQPC writes and this work race) ends when it starts.
 */
static bool qpu_sim_all_started(struct qpu_sim *sim)
{
	unsigned long flags;
	bool all;

	lockdep_assert_held(&sim->emu_lock);
	spin_lock_irqsave(&sim->lock, flags);
	all = sim->job && !sim->queue_len &&
	      sim->reqs == sim->job->program_count;
	spin_unlock_irqrestore(&sim->lock, flags);
	return all;
}

/* Each program's instruction budget: its job's timeout, as progress. */
static void qpu_sim_set_limit(struct qpu_sim *sim)
{
	lockdep_assert_held(&sim->emu_lock);
	if (sim->job)
		qpu_emu_set_limit(sim->emu, ktime_to_ms(sim->job->timeout) *
				  QPU_EMU_INSTRUCTIONS_PER_MS);
}

/*
 * One slice: queued programs onto idle QPUs, then at most QPU_SIM_SLICE of
 * work; what ended or faulted shows in SRQCS, and @exec is queued for the
 * next slice if programs remain. Returns whether the scheduler should look
 * at the job: a verdict, or (unless poll_only) an end or a fault.
 */
static bool qpu_sim_run_slice(struct qpu_sim *sim)
{
	enum qpu_emu_status status;
	bool more, irq, changed = false, verdict;
	unsigned long flags;
	u32 done, ended = 0;

	mutex_lock(&sim->emu_lock);
	qpu_sim_start_programs(sim);
	qpu_emu_set_strict_vpm(sim->emu, READ_ONCE(sim->strict_vpm));
	qpu_sim_set_limit(sim);
	status = qpu_emu_run(sim->emu, QPU_SIM_SLICE);
	done = qpu_emu_completed(sim->emu);
	if (status == QPU_EMU_DEADLOCK && !sim->stop && qpu_sim_all_started(sim))
		qpu_sim_save_deadlock(sim);
	else if (status == QPU_EMU_LIMIT)
		sim->stop = QPU_JOB_TIMEOUT;

	spin_lock_irqsave(&sim->lock, flags);
	qpu_sim_count_locked(sim);
	if (sim->error)		/* raised while starting programs */
		changed = true;
	if (status == QPU_EMU_FAULT && !sim->error) {
		sim->fault = *qpu_emu_get_fault(sim->emu);
		sim->error = true;
		changed = true;
	}
	if (done != sim->emu_done && !READ_ONCE(sim->hang)) {
		ended = done - sim->emu_done;
		changed = true;
	}
	sim->emu_done = done;
	/* A deadlock or a spent budget, like a fault, runs nothing more. */
	verdict = status == QPU_EMU_DEADLOCK || status == QPU_EMU_LIMIT;
	more = !sim->error && status != QPU_EMU_DEADLOCK &&
	       status != QPU_EMU_LIMIT &&
	       (status == QPU_EMU_RUNNING || sim->queue_len);
	irq = sim->dbqitc;
	spin_unlock_irqrestore(&sim->lock, flags);

	/*
	 * The interrupt line, level-triggered on DBQITC. A program's host_int
	 * write comes before its end, so the line rises before SRQCS counts
	 * the end: a poll that sees the job done has seen its interrupts.
	 * emu_lock keeps a reset (which cancels this work first) and the
	 * next job's start (which waits for this count) out of the gap.
	 */
	if (irq)
		qpu_v3d_irq(sim->qdev);
	if (ended) {
		spin_lock_irqsave(&sim->lock, flags);
		sim->done = (sim->done + ended) & 0xff;
		spin_unlock_irqrestore(&sim->lock, flags);
	}
	mutex_unlock(&sim->emu_lock);
	if (status == QPU_EMU_DEADLOCK)
		dev_dbg(sim->qdev->dev, "every running QPU waits forever\n");
	if (more) {
		/* The next slice after the rest of the system had its turn. */
		cond_resched();
		queue_delayed_work(sim->wq, &sim->exec, 0);
	}
	return verdict || (changed && !READ_ONCE(sim->poll_only));
}

static void qpu_sim_exec(struct work_struct *work)
{
	struct qpu_sim *sim = container_of(to_delayed_work(work),
					   struct qpu_sim, exec);

	if (qpu_sim_run_slice(sim))
		qpu_sched_kick(sim->qdev);
}

/*
 * Brings the QPUs, the VPM, the semaphores and the mutex back to their state
 * at power-up, keeping what the emulator counted; the caller holds emu_lock
 * and no program runs.
 */
static void qpu_sim_emu_clear(struct qpu_sim *sim)
{
	unsigned long flags;

	lockdep_assert_held(&sim->emu_lock);
	spin_lock_irqsave(&sim->lock, flags);
	/* The reset clears the emulator's statistics: count them first. */
	qpu_sim_count_locked(sim);
	spin_unlock_irqrestore(&sim->lock, flags);
	qpu_emu_reset(sim->emu);
	memset(sim->emu_seen, 0, sizeof(sim->emu_seen));
	sim->emu_done = 0;
	sim->stop = 0;
}

static void qpu_sim_job_begin(struct qpu_dev *qdev, struct qpu_job *job)
{
	struct qpu_sim *sim = qdev->sim;
	unsigned long flags;

	mutex_lock(&sim->emu_lock);
	/* The last job's programs all ended, or a reset stopped them. */
	if (!qpu_sim_follows_hw_policy())
		qpu_sim_emu_clear(sim);
	sim->job = job;
	sim->job_start = qpu_sim_count(sim);
	/*
	 * The knobs that model the hardware's timing keep @exec: latency_us
	 * holds programs back, poll_only leaves their end to the poll.
	 */
	spin_lock_irqsave(&sim->lock, flags);
	sim->run_inline = !READ_ONCE(sim->latency_us) &&
			  !READ_ONCE(sim->poll_only);
	spin_unlock_irqrestore(&sim->lock, flags);
	mutex_unlock(&sim->emu_lock);
}

/*
 * The job's programs are queued: the scheduler's turn (its work, or an
 * idle device's SUBMIT) runs their first slice here instead of waking
 * @exec, and, when that ends them, finds the end itself, so an empty job
 * starts and ends in one turn of one thread.
 * Longer jobs go on in @exec, queued by the slice as before.
 */
static bool qpu_sim_job_run(struct qpu_dev *qdev, struct qpu_job *job)
{
	struct qpu_sim *sim = qdev->sim;
	unsigned long flags;
	bool run;

	spin_lock_irqsave(&sim->lock, flags);
	run = sim->run_inline;
	sim->run_inline = false;
	spin_unlock_irqrestore(&sim->lock, flags);
	return run && qpu_sim_run_slice(sim);
}

/* Before the job's fence signals: its instruction count is final. */
static void qpu_sim_job_end(struct qpu_dev *qdev, struct qpu_job *job)
{
	struct qpu_sim *sim = qdev->sim;

	mutex_lock(&sim->emu_lock);
	sim->job = NULL;
	job->instructions = qpu_sim_count(sim) - sim->job_start;
	job->instructions_known = true;
	mutex_unlock(&sim->emu_lock);
}

/*
 * The job's time as progress: out of budget, deadlocked, or running: a
 * program is on a QPU or queued for one (this work may not have started it
 * yet, or latency_us holds it back: it has spent nothing), so the wall
 * clock must wait. No program left (ended, held back by the hang knob) is
 * no progress: the scheduler's wall clock decides then.
 */
static u32 qpu_sim_job_check(struct qpu_dev *qdev, struct qpu_job *job,
			     bool *progressing)
{
	struct qpu_sim *sim = qdev->sim;
	unsigned long flags;
	unsigned int i;
	u32 stop;

	mutex_lock(&sim->emu_lock);
	stop = sim->stop;
	if (stop == QPU_JOB_DEADLOCK) {
		job->qpu_count = QPU_EMU_NUM_QPUS;
		memcpy(job->qpus, sim->stop_qpus, sizeof(sim->stop_qpus));
	}
	spin_lock_irqsave(&sim->lock, flags);
	*progressing = !stop && sim->queue_len;
	spin_unlock_irqrestore(&sim->lock, flags);
	for (i = 0; i < QPU_EMU_NUM_QPUS && !stop; i++)
		if (qpu_emu_get_qpu_state(sim->emu, i, NULL) != QPU_EMU_QPU_IDLE)
			*progressing = true;
	mutex_unlock(&sim->emu_lock);
	return stop;
}

static void qpu_sim_qpu_instructions(struct qpu_dev *qdev, u64 *counts,
				     unsigned int n)
{
	struct qpu_sim *sim = qdev->sim;
	unsigned long flags;
	unsigned int i;

	spin_lock_irqsave(&sim->lock, flags);
	for (i = 0; i < n; i++)
		counts[i] = i < QPU_EMU_NUM_QPUS ? sim->instructions[i] : 0;
	spin_unlock_irqrestore(&sim->lock, flags);
}

static void qpu_sim_job_fault(struct qpu_dev *qdev, struct qpu_job *job)
{
	static const u32 access[] = {
		[QPU_MEM_FETCH] = QPU_FAULT_FETCH,
		[QPU_MEM_UNIFORM] = QPU_FAULT_UNIFORM,
		[QPU_MEM_TMU] = QPU_FAULT_TMU,
		[QPU_MEM_LOAD] = QPU_FAULT_DMA_LOAD,
		[QPU_MEM_STORE] = QPU_FAULT_DMA_STORE,
		[QPU_MEM_TMU_WRITE] = QPU_FAULT_TMU,	/* V3D only; none in the uapi */
	};
	struct qpu_sim *sim = qdev->sim;
	enum qpu_mem_access kind;
	unsigned long flags;

	spin_lock_irqsave(&sim->lock, flags);
	job->fault.qpu = sim->fault.qpu;
	job->fault.pc = sim->fault.pc;
	job->fault.addr = sim->fault.addr;
	if (qpu_devmodel_fault_access(&sim->fault, &kind) &&
	    kind < ARRAY_SIZE(access))
		job->fault.access = access[kind];
	else
		job->fault.access = QPU_FAULT_OTHER;
	spin_unlock_irqrestore(&sim->lock, flags);
}

/*
 * A power cycle, as on hardware; then, as the power went, stops every
 * program, empties the queue and brings SCRATCH back to 0. The reset_noop
 * knob makes it do nothing at all; a failed resume (resume_fail) leaves
 * the model as it was, powered off.
 */
static int qpu_sim_reset(struct qpu_dev *qdev)
{
	struct qpu_sim *sim = qdev->sim;
	unsigned long flags;
	int ret;

	if (READ_ONCE(sim->reset_noop))
		return 0;
	ret = qpu_v3d_power_cycle(qdev->dev, &sim->powered);
	if (ret)
		return ret;
	cancel_delayed_work_sync(&sim->exec);
	mutex_lock(&sim->emu_lock);
	qpu_sim_emu_clear(sim);
	spin_lock_irqsave(&sim->lock, flags);
	sim->queue_len = 0;
	sim->reqs = 0;
	sim->done = 0;
	sim->error = false;
	sim->dbqitc = 0;
	sim->scratch = 0;
	spin_unlock_irqrestore(&sim->lock, flags);
	mutex_unlock(&sim->emu_lock);
	return 0;
}

static void qpu_sim_bo_free_memory(struct qpu_dev *qdev, struct qpu_bo *bo)
{
	if (qdev->sim->dma_bos)
		qpu_bo_dma_free(qdev, bo);
	else
		vfree(bo->vaddr);
}

static int qpu_sim_bo_alloc(struct qpu_dev *qdev, struct qpu_bo *bo)
{
	unsigned long addr;
	int ret;

	if (qdev->sim->dma_bos) {
		ret = qpu_bo_dma_alloc(qdev, bo);
		if (ret)
			return ret;
	} else {
		/*
		 * Charged to the caller's memory cgroup, and failing rather
		 * than calling its OOM killer. vmalloc_user() takes no gfp
		 * flags, and 6.1 exports neither __vmalloc_node_range() nor
		 * find_vm_area() to mark the area VM_USERMAP, so
		 * qpu_sim_bo_fault() maps the pages itself.
		 */
		bo->vaddr = __vmalloc(bo->size, GFP_KERNEL_ACCOUNT | __GFP_ZERO |
				      __GFP_RETRY_MAYFAIL | __GFP_NOWARN);
		if (!bo->vaddr)
			return -ENOMEM;
	}

	addr = gen_pool_alloc(qdev->sim->bus_space, bo->size + QPU_SIM_BUS_GUARD);
	if (!addr) {
		qpu_sim_bo_free_memory(qdev, bo);
		return -ENOSPC;
	}
	bo->bus_addr = addr;
	return 0;
}

static void qpu_sim_bo_free(struct qpu_dev *qdev, struct qpu_bo *bo)
{
	gen_pool_free(qdev->sim->bus_space, bo->bus_addr,
		      bo->size + QPU_SIM_BUS_GUARD);
	qpu_sim_bo_free_memory(qdev, bo);
}

/*
 * An imported dma-buf is reached through the exporter's kernel mapping,
 * page by page as for vmalloc memory, at bus addresses of its own. By
 * default any pages will do, so that imports are tested on a VM whose
 * buffers are rarely contiguous; sim_import_contiguous applies the check
 * a real V3D makes.
 */
static int qpu_sim_bo_import(struct qpu_dev *qdev, struct qpu_bo *bo)
{
	unsigned long addr;
	dma_addr_t start;
	int ret;

	if (READ_ONCE(qpu_sim_import_contiguous) &&
	    !qpu_dmabuf_contiguous(qdev, bo, &start))
		return -EINVAL;
	ret = qpu_dma_buf_vmap(bo->import, &bo->import_map);
	if (ret) {
		qpu_dbg(qdev->dev, "bo_import refused: the exporter gives no kernel mapping (%d)\n",
			ret);
		return ret;
	}
	if (bo->import_map.is_iomem) {
		qpu_dbg(qdev->dev, "bo_import refused: the dma-buf is I/O memory\n");
		ret = -EINVAL;
		goto err_vunmap;
	}
	addr = gen_pool_alloc(qdev->sim->bus_space, bo->size + QPU_SIM_BUS_GUARD);
	if (!addr) {
		qpu_dbg(qdev->dev, "bo_import refused: no %zu bytes of bus space left\n",
			bo->size);
		ret = -ENOSPC;
		goto err_vunmap;
	}
	bo->bus_addr = addr;
	bo->vaddr = bo->import_map.vaddr;
	return 0;

err_vunmap:
	qpu_dma_buf_vunmap(bo->import, &bo->import_map);
	return ret;
}

static void qpu_sim_bo_unimport(struct qpu_dev *qdev, struct qpu_bo *bo)
{
	gen_pool_free(qdev->sim->bus_space, bo->bus_addr,
		      bo->size + QPU_SIM_BUS_GUARD);
	qpu_dma_buf_vunmap(bo->import, &bo->import_map);
}

static void qpu_sim_bo_mmap(struct qpu_dev *qdev, struct qpu_bo *bo,
			    struct vm_area_struct *vma)
{
	if (qdev->sim->dma_bos) {
		qpu_bo_dma_mmap(qdev, bo, vma);
		return;
	}
	/* For vm_insert_page() at fault time: vmalloc pages are normal. */
	vma->vm_flags |= VM_MIXEDMAP | VM_DONTEXPAND | VM_DONTDUMP;
}

static vm_fault_t qpu_sim_bo_fault(struct qpu_dev *qdev, struct qpu_bo *bo,
				   struct vm_fault *vmf, unsigned long pgoff)
{
	if (qdev->sim->dma_bos)
		return qpu_bo_dma_fault(qdev, bo, vmf, pgoff);
	return vmf_insert_page(vmf->vma, vmf->address,
			       vmalloc_to_page(bo->vaddr + (pgoff << PAGE_SHIFT)));
}

static void qpu_sim_release(struct qpu_dev *qdev)
{
	struct qpu_sim *sim = qdev->sim;

	if (!sim)
		return;
	/* Every BO held a device reference, so all were freed before. */
	if (sim->bus_space)
		gen_pool_destroy(sim->bus_space);
	kvfree(sim->emu);
	kfree(sim);
}

/* Every access is checked against the job's buffers, unless tests gate it. */
static bool qpu_sim_confines_jobs(const struct qpu_dev *qdev)
{
	return !qpu_sim_follows_hw_policy();
}

static const struct qpu_backend_ops qpu_sim_ops = {
	.reg_read = qpu_sim_reg_read,
	.reg_write = qpu_sim_reg_write,
	.bo_alloc = qpu_sim_bo_alloc,
	.bo_free = qpu_sim_bo_free,
	.bo_mmap = qpu_sim_bo_mmap,
	.bo_fault = qpu_sim_bo_fault,
	.bo_import = qpu_sim_bo_import,
	.bo_unimport = qpu_sim_bo_unimport,
	.job_begin = qpu_sim_job_begin,
	.job_run = qpu_sim_job_run,
	.job_end = qpu_sim_job_end,
	.job_fault = qpu_sim_job_fault,
	.job_check = qpu_sim_job_check,
	.qpu_instructions = qpu_sim_qpu_instructions,
	.telemetry_read = qpu_sim_telemetry_read,
	.confines_jobs = qpu_sim_confines_jobs,
	.reset = qpu_sim_reset,
	.release = qpu_sim_release,
};

static struct qpu_sim *qpu_sim_create(struct qpu_dev *qdev)
{
	struct qpu_sim *sim;

	sim = kzalloc(sizeof(*sim), GFP_KERNEL);
	if (!sim)
		return NULL;
	/* From here on, qpu_sim_release() frees what was made. */
	qdev->sim = sim;
	sim->qdev = qdev;
	sim->dma_bos = READ_ONCE(qpu_sim_dma);
	qdev->dma_memory = sim->dma_bos;
	spin_lock_init(&sim->lock);
	mutex_init(&sim->emu_lock);
	INIT_DELAYED_WORK(&sim->exec, qpu_sim_exec);

	sim->emu = kvzalloc(qpu_emu_size(), GFP_KERNEL);
	if (!sim->emu)
		return NULL;
	qpu_emu_init(sim->emu, &qpu_sim_emu_ops, sim, 0);

	sim->bus_space = gen_pool_create(QPU_SIM_BUS_PAGE_SHIFT, -1);
	if (!sim->bus_space ||
	    gen_pool_add(sim->bus_space, QPU_SIM_BUS_START, QPU_SIM_BUS_SIZE, -1))
		return NULL;
	return sim;
}

/*
 * The device's runtime resume: the power coming back, unless the
 * resume_fail knob says it does not. Runtime PM is enabled from after the
 * state exists to before it goes (probe, remove), and the state is found
 * once the probe has set it.
 */
static int qpu_sim_runtime_resume(struct device *dev)
{
	struct qpu_dev *qdev = dev_get_drvdata(dev);

	if (qdev && READ_ONCE(qdev->sim->resume_fail))
		return -EIO;
	return 0;
}

static const struct dev_pm_ops qpu_sim_pm_ops = {
	.runtime_resume = qpu_sim_runtime_resume,
};

static int qpu_sim_probe(struct platform_device *pdev)
{
	struct device *dev = &pdev->dev;
	struct qpu_dev *qdev;
	struct qpu_sim *sim;
	int ret;

	qdev = qpu_dev_alloc(dev, QPU_BACKEND_SIM, &qpu_sim_ops);
	if (!qdev)
		return -ENOMEM;

	sim = qpu_sim_create(qdev);
	if (!sim) {
		ret = -ENOMEM;
		goto err_put;
	}

	/* Forgets a failed resume of an earlier binding (qpu_v3d_power_get()). */
	pm_runtime_set_suspended(dev);
	pm_runtime_enable(dev);
	ret = qpu_v3d_power_get(dev, &sim->powered);
	if (ret) {
		dev_err(dev, "cannot power the simulated V3D: %d\n", ret);
		goto err_pm_disable;
	}

	ret = qpu_v3d_ident_read(qdev);
	if (ret) {
		dev_err(dev, "simulated V3D gives a bad identity: %#010x\n",
			qdev->ident.raw[0]);
		goto err_power_put;
	}

	ret = qpu_sim_telemetry_init(qdev);
	if (ret)
		goto err_power_put;

	sim->wq = alloc_ordered_workqueue("%s-sim", 0, dev_name(dev));
	if (!sim->wq) {
		ret = -ENOMEM;
		goto err_power_put;
	}

	ret = qpu_dev_register(qdev);
	if (ret)
		goto err_destroy_wq;

	debugfs_create_bool("hang", 0600, qdev->debugfs, &sim->hang);
	debugfs_create_u32("latency_us", 0600, qdev->debugfs, &sim->latency_us);
	debugfs_create_bool("fault_next", 0600, qdev->debugfs, &sim->fault_next);
	debugfs_create_bool("strict_vpm", 0600, qdev->debugfs, &sim->strict_vpm);
	debugfs_create_bool("poll_only", 0600, qdev->debugfs, &sim->poll_only);
	debugfs_create_bool("reset_noop", 0600, qdev->debugfs, &sim->reset_noop);
	debugfs_create_bool("resume_fail", 0600, qdev->debugfs, &sim->resume_fail);
	qpu_sim_telemetry_debugfs(qdev);
	platform_set_drvdata(pdev, qdev);
	return 0;

err_destroy_wq:
	destroy_workqueue(sim->wq);
err_power_put:
	qpu_v3d_power_put(dev, &sim->powered);
err_pm_disable:
	pm_runtime_disable(dev);
err_put:
	qpu_dev_put(qdev);
	return ret;
}

static void qpu_sim_remove(struct platform_device *pdev)
{
	struct qpu_dev *qdev = platform_get_drvdata(pdev);

	/* Ends every job, so nothing queues simulator work any more. */
	qpu_dev_unregister(qdev);
	cancel_delayed_work_sync(&qdev->sim->exec);
	destroy_workqueue(qdev->sim->wq);
	/* No reset after the scheduler's end: @powered is final. */
	qpu_v3d_power_put(&pdev->dev, &qdev->sim->powered);
	/* Waits for a callback under way; none runs after, on a freed sim. */
	pm_runtime_disable(&pdev->dev);
	qpu_dev_put(qdev);
}

QPU_PLATFORM_REMOVE_WRAPPER(qpu_sim_remove)

static struct platform_driver qpu_sim_driver = {
	.probe = qpu_sim_probe,
	QPU_PLATFORM_REMOVE(qpu_sim_remove),
	.driver = {
		.name = QPU_SIM_DRV_NAME,
		.pm = &qpu_sim_pm_ops,
		/* qpu_sim_init() reads the probe's result right away. */
		.probe_type = PROBE_FORCE_SYNCHRONOUS,
	},
};

static struct platform_device *qpu_sim_devices[QPU_SIM_MAX_DEVICES];

static void qpu_sim_devices_destroy(void)
{
	int i;

	for (i = QPU_SIM_MAX_DEVICES - 1; i >= 0; i--) {
		platform_device_unregister(qpu_sim_devices[i]);
		qpu_sim_devices[i] = NULL;
	}
}

/**
 * qpu_sim_init() - register the simulator's driver and create its devices
 * @num_devices: how many simulated V3Ds, at most %QPU_SIM_MAX_DEVICES
 *
 * Return: 0 or a negative errno, with nothing left registered.
 */
int qpu_sim_init(unsigned int num_devices)
{
	struct platform_device *pdev;
	unsigned int i;
	int ret;

	ret = platform_driver_register(&qpu_sim_driver);
	if (ret)
		return ret;

	for (i = 0; i < num_devices; i++) {
		pdev = platform_device_register_simple(QPU_SIM_DRV_NAME, i,
						       NULL, 0);
		if (IS_ERR(pdev)) {
			ret = PTR_ERR(pdev);
			goto err_destroy;
		}
		qpu_sim_devices[i] = pdev;
		if (!platform_get_drvdata(pdev)) {
			/* The probe failed and has said why. */
			ret = -ENODEV;
			goto err_destroy;
		}
	}
	return 0;

err_destroy:
	qpu_sim_devices_destroy();
	platform_driver_unregister(&qpu_sim_driver);
	return ret;
}

void qpu_sim_exit(void)
{
	qpu_sim_devices_destroy();
	platform_driver_unregister(&qpu_sim_driver);
}
