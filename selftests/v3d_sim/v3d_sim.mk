# SPDX-License-Identifier: GPL-2.0
#
# qpu: the simulated v3d node (kmod/v3d_sim) in the VM. Builds v3d_sim.ko
# for the VM's kernel (flavour "v3dsim-vm") and the kselftests of its uapi
# (selftests/v3d_sim/*_test.c, static, with the kselftest harness that
# selftests/kmod/kmod.mk extracts), and adds both to `make check-vm`: the
# module is loaded with gen=42,71 beside qpu.ko, and the VM's init makes
# the /dev/dri/by-path links a Pi's udev makes.
#
# The tests include upstream's <drm/v3d_drm.h> from $(V3D_UAPI)
# (libqpu/libqpu.mk copies it from the installed kernel headers).

V3DSIM_VM_MODULE := $(BUILD)/mod/v3dsim-vm/v3d_sim.ko
V3DSIM_MODULE_ARGS ?= gen=42,71 vcio=1 hang_instructions=2097152
V3DSIM_TEST_SRCS := $(sort $(wildcard selftests/v3d_sim/*_test.c))
V3DSIM_TEST_HELPERS := $(filter-out $(V3DSIM_TEST_SRCS),$(sort $(wildcard selftests/v3d_sim/*.c)))
V3DSIM_TESTS := $(patsubst selftests/v3d_sim/%.c,$(BUILD)/selftests/v3d_sim/%,$(V3DSIM_TEST_SRCS))

.PHONY: v3dsim-vm-module

# The tests need the header that libqpu can do without.
V3DSIM_UAPI_CHECK = $(Q)test -r $(V3D_UAPI)/drm/v3d_drm.h || \
	{ echo "no kernel uapi v3d_drm.h: install linux-headers-amd64 ('make deps')" >&2; exit 1; }

# "+": kmod_build runs $(MAKE), which needs the jobserver.
v3dsim-vm-module:
	$(Q)$(CURDIR)/selftests/vm/vm-kernel.sh check "$(VM_KERNEL)" "$(VM_KDIR)"
	+$(call kmod_build,v3dsim-vm,$(VM_KDIR),,kmod/v3d_sim/Kbuild)

$(V3DSIM_TESTS): $(BUILD)/selftests/v3d_sim/%: selftests/v3d_sim/%.c \
		$(V3DSIM_TEST_HELPERS) $(KSFT_STAMP) $(LIBQPU_A) $(V3D_UAPI)/drm/.stamp
	$(V3DSIM_UAPI_CHECK)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -static $(KMOD_TEST_CFLAGS) -I$(V3D_UAPI) -Iselftests/v3d_sim -Iselftests/lib -Ilibqpu/core \
		-MMD -MP -MF $@.d -o $@ $< $(V3DSIM_TEST_HELPERS) $(LIBQPU_A) \
		$(LDFLAGS:-fsanitize%=)

selftests: $(V3DSIM_TESTS)

VM_CHECK_DEPS += v3dsim-vm-module $(V3DSIM_TESTS)
VM_CHECK_PAYLOAD += --module $(V3DSIM_VM_MODULE) --module-args "$(V3DSIM_MODULE_ARGS)" \
	$(addprefix --test ,$(V3DSIM_TESTS))

# libqpu's v3d backend on both nodes: test-v3d-dev, the program check-host
# runs on the emulated V3Ds, expecting the same results; the Pi 4's node by
# its by-path link, the Pi 5's by libqpu's search ("v3d:v3d71"); the sample
# kernels on both: test-kernels' cases (in the payload for /dev/qpu; every
# kernel at its small sizes on 1, 5 and all QPUs and at its default size,
# sgemm 96x363x256 among them) and test-sgemm's refusals. Their other tests
# run on the emulated V3Ds (test-kernels-v3d.sh): stream_tails alone is
# hundreds of jobs, most of a minute on a node under TCG.
# Then qpu-info and qpuctl v3d on them (test-v3d-tools-vm.sh; qpuctl.mk puts
# the static qpuctl in the payload).
V3DSIM_NODES := /dev/dri/by-path/platform-fec00000.v3d-render v3d:v3d71
VM_CHECK_DEPS += $(BUILD)/static/qpu-info $(QPUCTL_STATIC)
VM_CHECK_PAYLOAD += --copy $(BUILD)/static/test-v3d-dev --copy $(BUILD)/static/test-sgemm \
	$(foreach n,$(V3DSIM_NODES),--run "test-v3d-dev --device $(n)") \
	$(foreach n,$(V3DSIM_NODES),--run "test-kernels --device $(n) cases" \
		--run "test-sgemm --device $(n) bad") \
	--copy $(BUILD)/static/qpu-info --copy $(CURDIR)/selftests/v3d_sim/test-v3d-tools-vm.sh \
	--run "sh test-v3d-tools-vm.sh"
# Once the modules are unloaded: v3d_sim's refusals of bad parameters
# (pi5_qpus, gen) and its loads with good ones (test-v3d-sim-params-vm.sh).
VM_CHECK_PAYLOAD += --copy $(CURDIR)/selftests/v3d_sim/test-v3d-sim-params-vm.sh \
	--after-unload "sh test-v3d-sim-params-vm.sh"

-include $(V3DSIM_TESTS:=.d)

# make check-debug (selftests/debug/debug.mk): the module built for the
# debug kernel (KASAN, lockdep, kmemleak; its DRM, shmem helper and
# gpu-sched are built in, debug.config says why) and its kselftests, run
# after kmemleak's clear, so that a leak of the node's is found at the scan.
V3DSIM_DEBUG_MODULE := $(BUILD)/mod/v3dsim-debug/v3d_sim.ko

.PHONY: v3dsim-debug-module
v3dsim-debug-module: debug-kernel
	+$(call kmod_build,v3dsim-debug,$(DEBUG_KDIR),,kmod/v3d_sim/Kbuild)

DEBUG_CHECK_DEPS += v3dsim-debug-module $(V3DSIM_TESTS)
DEBUG_CHECK_PAYLOAD += --module $(V3DSIM_DEBUG_MODULE) --module-args "$(V3DSIM_MODULE_ARGS)" \
	$(addprefix --test ,$(V3DSIM_TESTS))
