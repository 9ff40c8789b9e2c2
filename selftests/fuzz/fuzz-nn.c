// SPDX-License-Identifier: MIT
/*
 * fuzz-nn: the .qnn loader (libqpu/nn/format.c and the operators' checks).
 * Any bytes: loading either succeeds or fails with EINVAL or ENOMEM and a
 * message, never a crash; a graph that loads and is small enough to run
 * quickly is bound to the CPU and run on its fast path and its reference.
 */
#include <errno.h>
#include <string.h>

#include "qpu_nn.h"
#include "fuzz.h"

/* Graphs larger than this are loaded only: running them would be slow. */
#define RUN_MACS (1u << 20)
#define RUN_BYTES (1u << 22)

static void run(const uint8_t *data, size_t size, unsigned int flags)
{
	struct qpu_nn_graph *g = qpu_nn_load_mem(data, size, NULL, 0);
	struct qpu_nn_tensor_info ti;
	unsigned int i;

	if (!g)
		return;
	if (qpu_nn_bind(g, NULL, flags) == 0) {
		for (i = 0; i < qpu_nn_input_count(g); i++)
			if (qpu_nn_input(g, i, &ti) == 0)
				memset(ti.data, 0x3c, ti.bytes);
		FUZZ_CHECK(qpu_nn_run(g) == 0, "run: %s", qpu_nn_last_error(g));
	}
	qpu_nn_free(g);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct qpu_nn_node_info ni;
	struct qpu_nn_graph *g;
	uint64_t macs = 0, bytes = 0;
	char err[256] = "";
	unsigned int i;

	g = qpu_nn_load_mem(data, size, err, sizeof(err));
	if (!g) {
		FUZZ_CHECK(errno == EINVAL || errno == ENOMEM, "errno %d", errno);
		FUZZ_CHECK(errno == ENOMEM || err[0], "a refusal without a message");
		FUZZ_CHECK(strlen(err) < sizeof(err), "message not terminated");
		return 0;
	}
	for (i = 0; i < qpu_nn_node_count(g); i++) {
		FUZZ_CHECK(qpu_nn_node(g, i, &ni) == 0, "node %u", i);
		macs += ni.macs;
		bytes += ni.bytes;
	}
	for (i = 0; i < qpu_nn_input_count(g); i++) {
		struct qpu_nn_tensor_info ti;

		FUZZ_CHECK(qpu_nn_input(g, i, &ti) == 0, "input %u", i);
		bytes += ti.bytes;
	}
	qpu_nn_free(g);
	if (macs <= RUN_MACS && bytes <= RUN_BYTES) {
		run(data, size, 0);
		run(data, size, QPU_NN_BIND_REFERENCE);
	}
	return 0;
}
