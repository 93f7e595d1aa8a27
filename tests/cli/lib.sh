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
