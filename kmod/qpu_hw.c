// SPDX-License-Identifier: GPL-2.0
/*
 * The real V3D of the BCM2835/6/7 (Raspberry Pi 1, 2, 3 and Zero), bound
 * through its device-tree node.
 *
 * Probing maps the registers, turns on the V3D's clock when the device tree
 * gives one, powers the block through runtime PM (its power domain belongs
 * to the firmware on these SoCs) and, where no power domain is described,
 * can ask the firmware to enable the QPUs (module parameter fw_qpu_enable).
 * It then checks that a V3D answers before a /dev/qpu node appears. When
 * nothing answers, as under QEMU, which does not model the block, probing
 * fails with one log line saying so.
 *
 * The clock rate netlink reports is read once here: from the device tree's
 * clock when there is one, else from the firmware when it is in use (its
 * GET_CLOCK_RATE property for the V3D clock), else it is unknown; the
 * telemetry's samples (qpu_telemetry.c) ask the firmware whenever there is
 * one, whether or not it powers the QPUs. Per-QPU
 * instruction counts are not offered: the V3D's performance counters
 * (PCTR) only sum events over all QPUs, and vc4 programs the same ones.
 *
 * vc4 binds the same node when its driver is loaded; the qpu-v3d overlay
 * (kmod/dts/) gives the node the compatible only this driver matches. At
 * module load, a V3D already bound to another driver is reported once.
 */

#include <linux/clk.h>
#include <linux/device.h>
#include <linux/dma-direct.h>
#include <linux/interrupt.h>
#include <linux/io.h>
#include <linux/mod_devicetable.h>
#include <linux/module.h>
#include <linux/of.h>
#include <linux/of_platform.h>
#include <linux/platform_device.h>
#include <linux/pm_runtime.h>
#include <soc/bcm2835/raspberrypi-firmware.h>

#include "qpu_compat.h"
#include "qpu_drv.h"
#include "qpu_v3d_regs.h"

/*
 * -1 (auto): enable the QPUs through the firmware when the device tree
 * gives the V3D no power domain, so that nothing else powers it; 1: always
 * (where the firmware needs it although a power domain exists); 0: never.
 */
static int qpu_hw_fw_qpu_enable = -1;
module_param_named(fw_qpu_enable, qpu_hw_fw_qpu_enable, int, 0444);
MODULE_PARM_DESC(fw_qpu_enable,
		 "Enable the QPUs through the firmware mailbox: -1 when the V3D has no power domain (default), 1 always, 0 never");

/**
 * struct qpu_hw - the real V3D's state, device-managed.
 * @fw: the firmware, referenced while it has the QPUs enabled for us;
 *	NULL when the firmware is not used.
 * @clk: the V3D's clock, enabled while bound; NULL when the device tree
 *	has none (BCM2835's does not).
 * @telemetry_fw: the firmware, for telemetry, whether or not it powers the
 *	QPUs; NULL without one.
 * @powered: the driver holds its runtime-PM reference (qpu_v3d.c, "the
 *	V3D's power").
 */
struct qpu_hw {
	struct rpi_firmware *fw;
	struct clk *clk;
	struct rpi_firmware *telemetry_fw;
	bool powered;
};

/*
 * BOs come from the DMA API (qpu_bo_dma_alloc()): CMA on a Pi. QPUs see
 * them at the DMA address, which the device tree's dma-ranges make the
 * right bus alias for each SoC.
 */
static int qpu_hw_bo_alloc(struct qpu_dev *qdev, struct qpu_bo *bo)
{
	int ret = qpu_bo_dma_alloc(qdev, bo);

	if (ret == -ENOMEM && bo->size > PAGE_SIZE) {
		/* A client can ask for this again and again: say it once. */
		dev_warn_once(qdev->dev,
			      "cannot allocate %zu contiguous bytes: CMA is too small or fragmented; raise it with cma=256M on the kernel command line or dtoverlay=cma,cma-256 in config.txt\n",
			      bo->size);
	}
	if (ret)
		return ret;
	bo->bus_addr = bo->dma_addr;
	return 0;
}

