// SPDX-License-Identifier: GPL-2.0
/*
 * The scheduler: which job runs on the V3D next, and when it has ended.
 */

/**
 * DOC: one job at a time, files take turns
 *
 * The V3D's user-program queue counts completed programs without saying
 * whose they are, so only one job runs at a time. Each file (client) has a
 * FIFO of jobs; the files with queued jobs take turns, one job each, so a
 * file flooding the queue delays the others by at most one job per turn.
 * A job whose in-fence has not signalled does not hold up other files.
 *
 * Everything that starts or ends a job runs in a turn: one delayed work
 * item on an ordered workqueue, or SUBMIT finding the scheduler idle (see
 * "the submitter's turn" below). A turn holds @run_lock, so turns never
 * overlap, and looks at @stopped under it. Three things kick the work
 * while a job runs, and none of them ends the job itself:
 *
 * - the poll, an hrtimer (hard interrupt context; softirq on PREEMPT_RT)
 *   armed by the work after it started a job: it reads SRQCS, and nothing
 *   else, 10 us after the start, then at intervals doubling up to 1 ms,
 *   and kicks the work once the job's programs have all ended or one
 *   faulted. A job the QPUs finish in 30 us is thus noticed some 10 us
 *   later, not at the next tick (4 to 10 ms at a Pi's HZ of 100 to 250);
 *   a job of one second costs about 1000 polls of one register read. The
 *   work cancels the poll (hrtimer_cancel(), which waits for a running
 *   callback) before it ends the job, so no poll reads the registers of a
 *   V3D being reset or unbound;
 * - the V3D's interrupt (module parameter host_irq), from its handler;
 * - the backend: the simulated V3D kicks the work when its programs end,
 *   unless its poll_only knob leaves completion to SRQCS, as on hardware.
 *
 * A backend with a job_run op (the simulated V3D) runs the job's first
 * slice in the turn that started it, right after it is programmed; when
 * that slice ends or faults a program, the turn looks at the job at once
 * and, for a job that ended, the next ready job (if one is queued: else no
 * kworker is woken for nothing) starts in the work's next turn. The poll
 * timer is armed only if the job is still running when the turn first
 * looks.
 *
 * The submitter's turn: SUBMIT, when no job runs, no administrator's reset
 * waits and no turn holds @run_lock (mutex_trylock(): a submitter never
 * waits for the work), starts the next job itself instead of waking the
 * work: the job the work would have picked, by the same turns (with other
 * files' jobs queued, that is another file's: the submitter then pays for
 * its start). So an empty job on an idle V3D starts and ends inside SUBMIT,
 * and its fence has signalled before the submitter waits: no hand-off at
 * all. When the work holds the lock, the submitter kicks it as before, and
 * the work finds the job when its turn looks at the queue.
 *
 * The work looks again at the running job's deadline (or, for a backend
 * that judges time by progress, at the next tick). A job past its
 * deadline, or one that faulted, is ended and the V3D reset; the next job
 * then starts on a clean V3D. An administrator's reset (netlink) is
 * done by the same work, so it never races a job being started or polled;
 * the requester sleeps until the work has done it.
 *
 * A file's job never finds what another file's jobs left on the V3D: see
 * qpu_sched_isolate().
 *
 * Every reset is checked (qpu_v3d_reset(): SCRATCH must lose a mark). When
 * the reset after a hung or faulted job fails, its programs may still run
 * and write the job's buffers, so the scheduler keeps the job's BO
 * references (debugfs stats: kept_bos, reset_failures) until a later
 * reset succeeds (an administrator's, or the next one between files, as
 * the V3D keeps its owner) or the device goes; the memory is never freed
 * under the QPUs, at the cost of holding it meanwhile.
 *
 * Time: by default a job's deadline is the wall clock's, its start plus its
 * timeout. A backend with a job_check op (the simulated V3D, which times a
 * job by its programs' progress) decides instead: it ends the job when a
 * program is out of budget (QPU_JOB_TIMEOUT) or every running one waits
 * forever (QPU_JOB_DEADLOCK), and while its programs run the wall-clock
 * deadline does not apply, so a slow host does not time out a job still
 * within its budget. A safety net remains: such a job is timed out anyway
 * at QPU_SCHED_WALL_FACTOR times its timeout from its start, and no sooner
 * than QPU_SCHED_WALL_MIN (a host too slow, or too loaded, to emulate the
 * job in that time). Once the backend has no program left to run but the
 * job is not complete (the simulated V3D's hang knob), its deadline is the
 * wall clock's again.
 *
 * Busy time is counted here, from a job's start to its end as the work sees
 * them, because only the scheduler knows both on every backend; it is an
 * upper bound of the QPUs' running time by at most one poll interval (1 ms)
 * and the work's scheduling latency per job.
 */
#include <linux/device.h>
#include <linux/hrtimer.h>
#include <linux/module.h>
#include <linux/jiffies.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "qpu_compat.h"
#include "qpu_drv.h"
#include "qpu_trace.h"

