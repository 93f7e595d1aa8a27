# Instrumentation coverage, by measurement (tests/rt/holes.c, REPS = 1000 of
# each access kind inside region "work"), for both instrumentations of
# `memprism cc`. Inline instrumentation (the pass plugin) sees every kind;
# under sanitizer-coverage callbacks the rows asserted 0 are known holes
# (docs/instrumentation.md), and a future fix must change this test.
source "$(dirname "$0")/lib.sh"
src="$MP_SRC/tests/rt/holes.c"
REPS=1000
lab() { echo "^heap main \\(holes\\.c:$(grep -n "/\\* @$1 \\*/" "$src" | cut -d: -f1)\\)\$"; }

# record MODE: builds holes with that instrumentation, records, obj-MODE.csv
record() {
	MEMPRISM_INSTRUMENT=$1 build_rt holes -o "holes-$1"
	"$MEMPRISM" record -q -o "holes-$1.data" -- "./holes-$1" > "out-$1.txt"
	cat "out-$1.txt"
	"$MEMPRISM" report --roi work --format csv "holes-$1.data" > "obj-$1.csv"
}

# controls, the same under both: what is covered
controls() {
	local f=obj-$1.csv
	expect_eq "$1: control: volatile 8-byte stores" $REPS "$(csv_field $f "$(lab CTRL)" stores)"
	expect_eq "$1: 16-byte SSE2 loads" $REPS "$(csv_field $f "$(lab V16)" loads)"
	expect_eq "$1: 16-byte SSE2 stores" $REPS "$(csv_field $f "$(lab V16)" stores)"
	expect_eq "$1: 16-byte SSE2 bytes_loaded" $((16 * REPS)) "$(csv_field $f "$(lab V16)" bytes_loaded)"
	# allocations are recorded whatever the instrumentation sees
	expect_eq "$1: atomic int listed, size" 4 "$(csv_field $f "$(lab ATOM)" size)"
}

record sancov
controls sancov
f=obj-sancov.csv
# hole: trace-loads/trace-stores have callbacks for 1, 2, 4, 8 and 16 bytes
# only; 32-byte vector accesses are skipped (not even split).
if grep -q '^avx2 1$' out-sancov.txt; then
	expect_eq "sancov: HOLE 32-byte AVX2 loads" 0 "$(csv_field $f "$(lab VEC)" loads)"
	expect_eq "sancov: HOLE 32-byte AVX2 stores" 0 "$(csv_field $f "$(lab VEC)" stores)"
else
	echo "skip: this CPU has no AVX2"
fi
# hole: atomic read-modify-write (atomicrmw / cmpxchg) is neither a plain
# load nor a plain store: __atomic_fetch_add (lock inc/xadd) records nothing.
expect_eq "sancov: HOLE __atomic_fetch_add accesses" 0 "$(csv_field $f "$(lab ATOM)" accesses)"
# hole: a small struct copy is an llvm.memcpy intrinsic that the back end
# expands inline (no call to the interposed memcpy, no load/store in the
# IR): *dst = *src of 24 bytes records nothing on either side.
expect_eq "sancov: HOLE 24-byte struct copy: source" 0 "$(csv_field $f "$(lab SRC)" accesses)"
expect_eq "sancov: HOLE 24-byte struct copy: destination" 0 "$(csv_field $f "$(lab DST)" accesses)"

if [ "${MP_INLINE:-0}" != 1 ]; then
	echo "skip: memprism was built without the pass plugin (no LLVM 16 development files)"
	exit 0
fi
record inline
controls inline
f=obj-inline.csv
if grep -q '^avx2 1$' out-inline.txt; then
	expect_eq "inline: 32-byte AVX2 loads" $REPS "$(csv_field $f "$(lab VEC)" loads)"
	expect_eq "inline: 32-byte AVX2 stores" $REPS "$(csv_field $f "$(lab VEC)" stores)"
	expect_eq "inline: 32-byte AVX2 bytes_loaded" $((32 * REPS)) "$(csv_field $f "$(lab VEC)" bytes_loaded)"
fi
# a read-modify-write counts as a load and a store, as `a[i] += x` does
expect_eq "inline: __atomic_fetch_add loads" $REPS "$(csv_field $f "$(lab ATOM)" loads)"
expect_eq "inline: __atomic_fetch_add stores" $REPS "$(csv_field $f "$(lab ATOM)" stores)"
# the struct copy: one ranged 24-byte load of the source, one store to the
# destination, as the interposed memcpy would record it
expect_eq "inline: struct copy: source loads" $REPS "$(csv_field $f "$(lab SRC)" loads)"
expect_eq "inline: struct copy: source bytes" $((24 * REPS)) "$(csv_field $f "$(lab SRC)" bytes_loaded)"
expect_eq "inline: struct copy: destination stores" $REPS "$(csv_field $f "$(lab DST)" stores)"
expect_eq "inline: struct copy: source stores" 0 "$(csv_field $f "$(lab SRC)" stores)"
