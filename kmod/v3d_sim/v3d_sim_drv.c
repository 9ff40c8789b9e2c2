// SPDX-License-Identifier: GPL-2.0
/*
 * v3d_sim: the module. It makes one platform device per generation asked
 * for (gen=42,71), named as the Pi 4's and the Pi 5's V3D (fec00000.v3d,
 * 1002000000.v3d), and drives each with a DRM driver named "v3d" that
 * answers upstream's compute uapi (include/uapi/drm/v3d_drm.h) on the V3D
 * emulator of libqpu's core: GET_PARAM from the board's identification
 * registers, the BO ioctls, SUBMIT_CSD with syncobjs and the multisync
 * extension, perfmons; upstream's gpu_stats and fdinfo statistics
 * (v3d_sim_stats.c). SUBMIT_CL and SUBMIT_TFU are refused. With vcio=1
 * the machine's firmware mailbox too (v3d_sim_vcio.c). For tests in an
 * amd64 VM only: never packaged.
 */
#include <linux/mod_devicetable.h>
#include <linux/module.h>
#include <linux/platform_device.h>

#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_ioctl.h>
#include <drm/drm_managed.h>
#include <drm/drm_print.h>
#include <drm/drm_prime.h>

#include "v3d_sim.h"

/*
 * Identification registers as a board reads them: CORE0_IDENT0 "V3D" and
 * the version's major, IDENT1 its revision, slices and QPUs per slice,
 * HUB_IDENT1 the version again with one core, a TFU and (4.2) an L3C,
 * HUB_IDENT2 an MMU, HUB_IDENT3 the revision Mesa reads (4.2.14, 7.1.6: from
 * 7.1.6 on the CSD runs cfg[4] batches, not cfg[4] + 1).
 */
#define V3D_SIM_IDENT0(ver)	(0x443356u | (ver) << 24)
#define V3D_SIM_IDENT1(slc, qps, rev) \
	(4u << 28 | 16u << 16 | 1u << 12 | (qps) << 8 | (slc) << 4 | (rev))
#define V3D_SIM_HUB_IDENT1(tver, rev, l3c) \
	((l3c) << 16 | 1u << 17 | 1u << 8 | (rev) << 4 | (tver))

static const struct v3d_sim_model v3d_sim_models[] = {
	{
		.pdev_name = "fec00000.v3d",
		.gen = 42,
		.board = QPU_V3D_EMU_BOARD_PI4,
		.hub_ident = { 0, V3D_SIM_HUB_IDENT1(4u, 2u, 1u), 1u << 8, 14u << 8 },
		.core_ident = { V3D_SIM_IDENT0(4u), V3D_SIM_IDENT1(2u, 4u, 2u), 0 },
	},
	{
		.pdev_name = "1002000000.v3d",
		.gen = 71,
		.board = QPU_V3D_EMU_BOARD_PI5_3X4,
		.hub_ident = { 0, V3D_SIM_HUB_IDENT1(7u, 1u, 0u), 1u << 8, 6u << 8 },
		.core_ident = { V3D_SIM_IDENT0(7u), V3D_SIM_IDENT1(3u, 4u, 1u), 0 },
	},
	{	/* pi5_qpus=16: the other published configuration */
		.pdev_name = "1002000000.v3d",
		.gen = 71,
		.board = QPU_V3D_EMU_BOARD_PI5_4X4,
		.hub_ident = { 0, V3D_SIM_HUB_IDENT1(7u, 1u, 0u), 1u << 8, 6u << 8 },
		.core_ident = { V3D_SIM_IDENT0(7u), V3D_SIM_IDENT1(4u, 4u, 1u), 0 },
	},
};

static int gen[2] = { 42, 71 };
static int gen_count = ARRAY_SIZE(gen);
module_param_array(gen, int, &gen_count, 0444);
MODULE_PARM_DESC(gen, "generations to simulate, one device each: 42 (Pi 4), 71 (Pi 5)");

/*
 * Sources disagree on the Pi 5's QPUs: 3 slices of 4 at 800 MHz
 * (py-videocore7's README, and its tests, whose thread ids assume 12 QPUs)
 * or 4 of 4 at 960 MHz (a published debugfs dump). 12, as libqpu's
 * emulator, unless asked.
 */
static uint pi5_qpus = 12;
module_param(pi5_qpus, uint, 0444);
MODULE_PARM_DESC(pi5_qpus, "the Pi 5's QPUs: 12 (3 slices, 800 MHz) or 16 (4 slices, 960 MHz)");

