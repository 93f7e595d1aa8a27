# The terminal experience: on a terminal (a pty from script(1)) the text
# report is bold where it matters, fits the width and shows progress on
# stderr; piped, it is plain text with whole lines and no progress; NO_COLOR
# and --quiet (report, tlb, numa, whatif, memtrace) are honoured.
source "$(dirname "$0")/lib.sh"
command -v script > /dev/null || {
	echo "SKIP: no script(1) to make a terminal"
	exit 77
}
"$MEMPRISM" cc -O2 -g "$MP_SRC/examples/arrays.c" -o arrays
# (what is checked on it does not depend on its size: smaller under the
# sanitizers, where each of the model runs below takes 10 times as long)
"$MEMPRISM" record -q --no-pagemap -o a.data -- ./arrays "$(sized 8 2)" > /dev/null
# piped: no escape sequences, whole labels, nothing on stderr
"$MEMPRISM" report a.data > piped.txt 2> piped.err
if grep -q $'\033' piped.txt; then fail "escape sequences in piped output"; fi
expect_eq "stderr when piped" 0 "$(wc -c < piped.err)"
grep -q "heap main (arrays.c:" piped.txt || fail "labels missing from piped output"
# a terminal 150 columns wide
COLUMNS=150 TERM=xterm script -qec "stty cols 150 2>/dev/null; $MEMPRISM report a.data" /dev/null > tty.txt
grep -q $'\033\\[1mmemprism report' tty.txt || fail "no bold title on a terminal"
long=$(sed -e 's/\r//g' -e 's/\x1b\[[0-9;]*[A-Za-z]//g' tty.txt | grep -v '^memprism: ' | awk 'length > 150' | wc -l)
expect_eq "lines wider than the 150-column terminal" 0 "$long"
grep -q '\.\.\.' tty.txt || fail "long labels were not shortened to fit"
# NO_COLOR
NO_COLOR=1 TERM=xterm script -qec "$MEMPRISM report a.data" /dev/null > nocolor.txt
if grep -q $'\033\\[1m' nocolor.txt; then fail "colours despite NO_COLOR"; fi
# --quiet: the host model's note and the progress line are gone
# (the host model notes what it had to guess, as on every VM; a machine
# that reports everything plausibly has no note to drop)
noted=1
grep -q '^  host notes: *none' <("$MEMPRISM" doctor) && noted=0
"$MEMPRISM" report --model host a.data > /dev/null 2> noisy.err
[ $noted = 0 ] || grep -q "note: model host" noisy.err || fail "expected the host note without --quiet"
"$MEMPRISM" report -q --model host a.data > /dev/null 2> quiet.err
expect_eq "stderr with --quiet" 0 "$(wc -c < quiet.err)"
# and in every command that runs the model (memtrace's summary is a note too)
for cmd in tlb numa "whatif --vs-pages 2M" "memtrace -o mt.csv"; do
	# shellcheck disable=SC2086 # cmd holds the command and its options
	"$MEMPRISM" $cmd --model host a.data > /dev/null 2> noisy.err
	[ $noted = 0 ] || grep -q "note: model host" noisy.err || fail "expected the host note from $cmd without --quiet"
	# shellcheck disable=SC2086
	"$MEMPRISM" $cmd -q --model host a.data > /dev/null 2> quiet.err
	expect_eq "stderr of $cmd with -q" 0 "$(wc -c < quiet.err)"
