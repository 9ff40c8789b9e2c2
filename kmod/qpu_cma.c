// SPDX-License-Identifier: GPL-2.0
/*
 * The size of the kernel's default CMA area, which holds every BO of a
 * real V3D, for the default of the device memory limit (qpu_bo.c).
 *
 * The kernel does not tell modules how large CMA is, so this reads what
 * the kernel itself read at boot (kernel/dma/contiguous.c): a "cma=" on
 * the command line, which makes the kernel ignore the device tree's
 * default pool; else that pool, the /reserved-memory child that is a
 * "shared-dma-pool", "reusable" and "linux,cma-default", sized by its
 * "size" or, placed statically, by its first "reg" entry. On device-tree
 * systems the command line is /chosen's "bootargs" (Debian's rpi kernel
 * has no built-in one: CONFIG_CMDLINE=""). The Kconfig size
 * (CONFIG_CMA_SIZE_*), used when neither says, is not visible to modules:
 * then, as on a machine without a device tree, nothing is known. Built only
 * with CONFIG_OF; qpu_drv.h has the stub for kernels without.
 */

#include <linux/ctype.h>
#include <linux/kernel.h>
#include <linux/of.h>
#include <linux/string.h>

#include "qpu_drv.h"

/* The size of the last "cma=" in @args (the kernel's parser keeps the last). */
static u64 qpu_cma_cmdline_size(const char *args)
{
	const char *p = args;
	u64 size = 0;

	while ((p = strstr(p, "cma="))) {
		if (p == args || isspace(p[-1]))
			size = memparse(p + 4, NULL);
		p += 4;
	}
	return size;
}

/* The pool's bytes from its "size", else its first "reg" entry; 0 if neither. */
static u64 qpu_cma_node_size(struct device_node *np)
{
	int na = of_n_addr_cells(np), ns = of_n_size_cells(np), len;
	const __be32 *prop;

	prop = of_get_property(np, "size", &len);
	if (prop && len == ns * sizeof(*prop))
		return of_read_number(prop, ns);
	prop = of_get_property(np, "reg", &len);
	if (prop && len >= (na + ns) * sizeof(*prop))
		return of_read_number(prop + na, ns);
	return 0;
}

/**
 * qpu_cma_size() - the size of the kernel's default CMA area
 * @from: set to what said so, for the log, when the size is known
 *
 * Return: bytes, or 0 when unknown (no device tree, no CMA, cma=0).
 */
u64 qpu_cma_size(const char **from)
{
	struct device_node *np, *child;
	const char *args;
	u64 size = 0;

	if (!IS_ENABLED(CONFIG_DMA_CMA) || !of_have_populated_dt())
		return 0;

	np = of_find_node_by_path("/chosen");
	if (np && !of_property_read_string(np, "bootargs", &args))
		size = qpu_cma_cmdline_size(args);
	of_node_put(np);
	if (size) {
		*from = "cma= on the command line";
		return size;
	}

	np = of_find_node_by_path("/reserved-memory");
	for_each_available_child_of_node(np, child) {
		if (!of_device_is_compatible(child, "shared-dma-pool") ||
		    !of_property_read_bool(child, "reusable") ||
		    !of_property_read_bool(child, "linux,cma-default"))
			continue;
		size = qpu_cma_node_size(child);
		if (size) {
			*from = "the device tree's linux,cma-default pool";
			of_node_put(child);
			break;
		}
	}
	of_node_put(np);
	return size;
}
