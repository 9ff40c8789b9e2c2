// SPDX-License-Identifier: GPL-2.0
/*
 * The qpu device: lifetime of struct qpu_dev and its character device.
 *
 * Backends (qpu_hw.c, qpu_sim.c) allocate a device, make its registers
 * reachable, read its identification and register it. Nodes are named from
 * an IDA: the first V3D is /dev/qpu, later ones /dev/qpu1, /dev/qpu2...
 * Each device has a debugfs directory, qpu/<node name>/, whose "stats" file
 * tells what the device holds (the selftests' leak check reads it).
 *
 * Registered devices are also kept in an xarray by index, for netlink, and
 * each device lists its open files with the process that opened them.
 *
 * Removal (unbind, module unload) while files are open: struct qpu_dev
 * lives on until the last file, mapping and BO let go of it, but the
 * device's memory cannot, since the DMA API must not be used on a device
 * whose driver is gone. qpu_dev_unregister() therefore, in order: removes
 * the node, so nothing new opens; sets @gone, so every ioctl, mmap and
 * page fault that starts after it fails (-ENODEV, SIGBUS); ends every job
 * (qpu_sched_fini()), so no program touches a BO; waits for the ioctls
 * and faults that started before (the device's SRCU, qpu_dev_read_lock());
 * and then zaps
 * every CPU mapping and frees every BO's memory (qpu_bo_unplug()). BO
 * structures, handles and VMAs stay until closed, without memory.
 */

#include <linux/debugfs.h>
#include <linux/device.h>
#include <linux/seq_file.h>
#include <linux/idr.h>
#include <linux/pid.h>
#include <linux/slab.h>
#include <linux/srcu.h>

#include "qpu_drv.h"

static DEFINE_IDA(qpu_dev_ida);

/*
 * Index -> registered device, without a reference: a device leaves before
 * its probe's reference is dropped. Lookups take a reference under the
 * xarray's lock.
 */
static DEFINE_XARRAY(qpu_devs);

/* Bumped under a device's files_lock when a file opens or closes. */
static atomic_t qpu_dev_files_gen = ATOMIC_INIT(1);

/* Devices allocated and not yet freed, removed ones included (debugfs). */
static atomic_t qpu_dev_count = ATOMIC_INIT(0);

/**
 * qpu_dev_read_lock() - begin a section that needs @qdev present
 * @qdev: the device
 *
 * Inside the section, a device that qpu_dev_present() found present stays
 * so: its removal waits for the section's end before it frees the
 * device's memory. Readers are the device's ioctls and page faults; each
 * device has its own SRCU, so a section of one never holds up another's
 * removal. A section may wait for a job's end (WAIT): the removal ends
 * every job before it waits. It reads no user memory (qpu_ioctl() copies
 * it first), which could wait forever.
 *
 * Return: the index to give qpu_dev_read_unlock().
 */
int qpu_dev_read_lock(struct qpu_dev *qdev)
	__acquires(&qdev->unplug_srcu)
{
	return srcu_read_lock(&qdev->unplug_srcu);
}

void qpu_dev_read_unlock(struct qpu_dev *qdev, int idx)
	__releases(&qdev->unplug_srcu)
{
	srcu_read_unlock(&qdev->unplug_srcu, idx);
}

/* False once the device's removal has begun (see the comment at the top). */
bool qpu_dev_present(const struct qpu_dev *qdev)
{
	return !READ_ONCE(qdev->gone);
}

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
	if (init_srcu_struct(&qdev->unplug_srcu)) {
		kfree(qdev);
		return NULL;
	}

	kref_init(&qdev->ref);
	mutex_init(&qdev->files_lock);
	INIT_LIST_HEAD(&qdev->files);
	mutex_init(&qdev->bos_lock);
	INIT_LIST_HEAD(&qdev->bos);
	atomic_inc(&qpu_dev_count);
	qdev->dev = get_device(dev);
	qdev->backend = backend;
	qdev->ops = ops;
	qdev->index = -1;
	qpu_telemetry_init(qdev);
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
	mutex_destroy(&qdev->bos_lock);
	mutex_destroy(&qdev->files_lock);
	cleanup_srcu_struct(&qdev->unplug_srcu);
	kfree(qdev);
	atomic_dec(&qpu_dev_count);
}

void qpu_dev_get(struct qpu_dev *qdev)
{
	kref_get(&qdev->ref);
}

void qpu_dev_put(struct qpu_dev *qdev)
{
	kref_put(&qdev->ref, qpu_dev_release);
}

/**
 * qpu_dev_lookup() - find a registered device by index
 * @index: N in /dev/qpuN
 *
 * Return: the device with a reference the caller puts, or NULL.
 */
struct qpu_dev *qpu_dev_lookup(u32 index)
{
	struct qpu_dev *qdev;

	xa_lock(&qpu_devs);
	qdev = xa_load(&qpu_devs, index);
	if (qdev)
		qpu_dev_get(qdev);
	xa_unlock(&qpu_devs);
	return qdev;
}

/**
 * qpu_dev_next() - the registered device of the lowest index from @index on
 * @index: in: where to start; out: the index of the device found
 *
 * Return: the device with a reference the caller puts, or NULL.
 */
struct qpu_dev *qpu_dev_next(unsigned long *index)
{
	struct qpu_dev *qdev;

