#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make check-deb: builds the Debian packages (build-deb.sh, which reuses an
# architecture's packages while its exported tree is unchanged), and checks
# - that every package was built for every architecture of DEB_ARCHES;
# - lintian on each architecture's packages: no error, no warning;
# - qpu-dkms's contents, and its module source as packaged: the build
#   command of its dkms.conf makes qpu.ko for the newest installed kernel
#   headers, in a private tree (nothing is installed into /lib/modules and
#   nothing is loaded);
# - the amd64 libraries, tools, fleet tools (native only: the cross builds
#   have the profile nofleet) and Python package, installed here with
#   dpkg -i: pkg-config, a program built against them, the tools, the man
#   pages, python3 -c 'import qpu'; then dpkg -r and dpkg -P leave no file
#   behind (the file lists before and after are compared);
# - the arm64 and armhf qpu-as and qpu-run under qemu-user, against the
#   amd64 ones.
# qpu-dkms is not installed here: its postinst (dh_dkms) builds and
# installs qpu.ko for every kernel in /lib/modules when the running kernel
# is not among them, as on this machine, whose /lib/modules holds the VM
# tests' kernel; the build above is the same build without the install. Usage: check-deb.sh TOP OUTDIR VERSION (DEB_ARCHES in the
# environment).
set -uo pipefail

top=$1 out=$2 version=$3
read -ra arches <<<"${DEB_ARCHES:-amd64 arm64 armhf}"
native=$(dpkg --print-architecture)
tmp=$(mktemp -d)
pass=0 fail=0
start=$SECONDS
arch_pkgs=(libqpu0 libqpu-mailbox0 libqpu-dev qpu-tools)
indep_pkgs=(qpu-dkms python3-qpu)
host_pkgs=(libqpu0 libqpu-mailbox0 libqpu-dev qpu-tools python3-qpu qpu-fleet-tools)
# Built natively only: the cross builds use the profile nofleet.
native_pkgs=(qpu-fleet-tools)
installed=0

