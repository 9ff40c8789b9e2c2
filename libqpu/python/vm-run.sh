#!/bin/sh
# SPDX-License-Identifier: MIT
#
# The Python suite inside the check-vm guest, on /dev/qpu (and
# test_v3d_node.py on kmod/v3d_sim's Pi 4 and Pi 5 nodes): the guest has no
# Python of its own, so the host's /usr (python3, numpy, pytest) is mounted
# read-only over virtio-9p (host-usr.sh), the package and libqpu.so.0 come
# in python.tar. Prints TAP, one line per test.
# Arguments: the test files to run (tests/ names), each a step of its own;
# $QPU_TEST_SELECT, when set, is pytest's -k expression (check-nn-vm).
[ -d /tmp/python ] || tar -xf /payload/python.tar -C /tmp || exit 1
. /payload/host-usr.sh
host_usr_mount || exit 1
select=
[ -z "${QPU_TEST_SELECT:-}" ] || select=-k
QPU_LIBRARY=/tmp/python/libqpu.so.0 QPU_TEST_DEVICE=/dev/qpu \
	QPU_TEST_V3D_NODES="v3d:v3d42 /dev/dri/by-path/platform-1002000000.v3d-card" \
	QPU_TEST_V3D_STORE=/tmp/python/v3d-store.s \
	QPU_TEST_QASM=/tmp/python/qasm HOME=/tmp \
	/usr/bin/python3 /tmp/python/tests/run.py --tap -m "not host_only" --durations=5 \
	${select:+"$select"} ${select:+"$QPU_TEST_SELECT"} \
	$(for f in "$@"; do echo "/tmp/python/tests/$f"; done)
rc=$?
host_usr_umount
exit $rc
