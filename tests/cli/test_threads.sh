# Thousands of threads (2,000 in waves of 200), one allocation site, exactly
# 100 stores each: the site row has 200,000 stores from 2,000 distinct threads.
source "$(dirname "$0")/lib.sh"
build_rt threads
"$MEMPRISM" record -q -o t.data -- ./threads >out.txt
expect_eq "program output" "threads done" "$(cat out.txt)"
"$MEMPRISM" report --roi work --format csv t.data >t.csv
line=$(grep -n '@SITE' "$MP_SRC/tests/rt/threads.c" | cut -d: -f1)
expect_eq "stores at the site" 200000 "$(csv_field t.csv "heap work \\(threads.c:$line\\)" stores)"
expect_eq "instances" 2000 "$(csv_field t.csv "heap work \\(threads.c:$line\\)" instances)"
expect_eq "distinct threads" 2000 "$(csv_field t.csv "heap work \\(threads.c:$line\\)" threads)"
n=$("$MEMPRISM" report --by thread --format csv t.data | tail -n +2 | wc -l)
expect_eq "threads in the thread view (2000 + main)" 2001 "$n"
