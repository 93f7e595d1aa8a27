#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# memprism side-by-side overhead benchmark.
#
#   bash bench/run.sh [-n N] [--quick]
#
# Builds each workload natively and (if memprism is built) with `memprism cc`,
# then runs native, memprism and the peer tools round-robin N times so machine
# noise hits all of them alike, and prints per-pair overhead ratios
# (tool run i / native run i): median and min-max.
#
# Environment:
#   MEMPRISM   memprism binary (default: <repo>/build/bin/memprism)
#   BENCH_CC   native compiler (default: clang-16, else cc)
#   TMPDIR     where the scratch dir memprism-bench.XXXX goes (default /tmp)
#   KEEP=1     keep the scratch dir (traces, dhat/cachegrind/heaptrack files);
#              it is also kept whenever the script fails
#   BENCH_SAMPLE  bursts of the sampled model run, ON,OFF accesses
#              (default 100000,900000: record --sample-bursts, a tenth)
#   BENCH_SETS the sampled model's --sample-sets (default 16: 1 cache set in 16)
#   BENCH_WORKLOADS  which workloads, space-separated (default: all five;
#              arrays randacc evloop allocheavy smallobj)
#   BENCH_VARIANTS   which columns to run, space-separated titles as the
#              table shows them (default: all; the native runs always run):
#              e.g. "memprism mp-gcc mp-valgrind dhat"
#
# Exit status: 0 ok; 1 a checksum differed between native and memprism runs
# (a correctness bug); 2 usage; 3 memprism failed to build or run a workload.
# Nothing is installed: missing tools show as "n/a (not installed)".
set -euo pipefail

usage() {
	sed -n '4,26p' "$0" | sed 's/^# \{0,1\}//'
	exit "${1:-2}"
}

N=5
N_SET=0
QUICK=0
while (($#)); do
	case "$1" in
	-n)
		[[ $# -ge 2 && $2 =~ ^[1-9][0-9]*$ ]] || usage
		N=$2
		N_SET=1
		shift 2
		;;
	-n[1-9]*)
		N=${1#-n}
		[[ $N =~ ^[1-9][0-9]*$ ]] || usage
		N_SET=1
		shift
		;;
	--quick)
		QUICK=1
		shift
		;;
	-h | --help) usage 0 ;;
	*) usage ;;
	esac
done
# --quick: 3 runs (unless -n is given too) and only arrays + evloop.
if ((QUICK && !N_SET)); then
	N=3
fi
# The slowest tool (lackey, ~1000x even on 1/100 inputs) runs at most 3 times.
SLOW_N=$((N < 3 ? N : 3))

SAMPLE=${BENCH_SAMPLE:-100000,900000}
SETS=${BENCH_SETS:-16}
if ! [[ $SETS =~ ^[1-9][0-9]*$ ]]; then
	echo "bench/run.sh: BENCH_SETS wants a power of two, not '$SETS'" >&2
	exit 2
fi
if ! [[ $SAMPLE =~ ^[1-9][0-9]*,[1-9][0-9]*$ ]]; then
	echo "bench/run.sh: BENCH_SAMPLE wants ON,OFF (two access counts > 0), not '$SAMPLE'" >&2
	exit 2
fi

# Variants. "mp" = full trace of the instrumented binary; "mpalloc" = the
# native binary under memprism record (allocation tracking with stacks).
# BASE: which native run a variant's ratios are taken against.
ALL_VARIANTS=(native mp mpsancov mpgcc mpgcccalls mpmodel mpmodels norec norecgcc mpalloc mpalloc1 mpfaults mpvalgrind dhat cachegrind native_small lackey heaptrack)
declare -A TITLE BASE
TITLE=([native]="native" [mp]="memprism" [mpsancov]="mp-callbacks" [mpgcc]="mp-gcc" [mpgcccalls]="mp-gcc-calls" [mpmodel]="mp+model" [mpmodels]="mp+model(s)" [mpfaults]="mp-faults" [mpvalgrind]="mp-valgrind" [norec]="not-recorded" [norecgcc]="gcc-not-recorded" [mpalloc]="mp-alloc" [mpalloc1]="mp-alloc(1 frame)" [dhat]="dhat"
	[cachegrind]="cachegrind" [native_small]="native(1/100)" [lackey]="lackey(1/100)"
	[heaptrack]="heaptrack")
BASE=([mp]=native [mpsancov]=native [mpgcc]=native [mpgcccalls]=native [mpmodel]=native [mpmodels]=native [mpfaults]=native [mpvalgrind]=native [norec]=native [norecgcc]=native [mpalloc]=native [mpalloc1]=native [dhat]=native [cachegrind]=native
	[lackey]=native_small [heaptrack]=native)

