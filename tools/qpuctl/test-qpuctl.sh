#!/bin/sh
# SPDX-License-Identifier: MIT
#
# test-qpuctl: qpuctl's command line on the host, without qpu.ko: usage and
# help at every level (exit 0, stdout), the object grammar and the first
# release's words kept as its aliases, unknown words named in the error,
# bad values refused before anything is sent (exit 1, one "qpuctl: ..."
# line on stderr, nothing on stdout), and the one-line report of a missing
# module. The answers of a loaded module are checked in the VM by
# test-qpuctl-vm.sh. Needs QPUCTL (the binary).

: "${QPUCTL:?QPUCTL must name the qpuctl binary}"

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
failed=0 n=0

fail() {
	echo "FAIL: $*" >&2
	failed=1
}

# check_help NAME PATTERN ARGS...: exit 0, PATTERN on stdout, stderr empty.
check_help() {
	name=$1 pattern=$2
	shift 2
	n=$((n + 1))
	"$QPUCTL" "$@" >"$tmp/out" 2>"$tmp/err"
	status=$?
	if [ "$status" -ne 0 ]; then
		fail "$name: exit status $status"
	elif ! grep -q -- "$pattern" "$tmp/out"; then
		fail "$name: no '$pattern' in: $(cat "$tmp/out")"
	elif [ -s "$tmp/err" ]; then
		fail "$name: stderr: $(cat "$tmp/err")"
	fi
}

# check_error NAME MESSAGE ARGS...: exit 1, stdout empty, stderr exactly
# the one line MESSAGE.
check_error() {
	name=$1 message=$2
	shift 2
	n=$((n + 1))
	"$QPUCTL" "$@" >"$tmp/out" 2>"$tmp/err"
	status=$?
	if [ "$status" -ne 1 ]; then
		fail "$name: exit status $status, expected 1"
	elif [ -s "$tmp/out" ]; then
		fail "$name: stdout: $(cat "$tmp/out")"
	elif [ "$(cat "$tmp/err")" != "$message" ]; then
		fail "$name: stderr '$(cat "$tmp/err")', expected '$message'"
	fi
}

check_help help_word 'OBJECT := { dev | stats | client' help
check_help help_option 'OBJECT := { dev' -h
check_help help_long 'OPTIONS := ' --help
check_help help_aliases 'info = dev show, clients = client show' help
check_help version 'family qpu version 1' -V
check_help version_package '^qpuctl (libqpu) [0-9][0-9.]*$' --version
check_help dev_help 'dev \[show\] \[DEV\]' dev help
check_help dev_show_help 'qpuctl dev reset DEV' dev show help
check_help dev_hang_help 'qpuctl \[-j \[-p\]\] dev hang \[DEV\]' dev hang help
check_help stats_help 'stats \[show\] \[DEV\]' -j stats help
check_help client_help 'client \[show\] \[DEV\] \[id ID\] \[pid PID\]' client help
check_help config_help 'KEY := { default_timeout_ms' config help
check_help config_set_help 'dev_mem_limit' config set help
check_help monitor_help 'monitor \[count N\]' monitor help
check_help top_help 'top \[DEV\] \[interval SECONDS\] \[count N\]' top help
# The first release's words answer with the usage of what they became.
check_help info_help 'dev \[show\] \[DEV\]' info help
check_help clients_help 'Alias: clients = client show' clients help
check_help reset_help 'qpuctl dev reset DEV' reset help
check_help hang_help 'qpuctl \[-j \[-p\]\] dev hang \[DEV\]' hang help

n=$((n + 1))
"$QPUCTL" >"$tmp/out" 2>"$tmp/err"
[ $? -eq 1 ] && grep -q '^Usage: qpuctl' "$tmp/err" && [ ! -s "$tmp/out" ] ||
	fail "no_object: expected the usage on stderr and exit status 1"

check_error unknown_object "qpuctl: unknown object 'frob': try 'qpuctl help'" frob
check_error unknown_info_word \
	"qpuctl: unknown info command 'frob': try 'qpuctl info help'" info frob
check_error unknown_stats_word \
	"qpuctl: unknown stats command 'show2': try 'qpuctl stats help'" stats show2
check_error unknown_config_word \
	"qpuctl: unknown config command 'frob': try 'qpuctl config help'" config frob
