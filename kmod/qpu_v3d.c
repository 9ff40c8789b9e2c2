// SPDX-License-Identifier: GPL-2.0
/*
 * V3D register programming shared by the real and the simulated V3D.
 *
 * Every register access of the driver goes through qpu_v3d_read() and
 * qpu_v3d_write(): the narrow waist behind which the simulated V3D sits, so
 * the code that runs on a Pi is the code the selftests exercise. Which V3D
 * answers is the backend's business (its reg_read and reg_write ops): this
 * file never asks which one it drives.
 */

#include <linux/bitfield.h>
#include <linux/device.h>
#include <linux/interrupt.h>
#include <linux/module.h>
#include <linux/pm_runtime.h>

#include "qpu_drv.h"
#include "qpu_v3d_regs.h"

/*
 * Completion is found by polling SRQCS's completed count (the scheduler's
 * poll timer). With host_irq, programs that write host_int also raise the
 * V3D's interrupt, which makes the scheduler look at once instead of at its
 * next poll. On real hardware this path is unproven (a user-QPU branch of
 * vc4 reported the interrupt never arriving), hence off by default.
 */
static bool qpu_v3d_host_irq;
module_param_named(host_irq, qpu_v3d_host_irq, bool, 0644);
MODULE_PARM_DESC(host_irq,
		 "Let programs' host_int writes signal completion early (default N)");

bool qpu_v3d_host_irq_enabled(void)
{
	return READ_ONCE(qpu_v3d_host_irq);
}

/* Any context, hard interrupts included (struct qpu_backend_ops). */
u32 qpu_v3d_read(struct qpu_dev *qdev, u32 reg)
{
	return qdev->ops->reg_read(qdev, reg);
}

void qpu_v3d_write(struct qpu_dev *qdev, u32 reg, u32 val)
{
	qdev->ops->reg_write(qdev, reg, val);
}

/**
 * qpu_v3d_ident_read() - read and decode the identification registers
 * @qdev: the device, with its registers reachable
 *
 * Return: 0, or -ENODEV when IDENT0 is not a VideoCore IV V3D's (nothing
 * answers at the address, or the block is powered down) or IDENT1 describes
 * a shape this driver cannot drive. The caller reports it: only it knows
 * where it looked.
 */
int qpu_v3d_ident_read(struct qpu_dev *qdev)
{
	struct qpu_v3d_ident *id = &qdev->ident;
	u32 ident1, vpm_kib;

	id->raw[0] = qpu_v3d_read(qdev, V3D_IDENT0);
	if (id->raw[0] != V3D_IDENT0_EXPECTED)
		return -ENODEV;

	ident1 = qpu_v3d_read(qdev, V3D_IDENT1);
	id->raw[1] = ident1;
	id->raw[2] = qpu_v3d_read(qdev, V3D_IDENT2);

	id->revision = FIELD_GET(V3D_IDENT1_REV, ident1);
	id->num_slices = FIELD_GET(V3D_IDENT1_NSLC, ident1);
	id->qpus_per_slice = FIELD_GET(V3D_IDENT1_QUPS, ident1);
	id->tmus_per_slice = FIELD_GET(V3D_IDENT1_TUPS, ident1);
	id->num_semaphores = FIELD_GET(V3D_IDENT1_NSEM, ident1);
	vpm_kib = FIELD_GET(V3D_IDENT1_VPMSZ, ident1);
	id->vpm_size = (vpm_kib ? vpm_kib : 16) * 1024;

	if (!id->num_slices || !id->qpus_per_slice)
		return -ENODEV;
	return 0;
}

/**
 * qpu_v3d_user_setup() - give the V3D's resources to user programs
 * @qdev: the device, identified and powered
 *
 * Called after probe and after every reset, since a power cycle forgets the
 * settings. Nothing but user programs runs on a V3D this driver owns (no
 * graphics pipeline), so every QPU may take them (SQRSV0/1 at 0, their
 * reset value, which undoes what a previous owner may have reserved) and
 * they get as much VPM as VPMBASE can reserve: 31 units of 256 bytes,
 * 7936 of the 12 KiB on BCM2835/6/7, bounded by the VPM size. vc4 writes
 * VPMBASE 0, leaving no VPM to user programs.
 *
 * Return: the bytes of VPM reserved.
 */
