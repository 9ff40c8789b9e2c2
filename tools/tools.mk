# SPDX-License-Identifier: GPL-2.0
# Developer tools: every tools/<name>.c is one program. They are built as a
# program of libqpu's users is: from the public headers (libqpu/include,
# uapi) alone, linked with libqpu.so, plus libqpu-tools.a, the code the
# tools share (tools/lib: die(), the code-file reader, the kernel cases).
# check-install builds them again from an installed tree.
TOOL_SRCS := $(wildcard tools/*.c)
TOOLS := $(TOOL_SRCS:tools/%.c=$(BUILD)/tools/%)
TOOL_CFLAGS = $(QPU_WARN_CFLAGS) -I$(CURDIR)/uapi -I$(CURDIR)/libqpu/include \
	-I$(CURDIR)/tools/lib $(CFLAGS)
# Found next to the binary: $(BUILD)/lib in the tree, $(LIBDIR) installed.
# Distribution packages, whose libqpu is in the loader's path, build with
# TOOL_RPATH= (Debian's policy forbids an rpath: tools/debian/rules).
TOOL_RPATH ?= -Wl,-rpath,'$$ORIGIN/../lib'
TOOL_LIBQPU := -L$(BUILD) -lqpu $(TOOL_RPATH)

QPU_TOOLS_SRCS := $(wildcard tools/lib/*.c)
QPU_TOOLS_OBJS := $(QPU_TOOLS_SRCS:%.c=$(BUILD)/%.o)


tools: $(TOOLS)

$(BUILD)/tools/lib/%.o: tools/lib/%.c $(BUILD)/vars/TOOL_CFLAGS
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(TOOL_CFLAGS) -MMD -MP -c -o $@ $<

$(QPU_TOOLS_A): $(QPU_TOOLS_OBJS)
	$(Q)rm -f $@
	$(Q)$(AR) rcs $@ $^

$(BUILD)/tools/%: tools/%.c $(QPU_TOOLS_A) $(LIBQPU_SO)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(TOOL_CFLAGS) -MMD -MP -o $@ $< $(QPU_TOOLS_A) \
		$(TOOL_LIBQPU) $(LDFLAGS) -lm

# Static builds, for the VM's initramfs, which has no libc.
$(BUILD)/static/%: tools/%.c $(QPU_TOOLS_A) $(LIBQPU_A)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(filter-out -fsanitize%,$(TOOL_CFLAGS)) -static -o $@ $< \
		$(QPU_TOOLS_A) $(LIBQPU_A) -lm

-include $(TOOLS:=.d) $(QPU_TOOLS_OBJS:.o=.d)
include tools/qpuctl/qpuctl.mk
include tools/fleet/fleet.mk
