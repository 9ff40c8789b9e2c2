# SPDX-License-Identifier: MIT
# libqpu/pipeline: camera pipelines (<qpu_pipeline.h>), part of libqpu;
# included by libqpu.mk after nn/, whose graphs its inference stage runs.

QPU_PIPELINE_SRCS := $(wildcard libqpu/pipeline/*.c)

# check-host runs selftests/lib/test-qpu-detect.sh, which needs the tools.
HOST_TEST_DEPS += $(BUILD)/tools/qpu-detect $(BUILD)/tools/qpu-nn
