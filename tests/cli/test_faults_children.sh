# record --source faults with and without --children on a program that
# forks: by default only the program's own faults are kept (the child's are
# counted and left out, and the summary says so); with --children the
# child's pages are attributed to the child process. Exact page counts per
# process on the blocks each one first-touched (tests/rt/faults_fork.c).
# exec'd images count as the program's own; a program sh runs as a child
# only with --children. Also the option errors: --period-jitter is refused for faults, --children
# for inst.
source "$(dirname "$0")/lib.sh"
cc=$(command -v cc || command -v clang-16)
"$cc" -O1 -g "$MP_SRC/tests/rt/faults_fork.c" -o faults_fork
BLOCK="heap touch \\(faults_fork.c:$(grep -n "@BLOCK" "$MP_SRC/tests/rt/faults_fork.c" | cut -d: -f1)\\)"
# pages of the block first touched by process $2 in page view $1
pages() { awk -F, -v re="$BLOCK" -v pid="$2" 'NR > 1 { lab = $10; gsub(/"/, "", lab); if (lab ~ re && $2 == pid) n++ } END { print n + 0 }' "$1"; }

"$MEMPRISM" record --source faults -o own.data -- ./faults_fork >pids.txt 2>err.txt
read -r parent child <pids.txt
[ -n "$parent" ] && [ -n "$child" ] && [ "$parent" != "$child" ] || fail "bad pids '$parent' '$child'"
"$MEMPRISM" report --by page --format csv own.data >own.csv
expect_eq "default: parent's pages" 40 "$(pages own.csv "$parent")"
expect_eq "default: child's pages" 0 "$(pages own.csv "$child")"
expect_eq "default: no fault of the child at all" 0 "$(awk -F, -v pid="$child" 'NR > 1 && $2 == pid' own.csv | wc -l)"
grep -Eq "^memprism: [0-9]+ page faults of child processes left out \(--children keeps them\)$" err.txt ||
	fail "no summary of the child's faults left out: $(cat err.txt)"
grep -aq '^sample_children=0$' own.data || fail "meta does not say children were left out"
left=$(sed -n 's/^memprism: \([0-9]*\) page faults of child processes left out.*/\1/p' err.txt)
[ "$left" -ge 24 ] || fail "only $left faults of the child left out, it touched 24 pages"

"$MEMPRISM" record -q --children --source faults -o all.data -- ./faults_fork >pids.txt
read -r parent child <pids.txt
"$MEMPRISM" report --by page --format csv all.data >all.csv
grep -aq '^sample_children=1$' all.data || fail "meta does not say children were kept"
expect_eq "--children: parent's pages" 40 "$(pages all.csv "$parent")"
expect_eq "--children: child's pages" 24 "$(pages all.csv "$child")"
"$MEMPRISM" report --context 0 --format csv all.data >obj.csv
expect_eq "--children: faults on the blocks of both" 64 "$(csv_field obj.csv "$BLOCK" faults)"

# exec keeps the pid: an image the program execs is its own, children or not;
# a program it runs as a child needs --children
"$cc" -O1 -g "$MP_SRC/tests/rt/faults_pages.c" -o faults_pages
PBLOCK="heap main \\(faults_pages.c:$(grep -n "@BLOCK" "$MP_SRC/tests/rt/faults_pages.c" | cut -d: -f1)\\)"
"$MEMPRISM" record -q --source faults -o exec.data -- /bin/sh -c 'exec ./faults_pages' >/dev/null || true
"$MEMPRISM" report --format csv exec.data >exec.csv
expect_eq "exec'd image: faults on its block" 100 "$(csv_field exec.csv "$PBLOCK" faults)"
"$MEMPRISM" record -q --source faults -o sh.data -- /bin/sh -c './faults_pages; true' >/dev/null
"$MEMPRISM" report --format csv sh.data >sh.csv
expect_eq "a child of sh, default: its block" missing "$(csv_field sh.csv "$PBLOCK" faults)"
"$MEMPRISM" record -q --children --source faults -o shc.data -- /bin/sh -c './faults_pages; true' >/dev/null
"$MEMPRISM" report --format csv shc.data >shc.csv
expect_eq "a child of sh, --children: faults on its block" 100 "$(csv_field shc.csv "$PBLOCK" faults)"

set +e
"$MEMPRISM" record --source faults --period-jitter 10 -o j.data -- true 2>err.txt
rc=$?
set -e
expect_eq "--period-jitter with faults: exit status" 2 "$rc"
grep -q -- "--period-jitter applies to --source pmu only (faults samples every page fault: its period is 1)" err.txt ||
	fail "no clear message for --period-jitter with faults: $(cat err.txt)"
[ ! -e j.data ] || fail "a data file was written"
for bad in 0 101 -5 x 10x ""; do
	if "$MEMPRISM" record --source pmu --period-jitter "$bad" -o j.data -- true 2>err.txt; then
		fail "--period-jitter '$bad' accepted"
	fi
	grep -q -- "--period-jitter wants a percentage from 1 to 100, not '$bad'" err.txt || fail "no message for '$bad'"
done
if "$MEMPRISM" record --children -o i.data -- true 2>err.txt; then fail "--children accepted for inst"; fi
grep -q -- "--children applies to --source pmu and faults" err.txt || fail "no message for --children with inst"
echo "ok: faults_children"
