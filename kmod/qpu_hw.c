// SPDX-License-Identifier: GPL-2.0
/*
 * The real V3D of the BCM2835/6/7 (Raspberry Pi 1, 2, 3 and Zero), bound
 * through its device-tree node.
 *
 * Probing maps the registers, powers the block through runtime PM (its power
 * domain belongs to the firmware on these SoCs) and checks that a V3D answers
 * before a /dev/qpu node appears. When nothing answers, as under QEMU, which
 * does not model the block, probing fails with one log line saying so.
 */

#include <linux/dma-mapping.h>
#include <linux/interrupt.h>
#include <linux/mod_devicetable.h>
#include <linux/platform_device.h>
#include <linux/pm_runtime.h>

#include "qpu_drv.h"
#include "qpu_v3d_regs.h"

/*
 * BOs are coherent DMA memory: CMA on a Pi, at the bus address the device
 * tree's dma-ranges give (the right alias for each SoC), mapped
 * write-combined for the CPU.
 */
static int qpu_hw_bo_alloc(struct qpu_dev *qdev, struct qpu_bo *bo)
{
	bo->vaddr = dma_alloc_wc(qdev->dev, bo->size, &bo->dma_addr,
				 GFP_KERNEL | __GFP_NOWARN);
	if (!bo->vaddr)
		return -ENOMEM;
	bo->bus_addr = bo->dma_addr;
	return 0;
}

static void qpu_hw_bo_free(struct qpu_dev *qdev, struct qpu_bo *bo)
{
	dma_free_wc(qdev->dev, bo->size, bo->vaddr, bo->dma_addr);
}

static int qpu_hw_bo_mmap(struct qpu_dev *qdev, struct qpu_bo *bo,
			  struct vm_area_struct *vma, unsigned long pgoff)
{
	/* dma_mmap_wc() takes the BO's page offset from vm_pgoff. */
	vma->vm_pgoff = pgoff;
	return dma_mmap_wc(qdev->dev, vma, bo->vaddr, bo->dma_addr, bo->size);
}

/*
 * The V3D has no reset of its own that stops QPUs: cycle its power domain,
 * as vc4 does, then check that it answers again.
 */
static int qpu_hw_reset(struct qpu_dev *qdev)
{
	int ret;

	ret = pm_runtime_put_sync_suspend(qdev->dev);
	if (ret < 0)
		dev_warn(qdev->dev, "could not power the V3D down: %d\n", ret);
	ret = pm_runtime_resume_and_get(qdev->dev);
	if (ret)
		return ret;
	if (qpu_v3d_read(qdev, V3D_IDENT0) != qdev->ident.raw[0])
		return -EIO;
	return 0;
}

static const struct qpu_backend_ops qpu_hw_ops = {
	.bo_alloc = qpu_hw_bo_alloc,
	.bo_free = qpu_hw_bo_free,
	.bo_mmap = qpu_hw_bo_mmap,
	.reset = qpu_hw_reset,
};

static irqreturn_t qpu_hw_irq(int irq, void *data)
{
	return qpu_v3d_irq(data);
}

/*
 * Host interrupts only speed completion up (module parameter host_irq);
 * without the interrupt line the scheduler still polls, so a failure here
 * is only worth a warning.
 */
static void qpu_hw_request_irq(struct platform_device *pdev, struct qpu_dev *qdev)
{
	int irq = platform_get_irq_optional(pdev, 0);
	int ret;

	if (irq <= 0)
		return;
	ret = request_irq(irq, qpu_hw_irq, 0, dev_name(&pdev->dev), qdev);
	if (ret) {
		dev_warn(&pdev->dev, "no host interrupts (irq %d: %d); polling only\n",
			 irq, ret);
		return;
	}
	qdev->irq = irq;
}

static int qpu_hw_probe(struct platform_device *pdev)
{
	struct device *dev = &pdev->dev;
	struct resource *res;
	void __iomem *regs;
	struct qpu_dev *qdev;
	int ret;

	regs = devm_platform_get_and_ioremap_resource(pdev, 0, &res);
	if (IS_ERR(regs))
		return PTR_ERR(regs);
	if (resource_size(res) < V3D_REGS_SIZE)
		return dev_err_probe(dev, -EINVAL, "register window too small: %pR\n",
				     res);

	ret = devm_pm_runtime_enable(dev);
	if (ret)
		return ret;
	ret = pm_runtime_resume_and_get(dev);
	if (ret)
		return dev_err_probe(dev, ret, "cannot power the V3D\n");

	qdev = qpu_dev_alloc(dev, QPU_BACKEND_HW, &qpu_hw_ops);
	if (!qdev) {
		ret = -ENOMEM;
		goto err_pm_put;
	}
	qdev->regs = regs;

	ret = qpu_v3d_ident_read(qdev);
	if (ret) {
		dev_err(dev, "no V3D answers at %pa: IDENT0 reads %#010x, expected %#010x\n",
			&res->start, qdev->ident.raw[0], V3D_IDENT0_EXPECTED);
		goto err_put;
	}

	ret = qpu_dev_register(qdev);
	if (ret)
		goto err_put;

	/* After registering: the handler kicks the scheduler. */
	qpu_hw_request_irq(pdev, qdev);
	platform_set_drvdata(pdev, qdev);
	return 0;

err_put:
	qpu_dev_put(qdev);
err_pm_put:
	pm_runtime_put(dev);
	return ret;
}

static int qpu_hw_remove(struct platform_device *pdev)
{
	struct qpu_dev *qdev = platform_get_drvdata(pdev);

	if (qdev->irq)
		free_irq(qdev->irq, qdev);
	qpu_dev_unregister(qdev);
	/* The mapping is device-managed and goes away after this. */
	qdev->regs = NULL;
	qpu_dev_put(qdev);
	pm_runtime_put(&pdev->dev);
	return 0;
}

static const struct of_device_id qpu_hw_of_match[] = {
	{ .compatible = "brcm,bcm2835-v3d" },
	{ }
};

/*
 * No MODULE_DEVICE_TABLE: vc4 matches the same node, and autoloading qpu.ko
 * on every Pi would race it for the V3D. qpu.ko is loaded on purpose.
 */

static struct platform_driver qpu_hw_driver = {
	.probe = qpu_hw_probe,
	.remove = qpu_hw_remove,
	.driver = {
		.name = "qpu-v3d",
		.of_match_table = qpu_hw_of_match,
	},
};

int qpu_hw_init(void)
{
	return platform_driver_register(&qpu_hw_driver);
}

void qpu_hw_exit(void)
{
	platform_driver_unregister(&qpu_hw_driver);
}
