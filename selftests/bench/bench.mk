# SPDX-License-Identifier: GPL-2.0
# make bench: benchmarks print what they measured and how; nothing here
# passes or fails on a speed. bench-vm runs in the VM on the simulated V3D;
# every other bench-*.c runs on this machine, linked with libqpu.

BENCH_VM := $(BUILD)/selftests/bench/bench-vm
BENCH_HOST_SRCS := $(filter-out selftests/bench/bench-vm.c,$(wildcard selftests/bench/bench-*.c))
BENCH_HOST := $(BENCH_HOST_SRCS:selftests/bench/%.c=$(BUILD)/selftests/bench/%)

# bench-vm reads the device's debugfs counters with the kselftests' helpers.
$(BENCH_VM): selftests/bench/bench-vm.c selftests/kmod/qpu_util.c selftests/kmod/qpu_util.h
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(filter-out -fsanitize%,$(ALL_CFLAGS)) -static -pthread -o $@ $< \
		selftests/kmod/qpu_util.c

# The emulator bench builds its programs with the emulator tests' helpers.
$(BUILD)/selftests/bench/%: selftests/bench/%.c $(LIBQPU_A) $(QPU_TOOLS_A)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_CFLAGS) -Iselftests/lib -Itools/lib -O2 -o $@ $< \
		$(QPU_TOOLS_A) $(LIBQPU_A) $(LDFLAGS) -lm

bench: $(BENCH_HOST) vm-module $(BENCH_VM)
	$(Q)for b in $(BENCH_HOST); do $$b || exit 1; done
	$(call vm_run,bench,--copy $(BENCH_VM) --run bench-vm,--quiet)
	$(Q)sed -n '/^qpu driver benchmarks/,/jobs of 12 empty programs, 4 clients/p' \
		$(BUILD)/vm/bench/console.log
