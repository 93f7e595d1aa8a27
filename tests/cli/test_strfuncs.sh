# Interposed str*/mem* functions: bytes loaded and stored per object follow
# from each function's definition (tests/rt/strfuncs.c works them out), one
# ranged access per call; strdup/strndup blocks belong to their caller's line.
source "$(dirname "$0")/lib.sh"
build_rt strfuncs -fno-builtin
expect_eq "output" "0 5 (nil) 5 hello hell" "$(./strfuncs)"
"$MEMPRISM" record -q -o s.data -- ./strfuncs >/dev/null
"$MEMPRISM" report --roi work --format csv s.data >s.csv
line() { grep -n "@$1" "$MP_SRC/tests/rt/strfuncs.c" | cut -d: -f1; }
A="heap main \\(strfuncs.c:$(line A)\\)"
B="heap main \\(strfuncs.c:$(line B)\\)"
D="heap main \\(strfuncs.c:$(line D)\\)"
E="heap main \\(strfuncs.c:$(line E)\\)"
expect_eq "a bytes loaded (6+3+10+6+6)" 31 "$(csv_field s.csv "$A" bytes_loaded)"
expect_eq "a loads (5 calls)" 5 "$(csv_field s.csv "$A" loads)"
expect_eq "a stores" 0 "$(csv_field s.csv "$A" stores)"
expect_eq "b bytes stored (16+3)" 19 "$(csv_field s.csv "$B" bytes_stored)"
expect_eq "b bytes loaded (5+3+6+4)" 18 "$(csv_field s.csv "$B" bytes_loaded)"
expect_eq "b accesses (2 stores, 4 loads)" 6 "$(csv_field s.csv "$B" accesses)"
expect_eq "strdup block stored" 6 "$(csv_field s.csv "$D" bytes_stored)"
expect_eq "strndup block stored" 5 "$(csv_field s.csv "$E" bytes_stored)"
expect_eq "strndup block size" 5 "$(csv_field s.csv "$E" size)"

# Constant-length mem* calls and struct copies of every size, built with
# builtins (the compiler makes them intrinsics): each one ranged access of
# exactly its bytes, whether the pass records it (up to 64 bytes) or libc
# does (beyond: never expanded inline unrecorded). Per iteration 8 stores
# of 100+200+100+128+96+64+600+200 bytes and 5 loads of 100+128+96+64+200;
# after the loop printf's three 1-byte loads.
build_rt memconst
n=10
expect_eq "memconst output" 18 "$(./memconst $n)"
"$MEMPRISM" record -q -o m.data -- ./memconst $n >/dev/null
"$MEMPRISM" report --format csv m.data >m.csv
M="heap main \\(memconst.c:$(grep -n "@block" "$MP_SRC/tests/rt/memconst.c" | cut -d: -f1)\\)"
expect_eq "constant-length copies: stores" $((8 * n)) "$(csv_field m.csv "$M" stores)"
expect_eq "constant-length copies: bytes stored" $((1488 * n)) "$(csv_field m.csv "$M" bytes_stored)"
expect_eq "constant-length copies: loads" $((5 * n + 3)) "$(csv_field m.csv "$M" loads)"
expect_eq "constant-length copies: bytes loaded" $((588 * n + 3)) "$(csv_field m.csv "$M" bytes_loaded)"