# BENCH_VARIANTS: the titles asked for (the native runs are every ratio's base)
declare -A ASKED
if [[ -n ${BENCH_VARIANTS:-} ]]; then
	read -ra asked <<<"$BENCH_VARIANTS"
	for t in "${asked[@]}"; do
		found=0
		for v in "${ALL_VARIANTS[@]}"; do
			[[ ${TITLE[$v]} == "$t" ]] && ASKED[$v]=1 && found=1
		done
		((found)) || { echo "bench/run.sh: unknown column '$t' in BENCH_VARIANTS" >&2; exit 2; }
	done
	ASKED[native]=1
	[[ -n ${ASKED[lackey]:-} ]] && ASKED[native_small]=1
fi
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
MEMPRISM=${MEMPRISM:-$REPO/build/bin/memprism}
SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/memprism-bench.XXXX")
# reports' cache of inflated debug files (libc6-dbg's, when installed): the
# first report of round 1 fills it, later ones read it, as a user's do
export MEMPRISM_CACHE_DIR=$SCRATCH/cache
# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
	local rc=$?
	if [[ ${KEEP:-0} == 1 || $rc != 0 ]]; then
		echo "scratch kept: $SCRATCH" >&2
	else
		rm -rf -- "$SCRATCH"
	fi
}
trap cleanup EXIT
mkdir -p "$SCRATCH/bin" "$SCRATCH/out" "$SCRATCH/times" "$SCRATCH/log"

if [[ -n ${BENCH_CC:-} ]]; then
	NATIVE_CC=$BENCH_CC
elif command -v clang-16 >/dev/null; then
	NATIVE_CC=clang-16
else
	NATIVE_CC=cc
fi

have() { command -v "$1" >/dev/null 2>&1; }
HAVE_MP=0
[[ -x $MEMPRISM ]] && HAVE_MP=1
HAVE_VG=0
have valgrind && HAVE_VG=1
HAVE_HT=0
have heaptrack && HAVE_HT=1
# record --source valgrind: valgrind and memprism's Valgrind tool
HAVE_MPVG=0
((HAVE_MP && HAVE_VG)) && "$MEMPRISM" doctor 2>/dev/null | grep -q '^  valgrind works:' && HAVE_MPVG=1

# Wall clock in seconds with ns digits, without forking when bash has it.
now() {
	if [[ -n ${EPOCHREALTIME:-} ]]; then
		printf '%s\n' "${EPOCHREALTIME/,/.}"
	else
		date +%s.%N
	fi
}

# ---------------------------------------------------------------- machine --
echo "== memprism benchmark =="
echo "machine : $(nproc) CPUs, $(grep -m1 '^model name' /proc/cpuinfo | sed 's/.*: //'), kernel $(uname -r)"
echo "native  : $NATIVE_CC -O2 -g ($("$NATIVE_CC" --version | head -1))"
if ((HAVE_MP)); then
	echo "memprism: $MEMPRISM"
else
	echo "memprism: memprism not built ($MEMPRISM missing): memprism columns skipped"
fi
echo "valgrind: $( ((HAVE_VG)) && valgrind --version || echo 'not installed')"
echo "heaptrack: $( ((HAVE_HT)) && heaptrack --version 2>&1 | head -1 || echo 'not installed')"
echo "runs    : N=$N per tool (lackey: $SLOW_N), round-robin; scratch $SCRATCH"
echo

# -------------------------------------------------------------- workloads --
if [[ -n ${BENCH_WORKLOADS:-} ]]; then
	read -ra WORKLOADS <<<"$BENCH_WORKLOADS"
elif ((QUICK)); then
	WORKLOADS=(arrays evloop)
else
	WORKLOADS=(arrays randacc evloop allocheavy smallobj)
fi
declare -A SRC ARGS SMALL LIBS
SRC[arrays]=$REPO/examples/arrays.c
ARGS[arrays]="64"
SMALL[arrays]="1" # 1/64: arrays takes whole MiB
LIBS[arrays]="-lpthread"
SRC[randacc]=$REPO/bench/workloads/randacc.c
ARGS[randacc]="256 20000000"
SMALL[randacc]="4 200000" # table 1/64 (stays a power of two), updates 1/100
LIBS[randacc]=""
SRC[evloop]=$REPO/bench/workloads/evloop.c
ARGS[evloop]="800000000"
SMALL[evloop]="8000000" # 1/100
LIBS[evloop]=""
SRC[allocheavy]=$REPO/bench/workloads/allocheavy.c
ARGS[allocheavy]="2000000"
SMALL[allocheavy]="20000" # 1/100
LIBS[allocheavy]=""
SRC[smallobj]=$REPO/bench/workloads/smallobj.c
ARGS[smallobj]="1000000 4000000"
SMALL[smallobj]="10000 40000" # 1/100
LIBS[smallobj]=""
for w in "${WORKLOADS[@]}"; do
	[[ -n ${SRC[$w]:-} ]] || { echo "bench/run.sh: unknown workload '$w' in BENCH_WORKLOADS" >&2; exit 2; }
done

