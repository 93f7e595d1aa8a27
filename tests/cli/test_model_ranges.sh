# Set sampling and long ranges (docs/model.md, "Set sampling"): under
# --sample-sets the lines of a long memset outside the sample skip L1, and
# their hits are estimated from the sampled lines of the pages they were in.
# tests/rt/ranges.c warms the first 16 KiB of a 1 MiB block (256 lines),
# lets a second thread read 4 pages in the middle of it, memsets the whole
# block (256 L1 hits: 16 KiB / 64 bytes), then lets the thread read its 4
# pages again, which the stores took away from its L1 (all misses).
source "$(dirname "$0")/lib.sh"
build_rt ranges -lpthread
# --no-pagemap: virtual lines, so that the pages the sample sees are the
# same in every run
"$MEMPRISM" record -q --no-pagemap -o r.data -- ./ranges 1024 > /dev/null
line=$(grep -n 'aligned_alloc' "$MP_SRC/tests/rt/ranges.c" | cut -d: -f1)
label="heap main \\(ranges.c:$line\\)"
# Haswell: L1 32 KiB 8-way, 64 sets (a page's lines reach every set);
# spread: the reader runs on a core of its own
M=(--roi ranges --model haswell-e5-2680v3 --thread-map spread)

"$MEMPRISM" report "${M[@]}" --format csv r.data > full.csv
"$MEMPRISM" report "${M[@]}" --by function --format csv r.data > full.fn.csv
"$MEMPRISM" report "${M[@]}" --sample-sets 16 --format csv r.data > s16.csv
"$MEMPRISM" report "${M[@]}" --sample-sets 16 --by function --format csv r.data > s16.fn.csv
"$MEMPRISM" report "${M[@]}" --sample-sets 16 --format json r.data > s16.json
"$MEMPRISM" report "${M[@]}" --sample-sets 16 r.data > s16.txt

expect_eq "full: L1 hits of the block" 256 "$(csv_field full.csv "$label" l1)"
# Of the 256 pages, the first and the last 9 (L1's 8 pages and one) go
# through L1 in full, and the 4 the reader held; the other 242 skip the 60
# of their 64 lines outside the sample.
expect_eq "sampled: L1 estimated refs" $((242 * 60)) "$(grep -o '"l1_estimated_refs":[0-9]*' s16.json | cut -d: -f2)"
grep -q "14,520 line refs .* in the middle of long ranges" s16.txt || fail "text report does not say which L1 figures are estimates"
echo "ok: the text report says which L1 figures are estimated"
# The estimate: 180 skipped lines of pages 1-3 hit, as 12 of the 968 lines
# modelled in skipped pages did; the pages' share of the sample is exact.
expect_eq "sampled: L1 hits of the block" 256 "$(csv_field s16.csv "$label" l1)"
for col in refs walks; do
	expect_eq "sampled: $col of the block (not sampled)" "$(csv_field full.csv "$label" $col)" "$(csv_field s16.csv "$label" $col)"
done
# The region's stores dirtied every line of the block once: 1 MiB / 64 DRAM
# writes at its end. Sampled: 1 in 16 of them, times 16 (the lines L1 holds
# dirty outside the sample have no modelled level below to go to: they
# once went to DRAM too, +47%).
expect_eq "full: DRAM writes of the block" 16384 "$(csv_field full.csv "$label" dram_writes)"
expect_eq "sampled: DRAM writes of the block" 16384 "$(csv_field s16.csv "$label" dram_writes)"
# The memset's stores took the reader's copies in skipped pages away too.
expect_eq "sampled: the reader's L1 hits" "$(csv_field full.fn.csv reader_pass l1)" "$(csv_field s16.fn.csv reader_pass l1)"
expect_eq "full: the reader's L1 hits" 1 "$(csv_field full.fn.csv reader_pass l1)"

# A machine whose L1 sets span more than a page skips nothing
"$MEMPRISM" report --roi ranges --model opteron-6174 --sample-sets 16 --format json r.data > opt.json
expect_eq "Opteron (512-set L1): L1 estimated refs" 0 "$(grep -o '"l1_estimated_refs":[0-9]*' opt.json | cut -d: -f2)"
# and without --sample-sets nothing is estimated
"$MEMPRISM" report "${M[@]}" --format json r.data > full.json
expect_eq "full: L1 estimated refs" 0 "$(grep -o '"l1_estimated_refs":[0-9]*' full.json | cut -d: -f2)"