/*
 * The wall-clock safety net of a job timed by progress, in timeouts: 256
 * covers the emulator being some 25 times slower than a 250 MHz V3D on a
 * host CPU, and ten times slower again in a TCG guest. Short timeouts get
 * a minute: emulating even a 1 ms job on 12 QPUs takes a TCG guest ~1 s.
 */
#define QPU_SCHED_WALL_FACTOR	256
#define QPU_SCHED_WALL_MIN	(60 * (s64)NSEC_PER_SEC)

/*
 * The completion poll: first 10 us after a job's start (a 256-point FFT on
 * a Pi 1 takes 33 us), each interval twice the last, up to 1 ms: a job of
 * T ms >= 1 costs about T + 7 polls of one register read each.
 */
#define QPU_SCHED_POLL_MAX_NS	NSEC_PER_MSEC

/*
 * The first poll's delay, in microseconds; 0 turns the poll timer off, and
 * the work's own checks then find a job's end at a later tick.
 */
static unsigned int qpu_sched_poll_first_us = 10;
module_param_named(poll_first_us, qpu_sched_poll_first_us, uint, 0644);
MODULE_PARM_DESC(poll_first_us,
		 "Delay of a job's first completion poll in microseconds, up to 1000; 0: no poll timer (default 10)");

static struct qpu_dev *qpu_sched_to_dev(struct qpu_sched *sched)
{
	return container_of(sched, struct qpu_dev, sched);
}

/* Runs the work now, unless the scheduler is stopped; any context. */
void qpu_sched_kick(struct qpu_dev *qdev)
{
	struct qpu_sched *sched = &qdev->sched;
	unsigned long flags;

	spin_lock_irqsave(&sched->lock, flags);
	if (!sched->stopped)
		mod_delayed_work(sched->wq, &sched->work, 0);
	spin_unlock_irqrestore(&sched->lock, flags);
}

/*
 * The poll timer, in hard interrupt context (softirq on PREEMPT_RT): it
 * reads SRQCS and kicks the work, which alone ends the job.
 */
static enum hrtimer_restart qpu_sched_poll(struct hrtimer *timer)
{
	struct qpu_sched *sched = container_of(timer, struct qpu_sched, poll);
	struct qpu_dev *qdev = qpu_sched_to_dev(sched);

	atomic64_inc(&sched->polls);
	if (qpu_v3d_job_ended(qdev, sched->poll_programs)) {
		qpu_sched_kick(qdev);
		return HRTIMER_NORESTART;
	}
	sched->poll_ns = min_t(u64, sched->poll_ns * 2, QPU_SCHED_POLL_MAX_NS);
	hrtimer_forward_now(timer, ns_to_ktime(sched->poll_ns));
	return HRTIMER_RESTART;
}

/* Starts polling @job, just started; a turn (@run_lock held). */
static void qpu_sched_poll_start(struct qpu_sched *sched,
				 const struct qpu_job *job)
{
	sched->poll_programs = job->program_count;
	unsigned int first_us = READ_ONCE(qpu_sched_poll_first_us);

	/* 0: no poll timer; the work's own checks find the end. */
	if (!first_us)
		return;
	sched->poll_ns = min_t(u64, first_us, 1000) * NSEC_PER_USEC;
	hrtimer_start(&sched->poll, ns_to_ktime(sched->poll_ns),
		      HRTIMER_MODE_REL);
}

/*
 * When the work looks at the running job's time again, unless the poll,
 * the interrupt or the backend kicks it first: at the deadline, or, for a
 * backend that judges time by progress, at the next tick, as its verdict
 * can change at any time.
 */
static void qpu_sched_check_later(struct qpu_dev *qdev,
				  const struct qpu_job *job)
{
	s64 left = ktime_to_ns(ktime_sub(job->deadline, ktime_get()));
	unsigned long delay = 1;

	if (!qdev->ops->job_check && left > 0)
		delay = nsecs_to_jiffies(left) + 1;
	queue_delayed_work(qdev->sched.wq, &qdev->sched.work, delay);
}

/* The job's in-fence signalled (process context). */
void qpu_sched_job_ready(struct qpu_dev *qdev, struct qpu_job *job)
{
	struct qpu_sched *sched = &qdev->sched;
	unsigned long flags;

	spin_lock_irqsave(&sched->lock, flags);
	job->ready = true;
	if (job->client && !sched->stopped)
		mod_delayed_work(sched->wq, &sched->work, 0);
	spin_unlock_irqrestore(&sched->lock, flags);
}

/* Takes @job off its client's queue; the caller holds the lock. */
static void qpu_sched_unqueue_locked(struct qpu_sched *sched, struct qpu_job *job)
{
	struct qpu_client *client = job->client;

	lockdep_assert_held(&sched->lock);
	list_del_init(&job->node);
	job->client = NULL;
	qpu_job_unqueued(client);
	if (list_empty(&client->queue))
		list_del_init(&client->node);
}

/*
 * The next job to run: the oldest of the first client in turn whose oldest
 * job is ready, or NULL; the caller holds the lock.
 */
static struct qpu_job *qpu_sched_next_locked(struct qpu_sched *sched)
{
	struct qpu_client *client;

