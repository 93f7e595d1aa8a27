#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The exact model's speed, two memprism builds side by side.
#
#   bash bench/model.sh [-n RUNS] REF NEW
#
# Records randacc, arrays, allocheavy and smallobj once with REF (sized to
# seconds of replay: randacc 64 MiB and 4M updates, arrays 64 MiB,
# allocheavy 1M pairs, smallobj 200k nodes and 800k operations), then
# times `report --model host -q` on each trace RUNS times (default 5) per
# binary, REF and NEW alternating so a noisy machine slows both alike.
# Prints per workload the median user+system CPU seconds of each, the
# accesses per CPU second (the report's access count over the median) and
# the ratio REF/NEW (above 1: NEW is faster). The outputs of the two
# binaries are compared too (a speed-up must change no figure).
# Environment: TMPDIR (scratch dir memprism-model-bench.XXXX goes there),
# KEEP=1 keeps it.
set -euo pipefail

runs=5
if [ "${1:-}" = "-n" ]; then
	runs=$2
	shift 2
fi
[ $# -eq 2 ] || { sed -n '4,18p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
REF=$(realpath "$1")
NEW=$(realpath "$2")
REPO=$(cd "$(dirname "$0")/.." && pwd)
dir=$(mktemp -d "${TMPDIR:-/tmp}/memprism-model-bench.XXXX")
[ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$dir"' EXIT
cd "$dir"

WORKLOADS=(
	"randacc $REPO/bench/workloads/randacc.c 64 4000000"
	"arrays $REPO/examples/arrays.c 64"
	"allocheavy $REPO/bench/workloads/allocheavy.c 1000000"
	"smallobj $REPO/bench/workloads/smallobj.c 200000 800000"
)

# user+system CPU seconds of one report
cpu() {
	/usr/bin/time -f '%U %S' -o t.out "$1" report --model host -q "$2" >"$3" 2>/dev/null
	awk '{ printf "%.2f\n", $1 + $2 }' t.out
}

median() {
	sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

printf '%-11s %12s %8s %12s %8s %7s\n' workload accesses REF-cpu REF-acc/s NEW-cpu REF/NEW
for w in "${WORKLOADS[@]}"; do
	read -r name src args <<<"$w"
	"$REF" cc -O2 -g -I"$REPO/include" "$src" -o "$name" -lpthread -lm
	"$REF" record -q -o "$name.data" -- "./$name" $args >/dev/null
	: >"$name.ref" && : >"$name.new"
	for ((i = 0; i < runs; i++)); do
		cpu "$REF" "$name.data" "$name.ref.out" >>"$name.ref"
		cpu "$NEW" "$name.data" "$name.new.out" >>"$name.new"
	done
	cmp -s "$name.ref.out" "$name.new.out" || echo "model.sh: $name: the two reports differ" >&2
	acc=$("$REF" report -q "$name.data" | awk '/^accesses:/ { gsub(",", "", $2); print $2; exit }')
	r=$(median <"$name.ref")
	n=$(median <"$name.new")
	awk -v name="$name" -v acc="$acc" -v r="$r" -v n="$n" 'BEGIN {
		printf "%-11s %12d %8.2f %12.0f %8.2f %7.2f   (NEW %.0f acc/s)\n", name, acc, r, acc / r, n, r / n, acc / n }'
done
