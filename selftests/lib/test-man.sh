#!/bin/sh
# SPDX-License-Identifier: MIT
#
# test-man: the manual pages. Every symbol libqpu.map exports and every
# symbol libqpu-mailbox.so.0 exports has a section 3 page in libqpu/man
# (its own, or a .so link to its family's page, whose NAME line lists
# it); every tool (tools/*.c, qpuctl) has its page; every .so link reaches
# a page; and `man --warnings` prints nothing for any page (a link is
# rendered through its target, once). Needs man-db
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

# Each symbol's page: its own file, or a .so link whose target's NAME line
# names it. One awk reads every page's NAME line (or link) first, then
# checks the symbols (a process per symbol is minutes on a loaded machine).
check_pages() {
	awk -v dir="$man3" '
		FNR == 1 { page = FILENAME; sub(".*/", "", page); want = 0
			if ($1 == ".so") { t = $2; sub("^man3/", "", t); link[page] = t }
			else has[page] = 1 }
		want { line = $0; sub(/ \\- .*/, "", line); gsub(",", "", line)
			n = split(line, w, " "); for (i = 1; i <= n; i++) named[page, w[i]] = 1
			want = 0 }
		/^\.SH NAME/ { want = 1 }
		END {
			while ((getline sym < "/dev/stdin") > 0) {
				page = sym ".3"
				if (!(page in has) && !(page in link)) {
					print "FAIL: " sym " has no page (" dir "/" page ")"; bad = 1; continue }
				target = page
				if (page in link) {
					target = link[page]
					if (!(target in has)) {
						print "FAIL: " dir "/" page " links to a missing page"; bad = 1; continue }
				}
				if (!((target, sym) in named)) {
					print "FAIL: " sym " is not in the NAME line of " target; bad = 1 }
			}
			exit bad
		}' "$man3"/*.3
}

nsyms=$(map_symbols | wc -l)
[ "$nsyms" -gt 50 ] || fail "only $nsyms symbols read from $map"
msyms=$(nm -D --defined-only "$mailbox" | awk '$2 ~ /^[TDBRW]$/ { print $3 }' | sort -u)
[ -n "$msyms" ] || fail "no symbols read from $mailbox"
{ map_symbols; echo "$msyms"; } | check_pages || failed=1

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
: >"$tree/render-list"
for page in "$tree"/man[1-8]/*; do
	npages=$((npages + 1))
	# A .so link renders as its target does: check that the tree
	# resolves it, and render the target once, as its own page.
	if head -n 1 "$page" | grep -q '^\.so '; then
		link=$(head -n 1 "$page" | sed 's|^\.so ||')
		[ -f "$tree/$link" ] || fail "$(basename "$page"): .so $link is not in the man tree"
		continue
	fi
	echo "$page" >>"$tree/render-list"
done
# The pages render side by side (man-db's start-up dominates); each
# rendering gives both the warnings (stderr, in PAGE.warn) and the text.
mkdir "$tree/out"
xargs -P 4 -n 1 sh -c 'cd "${0%/man?/*}" && MANWIDTH=80 LC_ALL=C.UTF-8 \
	man --warnings -E UTF-8 -l "$0" 2>"out/${0##*/}.warn" >"out/${0##*/}.txt"' \
	<"$tree/render-list"
while read -r page; do
	name=${page##*/}
	[ ! -s "$tree/out/$name.warn" ] || fail "man --warnings on $name:
$(cat "$tree/out/$name.warn")"
	grep -q . "$tree/out/$name.txt" || fail "$name renders nothing"
done <"$tree/render-list"

echo "$nsyms library symbols, $(echo "$msyms" | wc -w) mailbox symbols, $npages pages"
exit $failed
