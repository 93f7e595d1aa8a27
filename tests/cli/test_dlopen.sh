# dlopen (tests/rt/dlopen_main.c, tests/rt/dlopen_lib.c): an image loaded at
# run time brings its statics. lib_table, a static .bss array of the dlopen'd
# libdltest.so, gets its own row with exact counts: N stores, 512 loads.
source "$(dirname "$0")/lib.sh"
"$MEMPRISM" cc -O2 -g -shared -fPIC "$MP_SRC/tests/rt/dlopen_lib.c" -o libdltest.so
build_rt dlopen_main -ldl
"$MEMPRISM" record -q -o dlopen.data -- ./dlopen_main ./libdltest.so > out.txt || fail "record exited $?"
cat out.txt
grep -q '^checksum ' out.txt || fail "dlopen_main printed no checksum"
N=1500
"$MEMPRISM" report --roi work --format csv dlopen.data > obj.csv
T='^static lib_table \(libdltest\.so \.bss\)$'
expect_eq "lib_table loads" 512 "$(csv_field obj.csv "$T" loads)"
expect_eq "lib_table stores" $N "$(csv_field obj.csv "$T" stores)"
expect_eq "lib_table accesses" $((N + 512)) "$(csv_field obj.csv "$T" accesses)"
expect_eq "lib_table bytes_loaded" $((512 * 8)) "$(csv_field obj.csv "$T" bytes_loaded)"
expect_eq "lib_table bytes_stored" $((N * 8)) "$(csv_field obj.csv "$T" bytes_stored)"
expect_eq "lib_table size" 4096 "$(csv_field obj.csv "$T" size)"
expect_eq "lib_table kind" '"static"' "$(csv_field obj.csv "$T" kind)"
expect_eq "lib_table threads" 1 "$(csv_field obj.csv "$T" threads)"
# the library was dlopen'ed by a relative path: the trace holds an absolute
# one, so the report names its statics from any directory
mkdir -p elsewhere
(cd elsewhere && "$MEMPRISM" report --roi work --format csv ../dlopen.data) >elsewhere.csv 2>elsewhere.err || fail "report from another directory failed"
grep -q "cannot read symbols" elsewhere.err && fail "symbols lost from another directory: $(cat elsewhere.err)"
expect_eq "lib_table stores, reported from elsewhere" 1500 "$(csv_field elsewhere.csv 'static lib_table \(libdltest.so .bss\)' stores)"
# dlclose, then dlopen again: the unload is in the trace (its statics end),
# and the second lifetime of lib_table adds to the same row: N + M stores
"$MEMPRISM" record -q -o reload.data -- ./dlopen_main ./libdltest.so reload >/dev/null || fail "record (reload) exited $?"
expect_eq "unload events" 1 "$("$MEMPRISM" dump reload.data | grep -c 'module_unload')"
"$MEMPRISM" report --roi work --format csv reload.data >reload.csv
expect_eq "lib_table stores over two lifetimes" $((N + 250)) "$(csv_field reload.csv "$T" stores)"
expect_eq "lib_table instances" 2 "$(csv_field reload.csv "$T" instances)"
