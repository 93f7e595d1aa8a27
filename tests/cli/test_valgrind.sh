# record --source valgrind: a plain gcc build, every access seen by
# memprism's Valgrind tool, objects by the runtime.
#  - The ORMBP micro-benchmark (examples/arrays.c, Table II) at 1 MiB per
#    array: inside region "kernel" each array gets exactly N = 16,384
#    accesses, split N/0, 3N/4 / N/4, N/2 / N/2, N/4 / 3N/4, 0/N, by one
#    thread of its own. (gcc does not vectorize the loop: its accesses are
#    volatile, one byte each.)
#  - Accesses inside a shared library (tests/rt/qsort_heap.c): libc's qsort
#    sorting a heap array with the program's comparator. Under valgrind the
#    array's row has qsort's own loads and stores and libc's functions are
#    in the function view; under inst (memprism cc) only the comparator's
#    2 loads per call are seen.
#  - Rep-prefixed string instructions: one ranged access per operand and
#    execution (tests/rt/repstr.c).
#  - What the source says about itself, and its refusals.
source "$(dirname "$0")/lib.sh"
if ! "$MEMPRISM" doctor 2>/dev/null | grep -q '^  valgrind works:'; then
	echo "skip: the valgrind source does not work here: $("$MEMPRISM" doctor 2>/dev/null | grep '^  valgrind ')"
	exit 77