# STATUS[w.v]: "" = runs; otherwise the reason it does not (shown in its cell).
declare -A STATUS
MP_FAIL=0
applies() { # workload variant -> 0 if the variant is part of this workload
	case "$2" in
	mpalloc | mpalloc1 | heaptrack) [[ $1 == allocheavy ]] ;;
	*) return 0 ;;
	esac
}
runs_for() { # variant -> how many runs
	case "$1" in
	lackey | native_small) echo "$SLOW_N" ;;
	*) echo "$N" ;;
	esac
}

# build_mp WORKLOAD SUFFIX WHAT INSTRUMENT COMPILER VARIANT...: the
# workload built by `memprism COMPILER` (MEMPRISM_INSTRUMENT=INSTRUMENT when
# given) into bin/WORKLOAD.SUFFIX; if that fails, the VARIANTs that run it
# say so and the script's status says it.
build_mp() {
	local w=$1 suffix=$2 what=$3 instrument=$4 compiler=$5 v
	shift 5
	read -ra libs <<<"${LIBS[$w]}"
	if env ${instrument:+MEMPRISM_INSTRUMENT=$instrument} "$MEMPRISM" "$compiler" -O2 -g -I"$REPO/include" \
		"${SRC[$w]}" -o "$SCRATCH/bin/$w.$suffix" "${libs[@]}" >"$SCRATCH/log/$w.$suffix.build" 2>&1; then
		echo "built $w.$suffix ($what)"
	else
		echo "ERROR: $what failed for $w (log below)" >&2
		sed 's/^/    /' "$SCRATCH/log/$w.$suffix.build" | tail -20 >&2
		for v in "$@"; do STATUS[$w.$v]="build failed"; done
		MP_FAIL=1
	fi
}

echo "== build =="
for w in "${WORKLOADS[@]}"; do
	read -ra libs <<<"${LIBS[$w]}"
	"$NATIVE_CC" -O2 -g -I"$REPO/include" "${SRC[$w]}" -o "$SCRATCH/bin/$w.native" "${libs[@]}"
	echo "built $w.native"
	for v in "${ALL_VARIANTS[@]}"; do
		if ! applies "$w" "$v" || [[ -n ${BENCH_VARIANTS:-} && -z ${ASKED[$v]:-} ]]; then
			STATUS[$w.$v]="-"
			continue
		fi
		STATUS[$w.$v]=""
		case "$v" in
		mp | mpsancov | mpgcc | mpgcccalls | mpmodel | mpmodels | norec | norecgcc | mpalloc | mpalloc1 | mpfaults) ((HAVE_MP)) || STATUS[$w.$v]="n/a (memprism not built)" ;;
		mpvalgrind) ((HAVE_MPVG)) || STATUS[$w.$v]="n/a (no valgrind source)" ;;
		dhat | cachegrind | lackey | native_small) ((HAVE_VG)) || STATUS[$w.$v]="n/a (not installed)" ;;
		heaptrack) ((HAVE_HT)) || STATUS[$w.$v]="n/a (not installed)" ;;
		esac
	done
	if ((HAVE_MP)); then
		build_mp "$w" inst "memprism cc" "" cc mp mpmodel mpmodels norec
		# the same, with sanitizer-coverage callbacks instead of inline code
		build_mp "$w" sancov "memprism cc, MEMPRISM_INSTRUMENT=sancov" sancov cc mpsancov
		# the same with gcc (memprism gcc: its GCC plugin where it was built),
		# and with gcc's ThreadSanitizer calls into the runtime
		build_mp "$w" gcc "memprism gcc" "" gcc mpgcc norecgcc
		build_mp "$w" gcccalls "memprism gcc, MEMPRISM_INSTRUMENT=sancov" sancov gcc mpgcccalls
	fi
done
echo

