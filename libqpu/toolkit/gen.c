// SPDX-License-Identifier: MIT
/*
 * The generations' one name table (qpu.h): qpu_gen_name() and
 * qpu_gen_from_name(), the short names the tools' -m option and the emu
 * device's options take.
 */

#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "qpu.h"

static const struct {
	enum qpu_gen gen;
	const char *name;
} gen_names[] = {
	{ QPU_GEN_VC4, "vc4" },
	{ QPU_GEN_V3D42, "v3d42" },
	{ QPU_GEN_V3D71, "v3d71" },
};

const char *qpu_gen_name(enum qpu_gen gen)
{
	size_t i;

	for (i = 0; i < sizeof(gen_names) / sizeof(gen_names[0]); i++)
		if (gen_names[i].gen == gen)
			return gen_names[i].name;
	return NULL;
}

int qpu_gen_from_name(const char *name)
{
	size_t i;

	if (!name)
		return -EINVAL;
	for (i = 0; i < sizeof(gen_names) / sizeof(gen_names[0]); i++)
		if (!strcmp(gen_names[i].name, name))
			return gen_names[i].gen;
	return -EINVAL;
}
