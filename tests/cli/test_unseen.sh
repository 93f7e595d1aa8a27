# What the inst source cannot see, said: a program whose buffer zlib reads
# (zlib is no memprism cc build) gets "unseen: ... libz.so.1", and zlib's
# own loads are not in its trace (its mem* calls are); the C library, the loader
# and the runtime's own libraries (zstd, zlib when only the runtime needs
# it) are not named; a program of memprism cc code alone gets no such line;
# under --source valgrind nothing is unseen, and zlib's loads are there.
source "$(dirname "$0")/lib.sh"
build_rt zlib_heap -lz
"$MEMPRISM" record -q -o z.data -- ./zlib_heap >z.out
expect_eq "output" "compressed 65536 bytes into $(sed -n 's/.* into //p' z.out)" "$(cat z.out)"
"$MEMPRISM" report z.data >z.txt
expect_eq "the unseen line" 'unseen:    loads and stores inside libz.so.1 (not built by memprism cc): `record --source valgrind` sees them' \
	"$(grep '^unseen:' z.txt)"
"$MEMPRISM" report --format json z.data >z.json
expect_eq "JSON unseen_modules" '"unseen_modules":["libz.so.1"]' "$(grep -o '"unseen_modules":\[[^]]*\]' z.json)"
line=$(grep -n '/\* @IN \*/' "$MP_SRC/tests/rt/zlib_heap.c" | cut -d: -f1)
IN="^heap main \\(zlib_heap\\.c:$line\\)\$"
"$MEMPRISM" report --format csv z.data >z.csv
expect_eq "inst: the bytes the fill loop stored" 65536 "$(csv_field z.csv "$IN" bytes_stored)"
# zlib reads the buffer with memcpy (libc's, seen as one range), and works
# on its own window with its own loads, which the inst source does not see:
# the loads made in zlib's functions are its few mem* calls
"$MEMPRISM" report --by function --format csv z.data >zf.csv
zl=$(awk -F, '$2 == "\"libz.so.1\"" { l += $4 } END { print l + 0 }' zf.csv)
[ "$zl" -lt 100 ] || fail "inst: $zl loads in zlib's functions: its own loads should be unseen"
echo "ok: inst: $zl loads in zlib's functions (its mem* calls)"

# memprism cc code and libc alone: nothing unseen (the runtime's zstd and
# zlib are its own)
build_rt context
"$MEMPRISM" record -q -o c.data -- ./context 10 >/dev/null
"$MEMPRISM" report c.data >c.txt
grep -q '^unseen:' c.txt && fail "unseen modules named for a program of memprism cc code: $(grep '^unseen:' c.txt)"
"$MEMPRISM" report --format json c.data >c.json
expect_eq "JSON: none unseen" '"unseen_modules":[]' "$(grep -o '"unseen_modules":\[[^]]*\]' c.json)"

if "$MEMPRISM" doctor 2>/dev/null | grep -q '^  valgrind works:'; then
	"$MEMPRISM" record -q --no-pagemap --source valgrind -o v.data -- ./zlib_heap >/dev/null 2>&1
	"$MEMPRISM" report v.data >v.txt
	grep -q '^unseen:' v.txt && fail "the valgrind source names unseen modules: $(grep '^unseen:' v.txt)"
	"$MEMPRISM" report --format csv v.data >v.csv
	"$MEMPRISM" report --by function --format csv v.data >vf.csv
	vl=$(awk -F, '$2 == "\"libz.so.1\"" { l += $4 } END { print l + 0 }' vf.csv)
	# (deflate reads each of the 65,536 input bytes from its window at least once)
	[ "$vl" -ge 65536 ] || fail "valgrind: only $vl loads in zlib's functions"
	echo "ok: valgrind: $vl loads in zlib's functions, nothing unseen"
fi
