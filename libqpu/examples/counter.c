// SPDX-License-Identifier: MIT
/*
 * counter: the semaphore and mutex helpers at work (counter.qasm, built
 * with libqpu/qasm/sync.qinc): 12 programs add 1, 2, ..., 12 to one shared
 * VPM row under the mutex; the master program clears the row first, waits
 * for all of them through semaphore 0 and stores the row. Every lane must
 * end at 78. Also the uniform layout idiom: each program's uniforms are a
 * window of one buffer, in the order the program reads them.
 *
 * Usage: counter [DEVICE]   (default $QPU_DEVICE, else /dev/qpu;
 * "emu" for the in-process emulator)
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "qpu.h"

#include "example.h"
#include "counter.qasm.h"

#define QPUS		12
#define UNIFORMS	5	/* value, master, programs - 1, programs, result */

int main(int argc, char **argv)
{
	struct qpu_program_ref progs[QPUS];
	struct qpu_bo *code, *unif, *out;
	struct qpu_job_result r;
	struct qpu_dev *dev;
	const uint32_t *row;
	uint32_t *u;
	uint64_t seqno;
	int k, ret = 1;

	dev = example_open(argc, argv, "Twelve QPUs count under the mutex and meet at a semaphore join.");
	if (!dev)
		return 1;
	code = qpu_bo_new(dev, sizeof(counter_code));
	unif = qpu_bo_new(dev, QPUS * UNIFORMS * 4);
	out = qpu_bo_new(dev, 64);
	if (!code || !unif || !out) {
		fprintf(stderr, "qpu_bo_new: %s\n", strerror(errno));
		goto out;
	}
	memcpy(qpu_bo_get_map(code), counter_code, sizeof(counter_code));
	u = qpu_bo_get_map(unif);
	for (k = 0; k < QPUS; k++) {
		uint32_t *p = u + k * UNIFORMS;

		p[0] = k + 1;
		p[1] = k == 0;
		p[2] = QPUS - 1;
		p[3] = QPUS;
		p[4] = qpu_bo_get_bus_addr(out);
		progs[k] = (struct qpu_program_ref){
			.code = code, .uniforms = unif,
			.uniforms_offset = k * UNIFORMS * 4,
			.uniforms_length = UNIFORMS * 4,
		};
	}

	struct qpu_job_desc job = {
		.programs = progs, .program_count = QPUS, .bos = &out,
		.bo_count = 1, .in_fence_fd = -1,
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
	row = qpu_bo_get_map(out);
	for (k = 0; k < 16; k++) {
		if (row[k] != QPUS * (QPUS + 1) / 2) {
			fprintf(stderr, "lane %d: %u, expected %d\n", k, row[k],
				QPUS * (QPUS + 1) / 2);
			ret = 1;
			goto out;
		}
	}
	printf("%d programs counted to %u under the mutex on %s\n", QPUS,
	       row[0], qpu_dev_describe(dev));
out:
	qpu_bo_free(code);
	qpu_bo_free(unif);
	qpu_bo_free(out);
	qpu_dev_close(dev);
	return ret;
}
