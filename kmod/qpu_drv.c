// SPDX-License-Identifier: GPL-2.0
/*
 * qpu.ko: module parameters, load and unload, and the file operations of the
 * /dev/qpu nodes with their ioctl table.
 *
 * The ioctl dispatcher copies in the size the caller's command encodes and
 * zero-fills the rest, refusing unknown non-zero trailing bytes, then copies
 * back only what the caller can hold: structs can grow at their end without
 * breaking old binaries, and new binaries get -E2BIG from old kernels.
 * A struct the kernel cannot write back is refused before the handler runs,
 * and a new fd appears only once its number reached the caller.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/compat.h>
#include <linux/debugfs.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/nospec.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "qpu_drv.h"
#include "qpu_emu.h"

static unsigned int qpu_sim_count;

static int qpu_param_set_sim(const char *val, const struct kernel_param *kp)
{
	unsigned int n;

	if (kstrtouint(val, 0, &n) || n > QPU_SIM_MAX_DEVICES) {
		pr_err("sim=%s: expected a number of simulated V3Ds from 0 to %u\n",
		       val, QPU_SIM_MAX_DEVICES);
		return -EINVAL;
	}
	*(unsigned int *)kp->arg = n;
	return 0;
}

static const struct kernel_param_ops qpu_param_ops_sim = {
	.set = qpu_param_set_sim,
	.get = param_get_uint,
};

module_param_cb(sim, &qpu_param_ops_sim, &qpu_sim_count, 0444);
MODULE_PARM_DESC(sim, "Number of simulated V3Ds to create (0-4, default 0)");

/* --- file operations ----------------------------------------------------- */

static int qpu_open(struct inode *inode, struct file *file)
{
	struct qpu_dev *qdev = container_of(file->private_data,
					    struct qpu_dev, misc);
	struct qpu_file *qf;
	int ret;

	qf = kzalloc(sizeof(*qf), GFP_KERNEL_ACCOUNT);
	if (!qf)
		return -ENOMEM;

	ret = qpu_bo_file_init(qf);
	if (ret) {
		kfree(qf);
		return ret;
	}
	qpu_job_file_init(qf);

	qpu_dev_get(qdev);
	qf->qdev = qdev;
	qpu_dev_file_open(qdev, qf, file);
	file->private_data = qf;
	return nonseekable_open(inode, file);
}

static int qpu_release(struct inode *inode, struct file *file)
{
	struct qpu_file *qf = file->private_data;

	qpu_dev_file_close(qf->qdev, qf);
	/* Jobs first: a running one keeps its BOs after the handles go. */
	qpu_job_file_fini(qf);
	qpu_bo_file_fini(qf);
	qpu_dev_put(qf->qdev);
	kfree(qf);
	return 0;
}

static int qpu_ioctl_get_param(struct qpu_file *qf, void *data, size_t usize,
			       struct qpu_ioctl_fd *install,
			       const struct qpu_ioctl_in *in)
{
	const struct qpu_v3d_ident *id = &qf->qdev->ident;
	struct qpu_get_param *args = data;

	if (args->pad) {
		qpu_dbg(qf->qdev->dev, "get_param refused: nonzero pad\n");
		return -EINVAL;
	}

	switch (args->param) {
	case QPU_PARAM_ABI_VERSION:
		args->value = QPU_ABI_VERSION;
		break;
	case QPU_PARAM_BACKEND:
		args->value = qf->qdev->backend;
		break;
	case QPU_PARAM_V3D_IDENT0:
	case QPU_PARAM_V3D_IDENT1:
	case QPU_PARAM_V3D_IDENT2:
		args->value = id->raw[args->param - QPU_PARAM_V3D_IDENT0];
		break;
	case QPU_PARAM_NUM_QPUS:
		args->value = id->num_slices * id->qpus_per_slice;
		break;
	case QPU_PARAM_NUM_SLICES:
		args->value = id->num_slices;
		break;
	case QPU_PARAM_NUM_SEMAPHORES:
		args->value = id->num_semaphores;
		break;
	case QPU_PARAM_VPM_SIZE:
		args->value = id->vpm_size;
		break;
	case QPU_PARAM_FEATURES:
		args->value = QPU_FEATURE_UNIFORMS_ANYWHERE | QPU_FEATURE_ALL_BOS |
			      QPU_FEATURE_DMABUF;
		/* Only the simulated V3D tells a deadlock from a hang. */
		if (qf->qdev->backend == QPU_BACKEND_SIM)
			args->value |= QPU_FEATURE_DEADLOCK;
		break;
	case QPU_PARAM_MAX_BO_SIZE:
		args->value = qpu_bo_max_size();
		break;
	case QPU_PARAM_DEFAULT_TIMEOUT_MS:
		args->value = qpu_job_default_timeout_ms();
		break;
	case QPU_PARAM_MAX_TIMEOUT_MS:
		args->value = qpu_job_max_timeout_ms();
		break;
	case QPU_PARAM_INSTRUCTIONS_PER_MS:
		/* The simulated V3D times jobs by progress (qpu_sim.c). */
		args->value = qf->qdev->backend == QPU_BACKEND_SIM ?
			      QPU_EMU_INSTRUCTIONS_PER_MS : 0;
		break;
	case QPU_PARAM_BO_L2_CACHED:
		args->value = qf->qdev->bo_l2_cached;
		break;
	default:
		qpu_dbg(qf->qdev->dev, "get_param refused: unknown param %u\n",
			args->param);
		return -EINVAL;
	}
	return 0;
}

