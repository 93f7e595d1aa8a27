#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The processes of one data file analysed at once: `report --jobs 1` (and
# `numa`) against `--jobs N` (default: one per CPU) over one file of a program that
# forks, alternating; prints wall time, peak memory and the speedup, and
# checks the reports are byte for byte the same (the object view,
# --by process, and the object view with --model nehalem-e5504: each
# process on a machine of its own; the same with a what-if rule,
# --pages fork4.c=2M, and with --thread-map spread, whose thread places
# are the file's; and `numa --numa 2x4`, each process placing its own
# pages). Then the replays that take several files at once, and a
# file's processes where their hooks allow: `export --dhat` of FILES
# copies of the file (each its own replay, folded in order), `export
# --paraver` of FILES files of fork4 at SCALE/1000 (every access a
# record: the .prv is written after the replays, on one thread), and
# `report --model nehalem-e5504 --roi pages` of tests/rt/two_tables.c
# forked (two processes, each reading 16,384 + 8,192 pages ROUNDS times:
# two page-walk findings, whose checks' replay takes the processes at
# once too), checking the files written and the report are the same;
# and the export's peak memory over 1, 4 and 16 files (it grows with
# --jobs, not with the files). Then what the machine gives at the moment: two
# `--jobs 1` reports run side by side, whose wall time over one alone's is
# 1 when two CPUs are free and 2 when other work leaves one (the speedup
# above cannot pass what this allows).
#
#   bash bench/procs.sh [-n RUNS] [SCALE] [FILES] [ROUNDS]
#
# The file: tests/rt/fork4.c run with SCALE (default 20000): a parent and
# three children, child k making k x 1000 x SCALE accesses (120 M in all at
# 20000). FILES: default 4; ROUNDS: default 200. Environment: MEMPRISM
# (default <repo>/build/bin/memprism); LABELS: the runs to time (default
# all: objects processes model rules spread numa dhat paraver checks).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
RUNS=3
if [ "${1:-}" = -n ]; then
	RUNS=$2
	shift 2
