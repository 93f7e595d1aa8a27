# Bounded estimates where the bursts see lines unevenly (docs/design.md,
# burst sampling): each full trace replayed in bursts, against its full
# model. The figures in the comments are the full size's. Under the
# sanitizers every input is D or F times smaller, and so are the bursts
# and the modelled caches and TLBs: a line is seen in as many bursts, and
# the footprint is as far past or within each cache, as at full size.
source "$(dirname "$0")/lib.sh"
D=$(sized 1 8) # the Haswell cases'
F=$(sized 1 4) # the E5504 cases'
HASWELL=$(sized_machine haswell-e5-2680v3 "$D")
E5504=$(sized_machine nehalem-e5504 "$F")
"$MEMPRISM" cc -O2 "$MP_SRC/tests/rt/sampling_mix.c" -o mix -lpthread
# sized_machine's copies of the presets are the presets: undivided, they
# give the same figures on a short trace, in 4 KiB and 2 MiB pages (so the
# divided ones are the presets scaled, not some other machine)
"$MEMPRISM" record -q --no-pagemap -o short.data -- ./mix mtscan 4 1024 4 >/dev/null
figures() { # machine
	for pages in 4K 2M; do "$MEMPRISM" report -q --model "$1" --pages $pages --format csv short.data; done | md5sum
}
for p in nehalem-e5504 haswell-e5-2680v3; do
	expect_eq "$p as sized_machine's file" "$(figures $p)" "$(figures "$(MP_SANITIZED=1 sized_machine $p 1)")"
done
dram() { grep -o "\"dram_$2\":[0-9]*" "$1" | head -1 | cut -d: -f2; }
model() { # out machine data [bursts]
	"$MEMPRISM" report -q --model "$2" ${4:+--sample-bursts "$4"} --format json "$3" >"$1"
}
ratio_in() { # what full sampled lo hi (percent)
	[ $(($3 * 100)) -ge $(($2 * $4)) ] && [ $(($3 * 100)) -le $(($2 * $5)) ] ||
		fail "$1: $3, not within $4%-$5% of the full run's $2"
	echo "ok: $1: $3 for $2"
}
# A 64 MiB array streamed twice, then a 1 MiB one in use 200 times, on
# Haswell's 30 MiB LLC, in bursts of 1,000 in 100,000. The big array's
# lines are seen once each, the small one's in many bursts: one Chao1 over
# all would put the footprint at ~4 MiB, each line seen once standing for
# 2.7, and DRAM reads at 65,336 for 2,097,158 (-97%), writes 0. The 64 MiB
# the bursts touched bound the footprint beyond the LLC, and Chao1 per
# object puts it there too (the big array's lines seen once stand for up
# to OFF / ON others: ~130 MiB): misses scaled as ever (+78%), and the
# dirty lines left count by the share of that the LLC cannot hold (+76%).
"$MEMPRISM" record -q --no-pagemap -o phases.data -- ./mix phases $((65536 / D)) $((1024 / D)) 2 200 >/dev/null
model pfull.json "$HASWELL" phases.data
model psamp.json "$HASWELL" phases.data $((1000 / D)),$((99000 / D))
ratio_in "phases: DRAM reads" "$(dram pfull.json reads)" "$(dram psamp.json reads)" 70 250
ratio_in "phases: DRAM writes" "$(dram pfull.json writes)" "$(dram psamp.json writes)" 50 200
grep -q "which does not: its misses are scaled as if they recurred" psamp.json ||
	fail "phases: the report does not say the footprint is beyond the LLC"
