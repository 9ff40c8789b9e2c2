#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# `make install DESTDIR=...` gives a usable tree: every file in place, and a
# program built with `pkg-config --cflags --libs libqpu` against that tree
# links and runs, both against the shared and the static library; so does a
# C++ firmware-mailbox client against libqpu-mailbox (QPULib's shape). Every
# tool (tools/*.c, tools/qpuctl) builds from that tree alone, with the tools'
# own shared code (tools/lib), and one of them runs; so do the C programs of
# README.md (test-doc-examples runs them against the build tree).
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
	 include/qpu_emit.h include/qpu_hazard.h include/qpu_hazard_v3d.h \
	 include/qpu_emit_v3d.h include/qpu_asm.h \
	 include/qpu_dis.h include/qpu_emulator.h lib/libqpu.a lib/libqpu.so \
	 lib/libqpu.so.0 lib/pkgconfig/libqpu.pc include/qpu_mailbox.h \
	 lib/libqpu-mailbox.a lib/libqpu-mailbox.so lib/libqpu-mailbox.so.0 \
	 lib/pkgconfig/qpu-mailbox.pc bin/qpu-info bin/qpu-dis \
	 bin/qpu-run bin/qpu-as bin/qpu-check bin/qpu-demo bin/qpuctl \
	 share/qpu/qasm/vpm.qinc share/qpu/qasm/dma.qinc share/man/man8/qpuctl.8 \
	 share/man/man1/qpu-as.1 share/man/man3/qpu_dev_open.3 share/man/man3/qpu_submit.3 \
	 share/man/man3/mbox_open.3 share/man/man7/libqpu.7 share/man/man7/qpu-tools.7 \
	 share/bash-completion/completions/qpuctl; do
	check "file_${f//\//_}" test -e "$dest/root$prefix/$f"
done
# Without kernel headers or the kernel source tarball, `make` plans the
# userspace parts only, and says what it leaves out.
all_without_kernel() {
	"$make_cmd" -C "$top" --no-print-directory -n all KDIR=/nonexistent KSFT_TARBALL= >"$dest/plan" 2>&1 &&
		! grep -q ' M=.*modules$' "$dest/plan" && grep -q 'libqpu.so' "$dest/plan" &&
		grep -q 'qpu.ko: no kernel build directory' "$dest/plan" &&
		grep -q 'the kselftests: no ' "$dest/plan"
}
check all_without_kernel_headers all_without_kernel

# A second install with another prefix gets its own libqpu.pc (generated
# files follow the variables they are made from, not just their sources).
check pc_follows_prefix sh -c "'$make_cmd' -C '$top' --no-print-directory install \
	DESTDIR='$dest/root2' PREFIX=/opt/qpu >/dev/null &&
	grep -qx 'prefix=/opt/qpu' '$dest/root2/opt/qpu/lib/pkgconfig/libqpu.pc'"
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
#include <qpu_asm.h>
#include <qpu_dis.h>
#include <qpu_emulator.h>

int main(void)
{
	/* A missing device must be a clean error, not a crash. */
	struct qpu_dev *dev = qpu_dev_open("/nonexistent/qpu");
	/* Every public header's symbols are exported. */
	struct qpu_emit *e = qpu_emit_new();
	struct qpu_asm *as = qpu_asm_new();
	struct qpu_emulator *emu = qpu_emulator_new(0);
	char text[QPU_DIS_BUF_SIZE];

	printf("libqpu %s abi %d %s\n", qpu_version(), QPU_ABI_VERSION,
	       dev ? "opened" : "absent");
	qpu_dev_close(dev);
	qpu_emit_free(e);
	qpu_asm_free(as);
	qpu_emulator_free(emu);
	return strcmp(qpu_version(), "") == 0 || !e || !as || !emu ||
	       qpu_kernels_new(NULL) || qpu_dis_word(0, 0, 0, text, sizeof(text)) < 0 ||
	       !qpu_hazard_rule_name(0);
}
PROG
check pkg_config_flags pkg-config --cflags --libs libqpu
# shellcheck disable=SC2046
check build_shared cc -Wall -Werror -o "$dest/hello" "$dest/hello.c" $(pkg-config --cflags --libs libqpu)
check run_shared sh -c "LD_LIBRARY_PATH='$dest/root$prefix/lib' '$dest/hello' | grep -q '^libqpu [0-9.]* abi 1 absent$'"
# shellcheck disable=SC2046
check build_static cc -Wall -Werror -static -o "$dest/hello-static" "$dest/hello.c" $(pkg-config --static --cflags --libs libqpu)
check run_static sh -c "'$dest/hello-static' | grep -q '^libqpu [0-9.]* abi 1 absent$'"

