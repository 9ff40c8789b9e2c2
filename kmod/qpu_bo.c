// SPDX-License-Identifier: GPL-2.0
/*
 * Buffer objects: handles, CPU mappings, lifetime and accounting.
 *
 * The memory itself comes from the backend (vmalloc for the simulated V3D,
 * which needs nothing contiguous; the DMA API, so CMA, for the real one,
 * and for the simulated one with sim_dma: qpu_bo_dma_*() here serve both).
 * This file owns what is common: per-file handles and mmap offsets, the
 * reference counting that keeps memory alive while a handle, a mapping or a
 * job uses it, the limits on sizes per BO, per file and per device, and
 * the end of every BO's memory when its device goes.
 *
 * Lifetimes: a BO's structure lives while a handle, a VMA or a job holds a
 * reference; its memory lives as long, or until the device's removal,
 * which comes first. The removal (qpu_dev_unregister()) calls
 * qpu_bo_unplug() once no job, ioctl or page fault can reach the memory:
 * it zaps every CPU mapping and frees the memory of every BO on the
 * device's list, so the DMA API is never used on an unbound device. CPU
 * mappings are therefore filled at fault time, not at mmap: a fault checks
 * that the device is present (qpu_dev_read_lock()), so no page appears in a
 * mapping once it was zapped, and touching it raises SIGBUS instead.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/dma-buf.h>
#include <linux/dma-mapping.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/overflow.h>
#include <linux/scatterlist.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "qpu_devmodel.h"
#include "qpu_drv.h"

/*
 * Limits, writable at run time through /sys/module/qpu/parameters and
 * through netlink (qpu_bo_set_*()). They are read once per request, so a
 * change applies to the next allocation.
 */
/* The simulated devices' default (a 33 MiB arena fits), shared by the real V3D. */
static u64 qpu_max_bo_size = QPU_DEVMODEL_MAX_BO_SIZE;
static u64 qpu_client_mem_limit = SZ_256M;
/* Without a device tree's CMA size (qpu_bo_limits_init()). */
#define QPU_DEV_MEM_LIMIT_DEFAULT	SZ_512M
/*
 * What devices with DMA memory may hold, all together, when neither the
 * CMA size nor dev_mem_limit at load says: half the 64 MiB pool of the
 * Raspberry Pi device trees, failing closed rather than at 512 MiB.
 */
#define QPU_DMA_MEM_LIMIT_UNKNOWN	SZ_32M
static u64 qpu_dev_mem_limit = QPU_DEV_MEM_LIMIT_DEFAULT;
/* Given at load (or set before qpu_bo_limits_init()): no CMA default. */
static bool qpu_max_bo_size_given;
static bool qpu_dev_mem_limit_given;
/* The CMA size was read, or dev_mem_limit given: it bounds DMA memory too. */
static bool qpu_dma_mem_known;
/* BO bytes of every device with DMA memory: one CMA area serves them all. */
static atomic64_t qpu_bo_dma_bytes = ATOMIC64_INIT(0);

static int qpu_param_set_bytes(const char *val, const struct kernel_param *kp)
{
	u64 n;

	if (kstrtou64(val, 0, &n) || n < QPU_BO_LIMIT_MIN || n > QPU_BO_LIMIT_MAX) {
		pr_err("%s=%s: expected bytes from %lu to %u\n", kp->name, val,
		       QPU_BO_LIMIT_MIN, QPU_BO_LIMIT_MAX);
		return -EINVAL;
	}
	WRITE_ONCE(*(u64 *)kp->arg, n);
	if (kp->arg == &qpu_max_bo_size)
		qpu_max_bo_size_given = true;
	else if (kp->arg == &qpu_dev_mem_limit)
		qpu_dev_mem_limit_given = true;
	return 0;
}

static const struct kernel_param_ops qpu_param_ops_bytes = {
	.set = qpu_param_set_bytes,
	.get = param_get_ullong,
};

module_param_cb(max_bo_size, &qpu_param_ops_bytes, &qpu_max_bo_size, 0644);
MODULE_PARM_DESC(max_bo_size,
		 "Largest buffer object in bytes (default 64 MiB, or dev_mem_limit's default if less)");
module_param_cb(client_mem_limit, &qpu_param_ops_bytes, &qpu_client_mem_limit, 0644);
MODULE_PARM_DESC(client_mem_limit,
		 "Bytes of buffer objects one open file may hold (default 256 MiB)");
