// SPDX-License-Identifier: GPL-2.0
/*
 * dma-buf sharing of BOs: QPU_IOCTL_BO_EXPORT and QPU_IOCTL_BO_IMPORT.
 *
 * Export: a dma-buf whose private data is the BO, holding a BO reference
 * (and counted in &qpu_bo.exports) from dma_buf_export() to its release,
 * so the BO lives while any fd, mapping or importer of the dma-buf does.
 * Importers get the BO's pages as a table mapped for their device; CPU
 * mappings of the dma-buf are the device's own mappings of the BO
 * (qpu_bo_mmap_setup(): filled at fault time, SIGBUS once the device went).
 *
 * Import: a BO whose memory is another driver's dma-buf, attached to the
 * V3D's device and mapped (dma_buf_map_attachment(): the exporter pins the
 * pages for a non-dynamic importer such as this one) when the BO is made,
 * and let go when the BO's memory goes (qpu_bo_free_memory(): its last
 * reference, or the device's removal, which must not use the DMA API after
 * unbind). Jobs hold the BO, so the pages stay put while any job that may
 * touch them is queued or runs, whatever happens to the dma-buf fd. The
 * backend then makes the pages reachable (@bo_import): a real V3D takes
 * them only as one run of bus addresses (it has no MMU), the simulated one
 * maps them for the CPU it runs on.
 *
 * Locks: export and import run under the file's lock inside the device's
 * SRCU section, as BO_CREATE does; the dma-buf's own locks are taken by
 * the dma-buf core inside that (attach, map), never the other way round,
 * as the exporter callbacks below take no qpu lock. An import lets go of
 * its dma-buf under &qpu_dev.bos_lock (qpu_dmabuf_unimport()): the
 * dma-buf's last put there only queues its release (fput()), so another
 * qpu device's export is never released under this one's lock.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dma-buf.h>
#include <linux/dma-mapping.h>
#include <linux/err.h>
#include <linux/fcntl.h>
#include <linux/file.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>

#include "qpu_compat.h"
#include "qpu_drv.h"

QPU_IMPORT_NS_DMA_BUF();

/* --- export ---------------------------------------------------------------- */

/*
 * The BO's pages as a table mapped for the importer's device. Contiguous
 * DMA memory becomes one entry (sg_alloc_table_from_pages() merges).
 */
static struct sg_table *qpu_dmabuf_map(struct dma_buf_attachment *attach,
				       enum dma_data_direction dir)
{
	struct qpu_bo *bo = attach->dmabuf->priv;
	unsigned long i, n = bo->size >> PAGE_SHIFT;
	struct page **pages;
	struct sg_table *sgt;
	int ret;

	pages = kvmalloc_array(n, sizeof(*pages), GFP_KERNEL);
	sgt = kzalloc(sizeof(*sgt), GFP_KERNEL);
	if (!pages || !sgt) {
		ret = -ENOMEM;
		goto err_free;
	}

	/*
	 * No lock: while exported the memory stays, even past the device's
	 * removal (qpu_bo_unplug()); only a V3D that did not reset takes
	 * the pointer away (qpu_bo_leak_memory()), never the memory.
	 */
	if (!READ_ONCE(bo->vaddr)) {
		ret = -ENODEV;
		goto err_free;
	}
	for (i = 0; i < n; i++)
		pages[i] = qpu_bo_page(bo, i);

	ret = sg_alloc_table_from_pages(sgt, pages, n, 0, bo->size, GFP_KERNEL);
	if (ret)
		goto err_free;
	ret = dma_map_sgtable(attach->dev, sgt, dir, 0);
	if (ret)
		goto err_free_table;
	kvfree(pages);
	return sgt;

err_free_table:
	sg_free_table(sgt);
err_free:
	kfree(sgt);
	kvfree(pages);
	return ERR_PTR(ret);
}

static void qpu_dmabuf_unmap(struct dma_buf_attachment *attach,
			     struct sg_table *sgt, enum dma_data_direction dir)
{
	dma_unmap_sgtable(attach->dev, sgt, dir, 0);
	sg_free_table(sgt);
	kfree(sgt);
}

static void qpu_dmabuf_release(struct dma_buf *dmabuf)
{
	struct qpu_bo *bo = dmabuf->priv;

	atomic_dec(&bo->exports);
	qpu_bo_put(bo);
}

static int qpu_dmabuf_mmap(struct dma_buf *dmabuf, struct vm_area_struct *vma)
{
	struct qpu_bo *bo = dmabuf->priv;

	/*
	 * The dma-buf core checked the range against the BO's size. A
	 * read-only dma-buf's shared mappings lose VM_SHARED, not VM_MAYSHARE.
	 */
	if (!(vma->vm_flags & VM_MAYSHARE))
		return -EINVAL;
	qpu_bo_get(bo);
	qpu_bo_mmap_setup(bo, vma);
	return 0;
}