/**
 * struct qpu_ioctl_desc - one entry of the ioctl table.
 * @cmd: the command with the kernel's struct size.
 * @min_size: size of the struct's first version; shorter ones are refused.
 * @copy_in: optional: checks the struct and reads the user memory it points
 *	to into @in, before the device's SRCU section; nothing to undo when
 *	it fails. The dispatcher frees @in's allocations after @handler.
 * @handler: works on a kernel copy of the struct, whole (a caller's shorter
 *	one reads as zero-extended); @usize is the caller's size, for answers
 *	that depend on which version the caller knows; a new fd goes in
 *	@install, for the dispatcher to install after the copy-back.
 */
struct qpu_ioctl_desc {
	unsigned int cmd;
	size_t min_size;
	int (*copy_in)(struct qpu_file *qf, void *data, struct qpu_ioctl_in *in);
	int (*handler)(struct qpu_file *qf, void *data, size_t usize,
		       struct qpu_ioctl_fd *install,
		       const struct qpu_ioctl_in *in);
};

#define QPU_IOCTL_DEF(name, handler_fn, type, last_v1_member)		\
	[QPU_IOCTL_NR_##name] = {					\
		.cmd = QPU_IOCTL_##name,				\
		.min_size = offsetofend(type, last_v1_member),		\
		.handler = handler_fn,					\
	}

static const struct qpu_ioctl_desc qpu_ioctls[] = {
	QPU_IOCTL_DEF(GET_PARAM, qpu_ioctl_get_param, struct qpu_get_param, value),
	QPU_IOCTL_DEF(BO_CREATE, qpu_ioctl_bo_create, struct qpu_bo_create,
		      mmap_offset),
	QPU_IOCTL_DEF(BO_DESTROY, qpu_ioctl_bo_destroy, struct qpu_bo_destroy,
		      pad),
	[QPU_IOCTL_NR_SUBMIT] = {
		.cmd = QPU_IOCTL_SUBMIT,
		.min_size = offsetofend(struct qpu_submit, seqno),
		.copy_in = qpu_ioctl_submit_copy_in,
		.handler = qpu_ioctl_submit,
	},
	QPU_IOCTL_DEF(WAIT, qpu_ioctl_wait, struct qpu_wait, pad),
	QPU_IOCTL_DEF(BO_EXPORT, qpu_ioctl_bo_export, struct qpu_bo_export, pad),
	QPU_IOCTL_DEF(BO_IMPORT, qpu_ioctl_bo_import, struct qpu_bo_import,
		      mmap_offset),
};

/* Every ioctl struct, so the on-stack copy is as large as the largest. */
union qpu_ioctl_args {
	struct qpu_get_param get_param;
	struct qpu_bo_create bo_create;
	struct qpu_bo_destroy bo_destroy;
	struct qpu_submit submit;
	struct qpu_wait wait;
	struct qpu_bo_export bo_export;
	struct qpu_bo_import bo_import;
};