module_param_cb(dev_mem_limit, &qpu_param_ops_bytes, &qpu_dev_mem_limit, 0644);
MODULE_PARM_DESC(dev_mem_limit,
		 "Bytes of buffer objects one device may hold, and all devices with DMA memory together (default: half the CMA area the device tree or cma= sets; else 512 MiB, and 32 MiB for DMA memory)");

/**
 * qpu_bo_limits_init() - default the device memory limit from CMA
 *
 * A real V3D's BOs come from CMA, which vc4 (scanout buffers: a 1920x1080
 * XRGB8888 frame is 7.9 MiB, two for page flips), the camera and the
 * codecs share, and which is small: 64 MiB in the Raspberry Pi device
 * trees. A client allowed to open /dev/qpu could otherwise take all of it
 * up to the fixed 512 MiB. So unless dev_mem_limit was given at load, the
 * limit is half the CMA area (qpu_cma_size()): 32 MiB of the default
 * pool, leaving the rest for the display, camera and codecs. The largest
 * BO, unless max_bo_size was given, is then no larger than that limit,
 * so that QPU_PARAM_MAX_BO_SIZE names a size that can be had. Without a
 * known CMA size (machines without a device tree: x86, the VM) both stay
 * at their defaults, 64 and 512 MiB, but devices whose memory comes from
 * the DMA API fail closed: together they hold at most
 * QPU_DMA_MEM_LIMIT_UNKNOWN (qpu_bo_dma_mem_limit()). Called at load,
 * before any device.
 */
void qpu_bo_limits_init(void)
{
	const char *from = NULL;
	u64 cma, limit;

	if (qpu_dev_mem_limit_given) {
		qpu_dma_mem_known = true;
		return;	/* and max_bo_size keeps its own default or value */
	}
	cma = qpu_cma_size(&from);
	if (!cma) {
		pr_info("CMA size unknown: devices with DMA memory hold %u KiB together\n",
			QPU_DMA_MEM_LIMIT_UNKNOWN / SZ_1K);
		return;
	}
	qpu_dma_mem_known = true;
	limit = clamp_t(u64, round_down(cma / 2, PAGE_SIZE), QPU_BO_LIMIT_MIN,
			QPU_BO_LIMIT_MAX);
	WRITE_ONCE(qpu_dev_mem_limit, limit);
	if (!qpu_max_bo_size_given && qpu_max_bo_size > limit)
		WRITE_ONCE(qpu_max_bo_size, limit);
	pr_info("dev_mem_limit %llu KiB: half the %llu KiB CMA area of %s\n",
		limit / SZ_1K, cma / SZ_1K, from);
}

/*
 * Each file's mmap offsets come from [PAGE_SIZE, 2 GiB), so a 32-bit off_t
 * can carry them; that is twice the most a file may hold. A bitmap of
 * pages hands out the ranges, first fit. It covers only the start of the
 * space, from none at open, and doubles when a BO does not fit: a file
 * pays for the offsets it uses (128 bytes up to 4 MiB of BOs, 2 KiB for
 * 64 MiB) instead of a bitmap of the whole space (64 KiB) at every open.
 * The maple tree's range allocation is unreliable in 6.1, so a maple tree
 * only finds the BO under any page of its range.
 */
#define QPU_MMAP_FIRST_PGOFF	1UL
#define QPU_MMAP_SPACE_PAGES	(SZ_2G / PAGE_SIZE - QPU_MMAP_FIRST_PGOFF)
#define QPU_MMAP_MIN_PAGES	(SZ_4M / PAGE_SIZE)

/* Over all devices, for debugfs "objects": structures and their memory. */
static atomic_t qpu_bo_structs = ATOMIC_INIT(0);
static atomic64_t qpu_bo_memory = ATOMIC64_INIT(0);

/**
 * qpu_bo_objects() - what BOs the module holds, over all devices
 * @count: BO structures alive
 * @bytes: bytes of memory they hold (a removed device's BOs hold none)
 */
void qpu_bo_objects(int *count, s64 *bytes)
{
	*count = atomic_read(&qpu_bo_structs);
	*bytes = atomic64_read(&qpu_bo_memory);
}

u64 qpu_bo_max_size(void)
{
	return READ_ONCE(qpu_max_bo_size);
}