/*
 * Whether the V3D reaches BOs through the VideoCore L2: every BO sits at its
 * DMA address, whose top two bits are the alias the device tree's
 * dma-ranges give RAM (0x4 on a BCM2835, 0xC on a BCM2836/7); 0xC goes
 * straight to SDRAM, the others through the L2. RAM starts at 0 on these
 * SoCs; an untranslatable address (DMA_MAPPING_ERROR) reads as 0xC.
 */
static bool qpu_hw_bo_l2_cached(struct device *dev)
{
	return ((phys_to_dma(dev, 0) >> 30) & 3) != 3;
}

/*
 * An imported dma-buf must be one run of bus addresses within the V3D's
 * 32 bits: it has no MMU. The DMA address is the bus address, as for BOs.
 */
static int qpu_hw_bo_import(struct qpu_dev *qdev, struct qpu_bo *bo)
{
	dma_addr_t start;

	if (!qpu_dmabuf_contiguous(qdev, bo, &start))
		return -EINVAL;
	if (start + bo->size - 1 > U32_MAX) {
		qpu_dbg(qdev->dev, "bo_import refused: dma-buf at %pad, past the V3D's 32-bit bus space\n",
			&start);
		return -EINVAL;
	}
	bo->bus_addr = start;
	return 0;
}

/* Nothing to undo: the attachment's mapping is all there was. */
static void qpu_hw_bo_unimport(struct qpu_dev *qdev, struct qpu_bo *bo)
{
}

/* Presence only: newer kernels warn on of_property_read_bool() here. */
static bool qpu_hw_has_power_domain(struct device *dev)
{
	return of_find_property(dev->of_node, "power-domains", NULL);
}

static int qpu_hw_fw_set_qpu(struct rpi_firmware *fw, bool enable)
{
	u32 val = enable;

	return rpi_firmware_property(fw, RPI_FIRMWARE_SET_ENABLE_QPU, &val,
				     sizeof(val));
}

static void qpu_hw_fw_release(void *data)
{
	struct qpu_hw *hw = data;

	qpu_hw_fw_set_qpu(hw->fw, false);
	rpi_firmware_put(hw->fw);
	hw->fw = NULL;
}

/*
 * Asks the firmware to enable the QPUs when fw_qpu_enable says so; the
 * firmware disables them again at unbind. A firmware that does not answer
 * is only worth a warning: the ident check says whether a V3D is there.
 */
static int qpu_hw_fw_init(struct device *dev, struct qpu_hw *hw)
{
	int mode = READ_ONCE(qpu_hw_fw_qpu_enable);
	struct device_node *np;
	struct rpi_firmware *fw;
	int ret;

	if (!IS_ENABLED(CONFIG_RASPBERRYPI_FIRMWARE) || !mode)
		return 0;
	if (mode < 0 && qpu_hw_has_power_domain(dev))
		return 0;

	np = of_find_compatible_node(NULL, NULL, "raspberrypi,bcm2835-firmware");
	if (!np || !of_device_is_available(np)) {
		of_node_put(np);
		if (mode > 0)
			dev_warn(dev, "fw_qpu_enable: no firmware node in the device tree\n");
		return 0;
	}
	fw = rpi_firmware_get(np);
	of_node_put(np);
	if (!fw)
		return dev_err_probe(dev, -EPROBE_DEFER, "waiting for the firmware\n");

	ret = qpu_hw_fw_set_qpu(fw, true);
	if (ret) {
		dev_warn(dev, "the firmware did not enable the QPUs: %d\n", ret);
		rpi_firmware_put(fw);
		return 0;
	}
	hw->fw = fw;
	return devm_add_action_or_reset(dev, qpu_hw_fw_release, hw);
}

/* The V3D's clock rate in Hz, or 0 when nothing says. */
static u32 qpu_hw_clock_hz(struct qpu_hw *hw)
{
	struct {
		__le32 id;
		__le32 rate;
	} msg;
	unsigned long rate = clk_get_rate(hw->clk);	/* 0 for no clock */

	if (rate || !hw->fw)
		return min_t(unsigned long, rate, U32_MAX);
	msg.id = cpu_to_le32(QPU_FW_CLK_V3D);
	msg.rate = 0;
	if (rpi_firmware_property(hw->fw, RPI_FIRMWARE_GET_CLOCK_RATE, &msg,
				  sizeof(msg)))
		return 0;
	return le32_to_cpu(msg.rate);
}