check_error unknown_config_key \
	"qpuctl: unknown config key 'frob': try 'qpuctl config help'" config set frob 1
check_error config_value_missing "qpuctl: config set: max_bo_size needs a value" \
	config set max_bo_size
check_error config_value_bad "qpuctl: invalid value '12X' for max_bo_size" \
	config set max_bo_size 12X
check_error config_value_negative "qpuctl: invalid value '-1' for max_timeout_ms" \
	config set max_timeout_ms -1
check_error config_ms_too_big "qpuctl: invalid value '5000000000' for max_timeout_ms" \
	config set max_timeout_ms 5000000000
check_error config_set_empty "qpuctl: config set needs KEY VALUE: try 'qpuctl config help'" \
	config set
check_error reset_needs_dev "qpuctl: reset needs a device: qpuctl dev reset DEV" reset
check_error dev_reset_needs_dev "qpuctl: dev reset needs a device: qpuctl dev reset DEV" dev reset
check_error reset_extra "qpuctl: unknown reset argument 'now': try 'qpuctl reset help'" \
	-d 0 reset now
check_error dev_reset_extra "qpuctl: unknown dev argument 'now': try 'qpuctl dev help'" \
	dev reset 0 now
check_error unknown_dev_word "qpuctl: unknown dev command 'frob': try 'qpuctl dev help'" \
	dev frob
check_error dev_two_handles "qpuctl: unknown dev argument '1': try 'qpuctl dev help'" \
	dev show 0 1
check_error dev_conflicts_with_d "qpuctl: two devices given: 1 and 'qpu2'" \
	-d 1 dev show qpu2
check_error unknown_client_word \
	"qpuctl: unknown client argument 'uid': try 'qpuctl client help'" client show uid 3
check_error client_id_zero "qpuctl: invalid id '0'" client id 0
check_error client_id_too_big "qpuctl: invalid id '4294967296'" client show id 4294967296
check_error client_pid_bad "qpuctl: invalid pid '12x'" clients pid 12x
check_error client_id_missing "qpuctl: client: id needs a value" client show id
check_error top_two_devices "qpuctl: two devices given: 0 and '1'" -d 0 top 1
check_error bad_dev "qpuctl: invalid device 'qpuX': expected N, qpuN or /dev/qpuN" \
	-d qpuX info
check_error bad_dev_number "qpuctl: invalid device '/dev/qpu-1': expected N, qpuN or /dev/qpuN" \
	-d /dev/qpu-1 info
check_error pretty_needs_json "qpuctl: -p needs -j" -p info
check_error monitor_bad_count "qpuctl: invalid count 'x'" monitor count x
check_error monitor_huge_count "qpuctl: invalid count '99999999999999999999'" \
	monitor count 99999999999999999999
check_error monitor_blank_count "qpuctl: invalid count ' 3'" monitor count ' 3'
check_error top_bad_interval \
	"qpuctl: invalid interval '0': expected 0.1 to 3600 seconds" top interval 0
check_error top_bad_count "qpuctl: invalid count '-2'" top count -2
check_error top_huge_count "qpuctl: invalid count '4294967296'" top count 4294967296
check_error top_extra "qpuctl: unknown top argument 'fast': try 'qpuctl top help'" top fast
check_error monitor_extra \
	"qpuctl: unknown monitor argument 'now': try 'qpuctl monitor help'" monitor now

check_help doctor_help 'qpuctl \[-j \[-p\]\] doctor' doctor help
check_error doctor_extra "qpuctl: unknown doctor argument 'now': try 'qpuctl doctor help'" \
	doctor now
n=$((n + 1))
QPUCTL_ROOT=$tmp/none "$QPUCTL" doctor >"$tmp/out" 2>"$tmp/err"
[ $? -eq 1 ] && [ ! -s "$tmp/out" ] &&
	[ "$(cat "$tmp/err")" = "qpuctl: $tmp/none/proc/sys/kernel/osrelease: No such file or directory" ] ||
	fail "doctor_no_root: $(cat "$tmp/err")"

# doctor on a staged machine where qpu.ko was refused at load: the kernel
# log's line and its fix; what needs the module is skipped.
root=$tmp/root
mkdir -p "$root/proc/sys/kernel" "$root/dev" "$root/lib/modules/9.9.9"
echo 9.9.9 >"$root/proc/sys/kernel/osrelease"
printf '6,1,2,-;qpu: `9'"'"' invalid for parameter `sim'"'"'\n SUBSYSTEM=x\n6,2,3,-;other: line\n' \
	>"$root/dev/kmsg"
