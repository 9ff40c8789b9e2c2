// SPDX-License-Identifier: MIT
/*
 * vpm-pack: the VPM's 8- and 16-bit generic modes (vpm-pack.qasm, built
 * with libqpu/qasm/vpm.qinc): one QPU packs 64 integers into bytes and into
 * halfwords through the VPM, reads one byte of each word back laned, and
 * stores it all; the host checks every byte against the layout.
 *
 * Usage: vpm-pack [DEVICE]   (default $QPU_DEVICE, else /dev/qpu;
 * "emu" for the in-process emulator)
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "qpu.h"

#include "example.h"
#include "vpm-pack.qasm.h"

int main(int argc, char **argv)
{
	struct qpu_bo *code, *unif, *in, *out;
	struct qpu_job_result r;
	struct qpu_dev *dev;
	const uint8_t *bytes;
	const uint16_t *halves;
	const uint32_t *words;
	uint32_t *u, *x;
	uint64_t seqno;
	int i, ret = 1;

	dev = example_open(argc, argv, "8- and 16-bit values packed and unpacked by the VPM.");
	if (!dev)
		return 1;
	code = qpu_bo_new(dev, sizeof(vpm_pack_code));
	unif = qpu_bo_new(dev, 8);
	in = qpu_bo_new(dev, 64 * 4);
	out = qpu_bo_new(dev, 4 * 64);
	if (!code || !unif || !in || !out) {
		fprintf(stderr, "qpu_bo_new: %s\n", strerror(errno));
		goto out;
	}
	memcpy(qpu_bo_get_map(code), vpm_pack_code, sizeof(vpm_pack_code));
	x = qpu_bo_get_map(in);
	for (i = 0; i < 64; i++)
		x[i] = 0x12340000u + (uint32_t)i * 1031u;
	u = qpu_bo_get_map(unif);
	u[0] = qpu_bo_get_bus_addr(in);
	u[1] = qpu_bo_get_bus_addr(out);

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
	bytes = qpu_bo_get_map(out);		/* row 0: little-endian bytes */
	halves = (const uint16_t *)(bytes + 64);	/* rows 1 and 2 */
	words = (const uint32_t *)(bytes + 192);	/* row 3 */
	for (i = 0; i < 64; i++) {
		if (bytes[i] != (uint8_t)x[i] || halves[i] != (uint16_t)x[i] ||
		    (i < 16 && words[i] != (uint8_t)x[4 * i + 1])) {
			fprintf(stderr, "element %d: byte %#x, half %#x (of %#x)\n",
				i, bytes[i], halves[i], x[i]);
			ret = 1;
			goto out;
		}
	}
	printf("64 integers packed to bytes and halfwords in the VPM on %s\n",
	       qpu_dev_describe(dev));
out:
	qpu_bo_free(code);
	qpu_bo_free(unif);
	qpu_bo_free(in);
	qpu_bo_free(out);
	qpu_dev_close(dev);
	return ret;
}