	lockdep_assert_held(&sched->lock);
	list_for_each_entry(client, &sched->clients, node) {
		struct qpu_job *head = list_first_entry(&client->queue,
							struct qpu_job, node);

		if (head->ready)
			return head;
	}
	return NULL;
}

/* Takes the next job to run off its queue; its client goes to the back. */
static struct qpu_job *qpu_sched_pick(struct qpu_sched *sched)
{
	struct qpu_client *client;
	struct qpu_job *job;
	unsigned long flags;

	spin_lock_irqsave(&sched->lock, flags);
	job = qpu_sched_next_locked(sched);
	if (job) {
		client = job->client;
		qpu_sched_unqueue_locked(sched, job);
		if (!list_empty(&client->node))
			list_move_tail(&client->node, &sched->clients);
	}
	spin_unlock_irqrestore(&sched->lock, flags);
	return job;
}

/*
 * Is a job ready to start, of any file? The work that ended a job asks
 * before it queues itself for the next: an idle kworker woken for nothing
 * costs two context switches per job. A job pushed or made ready after
 * the answer kicks the work itself.
 */
static bool qpu_sched_any_ready(struct qpu_sched *sched)
{
	unsigned long flags;
	bool ready;

	spin_lock_irqsave(&sched->lock, flags);
	ready = qpu_sched_next_locked(sched);
	spin_unlock_irqrestore(&sched->lock, flags);
	return ready;
}

/* The running job starts, or ends: its time goes to @busy_ns. */
static void qpu_sched_busy_start(struct qpu_sched *sched, u32 client_id)
{
	unsigned long flags;

	spin_lock_irqsave(&sched->lock, flags);
	sched->busy_since = ktime_get();
	sched->running_client = client_id;
	spin_unlock_irqrestore(&sched->lock, flags);
}

static void qpu_sched_busy_end(struct qpu_sched *sched)
{
	unsigned long flags;

	spin_lock_irqsave(&sched->lock, flags);
	if (sched->busy_since)
		sched->busy_ns += ktime_to_ns(ktime_sub(ktime_get(),
							sched->busy_since));
	sched->busy_since = 0;
	spin_unlock_irqrestore(&sched->lock, flags);
}

/*
 * How long the V3D has run jobs: nanoseconds from each job's start to its
 * end, with the running job's time so far; never decreases. The caller
 * holds the scheduler's lock.
 */
static u64 qpu_sched_busy_ns_locked(struct qpu_sched *sched)
{
	u64 ns = sched->busy_ns;

	lockdep_assert_held(&sched->lock);
	if (sched->busy_since)
		ns += ktime_to_ns(ktime_sub(ktime_get(), sched->busy_since));
	return ns;
}

/**
 * qpu_sched_snapshot() - the scheduler's state and counters, at one moment
 * @qdev: the device
 * @snap: where they go
 *
 * Read under the scheduler's lock, so the state and the busy time agree
 * with each other; the counters are those of that moment. @running is
 * written by the work without the lock, so "busy" is only a snapshot.
 * Any context that may take the scheduler's lock.
 */
void qpu_sched_snapshot(struct qpu_dev *qdev, struct qpu_sched_snapshot *snap)
{
	struct qpu_sched *sched = &qdev->sched;
	unsigned long flags;

	spin_lock_irqsave(&sched->lock, flags);
	if (sched->stopped)
		snap->state = QPU_DEV_STATE_STOPPED;
	else if (READ_ONCE(sched->running))
		snap->state = QPU_DEV_STATE_BUSY;
	else
		snap->state = QPU_DEV_STATE_IDLE;
	snap->jobs_submitted = atomic64_read(&sched->jobs_submitted);
	snap->jobs_done = atomic64_read(&sched->jobs_done);
	snap->jobs_failed = atomic64_read(&sched->jobs_failed);
	snap->jobs_timeout = atomic64_read(&sched->jobs_timeout);
	snap->jobs_canceled = atomic64_read(&sched->jobs_canceled);
	snap->resets = atomic64_read(&sched->resets);
	snap->busy_ns = qpu_sched_busy_ns_locked(sched);
	spin_unlock_irqrestore(&sched->lock, flags);
}

/**
 * qpu_sched_client_queued() - how many of a file's jobs wait to start
 * @qdev: the device
 * @client: the file's client, kept open by the caller
 *
 * Return: the jobs on @client's queue now (not those being submitted).
 */
u32 qpu_sched_client_queued(struct qpu_dev *qdev,
			    const struct qpu_client *client)
{
	struct qpu_sched *sched = &qdev->sched;
	const struct qpu_job *job;
	unsigned long flags;
	u32 queued = 0;

	spin_lock_irqsave(&sched->lock, flags);
	list_for_each_entry(job, &client->queue, node)
		queued++;
	spin_unlock_irqrestore(&sched->lock, flags);
	return queued;
}

/**
 * struct qpu_sched_kept - the BOs of a job whose V3D reset failed.
 * @node: on &qpu_sched.kept.
 * @bos: the job's BO references, taken over from it: its own array, or
 *	@inline_bos when the job held them inline (the job goes, its array
 *	with it).
 * @count: entries in @bos.
 * @inline_bos: a copy of a job's inline array.
 */
