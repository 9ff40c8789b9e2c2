// SPDX-License-Identifier: GPL-2.0
/*
 * debugfs qpu/float_digest: runs the emulator's float operations in kernel
 * context and reports a digest per operation, so a selftest can compare
 * them with the user build of the same code (selftests/kmod/
 * qpu_float_test.c). Write "SEED COUNT", then read one "name 0x..." line
 * per operation. Root only, like the rest of debugfs.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>

#include "qpu_drv.h"
#include "qpu_emu_float_digest.h"

/* Bounds the work one write can ask of the kernel. */
#define QPU_FLOAT_CHECK_MAX_COUNT	1000000

static DEFINE_MUTEX(qpu_float_check_lock);	/* the digest below */
static u32 qpu_float_check_digest[QPU_EMU_FLOAT_OPS];

static int qpu_float_check_show(struct seq_file *m, void *unused)
{
	unsigned int i;

	mutex_lock(&qpu_float_check_lock);
	for (i = 0; i < QPU_EMU_FLOAT_OPS; i++)
		seq_printf(m, "%s 0x%08x\n", qpu_emu_float_op_names[i],
			   qpu_float_check_digest[i]);
	mutex_unlock(&qpu_float_check_lock);
	return 0;
}

static int qpu_float_check_open(struct inode *inode, struct file *file)
{
	return single_open(file, qpu_float_check_show, NULL);
}

static ssize_t qpu_float_check_write(struct file *file, const char __user *ubuf,
				     size_t len, loff_t *ppos)
{
	char buf[32];
	u32 seed, count;

	if (len >= sizeof(buf)) {
		pr_debug_ratelimited("float_digest write refused: %zu bytes, at most %zu\n",
				     len, sizeof(buf) - 1);
		return -EINVAL;
	}
	if (copy_from_user(buf, ubuf, len)) {
		pr_debug_ratelimited("float_digest write refused: buffer unreadable\n");
		return -EFAULT;
	}
	buf[len] = '\0';
	if (sscanf(buf, "%u %u", &seed, &count) != 2 ||
	    count > QPU_FLOAT_CHECK_MAX_COUNT) {
		pr_debug_ratelimited("float_digest write refused: not \"SEED COUNT\" with COUNT at most %u\n",
				     QPU_FLOAT_CHECK_MAX_COUNT);
		return -EINVAL;
	}

	mutex_lock(&qpu_float_check_lock);
	qpu_emu_float_digest(seed, count, qpu_float_check_digest);
	mutex_unlock(&qpu_float_check_lock);
	return len;
}

static const struct file_operations qpu_float_check_fops = {
	.owner = THIS_MODULE,
	.open = qpu_float_check_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
	.write = qpu_float_check_write,
};

void qpu_float_check_init(struct dentry *dir)
{
	debugfs_create_file("float_digest", 0600, dir, NULL,
			    &qpu_float_check_fops);
}
