# record --source faults on programs built with a plain compiler (no
# instrumentation): exact fault and first-touch counts on the objects the
# programs touch, the first-touch placement of each page by thread, the exit
# status preserved, and the samples visible in dump.
source "$(dirname "$0")/lib.sh"
cc=$(command -v cc || command -v clang-16)
"$cc" -O1 -g "$MP_SRC/tests/rt/faults_pages.c" -o faults_pages
"$cc" -O1 -g -pthread "$MP_SRC/tests/rt/faults_threads.c" -o faults_threads
line() { grep -n "@BLOCK" "$MP_SRC/tests/rt/$1.c" | cut -d: -f1; }

set +e
"$MEMPRISM" record -q --source faults -o p.data -- ./faults_pages >out.txt
rc=$?
set -e
expect_eq "exit status preserved" 3 "$rc"
expect_eq "program output" "touched 100 pages (0)" "$(cat out.txt)"
"$MEMPRISM" report --format csv p.data >p.csv
BLOCK="heap main \\(faults_pages.c:$(line faults_pages)\\)"
expect_eq "faults on the block" 100 "$(csv_field p.csv "$BLOCK" faults)"
expect_eq "pages first touched in the block" 100 "$(csv_field p.csv "$BLOCK" pages)"
expect_eq "major faults on the block" 0 "$(csv_field p.csv "$BLOCK" major)"
expect_eq "instances" 1 "$(csv_field p.csv "$BLOCK" instances)"
"$MEMPRISM" report p.data >p.txt
grep -q '^source:    faults:' p.txt || fail "text report does not name the faults source"
"$MEMPRISM" report --by page --format csv p.data >pages.csv
n=$(awk -F, -v re="$BLOCK" 'NR > 1 { lab = $10; gsub(/"/, "", lab); if (lab ~ re) n++ } END { print n + 0 }' pages.csv)
expect_eq "pages of the block in the page view" 100 "$n"
"$MEMPRISM" report --by function --format csv p.data >f.csv
expect_eq "faults in main" 100 "$(csv_field f.csv '^main$' faults)"
"$MEMPRISM" dump p.data >dump.txt
grep -q ' sample_def .*"page-faults-min"' dump.txt || fail "dump shows no sample definitions"
[ "$(grep -c ' fault ' dump.txt)" -ge 100 ] || fail "dump shows fewer than 100 faults"

"$MEMPRISM" record -q --source faults -o t.data -- ./faults_threads >tids.txt
read -r t1 t2 <tids.txt
[ -n "$t1" ] && [ -n "$t2" ] && [ "$t1" != "$t2" ] || fail "bad tids '$t1' '$t2'"
"$MEMPRISM" report --by page --format csv t.data >tp.csv
BLOCK="heap main \\(faults_threads.c:$(line faults_threads)\\)"
count() { awk -F, -v re="$BLOCK" -v tid="$1" 'NR > 1 { lab = $10; gsub(/"/, "", lab); if (lab ~ re && $3 == tid) n++ } END { print n + 0 }' tp.csv; }
expect_eq "pages placed by the first thread" 64 "$(count "$t1")"
expect_eq "pages placed by the second thread" 64 "$(count "$t2")"
main_tid=$(awk -F, 'NR == 2 { print $2 }' tp.csv)
expect_eq "pages placed by main" 0 "$(count "$main_tid")"
"$MEMPRISM" report --format csv t.data >t.csv
expect_eq "faults on the shared block" 128 "$(csv_field t.csv "$BLOCK" faults)"
expect_eq "threads that placed it" 2 "$(csv_field t.csv "$BLOCK" threads)"
"$MEMPRISM" report --by thread --format csv t.data >th.csv
for t in "$t1" "$t2"; do
	f=$(csv_field th.csv "tid $t( |\$)" pages)
	[ "$f" != missing ] && [ "$f" -ge 64 ] || fail "thread $t placed $f pages, expected at least its 64"
done
if "$MEMPRISM" report --by page p.data >/dev/null 2>&1; then :; else fail "page view refused on a faults trace"; fi
"$MEMPRISM" record -q -o inst.data -- ./faults_pages >/dev/null || true
if "$MEMPRISM" report --by page inst.data 2>err.txt; then fail "page view accepted without faults"; fi
grep -q -- "--by page needs a recording made with" err.txt || fail "no clear message for --by page"
echo "ok: faults"
