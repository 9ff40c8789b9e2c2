/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fixture of the qpu_nl_*_test.c kselftests: the device open, a
 * netlink socket with the family resolved, the programs the tests run in
 * buffers, the simulated V3D's hang knob off, and the configuration
 * parameters saved and put back. A kselftest fixture belongs to the file
 * that includes it, so it is a header; include it after
 * kselftest_harness.h.
 */
#ifndef QPU_NL_FIXTURE_H
#define QPU_NL_FIXTURE_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "qpu_nl.h"
#include "qpu_programs.h"
#include "qpu_util.h"

#define DEBUGFS QPU_DEBUGFS
#define PARAMS QPU_PARAMS

FIXTURE(nl) {
	struct nl nl;
	int fd;
	struct req q;
	struct reply r;
	struct qpu_test_bo end, loop, tmu, unif, data;
	long long saved[6];
};

/* In the order of enum qpu_a_config, from QPU_A_CONFIG_DEFAULT_TIMEOUT_MS. */
static const char * const config_params[] = {
	"default_timeout_ms", "max_timeout_ms", "max_bo_size",
	"client_mem_limit", "dev_mem_limit", "max_queued_jobs",
};

FIXTURE_SETUP(nl)
{
	char path[128];
	unsigned int i;

	self->fd = open(QPU_NODE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->fd) TH_LOG("open " QPU_NODE ": %s", strerror(errno));
	ASSERT_EQ(0, nl_open(&self->nl))
		TH_LOG("generic netlink family " QPU_GENL_NAME " not found");
	ASSERT_EQ(0, qpu_test_bo_new(self->fd, 4096, qpu_prog_end, sizeof(qpu_prog_end), &self->end));
	ASSERT_EQ(0, qpu_test_bo_new(self->fd, 4096, qpu_prog_loop, sizeof(qpu_prog_loop), &self->loop));
	ASSERT_EQ(0, qpu_test_bo_new(self->fd, 4096, qpu_prog_tmu_read, sizeof(qpu_prog_tmu_read), &self->tmu));
	ASSERT_EQ(0, qpu_test_bo_new(self->fd, 4096, NULL, 0, &self->unif));
	ASSERT_EQ(0, qpu_test_bo_new(self->fd, 4096, NULL, 0, &self->data));
	ASSERT_EQ(0, qpu_test_write(DEBUGFS "hang", "0"));
	for (i = 0; i < ARRAY_SIZE(config_params); i++) {
		snprintf(path, sizeof(path), PARAMS "%s", config_params[i]);
		self->saved[i] = qpu_test_read_ll(path);
		ASSERT_LT(0, self->saved[i]);
	}
}

FIXTURE_TEARDOWN(nl)
{
	char path[128], value[32];
	unsigned int i;

	qpu_test_write(DEBUGFS "hang", "0");
	for (i = 0; i < ARRAY_SIZE(config_params); i++) {
		snprintf(path, sizeof(path), PARAMS "%s", config_params[i]);
		snprintf(value, sizeof(value), "%lld", self->saved[i]);
		qpu_test_write(path, value);
	}
	close(self->nl.fd);
	close(self->fd);
}
#endif /* QPU_NL_FIXTURE_H */