u32 qpu_v3d_user_setup(struct qpu_dev *qdev)
{
	u32 units = min_t(u32, qdev->ident.vpm_size / V3D_VPMBASE_UNIT,
			  FIELD_MAX(V3D_VPMBASE_VPMURSV));

	qpu_v3d_write(qdev, V3D_SQRSV0, 0);
	qpu_v3d_write(qdev, V3D_SQRSV1, 0);
	qpu_v3d_write(qdev, V3D_VPMBASE, FIELD_PREP(V3D_VPMBASE_VPMURSV, units));
	return units * V3D_VPMBASE_UNIT;
}

/**
 * qpu_v3d_job_start() - hand a job's programs to the user-program queue
 * @qdev: the device, idle
 * @job: the job
 *
 * The caches are cleared first so the QPUs see what the CPU wrote, and the
 * queue's counters so that its completed count is this job's.
 */
void qpu_v3d_job_start(struct qpu_dev *qdev, const struct qpu_job *job)
{
	unsigned int i;

	qpu_v3d_write(qdev, V3D_L2CACTL, V3D_L2CACTL_L2CCLR);
	qpu_v3d_write(qdev, V3D_SLCACTL, V3D_SLCACTL_ALL);
	qpu_v3d_write(qdev, V3D_SRQCS, V3D_SRQCS_ERR | V3D_SRQCS_REQS_CLR |
		      V3D_SRQCS_DONE_CLR);
	qpu_v3d_write(qdev, V3D_DBQITC, ~0u);
	qpu_v3d_write(qdev, V3D_DBQITE, qpu_v3d_host_irq_enabled() ?
		      GENMASK(qdev->ident.num_slices * qdev->ident.qpus_per_slice - 1, 0) :
		      0);

	/* The SRQPC write queues the program with the latched SRQUA. */
	for (i = 0; i < job->program_count; i++) {
		qpu_v3d_write(qdev, V3D_SRQUA, job->unif_addr[i]);
		qpu_v3d_write(qdev, V3D_SRQPC, job->code_addr[i]);
	}
}

/* What SRQCS says of a job of @programs programs: 0, DONE or FAULT. */
static u32 qpu_v3d_srqcs_status(u32 srqcs, unsigned int programs)
{
	if (srqcs & V3D_SRQCS_ERR)
		return QPU_JOB_FAULT;
	if (FIELD_GET(V3D_SRQCS_DONE, srqcs) >= programs)
		return QPU_JOB_DONE;
	return 0;
}

/**
 * qpu_v3d_job_poll() - has the running job ended?
 * @qdev: the device
 * @job: the job on the V3D
 *
 * Return: 0 while programs are still running, QPU_JOB_DONE when all have
 * ended, QPU_JOB_FAULT when the queue raised its error flag (the backend
 * then says where, in @job->fault).
 */
u32 qpu_v3d_job_poll(struct qpu_dev *qdev, struct qpu_job *job)
{
	u32 status = qpu_v3d_srqcs_status(qpu_v3d_read(qdev, V3D_SRQCS),
					  job->program_count);

	if (status == QPU_JOB_FAULT && qdev->ops->job_fault)
		qdev->ops->job_fault(qdev, job);
	return status;
}

/**
 * qpu_v3d_job_ended() - would qpu_v3d_job_poll() end the running job?
 * @qdev: the device, with a job running
 * @programs: the job's programs
 *
 * Reads SRQCS and nothing else, so it may be called in any context, a
 * hard interrupt's included: a readl() on the real V3D, a spinlocked read
 * of the model on the simulated one.
 *
 * Return: true when @programs programs have completed or one faulted.
 */
bool qpu_v3d_job_ended(struct qpu_dev *qdev, unsigned int programs)
{
	return qpu_v3d_srqcs_status(qpu_v3d_read(qdev, V3D_SRQCS), programs);
}

/**
 * qpu_v3d_irq() - the V3D's interrupt: QPU host interrupts
 * @qdev: the device
 *
 * Acknowledges the pending host interrupts and has the scheduler check the
 * running job now. Called from the real V3D's interrupt handler and by the
 * simulated V3D as its interrupt line.
 *
 * Return: IRQ_HANDLED, or IRQ_NONE when no host interrupt was pending.
 */
irqreturn_t qpu_v3d_irq(struct qpu_dev *qdev)
{
	u32 pending = qpu_v3d_read(qdev, V3D_DBQITC);

	if (!pending)
		return IRQ_NONE;
	qpu_v3d_write(qdev, V3D_DBQITC, pending);
	atomic64_inc(&qdev->sched.host_irqs);
	qpu_sched_kick(qdev);
	return IRQ_HANDLED;
}

