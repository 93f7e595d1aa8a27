# What to change (report --model, object view): each finding's figure is
# the arithmetic on the row's modelled figures, it appears where its
# threshold says and not below it, and the what-if command it suggests runs
# and shows the change. tests/rt/passes.c: an 8 MiB array set by memset,
# read three times, one word of each line (region "passes"), then the first
# word of each page, four times (region "pages"), then written word by word
# (region "fill"), on a machine with a 1 MiB LLC and 64 TLB entries of
# 4 KiB pages (256 KiB of reach).
source "$(dirname "$0")/lib.sh"
build_rt passes
"$MEMPRISM" record -q --no-pagemap -o p.data -- ./passes 2048 3 >/dev/null
line=$(grep -n 'aligned_alloc' "$MP_SRC/tests/rt/passes.c" | cut -d: -f1)
label="heap main \\(passes.c:$line\\)"
obj="heap main (passes.c:$line)"
small_machine small.machine small 64
# One model core: the default follows the CPUs the thread ran on, and a
# move mid-pass finds lines in the other core's caches (fewer DRAM reads).
T=(--thread-map spread)
rep() { "$MEMPRISM" report -q --model ./small.machine "${T[@]}" "$@" p.data; }
# the finding of kind $2 in JSON file $1: "share value"
finding() {
	grep -o "\"kind\":\"$2\",\"object\":\"[^\"]*\",\"share\":[0-9.]*,\"value\":[0-9.]*" "$1" |
		sed 's/.*"share":\([0-9.]*\),"value":\([0-9.]*\)/\1 \2/'
}

# Three passes over 8 MiB through a 1 MiB LLC: each line from DRAM 3 times
# (DRAM reads / the array's lines), 8 bytes used of each 64 (bytes loaded /
# (DRAM reads x 64)); one walk per page, 64 line references, is below the
# page-walk finding's one in 32.
rep --roi passes --format csv >passes.csv
rep --roi passes --format json >passes.json
reads=$(csv_field passes.csv "$label" dram_reads)
loaded=$(csv_field passes.csv "$label" bytes_loaded)
expect_eq "passes: DRAM reads" $((3 * 131072)) "$reads"
expect_eq "dram-passes finding" "1.000000 $(awk -v r="$reads" 'BEGIN { printf "%.6f", r / 131072 }')" \
	"$(finding passes.json dram-passes)"
expect_eq "line-use finding" "1.000000 $(awk -v b="$loaded" -v r="$reads" 'BEGIN { printf "%.6f", b / (r * 64) }')" \
	"$(finding passes.json line-use)"
expect_eq "no page-walks finding at one walk in 64 references" "" "$(finding passes.json page-walks)"
expect_eq "no store-fills finding for loads" "" "$(finding passes.json store-fills)"
rep --roi passes >passes.txt
grep -q "^what to change (from the modelled figures):" passes.txt || fail "text report has no findings section"
grep -qF "393,216 DRAM reads (100.0% of all) for its 8.0 MiB (131,072 lines): each line came from DRAM 3.0 times" \
	passes.txt || fail "dram-passes evidence: $(cat passes.txt)"
grep -qF "touch about 12.5% of the bytes DRAM brings in for it: 3,145,728 bytes loaded and 0 stored (the larger counts: a read-modify-write touches its bytes twice) for 393,216 lines" passes.txt ||
	fail "line-use evidence: $(cat passes.txt)"
grep -q "fuse the loops" passes.txt || fail "a forward stream's passes: no fuse/block advice"

# One access per page: a walk per reference, and 8 MiB is 32x the 256 KiB
# the TLBs reach; 2 MiB pages are the change, and the what-if it names runs.
rep --roi pages --format csv >pages.csv
rep --roi pages --format json >pages.json
walks=$(csv_field pages.csv "$label" walks)
refs=$(csv_field pages.csv "$label" refs)
expect_eq "pages: walks" 8192 "$walks"
expect_eq "page-walks finding" "1.000000 $(awk -v w="$walks" -v r="$refs" 'BEGIN { printf "%.6f", w / r }')" \
	"$(finding pages.json page-walks)"
