#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# check_stages.sh ARCHIVE SRC TABLE: the analysis's stages call one way, and
# files and functions stay within their sizes (tests/layout/stages.txt; its
# format is at its top).
#
# Calls: from the undefined symbols of each object in ARCHIVE (the built
# libmp_analysis.a, read with nm), each call into another object of the
# archive must go to the caller's stage or one listed before it in TABLE
# (a stage may be several files, which share an internal header): a call
# to a later stage fails with the caller, the callee and the symbol. An
# object the table does not list fails too.
# Sizes: every *.c under SRC (src/) against TABLE's limits, lines of a file
# by folder and of a function (from its first line at column 0 to the "}"
# at column 0 that ends it). An item over its limit fails unless TABLE
# allows it at its current size or less; an allowance that is no longer
# needed (the item is back within the limit, or gone) fails too, so the
# list only shrinks. Exit status 1 on any finding, 2 on usage.
set -uo pipefail
archive=$1
src=${2%/}
table=$3
[ -f "$archive" ] && [ -d "$src" ] && [ -f "$table" ] || {
	echo "usage: check_stages.sh ARCHIVE SRC TABLE" >&2
	exit 2
}
command -v nm >/dev/null || { echo "check_stages.sh: nm (binutils) is needed" >&2; exit 2; }
status=0

# --- calls: "member T symbol" and "member U symbol" lines -----------------
syms=$(nm -A -g "$archive" 2>/dev/null | awk '
{
	split($1, p, ":"); m = p[2]; sub(/\.c\.o$|\.o$/, "", m)
	if ($2 == "U") print m, "U", $3
	else if ($3 != "" && $2 ~ /^[TDBRVWGS]$/) print m, "D", $3
}')
[ -n "$syms" ] || { echo "check_stages.sh: $archive: nm found no symbols" >&2; exit 2; }
awk -v table="$table" '
BEGIN {
	while ((getline line < table) > 0) {
		if (line ~ /^stage[[:space:]]/) {
			k = split(line, p, /[[:space:]]+/)
			n++
			for (i = 2; i <= k; i++)
				if (p[i] != "")
					rank[p[i]] = n
		}
	}
}
$2 == "D" { def[$3] = $1; next }
{ use[NR] = $0 }
END {
	for (i in use) {
		split(use[i], u, " ")
		if (!(u[1] in rank)) {
			if (!(u[1] in unlisted))
				printf "%s: %s.c is not in the stage order: add its line\n", table, u[1]
			unlisted[u[1]] = 1
			bad = 1
			continue
		}
		if (!(u[3] in def) || def[u[3]] == u[1])
			continue
		callee = def[u[3]]
		if (!(callee in rank)) {
			if (!(callee in unlisted))
				printf "%s: %s.c is not in the stage order: add its line\n", table, callee
			unlisted[callee] = 1
			bad = 1
			continue
		}
		if (rank[callee] > rank[u[1]]) {
			printf "%s.c calls %s of %s.c, a later stage (%s: %s.c is stage %d, %s.c stage %d)\n",
				u[1], u[3], callee, table, u[1], rank[u[1]], callee, rank[callee]
			bad = 1
		}
	}
	exit bad
}' <<<"$syms" | sort || status=1

# --- sizes ------------------------------------------------------------------
# "file PATH LINES" and "function PATH:NAME LINES" for every *.c under src
sizes=$(cd "$src" && find . -name '*.c' | sed 's#^\./##' | sort | while read -r f; do
	echo "file $f $(wc -l <"$f")"
	awk -v f="$f" '
	!infn && /^[A-Za-z_][^;=]*\(/ && !/;[[:space:]]*$/ && !/^(typedef|enum|struct [A-Za-z_0-9]+ *\{|static const|const)/ {
		s = $0; gsub(/__attribute__\(\([^)]*(\([^)]*\))?[^)]*\)\)/, "", s)
		sub(/\(.*/, "", s); k = split(s, a, /[ \t\*]+/)
		nm = a[k]; start = FNR; infn = 1; next
	}
	infn && /^\}/ { printf "function %s:%s %d\n", f, nm, FNR - start + 1; infn = 0 }
	' "$f"
done)
awk -v table="$table" '
BEGIN {
	while ((getline line < table) > 0) {
		if (line ~ /^limit[[:space:]]/) {
			split(line, p, /[[:space:]]+/) # limit file|function FOLDER|* LINES
			lim[p[2] SUBSEP p[3]] = p[4]
		} else if (line ~ /^allow[[:space:]]/) {
			split(line, p, /[[:space:]]+/) # allow file|function ITEM LINES
			allow[p[2] SUBSEP p[3]] = p[4]
		}
	}
}
function limit_of(kind, item, d) {
	d = item; sub(/\/.*/, "", d)
	if ((kind SUBSEP d) in lim)
		return lim[kind SUBSEP d]
	return (kind SUBSEP "*") in lim ? lim[kind SUBSEP "*"] : 0
}
{
	kind = $1; item = $2; n = $3 + 0
	path = item; sub(/:.*/, "", path)
	l = limit_of(kind, path)
	if (!l || n <= l)
		next
	k = kind SUBSEP item
	if (k in allow) {
		needed[k] = 1
		if (n > allow[k]) {
			printf "%s %s: %d lines, more than the %d it is allowed (%s): it may only shrink\n", kind, item, n, allow[k], table
			bad = 1
		}
		next
	}
	printf "%s %s: %d lines, over the limit of %d (%s): split it\n", kind, item, n, l, table
	bad = 1
}
END {
	for (k in allow)
		if (!(k in needed)) {
			split(k, p, SUBSEP)
			printf "%s: \"allow %s %s\" is no longer needed (within the limit, or gone): remove it\n", table, p[1], p[2]
			bad = 1
		}
	exit bad
}' <<<"$sizes" | sort || status=1
exit $status
