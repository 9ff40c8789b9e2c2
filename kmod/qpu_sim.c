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
 */

#include <linux/bitfield.h>
#include <linux/dma-mapping.h>
#include <linux/platform_device.h>

#include "qpu_drv.h"
#include "qpu_v3d_regs.h"

#define QPU_SIM_DRV_NAME "qpu-sim"

#define QPU_SIM_IDENT1 \
	(FIELD_PREP(V3D_IDENT1_VPMSZ, 12) | FIELD_PREP(V3D_IDENT1_NSEM, 16) | \
	 FIELD_PREP(V3D_IDENT1_TUPS, 2) | FIELD_PREP(V3D_IDENT1_QUPS, 4) | \
	 FIELD_PREP(V3D_IDENT1_NSLC, 3) | FIELD_PREP(V3D_IDENT1_REV, 1))

/**
 * struct qpu_sim - state of one simulated V3D.
 * @scratch: the SCRATCH register, which software may use freely.
 */
struct qpu_sim {
	u32 scratch;
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

static int qpu_sim_probe(struct platform_device *pdev)
{
	struct device *dev = &pdev->dev;
	struct qpu_dev *qdev;
	int ret;

	/* The V3D is a 32-bit bus master; the simulated one keeps that. */
	ret = dma_coerce_mask_and_coherent(dev, DMA_BIT_MASK(32));
	if (ret)
		return ret;

	qdev = qpu_dev_alloc(dev, QPU_BACKEND_SIM);
	if (!qdev)
		return -ENOMEM;

	qdev->sim = devm_kzalloc(dev, sizeof(*qdev->sim), GFP_KERNEL);
	if (!qdev->sim) {
		ret = -ENOMEM;
		goto err_put;
	}

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
	/* @sim is device-managed and freed after this; open files no longer
	 * reach the registers once the device is unregistered.
	 */
	qdev->sim = NULL;
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
