# Shared helpers for tests/cli/test_*.sh. Each test runs in its own scratch
# directory ($MP_SCRATCH), with $MEMPRISM the binary under test and $MP_SRC
# the source tree. `fail` stops the test with a message; `expect_eq` compares.
set -euo pipefail
: "${MEMPRISM:?MEMPRISM must name the memprism binary}"
: "${MP_SRC:?MP_SRC must name the source tree}"
: "${MP_SCRATCH:=$(mktemp -d)}"
rm -rf "$MP_SCRATCH"
mkdir -p "$MP_SCRATCH"
cd "$MP_SCRATCH"

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

expect_eq() { # what expected actual
	[ "$2" = "$3" ] || fail "$1: expected '$2', got '$3'"
	echo "ok: $1 = $3"
}

run() { # expected_status what command...: runs, keeps stdout/stderr in last.out/last.err
	local want=$1 what=$2 rc=0
	shift 2
	"$@" > last.out 2> last.err || rc=$?
	expect_eq "$what: exit status" "$want" "$rc"
}

said() { # what regex: stderr of the last run matches
	grep -qiE -- "$2" last.err || fail "$1: stderr does not match /$2/: $(cat last.err)"
	echo "ok: $1 says /$2/"
}

said_line() { # what line: stderr of the last run has this exact line (no pattern)
	grep -qxF -- "$2" last.err || fail "$1: stderr has no line '$2': $(cat last.err)"
	echo "ok: $1 says '$2'"
}

# sized FULL SMALL: FULL, or SMALL under the sanitizers (MP_SANITIZED=1,
# from tests/CMakeLists.txt), where the analysis runs several times slower.
# The heavy scripts size their inputs with it and derive every expected
# number from the size, so both sizes make the same checks.
sized() {
	if [ "${MP_SANITIZED:-0}" = 1 ]; then echo "$2"; else echo "$1"; fi
}

# sized_machine PRESET DIV: PRESET, or under the sanitizers a machine file
# of it with caches and TLBs DIV times smaller, for inputs DIV times
# smaller: the model's figures follow the footprints' ratio to each cache
# and TLB, which the two keep. (Lines and pages keep their sizes.)
sized_machine() {
	if [ "${MP_SANITIZED:-0}" != 1 ]; then
		echo "$1"
		return
	fi
	local f="./$1-div$2.machine"
	case $1 in
	nehalem-e5504)
		cat >"$f" <<-EOF
			name = $1/div$2
			sockets = 2
			cores = 4
			l1d.size = $((32 / $2))K
			l1d.ways = 8
			l1d.replacement = plru
			l1d.latency = 4
			l2.size = $((256 / $2))K
			l2.ways = 8
			l2.replacement = plru
			l2.latency = 10
			llc.size = $((4096 / $2))K
			llc.ways = 16
			llc.replacement = lru
			llc.inclusion = inclusive
			llc.latency = 38
			dtlb4k.entries = $((64 / $2))
			dtlb4k.ways = 4
			dtlb2m.entries = $((32 / $2))
			dtlb2m.ways = 4
			dtlb1g.entries = 0
			stlb.entries = $((512 / $2))
			stlb.ways = 4
			stlb.pages = 4k
			stlb.latency = 7
			dram.latency = 190
		EOF
		;;
	haswell-e5-2680v3)
		cat >"$f" <<-EOF
			name = $1/div$2
			sockets = 2
			cores = 12
			l1d.size = $((32 / $2))K
			l1d.ways = 8
			l1d.replacement = plru
			l1d.latency = 4
			l2.size = $((256 / $2))K
			l2.ways = 8
			l2.replacement = plru
			l2.latency = 12
			llc.size = $((30720 / $2))K
			llc.ways = 20
			llc.replacement = lru
			llc.inclusion = inclusive
			llc.latency = 36
			dtlb4k.entries = $((64 / $2))
			dtlb4k.ways = 4
			dtlb2m.entries = $((32 / $2))
			dtlb2m.ways = 4
			dtlb1g.entries = 4
			dtlb1g.ways = 4
			stlb.entries = $((1024 / $2))
			stlb.ways = 8
			stlb.pages = 4k, 2m
			stlb.latency = 9
			dram.latency = 220
		EOF
		;;
	*) fail "sized_machine: no geometry for $1" ;;
	esac
	echo "$f"
}

