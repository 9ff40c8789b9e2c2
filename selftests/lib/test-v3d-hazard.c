// SPDX-License-Identifier: MIT
/*
 * test-v3d-hazard: the V3D 4.2 and 7.1 hazard checker. Each rule gets a
 * program that breaks it (the rule must be found, at the word named) and
 * a close one that does not (no finding of any rule), on each generation
 * it applies to; the API refuses bad arguments; names round-trip.
 */
#include <errno.h>

#include "testlib.h"

#include "qpu_asm.h"
#include "qpu_hazard_v3d.h"

/* The end of a compute program: the last-thrsw pair, then the thread end. */
#define END \
	"nop ; nop ; thrsw\n" "nop ; nop ; thrsw\n" "nop ; nop\n" "nop ; nop\n" \
	"nop ; nop ; thrsw\n" "nop ; nop\n" "nop ; nop\n"

#define LDTMU4 \
	"nop ; nop ; ldtmu.rf2\n" "nop ; nop ; ldtmu.rf2\n" \
	"nop ; nop ; ldtmu.rf2\n" "nop ; nop ; ldtmu.rf2\n"
#define LDTMU8	LDTMU4 LDTMU4
#define LDTMU16	LDTMU8 LDTMU8

#define G42	1
#define G71	2

static const struct hazard_case {
	unsigned int rule;
	unsigned int gens;
	long word;		/* where the finding is, -1: anywhere */
	const char *bad;
	const char *good;
} cases[] = {
	{ QPU_HAZARD_V3D_BRANCH_IN_DELAY_SLOT, G42 | G71, 1,
	  "b  64\nb  64\nnop ; nop\nnop ; nop\nnop ; nop\n" END,
	  "b  64\nnop ; nop\nnop ; nop\nnop ; nop\nb  64\nnop ; nop\nnop ; nop\nnop ; nop\n" END },
	{ QPU_HAZARD_V3D_BRANCH_IN_THRSW_SLOT, G42 | G71, 1,
	  "nop ; nop ; thrsw\nb  64\nnop ; nop\nnop ; nop\nnop ; nop\n" END,
	  "nop ; nop ; thrsw\nnop ; nop\nnop ; nop\nb  64\nnop ; nop\nnop ; nop\nnop ; nop\n" END },
	{ QPU_HAZARD_V3D_THRSW_IN_BRANCH_SLOT, G42 | G71, 2,
	  "b  64\nnop ; nop\nnop ; nop ; thrsw\nnop ; nop\nnop ; nop\n" END,
	  "b  64\nnop ; nop\nnop ; nop\nnop ; nop\nnop ; nop ; thrsw\nnop ; nop\nnop ; nop\n" END },
	{ QPU_HAZARD_V3D_THRSW_TOO_CLOSE, G42 | G71, 2,
	  "nop ; nop ; thrsw\nnop ; nop\nnop ; nop ; thrsw\nnop ; nop\nnop ; nop\n" END,
	  "nop ; nop ; thrsw\nnop ; nop\nnop ; nop\nnop ; nop ; thrsw\nnop ; nop\nnop ; nop\n" END },
	{ QPU_HAZARD_V3D_SFU_IN_THRSW_SLOT, G42, 1,
	  "nop ; nop ; thrsw\nnop ; mov recip, r1\nnop ; nop\n" END,
	  "nop ; nop ; thrsw\nnop ; nop\nnop ; nop\nnop ; mov recip, r1\n" END },
	{ QPU_HAZARD_V3D_SFU_BUSY, G42 | G71, 1,
	  "nop ; mov recip, rf2\nnop ; mov rsqrt, rf4\n" END,
	  "nop ; mov recip, rf2\nnop ; nop\nnop ; mov rsqrt, rf4\n" END },
	{ QPU_HAZARD_V3D_SFU_R4, G42, 1,
	  "nop ; mov recip, r1\nadd rf1, r4, r4 ; nop\n" END,
	  "nop ; mov recip, r1\nnop ; nop\nadd rf1, r4, r4 ; nop\n" END },
	{ QPU_HAZARD_V3D_PERIPHERAL_MULTI, G42 | G71, 0,
	  "or tmua, rf1, rf1 ; mov vpm, rf2\n" END,
	  "or tmua, rf1, rf1 ; mov rf3, rf2\n" END },
	{ QPU_HAZARD_V3D_LDUNIF_AFTER_LDVARY, G42 | G71, 1,
	  "nop ; nop ; ldvary.rf1\nnop ; nop ; ldunif\n" END,
	  "nop ; nop ; ldvary.rf1\nnop ; nop\nnop ; nop ; ldunif\n" END },
	{ QPU_HAZARD_V3D_LDVARY_IN_THRSW_SLOT, G71, 2,
	  "nop ; nop ; thrsw\nnop ; nop\nnop ; nop ; ldvary.rf1\n" END,
	  "nop ; nop ; thrsw\nnop ; nop ; ldvary.rf1\nnop ; nop\n" END },
	{ QPU_HAZARD_V3D_LDVARY_IN_THRSW_SLOT, G42, 1,
	  "nop ; nop ; thrsw\nnop ; nop ; ldvary.rf1\nnop ; nop\n" END,
	  "nop ; nop ; thrsw\nnop ; nop\nnop ; nop\nnop ; nop ; ldvary.rf1\n" END },
	{ QPU_HAZARD_V3D_THREND_RF_WRITE, G42, 5,
	  "nop ; nop ; thrsw\nnop ; nop ; thrsw\nnop ; nop\nnop ; nop\n"
	  "nop ; nop ; thrsw\nadd rf1, rf2, rf3 ; nop\nnop ; nop\n",
	  "add rf1, rf2, rf3 ; nop\n" END },
	{ QPU_HAZARD_V3D_THREND_RF_WRITE, G71, 6,
	  "nop ; nop ; thrsw\nnop ; nop ; thrsw\nnop ; nop\nnop ; nop\n"
	  "nop ; nop ; thrsw\nnop ; nop\nadd rf2, rf1, rf1 ; nop\n",
	  "nop ; nop ; thrsw\nnop ; nop ; thrsw\nnop ; nop\nnop ; nop\n"
	  "nop ; nop ; thrsw\nnop ; nop\nadd rf5, rf1, rf1 ; nop\n" },
	{ QPU_HAZARD_V3D_TMUWT_LAST, G42 | G71, 6,
	  "nop ; nop ; thrsw\nnop ; nop ; thrsw\nnop ; nop\nnop ; nop\n"
	  "nop ; nop ; thrsw\nnop ; nop\ntmuwt - ; nop\n",
	  "nop ; nop ; thrsw\nnop ; nop ; thrsw\nnop ; nop\nnop ; nop\n"
	  "nop ; nop ; thrsw\ntmuwt - ; nop\nnop ; nop\n" },
	{ QPU_HAZARD_V3D_UMUL24_RTOP_LOST, G42 | G71, 4,
	  "nop ; multop -, rf1, rf2\nnop ; nop ; thrsw\nnop ; nop\nnop ; nop\n"
	  "nop ; umul24 rf3, rf1, rf2\n" END,
	  "nop ; multop -, rf1, rf2\nnop ; umul24 rf3, rf1, rf2\n"
	  "nop ; nop ; thrsw\nnop ; nop\nnop ; nop\n" END },
	{ QPU_HAZARD_V3D_TMU_LOAD_EMPTY, G42 | G71, 1,
	  "nop ; nop\nnop ; nop ; ldtmu.rf1\n" END,
	  "or tmua, rf1, rf1 ; nop\nnop ; nop ; ldtmu.rf1\n" END },
	{ QPU_HAZARD_V3D_THREND_MISSING, G42 | G71, 1,
	  "nop ; nop\nnop ; nop\n",
	  END },
	{ QPU_HAZARD_V3D_DELAY_SHORT, G42 | G71, 7,
	  END "b  64\nnop ; nop\n",
	  END "b  64\nnop ; nop\nnop ; nop\nnop ; nop\n" },
	{ QPU_HAZARD_V3D_DELAY_SHORT, G42 | G71, 0,
	  "nop ; nop ; thrsw\nnop ; nop\n",
	  "nop ; nop ; thrsw\nnop ; nop\nnop ; nop\n" },
	{ QPU_HAZARD_V3D_INVALID_WORD, G42 | G71, 0,
	  ".long 0\n" END,
	  "nop ; nop\n" END },
	/* one thread: 16 entries; a second request starts a new count */
	{ QPU_HAZARD_V3D_TMU_FIFO_OVERFLOW, G42 | G71, 17,
	  "or tmua, rf1, rf1 ; nop\n" LDTMU16 "nop ; nop ; ldtmu.rf2\n" END,
	  "or tmua, rf1, rf1 ; nop\n" LDTMU8 "or tmua, rf1, rf1 ; nop\n"
	  LDTMU16 END },
};

