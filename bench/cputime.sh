#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# What the inst source's CPU-time samples cost (record's cpu-clock events,
# docs/sources.md "How much is unseen").
#
#   bash bench/cputime.sh [-n PAIRS]
#
# 1. A timer interrupt's cost: a fixed loop's CPU time with a cpu-clock
#    event sampling it every 20 us, 1 ms and 4 ms (the event as record
#    opens it: user mode, its ring mapped) against none, alternating.
# 2. `memprism record` of evloop and randacc (bench/workloads, the inputs
#    of bench/run.sh) with the samples and with --no-cpu-time, in ABBA
#    order (PAIRS pairs, default 3), each data file removed after its run:
#    the user+sys CPU time of record and the program, and the file sizes.
#
# Environment: MEMPRISM (default <repo>/build/bin/memprism), TMPDIR.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
M=${MEMPRISM:-$REPO/build/bin/memprism}
N=3
if [ "${1:-}" = -n ]; then
	N=$2
fi
S=$(mktemp -d "${TMPDIR:-/tmp}/memprism-cputime.XXXX")
trap 'rm -rf "$S"' EXIT
cd "$S"

cat >irq.c <<'EOF'
#define _GNU_SOURCE
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
static volatile unsigned long sink;
int main(int argc, char **argv)
{
	long period = atol(argv[1]);
	if (period) {
		struct perf_event_attr a;
		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.type = PERF_TYPE_SOFTWARE;
		a.config = PERF_COUNT_SW_CPU_CLOCK;
		a.sample_period = period;
		a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
		a.exclude_kernel = 1;
		a.exclude_hv = 1;
		int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
		if (fd < 0 || mmap(NULL, 9 * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) == MAP_FAILED) {
			perror("cpu-clock");
			return 1;
		}
	}
	struct timespec t0, t1;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
	unsigned long x = 1;
	for (long i = 0; i < 1500000000L; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	sink = x;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
	printf("%.4f\n", (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	return 0;
}
EOF
cc -O2 irq.c -o irq
declare -A sum=()
for ((i = 0; i < N; i++)); do
	for p in 0 20000 1000000 4000000; do
		sum[$p]=$(echo "${sum[$p]:-0} + $(./irq $p)" | bc -l)
	done
done
base=$(echo "${sum[0]} / $N" | bc -l)
printf 'a fixed loop: %.3f s of CPU alone\n' "$base"
for p in 20000 1000000 4000000; do
	t=$(echo "${sum[$p]} / $N" | bc -l)
	# samples taken: the loop's time over the period; the cost of each: the extra time over them
	printf '  cpu-clock every %7d ns: +%.2f%%, %.1f us a sample\n' "$p" \
		"$(echo "100 * ($t - $base) / $base" | bc -l)" "$(echo "($t - $base) / ($t / ($p / 1000000000)) * 1000000" | bc -l)"
done

declare -A ARGS=([evloop]="800000000" [randacc]="256 20000000")
one() { # workload mode: "user+sys bytes"
	local opt=()
	[ "$2" = off ] && opt=(--no-cpu-time)
	sync
	local t
	t=$( { TIMEFORMAT='%U %S'; time "$M" record -q "${opt[@]}" -o "$1.$2.data" -- "./$1" ${ARGS[$1]} >/dev/null; } 2>&1)
	echo "$(echo "$t" | awk '{ print $1 + $2 }') $(stat -c %s "$1.$2.data")"
	rm -f "$1.$2.data"
}
for w in evloop randacc; do
	"$M" cc -O2 -g -I"$REPO/include" "$REPO/bench/workloads/$w.c" -o "$w"
	on=() off=()
	for ((i = 0; i < N; i++)); do
		if ((i % 2 == 0)); then
			off+=("$(one $w off)") on+=("$(one $w on)")
		else
			on+=("$(one $w on)") off+=("$(one $w off)")
		fi
	done
	printf '%s\n' "${on[@]}" >on.txt
	printf '%s\n' "${off[@]}" >off.txt
	awk -v w=$w 'NR == FNR { t0 += $1; b0 = $2; n++; next } { t1 += $1; b1 = $2 }
		END { printf "record %s: user+sys %.3f s with the samples, %.3f s without (%+.1f%%), file %+d bytes\n",
		      w, t1 / n, t0 / n, 100 * (t1 - t0) / t0, b1 - b0 }' off.txt on.txt
done
