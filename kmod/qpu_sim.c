// SPDX-License-Identifier: GPL-2.0
/*
 * The simulated V3D: a model of the V3D registers that qpu.ko programs,
 * behind qpu_v3d_read()/qpu_v3d_write(), so the driver runs and is tested on
 * machines without a VideoCore.
 *
 * The "sim" module parameter creates that many "qpu-sim" platform devices at
 * load; each binds to the driver below and becomes a /dev/qpu node. The model
 * identifies itself as the BCM2835's V3D: 3 slices of 4 QPUs, 2 TMUs per
 * slice, 16 semaphores and a 12 KiB VPM. Registers it does not model read as
 * zero and ignore writes, as QEMU does for the real block.
 *
 * Memory: BOs are vmalloc'ed (nothing contiguous is needed) and placed in a
 * simulated 32-bit bus address space from 0xc0000000, each followed by an
 * unmapped guard gap, so a QPU access past a BO's end hits no other BO.
 */

#include <linux/bitfield.h>
#include <linux/genalloc.h>
#include <linux/maple_tree.h>
#include <linux/mm.h>
#include <linux/platform_device.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "qpu_drv.h"
#include "qpu_v3d_regs.h"

#define QPU_SIM_DRV_NAME "qpu-sim"

#define QPU_SIM_IDENT1 \
	(FIELD_PREP(V3D_IDENT1_VPMSZ, 12) | FIELD_PREP(V3D_IDENT1_NSEM, 16) | \
	 FIELD_PREP(V3D_IDENT1_TUPS, 2) | FIELD_PREP(V3D_IDENT1_QUPS, 4) | \
	 FIELD_PREP(V3D_IDENT1_NSLC, 3) | FIELD_PREP(V3D_IDENT1_REV, 1))

/*
 * The bus address space: 1 GiB from 0xc0000000 (the top 64 KiB unused) in
 * 4 KiB bus pages, and the unmapped gap after each BO.
 */
#define QPU_SIM_BUS_PAGE_SHIFT	12
#define QPU_SIM_BUS_START	0xc0000000UL
#define QPU_SIM_BUS_SIZE	(SZ_1G - SZ_64K)
#define QPU_SIM_BUS_GUARD	SZ_64K

/**
 * struct qpu_sim - state of one simulated V3D.
 * @scratch: the SCRATCH register, which software may use freely.
 * @bus_space: allocator of bus addresses, each BO's range with its gap.
 * @bus: bus page -> struct qpu_bo for each page of a BO (not the gaps), to
 *	translate QPU addresses. Its own lock serialises it; entries hold no
 *	reference, they live from the BO's allocation to its free.
 */
struct qpu_sim {
	u32 scratch;
	struct gen_pool *bus_space;
	struct maple_tree bus;
};

u32 qpu_sim_reg_read(struct qpu_sim *sim, u32 reg)
{
	switch (reg) {
	case V3D_IDENT0:
		return V3D_IDENT0_EXPECTED;
	case V3D_IDENT1:
		return QPU_SIM_IDENT1;
	case V3D_IDENT2:
		return 0;
	case V3D_SCRATCH:
		return READ_ONCE(sim->scratch);
	default:
		return 0;
	}
}

void qpu_sim_reg_write(struct qpu_sim *sim, u32 reg, u32 val)
{
	if (reg == V3D_SCRATCH)
		WRITE_ONCE(sim->scratch, val);
}

static int qpu_sim_bo_alloc(struct qpu_dev *qdev, struct qpu_bo *bo)
{
	struct qpu_sim *sim = qdev->sim;
	unsigned long addr;
	int ret;

	bo->vaddr = vmalloc_user(bo->size);
	if (!bo->vaddr)
		return -ENOMEM;

	addr = gen_pool_alloc(sim->bus_space, bo->size + QPU_SIM_BUS_GUARD);
	if (!addr) {
		ret = -ENOSPC;
		goto err_vfree;
	}
	ret = mtree_insert_range(&sim->bus, addr >> QPU_SIM_BUS_PAGE_SHIFT,
				 (addr + bo->size - 1) >> QPU_SIM_BUS_PAGE_SHIFT,
				 bo, GFP_KERNEL);
	if (ret)
		goto err_free_addr;

	bo->bus_addr = addr;
	return 0;

err_free_addr:
	gen_pool_free(sim->bus_space, addr, bo->size + QPU_SIM_BUS_GUARD);
err_vfree:
	vfree(bo->vaddr);
	return ret;
}

static void qpu_sim_bo_free(struct qpu_dev *qdev, struct qpu_bo *bo)
{
	struct qpu_sim *sim = qdev->sim;

	mtree_erase(&sim->bus, bo->bus_addr >> QPU_SIM_BUS_PAGE_SHIFT);
	gen_pool_free(sim->bus_space, bo->bus_addr, bo->size + QPU_SIM_BUS_GUARD);
	vfree(bo->vaddr);
}