n=$((n + 1))
QPUCTL_ROOT=$root "$QPUCTL" -j doctor >"$tmp/out" 2>"$tmp/err"
status=$?
grep -q '{"check":"module","status":"fail","summary":"qpu.ko is not loaded","detail":"kernel log: qpu: `9'"'"' invalid for parameter `sim'"'"'","fix":"correct the parameter in /etc/modprobe.d/qpu.conf' "$tmp/out" &&
	grep -q '{"check":"module_build","status":"fail","summary":"no qpu.ko is installed for 9.9.9"' "$tmp/out" &&
	grep -q '{"check":"headers","status":"fail"' "$tmp/out" &&
	grep -q '{"check":"submit","status":"skip"' "$tmp/out" &&
	grep -q '"problems":3}$' "$tmp/out" && [ "$status" -eq 1 ] ||
	fail "doctor_staged_refused: exit $status: $(cat "$tmp/out" "$tmp/err")"

# doctor where qpu.ko was never loaded (a PC): the fix names the three
# ways to get a device, in libqpu's words (qpu_dev_open_hint()).
root=$tmp/pc
mkdir -p "$root/proc/sys/kernel" "$root/dev" "$root/lib/modules/9.9.9"
echo 9.9.9 >"$root/proc/sys/kernel/osrelease"
: >"$root/dev/kmsg"
n=$((n + 1))
QPUCTL_ROOT=$root "$QPUCTL" doctor >"$tmp/out" 2>"$tmp/err"
grep -q '^       fix: no QPU device here; there are three ways to get one:$' "$tmp/out" &&
	grep -q '^              on a PC: load qpu.ko with a simulated V3D: insmod build/qpu.ko sim=1$' "$tmp/out" &&
	grep -q 'QPU_DEVICE=emu, or --device emu$' "$tmp/out" &&
	grep -q 'on a Raspberry Pi: load qpu.ko: modprobe qpu$' "$tmp/out" ||
	fail "doctor_pc_three_ways: $(cat "$tmp/out" "$tmp/err")"

# doctor on a staged Pi 4: its V3D is the v3d DRM driver's, so the v3d
# checks replace qpu.ko's; the render node is not the caller's group's.
root=$tmp/pi4
dev=$root/sys/bus/platform/devices/fec00000.v3d
mkdir -p "$root/proc/sys/kernel" "$root/proc/self" "$root/dev/dri" "$dev/drm/renderD128" \
	"$root/sys/firmware/devicetree/base/v3d@7ec04000" "$root/sys/bus/platform/drivers/v3d" \
	"$root/boot/firmware" "$root/etc"
echo 9.9.9 >"$root/proc/sys/kernel/osrelease"
: >"$root/dev/kmsg"
printf 'brcm,2711-v3d\0' >"$root/sys/firmware/devicetree/base/v3d@7ec04000/compatible"
ln -s "$root/sys/firmware/devicetree/base/v3d@7ec04000" "$dev/of_node"
ln -s "$root/sys/bus/platform/drivers/v3d" "$dev/driver"
: >"$root/dev/dri/renderD128"
chmod 0660 "$root/dev/dri/renderD128"
echo "render:x:$(stat -c %g "$root/dev/dri/renderD128"):" >"$root/etc/group"
printf 'Uid:\t4242\t4242\t4242\t4242\nGid:\t4242\t4242\t4242\t4242\nGroups:\t44\nCapEff:\t0\n' \
	>"$root/proc/self/status"
