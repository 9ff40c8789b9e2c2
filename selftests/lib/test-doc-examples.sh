#!/bin/sh
# SPDX-License-Identifier: MIT
#
# test-doc-examples: every example of README.md, libqpu/README.md,
# libqpu/python/README.md and the manual pages runs as written, on the
# emulator, against this build tree (doc-examples.py says how).

: "${QPU_DIS:?QPU_DIS must name the qpu-dis binary}"
top=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "$(dirname "$QPU_DIS")/.." && pwd)
python=${PYTHON:-/usr/bin/python3}
"$python" -c 'import numpy' 2>/dev/null || { echo "no $python with numpy: run tools/deps.sh python"; exit 77; }
cd "$top" || exit 1
exec "$python" selftests/lib/doc-examples.py "$build" README.md libqpu/README.md \
	libqpu/python/README.md libqpu/man/*.[37] tools/man/*.[17] tools/qpuctl/qpuctl.8
