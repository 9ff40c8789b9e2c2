# SPDX-License-Identifier: MIT
# shellcheck shell=sh
#
# The host's programs in the check-vm guest, sourced from /payload by the
# steps that need them (the Python suite's vm-run.sh, the fleet's
# test-fleet-vm.sh): the guest has no libc of its own, so the host's /usr
# (python3, mosquitto, the libraries of a dynamically linked tool) is
# mounted read-only over virtio-9p (run-vm.sh --share hostusr=/usr, and
# hostalt=/etc/alternatives for the links Debian's alternatives make, e.g.
# numpy's BLAS), with /lib and /lib64 pointing into it as on the host.

# host_usr_mount: mount both shares; 1 when one is missing.
host_usr_mount() {
	# cache=loose: the share is read-only, so the guest may keep what it read.
	set -- trans=virtio,version=9p2000.L,ro,cache=loose,msize=524288
	mount -t 9p -o "$1" hostusr /usr || return 1
	mkdir -p /etc/alternatives
	mount -t 9p -o "$1" hostalt /etc/alternatives || { umount /usr; return 1; }
	ln -sfn usr/lib /lib
	ln -sfn usr/lib64 /lib64
}

# host_usr_umount: undo host_usr_mount, for the next step.
host_usr_umount() {
	rm -f /lib /lib64
	umount /etc/alternatives
	umount /usr
}
