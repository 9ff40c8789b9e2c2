# SPDX-License-Identifier: GPL-2.0
#
# The Raspberry Pi targets: `cross` builds qpu.ko for Debian's armel rpi and
# arm64 kernels, failing on any compiler or modpost warning; `check-pi` adds
# the raspi0 boots of smoke.sh: plain, with the qpu-v3d overlay, beside vc4,
# and "sim", where the kselftests of selftests/kmod, cross-built below, run
# on the simulated V3D of a 32-bit kernel. Kernel headers, the rpi kernel
# image and busybox come from Debian's archive through fetch.sh, cached per ABI in
# PI_CACHE, outside the tree so that `make clean` and fresh clones on this
# machine reuse them. $(BUILD)/pi/kdir-<flavour> links to the headers used.

# The qpu-v3d overlay (dtbo, install-pi): the smoke test boots with it too.
include kmod/dts/dts.mk

PI_CACHE ?= $(QPU_CACHE)/pi
PI_DIR := $(BUILD)/pi
PI_FETCH := $(CURDIR)/selftests/pi/fetch.sh

.PHONY: pi-cross-rpi-armel pi-cross-arm64 pi-kmod-rpi-armel pi-kmod-arm64 check-pi-prereqs

cross: pi-cross-rpi-armel pi-cross-arm64

# The kselftests of selftests/kmod that the "sim" boot runs on the rpi
# kernel (qpu.ko with sim=1), cross-built for armel like the VM's: static,
# with the same flags and helpers (kmod.mk's kmod_test_link). Those that
# call libqpu (qpu_float_test the core, qpu_isolation_test the assembler)
# find it in an archive of LIBQPU_BASE_SRCS (libqpu without its sample
# kernels, which need the host's bootstrap assembler) built for the
# target, from which the linker takes only what they call.
PI_TEST_NAMES ?= $(patsubst selftests/kmod/%.c,%,$(KMOD_TEST_SRCS))
# each program's time limit in the sim boot, as in the VM (selftests/kmod/settings)
PI_SIM_STEP_TIMEOUT ?= $(VM_STEP_TIMEOUT)
PI_TEST_CC := arm-linux-gnueabi-gcc
PI_TEST_AR := arm-linux-gnueabi-ar
PI_TEST_DIR := $(PI_DIR)/selftests
PI_TESTS := $(PI_TEST_NAMES:%=$(PI_TEST_DIR)/%)
PI_LIBQPU_OBJS := $(LIBQPU_BASE_SRCS:%.c=$(PI_TEST_DIR)/%.o)
PI_LIBQPU_A := $(PI_TEST_DIR)/libqpu-base.a

$(PI_LIBQPU_OBJS): $(PI_TEST_DIR)/%.o: %.c
	$(Q)mkdir -p $(@D)
	$(Q)$(PI_TEST_CC) $(filter-out -fsanitize%,$(ALL_CFLAGS)) $(LIBQPU_OBJ_CFLAGS) \
		-MMD -MP -c -o $@ $<

$(PI_LIBQPU_A): $(PI_LIBQPU_OBJS)
	$(Q)rm -f $@
	$(Q)$(PI_TEST_AR) rcs $@ $^

$(PI_TESTS): $(PI_TEST_DIR)/%: selftests/kmod/%.c $(KMOD_TEST_HELPERS) \
		$(KSFT_STAMP) $(PI_LIBQPU_A)
	$(call kmod_test_link,$(PI_TEST_CC),$(PI_LIBQPU_A))

-include $(PI_TESTS:=.d) $(PI_LIBQPU_OBJS:.o=.d)

# The guest's timers under a storm of short ones, run first in the sim boot:
# it freezes a raspi0 guest whose clock follows the host's (vm/raspi0.sh).
PI_TIMERS_TEST := $(PI_TEST_DIR)/raspi0_timers_test

$(PI_TIMERS_TEST): selftests/pi/raspi0_timers_test.c
	$(Q)mkdir -p $(@D)
	$(Q)$(PI_TEST_CC) -static $(filter-out -fsanitize%,$(ALL_CFLAGS)) -o $@ $<

# What check-pi runs, built (check.sh builds it first when check-pi runs
# beside another suite).
check-pi-prereqs: cross dtbo $(PI_TIMERS_TEST) $(PI_TESTS)

check-pi: check-pi-prereqs
	$(Q)PI_SIM_STEP_TIMEOUT=$(PI_SIM_STEP_TIMEOUT) \
		$(CURDIR)/selftests/pi/smoke.sh $(PI_CACHE) $(PI_DIR) \
		$(BUILD)/mod/rpi-armel/qpu.ko $(PI_DIR)/kdir-rpi-armel $(QPU_DTBO) \
		$(PI_TIMERS_TEST) $(PI_TESTS)

# $(call pi_cross,flavour): fetch the flavour's headers, build qpu.ko through
# pi-kmod-<flavour> with the output kept in $(PI_DIR)/build-<flavour>.log, and
# fail on any warning. A failed build's tree is removed so that the next run
# compiles (and reports) everything again instead of finding it up to date;
# so is the tree of a flavour whose headers changed (a new ABI), since kbuild
# would not notice the switch behind the kdir-<flavour> link.
define pi_cross
	$(Q)mkdir -p $(PI_DIR)
	$(Q)kdir=$$($(PI_FETCH) $(PI_CACHE) headers $(1)) && \
	if [ "$$(readlink $(PI_DIR)/kdir-$(1))" != "$$kdir" ]; then \
		rm -rf $(BUILD)/mod/$(1); \
		ln -sfn "$$kdir" $(PI_DIR)/kdir-$(1); \
	fi
	+$(Q)log=$(PI_DIR)/build-$(1).log; \
	$(MAKE) --no-print-directory pi-kmod-$(1) >$$log 2>&1; rc=$$?; \
	cat $$log; \
	if [ $$rc != 0 ]; then \
		echo "cross: qpu.ko for $(1) failed (log: $$log)" >&2; \
		rm -rf $(BUILD)/mod/$(1); exit 1; \
	elif grep -qi 'warning:' $$log; then \
		echo "cross: qpu.ko for $(1) built with warnings (log: $$log):" >&2; \
		grep -i 'warning:' $$log >&2; \
		rm -rf $(BUILD)/mod/$(1); exit 1; \
	fi
	$(Q)echo "cross: $(BUILD)/mod/$(1)/qpu.ko for $$(readlink $(PI_DIR)/kdir-$(1) | sed 's|.*/linux-headers-||')"
endef

pi-cross-rpi-armel:
	$(call pi_cross,rpi-armel)

pi-cross-arm64:
	$(call pi_cross,arm64)

pi-kmod-rpi-armel:
	+$(call kmod_build,rpi-armel,$(PI_DIR)/kdir-rpi-armel,ARCH=arm CROSS_COMPILE=arm-linux-gnueabi-)

pi-kmod-arm64:
	+$(call kmod_build,arm64,$(PI_DIR)/kdir-arm64,ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-)
