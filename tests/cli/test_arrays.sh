# The ORMBP paper's micro-benchmark (its Table II) at full size: five 256 MiB
# arrays, one thread each, 64-byte stride, inside region "kernel". Each array
# sees exactly 4,194,304 accesses with the read/write split 4M/0, 3M/1M,
# 2M/2M, 1M/3M, 0/4M, attributed to its own allocation line and thread.
# Under the sanitizers the arrays are 16 MiB, still 4 times the modelled
# LLC: every count below is a multiple of Q, a quarter of an array's
# accesses (1,048,576 at 256 MiB, 65,536 at 16).
source "$(dirname "$0")/lib.sh"
mib=$(sized 256 16)
"$MEMPRISM" cc -O2 -g "$MP_SRC/examples/arrays.c" -o arrays
# --no-pagemap: caches indexed virtually, so the counts cannot depend on how
# the kernel placed (or, under memory pressure, moved) frames between the
# launcher's looks; test_phys.sh covers physical indexing
"$MEMPRISM" record -q --no-pagemap -o arrays.data -- ./arrays "$mib"
"$MEMPRISM" report --roi kernel --format csv arrays.data > obj.csv
M=1048576
Q=$((mib * M / 64 / 4))
mlines=($(grep -n 'malloc(bytes)' "$MP_SRC/examples/arrays.c" | cut -d: -f1))
[ ${#mlines[@]} -eq 5 ] || fail "expected 5 malloc lines in arrays.c"
reads=(4 3 2 1 0)
tids=""
for i in 0 1 2 3 4; do
	line=${mlines[i]}
	label="heap main \\(arrays.c:$line\\)"
	expect_eq "a$i accesses" $((4 * Q)) "$(csv_field obj.csv "$label" accesses)"
	expect_eq "a$i loads" $((reads[i] * Q)) "$(csv_field obj.csv "$label" loads)"
	expect_eq "a$i stores" $(((4 - reads[i]) * Q)) "$(csv_field obj.csv "$label" stores)"
	expect_eq "a$i threads" 1 "$(csv_field obj.csv "$label" threads)"
	expect_eq "a$i size" $((mib * M)) "$(csv_field obj.csv "$label" size)"
done
# one distinct thread per array
"$MEMPRISM" report --roi kernel --format json arrays.data > obj.json
n=$(grep -o '"label":"heap main (arrays.c:[0-9]*)"[^}]*"threads":\[[0-9]*\]' obj.json | grep -o 'threads":\[[0-9]\+' | sort -u | wc -l)
expect_eq "distinct threads across the five arrays" 5 "$n"
# without --roi the memsets appear: one ranged store of the array's size each
"$MEMPRISM" report --format csv arrays.data > all.csv
line=${mlines[0]}
expect_eq "a0 accesses incl. memset" $((4 * Q + 1)) "$(csv_field all.csv "heap main \\(arrays.c:$line\\)" accesses)"
expect_eq "a0 bytes stored by memset" $((mib * M)) "$(csv_field all.csv "heap main \\(arrays.c:$line\\)" bytes_stored)"
# trace stays compact: at most 4 bytes per access
size=$(stat -c %s arrays.data)
total=$((5 * 4 * Q))
[ $((size * 1)) -le $((4 * total)) ] || fail "trace is $size bytes for $total accesses"
echo "ok: trace $size bytes for $total accesses"

# The model on the same trace (the ORMBP paper's Table II): an LLC far smaller than
# 256 MiB (the paper's own E5504, 4 MiB), write-back write-allocate. Every
# access misses: ~4,194,304 DRAM reads per array, and DRAM writes
# 0 / 1,048,576 / 2,097,152 / 3,145,728 / 4,194,304, each within 1%
# (the paper's worst error is 2.04%).
"$MEMPRISM" report --roi kernel --model nehalem-e5504 --format csv arrays.data > model.csv
within() { # what expected actual tolerance
	local d=$(($3 - $2))
	[ ${d#-} -le "$4" ] || fail "$1: expected $2 within $4, got $3"
	echo "ok: $1 = $3 (expected $2 +- $4)"
}
for i in 0 1 2 3 4; do
	label="heap main \\(arrays.c:${mlines[i]}\\)"
	within "a$i DRAM reads" $((4 * Q)) "$(csv_field model.csv "$label" dram_reads)" $((4 * Q / 100))
	w=$(((4 - reads[i]) * Q))
	tol=$((w / 100))
	[ $tol -gt 0 ] || tol=$((4 * Q / 100)) # 0 writes: 1% of the array's requests
	within "a$i DRAM writes" $w "$(csv_field model.csv "$label" dram_writes)" $tol
	expect_eq "a$i origin" modelled "$(csv_field model.csv "$label" origin)"
done
# A writeback goes to the store that dirtied the line: by thread, each
# worker has its array's writes (the main thread none inside the region),
# and the view adds up to the total, the objects' sum. (One more model run
# of this trace; test_sampling checks the function view on a smaller one.)
"$MEMPRISM" report --roi kernel --by thread --model nehalem-e5504 --format csv arrays.data >bythread.csv
col=$(head -1 bythread.csv | tr , '\n' | grep -nx dram_writes | cut -d: -f1)
got=($(awk -F, -v c="$col" -v a=$((4 * Q)) 'NR > 1 && $3 >= a { print $c }' bythread.csv | sort -n))
[ ${#got[@]} -eq 5 ] || fail "expected 5 worker threads, got ${#got[@]}"
for i in 0 1 2 3 4; do
	w=$((i * Q))
	tol=$((w / 100))
	[ $tol -gt 0 ] || tol=$((4 * Q / 100))
	within "a$i's thread: DRAM writes" $w "${got[i]}" $tol
done
expect_eq "thread rows' DRAM writes add up to the objects'" "$(sum_col model.csv dram_writes)" \
	"$(sum_col bythread.csv dram_writes)"

# Set sampling (--sample-sets 16): the caches of 1 set in 16, every figure of
# a cache or DRAM scaled by 16. On this stream each array's lines fall evenly
# in and out of the sample: the same Table II within the same 1%. The TLBs
# are modelled in full, so their figures equal the full run's exactly.
"$MEMPRISM" report --roi kernel --model nehalem-e5504 --sample-sets 16 --format csv arrays.data > model16.csv
for i in 0 1 2 3 4; do
	label="heap main \\(arrays.c:${mlines[i]}\\)"
	within "sampled a$i DRAM reads" $((4 * Q)) "$(csv_field model16.csv "$label" dram_reads)" $((4 * Q / 100))
	w=$(((4 - reads[i]) * Q))
	tol=$((w / 100))
	[ $tol -gt 0 ] || tol=$((4 * Q / 100))
	within "sampled a$i DRAM writes" $w "$(csv_field model16.csv "$label" dram_writes)" $tol
	for col in refs dtlb_hits stlb_hits walks walk_refs; do
		expect_eq "sampled a$i $col (exact)" "$(csv_field model.csv "$label" $col)" \
			"$(csv_field model16.csv "$label" $col)"
	done
done
"$MEMPRISM" report --roi kernel --model nehalem-e5504 --sample-sets 16 arrays.data > model16.txt
grep -q "^sets: *L2 and LLC modelled for 1 set in 16.*ESTIMATES" model16.txt ||
	fail "the sampled report does not say its cache figures are estimates"
grep -q '"sample_sets":16' <("$MEMPRISM" report --model nehalem-e5504 --sample-sets 16 --format json arrays.data) ||
	fail "JSON lacks sample_sets"
echo "ok: the sampled report says so (text and JSON)"
# N must be a power of two dividing every cache's sets (the E5504's L1D has 64)
run 2 "--sample-sets 3" "$MEMPRISM" report --model nehalem-e5504 --sample-sets 3 arrays.data
said "--sample-sets 3" "power of two"
run 2 "--sample-sets 128 on a 64-set L1D" "$MEMPRISM" report --model nehalem-e5504 --sample-sets 128 arrays.data
said "--sample-sets 128" "L1D of .* has 64 sets"
run 2 "--sample-sets without a model" "$MEMPRISM" report --sample-sets 16 arrays.data
run 2 "memtrace --sample-sets" "$MEMPRISM" memtrace --model nehalem-e5504 --sample-sets 16 -o /dev/null arrays.data
said "memtrace --sample-sets" "every DRAM request"
# ... so its help does not offer it; report's does
grep -- --sample-sets <("$MEMPRISM" memtrace --help) | grep -q refused || fail "memtrace --help offers --sample-sets, which it refuses"
grep -q -- --sample-sets <("$MEMPRISM" report --help) || fail "report --help lost --sample-sets"