u64 qpu_bo_client_mem_limit(void)
{
	return READ_ONCE(qpu_client_mem_limit);
}

u64 qpu_bo_dev_mem_limit(void)
{
	return READ_ONCE(qpu_dev_mem_limit);
}

/*
 * What every device with DMA memory may hold together: the device limit,
 * which is half the CMA area when its size is known, else at most
 * QPU_DMA_MEM_LIMIT_UNKNOWN.
 */
static u64 qpu_bo_dma_mem_limit(void)
{
	u64 limit = qpu_bo_dev_mem_limit();

	return qpu_dma_mem_known ? limit : min_t(u64, limit, QPU_DMA_MEM_LIMIT_UNKNOWN);
}

/* Charges @size to the devices with DMA memory, if @qdev is one; 0 or -ENOSPC. */
static int qpu_bo_dma_charge(struct qpu_dev *qdev, size_t size)
{
	if (!qdev->dma_memory)
		return 0;
	if (atomic64_add_return(size, &qpu_bo_dma_bytes) > qpu_bo_dma_mem_limit()) {
		atomic64_sub(size, &qpu_bo_dma_bytes);
		qpu_dbg(qdev->dev, "BO refused: the devices with DMA memory hold %lld bytes\n",
			(long long)atomic64_read(&qpu_bo_dma_bytes));
		return -ENOSPC;
	}
	return 0;
}

static void qpu_bo_dma_uncharge(struct qpu_dev *qdev, size_t size)
{
	if (qdev->dma_memory)
		atomic64_sub(size, &qpu_bo_dma_bytes);
}

static int qpu_bo_set_limit(u64 *limit, u64 bytes)
{
	if (bytes < QPU_BO_LIMIT_MIN || bytes > QPU_BO_LIMIT_MAX)
		return -ERANGE;
	WRITE_ONCE(*limit, bytes);
	return 0;
}

/* The setters refuse values out of [QPU_BO_LIMIT_MIN, QPU_BO_LIMIT_MAX]. */
int qpu_bo_set_max_size(u64 bytes)
{
	return qpu_bo_set_limit(&qpu_max_bo_size, bytes);
}

int qpu_bo_set_client_mem_limit(u64 bytes)
{
	return qpu_bo_set_limit(&qpu_client_mem_limit, bytes);
}

int qpu_bo_set_dev_mem_limit(u64 bytes)
{
	return qpu_bo_set_limit(&qpu_dev_mem_limit, bytes);
}

static void qpu_quota_put(struct qpu_quota *quota)
{
	if (refcount_dec_and_test(&quota->ref))
		kfree(quota);
}

/* Allocates only the quota: the mmap space grows with the first BO. */
int qpu_bo_file_init(struct qpu_file *qf)
{
	qf->quota = kmalloc(sizeof(*qf->quota), GFP_KERNEL_ACCOUNT);
	if (!qf->quota)
		return -ENOMEM;
	refcount_set(&qf->quota->ref, 1);
	atomic64_set(&qf->quota->bytes, 0);
	mutex_init(&qf->lock);
	xa_init_flags(&qf->handles, XA_FLAGS_ALLOC1);
	xa_init(&qf->handle_pgoffs);
	mt_init(&qf->mmap_offsets);
	qf->mmap_used = NULL;
	qf->mmap_pages = 0;
	return 0;
}

/* Makes the bitmap cover at least @pages pages: doubles it, or more. */
static int qpu_bo_mmap_grow_locked(struct qpu_file *qf, unsigned long pages)
{
	unsigned long n = max(2 * qf->mmap_pages, QPU_MMAP_MIN_PAGES);
	unsigned long *used;

	lockdep_assert_held(&qf->lock);

	while (n < pages)
		n *= 2;
	n = min(n, QPU_MMAP_SPACE_PAGES);
	if (n < pages || n <= qf->mmap_pages)
		return -ENOSPC;

	used = kvcalloc(BITS_TO_LONGS(n), sizeof(*used), GFP_KERNEL_ACCOUNT);
	if (!used)
		return -ENOMEM;
	if (qf->mmap_used)
		bitmap_copy(used, qf->mmap_used, qf->mmap_pages);
	kvfree(qf->mmap_used);
	qf->mmap_used = used;
	qf->mmap_pages = n;
	return 0;
}

