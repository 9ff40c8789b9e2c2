# SPDX-License-Identifier: GPL-2.0
#
# qpu: builds the driver's kselftests. Each selftests/kmod/*_test.c is one
# test program, built static (the VM's initramfs has no libc) into
# $(BUILD)/selftests/kmod/<name>; any other selftests/kmod/*.c is a helper
# linked into every test. The kselftest harness headers are extracted once
# per machine from Debian's linux-source-6.1 tarball into the cache,
# $(QPU_CACHE)/kselftest/<the tarball's name, size and time>, so clean
# builds and fresh clones reuse them (never committed).

KSFT_TARBALL ?= $(lastword $(sort $(wildcard /usr/src/linux-source-6.1.tar.*)))
KSFT_KEY := $(if $(KSFT_TARBALL),$(notdir $(KSFT_TARBALL))-$(shell stat -c %s-%Y $(KSFT_TARBALL) 2>/dev/null),none)
KSFT_DIR := $(QPU_CACHE)/kselftest/$(KSFT_KEY)
KSFT_STAMP := $(KSFT_DIR)/.extracted
KSFT_HEADERS := kselftest_harness.h kselftest.h

KMOD_TEST_SRCS := $(sort $(wildcard selftests/kmod/*_test.c))
KMOD_TEST_HELPERS := $(filter-out $(KMOD_TEST_SRCS),$(sort $(wildcard selftests/kmod/*.c)))
KMOD_TESTS := $(patsubst selftests/kmod/%.c,$(BUILD)/selftests/kmod/%,$(KMOD_TEST_SRCS))

# The 6.1 harness defines global functions without prototypes
# (__run_test, __wait_for_test, and those of FIXTURE_SETUP/TEARDOWN), its
# EXPECT_EQ(0, u64_value) idiom compares across signedness (upstream
# selftests build with -Wall only, where -Wsign-compare is off for C), and
# its comparisons cast both sides to intmax_t, which for the pointers of
# EXPECT_EQ(MAP_FAILED, p) is wider than a pointer on 32-bit targets (the
# Pi's cross builds; both sides are widened alike, so they compare right).
# Static binaries cannot carry the sanitizer runtimes: drop SANITIZE flags.
# Tests may assemble programs at run time with libqpu's public assembler
# (qpu_asm.h). qpu_dmabuf_test drives vgem through DRM's uapi, <drm.h>
# of libdrm's headers (the cross compilers of the Pi's builds do not look
# in /usr/include by themselves).
KMOD_TEST_CFLAGS = $(filter-out -fsanitize%,$(ALL_CFLAGS)) \
	-Wno-missing-prototypes -Wno-sign-compare -Wno-pointer-to-int-cast \
	-I$(KSFT_DIR) $(LIBQPU_DRM_CFLAGS)

selftests: $(KMOD_TESTS)

$(KSFT_STAMP):
	$(Q)test -n "$(KSFT_TARBALL)" -a -r "$(KSFT_TARBALL)" || \
		{ echo "kselftest harness: no /usr/src/linux-source-6.1.tar.xz: install package linux-source-6.1 ('make deps')" >&2; exit 1; }
	@echo "  EXTRACT $(KSFT_HEADERS) from $(KSFT_TARBALL) into $(KSFT_DIR)"
	$(Q)mkdir -p $(dir $(KSFT_DIR)) && tmp=$$(mktemp -d $(KSFT_DIR).XXXXXX) && \
	tar -xf $(KSFT_TARBALL) -C $$tmp --strip-components=4 \
		--wildcards $(addprefix */tools/testing/selftests/,$(KSFT_HEADERS)) && \
	for h in $(KSFT_HEADERS); do test -f $$tmp/$$h || \
		{ echo "kselftest harness: $$h not found in $(KSFT_TARBALL)" >&2; rm -rf $$tmp; exit 1; }; done && \
	touch $$tmp/.extracted && chmod 755 $$tmp && \
	{ mv -T $$tmp $(KSFT_DIR) 2>/dev/null || rm -rf $$tmp; }

# $(call kmod_test_link,compiler,libraries): the recipe of one test program
# $@ from $<, also used by the Pi's cross builds (selftests/pi/pi.mk).
define kmod_test_link
	$(Q)mkdir -p $(@D)
	$(Q)$(1) -static $(KMOD_TEST_CFLAGS) -MMD -MP -MF $@.d -o $@ \
		$< $(KMOD_TEST_HELPERS) $(2) $(LDFLAGS:-fsanitize%=)
endef

# Tests may call the freestanding core (qpu_float_test compares its user
# build with the kernel's), so libqpu.a is linked in too.
$(KMOD_TESTS): $(BUILD)/selftests/kmod/%: selftests/kmod/%.c \
		$(KMOD_TEST_HELPERS) $(KSFT_STAMP) $(LIBQPU_A)
	$(call kmod_test_link,$(CC),$(LIBQPU_A))

-include $(KMOD_TESTS:=.d)

# qpu_dmabuf_test imports vgem's buffers, and test-runtime (selftests/lib)
# the frames of vivid, the virtual camera: modules of Debian's 6.1 kernel,
# loaded with their dependencies by the VM runner.
VM_CHECK_PAYLOAD += --kernel-module vgem --kernel-module vivid
