#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# What `memprism cc` costs at build time, side by side with plain clang.
#
#   bash bench/compile.sh [-n N] [SOURCE.c]
#
# Compiles one large C file (-O2 -g -c) with clang-16 and with `memprism cc`,
# alternating, N times each (default 1), and prints the CPU time (user+sys)
# and the object and text sizes of each, with memprism's ratios to clang.
# CPU time rather than wall time: the ratio holds on a busy machine too.
# SOURCE defaults to SQLite's amalgamation (a 270k-line single-file library),
# taken from the better-sqlite3 npm package into bench/.cache when absent.
#
# Environment: MEMPRISM (default <repo>/build/bin/memprism), BENCH_CFLAGS
# (default "-O2 -g").
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
N=1
if [ "${1:-}" = -n ]; then
	N=$2
	shift 2
fi
src=${1:-}
MEMPRISM=${MEMPRISM:-$repo/build/bin/memprism}
flags=${BENCH_CFLAGS:--O2 -g}
[ -x "$MEMPRISM" ] || { echo "compile.sh: no memprism at $MEMPRISM (build first)" >&2; exit 2; }
if [ -z "$src" ]; then
	src=$repo/bench/.cache/sqlite3.c
	if [ ! -f "$src" ]; then
		command -v npm >/dev/null || { echo "compile.sh: give a SOURCE.c (npm, to fetch SQLite, is not installed)" >&2; exit 2; }
		mkdir -p "$repo/bench/.cache"
		(cd "$repo/bench/.cache" && npm pack --silent better-sqlite3 >/dev/null &&
			tar xzf better-sqlite3-*.tgz package/deps/sqlite3/sqlite3.c package/deps/sqlite3/sqlite3.h &&
			mv package/deps/sqlite3/sqlite3.[ch] . && rm -rf package better-sqlite3-*.tgz) ||
			{ echo "compile.sh: cannot fetch SQLite's amalgamation; give a SOURCE.c" >&2; exit 2; }
	fi
fi
[ -f "$src" ] || { echo "compile.sh: no such file: $src" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cpu() { # label command...: CPU seconds of the command
	/usr/bin/time -f "%U %S" -o "$tmp/t" "$@" >/dev/null 2>"$tmp/err" || { cat "$tmp/err" >&2; exit 3; }
	awk '{ printf "%.2f\n", $1 + $2 }' "$tmp/t"
}
printf 'compiling %s (%s lines), %s, %d time(s) each\n' "$src" "$(wc -l <"$src")" "$flags" "$N"
ct=() mt=()
for ((i = 0; i < N; i++)); do
	# shellcheck disable=SC2086
	ct+=("$(cpu clang-16 $flags -c "$src" -o "$tmp/plain.o")")
	# shellcheck disable=SC2086
	mt+=("$(cpu "$MEMPRISM" cc $flags -c "$src" -o "$tmp/mp.o")")
done
med() { printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
c=$(med "${ct[@]}") m=$(med "${mt[@]}")
cs=$(stat -c %s "$tmp/plain.o") ms=$(stat -c %s "$tmp/mp.o")
ctext=$(size "$tmp/plain.o" | awk 'NR == 2 { print $1 }') mtext=$(size "$tmp/mp.o" | awk 'NR == 2 { print $1 }')
printf '%-14s %10s %12s %12s\n' "" "cpu s" "object B" "text B"
printf '%-14s %10s %12s %12s\n' clang-16 "$c" "$cs" "$ctext"
printf '%-14s %10s %12s %12s\n' "memprism cc" "$m" "$ms" "$mtext"
awk -v c="$c" -v m="$m" -v cs="$cs" -v ms="$ms" -v ct="$ctext" -v mt="$mtext" \
	'BEGIN { printf "%-14s %9.2fx %11.2fx %11.2fx\n", "ratio", m / c, ms / cs, mt / ct }'