struct qpu_sched_kept {
	struct list_head node;
	struct qpu_bo **bos;
	unsigned int count;
	struct qpu_bo *inline_bos[];
};

/* Lets the kept BOs go: the V3D was reset, or is going away. */
static void qpu_sched_release_kept(struct qpu_sched *sched)
{
	struct qpu_sched_kept *kept, *tmp;
	unsigned int i;

	list_for_each_entry_safe(kept, tmp, &sched->kept, node) {
		for (i = 0; i < kept->count; i++)
			qpu_bo_put(kept->bos[i]);
		atomic_sub(kept->count, &sched->kept_bos);
		list_del(&kept->node);
		if (kept->bos != kept->inline_bos)
			kvfree(kept->bos);	/* the job's kvmalloc_array() */
		kfree(kept);
	}
}

/*
 * The device goes while the QPUs may still write the kept BOs: their
 * memory must outlive it. Each is marked so that qpu_bo_unplug() and the
 * last put leave its memory alone, and the references are dropped.
 */
static void qpu_sched_leak_kept(struct qpu_dev *qdev)
{
	struct qpu_sched_kept *kept;
	unsigned int i;

	list_for_each_entry(kept, &qdev->sched.kept, node) {
		dev_err(qdev->dev, "%u BOs leaked at removal: the V3D did not reset, its QPUs may still write them\n",
			kept->count);
		for (i = 0; i < kept->count; i++)
			qpu_bo_leak_memory(kept->bos[i]);
	}
	qpu_sched_release_kept(&qdev->sched);
}

/*
 * Takes @job's BOs over before it ends: its reset failed, so its programs
 * may still run and write them. Without memory to note them, they leak:
 * better than freed memory the QPUs write. The backend has let go of the
 * job (job_end), so nothing reads job->bos while they move.
 */
static void qpu_sched_keep_bos(struct qpu_dev *qdev, struct qpu_job *job)
{
	bool inl = job->bos == job->bos_inline;
	struct qpu_sched_kept *kept;

	kept = kmalloc(struct_size(kept, inline_bos, inl ? job->bo_count : 0),
		       GFP_KERNEL);
	if (kept) {
		kept->bos = job->bos;
		if (inl)
			kept->bos = memcpy(kept->inline_bos, job->bos,
					   job->bo_count * sizeof(*job->bos));
		kept->count = job->bo_count;
		list_add_tail(&kept->node, &qdev->sched.kept);
		atomic_add(job->bo_count, &qdev->sched.kept_bos);
	} else {
		dev_err(qdev->dev, "job %llu: %u BOs leaked, as the QPUs may still write them\n",
			job->seqno, job->bo_count);
		if (!inl)
			kvfree(job->bos);
	}
	job->bos = NULL;
	job->bo_count = 0;
}

/*
 * Every reset the scheduler does: checked (qpu_v3d_reset()) and traced;
 * the first that succeeds lets the BOs of jobs whose reset failed go.
 * @reason: an enum qpu_reset_reason, or 0 for a reset between files.
 */
static int qpu_sched_v3d_reset(struct qpu_dev *qdev, u32 reason)
{
	ktime_t start = ktime_get();
	int ret = qpu_v3d_reset(qdev);

	trace_qpu_reset(qdev, reason, ret,
			ktime_to_ns(ktime_sub(ktime_get(), start)));
	if (ret)
		atomic64_inc(&qdev->sched.reset_failures);
	else
		qpu_sched_release_kept(&qdev->sched);
	return ret;
}

/*
 * @reason: an enum qpu_reset_reason, for the netlink event. When the reset
 * fails, the V3D keeps its owner: the next job of another file tries again.
 */
static int qpu_sched_reset(struct qpu_dev *qdev, u32 reason)
{
	int ret;

	atomic64_inc(&qdev->sched.resets);
	ret = qpu_sched_v3d_reset(qdev, reason);
	if (ret)
		dev_err(qdev->dev, "V3D reset failed: %d\n", ret);
	else
		qdev->sched.owner = 0;
	qpu_nl_reset_event(qdev, reason);
	return ret;
}

/**
 * qpu_sched_isolate() - keep another file's leftovers from @job
 * @qdev: the device, idle
 * @job: the job about to start
 *
 * A V3D keeps its VPM, its 16 semaphores and its mutex from one program to
 * the next, and no host register clears them: a job could read what the
 * last file's programs left in the VPM, or deadlock on a mutex they held or
 * a semaphore they left at 15. A QPU program cannot undo that either (a
 * semaphore's count cannot be read, and counting it to a known value blocks
 * at 0 or 15). So when @job's file is not the one whose jobs ran since the
 * last reset, the V3D is reset first, at the cost of one power cycle per
 * change of file (isolation_resets and isolation_reset_ns in debugfs
 * stats). Jobs of one file still see each other's state, as on hardware.
 *
 * Return: 0, or the reset's error: the V3D may hold another file's state,
 * so @job must not run.
 */
