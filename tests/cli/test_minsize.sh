# record --min-size BYTES: heap blocks below the size are not objects (their
# accesses count as the heap mapping), larger ones keep exact counts, and the
# report says what was left out.
source "$(dirname "$0")/lib.sh"
build_rt minsize
line() { grep -n "@$1" "$MP_SRC/tests/rt/minsize.c" | cut -d: -f1; }
SMALL="heap main \\(minsize.c:$(line SMALL)\\)"
BIG="heap main \\(minsize.c:$(line BIG)\\)"
"$MEMPRISM" record -q -o all.data -- ./minsize >/dev/null
"$MEMPRISM" report --roi work --format csv all.data >all.csv
expect_eq "small blocks tracked by default" 1000 "$(csv_field all.csv "$SMALL" instances)"
expect_eq "small blocks' stores" 1000 "$(csv_field all.csv "$SMALL" stores)"
"$MEMPRISM" record -q --min-size 4096 -o min.data -- ./minsize >/dev/null
"$MEMPRISM" report --roi work --format csv min.data >min.csv
expect_eq "small site with --min-size 4096" missing "$(csv_field min.csv "$SMALL" accesses)"
expect_eq "big block stores" 5000 "$(csv_field min.csv "$BIG" stores)"
expect_eq "small stores now in the heap mapping" 1000 "$(csv_field min.csv '^mapping \[heap\]$' stores)"
grep -q "blocks under 4096 bytes not tracked" <("$MEMPRISM" report min.data) || fail "report does not say what --min-size left out"
# fewer events: the 1000 small blocks' allocations are not in the trace
# (the file's size says little: its chunks are flushed by time too)
allocs() { "$MEMPRISM" dump -q "$1" | awk '$2 == "alloc"' | wc -l; }
expect_eq "allocation events left out by --min-size" 1000 $(($(allocs all.data) - $(allocs min.data)))
if "$MEMPRISM" record --min-size -5 -- true 2>err.txt; then fail "--min-size -5 accepted"; fi
grep -q "min-size wants a number" err.txt || fail "no clear message for a bad --min-size"
echo "ok: --min-size"
