// SPDX-License-Identifier: GPL-2.0
/*
 * v3d_sim's buffer objects: shmem GEM objects placed in the device's one
 * GPU address space at 128 KiB granularity with page 0 never used, as
 * upstream's v3d places them, and mapped into the kernel for the
 * emulator; PRIME imports of other drivers' dma-bufs, placed alike; the
 * CREATE_BO, MMAP_BO, GET_BO_OFFSET and WAIT_BO ioctls.
 */
#include <linux/dma-buf.h>
#include <linux/iosys-map.h>
#include <linux/jiffies.h>
#include <linux/math64.h>
#include <linux/sched/signal.h>

#include <drm/drm_drv.h>
#include <drm/drm_prime.h>
#include <drm/drm_print.h>

#include "v3d_sim.h"

/* The last reference is gone: no job holds the BO (jobs hold references). */
static void v3d_sim_free_object(struct drm_gem_object *obj)
{
	struct v3d_sim_dev *v3d = to_v3d_sim(obj->dev);
	struct v3d_sim_bo *bo = to_v3d_sim_bo(obj);

	if (bo->vaddr) {
		struct iosys_map map = IOSYS_MAP_INIT_VADDR(bo->vaddr);

		drm_gem_shmem_vunmap(&bo->base, &map);
	}
	if (drm_mm_node_allocated(&bo->node)) {
		spin_lock(&v3d->mm_lock);
		drm_mm_remove_node(&bo->node);
		spin_unlock(&v3d->mm_lock);
	}
	drm_gem_shmem_free(&bo->base);
}

static const struct drm_gem_object_funcs v3d_sim_gem_funcs = {
	.free = v3d_sim_free_object,
	.print_info = drm_gem_shmem_object_print_info,
	.pin = drm_gem_shmem_object_pin,
	.unpin = drm_gem_shmem_object_unpin,
	.get_sg_table = drm_gem_shmem_object_get_sg_table,
	.vmap = drm_gem_shmem_object_vmap,
	.vunmap = drm_gem_shmem_object_vunmap,
	.mmap = drm_gem_shmem_object_mmap,
	.vm_ops = &drm_gem_shmem_vm_ops,
};

/* drm_driver.gem_create_object: the BO around the shmem object. */
struct drm_gem_object *v3d_sim_create_object(struct drm_device *drm,
					     size_t size)
{
	struct v3d_sim_bo *bo;

	bo = kzalloc(sizeof(*bo), GFP_KERNEL);
	if (!bo)
		return ERR_PTR(-ENOMEM);
	bo->base.base.funcs = &v3d_sim_gem_funcs;
	return &bo->base.base;
}

/* Pages, kernel mapping and GPU address: undone by v3d_sim_free_object(). */
static int v3d_sim_bo_place(struct v3d_sim_dev *v3d, struct v3d_sim_bo *bo)
{
	struct iosys_map map;
	size_t size = bo->base.base.size;
	int ret;

	ret = drm_gem_shmem_vmap(&bo->base, &map);
	if (ret)
		return ret;
	bo->vaddr = map.vaddr;

	spin_lock(&v3d->mm_lock);
	ret = drm_mm_insert_node_generic(&v3d->mm, &bo->node,
					 size >> PAGE_SHIFT,
					 V3D_SIM_GRANULE >> PAGE_SHIFT, 0, 0);
	spin_unlock(&v3d->mm_lock);
	if (ret)
		drm_dbg_driver(&v3d->drm, "no room for %zu bytes in the GPU address space\n",
			       size);
	return ret;
}

/**
 * v3d_sim_gem_prime_import() - drm_driver.gem_prime_import: a dma-buf as a BO
 * @drm: the device
 * @dma_buf: our own export, or another driver's buffer (vgem's, a camera's)
 *
 * Our own export comes back as the BO itself (drm_gem_prime_import()).
 * Another driver's buffer becomes a shmem BO over its sg table, attached
 * and mapped for this device by drm_gem_prime_import(), which sets its
 * import_attach only on return: so it is placed here, after. Its kernel
 * mapping is the exporter's (drm_gem_shmem_vmap() calls dma_buf_vmap() for
 * an import), as qpu.ko's simulated V3D reaches an import: the emulator
 * reads and writes the exporter's own pages. v3d_sim_free_object() undoes
 * the mapping and the place; drm_gem_shmem_free() the import.
 *
 * Return: the BO with a reference for the caller, or an ERR_PTR.
 */
struct drm_gem_object *v3d_sim_gem_prime_import(struct drm_device *drm,
						struct dma_buf *dma_buf)
{
	struct drm_gem_object *obj = drm_gem_prime_import(drm, dma_buf);
	int ret;

