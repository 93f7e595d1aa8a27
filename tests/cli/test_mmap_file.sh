# Mappings: a read-only file mapping is the row "file SITE <absolute path>"
# with one load per page read; anonymous mmaps are labelled by the line of the mmap
# call, with exact stores/loads; after munmap a new mapping (often at an
# address just freed) is a different object (tests/rt/mmap_file.c).
source "$(dirname "$0")/lib.sh"
build_rt mmap_file
src="$MP_SRC/tests/rt/mmap_file.c"
"$MEMPRISM" record -q -o mmap.data -- ./mmap_file data.bin > out.txt
cat out.txt
path=$(realpath data.bin)
"$MEMPRISM" report --roi work --format csv mmap.data > obj.csv
re_path=$(printf '%s' "$path" | sed 's/[][\.*^$()+?{}|/]/\\&/g')
lf=$(grep -n '/\* @FILE \*/' "$src" | cut -d: -f1)
flab="^file main \\(mmap_file\\.c:$lf\\) $re_path\$"
expect_eq "file loads" 256 "$(csv_field obj.csv "$flab" loads)"
expect_eq "file stores" 0 "$(csv_field obj.csv "$flab" stores)"
expect_eq "file bytes_loaded" 256 "$(csv_field obj.csv "$flab" bytes_loaded)"
expect_eq "file kind" '"file"' "$(csv_field obj.csv "$flab" kind)"
expect_eq "file size" 1048576 "$(csv_field obj.csv "$flab" size)"
l1=$(grep -n '/\* @ANON \*/' "$src" | cut -d: -f1)
l2=$(grep -n '/\* @ANON2 \*/' "$src" | cut -d: -f1)
[ -n "$l1" ] && [ -n "$l2" ] || fail "markers not found in mmap_file.c"
a1="^mmap main \\(mmap_file\\.c:$l1\\)\$"
expect_eq "anon stores" 16384 "$(csv_field obj.csv "$a1" stores)"
expect_eq "anon loads" 256 "$(csv_field obj.csv "$a1" loads)"
expect_eq "anon bytes_stored" $((16384 * 8)) "$(csv_field obj.csv "$a1" bytes_stored)"
expect_eq "anon kind" '"mmap"' "$(csv_field obj.csv "$a1" kind)"
expect_eq "anon size" 1048576 "$(csv_field obj.csv "$a1" size)"
expect_eq "anon threads" 1 "$(csv_field obj.csv "$a1" threads)"
a2="^mmap main \\(mmap_file\\.c:$l2\\)\$"
expect_eq "second anon stores ($(sed -n 's/^anon2 //p' out.txt))" 100 "$(csv_field obj.csv "$a2" stores)"
expect_eq "second anon loads" 0 "$(csv_field obj.csv "$a2" loads)"
