# SPDX-License-Identifier: MIT
# libqpu/nn: neural networks (<qpu_nn.h>), part of libqpu; included by
# libqpu.mk after the sample kernels, whose sgemm its QPU backend calls.

QPU_NN_SRCS := $(wildcard libqpu/nn/*.c)

# check-host runs selftests/lib/test-qpu-nn.sh, which needs the tool.
HOST_TEST_DEPS += $(BUILD)/tools/qpu-nn

# Opt-in, outside make check (minutes): MobileNet v1 0.5 and 1.0 at 224x224
# on the CPU and on the emulator's QPUs against the numpy reference, and
# bench-nn: qpu-nn bench of MobileNet v1 (NN_WIDTH, default 1.0) measured
# here and modelled on the boards (NN_BOARDS, default pi1,pi3,pi4,pi5).
# make bench runs bench-nn: the MobileNet figures of libqpu/nn/README.md.
NN_WIDTH ?= 1.0
NN_BOARDS ?= pi1,pi3,pi4,pi5
.PHONY: check-nn-long bench-nn
bench: bench-nn
check-nn-long: $(LIBQPU_SO)
	$(Q)$(CURDIR)/tools/deps.sh python
	$(Q)QPU_NN_LONG=1 QPU_LIBRARY=$(LIBQPU_SO) QPU_TEST_DEVICE=emu \
		$(PYTHON) libqpu/python/tests/run.py libqpu/python/tests/test_nn.py -k mobilenet

bench-nn: $(LIBQPU_SO) $(BUILD)/tools/qpu-nn
	$(Q)$(CURDIR)/tools/deps.sh python
	$(Q)mkdir -p $(BUILD)/nn
	$(Q)QPU_LIBRARY=$(LIBQPU_SO) PYTHONPATH=$(CURDIR)/libqpu/python:$(CURDIR)/libqpu/python/tests \
		$(PYTHON) -c 'import sys, onnx, test_nn; \
		onnx.save(test_nn.mobilenet_v1(width=float(sys.argv[1])), sys.argv[2])' \
		$(NN_WIDTH) $(BUILD)/nn/mobilenet_v1_$(NN_WIDTH).onnx
	$(Q)QPU_LIBRARY=$(LIBQPU_SO) PYTHONPATH=$(CURDIR)/libqpu/python PYTHON=$(PYTHON) \
		$(BUILD)/tools/qpu-nn bench -b $(NN_BOARDS) $(BUILD)/nn/mobilenet_v1_$(NN_WIDTH).onnx

# bench-nn-xnnpack: the CPU backend's MobileNet v1 layers against XNNPACK
# (selftests/bench/nn-xnnpack.c; Debian's libxnnpack-dev).
NN_XNNPACK_BENCH := $(BUILD)/selftests/bench/nn-xnnpack
.PHONY: bench-nn-xnnpack
$(NN_XNNPACK_BENCH): selftests/bench/nn-xnnpack.c $(LIBQPU_A)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_CFLAGS) -Iselftests/lib -o $@ $< $(LIBQPU_A) -lXNNPACK $(LDFLAGS) -lm

bench-nn-xnnpack:
	$(Q)$(CURDIR)/tools/deps.sh xnnpack
	$(Q)$(MAKE) --no-print-directory $(NN_XNNPACK_BENCH)
	$(Q)$(NN_XNNPACK_BENCH)

# bench-nn-int8 (make bench): MobileNet's classifier (1024 -> 1000, one
# image) as a float MatMul and as a QLinearMatMul, both on the QPUs,
# modelled on the boards: INT8's quarter of the bytes on a memory-bound
# layer (libqpu/nn/README.md, "INT8 on the QPUs"); then MobileNet v1
# (NN_WIDTH) QDQ-quantized as quantize_static writes it, run as the integer
# operators (--qdq-int8) and literally in float (the default), planned
# automatically: time and bytes per node and in total ("QDQ models").
.PHONY: bench-nn-int8
bench: bench-nn-int8
bench-nn-int8: $(LIBQPU_SO) $(BUILD)/tools/qpu-nn
	$(Q)$(CURDIR)/tools/deps.sh python
	$(Q)mkdir -p $(BUILD)/nn
	$(Q)QPU_LIBRARY=$(LIBQPU_SO) PYTHONPATH=$(CURDIR)/libqpu/python:$(CURDIR)/libqpu/python/tests \
		$(PYTHON) -c 'import sys, onnx, test_nn; q, f = test_nn.classifier_pair(); \
		onnx.save(q, sys.argv[1]); onnx.save(f, sys.argv[2])' \
		$(BUILD)/nn/classifier_int8.onnx $(BUILD)/nn/classifier_float.onnx
	$(Q)for m in float int8; do \
		QPU_LIBRARY=$(LIBQPU_SO) PYTHONPATH=$(CURDIR)/libqpu/python PYTHON=$(PYTHON) \
		$(BUILD)/tools/qpu-nn bench --qpu-all -n 1 -b $(NN_BOARDS) \
			$(BUILD)/nn/classifier_$$m.onnx || exit 1; done
	$(Q)QPU_LIBRARY=$(LIBQPU_SO) PYTHONPATH=$(CURDIR)/libqpu/python:$(CURDIR)/libqpu/python/tests \
		$(PYTHON) -c 'import sys, onnx, test_nn; w = float(sys.argv[1]); \
		m = test_nn.mobilenet_v1(width=w); x = test_nn.f32(1, 3, 224, 224); \
		onnx.save(test_nn.qdq_quantize(m, x), sys.argv[2])' \
		$(NN_WIDTH) $(BUILD)/nn/mobilenet_v1_$(NN_WIDTH)_qdq.onnx
	$(Q)for opt in "" --qdq-int8; do \
		echo "MobileNet v1 $(NN_WIDTH) QDQ, $${opt:-literal float (the default)}: MMAC, MB, ms" \
			"measured here, ms modelled on $(NN_BOARDS)"; \
		QPU_LIBRARY=$(LIBQPU_SO) PYTHONPATH=$(CURDIR)/libqpu/python PYTHON=$(PYTHON) \
		$(BUILD)/tools/qpu-nn bench $$opt -n 1 -b $(NN_BOARDS) \
			$(BUILD)/nn/mobilenet_v1_$(NN_WIDTH)_qdq.onnx >$(BUILD)/nn/qdq_bench.txt || exit 1; \
		tail -n 1 $(BUILD)/nn/qdq_bench.txt; done