struct seen {
	unsigned int n;
	uint64_t rules;
	long word[QPU_HAZARD_V3D_NUM_RULES];
};

static int collect(const struct qpu_hazard *h, void *ctx)
{
	struct seen *s = ctx;

	s->n++;
	if (h->rule < QPU_HAZARD_V3D_NUM_RULES) {
		if (!(s->rules & QPU_HAZARD_RULE_BIT(h->rule)))
			s->word[h->rule] = (long)h->word;
		s->rules |= QPU_HAZARD_RULE_BIT(h->rule);
	}
	return 0;
}

/* Assemble @src for @gen and check it with @flags; -1 if it does not assemble. */
static int check_flags(int gen, const char *src, unsigned int flags,
		       struct seen *s)
{
	struct qpu_asm *as = qpu_asm_new();
	const uint64_t *words;
	size_t n;
	int found = -1;

	memset(s, 0, sizeof(*s));
	if (!as)
		return -1;
	if (!qpu_asm_set_gen(as, gen) && !qpu_asm_string(as, "case", src)) {
		n = qpu_asm_words(as, &words);
		found = qpu_hazard_v3d_check(gen, words, n,
					     QPU_HAZARD_V3D_ALL_RULES, flags,
					     collect, s);
	}
	qpu_asm_free(as);
	return found;
}

