# SPDX-License-Identifier: GPL-2.0
# libqpu-mailbox: the firmware-mailbox interface and GPU_FFT's host glue
# (libqpu/compat/mailbox.c and gpu_fft_glue.c) over libqpu.so, static and shared, with pkg-config
# name qpu-mailbox.

MAILBOX_VERSION := $(LIBQPU_VERSION)
MAILBOX_SONAME := libqpu-mailbox.so.0
MAILBOX_SRCS := $(addprefix libqpu/compat/,mailbox.c gpu_fft_glue.c)
MAILBOX_OBJS := $(MAILBOX_SRCS:%.c=$(BUILD)/%.o)
MAILBOX_A := $(BUILD)/libqpu-mailbox.a
MAILBOX_SO := $(BUILD)/$(MAILBOX_SONAME)

lib: $(MAILBOX_A) $(MAILBOX_SO)

$(BUILD)/libqpu/compat/%.o: libqpu/compat/%.c $(BUILD)/vars/ALL_CFLAGS
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_CFLAGS) -fPIC -fvisibility=hidden -MMD -MP -c -o $@ $<

$(MAILBOX_A): $(MAILBOX_OBJS)
	$(Q)rm -f $@
	$(Q)$(AR) rcs $@ $^

$(MAILBOX_SO): $(MAILBOX_OBJS) $(LIBQPU_SO)
	$(Q)$(CC) -shared -Wl,-soname,$(MAILBOX_SONAME) $(LDFLAGS) -o $@ \
		$(MAILBOX_OBJS) -L$(BUILD) -l:$(LIBQPU_SONAME)
	$(Q)ln -sf $(MAILBOX_SONAME) $(BUILD)/libqpu-mailbox.so

-include $(MAILBOX_OBJS:.o=.d)

$(BUILD)/qpu-mailbox.pc: libqpu/compat/qpu-mailbox.pc.in $(BUILD)/vars/PREFIX $(BUILD)/vars/LIBDIR $(BUILD)/vars/MAILBOX_VERSION
	$(Q)sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(PC_LIBDIR)|' \
		-e 's|@VERSION@|$(MAILBOX_VERSION)|' $< > $@

# selftests/lib/test-man.sh reads the symbols it exports.
HOST_TEST_DEPS += $(MAILBOX_SO)