done
# 80 columns: the narrow table (accesses, share, loads, stores, object) fits
COLUMNS=80 TERM=xterm script -qec "stty cols 80 2>/dev/null; $MEMPRISM report a.data" /dev/null > tty80.txt
rows=$(sed -e 's/\r//g' -e 's/\x1b\[[0-9;]*[A-Za-z]//g' tty80.txt | grep -E '^ +[0-9,]+ +[0-9.]+%' | wc -l)
[ "$rows" -gt 0 ] || fail "no table rows at 80 columns"
wide=$(sed -e 's/\r//g' -e 's/\x1b\[[0-9;]*[A-Za-z]//g' tty80.txt | grep -E '^ +[0-9,]+ +[0-9.]+%' | awk 'length > 80' | wc -l)
expect_eq "table rows wider than 80 columns" 0 "$wide"
# a header line that says what the source could not see (env runs first,
# not built by memprism cc) wraps at the terminal's width, its words whole
"$MEMPRISM" record -q --no-pagemap -o env.data -- env ./arrays "$(sized 1 1)" > /dev/null
COLUMNS=80 TERM=xterm script -qec "stty cols 80 2>/dev/null; $MEMPRISM report env.data" /dev/null > ttyenv.txt
sed -e 's/\r//g' -e 's/\x1b\[[0-9;]*[A-Za-z]//g' ttyenv.txt > ttyenv.plain
grep -q '^unseen:    loads and stores inside env' ttyenv.plain || fail "no unseen line: $(head -6 ttyenv.plain)"
expect_eq "header lines wider than 80 columns" 0 "$(sed -n '1,/^$/p' ttyenv.plain | grep -v '^memprism: ' | awk 'length > 80' | wc -l)"
# (its words depend on the CPU-time samples the run got: read back whole)
unseen=$(awk '/^unseen:/ { on = 1; printf "%s", $0; next } on && /^           [^ ]/ { sub(/^ +/, " "); printf "%s", $0; next } { on = 0 }' ttyenv.plain)
[ "$(grep -c '^           [^ ]' ttyenv.plain)" -gt 0 ] || fail "the unseen line is not wrapped: $(grep -A2 '^unseen' ttyenv.plain)"
[[ "$unseen" == "unseen:    loads and stores inside env"*'`record --source valgrind` sees them' ]] ||
	fail "the wrapped unseen line does not read back whole: $unseen"
"$MEMPRISM" report env.data > envpiped.txt 2>/dev/null
grep -q '^unseen:    loads and stores inside env.*`record --source valgrind` sees them$' envpiped.txt ||
	fail "piped, the unseen line is not whole: $(grep -A1 '^unseen' envpiped.txt)"
echo "ok: the unseen line wraps at 80 columns, and is one line piped"
# Progress while a model runs, in every command that runs one, and the
# time left at the rate so far once a second has gone (randacc's 24M
# accesses: ~2.3 s of the exact model on the E5504 here; the time left is
# checked where the run took 2 s or more, as it cannot be where it did not).
# Progress is shown every 8 chunks read (~230K accesses each here), the
# time left from the second line on: under the sanitizers, where the model
# runs ~12 times slower, 6M accesses show it. (rs.data, 4M accesses, is
# about as small as a trace can be and still show two lines.)
"$MEMPRISM" cc -O2 "$MP_SRC/bench/workloads/randacc.c" -o randacc
"$MEMPRISM" record -q --no-pagemap -o r.data -- ./randacc 64 "$(sized 12000000 3000000)" > /dev/null
"$MEMPRISM" record -q --no-pagemap -o rs.data -- ./randacc 64 2000000 > /dev/null
progress_of() { # file: the progress lines, one a line
	tr '\r' '\n' < "$1" | sed 's/\x1b\[[0-9;]*[A-Za-z]//g' | grep '^memprism: [a-z ABm]* *[0-9]*%' || true
}
t0=$(date +%s.%N)
TERM=xterm script -qec "$MEMPRISM report --model nehalem-e5504 r.data > /dev/null" /dev/null > prog.txt
t1=$(date +%s.%N)
progress_of prog.txt > prog.lines
grep -q '^memprism: reading the trace *[0-9]*%' prog.lines || fail "report --model on a terminal: no progress"
if awk -v a="$t0" -v b="$t1" 'BEGIN { exit !(b - a >= 2) }'; then
	grep -qE '%, ~[0-9.]+ (s|min|h) left$' prog.lines || fail "a model run of 2 s or more: no time left shown"
	echo "ok: progress with the time left"
else
	echo "ok: progress (the run took under 2 s: the time left is not checked)"
fi
TERM=xterm script -qec "$MEMPRISM tlb --model nehalem-e5504 rs.data > /dev/null" /dev/null > prog_tlb.txt
progress_of prog_tlb.txt | grep -q '^memprism: modelling the trace' || fail "tlb on a terminal: no progress"
TERM=xterm script -qec "$MEMPRISM whatif --model nehalem-e5504 --vs-pages 2M rs.data > /dev/null" /dev/null > prog_wi.txt
progress_of prog_wi.txt | grep -q '^memprism: modelling B' || fail "whatif on a terminal: no progress of its second model"
echo "ok: tlb and whatif show progress"
# and none when piped
"$MEMPRISM" tlb --model nehalem-e5504 rs.data > /dev/null 2> tlb.err
if grep -q "modelling" tlb.err; then fail "progress when stderr is not a terminal"; fi
