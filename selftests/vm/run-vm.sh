#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# qpu: the VM runner. Owns the host side of a VM run: a busybox initramfs
# with the modules and a payload, a QEMU (TCG) boot under a host time limit
# (an x86_64 PC, or the Raspberry Pi Zero model for a 32-bit Pi kernel),
# the console log, and the verdict (summary.awk). The guest side is init.sh.
# `make check-vm` is one use of it, `make demo` another, the sim boot of
# `make check-pi` (selftests/pi/smoke.sh) a third; `make vm-shell` boots the
# x86 VM interactively.
#
# Usage: run-vm.sh --kernel <bzImage> --workdir <dir> [options]
#   --module <file.ko>     load it in the guest before the steps (repeatable;
#                          its dependencies come from the guest kernel's
#                          /lib/modules/<release>); unloaded at the end
#                          and the unload must succeed
#   --module-args <args>   parameters for the preceding --module ("sim=1")
#   --kernel-module <name> load the guest kernel's own module <name> (from
#                          /lib/modules/<release>, with its dependencies)
#                          before the steps, e.g. vgem (repeatable)
#   --copy <file>          put <file> in the guest's /payload (repeatable;
#                          executables must be static: there is no libc)
#   --run <command>        a step: a shell command run in /payload under the
#                          step time limit (repeatable, in order). A step
#                          that prints TAP is judged per test case, any
#                          other by its exit status (0 pass, 4 skip).
#   --test <file>          --copy <file> --run <its name>
#   --after-unload <cmd>   a step run after the modules are unloaded (and
#                          only if they loaded), e.g. a kmemleak scan that
#                          must not see the module's live objects; judged
#                          as --run steps are (repeatable, in order)
#   --expect-log <regex>   kernel log lines that the preceding step may
#                          cause (an extended regex, matched anywhere in the
#                          line; repeatable, the alternatives add up): they
#                          do not fail the run, and one "Call Trace:" may
#                          follow each of them (the stack dump of a report
#                          such as an allocation failure's). Any other
#                          BUG/WARNING/Oops/KASAN/lockdep... line still does.
#   --share <tag>=<dir>    export host directory <dir> to the guest read-only
#                          over virtio-9p as mount tag <tag> (repeatable;
#                          x86_64 only; the guest needs the 9p modules)
#   --timeout <s>          host time limit for the whole run (default 600)
#   --step-timeout <s>     guest time limit per step (default 120)
#   --hung-task <s>        kernel.hung_task_timeout_secs (default 30)
#   --append <args>        extra kernel command line
#   --memory <size>        guest memory (default 512M; x86_64 only)
#   --smp <n>              guest CPUs (default 2; x86_64 only)
#   --machine <m>          x86_64 (default: qemu-system-x86_64, a PC) or
#                          raspi0 (qemu-system-arm -M raspi0: 512 MiB, one
#                          CPU, console on ttyAMA0; needs --dtb and
#                          --release; QEMU does not end on poweroff there,
#                          so the run ends once the guest's END marker or a
#                          kernel panic's end is in the log)
#   --dtb <file>           the device tree to boot with (raspi0)
#   --release <release>    the kernel's release, for the modules' vermagic
#                          check (an x86 bzImage tells it; an ARM zImage
#                          does not)
#   --busybox <file>       the static busybox of the guest's architecture
#                          (default $BUSYBOX or /bin/busybox)
#   --log <file>           console log (default <workdir>/console.log)
#   --quiet                do not stream the console, print only the summary
#   --verbose              all kernel messages on the console, live
#   --shell                interactive: run the steps, then a shell in the
#                          guest ('exit' or Ctrl-A x ends it); no verdict
#
# The verdict ends with the line "N passed, N failed, N skipped"; the exit
# status is 0 only when nothing failed.
#
# Guest markers (lines starting "### QPU-VM: ", printed by init.sh):
#   BEGIN ...                     /init started
#   INSMOD BEGIN <name>           a module load starts
#   INSMOD END <name> rc=<n>      and ends
#   STEP BEGIN <n> <command>      a step starts; its output follows (steps
#                                 are numbered in the order run: --run and
#                                 --test ones, then --after-unload ones)
#   STEP END <n> rc=<n> secs=<n> timeout=<0|1> limit=<s>
#   DMESG BEGIN|END <where>       the kernel log since the previous dump
#   RMMOD <name> rc=<n>           a module unload (rc=255: still loaded)
#   END                           all done, powering off
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
prog=${0##*/}

die() {
	echo "$prog: $*" >&2
	exit 2
}

need() {
	command -v "$1" >/dev/null 2>&1 ||
		die "'$1' not found: install package $2 ('make deps')"
}

kernel=
workdir=
log=
timeout=600
step_timeout=120
hung_task=30
append=
memory=512M
smp=2
quiet=0
verbose=0
mode=run
busybox=${BUSYBOX:-/bin/busybox}
machine=x86_64
dtb=
release=
modules=()
kernel_modules=()
module_args=()
shares=()
copies=()
steps=()
after_steps=()
# Per step, in the order given: "run <index>" or "after <index>", and the
# step's --expect-log regex ("" for none), keyed the same way.
last_step=
declare -A expects=()

add_expect() {
	[ -n "$last_step" ] || die "--expect-log must follow a --run, --test or --after-unload"
	case "$1" in
	'' | *$'\n'*) die "an --expect-log regex must be one non-empty line" ;;
	esac
	# The verdict's awk matches it: refuse one it cannot compile now.
	printf '%s\n' "$1" | awk '{ re = $0; if ("" ~ re) {} }' >/dev/null 2>&1 ||
		die "--expect-log '$1' is not a valid extended regex"
	if [ -n "${expects[$last_step]:-}" ]; then
		expects[$last_step]+="|($1)"
	else
		expects[$last_step]="($1)"
	fi
}