/* What powers the V3D, for the probe's log line. */
static const char *qpu_hw_power_source(struct device *dev, struct qpu_hw *hw)
{
	if (hw->fw)
		return "firmware";
	if (qpu_hw_has_power_domain(dev))
		return "power domain";
	return "none described";
}

/* The reg_read and reg_write ops: MMIO, any context. */
static u32 qpu_hw_reg_read(struct qpu_dev *qdev, u32 reg)
{
	return readl(qdev->regs + reg);
}

static void qpu_hw_reg_write(struct qpu_dev *qdev, u32 reg, u32 val)
{
	writel(val, qdev->regs + reg);
}

/*
 * The V3D has no reset of its own that stops QPUs: cycle its power domain,
 * as vc4 does, or have the firmware disable and enable the QPUs when it
 * powers them. Then check that the V3D answers and give it back to user
 * programs, since the power cycle forgot the reservations.
 */
static int qpu_hw_reset(struct qpu_dev *qdev)
{
	struct qpu_hw *hw = qdev->hw;
	int ret;

	ret = qpu_v3d_power_cycle(qdev->dev, &hw->powered);
	if (ret)
		return ret;
	if (hw->fw) {
		ret = qpu_hw_fw_set_qpu(hw->fw, false);
		if (!ret)
			ret = qpu_hw_fw_set_qpu(hw->fw, true);
		if (ret)
			dev_warn(qdev->dev, "firmware QPU power cycle failed: %d\n", ret);
	}
	if (qpu_v3d_read(qdev, V3D_IDENT0) != qdev->ident.raw[0])
		return -EIO;
	qpu_v3d_user_setup(qdev);
	return 0;
}

/* Only the telemetry's work calls this, and removal stops it first. */
static int qpu_hw_telemetry_read(struct qpu_dev *qdev,
				 struct qpu_telemetry_sample *s)
{
	return qpu_telemetry_fw_read(qdev->hw->telemetry_fw, s);
}

static const struct qpu_backend_ops qpu_hw_ops = {
	.reg_read = qpu_hw_reg_read,
	.reg_write = qpu_hw_reg_write,
	.bo_alloc = qpu_hw_bo_alloc,
	.bo_import = qpu_hw_bo_import,
	.bo_unimport = qpu_hw_bo_unimport,
	.bo_free = qpu_bo_dma_free,
	.bo_mmap = qpu_bo_dma_mmap,
	.bo_fault = qpu_bo_dma_fault,
	.telemetry_read = qpu_hw_telemetry_read,
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
	struct qpu_v3d_ident *id;
	struct resource *res;
	void __iomem *regs;
	struct qpu_dev *qdev;
	struct qpu_hw *hw;
	u32 vpm_user;
	int ret;

	hw = devm_kzalloc(dev, sizeof(*hw), GFP_KERNEL);
	if (!hw)
		return -ENOMEM;

	regs = devm_platform_get_and_ioremap_resource(pdev, 0, &res);
	if (IS_ERR(regs))
		return PTR_ERR(regs);
	if (resource_size(res) < V3D_REGS_SIZE)
		return dev_err_probe(dev, -EINVAL, "register window too small: %pR\n",
				     res);

	hw->clk = devm_clk_get_optional_enabled(dev, NULL);
	if (IS_ERR(hw->clk))
		return dev_err_probe(dev, PTR_ERR(hw->clk), "cannot enable the V3D clock\n");

	/* Forgets a failed resume of an earlier binding (qpu_v3d_power_get()). */
	pm_runtime_set_suspended(dev);
	ret = devm_pm_runtime_enable(dev);
	if (ret)
		return ret;
	ret = qpu_v3d_power_get(dev, &hw->powered);
	if (ret)
		return dev_err_probe(dev, ret, "cannot power the V3D\n");

	ret = qpu_hw_fw_init(dev, hw);
	if (ret)
		goto err_pm_put;
	hw->telemetry_fw = qpu_telemetry_fw_get(dev);

	qdev = qpu_dev_alloc(dev, QPU_BACKEND_HW, &qpu_hw_ops);
	if (!qdev) {
		ret = -ENOMEM;
		goto err_pm_put;
	}
	qdev->regs = regs;
	qdev->hw = hw;
	qdev->dma_memory = true;
	qdev->bo_l2_cached = qpu_hw_bo_l2_cached(dev);

	ret = qpu_v3d_ident_read(qdev);
	if (ret) {
		dev_err(dev, "no V3D answers at %pa: IDENT0 reads %#010x, expected %#010x (power: %s)\n",
			&res->start, qdev->ident.raw[0], V3D_IDENT0_EXPECTED,
			qpu_hw_power_source(dev, hw));
		goto err_put;
	}
	vpm_user = qpu_v3d_user_setup(qdev);
	qdev->clock_hz = qpu_hw_clock_hz(hw);

	ret = qpu_dev_register(qdev);
	if (ret)
		goto err_put;

	/* After registering: the handler kicks the scheduler. */
	qpu_hw_request_irq(pdev, qdev);
	platform_set_drvdata(pdev, qdev);

	id = &qdev->ident;
	dev_info(dev, "V3D rev %u: %u QPUs, %u of %u VPM bytes for user programs, clock %u Hz (0: unknown), power: %s\n",
		 id->revision, id->num_slices * id->qpus_per_slice, vpm_user,
		 id->vpm_size, qdev->clock_hz, qpu_hw_power_source(dev, hw));
	return 0;

err_put:
	qpu_dev_put(qdev);
err_pm_put:
	qpu_v3d_power_put(dev, &hw->powered);
	return ret;
}