/*
 * What SCRATCH holds across a reset that did not happen: a power cycle
 * brings every V3D register back to its reset value, 0 for SCRATCH.
 */
#define QPU_V3D_RESET_MARK	0x51505521

/**
 * qpu_v3d_reset() - reset the V3D through its backend, and check it did
 * @qdev: the device, with no program it must keep
 *
 * A power cycle that does not happen (on hardware, a runtime-PM reference
 * held elsewhere keeps the power domain up) would leave the QPUs running
 * and the state of earlier programs in place. So SCRATCH, which the driver
 * uses for nothing else, holds a mark before the reset and must have lost
 * it after.
 *
 * Return: 0, the backend's error, or -EBUSY when the V3D kept the mark:
 * the programs on it may still run and write their buffers.
 */
int qpu_v3d_reset(struct qpu_dev *qdev)
{
	int ret;

	qpu_v3d_write(qdev, V3D_SCRATCH, QPU_V3D_RESET_MARK);
	ret = qdev->ops->reset(qdev);
	if (ret)
		return ret;
	if (qpu_v3d_read(qdev, V3D_SCRATCH) == QPU_V3D_RESET_MARK) {
		dev_err(qdev->dev, "the V3D did not reset: SCRATCH kept its value (is its power held on elsewhere?)\n");
		return -EBUSY;
	}
	return 0;
}

/**
 * DOC: the V3D's power, one runtime-PM reference
 *
 * A backend powers its V3D with one runtime-PM reference on its device,
 * held from the probe on, and resets it by a power cycle: the reference is
 * dropped (the domain goes down, the QPUs stop) and taken again. When the
 * power does not come back, the reference is gone and the flag the backend
 * keeps says so, so that neither the next reset nor the removal drops a
 * reference the driver no longer holds (the usage count would underflow,
 * and another holder's reference would be the one dropped). The real V3D
 * (qpu_hw.c) and the simulated one (qpu_sim.c, whose resume a debugfs knob
 * can fail) share these functions, so the selftests run the hardware's
 * path. The flag is read and written by the probe, the scheduler's work
 * (resets) and the removal, which comes after the scheduler's end.
 */

/**
 * qpu_v3d_power_get() - take the reference that powers the V3D
 * @dev: the backend's device, runtime PM enabled
 * @powered: set when the reference is held
 *
 * The PM core keeps a failed resume's error and refuses every later one
 * (-EINVAL) until it is told the device's state; the device is off, so it
 * is told that, and the next reset, or the next probe, tries again.
 *
 * Return: 0, or the resume's error, with no reference held.
 */
int qpu_v3d_power_get(struct device *dev, bool *powered)
{
	int ret = pm_runtime_resume_and_get(dev);

	if (!ret) {
		*powered = true;
		return 0;
	}
	pm_runtime_disable(dev);
	pm_runtime_set_suspended(dev);
	pm_runtime_enable(dev);
	return ret;
}

/**
 * qpu_v3d_power_put() - drop the reference, if it is held
 * @dev: the backend's device
 * @powered: whether it is held; cleared
 */
void qpu_v3d_power_put(struct device *dev, bool *powered)
{
	if (*powered)
		pm_runtime_put(dev);
	*powered = false;
}

/**
 * qpu_v3d_power_cycle() - power the V3D down, if it is up, and up again
 * @dev: the backend's device
 * @powered: whether the reference is held; updated
 *
 * Return: 0, or the resume's error: the V3D is then off and no reference
 * is held, so none is dropped for it later.
 */
int qpu_v3d_power_cycle(struct device *dev, bool *powered)
{
	int ret;

	if (*powered) {
		*powered = false;
		ret = pm_runtime_put_sync_suspend(dev);
		/* Without CONFIG_PM the call always fails: power stays on. */
		if (ret < 0 && IS_ENABLED(CONFIG_PM))
			dev_warn(dev, "could not power the V3D down: %d\n", ret);
	}
	ret = qpu_v3d_power_get(dev, powered);
	if (ret)
		dev_err(dev, "could not power the V3D up: %d\n", ret);
	return ret;
}

/* The registers a hang snapshot keeps, read before the reset. */
void qpu_v3d_save_hang(struct qpu_dev *qdev, struct qpu_hang *hang)
{
	hang->srqcs = qpu_v3d_read(qdev, V3D_SRQCS);
	hang->dbqite = qpu_v3d_read(qdev, V3D_DBQITE);
	hang->dbqitc = qpu_v3d_read(qdev, V3D_DBQITC);
}