# small_machine FILE NAME ENTRIES: a machine file (FILE) named NAME of one
# socket of two cores, with a 32 KiB L1, a 256 KiB L2 and a 1 MiB LLC, and
# ENTRIES 4 KiB-page entries in the DTLB and in the STLB (4-way): small
# enough that a test program's arrays pass each cache and TLB.
small_machine() {
	cat >"$1" <<-EOF
		name = $2
		sockets = 1
		cores = 2
		line = 64
		l1d.size = 32K
		l1d.ways = 8
		l2.size = 256K
		l2.ways = 8
		llc.size = 1M
		llc.ways = 16
		dtlb4k.entries = $3
		dtlb4k.ways = 4
		dtlb2m.entries = 32
		dtlb2m.ways = 4
		stlb.entries = $3
		stlb.ways = 4
		stlb.pages = 4k,2m
	EOF
}

# Builds tests/rt/NAME.c (or .cc) with memprism cc into ./NAME.
build_rt() {
	local name=$1
	shift
	if [ -f "$MP_SRC/tests/rt/$name.cc" ]; then
		"$MEMPRISM" c++ -O2 -g "$MP_SRC/tests/rt/$name.cc" -o "$name" "$@"
	else
		"$MEMPRISM" cc -O2 -g "$MP_SRC/tests/rt/$name.c" -o "$name" "$@"
	fi
}

# csv_field FILE LABEL_REGEX COLUMN: the column (by CSV header name) of the
# first row whose first field matches the regex. Labels are quoted, and
# contain no commas in these tests.
# sum_col FILE COLUMN: the sum of a CSV column over its rows (labels
# without commas)
sum_col() {
	local c
	c=$(head -1 "$1" | tr , '\n' | grep -nx "$2" | cut -d: -f1)
	awk -F, -v c="$c" 'NR > 1 { s += $c } END { print s }' "$1"
}

csv_field() {
	awk -F, -v re="$2" -v col="$3" '
		NR == 1 { for (i = 1; i <= NF; i++) idx[$i] = i; next }
		{ lab = $1; gsub(/"/, "", lab); if (lab ~ re) { print $idx[col]; found = 1; exit } }
		END { if (!found) print "missing" }' "$1"
}

# The four processes of a job of tests/rt/numa_ranks.c, each its rank from
# PMI_RANK as MPICH's launchers set it (no mpirun needed), recorded into
# job/numa.R.data. After it, "${clean[@]}" runs a command without the other
# launchers' rank variables.
numa_ranks_job() {
	build_rt numa_ranks -pthread
	clean=(env -u OMPI_COMM_WORLD_RANK -u PMIX_RANK -u SLURM_PROCID)
	mkdir job
	local r
	for r in 0 1 2 3; do
		"${clean[@]}" PMI_RANK=$r PMI_SIZE=4 "$MEMPRISM" record -q -o 'job/numa.%r.data' -- ./numa_ranks
	done
}

# after_process FILE: the offset of the chunk after FILE's first process's
after_process() {
	local next
	next=$("$MEMPRISM" dump -q "$1" | awk '$2 == "chunk" && p && !n { n = substr($1, 2) } $2 == "chunk" && $4 == 2 { p = 1 } END { print n + 0 }')
	[ "$next" -gt 0 ] || fail "$1 has no chunk after its first process's"
	echo "$next"
}

# cut_short FILE OUT: FILE cut halfway through what follows its first
# process's chunk into OUT. (Halfway through the whole file may fall
# before that chunk, leaving no process to read: the launcher's chunks
# and the runtime's reach the file in an order that varies from run to run.)
cut_short() {
	local next size
	next=$(after_process "$1")
	size=$(stat -c %s "$1")
	head -c $(((next + size) / 2)) "$1" >"$2"
}
