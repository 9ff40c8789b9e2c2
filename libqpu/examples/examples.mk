# SPDX-License-Identifier: MIT
# Example programs: every libqpu/examples/*.c is one program linked with
# libqpu.so, built into $(BUILD)/examples by `make examples` (part of `all`)
# from the public headers, as the tools are (tools/tools.mk), plus the
# core's header-only qpu_vpm.h, whose setup words transpose.c computes on
# the host (libqpu has no public function for them yet).
# Each takes an optional device argument and defaults to "emu", so
# check-host runs them all on the emulator through test-examples.sh.

EXAMPLE_SRCS := $(wildcard libqpu/examples/*.c)
EXAMPLE_BINS := $(EXAMPLE_SRCS:libqpu/examples/%.c=$(BUILD)/examples/%)

.PHONY: examples
examples: $(EXAMPLE_BINS)
all: examples

# An example with QPU assembly, libqpu/examples/<name>.qasm, gets it as
# $(BUILD)/examples/<name>.qasm.h (the array <name>_code), assembled like
# the sample kernels with the helper include files of libqpu/qasm.
EXAMPLE_QASM := $(wildcard libqpu/examples/*.qasm)
EXAMPLE_QASM_HDRS := $(EXAMPLE_QASM:libqpu/examples/%.qasm=$(BUILD)/examples/%.qasm.h)

.SECONDARY: $(EXAMPLE_QASM_HDRS)

$(BUILD)/examples/%.qasm.h: libqpu/examples/%.qasm $(QPU_AS_BOOT) $(QPU_QASM_INCLUDES)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(QPU_AS_BOOT) -Werror -I libqpu/qasm -f c \
		-n $(subst -,_,$*)_code -o $@ $<

$(BUILD)/examples/%: libqpu/examples/%.c $(LIBQPU_SO) | $(EXAMPLE_QASM_HDRS)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(TOOL_CFLAGS) $(QPU_CORE_CFLAGS) -I$(BUILD)/examples -MMD -MP -o $@ $< \
		$(TOOL_LIBQPU) $(LDFLAGS) -lm

-include $(EXAMPLE_BINS:=.d)

HOST_TEST_SCRIPTS += libqpu/examples/test-examples.sh
HOST_TEST_DEPS += $(EXAMPLE_BINS)