cleanup() {
	[ "$installed" = 1 ] && dpkg_locked -P "${host_pkgs[@]}" >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT

check() {
	local name=$1 t0=$SECONDS
	shift
	if "$@" >"$tmp/out" 2>&1; then
		echo "PASS $name ($((SECONDS - t0)) s)"
		pass=$((pass + 1))
	else
		echo "FAIL $name"
		sed 's/^/    /' "$tmp/out"
		fail=$((fail + 1))
	fi
}

# dpkg, waiting (up to 5 minutes) while another dpkg or apt holds its lock.
dpkg_locked() {
	local tries
	# shellcheck disable=SC2034
	for tries in $(seq 60); do
		if dpkg "$@" >"$tmp/dpkg.out" 2>&1; then
			cat "$tmp/dpkg.out"
			return 0
		fi
		grep -q 'lock' "$tmp/dpkg.out" || { cat "$tmp/dpkg.out"; return 1; }
		sleep 5
	done
	echo "dpkg still locked after 5 minutes" >&2
	cat "$tmp/dpkg.out"
	return 1
}

deb() { echo "$out/$2/$1_${version}_$3.deb"; }

check build "$top/tools/debian/build-deb.sh" "$top" "$out" "$version" "${arches[@]}"

for arch in "${arches[@]}"; do
	for p in "${arch_pkgs[@]}"; do
		check "deb_${arch}_$p" test -f "$(deb "$p" "$arch" "$arch")"
	done
	if [ "$arch" = "$native" ]; then
		for p in "${native_pkgs[@]}"; do
			check "deb_${arch}_$p" test -f "$(deb "$p" "$arch" "$arch")"
		done
		for p in "${indep_pkgs[@]}"; do
			check "deb_all_$p" test -f "$(deb "$p" "$arch" all)"
		done
	fi
	lint() {
		lintian --profile debian --fail-on error,warning --display-info \
			"$out/$arch/qpu_${version}_$arch.changes" 2>&1 |
			grep -v '^running with root privileges' | tee "$tmp/lintian.$arch"
		[ "${PIPESTATUS[0]}" -eq 0 ]
	}
	check "lintian_$arch" lint
	echo "    lintian $arch: $(grep -c '^E:' "$tmp/lintian.$arch" 2>/dev/null) errors," \
		"$(grep -c '^W:' "$tmp/lintian.$arch" 2>/dev/null) warnings," \
		"$(grep -c '^I:' "$tmp/lintian.$arch" 2>/dev/null) info"
done

# No path is in two packages (dpkg would refuse to install the second).
one_owner() {
	local f
	for f in "$out/$native"/*.deb; do
		dpkg-deb -c "$f" | awk '$1 !~ /^d/ { print $6 }'
	done | sort | uniq -d | tee "$tmp/dups"
	[ ! -s "$tmp/dups" ]
}
check one_owner_per_file one_owner

# --- qpu-dkms: what the package holds, and DKMS builds it -------------------

dkms_deb=$(deb qpu-dkms "$native" all)
dkms_contents() {
	local f
	dpkg-deb -c "$dkms_deb" >"$tmp/dkms.list" || return 1
	for f in "./usr/src/qpu-$version/dkms.conf" "./usr/src/qpu-$version/Kbuild" \
		"./usr/src/qpu-$version/kmod/qpu_drv.c" "./usr/src/qpu-$version/uapi/linux/qpu.h" \
		./usr/share/qpu-dkms/qpu-v3d.dtbo ./lib/udev/rules.d/60-qpu.rules \
		./etc/modprobe.d/qpu.conf ./usr/lib/modules-load.d/qpu.conf; do
		grep -q " $f\$" "$tmp/dkms.list" || { echo "missing: $f"; return 1; }
	done
	dpkg-deb -f "$dkms_deb" Depends | grep -q dkms &&
		dpkg-deb -f "$dkms_deb" Recommends | grep -q 'linux-headers-rpi-v6 |'
}
check dkms_contents dkms_contents

kdir=$(find /usr/src -maxdepth 1 -name "linux-headers-*-$native" | sort -V | tail -n 1)
# The build command of the packaged dkms.conf, as dkms runs it (dkms itself
# would also make a module-signing key in /var/lib/dkms).
dkms_build() {
	# dkms.conf's MAKE line names kernel_source_dir and dkms_tree.
	# shellcheck disable=SC2034
	local root=$tmp/dkms-root dkms_tree=$tmp/dkms-tree kernel_source_dir=$kdir
	local PACKAGE_NAME PACKAGE_VERSION MAKE BUILT_MODULE_NAME
	[ -n "$kdir" ] || { echo "no kernel headers for $native in /usr/src"; return 1; }
	mkdir -p "$root" && dpkg-deb -x "$dkms_deb" "$root" || return 1
	# shellcheck disable=SC1090
	. "$root/usr/src/qpu-$version/dkms.conf" || return 1
	[ "$PACKAGE_NAME/$PACKAGE_VERSION" = "qpu/$version" ] || { echo "dkms.conf: $PACKAGE_NAME/$PACKAGE_VERSION"; return 1; }
	mkdir -p "$dkms_tree/$PACKAGE_NAME/$PACKAGE_VERSION" &&
		cp -r "$root/usr/src/qpu-$version" "$dkms_tree/$PACKAGE_NAME/$PACKAGE_VERSION/build" &&
		(cd "$dkms_tree/$PACKAGE_NAME/$PACKAGE_VERSION/build" && eval "nice ${MAKE[0]} -j2") &&
		modinfo -F name "$dkms_tree/$PACKAGE_NAME/$PACKAGE_VERSION/build/${BUILT_MODULE_NAME[0]}.ko" | grep -qx qpu
}
check "dkms_build_${kdir##*/}" dkms_build

# --- the amd64 packages installed, used and removed here --------------------

snapshot() {
	find /usr/bin /usr/include /usr/lib /usr/share/man /usr/share/doc /usr/share/qpu \
		/usr/share/bash-completion /usr/share/lintian /etc /var/lib/dpkg/info \
		-xdev 2>/dev/null | grep -E 'qpu|mbox|gpu_fft|mem_(alloc|free|lock|unlock)|mapmem|execute_(qpu|code)' |
		sort
}

for p in "${host_pkgs[@]}"; do
	if dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null | grep -q installed; then
		echo "check-deb: $p is installed on this machine; not touching it" >&2
		echo "$pass passed, $((fail + 1)) failed"
		exit 1
	fi
done
snapshot >"$tmp/before"
host_debs=()
for p in "${host_pkgs[@]}"; do
	case $p in python3-*) host_debs+=("$(deb "$p" "$native" all)") ;;
	*) host_debs+=("$(deb "$p" "$native" "$native")") ;; esac
done
installed=1
check dpkg_install dpkg_locked -i "${host_debs[@]}"

cat >"$tmp/hello.c" <<'PROG'
#include <stdio.h>
#include <qpu.h>
#include <qpu_mailbox.h>

int main(void)
{
	struct qpu_dev *dev = qpu_dev_open("emu");

	printf("libqpu %s on %s\n", qpu_version(), dev ? qpu_dev_describe(dev) : "nothing");
	qpu_dev_close(dev);
	return !dev;
}
PROG
printf 'mov r0, 1\nthrend\nnop\nnop\n' >"$tmp/prog.qasm"
check pkg_config_version sh -c "pkg-config --modversion libqpu | grep -qx '$version' &&
	pkg-config --modversion qpu-mailbox | grep -qx '$version'"
