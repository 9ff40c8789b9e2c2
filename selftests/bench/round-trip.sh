#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# qpu: the empty job's round trip of two qpu.ko builds, alternated in one
# guest (make bench-round-trip), so that both meet the same host load:
# each pair loads one module, runs "bench-vm --round-trip 1 JOBS", unloads
# it and does the same with the other. The medians of each side's lines
# close the output. Runs in the VM's /payload as a run-vm.sh step.
#
# Usage: round-trip.sh NEW.ko [OLD.ko] [PAIRS] [JOBS]
#   NEW.ko is the module run-vm.sh loaded (it is unloaded first); without
#   OLD.ko (or with "-") only NEW.ko is measured, PAIRS times.

new=$1
old=${2:--}
pairs=${3:-5}
jobs=${4:-500}
args="sim=1"

# One module's run: its line, tagged with the side.
measure() {
	rmmod qpu 2>/dev/null
	insmod "$2" $args || { echo "round-trip: insmod $2 failed"; exit 1; }
	./bench-vm --round-trip 1 "$jobs" | sed -n "s/^round trip 0: /$1 /p"
}

# The median of column $2 (a number) among the lines tagged $1.
median() {
	grep "^$1 " "$log" | sed "s/.*$2 \([0-9.]*\).*/\1/" | sort -n |
		awk '{ v[NR] = $1 } END { if (NR) print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

log=/tmp/round-trip.log
: >"$log"
i=0
while [ "$i" -lt "$pairs" ]; do
	[ "$old" = - ] || measure old "$old" | tee -a "$log"
	measure new "$new" | tee -a "$log"
	i=$((i + 1))
done
for side in old new; do
	grep -q "^$side " "$log" || continue
	echo "round trip $side median of $(grep -c "^$side " "$log"): eventfd $(median $side eventfd) us, job $(median $side job) us, ratio $(median $side ratio) x, poll only $(median $side "only") us, switches $(median $side switches) and $(median $side and)"
done
echo "load average (guest): $(cat /proc/loadavg)"
# run-vm.sh unloads the module it loaded: leave NEW loaded.
grep -q "^qpu " /proc/modules || insmod "$new" $args
