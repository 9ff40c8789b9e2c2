# SPDX-License-Identifier: MIT
# libqpu/pipeline: camera pipelines (<qpu_pipeline.h>), part of libqpu;
# included by libqpu.mk after nn/, whose graphs its inference stage runs.

QPU_PIPELINE_SRCS := $(wildcard libqpu/pipeline/*.c)
