// SPDX-License-Identifier: GPL-2.0
/*
 * The qpu device: lifetime of struct qpu_dev and its character device.
 *
 * Backends (qpu_hw.c, qpu_sim.c) allocate a device, make its registers
 * reachable, read its identification and register it. Nodes are named from
 * an IDA: the first V3D is /dev/qpu, later ones /dev/qpu1, /dev/qpu2...
 * Each device has a debugfs directory, qpu/<node name>/, whose "stats" file
 * tells what the device holds (the selftests' leak check reads it).
 */

#include <linux/debugfs.h>
#include <linux/device.h>
#include <linux/seq_file.h>
#include <linux/idr.h>
#include <linux/slab.h>

#include "qpu_drv.h"

static DEFINE_IDA(qpu_dev_ida);

/**
 * qpu_dev_alloc() - allocate a device for a probing backend
 * @dev: the platform device
 * @backend: what stands behind the registers
 * @ops: the backend's operations
 *
 * Return: the device with one reference, owned by the caller, or NULL.
 */
struct qpu_dev *qpu_dev_alloc(struct device *dev, enum qpu_backend backend,
			      const struct qpu_backend_ops *ops)
{
	struct qpu_dev *qdev;

	qdev = kzalloc(sizeof(*qdev), GFP_KERNEL);
	if (!qdev)
		return NULL;

	kref_init(&qdev->ref);
	qdev->dev = get_device(dev);
	qdev->backend = backend;
	qdev->ops = ops;
	qdev->index = -1;
	return qdev;
}

static void qpu_dev_release(struct kref *ref)
{
	struct qpu_dev *qdev = container_of(ref, struct qpu_dev, ref);

	if (qdev->ops->release)
		qdev->ops->release(qdev);
	if (qdev->index >= 0)
		ida_free(&qpu_dev_ida, qdev->index);
	put_device(qdev->dev);
	kfree(qdev);
}

void qpu_dev_get(struct qpu_dev *qdev)
{
	kref_get(&qdev->ref);
}

void qpu_dev_put(struct qpu_dev *qdev)
{
	kref_put(&qdev->ref, qpu_dev_release);
}

static int qpu_dev_stats_show(struct seq_file *m, void *unused)
{
	struct qpu_dev *qdev = m->private;

	seq_printf(m, "bo_count: %d\n", atomic_read(&qdev->bo_count));
	seq_printf(m, "bo_bytes: %lld\n", (long long)atomic64_read(&qdev->bo_bytes));
	seq_printf(m, "jobs_submitted: %lld\n",
		   (long long)atomic64_read(&qdev->sched.jobs_submitted));
	seq_printf(m, "jobs_done: %lld\n", (long long)atomic64_read(&qdev->sched.jobs_done));
	seq_printf(m, "jobs_failed: %lld\n", (long long)atomic64_read(&qdev->sched.jobs_failed));
	seq_printf(m, "jobs_timeout: %lld\n",
		   (long long)atomic64_read(&qdev->sched.jobs_timeout));
	seq_printf(m, "jobs_canceled: %lld\n",
		   (long long)atomic64_read(&qdev->sched.jobs_canceled));
	seq_printf(m, "resets: %lld\n", (long long)atomic64_read(&qdev->sched.resets));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(qpu_dev_stats);

/**
 * qpu_dev_register() - create the character device of an identified V3D
 * @qdev: the device, after qpu_v3d_ident_read() succeeded
 *
 * Return: 0 or a negative errno; on failure nothing is left registered.
 */
int qpu_dev_register(struct qpu_dev *qdev)
{
	const struct qpu_v3d_ident *id = &qdev->ident;
	int ret;

	ret = ida_alloc(&qpu_dev_ida, GFP_KERNEL);
	if (ret < 0)
		return ret;
	qdev->index = ret;

	if (qdev->index)
		snprintf(qdev->name, sizeof(qdev->name), "qpu%d", qdev->index);
	else
		strscpy(qdev->name, "qpu", sizeof(qdev->name));

	qdev->misc.minor = MISC_DYNAMIC_MINOR;
	qdev->misc.name = qdev->name;
	qdev->misc.fops = &qpu_fops;
	qdev->misc.parent = qdev->dev;
	/*
	 * Programs on a real V3D reach all memory: root only, unless a udev
	 * rule (kmod/60-qpu.rules) opens queries and buffers to a group;
	 * submitting still needs CAP_SYS_RAWIO. The simulated V3D checks
	 * every access, so anyone may use it.
	 */
	qdev->misc.mode = qdev->backend == QPU_BACKEND_SIM ? 0666 : 0600;

	ret = qpu_sched_init(qdev);
	if (ret)
		return ret;

	/* Without debugfs the device still works; errors are not fatal. */
	qdev->debugfs = debugfs_create_dir(qdev->name, qpu_debugfs_root);
	debugfs_create_file("stats", 0400, qdev->debugfs, qdev,
			    &qpu_dev_stats_fops);

	ret = misc_register(&qdev->misc);
	if (ret) {
		debugfs_remove_recursive(qdev->debugfs);
		qpu_sched_fini(qdev);
		return ret;	/* the index is freed with the device */
	}

	dev_info(qdev->dev,
		 "/dev/%s: %s V3D rev %u, %u QPUs in %u slices, %u KiB VPM\n",
		 qdev->name,
		 qdev->backend == QPU_BACKEND_SIM ? "simulated" : "hardware",
		 id->revision, id->num_slices * id->qpus_per_slice,
		 id->num_slices, id->vpm_size / 1024);
	return 0;
}

/**
 * qpu_dev_unregister() - remove the character device
 * @qdev: a registered device
 *
 * After this returns no new file can be opened; files already open keep the
 * device structure alive through their reference.
 */
void qpu_dev_unregister(struct qpu_dev *qdev)
{
	misc_deregister(&qdev->misc);
	debugfs_remove_recursive(qdev->debugfs);
	qpu_sched_fini(qdev);
}
