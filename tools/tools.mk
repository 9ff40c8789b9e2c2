# SPDX-License-Identifier: GPL-2.0
# Developer tools: every tools/<name>.c is one program linked with libqpu.
TOOL_SRCS := $(wildcard tools/*.c)
TOOLS := $(TOOL_SRCS:tools/%.c=$(BUILD)/tools/%)

tools: $(TOOLS)

$(BUILD)/tools/%: tools/%.c $(LIBQPU_A)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_CFLAGS) -MMD -MP -o $@ $< $(LIBQPU_A) $(LDFLAGS)

# Static builds, for the VM's initramfs, which has no libc.
$(BUILD)/static/%: tools/%.c $(LIBQPU_A)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(filter-out -fsanitize%,$(ALL_CFLAGS)) -static -o $@ $< $(LIBQPU_A)

-include $(TOOLS:=.d)
include tools/qpuctl/qpuctl.mk