rep --roi pages >pages.txt
grep -qF "8,192 page walks (100.0% of all), one per 1.0 line references; it spans 8.0 MiB (2,048 pages of 4 KiB), 32.0x what the TLBs reach in 4 KiB pages (256.0 KiB)" \
	pages.txt || fail "page-walks evidence: $(cat pages.txt)"
grep -q "MADV_HUGEPAGE" pages.txt || fail "page-walks: no huge-page advice"
cmd=$(grep -o '`memprism whatif[^`]*`' pages.txt | tr -d '`')
expect_eq "suggested what-if" \
	"memprism whatif --model ./small.machine --thread-map spread --roi pages --vs-pages passes.c:$line=2M p.data" "$cmd"
eval "\"\$MEMPRISM\" ${cmd#memprism } --format csv" >whatif.csv || fail "the suggested what-if failed"
expect_eq "what-if: walks before" 8192 "$(csv_field whatif.csv "$label" walks_a)"
expect_eq "what-if: walks in 2 MiB pages" 0 "$(csv_field whatif.csv "$label" walks_b)"
# the tlb view has the page-walk findings alone
"$MEMPRISM" tlb -q --model ./small.machine "${T[@]}" --roi pages p.data >tlb.txt
grep -qF "page-walks: $obj" tlb.txt || fail "tlb view: no page-walks finding: $(cat tlb.txt)"
grep -q "line-use" tlb.txt && fail "tlb view: findings other than page walks"
"$MEMPRISM" tlb -q --model ./small.machine "${T[@]}" --roi passes p.data >tlb0.txt
grep -q "none: no object has page walks worth a change" tlb0.txt || fail "tlb view: no 'none' line: $(cat tlb0.txt)"
# the what-if repeats the report's model options (configuration A)
"$MEMPRISM" report -q --model ./small.machine --thread-map spread --pages "nothing-here=1G" --roi pages p.data >opts.txt
cmd=$(grep -o '`memprism whatif[^`]*`' opts.txt | tr -d '`')
expect_eq "what-if with the report's options" \
	"memprism whatif --model ./small.machine --thread-map spread --pages nothing-here=1G --roi pages --vs-pages passes.c:$line=2M p.data" \
	"$cmd"
eval "\"\$MEMPRISM\" ${cmd#memprism } --format csv" >whatif2.csv || fail "the suggested what-if (options) failed"
expect_eq "what-if (options): walks in 2 MiB pages" 0 "$(csv_field whatif2.csv "$label" walks_b)"
# in 2 MiB pages the finding is gone
rep --roi pages --pages "passes.c:$line=2M" --format json >pages2m.json
expect_eq "no page-walks finding in 2 MiB pages" "" "$(finding pages2m.json page-walks)"

# Beyond what 2 MiB pages reach (one 2 MiB entry, an STLB of 4 KiB pages
# only): 1 GiB pages are the change.
sed 's/^dtlb2m.entries = .*/dtlb2m.entries = 1/; s/^dtlb2m.ways = .*/dtlb2m.ways = 1/; s/^stlb.pages = .*/stlb.pages = 4k/' \
	small.machine >tiny2m.machine
"$MEMPRISM" report -q --model ./tiny2m.machine "${T[@]}" --roi pages p.data >tiny.txt
grep -q "put it in 1 GiB pages" tiny.txt || fail "beyond the 2 MiB reach: no 1 GiB advice: $(cat tiny.txt)"
grep -qF -- "--vs-pages passes.c:$line=1G" tiny.txt || fail "beyond the 2 MiB reach: what-if not in 1 GiB pages"

# Writing every word in order: each line a store fills comes from DRAM
# first (write-allocate), all of its DRAM reads; the memset's are not
# counted as store fills (large ones skip that read on real machines).
rep --roi fill --format json >fill.json
expect_eq "store-fills finding" "1.000000 1.000000" "$(finding fill.json store-fills)"
grep -q '"store_fills":131072,' fill.json || fail "fill: store fills are not the array's 131,072 lines"
rep --format json >all.json
expect_eq "whole run: the array's DRAM reads, store fills" "$(((1 + 3 + 1) * 131072 + 2048 * 4)) 131072" \
	"$(jq -r --arg l "$obj" '.rows[] | select(.label == $l) | "\(.mem.dram_reads) \(.mem.store_fills)"' all.json)"
