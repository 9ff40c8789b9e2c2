/* SPDX-License-Identifier: MIT */
/*
 * The hazard rules of each generation (hazard-rules.c, in libqpu-tools.a):
 * VideoCore IV's (qpu_hazard.h) or V3D 4.2/7.1's (qpu_hazard_v3d.h), so
 * that qpu-check and qpu-as name, list and run them the same way.
 */
#ifndef QPU_TOOLS_HAZARD_RULES_H
#define QPU_TOOLS_HAZARD_RULES_H

#include <stddef.h>
#include <stdint.h>

#include <qpu_hazard.h>

struct qpu_rule_set {
	unsigned int count;
	uint64_t all;
	const char *(*name)(unsigned int rule);
	const char *(*summary)(unsigned int rule);
	int (*find)(const char *name);
};

/* The rules of @gen (QPU_GEN_*). */
const struct qpu_rule_set *qpu_rule_set_of(int gen);

/* qpu_hazard_check() or qpu_hazard_v3d_check(), by @gen. */
int qpu_rule_set_check(int gen, const uint64_t *words, size_t n, uint64_t rules,
		       unsigned int flags, qpu_hazard_cb cb, void *ctx);

#endif /* QPU_TOOLS_HAZARD_RULES_H */
