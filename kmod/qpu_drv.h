/* SPDX-License-Identifier: GPL-2.0 */
/*
 * qpu.ko private interfaces: the device and file structures, and the
 * prototypes of each file, grouped by the file that defines them.
 */
#ifndef QPU_DRV_H
#define QPU_DRV_H

#include <linux/atomic.h>
#include <linux/kref.h>
#include <linux/maple_tree.h>
#include <linux/miscdevice.h>
#include <linux/mutex.h>
#include <linux/types.h>
#include <linux/xarray.h>
#include <linux/qpu.h>

struct qpu_bo;
struct qpu_dev;
struct qpu_sim;
struct gen_pool;
struct vm_area_struct;

/**
 * struct qpu_backend_ops - what differs between the real and simulated V3D.
 * @bo_alloc: get zeroed memory for @bo->size bytes: set @bo->vaddr and
 *	@bo->bus_addr (and @bo->dma_addr if used); 0 or a negative errno.
 * @bo_free: give back what @bo_alloc got; the BO is no longer in use.
 * @bo_mmap: map @bo's pages into @vma, from page @pgoff of the BO; the
 *	caller has checked that the range lies within the BO.
 * @release: free the backend's state at the device's last reference.
 */
struct qpu_backend_ops {
	int (*bo_alloc)(struct qpu_dev *qdev, struct qpu_bo *bo);
	void (*bo_free)(struct qpu_dev *qdev, struct qpu_bo *bo);
	int (*bo_mmap)(struct qpu_dev *qdev, struct qpu_bo *bo,
		       struct vm_area_struct *vma, unsigned long pgoff);
	void (*release)(struct qpu_dev *qdev);
};

/**
 * struct qpu_v3d_ident - what a V3D says about itself, read once at probe.
 * @raw: the IDENT0, IDENT1 and IDENT2 registers as read.
 * @revision: V3D revision.
 * @num_slices: number of slices.
 * @qpus_per_slice: QPUs in each slice.
 * @tmus_per_slice: texture units in each slice.
 * @num_semaphores: hardware semaphores shared by the QPUs.
 * @vpm_size: VPM size in bytes.
 */
struct qpu_v3d_ident {
	u32 raw[3];
	u32 revision;
	u32 num_slices;
	u32 qpus_per_slice;
	u32 tmus_per_slice;
	u32 num_semaphores;
	u32 vpm_size;
};

/**
 * struct qpu_dev - one V3D, real or simulated, and its character device.
 * @ref: lifetime. The backend's probe holds one reference, dropped at remove
 *	after the misc device is gone; each open file holds one, dropped at
 *	release. misc_open() calls our open under the misc core's lock, which
 *	misc_deregister() also takes, so a file cannot be opened after remove.
 * @dev: the platform device; a reference is held until the last put.
 * @misc: the character device, /dev/qpu or /dev/qpuN.
 * @index: N in /dev/qpuN (0 for /dev/qpu).
 * @name: the node's name.
 * @backend: what stands behind the registers.
 * @ops: the backend's operations.
 * @regs: the real V3D's registers; NULL for the simulated one. Valid only
 *	while the device is bound.
 * @sim: the simulated V3D's state; NULL for the real one. Freed by
 *	@ops->release at the last reference, so BOs can outlive an unbind.
 * @ident: identification, read at probe and kept for the device's life.
 * @debugfs: the device's debugfs directory, qpu/<name>/.
 * @bo_count: BOs alive on this device, whoever holds them.
 * @bo_bytes: bytes of those BOs, checked against the device limit.
 */
struct qpu_dev {
	struct kref ref;
	struct device *dev;
	struct miscdevice misc;
	int index;
	char name[16];
	enum qpu_backend backend;
	const struct qpu_backend_ops *ops;
	void __iomem *regs;
	struct qpu_sim *sim;
	struct qpu_v3d_ident ident;
	struct dentry *debugfs;
	atomic_t bo_count;
	atomic64_t bo_bytes;
};

/**
 * struct qpu_file - state of one open file of a qpu device.
 * @qdev: the device, referenced for the life of the file.
 * @lock: serialises changes to @handles, @mmap_space and @mmap_offsets
 *	together, so a BO's handle and its mmap range appear and vanish as one.
 * @handles: handle -> struct qpu_bo; each entry holds a BO reference.
 * @mmap_space: allocator of the file's mmap offsets, in bytes.
 * @mmap_offsets: page offset range -> struct qpu_bo, without a reference:
 *	an entry lives exactly as long as the BO's handle.
 * @bo_bytes: bytes of the BOs this file has handles to, checked against
 *	the per-file limit.
 */
struct qpu_file {
	struct qpu_dev *qdev;
	struct mutex lock;		/* @handles with the mmap space */
	struct xarray handles;
	struct gen_pool *mmap_space;
	struct maple_tree mmap_offsets;
	u64 bo_bytes;
};

/**
 * struct qpu_bo - a buffer object.
 * @ref: lifetime; held by the handle, each CPU mapping and each job.
 * @qdev: the device, referenced until the BO is freed.
 * @size: bytes, a whole number of pages.
 * @vaddr: the kernel's mapping of the memory.
 * @dma_addr: the DMA address, for the real V3D's backend.
 * @bus_addr: where QPU programs see the first byte.
 * @mmap_pgoff: first page of the BO's range in its file's mmap space.
 */
struct qpu_bo {
	struct kref ref;
	struct qpu_dev *qdev;
	size_t size;
	void *vaddr;
	dma_addr_t dma_addr;
	u32 bus_addr;
	unsigned long mmap_pgoff;
};

/* qpu_drv.c */
extern const struct file_operations qpu_fops;
extern struct dentry *qpu_debugfs_root;

/* qpu_bo.c */
u64 qpu_bo_max_size(void);
int qpu_bo_file_init(struct qpu_file *qf);
void qpu_bo_file_fini(struct qpu_file *qf);
int qpu_ioctl_bo_create(struct qpu_file *qf, void *data);
int qpu_ioctl_bo_destroy(struct qpu_file *qf, void *data);
int qpu_bo_mmap(struct file *file, struct vm_area_struct *vma);
void qpu_bo_put(struct qpu_bo *bo);

/* qpu_dev.c */
struct qpu_dev *qpu_dev_alloc(struct device *dev, enum qpu_backend backend,
			      const struct qpu_backend_ops *ops);
int qpu_dev_register(struct qpu_dev *qdev);
void qpu_dev_unregister(struct qpu_dev *qdev);
void qpu_dev_get(struct qpu_dev *qdev);
void qpu_dev_put(struct qpu_dev *qdev);

/* qpu_v3d.c */
u32 qpu_v3d_read(struct qpu_dev *qdev, u32 reg);
void qpu_v3d_write(struct qpu_dev *qdev, u32 reg, u32 val);
int qpu_v3d_ident_read(struct qpu_dev *qdev);

/* qpu_sim.c */
#define QPU_SIM_MAX_DEVICES 4
u32 qpu_sim_reg_read(struct qpu_sim *sim, u32 reg);
void qpu_sim_reg_write(struct qpu_sim *sim, u32 reg, u32 val);
int qpu_sim_init(unsigned int num_devices);
void qpu_sim_exit(void);

/* qpu_hw.c */
int qpu_hw_init(void);
void qpu_hw_exit(void);

#endif /* QPU_DRV_H */