rep --roi fill >fill.txt
grep -qF "131,072 of its 131,072 DRAM reads (100.0%; 100.0% of all) fetch lines for its stores" fill.txt ||
	fail "store-fills evidence: $(cat fill.txt)"
grep -q "_mm_stream_si128" fill.txt || fail "store-fills: no non-temporal store advice"
grep -qF "its 8.0 MiB is over half the modelled LLC (1.0 MiB)" fill.txt || fail "store-fills: no size against the LLC"
# on a machine whose LLC holds the array, the stores' lines stay cached:
# no store-fills finding
sed 's/^llc.size = .*/llc.size = 16M/' small.machine >bigllc.machine
"$MEMPRISM" report -q --model ./bigllc.machine "${T[@]}" --roi fill --format json p.data >fillbig.json
expect_eq "no store-fills finding where the LLC holds it" "" "$(finding fillbig.json store-fills)"
# set sampling keeps the share (store fills scale with the fills)
rep --roi fill --sample-sets 16 --format json >fill16.json
expect_eq "store-fills finding, sampled sets" "1.000000 1.000000" "$(finding fill16.json store-fills)"

# A matrix of 256 rows of 8 KiB summed column by column (tests/rt/
# conflicts.c): 8192 bytes is 128 lines, and gcd(128, 64) = 64, so a
# column reaches 1 of L1's 64 sets, whose 8 ways cannot keep its 256 lines
# for the next 7 columns: each line comes into L1 8 times. Rows one line
# longer (129 lines, odd) reach every set: each line comes in once.
build_rt conflicts
"$MEMPRISM" record -q --no-pagemap -o c0.data -- ./conflicts 256 1024 0 >/dev/null
"$MEMPRISM" record -q --no-pagemap -o c8.data -- ./conflicts 256 1024 8 >/dev/null
cline=$(grep -n 'aligned_alloc' "$MP_SRC/tests/rt/conflicts.c" | cut -d: -f1)
clabel="heap main \\(conflicts.c:$cline\\)"
for c in c0 c8; do
	"$MEMPRISM" report -q --model ./small.machine "${T[@]}" --roi columns --format csv $c.data >$c.csv
	"$MEMPRISM" report -q --model ./small.machine "${T[@]}" --roi columns --format json $c.data >$c.json
	"$MEMPRISM" report -q --model ./small.machine "${T[@]}" --roi columns $c.data >$c.txt
done
m0=$(($(csv_field c0.csv "$clabel" refs) - $(csv_field c0.csv "$clabel" l1)))
m8=$(($(csv_field c8.csv "$clabel" refs) - $(csv_field c8.csv "$clabel" l1)))
expect_eq "conflicts: L1 misses, every access" 262144 "$m0"
[ "$m8" -le 32768 ] || fail "padded rows: $m8 L1 misses, expected one per line (32,768)"
echo "ok: padded rows: $m8 L1 misses"
expect_eq "set-conflicts finding" "1.000000 $(awk -v m="$m0" 'BEGIN { printf "%.6f", m / 32768 }')" \
	"$(finding c0.json set-conflicts)"
grep -qF "strided +8192 (128 lines): in L1's 64 sets that reaches 1 (gcd(128, 64) = 64), whose 8 ways hold 8 lines (512 B)" \
	c0.txt || fail "set-conflicts evidence: $(cat c0.txt)"
grep -qF "one line longer (8256 bytes" c0.txt || fail "set-conflicts: no padding advice"
grep -q "interchange the loops" c0.txt || fail "a strided walk's DRAM passes: no interchange advice"
expect_eq "no set-conflicts finding with padded rows" "" "$(finding c8.json set-conflicts)"

# Only for modelled figures, in the object view
"$MEMPRISM" report --roi passes p.data >plain.txt
grep -q "what to change" plain.txt && fail "findings without a model"
grep -q '"findings"' <("$MEMPRISM" report --roi passes --format json p.data) && fail "JSON findings without a model"
rep --roi passes --by thread >thread.txt
grep -q "what to change" thread.txt && fail "findings in the thread view"
echo "ok: findings"

