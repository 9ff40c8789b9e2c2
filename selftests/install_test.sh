#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# `make install DESTDIR=...` gives a usable tree: every file in place, and a
# program built with `pkg-config --cflags --libs libqpu` against that tree
# links and runs, both against the shared and the static library.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
make_cmd=${MAKE:-make}
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT
prefix=/usr/local
pass=0 fail=0

check() {
	local name=$1
	shift
	if "$@" >"$dest/out" 2>&1; then
		echo "PASS $name"
		pass=$((pass + 1))
	else
		echo "FAIL $name"
		sed 's/^/    /' "$dest/out"
		fail=$((fail + 1))
	fi
}

check install "$make_cmd" -C "$top" --no-print-directory install DESTDIR="$dest/root" PREFIX=$prefix

for f in include/qpu.h include/linux/qpu.h include/qpu_kernels.h \
	 include/qpu_emit.h include/qpu_hazard.h lib/libqpu.a lib/libqpu.so \
	 lib/libqpu.so.0 lib/pkgconfig/libqpu.pc bin/qpu-info bin/qpu-dis \
	 bin/qpu-run bin/qpu-as bin/qpu-check bin/qpu-demo bin/qpuctl \
	 share/qpu/qasm/vpm.qinc share/qpu/qasm/dma.qinc share/man/man8/qpuctl.8 \
	 share/bash-completion/completions/qpuctl; do
	check "file_${f//\//_}" test -e "$dest/root$prefix/$f"
done
check module_installed sh -c "ls '$dest'/root/lib/modules/*/updates/qpu.ko"
check udev_rule_installed test -f "$dest/root/etc/udev/rules.d/60-qpu.rules"

export PKG_CONFIG_SYSROOT_DIR=$dest/root
export PKG_CONFIG_LIBDIR=$dest/root$prefix/lib/pkgconfig
cat >"$dest/hello.c" <<'PROG'
#include <stdio.h>
#include <string.h>
#include <linux/qpu.h>
#include <qpu.h>
#include <qpu_emit.h>
#include <qpu_hazard.h>
#include <qpu_kernels.h>

int main(void)
{
	/* A missing device must be a clean error, not a crash. */
	struct qpu_dev *dev = qpu_dev_open("/nonexistent/qpu");
	/* Every public header's symbols are exported. */
	struct qpu_emit *e = qpu_emit_new();

	printf("libqpu %s abi %d %s\n", qpu_version(), QPU_ABI_VERSION,
	       dev ? "opened" : "absent");
	qpu_dev_close(dev);
	qpu_emit_free(e);
	return strcmp(qpu_version(), "") == 0 || !e ||
	       qpu_kernel_last_error()[0] || !qpu_hazard_rule_name(0);
}
PROG
check pkg_config_flags pkg-config --cflags --libs libqpu
# shellcheck disable=SC2046
check build_shared cc -Wall -Werror -o "$dest/hello" "$dest/hello.c" $(pkg-config --cflags --libs libqpu)
check run_shared sh -c "LD_LIBRARY_PATH='$dest/root$prefix/lib' '$dest/hello' | grep -q '^libqpu [0-9.]* abi 1 absent$'"
# shellcheck disable=SC2046
check build_static cc -Wall -Werror -static -o "$dest/hello-static" "$dest/hello.c" $(pkg-config --static --cflags --libs libqpu)
check run_static sh -c "'$dest/hello-static' | grep -q '^libqpu [0-9.]* abi 1 absent$'"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
