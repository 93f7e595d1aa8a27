# Bounded mode: --sample-bursts ON,OFF records bursts of ON accesses per
# thread and skips OFF. Recorded + skipped must equal the full run's total
# exactly, the estimates must be close to the truth, and the trace smaller.
# The figures in the comments are the full size's. Under the sanitizers the
# inputs are D times smaller, and so are the bursts and, where the input's
# footprint shrinks, the modelled caches and TLBs (E5504): a line is seen
# in as many bursts, and a footprint is as far past or within each cache,
# as at full size. test_sampling_model.sh has the model's estimates on
# other programs, and bursts made at replay.
source "$(dirname "$0")/lib.sh"
D=$(sized 1 4)
E5504=$(sized_machine nehalem-e5504 "$D")
bursts() { echo $(($1 / D)),$(($2 / D)); } # ON OFF at full size
"$MEMPRISM" cc -O2 -g "$MP_SRC/examples/arrays.c" -o arrays
# --no-pagemap: caches indexed virtually, so the two runs' model figures
# cannot differ by where the kernel placed frames between the launcher's
# looks (that alone can put a main-thread count 1,793 reads short)
mib=$((64 / D))
"$MEMPRISM" record -q --no-pagemap -o full.data -- ./arrays $mib >/dev/null
"$MEMPRISM" record -q --no-pagemap --sample-bursts "$(bursts 100000 900000)" -o sampled.data -- ./arrays $mib >/dev/null
full=$("$MEMPRISM" report --format json full.data | grep -o '"sampling":{[^}]*}')
samp=$("$MEMPRISM" report --format json sampled.data | grep -o '"sampling":{[^}]*}')
num() { echo "$1" | grep -o "\"$2\":[0-9.]*" | cut -d: -f2; }
total=$(num "$full" recorded)
expect_eq "full run skips nothing" 0 "$(num "$full" skipped)"
expect_eq "recorded + skipped = all accesses" "$total" $(($(num "$samp" recorded) + $(num "$samp" skipped)))
[ "$(num "$samp" skipped)" -gt 0 ] || fail "nothing was skipped"
# per-array estimates within 1% of its accesses (1,048,576: a line each)
"$MEMPRISM" report --roi kernel --format csv sampled.data >s.csv
line=$(grep -n 'malloc(bytes)' "$MP_SRC/examples/arrays.c" | head -1 | cut -d: -f1)
est=$(csv_field s.csv "heap main \\(arrays.c:$line\\)" accesses)
n=$((mib << 14))
diff=$((est > n ? est - n : n - est))
[ $((diff * 100)) -le $n ] || fail "estimate $est is more than 1% from $n"
echo "ok: estimate $est for $n"
grep -q "estimates" <("$MEMPRISM" report --roi kernel sampled.data) || fail "text report does not say the counts are estimates"
# Each thread is scaled by its own factor. The main thread does the five
# 64 MiB memsets (one access each, all recorded: it never reaches the end
# of its first burst) and skips nothing: its row is the full run's, and
# its memsets' DRAM traffic counts once. One factor over all threads (x7.06)
# would put the sampled totals at 4x the full run's (reads +303%, writes
# +395%).
within_pct() { # what expected actual percent
	local d=$(($3 - $2))
	[ $((${d#-} * 100)) -le $(($2 * $4)) ] || fail "$1: $3 is more than $4% from $2"
	echo "ok: $1 = $3 (full run $2, within $4%)"
}
# one model run per trace: the thread view's rows have the threads' figures
"$MEMPRISM" report --by thread --model "$E5504" --format json full.data >full_model.json
"$MEMPRISM" report --by thread --model "$E5504" --format json sampled.data >samp_model.json
dram() { grep -o "\"dram_$2\":[0-9]*" "$1" | head -1 | cut -d: -f2; } # the total's (first) mem
# Reads: every worker access is a line fill, ~exact. Writes: the workers'
# estimates are off by their phases (each records its first 100,000
# accesses, reads for a0-a3, and its last 48,576, writes: -540K, -6.9%).
# The dirty lines still cached when the trace ends (up to the E5504's
# 65,536, never written back) would be missed x7.06 where the full run
# misses them once (-10.5% to -12.1% in all); an_model_finish counts the
# other 6.06 (-6.8%).
within_pct "sampled total DRAM reads" "$(dram full_model.json reads)" "$(dram samp_model.json reads)" 2
within_pct "sampled total DRAM writes" "$(dram full_model.json writes)" "$(dram samp_model.json writes)" 9
# The TLB view's pages: each thread's misses scaled by its own factor (its
# rows are kept apart), so a page's walks add up to the full run's: the
# workers' pages each miss once per pass in either run. (Unscaled, the
# sampled total would be -43%.)
walks() { "$MEMPRISM" tlb --model "$E5504" --format csv "$1" | awk -F, 'NR > 1 { w += $5 } END { print w }'; }
within_pct "sampled page walks (tlb view)" "$(walks full.data)" "$(walks sampled.data)" 2
grep -q "^sampled: .*estimates" <("$MEMPRISM" tlb --model "$E5504" sampled.data) ||
	fail "the TLB view of a sampled trace does not say its figures are estimates"
# The NUMA view scales each thread's part of its tables by the thread's
# factor, as report does: on 2 simulated nodes the sampled matrix and
# totals come out as the full run's (unscaled, 742,946 accesses for
# 5,242,946), and it says they are estimates.
# whatif: each run's warnings, a warning of both once (not B's only)
"$MEMPRISM" whatif --model "$E5504" --vs-pages 2M sampled.data >whatif.txt
grep -q "^warning (A, B): the model saw only the sampled bursts" whatif.txt ||
	fail "whatif does not say both runs' model saw the bursts only"
# (in the binary form, to nowhere: the CSV of every request was 757 MB, half the test's time)
grep -q "the bursts' requests only, unscaled" <("$MEMPRISM" memtrace --model "$E5504" -f bin -o /dev/null sampled.data 2>&1) ||
	fail "memtrace of a sampled trace does not say its requests are the bursts' only"
grep -q "^sampled: .*estimates" <("$MEMPRISM" numa --numa 2x2 sampled.data) ||
	fail "the NUMA view of a sampled trace does not say its counts are estimates"
"$MEMPRISM" numa --numa 2x2 --format json full.data >numa_full.json
"$MEMPRISM" numa --numa 2x2 --format json sampled.data >numa_samp.json
expect_eq "numa JSON sampling" "\"sampling\":{\"recorded\":$(num "$samp" recorded),\"skipped\":$(num "$samp" skipped),\"scaled\":true}" \
	"$(grep -o '"sampling":{[^}]*}' numa_samp.json)"
top() { grep -o "^\"accesses\":[0-9]*,\"remote\":[0-9]*" "$1" | grep -o "\"$2\":[0-9]*" | cut -d: -f2; }
within_pct "sampled NUMA accesses" "$(top numa_full.json accesses)" "$(top numa_samp.json accesses)" 1
within_pct "sampled NUMA remote accesses" "$(top numa_full.json remote)" "$(top numa_samp.json remote)" 1
# and the full trace replayed in the same bursts (numa takes
# --sample-bursts, as its help says)
"$MEMPRISM" numa --numa 2x2 --model "$E5504" --sample-bursts "$(bursts 100000 900000)" --format json full.data 2>/dev/null >numa_replay.json
within_pct "replayed NUMA accesses" "$(top numa_full.json accesses)" "$(top numa_replay.json accesses)" 1
within_pct "replayed NUMA remote accesses" "$(top numa_full.json remote)" "$(top numa_replay.json remote)" 1
main_pid() { grep -o '"processes":\[{"pid":[0-9]*' "$1" | grep -o '[0-9]*$'; }
main_row() { # the main thread's (tid = pid) entry in "threads", from its counts on
	local pid
	pid=$(main_pid "$1")
	grep -o "{\"pid\":$pid,\"tid\":$pid,[^}]*}" "$1" | sed 's/.*"accesses"/"accesses"/'
}
expect_eq "main thread's counts, sampled as full" "$(main_row full_model.json)" "$(main_row samp_model.json)"
grep -q '"skipped_accesses":0,"sample_factor":1.000000}' <(main_row samp_model.json) ||
	fail "the main thread skipped nothing, but its factor is not 1"
main_reads() { # the main thread's row's modelled DRAM reads
	local pid
	pid=$(main_pid "$1")
	grep -o "\"label\":\"pid $pid tid $pid .*" "$1" | grep -o '"dram_reads":[0-9]*' | head -1 | cut -d: -f2
}
# A writeback goes to the thread and function whose store dirtied the
# line: the main thread's writes are main()'s (its memsets), the workers'
# all run()'s, and the function view adds up to the total.
main_writes() {
	local pid
	pid=$(main_pid "$1")
	grep -o "\"label\":\"pid $pid tid $pid .*" "$1" | grep -o '"dram_writes":[0-9]*' | head -1 | cut -d: -f2
}
"$MEMPRISM" report --by function --model "$E5504" --format csv full.data >full_fn.csv
fw_total=$(dram full_model.json writes)
expect_eq "main()'s DRAM writes are the main thread's" "$(main_writes full_model.json)" \
	"$(csv_field full_fn.csv '^main$' dram_writes)"
expect_eq "run()'s DRAM writes are the workers'" $((fw_total - $(main_writes full_model.json))) \
	"$(csv_field full_fn.csv '^run$' dram_writes)"
expect_eq "function rows' DRAM writes add up to the total" "$fw_total" "$(sum_col full_fn.csv dram_writes)"
# its memsets' 5,242,880 fills exactly; its few accesses after the join find
# the caches as the workers left them, which differs from run to run
full_main=$(main_reads full_model.json)
samp_main=$(main_reads samp_model.json)
d=$((samp_main - full_main))
[ ${d#-} -le 64 ] || fail "main thread's DRAM reads: $samp_main sampled, $full_main in full"
echo "ok: main thread's DRAM reads: $samp_main sampled, $full_main in full"
grep -q "each thread's recorded x its own factor, 1.00 to 7.0" <("$MEMPRISM" report sampled.data) ||
	fail "the text report does not give the threads' factors"
# Skips and bursts shorter than a round of malloc, 2,048 accesses and free:
# events fall inside skips, every access is still the block's, and the
# counts add up exactly (-O1: one access per int, as the comment counts).
"$MEMPRISM" cc -O1 -g "$MP_SRC/tests/rt/sampling_events.c" -o events
"$MEMPRISM" record -q --sample-bursts 1000,3000 -o events.data -- ./events >/dev/null
samp=$("$MEMPRISM" report --format json events.data | grep -o '"sampling":{[^}]*}')
expect_eq "events: recorded" 1024000 "$(num "$samp" recorded)"
expect_eq "events: skipped" 3072000 "$(num "$samp" skipped)"
"$MEMPRISM" report --format csv events.data >e.csv
expect_eq "events: the block's estimate" 4096000 "$(csv_field e.csv '^heap main ' accesses)"
expect_eq "events: unknown accesses" missing "$(csv_field e.csv '^unknown' accesses)"
# the model's share of physically indexed references is a share of the
# estimate, not of what was recorded: all of them, as in a full run
"$MEMPRISM" record -q -o events_full.data -- ./events >/dev/null
phys() { "$MEMPRISM" report --model host "$1" 2>/dev/null | grep '^physical:' | sed 's/(translations.*//'; }
expect_eq "events: physically indexed share, sampled as full" "$(phys events_full.data)" "$(phys events.data)"
# its footprint (one 4 KiB block, reused) fits the LLC: the model's misses
# in later bursts are first touches the skips would have hit, and the
# report says its DRAM estimates are likely far too high; arrays' 320 MiB
# does not fit, and gets no such warning
grep -q "fits the modelled LLC (4096 KiB)" <("$MEMPRISM" report --model nehalem-e5504 events.data 2>&1) ||
	fail "a sampled small-footprint program is not warned of its cold-miss bias"
grep -q "fits the modelled LLC" samp_model.json && fail "arrays (320 MiB) warned as if it fitted the LLC"
echo "ok: the cold-miss warning (events yes, arrays no)"
# A long range is one access, recorded or skipped as any other, and scaled
# with its thread: a 16 MiB memset at the start, recorded in the first
# burst, comes out 10 times. The report says so where such lines are much
# of a scaled thread's (not for arrays, whose memsets are the main
# thread's, which skips nothing).
cat >initset.c <<'SRC'
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
int main(void)
{
	size_t n = 2u << 20;
	volatile uint64_t *p = malloc(n * 8);
	memset((void *)p, 1, n * 8);
	uint64_t s = 0;
	for (int r = 0; r < 2; r++)
		for (size_t i = 0; i < n; i += 8)
			s += p[i] += (uint64_t)r;
	return (int)(s & 1);
}
SRC
"$MEMPRISM" cc -O2 initset.c -o initset
"$MEMPRISM" record -q --no-pagemap --sample-bursts 1000,9000 -o initset.data -- ./initset || true
grep -q "long ranges (memset, memcpy) recorded in its bursts" <("$MEMPRISM" report --model nehalem-e5504 initset.data 2>&1) ||
	fail "a scaled thread's recorded memset is not warned of"
grep -q "long ranges" <("$MEMPRISM" report --model "$E5504" sampled.data 2>&1) &&
	fail "arrays' main-thread memsets (factor 1) warned of"
echo "ok: the long-range warning (initset yes, arrays no)"
# a failed exec (the runtime flushed before it) does not end the sampling
"$MEMPRISM" cc -O1 -g "$MP_SRC/tests/rt/sampling_exec.c" -o exec_fail
"$MEMPRISM" record -q -o exec_full.data -- ./exec_fail >/dev/null
"$MEMPRISM" record -q --sample-bursts 1000,3000 -o exec_samp.data -- ./exec_fail >/dev/null
full=$("$MEMPRISM" report --format json exec_full.data | grep -o '"sampling":{[^}]*}')
samp=$("$MEMPRISM" report --format json exec_samp.data | grep -o '"sampling":{[^}]*}')
expect_eq "failed exec: recorded + skipped = all" "$(num "$full" recorded)" \
	$(($(num "$samp" recorded) + $(num "$samp" skipped)))
[ $(($(num "$samp" recorded) * 3)) -lt "$(num "$full" recorded)" ] ||
	fail "failed exec: $(num "$samp" recorded) of $(num "$full" recorded) recorded: sampling stopped"
echo "ok: failed exec: $(num "$samp" recorded) of $(num "$full" recorded) recorded"
# bad values are refused
for bad in 5 0,5 5,0 -1,5 a,b 5,; do
	if "$MEMPRISM" record --sample-bursts "$bad" -- true 2>err.txt; then fail "--sample-bursts $bad accepted"; fi
	grep -q "sample-bursts wants ON,OFF" err.txt || fail "no clear message for $bad"
done
echo "ok: bad values refused"
