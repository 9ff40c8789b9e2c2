# SPDX-License-Identifier: GPL-2.0
#
# qpu: the VM test run. Owns the choice of the kernel the VM boots, qpu.ko
# built for it (flavour "vm"), and the targets that boot it with
# selftests/vm/run-vm.sh:
#   check-vm   the kselftests of qpu.ko (simulated V3D); prints one line per
#              test case and "N passed, N failed, N skipped"
#   vm-shell   the same VM with the same payload, then an interactive shell
# Other targets reuse the runner with their own payload through vm_run, e.g.
#   $(call vm_run,demo,--copy $(BUILD)/demo/x --run "x --flag")
#
# Variables: VM_KERNEL=<bzImage> VM_KDIR=<its kernel build dir> (default:
# the newest Debian 6.1 amd64 image and headers; they must be one kernel),
# VM_TIMEOUT (s, whole run), VM_STEP_TIMEOUT (s, per test program; default
# from selftests/kmod/settings), VM_MODULE_ARGS, VM_ARGS (more run-vm.sh
# options, e.g. VM_ARGS=--verbose).

VM_KERNEL ?= $(lastword $(shell ls -1 /boot/vmlinuz-6.1.*-amd64 2>/dev/null | sort -V))
VM_KDIR ?= $(lastword $(shell ls -1d /usr/src/linux-headers-6.1.*-amd64 2>/dev/null | sort -V))
VM_TIMEOUT ?= 600
VM_STEP_TIMEOUT ?= $(or $(shell sed -n 's/^timeout=//p' selftests/kmod/settings 2>/dev/null),120)
VM_MODULE_ARGS ?= sim=1
VM_ARGS ?=
VM_MODULE := $(BUILD)/mod/vm/qpu.ko

# $(call vm_run,<name>,<payload options>[,<more options>]): boot the VM
# with qpu.ko loaded ($(VM_MODULE_ARGS)); the work files and console.log go
# to $(BUILD)/vm/<name>. Needs the prerequisite vm-module.
define vm_run
	$(Q)$(CURDIR)/selftests/vm/run-vm.sh --kernel "$(VM_KERNEL)" \
		--workdir $(BUILD)/vm/$(1) --module $(VM_MODULE) \
		--module-args "$(VM_MODULE_ARGS)" --timeout $(VM_TIMEOUT) \
		--step-timeout $(VM_STEP_TIMEOUT) $(2) $(3) $(VM_ARGS)
endef

.PHONY: vm-module vm-shell check-vm-prereqs

# "+": kmod_build runs $(MAKE), which needs the jobserver.
vm-module:
	$(Q)$(CURDIR)/selftests/vm/vm-kernel.sh check "$(VM_KERNEL)" "$(VM_KDIR)"
	+$(call kmod_build,vm,$(VM_KDIR))

# Other fragments add their own VM tests: files to build first in
# VM_CHECK_DEPS and run-vm.sh payload options in VM_CHECK_PAYLOAD.
# check-vm-prereqs builds what check-vm runs, nothing more: check.sh builds
# it first when check-vm runs beside another suite.
check-vm-prereqs: vm-module $(KMOD_TESTS) $(VM_CHECK_DEPS)

# The shell tests' TAP lines (tap.sh), which they source from /payload.
VM_CHECK_PAYLOAD += --copy $(CURDIR)/selftests/vm/tap.sh

# The host's /usr over virtio-9p for the steps that run host programs
# (host-usr.sh), with the 9p and virtio-pci modules of the guest kernel.
VM_RELEASE = $(shell $(CURDIR)/selftests/vm/vm-kernel.sh release "$(VM_KERNEL)" 2>/dev/null)
VM_9P_MODULES = $(addprefix /lib/modules/$(VM_RELEASE)/kernel/,drivers/virtio/virtio_pci.ko \
	net/9p/9pnet_virtio.ko fs/9p/9p.ko)
VM_CHECK_PAYLOAD += $(addprefix --module ,$(VM_9P_MODULES)) --share hostusr=/usr \
	--share hostalt=/etc/alternatives --copy $(CURDIR)/selftests/vm/host-usr.sh

check-vm: check-vm-prereqs
	$(Q)mkdir -p $(BUILD)/vm/check
	$(call vm_run,check,$(addprefix --test ,$(KMOD_TESTS)) $(VM_CHECK_PAYLOAD),--log $(BUILD)/vm/console.log)

vm-shell: vm-module $(KMOD_TESTS)
	$(Q)mkdir -p $(BUILD)/vm/shell
	$(call vm_run,shell,$(addprefix --copy ,$(KMOD_TESTS)),--shell)
