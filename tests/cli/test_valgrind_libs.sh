# record --source valgrind where the work is done inside shared libraries
# built without memprism cc, against the inst source, which does not see
# it (test_unseen.sh has the inst side's words for it):
#  - a library of the test's own (tests/rt/unseen_lib.c, plain gcc -O2): its
#    dependent walk over the program's heap array loads it exactly
#    WALKS x 16,384 times, 4 bytes each, all in unseen_walk of libunseen.so;
#    under inst none of those loads is in the trace
#  - zlib's compress() (Debian's libz.so.1, stripped of its internal
#    symbols): it reads the program's input buffer through libc's memcpy,
#    every byte at least once a call, and works in the blocks it allocates
#    itself (labelled by the program's call of compress) with its own loads
#    and stores: under valgrind over a million of them in two calls, made
#    in libz.so.1; under inst only its mem* calls' ranges
source "$(dirname "$0")/lib.sh"
if ! "$MEMPRISM" doctor 2>/dev/null | grep -q '^  valgrind works:'; then
	echo "skip: the valgrind source does not work here: $("$MEMPRISM" doctor 2>/dev/null | grep '^  valgrind ')"
	exit 77
fi
vg() { "$MEMPRISM" record -q --no-pagemap --source valgrind "$@"; }
inst() { "$MEMPRISM" record -q --no-pagemap --no-cpu-time "$@"; }
# a function view's figure: the row of module $2 and function $3 (awk regex)
fn_field() { # csv module function column
	awk -F, -v m="\"$2\"" -v f="$3" -v c="$4" '
		NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) col = i; next }
		$2 == m && $1 ~ f { s += $col; n++ }
		END { print n ? s : "none" }' "$1"
}

# The test's own library
gcc -O2 -g -shared -fPIC "$MP_SRC/tests/rt/unseen_lib.c" -o libunseen.so
gcc -O2 -g "$MP_SRC/tests/rt/unseen_main.c" -o unseen_gcc -L. -lunseen -Wl,-rpath,'$ORIGIN'
"$MEMPRISM" cc -O2 -g "$MP_SRC/tests/rt/unseen_main.c" -o unseen_cc -L. -lunseen -Wl,-rpath,'$ORIGIN'
WALKS=20 LEN=16384
vg -o walk-vg.data -- ./unseen_gcc $WALKS >vg.out
inst -o walk-in.data -- ./unseen_cc $WALKS >in.out
expect_eq "the same walk both ways" "$(cat in.out)" "$(cat vg.out)"
A=$(grep -n '/\* @ARRAY \*/' "$MP_SRC/tests/rt/unseen_main.c" | cut -d: -f1)
ROW="^heap main \\(unseen_main\\.c:$A\\)\$"
"$MEMPRISM" report --format csv walk-vg.data >walk-vg.csv
"$MEMPRISM" report --format csv walk-in.data >walk-in.csv
expect_eq "valgrind: the walk's loads of the array" $((WALKS * LEN)) "$(csv_field walk-vg.csv "$ROW" loads)"
expect_eq "valgrind: the bytes they read" $((4 * WALKS * LEN)) "$(csv_field walk-vg.csv "$ROW" bytes_loaded)"
expect_eq "valgrind: the fill's bytes" $((4 * LEN)) "$(csv_field walk-vg.csv "$ROW" bytes_stored)"
expect_eq "inst: the array's loads (the walk's are not seen)" 0 "$(csv_field walk-in.csv "$ROW" loads)"
expect_eq "inst: the fill's bytes" $((4 * LEN)) "$(csv_field walk-in.csv "$ROW" bytes_stored)"
"$MEMPRISM" report --by function --format csv walk-vg.data >walk-vgf.csv
"$MEMPRISM" report --by function --format csv walk-in.data >walk-inf.csv
# (its frame's own: the registers it saves are loaded back once a call)
loads=$(fn_field walk-vgf.csv libunseen.so '^"unseen_walk"$' loads)
[ "$loads" != none ] && [ "$loads" -ge $((WALKS * LEN)) ] && [ "$loads" -le $((WALKS * LEN + 16)) ] ||
	fail "valgrind: unseen_walk's loads: $loads, want the walk's $((WALKS * LEN)) and its frame's few"
