#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Several data files analysed at once: `report --jobs 1` against `--jobs N`
# (default: one per CPU) over the same files, alternating, with and without
# the model; prints wall time, peak memory and the speedup, and checks the
# reports are byte for byte the same.
#
#   bash bench/merge.sh [-n RUNS] [FILES] [SIZE_MIB]
#
# FILES data files (default 4) of examples/arrays.c recorded with SIZE_MIB
# (default 64) per array. Environment: MEMPRISM (default
# <repo>/build/bin/memprism).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
RUNS=3
if [ "${1:-}" = -n ]; then
	RUNS=$2
	shift 2
fi
FILES=${1:-4} SIZE=${2:-64}
MEMPRISM=${MEMPRISM:-$repo/build/bin/memprism}
JOBS=$(nproc)
[ -x "$MEMPRISM" ] || { echo "merge.sh: no memprism at $MEMPRISM (build first)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
"$MEMPRISM" cc -O2 -g "$repo/examples/arrays.c" -o arrays
for ((k = 0; k < FILES; k++)); do "$MEMPRISM" record -q -o "r$k.data" -- ./arrays "$SIZE" >/dev/null; done
echo "$FILES files of arrays $SIZE MiB; --jobs 1 against --jobs $JOBS on $(nproc) CPUs, $RUNS runs each, alternating"
measure() { # label jobs args...: "wall_s rss_kb" per run into $label.$jobs
	local label=$1 j=$2
	shift 2
	/usr/bin/time -f "%e %M" -o t "$MEMPRISM" report -q --jobs "$j" "$@" r*.data >"out.$label.$j"
	cat t >>"$label.$j"
}
for label in counts model; do
	args=()
	[ $label = model ] && args=(--model host)
	for ((i = 0; i < RUNS; i++)); do
		measure $label 1 "${args[@]}"
		measure $label "$JOBS" "${args[@]}"
	done
	cmp -s "out.$label.1" "out.$label.$JOBS" || { echo "merge.sh: --jobs $JOBS changed the $label report" >&2; exit 1; }
	med() { sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
	w1=$(cut -d' ' -f1 "$label.1" | med) wn=$(cut -d' ' -f1 "$label.$JOBS" | med)
	m1=$(cut -d' ' -f2 "$label.1" | med) mn=$(cut -d' ' -f2 "$label.$JOBS" | med)
	awk -v l="$label" -v j="$JOBS" -v w1="$w1" -v wn="$wn" -v m1="$m1" -v mn="$mn" 'BEGIN {
		printf "%-7s --jobs 1: %6.2f s %6.1f MB   --jobs %d: %6.2f s %6.1f MB   speedup %.2fx (same report)\n",
			l, w1, m1 / 1024, j, wn, mn / 1024, w1 / wn }'
done
