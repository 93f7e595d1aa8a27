# report --by line: each source line's accesses, exactly, for one file and
# for a merge of two (tests/rt/lines.c: a loop per line).
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