static int check(int gen, const char *src, struct seen *s)
{
	return check_flags(gen, src, 0, s);
}

/*
 * Code a compiler's scheduler emits is no hazard: SFU ALU ops and 7.1's
 * lane moves back to back (they stall), 4.2's SFU ALU op reading an rf
 * (it writes its own destination, not r4), a thrsw within 2 of a thrsw
 * with one thread (no other thread to switch to), SFU ALU ops in the
 * delay slots of a thrsw (Mesa keeps only magic SFU writes out of them).
 */
T_TEST(no_false_findings)
{
	static const struct {
		int gen;
		unsigned int flags;
		const char *src;
	} good[] = {
		{ QPU_GEN_V3D71, 0, "recip rf1, rf2 ; nop\nrsqrt rf3, rf4 ; nop\n" END },
		{ QPU_GEN_V3D42, 0, "recip rf1, rf2 ; nop\nrsqrt rf3, rf4 ; nop\n" END },
		{ QPU_GEN_V3D71, 0, "shuffle rf1, rf2, rf3 ; nop\n"
		  "rot rf4, rf5, rf6 ; nop\nbcastf rf7, rf8 ; nop\n" END },
		{ QPU_GEN_V3D42, 0, "exp rf14, rf4 ; nop\nfadd rf1, r4, rf2 ; nop\n" END },
		{ QPU_GEN_V3D42, 0, "exp rf14, rf4 ; nop\nnop ; fmul rf1, rf14, rf2\n" END },
		{ QPU_GEN_V3D42, QPU_HAZARD_V3D_THREADS_1,
		  "nop ; nop ; thrsw\nnop ; nop\nnop ; nop ; thrsw\n" END },
		{ QPU_GEN_V3D71, QPU_HAZARD_V3D_THREADS_1,
		  "nop ; nop ; thrsw\nnop ; nop ; thrsw\nnop ; nop ; thrsw\n"
		  "nop ; nop ; thrsw\nnop ; nop\nnop ; nop ; thrsw\nnop ; nop\nnop ; nop\n" },
		/* Mesa's scheduler fills thrsw slots with SFU ALU ops */
		{ QPU_GEN_V3D42, 0, "nop ; nop ; thrsw\nexp rf14, rf4 ; nop\n"
		  "recip rf1, rf2 ; nop\n" END },
		{ QPU_GEN_V3D71, 0, "nop ; nop ; thrsw\nrecip rf1, rf2 ; nop\n"
		  "rsqrt rf3, rf4 ; nop\n" END },
	};
	struct seen s;
	size_t k;

	for (k = 0; k < T_ARRAY_SIZE(good); k++) {
		T_EQ_U64(0, check_flags(good[k].gen, good[k].src,
					good[k].flags, &s));
		if (s.rules)
			fprintf(stderr, "good[%zu] found 0x%llx\n", k,
				(unsigned long long)s.rules);
		T_EQ_U64(0, s.rules);
	}
	/* the same thrsw with 2 or 4 threads, or unknown, is a hazard */
	T_CHECK(check_flags(QPU_GEN_V3D42, good[5].src, 0, &s) > 0);
	T_EQ_U64(QPU_HAZARD_RULE_BIT(QPU_HAZARD_V3D_THRSW_TOO_CLOSE), s.rules);
	T_CHECK(check_flags(QPU_GEN_V3D42, good[5].src,
			    QPU_HAZARD_V3D_THREADS_2, &s) > 0);
	T_EQ_U64(QPU_HAZARD_RULE_BIT(QPU_HAZARD_V3D_THRSW_TOO_CLOSE), s.rules);
	T_CHECK(check_flags(QPU_GEN_V3D71, good[6].src,
			    QPU_HAZARD_V3D_THREADS_4, &s) > 0);
	T_EQ_U64(QPU_HAZARD_RULE_BIT(QPU_HAZARD_V3D_THRSW_TOO_CLOSE), s.rules);
	/* one thread count at most */
	T_EQ_U64(-EINVAL, check_flags(QPU_GEN_V3D42, good[0].src,
				      QPU_HAZARD_V3D_THREADS_1 |
				      QPU_HAZARD_V3D_THREADS_2, &s));
}