static int qpu_dmabuf_vmap(struct dma_buf *dmabuf, struct iosys_map *map)
{
	struct qpu_bo *bo = dmabuf->priv;
	void *vaddr = READ_ONCE(bo->vaddr);	/* see qpu_dmabuf_map() */

	if (!vaddr)
		return -ENODEV;
	iosys_map_set_vaddr(map, vaddr);
	return 0;
}

static const struct dma_buf_ops qpu_dmabuf_ops = {
	.map_dma_buf = qpu_dmabuf_map,
	.unmap_dma_buf = qpu_dmabuf_unmap,
	.release = qpu_dmabuf_release,
	.mmap = qpu_dmabuf_mmap,
	.vmap = qpu_dmabuf_vmap,
};

/* The BO behind @dmabuf if this device exported it, else NULL. */
static struct qpu_bo *qpu_dmabuf_own_bo(struct qpu_dev *qdev,
					struct dma_buf *dmabuf)
{
	struct qpu_bo *bo;

	if (dmabuf->ops != &qpu_dmabuf_ops)
		return NULL;
	bo = dmabuf->priv;
	return bo->qdev == qdev ? bo : NULL;
}

#define QPU_BO_EXPORT_FLAGS (QPU_BO_EXPORT_CLOEXEC | QPU_BO_EXPORT_RDWR)

int qpu_ioctl_bo_export(struct qpu_file *qf, void *data, size_t usize,
			struct qpu_ioctl_fd *install,
			const struct qpu_ioctl_in *in)
{
	DEFINE_DMA_BUF_EXPORT_INFO(info);
	struct qpu_bo_export *args = data;
	struct qpu_dev *qdev = qf->qdev;
	struct dma_buf *dmabuf;
	struct qpu_bo *bo;
	int fd, ret;

	if ((args->flags & ~QPU_BO_EXPORT_FLAGS) || args->pad) {
		qpu_dbg(qdev->dev, "bo_export refused: unknown flags %#x or nonzero pad\n",
			args->flags);
		return -EINVAL;
	}

	mutex_lock(&qf->lock);
	bo = xa_load(&qf->handles, args->handle);
	if (bo)
		qpu_bo_get(bo);
	mutex_unlock(&qf->lock);
	if (!bo) {
		qpu_dbg(qdev->dev, "bo_export refused: no handle %u\n", args->handle);
		return -ENOENT;
	}

	fd = get_unused_fd_flags(args->flags & QPU_BO_EXPORT_CLOEXEC ? O_CLOEXEC : 0);
	if (fd < 0) {
		ret = fd;
		goto err_put;
	}

	if (bo->imported) {
		/* As DRM PRIME does: the dma-buf it came from. */
		mutex_lock(&qdev->bos_lock);
		dmabuf = bo->import;
		if (dmabuf)
			get_dma_buf(dmabuf);
		mutex_unlock(&qdev->bos_lock);
		if (!dmabuf) {
			ret = -ENODEV;
			goto err_put_fd;
		}
		qpu_bo_put(bo);	/* the dma-buf needs no BO */
	} else {
		info.ops = &qpu_dmabuf_ops;
		info.size = bo->size;
		info.flags = args->flags & QPU_BO_EXPORT_RDWR ? O_RDWR : O_RDONLY;
		info.priv = bo;
		atomic_inc(&bo->exports);
		dmabuf = dma_buf_export(&info);
		if (IS_ERR(dmabuf)) {
			atomic_dec(&bo->exports);
			ret = PTR_ERR(dmabuf);
			goto err_put_fd;	/* and the BO */
		}
		/* The dma-buf holds the BO reference taken above. */
	}

	install->fd = fd;
	install->file = dmabuf->file;
	args->fd = fd;
	return 0;

err_put_fd:
	put_unused_fd(fd);
err_put:
	qpu_bo_put(bo);
	return ret;
}

/* --- import ---------------------------------------------------------------- */

/**
 * qpu_dmabuf_contiguous() - whether an imported BO is one run of addresses
 * @qdev: its device
 * @bo: the BO, its &qpu_bo.sgt mapped for @qdev
 * @start: gets the first DMA address
 *
 * What a real V3D, without an MMU, needs; says why not in a debug line.
 */
bool qpu_dmabuf_contiguous(struct qpu_dev *qdev, struct qpu_bo *bo,
			   dma_addr_t *start)
{
	struct scatterlist *sg;
	dma_addr_t next = 0;
	unsigned int i;
	size_t len = 0;

	for_each_sgtable_dma_sg(bo->sgt, sg, i) {
		if (i == 0) {
			*start = sg_dma_address(sg);
			next = *start;
		}
		if (sg_dma_address(sg) != next) {
			qpu_dbg(qdev->dev, "bo_import refused: dma-buf of %zu bytes is not contiguous (a break after %zu bytes), which a V3D without an MMU cannot reach\n",
				bo->size, len);
			return false;
		}
		next += sg_dma_len(sg);
		len += sg_dma_len(sg);
	}
	if (len < bo->size) {
		qpu_dbg(qdev->dev, "bo_import refused: dma-buf maps %zu of its %zu bytes\n",
			len, bo->size);
		return false;
	}
	return true;
}