/* Finds @pages free pages of mmap space; returns 0 and the first in @pgoff. */
static int qpu_bo_mmap_alloc_locked(struct qpu_file *qf, unsigned long pages,
				    unsigned long *pgoff)
{
	unsigned long start;
	int ret;

	lockdep_assert_held(&qf->lock);

	for (;;) {
		start = qf->mmap_used ?
			bitmap_find_next_zero_area(qf->mmap_used,
						   qf->mmap_pages, 0, pages, 0) :
			qf->mmap_pages;
		if (start + pages <= qf->mmap_pages)
			break;
		/* Past the end the space is free: that much more is enough. */
		ret = qpu_bo_mmap_grow_locked(qf, qf->mmap_pages + pages);
		if (ret)
			return ret;
	}
	bitmap_set(qf->mmap_used, start, pages);
	*pgoff = QPU_MMAP_FIRST_PGOFF + start;
	return 0;
}

static void qpu_bo_mmap_free_locked(struct qpu_file *qf, unsigned long pgoff,
				    unsigned long pages)
{
	lockdep_assert_held(&qf->lock);

	bitmap_clear(qf->mmap_used, pgoff - QPU_MMAP_FIRST_PGOFF, pages);
}

/* Gives the memory back; once on the device's list, under its bos_lock. */
static void qpu_bo_free_memory(struct qpu_dev *qdev, struct qpu_bo *bo)
{
	if (bo->imported) {
		if (bo->import) {
			qpu_dmabuf_unimport(qdev, bo);
			atomic64_sub(bo->size, &qpu_bo_memory);
		}
		return;
	}
	if (!bo->vaddr)
		return;
	qdev->ops->bo_free(qdev, bo);
	bo->vaddr = NULL;
	atomic64_sub(bo->size, &qpu_bo_memory);
}

static void qpu_bo_release(struct kref *ref)
{
	struct qpu_bo *bo = container_of(ref, struct qpu_bo, ref);
	struct qpu_dev *qdev = bo->qdev;

	if (bo->last_job)
		qpu_job_put(bo->last_job);
	mutex_lock(&qdev->bos_lock);
	list_del(&bo->node);
	qpu_bo_free_memory(qdev, bo);	/* unless the removal freed it */
	mutex_unlock(&qdev->bos_lock);
	if (bo->quota) {
		atomic64_sub(bo->size, &bo->quota->bytes);
		qpu_quota_put(bo->quota);
	}
	if (!bo->imported) {
		atomic64_sub(bo->size, &qdev->bo_bytes);
		qpu_bo_dma_uncharge(qdev, bo->size);
	}
	atomic_dec(&qdev->bo_count);
	kfree(bo);
	atomic_dec(&qpu_bo_structs);
	qpu_dev_put(qdev);
}

/**
 * qpu_bo_leak_memory() - never free @bo's memory
 * @bo: a BO the QPUs of a V3D that did not reset may still write
 *
 * Its memory stays allocated, and counted, for the module's life; the
 * structure goes with its last reference as usual, without the memory.
 * An imported BO keeps its dma-buf attached and mapped, for the same life.
 */
void qpu_bo_leak_memory(struct qpu_bo *bo)
{
	struct qpu_dev *qdev = bo->qdev;

	mutex_lock(&qdev->bos_lock);
	bo->vaddr = NULL;
	bo->import = NULL;
	mutex_unlock(&qdev->bos_lock);
}

/**
 * qpu_bo_unplug() - take every BO's memory from a device being removed
 * @qdev: the device, gone (&qpu_dev.gone), with no job left and no ioctl
 *	or page fault under way, and still bound
 *
 * Zaps every CPU mapping of the device's files first, so no process sees
 * the pages once they are freed; new faults find the device gone. The BO
 * structures stay for their holders, without memory. Imported BOs let go
 * of their dma-bufs. An exported BO's memory stays, since other drivers
 * may reach it through their attachments: vmalloc memory until the BO's
 * release, DMA memory for good, as the DMA API cannot free it once the
 * device is unbound (qpu_bo_leak_memory()).
 */