while [ $# -gt 0 ]; do
	opt=$1
	case "$opt" in
	--quiet | --verbose | --shell | -h | --help) ;;
	*) [ $# -ge 2 ] || die "$opt needs an argument" ;;
	esac
	case "$opt" in
	--kernel) kernel=$2 ;;
	--workdir) workdir=$2 ;;
	--module)
		modules+=("$2")
		module_args+=("")
		;;
	--module-args)
		[ ${#modules[@]} -gt 0 ] || die "--module-args must follow a --module"
		module_args[${#modules[@]} - 1]=$2
		;;
	--kernel-module) kernel_modules+=("$2") ;;
	--copy) copies+=("$2") ;;
	--run)
		steps+=("$2")
		last_step="run $((${#steps[@]} - 1))"
		;;
	--test)
		copies+=("$2")
		steps+=("${2##*/}")
		last_step="run $((${#steps[@]} - 1))"
		;;
	--after-unload)
		after_steps+=("$2")
		last_step="after $((${#after_steps[@]} - 1))"
		;;
	--expect-log) add_expect "$2" ;;
	--share)
		case "$2" in
		[A-Za-z]*=/*) shares+=("$2") ;;
		*) die "--share takes <tag>=<absolute dir>, not '$2'" ;;
		esac
		;;
	--timeout) timeout=$2 ;;
	--step-timeout) step_timeout=$2 ;;
	--hung-task) hung_task=$2 ;;
	--append) append=$2 ;;
	--memory) memory=$2 ;;
	--smp) smp=$2 ;;
	--machine) machine=$2 ;;
	--dtb) dtb=$2 ;;
	--release) release=$2 ;;
	--busybox) busybox=$2 ;;
	--log) log=$2 ;;
	--quiet) quiet=1 ;;
	--verbose) verbose=1 ;;
	--shell) mode=shell ;;
	-h | --help)
		sed -n '/^# Usage:/,/^set -euo/{/^set/d;s/^# \{0,1\}//;p}' "$0"
		exit 0
		;;
	*) die "unknown option '$opt' (see --help)" ;;
	esac
	case "$opt" in
	--quiet | --verbose | --shell | -h | --help) shift ;;
	*) shift 2 ;;
	esac
done

[ -n "$kernel" ] || die "--kernel is required"
[ -n "$workdir" ] || die "--workdir is required"
[ -r "$kernel" ] || die "cannot read kernel image '$kernel'"
for n in "$timeout" "$step_timeout" "$hung_task" "$smp"; do
	case "$n" in
	'' | *[!0-9]*) die "'$n' is not a number of seconds/CPUs" ;;
	esac
done
log=${log:-$workdir/console.log}
case "$machine" in
x86_64)
	qemu_bin="qemu-system-x86_64"
	need qemu-system-x86_64 qemu-system-x86
	;;
raspi0)
	qemu_bin="qemu-system-arm"
	need qemu-system-arm qemu-system-arm
	[ -r "$dtb" ] || die "--machine raspi0 needs --dtb <file> (cannot read '$dtb')"
	[ -n "$release" ] || die "--machine raspi0 needs --release <release>"
	[ "$mode" = run ] || die "--shell boots only --machine x86_64"
	[ ${#shares[@]} -eq 0 ] || die "--share works only with --machine x86_64"
	;;
*) die "unknown --machine '$machine' (x86_64 or raspi0)" ;;
esac
need cpio cpio
need gzip gzip
need timeout coreutils
[ -x "$busybox" ] || die "no $busybox: install package busybox-static ('make deps')"

# Everything in the initramfs runs without a libc.
is_dynamic() {
	command -v readelf >/dev/null 2>&1 || return 1
	readelf -l "$1" 2>/dev/null | grep -q 'program interpreter'
}
is_dynamic "$busybox" &&
	die "$busybox is dynamically linked: install busybox-static, or set BUSYBOX=<static busybox>"

[ -n "$release" ] || release=$("$here/vm-kernel.sh" release "$kernel")

# Modules: check each was built for this kernel; add the dependencies the
# kernel has as modules (qpu.ko normally needs none).
declare -A have_mod=()
load_list=()
load_args=()
moddir=/lib/modules/$release

add_dep() {
	local name=$1 line path p i deps
	name=${name//-/_}
	[ -z "${have_mod[$name]:-}" ] || return 0
	[ -r "$moddir/modules.dep" ] ||
		die "a module needs '$name' but $moddir/modules.dep does not exist: install the guest kernel's modules (linux-image-$release)"
	line=$(awk -v n="$name" '{ p = $1; sub(/:$/, "", p); b = p; sub(/.*\//, "", b); sub(/\.ko.*/, "", b); gsub(/-/, "_", b); if (b == n) { print; exit } }' "$moddir/modules.dep")
	[ -n "$line" ] || die "module '$name' is not in $moddir/modules.dep"
	path=${line%%:*}
	read -r -a deps <<<"${line#*:}"
	# modules.dep lists the full closure, the deepest last: load backwards.
	for ((i = ${#deps[@]} - 1; i >= 0; i--)); do
		p=${deps[i]##*/}
		p=${p%%.ko*}
		add_dep "$p"
	done
	case "$path" in
	*.ko) ;;
	*) die "$moddir/$path is compressed: not supported (busybox insmod)" ;;
	esac
	have_mod[$name]=1
	load_list+=("$moddir/$path")
	load_args+=("")
}

for name in "${kernel_modules[@]}"; do
	add_dep "$name"
done
for i in "${!modules[@]}"; do
	ko=${modules[i]}
	[ -r "$ko" ] || die "no module '$ko' (build it first)"
	if command -v modinfo >/dev/null 2>&1; then
		vermagic=$(modinfo -F vermagic "$ko")
		[ "${vermagic%% *}" = "$release" ] ||
			die "$ko is built for ${vermagic%% *}, the VM boots $release ($kernel): rebuild it against that kernel's headers"
		IFS=, read -r -a deps <<<"$(modinfo -F depends "$ko")"
		for d in "${deps[@]}"; do
			[ -z "$d" ] || add_dep "$d"
		done
	fi
	name=$(basename "$ko" .ko)
	have_mod[${name//-/_}]=1
	load_list+=("$ko")
	load_args+=("${module_args[i]}")
done

# The initramfs.
root=$workdir/root
initrd=$workdir/initramfs.cpio.gz
# Remove only a tree this script made (a wrong --workdir must not cost data).
if [ -e "$root" ]; then
	[ -e "$root/.qpu-vm-root" ] ||
		die "$root exists and was not made by $prog: choose another --workdir"
	rm -rf "$root"
fi
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,root,payload,etc/qpu-vm}
: >"$root/.qpu-vm-root"
# init.sh installs the other applets' links: the guest's busybox need not
# run on this host.
cp "$busybox" "$root/bin/busybox"
ln -s busybox "$root/bin/sh"
cp "$here/init.sh" "$root/init"
chmod 755 "$root/init"

: >"$root/etc/qpu-vm/modules"
for i in "${!load_list[@]}"; do
	ko=${load_list[i]}
	base=${ko##*/}
	[ ! -e "$root/$base" ] || die "two modules named $base"
	cp "$ko" "$root/$base"
	printf '/%s %s\n' "$base" "${load_args[i]}" >>"$root/etc/qpu-vm/modules"
done
for f in "${copies[@]}"; do
	[ -r "$f" ] || die "no payload file '$f' (build it first)"
	is_dynamic "$f" &&
		die "$f is dynamically linked: the initramfs has no libc, link it with -static"
	[ ! -e "$root/payload/${f##*/}" ] || die "two payload files named ${f##*/}"
	cp -L "$f" "$root/payload/"
done
: >"$root/etc/qpu-vm/steps"
: >"$root/etc/qpu-vm/after-unload"
# The host's copies, in the order the guest runs the steps, for the verdict.
: >"$workdir/steps"
: >"$workdir/expect"
for kind in run after; do
	if [ "$kind" = run ]; then
		list=("${steps[@]}")
		file=$root/etc/qpu-vm/steps
	else
		list=("${after_steps[@]}")
		file=$root/etc/qpu-vm/after-unload
	fi
	for i in "${!list[@]}"; do
		s=${list[i]}
		case "$s" in
		'' | *$'\n'*) die "a step command must be one non-empty line" ;;
		esac
		printf '%s\n' "$s" >>"$file"
		printf '%s\n' "$s" >>"$workdir/steps"
		printf '%s\n' "${expects[$kind $i]:-}" >>"$workdir/expect"
	done
done
echo "$step_timeout" >"$root/etc/qpu-vm/step-timeout"
echo "$hung_task" >"$root/etc/qpu-vm/hung-task"
echo "$mode" >"$root/etc/qpu-vm/mode"

(cd "$root" && find . -mindepth 1 | LC_ALL=C sort |
	cpio --quiet -o -H newc -R 0:0 --reproducible) | gzip -1 >"$initrd.tmp"
mv "$initrd.tmp" "$initrd"

# The kernel command line: errors (and oopses, which raise the console level
# themselves) appear live; everything else reaches the log through the
# dmesg dumps after each step. A panic (also from the hung-task and
# soft-lockup detectors) replays the whole kernel log (panic_print=0x20) and
# ends QEMU at once (panic=-1 with -no-reboot; on raspi0, see below).
cmdline="printk.time=1 panic=-1 panic_print=0x20"
cmdline+=" softlockup_panic=1 hung_task_panic=1"
if [ "$verbose" = 1 ]; then
	cmdline+=" loglevel=8"
else
	cmdline+=" quiet"
fi
[ -z "$append" ] || cmdline+=" $append"

case "$machine" in
x86_64)
	qemu=(qemu-system-x86_64 -accel tcg -m "$memory" -smp "$smp"
		-nodefaults -no-user-config -display none -no-reboot
		-kernel "$kernel" -initrd "$initrd"
		-append "console=ttyS0,115200 $cmdline")
	for share in "${shares[@]}"; do
		[ -d "${share#*=}" ] || die "--share: no directory '${share#*=}'"
		qemu+=(-virtfs "local,path=${share#*=},mount_tag=${share%%=*},security_model=none,readonly=on")
	done
	what="${smp} CPUs, $memory"
	;;
raspi0)
	# shellcheck source-path=SCRIPTDIR source=raspi0.sh
	. "$here/raspi0.sh"
	qemu=("${raspi0_qemu[@]}"
		-nodefaults -no-user-config -display none -no-reboot
		-kernel "$kernel" -dtb "$dtb" -initrd "$initrd"
		-append "console=ttyAMA0 $cmdline")
	what="raspi0"
	;;
