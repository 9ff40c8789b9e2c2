// SPDX-License-Identifier: MIT
/*
 * emit-vecadd: a vector add whose QPU code is written at run time with the
 * C assembler API (qpu_emit.h). Each QPU gets its own program, with its
 * VPM row built into the setup words, so the programs need no row uniform:
 * it loads 16 floats of A and of B through TMU0, adds them and stores the
 * sums to C through the VPM and a DMA write.
 *
 * Usage: emit-vecadd [DEVICE]   (default $QPU_DEVICE, else /dev/qpu;
 * "emu" for the in-process emulator)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qpu.h"

#include "example.h"
#include "qpu_emit.h"

#define QPUS	12
#define N	(QPUS * 16)

/* The program of QPU @k; uniforms: address of its A, B and C slices. */
static struct qpu_emit *vecadd_program(unsigned int k)
{
	struct qpu_emit *e = qpu_emit_new();

	if (!e)
		return NULL;
	qpu_emit_shl(e, QPU_R1, QPU_ELEM_NUM, qpu_imm(2));	/* byte offset */
	qpu_emit_iadd(e, QPU_TMU0_S, QPU_R1, QPU_UNIF);		/* A[i] */
	qpu_emit_iadd(e, QPU_TMU0_S, QPU_R1, QPU_UNIF);		/* B[i] */
	qpu_emit_mov(e, QPU_RA(1), QPU_UNIF);			/* C */
	qpu_emit_nop(e);
	qpu_emit_sig(e, QPU_SIG_LDTMU0);			/* r4 = A[i] */
	qpu_emit_mov(e, QPU_R2, QPU_R4);
	qpu_emit_sig(e, QPU_SIG_LDTMU0);			/* r4 = B[i] */
	qpu_emit_fadd(e, QPU_R3, QPU_R2, QPU_R4);

	qpu_emit_vpm_write_setup(e, 1, QPU_VPM_H32, k, 0, 0);
	qpu_emit_mov(e, QPU_VPM, QPU_R3);
	qpu_emit_vdw_setup(e, 1, 16, QPU_VPM_H32, k, 0, 0);
	qpu_emit_mov(e, QPU_VW_ADDR, QPU_RA(1));		/* start the DMA */
	qpu_emit_nop(e);
	qpu_emit_read(e, QPU_VW_WAIT);
	qpu_emit_thrend(e);
	return e;
}

static struct qpu_bo *bo_new(struct qpu_dev *dev, size_t size)
{
	struct qpu_bo *bo = qpu_bo_new(dev, size);

	if (!bo)
		fprintf(stderr, "emit-vecadd: qpu_bo_new: %s\n", strerror(errno));
	return bo;
}

int main(int argc, char **argv)
{
	struct qpu_program_ref progs[QPUS];
	struct qpu_bo *code = NULL, *unif = NULL, *a = NULL, *b = NULL, *c = NULL;
	struct qpu_bo *data[3];
	struct qpu_job_desc job = { .programs = progs, .program_count = QPUS,
				    .bos = data, .bo_count = 3, .in_fence_fd = -1 };
	struct qpu_job_result r;
	struct qpu_dev *dev;
	float *fa, *fb, *fc;
	uint32_t *u;
	uint64_t seqno;
	unsigned int k, i, bad = 0;
	int ret, status = 1;

	dev = example_open(argc, argv, "A vector add on 12 QPUs, its program built at run time with <qpu_emit.h>.");
	if (!dev)
		return 1;
	code = bo_new(dev, 4096 * QPUS);
	unif = bo_new(dev, 4096);
	a = bo_new(dev, N * 4);
	b = bo_new(dev, N * 4);
	c = bo_new(dev, N * 4);
	if (!code || !unif || !a || !b || !c)
		goto out;

	for (k = 0; k < QPUS; k++) {
		struct qpu_emit *e = vecadd_program(k);
		const uint64_t *words;
		size_t n;

		if (!e || qpu_emit_finish(e)) {
			fprintf(stderr, "emit-vecadd: %s\n",
				e ? qpu_emit_error(e, NULL) : strerror(ENOMEM));
			qpu_emit_free(e);
			goto out;
		}
		words = qpu_emit_words(e, &n);
		memcpy((char *)qpu_bo_get_map(code) + 4096 * k, words, n * 8);
		qpu_emit_free(e);
		progs[k] = (struct qpu_program_ref){
			.code = code, .code_offset = 4096 * k,
			.uniforms = unif, .uniforms_offset = 12 * k,
			.uniforms_length = 12,
		};
	}

	u = qpu_bo_get_map(unif);
	fa = qpu_bo_get_map(a);
	fb = qpu_bo_get_map(b);
	fc = qpu_bo_get_map(c);
	for (k = 0; k < QPUS; k++) {
		u[3 * k + 0] = qpu_bo_get_bus_addr(a) + 64 * k;
		u[3 * k + 1] = qpu_bo_get_bus_addr(b) + 64 * k;
		u[3 * k + 2] = qpu_bo_get_bus_addr(c) + 64 * k;
	}
	for (i = 0; i < N; i++) {
		fa[i] = (float)i * 0.5f;
		fb[i] = 1000.0f - (float)i;
	}
	data[0] = a;
	data[1] = b;
	data[2] = c;
	ret = qpu_submit(dev, &job, &seqno);
	if (!ret)
		ret = qpu_wait(dev, seqno, 10000, &r);
	if (ret) {
		fprintf(stderr, "emit-vecadd: %s\n", strerror(-ret));
		goto out;
	}
	if (r.status != QPU_STATUS_DONE) {
		fprintf(stderr, "emit-vecadd: the job ended: %s\n",
			qpu_job_status_str(r.status));
		goto out;
	}
	for (i = 0; i < N; i++)
		if (fc[i] != fa[i] + fb[i]) {
			if (bad++ < 5)
				fprintf(stderr, "emit-vecadd: C[%u] = %g, not %g\n", i,
					fc[i], fa[i] + fb[i]);
		}
	printf("emit-vecadd: %u sums on %u QPUs (%s): %s\n", N, QPUS,
	       qpu_dev_describe(dev), bad ? "wrong" : "ok");
	status = bad ? 1 : 0;
out:
	qpu_bo_free(code);
	qpu_bo_free(unif);
	qpu_bo_free(a);
	qpu_bo_free(b);
	qpu_bo_free(c);
	qpu_dev_close(dev);
	return status;
}
