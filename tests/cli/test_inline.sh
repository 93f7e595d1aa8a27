# Inline instrumentation (the pass plugin) on code that stresses it, C and
# C++, at -O0 and -O2: the program's output is a plain build's, not recorded
# and recorded, and the atomics of four threads are counted exactly.
source "$(dirname "$0")/lib.sh"
if [ "${MP_INLINE:-0}" != 1 ]; then
	echo "skip: memprism was built without the pass plugin (no LLVM 16 development files)"
	exit 77
fi
c=$MP_SRC/tests/rt/inline_torture.c
cxx=$MP_SRC/tests/rt/inline_torture.cc
clang-16 -O2 "$c" -o plain -lpthread
clang++-16 -O2 "$cxx" -o plain_cxx -lpthread
want=$(./plain)
want_cxx=$(./plain_cxx)
for o in -O0 -O2; do
	"$MEMPRISM" cc $o -g "$c" -o "t$o" -lpthread
	"$MEMPRISM" c++ $o -g "$cxx" -o "tcxx$o" -lpthread
	expect_eq "C $o, not recorded" "$want" "$(./t$o)"
	expect_eq "C $o, recorded" "$want" "$("$MEMPRISM" record -q -o "t$o.data" -- "./t$o")"
	expect_eq "C++ $o, not recorded" "$want_cxx" "$(./tcxx$o)"
	expect_eq "C++ $o, recorded" "$want_cxx" "$("$MEMPRISM" record -q -o "tcxx$o.data" -- "./tcxx$o")"
done
"$MEMPRISM" report --format csv t-O2.data > t.csv
# every atomic_fetch_add is a load and a store; the final atomic_load one more load
expect_eq "atomic counter loads" 40001 "$(csv_field t.csv '^static shared ' loads)"
expect_eq "atomic counter stores" 40000 "$(csv_field t.csv '^static shared ' stores)"
# tls_acc += i in each thread: a load and a store per iteration, plus the read for the result
expect_eq "TLS accumulator stores" 40000 "$(csv_field t.csv '^tls tls_acc ' stores)"
expect_eq "TLS accumulator loads" 40004 "$(csv_field t.csv '^tls tls_acc ' loads)"
expect_eq "TLS accumulator instances (one per thread)" 5 "$(csv_field t.csv '^tls tls_acc ' instances)"
# find(): 501 + 1000 + 1000 scalar loads, from a loop left by return and by its end
expect_eq "search loop loads" 2501 "$(csv_field t.csv '^static hay ' loads)"

# Every site a call (MEMPRISM_INLINE_SITES=0, what a module's sites beyond
# its inline budget get): the runtime's entries keep the caller's registers
# (preserve_most), so the program computes what it computes plainly, and
# every object's counts are the inline build's.
MEMPRISM_INLINE_SITES=0 "$MEMPRISM" cc -O2 -g -Rpass-analysis=memprism "$c" -o tcalls -lpthread 2> calls_remarks.txt
grep -q " to inline: 0 inlined (at most 0, MEMPRISM_INLINE_SITES)" calls_remarks.txt ||
	fail "the module budget's remark is missing: $(grep -i 'access sites' calls_remarks.txt)"
inline_ips() { objdump -d --no-show-raw-insn "$1" | grep -c 'lea    0x0(%rip)'; }
expect_eq "inline paths (code addresses taken) with every site a call" 0 "$(inline_ips tcalls)"
[ "$(inline_ips t-O2)" -gt 0 ] || fail "the default build has no inline path"
expect_eq "C, every site a call, not recorded" "$want" "$(./tcalls)"
expect_eq "C, every site a call, recorded" "$want" "$("$MEMPRISM" record -q -o tcalls.data -- ./tcalls)"
counts() { # object kind, accesses, loads, stores, bytes: the program's name and pid left out
	"$MEMPRISM" report --format csv "$1" | cut -d, -f1-7 | sed -E 's/ ?\(?t(-O2|calls)\)?//; s/\(pid [0-9]*\)//'
}
diff -u <(counts t-O2.data) <(counts tcalls.data) || fail "counts differ between inline sites and calls"
echo "ok: every site a call, counts identical"
for bad in abc -1 12x 99999999999; do
	if MEMPRISM_INLINE_SITES=$bad "$MEMPRISM" cc -O2 -c "$c" -o bad.o 2> bad_err.txt; then
		fail "MEMPRISM_INLINE_SITES=$bad accepted"
	fi
	grep -q "MEMPRISM_INLINE_SITES=$bad: wants a number of access sites" bad_err.txt ||
		fail "no clear message for MEMPRISM_INLINE_SITES=$bad: $(cat bad_err.txt)"
done
echo "ok: a bad MEMPRISM_INLINE_SITES is refused before the compiler runs"

# Loops: the epoch is checked once per iteration only where nothing in the
# loop synchronizes with another thread (the pass says which, by line).
loops=$MP_SRC/tests/rt/inline_loops.c
"$MEMPRISM" cc -O2 -g -Rpass=memprism "$loops" -o loops -lpthread 2> remarks.txt
loop_remark() { # the remark for the loop marked "LOOP $1"
	local line
	line=$(grep -n "LOOP $1 \*/" "$loops" | cut -d: -f1)
	grep -m1 "inline_loops.c:$line:.*remark: " remarks.txt | sed 's/.*epoch checked //; s/ \[.*//'
}
expect_eq "plain loop" "once per iteration" "$(loop_remark plain)"
expect_eq "loop with an atomic" "at every access" "$(loop_remark atomic)"
expect_eq "loop with a volatile" "at every access" "$(loop_remark volatile)"
expect_eq "loop with an irreducible cycle" "at every access" "$(loop_remark irreducible)"
expect_eq "loops, recorded" "$(clang-16 -O2 "$loops" -o loops_plain -lpthread && ./loops_plain)" \
	"$("$MEMPRISM" record -q -o loops.data -- ./loops)"
