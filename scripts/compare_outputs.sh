#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Byte-for-byte comparison of two memprism builds on a fixed set of traces.
#
#   bash scripts/compare_outputs.sh [-k] REF NEW [TRACEDIR]
#
# REF and NEW are memprism binaries (e.g. build-ref/bin/memprism and
# build/bin/memprism). A change that means to leave behaviour alone (a
# refactoring) must leave every output of every command the same.
#
# The traces: tests/golden/*.data, and, recorded once into TRACEDIR
# (default: build-compare-traces/ beside this script's repository; kept, so
# later comparisons read the same files) with REF: examples/arrays.c and
# bench/workloads/{randacc,evloop,allocheavy}.c, built with `REF cc`, each
# recorded in full (inst) and with --sample-bursts. Delete TRACEDIR to record
# them again.
#
# Each trace goes through report (every --by view, text, csv and json, with
# and without --model, --sample-sets, --numa, --sample-bursts at replay,
# --html), tlb, numa (every table, csv and json), whatif, memtrace (csv and
# bin), fold (a region's instances) and export (--sqlite, dumped with
# sqlite3 .dump, --sqlite --binned, --paraver). Standard output, standard
# error, the exit status and any file written are compared; the differing
# outputs are listed and the first lines of each diff shown.
#
# -k: keep the output directory (printed) even when everything matched.
# MODEL_THREADS=N in the environment: NEW's report (with --model), tlb and
# whatif get --model-threads N (REF and NEW may be one binary: the model on
# N threads against the serial model).
# Exit status: 0 identical; 1 something differed; 2 usage or setup failure.
set -uo pipefail

