# SPDX-License-Identifier: GPL-2.0
# Debian packages (tools/debian): `make deb` builds qpu-dkms, libqpu0,
# libqpu-mailbox0, libqpu-dev, qpu-tools and python3-qpu for DEB_ARCHES
# into $(BUILD)/deb/<arch> from an exported copy of the tree (build-deb.sh);
# `make check-deb` also runs lintian on them, installs and removes the
# amd64 ones here and runs an arm64 tool under qemu-user (check-deb.sh).
# check-deb is opt-in, outside make check (its time: tools/debian/check-deb.sh).

DEB_ARCHES ?= amd64 arm64 armhf
DEB_DIR := $(BUILD)/deb

.PHONY: deb check-deb

deb:
	$(Q)$(CURDIR)/tools/deps.sh deb
	$(Q)$(CURDIR)/tools/debian/build-deb.sh $(CURDIR) $(DEB_DIR) $(LIBQPU_VERSION) $(DEB_ARCHES)

check-deb:
	$(Q)$(CURDIR)/tools/deps.sh deb
	$(Q)DEB_ARCHES="$(DEB_ARCHES)" $(CURDIR)/tools/debian/check-deb.sh $(CURDIR) $(DEB_DIR) $(LIBQPU_VERSION)