fi
SCALE=${1:-20000}
FILES=${2:-4}
ROUNDS=${3:-200}
MEMPRISM=${MEMPRISM:-$repo/build/bin/memprism}
JOBS=$(nproc)
[ "$JOBS" -gt 1 ] || JOBS=2
[ -x "$MEMPRISM" ] || { echo "procs.sh: no memprism at $MEMPRISM (build first)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
"$MEMPRISM" cc -O2 -g "$repo/tests/rt/fork4.c" -o fork4
"$MEMPRISM" record -q -o fork4.data -- ./fork4 "$SCALE" >/dev/null
echo "one file of fork4 $SCALE (4 processes, $(du -m fork4.data | cut -f1) MB);" \
	"--jobs 1 against --jobs $JOBS on $(nproc) CPUs, $RUNS runs each, alternating"
# the several files' inputs
small=$((SCALE / 1000 > 0 ? SCALE / 1000 : 1))
copies=() smalls=()
for ((k = 0; k < FILES; k++)); do
	ln -s fork4.data "copy$k.data"
	copies+=("copy$k.data")
	"$MEMPRISM" record -q -o "small$k.data" -- ./fork4 "$small" >/dev/null
	smalls+=("small$k.data")
done
"$MEMPRISM" cc -O2 -g "$repo/tests/rt/two_tables.c" -o two_tables
"$MEMPRISM" record -q --no-pagemap -o tt.data -- ./two_tables 16384 "$ROUNDS" fork >/dev/null
echo "several files: $FILES of fork4 $SCALE (--dhat), $FILES of fork4 $small (--paraver);" \
	"two_tables 16384 $ROUNDS fork ($(du -m tt.data | cut -f1) MB)"
measure() { # label jobs command args...: "wall_s rss_kb" per run into $label.$jobs
	local label=$1 j=$2 cmd=$3
	shift 3
	local files=(fork4.data)
	case $label in
	dhat) files=("${copies[@]}") ;;
	paraver) files=("${smalls[@]}") ;;
	checks) files=(tt.data) ;;
	esac
	/usr/bin/time -f "%e %M" -o t "$MEMPRISM" "$cmd" -q --jobs "$j" "$@" "${files[@]}" >"out.$label.$j"
	cat t >>"$label.$j"
	# (the exports' files are their output: Paraver's header line without its date)
	[ $label = dhat ] && mv x.json "out.$label.$j"
	if [ $label = paraver ]; then
		sed '1s/^#Paraver ([^)]*)//' x.prv | cat - x.pcf x.row >"out.$label.$j"
		rm -f x.prv x.pcf x.row
	fi
	return 0
}
med() { sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
for label in ${LABELS:-objects processes model rules spread numa dhat paraver checks}; do
	args=(report)
	[ $label = processes ] && args=(report --by process)
	[ $label = model ] && args=(report --model nehalem-e5504)
	[ $label = rules ] && args=(report --model nehalem-e5504 --pages fork4.c=2M)
	[ $label = spread ] && args=(report --model nehalem-e5504 --thread-map spread)
	[ $label = numa ] && args=(numa --numa 2x4)
	[ $label = dhat ] && args=(export --dhat x.json)
	[ $label = paraver ] && args=(export --paraver x)
	[ $label = checks ] && args=(report --model nehalem-e5504 --roi pages)
	for ((i = 0; i < RUNS; i++)); do
		measure $label 1 "${args[@]}"
		measure $label "$JOBS" "${args[@]}"
	done
	[ $label != checks ] || grep -q "checked by the model" "out.$label.1" ||
		{ echo "procs.sh: two_tables' report has no checked finding" >&2; exit 1; }
	cmp -s "out.$label.1" "out.$label.$JOBS" || { echo "procs.sh: --jobs $JOBS changed the $label report" >&2; exit 1; }
	w1=$(cut -d' ' -f1 "$label.1" | med) wn=$(cut -d' ' -f1 "$label.$JOBS" | med)
	m1=$(cut -d' ' -f2 "$label.1" | med) mn=$(cut -d' ' -f2 "$label.$JOBS" | med)
	awk -v l="$label" -v j="$JOBS" -v w1="$w1" -v wn="$wn" -v m1="$m1" -v mn="$mn" 'BEGIN {
		printf "%-9s --jobs 1: %6.2f s %6.1f MB   --jobs %d: %6.2f s %6.1f MB   speedup %.2fx (same report)\n",
			l, w1, m1 / 1024, j, wn, mn / 1024, w1 / wn }'
done
# the export's peak memory against the files it reads at once
line="export --dhat --jobs $JOBS, peak memory:"
for n in 1 4 16; do
	files=()
	for ((k = 0; k < n; k++)); do
		[ -e "m$k.data" ] || ln -s fork4.data "m$k.data"
		files+=("m$k.data")
	done
	/usr/bin/time -f "%M" -o t "$MEMPRISM" export -q --jobs "$JOBS" --dhat m.json "${files[@]}"
	line="$line $n files $(awk '{ printf "%.1f", $1 / 1024 }' t) MB;"
done
echo "${line%;}"
for ((i = 0; i < RUNS; i++)); do
	/usr/bin/time -f "%e" -o t1 "$MEMPRISM" report -q --jobs 1 fork4.data >/dev/null
	cat t1 >>alone
	/usr/bin/time -f "%e" -o ta "$MEMPRISM" report -q --jobs 1 fork4.data >/dev/null &
	/usr/bin/time -f "%e" -o tb "$MEMPRISM" report -q --jobs 1 fork4.data >/dev/null
	wait
	cat ta tb | sort -g | tail -1 >>pair
done
wa=$(med <alone) wp=$(med <pair)
awk -v wa="$wa" -v wp="$wp" 'BEGIN {
	printf "two --jobs 1 reports side by side: %.2f s against %.2f s alone (%.2fx: 1 = two free CPUs)\n", wp, wa, wp / wa }'