static unsigned int v3d_sim_board_qpus(const struct v3d_sim_model *m)
{
	const struct qpu_v3d_emu_board_info *b = qpu_v3d_emu_board(m->board);

	return b->slices * b->qpus_per_slice;
}

/* The model of generation @g (the Pi 5's as pi5_qpus says), or NULL. */
static const struct v3d_sim_model *v3d_sim_model_of(kernel_ulong_t g)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(v3d_sim_models); i++) {
		const struct v3d_sim_model *m = &v3d_sim_models[i];

		if (m->gen == g &&
		    (g != 71 || v3d_sim_board_qpus(m) == pi5_qpus))
			return m;
	}
	return NULL;
}

static struct platform_device *v3d_sim_pdevs[ARRAY_SIZE(v3d_sim_models)];
/* fdinfo's drm-client-id: 6.1's drm_file has none of its own */
static atomic64_t v3d_sim_client_ids;

static int v3d_sim_get_param_ioctl(struct drm_device *drm, void *data,
				   struct drm_file *file)
{
	struct v3d_sim_dev *v3d = to_v3d_sim(drm);
	const struct v3d_sim_model *m = v3d->model;
	struct drm_v3d_get_param *args = data;

	if (args->pad) {
		drm_dbg_driver(drm, "GET_PARAM: pad is not 0\n");
		return -EINVAL;
	}
	switch (args->param) {
	case DRM_V3D_PARAM_V3D_UIFCFG:
	case DRM_V3D_PARAM_V3D_HUB_IDENT1:
	case DRM_V3D_PARAM_V3D_HUB_IDENT2:
	case DRM_V3D_PARAM_V3D_HUB_IDENT3:
	case DRM_V3D_PARAM_V3D_CORE0_IDENT0:
	case DRM_V3D_PARAM_V3D_CORE0_IDENT1:
	case DRM_V3D_PARAM_V3D_CORE0_IDENT2:
		/* As upstream: a register read wants value 0 on the way in. */
		if (args->value) {
			drm_dbg_driver(drm, "GET_PARAM: value is not 0\n");
			return -EINVAL;
		}
		break;
	}
	switch (args->param) {
	case DRM_V3D_PARAM_V3D_UIFCFG:
		args->value = m->uifcfg;
		return 0;
	case DRM_V3D_PARAM_V3D_HUB_IDENT1:
	case DRM_V3D_PARAM_V3D_HUB_IDENT2:
	case DRM_V3D_PARAM_V3D_HUB_IDENT3:
		args->value = m->hub_ident[args->param - DRM_V3D_PARAM_V3D_HUB_IDENT1 + 1];
		return 0;
	case DRM_V3D_PARAM_V3D_CORE0_IDENT0:
	case DRM_V3D_PARAM_V3D_CORE0_IDENT1:
	case DRM_V3D_PARAM_V3D_CORE0_IDENT2:
		args->value = m->core_ident[args->param - DRM_V3D_PARAM_V3D_CORE0_IDENT0];
		return 0;
	case DRM_V3D_PARAM_SUPPORTS_CSD:
	case DRM_V3D_PARAM_SUPPORTS_PERFMON:
	case DRM_V3D_PARAM_SUPPORTS_MULTISYNC_EXT:
		args->value = 1;
		return 0;
	case DRM_V3D_PARAM_SUPPORTS_TFU:
	case DRM_V3D_PARAM_SUPPORTS_CACHE_FLUSH:
		/* The simulation has no TFU and no caches to flush. */
		args->value = 0;
		return 0;
	case V3D_SIM_PARAM_GLOBAL_RESET_COUNTER:
		args->value = atomic_read(&v3d->resets);
		return 0;
	default:
		drm_dbg_driver(drm, "GET_PARAM: unknown parameter %u\n", args->param);
		return -EINVAL;
	}
}

/* SUBMIT_CL and SUBMIT_TFU: the units the simulation does not have. */
static int v3d_sim_no_unit_ioctl(struct drm_device *drm, void *data,
				 struct drm_file *file)
{
	drm_dbg_driver(drm, "only compute (SUBMIT_CSD) is simulated\n");
	return -ENODEV;
}