# -------------------------------------------------------------------- run --
# run_variant workload variant round: runs once, appends the wall time (or
# FAIL) to times/w.v and keeps the program's stdout in log/w.v.round.out.
run_variant() {
	local w=$1 v=$2 i=$3
	local bin=$SCRATCH/bin/$w.native out=$SCRATCH/log/$w.$v.$i.out err=$SCRATCH/log/$w.$v.err
	local -a args cmd
	read -ra args <<<"${ARGS[$w]}"
	case "$v" in
	native) cmd=("$bin" "${args[@]}") ;;
	native_small)
		read -ra args <<<"${SMALL[$w]}"
		cmd=("$bin" "${args[@]}")
		;;
	mp)
		rm -rf -- "$SCRATCH/out/$w.mp.data"
		cmd=("$MEMPRISM" record -o "$SCRATCH/out/$w.mp.data" -- "$SCRATCH/bin/$w.inst" "${args[@]}")
		;;
	mpsancov)
		rm -rf -- "$SCRATCH/out/$w.mps.data"
		cmd=("$MEMPRISM" record -o "$SCRATCH/out/$w.mps.data" -- "$SCRATCH/bin/$w.sancov" "${args[@]}")
		;;
	mpgcc)
		rm -rf -- "$SCRATCH/out/$w.mpgcc.data"
		cmd=("$MEMPRISM" record -o "$SCRATCH/out/$w.mpgcc.data" -- "$SCRATCH/bin/$w.gcc" "${args[@]}")
		;;
	mpgcccalls)
		rm -rf -- "$SCRATCH/out/$w.mpgcccalls.data"
		cmd=("$MEMPRISM" record -o "$SCRATCH/out/$w.mpgcccalls.data" -- "$SCRATCH/bin/$w.gcccalls" "${args[@]}")
		;;
	mpmodel)
		# record, then the model over the trace (report --model host):
		# what it costs to get modelled figures, as cachegrind gives them
		rm -rf -- "$SCRATCH/out/$w.mpm.data"
		cmd=("$MEMPRISM" record -o "$SCRATCH/out/$w.mpm.data" -- "$SCRATCH/bin/$w.inst" "${args[@]}")
		;;
	mpmodels)
		# the same in bounded mode: sampled bursts, the model on those only
		rm -rf -- "$SCRATCH/out/$w.mpms.data"
		cmd=("$MEMPRISM" record --sample-bursts "$SAMPLE" -o "$SCRATCH/out/$w.mpms.data" -- "$SCRATCH/bin/$w.inst"
			"${args[@]}")
		;;
	norec) cmd=("$SCRATCH/bin/$w.inst" "${args[@]}") ;; # built by memprism cc, not recorded
	norecgcc) cmd=("$SCRATCH/bin/$w.gcc" "${args[@]}") ;; # built by memprism gcc, not recorded
	mpfaults)
		# the native binary, page faults sampled (first touch of every page)
		rm -rf -- "$SCRATCH/out/$w.mpfaults.data"
		cmd=("$MEMPRISM" record --source faults -o "$SCRATCH/out/$w.mpfaults.data" -- "$bin" "${args[@]}")
		;;
	mpalloc)
		rm -rf -- "$SCRATCH/out/$w.mpalloc.data"
		cmd=("$MEMPRISM" record -o "$SCRATCH/out/$w.mpalloc.data" -- "$bin" "${args[@]}")
		;;
	mpalloc1)
		# the same with one frame per stack: the difference is the stack walk
		rm -rf -- "$SCRATCH/out/$w.mpalloc1.data"
		cmd=("$MEMPRISM" record --stack-depth 1 -o "$SCRATCH/out/$w.mpalloc1.data" -- "$bin" "${args[@]}")
		;;
	mpvalgrind)
		# the native binary under memprism's Valgrind tool: every access
		# of the program and its libraries, as DHAT and Cachegrind see them
		rm -rf -- "$SCRATCH/out/$w.mpvg.data"
		cmd=("$MEMPRISM" record --source valgrind -o "$SCRATCH/out/$w.mpvg.data" -- "$bin" "${args[@]}")
		;;
	dhat) cmd=(valgrind --tool=dhat --dhat-out-file="$SCRATCH/out/$w.dhat.out" "$bin" "${args[@]}") ;;
	cachegrind)
		cmd=(valgrind --tool=cachegrind --cache-sim=yes
			--cachegrind-out-file="$SCRATCH/out/$w.cachegrind.out" "$bin" "${args[@]}")
		;;
	lackey)
		# The trace goes to valgrind's log: straight to /dev/null.
		read -ra args <<<"${SMALL[$w]}"
		cmd=(valgrind --tool=lackey --trace-mem=yes --log-file=/dev/null "$bin" "${args[@]}")
		;;
	heaptrack)
		rm -f -- "$SCRATCH/out/$w.heaptrack"*
		cmd=(heaptrack -o "$SCRATCH/out/$w.heaptrack" "$bin" "${args[@]}")
		;;
	esac
	local t0 t1 rc=0
	t0=$(now)
	"${cmd[@]}" >"$out" 2>>"$err" </dev/null || rc=$?
	t1=$(now)
	if [[ $v == mpvalgrind && -e $SCRATCH/out/$w.mpvg.data ]]; then
		# its raw trace (3 GB on evloop): kept only as big as the last one
		stat -c %s "$SCRATCH/out/$w.mpvg.data" >"$SCRATCH/times/$w.mpvg.bytes"
		rm -f -- "$SCRATCH/out/$w.mpvg.data"
	fi
	if ((rc != 0)); then
		echo "FAIL" >>"$SCRATCH/times/$w.$v"
		printf '  [%d] %-10s %-14s FAILED (exit %d; see %s)\n' "$i" "$w" "${TITLE[$v]}" "$rc" "$err"
		tail -5 "$err" | sed 's/^/        /'
		if [[ $v == mp || $v == mpgcc || $v == mpgcccalls || $v == mpalloc || $v == mpalloc1 || $v == mpfaults || $v == mpvalgrind ]]; then
			STATUS[$w.$v]="run failed"
			MP_FAIL=1
		fi
		return 0
	fi
	if [[ $v == mpmodel || $v == mpmodels ]]; then
		# the model's share, timed on its own for the throughput figure
		local t2 d=$SCRATCH/out/$w.mpm sets=()
		[[ $v == mpmodels ]] && d=$SCRATCH/out/$w.mpms && sets=(--sample-sets "$SETS")
		if ! cpu_timed "$SCRATCH/times/.cpu" "$MEMPRISM" report --model host "${sets[@]}" --format json "$d.data" \
			>"$d.json" 2>>"$err"; then
			echo "FAIL" >>"$SCRATCH/times/$w.$v"
			printf '  [%d] %-10s %-14s report --model FAILED (see %s)\n' "$i" "$w" "${TITLE[$v]}" "$err"
			STATUS[$w.$v]="run failed"
			MP_FAIL=1
			return 0
		fi
		t2=$(now)
		if [[ $v == mpmodel ]]; then
			awk -v a="$t1" -v b="$t2" 'BEGIN { printf "%.4f\n", b - a }' >>"$SCRATCH/times/$w.modelonly"
			cat "$SCRATCH/times/.cpu" >>"$SCRATCH/times/$w.modelonly.cpu"
		else
			# the bounded trace's re-simulation, per CPU second
			cat "$SCRATCH/times/.cpu" >>"$SCRATCH/times/$w.modelbounded.cpu"
		fi
		t1=$t2
		if [[ $v == mpmodel ]]; then
			# the same trace with set sampling, timed apart (not in the
			# mp+model column): its offline rate, and its estimates
			time_apart "$w.modelsets" "$d.sets.json" --model host --sample-sets "$SETS"
			# with bursts dropped at replay too (as record --sample-bursts
			# would have): the fastest re-simulation of a full trace
			time_apart "$w.modelreplay" "$d.replay.json" --model host --sample-bursts "$SAMPLE" --sample-sets "$SETS"
			# and the report without the model: the replay and attribution
			# that every report --model also pays for (its rate bounds the
			# model's offline rate)
			time_apart "$w.reportplain" "$d.plain.json"
		fi
	fi
	local t
	t=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", b - a }')
	echo "$t" >>"$SCRATCH/times/$w.$v"
	printf '  [%d] %-10s %-14s %8.3f s\n' "$i" "$w" "${TITLE[$v]}" "$t"
}

