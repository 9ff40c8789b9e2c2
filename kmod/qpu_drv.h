/* SPDX-License-Identifier: GPL-2.0 */
/*
 * qpu.ko private interfaces: the device and file structures, and the
 * prototypes of each file, grouped by the file that defines them.
 */
#ifndef QPU_DRV_H
#define QPU_DRV_H

#include <linux/kref.h>
#include <linux/miscdevice.h>
#include <linux/types.h>
#include <linux/qpu.h>

struct qpu_sim;

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
 * @regs: the real V3D's registers; NULL for the simulated one. Valid only
 *	while the device is bound.
 * @sim: the simulated V3D; NULL for the real one. Valid only while bound.
 * @ident: identification, read at probe and kept for the device's life.
 */
struct qpu_dev {
	struct kref ref;
	struct device *dev;
	struct miscdevice misc;
	int index;
	char name[16];
	enum qpu_backend backend;
	void __iomem *regs;
	struct qpu_sim *sim;
	struct qpu_v3d_ident ident;
};

/**
 * struct qpu_file - state of one open file of a qpu device.
 * @qdev: the device, referenced for the life of the file.
 */
struct qpu_file {
	struct qpu_dev *qdev;
};

/* qpu_drv.c */
extern const struct file_operations qpu_fops;

/* qpu_dev.c */
struct qpu_dev *qpu_dev_alloc(struct device *dev, enum qpu_backend backend);
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
