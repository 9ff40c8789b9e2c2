# SPDX-License-Identifier: GPL-2.0
#
# qpu: the reliability programs of selftests/stress and their VM run.
# Owns building qpu_fuzz (the ioctl/mmap/netlink fuzzer), qpu_stress (the
# mixed-job stress test) and qpu_failinj (the fault-injection driver, run
# by check-debug) as static binaries, and the target
#   check-stress   both in the normal VM at reduced, bounded sizes
# Seeds are fixed (reproducible); override them, and the sizes:
#   make check-stress FUZZ_SEED=7 FUZZ_CALLS=20000 STRESS_SECS=30
# STRESS_WAIT is how long a client waits for one job (s).
# selftests/debug/debug.mk reuses STRESS_PROGS and the *_RUN commands.

STRESS_PROGS := $(addprefix $(BUILD)/selftests/stress/,qpu_fuzz qpu_stress qpu_failinj)
STRESS_HDRS := selftests/stress/stress.h selftests/kmod/qpu_programs.h \
	selftests/kmod/qpu_util.h selftests/kmod/qpu_nl.h uapi/linux/qpu.h
# The buffer, clock, debugfs and netlink helpers are the kselftests' own.
STRESS_HELPERS := selftests/kmod/qpu_util.c selftests/kmod/qpu_nl.c

FUZZ_SEED ?= 1
FUZZ_CALLS ?= 20000
FUZZ_SECS ?= 25
FUZZ_PROCS ?= 2
FUZZ_THREADS ?= 3
STRESS_SEED ?= 1
STRESS_SECS ?= 12
STRESS_PROCS ?= 2
STRESS_THREADS ?= 2
STRESS_WAIT ?= 15

FUZZ_RUN = qpu_fuzz -c -s $(FUZZ_SEED) -n $(FUZZ_CALLS) -t $(FUZZ_SECS) \
	-p $(FUZZ_PROCS) -j $(FUZZ_THREADS)
STRESS_RUN = qpu_stress -s $(STRESS_SEED) -t $(STRESS_SECS) \
	-p $(STRESS_PROCS) -j $(STRESS_THREADS) -w $(STRESS_WAIT)

.PHONY: check-stress

selftests: $(STRESS_PROGS)

$(STRESS_PROGS): $(BUILD)/selftests/stress/%: selftests/stress/%.c $(STRESS_HDRS) \
		$(STRESS_HELPERS)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -static $(filter-out -fsanitize%,$(ALL_CFLAGS)) -o $@ $< \
		$(STRESS_HELPERS) -pthread $(LDFLAGS:-fsanitize%=)

check-stress: vm-module $(STRESS_PROGS)
	$(Q)mkdir -p $(BUILD)/vm/stress
	$(call vm_run,stress,$(addprefix --copy ,$(STRESS_PROGS)) \
		--run "$(FUZZ_RUN)" --run "$(STRESS_RUN)")