static int v3d_sim_open(struct drm_device *drm, struct drm_file *file)
{
	struct v3d_sim_dev *v3d = to_v3d_sim(drm);
	struct drm_gpu_scheduler *sched = &v3d->sched;
	struct v3d_sim_file *vf;
	int ret;

	vf = kzalloc(sizeof(*vf), GFP_KERNEL);
	if (!vf)
		return -ENOMEM;
	vf->v3d = v3d;
	vf->client_id = atomic64_inc_return(&v3d_sim_client_ids);
	vf->stats = v3d_sim_stats_new();
	if (!vf->stats) {
		kfree(vf);
		return -ENOMEM;
	}
	ret = drm_sched_entity_init(&vf->entity, DRM_SCHED_PRIORITY_NORMAL,
				    &sched, 1, NULL);
	if (ret) {
		v3d_sim_stats_put(vf->stats);
		kfree(vf);
		return ret;
	}
	v3d_sim_perfmon_open_file(vf);
	file->driver_priv = vf;
	return 0;
}

/* Queued jobs are flushed or killed; a running one keeps its references. */
static void v3d_sim_postclose(struct drm_device *drm, struct drm_file *file)
{
	struct v3d_sim_file *vf = file->driver_priv;

	drm_sched_entity_destroy(&vf->entity);
	v3d_sim_perfmon_close_file(vf);
	v3d_sim_stats_put(vf->stats);
	kfree(vf);
}

/* DEFINE_DRM_GEM_FOPS()'s, with upstream's fdinfo keys. */
static const struct file_operations v3d_sim_fops = {
	.owner = THIS_MODULE,
	.open = drm_open,
	.release = drm_release,
	.unlocked_ioctl = drm_ioctl,
	.compat_ioctl = drm_compat_ioctl,
	.poll = drm_poll,
	.read = drm_read,
	.llseek = noop_llseek,
	.mmap = drm_gem_mmap,
	.show_fdinfo = v3d_sim_show_fdinfo,
};

