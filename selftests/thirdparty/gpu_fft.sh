#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make check-thirdparty GPU_FFT_SRC=DIR: GPU_FFT release 3.0 (DIR is its
# hello_fft directory, which the caller provides: nothing is fetched) built
# without its gpu_fft_base.c and mailbox.c against libqpu-mailbox as
# `make install` installs it, then run on the emulator device: hello_fft at
# every log2_N from 8 to 22 (a 128 MiB buffer limit: 2^22 points take
# 65 MiB), each within twice the accuracy its gpu_fft.txt
# publishes and on the path gpu_fft.c picks (direct up to 5 << 12 points,
# the mailbox above), and hello_fft_2d, whose bitmap must match a CPU 2-D
# FFT of the same input (fft2d-ref.c). Without GPU_FFT_SRC it is skipped.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
make_cmd=${MAKE:-make}
src=${GPU_FFT_SRC:-}
pass=0 fail=0

if [ -z "$src" ]; then
	echo "SKIP gpu_fft: GPU_FFT_SRC is not set (GPU_FFT release 3.0's hello_fft directory)"
	echo "0 passed, 0 failed, 1 skipped"
	exit 0
fi
src=$(cd "$src" && pwd) || { echo "FAIL gpu_fft: no directory $GPU_FFT_SRC"; echo "0 passed, 1 failed"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=/usr/local

result() {
	if [ "$2" = 0 ]; then
		echo "PASS $1"
		pass=$((pass + 1))
	else
		echo "FAIL $1${3:+: $3}"
		fail=$((fail + 1))
	fi
}

"$make_cmd" -C "$top" --no-print-directory install DESTDIR="$work/root" PREFIX=$prefix >"$work/install.log" 2>&1
result install $? "$(tail -5 "$work/install.log")"
export PKG_CONFIG_SYSROOT_DIR=$work/root
export PKG_CONFIG_LIBDIR=$work/root$prefix/lib/pkgconfig
libdir=$work/root$prefix/lib
# The tree is no system's: its libqpu.so.0 (libqpu-mailbox's need) too.
export LD_LIBRARY_PATH=$libdir

# GPU_FFT's makefile, less its two platform files; its warnings are its own.
build() {
	local out=$1
	shift
	(cd "$src" && cc -O2 -w -o "$work/$out" "$@" $(pkg-config --cflags --libs qpu-mailbox) -lrt -lm -ldl) >"$work/$out.log" 2>&1
	result "build_$out" $? "$(head -5 "$work/$out.log")"
}
common="gpu_fft.c gpu_fft_twiddles.c gpu_fft_shaders.c"
build hello_fft.bin $common hello_fft.c
build hello_fft_2d.bin $common hello_fft_2d.c gpu_fft_trans.c
cc -O2 -Wall -Wextra -Werror -o "$work/fft2d-ref" "$top/selftests/thirdparty/fft2d-ref.c" -lm
result build_fft2d_ref $?

# The published ppm per log2_N: the "log2(N) |" and "ppm rms |" rows.
published() {
	awk -v n="$1" -F'|' '
		/^log2\(N\)/ { for (i = 2; i <= NF; i++) col[i] = $i + 0 }
		/^ppm rms/ { for (i = 2; i <= NF; i++) if (col[i] == n) print $i + 0 }
	' "$src/gpu_fft.txt"
}

printf '%-8s %-12s %-10s %s\n' log2_N rel_rms_err published path
for n in $(seq 8 22); do
	out=$(cd "$work" && QPU_DEVICE=emu:max-bo-mib=128 QPU_MAILBOX_TRACE=1 ./hello_fft.bin "$n" 2>"$work/trace")
	rc=$?
	err=$(sed -n 's/^rel_rms_err = \([^,]*\),.*/\1/p' <<<"$out")
	ppm=$(published "$n")
	path=$(sed -n 's/.*gpu_fft_base_exec: \([a-z]*\) path.*/\1/p' "$work/trace" | head -1)
	want=$([ $((1 << n)) -le $((5 << 12)) ] && echo direct || echo mailbox)
	printf '%-8s %-12s %-10s %s\n' "$n" "${err:-none}" "${ppm:-?}e-6" "${path:-none}"
	ok=$(awk -v e="${err:-1}" -v p="${ppm:-0}" 'BEGIN { print (e <= 2 * p * 1e-6) ? 0 : 1 }')
	[ "$rc" = 0 ] && [ "$path" = "$want" ] || ok=1
	result "hello_fft_$n" "$ok" "exit $rc, error ${err:-none}, path ${path:-none} (want $want), $(head -3 "$work/trace")"
done

(cd "$work" && QPU_DEVICE=emu ./hello_fft_2d.bin >"$work/2d.log" 2>&1 && ./fft2d-ref hello_fft_2d.bmp >>"$work/2d.log" 2>&1)
result hello_fft_2d $? "$(cat "$work/2d.log")"
grep fft2d-ref "$work/2d.log"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