static int qpu_sim_bo_mmap(struct qpu_dev *qdev, struct qpu_bo *bo,
			   struct vm_area_struct *vma, unsigned long pgoff)
{
	return remap_vmalloc_range(vma, bo->vaddr, pgoff);
}

static void qpu_sim_release(struct qpu_dev *qdev)
{
	struct qpu_sim *sim = qdev->sim;

	if (!sim)
		return;
	/* Every BO held a device reference, so all were freed before. */
	mtree_destroy(&sim->bus);
	if (sim->bus_space)
		gen_pool_destroy(sim->bus_space);
	kfree(sim);
}

static const struct qpu_backend_ops qpu_sim_ops = {
	.bo_alloc = qpu_sim_bo_alloc,
	.bo_free = qpu_sim_bo_free,
	.bo_mmap = qpu_sim_bo_mmap,
	.release = qpu_sim_release,
};

static int qpu_sim_probe(struct platform_device *pdev)
{
	struct device *dev = &pdev->dev;
	struct qpu_dev *qdev;
	int ret;

	qdev = qpu_dev_alloc(dev, QPU_BACKEND_SIM, &qpu_sim_ops);
	if (!qdev)
		return -ENOMEM;

	qdev->sim = kzalloc(sizeof(*qdev->sim), GFP_KERNEL);
	if (!qdev->sim) {
		ret = -ENOMEM;
		goto err_put;
	}
	mt_init(&qdev->sim->bus);
	qdev->sim->bus_space = gen_pool_create(QPU_SIM_BUS_PAGE_SHIFT, -1);
	if (!qdev->sim->bus_space) {
		ret = -ENOMEM;
		goto err_put;
	}
	ret = gen_pool_add(qdev->sim->bus_space, QPU_SIM_BUS_START,
			   QPU_SIM_BUS_SIZE, -1);
	if (ret)
		goto err_put;

	ret = qpu_v3d_ident_read(qdev);
	if (ret) {
		dev_err(dev, "simulated V3D gives a bad identity: %#010x\n",
			qdev->ident.raw[0]);
		goto err_put;
	}

	ret = qpu_dev_register(qdev);
	if (ret)
		goto err_put;

	platform_set_drvdata(pdev, qdev);
	return 0;

err_put:
	qpu_dev_put(qdev);
	return ret;
}

static int qpu_sim_remove(struct platform_device *pdev)
{
	struct qpu_dev *qdev = platform_get_drvdata(pdev);

	qpu_dev_unregister(qdev);
	qpu_dev_put(qdev);
	return 0;
}

static struct platform_driver qpu_sim_driver = {
	.probe = qpu_sim_probe,
	.remove = qpu_sim_remove,
	.driver = {
		.name = QPU_SIM_DRV_NAME,
		/* qpu_sim_init() reads the probe's result right away. */
		.probe_type = PROBE_FORCE_SYNCHRONOUS,
	},
};

static struct platform_device *qpu_sim_devices[QPU_SIM_MAX_DEVICES];

static void qpu_sim_devices_destroy(void)
{
	int i;

	for (i = QPU_SIM_MAX_DEVICES - 1; i >= 0; i--) {
		platform_device_unregister(qpu_sim_devices[i]);
		qpu_sim_devices[i] = NULL;
	}
}

/**
 * qpu_sim_init() - register the simulator's driver and create its devices
 * @num_devices: how many simulated V3Ds, at most %QPU_SIM_MAX_DEVICES
 *
 * Return: 0 or a negative errno, with nothing left registered.
 */
int qpu_sim_init(unsigned int num_devices)
{
	struct platform_device *pdev;
	unsigned int i;
	int ret;

	ret = platform_driver_register(&qpu_sim_driver);
	if (ret)
		return ret;

	for (i = 0; i < num_devices; i++) {
		pdev = platform_device_register_simple(QPU_SIM_DRV_NAME, i,
						       NULL, 0);
		if (IS_ERR(pdev)) {
			ret = PTR_ERR(pdev);
			goto err_destroy;
		}
		qpu_sim_devices[i] = pdev;
		if (!platform_get_drvdata(pdev)) {
			/* The probe failed and has said why. */
			ret = -ENODEV;
			goto err_destroy;
		}
	}
	return 0;

err_destroy:
	qpu_sim_devices_destroy();
	platform_driver_unregister(&qpu_sim_driver);
	return ret;
}

void qpu_sim_exit(void)
{
	qpu_sim_devices_destroy();
	platform_driver_unregister(&qpu_sim_driver);
}