static int qpu_sched_isolate(struct qpu_dev *qdev, struct qpu_job *job)
{
	struct qpu_sched *sched = &qdev->sched;
	ktime_t start;
	int ret;

	if (sched->owner && sched->owner != job->client_id) {
		start = ktime_get();
		ret = qpu_sched_v3d_reset(qdev, 0);
		if (ret) {
			dev_err(qdev->dev, "V3D reset between files failed: %d\n", ret);
			return ret;
		}
		atomic64_inc(&sched->isolation_resets);
		atomic64_add(ktime_to_ns(ktime_sub(ktime_get(), start)),
			     &sched->isolation_reset_ns);
	}
	sched->owner = job->client_id;
	return 0;
}

/* Cancels the jobs on @list, taken off their queues; no lock held. */
static void qpu_sched_cancel_jobs(struct qpu_sched *sched,
				  struct list_head *list)
{
	struct qpu_job *job, *tmp;

	list_for_each_entry_safe(job, tmp, list, node) {
		list_del(&job->node);
		qpu_job_forget_in_fence(job);
		atomic64_inc(&sched->jobs_canceled);
		qpu_job_end(job, QPU_JOB_CANCELED);
	}
}

/* How long the running @job has run. */
static u64 qpu_sched_job_ns(const struct qpu_job *job)
{
	return ktime_to_ns(ktime_sub(ktime_get(), job->start));
}

/*
 * Ends the running job; the V3D is reset, for @reason, unless it ended
 * cleanly. When that reset fails, the job's BOs outlive it (see
 * qpu_sched_keep_bos()).
 */
static void qpu_sched_finish(struct qpu_dev *qdev, struct qpu_job *job,
			     u32 status, u32 reason)
{
	struct qpu_sched *sched = &qdev->sched;
	unsigned long flags;
	bool reset_failed;
	LIST_HEAD(later);

	/* No register read from here on: the V3D may be reset or go. */
	hrtimer_cancel(&sched->poll);
	sched->poll_deferred = false;
	/* The reset that may follow is not the job's running time. */
	qpu_sched_busy_end(sched);
	trace_qpu_job_end(qdev, job, status, qpu_sched_job_ns(job));
	qpu_nl_job_event(qdev, job, status);
	reset_failed = status != QPU_JOB_DONE && qpu_sched_reset(qdev, reason);
	/*
	 * Before the BOs move: the simulated V3D's programs look them up
	 * (qpu_job_find_bo()) until job_end detaches the job under its lock.
	 */
	if (qdev->ops->job_end)
		qdev->ops->job_end(qdev, job);
	if (reset_failed)
		qpu_sched_keep_bos(qdev, job);
	sched->running = NULL;

	switch (status) {
	case QPU_JOB_DONE:
		atomic64_inc(&sched->jobs_done);
		break;
	case QPU_JOB_TIMEOUT:
	case QPU_JOB_DEADLOCK:		/* a hang the backend recognised */
		atomic64_inc(&sched->jobs_timeout);
		break;
	case QPU_JOB_FAULT:
		atomic64_inc(&sched->jobs_failed);
		break;
	default:
		atomic64_inc(&sched->jobs_canceled);
		break;
	}
	qpu_job_end(job, status);

	/* The jobs its closed file left, once its fence has signalled. */
	spin_lock_irqsave(&sched->lock, flags);
	sched->running_client = 0;
	list_splice_init(&sched->after_running, &later);
	spin_unlock_irqrestore(&sched->lock, flags);
	qpu_sched_cancel_jobs(sched, &later);
}

/* Has the work done reset number @seq, or stopped for good? */
static bool qpu_sched_reset_done(struct qpu_sched *sched, u64 seq,
				 bool *stopped)
{
	unsigned long flags;
	bool done;

	spin_lock_irqsave(&sched->lock, flags);
	*stopped = sched->stopped && sched->resets_handled < seq;
	done = sched->resets_handled >= seq || sched->stopped;
	spin_unlock_irqrestore(&sched->lock, flags);
	return done;
}

/**
 * qpu_sched_reset_request() - reset the V3D from the scheduler's work
 * @qdev: the device
 *
 * A running job ends with QPU_JOB_CANCELED; queued jobs run afterwards.
 * Sleeps until the reset is done.
 *
 * Return: 0, -ENODEV when the device is going away, or -EINTR when a fatal
 * signal came first (the reset still happens).
 */
int qpu_sched_reset_request(struct qpu_dev *qdev)
{
	struct qpu_sched *sched = &qdev->sched;
	unsigned long flags;
	bool stopped;
	u64 seq;

	spin_lock_irqsave(&sched->lock, flags);
	stopped = sched->stopped;
	if (!stopped) {
		seq = ++sched->resets_requested;
		mod_delayed_work(sched->wq, &sched->work, 0);
	}
	spin_unlock_irqrestore(&sched->lock, flags);
	if (stopped)
		return -ENODEV;

	if (wait_event_killable(sched->reset_wait,
				qpu_sched_reset_done(sched, seq, &stopped)))
		return -EINTR;
	return stopped ? -ENODEV : 0;
}

