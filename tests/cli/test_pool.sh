# A program's own allocator (tests/rt/pool.c): with memprism_malloclike /
# memprism_freelike, each block it carves from its pool is an object of its
# own, sited at main's calls (the allocator is judged a wrapper), exact in
# its accesses, its instances and its lifetime (B's memory given out again
# as D counts to D; what was carved ends when the pool is freed); the pool
# keeps only the allocator's own accesses. The same program unannotated:
# one row holds them all, and the report says it looks like a pool and
# how to annotate it.
source "$(dirname "$0")/lib.sh"
build_rt pool
src="$MP_SRC/tests/rt/pool.c"
declare -A L
for m in POOL A B C D Z; do
	L[$m]=$(grep -n "/\\* @$m \\*/" "$src" | cut -d: -f1)
	[ -n "${L[$m]}" ] || fail "marker @$m not in pool.c"
done
lab() { echo "^heap main \\(pool\\.c:${L[$1]}\\)\$"; }
row() { # file what marker accesses loads stores instances
	expect_eq "$2: @$3 accesses" "$4" "$(csv_field "$1" "$(lab "$3")" accesses)"
	expect_eq "$2: @$3 loads" "$5" "$(csv_field "$1" "$(lab "$3")" loads)"
	expect_eq "$2: @$3 stores" "$6" "$(csv_field "$1" "$(lab "$3")" stores)"
	expect_eq "$2: @$3 instances" "$7" "$(csv_field "$1" "$(lab "$3")" instances)"
}

"$MEMPRISM" record -q -o pool.data -- ./pool > out.txt
cat out.txt
grep -q '^d reuses b' out.txt || fail "the pool did not give B's memory to D: $(cat out.txt)"
run 0 "report of the annotated pool" "$MEMPRISM" report --roi work --format csv pool.data
mv last.out ann.csv
row ann.csv annotated A 100 0 100 1
row ann.csv annotated B 250 50 200 1
row ann.csv annotated C 40 0 40 10
row ann.csv annotated D 30 0 30 1
row ann.csv annotated POOL 2 1 1 1
expect_eq "annotated: sizes of A" 400 "$(csv_field ann.csv "$(lab A)" size)"
expect_eq "annotated: kind of A" '"heap"' "$(csv_field ann.csv "$(lab A)" kind)"
grep -q "may be a pool" last.err && fail "annotated: a pool note: $(cat last.err)"
echo "ok: annotated: no pool note"
# after the pool is freed its C blocks are gone: Z's 7 stores are Z's
"$MEMPRISM" report --format csv pool.data > all.csv
row all.csv "whole run" Z 7 0 7 1
row all.csv "whole run" C 40 0 40 10
# every carved block was a malloc-like allocation, every put a free-like one
"$MEMPRISM" report --format json pool.data > pool.json
grep -q '"warnings":\[\]' pool.json || fail "unexpected warnings: $(grep -o '"warnings".*' pool.json)"

"$MEMPRISM" record -q -o plain.data -- ./pool plain > /dev/null
run 0 "report of the plain pool" "$MEMPRISM" report --roi work --format csv plain.data
mv last.out plain.csv
row plain.csv plain POOL 422 51 371 1
for m in A B C D; do
	expect_eq "plain: no row @$m" missing "$(csv_field plain.csv "$(lab $m)" accesses)"
done
# (its share of all accesses depends on how the compiler keeps the pool's
# statics; the functions are fill_a, fill_b, sum_b, fill_node, fill_d,
# pool_get and pool_put, the busiest fill_b with 200 of 422)
said "plain: the pool note" "^memprism: note: heap main \\(pool\\.c:${L[POOL]}\\) may be a pool: one block of 64\\.0 KiB holds [0-9]+% of all accesses, made by the code of 7 functions, the busiest of them 47%\\. If the program carves it into objects of its own \\(a pool, arena, slab or free list\\), call memprism_malloclike\\(addr, size\\) and memprism_freelike\\(addr\\) \\(memprism\\.h\\) where its allocator hands a block out and takes it back: each object then has a row and a site of its own\$"
run 0 "report -q of the plain pool" "$MEMPRISM" report -q --roi work --format csv plain.data
[ -s last.err ] && fail "report -q said: $(cat last.err)"
echo "ok: -q: no note"

# under memprism's Valgrind tool: a plain gcc build, the same rows
if "$MEMPRISM" doctor 2>/dev/null | grep -q '^  valgrind works:'; then
	gcc -O1 -g -I"$MP_SRC/include" "$src" -o pool-gcc
	"$MEMPRISM" record -q --no-pagemap --source valgrind -o vg.data -- ./pool-gcc > /dev/null
	"$MEMPRISM" report --roi work --format csv vg.data > vg.csv
	row vg.csv valgrind A 100 0 100 1
	row vg.csv valgrind B 250 50 200 1
	row vg.csv valgrind C 40 0 40 10
	row vg.csv valgrind D 30 0 30 1
	row vg.csv valgrind POOL 2 1 1 1
else
	echo "skip: --source valgrind does not work here"
fi