	xa_lock(&qpu_devs);
	qdev = xa_find(&qpu_devs, index, ULONG_MAX, XA_PRESENT);
	if (qdev)
		qpu_dev_get(qdev);
	xa_unlock(&qpu_devs);
	return qdev;
}

/* Changes whenever a file opens or closes on any device (for dumps). */
u32 qpu_dev_files_generation(void)
{
	return atomic_read(&qpu_dev_files_gen);
}

/**
 * qpu_dev_file_open() - list a new open file of the device
 * @qdev: the device
 * @qf: the file, ready for use; its opener is the current process
 * @file: the open file whose private data @qf is
 */
void qpu_dev_file_open(struct qpu_dev *qdev, struct qpu_file *qf,
		       struct file *file)
{
	qf->pid = get_pid(task_tgid(current));
	qf->mapping = file->f_mapping;
	get_task_comm(qf->comm, current);
	qf->uid = file->f_cred->euid;

	mutex_lock(&qdev->files_lock);
	list_add_tail(&qf->node, &qdev->files);
	atomic_inc(&qpu_dev_files_gen);
	mutex_unlock(&qdev->files_lock);
	qpu_telemetry_file_open(qdev);
}

/**
 * qpu_dev_file_close() - take a closing file off the device's list
 * @qdev: the device
 * @qf: the file, before its state is torn down
 */
void qpu_dev_file_close(struct qpu_dev *qdev, struct qpu_file *qf)
{
	qpu_telemetry_file_close(qdev);
	mutex_lock(&qdev->files_lock);
	list_del(&qf->node);
	atomic_inc(&qpu_dev_files_gen);
	mutex_unlock(&qdev->files_lock);
	put_pid(qf->pid);
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
	seq_printf(m, "isolation_resets: %lld\n",
		   (long long)atomic64_read(&qdev->sched.isolation_resets));
	seq_printf(m, "isolation_reset_ns: %lld\n",
		   (long long)atomic64_read(&qdev->sched.isolation_reset_ns));
	seq_printf(m, "host_irqs: %lld\n", (long long)atomic64_read(&qdev->sched.host_irqs));
	seq_printf(m, "polls: %lld\n", (long long)atomic64_read(&qdev->sched.polls));
	seq_printf(m, "reset_failures: %lld\n",
		   (long long)atomic64_read(&qdev->sched.reset_failures));
	seq_printf(m, "kept_bos: %d\n", atomic_read(&qdev->sched.kept_bos));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(qpu_dev_stats);

/*
 * What the module holds over all devices, removed ones included: a removed
 * device's memory must be gone at once, the rest when its files close.
 */
static int qpu_dev_objects_show(struct seq_file *m, void *unused)
{
	s64 bytes;
	int count;

	qpu_bo_objects(&count, &bytes);
	seq_printf(m, "devices: %d\n", atomic_read(&qpu_dev_count));
	seq_printf(m, "bos: %d\n", count);
	seq_printf(m, "bo_memory: %lld\n", (long long)bytes);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(qpu_dev_objects);

/**
 * qpu_dev_debugfs_init() - create the module's "objects" file
 * @root: the module's debugfs directory
 */
void qpu_dev_debugfs_init(struct dentry *root)
{
	debugfs_create_file("objects", 0400, root, NULL, &qpu_dev_objects_fops);
}

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

	ret = xa_insert(&qpu_devs, qdev->index, qdev, GFP_KERNEL);
	if (ret)
		goto err_debugfs_remove;

	ret = misc_register(&qdev->misc);
	if (ret)
		goto err_xa_erase;

	dev_info(qdev->dev,
		 "/dev/%s: %s V3D rev %u, %u QPUs in %u slices, %u KiB VPM\n",
		 qdev->name,
		 qdev->backend == QPU_BACKEND_SIM ? "simulated" : "hardware",
		 id->revision, id->num_slices * id->qpus_per_slice,
		 id->num_slices, id->vpm_size / 1024);
	return 0;

err_xa_erase:
	xa_erase(&qpu_devs, qdev->index);
err_debugfs_remove:
	debugfs_remove_recursive(qdev->debugfs);
	qpu_sched_fini(qdev);
	return ret;	/* the index is freed with the device */
}

/**
 * qpu_dev_unregister() - remove the character device
 * @qdev: a registered device
 *
 * After this returns no new file can be opened, every job has ended, and
 * the device's memory is freed; files already open keep the device
 * structure alive through their reference, but their ioctls fail with
 * -ENODEV and their mappings with SIGBUS (see the comment at the top).
 * The caller is the backend's remove, while the device is still bound.
 */
void qpu_dev_unregister(struct qpu_dev *qdev)
{
	xa_erase(&qpu_devs, qdev->index);
	misc_deregister(&qdev->misc);
	WRITE_ONCE(qdev->gone, true);
	/* Before the knobs and the backend's state the samples read go. */
	qpu_telemetry_stop(qdev);
	debugfs_remove_recursive(qdev->debugfs);
	/* Ends the jobs that WAITs inside qpu_dev_read_lock() may wait for. */
	qpu_sched_fini(qdev);
	synchronize_srcu(&qdev->unplug_srcu);
	qpu_bo_unplug(qdev);
}
