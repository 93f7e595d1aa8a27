# The model runs each process of a data file on a machine of its own
# (docs/model.md, "Which core"): tests/rt/fork_llc.c's parent and child
# each store to, load and then memset 24,576 lines (1.5 MiB) of an array
# of their own, which fits the 2 MiB LLC of the generic machine alone but
# not beside the other's. Each array's lines come from DRAM once (the
# stores' write-allocate), its second and third passes are served by L2
# and the LLC, and its dirty lines stay cached to its process's end: no
# DRAM write. On one machine shared by both, the child's fills evicted
# the parent's dirty lines (16K DRAM writes charged to the parent). The
# child's TLB figures are the parent's, and each process's row holds its
# own DRAM requests.
source "$(dirname "$0")/lib.sh"
build_rt fork_llc
"$MEMPRISM" record -q --no-pagemap -o f.data -- ./fork_llc > out.txt
cat out.txt
cpid=$(sed -n 's/^child \([0-9]*\)$/\1/p' out.txt) ppid=$(sed -n 's/^parent \([0-9]*\)$/\1/p' out.txt)
[ -n "$cpid" ] && [ -n "$ppid" ] || fail "fork_llc printed no pids"
# the generic machine: one core, a 2 MiB LLC, STLB of 1,536 entries
printf 'name = onecore\nsockets = 1\ncores = 1\n' > one.machine
"$MEMPRISM" report -q --model one.machine --format csv f.data > obj.csv
"$MEMPRISM" report -q --model one.machine --by process --format csv f.data > proc.csv
src="$MP_SRC/tests/rt/fork_llc.c"
lp=$(grep -n '/\* @P \*/' "$src" | cut -d: -f1) lc=$(grep -n '/\* @C \*/' "$src" | cut -d: -f1)
P="^heap main \\(fork_llc\\.c:$lp\\)\$" C="^heap main \\(fork_llc\\.c:$lc\\)\$"
L=24576
for a in P C; do
	row=${!a}
	expect_eq "$a refs" $((3 * L)) "$(csv_field obj.csv "$row" refs)"
	expect_eq "$a DRAM reads (one per line)" $L "$(csv_field obj.csv "$row" dram_reads)"
	expect_eq "$a DRAM writes (dirty lines left at its process's end)" 0 "$(csv_field obj.csv "$row" dram_writes)"
	expect_eq "$a second and third passes from L2 and the LLC" $((2 * L)) \
		$(($(csv_field obj.csv "$row" l2) + $(csv_field obj.csv "$row" l3)))
	expect_eq "$a walks (one per 4 KiB page)" $((L * 64 / 4096)) "$(csv_field obj.csv "$row" walks)"
done
for col in dtlb_hits stlb_hits; do
	expect_eq "child's $col = parent's" "$(csv_field obj.csv "$P" $col)" "$(csv_field obj.csv "$C" $col)"
done
echo "ok: each process on a machine of its own: its array's figures its own"
# each process's row: its own DRAM requests; the rows add up to the total
expect_eq "child's process row (DRAM reads, writes)" "$L,0" \
	"$(awk -F, -v p="$cpid" '$3 == p { print $13 "," $14 }' proc.csv)"
expect_eq "parent's DRAM writes" 0 "$(awk -F, -v p="$ppid" '$3 == p { print $14 }' proc.csv)"
expect_eq "processes' DRAM reads = the objects'" "$(sum_col obj.csv dram_reads)" "$(sum_col proc.csv dram_reads)"
echo "ok: --by process: each process's own DRAM requests"

# the processes at once, each on its machine in its own state: the same
# report (set sampling: the memsets' L1 hits estimated in each process)
for j in 1 2; do
	"$MEMPRISM" report --jobs $j --model one.machine --sample-sets 4 f.data > "s$j.txt" 2> "s$j.err"
done
cmp -s s1.txt s2.txt && cmp -s s1.err s2.err || fail "--sample-sets: --jobs 2 differs: $(diff s1.txt s2.txt | head -5)"
# each memset's 384 pages: the first and the last 576 lines (L1's 32 KiB
# and a page: mp_model_range_tail_lines) modelled in full, and of the 374
# pages between, 48 lines a page estimated (64, less the 16 of the 1-in-4
# set sample, which take each page's first line: the lines are page
# aligned); 2 x 374 x 48 = 35,904 in the two processes
grep -q "but for 35,904 line refs" s1.txt || fail "the memsets' estimated L1 hits: $(grep -A1 '^sets:' s1.txt)"
echo "ok: --jobs 1 and 2 the same with set sampling's estimates"