/* Does the administrators' resets asked for; the work (@run_lock held). */
static void qpu_sched_do_reset_requests(struct qpu_dev *qdev)
{
	struct qpu_sched *sched = &qdev->sched;
	unsigned long flags;
	u64 seq;

	spin_lock_irqsave(&sched->lock, flags);
	seq = sched->resets_requested;
	spin_unlock_irqrestore(&sched->lock, flags);
	if (seq == sched->resets_handled)	/* only this work writes it */
		return;

	if (sched->running)
		qpu_sched_finish(qdev, sched->running, QPU_JOB_CANCELED,
				 QPU_RESET_ADMIN);
	else
		qpu_sched_reset(qdev, QPU_RESET_ADMIN);

	spin_lock_irqsave(&sched->lock, flags);
	sched->resets_handled = seq;
	spin_unlock_irqrestore(&sched->lock, flags);
	wake_up_all(&sched->reset_wait);
}

/* Keeps what the V3D and @job looked like, for QPU_CMD_HANG_GET. */
static void qpu_sched_save_hang(struct qpu_dev *qdev, const struct qpu_job *job)
{
	struct qpu_hang *hang = &qdev->sched.hang;

	mutex_lock(&qdev->sched.hang_lock);
	hang->valid = true;
	hang->time = ktime_get();
	hang->seqno = job->seqno;
	hang->pid = job->pid;
	memcpy(hang->comm, job->comm, sizeof(hang->comm));
	hang->timeout_ms = ktime_to_ms(job->timeout);
	hang->programs = job->program_count;
	hang->code_addr = job->code_addr[0];
	hang->unif_addr = job->unif_addr[0];
	qpu_v3d_save_hang(qdev, hang);
	mutex_unlock(&qdev->sched.hang_lock);
}

/**
 * qpu_sched_get_hang() - the last timeout's snapshot
 * @qdev: the device
 * @hang: where it goes
 *
 * Return: false when no job has timed out on the device.
 */
bool qpu_sched_get_hang(struct qpu_dev *qdev, struct qpu_hang *hang)
{
	mutex_lock(&qdev->sched.hang_lock);
	*hang = qdev->sched.hang;
	mutex_unlock(&qdev->sched.hang_lock);
	return hang->valid;
}

/*
 * Has the running job run out of time, or deadlocked? The backend's
 * verdict first; then the wall clock: the job's deadline, or only the
 * safety net while the backend says its programs progress.
 */
static u32 qpu_sched_job_time(struct qpu_dev *qdev, struct qpu_job *job)
{
	bool progressing = false;
	ktime_t limit = job->deadline;
	u32 status = 0;

	if (qdev->ops->job_check)
		status = qdev->ops->job_check(qdev, job, &progressing);
	if (status)
		return status;
	if (progressing)
		limit = ktime_add(job->start,
				  max_t(s64, job->timeout * QPU_SCHED_WALL_FACTOR,
					QPU_SCHED_WALL_MIN));
	return ktime_after(ktime_get(), limit) ? QPU_JOB_TIMEOUT : 0;
}

/* The reset reason of a job that ended with @status, not done. */
static u32 qpu_sched_reset_reason(u32 status)
{
	switch (status) {
	case QPU_JOB_TIMEOUT:
		return QPU_RESET_TIMEOUT;
	case QPU_JOB_DEADLOCK:
		return QPU_RESET_DEADLOCK;
	default:
		return QPU_RESET_FAULT;
	}
}

/*
 * Looks at the running @job: ends it when its programs are done, it
 * faulted or its time is up, and returns true; else has the work look again
 * later and returns false.
 */
static bool qpu_sched_check_running(struct qpu_dev *qdev, struct qpu_job *job)
{
	u32 status, done;

	/*
	 * Time first, then the queue: programs that ended after the queue was
	 * read would look idle to the time check and time the job out by the
	 * wall clock. Read after it, the queue shows every end the time check
	 * saw, and an end wins.
	 */
	status = qpu_sched_job_time(qdev, job);
	done = qpu_v3d_job_poll(qdev, job);
	if (done)
		status = done;
	if (status == QPU_JOB_TIMEOUT || status == QPU_JOB_DEADLOCK)
		trace_qpu_job_timeout(qdev, job, status, qpu_sched_job_ns(job));
	if (status == QPU_JOB_FAULT)
		trace_qpu_job_fault(qdev, job);
	if (status == QPU_JOB_TIMEOUT) {
		dev_err_ratelimited(qdev->dev,
				    "job %llu timed out after %lld ms; resetting the V3D\n",
				    job->seqno, ktime_to_ms(job->timeout));
		qpu_sched_save_hang(qdev, job);
	}
	if (status == QPU_JOB_DEADLOCK)
		dev_err_ratelimited(qdev->dev,
				    "job %llu deadlocked: every running QPU waits forever; resetting the V3D\n",
				    job->seqno);
	if (!status) {
		/* A job the backend ran at its start is polled from now on. */
		if (qdev->sched.poll_deferred) {
			qdev->sched.poll_deferred = false;
			qpu_sched_poll_start(&qdev->sched, job);
		}
		qpu_sched_check_later(qdev, job);
		return false;
	}
	if (status == QPU_JOB_FAULT && job->fault.access == QPU_FAULT_OTHER)
		dev_err_ratelimited(qdev->dev,
				    "job %llu stopped: QPU %u at %#x did what the V3D cannot (at %#x)\n",
				    job->seqno, job->fault.qpu, job->fault.pc,
				    job->fault.addr);
	else if (status == QPU_JOB_FAULT)
		dev_err_ratelimited(qdev->dev,
				    "job %llu stopped: QPU %u at %#x was refused access to %#x\n",
				    job->seqno, job->fault.qpu, job->fault.pc,
				    job->fault.addr);
	qpu_sched_finish(qdev, job, status, qpu_sched_reset_reason(status));
	return true;
}