echo dtoverlay=vc4-kms-v3d >"$root/boot/firmware/config.txt"
n=$((n + 1))
QPUCTL_ROOT=$root "$QPUCTL" -j doctor >"$tmp/out" 2>"$tmp/err"
status=$?
grep -q '{"check":"v3d_driver","status":"ok","summary":"the V3D (fec00000.v3d) is the v3d DRM driver'"'"'s' "$tmp/out" &&
	grep -q '{"check":"kms_overlay","status":"ok"' "$tmp/out" &&
	grep -q '{"check":"v3d_node","status":"fail","summary":"'"$root"'/dev/dri/renderD128 (mode 0660, group render) cannot be opened by uid 4242","fix":"join the group: usermod -aG render $USER, then log in again"}' "$tmp/out" &&
	grep -q '{"check":"csd","status":"skip"' "$tmp/out" &&
	grep -q '{"check":"firmware","status":"warn","summary":"'"$root"'/dev/vcio is missing: the GPU'"'"'s clock, temperature and throttling are not sampled","fix":"a Raspberry Pi OS kernel makes it (its vcio driver, CONFIG_BCM_VCIO)"}' "$tmp/out" &&
	! grep -q '"check":"module"' "$tmp/out" &&
	grep -q '"problems":1}$' "$tmp/out" && [ "$status" -eq 1 ] ||
	fail "doctor_pi4_node_group: exit $status: $(cat "$tmp/out" "$tmp/err")"
# /dev/vcio of a group the caller is not in (here the render node's; video
# on Raspberry Pi OS): a warning with the group to join, never a problem;
# then open to everyone: ok.
: >"$root/dev/vcio"
chmod 0660 "$root/dev/vcio"
n=$((n + 1))
QPUCTL_ROOT=$root "$QPUCTL" -j doctor >"$tmp/out" 2>"$tmp/err"
status=$?
grep -q '{"check":"firmware","status":"warn","summary":"'"$root"'/dev/vcio (mode 0660, group render) cannot be opened by uid 4242: no clock, temperature or throttling","fix":"join the group: usermod -aG render $USER, then log in again"}' "$tmp/out" &&
	grep -q '"problems":1}$' "$tmp/out" ||
	fail "doctor_pi4_vcio_group: exit $status: $(cat "$tmp/out" "$tmp/err")"
chmod 0666 "$root/dev/vcio"
n=$((n + 1))
QPUCTL_ROOT=$root "$QPUCTL" -j doctor >"$tmp/out" 2>"$tmp/err"
grep -q '{"check":"firmware","status":"ok","summary":"'"$root"'/dev/vcio is usable by uid 4242: libqpu reads' "$tmp/out" ||
	fail "doctor_pi4_vcio_ok: $(cat "$tmp/out" "$tmp/err")"
rm "$root/dev/vcio"
# ... and without the driver and the overlay: both fail, with their fixes.
rm "$dev/driver"
: >"$root/boot/firmware/config.txt"
n=$((n + 1))
QPUCTL_ROOT=$root "$QPUCTL" -j doctor >"$tmp/out" 2>"$tmp/err"
status=$?
grep -q '{"check":"v3d_driver","status":"fail","summary":"no driver has the V3D (fec00000.v3d)","fix":"modprobe v3d' "$tmp/out" &&
	grep -q '{"check":"kms_overlay","status":"fail","summary":"config.txt has no dtoverlay=vc4-kms-v3d: the v3d driver is not probed without it","fix":"add the line dtoverlay=vc4-kms-v3d to '"$root"'/boot/firmware/config.txt and reboot"}' "$tmp/out" &&
	grep -q '{"check":"v3d_node","status":"skip"' "$tmp/out" &&
	grep -q '"problems":2}$' "$tmp/out" && [ "$status" -eq 1 ] ||
	fail "doctor_pi4_no_driver: exit $status: $(cat "$tmp/out" "$tmp/err")"

check_help v3d_help 'qpuctl \[-j \[-p\]\] v3d \[show\]' v3d help
check_error v3d_extra "qpuctl: unknown v3d command 'now': try 'qpuctl v3d help'" v3d now
check_error v3d_two "qpuctl: unexpected argument 'now'" v3d show now

# v3d stats and top on a staged Pi 4 (Linux 6.8's gpu_stats and fdinfo),
# and qpuctl stats and top showing them there, where qpu.ko is not loaded.
root=$tmp/v3dstats
mkdir -p "$root/dev/dri" "$root/sys/class/drm/renderD128/device" "$root/proc/4242/fdinfo" \
	"$root/proc/4243/fdinfo"
: >"$root/dev/dri/renderD128"
: >"$root/dev/dri/card0"
printf 'queue\ttimestamp\tjobs\truntime\nbin\t1000\t0\t0\ncsd\t1000\t7\t123456\n' \
	>"$root/sys/class/drm/renderD128/device/gpu_stats"