# Advice its own what-if does not confirm is not given. 4,096 blocks of 24
# bytes, each 64 KiB after the last, read at random: one walk per read, but
# in 2 MiB pages where they lie they still span 128 pages, and this machine
# holds 8 entries of 2 MiB (none in the STLB): the what-if removes under
# half their walks, so the report says why it does not advise huge pages.
# A confirmed finding carries its what-if's figures.
grep -qF "checked by the model: in 2 MiB pages, all page walks 8,192 -> 0 (-100.0%)" pages.txt ||
	fail "a confirmed page-walks finding without its what-if: $(cat pages.txt)"
echo "ok: the confirmed finding shows its what-if"
grep -qF '"whatif_walks":[8192,0]' pages.json || fail "JSON: no what-if figures: $(cat pages.json)"
echo "ok: JSON has the confirmed finding's what-if"
sed 's/dtlb2m.entries = 32/dtlb2m.entries = 8/; s/dtlb2m.ways = 4/dtlb2m.ways = 8/; s/stlb.pages = 4k,2m/stlb.pages = 4k/' \
	small.machine >few2m.machine
build_rt small_blocks
"$MEMPRISM" record -q -o sb.data -- ./small_blocks 4096 "$(sized 200000 50000)" >/dev/null
sl=$(grep -n "@small" "$MP_SRC/tests/rt/small_blocks.c" | cut -d: -f1)
"$MEMPRISM" report -q --model ./few2m.machine sb.data >sb.txt
"$MEMPRISM" report -q --model ./few2m.machine --format json sb.data >sb.json
grep -q "page-walks: heap main (small_blocks.c:$sl)" sb.txt && fail "huge pages advised where the what-if refutes them: $(cat sb.txt)"
grep -qF "not advised: huge pages for heap main (small_blocks.c:$sl): in 2 MiB pages, all page walks " sb.txt ||
	fail "no word on the refuted advice: $(cat sb.txt)"
