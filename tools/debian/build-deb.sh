#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# `make deb`: the Debian packages of tools/debian, built by dpkg-buildpackage
# in an exported copy of the tree (its tracked files, as they are in the
# work tree) under OUTDIR/<arch>/qpu-<version>, with the templates copied
# to its debian/ and debian/changelog written for VERSION. The build
# machine's architecture builds everything (-b: qpu-dkms and python3-qpu
# are arch all); the others are cross builds of the arch-dependent
# packages (-a ARCH -B -Pcross,nocheck,nofleet) with Debian's cross
# toolchains, without the fleet tools (tools/debian/rules says why).
# An architecture whose export has not changed since its last successful
# build is not built again. Usage: build-deb.sh TOP OUTDIR VERSION ARCH...
set -euo pipefail

top=$1 out=$2 version=$3
shift 3
native=$(dpkg --print-architecture)
here=$(cd "$(dirname "$0")" && pwd)
# What stays in tools/ only: the scripts that drive the build.
not_templates='^(deb\.mk|build-deb\.sh|check-deb\.sh)$'

export_tree() {
	local dest=$1
	mkdir -p "$dest"
	if git -C "$top" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		# Tracked files that exist (a deletion not yet committed is gone).
		(cd "$top" && git ls-files -z | while IFS= read -r -d '' f; do
			[ -e "$f" ] || [ -L "$f" ] && printf '%s\0' "$f"
		done | tar --null -T - -cf -) | tar -xf - -C "$dest"
	else
		(cd "$top" && tar --exclude=./build -cf - .) | tar -xf - -C "$dest"
	fi
	mkdir -p "$dest/debian/source"
	for f in "$here"/* "$here"/source/*; do
		[ -f "$f" ] || continue
		[[ $(basename "$f") =~ $not_templates ]] && continue
		cp -p "$f" "$dest/debian/${f#"$here"/}"
	done
	local date
	date=$(git -C "$top" log -1 --format=%aD 2>/dev/null || date -R)
	cat >"$dest/debian/changelog" <<CHANGELOG
qpu ($version) unstable; urgency=medium

  * Built from the qpu tree by make deb.

 -- qpu maintainers <maintainers@users.noreply.a-seed-82eb5318.example>  $date
CHANGELOG
}

tree_hash() {
	(cd "$1" && find . -type f -print0 | sort -z | xargs -0 sha256sum) | sha256sum | cut -d' ' -f1
}

status=0
for arch in "$@"; do
	dir=$out/$arch
	mkdir -p "$out"
	rm -rf "$out/export.$arch"
	export_tree "$out/export.$arch"
	hash="$arch $(tree_hash "$out/export.$arch")"
	if [ -f "$dir/.hash" ] && [ "$(cat "$dir/.hash")" = "$hash" ] &&
		ls "$dir"/*.changes >/dev/null 2>&1; then
		echo "deb: $arch is up to date in $dir"
		rm -rf "$out/export.$arch"
		continue
	fi
	rm -rf "$dir"
	mkdir -p "$dir"
	mv "$out/export.$arch" "$dir/qpu-$version"
	if [ "$arch" = "$native" ]; then
		args=(-b)
		opts="parallel=2"
	else
		args=(-a "$arch" -B "-Pcross,nocheck,nofleet")
		opts="parallel=2 nocheck"
	fi
	echo "deb: building $arch (dpkg-buildpackage ${args[*]}; log in $dir/build.log)"
	start=$SECONDS
	if (cd "$dir/qpu-$version" && DEB_BUILD_OPTIONS=$opts \
		env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u MAKEOVERRIDES \
		nice -n 10 dpkg-buildpackage -us -uc "${args[@]}") >"$dir/build.log" 2>&1; then
		echo "$hash" >"$dir/.hash"
		echo "deb: $arch done in $((SECONDS - start)) s:" \
			"$(cd "$dir" && printf '%s ' ./*.deb)"
	else
		echo "deb: $arch failed; the end of $dir/build.log:" >&2
		tail -n 40 "$dir/build.log" >&2
		status=1
	fi
done
exit $status