	if (IS_ERR(obj)) {
		drm_dbg_driver(drm, "PRIME import of a %zu-byte dma-buf: %ld\n", dma_buf->size,
			       PTR_ERR(obj));
		return obj;
	}
	if (!obj->import_attach)
		return obj;	/* ours: placed when it was made */
	ret = v3d_sim_bo_place(to_v3d_sim(drm), to_v3d_sim_bo(obj));
	if (ret) {
		drm_dbg_driver(drm, "PRIME import of a %zu-byte dma-buf: no place: %d\n",
			       dma_buf->size, ret);
		drm_gem_object_put(obj);
		return ERR_PTR(ret);
	}
	return obj;
}

int v3d_sim_create_bo_ioctl(struct drm_device *drm, void *data,
			    struct drm_file *file)
{
	struct v3d_sim_dev *v3d = to_v3d_sim(drm);
	struct drm_v3d_create_bo *args = data;
	struct drm_gem_shmem_object *shmem;
	struct v3d_sim_bo *bo;
	int ret;

	if (args->flags) {
		drm_dbg_driver(drm, "CREATE_BO: unknown flags %#x\n", args->flags);
		return -EINVAL;
	}
	if (!args->size) {
		drm_dbg_driver(drm, "CREATE_BO: size 0\n");
		return -EINVAL;
	}

	shmem = drm_gem_shmem_create(drm, PAGE_ALIGN((size_t)args->size));
	if (IS_ERR(shmem))
		return PTR_ERR(shmem);
	bo = container_of(shmem, struct v3d_sim_bo, base);

	ret = v3d_sim_bo_place(v3d, bo);
	if (ret)
		goto put;

	args->offset = v3d_sim_bo_va(bo);
	ret = drm_gem_handle_create(file, &shmem->base, &args->handle);
put:
	/* The handle holds the BO now, or nothing does and it is freed. */
	drm_gem_object_put(&shmem->base);
	return ret;
}

int v3d_sim_mmap_bo_ioctl(struct drm_device *drm, void *data,
			  struct drm_file *file)
{
	struct drm_v3d_mmap_bo *args = data;
	struct drm_gem_object *obj;

	if (args->flags) {
		drm_dbg_driver(drm, "MMAP_BO: unknown flags %#x\n", args->flags);
		return -EINVAL;
	}
	obj = drm_gem_object_lookup(file, args->handle);
	if (!obj) {
		drm_dbg_driver(drm, "MMAP_BO: no BO %u\n", args->handle);
		return -ENOENT;
	}
	args->offset = drm_vma_node_offset_addr(&obj->vma_node);
	drm_gem_object_put(obj);
	return 0;
}

int v3d_sim_get_bo_offset_ioctl(struct drm_device *drm, void *data,
				struct drm_file *file)
{
	struct drm_v3d_get_bo_offset *args = data;
	struct drm_gem_object *obj;

	obj = drm_gem_object_lookup(file, args->handle);
	if (!obj) {
		drm_dbg_driver(drm, "GET_BO_OFFSET: no BO %u\n", args->handle);
		return -ENOENT;
	}
	args->offset = v3d_sim_bo_va(to_v3d_sim_bo(obj));
	drm_gem_object_put(obj);
	return 0;
}

/* A wait of @ns in jiffies, rounded up; MAX_JIFFY_OFFSET is forever. */
static unsigned long v3d_sim_timeout_jiffies(u64 ns)
{
	if (ns >= div_u64(MAX_JIFFY_OFFSET, HZ) * NSEC_PER_SEC)
		return MAX_JIFFY_OFFSET;
	return min_t(u64, MAX_JIFFY_OFFSET, nsecs_to_jiffies64(ns) + 1);
}

/*
 * As upstream: wait for every fence on the BO; the time left is written
 * back so that a restarted call waits only the rest, and a wait that ends
 * early of the jiffy-rounded timeout says -EAGAIN, not -ETIME.
 */
int v3d_sim_wait_bo_ioctl(struct drm_device *drm, void *data,
			  struct drm_file *file)
{
	struct drm_v3d_wait_bo *args = data;
	ktime_t start = ktime_get();
	u64 spent;
	long ret;

	if (args->pad) {
		drm_dbg_driver(drm, "WAIT_BO: pad is not 0\n");
		return -EINVAL;
	}
	ret = drm_gem_dma_resv_wait(file, args->handle, true,
				    v3d_sim_timeout_jiffies(args->timeout_ns));
	spent = ktime_to_ns(ktime_sub(ktime_get(), start));
	args->timeout_ns = spent < args->timeout_ns ? args->timeout_ns - spent : 0;
	if (ret == -ETIME && args->timeout_ns)
		ret = -EAGAIN;
	if (ret == -EINVAL)
		drm_dbg_driver(drm, "WAIT_BO: no BO %u\n", args->handle);
	return ret;
}