/*
 * Starts the next ready job, if any; the caller holds @run_lock, no job
 * runs and the scheduler is not stopped.
 */
static void qpu_sched_start_next(struct qpu_dev *qdev)
{
	struct qpu_sched *sched = &qdev->sched;
	struct qpu_job *job;

	lockdep_assert_held(&sched->run_lock);
	job = qpu_sched_pick(sched);
	if (!job)
		return;

	/*
	 * An in-fence that failed takes its job down with it, as does a
	 * failed reset between files; the next job starts in the work.
	 */
	if ((job->in_fence && dma_fence_get_status(job->in_fence) < 0) ||
	    qpu_sched_isolate(qdev, job)) {
		atomic64_inc(&sched->jobs_canceled);
		qpu_job_end(job, QPU_JOB_CANCELED);
		queue_delayed_work(sched->wq, &sched->work, 0);
		return;
	}

	sched->running = job;
	job->start = ktime_get();
	job->deadline = ktime_add(job->start, job->timeout);
	if (qdev->ops->job_begin)
		qdev->ops->job_begin(qdev, job);
	qpu_sched_busy_start(sched, job->client_id);
	trace_qpu_job_start(qdev, job);
	qpu_v3d_job_start(qdev, job);
	if (qdev->ops->job_run && qdev->ops->job_run(qdev, job)) {
		/*
		 * The backend ran the job here and something ended: look at
		 * once, not after a kick that would wake the work. Once it
		 * ended, the next ready job, if any, starts in the work's
		 * next turn.
		 */
		sched->poll_deferred = true;
		if (qpu_sched_check_running(qdev, job) &&
		    qpu_sched_any_ready(sched))
			queue_delayed_work(sched->wq, &sched->work, 0);
		return;
	}
	qpu_sched_poll_start(sched, job);
	qpu_sched_check_later(qdev, job);
}

static bool qpu_sched_is_stopped(struct qpu_sched *sched)
{
	unsigned long flags;
	bool stopped;

	spin_lock_irqsave(&sched->lock, flags);
	stopped = sched->stopped;
	spin_unlock_irqrestore(&sched->lock, flags);
	return stopped;
}

static void qpu_sched_work(struct work_struct *work)
{
	struct qpu_sched *sched = container_of(to_delayed_work(work),
					       struct qpu_sched, work);
	struct qpu_dev *qdev = qpu_sched_to_dev(sched);
	struct qpu_job *job;

	mutex_lock(&sched->run_lock);
	/* Once stopped, the removal alone ends the running job. */
	if (!qpu_sched_is_stopped(sched)) {
		qpu_sched_do_reset_requests(qdev);
		job = sched->running;
		if (!job || qpu_sched_check_running(qdev, job))
			qpu_sched_start_next(qdev);
	}
	mutex_unlock(&sched->run_lock);
}

/*
 * SUBMIT's turn (see "DOC: one job at a time, files take turns"): when no
 * job runs and no administrator's reset waits, the submitter starts the
 * next job itself, the one the work would have picked. Returns false when
 * the work must be kicked instead: it holds @run_lock (it will look at
 * the queue again once kicked), a job runs, or a reset is asked for.
 */
static bool qpu_sched_submit_turn(struct qpu_dev *qdev)
{
	struct qpu_sched *sched = &qdev->sched;
	unsigned long flags;
	bool idle;

	if (!mutex_trylock(&sched->run_lock))
		return false;
	spin_lock_irqsave(&sched->lock, flags);
	idle = !sched->running &&
	       sched->resets_requested == sched->resets_handled;
	/* Stopped: the removal cancels the queued job. */
	if (idle && !sched->stopped) {
		spin_unlock_irqrestore(&sched->lock, flags);
		qpu_sched_start_next(qdev);
	} else {
		spin_unlock_irqrestore(&sched->lock, flags);
	}
	mutex_unlock(&sched->run_lock);
	return idle;
}

/*
 * Queues @job, taking the caller's job reference; SUBMIT, process context,
 * no qpu lock held. A ready job on an idle scheduler starts here, in the
 * submitter's turn (qpu_sched_submit_turn()), and may end before this
 * returns.
 */
void qpu_sched_push(struct qpu_dev *qdev, struct qpu_client *client,
		    struct qpu_job *job)
{
	struct qpu_sched *sched = &qdev->sched;
	bool ready = qpu_job_wait_in_fence(job);
	unsigned long flags;
	bool stopped;