keep=0
[ "${1:-}" = "-k" ] && { keep=1; shift; }
[ $# -ge 2 ] || { sed -n '4,27p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
REF=$(realpath "$1")
NEW=$(realpath "$2")
REPO=$(cd "$(dirname "$0")/.." && pwd)
TRACES=$(realpath -m "${3:-$REPO/build-compare-traces}")
[ -x "$REF" ] && [ -x "$NEW" ] || { echo "compare_outputs: $REF or $NEW is not an executable" >&2; exit 2; }
command -v sqlite3 >/dev/null || { echo "compare_outputs: sqlite3 (the CLI) is needed to dump the exports" >&2; exit 2; }

# ---------------------------------------------------------------- traces --
# name source args (the bench's workloads, sized to seconds of replay)
WORKLOADS=(
	"arrays $REPO/examples/arrays.c 4"
	"randacc $REPO/bench/workloads/randacc.c 16 100000"
	"evloop $REPO/bench/workloads/evloop.c 2000000"
	"allocheavy $REPO/bench/workloads/allocheavy.c 20000"
)
BURSTS=2000,18000
mkdir -p "$TRACES" || exit 2
for w in "${WORKLOADS[@]}"; do
	read -r name src args <<<"$w"
	[ -f "$TRACES/$name.inst.data" ] && [ -f "$TRACES/$name.burst.data" ] && continue
	echo "compare_outputs: recording $name into $TRACES" >&2
	(cd "$TRACES" &&
		"$REF" cc -O2 -g -I"$REPO/include" "$src" -o "$name" -lm &&
		"$REF" record -q --no-pagemap -o "$name.inst.data" -- "./$name" $args >/dev/null &&
		"$REF" record -q --no-pagemap --sample-bursts "$BURSTS" -o "$name.burst.data" -- "./$name" $args >/dev/null) ||
		{ echo "compare_outputs: recording $name failed" >&2; exit 2; }
done
for g in "$REPO"/tests/golden/*.data; do
	cp -f "$g" "$TRACES/golden-$(basename "$g")" || exit 2
done

# ------------------------------------------------------------ the runs --
OUT=$(mktemp -d "${TMPDIR:-/tmp}/memprism-compare.XXXX")
# one command's outputs: NAME then the memprism arguments; FILE in them is
# the trace, @OUT@ an output path inside this run's directory
run() {
	local side=$1 bin=$2 name=$3
	shift 3
	local d="$OUT/$side" args=() a
	for a in "$@"; do args+=("${a//@OUT@/$d/$name.out}"); done
	# (MODEL_THREADS: the new side's model on threads, where it models)
	if [ "$side" = new ] && [ -n "${MODEL_THREADS:-}" ] &&
		{ [ "${args[0]}" = tlb ] || [ "${args[0]}" = whatif ] || [[ " ${args[*]} " == *" --model "* ]]; }; then
		args=("${args[0]}" --model-threads "$MODEL_THREADS" "${args[@]:1}")
	fi
	(cd "$TRACES" && "$bin" "${args[@]}" >"$d/$name.stdout" 2>"$d/$name.stderr"
	 echo $? >"$d/$name.rc")
}

MODELS=("" "--model haswell-e5-2680v3" "--model nehalem-e5504 --sample-sets 4" "--model host --numa 2x2")
tag() { local t=${1//--/}; t=${t// /_}; echo "${t:-plain}"; }

commands() { # side bin
	local s=$1 b=$2 t by f m mt
	for t in $(cd "$TRACES" && ls *.data); do
		local n=${t%.data}
		# every view in every format plain and modelled; the other
		# model settings in the object and function views
		for m in "${MODELS[@]}"; do
			mt=$(tag "$m")
			for by in object site kind thread function page; do
				for f in text csv json; do
					case "$m,$by" in ,* | "--model haswell"*) ;; *,object | *,function) ;; *) continue ;; esac
					# shellcheck disable=SC2086
					run "$s" "$b" "$n.report.$by.$f.$mt" report -q -n 0 --by $by --format $f $m "$t"
				done
			done
		done
		run "$s" "$b" "$n.report.replaybursts" report -q --model nehalem-e5504 --sample-bursts 500,4500 --format json "$t"
		run "$s" "$b" "$n.report.replaybursts.sets" report -q -n 0 --model haswell-e5-2680v3 --sample-bursts 500,4500 --sample-sets 8 "$t"
		run "$s" "$b" "$n.report.html" report -q --model nehalem-e5504 --html @OUT@ "$t"
		for f in text csv; do
			run "$s" "$b" "$n.tlb.$f" tlb -q -n 0 --model haswell-e5-2680v3 --format $f "$t"
			run "$s" "$b" "$n.tlb.2m.$f" tlb -q -n 0 --model nehalem-e5504 --pages 2M --format $f "$t"
			run "$s" "$b" "$n.whatif.pages.$f" whatif -q -n 0 --model haswell-e5-2680v3 --vs-pages 2M --format $f "$t"
			run "$s" "$b" "$n.whatif.model.$f" whatif -q -n 0 --model haswell-e5-2680v3 --vs-model opteron-6174 --format $f "$t"
		done
		run "$s" "$b" "$n.numa.text" numa -q -n 0 --numa 4x2 "$t"
		run "$s" "$b" "$n.numa.json" numa -q --numa 4x2 --model haswell-e5-2680v3 --format json "$t"
		run "$s" "$b" "$n.numa.interleave.json" numa -q --numa 2x4 --page-policy interleave --threads compact --format json "$t"
		for by in object site thread matrix timeline finding; do
			run "$s" "$b" "$n.numa.$by.csv" numa -q --numa 4x2 --by $by --format csv "$t"
		done
		run "$s" "$b" "$n.memtrace.csv" memtrace -q --model haswell-e5-2680v3 "$t"
		run "$s" "$b" "$n.memtrace.bin" memtrace -q --model nehalem-e5504 --format bin -o @OUT@ "$t"
		for f in text csv html; do
			run "$s" "$b" "$n.fold.$f" fold kernel -q --bins 8 --objects 0 --format $f "$t"
		done
		run "$s" "$b" "$n.export.sqlite" export -q --sqlite @OUT@ "$t"
		run "$s" "$b" "$n.export.binned" export -q --sqlite @OUT@ --binned "$t"
		run "$s" "$b" "$n.export.paraver" export -q --paraver @OUT@ "$t"
	done
}

mkdir -p "$OUT/ref" "$OUT/new"
commands ref "$REF" &
commands new "$NEW" &
wait
# a database's bytes carry nothing the comparison wants (page layout):
# its dump does
for side in ref new; do
	for db in "$OUT/$side"/*.export.sqlite.out "$OUT/$side"/*.export.binned.out; do
		[ -f "$db" ] || continue
		sqlite3 "$db" .dump >"$db.dump" && rm -f "$db"
	done
done
# Paraver's header line carries the date and time of the export
sed -i -E '1s/^#Paraver \([^)]*\)/#Paraver (DATE)/' "$OUT"/*/*.prv 2>/dev/null
# the paths of the side's own directory in the output
for side in ref new; do
	grep -rl "$OUT/$side" "$OUT/$side" 2>/dev/null | while read -r f; do
		sed -i "s#$OUT/$side#OUT#g" "$f"
	done
done
n=$(find "$OUT/ref" -type f | wc -l)
if diff -r -q "$OUT/ref" "$OUT/new" >"$OUT/differ.txt"; then
	echo "compare_outputs: identical: $n outputs of $(cd "$TRACES" && ls *.data | wc -l) traces"
	if [ $keep = 1 ]; then echo "outputs: $OUT"; else rm -rf "$OUT"; fi
	exit 0
fi
echo "compare_outputs: $(wc -l <"$OUT/differ.txt") of $n outputs differ (outputs kept in $OUT):"
head -20 "$OUT/differ.txt"
diff -r "$OUT/ref" "$OUT/new" | head -40
exit 1
