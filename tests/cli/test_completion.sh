# bash completion (src/cli/memprism-completion.bash), sourced in bash and
# called as bash calls it, COMP_WORDS and COMP_CWORD set: the commands,
# each command's options, --by's views as each command takes them, the
# formats, --model's machines, the short forms and --opt=VALUE, the
# regions of the data file on the line for --roi and fold's REGION, and
# record's program after "--". Every word comes from the binary: a view
# report does not take (matrix) is not offered to report.
source "$(dirname "$0")/lib.sh"
COMPLETION=$MP_SRC/src/cli/memprism-completion.bash

# complete WORD...: the completions of the last word, sorted, one line
complete_words() {
	bash -c '
		source "$1"
		shift
		COMP_WORDS=("$@")
		COMP_CWORD=$(($# - 1))
		_memprism
		printf "%s\n" "${COMPREPLY[@]}" | sort | tr "\n" " " | sed "s/ $//"
	' bash "$COMPLETION" "$MEMPRISM" "$@"
}

check() { # what expected WORD...
	local what=$1 want=$2
	shift 2
	expect_eq "$what" "$want" "$(complete_words "$@")"
}

check "commands starting re" "record report" re
check "commands starting d" "diff doctor dump" d
check "report --f" "--force --format" report --f
check "record --so" "--source" record --so
check "report --by" "function kind line object page process rank site thread" report --by ""
check "numa --by t" "thread timeline" numa --by t
check "report --by m (numa's matrix is not report's)" "" report --by m
check "report -b s" "site" report -b s
check "report --by=fu" "function" report --by=fu
check "report --format" "csv json text" report --format ""
check "memtrace -f" "bin csv" memtrace -f ""
check "report --model n" "nehalem-e5504" report --model n
check "whatif --vs-model h" "haswell-e5-2680v3 host" whatif --vs-model h
check "record -s" "faults inst pmu valgrind" record -s ""
check "record --numa 4x8 --source=v" "valgrind" record --numa 4x8 --source=v
# the program after "--" is any command (ls is one), its arguments files
[[ " $(complete_words record -q -- l) " == *" ls "* ]] || fail "record -- l does not offer ls"
echo "ok: record -- l offers the commands"
check "record -- ./app --by (the program's own option)" "" record -- ./app --by ""

# regions from the data file on the line, or memprism.data
build_rt passes
"$MEMPRISM" record -q -o passes.data -- ./passes 64 1 >/dev/null
check "report --roi (passes.data)" "fill pages passes" report passes.data --roi ""
check "report -n 5 passes.data --roi pa" "pages passes" report -n 5 passes.data --roi pa
check "fold (first operand: a region of memprism.data, none here)" "" fold ""
cp passes.data memprism.data
check "fold p (memprism.data)" "pages passes" fold p
check "fold fill (then the data file)" "" fold fill pas
