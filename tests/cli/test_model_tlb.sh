# The model's TLBs against the PTAT paper's verification: reading the first
# byte of each 4 KiB page of N pages (N >> STLB entries) gives exactly N STLB
# misses and N page walks; with the block in 2 MiB pages, N/512. Random reads
# over a table far larger than the STLB's reach walk on nearly every access;
# in 2 MiB pages the walks drop by more than 90%. Also the what-if and tlb
# view plumbing, and errors for bad model options.
source "$(dirname "$0")/lib.sh"
build_rt pagescan
N=32768
# --no-pagemap: the block is never written, so physically every page is the
# kernel's zero page (test_phys.sh checks that); these cases are about the TLBs
# and count line fills as if the pages were distinct
"$MEMPRISM" record -q --no-pagemap -o p.data -- ./pagescan $N 200000
line=$(grep -n 'aligned_alloc' "$MP_SRC/tests/rt/pagescan.c" | cut -d: -f1)
label="heap main \\(pagescan.c:$line\\)"
M=haswell-e5-2680v3
# where a page's walk is counted once, one model core: the default follows the
# CPUs the thread ran on, and a move mid-scan rightly walks again on the new core
T=(--thread-map spread)

"$MEMPRISM" report --roi scan --model $M --format csv p.data > scan4k.csv
expect_eq "4K scan: accesses" $N "$(csv_field scan4k.csv "$label" accesses)"
expect_eq "4K scan: page walks" $N "$(csv_field scan4k.csv "$label" walks)"
expect_eq "4K scan: STLB hits" 0 "$(csv_field scan4k.csv "$label" stlb_hits)"

"$MEMPRISM" report --roi scan --model $M "${T[@]}" --pages "pagescan.c:$line=2M" --format csv p.data > scan2m.csv
expect_eq "2M scan: page walks" $((N / 512)) "$(csv_field scan2m.csv "$label" walks)"
# every page in 2M: the same for this block
"$MEMPRISM" report --roi scan --model $M "${T[@]}" --pages 2M --format csv p.data > scanall.csv
expect_eq "2M (all) scan: page walks" $((N / 512)) "$(csv_field scanall.csv "$label" walks)"

# random reads: 128 MiB table vs 4 MiB of STLB reach
"$MEMPRISM" report --roi random --model $M --format csv p.data > rnd4k.csv
"$MEMPRISM" report --roi random --model $M --pages 2M --format csv p.data > rnd2m.csv
acc=$(csv_field rnd4k.csv "$label" accesses)
w4=$(csv_field rnd4k.csv "$label" walks)
w2=$(csv_field rnd2m.csv "$label" walks)
expect_eq "random: accesses" 200000 "$acc"
[ $((w4 * 100)) -ge $((acc * 90)) ] || fail "random 4K: $w4 walks for $acc accesses, expected > 90%"
[ $((w2 * 10)) -le "$w4" ] || fail "random 2M: $w2 walks vs $w4 in 4K pages, expected a 90% drop"
echo "ok: random: $w4 walks in 4K pages, $w2 in 2M pages for $acc accesses"

# Set sampling (--sample-sets 16) takes each object's sampled lines times its
# own ratio of references to sampled ones. The scan reads the first line of
# every page: all of them in the sample (a stride the sample aliases with),
# so the block is modelled exactly and keeps the full run's figures, where
# a flat x16 would give 16 times too many. The random reads fall evenly, but
# the sampled sets are not quite every set's like: they hold all the lines
# the scan left (a page's first line maps to a set the sample has), which
# random reads then hit: within 10% of the full run (about -4.3%).
# TLB figures are never sampled.
"$MEMPRISM" report --roi scan --model $M --sample-sets 16 --format csv p.data > scan16.csv
for col in l1 l2 l3 dram_reads walks walk_refs; do
	expect_eq "sampled scan: $col" "$(csv_field scan4k.csv "$label" $col)" "$(csv_field scan16.csv "$label" $col)"
