# SPDX-License-Identifier: GPL-2.0
#
# The Raspberry Pi targets: `cross` builds qpu.ko for Debian's armel rpi and
# arm64 kernels, failing on any compiler or modpost warning; `check-pi` adds
# the raspi0 smoke test (smoke.sh): plain, with the qpu-v3d overlay, and
# beside vc4. Kernel headers, the rpi kernel image and
# busybox come from Debian's archive through fetch.sh, cached per ABI in
# PI_CACHE, outside the tree so that `make clean` and fresh clones on this
# machine reuse them. $(BUILD)/pi/kdir-<flavour> links to the headers used.

# The qpu-v3d overlay (dtbo, install-pi): the smoke test boots with it too.
include kmod/dts/dts.mk

PI_CACHE ?= $(if $(HOME),$(or $(XDG_CACHE_HOME),$(HOME)/.cache)/qpu/pi,$(BUILD)/pi/cache)
PI_DIR := $(BUILD)/pi
PI_FETCH := $(CURDIR)/selftests/pi/fetch.sh

.PHONY: pi-cross-rpi-armel pi-cross-arm64 pi-kmod-rpi-armel pi-kmod-arm64

cross: pi-cross-rpi-armel pi-cross-arm64

check-pi: cross dtbo
	$(Q)$(CURDIR)/selftests/pi/smoke.sh $(PI_CACHE) $(PI_DIR) \
		$(BUILD)/mod/rpi-armel/qpu.ko $(PI_DIR)/kdir-rpi-armel $(QPU_DTBO)

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