# A C++ mailbox client with its own prototypes and no extern "C" (QPULib's
# Mailbox.h): built with -include qpu_mailbox.h it links and runs a program
# through execute_qpu() on the emulator; without it, it cannot link.
cat >"$dest/mbox.cpp" <<'PROG'
#include <stdio.h>
#include <string.h>
int mbox_open();
void mbox_close(int file_desc);
unsigned mem_alloc(int file_desc, unsigned size, unsigned align, unsigned flags);
unsigned mem_free(int file_desc, unsigned handle);
unsigned mem_lock(int file_desc, unsigned handle);
unsigned mem_unlock(int file_desc, unsigned handle);
void *mapmem(unsigned base, unsigned size);
void unmapmem(void *addr, unsigned size);
unsigned execute_qpu(int file_desc, unsigned num_qpus, unsigned control, unsigned noflush, unsigned timeout);
unsigned qpu_enable(int file_desc, unsigned enable);

int main()
{
	/* thrend; nop; nop, then the control list {uniforms, code}. */
	static const unsigned prog[] = { 0x009e7000, 0x300009e7, 0x009e7000, 0x100009e7,
					 0x009e7000, 0x100009e7 };
	int mb = mbox_open();
	unsigned h = mem_alloc(mb, 4096, 4096, 0xc), bus = mem_lock(mb, h), *cpu, ret;

	if (mb < 0 || qpu_enable(mb, 1) || !h || !bus)
		return 1;
	cpu = static_cast<unsigned *>(mapmem(bus & ~0xc0000000u, 4096));
	if (!cpu)
		return 1;
	memcpy(cpu, prog, sizeof(prog));
	cpu[8] = bus + 64;
	cpu[9] = bus;
	ret = execute_qpu(mb, 1, bus + 32, 1, 1000);
	printf("execute_qpu %#x\n", ret);
	unmapmem(cpu, 4096);
	ret |= mem_unlock(mb, h) | mem_free(mb, h) | qpu_enable(mb, 0);
	mbox_close(mb);
	return ret != 0;
}
PROG
# The tree is no system's: ld finds libqpu.so.0 (libqpu-mailbox's need) by -rpath-link.
mbox_libs="$(pkg-config --libs qpu-mailbox) -Wl,-rpath-link,$dest/root$prefix/lib"
# shellcheck disable=SC2046,SC2086
check build_cxx_mailbox_client c++ -std=c++11 -Wall -Wextra -Werror -pedantic -include qpu_mailbox.h \
	$(pkg-config --cflags qpu-mailbox) -o "$dest/mbox-cxx" "$dest/mbox.cpp" $mbox_libs
check run_cxx_mailbox_client sh -c "QPU_DEVICE=emu LD_LIBRARY_PATH='$dest/root$prefix/lib' '$dest/mbox-cxx' | grep -qx 'execute_qpu 0'"
check cxx_mailbox_client_needs_include sh -c "c++ -o '$dest/mbox-cxx-plain' '$dest/mbox.cpp' \
	$mbox_libs 2>&1 | grep -q \"undefined reference to .mbox_open()'\""

