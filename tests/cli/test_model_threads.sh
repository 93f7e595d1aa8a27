# The exact model on threads (docs/model.md, "On several threads"): at
# --model-threads 2 an exact run of one process at a time models on a
# worker beside the replay where references miss (the whole model; lent
# and taken back as tests/unit/test_period.c has it often), at 3 and 4
# its caches on 2 and 3 workers, and every output is
# the output of one thread (the serial model), byte for byte: report in every format
# and in the views that show the model's figures, tlb, and whatif. On
# programs that make each kind of reference the model takes: threads on
# two cores with memset ranges inside a region (tests/rt/ranges.c: region
# boundaries clean the caches), passes over an array one word a line (the
# replay's repeats), a column walk whose lines conflict in L1's sets
# (conflicts.c), two processes in one file replayed one after another with
# a damaged end (fork_llc.c: each on a cold machine of its own), and
# physical addresses (the pagemap recorded: the caches indexed by frame).
# Each model worker takes whole classes of cache sets (model_par.c); a
# merge out of order, a writeback counted in the wrong row or owner, or a
# repeat taken where the serial model made a reference changes a figure
# here.
source "$(dirname "$0")/lib.sh"
for p in ranges passes conflicts fork_llc; do build_rt $p; done
"$MEMPRISM" record -q --no-pagemap -o ranges.data -- ./ranges "$(sized 1024 256)" > /dev/null
"$MEMPRISM" record -q --no-pagemap -o passes.data -- ./passes "$(sized 1024 256)" 2 > /dev/null
"$MEMPRISM" record -q --no-pagemap -o conflicts.data -- ./conflicts "$(sized 256 64)" 256 > /dev/null
"$MEMPRISM" record -q --no-pagemap -o fork.data -- ./fork_llc "$(sized 8192 2048)" > /dev/null
"$MEMPRISM" record -q -o phys.data -- ./passes "$(sized 512 128)" 1 > /dev/null
M=haswell-e5-2680v3
same() { # what command...: its stdout and stderr on 2, 3 and 4 threads equal those on 1
	local what=$1 j
	shift
	for j in 1 2 3 4; do
		"$MEMPRISM" "$1" --model-threads $j "${@:2}" > "out$j" 2> "err$j" ||
			fail "$what: --model-threads $j: exit $?: $(head -3 "err$j")"
	done
	for j in 2 3 4; do
		cmp -s out1 "out$j" && cmp -s err1 "err$j" ||
			fail "$what: --model-threads $j differs from 1: $(diff out1 "out$j" | head -6; diff err1 "err$j" | head -4)"
	done
	[ -s out1 ] || fail "$what: no output"
}
for d in ranges passes conflicts phys; do
	for f in text json; do
		same "$d report $f" report -q --model $M --format $f $d.data
	done
	same "$d report by function" report -q -n 0 --model $M --by function --format csv $d.data
	same "$d report by thread" report -q -n 0 --model $M --by thread --format csv $d.data
	same "$d tlb" tlb -q -n 0 --model $M --format csv $d.data
	same "$d whatif 2M pages" whatif -q -n 0 --model $M --vs-pages 2M --format csv $d.data
	echo "ok: $d: report, tlb and whatif the same on 1, 2, 3 and 4 threads"
done
same "ranges in a region" report -q --model nehalem-e5504 --roi ranges --format json ranges.data
# (a damaged file's processes replay one after another: junk after its end)
cp fork.data serial.data
head -c 200 /dev/urandom >> serial.data
same "two processes, one after another" report -q --model $M --by process --format csv serial.data
echo "ok: a region and a file's processes one after another the same on any number of threads"
# the figures are the model's, not empty: passes reads each line of its
# array from DRAM once per pass that misses the LLC (a 4 MiB array fits
# no L2 but the 30 MiB LLC: one DRAM read a line)
"$MEMPRISM" report -q --model-threads 3 --model $M --format csv passes.data > p.csv
lines=$(( $(sized 1024 256) * 64 ))
reads=$(csv_field p.csv '^heap' dram_reads)
[ "$reads" -ge "$lines" ] || fail "passes: $reads DRAM reads on 3 threads, fewer than its $lines lines"
echo "ok: passes: $reads DRAM reads on 3 threads (at least one a line)"
# --jobs (files and processes at once) leaves the model on one thread: the
# same figures; bad input is refused
"$MEMPRISM" report -q --model $M --jobs 3 --format json passes.data > jobs.json
"$MEMPRISM" report -q --model $M --format json passes.data > one.json
cmp -s jobs.json one.json || fail "--jobs 3 differs from one thread"
run 2 "--model-threads 0" "$MEMPRISM" report --model $M --model-threads 0 passes.data
said "--model-threads 0" "--model-threads wants a number of threads from 1 to 64 \(got '0'\)"
run 2 "--model-threads 65" "$MEMPRISM" report --model $M --model-threads 65 passes.data
run 2 "--model-threads without a model" "$MEMPRISM" report --model-threads 2 passes.data
said "--model-threads without a model" "need a model"
