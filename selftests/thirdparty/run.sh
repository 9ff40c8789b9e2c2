#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make check-thirdparty [GPU_FFT_SRC=DIR] [QPULIB_SRC=DIR]: other projects'
# firmware-mailbox programs, from directories the caller provides (nothing
# is fetched), built against libqpu-mailbox as `make install` installs it
# and run on the emulator device and, in the VM, on qpu.ko's simulated
# V3D: GPU_FFT release 3.0 (gpu_fft.sh) and QPULib (qpulib.sh). A part
# whose variable is unset is skipped. One closing line for all.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=selftests/thirdparty/common.sh
. "$here/common.sh"
# shellcheck source=selftests/thirdparty/gpu_fft.sh
. "$here/gpu_fft.sh"
# shellcheck source=selftests/thirdparty/qpulib.sh
. "$here/qpulib.sh"

if [ -n "${GPU_FFT_SRC:-}${QPULIB_SRC:-}" ]; then
	install_tree
fi
gpu_fft_suite
qpulib_suite
closing_line
