# SPDX-License-Identifier: MIT
#
# Fuzzing the parsers of bad input (issue #3): libFuzzer-style harnesses.
#
#   fuzz-asm     the text assembler: any source (and, after a NUL byte, an
#                ".include"d file); diagnostics must be complete, words must
#                survive disassembly and reassembly
#   fuzz-disasm  any words: decode/encode and disassemble/assemble must both
#                give every word back
#   fuzz-v3d-disasm  any words, as V3D 4.2 and as 7.1: decode/encode give
#                valid words back, the text is .long data exactly for the
#                invalid and non-canonical ones, and assembles back
#   fuzz-v3d-asm  any V3D source (first byte: the generation): as fuzz-asm,
#                the words through the V3D disassembler and back
#   fuzz-v3d-emit  any sequence of V3D emitter calls (first byte: the
#                generation): errors sticky and complete, finished programs
#                canonical and back through disassembly and assembly
#   fuzz-emu     any words run on 1..12 QPUs with an instruction budget:
#                a defined ending, no access outside translate(), the same
#                state with the predecode cache (and its fast paths) off
#   fuzz-v3d-emu the V3D 4.2/7.1 emulator on any words, one thread or a
#                CSD dispatch: a defined ending, no access outside the
#                MMU's BOs, the same state when run twice
#   fuzz-nn      any .qnn image (libqpu/nn): loaded or refused with a
#                message, never a crash; small graphs also bound and run
#                on the CPU's fast path and its reference
#
#   make check-fuzz                  each for FUZZ_TIME seconds (20), as CI does
#   make check-fuzz-long             each for 10 minutes (opt-in; or any
#                                    FUZZ_TIME); FUZZ_SEED=N fixes the seed
#   make check-fuzz FUZZ_JOBS=1      one harness at a time (default: one per CPU)
#   make check-fuzz FUZZ_ENGINE=standalone   gcc and driver.c, no libFuzzer
#   make fuzz-build FUZZ_ENGINE=libfuzzer    build only; then, by hand:
#       build/fuzz/libfuzzer/fuzz-asm -dict=selftests/fuzz/asm.dict \
#           build/fuzz/corpus/asm selftests/fuzz/corpus/asm
#       build/fuzz/libfuzzer/fuzz-asm CRASH-FILE       (replay one input)
#
# Engines: with clang's -fsanitize=fuzzer (Debian: clang, which brings
# libclang-rt-14-dev) the harnesses link with libFuzzer, coverage-guided; else
# with $(CC) and driver.c, which mutates the seeds without coverage. Both
# build libqpu's sources again with ASan and UBSan (no recovery), so any
# report fails the run. Seeds are corpus/<harness>/; a reproducer of each
# crash fixed is kept in crashes/<harness>/ and replayed first on every run,
# those still open in crashes/open/ (see crashes/README); inputs found are
# kept in $(BUILD)/fuzz/corpus, crashes written to $(BUILD)/fuzz/artifacts.
# Inputs are at most FUZZ_MAX_LEN bytes (4096) to keep runs fast; bugs that
# need longer inputs (the open deep-nesting crash needs 12 KB under ASan)
# show with a larger FUZZ_MAX_LEN.

# make check runs the eight harnesses two at a time: 20 s each keeps its
# fuzzing to under two minutes; the long run is check-fuzz-long.
FUZZ_TIME ?= 20
FUZZ_MAX_LEN ?= 4096
FUZZ_CLANG ?= clang
FUZZ_NAMES := asm disasm emu v3d-disasm v3d-asm v3d-emit v3d-emu nn

.PHONY: check-fuzz check-fuzz-long fuzz-build fuzz-run

check-fuzz-long:
	$(Q)$(MAKE) --no-print-directory FUZZ_TIME=600 check-fuzz

# Pick the engine once, in the shell, so other targets never pay for it.
check-fuzz:
	$(Q)engine='$(FUZZ_ENGINE)'; \
	if [ -z "$$engine" ]; then \
		if printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n)\n{ return 0; }\n' | \
		    $(FUZZ_CLANG) -fsanitize=fuzzer -x c - -o /dev/null >/dev/null 2>&1; \
		then engine=libfuzzer; else engine=standalone; fi; \
	fi; \
	echo "  FUZZ ($$engine, $(FUZZ_TIME)s each)"; \
	$(MAKE) --no-print-directory FUZZ_ENGINE=$$engine fuzz-run

