#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# qpu: /init of the VM that run-vm.sh boots (busybox ash, pid 1). Owns the
# guest side of a run: mount the pseudo filesystems, arm the kernel's hang
# detectors, load the modules, run each payload step under a time limit,
# dump the kernel log after every step, unload the modules, power off.
# Every fact the host judges is printed as a "### QPU-VM: " marker line;
# run-vm.sh documents them.
#
# Configuration (written by run-vm.sh), one item per line:
#   /etc/qpu-vm/modules       <file.ko> [module parameters...]
#   /etc/qpu-vm/steps         a shell command (run in /payload)
#   /etc/qpu-vm/after-unload  the same, run after the modules are unloaded
#   /etc/qpu-vm/step-timeout  seconds per step
#   /etc/qpu-vm/hung-task     seconds before a blocked task panics the guest
#   /etc/qpu-vm/mode          "run" or "shell"

# No "set -e": pid 1 must never exit (that is a kernel panic); every
# failure is reported through a marker instead.
export PATH=/payload:/bin:/sbin:/usr/bin:/usr/sbin
# run-vm.sh made only /bin/sh; the applets' links are made here, by the
# guest's own busybox.
/bin/busybox --install -s
export HOME=/root
cfg=/etc/qpu-vm

say() {
	echo "### QPU-VM: $*"
}

dump_dmesg() {
	say "DMESG BEGIN $1"
	dmesg -c
	say "DMESG END $1"
}

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t debugfs debugfs /sys/kernel/debug
mount -t tmpfs tmpfs /tmp
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm

# A task blocked in the kernel cannot be killed by the step's time limit:
# let the hung-task detector report it and panic (panic=-1 with QEMU's
# -no-reboot then ends the run at once, the log replayed on the console).
sysctl -q -w kernel.hung_task_timeout_secs="$(cat $cfg/hung-task)" \
	kernel.hung_task_panic=1 kernel.softlockup_panic=1 \
	kernel.panic_on_rcu_stall=1 >/dev/null 2>&1 ||
	say "NOTE could not arm all hang detectors"

mode=$(cat $cfg/mode)
step_timeout=$(cat $cfg/step-timeout)
say "BEGIN kernel=$(uname -r) cpus=$(nproc) mode=$mode"
dump_dmesg boot

loaded=
load_ok=1
while read -r ko args; do
	[ -n "$ko" ] || continue
	# The module's own name, as rmmod and /sys/module spell it.
	name=$(basename "$ko" .ko | tr - _)
	say "INSMOD BEGIN $name"
	# shellcheck disable=SC2086 # module parameters are separate words
	insmod "$ko" $args
	rc=$?
	say "INSMOD END $name rc=$rc"
	if [ "$rc" -eq 0 ]; then
		loaded="$name $loaded"
	else
		load_ok=0
		break
	fi
done <$cfg/modules
dump_dmesg insmod

# The /dev/dri/by-path links udev makes for a platform device's DRM nodes
# (path_id's "platform-<device>"), as there is no udev here: the simulated
# v3d nodes are then where a Pi 4/5's are (platform-fec00000.v3d-render).
for d in /sys/class/drm/card[0-9]* /sys/class/drm/renderD[0-9]*; do
	[ -e "$d/device/subsystem" ] || continue
	[ "$(basename "$(readlink "$d/device/subsystem")")" = platform ] || continue
	node=${d##*/}
	case $node in
	card*-*) continue ;;	# a connector, not a node
	renderD*) kind=render ;;
	*) kind=card ;;
	esac
	mkdir -p /dev/dri/by-path
	ln -sf "../$node" "/dev/dri/by-path/platform-$(basename "$(readlink -f "$d/device")")-$kind"
done

# Runs the steps listed in file $1, numbering them on from $n.
n=0
run_steps() {
	while IFS= read -r cmd <&3; do
		[ -n "$cmd" ] || continue
		n=$((n + 1))
		say "STEP BEGIN $n $cmd"
		t0=$(date +%s)
		timeout "$step_timeout" sh -c "$cmd" </dev/null
		rc=$?
		secs=$(($(date +%s) - t0))
		# busybox timeout execs the command: a time-out shows as death by
		# its SIGTERM (143) or, for a shell that traps it, the time spent.
		to=0
		if [ "$rc" -ge 124 ] && [ "$secs" -ge "$step_timeout" ]; then
			to=1
		fi
		# Leftovers (forked test children, the timeout watcher) must not
		# hold /dev/qpu open into the next step or the rmmod check.
		kill -KILL -1 2>/dev/null
		sleep 0.2
		say "STEP END $n rc=$rc secs=$secs timeout=$to limit=$step_timeout"
		dump_dmesg "step $n"
	done 3<"$1"
}

cd /payload || say "NOTE no /payload"
if [ "$load_ok" -eq 1 ]; then
	run_steps $cfg/steps
else
	say "NOTE steps not run: a module failed to load"
fi

if [ "$mode" = shell ]; then
	say "SHELL modules loaded: ${loaded:-none}; payload in /payload; 'exit' powers off"
	setsid cttyhack sh -l
fi

for name in $loaded; do
	rmmod "$name"
	rc=$?
	if [ "$rc" -eq 0 ] && [ -d "/sys/module/$name" ]; then
		rc=255
	fi
	say "RMMOD $name rc=$rc"
done
dump_dmesg end
if [ "$load_ok" -eq 1 ] && [ -s $cfg/after-unload ]; then
	run_steps $cfg/after-unload
fi
say "END"
sync
poweroff -f
# poweroff -f does not return; if it does, do not let pid 1 exit.
while :; do sleep 3600; done
