# SPDX-License-Identifier: GPL-2.0
#
# The Raspberry Pi side of qpu.ko outside the module itself: `dtbo` builds
# the qpu-v3d device-tree overlay (kmod/dts/qpu-v3d-overlay.dts) that hands
# the V3D to qpu; `install-pi` installs it into the firmware's overlay
# directory with the module's modules-load.d and modprobe.d files;
# `dkms-src` lays out the sources for DKMS. Included by selftests/pi/pi.mk;
# see kmod/README.md.

DTC ?= dtc
QPU_DTBO := $(BUILD)/dts/qpu-v3d.dtbo
OVERLAYDIR ?= /boot/firmware/overlays
MODULESLOADDIR ?= /etc/modules-load.d
MODPROBEDIR ?= /etc/modprobe.d

.PHONY: dtbo install-pi

dtbo: $(QPU_DTBO)

# -@ keeps the overlay's label references (&v3d) resolvable by the firmware
# and fdtoverlay; any dtc warning fails the build, as for qpu.ko.
$(QPU_DTBO): kmod/dts/qpu-v3d-overlay.dts
	$(Q)command -v $(DTC) >/dev/null || \
		{ echo "$(DTC) not found: apt-get install device-tree-compiler" >&2; exit 1; }
	$(Q)mkdir -p $(@D)
	$(Q)$(DTC) -@ -I dts -O dtb -o $@.tmp $< 2>$@.log; rc=$$?; cat $@.log >&2; \
	if [ $$rc != 0 ] || [ -s $@.log ]; then rm -f $@.tmp; exit 1; fi
	$(Q)mv $@.tmp $@
	$(Q)rm -f $@.log
	$(Q)echo "dtbo: $@"

# On the Pi, after `make install`: the overlay, qpu loaded at boot, and
# its options (all commented out by default).
install-pi: $(QPU_DTBO)
	install -D -m 644 $(QPU_DTBO) $(DESTDIR)$(OVERLAYDIR)/qpu-v3d.dtbo
	install -D -m 644 kmod/qpu-modules-load.conf $(DESTDIR)$(MODULESLOADDIR)/qpu.conf
	install -D -m 644 kmod/qpu-modprobe.conf $(DESTDIR)$(MODPROBEDIR)/qpu.conf

# DKMS: the module's sources and kmod/dkms.conf in $(DKMS_SRC), from where
# `dkms add qpu/<version>` and `dkms install qpu/<version>` build qpu.ko
# for each installed kernel.
QPU_DKMS_VERSION ?= $(or $(LIBQPU_VERSION),0.1.0)
DKMS_SRC ?= /usr/src/qpu-$(QPU_DKMS_VERSION)

.PHONY: dkms-src

dkms-src:
	$(Q)rm -rf $(DESTDIR)$(DKMS_SRC)
	$(Q)mkdir -p $(DESTDIR)$(DKMS_SRC)/libqpu
	$(Q)cp -r Kbuild kmod uapi $(DESTDIR)$(DKMS_SRC)/
	$(Q)rm -rf $(DESTDIR)$(DKMS_SRC)/kmod/v3d_sim	# the VM's simulated v3d: never packaged
	$(Q)cp -r libqpu/core $(DESTDIR)$(DKMS_SRC)/libqpu/
	$(Q)sed 's/^PACKAGE_VERSION=.*/PACKAGE_VERSION="$(QPU_DKMS_VERSION)"/' \
		kmod/dkms.conf >$(DESTDIR)$(DKMS_SRC)/dkms.conf
	$(Q)echo "dkms-src: $(DESTDIR)$(DKMS_SRC); next: sudo dkms install qpu/$(QPU_DKMS_VERSION)"