# sum() reads the 4096 ints (16384 bytes) of a block another thread
# allocated: all of them the block's, none unknown
"$MEMPRISM" report --by site --format csv loops.data > loops.csv
expect_eq "bytes loaded from the other thread's block" 16384 "$(csv_field loops.csv '^producer ' bytes_loaded)"
expect_eq "unknown accesses" missing "$(csv_field loops.csv '^unknown' accesses)"

# Code addresses (tests/rt/inline_ips.c): all accesses of one array in one
# direction come from one source line, so they must carry one code address,
# in the right function, whether the record named it by its fixed ip slot
# (ACCESS_SLOT, ACCESS_FAR), the last-two history or a delta. An unrolled
# loop's copies of a line share it.
ips=$MP_SRC/tests/rt/inline_ips.c
"$MEMPRISM" cc -O2 -g -no-pie "$ips" -o ips
expect_eq "ips, recorded" "$(clang-16 -O2 "$ips" -o ips_plain && ./ips_plain)" "$("$MEMPRISM" record -q -o ips.data -- ./ips)"
"$MEMPRISM" dump --accesses ips.data > ips.dump
awk -f "$MP_SRC/tests/cli/inline_sites.awk" <(nm -S ips) ips.dump | sort > sites.txt
cat > sites.want <<'WANT'
a1 ld two 20000 1
a2 ld three 10000 1
a3 ld wide 10000 1
b1 ld main 1 1
b1 st two 20000 1
b2 ld three 10000 1
b3 ld wide 10000 1
big ld far 10000 1
big ld main 1 1
big st far 10000 1
c2 ld main 1 1
c2 st three 10000 1
c3 st wide 10000 1
WANT
diff -u sites.want sites.txt || fail "accesses by array, direction and function (count, code addresses) differ"
echo "ok: every array's accesses carry their line's one code address"
# The same over a module bound one site short: the inlined sites write only
# the records of their slot's code address, the others (three()'s and
# wide()'s third line) go to the runtime, one site calls it; the same counts
# and code addresses.
want_sites=$(MEMPRISM_INLINE_SITES=0 "$MEMPRISM" cc -O2 -g -no-pie -Rpass-analysis=memprism -c "$ips" -o /dev/null 2>&1 |
	sed -n 's/.* access sites, \([0-9]*\) to inline: .*/\1/p')
[ -n "$want_sites" ] || fail "no module-bound remark for inline_ips.c"
MEMPRISM_INLINE_SITES=$((want_sites - 1)) "$MEMPRISM" cc -O2 -g -no-pie -Rpass-analysis=memprism "$ips" -o ips_straight 2> straight_remarks.txt
grep -q "to inline: $((want_sites - 1)) inlined" straight_remarks.txt ||
	fail "one site short of the bound should inline the rest: $(grep 'access sites' straight_remarks.txt)"
expect_eq "ips, straight paths, recorded" "$(./ips_plain)" "$("$MEMPRISM" record -q -o ips_straight.data -- ./ips_straight)"
"$MEMPRISM" dump --accesses ips_straight.data > ips_straight.dump
awk -f "$MP_SRC/tests/cli/inline_sites.awk" <(nm -S ips_straight) ips_straight.dump | sort > sites_straight.txt
diff -u sites.want sites_straight.txt || fail "straight paths: accesses by array, direction and function differ"
echo "ok: a module over its bound: the same accesses and code addresses"

# A function whose loops hold more than 256 sites: the loop with a call
# calls the runtime at each of its 300 sites, the call-free loop inside it
# stays inline, and both count exactly (tests/rt/inline_big.c).
n=100
"$MEMPRISM" cc -O2 -g -Rpass=memprism "$MP_SRC/tests/rt/inline_big.c" -o inline_big 2> big_remarks.txt
expect_eq "inline_big output" "0 $((63 * n))" "$(./inline_big $n)"
cold=$(objdump -d --no-show-raw-insn inline_big | awk '/<main>:/,/^$/' | grep -c 'call.*__memprism_access_cold')
[ "$cold" -ge 300 ] || fail "the big loop's 300 sites should call the runtime: $cold calls"
echo "ok: the big loop calls the runtime at $cold sites"
grep -q "inline_big.c:$(grep -n 'call-free loop \*/' "$MP_SRC/tests/rt/inline_big.c" | cut -d: -f1):.*recording state kept in registers" \
	big_remarks.txt || fail "the call-free loop lost its inline path: $(cat big_remarks.txt)"
echo "ok: the call-free loop keeps its inline path"
"$MEMPRISM" record -q -o big.data -- ./inline_big $n >/dev/null
"$MEMPRISM" report --format csv big.data >big.csv
A="heap main \\(inline_big.c:$(grep -n '@a' "$MP_SRC/tests/rt/inline_big.c" | cut -d: -f1)\\)"
B="heap main \\(inline_big.c:$(grep -n '@b' "$MP_SRC/tests/rt/inline_big.c" | cut -d: -f1)\\)"
expect_eq "big loop: bytes loaded from a (300 x 8 x n)" $((300 * 8 * n)) "$(csv_field big.csv "$A" bytes_loaded)"
expect_eq "call-free loop: bytes stored to b (64 x 8 x n)" $((512 * n)) "$(csv_field big.csv "$B" bytes_stored)"
expect_eq "call-free loop: bytes loaded from b (64 x 8 x n, and printf's)" $((512 * n + 8)) \
	"$(csv_field big.csv "$B" bytes_loaded)"
