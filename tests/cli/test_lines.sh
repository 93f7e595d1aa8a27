# report --by line and annotate: each source line's accesses, exactly, for
# one file and for a merge of two (tests/rt/lines.c: a loop per line).
source "$(dirname "$0")/lib.sh"
"$MEMPRISM" cc -O1 -g "$MP_SRC/tests/rt/lines.c" -o lines
n=100000
expect_eq "output" $((n * (n - 1))) "$(./lines $n)"
"$MEMPRISM" record -q -o l.data -- ./lines $n >/dev/null
"$MEMPRISM" report --by line --format csv l.data >l.csv
at() { echo "lines.c:$(grep -n "@$1" "$MP_SRC/tests/rt/lines.c" | cut -d: -f1) main"; }
expect_eq "fill line: stores" $n "$(csv_field l.csv "^$(at fill)\$" stores)"
expect_eq "fill line: loads" 0 "$(csv_field l.csv "^$(at fill)\$" loads)"
expect_eq "copy line: loads" $n "$(csv_field l.csv "^$(at copy)\$" loads)"
expect_eq "copy line: stores" $n "$(csv_field l.csv "^$(at copy)\$" stores)"
expect_eq "sum line: loads" $n "$(csv_field l.csv "^$(at sum)\$" loads)"
expect_eq "sum line: bytes loaded" $((8 * n)) "$(csv_field l.csv "^$(at sum)\$" bytes_loaded)"
"$MEMPRISM" report --by line l.data >l.txt
grep -q "$(at copy)" l.txt || fail "text view: no row for the copy line: $(cat l.txt)"
echo "ok: the text view has the line rows"
# two files merged: each line twice over
cp l.data l2.data
"$MEMPRISM" report -q --by line --force --format csv l.data l2.data >m.csv
expect_eq "merged copy line: loads" $((2 * n)) "$(csv_field m.csv "^$(at copy)\$" loads)"

# annotate: the source with each line's counts and the object it went to
"$MEMPRISM" annotate -i l.data >a.txt
ln() { grep -n "@$1" "$MP_SRC/tests/rt/lines.c" | cut -d: -f1; }
row() { grep -E "^[> ] +[0-9,.]+ +[0-9.%]+ +[0-9,.]+ +[0-9,.]+ +$(ln "$1") " a.txt; }
expect_eq "annotate: the fill line" "> 100,000 25.0% 0 100,000 $(ln fill) a[i] = i; /* @fill */ <- heap main (lines.c:$(ln a))" \
	"$(row fill | tr -s ' \t' ' ')"
expect_eq "annotate: the copy line, two objects" "> 200,000 50.0% 100,000 100,000 $(ln copy) b[i] = a[i] * 2; /* @copy */ <- heap main (lines.c:$(ln a)) (+1 more)" \
	"$(row copy | tr -s ' \t' ' ')"
expect_eq "annotate: the sum line" "> 100,000 25.0% 100,000 0 $(ln sum) s += b[i]; /* @sum */ <- heap main (lines.c:$(ln b))" \
	"$(row sum | tr -s ' \t' ' ')"
grep -qE "^ +\. +\. +\. +\. +$(($(ln fill) - 1))[[:space:]]+for" a.txt || fail "annotate: no context line before the fill line: $(cat a.txt)"
echo "ok: context lines"
# a function picks its lines; sources that moved are found with --source-dir
"$MEMPRISM" annotate -i l.data nosuchfunction >none.txt
grep -q "no line of what was asked for" none.txt || fail "annotate of a function with no lines: $(cat none.txt)"
"$MEMPRISM" annotate -i l.data main >main.txt
grep -q "@fill" main.txt || fail "annotate main: no source: $(cat main.txt)"
echo "ok: annotate main shows main's lines"
rm -rf built moved && mkdir built && cp "$MP_SRC/tests/rt/lines.c" built/
"$MEMPRISM" cc -O1 -g "$PWD/built/lines.c" -o lines2
"$MEMPRISM" record -q -o l2.data -- ./lines2 1000 >/dev/null
mv built moved
"$MEMPRISM" annotate -i l2.data >gone.txt
grep -q "source not found; --source-dir DIR names where it is" gone.txt || fail "a moved source: $(cat gone.txt)"
"$MEMPRISM" annotate -i l2.data --source-dir moved >found.txt
grep -q "(source: moved/lines.c)" found.txt && grep -q "@copy" found.txt || fail "--source-dir: $(cat found.txt)"
echo "ok: --source-dir finds a moved source"
# with the model: each line's DRAM reads as the line view has them
"$MEMPRISM" report -q --by line --model nehalem-e5504 --format csv l.data >lm.csv
"$MEMPRISM" annotate -q --model nehalem-e5504 -i l.data >am.txt
expect_eq "annotate --model: the fill line's DRAM reads (its store fills)" "$(csv_field lm.csv "^$(at fill)\$" dram_reads)" \
	"$(grep -E "^> .* $(ln fill) " am.txt | tr -s ' ' | cut -d' ' -f6 | tr -d ,)"
run 2 "annotate --threshold 200" "$MEMPRISM" annotate --threshold 200 -i l.data
# the data file given as report takes it: said what to do instead
run 2 "annotate DATAFILE" "$MEMPRISM" annotate l.data
said_line "annotate DATAFILE" "memprism: 'l.data' is a data file: annotate's arguments pick functions and source files, and the data file comes with -i (memprism annotate -i l.data [FUNCTION|FILE...])"

# several files analysed at once (--jobs): the same merge, byte for byte
for k in 1 2 3 4 5; do "$MEMPRISM" record -q -o "j$k.data" -- ./lines $((k * 1000)) >/dev/null; done
for j in 1 2 4; do
	"$MEMPRISM" report -q --jobs $j --by line --format csv j?.data >"jobs$j.csv"
	"$MEMPRISM" report -q --jobs $j --model nehalem-e5504 j?.data >"jobs$j.txt"
done
expect_eq "merged fill line: stores of the five runs" 15000 "$(csv_field jobs1.csv "^$(at fill)\$" stores)"
for j in 2 4; do
	cmp -s jobs1.csv "jobs$j.csv" || fail "--jobs $j: a different line view: $(diff jobs1.csv "jobs$j.csv" | head)"
	cmp -s jobs1.txt "jobs$j.txt" || fail "--jobs $j: a different modelled report: $(diff jobs1.txt "jobs$j.txt" | head)"
done
echo "ok: --jobs 2 and 4 give --jobs 1's reports byte for byte"
run 2 "--jobs 0" "$MEMPRISM" report --jobs 0 j1.data j2.data
said "--jobs 0" "from 1 to 64"