fi
gcc -O2 -g -I"$MP_SRC/include" "$MP_SRC/examples/arrays.c" -o arrays -lpthread
"$MEMPRISM" record -q --no-pagemap --source valgrind -o arrays.data -- ./arrays 1 >out.txt
expect_eq "program output" "arrays: 1 MiB x 5, checksum 40960" "$(cat out.txt)"
# the tool hands its chunks over raw, through the launcher's ring, and the
# launcher compressed every one (dump marks its streams "valgrind"); the
# counts below are read from the compressed file
"$MEMPRISM" dump arrays.data >dump.txt
tool_chunks() { awk -v c="$1" '$3 == "type" && $4 == 1 && $6 == c && $NF == "valgrind"' dump.txt | wc -l; }
expect_eq "the tool's raw chunks left" 0 "$(tool_chunks 0)"
[ "$(tool_chunks 1)" -gt 0 ] || fail "no compressed chunk of the tool in arrays.data"
"$MEMPRISM" report --roi kernel --format csv arrays.data >obj.csv
N=16384
mlines=($(grep -n 'malloc(bytes)' "$MP_SRC/examples/arrays.c" | cut -d: -f1))
[ ${#mlines[@]} -eq 5 ] || fail "expected 5 malloc lines in arrays.c"
reads=(4 3 2 1 0)
for i in 0 1 2 3 4; do
	label="heap main \\(arrays.c:${mlines[i]}\\)"
	expect_eq "a$i accesses" $N "$(csv_field obj.csv "$label" accesses)"
	expect_eq "a$i loads" $((reads[i] * N / 4)) "$(csv_field obj.csv "$label" loads)"
	expect_eq "a$i stores" $(((4 - reads[i]) * N / 4)) "$(csv_field obj.csv "$label" stores)"
	expect_eq "a$i threads" 1 "$(csv_field obj.csv "$label" threads)"
	expect_eq "a$i size" 1048576 "$(csv_field obj.csv "$label" size)"
done
# the same counts of the arrays with a ring of one slot (the tool waits
# for the launcher at every chunk) and with none (the tool appends its chunks to the file,
# which the launcher copies compressed)
for slots in 1 0; do
	MEMPRISM_VG_RING=$slots "$MEMPRISM" record -q --no-pagemap --source valgrind -o ring$slots.data -- ./arrays 1 >/dev/null
	"$MEMPRISM" report --roi kernel --format csv ring$slots.data >ring$slots.csv
	# (the arrays' rows, counts and bytes: stacks, pids and so shares
	# differ from run to run)
	rows() { grep '^"heap main (arrays.c' "$1" | cut -d, -f1-7; }
	cmp -s <(rows obj.csv) <(rows ring$slots.csv) ||
		fail "MEMPRISM_VG_RING=$slots: other counts: $(diff obj.csv ring$slots.csv | head -5)"
	[ "$(grep -c '^"heap main (arrays.c' ring$slots.csv)" -ge 5 ] || fail "MEMPRISM_VG_RING=$slots: the arrays' rows are missing"
	"$MEMPRISM" dump ring$slots.data >dump.txt
	expect_eq "MEMPRISM_VG_RING=$slots: the tool's raw chunks left" 0 "$(tool_chunks 0)"
done
echo "ok: the same counts through a ring of 1 slot and without a ring"
"$MEMPRISM" dump arrays.data >dump.txt
"$MEMPRISM" report --roi kernel --format json arrays.data >obj.json
# (libc's blocks sited at the pthread_create line are in the region too:
# the five arrays' lines only)
n=$(for l in "${mlines[@]}"; do
	grep -o "\"label\":\"heap main (arrays.c:$l)\"[^}]*\"threads\":\\[[0-9]*\\]" obj.json | grep -o 'threads":\[[0-9]\+'
done | sort -u | wc -l)
expect_eq "distinct threads across the five arrays" 5 "$n"
expect_eq "JSON source" '"source":"valgrind"' "$(grep -o '"source":"[a-z]*"' obj.json)"
# the memsets before the region: libc's own stores, in its vector loop
# (the launcher turns glibc's rep stosb off), whose last stores overlap
# the ones before them: every byte at least once, a few twice
"$MEMPRISM" report --format csv arrays.data >all.csv
b=$(csv_field all.csv "heap main \\(arrays.c:${mlines[0]}\\)" bytes_stored)
[ "$b" -ge 1048576 ] && [ "$b" -lt $((1048576 + 4096)) ] || fail "a0: $b bytes stored by its memset, not 1 MiB"
echo "ok: a0: $b bytes stored by its memset"
"$MEMPRISM" report --roi kernel arrays.data >obj.txt
grep -q '^source:    valgrind: every load and store of every instruction' obj.txt ||
	fail "the report does not name the source: $(grep '^source' obj.txt)"
echo "ok: the report names the valgrind source"
# the HTML report and the SQLite export name it too
"$MEMPRISM" report --roi kernel --html obj.html arrays.data
grep -q '"source":"valgrind"' obj.html || fail "the HTML report does not name the source"
if command -v sqlite3 >/dev/null; then
	"$MEMPRISM" export --sqlite run.db arrays.data
	expect_eq "SQLite run.source" valgrind "$(sqlite3 run.db "select value from run where key = 'source'")"
fi
# the runtime's writer thread is not among the program's threads: main + 5
expect_eq "threads" 6 "$("$MEMPRISM" report --by thread --format csv arrays.data | tail -n +2 | wc -l)"

# qsort: accesses inside libc, attributed to the heap array
gcc -O2 -g -I"$MP_SRC/include" "$MP_SRC/tests/rt/qsort_heap.c" -o qsort_gcc
"$MEMPRISM" record -q --no-pagemap --source valgrind -o qv.data -- ./qsort_gcc >qv.out
C=$(sed -n 's/^calls \([0-9]*\) sorted$/\1/p' qv.out)
[ -n "$C" ] || fail "qsort_heap printed no call count: $(cat qv.out)"
build_rt qsort_heap
"$MEMPRISM" record -q --no-pagemap -o qi.data -- ./qsort_heap >qi.out
expect_eq "inst: comparator calls" "calls $C sorted" "$(cat qi.out)"
line=$(grep -n '/\* @ARR \*/' "$MP_SRC/tests/rt/qsort_heap.c" | cut -d: -f1)
ARR="^heap main \\(qsort_heap\\.c:$line\\)\$"
"$MEMPRISM" report --roi sort --format csv qi.data >qi.csv
"$MEMPRISM" report --roi sort --format csv qv.data >qv.csv
expect_eq "inst: array loads (the comparator's 2 per call)" $((2 * C)) "$(csv_field qi.csv "$ARR" loads)"
expect_eq "inst: array stores (qsort's, in libc, unseen)" 0 "$(csv_field qi.csv "$ARR" stores)"
for f in qi qv; do
	expect_eq "$f: the call counter's loads" "$C" "$(csv_field $f.csv '^static calls ' loads)"
	expect_eq "$f: the call counter's stores" "$C" "$(csv_field $f.csv '^static calls ' stores)"
done
vl=$(csv_field qv.csv "$ARR" loads) vs=$(csv_field qv.csv "$ARR" stores)
[ "$vl" -gt $((2 * C)) ] || fail "valgrind: array loads $vl, not more than the comparator's $((2 * C))"
[ "$vs" -gt 0 ] || fail "valgrind: qsort's stores into the array are missing"
echo "ok: valgrind: the array row has qsort's own accesses: $vl loads, $vs stores"
expect_eq "valgrind: the array's threads" 1 "$(csv_field qv.csv "$ARR" threads)"
"$MEMPRISM" report --roi sort --by function --format csv qv.data >qvf.csv
"$MEMPRISM" report --roi sort --by function --format csv qi.data >qif.csv
nlibc=$(grep -c '"libc\.so\.6"' qvf.csv || true)
[ "$nlibc" -gt 0 ] || fail "valgrind: no libc function in the function view: $(cat qvf.csv)"
echo "ok: valgrind: $nlibc libc functions in the function view"
expect_eq "inst: libc functions in the function view" 0 "$(grep -c '"libc\.so\.6"' qif.csv || true)"

# rep string instructions (tests/rt/repstr.c): one ranged access per
# operand and execution, whatever the direction; executions that continue
# each other's ranges stay apart
gcc -O2 -g -I"$MP_SRC/include" "$MP_SRC/tests/rt/repstr.c" -o repstr
"$MEMPRISM" record -q --no-pagemap --source valgrind -o rep.data -- ./repstr >rep.out
"$MEMPRISM" report --roi rep --format csv rep.data >rep.csv
src="$MP_SRC/tests/rt/repstr.c"
rowof() { echo "^heap main \\(repstr\\.c:$(grep -n "/\\* @$1 \\*/" "$src" | cut -d: -f1)\\)\$"; }
check_rep() { # object loads stores bytes_loaded bytes_stored
	local r
	r=$(rowof "$1")
	expect_eq "rep $1: loads" "$2" "$(csv_field rep.csv "$r" loads)"
	expect_eq "rep $1: stores" "$3" "$(csv_field rep.csv "$r" stores)"
	expect_eq "rep $1: bytes loaded" "$4" "$(csv_field rep.csv "$r" bytes_loaded)"
	expect_eq "rep $1: bytes stored" "$5" "$(csv_field rep.csv "$r" bytes_stored)"
}
check_rep A 0 1 0 100000
check_rep B 1 0 50000 0
check_rep C 0 1 0 50000
check_rep D 1 0 1000 0
check_rep E 0 1 0 1000
check_rep F 0 10 0 640

# refusals, before anything runs
run 2 "--sample-bursts with valgrind" "$MEMPRISM" record --source valgrind --sample-bursts 10,10 -o no.data -- true
said "--sample-bursts with valgrind" "applies to --source inst"
run 2 "--children with valgrind" "$MEMPRISM" record --source valgrind --children -o no.data -- true
# valgrind missing: one line naming the package, status 2, no data file
run 2 "valgrind not on PATH" env PATH=/nonexistent "$MEMPRISM" record --source valgrind -o no.data -- /bin/true
said "valgrind not on PATH" "valgrind is not installed.*apt-get install valgrind"
expect_eq "valgrind not on PATH: lines said" 1 "$(wc -l <last.err)"
[ ! -e no.data ] || fail "a refused recording left a data file"
# a program Valgrind cannot start: its own words, its status
printf '#!/nonexistent/sh\n' >badinterp
chmod +x badinterp
run 126 "bad interpreter" "$MEMPRISM" record -q --source valgrind -o bad.data -- ./badinterp
said "bad interpreter" "^valgrind: ./badinterp: bad interpreter"
