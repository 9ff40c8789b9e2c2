# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# qpu: how every raspi0 boot runs QEMU (sourced by run-vm.sh and
# selftests/pi/smoke.sh): the machine, TCG and its clock.
#
# -icount: the guest's clock counts executed instructions instead of
# following the host's. The rpi kernel's clockevent (bcm2835_timer.c) sets
# its next event as COMPARE3 = CLO + delta, at least 15 us ahead, from one
# register read and one write; QEMU's system timer (bcm2835_systmr.c)
# matches COMPARE3 only when the counter reaches it, as the hardware does,
# so a compare written after the counter has passed it fires 2^32 us
# (71 minutes) later. Following the host's clock, a QEMU thread stalled for
# longer than delta between that read and that write (preempted on a busy
# host, or waiting for QEMU's big lock) leaves the guest in WFI with no
# timer: every boot froze so within seconds under a loop of short
# nanosleeps (raspi0_timers_test), and now and then under qpu.ko's
# completion poll or the kselftests. With -icount the read and the write
# are a few instructions, at most a few microseconds, apart, whatever the
# host does; shift=auto keeps the guest's clock near the host's, and an
# idle guest's clock skips to its next timer.
# shellcheck disable=SC2034 # used by the scripts that source this
raspi0_qemu=(qemu-system-arm -M raspi0 -accel tcg -icount shift=auto)
