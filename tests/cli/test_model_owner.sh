# DRAM writes by function (docs/model.md, "Regions and writebacks"): a line's
# writeback goes to the function whose store last dirtied it. tests/rt/
# owner_fn.c loads and stores each line of an 8 MiB block in rmw_line (the
# store made in place after the load), then stores to it again in
# put_line: 131,072 lines, each written back once (the block is twice the
# LLC of the Nehalem preset, and main reads it again after), all
# put_line's. (Not the host model: its LLC is the machine's, 32 MiB on
# some, which holds the whole block.) The
# repeat short-cut once took put_line's store as a repeat of rmw_line's and
# charged rmw_line.
source "$(dirname "$0")/lib.sh"
build_rt owner_fn
"$MEMPRISM" record -q --no-pagemap -o o.data -- ./owner_fn 131072 > /dev/null
# one model core: the default follows the CPUs the thread ran on, and a
# move mid-block would find lines in the other core's caches, not DRAM
"$MEMPRISM" report -q --model nehalem-e5504 --thread-map spread --by function --format csv o.data > fn.csv
"$MEMPRISM" report -q --model nehalem-e5504 --thread-map spread --format csv o.data > obj.csv
line=$(grep -n 'calloc' "$MP_SRC/tests/rt/owner_fn.c" | cut -d: -f1)
expect_eq "put_line's DRAM writes" 131072 "$(csv_field fn.csv put_line dram_writes)"
expect_eq "rmw_line's DRAM writes" 0 "$(csv_field fn.csv rmw_line dram_writes)"
expect_eq "rmw_line's DRAM reads (write-allocate)" 131072 "$(csv_field fn.csv rmw_line dram_reads)"
expect_eq "the block's DRAM writes" 131072 "$(csv_field obj.csv "heap main \\(owner_fn.c:$line\\)" dram_writes)"