void qpu_bo_unplug(struct qpu_dev *qdev)
{
	struct qpu_file *qf;
	struct qpu_bo *bo;

	mutex_lock(&qdev->files_lock);
	list_for_each_entry(qf, &qdev->files, node)
		unmap_mapping_range(qf->mapping, 0, 0, 1);
	mutex_unlock(&qdev->files_lock);

	mutex_lock(&qdev->bos_lock);
	list_for_each_entry(bo, &qdev->bos, node) {
		if (!atomic_read(&bo->exports))
			qpu_bo_free_memory(qdev, bo);
		else if (qdev->dma_memory)
			bo->vaddr = NULL;	/* kept, and counted, for good */
	}
	mutex_unlock(&qdev->bos_lock);
}

/*
 * Memory from the DMA API: CMA on a Pi, at the bus address the device
 * tree's dma-ranges give, mapped write-combined for kernel and CPU alike.
 * It is contiguous (the V3D has no MMU, and these SoCs no IOMMU), so its
 * first page frame is all the fault handler needs.
 */
int qpu_bo_dma_alloc(struct qpu_dev *qdev, struct qpu_bo *bo)
{
	struct sg_table sgt;
	int ret;

	bo->vaddr = dma_alloc_wc(qdev->dev, bo->size, &bo->dma_addr,
				 GFP_KERNEL | __GFP_NOWARN);
	if (!bo->vaddr)
		return -ENOMEM;
	ret = dma_get_sgtable_attrs(qdev->dev, &sgt, bo->vaddr, bo->dma_addr,
				    bo->size, DMA_ATTR_WRITE_COMBINE);
	if (ret)
		goto err_free;
	if (sgt.orig_nents != 1)
		ret = -EINVAL;
	else
		bo->pfn = page_to_pfn(sg_page(sgt.sgl));
	sg_free_table(&sgt);
	if (ret)
		goto err_free;
	return 0;

err_free:
	dma_free_wc(qdev->dev, bo->size, bo->vaddr, bo->dma_addr);
	bo->vaddr = NULL;
	return ret;
}

void qpu_bo_dma_free(struct qpu_dev *qdev, struct qpu_bo *bo)
{
	dma_free_wc(qdev->dev, bo->size, bo->vaddr, bo->dma_addr);
}

void qpu_bo_dma_mmap(struct qpu_dev *qdev, struct qpu_bo *bo,
		     struct vm_area_struct *vma)
{
	vma->vm_flags |= VM_PFNMAP | VM_DONTEXPAND | VM_DONTDUMP;
	vma->vm_page_prot = pgprot_writecombine(vm_get_page_prot(vma->vm_flags));
}

vm_fault_t qpu_bo_dma_fault(struct qpu_dev *qdev, struct qpu_bo *bo,
			    struct vm_fault *vmf, unsigned long pgoff)
{
	return vmf_insert_pfn(vmf->vma, vmf->address, bo->pfn + pgoff);
}

/**
 * qpu_bo_page() - the page at @pgoff of @bo's memory, which it still has
 * @bo: a BO made by BO_CREATE (not imported)
 * @pgoff: a page within the BO
 */
struct page *qpu_bo_page(struct qpu_bo *bo, unsigned long pgoff)
{
	if (bo->qdev->dma_memory)
		return pfn_to_page(bo->pfn + pgoff);
	return vmalloc_to_page(bo->vaddr + (pgoff << PAGE_SHIFT));
}

void qpu_bo_get(struct qpu_bo *bo)
{
	kref_get(&bo->ref);
}

void qpu_bo_put(struct qpu_bo *bo)
{
	kref_put(&bo->ref, qpu_bo_release);
}

/**
 * qpu_bo_new() - a BO structure with its memory, on the device's list
 * @qdev: the device, present (inside qpu_dev_read_lock())
 * @size: bytes, a whole number of pages
 * @import: the dma-buf to import (a reference the BO takes over on
 *	success), or NULL for memory from the backend
 *
 * Charges nothing: qpu_bo_create() did, and imports are not charged.
 * Returns the BO with one reference for the caller, or an ERR_PTR() with
 * nothing left to undo.
 */
struct qpu_bo *qpu_bo_new(struct qpu_dev *qdev, size_t size,
			  struct dma_buf *import)
{
	struct qpu_bo *bo;
	int ret;

	bo = kzalloc(sizeof(*bo), GFP_KERNEL_ACCOUNT);
	if (!bo)
		return ERR_PTR(-ENOMEM);
	kref_init(&bo->ref);
	bo->size = size;
	bo->imported = !!import;
	bo->import = import;

	ret = import ? qpu_dmabuf_attach(qdev, bo) : qdev->ops->bo_alloc(qdev, bo);
	if (ret) {
		kfree(bo);
		return ERR_PTR(ret);
	}

