# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The GPU_FFT part of `make check-thirdparty` (sourced by run.sh, after
# common.sh): GPU_FFT release 3.0 from GPU_FFT_SRC (its hello_fft
# directory, which the caller provides: nothing is fetched), built without
# its gpu_fft_base.c and mailbox.c against the installed libqpu-mailbox.
# hello_fft runs at every log2_N from 8 to 22 on the emulator device and
# from 8 to GPU_FFT_VM_MAX (default 18) on qpu.ko's simulated V3D in the VM
# (statically linked), each within twice the accuracy its gpu_fft.txt
# publishes and on the path gpu_fft.c picks (direct up to 5 << 12 points,
# the mailbox above, as QPU_MAILBOX_TRACE tells); hello_fft_2d's bitmap
# must match a CPU 2-D FFT of the same input (fft2d-ref.c) on both. Both
# devices get a 128 MiB buffer limit: 2^22 points take 65 MiB.

gpu_fft_max_bo_mib=128

# The published ppm per log2_N: the "log2(N) |" and "ppm rms |" rows.
gpu_fft_published() {
	awk -v n="$1" -F'|' '
		/^log2\(N\)/ { for (i = 2; i <= NF; i++) col[i] = $i + 0 }
		/^ppm rms/ { for (i = 2; i <= NF; i++) if (col[i] == n) print $i + 0 }
	' "$gpu_fft_src/gpu_fft.txt"
}

# gpu_fft_judge DEVICE LOG2_N STATUS OUTPUT: one row of the table and a
# result, from what hello_fft printed with QPU_MAILBOX_TRACE=1.
gpu_fft_judge() {
	local dev=$1 n=$2 rc=$3 out=$4 err ppm path want ok
	err=$(sed -n 's/^rel_rms_err = \([^,]*\),.*/\1/p' <<<"$out")
	ppm=$(gpu_fft_published "$n")
	path=$(sed -n 's/.*gpu_fft_base_exec: \([a-z]*\) path.*/\1/p' <<<"$out" | head -1)
	want=$([ $((1 << n)) -le $((5 << 12)) ] && echo direct || echo mailbox)
	printf '%-6s %-8s %-12s %-10s %s\n' "$dev" "$n" "${err:-none}" "${ppm:-?}e-6" "${path:-none}"
	ok=$(awk -v e="${err:-1}" -v p="${ppm:-0}" 'BEGIN { print (e <= 2 * p * 1e-6) ? 0 : 1 }')
	[ "$rc" = 0 ] && [ "$path" = "$want" ] || ok=1
	result "hello_fft_${dev}_$n" "$ok" \
		"exit $rc, error ${err:-none}, path ${path:-none} (want $want), $(grep -v '^rel_rms' <<<"$out" | head -3)"
}

# gpu_fft_build NAME [-static] SOURCES...: GPU_FFT's makefile, less its two
# platform files; its warnings are its own.
gpu_fft_build() {
	local out=$1 libs
	shift
	libs=$(pkg-config --cflags --libs qpu-mailbox)
	[ "$1" != -static ] || libs=$(pkg-config --static --cflags --libs qpu-mailbox)
	# shellcheck disable=SC2086
	(cd "$gpu_fft_src" && cc -O2 -w -o "$work/$out" "$@" $libs -lrt -lm -ldl) >"$work/$out.log" 2>&1
	result "build_$out" $? "$(head -5 "$work/$out.log")"
}

gpu_fft_suite() {
	local common="gpu_fft.c gpu_fft_twiddles.c gpu_fft_shaders.c" n out rc vm_max steps=()

	gpu_fft_src=${GPU_FFT_SRC:-}
	if [ -z "$gpu_fft_src" ]; then
		skipped gpu_fft "GPU_FFT_SRC is not set (GPU_FFT release 3.0's hello_fft directory)"
		return
	fi
	gpu_fft_src=$(cd "$gpu_fft_src" && pwd) || {
		result gpu_fft 1 "no directory $GPU_FFT_SRC"
		return
	}
	vm_max=${GPU_FFT_VM_MAX:-18}
	# shellcheck disable=SC2086
	gpu_fft_build hello_fft.bin $common hello_fft.c
	# shellcheck disable=SC2086
	gpu_fft_build hello_fft_2d.bin $common hello_fft_2d.c gpu_fft_trans.c
	cc -O2 -Wall -Wextra -Werror -o "$work/fft2d-ref" "$top/selftests/thirdparty/fft2d-ref.c" -lm
	result build_fft2d_ref $?

	printf '%-6s %-8s %-12s %-10s %s\n' device log2_N rel_rms_err published path
	for n in $(seq 8 22); do
		out=$(cd "$work" && QPU_DEVICE=emu:max-bo-mib=$gpu_fft_max_bo_mib QPU_MAILBOX_TRACE=1 \
			./hello_fft.bin "$n" 2>&1)
		gpu_fft_judge emu "$n" $? "$out"
	done
	(cd "$work" && QPU_DEVICE=emu ./hello_fft_2d.bin >"$work/2d.log" 2>&1 &&
		./fft2d-ref hello_fft_2d.bmp >>"$work/2d.log" 2>&1)
	result hello_fft_2d_emu $? "$(cat "$work/2d.log")"
	grep fft2d-ref "$work/2d.log"

	if ! vm_ready; then
		[ "$vm_state" = broken ] || skipped gpu_fft_vm "no VM kernel (VM_KERNEL)"
		return
	fi
	# shellcheck disable=SC2086
	gpu_fft_build hello_fft.static -static $common hello_fft.c
	# shellcheck disable=SC2086
	gpu_fft_build hello_fft_2d.static -static $common hello_fft_2d.c gpu_fft_trans.c
	cc -O2 -Wall -Wextra -Werror -static -o "$work/fft2d-ref.static" \
		"$top/selftests/thirdparty/fft2d-ref.c" -lm
	result build_fft2d_ref_static $?
	for n in $(seq 8 "$vm_max"); do
		steps+=(--run "QPU_MAILBOX_TRACE=1 hello_fft.static $n")
	done
	steps+=(--run "hello_fft_2d.static && fft2d-ref.static hello_fft_2d.bmp")
	vm_run gpu_fft "max_bo_size=$((gpu_fft_max_bo_mib << 20))" --step-timeout 600 \
		--copy "$work/hello_fft.static" --copy "$work/hello_fft_2d.static" \
		--copy "$work/fft2d-ref.static" "${steps[@]}"
	printf '%-6s %-8s %-12s %-10s %s\n' device log2_N rel_rms_err published path
	for n in $(seq 8 "$vm_max"); do
		out=$(vm_step_output gpu_fft $((n - 7)))
		vm_step_status gpu_fft $((n - 7))
		gpu_fft_judge qpu "$n" $? "$out"
	done
	out=$(vm_step_output gpu_fft $((vm_max - 6)))
	vm_step_status gpu_fft $((vm_max - 6))
	result hello_fft_2d_qpu $? "$out"
	grep fft2d-ref <<<"$out"
}
