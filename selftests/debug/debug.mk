# SPDX-License-Identifier: GPL-2.0
#
# qpu: the debug-kernel run. Owns building (once, cached outside the
# repository by selftests/debug/build-kernel.sh, keyed by debug.config) a
# 6.1 kernel with KASAN, lockdep, kmemleak, debug objects and fault
# injection, qpu.ko for it (flavour "debug"), and the target
#   check-debug   every kselftest of selftests/kmod, the fuzzer, the stress
#                 test and the fault-injection run (selftests/stress) in the
#                 VM booted with that kernel, and what other fragments add
#                 (DEBUG_CHECK_DEPS, DEBUG_CHECK_PAYLOAD: v3d_sim.mk's
#                 simulated v3d node and its kselftests); kmemleak is cleared before the
#                 tests and scanned after qpu.ko is unloaded (run-vm.sh
#                 --after-unload), so an object the module leaked is found
#                 even if the module's own data pointed at it: any leak,
#                 KASAN, lockdep or WARN report fails the run, but for the
#                 allocation-failure reports that the fault injection causes
#                 (run-vm.sh --expect-log on that step alone)
#   debug-kernel  only build (or find in the cache) the kernel
# Both first install what they need (tools/deps.sh debug), as `make check`
# does for its suites, before anything is built.
# Variables: DEBUG_VM_TIMEOUT, DEBUG_STEP_TIMEOUT (s), DEBUG_VM_MEMORY,
# DEBUG_RUNNER (another copy of run-vm.sh, for debugging the runner),
# FAILINJ_MAX (the largest N of "fail the Nth allocation"), FAILINJ_WINDOW
# (how many slab allocations the system-wide window fails), and those of
# selftests/stress/stress.mk (FUZZ_*, STRESS_*). The lead's fragment list
# must include selftests/stress/stress.mk before this file.

DEBUG_KDIR = $(shell $(CURDIR)/selftests/debug/build-kernel.sh dir)
DEBUG_KERNEL = $(DEBUG_KDIR)/arch/x86/boot/bzImage
DEBUG_MODULE := $(BUILD)/mod/debug/qpu.ko
DEBUG_VM_TIMEOUT ?= 1800
DEBUG_STEP_TIMEOUT ?= 400
DEBUG_VM_MEMORY ?= 1G
FAILINJ_MAX ?= 100
FAILINJ_WINDOW ?= 40
# What qpu_failinj's failures print (warn_alloc's header, then a stack dump,
# allowed by --expect-log): vmalloc's and the page allocator's reports,
# kmemleak's own metadata falling short, a user page fault retried.
FAILINJ_LOG := vmalloc error|page allocation failure|vmap allocation for size|
FAILINJ_LOG := $(FAILINJ_LOG)kmemleak: Cannot allocate a scan area|VM_FAULT_OOM leaked out
DEBUG_RUNNER ?= $(CURDIR)/selftests/vm/run-vm.sh

# kmemleak: cleared after the module load, scanned after its unload.
KMEMLEAK_CHECK := $(CURDIR)/selftests/debug/kmemleak-check.sh

.PHONY: debug-kernel debug-module check-debug check-debug-run

debug-kernel:
	$(Q)$(CURDIR)/tools/deps.sh debug
	$(Q)$(CURDIR)/selftests/debug/build-kernel.sh build

# "+": kmod_build runs $(MAKE), which needs the jobserver.
debug-module: debug-kernel
	$(Q)$(CURDIR)/selftests/vm/vm-kernel.sh check "$(DEBUG_KERNEL)" "$(DEBUG_KDIR)"
	+$(call kmod_build,debug,$(DEBUG_KDIR))

# The packages come first, the build after them (a recursive make, so that
# -j does not start compiling before they are there). check.sh runs it, as
# it runs make check's suites: the run ends with a closing line even when
# the kernel or a test program fails to build (counted as one failure).
check-debug:
	$(Q)$(CURDIR)/tools/deps.sh debug
	$(Q)BUILD=$(BUILD) MAKE="$(MAKE)" $(CURDIR)/selftests/check.sh check-debug-run

# A 50 ms hang is seconds of emulation on this kernel under TCG: the stress
# clients wait longer for a job than in check-stress.
check-debug-run: STRESS_WAIT = 120
check-debug-run: debug-module $(KMOD_TESTS) $(STRESS_PROGS) $(DEBUG_CHECK_DEPS)
	$(Q)mkdir -p $(BUILD)/vm/debug
	$(Q)$(DEBUG_RUNNER) --kernel "$(DEBUG_KERNEL)" \
		--workdir $(BUILD)/vm/debug --module $(DEBUG_MODULE) \
		--module-args "$(VM_MODULE_ARGS)" --timeout $(DEBUG_VM_TIMEOUT) \
		--step-timeout $(DEBUG_STEP_TIMEOUT) --memory $(DEBUG_VM_MEMORY) \
		--copy $(KMEMLEAK_CHECK) --run "kmemleak-check.sh clear" \
		$(DEBUG_CHECK_PAYLOAD) \
		$(addprefix --test ,$(KMOD_TESTS)) \
		$(addprefix --copy ,$(STRESS_PROGS)) \
		--run "$(FUZZ_RUN)" --run "$(STRESS_RUN)" \
		--run "qpu_failinj -k $(FAILINJ_MAX) -w $(FAILINJ_WINDOW)" \
		--expect-log "$(FAILINJ_LOG)" \
		--after-unload "kmemleak-check.sh scan" \
		--log $(BUILD)/vm/debug/console.log $(VM_ARGS)
