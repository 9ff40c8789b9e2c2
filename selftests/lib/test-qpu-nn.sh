#!/bin/sh
# SPDX-License-Identifier: MIT
#
# test-qpu-nn: the qpu-nn tool on small .qnn graphs (the loader fuzzer's
# seeds, selftests/fuzz/corpus/nn): plan on the CPU and on the emulator's
# QPUs, run with raw input and output files, bench with a modelled board,
# and refusals: a corrupt file with its message and exit 1, bad usage with
# exit 2. (convert, which needs python3-onnx, is tests/test_nn.py's.)
# qpu-nn is looked up next to QPU_DIS.

: "${QPU_DIS:?QPU_DIS must name the qpu-dis binary}"
nn=$(dirname "$QPU_DIS")/qpu-nn
seeds=$(cd "$(dirname "$0")/../fuzz/corpus/nn" && pwd)
if [ ! -x "$nn" ]; then
	echo "$nn not built (make tools)"
	exit 77
fi

QPU_DEVICE=cpu	# the default device, unless a case names another
export QPU_DEVICE
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0

check() {
	if "$@"; then passed=$((passed + 1)); else echo "FAIL: $*" >&2; failed=$((failed + 1)); fi
}

"$nn" plan "$seeds/conv-relu.qnn" >"$tmp/plan" 2>&1
check grep -qE '^Conv_0 .*Conv\+Relu .*cpu .*no device: the CPU backend(; XNNPACK.s convolution)?$' \
	"$tmp/plan"
check grep -q '^Relu_1 .*fused .*done by node .Conv_0. (Conv) on its output$' "$tmp/plan"
check grep -q '^arena: [0-9]* bytes$' "$tmp/plan"

QPU_DEVICE=emu "$nn" plan --qpu-all "$seeds/dw-pool-gemm.qnn" >"$tmp/plan" 2>&1
check grep -q '^Gemm_3 .*qpu .*QPUs asked' "$tmp/plan"
check grep -q '^Conv_0 .*qpu .*QPUs asked' "$tmp/plan"
check grep -q '^MaxPool_1 .*qpu .*QPUs asked' "$tmp/plan"
check grep -q '^Flatten_2 .*view ' "$tmp/plan"

# a QDQ stack: literally in float by default, as the integer operators with
# --qdq-int8 or QPU_NN_QDQ=int8
"$nn" plan --qdq-int8 "$seeds/qdq-stack.qnn" >"$tmp/plan" 2>&1
check grep -q '^conv0 .*QLinearConv+Relu, QuantizeLinear .*; QDQ: int8 in place of' "$tmp/plan"
check grep -q '^gemm3 .*QLinearMatMul+QuantizeLinear ' "$tmp/plan"
check grep -q '^add2 .*QLinearAdd+Relu, QuantizeLinear ' "$tmp/plan"
check grep -q "^quant0 .*fused .*done by node 'conv0' (QLinearConv, from QDQ)" "$tmp/plan"
QPU_NN_QDQ=int8 "$nn" plan "$seeds/qdq-stack.qnn" >"$tmp/plan" 2>&1
check grep -q '^gemm3 .*QLinearMatMul+QuantizeLinear ' "$tmp/plan"
"$nn" plan "$seeds/qdq-stack.qnn" >"$tmp/plan" 2>&1
check grep -q '^conv0 .*Conv+Relu .*cpu' "$tmp/plan"
check grep -q '^quant0 .*QuantizeLinear .*cpu' "$tmp/plan"
check grep -q '^gemm3 .*Gemm .*cpu' "$tmp/plan"
QPU_NN_QDQ=float "$nn" plan "$seeds/qdq-stack.qnn" >"$tmp/plan" 2>&1
check grep -q '^gemm3 .*Gemm .*cpu' "$tmp/plan"

head -c 128 /dev/urandom >"$tmp/in"
"$nn" run "$seeds/dw-pool-gemm.qnn" -i "$tmp/in" -o "$tmp/out" >"$tmp/run" 2>&1
check [ $? -eq 0 ]
check grep -q '^output y: 12 bytes, largest element [0-2] ' "$tmp/run"
check [ "$(wc -c <"$tmp/out")" -eq 12 ]
"$nn" run -d emu --qpu-all "$seeds/dw-pool-gemm.qnn" -i "$tmp/in" -o "$tmp/out2" >/dev/null 2>&1
check [ $? -eq 0 ]
head -c 4 "$tmp/in" >"$tmp/short"
"$nn" run "$seeds/dw-pool-gemm.qnn" -i "$tmp/short" >"$tmp/err" 2>&1
check [ $? -eq 1 ]
check grep -q "shorter than input 'x' (128 bytes)" "$tmp/err"

"$nn" bench -n 1 -b pi1 "$seeds/conv-relu.qnn" >"$tmp/bench" 2>&1
check [ $? -eq 0 ]
check grep -q '^Conv_0 .* | .* cpu ' "$tmp/bench"
check grep -q '^total ' "$tmp/bench"
check grep -q 'Pi 1/Zero' "$tmp/bench"
"$nn" bench -n 1 -b pi4,pi5 "$seeds/conv-relu.qnn" >"$tmp/bench" 2>&1
check [ $? -eq 0 ]
check grep -q 'boards: pi4: Pi 4 (V3D 4.2, 8 QPUs, 500 MHz); pi5: Pi 5 (V3D 7.1, 12 QPUs' "$tmp/bench"
check grep -q '^total .* | .* | ' "$tmp/bench"
"$nn" bench -n 1 -b pi9 "$seeds/conv-relu.qnn" >"$tmp/err" 2>&1
check [ $? -eq 1 ]
check grep -q 'unknown board pi9' "$tmp/err"

head -c 100 "$seeds/conv-relu.qnn" >"$tmp/cut.qnn"
"$nn" plan "$tmp/cut.qnn" >"$tmp/err" 2>&1
check [ $? -eq 1 ]
check grep -q 'qpu-nn: malformed or truncated .qnn file' "$tmp/err"
"$nn" plan "$tmp/missing.qnn" >"$tmp/err" 2>&1
check [ $? -eq 1 ]
check grep -q 'No such file or directory' "$tmp/err"

for args in "" "plan" "frob x.qnn" "bench -n 0 x.qnn" "plan --bogus x.qnn"; do
	# shellcheck disable=SC2086
	"$nn" $args >/dev/null 2>"$tmp/err"
	check [ $? -eq 2 ]
done
"$nn" --help | grep -q '^usage: qpu-nn convert'
check [ $? -eq 0 ]

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
