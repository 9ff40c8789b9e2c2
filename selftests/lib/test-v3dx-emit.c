// SPDX-License-Identifier: MIT
/*
 * test-v3dx-emit: the V3D C emitter (qpu_emit_v3d.h). A loop built from C
 * with printf arguments, labels and a raw word equals the same program
 * assembled from text on both generations; an error names the call that
 * made it; bad arguments are refused.
 */
#include <errno.h>

#include "testlib.h"

#include "qpu_asm.h"
#include "qpu_emit_v3d.h"

static const char text_prog[] =
	"	add rf1, rf2, 3 ; nop\n"
	"loop:\n"
	"	sub.pushz rf1, rf1, 1 ; nop\n"
	"	b.na0  loop\n"
	"	nop ; nop\n"
	"	nop ; nop\n"
	"	nop ; nop\n"
	"	b  out\n"
	"	nop ; nop\n"
	"	nop ; nop\n"
	"	nop ; nop\n"
	"out:\n"
	"	.long 0x0123456789abcdef\n"
	"	nop ; nop ; thrsw\n";

static void build(struct qpu_v3d_emit *e)
{
	int i;

	T_EQ_U64(0, qpu_v3d_emit(e, "add rf%d, rf%d, %d ; nop", 1, 2, 3));
	T_EQ_U64(0, qpu_v3d_emit_label(e, "loop"));
	T_EQ_U64(0, qpu_v3d_emit(e, "sub.pushz rf%d, rf%d, %d ; nop", 1, 1, 1));
	T_EQ_U64(0, qpu_v3d_emit(e, "b.na0  %s", "loop"));
	for (i = 0; i < 3; i++)
		T_EQ_U64(0, qpu_v3d_emit(e, "nop ; nop"));
	T_EQ_U64(0, qpu_v3d_emit(e, "b  out"));	/* forward */
	for (i = 0; i < 3; i++)
		T_EQ_U64(0, qpu_v3d_emit(e, "nop ; nop"));
	T_EQ_U64(0, qpu_v3d_emit_label(e, "out"));
	T_EQ_U64(0, qpu_v3d_emit_word(e, 0x0123456789abcdefull));
	T_EQ_U64(0, qpu_v3d_emit(e, "nop ; nop ; thrsw"));
}

static void test_same_as_text(int gen)
{
	struct qpu_v3d_emit *e = qpu_v3d_emit_new(gen);
	struct qpu_asm *as = qpu_asm_new();
	const uint64_t *ew = NULL, *aw = NULL;
	size_t en = 0, an, i;
	char msg[256];

	T_CHECK(e && as);
	if (!e || !as)
		goto out;
	build(e);
	T_EQ_U64(0, qpu_v3d_emit_finish(e, &ew, &en, msg, sizeof(msg)));
	T_EQ_STR("", msg);
	T_EQ_U64(0, qpu_asm_set_gen(as, gen));
	T_EQ_U64(0, qpu_asm_string(as, "text", text_prog));
	an = qpu_asm_words(as, &aw);
	T_EQ_U64(12, en);
	T_EQ_U64(an, en);
	for (i = 0; i < en && i < an; i++)
		T_EQ_U64(aw[i], ew[i]);
out:
	qpu_asm_free(as);
	qpu_v3d_emit_free(e);
}

static void test_errors(void)
{
	struct qpu_v3d_emit *e;
	const uint64_t *w;
	char msg[256];
	size_t n;

	errno = 0;
	T_CHECK(qpu_v3d_emit_new(QPU_GEN_VC4) == NULL && errno == EINVAL);
	qpu_v3d_emit_free(NULL);

	e = qpu_v3d_emit_new(QPU_GEN_V3D42);
	T_CHECK(e != NULL);
	if (!e)
		return;
	T_EQ_U64(0, qpu_v3d_emit(e, "nop ; nop"));
	T_EQ_U64(0, qpu_v3d_emit(e, "nop ; nop"));
	T_EQ_U64(0, qpu_v3d_emit(e, "fmov rf1, rf2 ; nop"));	/* 7.1 only */
	T_EQ_U64(-EINVAL, qpu_v3d_emit(e, "nop ; nop\nnop ; nop"));
	T_EQ_U64(-EINVAL, qpu_v3d_emit_label(e, "a b"));
	T_EQ_U64(-EINVAL, qpu_v3d_emit_label(e, ""));
	T_EQ_U64(-EINVAL, qpu_v3d_emit_finish(e, &w, &n, msg, sizeof(msg)));
	T_EQ_STR("call 3: fmov is no add operation of V3D 4.2", msg);
	qpu_v3d_emit_free(e);

	/* an empty program has no words */
	e = qpu_v3d_emit_new(QPU_GEN_V3D71);
	T_CHECK(e != NULL);
	if (!e)
		return;
	n = 1;
	T_EQ_U64(0, qpu_v3d_emit_finish(e, &w, &n, NULL, 0));
	T_EQ_U64(0, n);
	qpu_v3d_emit_free(e);
}

int main(void)
{
	test_same_as_text(QPU_GEN_V3D42);
	test_same_as_text(QPU_GEN_V3D71);
	test_errors();
	return t_done("test-v3dx-emit");
}
