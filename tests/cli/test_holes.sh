# Instrumentation gaps, documented by measurement (tests/rt/holes.c, REPS =
# 1000 of each access kind inside region "work"). These assertions state
# what memprism records TODAY; a row asserted 0 below is a known hole, and
# a future fix must change this test.
source "$(dirname "$0")/lib.sh"
build_rt holes
src="$MP_SRC/tests/rt/holes.c"
"$MEMPRISM" record -q -o holes.data -- ./holes > out.txt
cat out.txt
"$MEMPRISM" report --roi work --format csv holes.data > obj.csv
REPS=1000
lab() { echo "^heap main \\(holes\\.c:$(grep -n "/\\* @$1 \\*/" "$src" | cut -d: -f1)\\)\$"; }

# controls: what is covered
expect_eq "control: volatile 8-byte stores" $REPS "$(csv_field obj.csv "$(lab CTRL)" stores)"
expect_eq "16-byte SSE2 loads (size-16 callback)" $REPS "$(csv_field obj.csv "$(lab V16)" loads)"
expect_eq "16-byte SSE2 stores" $REPS "$(csv_field obj.csv "$(lab V16)" stores)"
expect_eq "16-byte SSE2 bytes_loaded" $((16 * REPS)) "$(csv_field obj.csv "$(lab V16)" bytes_loaded)"

# hole: not instrumented by sanitizer-coverage. trace-loads/trace-stores have
# callbacks for 1, 2, 4, 8 and 16 bytes only; 32-byte vector accesses are
# skipped (not even split).
if grep -q '^avx2 1$' out.txt; then
	expect_eq "HOLE 32-byte AVX2 loads" 0 "$(csv_field obj.csv "$(lab VEC)" loads)"
	expect_eq "HOLE 32-byte AVX2 stores" 0 "$(csv_field obj.csv "$(lab VEC)" stores)"
else
	echo "skip: this CPU has no AVX2"
fi
# hole: not instrumented by sanitizer-coverage. Atomic read-modify-write
# (atomicrmw / cmpxchg) is neither a plain load nor a plain store to it:
# __atomic_fetch_add (lock inc/xadd) records nothing.
expect_eq "HOLE __atomic_fetch_add accesses" 0 "$(csv_field obj.csv "$(lab ATOM)" accesses)"
# hole: not instrumented by sanitizer-coverage. A small struct copy is an
# llvm.memcpy intrinsic that the back end expands inline (no call to the
# interposed memcpy, no load/store in the IR): *dst = *src of 24 bytes
# records nothing on either side.
expect_eq "HOLE 24-byte struct copy: source loads" 0 "$(csv_field obj.csv "$(lab SRC)" accesses)"
expect_eq "HOLE 24-byte struct copy: destination stores" 0 "$(csv_field obj.csv "$(lab DST)" accesses)"
# the holes still show the objects (allocations are recorded)
expect_eq "atomic int still listed, size" 4 "$(csv_field obj.csv "$(lab ATOM)" size)"
