#!/bin/sh
# SPDX-License-Identifier: MIT
#
# test-man: the manual pages. Every symbol libqpu.map exports and every
# symbol libqpu-mailbox.so.0 exports has a section 3 page in libqpu/man
# (its own, or a .so link to its family's page, whose NAME line lists
# it); every tool (tools/*.c, qpuctl) has its page; every .so link reaches
# a page; and `man --warnings` prints nothing for any page. Needs man-db
# and groff (tools/deps.sh man); skips without them.

: "${QPU_DIS:?QPU_DIS must name the qpu-dis binary}"
top=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "$(dirname "$QPU_DIS")/.." && pwd)
man3=$top/libqpu/man
map=${QPU_MAP:-$top/libqpu/libqpu.map}
mailbox=$build/libqpu-mailbox.so.0
failed=0

fail() {
	echo "FAIL: $*"
	failed=1
}

if ! command -v man >/dev/null || ! command -v groff >/dev/null; then
	echo "man or groff missing: run tools/deps.sh man"
	exit 77
fi
[ -f "$mailbox" ] || { echo "no $mailbox: build libqpu-mailbox first"; exit 1; }

# The global symbols of the version script: "name;" lines outside
# comments, before each node's "local:".
map_symbols() {
	sed -e 's|/\*.*\*/||g' "$map" |
		awk '/^[A-Z_0-9.]+ *\{/ { global = 0 } /global:/ { global = 1; next }
		     /local:/ { global = 0 } global && /^[ \t]*[a-z_][a-z_0-9]*;/ {
			gsub(/[ \t;]/, ""); print }' | sort -u
}

# A symbol's page: its own file, or a .so link whose target's NAME line
# names it.
check_page() {
	sym=$1
	page=$man3/$sym.3
	if [ ! -f "$page" ]; then
		fail "$sym has no page ($page)"
		return
	fi
	target=$page
	if head -n 1 "$page" | grep -q '^\.so '; then
		target=$top/libqpu/man/$(head -n 1 "$page" | sed 's|^\.so man3/||')
		[ -f "$target" ] || { fail "$page links to a missing page"; return; }
	fi
	sed -n '/^\.SH NAME/{n;p;}' "$target" | sed 's/ \\- .*//' | tr -d ',' |
		tr ' ' '\n' | grep -qx "$sym" ||
		fail "$sym is not in the NAME line of $(basename "$target")"
}

nsyms=$(map_symbols | wc -l)
[ "$nsyms" -gt 50 ] || fail "only $nsyms symbols read from $map"
for sym in $(map_symbols); do
	check_page "$sym"
done
msyms=$(nm -D --defined-only "$mailbox" | awk '$2 ~ /^[TDBRW]$/ { print $3 }' | sort -u)
[ -n "$msyms" ] || fail "no symbols read from $mailbox"
for sym in $msyms; do
	check_page "$sym"
done

for src in "$top"/tools/*.c; do
	tool=$(basename "$src" .c)
	[ -f "$top/tools/man/$tool.1" ] || fail "$tool has no page (tools/man/$tool.1)"
done
[ -f "$top/tools/qpuctl/qpuctl.8" ] || fail "qpuctl has no page"

# Every page, links resolved from a man tree, renders without a warning.
tree=$(mktemp -d) || exit 1
trap 'rm -rf "$tree"' EXIT
mkdir -p "$tree/man1" "$tree/man3" "$tree/man7" "$tree/man8"
cp "$top"/tools/man/*.1 "$tree/man1/"
cp "$man3"/*.3 "$tree/man3/"
cp "$man3"/*.7 "$top"/tools/man/*.7 "$tree/man7/"
cp "$top/tools/qpuctl/qpuctl.8" "$tree/man8/"
npages=0
for page in "$tree"/man[1-8]/*; do
	npages=$((npages + 1))
	# One rendering gives both the warnings (stderr) and the text.
	out=$(cd "$tree" && MANWIDTH=80 LC_ALL=C.UTF-8 man --warnings -E UTF-8 -l "$page" \
		2>&1 >"$tree/rendered")
	[ -z "$out" ] || fail "man --warnings on $(basename "$page"):
$out"
	grep -q . "$tree/rendered" || fail "$(basename "$page") renders nothing"
done

echo "$nsyms library symbols, $(echo "$msyms" | wc -w) mailbox symbols, $npages pages"
exit $failed
