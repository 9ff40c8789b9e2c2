// SPDX-License-Identifier: MIT
/*
 * transpose: the VPM and VCD DMA helpers at work (transpose.qasm, built
 * with libqpu/qasm/vpm.qinc and dma.qinc): one QPU transposes the 16x16
 * block at row 8, column 4 of a 32x32 float matrix into the top-left
 * corner of another 32x32 matrix. The DMA store's setup words are built
 * here in C with qpu_vpm.h, the helpers' C side; the QPU program builds the
 * others with the assembler's functions.
 *
 * Usage: transpose [DEVICE]   (default $QPU_DEVICE, else /dev/qpu;
 * "emu" for the in-process emulator)
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "qpu.h"

#include "example.h"
#include "qpu_vpm.h"
#include "transpose.qasm.h"

#define DIM	32	/* floats per row of both matrices */

int main(int argc, char **argv)
{
	struct qpu_bo *code, *unif, *in, *out;
	struct qpu_dev *dev;
	struct qpu_job_result r;
	uint32_t *u;
	float *a, *b;
	uint64_t seqno;
	int i, j, ret = 1;

	dev = example_open(argc, argv, "A matrix transposed through the VPM with strided DMA.");
	if (!dev)
		return 1;
	code = qpu_bo_new(dev, sizeof(transpose_code));
	unif = qpu_bo_new(dev, 64);
	in = qpu_bo_new(dev, DIM * DIM * 4);
	out = qpu_bo_new(dev, DIM * DIM * 4);
	if (!code || !unif || !in || !out) {
		fprintf(stderr, "qpu_bo_new: %s\n", strerror(errno));
		goto out;
	}
	memcpy(qpu_bo_get_map(code), transpose_code, sizeof(transpose_code));
	a = qpu_bo_get_map(in);
	for (i = 0; i < DIM * DIM; i++)
		a[i] = (float)i;

	u = qpu_bo_get_map(unif);
	u[0] = qpu_bo_get_bus_addr(in) + (8 * DIM + 4) * 4;	/* block (8, 4) */
	u[1] = DIM * 4;						/* its row pitch */
	u[2] = qpu_bo_get_bus_addr(out);
	/* 16 rows of 16 words from VPM rows 16.., then 16 floats skipped */
	u[3] = qpu_vdw_setup0(16, 16, qpu_vdw_dma(true, QPU_VPM_SIZE_32, 16, 0, 0));
	u[4] = qpu_vdw_setup1((DIM - 16) * 4);

	struct qpu_program_ref prog = { .code = code, .uniforms = unif };
	struct qpu_bo *bos[] = { in, out };
	struct qpu_job_desc job = {
		.programs = &prog, .program_count = 1, .bos = bos,
		.bo_count = 2, .in_fence_fd = -1,
	};

	ret = qpu_submit(dev, &job, &seqno);
	if (!ret)
		ret = qpu_wait(dev, seqno, 10000, &r);
	if (ret || r.status != QPU_STATUS_DONE) {
		fprintf(stderr, "job: %s\n", ret ? strerror(-ret) :
			qpu_job_status_str(r.status));
		ret = 1;
		goto out;
	}
	b = qpu_bo_get_map(out);
	for (i = 0; i < DIM; i++) {
		for (j = 0; j < DIM; j++) {
			float e = i < 16 && j < 16 ? a[(8 + j) * DIM + 4 + i] : 0;

			if (b[i * DIM + j] != e) {
				fprintf(stderr, "out[%d][%d] = %g, expected %g\n",
					i, j, b[i * DIM + j], e);
				ret = 1;
				goto out;
			}
		}
	}
	printf("16x16 block transposed through the VPM on %s\n",
	       qpu_dev_describe(dev));
out:
	qpu_bo_free(code);
	qpu_bo_free(unif);
	qpu_bo_free(in);
	qpu_bo_free(out);
	qpu_dev_close(dev);
	return ret;
}
