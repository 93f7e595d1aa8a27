#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The exact model on threads: `report --model host` on --model-threads 1
# (the serial model), 2, 3 ..., side by side on one build.
#
#   bash bench/model_threads.sh [-n RUNS] [-j MAXTHREADS] MEMPRISM
#
# Records the bench workloads once (randacc 64 MiB and 4M updates, arrays
# 64 MiB, allocheavy 1M pairs, smallobj 200k nodes and 800k operations,
# evloop 100M events), then times `report --model host -q` on each trace
# RUNS times (default 3) on each number of threads from 1 to MAXTHREADS
# (default: the CPUs and one more), the settings alternating so a noisy
# machine slows them alike. Prints per workload and setting the median wall and
# user+system CPU seconds, accesses per wall second, and the wall speed-up
# over one thread. Every setting's report must equal one thread's (the model's
# threads change no figure): a difference is printed and the exit status
# is 1. Environment: TMPDIR (scratch dir memprism-model-threads.XXXX goes
# there), KEEP=1 keeps it.
set -euo pipefail

runs=3
maxj=$(($(nproc) + 1))
while [ $# -gt 1 ]; do
	case $1 in
	-n)
		runs=$2
		shift 2
		;;
	-j)
		maxj=$2
		shift 2
		;;
	*) break ;;
	esac
done
[ $# -eq 1 ] || { sed -n '4,19p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
MP=$(realpath "$1")
REPO=$(cd "$(dirname "$0")/.." && pwd)
dir=$(mktemp -d "${TMPDIR:-/tmp}/memprism-model-threads.XXXX")
[ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$dir"' EXIT
cd "$dir"

WORKLOADS=(
	"randacc $REPO/bench/workloads/randacc.c 64 4000000"
	"arrays $REPO/examples/arrays.c 64"
	"allocheavy $REPO/bench/workloads/allocheavy.c 1000000"
	"smallobj $REPO/bench/workloads/smallobj.c 200000 800000"
	"evloop $REPO/bench/workloads/evloop.c 100000000"
)
SETTINGS=()
for ((j = 1; j <= maxj; j++)); do SETTINGS+=("$j"); done

# wall and user+system CPU seconds of one report
timed() { # threads trace out
	/usr/bin/time -f '%e %U %S' -o t.out "$MP" report --model host -q --model-threads "$1" "$2" >"$3" 2>/dev/null
	awk '{ printf "%.3f %.3f\n", $1, $2 + $3 }' t.out
}

median() { # column
	awk -v c="$1" '{ print $c }' | sort -n |
		awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

echo "machine: $(nproc) CPUs, $(grep -m1 '^model name' /proc/cpuinfo | sed 's/.*: //'); load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-11s %12s %8s %8s %8s %12s %8s\n' workload accesses threads wall cpu acc/wall-s speedup
status=0
for w in "${WORKLOADS[@]}"; do
	read -r name src args <<<"$w"
	"$MP" cc -O2 -g -I"$REPO/include" "$src" -o "$name" -lpthread -lm
	"$MP" record -q -o "$name.data" -- "./$name" $args >/dev/null
	acc=$("$MP" report -q "$name.data" | awk '/^accesses:/ { gsub(",", "", $2); print $2; exit }')
	for s in "${SETTINGS[@]}"; do : >"$name.$s.t"; done
	for ((i = 0; i < runs; i++)); do
		for s in "${SETTINGS[@]}"; do timed "$s" "$name.data" "$name.$s.out" >>"$name.$s.t"; done
	done
	base=$(median 1 <"$name.1.t")
	for s in "${SETTINGS[@]}"; do
		if ! cmp -s "$name.1.out" "$name.$s.out"; then
			echo "model_threads.sh: $name: the report on $s threads differs from one thread's" >&2
			status=1
		fi
		awk -v name="$name" -v acc="$acc" -v s="$s" -v wall="$(median 1 <"$name.$s.t")" \
			-v cpu="$(median 2 <"$name.$s.t")" -v base="$base" 'BEGIN {
			printf "%-11s %12d %8s %8.2f %8.2f %11.1fM %7.2fx\n", name, acc, s, wall, cpu, acc / wall / 1e6, base / wall }'
	done
done
exit $status