	spin_lock_irqsave(&sched->lock, flags);
	stopped = sched->stopped;
	if (!stopped) {
		job->ready |= ready;
		ready = job->ready;
		job->client = client;
		list_add_tail(&job->node, &client->queue);
		if (list_empty(&client->node))
			list_add_tail(&client->node, &sched->clients);
	}
	spin_unlock_irqrestore(&sched->lock, flags);

	/* @job may have run and ended from here on: the reference was ours. */
	if (!stopped && ready && !qpu_sched_submit_turn(qdev))
		qpu_sched_kick(qdev);
	if (stopped) {
		qpu_job_unqueued(client);
		qpu_job_forget_in_fence(job);
		atomic64_inc(&sched->jobs_canceled);
		qpu_job_end(job, QPU_JOB_CANCELED);
	}
}

int qpu_sched_init(struct qpu_dev *qdev)
{
	struct qpu_sched *sched = &qdev->sched;

	spin_lock_init(&sched->lock);
	INIT_LIST_HEAD(&sched->clients);
	INIT_LIST_HEAD(&sched->kept);
	INIT_LIST_HEAD(&sched->after_running);
	init_waitqueue_head(&sched->reset_wait);
	mutex_init(&sched->hang_lock);
	mutex_init(&sched->run_lock);
	INIT_DELAYED_WORK(&sched->work, qpu_sched_work);
	qpu_hrtimer_setup(&sched->poll, qpu_sched_poll, CLOCK_MONOTONIC,
			  HRTIMER_MODE_REL);
	sched->wq = alloc_ordered_workqueue("%s-sched", 0, qdev->name);
	if (!sched->wq)
		return -ENOMEM;
	return 0;
}

/* Moves @client's queued jobs to @list; the caller holds the lock. */
static void qpu_sched_take_jobs_locked(struct qpu_sched *sched,
				       struct qpu_client *client,
				       struct list_head *list)
{
	struct qpu_job *job, *tmp;

	lockdep_assert_held(&sched->lock);
	list_for_each_entry_safe(job, tmp, &client->queue, node) {
		qpu_sched_unqueue_locked(sched, job);
		list_add_tail(&job->node, list);
	}
}

/*
 * Cancels the queued jobs of @client, which is going away. Fences of one
 * context signal in order: while a job of @client runs, its queued ones
 * are canceled when it ends (qpu_sched_finish()), not before.
 */
void qpu_sched_client_fini(struct qpu_dev *qdev, struct qpu_client *client)
{
	struct qpu_sched *sched = &qdev->sched;
	unsigned long flags;
	LIST_HEAD(canceled);

	spin_lock_irqsave(&sched->lock, flags);
	qpu_sched_take_jobs_locked(sched, client, &canceled);
	if (sched->running_client == client->id)
		list_splice_tail_init(&canceled, &sched->after_running);
	spin_unlock_irqrestore(&sched->lock, flags);
	qpu_sched_cancel_jobs(sched, &canceled);
}

/*
 * The device goes: no job starts any more, queued ones are canceled and a
 * running one is stopped. Files may stay open; their later submissions are
 * canceled at once.
 */
void qpu_sched_fini(struct qpu_dev *qdev)
{
	struct qpu_sched *sched = &qdev->sched;
	struct qpu_client *client, *next;
	unsigned long flags;
	LIST_HEAD(canceled);

	if (!sched->wq)
		return;

	spin_lock_irqsave(&sched->lock, flags);
	sched->stopped = true;
	spin_unlock_irqrestore(&sched->lock, flags);
	wake_up_all(&sched->reset_wait);	/* requests now fail */

	/*
	 * A turn under way (the work's, or a submitter's) ends first, and
	 * none starts a job from now on: each looks at @stopped under
	 * @run_lock. What a turn queued before it saw @stopped is cancelled
	 * after, without @run_lock, which the work takes.
	 */
	mutex_lock(&sched->run_lock);
	if (sched->running)
		qpu_sched_finish(qdev, sched->running, QPU_JOB_CANCELED,
				 QPU_RESET_REMOVE);
	mutex_unlock(&sched->run_lock);
	cancel_delayed_work_sync(&sched->work);

	/*
	 * Every queued job at once, under the lock: a file released meanwhile
	 * frees its client, which must not be looked at once the lock is
	 * dropped. Jobs pushed from now on are canceled by qpu_sched_push().
	 */
	spin_lock_irqsave(&sched->lock, flags);
	list_for_each_entry_safe(client, next, &sched->clients, node)
		qpu_sched_take_jobs_locked(sched, client, &canceled);
	spin_unlock_irqrestore(&sched->lock, flags);
	qpu_sched_cancel_jobs(sched, &canceled);
	/*
	 * BOs kept after a failed reset go only after one that works: their
	 * memory is freed next (qpu_bo_unplug()). Else they stay, memory and
	 * all, for as long as the module: the QPUs may still write them.
	 */
	if (!list_empty(&sched->kept) &&
	    qpu_sched_v3d_reset(qdev, QPU_RESET_REMOVE))
		qpu_sched_leak_kept(qdev);

	destroy_workqueue(sched->wq);
	sched->wq = NULL;
}
