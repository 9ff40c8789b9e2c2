#!/bin/sh
# SPDX-License-Identifier: MIT
#
# bench-mpi: qpu-batch's throughput on this machine with 1 and 2 ranks
# (and RANKS="1 2 4" for others), each rank on its own emulator: batches
# of sgemm per second, best of REPEAT runs, the CPU time the ranks took
# and the load average, since a shared machine's other work shows in the
# wall-clock figures. Usage: bench-mpi.sh
# QPU_BATCH [BATCHES [SIZE]].
set -eu

batch=$1 nbatches=${2:-64} size=${3:-256}
repeat=${REPEAT:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export QPU_DEVICE=emu TMPDIR="$tmp"
mpirun="mpirun --oversubscribe"
[ "$(id -u)" -ne 0 ] || mpirun="$mpirun --allow-run-as-root"

echo "qpu-batch over MPI: $nbatches batches of ${size}x$size sgemm, one emulator per rank," \
	"$(getconf _NPROCESSORS_ONLN) CPUs, best of $repeat"
one=
for n in ${RANKS:-1 2}; do
	best=
	i=0
	while [ $i -lt "$repeat" ]; do
		# shellcheck disable=SC2086
		line=$($mpirun -n "$n" "$batch" --batches "$nbatches" --size "$size" \
			--out "$tmp/c$n.f32" --stats 2>&1 | grep 'batches/s')
		rate=$(echo "$line" | sed -n 's/.*: \([0-9.]*\) batches\/s, .*/\1/p')
		if [ "$(echo "$rate ${best:-0}" | awk '{ print ($1 > $2) }')" = 1 ]; then
			best=$rate
			cpu=$(echo "$line" | sed -n 's/.*, \([0-9.]*\) CPU-s in all$/\1/p')
		fi
		i=$((i + 1))
	done
	[ -n "$one" ] || one=$best
	cmp -s "$tmp/c1.f32" "$tmp/c$n.f32" || { echo "$n ranks: other bits than 1 rank"; exit 1; }
	printf '  %d rank(s): %8.1f batches/s  (x%.2f), %.2f CPU-s: %.1f batches per CPU-s\n' \
		"$n" "$best" "$(echo "$best $one" | awk '{ print $1 / $2 }')" "$cpu" \
		"$(echo "$nbatches $cpu" | awk '{ print $1 / $2 }')"
done
echo "  load average: $(cut -d' ' -f1-3 /proc/loadavg)"