# cpu_timed FILE CMD...: runs CMD (its redirections the caller's), its CPU
# seconds (user + system, all its threads) written to FILE; CMD's status.
# A report loads symbols on a second thread while it replays: per core, an
# offline rate is accesses over CPU time, not over wall time.
cpu_timed() {
	local f=$1 rc=0 TIMEFORMAT='%3U %3S'
	shift
	{ time "$@" 2>&3; } 3>&2 2>"$f.raw" || rc=$?
	awk '{ printf "%.4f\n", $1 + $2 }' "$f.raw" >"$f"
	return $rc
}

# time_apart TIMES OUT ARGS...: memprism report ARGS --format json on the
# round's full trace (d, err from the caller), its wall time appended to
# times/TIMES and its CPU time to times/TIMES.cpu, its output in OUT
time_apart() {
	local times=$1 out=$2 s0 s1
	shift 2
	s0=$(now)
	if cpu_timed "$SCRATCH/times/.cpu" "$MEMPRISM" report "$@" --format json "$d.data" >"$out" 2>>"$err"; then
		s1=$(now)
		awk -v a="$s0" -v b="$s1" 'BEGIN { printf "%.4f\n", b - a }' >>"$SCRATCH/times/$times"
		cat "$SCRATCH/times/.cpu" >>"$SCRATCH/times/$times.cpu"
	fi
}

# One untimed native run per workload first, so round 1 does not pay for cold
# page cache / first-touch effects that the later rounds do not see.
echo "== warm-up (untimed) =="
for w in "${WORKLOADS[@]}"; do
	read -ra args <<<"${ARGS[$w]}"
	"$SCRATCH/bin/$w.native" "${args[@]}" </dev/null
done
echo

echo "== runs (round-robin) =="
for ((i = 1; i <= N; i++)); do
	for w in "${WORKLOADS[@]}"; do
		for v in "${ALL_VARIANTS[@]}"; do
			[[ -z ${STATUS[$w.$v]} ]] || continue
			((i <= $(runs_for "$v"))) || continue
			run_variant "$w" "$v" "$i"
		done
	done
done
echo

# ------------------------------------------------------------------ stats --
# Prints "median min max" of the numbers on stdin (FAIL lines skipped).
stats() {
	sort -g | awk '$1 != "FAIL" { v[n++] = $1 }
		END { if (!n) exit 1
		      m = n % 2 ? v[(n - 1) / 2] : (v[n / 2 - 1] + v[n / 2]) / 2
		      printf "%s %s %s\n", m, v[0], v[n - 1] }'
}
# Per-pair ratios of variant v against its base: line i / line i.
ratios() {
	paste -d' ' "$SCRATCH/times/$1.$2" "$SCRATCH/times/$1.${BASE[$2]}" |
		awk 'NF == 2 && $1 != "FAIL" && $2 != "FAIL" && $2 > 0 { printf "%.6f\n", $1 / $2 }'
}
# cpu_rate TIMES TOTAL: TOTAL accesses over the median CPU seconds in
# times/TIMES.cpu, as the table shows it ("-" without them)
cpu_rate() {
	local c
	if [[ -s $SCRATCH/times/$1.cpu ]] && read -r c _ _ < <(stats <"$SCRATCH/times/$1.cpu"); then
		awk -v t="$2" -v s="$c" 'BEGIN { printf "%.1fM/s", (s > 0 ? t / s / 1e6 : 0) }'
	else
		printf -- '-'
	fi
}
checksum_of() { { grep -o 'checksum [-0-9]*' "$1" 2>/dev/null || true; } | tail -1 | cut -d' ' -f2; }

