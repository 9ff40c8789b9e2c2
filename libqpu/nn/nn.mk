# SPDX-License-Identifier: MIT
# libqpu/nn: neural networks (<qpu_nn.h>), part of libqpu; included by
# libqpu.mk after the sample kernels, whose sgemm its QPU backend calls.

QPU_NN_SRCS := $(wildcard libqpu/nn/*.c)

# check-host runs selftests/lib/test-qpu-nn.sh, which needs the tool.
HOST_TEST_DEPS += $(BUILD)/tools/qpu-nn