printf 'pos:\t0\nflags:\t02\ndrm-driver:\tv3d\ndrm-client-id:\t9\ndrm-engine-csd: \t5000 ns\nv3d-jobs-csd: \t3 jobs\n' \
	>"$root/proc/4242/fdinfo/5"
echo myapp >"$root/proc/4242/comm"
printf 'pos:\t0\ndrm-driver:\ti915\n' >"$root/proc/4243/fdinfo/3"
for cmd in "v3d stats" stats; do
	n=$((n + 1))
	# shellcheck disable=SC2086
	QPUCTL_ROOT=$root "$QPUCTL" -j $cmd >"$tmp/out" 2>"$tmp/err"
	[ $? -eq 0 ] && [ "$(cat "$tmp/out")" = '[{"node":"/dev/dri/renderD128","queues":[{"queue":"bin","jobs":0,"runtime_ns":0},{"queue":"csd","jobs":7,"runtime_ns":123456}]}]' ] ||
		fail "v3d_stats ($cmd): $(cat "$tmp/out" "$tmp/err")"
done
for cmd in "v3d top" top; do
	n=$((n + 1))
	# shellcheck disable=SC2086
	QPUCTL_ROOT=$root "$QPUCTL" $cmd interval 0.1 count 1 >"$tmp/out" 2>"$tmp/err"
	[ $? -eq 0 ] && grep -qx 'node /dev/dri/renderD128 csd_jobs 7 (+0) busy 0.0%' "$tmp/out" &&
		grep -qx 'client pid 4242 comm myapp fd 5 id 9 csd_jobs 3 (+0) csd_ns 5000 busy 0.0%' "$tmp/out" &&
		[ "$(wc -l <"$tmp/out")" -eq 3 ] ||
		fail "v3d_top ($cmd): $(cat "$tmp/out" "$tmp/err")"
done
n=$((n + 1))
QPUCTL_ROOT=$root "$QPUCTL" -j v3d top interval 0.1 count 1 >"$tmp/out" 2>"$tmp/err"
grep -q '"clients":\[{"pid":4242,"comm":"myapp","fd":5,"client_id":9,"csd_jobs":3,"csd_jobs_delta":0,"csd_ns":5000,"csd_busy_permille":0}\]}$' "$tmp/out" ||
	fail "v3d_top_json: $(cat "$tmp/out" "$tmp/err")"
# with qpu.ko loaded, stats is qpu.ko's again
mkdir -p "$root/sys/module/qpu"
QPUCTL_ROOT=$root check_error v3d_stats_not_with_qpu_ko \
	"qpuctl: qpu: generic netlink family not found: is qpu.ko loaded? (a Pi 4's or 5's GPU is the v3d driver's: qpuctl v3d)" stats
QPUCTL_ROOT=$root check_error v3d_stats_extra "qpuctl: unexpected argument 'now': try 'qpuctl v3d help'" v3d stats now
QPUCTL_ROOT=$root check_error v3d_top_bad_interval \
	"qpuctl: invalid interval '0.01': expected 0.1 to 3600 seconds" v3d top interval 0.01
QPUCTL_ROOT=$root check_error v3d_top_bad_count "qpuctl: invalid count '0'" v3d top count 0
QPUCTL_ROOT=$root check_error v3d_top_extra "qpuctl: unknown v3d top argument 'fast': try 'qpuctl v3d help'" \
	v3d top fast
QPUCTL_ROOT=$tmp/none check_error v3d_stats_none \
	"qpuctl: no v3d node with gpu_stats in $tmp/none/dev/dri (the v3d driver gives it from Linux 6.8 on; qpuctl v3d lists the nodes)" \
	v3d stats
# (dash keeps an assignment made before a function call)
unset QPUCTL_ROOT

if [ ! -d /sys/module/qpu ]; then
	for cmd in info stats clients config "-d 0 reset" monitor "top count 1" \
		"dev show 0" "dev 0" "stats qpu0" "client id 7" "client pid 1" \
		"dev reset 0" "dev hang /dev/qpu" "dev hang" "hang show" "config show"; do
		# shellcheck disable=SC2086
		check_error "no_module_$cmd" \
			"qpuctl: qpu: generic netlink family not found: is qpu.ko loaded? (a Pi 4's or 5's GPU is the v3d driver's: qpuctl v3d)" $cmd
	done
fi

[ "$failed" -eq 0 ] && echo "test-qpuctl: $n cases passed"
exit "$failed"
