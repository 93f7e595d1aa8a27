# `cmake --install` with a prefix gives a working memprism: its cc finds the
# installed header and runtime, and records and reports from there.
source "$(dirname "$0")/lib.sh"
: "${MP_BUILD:?MP_BUILD must name the build tree}"
cmake --install "$MP_BUILD" --prefix "$MP_SCRATCH/prefix" >/dev/null
P=$MP_SCRATCH/prefix
[ -x "$P/bin/memprism" ] || fail "no bin/memprism"
[ -f "$P/lib/memprism/libmemprism-rt.so" ] || fail "no runtime"
[ -f "$P/include/memprism.h" ] || fail "no memprism.h"
"$P/bin/memprism" cc -O2 -g "$MP_SRC/examples/arrays.c" -o arrays
readelf -d arrays | grep -q "RUNPATH.*$P/lib/memprism" || fail "runpath does not point at the installed runtime"
"$P/bin/memprism" record -q -o a.data -- ./arrays 1 >/dev/null
"$P/bin/memprism" report --roi kernel --format csv a.data >a.csv
line=$(grep -n 'malloc(bytes)' "$MP_SRC/examples/arrays.c" | head -1 | cut -d: -f1)
expect_eq "a0 accesses at 1 MiB" 16384 "$(csv_field a.csv "heap main \\(arrays.c:$line\\)" accesses)"