# The tools from the installed tree: its headers, libqpu.so and the tools'
# helper archive, built here from tools/lib against the same headers.
inc=$dest/root$prefix/include
libdir=$dest/root$prefix/lib
tflags="-std=gnu11 -Wall -Wextra -Werror -Wno-unused-parameter -D_GNU_SOURCE -I$inc -I$top/tools/lib"
build_tools_lib() {
	mkdir -p "$dest/tools" && for f in "$top"/tools/lib/*.c; do
		# shellcheck disable=SC2086
		cc $tflags -c -o "$dest/tools/$(basename "$f" .c).o" "$f" || return 1
	done && ar rcs "$dest/tools/libqpu-tools.a" "$dest"/tools/*.o
}
check tools_lib build_tools_lib
for f in "$top"/tools/*.c; do
	t=$(basename "$f" .c)
	# shellcheck disable=SC2046,SC2086
	check "tool_$t" cc $tflags -o "$dest/tools/$t" "$f" "$dest/tools/libqpu-tools.a" \
		$(pkg-config --libs libqpu) -lm
done
nl_cflags=$(pkg-config --cflags libnl-genl-3.0 2>/dev/null || echo -I/usr/include/libnl3)
nl_libs=$(pkg-config --libs libnl-genl-3.0 2>/dev/null || echo -lnl-genl-3 -lnl-3)
# shellcheck disable=SC2046,SC2086
check tool_qpuctl cc $tflags $nl_cflags -o "$dest/tools/qpuctl" "$top"/tools/qpuctl/*.c \
	"$dest/tools/libqpu-tools.a" $(pkg-config --libs libqpu) $nl_libs
printf 'mov r0, 1\nthrend\nnop\nnop\n' >"$dest/prog.qasm"
run_tools() {
	LD_LIBRARY_PATH=$libdir "$dest/tools/qpu-as" -o "$dest/prog.bin" "$dest/prog.qasm" &&
		LD_LIBRARY_PATH=$libdir "$dest/tools/qpu-dis" "$dest/prog.bin" | grep -q thrend &&
		LD_LIBRARY_PATH=$libdir "$dest/tools/qpu-run" "$dest/prog.bin"
}
check tools_run run_tools

# README's C programs, against the installed headers and libqpu.so: each
# fenced c block is a program, except those a "<!-- file: NAME -->" line
# names (files the others use, as hello.c's prog.h from prog.qasm, which the
# installed qpu-as assembles here).
extract_programs() {
	mkdir -p "$dest/readme" && awk -v dir="$dest/readme" '
		/^<!-- file: .* -->$/ { name = $3; next }
		/^```/ && !inblock { inblock = 1; lang = substr($0, 4)
			out = name != "" ? dir "/" name : lang == "c" ? dir "/program" ++n ".c" : ""
			name = ""; next }
		/^```$/ && inblock { inblock = 0; if (out != "") close(out); next }
		inblock && out != "" { print > out }
		END { if (!n) { print "no C program in README.md"; exit 1 } }' "$top/README.md"
}
build_programs() {
	(cd "$dest/readme" && LD_LIBRARY_PATH=$libdir "$dest/tools/qpu-as" -f c -o prog.h prog.qasm) || return 1
	for f in "$dest"/readme/program*.c "$dest/readme/hello.c"; do
		# shellcheck disable=SC2046,SC2086
		cc $tflags -I"$dest/readme" -o "${f%.c}" "$f" $(pkg-config --libs libqpu) || return 1
	done
}
check readme_programs_extracted extract_programs
check readme_programs_build build_programs

# The Python package, installed beside the library: it imports and its
# self-check passes with nothing but the tree (no QPU_LIBRARY, no source).
python=${PYTHON:-/usr/bin/python3}
pydir=$("$make_cmd" -C "$top" --no-print-directory -s python-dir PREFIX=$prefix)
check python_installed test -f "$dest/root$pydir/qpu/__init__.py"
run_python() {
	(cd / && env -u QPU_LIBRARY PYTHONPATH="$dest/root$pydir" QPU_DEVICE=emu "$python" "$@")
}
check python_import run_python -c 'import qpu, sys; sys.exit(not qpu.LIBRARY_PATH.startswith(sys.argv[1]))' "$dest/root$prefix/lib/"
check python_self_check run_python -m qpu
check python_pyvideocore_layer run_python -m qpu.pyvideocore -c 'import rpi_vcsm.VCSM, sys; sys.exit(not hasattr(rpi_vcsm.VCSM, "VCSM"))'

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