check pkg_config_libdir sh -c "pkg-config --variable=libdir libqpu | grep -qx /usr/lib/\$(dpkg-architecture -qDEB_HOST_MULTIARCH)"
# shellcheck disable=SC2016
check build_against_packages sh -c 'cc -Wall -Werror -o "$1/hello" "$1/hello.c" $(pkg-config --cflags --libs libqpu qpu-mailbox) &&
	"$1/hello" | grep -q "^libqpu '"$version"' on in-process emulator$"' sh "$tmp"
check build_static sh -c "cc -static -o '$tmp/hello-static' '$tmp/hello.c' \$(pkg-config --static --libs libqpu) && '$tmp/hello-static' >/dev/null"
check tool_qpu_info sh -c "qpu-info -d emu | grep -qx 'qpus: 12'"
check tool_qpu_as sh -c "qpu-as -I /usr/share/qpu/qasm -f hex -o '$tmp/prog.hex' '$tmp/prog.qasm' &&
	qpu-dis '$tmp/prog.hex' | grep -q thrend && qpu-as -o '$tmp/prog.bin' '$tmp/prog.qasm' &&
	qpu-run '$tmp/prog.bin' && qpuctl help >/dev/null"
check man_pages sh -c "man -w qpu-as | grep -q man1 && man -w qpu_emit_rotate | grep -q man3 &&
	man -w libqpu.7 >/dev/null && MANWIDTH=80 man qpu_emit_rotate 2>&1 | grep -q 'qpu_emit_rotate'"
# The fleet tools: their own package, the only one that pulls Open MPI.
fleet_tools() {
	qpu-fleet --help | grep -q -- --out && qpu-batch --help | grep -q -- --batches &&
		man -w qpu-fleet | grep -q man1 && man -w qpu-batch | grep -q man1 &&
		qpu-detect --help | grep -q -- --mqtt &&
		dpkg-deb -f "$(deb qpu-fleet-tools "$native" "$native")" Depends | grep -q libopenmpi &&
		! dpkg-deb -f "$(deb qpu-tools "$native" "$native")" Depends | grep -q mpi
}
check tool_fleet fleet_tools
# Debian's interpreter: the one python3-qpu is for (not one earlier on PATH).
check python_import sh -c "cd / && /usr/bin/python3 -c 'import qpu; print(qpu.LIBRARY_PATH)' | grep -q libqpu.so.0 &&
	QPU_DEVICE=emu /usr/bin/python3 -m qpu >/dev/null"

check dpkg_remove dpkg_locked -r "${host_pkgs[@]}"
check dpkg_purge dpkg_locked -P "${host_pkgs[@]}"
installed=0
snapshot >"$tmp/after"
check nothing_left_behind diff "$tmp/before" "$tmp/after"
check not_installed sh -c "! dpkg-query -W -f='\${db:Status-Status}\n' ${host_pkgs[*]} 2>/dev/null | grep -q ."

# --- the cross-built tools under qemu-user ----------------------------------

for arch in "${arches[@]}"; do
	[ "$arch" = "$native" ] && continue
	case $arch in
	arm64) qemu=qemu-aarch64 triplet=aarch64-linux-gnu ;;
	armhf) qemu=qemu-arm triplet=arm-linux-gnueabihf ;;
	*) continue ;;
	esac
	qemu_run() {
		local root=$tmp/root-$arch
		mkdir -p "$root" &&
			dpkg-deb -x "$(deb libqpu0 "$arch" "$arch")" "$root" &&
			dpkg-deb -x "$(deb qpu-tools "$arch" "$arch")" "$root" &&
			file "$root/usr/bin/qpu-as" | grep -q "ELF 32-bit\|ELF 64-bit" &&
			$qemu -L "/usr/$triplet" -E "LD_LIBRARY_PATH=$root/usr/lib/$triplet" \
				"$root/usr/bin/qpu-as" -f hex -o "$tmp/prog-$arch.hex" "$tmp/prog.qasm" &&
			cmp "$tmp/prog.hex" "$tmp/prog-$arch.hex" &&
			$qemu -L "/usr/$triplet" -E "LD_LIBRARY_PATH=$root/usr/lib/$triplet" \
				"$root/usr/bin/qpu-run" "$tmp/prog.bin"
	}
	check "qemu_${arch}_tools" qemu_run
done

echo "check-deb: $((SECONDS - start)) s"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