/* The output FIFO per thread: 16 / threads entries. */
T_TEST(tmu_fifo_threads)
{
	static const char five[] = "or tmua, rf1, rf1 ; nop\n" LDTMU4
		"nop ; nop ; ldtmu.rf2\n" END;
	static const char nine[] = "or tmua, rf1, rf1 ; nop\n" LDTMU8
		"nop ; nop ; ldtmu.rf2\n" END;
	static const char four[] = "or tmua, rf1, rf1 ; nop\n" LDTMU4 END;
	static const char eight[] = "or tmua, rf1, rf1 ; nop\n" LDTMU8 END;
	unsigned int bit = QPU_HAZARD_RULE_BIT(QPU_HAZARD_V3D_TMU_FIFO_OVERFLOW);
	struct seen s;

	T_EQ_U64(1, check_flags(QPU_GEN_V3D71, five, QPU_HAZARD_V3D_THREADS_4, &s));
	T_CHECK((s.rules & bit) && s.word[QPU_HAZARD_V3D_TMU_FIFO_OVERFLOW] == 5);
	T_EQ_U64(0, check_flags(QPU_GEN_V3D71, four, QPU_HAZARD_V3D_THREADS_4, &s));
	T_EQ_U64(1, check_flags(QPU_GEN_V3D42, nine, QPU_HAZARD_V3D_THREADS_2, &s));
	T_CHECK((s.rules & bit) && s.word[QPU_HAZARD_V3D_TMU_FIFO_OVERFLOW] == 9);
	T_EQ_U64(0, check_flags(QPU_GEN_V3D42, eight, QPU_HAZARD_V3D_THREADS_2, &s));
	T_EQ_U64(0, check_flags(QPU_GEN_V3D42, nine, 0, &s));
	/* at most one thread count */
	T_EQ_U64(-EINVAL, check_flags(QPU_GEN_V3D71, four,
				      QPU_HAZARD_V3D_THREADS_2 |
				      QPU_HAZARD_V3D_THREADS_4, &s));
}

