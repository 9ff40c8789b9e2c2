# SPDX-License-Identifier: MIT
#
# The TAP lines of the VM's shell tests (test-qpuctl-vm.sh,
# test-v3d-tools-vm.sh), sourced from /payload: "TAP version 13" now,
# result() per case, tap_end to close with the plan and the exit status.
# Each script sets tmp (its scratch directory) first.

n=0 failed=0
echo "TAP version 13"

# result NAME STATUS [WHY]
result() {
	n=$((n + 1))
	if [ "$2" -eq 0 ]; then
		echo "ok $n $1"
	else
		echo "# $1: $3"
		echo "not ok $n $1"
		failed=1
	fi
}

tap_end() {
	echo "1..$n"
	exit "$failed"
}
