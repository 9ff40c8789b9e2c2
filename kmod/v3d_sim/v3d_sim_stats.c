// SPDX-License-Identifier: GPL-2.0
/*
 * v3d_sim's GPU statistics as upstream's v3d gives them from Linux 6.8 on
 * (Debian's 6.1 has neither): the platform device's sysfs gpu_stats (per
 * queue: a timestamp, the jobs completed, their runtime in ns) and each
 * client's fdinfo (drm-engine-<queue>: runtime in ns, v3d-jobs-<queue>:
 * jobs completed), both counting a running job's time so far. Only the
 * CSD queue runs jobs here; the others read 0. A job's time counts from
 * the emulator starting it to its end (done or faulted); a job a reset
 * ends counts nothing, as upstream.
 *
 * A struct v3d_sim_stats is the device's (in struct v3d_sim_dev) or a
 * file's (allocated, refcounted: the file and each job of it hold one, so
 * that a job running on after its file closed still has somewhere to
 * count). Its lock is taken alone, with or without emu_lock held.
 */
#include <linux/device.h>
#include <linux/sched/clock.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sysfs.h>

#include "v3d_sim.h"

/* The queue that runs jobs here, in upstream's enum v3d_queue. */
#define V3D_SIM_QUEUE_CSD	3

/* Upstream's queues in enum v3d_queue's order (v3d_queue_to_string()). */
static const char *const v3d_sim_queues[] = {
	"bin", "render", "tfu", "csd", "cache_clean", "cpu",
};

void v3d_sim_stats_init(struct v3d_sim_stats *s)
{
	spin_lock_init(&s->lock);
	kref_init(&s->refcount);
	s->start_ns = 0;
	s->enabled_ns = 0;
	s->jobs_completed = 0;
}

struct v3d_sim_stats *v3d_sim_stats_new(void)
{
	struct v3d_sim_stats *s = kmalloc(sizeof(*s), GFP_KERNEL);

	if (s)
		v3d_sim_stats_init(s);
	return s;
}

static void v3d_sim_stats_free(struct kref *kref)
{
	kfree(container_of(kref, struct v3d_sim_stats, refcount));
}

struct v3d_sim_stats *v3d_sim_stats_get(struct v3d_sim_stats *s)
{
	kref_get(&s->refcount);
	return s;
}

void v3d_sim_stats_put(struct v3d_sim_stats *s)
{
	if (s)
		kref_put(&s->refcount, v3d_sim_stats_free);
}

static void v3d_sim_stats_mark(struct v3d_sim_stats *s, u64 now, bool start, bool count)
{
	unsigned long flags;

	spin_lock_irqsave(&s->lock, flags);
	if (count && s->start_ns) {
		s->enabled_ns += now - s->start_ns;
		s->jobs_completed++;
	}
	s->start_ns = start ? now : 0;
	spin_unlock_irqrestore(&s->lock, flags);
}

void v3d_sim_stats_job_start(struct v3d_sim_dev *v3d, struct v3d_sim_job *job)
{
	u64 now = local_clock();

	v3d_sim_stats_mark(&v3d->stats, now, true, false);
	v3d_sim_stats_mark(job->file_stats, now, true, false);
}

void v3d_sim_stats_job_end(struct v3d_sim_dev *v3d, struct v3d_sim_job *job,
			   bool count)
{
	u64 now = local_clock();

	v3d_sim_stats_mark(&v3d->stats, now, false, count);
	v3d_sim_stats_mark(job->file_stats, now, false, count);
}

/* The runtime so far (a running job's time included) and the jobs done. */
static void v3d_sim_stats_read(struct v3d_sim_stats *s, u64 now, u64 *runtime,
			       u64 *jobs)
{
	unsigned long flags;

	spin_lock_irqsave(&s->lock, flags);
	*runtime = s->enabled_ns + (s->start_ns ? now - s->start_ns : 0);
	*jobs = s->jobs_completed;
	spin_unlock_irqrestore(&s->lock, flags);
}

static ssize_t gpu_stats_show(struct device *dev, struct device_attribute *attr,
			      char *buf)
{
	struct v3d_sim_dev *v3d = dev_get_drvdata(dev);
	u64 now = local_clock(), runtime, jobs;
	ssize_t len;
	unsigned int q;

	len = sysfs_emit(buf, "queue\ttimestamp\tjobs\truntime\n");
	for (q = 0; q < ARRAY_SIZE(v3d_sim_queues); q++) {
		runtime = 0;
		jobs = 0;
		if (q == V3D_SIM_QUEUE_CSD)
			v3d_sim_stats_read(&v3d->stats, now, &runtime, &jobs);
		len += sysfs_emit_at(buf, len, "%s\t%llu\t%llu\t%llu\n", v3d_sim_queues[q],
				     now, jobs, runtime);
	}
	return len;
}
static DEVICE_ATTR_RO(gpu_stats);

static struct attribute *v3d_sim_attrs[] = {
	&dev_attr_gpu_stats.attr,
	NULL,
};

static const struct attribute_group v3d_sim_attr_group = {
	.attrs = v3d_sim_attrs,
};

const struct attribute_group *v3d_sim_groups[] = {
	&v3d_sim_attr_group,
	NULL,
};

/*
 * fdinfo: DRM's common keys (6.1's core prints none: drm_show_fdinfo()
 * came with 6.5) and upstream v3d's per queue.
 */
void v3d_sim_show_fdinfo(struct seq_file *m, struct file *f)
{
	struct drm_file *file = f->private_data;
	struct v3d_sim_file *vf = file->driver_priv;
	u64 now = local_clock(), runtime, jobs;
	unsigned int q;

	seq_printf(m, "drm-driver:\t%s\n", V3D_SIM_DRIVER_NAME);
	seq_printf(m, "drm-client-id:\t%llu\n", vf->client_id);
	for (q = 0; q < ARRAY_SIZE(v3d_sim_queues); q++) {
		runtime = 0;
		jobs = 0;
		if (q == V3D_SIM_QUEUE_CSD)
			v3d_sim_stats_read(vf->stats, now, &runtime, &jobs);
		seq_printf(m, "drm-engine-%s: \t%llu ns\n", v3d_sim_queues[q], runtime);
		seq_printf(m, "v3d-jobs-%s: \t%llu jobs\n", v3d_sim_queues[q], jobs);
	}
}