static long qpu_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	void __user *uarg = (void __user *)arg;
	struct qpu_file *qf = file->private_data;
	const struct qpu_ioctl_desc *desc;
	struct qpu_ioctl_fd install = { .fd = -1 };
	struct qpu_ioctl_in in = { .handles = NULL };
	union qpu_ioctl_args kdata;
	unsigned int nr = _IOC_NR(cmd);
	size_t usize = _IOC_SIZE(cmd);
	size_t ksize;
	int ret, idx;

	if (_IOC_TYPE(cmd) != QPU_IOCTL_BASE || nr >= ARRAY_SIZE(qpu_ioctls)) {
		qpu_dbg(qf->qdev->dev, "ioctl %#x refused: not a qpu command\n", cmd);
		return -ENOTTY;
	}
	nr = array_index_nospec(nr, ARRAY_SIZE(qpu_ioctls));
	desc = &qpu_ioctls[nr];
	if (!desc->handler || _IOC_DIR(cmd) != _IOC_DIR(desc->cmd)) {
		qpu_dbg(qf->qdev->dev, "ioctl %#x refused: unknown number or direction\n",
			cmd);
		return -ENOTTY;
	}

	ksize = _IOC_SIZE(desc->cmd);
	if (WARN_ON_ONCE(ksize > sizeof(kdata)))
		return -EINVAL;
	if (usize < desc->min_size) {
		qpu_dbg(qf->qdev->dev, "ioctl %#x refused: struct of %zu bytes, less than %zu\n",
			cmd, usize, desc->min_size);
		return -EINVAL;
	}

	if (_IOC_DIR(cmd) & _IOC_WRITE) {
		ret = copy_struct_from_user(&kdata, ksize, uarg, usize);
		if (ret) {
			qpu_dbg(qf->qdev->dev, "ioctl %#x refused: struct unreadable or with a nonzero tail (%d)\n",
				cmd, ret);
			return ret;
		}
	} else {
		memset(&kdata, 0, ksize);
	}

	/*
	 * Effects such as a queued job cannot be taken back: a struct that
	 * cannot be written is refused first, by writing back what was read
	 * (zeros for a struct only read).
	 */
	if ((_IOC_DIR(cmd) & _IOC_READ) &&
	    copy_to_user(uarg, &kdata, min(usize, ksize))) {
		qpu_dbg(qf->qdev->dev, "ioctl %#x refused: struct not writable\n", cmd);
		return -EFAULT;
	}

	/*
	 * User memory beyond the struct is read before the device's section:
	 * a page that never arrives must not hold the device's removal up.
	 */
	if (desc->copy_in) {
		ret = desc->copy_in(qf, &kdata, &in);
		if (ret)
			return ret;
	}

	/* Nothing reaches a device that is going: see qpu_dev_unregister(). */
	idx = qpu_dev_read_lock(qf->qdev);
	if (qpu_dev_present(qf->qdev))
		ret = desc->handler(qf, &kdata, usize, &install, &in);
	else
		ret = -ENODEV;
	qpu_dev_read_unlock(qf->qdev, idx);
	kfree(in.handles);
	if (ret)
		return ret;

	if ((_IOC_DIR(cmd) & _IOC_READ) &&
	    copy_to_user(uarg, &kdata, min(usize, ksize))) {
		qpu_dbg(qf->qdev->dev, "ioctl %#x: answer not written back, struct no longer writable\n",
			cmd);
		ret = -EFAULT;
	}
	if (install.fd >= 0) {
		/* The struct went away under us: the fd was never seen. */
		if (ret) {
			put_unused_fd(install.fd);
			fput(install.file);
		} else {
			fd_install(install.fd, install.file);
		}
	}
	return ret;
}

const struct file_operations qpu_fops = {
	.owner = THIS_MODULE,
	.open = qpu_open,
	.release = qpu_release,
	.unlocked_ioctl = qpu_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.mmap = qpu_bo_mmap,
	.llseek = no_llseek,
};

/* --- module -------------------------------------------------------------- */

/* debugfs: qpu/<node name>/ per device; see qpu_dev.c and qpu_sim.c. */
struct dentry *qpu_debugfs_root;

/* Work of the module's objects that outlives a device (fence callbacks). */
struct workqueue_struct *qpu_wq;

static int __init qpu_init(void)
{
	int ret;

	qpu_wq = alloc_workqueue(KBUILD_MODNAME, 0, 0);
	if (!qpu_wq)
		return -ENOMEM;
	qpu_debugfs_root = debugfs_create_dir(KBUILD_MODNAME, NULL);
	qpu_float_check_init(qpu_debugfs_root);
	qpu_dev_debugfs_init(qpu_debugfs_root);
	qpu_bo_limits_init();

	/* Before the devices, which send events from their first job on. */
	ret = qpu_nl_init();
	if (ret)
		goto err_debugfs_remove;

	ret = qpu_hw_init();
	if (ret)
		goto err_nl_exit;

	ret = qpu_sim_init(qpu_sim_count);
	if (ret)
		goto err_hw_exit;
	return 0;

err_hw_exit:
	qpu_hw_exit();
err_nl_exit:
	qpu_nl_exit();
err_debugfs_remove:
	debugfs_remove_recursive(qpu_debugfs_root);
	destroy_workqueue(qpu_wq);
	return ret;
}

static void __exit qpu_exit(void)
{
	qpu_sim_exit();
	qpu_hw_exit();
	qpu_nl_exit();
	debugfs_remove_recursive(qpu_debugfs_root);
	destroy_workqueue(qpu_wq);
}

module_init(qpu_init);
module_exit(qpu_exit);

MODULE_DESCRIPTION("User programs on the QPUs of the VideoCore IV V3D");
MODULE_AUTHOR("The qpu developers");
MODULE_LICENSE("GPL");