echo "ok: phases: the footprint beyond the LLC is said"
# The same in 2 MiB pages: 33 of them hold it all, which Haswell's STLB
# does, so a walk is a page's first. The bound, counted in 4 KiB pages up
# to twice the LLC, would be over and say they do not fit: each walk a
# burst saw would be scaled as if it recurred, 2,589 for 35. In the pages
# each is modelled in, the bound fits: 28.
walks() { grep -o '"walks":[0-9]*' "$1" | head -1 | cut -d: -f2; }
"$MEMPRISM" report -q --model "$HASWELL" --pages 2M --format json phases.data >p2full.json
"$MEMPRISM" report -q --model "$HASWELL" --pages 2M --sample-bursts $((1000 / D)),$((99000 / D)) --format json phases.data >p2samp.json
ratio_in "phases in 2 MiB pages: page walks" "$(walks p2full.json)" "$(walks p2samp.json)" 70 130
# The main thread writes a 2 MiB array, then four threads each read and
# write their 512 KiB of it 100 times, on the E5504's 4 MiB LLC: the
# main thread's fills are the only DRAM reads. A line keeps the filler's
# rows, and loses its marks when another thread stores to it (a worker
# taking the fill back from its own rows would put the total's reads at 0). (Smaller, the array shrinks
# with the bursts: the main thread's stores stay within its first.)
"$MEMPRISM" record -q --no-pagemap -o mtscan.data -- ./mix mtscan 4 $((2048 / F)) 100 >/dev/null
model mfull.json "$E5504" mtscan.data
model msamp.json "$E5504" mtscan.data $((100000 / F)),$((900000 / F))
ratio_in "mtscan: DRAM reads" "$(dram mfull.json reads)" "$(dram msamp.json reads)" 95 105
"$MEMPRISM" report -q --by thread --model "$E5504" --sample-bursts $((100000 / F)),$((900000 / F)) --format csv mtscan.data >mthreads.csv
expect_eq "mtscan: the threads' DRAM reads add up to the total" "$(dram msamp.json reads)" "$(sum_col mthreads.csv dram_reads)"
# A producer writes 64-byte items into a 256 KiB ring, a consumer reads
# them: the ring is filled once. The consumer finds the lines the
# producer filled: taken back from the producer's rows (+1,533% if such
# lines lost their marks instead). (Smaller, half as many items in the
# same ring, which the LLC holds at either size; a quarter as many leave
# too few bursts for the estimate to settle: up to 124% of the full
# run's reads, where half gives 100-100.2%.)
P=$(sized 1 2)
"$MEMPRISM" record -q --no-pagemap -o prodcons.data -- ./mix prodcons 256 $((400000 / P)) >/dev/null
model cfull.json nehalem-e5504 prodcons.data
model csamp.json nehalem-e5504 prodcons.data $((10000 / P)),$((90000 / P))
ratio_in "prodcons: DRAM reads" "$(dram cfull.json reads)" "$(dram csamp.json reads)" 80 125
# Too few accesses recorded to estimate anything: said.
grep -q "too few for the model's estimates" <("$MEMPRISM" report --model nehalem-e5504 --sample-bursts 1,999999 prodcons.data) ||
	fail "a replay that kept a few accesses does not say they are too few"
echo "ok: too few accesses: said"
# Objects the bound takes whole though they are not heap or static: a
# 40 MiB file mapped and read 4 times, on Haswell's 30 MiB. Its pages
# touched only, as first built, the bound put it in 18 MiB that fitted:
# reads 234,477 for 2,621,451 (-91%); whole, misses scaled (-22%).
"$MEMPRISM" record -q --no-pagemap -o filemap.data -- ./mix filemap $((40960 / D)) 4 >/dev/null
model ffull.json "$HASWELL" filemap.data
model fsamp.json "$HASWELL" filemap.data $((100000 / D)),$((900000 / D))
ratio_in "file mapping: DRAM reads" "$(dram ffull.json reads)" "$(dram fsamp.json reads)" 70 130
# Traffic in libc's calls (qsort, memcpy of 32 MiB, strlen of 8 MiB), each
# one access that bursts seldom hold: replayed, the ranges the skips drop
# go into the bound too (reads -87% without them in it; -32% with).
"$MEMPRISM" record -q --no-pagemap -o libc.data -- ./mix libc $((16 / D)) >/dev/null
model lfull.json "$HASWELL" libc.data
model lsamp.json "$HASWELL" libc.data $((100000 / D)),$((900000 / D))
ratio_in "libc's ranges: DRAM reads" "$(dram lfull.json reads)" "$(dram lsamp.json reads)" 50 130
