#!/usr/bin/env bash
# Overhead of `memprism record --source pmu` against the native run, at a
# sampling period, on the four bench workloads (uninstrumented binaries:
# hardware sampling needs no recompilation). Seeds 004 and 002 report about
# 5% at one sample per 20k cycles / their periods; this script measures ours
# on a machine whose PMU allows it (bare metal or PMU passthrough). Where no
# PMU is usable it says why (the words of `memprism doctor`) and exits 4.
#
#   bash bench/pmu.sh [-n RUNS] [-p PERIOD] [-j PCT]
#                 (defaults: 5 runs, period 20000, no --period-jitter)
#   MEMPRISM=/path/to/memprism bash bench/pmu.sh
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
MEMPRISM=${MEMPRISM:-$REPO/build/bin/memprism}
N=5
PERIOD=20000
JITTER=()
while getopts "n:p:j:h" o; do
	case $o in
	n) N=$OPTARG ;;
	p) PERIOD=$OPTARG ;;
	j) JITTER=(--period-jitter "$OPTARG") ;;
	*)
		sed -n '2,11p' "$0"
		exit 2
		;;
	esac
done
[[ $N =~ ^[1-9][0-9]*$ && $PERIOD =~ ^[1-9][0-9]*$ ]] || {
	echo "bench/pmu.sh: -n and -p want positive numbers" >&2
	exit 2
}
[ -x "$MEMPRISM" ] || {
	echo "bench/pmu.sh: $MEMPRISM not found: build memprism first (cmake --build build)" >&2
	exit 3
}
CC=${BENCH_CC:-$(command -v clang-16 || command -v cc)}
SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/memprism-pmu.XXXX")
trap 'rm -rf "$SCRATCH"' EXIT
# Fail early, with the doctor's reason, where there is no PMU to sample.
if ! "$MEMPRISM" record --source pmu -q -o "$SCRATCH/probe.data" -- /bin/true 2> "$SCRATCH/probe.err"; then
	echo "bench/pmu.sh: --source pmu cannot run on this machine:" >&2
	sed 's/^/  /' "$SCRATCH/probe.err" >&2
	exit 4
fi
declare -A SRC ARGS LIBS
SRC=([arrays]=$REPO/examples/arrays.c [randacc]=$REPO/bench/workloads/randacc.c
	[evloop]=$REPO/bench/workloads/evloop.c [allocheavy]=$REPO/bench/workloads/allocheavy.c)
ARGS=([arrays]=64 [randacc]="256 20000000" [evloop]=800000000 [allocheavy]=2000000)
LIBS=([arrays]=-lpthread)
now() { date +%s.%N; }
printf '%-11s %10s %10s %8s %10s\n' workload native pmu ratio samples
for w in arrays randacc evloop allocheavy; do
	# shellcheck disable=SC2086
	"$CC" -O2 -g -I"$REPO/include" "${SRC[$w]}" -o "$SCRATCH/$w" ${LIBS[$w]:-}
	read -ra a <<< "${ARGS[$w]}"
	"$SCRATCH/$w" "${a[@]}" > /dev/null # warm-up
	: > "$SCRATCH/ratios"
	for ((i = 0; i < N; i++)); do
		t0=$(now)
		"$SCRATCH/$w" "${a[@]}" > /dev/null
		t1=$(now)
		"$MEMPRISM" record --source pmu --period "$PERIOD" "${JITTER[@]}" -o "$SCRATCH/$w.data" -- "$SCRATCH/$w" "${a[@]}" \
			> /dev/null 2> "$SCRATCH/$w.err"
		t2=$(now)
		awk -v a="$t0" -v b="$t1" -v c="$t2" 'BEGIN { printf "%.6f %.6f %.6f\n", b - a, c - b, (c - b) / (b - a) }' \
			>> "$SCRATCH/ratios"
	done
	samples=$(grep -o '[0-9]* samples' "$SCRATCH/$w.err" | head -1 | cut -d' ' -f1)
	sort -k3 -g "$SCRATCH/ratios" | awk -v w="$w" -v s="${samples:-?}" '{ n[NR] = $1; p[NR] = $2; r[NR] = $3 }
		END { m = int((NR + 1) / 2); printf "%-11s %9.3fs %9.3fs %7.3fx %10s\n", w, n[m], p[m], r[m], s }'
done
echo "period $PERIOD${JITTER[1]:+ jitter ${JITTER[1]}%}; ratio = median of per-pair ratios (pmu run i / native run i), $N runs."
