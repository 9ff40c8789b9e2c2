#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make calibrate-timing GPU_FFT_SRC=DIR: the timing model's calibration
# against GPU_FFT release 3.0's published Pi 1 times (the table in its
# gpu_fft.txt). GPU_FFT comes from the directory the caller gives (nothing
# is fetched), is built against libqpu-mailbox as `make install` installs
# it, and runs hello_fft on the emulator device with QPU_EMU_BOARD=pi1 at
# batch 1 for log2_N 8..22 and batch 10 for 8..15; the modelled time per
# transform (the mailbox layer's QPU_MAILBOX_TRACE line: the launch path's
# cost plus the job's V3D time, over the batch) is set beside the published
# one. Prints the table of libqpu/core/timing/CALIBRATION.md, then the
# median and worst error over all rows and over the rows the fit did not
# use (odd log2_N), and PASS/FAIL against the goal: every row within 25 %,
# the median within 10 %. CALIBRATE_MAX=N stops batch 1 at log2_N N.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=selftests/thirdparty/common.sh
. "$here/common.sh"
# shellcheck source=selftests/thirdparty/gpu_fft.sh
. "$here/gpu_fft.sh"

src=${GPU_FFT_SRC:-}
if [ -z "$src" ] || [ ! -r "$src/gpu_fft.txt" ]; then
	echo "calibrate.sh: GPU_FFT_SRC must name GPU_FFT 3.0's hello_fft directory" >&2
	exit 2
fi
gpu_fft_src=$(cd "$src" && pwd)
max=${CALIBRATE_MAX:-22}

install_tree
gpu_fft_build hello_fft.bin gpu_fft.c gpu_fft_twiddles.c gpu_fft_shaders.c hello_fft.c

# published BATCH LOG2_N: the ms per transform gpu_fft.txt gives.
published() {
	awk -v b="$1" -v n="$2" -F'|' '
		/^log2\(N\)/ { for (i = 2; i <= NF; i++) col[i] = $i + 0 }
		$1 + 0 == b && $1 !~ /FFTW/ && NF > 2 {
			for (i = 2; i <= NF; i++) if (col[i] == n) print $i + 0 }
	' "$gpu_fft_src/gpu_fft.txt" | head -1
}

rows=$work/rows
: >"$rows"
printf '%-6s %-6s %-10s %-10s %-8s %s\n' batch log2_N published modelled error fit
for batch in 1 10; do
	last=$([ "$batch" = 1 ] && echo "$max" || echo 15)
	for n in $(seq 8 "$last"); do
		out=$(cd "$work" && QPU_DEVICE=emu:max-bo-mib=$gpu_fft_max_bo_mib QPU_EMU_BOARD=pi1 \
			QPU_MAILBOX_TRACE=1 nice -n 10 ./hello_fft.bin "$n" "$batch" 2>&1)
		ns=$(sed -n 's/.*: modelled \([0-9]*\) ns on .*/\1/p' <<<"$out" | head -1)
		pub=$(published "$batch" "$n")
		fit=$([ $((n % 2)) = 0 ] && echo fit || echo held-out)
		if [ -z "$ns" ] || [ -z "$pub" ]; then
			result "calibrate_${batch}_$n" 1 "no modelled time: $(tail -2 <<<"$out")"
			continue
		fi
		awk -v b="$batch" -v n="$n" -v p="$pub" -v ns="$ns" -v f="$fit" 'BEGIN {
			m = ns / 1e6 / b; e = (m - p) / p * 100
			printf "%-6s %-6s %-10.3g %-10.3g %+-7.1f%% %s\n", b, n, p, m, e, f
		}'
		awk -v p="$pub" -v ns="$ns" -v b="$batch" -v f="$fit" \
			'BEGIN { printf "%f %s\n", (ns / 1e6 / b - p) / p * 100, f }' >>"$rows"
	done
done

# summary WHICH: median and worst absolute error of the rows WHICH matches.
summary() {
	grep -- "$1" "$rows" | awk '{ print ($1 < 0 ? -$1 : $1) }' | sort -g | awk -v w="$2" '
		{ v[NR] = $1 } END {
			if (!NR) exit 1
			med = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
			printf "%s: %d rows, median |error| %.1f %%, worst %.1f %%\n", w, NR, med, v[NR]
			exit !(med <= 10 && v[NR] <= 25)
		}'
}
summary . "all rows"
result calibration_goal $? "a row is off by more than 25 %, or the median by more than 10 %"
summary held-out "held-out rows"
result calibration_held_out $?
closing_line