grep -qF "4,096 blocks of up to 24 B (96.0 KiB in all)" sb.txt || fail "small blocks' evidence: $(cat sb.txt)"
w=$(grep -o '"not_advised":\[.*' sb.json | grep -o '"whatif_walks":\[[0-9]*,[0-9]*\]' | head -1 | tr -dc '0-9,')
wa=${w%,*} wb=${w#*,}
"$MEMPRISM" report -q --model ./few2m.machine --format csv sb.data >sb.csv
[ -n "$w" ] && [ $((2 * (wa - wb))) -lt "$(csv_field sb.csv "small_blocks.c:$sl" walks)" ] ||
	fail "not_advised: what-if walks '$w'"
echo "ok: huge pages not advised: all walks $wa -> $wb in the what-if"
# the report checks with its data caches set-sampled (it reads walks alone,
# which the TLBs decide): the same walks as the full model's what-if
"$MEMPRISM" whatif --model ./few2m.machine --vs-pages "small_blocks.c:$sl=2M" --format csv sb.data >sbw.csv
expect_eq "the check's walks = the full what-if's (all rows)" "$wa $wb" \
	"$(awk -F, 'NR > 1 { a += $(NF - 8); b += $(NF - 7) } END { print a, b }' sbw.csv)"
grep -q '"kind":"page-walks"' <(grep -o '"findings":\[[^]]*\]' sb.json) && fail "JSON findings advise huge pages"
echo "ok: JSON findings without the refuted advice"

# Several findings' what-ifs are made in one replay, each with TLBs of its
# own (page walks depend on the TLBs alone). tests/rt/two_tables.c: table A
# of 2,048 pages and B of 1,024, a word a page read twice in region
# "pages", both interleaved: a walk per read (a page comes back 2,048 or
# more pages later; the TLBs hold 128). A table in 2 MiB pages was set
# beforehand, so its few entries are in the 2 MiB DTLB already: A's
# what-if leaves B's 2,048 walks, B's leaves A's 4,096.
build_rt two_tables
"$MEMPRISM" record -q --no-pagemap -o tt.data -- ./two_tables 2048 2 >/dev/null
al=$(grep -n "@A" "$MP_SRC/tests/rt/two_tables.c" | cut -d: -f1)
bl=$(grep -n "@B" "$MP_SRC/tests/rt/two_tables.c" | cut -d: -f1)
# checked DATA ALL "LINE WALKS CHANGE"...: report --roi pages of DATA
# names each what-if of two_tables.c:LINE with ALL walks -> WALKS
checked() {
	local data=$1 all=$2
	shift 2
	"$MEMPRISM" report -q --model ./small.machine "${T[@]}" --roi pages "$data" >checked.txt
	for x in "$@"; do
		set -- $x
		grep -qF "two_tables.c:$1=2M $data\` estimates the change; checked by the model: in 2 MiB pages, all page walks $all -> $2 ($3%)" \
			checked.txt || fail "$data: two_tables.c:$1 not $all -> $2: $(cat checked.txt)"
	done
}
checked tt.data 6,144 "$al 2,048 -66.7" "$bl 4,096 -33.3"
echo "ok: two findings' what-ifs in one replay: 6,144 -> 2,048 and 4,096 walks"
# Forked after the tables are set, each process reads them so, on a
# machine of its own: the child's starts cold, so its first reads of the
# table in 2 MiB pages walk, one a page (A 4, B 2): 12,288 -> 4,100 and 8,194.
"$MEMPRISM" record -q --no-pagemap -o tf.data -- ./two_tables 2048 2 fork >/dev/null
checked tf.data 12,288 "$al 4,100 -66.6" "$bl 8,194 -33.3"
echo "ok: two processes, two findings' what-ifs in one replay: 12,288 -> 4,100 and 8,194 walks"
# The check's replay takes the two processes at once (--jobs N, each
# check on TLBs of its own in each process, the walks added up): report
# and tlb the same, byte for byte, at --jobs 1, 2 and 3.
for cmd in "report --roi pages" "report --roi pages --format json" "tlb --roi pages"; do
	for j in 1 2 3; do
		# shellcheck disable=SC2086
		"$MEMPRISM" $cmd --jobs $j --model ./small.machine "${T[@]}" tf.data > "r$j" 2> "e$j"
	done
	grep -qF "checked by the model" r1 || fail "tf.data $cmd: no checked finding: $(cat r1)"
	cmp -s r1 r2 && cmp -s r1 r3 && cmp -s e1 e2 && cmp -s e1 e3 ||
		fail "tf.data $cmd: --jobs 2 or 3 differs from --jobs 1: $(diff r1 r3 | head -5)"
done
for j in 1 3; do
	"$MEMPRISM" report -q --jobs $j --model ./small.machine "${T[@]}" --roi pages --html "h$j.html" tf.data
done
grep -qF "checked by the model" h1.html || fail "tf.data --html: no checked finding"
cmp -s h1.html h3.html || fail "tf.data --html: --jobs 3 differs from --jobs 1"
echo "ok: two processes' checks: report, tlb and --html the same at --jobs 1, 2 and 3"
# A burst-sampled replay's walks are estimates scaled by thread: there
# each check is a run of its own, as `whatif` makes it.
"$MEMPRISM" report -q --model ./small.machine "${T[@]}" --roi pages --sample-bursts 500,500 tt.data >ttb.txt
for l in "$al" "$bl"; do
	w=$("$MEMPRISM" whatif -q --model ./small.machine "${T[@]}" --roi pages --sample-bursts 500,500 \
		--vs-pages "two_tables.c:$l=2M" --format csv tt.data | awk -F, 'NR > 1 { b += $4 } END { print b }')
	grep -qF "two_tables.c:$l=2M tt.data\` estimates the change; checked by the model: in 2 MiB pages, all page walks" ttb.txt &&
		grep -F "two_tables.c:$l=2M" ttb.txt | grep -qF -- "-> $(echo "$w" | sed ':a;s/\B[0-9]\{3\}\>/,&/;ta') (" ||
		fail "burst-sampled check of two_tables.c:$l: not $w walks as whatif says: $(cat ttb.txt)"
done
echo "ok: burst-sampled checks, one run each: as whatif estimates them"