	qpu_dev_get(qdev);
	bo->qdev = qdev;
	atomic_inc(&qdev->bo_count);
	atomic_inc(&qpu_bo_structs);
	atomic64_add(size, &qpu_bo_memory);
	/* Inside qpu_dev_read_lock(): the removal finds it on the list. */
	mutex_lock(&qdev->bos_lock);
	list_add_tail(&bo->node, &qdev->bos);
	mutex_unlock(&qdev->bos_lock);
	return bo;
}

/* Takes a device-wide charge and allocates; the caller owns the result. */
static struct qpu_bo *qpu_bo_create(struct qpu_dev *qdev, size_t size)
{
	struct qpu_bo *bo;
	int ret;

	if (atomic64_add_return(size, &qdev->bo_bytes) >
	    qpu_bo_dev_mem_limit()) {
		ret = -ENOSPC;
		goto err_uncharge;
	}
	ret = qpu_bo_dma_charge(qdev, size);
	if (ret)
		goto err_uncharge;

	bo = qpu_bo_new(qdev, size, NULL);
	if (!IS_ERR(bo))
		return bo;
	ret = PTR_ERR(bo);
	qpu_bo_dma_uncharge(qdev, size);
err_uncharge:
	atomic64_sub(size, &qdev->bo_bytes);
	return ERR_PTR(ret);
}

/**
 * qpu_bo_publish_locked() - give @bo a handle and an mmap range in @qf
 * @qf: the file, its lock held
 * @bo: the BO; on success the handle owns the caller's reference
 * @handle: gets the new handle
 * @mmap_offset: gets the range's offset for mmap()
 */
int qpu_bo_publish_locked(struct qpu_file *qf, struct qpu_bo *bo, u32 *handle,
			  u64 *mmap_offset)
{
	unsigned long pages = bo->size >> PAGE_SHIFT;
	unsigned long pgoff;
	int ret;

	lockdep_assert_held(&qf->lock);

	ret = qpu_bo_mmap_alloc_locked(qf, pages, &pgoff);
	if (ret) {
		if (ret == -ENOSPC)
			qpu_dbg(qf->qdev->dev, "BO refused: no %lu free pages of the file's mmap space\n",
				pages);
		return ret;
	}
	ret = mtree_insert_range(&qf->mmap_offsets, pgoff, pgoff + pages - 1,
				 bo, GFP_KERNEL_ACCOUNT);
	if (ret)
		goto err_free_offset;

	ret = xa_alloc(&qf->handles, handle, bo, xa_limit_32b, GFP_KERNEL_ACCOUNT);
	if (ret) {
		if (ret == -EBUSY) {
			qpu_dbg(qf->qdev->dev, "BO refused: no free handle on this file\n");
			ret = -ENOSPC;
		}
		goto err_erase_offset;
	}
	ret = xa_err(xa_store(&qf->handle_pgoffs, *handle, xa_mk_value(pgoff),
			      GFP_KERNEL_ACCOUNT));
	if (ret)
		goto err_erase_handle;
	*mmap_offset = (u64)pgoff << PAGE_SHIFT;
	return 0;

err_erase_handle:
	xa_erase(&qf->handles, *handle);
err_erase_offset:
	mtree_erase(&qf->mmap_offsets, pgoff);
err_free_offset:
	qpu_bo_mmap_free_locked(qf, pgoff, pages);
	return ret;
}

/* Drops @bo's handle and mmap range; the caller puts the reference. */
static void qpu_bo_unpublish_locked(struct qpu_file *qf, u32 handle,
				    struct qpu_bo *bo)
{
	unsigned long pgoff;

	lockdep_assert_held(&qf->lock);

	pgoff = xa_to_value(xa_erase(&qf->handle_pgoffs, handle));
	xa_erase(&qf->handles, handle);
	mtree_erase(&qf->mmap_offsets, pgoff);
	qpu_bo_mmap_free_locked(qf, pgoff, bo->size >> PAGE_SHIFT);
}