esac

if [ "$mode" = shell ]; then
	echo "$prog: booting $release interactively; 'exit' in the guest or Ctrl-A x ends it"
	exec "${qemu[@]}" -serial mon:stdio
fi

# The boot part of the kernel log is long and goes only to the log.
console_filter() {
	sed -u -e '/### QPU-VM: DMESG BEGIN boot/,/### QPU-VM: DMESG END boot/{
		/DMESG BEGIN boot/!d
		s/.*/### QPU-VM: DMESG boot: see the log/
	}'
}

echo "$prog: booting $release (TCG, $what), time limit ${timeout} s, log $log"
start=$(date +%s)
rc=0
if [ "$machine" = x86_64 ] && [ "$quiet" = 1 ]; then
	timeout --foreground -k 10 "$timeout" "${qemu[@]}" -serial stdio -monitor none \
		</dev/null >"$log" 2>&1 || rc=$?
elif [ "$machine" = x86_64 ]; then
	timeout --foreground -k 10 "$timeout" "${qemu[@]}" -serial stdio -monitor none \
		</dev/null 2>&1 | tee "$log" | console_filter || rc=$?
else
	# QEMU stays up after this machine powers off (or panics: its reset
	# needs the power manager that raspi0 boots without): end it once the
	# log has init.sh's END marker or the end of a panic.
	timeout -k 10 "$timeout" "${qemu[@]}" -serial stdio -monitor none \
		</dev/null >"$log" 2>&1 &
	qemu_pid=$!
	if [ "$quiet" = 0 ]; then
		tail -n +1 -f --pid="$qemu_pid" "$log" | console_filter &
	fi
	ended=0
	while kill -0 "$qemu_pid" 2>/dev/null; do
		if grep -qa -e '### QPU-VM: END' -e '---\[ end Kernel panic' "$log"; then
			ended=1
			sleep 1
			kill "$qemu_pid" 2>/dev/null || true
			break
		fi
		sleep 0.5
	done
	wait "$qemu_pid" || rc=$?
	wait
	[ "$ended" = 0 ] || rc=0
fi
elapsed=$(($(date +%s) - start))
timed_out=0
case "$rc" in
0) ;;
124 | 137) timed_out=1 ;;
*) echo "$prog: $qemu_bin exited with status $rc" >&2 ;;
esac
echo "$prog: the VM ran for ${elapsed} s"

awk -v steps="$workdir/steps" -v expect="$workdir/expect" -v timed_out="$timed_out" -v limit="$timeout" \
	-v logfile="$log" -f "$here/summary.awk" "$log"
