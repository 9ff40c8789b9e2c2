# SPDX-License-Identifier: MIT
# Library and tool tests: every selftests/lib/test-*.c is one program of
# named cases (testlib.h) linked with libqpu, every test-*.sh a script;
# run-tests.sh runs them all. "test-asm --list" names a program's cases,
# "test-asm labels errors" runs two of them.
# check-asan repeats the run in $(BUILD)/asan with ASan and UBSan. Set
# VC4ASM=/path/to/vc4asm to run test-vc4asm, which skips otherwise.

LIBTEST_SRCS := $(wildcard selftests/lib/test-*.c)
LIBTEST_BINS := $(LIBTEST_SRCS:selftests/lib/%.c=$(BUILD)/selftests/lib/%)
# Other fragments add host test scripts (and what they need built) to
# HOST_TEST_SCRIPTS and HOST_TEST_DEPS.
LIBTEST_SCRIPTS := $(wildcard selftests/lib/test-*.sh) $(HOST_TEST_SCRIPTS)

# libqpu-mailbox too: only test-mailbox takes anything from it.
$(BUILD)/selftests/lib/%: selftests/lib/%.c $(LIBQPU_A) $(QPU_TOOLS_A) $(MAILBOX_A)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_CFLAGS) -Itools/lib -MMD -MP -o $@ $< $(QPU_TOOLS_A) \
		$(MAILBOX_A) $(LIBQPU_A) $(LDFLAGS) -lm

# test-emu-runner registers a runner of its own through libqpu's private
# runtime/emudev.h (libqpu.a links it: the symbol is not exported).
$(BUILD)/selftests/lib/test-emu-runner: QPU_CFLAGS += -I$(CURDIR)/libqpu
# test-v3d-dev imports vgem's buffers (../kmod/vgem_buf.h: libdrm's <drm.h>).
$(BUILD)/selftests/lib/test-v3d-dev $(BUILD)/static/test-v3d-dev: QPU_CFLAGS += $(LIBQPU_DRM_CFLAGS)
# test-telemetry calls the firmware client (runtime/fwprop.c), libqpu-internal.
$(BUILD)/selftests/lib/test-telemetry $(BUILD)/static/test-telemetry: \
	QPU_CFLAGS += -I$(CURDIR)/libqpu -I$(CURDIR)/libqpu/core
# test-nn calls the window kernels (kernels/nn_kernels.h), libqpu-internal.
$(BUILD)/selftests/lib/test-nn $(BUILD)/static/test-nn: QPU_CFLAGS += -I$(CURDIR)/libqpu

# test-abi-v0.1 and -v0.2 check symbol versions: they link the shared library,
# found through its rpath, as an old program would.
$(BUILD)/selftests/lib/test-abi-v0.1 $(BUILD)/selftests/lib/test-abi-v0.2: \
		$(BUILD)/selftests/lib/test-abi-v%: selftests/lib/test-abi-v%.c $(LIBQPU_SO)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_CFLAGS) -MMD -MP -o $@ $< -L$(BUILD) -l:$(LIBQPU_SONAME) \
		-Wl,-rpath,$(BUILD) $(LDFLAGS)

# testlib-sample fails on purpose: test-runners.sh runs it to check the
# runner of named cases (testlib.h) and run-tests.sh's adding-up.
check-host: $(LIBTEST_BINS) $(BUILD)/selftests/lib/testlib-sample $(BUILD)/tools/qpu-dis $(BUILD)/tools/qpu-run \
		$(BUILD)/tools/qpu-as $(BUILD)/tools/qpu-check $(BUILD)/tools/qpu-demo $(HOST_TEST_DEPS) \
		$(BUILD)/tools/qpu-info $(QPUCTL) $(LIBQPU_SO) $(BUILD)/libqpu-uninstalled.pc
	$(Q)QPU_DIS=$(BUILD)/tools/qpu-dis QPUCTL=$(BUILD)/tools/qpuctl QPU_TEST_DATA=$(CURDIR)/selftests/lib/data \
		QPU_TEST_BIN=$(BUILD)/selftests/lib \
		sh selftests/lib/run-tests.sh $(LIBTEST_BINS) $(LIBTEST_SCRIPTS)

# libqpu and the tests that run on its emulator, built for 32-bit x86
# (gcc-12-multilib: tools/deps.sh m32), as libqpu runs on a 32-bit Raspberry
# Pi OS: 64-bit file offsets (runtime/kdev.c checks them when it compiles),
# the old callers' struct layouts (test-abi-v0.1, -v0.2: grown structs read
# as their releases laid them out on a 32-bit ABI too),
# the emulator's arithmetic, the same results (test-nn: the scales of
# quantized models, which the x87's excess precision once changed). The bootstrap assembler is
# the build machine's; on a kernel that runs no 32-bit program, qemu-i386
# (qemu-user) runs the tests. The kernel's <asm/...> headers serve both
# widths; gcc-multilib would link /usr/include/asm to them, but Debian 12
# declares it in conflict with the pi group's cross compilers, so the
# build links them in a directory of its own.
M32_TESTS := $(addprefix $(BUILD)/m32/selftests/lib/,test-runtime test-emu-runner test-abi-v0.1 test-abi-v0.2 \
	test-kernels test-emu-sys test-nn)