int qpu_ioctl_bo_create(struct qpu_file *qf, void *data, size_t usize,
			struct qpu_ioctl_fd *install,
			const struct qpu_ioctl_in *in)
{
	struct qpu_bo_create *args = data;
	struct qpu_bo *bo;
	u32 handle;
	u64 size;
	int ret;

	if (args->flags || args->pad) {
		qpu_dbg(qf->qdev->dev, "bo_create refused: nonzero flags %#x or pad\n",
			args->flags);
		return -EINVAL;
	}
	if (!args->size || args->size > qpu_bo_max_size()) {
		qpu_dbg(qf->qdev->dev, "bo_create refused: size %llu, not 1 to %llu\n",
			args->size, qpu_bo_max_size());
		return -EINVAL;
	}
	size = PAGE_ALIGN(args->size);

	mutex_lock(&qf->lock);
	/* Only BO_CREATE adds, under qf->lock; a BO's release takes away. */
	if (atomic64_read(&qf->quota->bytes) + size > qpu_bo_client_mem_limit()) {
		qpu_dbg(qf->qdev->dev, "bo_create refused: %llu more bytes pass the file's limit of %llu\n",
			size, qpu_bo_client_mem_limit());
		ret = -EDQUOT;
		goto out_unlock;
	}

	bo = qpu_bo_create(qf->qdev, size);
	if (IS_ERR(bo)) {
		ret = PTR_ERR(bo);
		if (ret == -ENOSPC)
			qpu_dbg(qf->qdev->dev, "bo_create refused: %llu more bytes pass the device's limit or bus space\n",
				size);
		goto out_unlock;
	}

	/* The handle's reference is the one qpu_bo_create() returned. */
	ret = qpu_bo_publish_locked(qf, bo, &handle, &args->mmap_offset);
	if (ret) {
		qpu_bo_put(bo);
		goto out_unlock;
	}
	refcount_inc(&qf->quota->ref);
	bo->quota = qf->quota;
	atomic64_add(size, &qf->quota->bytes);

	args->size = size;
	args->handle = handle;
	/* A real V3D's bus addresses are physical: only for who may use them. */
	args->bus_addr = qpu_job_submit_allowed(qf->qdev) ? bo->bus_addr : 0;
	ret = 0;
out_unlock:
	mutex_unlock(&qf->lock);
	return ret;
}

int qpu_ioctl_bo_destroy(struct qpu_file *qf, void *data, size_t usize,
			 struct qpu_ioctl_fd *install,
			 const struct qpu_ioctl_in *in)
{
	struct qpu_bo_destroy *args = data;
	struct qpu_bo *bo;

	if (args->pad) {
		qpu_dbg(qf->qdev->dev, "bo_destroy refused: nonzero pad\n");
		return -EINVAL;
	}

	mutex_lock(&qf->lock);
	bo = xa_load(&qf->handles, args->handle);
	if (bo)
		qpu_bo_unpublish_locked(qf, args->handle, bo);
	mutex_unlock(&qf->lock);

	if (!bo) {
		qpu_dbg(qf->qdev->dev, "bo_destroy refused: no handle %u\n",
			args->handle);
		return -ENOENT;
	}
	qpu_bo_put(bo);
	return 0;
}

/* Called when the file goes: every handle is dropped. */
void qpu_bo_file_fini(struct qpu_file *qf)
{
	struct qpu_bo *bo;
	unsigned long handle;

	mutex_lock(&qf->lock);
	xa_for_each(&qf->handles, handle, bo) {
		qpu_bo_unpublish_locked(qf, handle, bo);
		qpu_bo_put(bo);
	}
	mutex_unlock(&qf->lock);

	/* BOs still mapped or used by a job keep the quota until freed. */
	qpu_quota_put(qf->quota);
	xa_destroy(&qf->handles);
	xa_destroy(&qf->handle_pgoffs);
	mtree_destroy(&qf->mmap_offsets);
	kvfree(qf->mmap_used);
	mutex_destroy(&qf->lock);
}

/* Each VMA holds a BO reference; fork and splits open new ones. */
static void qpu_bo_vm_open(struct vm_area_struct *vma)
{
	qpu_bo_get(vma->vm_private_data);
}

static void qpu_bo_vm_close(struct vm_area_struct *vma)
{
	qpu_bo_put(vma->vm_private_data);
}

/*
 * Pages appear as they are touched, while the device is present; the VMA's
 * reference keeps the memory until then. Once the device is gone its
 * mappings were zapped and stay empty: SIGBUS. The VMA's page offset
 * counts from the BO's first page (qpu_bo_mmap_setup()).
 */
