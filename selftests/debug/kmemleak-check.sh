#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# qpu: the kmemleak step of check-debug, run in the VM (busybox sh). Owns
#   kmemleak-check.sh clear   forget what the boot and the module load left
#   kmemleak-check.sh scan    scan (twice: an object that only a register or
#                             a recent stack pointed at is not reported) and
#                             fail, printing them, if any leak is suspected
set -eu

k=/sys/kernel/debug/kmemleak
[ -w "$k" ] || {
	echo "kmemleak-check: no $k: not a kmemleak kernel"
	exit 4
}
case "${1:-}" in
clear)
	echo scan >"$k"
	echo clear >"$k"
	echo "kmemleak-check: cleared"
	;;
scan)
	echo scan >"$k"
	sleep 2
	echo scan >"$k"
	cat "$k" >/tmp/kmemleak.txt
	if [ -s /tmp/kmemleak.txt ]; then
		cat /tmp/kmemleak.txt
		echo "kmemleak-check: $(grep -c '^unreferenced object' /tmp/kmemleak.txt) suspected leaks"
		exit 1
	fi
	echo "kmemleak-check: no leaks"
	;;
*)
	echo "usage: kmemleak-check.sh clear|scan" >&2
	exit 2
	;;
esac
