# Static variables: a global .bss array, a file-static .bss array and a const
# .rodata table (tests/rt/statics.c) get their own rows, labelled
# "static NAME (MODULE SECTION)", with exact load/store counts and sizes.
source "$(dirname "$0")/lib.sh"
build_rt statics
"$MEMPRISM" record -q -o statics.data -- ./statics > out.txt
grep -q '^checksum ' out.txt || fail "statics printed no checksum"
"$MEMPRISM" report --roi work --format csv statics.data > obj.csv
check() { # label loads stores bytes_loaded bytes_stored size
	local l=$1
	expect_eq "$l loads" "$2" "$(csv_field obj.csv "^$l\$" loads)"
	expect_eq "$l stores" "$3" "$(csv_field obj.csv "^$l\$" stores)"
	expect_eq "$l accesses" $(($2 + $3)) "$(csv_field obj.csv "^$l\$" accesses)"
	expect_eq "$l bytes_loaded" "$4" "$(csv_field obj.csv "^$l\$" bytes_loaded)"
	expect_eq "$l bytes_stored" "$5" "$(csv_field obj.csv "^$l\$" bytes_stored)"
	expect_eq "$l size" "$6" "$(csv_field obj.csv "^$l\$" size)"
	expect_eq "$l kind" '"static"' "$(csv_field obj.csv "^$l\$" kind)"
	expect_eq "$l threads" 1 "$(csv_field obj.csv "^$l\$" threads)"
}
check 'static table \(statics \.bss\)' 2000 1000 8000 4000 4000
check 'static vec \(statics \.bss\)' 256 512 2048 4096 4096
check 'static lut \(statics \.rodata\)' 300 0 300 0 256
# nothing inside the region falls outside a known object
expect_eq "unknown accesses in region" missing "$(csv_field obj.csv '^unknown' accesses)"