/**
 * qpu_dmabuf_attach() - attach and map an import's dma-buf for the device
 * @qdev: the device
 * @bo: the new BO, &qpu_bo.import set (the reference it is to hold)
 *
 * Called by qpu_bo_new() as the BO's allocation; undoes all on failure.
 */
int qpu_dmabuf_attach(struct qpu_dev *qdev, struct qpu_bo *bo)
{
	struct dma_buf *dmabuf = bo->import;
	int ret;

	bo->attach = dma_buf_attach(dmabuf, qdev->dev);
	if (IS_ERR(bo->attach))
		return PTR_ERR(bo->attach);
	bo->sgt = qpu_dma_buf_map_attachment(bo->attach, DMA_BIDIRECTIONAL);
	if (IS_ERR(bo->sgt)) {
		ret = PTR_ERR(bo->sgt);
		goto err_detach;
	}
	ret = qdev->ops->bo_import(qdev, bo);
	if (ret)
		goto err_unmap;
	return 0;

err_unmap:
	qpu_dma_buf_unmap_attachment(bo->attach, bo->sgt, DMA_BIDIRECTIONAL);
err_detach:
	dma_buf_detach(dmabuf, bo->attach);
	return ret;
}

/**
 * qpu_dmabuf_unimport() - let an imported BO's dma-buf go
 * @qdev: the BO's device, still bound
 * @bo: the BO, its &qpu_bo.import set; under &qpu_dev.bos_lock
 */
void qpu_dmabuf_unimport(struct qpu_dev *qdev, struct qpu_bo *bo)
{
	struct dma_buf *dmabuf = bo->import;

	lockdep_assert_held(&qdev->bos_lock);

	qdev->ops->bo_unimport(qdev, bo);
	qpu_dma_buf_unmap_attachment(bo->attach, bo->sgt, DMA_BIDIRECTIONAL);
	dma_buf_detach(dmabuf, bo->attach);
	bo->import = NULL;
	bo->vaddr = NULL;
	dma_buf_put(dmabuf);
}

int qpu_ioctl_bo_import(struct qpu_file *qf, void *data, size_t usize,
			struct qpu_ioctl_fd *install,
			const struct qpu_ioctl_in *in)
{
	struct qpu_bo_import *args = data;
	struct qpu_dev *qdev = qf->qdev;
	struct dma_buf *dmabuf;
	struct qpu_bo *bo;
	u32 handle;
	int ret;

	if (args->flags) {
		qpu_dbg(qdev->dev, "bo_import refused: unknown flags %#x\n",
			args->flags);
		return -EINVAL;
	}
	dmabuf = dma_buf_get(args->fd);
	if (IS_ERR(dmabuf)) {
		ret = PTR_ERR(dmabuf);
		qpu_dbg(qdev->dev, "bo_import refused: fd %d is %s\n", args->fd,
			ret == -EBADF ? "not open" : "not a dma-buf");
		return ret;
	}
	if (!dmabuf->size || !PAGE_ALIGNED(dmabuf->size) ||
	    dmabuf->size > QPU_BO_LIMIT_MAX) {
		qpu_dbg(qdev->dev, "bo_import refused: dma-buf of %zu bytes, not whole pages up to %u\n",
			dmabuf->size, QPU_BO_LIMIT_MAX);
		ret = -EINVAL;
		goto out_put;
	}

	mutex_lock(&qf->lock);
	bo = qpu_dmabuf_own_bo(qdev, dmabuf);
	if (bo) {
		/* Our own export: the BO itself, under a handle of its own. */
		qpu_bo_get(bo);
	} else {
		get_dma_buf(dmabuf);
		bo = qpu_bo_new(qdev, dmabuf->size, dmabuf);
		if (IS_ERR(bo)) {
			dma_buf_put(dmabuf);
			ret = PTR_ERR(bo);
			goto out_unlock;
		}
	}
	ret = qpu_bo_publish_locked(qf, bo, &handle, &args->mmap_offset);
	if (ret) {
		qpu_bo_put(bo);
		goto out_unlock;
	}

	args->handle = handle;
	args->size = bo->size;
	args->bus_addr = qpu_job_submit_allowed(qdev) ? bo->bus_addr : 0;
	ret = 0;
out_unlock:
	mutex_unlock(&qf->lock);
out_put:
	dma_buf_put(dmabuf);
	return ret;
}