ifneq ($(FUZZ_ENGINE),)
FUZZ_OUT := $(BUILD)/fuzz/$(FUZZ_ENGINE)
ifeq ($(FUZZ_ENGINE),libfuzzer)
FUZZ_CC := $(FUZZ_CLANG)
FUZZ_SAN := -fsanitize=fuzzer-no-link,address,undefined
FUZZ_LINK := -fsanitize=fuzzer,address,undefined
FUZZ_DRIVER :=
else
FUZZ_CC := $(CC)
FUZZ_SAN := -fsanitize=address,undefined
FUZZ_LINK := -fsanitize=address,undefined
FUZZ_DRIVER := $(FUZZ_OUT)/obj/selftests/fuzz/driver.o
endif
# -I libqpu: the library's private headers are included by their folder
# ("runtime/runtime.h"), as LIBQPU_OBJ_CFLAGS has it; libdrm's headers for
# runtime/drm.c, likewise.
FUZZ_CFLAGS := $(filter-out -fsanitize% $(QPU_EXCESS_PRECISION),$(QPU_CFLAGS)) -g -O1 \
	$(call qpu_cc_flag,$(FUZZ_CC),-fexcess-precision=standard) \
	-fno-omit-frame-pointer -fno-sanitize-recover=all $(FUZZ_SAN) -I$(CURDIR)/libqpu \
	$(LIBQPU_DRM_CFLAGS)
FUZZ_LIB_OBJS := $(LIBQPU_BASE_SRCS:%.c=$(FUZZ_OUT)/obj/%.o)
FUZZ_BINS := $(FUZZ_NAMES:%=$(FUZZ_OUT)/fuzz-%)

$(FUZZ_OUT)/obj/%.o: %.c
	$(Q)mkdir -p $(dir $@)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -I$(CURDIR)/libqpu -DLIBQPU_VERSION='"$(LIBQPU_VERSION)"' \
		-MMD -MP -c -o $@ $<

$(FUZZ_OUT)/fuzz-%: $(FUZZ_OUT)/obj/selftests/fuzz/fuzz-%.o $(FUZZ_DRIVER) $(FUZZ_LIB_OBJS)
	$(Q)$(FUZZ_CC) $(FUZZ_LINK) -o $@ $^ -lm

# fuzz-nn links libqpu/nn and the sample kernels its QPU backend calls
# (their assembled programs: the library's own build makes them).
FUZZ_NN_OBJS := $(QPU_NN_SRCS:%.c=$(FUZZ_OUT)/obj/%.o) $(QPU_KERNEL_SRCS:%.c=$(FUZZ_OUT)/obj/%.o)
$(QPU_KERNEL_SRCS:%.c=$(FUZZ_OUT)/obj/%.o): FUZZ_CFLAGS += -I$(BUILD)/libqpu/kernels -Ilibqpu/kernels
$(QPU_KERNEL_SRCS:%.c=$(FUZZ_OUT)/obj/%.o): | $(QPU_KERNEL_HDRS)
$(FUZZ_OUT)/fuzz-nn: $(FUZZ_NN_OBJS)

# Keep the objects: they are intermediates of the pattern rules above.
.SECONDARY: $(FUZZ_LIB_OBJS) $(FUZZ_DRIVER) $(FUZZ_NN_OBJS) \
	$(FUZZ_NAMES:%=$(FUZZ_OUT)/obj/selftests/fuzz/fuzz-%.o)

fuzz-build: $(FUZZ_BINS)

fuzz-run: fuzz-build
	$(Q)FUZZ_TIME=$(FUZZ_TIME) FUZZ_SEED=$(FUZZ_SEED) FUZZ_MAX_LEN=$(FUZZ_MAX_LEN) \
		ASAN_OPTIONS=detect_leaks=1 \
		UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		sh selftests/fuzz/run-fuzz.sh $(FUZZ_OUT) $(BUILD)/fuzz $(FUZZ_NAMES)

-include $(FUZZ_LIB_OBJS:.o=.d) $(FUZZ_NN_OBJS:.o=.d) \
	$(FUZZ_NAMES:%=$(FUZZ_OUT)/obj/selftests/fuzz/fuzz-%.d)
else
fuzz-build fuzz-run:
	@echo 'set FUZZ_ENGINE=libfuzzer or FUZZ_ENGINE=standalone' >&2; exit 1
endif
