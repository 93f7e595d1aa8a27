# diff (tests/rt/diff_half.c): two builds of one program from one app.c,
# the second with a line added above the sites (every site's line moves by
# one) and its second array read over half its length. B's row matches
# across the moved line and shows exactly N/2 fewer loads; A's row and
# every other row show no change, and nothing is new or vanished. Each
# side may be a directory of files (merged): two runs each, twice the
# figures. --model adds DRAM and walk columns. One operand is refused.
source "$(dirname "$0")/lib.sh"
N=100000
src="$MP_SRC/tests/rt/diff_half.c"
la=$(grep -n '/\* @A \*/' "$src" | cut -d: -f1) lb=$(grep -n '/\* @B \*/' "$src" | cut -d: -f1)
mkdir b1 b2 before after
cp "$src" app.c
"$MEMPRISM" cc -O2 -g app.c -o b1/app
sed '/^int main(void)$/{n;s/^{$/{\n\t\/* (a line added above the sites) *\/ ;/}' "$src" > app.c
[ "$(grep -n '/\* @B \*/' app.c | cut -d: -f1)" = $((lb + 1)) ] || fail "the edit did not move @B's line"
"$MEMPRISM" cc -O2 -g -DDIV=2 app.c -o b2/app
(cd b1 && "$MEMPRISM" record -q -o ../before/1.data ./app && "$MEMPRISM" record -q -o ../before/2.data ./app) > /dev/null
(cd b2 && "$MEMPRISM" record -q -o ../after/1.data ./app && "$MEMPRISM" record -q -o ../after/2.data ./app) > /dev/null

"$MEMPRISM" diff --format csv before/1.data after/1.data > d.csv
B="^heap main \\(app\\.c:$((lb + 1))\\)\$" A="^heap main \\(app\\.c:$((la + 1))\\)\$"
expect_eq "B: status" changed "$(csv_field d.csv "$B" status)"
expect_eq "B: was" "\"heap main (app.c:$lb)\"" "$(csv_field d.csv "$B" was)"
expect_eq "B: loads" "$N $((N / 2))" "$(csv_field d.csv "$B" loads_before) $(csv_field d.csv "$B" loads_after)"
expect_eq "B: stores" "$N $N" "$(csv_field d.csv "$B" stores_before) $(csv_field d.csv "$B" stores_after)"
expect_eq "B: change" $((-N / 2)) "$(csv_field d.csv "$B" accesses_change)"
expect_eq "A: status" same "$(csv_field d.csv "$A" status)"
expect_eq "A: accesses" "$((2 * N)) $((2 * N))" "$(csv_field d.csv "$A" accesses_before) $(csv_field d.csv "$A" accesses_after)"
expect_eq "rows that changed" 1 "$(awk -F, 'NR > 1 && $3 != "same"' d.csv | wc -l)"
expect_eq "the changed row comes first" "$(sed -n 2p d.csv | cut -d, -f1)" "\"heap main (app.c:$((lb + 1)))\""
run 0 "diff text" "$MEMPRISM" diff before/1.data after/1.data
grep -qE -- " -$((N / 2 / 1000)),000 +-$((N / 2 / 1000)),000 +0 changed +heap main \(app\.c:$((lb + 1))\) \(was heap main \(app\.c:$lb\)\)\$" last.out ||
	fail "text: no changed row for B: $(cat last.out)"
echo "ok: text shows B's change and its old line"
"$MEMPRISM" diff --format json before/1.data after/1.data > d.json
expect_eq "json: the first row" "$((-N / 2)) changed heap main (app.c:$lb)" \
	"$(jq -r '.rows[0] | "\(.change) \(.status) \(.was)"' d.json)"
expect_eq "json: its loads" "$N $((N / 2))" "$(jq -r '.rows[0] | "\(.before.loads) \(.after.loads)"' d.json)"

# each side two runs, merged
"$MEMPRISM" diff --format csv before after > dd.csv
expect_eq "merged sides: B's change" $((-N)) "$(csv_field dd.csv "$B" accesses_change)"
expect_eq "merged sides: A's accesses" "$((4 * N)) $((4 * N))" \
	"$(csv_field dd.csv "$A" accesses_before) $(csv_field dd.csv "$A" accesses_after)"
expect_eq "merged sides: rows that changed" 1 "$(awk -F, 'NR > 1 && $3 != "same"' dd.csv | wc -l)"

# the model's columns: A's fills are the same before and after
"$MEMPRISM" diff -q --model nehalem-e5504 --format csv before/1.data after/1.data > dm.csv
ra=$(csv_field dm.csv "$A" dram_reads_before)
[ "$ra" != missing ] && [ "$ra" -gt 0 ] || fail "--model: no DRAM reads for A: $ra"
expect_eq "--model: A's DRAM reads after" "$ra" "$(csv_field dm.csv "$A" dram_reads_after)"

run 2 "one operand" "$MEMPRISM" diff before/1.data
said "one operand" "diff wants two recordings"