# Total accesses from `memprism report --format json` (docs/report-formats.md,
# schema memprism-report-1: .total.accesses), if it gives one.
report_total() {
	local json=$SCRATCH/out/$1.report.json
	"$MEMPRISM" report --format json "$SCRATCH/out/$1.mp.data" >"$json" 2>"$SCRATCH/log/$1.report.err" || return 1
	have jq || return 1
	jq -r '.total.accesses // empty' "$json" 2>/dev/null | grep -E '^[0-9]+$'
}

CKSUM_FAIL=0
declare -A CELL
echo "== results =="
for w in "${WORKLOADS[@]}"; do
	read -r nmed nmin nmax < <(stats <"$SCRATCH/times/$w.native") || {
		echo "$w: native runs all failed" >&2
		exit 3
	}
	printf '%s  (args: %s)\n' "$w" "${ARGS[$w]}"
	printf '  %-15s median %.3f s  (min %.3f, max %.3f, %d runs)\n' native "$nmed" "$nmin" "$nmax" "$N"
	CELL[$w.native]=$(printf '%.2f' "$nmed")

	# Checksums: every native run must agree; memprism must match native.
	ref=$(checksum_of "$SCRATCH/log/$w.native.1.out")
	for f in "$SCRATCH/log/$w".*.out; do
		v=${f#"$SCRATCH/log/$w."}
		v=${v%.*.out}
		[[ $v == native_small || $v == lackey ]] && continue # different input
		c=$(checksum_of "$f")
		[[ $c == "$ref" ]] && continue
		run_n=${f%.out}
		run_n=${run_n##*.}
		# A failed run has already been reported as failed.
		[[ $(sed -n "${run_n}p" "$SCRATCH/times/$w.$v") == FAIL ]] && continue
		case "$v" in
		native | mp | mpsancov | mpgcc | mpgcccalls | mpmodel | mpmodels | norec | norecgcc | mpalloc | mpalloc1 | mpfaults | mpvalgrind)
			echo "  CHECKSUM MISMATCH: $w ${TITLE[$v]} run $run_n printed '${c:-<none>}', native run 1 printed '$ref'" >&2
			CKSUM_FAIL=1
			STATUS[$w.$v]="CHECKSUM MISMATCH"
			;;
		*) echo "  warning: $w under ${TITLE[$v]} run $run_n printed checksum '${c:-<none>}' (native: '$ref')" >&2 ;;
		esac
	done

	for v in "${ALL_VARIANTS[@]}"; do
		[[ $v == native ]] && continue
		if [[ $v == native_small ]]; then
			[[ -z ${STATUS[$w.lackey]} ]] || continue
			if read -r smed _ _ < <(stats <"$SCRATCH/times/$w.native_small"); then
				printf '  %-15s median %.4f s on args "%s" (the input lackey runs on)\n' \
					"${TITLE[$v]}" "$smed" "${SMALL[$w]}"
			fi
			continue
		fi
		st=${STATUS[$w.$v]}
		if [[ -n $st ]]; then
			CELL[$w.$v]=$st
			[[ $st == - ]] || printf '  %-15s %s\n' "${TITLE[$v]}" "$st"
			continue
		fi
		if read -r rmed rmin rmax < <(ratios "$w" "$v" | stats); then
			nr=$(ratios "$w" "$v" | wc -l)
			CELL[$w.$v]=$(awk -v m="$rmed" 'BEGIN { printf(m < 10 ? "%.2fx" : "%.1fx", m) }')
			printf '  %-15s %s  (per-pair ratios min %.2fx, max %.2fx, %d pairs)\n' \
				"${TITLE[$v]}" "${CELL[$w.$v]}" "$rmin" "$rmax" "$nr"
		else
			CELL[$w.$v]="failed"
			printf '  %-15s all runs failed\n' "${TITLE[$v]}"
		fi
	done

	total=""
	if [[ -z ${STATUS[$w.mp]} && -e $SCRATCH/out/$w.mp.data ]]; then
		bytes=$(du -sb "$SCRATCH/out/$w.mp.data" | cut -f1)
		if total=$(report_total "$w"); then
			printf '  %-15s %d bytes for %d accesses = %.3f bytes/access\n' "trace size" \
				"$bytes" "$total" "$(awk -v b="$bytes" -v t="$total" 'BEGIN { print (t ? b / t : 0) }')"
		else
			printf '  %-15s %d bytes (bytes/access skipped: no access total from memprism report --format json)\n' \
				"trace size" "$bytes"
		fi
		if [[ -n ${total:-} && -s $SCRATCH/times/$w.modelonly ]] &&
			read -r mmed _ _ < <(stats <"$SCRATCH/times/$w.modelonly"); then
			printf '  %-15s %.2f s median for %d accesses = %.1f M accesses/s (report --model host: replay, attribution and model)\n' \
				"model offline" "$mmed" "$total" "$(awk -v t="$total" -v s="$mmed" 'BEGIN { print t / s / 1e6 }')"
			CELL[$w.modelrate]=$(cpu_rate "$w.modelonly" "$total")
			printf '  %-15s %s per CPU second (user + system, every thread: two with the model by default)\n' "" "${CELL[$w.modelrate]}"
		fi
		# the other offline runs of the full trace: times, column, label, what
		for r in "reportplain|reportrate|report offline|report without a model: replay and attribution" \
			"modelsets|setsrate|model 1/$SETS sets|report --model host --sample-sets $SETS" \
			"modelreplay|replayrate|model replayed|report --model host --sample-bursts $SAMPLE --sample-sets $SETS"; do
			IFS='|' read -r tf col label what <<<"$r"
			if [[ -n ${total:-} && -s $SCRATCH/times/$w.$tf ]] &&
				read -r rmed _ _ < <(stats <"$SCRATCH/times/$w.$tf"); then
				printf '  %-15s %.2f s median = %.1f M accesses/s (%s)\n' \
					"$label" "$rmed" "$(awk -v t="$total" -v s="$rmed" 'BEGIN { print t / s / 1e6 }')" "$what"
				CELL[$w.$col]=$(cpu_rate "$w.$tf" "$total")
				printf '  %-15s %s per CPU second\n' "" "${CELL[$w.$col]}"
			fi
		done
		# the bounded trace's report (mp+model(s)'s second half): the
		# program's accesses, which its bursts stand for, per CPU second
		if [[ -n ${total:-} && -s $SCRATCH/times/$w.modelbounded.cpu ]]; then
			CELL[$w.boundrate]=$(cpu_rate "$w.modelbounded" "$total")
			printf '  %-15s %s per CPU second (report --model host --sample-sets %s of the trace recorded in bursts)\n' \
				"model bounded" "${CELL[$w.boundrate]}" "$SETS"
		fi
	fi
	if [[ -s $SCRATCH/times/$w.mpvg.bytes ]]; then
		printf '  %-15s %s bytes (compressed by the launcher, last round)\n' "mp-valgrind trace" "$(cat "$SCRATCH/times/$w.mpvg.bytes")"
	fi
	# how far the sampled models' estimates are from the full model's (last round)
	for sm in "sets:mpm.sets" "replayed:mpm.replay" "model(s):mpms"; do
		if have jq && [[ -s $SCRATCH/out/$w.mpm.json && -s $SCRATCH/out/$w.${sm#*:}.json ]]; then
			for k in dram_reads dram_writes tlb.walks; do
				f=$(jq -r ".total.mem.$k" "$SCRATCH/out/$w.mpm.json")
				e=$(jq -r ".total.mem.$k" "$SCRATCH/out/$w.${sm#*:}.json")
				printf '  %-15s %-11s %12s estimated, %12s in full (%s)\n' "${sm%%:*} error" "$k" "$e" "$f" \
					"$(awk -v e="$e" -v f="$f" 'BEGIN { if (f > 0) printf "%+.1f%%", 100 * (e - f) / f; else print "-" }')"
			done
		fi
	done
done
echo

# ------------------------------------------------------------ final table --
COLS=(native mp mpsancov mpgcc mpgcccalls mpmodel mpmodels reportrate modelrate setsrate replayrate boundrate norec norecgcc mpalloc mpalloc1 mpfaults mpvalgrind dhat cachegrind lackey heaptrack)
TITLE[reportrate]="report acc/cpu-s"
TITLE[modelrate]="model acc/cpu-s"
TITLE[setsrate]="model(1/$SETS) acc/cpu-s"
TITLE[replayrate]="model(b) acc/cpu-s"
TITLE[boundrate]="model(s) acc/cpu-s"
{
	printf 'workload'
	for v in "${COLS[@]}"; do
		[[ $v == native ]] && printf '\tnative(s)' || printf '\t%s' "${TITLE[$v]}"
	done
	printf '\n'
	for w in "${WORKLOADS[@]}"; do
		printf '%s' "$w"
		for v in "${COLS[@]}"; do printf '\t%s' "${CELL[$w.$v]:--}"; done
		printf '\n'
	done
} | awk -F'\t' '{ for (i = 1; i <= NF; i++) { c[NR, i] = $i; if (length($i) > w[i]) w[i] = length($i) } n = NR; nf = NF }
	END { for (r = 1; r <= n; r++) { line = ""
	        for (i = 1; i <= nf; i++) line = line sprintf(i == 1 ? "%-*s" : "  %*s", w[i], c[r, i])
	        print line } }'
echo
echo "Ratios are medians of per-pair ratios (tool run i / native run i, wall time)."
echo "memprism = full access trace of the memprism-cc build (inline instrumentation);"
echo "mp-callbacks = the same with MEMPRISM_INSTRUMENT=sancov (a callback per access);"
echo "mp-gcc = the same built by memprism gcc (memprism's GCC plugin: inline, where it was built);"
echo "mp-gcc-calls = the same with MEMPRISM_INSTRUMENT=sancov (gcc's ThreadSanitizer calls, a call per access);"
echo "mp-alloc = native binary under memprism record (allocation tracking with call stacks);"
echo "mp-alloc(1 frame) = the same with --stack-depth 1: the difference is the unwinding."
echo "not-recorded = the memprism-cc build run on its own (what the instrumentation costs when"
echo "nobody records); gcc-not-recorded = the same for the memprism gcc build."
echo "lackey(1/100) runs on scaled-down inputs (arrays 1 MiB = 1/64, randacc 4 MiB table = 1/64"
echo "with 1/100 updates, evloop, allocheavy and smallobj 1/100) and is compared with native on the same"
echo "scaled input, whose run time is mostly process start-up: treat it as an order of magnitude."
echo "mp+model = memprism record, then memprism report --model host on the trace (cache, TLB and"
echo "page-walk model); cachegrind --cache-sim=yes models caches only (no TLB, no objects)."
echo "model acc/s = recorded accesses / time of report --model alone; model(1/$SETS) acc/s the"
echo "same with --sample-sets $SETS (caches modelled for 1 set in $SETS, \"sets error\" above);"
echo "model(b) acc/s = the same with --sample-bursts $SAMPLE --sample-sets $SETS at replay: the full"
echo "trace's accesses dropped as record --sample-bursts would have (\"replayed error\" above)."
echo "report acc/s = the same trace's report without a model (the replay every model run includes)."
echo "model(s) acc/s = the program's accesses (the full trace's) / CPU time of report --model host"
echo "--sample-sets $SETS on the trace recorded with --sample-bursts $SAMPLE (mp+model(s)'s report)."
echo "mp+model(s) = the same in bounded mode: record --sample-bursts $SAMPLE, then the model on the"
echo "sampled bursts only and with --sample-sets $SETS, figures scaled (\"model(s) error\" above:"
echo "against the full model)."
echo "mp-faults = the native binary under memprism record --source faults (every page fault"
echo "sampled with its address, thread, CPU and code: first-touch placement)."
echo "mp-valgrind = the native binary under memprism record --source valgrind (every load and store"
echo "of the program and its libraries by memprism's Valgrind tool, objects by the runtime)."
echo "target (valgrind source): at or below dhat's ratio."
echo "targets (full trace): arrays <= 1.3x, randacc <= 2.5x, evloop <= 10x; alloc tracking <= 1.5x."
echo "targets (model): arrays <= 2x, randacc <= 4x, evloop <= 15x; offline model >= 50M accesses/s."
echo "target (many small objects): smallobj's report acc/s >= 20M (lookups among a million blocks)."

# What a call stack costs per allocation: memprism's unwinding (mp-alloc
# against mp-alloc with one frame) next to heaptrack's whole cost per
# malloc/free pair (its unwinding and its writing) over the native run.
median_of() { [[ -s $SCRATCH/times/$1 ]] && stats <"$SCRATCH/times/$1" | cut -d' ' -f1; }
if [[ " ${WORKLOADS[*]} " == *" allocheavy "* ]]; then
	allocs=${ARGS[allocheavy]}
	a=$(median_of allocheavy.mpalloc || true) a1=$(median_of allocheavy.mpalloc1 || true)
	h=$(median_of allocheavy.heaptrack || true) n0=$(median_of allocheavy.native || true)
	if [[ -n $a && -n $a1 ]]; then
		awk -v a="$a" -v b="$a1" -v n="$allocs" 'BEGIN { printf "allocation stacks (allocheavy): %.0f ns per allocation for the call stack (mp-alloc - mp-alloc(1 frame), medians)\n", (a - b) / n * 1e9 }'
	fi
	if [[ -n $h && -n $n0 ]]; then
		awk -v a="$h" -v b="$n0" -v n="$allocs" 'BEGIN { printf "heaptrack (allocheavy): %.0f ns per malloc/free pair over native (its stacks, writing and interpreting)\n", (a - b) / n * 1e9 }'
	fi
fi

if ((CKSUM_FAIL)); then
	echo "FAIL: checksum mismatch between native and memprism runs (see above)" >&2
	exit 1
fi
if ((MP_FAIL)); then
	echo "FAIL: memprism failed to build or run a workload (see above)" >&2
	exit 3
fi
exit 0
