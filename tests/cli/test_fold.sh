# Folding a loop whose iterations are known (tests/rt/fold.c): 50 instances
# of region "iter", each 8192 loads of A then 8192 stores to B. With 16
# bins each bin holds 1024 accesses per instance: bins 0-7 only A (loads),
# 8-15 only B (stores), and bin i's mean offset is (1024 (i mod 8) + 511.5) x 8.
source "$(dirname "$0")/lib.sh"
build_rt fold
"$MEMPRISM" record -q -o fold.data -- ./fold
"$MEMPRISM" fold iter --bins 16 --format csv fold.data > fold.csv
A=$(grep -n 'malloc.*/\* A \*/' "$MP_SRC/tests/rt/fold.c" | cut -d: -f1)
B=$(grep -n 'malloc.*/\* B \*/' "$MP_SRC/tests/rt/fold.c" | cut -d: -f1)
expect_eq "rows (one object per bin)" 16 "$(($(wc -l < fold.csv) - 1))"
for i in $(seq 0 15); do
	if [ $i -lt 8 ]; then line=$A; ld=51200; st=0; else line=$B; ld=0; st=51200; fi
	mean=$(((1024 * (i % 8)) * 8 + 4092))
	expect_eq "bin $i" "\"heap main (fold.c:$line)\",51200,$ld,$st,1024.000,$((8192 * (i % 8))),$mean.000,$((8192 * (i % 8) + 8184))" \
		"$(awk -F, -v b=$i '$1 == b { print $4 "," $5 "," $6 "," $7 "," $8 "," $9 "," $10 "," $11 }' fold.csv)"
done
"$MEMPRISM" fold iter fold.data > fold.txt
grep -q '^instances: 50, accesses folded: 819200, 20 phase bins' fold.txt || fail "text header: $(sed -n 2p fold.txt)"
echo "ok: text"
# bad input
if "$MEMPRISM" fold nosuch fold.data 2> err.txt; then fail "unknown region accepted"; fi
grep -q "no complete instance of region 'nosuch'" err.txt || fail "unclear error: $(cat err.txt)"
if "$MEMPRISM" fold iter --bins 0 fold.data 2> err.txt; then fail "--bins 0 accepted"; fi
grep -q -- '--bins wants a number' err.txt || fail "unclear error: $(cat err.txt)"
# the data file given is the one named: `fold FILE` (no region) says so
# rather than looking for memprism.data
run 2 "fold fold.data (no region)" "$MEMPRISM" fold fold.data
expect_eq "fold fold.data: message" "memprism: fold which region of fold.data? \`memprism fold REGION fold.data\` (REGION: a name given to memprism_region_begin)" "$(cat last.err)"
run 1 "fold iter missing.data" "$MEMPRISM" fold iter missing.data
expect_eq "fold iter missing.data: message" "memprism: cannot read missing.data: No such file or directory" "$(cat last.err)"
run 1 "fold iter without memprism.data" "$MEMPRISM" fold iter
expect_eq "fold iter without memprism.data: message" "memprism: no memprism.data here: record one first with \`memprism record -- PROGRAM\`" "$(cat last.err)"
run 2 "dump of two files" "$MEMPRISM" dump fold.data other.data
expect_eq "dump of two files: message" "memprism: one data file at a time (got 'fold.data' and 'other.data'; report, tlb, whatif, numa, diff and export --dhat or --paraver merge several)" "$(cat last.err)"
run 1 "dump missing.data" "$MEMPRISM" dump missing.data
expect_eq "dump missing.data: message" "memprism: cannot read missing.data: No such file or directory" "$(cat last.err)"
echo "ok: errors"

# the folded instance as plots (one offline page), opened in headless Chromium
"$MEMPRISM" fold iter --bins 16 --format html fold.data > fold.html
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
	echo "SKIP: no chromium for the fold page"
else
	"$browser" --headless --no-sandbox --disable-gpu --enable-logging=stderr --v=0 --dump-dom \
		"file://$MP_SCRATCH/fold.html" > fold-dom.html 2> fold-chrome.log
	expect_eq "fold page status" "ok objects=2 plots=2 bins=16" \
		"$(grep -o '<pre id="status">[^<]*' fold-dom.html | sed 's/.*>//')"
	expect_eq "console messages on the fold page" 0 "$(grep -c 'CONSOLE' fold-chrome.log || true)"
	"$browser" --headless --no-sandbox --disable-gpu --screenshot="$MP_SCRATCH/fold.png" --window-size=800,900 \
		"file://$MP_SCRATCH/fold.html" > /dev/null 2>&1 || true
fi