static void qpu_hw_remove(struct platform_device *pdev)
{
	struct qpu_dev *qdev = platform_get_drvdata(pdev);
	struct qpu_hw *hw = qdev->hw;

	if (qdev->irq)
		free_irq(qdev->irq, qdev);
	qpu_dev_unregister(qdev);
	/* The mapping and the state are device-managed and go after this. */
	qdev->regs = NULL;
	qdev->hw = NULL;
	qpu_dev_put(qdev);
	/* No reset after the scheduler's end: @hw->powered is final. */
	qpu_v3d_power_put(&pdev->dev, &hw->powered);
}

QPU_PLATFORM_REMOVE_WRAPPER(qpu_hw_remove)

/*
 * "brcm,bcm2835-v3d-qpu" is what the qpu-v3d overlay sets, so that vc4
 * leaves the node alone; the others are the node's own compatibles in
 * Debian's and in the Raspberry Pi kernels' device trees, for systems
 * where vc4 is not loaded.
 */
static const struct of_device_id qpu_hw_of_match[] = {
	{ .compatible = "brcm,bcm2835-v3d-qpu" },
	{ .compatible = "brcm,bcm2835-v3d" },
	{ .compatible = "brcm,vc4-v3d" },
	{ }
};

/*
 * No MODULE_DEVICE_TABLE: vc4 matches the same node, and autoloading qpu.ko
 * on every Pi would race it for the V3D. qpu.ko is loaded on purpose
 * (kmod/qpu-modules-load.conf).
 */

static struct platform_driver qpu_hw_driver = {
	.probe = qpu_hw_probe,
	QPU_PLATFORM_REMOVE(qpu_hw_remove),
	.driver = {
		.name = "qpu-v3d",
		.of_match_table = qpu_hw_of_match,
	},
};

/*
 * A V3D node that another driver (vc4) has bound never reaches our probe:
 * say so, and how to hand it over, instead of staying silent.
 */
static void qpu_hw_report_owned(void)
{
	struct platform_device *pdev;
	struct device_node *np;

	for_each_matching_node(np, qpu_hw_of_match) {
		if (!of_device_is_available(np))
			continue;
		pdev = of_find_device_by_node(np);
		if (!pdev)
			continue;
		device_lock(&pdev->dev);
		if (pdev->dev.driver)
			dev_warn(&pdev->dev,
				 "V3D at %pOF is owned by %s: add dtoverlay=qpu-v3d to config.txt and reboot to give it to qpu (see qpu's kmod/README.md)\n",
				 np, pdev->dev.driver->name);
		device_unlock(&pdev->dev);
		put_device(&pdev->dev);
	}
}

int qpu_hw_init(void)
{
	qpu_hw_report_owned();
	return platform_driver_register(&qpu_hw_driver);
}

void qpu_hw_exit(void)
{
	platform_driver_unregister(&qpu_hw_driver);
}
