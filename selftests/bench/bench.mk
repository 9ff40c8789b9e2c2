# SPDX-License-Identifier: GPL-2.0
# make bench: benchmarks print what they measured and how; nothing here
# passes or fails on a speed. bench-vm runs in the VM on the simulated V3D;
# every other bench-*.c runs on this machine, linked with libqpu.

BENCH_VM := $(BUILD)/selftests/bench/bench-vm
BENCH_V3DSIM := $(BUILD)/selftests/bench/bench-v3dsim
BENCH_HOST_SRCS := $(filter-out selftests/bench/bench-vm.c selftests/bench/bench-v3dsim.c,\
	$(wildcard selftests/bench/bench-*.c))
BENCH_HOST := $(BENCH_HOST_SRCS:selftests/bench/%.c=$(BUILD)/selftests/bench/%)

# bench-vm reads the device's debugfs counters with the kselftests' helpers.
$(BENCH_VM): selftests/bench/bench-vm.c selftests/kmod/qpu_util.c selftests/kmod/qpu_util.h
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(filter-out -fsanitize%,$(ALL_CFLAGS)) -static -pthread -o $@ $< \
		selftests/kmod/qpu_util.c

# bench-v3dsim: the simulated v3d node's round trip (v3d_sim.mk's helpers
# and uapi headers; libqpu assembles its program).
$(BENCH_V3DSIM): selftests/bench/bench-v3dsim.c $(V3DSIM_TEST_HELPERS) $(LIBQPU_A) \
		$(V3D_UAPI)/drm/.stamp
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(filter-out -fsanitize%,$(ALL_CFLAGS)) -I$(V3D_UAPI) -Iselftests/lib -static -o $@ $< \
		$(V3DSIM_TEST_HELPERS) $(LIBQPU_A)

# The emulator bench builds its programs with the emulator tests' helpers.
$(BUILD)/selftests/bench/%: selftests/bench/%.c $(LIBQPU_A) $(QPU_TOOLS_A)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_CFLAGS) -Iselftests/lib -Itools/lib -O2 -o $@ $< \
		$(QPU_TOOLS_A) $(LIBQPU_A) $(LDFLAGS) -lm

# bench-dwconv-u8-v3d calls libqpu's internal INT8 depthwise program
# (kernels/nn_kernels.h) and checks it on nn_requant() (nn/nn_internal.h).
$(BUILD)/selftests/bench/bench-dwconv-u8-v3d: QPU_CFLAGS += -I$(CURDIR)/libqpu

# qpu.ko's and the v3d node's round trips are measured in the same VM,
# after the host's benches (never beside them); bench-nodes is that half of
# make bench alone.
.PHONY: bench-nodes
bench: $(BENCH_HOST) vm-module $(BENCH_VM) v3dsim-vm-module $(BENCH_V3DSIM)
	$(Q)for b in $(BENCH_HOST); do $$b || exit 1; done
	+$(Q)$(MAKE) --no-print-directory bench-nodes

bench-nodes: vm-module $(BENCH_VM) v3dsim-vm-module $(BENCH_V3DSIM)
	$(call vm_run,bench,--copy $(BENCH_VM) --run bench-vm --module $(V3DSIM_VM_MODULE) \
		--module-args "$(V3DSIM_MODULE_ARGS)" --copy $(BENCH_V3DSIM) --run bench-v3dsim,--quiet)
	$(Q)sed -n '/^qpu driver benchmarks/,/jobs of 12 empty programs, 4 clients/p' \
		$(BUILD)/vm/bench/console.log
	$(Q)sed -n '/^v3d_sim node benchmarks/,+6p' $(BUILD)/vm/bench/console.log

# make bench-round-trip [BENCH_OLD_KO=<a qpu.ko built for the VM>]: the
# one-client empty job's round trip against the eventfd ping-pong, this
# tree's module alternated with BENCH_OLD_KO's in one guest (round-trip.sh),
# BENCH_PAIRS pairs of BENCH_JOBS jobs each, on BENCH_SMP guest CPUs (one by
# default: on a loaded host a second CPU's ping-pong measures the host's
# scheduler more than the guest's). The host's load average is printed
# beside the medians.
BENCH_PAIRS ?= 5
BENCH_JOBS ?= 500
BENCH_SMP ?= 1
.PHONY: bench-round-trip
bench-round-trip: vm-module $(BENCH_VM)
	$(call vm_run,round-trip,--copy $(BENCH_VM) --copy $(CURDIR)/selftests/bench/round-trip.sh \
		$(if $(BENCH_OLD_KO),--copy $(abspath $(BENCH_OLD_KO))) \
		--run "./round-trip.sh /qpu.ko $(if $(BENCH_OLD_KO),./$(notdir $(BENCH_OLD_KO)),-) $(BENCH_PAIRS) $(BENCH_JOBS)",\
		--smp $(BENCH_SMP) --quiet)
	$(Q)sed -n 's/^\(round trip [a-z]* median\)/\1/p; /^load average/p' $(BUILD)/vm/round-trip/console.log
	$(Q)echo "load average (host): $$(cut -d' ' -f1-3 /proc/loadavg)"
