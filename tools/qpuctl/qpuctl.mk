# SPDX-License-Identifier: GPL-2.0
# qpuctl, the administration tool over the qpu generic-netlink family, built
# from tools/qpuctl/*.c and the tools' shared archive (tools/lib: its
# numbers' parser) with libnl-3 (tools/deps.sh build) and libqpu.so
# (for the names it shares with qpu-info), from the public headers only as
# the other tools. The static build, for the VM's initramfs, links libqpu.a,
# libnl-3.a and libnl-genl-3.a.
# Its host test runs in check-host, its VM test in check-vm.

QPUCTL_SRCS := $(sort $(wildcard tools/qpuctl/*.c))
QPUCTL_HDRS := tools/qpuctl/qpuctl.h uapi/linux/qpu.h libqpu/include/qpu.h
QPUCTL := $(BUILD)/tools/qpuctl
QPUCTL_STATIC := $(BUILD)/static/qpuctl
# A cross build names the target's pkg-config (aarch64-linux-gnu-pkg-config).
PKG_CONFIG ?= pkg-config
QPUCTL_NL_CFLAGS := $(shell $(PKG_CONFIG) --cflags libnl-genl-3.0 2>/dev/null || echo -I/usr/include/libnl3)
QPUCTL_NL_LIBS := $(shell $(PKG_CONFIG) --libs libnl-genl-3.0 2>/dev/null || echo -lnl-genl-3 -lnl-3)

TOOLS += $(QPUCTL)

tools: $(QPUCTL)

$(QPUCTL): $(QPUCTL_SRCS) $(QPUCTL_HDRS) $(QPU_TOOLS_A) $(LIBQPU_SO)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(TOOL_CFLAGS) $(QPUCTL_NL_CFLAGS) -o $@ $(QPUCTL_SRCS) \
		$(QPU_TOOLS_A) $(TOOL_LIBQPU) $(QPUCTL_NL_LIBS) $(LDFLAGS)

$(QPUCTL_STATIC): $(QPUCTL_SRCS) $(QPUCTL_HDRS) $(QPU_TOOLS_A) $(LIBQPU_A)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(filter-out -fsanitize%,$(TOOL_CFLAGS)) $(QPUCTL_NL_CFLAGS) \
		-static -o $@ $(QPUCTL_SRCS) $(QPU_TOOLS_A) $(LIBQPU_A) -lnl-genl-3 -lnl-3 \
		-lpthread -lm

# The host test (arguments, usage, errors) runs with the library's tests;
# the VM test runs against qpu.ko in check-vm.
HOST_TEST_SCRIPTS += tools/qpuctl/test-qpuctl.sh
HOST_TEST_DEPS += $(QPUCTL)
VM_CHECK_DEPS += $(QPUCTL_STATIC)
VM_CHECK_PAYLOAD += --copy $(QPUCTL_STATIC) \
	--copy $(CURDIR)/tools/qpuctl/test-qpuctl-vm.sh --run test-qpuctl-vm.sh