static vm_fault_t qpu_bo_vm_fault(struct vm_fault *vmf)
{
	struct qpu_bo *bo = vmf->vma->vm_private_data;
	unsigned long pgoff = vmf->pgoff;
	struct qpu_dev *qdev = bo->qdev;
	vm_fault_t ret;
	int idx;

	idx = qpu_dev_read_lock(qdev);
	/* mmap refused ranges past the BO: that check is only for safety. */
	if (qpu_dev_present(qdev) && bo->vaddr && pgoff < bo->size >> PAGE_SHIFT)
		ret = qdev->ops->bo_fault(qdev, bo, vmf, pgoff);
	else
		ret = VM_FAULT_SIGBUS;
	qpu_dev_read_unlock(qdev, idx);
	return ret;
}

static const struct vm_operations_struct qpu_bo_vm_ops = {
	.open = qpu_bo_vm_open,
	.close = qpu_bo_vm_close,
	.fault = qpu_bo_vm_fault,
};

/**
 * qpu_bo_mmap_setup() - make @vma a mapping of @bo, filled at fault time
 * @bo: a BO with memory of its own (not imported); the caller's reference
 *	passes to the VMA
 * @vma: its page offset counts from the BO's first page, and is checked
 *	against the BO's size
 *
 * For the device's files and for the dma-bufs exported from the BO alike.
 */
void qpu_bo_mmap_setup(struct qpu_bo *bo, struct vm_area_struct *vma)
{
	/* Both backends set VM_DONTEXPAND and VM_DONTDUMP. */
	bo->qdev->ops->bo_mmap(bo->qdev, bo, vma);
	vma->vm_private_data = bo;
	vma->vm_ops = &qpu_bo_vm_ops;
}

/* An imported BO is mapped by its exporter, through its dma-buf. */
static int qpu_bo_mmap_import(struct qpu_bo *bo, struct vm_area_struct *vma)
{
	struct qpu_dev *qdev = bo->qdev;
	struct dma_buf *dmabuf;
	int ret;

	mutex_lock(&qdev->bos_lock);
	dmabuf = bo->import;
	if (dmabuf)
		get_dma_buf(dmabuf);
	mutex_unlock(&qdev->bos_lock);
	if (!dmabuf)
		return -ENODEV;
	ret = dma_buf_mmap(dmabuf, vma, vma->vm_pgoff);
	dma_buf_put(dmabuf);
	return ret;
}

int qpu_bo_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct qpu_file *qf = file->private_data;
	unsigned long npages = vma_pages(vma);
	unsigned long pgoff = 0;
	struct qpu_bo *bo;
	int ret;

	MA_STATE(mas, &qf->mmap_offsets, vma->vm_pgoff, vma->vm_pgoff);

	/* A private copy would stop being what the QPUs see. */
	if (!(vma->vm_flags & VM_SHARED)) {
		qpu_dbg(qf->qdev->dev, "mmap refused: not MAP_SHARED\n");
		return -EINVAL;
	}
	/* A clean answer; the fault handler is what keeps memory safe. */
	if (!qpu_dev_present(qf->qdev))
		return -ENODEV;

	mutex_lock(&qf->lock);
	rcu_read_lock();
	bo = mas_walk(&mas);
	if (bo) {
		qpu_bo_get(bo);
		pgoff = vma->vm_pgoff - mas.index;
	}
	rcu_read_unlock();
	mutex_unlock(&qf->lock);
	if (!bo) {
		qpu_dbg(qf->qdev->dev, "mmap refused: no BO at page offset %#lx\n",
			vma->vm_pgoff);
		return -EINVAL;
	}

	if (npages > (bo->size >> PAGE_SHIFT) - pgoff) {
		qpu_dbg(qf->qdev->dev, "mmap refused: %lu pages from page %lu of a BO of %zu\n",
			npages, pgoff, bo->size >> PAGE_SHIFT);
		ret = -EINVAL;
		goto err_put;
	}

	/* From here on the offset counts from the BO's first page. */
	vma->vm_pgoff = pgoff;
	if (bo->imported) {
		ret = qpu_bo_mmap_import(bo, vma);
		goto err_put;	/* the exporter's mapping needs no BO */
	}
	qpu_bo_mmap_setup(bo, vma);
	return 0;	/* the reference now belongs to the VMA */

err_put:
	qpu_bo_put(bo);
	return ret;
}
