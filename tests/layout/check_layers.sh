#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# check_layers.sh SRC TABLE [DOC]: every #include of every file under SRC
# against the allowed directions in TABLE (tests/layers.txt; its format is
# at its top). Prints FILE:LINE and the rule for each include a layer may
# not make, and each exception that no longer occurs; with DOC
# (CONTRIBUTING.md), also checks that DOC shows TABLE verbatim, between
# "<!-- tests/layers.txt -->" and the end of its code block, so the rules
# read and the rules checked are one text. Exit status 1 on any finding.
set -uo pipefail
src=${1%/}
table=$2
doc=${3:-}
[ -d "$src" ] && [ -f "$table" ] || {
	echo "usage: check_layers.sh SRC TABLE [DOC]" >&2
	exit 2
}
status=0
if [ -n "$doc" ]; then
	shown=$(awk '/^<!-- tests\/layers.txt -->$/ { on = 1; next } on && /^```/ { if (seen) exit; seen = 1; next } on && seen' "$doc")
	if [ "$shown" != "$(cat "$table")" ]; then
		echo "$doc: the table after <!-- tests/layers.txt --> is not $table as it is:" >&2
		diff <(echo "$shown") "$table" >&2
		status=1
	fi
fi
# one line per include: FILE<TAB>LINE<TAB>"name" or <name>
includes=$(cd "$src" && grep -rnE --include='*.c' --include='*.h' --include='*.cpp' --include='*.cc' \
	'^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"][^>"]+[>"]' . |
	sed -E 's#^\./##; s#^([^:]+):([0-9]+):[[:space:]]*\#[[:space:]]*include[[:space:]]*([<"][^>"]+[>"]).*#\1\t\2\t\3#')
files=$(cd "$src" && find . -type f | sed 's#^\./##')
awk -F'\t' -v table="$table" -v src="$src" '
function allowed(layer, hdr, n, i, a) {
	n = split(rule[layer], a, " ")
	for (i = 1; i <= n; i++)
		if (a[i] == hdr || (index(hdr, a[i] "/") == 1))
			return 1
	return 0
}
BEGIN {
	while ((getline line < table) > 0) {
		if (line ~ /^#/ || line ~ /^[[:space:]]*$/)
			continue
		if (line ~ /^except /) {
			sub(/^except /, "", line)
			split(line, p, /:[[:space:]]*/)
			exc[p[1] SUBSEP p[2]] = 1
			continue
		}
		split(line, p, /:[[:space:]]*/)
		rule[p[1]] = p[2] == "-" ? "" : p[2]
		known[p[1]] = 1
	}
}
NR == FNR { have[$0] = 1; next }
{
	file = $1; ln = $2; inc = $3
	layer = file; sub(/\/.*/, "", layer)
	if (!(layer in known)) {
		if (!(layer in unknown))
			printf "%s/%s: folder %s has no line in %s: add what it may include\n", src, file, layer, table
		unknown[layer] = 1
		bad = 1
		next
	}
	name = substr(inc, 2, length(inc) - 2)
	if (substr(inc, 1, 1) == "<") {
		if (name != "memprism.h" && name !~ /^memprism\//)
			next # the system
		hdr = "include"
	} else if (name !~ /\//) {
		dir = file; sub(/\/[^\/]*$/, "", dir)
		if ((dir "/" name) in have)
			next # its own folder
		if (name == "mp_config.h")
			hdr = "common/mp_config.h" # (generated from common/mp_config.h.in)
		else
			next # a header of a library outside memprism (Valgrind, LLVM)
	} else {
		top = name; sub(/\/.*/, "", top)
		if (!(top in known))
			next # (llvm/..., valgrind/...)
		if (top == layer)
			next
		hdr = name
	}
	if (allowed(layer, hdr))
		next
	if ((file SUBSEP hdr) in exc) {
		used[file SUBSEP hdr] = 1
		next
	}
	printf "%s/%s:%s: %s may not include %s (it may include: %s; %s)\n", src, file, ln, layer, \
		hdr == "include" ? inc : "\"" hdr "\"", rule[layer] == "" ? "nothing" : rule[layer], table
	bad = 1
}
END {
	for (k in exc)
		if (!(k in used)) {
			split(k, p, SUBSEP)
			printf "%s: the exception \"%s: %s\" no longer occurs: remove it\n", table, p[1], p[2]
			bad = 1
		}
	exit bad
}' <(echo "$files") <(echo "$includes") || status=1
exit $status
