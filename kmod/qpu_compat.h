/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Compatibility with kernels newer than the 6.1 this driver is built and
 * tested against, by what the kernel's types say rather than by version
 * number, so that distribution kernels with backports build too.
 */
#ifndef QPU_COMPAT_H
#define QPU_COMPAT_H

#include <linux/compiler.h>
#include <linux/hrtimer.h>
#include <linux/platform_device.h>

/*
 * A platform driver's remove callback returns int up to 6.10 and void from
 * 6.11 (6.3 to 6.12 also had a void .remove_new, not needed here). Drivers
 * write a void function, declare QPU_PLATFORM_REMOVE_WRAPPER(fn) after it
 * and set QPU_PLATFORM_REMOVE(fn) in their struct platform_driver, which
 * picks the function or its int-returning wrapper by the type of .remove.
 */
#define QPU_PLATFORM_REMOVE_WRAPPER(fn)					\
static inline int fn##_int(struct platform_device *pdev)		\
{									\
	fn(pdev);							\
	return 0;							\
}

#define QPU_PLATFORM_REMOVE(fn)						\
	.remove = __builtin_choose_expr(				\
		__same_type(((struct platform_driver *)NULL)->remove,	\
			    &fn##_int), fn##_int, (fn))

/*
 * hrtimer_setup() came in 6.13 to replace hrtimer_init(), since removed;
 * no type tells them apart, so Kbuild looks for it in the kernel's header.
 */
static inline void qpu_hrtimer_setup(struct hrtimer *timer,
				     enum hrtimer_restart (*fn)(struct hrtimer *),
				     clockid_t clock, enum hrtimer_mode mode)
{
#ifdef QPU_HAVE_HRTIMER_SETUP
	hrtimer_setup(timer, fn, clock, mode);
#else
	hrtimer_init(timer, clock, mode);
	timer->function = fn;
#endif
}

/*
 * dma-buf's locking moved to importers in 6.2: dma_buf_map_attachment()
 * then wants the reservation lock held, which the _unlocked variants
 * (some 6.1 stable kernels have them too) take. Kbuild looks for them.
 */
#ifdef QPU_HAVE_DMA_BUF_UNLOCKED
#define qpu_dma_buf_map_attachment	dma_buf_map_attachment_unlocked
#define qpu_dma_buf_unmap_attachment	dma_buf_unmap_attachment_unlocked
#else
#define qpu_dma_buf_map_attachment	dma_buf_map_attachment
#define qpu_dma_buf_unmap_attachment	dma_buf_unmap_attachment
#endif
#ifdef QPU_HAVE_DMA_BUF_VMAP_UNLOCKED
#define qpu_dma_buf_vmap	dma_buf_vmap_unlocked
#define qpu_dma_buf_vunmap	dma_buf_vunmap_unlocked
#else
#define qpu_dma_buf_vmap	dma_buf_vmap
#define qpu_dma_buf_vunmap	dma_buf_vunmap
#endif

/*
 * MODULE_IMPORT_NS() took a bare name up to 6.12 and a string from 6.13;
 * Kbuild tells which.
 */
#ifdef QPU_HAVE_IMPORT_NS_STRING
#define QPU_IMPORT_NS_DMA_BUF()	MODULE_IMPORT_NS("DMA_BUF")
#else
#define QPU_IMPORT_NS_DMA_BUF()	MODULE_IMPORT_NS(DMA_BUF)
#endif

#endif /* QPU_COMPAT_H */
