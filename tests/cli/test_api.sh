# The <memprism.h> API (tests/rt/api.c): allocation groups, a region opened
# twice, and a user-named sub-range of a heap block.
#
# BUG (fails today, last block of checks): a named sub-range does not take
# precedence over the heap block around it when the program walks the block
# sequentially: all 1024 stores go to the heap row and "named middle" gets 0.
# The per-thread lookup cache in apply_access (src/analysis/an_replay.c)
# reuses the previously hit object while the address stays inside it and the
# map is unchanged, without checking higher-priority layers; once an access
# hits the heap block, the named range inside it is never looked up.
# test_layer_shadow.sh isolates it.
source "$(dirname "$0")/lib.sh"
build_rt api
src="$MP_SRC/tests/rt/api.c"
"$MEMPRISM" record -q -o api.data -- ./api > out.txt
grep -q '^checksum ' out.txt || fail "api printed no checksum"
line_of() { grep -n "/\\* @$1 \\*/" "$src" | cut -d: -f1; }
heap() { echo "^heap main \\(api\\.c:$(line_of "$1")\\)\$"; }
"$MEMPRISM" report --roi work --format csv api.data > roi.csv
"$MEMPRISM" report --format csv api.data > all.csv

# group: one row for the 1000 allocations, none at the allocation line
G='^group nodes$'
expect_eq "group kind" '"group"' "$(csv_field roi.csv "$G" kind)"
expect_eq "group instances" 1000 "$(csv_field roi.csv "$G" instances)"
expect_eq "group size" 16000 "$(csv_field roi.csv "$G" size)"
expect_eq "group max_size" 16 "$(csv_field roi.csv "$G" max_size)"
expect_eq "group stores" 2000 "$(csv_field roi.csv "$G" stores)"
expect_eq "group loads" 1000 "$(csv_field roi.csv "$G" loads)"
expect_eq "group accesses" 3000 "$(csv_field roi.csv "$G" accesses)"
expect_eq "no heap row at the grouped line" missing "$(csv_field all.csv "$(heap NODE)" accesses)"
# after group_end allocations are ordinary again
expect_eq "@AFTER stores (16 + 5 over both spans)" 21 "$(csv_field roi.csv "$(heap AFTER)" stores)"
expect_eq "@AFTER instances" 1 "$(csv_field roi.csv "$(heap AFTER)" instances)"

# region opened twice: both spans count, the stores between them do not
expect_eq "x stores in region work (50 + 30)" 80 "$(csv_field roi.csv "$(heap X)" stores)"
expect_eq "x stores without --roi (50 + 70 + 30)" 150 "$(csv_field all.csv "$(heap X)" stores)"
"$MEMPRISM" report --roi work --format json api.data > roi.json
outside=$(grep -o '"outside_roi":[0-9]*' roi.json | cut -d: -f2)
[ -n "$outside" ] && [ "$outside" -ge 70 ] || fail "outside_roi should count at least the 70 stores between the spans, got '$outside'"
echo "ok: outside_roi = $outside (>= 70)"

# named sub-range [256, 512) of the 1024-int block @BLK (see BUG above)
N='^named middle$'
expect_eq "named kind" '"named"' "$(csv_field roi.csv "$N" kind)"
expect_eq "named size" 1024 "$(csv_field roi.csv "$N" size)"
expect_eq "named middle stores" 256 "$(csv_field roi.csv "$N" stores)"
expect_eq "named middle loads" 0 "$(csv_field roi.csv "$N" loads)"
expect_eq "heap @BLK stores (outside the named range)" 768 "$(csv_field roi.csv "$(heap BLK)" stores)"
expect_eq "heap @BLK loads" 100 "$(csv_field roi.csv "$(heap BLK)" loads)"