done
"$MEMPRISM" report --roi random --model $M --sample-sets 16 --format csv p.data > rnd16.csv
full=$(csv_field rnd4k.csv "$label" dram_reads)
est=$(csv_field rnd16.csv "$label" dram_reads)
d=$((est - full))
[ $((${d#-} * 10)) -le "$full" ] || fail "sampled random: $est DRAM reads against $full in full"
echo "ok: sampled random: $est DRAM reads against $full in full"
expect_eq "sampled random: walks (exact)" "$w4" "$(csv_field rnd16.csv "$label" walks)"

# memprism tlb: the block holds all scan walks; 100% of walks from its pages
"$MEMPRISM" tlb --roi scan --model $M p.data > tlb.txt
grep -q "page walks" tlb.txt || fail "tlb view has no walk table"
grep -q "MODELLED" tlb.txt || fail "tlb view does not say its figures are modelled"
grep -Eq "^ +$N +100\.0% +$N +1\.00 .*pagescan.c:$line" tlb.txt || {
	cat tlb.txt
	fail "tlb: expected $N walks over $N pages on the block"
}
"$MEMPRISM" tlb --roi scan --model $M --format csv p.data > tlb.csv
expect_eq "tlb csv rows (pages)" $N "$(grep -c 'pagescan.c' tlb.csv)"

# text report labels modelled figures
"$MEMPRISM" report --roi scan --model $M p.data > rep.txt
grep -q "MODELLED" rep.txt || fail "report does not label modelled figures"
# what-if rule that matches nothing is a warning
"$MEMPRISM" report --model $M --pages "no-such-object=2M" p.data > none.txt
grep -q 'no object.s label contains "no-such-object"' none.txt || fail "unmatched --pages rule not reported"

# bad options: clear errors, exit 2
set +e
"$MEMPRISM" report --model no-such-machine p.data 2> err1.txt
expect_eq "unknown machine exit" 2 $?
"$MEMPRISM" report --model $M --pages 3M p.data 2> err2.txt
expect_eq "bad page size exit" 2 $?
"$MEMPRISM" report --pages 2M p.data 2> err3.txt
expect_eq "--pages without --model exit" 2 $?
"$MEMPRISM" tlb --thread-map sideways p.data 2> err4.txt
expect_eq "bad thread map exit" 2 $?
printf 'cores = 2\nllc.ways = lots\n' > bad.machine
"$MEMPRISM" report --model ./bad.machine p.data 2> err5.txt
expect_eq "bad machine file exit" 2 $?
set -e
grep -q "nehalem-e5504" err1.txt || fail "unknown machine error does not list the presets"
grep -q "2M or 1G" err2.txt || fail "bad page size error unclear"
grep -q "bad.machine:2" err5.txt || fail "machine file error does not name the line"
echo "ok: model option errors"

# memtrace: the ORMBP paper's object-relative memory trace. The scan's DRAM requests
# are one line fill per page (never cached before) plus the page-walk loads
# that missed the caches (the report's walk_dram); nothing is written.
"$MEMPRISM" memtrace --roi scan --model $M -o mt.csv p.data 2> mt.err
expect_eq "memtrace header" "paddr,rw,time,pid,vaddr,object,page_walk" "$(head -1 mt.csv)"
fills=$(grep -c ",R,.*pagescan.c:$line)\",0\$" mt.csv)
expect_eq "memtrace: line fills of the block" $N "$fills"
wd=$(csv_field scan4k.csv "$label" walk_dram)
expect_eq "memtrace: page-walk loads of the block" "$wd" "$(grep -c "pagescan.c:$line)\",1\$" mt.csv)"
expect_eq "memtrace: writes" 0 "$(grep -c ',W,' mt.csv || true)"
grep -q "DRAM requests" mt.err || fail "memtrace does not summarize"
"$MEMPRISM" memtrace --roi scan --model $M -f bin -o mt.bin p.data 2> /dev/null
total=$(($(wc -l < mt.csv) - 1))
off=$(grep -abo 'OBJECTS' mt.bin | head -1 | cut -d: -f1)
expect_eq "memtrace bin: 16-byte magic + 40 bytes per request" $((16 + 40 * total)) "$off"
expect_eq "memtrace bin magic" MPMEMTRACE1 "$(head -c 11 mt.bin)"

# whatif: A in 4K pages, B with the block in 2M pages, side by side
"$MEMPRISM" whatif --model $M "${T[@]}" --roi scan --vs-pages "pagescan.c:$line=2M" -f csv p.data > wi.csv
expect_eq "whatif A walks" $N "$(csv_field wi.csv "$label" walks_a)"
expect_eq "whatif B walks" $((N / 512)) "$(csv_field wi.csv "$label" walks_b)"
"$MEMPRISM" whatif --model $M "${T[@]}" --roi scan --vs-pages "pagescan.c:$line=2M" p.data > wi.txt
grep -q "$N -> $((N / 512))" wi.txt || fail "whatif text lacks the walk change"
set +e
"$MEMPRISM" whatif --model $M p.data 2> wi.err
expect_eq "whatif without a change exit" 2 $?
set -e
grep -q "vs-model" wi.err || fail "whatif error does not say what to give"

# latency distributions, not only a mean: quantiles in CSV, buckets in text
p50=$(csv_field scan4k.csv "$label" latency_p50)
p90=$(csv_field scan4k.csv "$label" latency_p90)
p99=$(csv_field scan4k.csv "$label" latency_p99)
[ "$p50" -gt 0 ] && [ "$p50" -le "$p90" ] && [ "$p90" -le "$p99" ] || fail "latency quantiles $p50 $p90 $p99"
grep -q "^latency distribution (modelled cycles" rep.txt || fail "no latency distribution in the text report"
grep -Eq "p50 +$p50 +p90 +$p90 +p99 +$p99 .*pagescan.c:$line" rep.txt || fail "text and CSV quantiles differ"
echo "ok: latency p50 $p50, p90 $p90, p99 $p99 cycles"
