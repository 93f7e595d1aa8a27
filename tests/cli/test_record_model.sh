# record --model: the run modelled once it has ended, its report on
# standard error and the same as report --model's on the file; the
# program's standard output and exit status its own; bad model options
# refused before the program runs (tests/rt/exit_status.c).
source "$(dirname "$0")/lib.sh"
build_rt exit_status
src="$MP_SRC/tests/rt/exit_status.c"
blk="^heap main \\(exit_status\\.c:$(grep -n '/\* @BLK \*/' "$src" | cut -d: -f1)\\)\$"
machine=haswell-e5-2680v3 # (a preset: the same figures on any host)

# the report after the run is report --model's on the file, line for line,
# at the end of stderr; stdout is the program's alone
same_report() { # what file model-options...
	local what=$1 file=$2
	shift 2
	"$MEMPRISM" report "$@" "$file" > want.txt 2> /dev/null || fail "$what: report $* $file failed"
	grep -q '^model:  *haswell-e5-2680v3' want.txt || fail "$what: report $* gave no model line: $(head -5 want.txt)"
	tail -n "$(wc -l < want.txt)" last.err > got.txt
	cmp -s want.txt got.txt || fail "$what: record's report differs from report's: $(diff want.txt got.txt | head -20)"
	if grep -q '^model:' last.out; then fail "$what: the report went to stdout"; fi
	echo "ok: $what: the report on stderr is report $*'s ($(wc -l < want.txt) lines)"
}

run 7 "record --model, exit(7)" "$MEMPRISM" record --model "$machine" -o exit7.data -- ./exit_status exit7
said "record --model, exit(7)" "wrote exit7\\.data"
same_report "exit(7)" exit7.data --model "$machine"
"$MEMPRISM" report --model "$machine" --format csv exit7.data > exit7.csv
expect_eq "exit(7): block stores" 100 "$(csv_field exit7.csv "$blk" stores)"

# the model options go to report as given; -q keeps record's summary out
run 0 "record -q --model --pages 2M" "$MEMPRISM" record -q --model "$machine" --pages 2M \
	--model-threads 2 -o big.data -- ./exit_status big
if grep -q 'wrote big\.data' last.err; then fail "-q: record's summary shown"; fi
same_report "--pages 2M --model-threads 2" big.data --model "$machine" --pages 2M
"$MEMPRISM" report --model "$machine" big.data > pages4k.txt 2> /dev/null
if cmp -s pages4k.txt want.txt; then fail "--pages 2M: the same report as in 4 KiB pages (the test proves nothing)"; fi
echo "ok: --pages 2M reached the model (its report is not 4 KiB pages')"

# a program killed by a signal: its status, and what it recorded modelled
run 143 "record --model, SIGTERM" "$MEMPRISM" record --model "$machine" -o term.data -- ./exit_status term
said "record --model, SIGTERM" "killed by signal 15"
same_report "SIGTERM" term.data --model "$machine"

# refused before the program runs: nothing recorded, status 2
for bad in "--model nosuch" "--pages 2M" "--pages 3M --model host" "--model-threads 0 --model host" \
	"--thread-map sideways --model host" "--source faults --model host"; do
	rm -f bad.data
	# shellcheck disable=SC2086 # (the options are words)
	run 2 "record $bad" "$MEMPRISM" record $bad -o bad.data -- ./exit_status exit7
	[ ! -e bad.data ] || fail "record $bad: the program ran (bad.data written)"
	[ -s last.err ] || fail "record $bad: no message"
	echo "ok: record $bad refused: $(head -1 last.err)"
done
said "record --source faults --model host" "--model models every access"
run 2 "record --pages 2M (no --model)" "$MEMPRISM" record --pages 2M -o bad.data -- ./exit_status exit7
said "record --pages 2M (no --model)" "go with --model MACHINE"