/* Upstream's flags: SUBMIT_CSD wants a render node or an authenticated client. */
static const struct drm_ioctl_desc v3d_sim_ioctls[] = {
	DRM_IOCTL_DEF_DRV(V3D_SUBMIT_CL, v3d_sim_no_unit_ioctl, DRM_RENDER_ALLOW | DRM_AUTH),
	DRM_IOCTL_DEF_DRV(V3D_WAIT_BO, v3d_sim_wait_bo_ioctl, DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(V3D_CREATE_BO, v3d_sim_create_bo_ioctl, DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(V3D_MMAP_BO, v3d_sim_mmap_bo_ioctl, DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(V3D_GET_PARAM, v3d_sim_get_param_ioctl, DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(V3D_GET_BO_OFFSET, v3d_sim_get_bo_offset_ioctl, DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(V3D_SUBMIT_TFU, v3d_sim_no_unit_ioctl, DRM_RENDER_ALLOW | DRM_AUTH),
	DRM_IOCTL_DEF_DRV(V3D_SUBMIT_CSD, v3d_sim_submit_csd_ioctl, DRM_RENDER_ALLOW | DRM_AUTH),
	DRM_IOCTL_DEF_DRV(V3D_PERFMON_CREATE, v3d_sim_perfmon_create_ioctl, DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(V3D_PERFMON_DESTROY, v3d_sim_perfmon_destroy_ioctl, DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(V3D_PERFMON_GET_VALUES, v3d_sim_perfmon_get_values_ioctl,
			  DRM_RENDER_ALLOW),
};

static const struct drm_driver v3d_sim_driver = {
	.driver_features = DRIVER_GEM | DRIVER_RENDER | DRIVER_SYNCOBJ,
	.open = v3d_sim_open,
	.postclose = v3d_sim_postclose,
	.gem_create_object = v3d_sim_create_object,
	/* PRIME export; import of its own exports and of other drivers' */
	.prime_handle_to_fd = drm_gem_prime_handle_to_fd,
	.prime_fd_to_handle = drm_gem_prime_fd_to_handle,
	.gem_prime_import = v3d_sim_gem_prime_import,
	.gem_prime_import_sg_table = drm_gem_shmem_prime_import_sg_table,
	.ioctls = v3d_sim_ioctls,
	.num_ioctls = ARRAY_SIZE(v3d_sim_ioctls),
	.fops = &v3d_sim_fops,
	.name = V3D_SIM_DRIVER_NAME,
	.desc = "Simulated Broadcom V3D (Raspberry Pi 4/5)",
	.date = "20180419",
	.major = 1,
	.minor = 0,
};

static void v3d_sim_mm_fini(struct drm_device *drm, void *unused)
{
	drm_mm_takedown(&to_v3d_sim(drm)->mm);
}

static int v3d_sim_probe(struct platform_device *pdev)
{
	const struct v3d_sim_model *model;
	struct v3d_sim_dev *v3d;
	int ret;

	model = v3d_sim_model_of(platform_get_device_id(pdev)->driver_data);
	v3d = devm_drm_dev_alloc(&pdev->dev, &v3d_sim_driver, struct v3d_sim_dev, drm);
	if (IS_ERR(v3d))
		return PTR_ERR(v3d);
	v3d->model = model;
	platform_set_drvdata(pdev, v3d);

	spin_lock_init(&v3d->mm_lock);
	spin_lock_init(&v3d->fence_lock);
	v3d_sim_stats_init(&v3d->stats);
	mutex_init(&v3d->emu_lock);
	mutex_init(&v3d->reset_lock);
	/* Pages 1 to 4 GiB: address 0 is never handed out. */
	drm_mm_init(&v3d->mm, 1, (SZ_4G >> PAGE_SHIFT) - 1);
	ret = drmm_add_action(&v3d->drm, v3d_sim_mm_fini, NULL);
	if (ret)
		return ret;

	ret = v3d_sim_sched_init(v3d);
	if (ret)
		return ret;
	ret = drm_dev_register(&v3d->drm, 0);
	if (ret) {
		v3d_sim_sched_fini(v3d);
		return ret;
	}
	drm_info(&v3d->drm, "simulated V3D %u.%u (%s), %s\n", model->gen / 10,
		 model->gen % 10, qpu_v3d_emu_board(model->board)->name,
		 model->pdev_name);
	return 0;
}

static int v3d_sim_remove(struct platform_device *pdev)
{
	struct v3d_sim_dev *v3d = platform_get_drvdata(pdev);

	drm_dev_unregister(&v3d->drm);
	v3d_sim_sched_fini(v3d);
	return 0;
}

/* The generation of each platform device: its model is v3d_sim_model_of()'s. */
static const struct platform_device_id v3d_sim_ids[] = {
	{ "fec00000.v3d", 42 },
	{ "1002000000.v3d", 71 },
	{ }
};
MODULE_DEVICE_TABLE(platform, v3d_sim_ids);

static struct platform_driver v3d_sim_platform_driver = {
	.probe = v3d_sim_probe,
	.remove = v3d_sim_remove,
	.id_table = v3d_sim_ids,
	.driver = {
		.name = "v3d_sim",
		.dev_groups = v3d_sim_groups,
	},
};

static void v3d_sim_unregister_devices(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(v3d_sim_pdevs); i++) {
		platform_device_unregister(v3d_sim_pdevs[i]);
		v3d_sim_pdevs[i] = NULL;
	}
}

static int __init v3d_sim_init(void)
{
	bool want[ARRAY_SIZE(v3d_sim_models)] = {};
	const struct v3d_sim_model *m;
	int i, ret;

	if (pi5_qpus != 12 && pi5_qpus != 16) {
		pr_err("v3d_sim: pi5_qpus=%u: 12 or 16\n", pi5_qpus);
		return -EINVAL;
	}
	for (i = 0; i < gen_count; i++) {
		m = v3d_sim_model_of(gen[i]);
		if (!m || want[m - v3d_sim_models]) {
			pr_err("v3d_sim: gen=%d: each of 42 and 71 at most once\n", gen[i]);
			return -EINVAL;
		}
		want[m - v3d_sim_models] = true;
	}
	ret = platform_driver_register(&v3d_sim_platform_driver);
	if (ret)
		return ret;
	for (i = 0; i < ARRAY_SIZE(v3d_sim_models); i++) {
		struct platform_device *pdev;

		if (!want[i])
			continue;
		pdev = platform_device_register_simple(v3d_sim_models[i].pdev_name,
						       PLATFORM_DEVID_NONE, NULL, 0);
		if (IS_ERR(pdev)) {
			ret = PTR_ERR(pdev);
			goto fail;
		}
		v3d_sim_pdevs[i] = pdev;
		/* The bus may probe later; a failed probe leaves no driver. */
		if (!pdev->dev.driver) {
			pr_err("v3d_sim: %s did not probe\n", v3d_sim_models[i].pdev_name);
			ret = -ENODEV;
			goto fail;
		}
	}
	ret = v3d_sim_vcio_init();
	if (ret)
		goto fail;
	return 0;

fail:
	v3d_sim_unregister_devices();
	platform_driver_unregister(&v3d_sim_platform_driver);
	return ret;
}

static void __exit v3d_sim_exit(void)
{
	v3d_sim_vcio_fini();
	v3d_sim_unregister_devices();
	platform_driver_unregister(&v3d_sim_platform_driver);
}

module_init(v3d_sim_init);
module_exit(v3d_sim_exit);

MODULE_DESCRIPTION("Simulated Raspberry Pi 4/5 V3D behind the v3d DRM uapi (tests only)");
MODULE_LICENSE("GPL");