T_TEST(rules)
{
	size_t i;
	int g;

	for (i = 0; i < T_ARRAY_SIZE(cases); i++) {
		const struct hazard_case *c = &cases[i];
		const char *name = qpu_hazard_v3d_rule_name(c->rule);

		for (g = 0; g < 2; g++) {
			int gen = g ? QPU_GEN_V3D71 : QPU_GEN_V3D42;
			struct seen s;
			char m[160];
			int found;

			if (!(c->gens & (g ? G71 : G42)))
				continue;
			found = check(gen, c->bad, &s);
			t_checks++;
			if (found <= 0 || !(s.rules & QPU_HAZARD_RULE_BIT(c->rule)) ||
			    (c->word >= 0 && s.word[c->rule] != c->word)) {
				snprintf(m, sizeof(m), "v3d%d %s: finding case gave %d "
					 "findings, rules 0x%llx, at word %ld", gen,
					 name, found, (unsigned long long)s.rules,
					 s.word[c->rule]);
				t_report(__FILE__, __LINE__, m);
			}
			found = check(gen, c->good, &s);
			t_checks++;
			if (found != 0) {
				snprintf(m, sizeof(m), "v3d%d %s: clean case gave %d "
					 "findings, rules 0x%llx", gen, name, found,
					 (unsigned long long)s.rules);
				t_report(__FILE__, __LINE__, m);
			}
		}
	}
}

T_TEST(api)
{
	uint64_t nop = 0x38003186bb03f000ull;
	unsigned int r;

	T_EQ_U64(-EINVAL, qpu_hazard_v3d_check(QPU_GEN_VC4, &nop, 1,
					       QPU_HAZARD_V3D_ALL_RULES, 0,
					       NULL, NULL));
	T_EQ_U64(-EINVAL, qpu_hazard_v3d_check(QPU_GEN_V3D71, &nop, 1,
					       QPU_HAZARD_RULE_BIT(QPU_HAZARD_V3D_NUM_RULES),
					       0, NULL, NULL));
	T_EQ_U64(-EINVAL, qpu_hazard_v3d_check(QPU_GEN_V3D71, &nop, 1,
					       QPU_HAZARD_V3D_ALL_RULES, 2,
					       NULL, NULL));
	T_EQ_U64(-EINVAL, qpu_hazard_v3d_check(QPU_GEN_V3D71, NULL, 1,
					       QPU_HAZARD_V3D_ALL_RULES, 0,
					       NULL, NULL));
	/* one nop: no thread end, unless it is part of a program */
	T_EQ_U64(1, qpu_hazard_v3d_check(QPU_GEN_V3D71, &nop, 1,
					 QPU_HAZARD_V3D_ALL_RULES, 0, NULL, NULL));
	T_EQ_U64(0, qpu_hazard_v3d_check(QPU_GEN_V3D71, &nop, 1,
					 QPU_HAZARD_V3D_ALL_RULES,
					 QPU_HAZARD_PARTIAL, NULL, NULL));
	for (r = 0; r < QPU_HAZARD_V3D_NUM_RULES; r++) {
		T_CHECK(qpu_hazard_v3d_rule_summary(r) != NULL);
		T_EQ_U64(r, qpu_hazard_v3d_rule_find(qpu_hazard_v3d_rule_name(r)));
	}
	T_CHECK(qpu_hazard_v3d_rule_name(QPU_HAZARD_V3D_NUM_RULES) == NULL);
	T_EQ_U64(-ENOENT, qpu_hazard_v3d_rule_find("regfile-raw"));
}

T_MAIN()