M32_ASM := /usr/include/$(shell $(CC) -print-multiarch)/asm
check-m32:
	$(Q)mkdir -p $(BUILD)/m32/include && ln -sfn $(M32_ASM) $(BUILD)/m32/include/asm
	$(Q)$(MAKE) --no-print-directory BUILD=$(BUILD)/m32 \
		CC="$(CC) -m32 -idirafter $(BUILD)/m32/include" CC_FOR_BUILD=$(CC) \
		$(M32_TESTS)
	$(Q)w=; $(firstword $(M32_TESTS)) --list >/dev/null 2>&1 || w="qemu-i386 -L /"; \
		TEST_WRAPPER="$$w" QPU_TEST_DATA=$(CURDIR)/selftests/lib/data \
		QPU_TEST_BIN=$(BUILD)/m32/selftests/lib sh selftests/lib/run-tests.sh $(M32_TESTS)

check-asan:
	$(Q)$(MAKE) --no-print-directory BUILD=$(BUILD)/asan SANITIZE=1 check-host

# The same tests with every emulator on its reference path (no predecoding,
# no fast paths), which the fast paths must match: test-emu-fuzz and
# fuzz-emu compare the two run by run, this runs every directed test too.
check-reference:
	$(Q)$(MAKE) --no-print-directory BUILD=$(BUILD)/reference EMU_REFERENCE=1 check-host

-include $(LIBTEST_BINS:=.d) $(BUILD)/selftests/lib/testlib-sample.d

# test-runtime (its capture cases against vivid, which kmod.mk loads),
# test-kernels, test-emu-tables, test-mailbox, test-nn and test-postproc also run in the VM,
# statically linked, on qpu.ko's simulated V3D: the same programs on both
# kinds of device.
VM_LIB_TESTS := test-runtime test-kernels test-emu-tables test-mailbox test-nn test-postproc
# test-v3d-dev and test-sgemm run on kmod/v3d_sim's nodes (selftests/v3d_sim/v3d_sim.mk).
VM_LIB_TESTS_STATIC := $(VM_LIB_TESTS:%=$(BUILD)/static/%) $(BUILD)/static/test-v3d-dev \
	$(BUILD)/static/test-sgemm
$(VM_LIB_TESTS_STATIC): $(BUILD)/static/%: selftests/lib/%.c $(LIBQPU_A) $(QPU_TOOLS_A) $(MAILBOX_A)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(filter-out -fsanitize%,$(ALL_CFLAGS)) -Itools/lib -static -o $@ $< \
		$(QPU_TOOLS_A) $(MAILBOX_A) $(LIBQPU_A) -lm
VM_CHECK_DEPS += $(VM_LIB_TESTS_STATIC)
VM_CHECK_PAYLOAD += $(foreach t,$(VM_LIB_TESTS),--copy $(BUILD)/static/$(t) --run "$(t) --device /dev/qpu")
# And libqpu/nn's window programs on kmod/v3d_sim's Pi 4 and Pi 5 nodes
# (v3d/dwconv.qasm, v3d/pool.qasm, v3d/dwconv_u8.qasm; V3DSIM_NODES:
# selftests/v3d_sim/v3d_sim.mk).
VM_CHECK_PAYLOAD += $(foreach n,$(V3DSIM_NODES),--run "test-nn --device $(n) \
	depthwise_and_pooling_on_the_qpus int8_depthwise_on_the_device")

# qpu-detect --camera in the VM (check-vm): vivid through the tiny detector,
# which the host generates (python3-onnx; without it the file is empty and
# the VM script skips, saying why).
VM_DETECT_MODEL := $(BUILD)/vm-detect/det.qnn
$(VM_DETECT_MODEL): libqpu/python/qpu/pipeline.py $(BUILD)/tools/qpu-nn $(LIBQPU_SO)
	$(Q)mkdir -p $(@D) && rm -f $@
	$(Q)if $(PYTHON) -c 'import onnx, numpy' 2>/dev/null; then \
		PYTHONPATH=$(CURDIR)/libqpu/python QPU_LIBRARY=$(LIBQPU_SO) \
			$(PYTHON) -m qpu.pipeline tiny-detector $(@D)/det.onnx && \
		PYTHON=$(PYTHON) PYTHONPATH=$(CURDIR)/libqpu/python QPU_LIBRARY=$(LIBQPU_SO) \
			$(BUILD)/tools/qpu-nn convert $(@D)/det.onnx $@ >/dev/null; \
	else : >$@; fi
VM_CHECK_DEPS += $(BUILD)/static/qpu-detect $(VM_DETECT_MODEL)
VM_CHECK_PAYLOAD += --copy $(BUILD)/static/qpu-detect --copy $(VM_DETECT_MODEL) \
	--copy $(CURDIR)/selftests/lib/qpu-detect-camera-vm.sh --run qpu-detect-camera-vm.sh
