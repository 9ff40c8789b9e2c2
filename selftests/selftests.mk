# SPDX-License-Identifier: GPL-2.0
# Test suites: each fragment owns one runner and its check-* target.
-include selftests/kmod/kmod.mk
-include selftests/lib/lib.mk
-include selftests/v3d_sim/v3d_sim.mk
-include selftests/vm/vm.mk
-include selftests/pi/pi.mk
-include selftests/bench/bench.mk
-include selftests/stress/stress.mk
-include selftests/debug/debug.mk
-include selftests/fuzz/fuzz.mk
