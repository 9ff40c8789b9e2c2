// SPDX-License-Identifier: MIT
/* Each generation's hazard rules, for qpu-check and qpu-as (hazard-rules.h). */
#include <qpu.h>
#include <qpu_hazard_v3d.h>

#include "hazard-rules.h"

static const struct qpu_rule_set vc4_rules = {
	QPU_HAZARD_NUM_RULES, QPU_HAZARD_ALL_RULES, qpu_hazard_rule_name,
	qpu_hazard_rule_summary, qpu_hazard_rule_find,
};

static const struct qpu_rule_set v3d_rules = {
	QPU_HAZARD_V3D_NUM_RULES, QPU_HAZARD_V3D_ALL_RULES,
	qpu_hazard_v3d_rule_name, qpu_hazard_v3d_rule_summary,
	qpu_hazard_v3d_rule_find,
};

const struct qpu_rule_set *qpu_rule_set_of(int gen)
{
	return gen == QPU_GEN_VC4 ? &vc4_rules : &v3d_rules;
}

int qpu_rule_set_check(int gen, const uint64_t *words, size_t n, uint64_t rules,
		       unsigned int flags, qpu_hazard_cb cb, void *ctx)
{
	if (gen == QPU_GEN_VC4)
		return qpu_hazard_check(words, n, rules, flags, cb, ctx);
	return qpu_hazard_v3d_check(gen, words, n, rules, flags, cb, ctx);
}