echo "ok: valgrind: unseen_walk (libunseen.so) made $loads loads"
expect_eq "inst: no row of libunseen.so's functions" none "$(fn_field walk-inf.csv libunseen.so . loads)"
"$MEMPRISM" report walk-in.data >walk-in.txt
grep -q '^unseen:    loads and stores inside libunseen\.so' walk-in.txt ||
	fail "inst: the report does not name libunseen.so as unseen: $(grep '^unseen:' walk-in.txt)"
echo "ok: inst: the report says libunseen.so is unseen"
"$MEMPRISM" report walk-vg.data >walk-vg.txt
expect_eq "valgrind: nothing unseen" "" "$(grep '^unseen:' walk-vg.txt || true)"

# zlib
gcc -O2 -g "$MP_SRC/tests/rt/zlib_heap.c" -o zlib_gcc -lz
"$MEMPRISM" cc -O2 -g "$MP_SRC/tests/rt/zlib_heap.c" -o zlib_cc -lz
vg -o z-vg.data -- ./zlib_gcc 2 >zvg.out
inst -o z-in.data -- ./zlib_cc 2 >zin.out
expect_eq "the same compression both ways" "$(cat zin.out)" "$(cat zvg.out)"
IN=$(grep -n '/\* @IN \*/' "$MP_SRC/tests/rt/zlib_heap.c" | cut -d: -f1)
CALL=$(grep -n 'compress(out' "$MP_SRC/tests/rt/zlib_heap.c" | cut -d: -f1)
INROW="^heap main \\(zlib_heap\\.c:$IN\\)\$" ZROW="^heap main \\(zlib_heap\\.c:$CALL\\)\$"
"$MEMPRISM" report --format csv z-vg.data >z-vg.csv
"$MEMPRISM" report --format csv z-in.data >z-in.csv
read_bytes=$(csv_field z-vg.csv "$INROW" bytes_loaded)
[ "$read_bytes" -ge $((2 * 65536)) ] && [ "$read_bytes" -lt $((3 * 65536)) ] ||
	fail "valgrind: the input buffer's bytes read: $read_bytes, want every byte of two calls' once (and a few again)"
echo "ok: valgrind: zlib read $read_bytes bytes of the input buffer in two calls"
expect_eq "valgrind: the fill's bytes" 65536 "$(csv_field z-vg.csv "$INROW" bytes_stored)"
zvg=$(csv_field z-vg.csv "$ZROW" accesses) zin=$(csv_field z-in.csv "$ZROW" accesses)
[ "$zvg" -ge 1000000 ] || fail "valgrind: zlib's own blocks: $zvg accesses, want over a million"
[ "$zin" -lt $((zvg / 100)) ] || fail "inst: zlib's own blocks: $zin accesses against valgrind's $zvg: its own loads should be unseen"
echo "ok: zlib's own blocks (compress at zlib_heap.c:$CALL): $zvg accesses under valgrind, $zin under inst"
"$MEMPRISM" report --by function --format csv z-vg.data >z-vgf.csv
zfn=$(fn_field z-vgf.csv libz.so.1 . accesses)
[ "$zfn" != none ] && [ "$zfn" -ge 1000000 ] || fail "valgrind: libz.so.1's functions made $zfn accesses, want over a million"
echo "ok: valgrind: libz.so.1's functions made $zfn accesses"
# libc's memcpy reads the input for zlib: the function view names it
mc=$(fn_field z-vgf.csv libc.so.6 'mem(move|cpy)' loads)
[ "$mc" != none ] && [ "$mc" -ge $((2 * 65536 / 32)) ] ||
	fail "valgrind: libc's memcpy/memmove loads: $mc, want at least the input's 64 KiB twice in 32-byte loads"
echo "ok: valgrind: libc's memcpy/memmove made $mc loads"
