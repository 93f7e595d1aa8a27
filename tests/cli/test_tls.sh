# Thread-local variables are objects: one row per variable, one instance per
# thread, exact counts (tests/rt/tls.c: 4 threads x 1000 stores + 7 in main;
# 4 x 64 loads of the table).
source "$(dirname "$0")/lib.sh"
build_rt tls
"$MEMPRISM" record -q -o tls.data -- ./tls >out.txt
expect_eq "output" "tls 4" "$(cat out.txt)"
"$MEMPRISM" report --roi work --format csv tls.data >tls.csv
expect_eq "tl_counter stores" 4007 "$(csv_field tls.csv 'tls tl_counter \(tls\)' stores)"
expect_eq "tl_counter threads" 5 "$(csv_field tls.csv 'tls tl_counter \(tls\)' threads)"
expect_eq "tl_counter instances (main + 4)" 5 "$(csv_field tls.csv 'tls tl_counter \(tls\)' instances)"
expect_eq "tl_table loads" 256 "$(csv_field tls.csv 'tls tl_table \(tls\)' loads)"
expect_eq "tl_table size per instance" 256 "$(csv_field tls.csv 'tls tl_table \(tls\)' max_size)"
grep -q '^"tls"' <("$MEMPRISM" report --by kind --format csv tls.data) || fail "no tls kind in the kind view"
