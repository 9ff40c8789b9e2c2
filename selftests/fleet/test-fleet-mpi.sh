#!/bin/sh
# SPDX-License-Identifier: MIT
#
# test-fleet-mpi: qpu-batch (tools/fleet/qpu_mpi.c) under Open MPI's
# mpirun on this machine, each rank on its own emulator device: 1, 2 and 4
# ranks (--oversubscribe: more ranks than cores) write the same bits, the
# exact products; a directory of inputs gives what the generated batches
# give; a failing batch is named with its rank; bad hostfiles, a missing
# directory and bad options are errors at start, said once. Skips without
# Open MPI (tools/deps.sh fleet).

: "${QPU_DIS:?QPU_DIS must name the qpu-dis binary}"
build=$(cd "$(dirname "$QPU_DIS")/.." && pwd)
batch=$build/tools/qpu-batch
# shellcheck source=selftests/lib/check-lib.sh
. "$(dirname "$0")/../lib/check-lib.sh"

if ! command -v mpirun >/dev/null || [ ! -x "$batch" ]; then
	echo "no mpirun or qpu-batch: run tools/deps.sh fleet, then make"
	exit 77
fi
PYTHON=${PYTHON:-/usr/bin/python3}
[ -x "$PYTHON" ] || { echo "no $PYTHON: run tools/deps.sh python"; exit 77; }
export QPU_DEVICE=emu
# Open MPI's session files go to the scratch directory; as root (a CI
# container), mpirun wants to be told that this is meant.
export TMPDIR="$tmp"
mpirun="mpirun --oversubscribe"
[ "$(id -u)" -ne 0 ] || mpirun="$mpirun --allow-run-as-root"

size=16 batches=12
ranks() {
	n=$1
	shift
	# shellcheck disable=SC2086
	timeout 60 $mpirun -n "$n" "$batch" --size $size --batches $batches "$@"
}

# The products are exact (small integers over 4): C = A B as numpy has it.
exact() {
	"$PYTHON" - "$1" $size $batches <<'EOF'
import sys
try:
    import numpy as np
except ImportError:
    print("no numpy: only the sizes checked")
    np = None
path, n, batches = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
data = open(path, "rb").read()
if len(data) != batches * n * n * 4:
    sys.exit(f"{len(data)} bytes, not {batches * n * n * 4}")
if np is not None:
    got = np.frombuffer(data, dtype=np.float32).reshape(batches, n, n)
    i = np.arange(n * n, dtype=np.int64)
    for b in range(batches):
        a = (((i * 7 + b * 11) % 17) - 8).astype(np.float32).reshape(n, n) / 4
        bb = (((i * 5 + b * 3) % 13) - 6).astype(np.float32).reshape(n, n) / 4
        if not np.array_equal(got[b], a @ bb):
            sys.exit(f"batch {b}: not A B")
EOF
}

check ranks_1 ranks 1 --out "$tmp/c1.f32"
check ranks_1_exact_products exact "$tmp/c1.f32"
same_bits() {
	ranks "$1" --out "$tmp/c$1.f32" && cmp "$tmp/c1.f32" "$tmp/c$1.f32"
}
check ranks_2_same_bits same_bits 2
check ranks_4_same_bits same_bits 4

# The generated batches as files, and one file too short for a failure.
mkdir -p "$tmp/in" "$tmp/bad"
"$PYTHON" - "$tmp/in" $size $batches <<'EOF'
import struct, sys
d, n, batches = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
for b in range(batches):
    a = [(((i * 7 + b * 11) % 17) - 8) / 4 for i in range(n * n)]
    bb = [(((i * 5 + b * 3) % 13) - 6) / 4 for i in range(n * n)]
    with open(f"{d}/{b:03d}.f32", "wb") as f:
        f.write(struct.pack(f"{2 * n * n}f", *a, *bb))
EOF
cp "$tmp"/in/*.f32 "$tmp/bad/"
head -c 100 "$tmp/in/005.f32" >"$tmp/bad/005.f32"
head -c 100 "$tmp/in/009.f32" >"$tmp/bad/009.f32"
dir_same() {
	ranks 2 --dir "$tmp/in" --out "$tmp/d2.f32" && cmp "$tmp/c1.f32" "$tmp/d2.f32"
}
check dir_of_inputs_same_bits dir_same

# expect_error PATTERN CMD...: CMD fails, PATTERN in its output once.
expect_error() {
	pattern=$1
	shift
	"$@" >"$tmp/out" 2>&1
	status=$?
	cat "$tmp/out"
	[ "$status" -ne 0 ] || { echo "exit status 0"; return 1; }
	[ "$(grep -c -- "$pattern" "$tmp/out")" -eq 1 ] || { echo "'$pattern' not once"; return 1; }
}
check failing_batch_named expect_error \
	"^qpu-batch: batch 5 failed on rank 1 ([^)]*): $tmp/bad/005.f32: 100 bytes, not 2048 (A then B, 16x16 float32 each) (2 of 12 batches failed)\$" \
	ranks 4 --dir "$tmp/bad" --out "$tmp/bad.f32"
check missing_dir_said_once expect_error "^qpu-batch: $tmp/none: No such file or directory\$" \
	ranks 2 --dir "$tmp/none" --out "$tmp/x.f32"
check no_out_said_once expect_error "^qpu-batch: no --out FILE\$" ranks 2
check bad_size expect_error "^qpu-batch: --size '0': not a number from 1 to 1024\$" \
	"$batch" --size 0 --out "$tmp/x.f32"
# shellcheck disable=SC2086
check hostfile_missing expect_error "unable to open the hostfile" \
	timeout 20 $mpirun --hostfile "$tmp/none" -n 1 "$batch" --out "$tmp/x.f32"
printf 'localhost slots=many\n' >"$tmp/hosts"
# shellcheck disable=SC2086
check hostfile_bad_slots expect_error "bad parameter in the hostfile" \
	timeout 20 $mpirun --hostfile "$tmp/hosts" -n 1 "$batch" --out "$tmp/x.f32"
check_end
