# NUMA over many processes (docs/mpi.md): four processes of a job
# (tests/rt/numa_ranks.c, its rank from PMI_RANK as MPICH's launchers set
# it, no mpirun needed) each record a file of their own; `numa` over the
# files (or their directory) places each process on a simulated 2-node
# machine of its own and merges by object. Rank r stores N(r) = 1000(r+1)
# ints at @A from node 0, which places every page there, and loads them
# (r+1) times from node 1, all remote: the merged row is the sum over
# ranks, sum (r+2)N(r) = 40000 accesses, sum (r+1)N(r) = 30000 remote,
# 10000 writes; the matrix, pages and threads are the files' summed or
# appended; --by rank and --by process give each file's own figures; the
# finding of each file is one merged finding whose count adds up. Files
# placed on different machines, files of another program, and a rank
# missing or cut short behave as report's merge does.
source "$(dirname "$0")/lib.sh"
numa_ranks_job
expect_eq "files" "job/numa.0.data job/numa.1.data job/numa.2.data job/numa.3.data" "$(echo job/*)"
la=$(grep -n '/\* @A \*/' "$MP_SRC/tests/rt/numa_ranks.c" | cut -d: -f1)
A="^heap main \\(numa_ranks\\.c:$la\\)\$"
numa() { "$MEMPRISM" numa -q --numa 2x1 "$@"; }

# each file alone: its own arithmetic
for r in 0 1 2 3; do
	n=$((1000 * (r + 1)))
	numa --format csv job/numa.$r.data > o$r.csv
	expect_eq "rank $r: accesses, remote, writes" "$(((r + 2) * n)) $(((r + 1) * n)) $n" \
		"$(for c in accesses remote writes; do csv_field o$r.csv "$A" $c; done | xargs echo)"
done

# merged: the sum over ranks, one row per object
numa --format csv job > m.csv
expect_eq "merged: accesses, remote, writes, threads, nodes, home" "40000 30000 10000 8 2 0" \
	"$(for c in accesses remote writes threads nodes home; do csv_field m.csv "$A" $c; done | xargs echo)"
numa --format csv job/numa.*.data > f.csv
cmp m.csv f.csv || fail "the directory's NUMA view differs from its files'"
echo "ok: the directory's NUMA view is the files'"
labels() { awk -F'",' 'FNR > 1 { sub(/^"/, "", $1); print $1 }' "$@"; }
labels o?.csv | sed -E 's/^main thread stack \(pid [0-9]+\)$/main thread stacks/' | sort -u > want.txt
labels m.csv | sort > got.txt
diff want.txt got.txt > d.txt || fail "merged objects are not the files' objects: $(head d.txt)"
echo "ok: one merged object per object of the files ($(wc -l < got.txt))"
for c in accesses remote writes; do
	expect_eq "merged: $c over objects" $(($(sum_col o0.csv $c) + $(sum_col o1.csv $c) + $(sum_col o2.csv $c) + $(sum_col o3.csv $c))) \
		"$(sum_col m.csv $c)"
done

# the matrix, the site table and the threads: the files' summed, appended
numa --by matrix --format csv job > mx.csv
for r in 0 1 2 3; do numa --by matrix --format csv job/numa.$r.data; done |
	awk -F, '$1 != "from_node" { s[$1 "," $2] += $3 } END { for (k in s) print k "," s[k] }' | sort > want.txt
awk -F, 'NR > 1 { print $1 "," $2 "," $3 }' mx.csv | sort > got.txt
diff want.txt got.txt > d.txt || fail "merged matrix is not the sum: $(cat d.txt)"
expect_eq "merged matrix: node 1 -> node 0" $(($(sum_col o0.csv remote) + $(sum_col o1.csv remote) + $(sum_col o2.csv remote) + $(sum_col o3.csv remote))) \
	"$(awk -F, '$1 == 1 && $2 == 0 { print $3 }' mx.csv)"
numa --by site --format csv job > s.csv
expect_eq "merged site: accesses, remote, writes" "40000 30000 10000" \
	"$(for c in accesses remote writes; do csv_field s.csv "^main \\(numa_ranks\\.c:$la\\)\$" $c; done | xargs echo)"
numa --by thread --format csv job > th.csv
for r in 0 1 2 3; do numa --by thread --format csv job/numa.$r.data | tail -n +2; done > want.txt
expect_eq "merged threads: each file's, in rank order" "$(cat want.txt)" "$(tail -n +2 th.csv)"
# (the second thread's (r+1)N(r) loads of @A and one each of the statics a, n, reps)
expect_eq "merged threads: the second threads' remote" "1003 4003 9003 16003" \
	"$(awk -F, 'NR > 1 && $3 == 1 { print $6 }' th.csv | xargs echo)"

# JSON: the totals, pages and ranks of the merge
numa --format json job > m.json
pages=0 acc=0
for r in 0 1 2 3; do
	numa --format json job/numa.$r.data > x.json
	pages=$((pages + $(grep -o '"pages_placed":[0-9]*' x.json | cut -d: -f2)))
	acc=$((acc + $(grep -o '^"accesses":[0-9]*' x.json | cut -d: -f2)))
done
expect_eq "merged JSON: pages placed" $pages "$(grep -o '"pages_placed":[0-9]*' m.json | cut -d: -f2)"
expect_eq "merged JSON: accesses" $acc "$(grep -o '^"accesses":[0-9]*' m.json | cut -d: -f2)"
expect_eq "merged JSON: the ranks" "0 1 2 3" "$(grep -o '^{"rank":[0-9]*' m.json | cut -d: -f2 | xargs echo)"

# the findings: each file's remote usage after allocation of @A, one merged
# finding whose count is the files' remote loads summed
numa --by finding --format csv job > fd.csv
expect_eq "merged findings" 1 "$(grep -c '^"remote usage after allocation","heap main' fd.csv)"
expect_eq "merged finding: node, to node, count, share" "0,1,30000,0.7500" \
	"$(awk -F, '$2 ~ /^"heap main/ { print $3 "," $4 "," $5 "," $6 }' fd.csv)"

# --by rank and --by process: each file's own figures
numa --by rank --format csv job > rank.csv
numa --by process --format csv job > proc.csv
for r in 0 1 2 3; do
	t=$(grep -o '^"accesses":[0-9]*,"remote":[0-9]*' <(numa --format json job/numa.$r.data) | sed 's/"accesses"://; s/"remote"://')
	expect_eq "--by rank: rank $r" "$r,job/numa.$r.data,ok,$t" \
		"$(awk -F, -v r=$r '$1 == r { gsub(/"/, ""); print $1 "," $4 "," $5 "," $6 "," $7 }' rank.csv)"
	expect_eq "--by process: rank $r" "$t" "$(awk -F, -v r=$r '$1 == r { print $5 "," $6 }' proc.csv)"
done
numa --by rank job > rank.txt
grep -q "^by rank: each placed on a machine of its own (2x1)" rank.txt || fail "--by rank text: no heading"
echo "ok: --by rank in text"

# bad input, as report's merge
"${clean[@]}" PMI_RANK=2 PMI_SIZE=4 "$MEMPRISM" record -q --numa 4x1 -o 'four%r.data' -- ./numa_ranks
mkdir mixed && cp job/numa.[013].data four2.data mixed/
run 2 "two machines" "$MEMPRISM" numa -q mixed
said "two machines" "mixed/numa.0.data \\(rank 0\\) and mixed/four2.data \\(rank 2\\) were placed on different NUMA machines.*give --numa"
run 0 "two machines, one --numa" "$MEMPRISM" numa -q --numa 2x1 --format csv mixed
expect_eq "two machines, one --numa: accesses" 40000 "$(csv_field last.out "$A" accesses)"
cat > other.c <<'EOF2'
#include <stdlib.h>
int main(void) { volatile int *a = malloc(64); a[0] = 1; return a[0] - 1; }
EOF2
"$MEMPRISM" cc -O2 -g other.c -o other
"${clean[@]}" "$MEMPRISM" record -q -o other.data -- ./other
run 2 "another program" "$MEMPRISM" numa -q --numa 2x1 job/numa.0.data other.data
said "another program" "job/numa.0.data \\(rank 0\\) records numa_ranks, other.data records other: files of different programs"
run 0 "another program, --force" "$MEMPRISM" numa -q --numa 2x1 --force --format csv job/numa.0.data other.data
expect_eq "another program, --force: accesses" 2000 "$(csv_field last.out "$A" accesses)"
mkdir part cut
cp job/numa.[013].data part/
run 0 "rank 2 missing" "$MEMPRISM" numa --numa 2x1 --format csv part
said "rank 2 missing" "rank 2 of 4: no readable data file"
expect_eq "rank 2 missing: the rest" "28000 21000" "$(for c in accesses remote; do csv_field last.out "$A" $c; done | xargs echo)"
cp job/numa.[013].data cut/ && head -c 100 job/numa.2.data > cut/numa.2.data
run 0 "rank 2 cut" "$MEMPRISM" numa --numa 2x1 --by rank --format csv cut
said "rank 2 cut" "cut/numa.2.data was not read: .*the report goes on"
# (its header unread, its rank unknown: a row by its file)
expect_eq "rank 2 cut: its row" '"cut/numa.2.data","not read",0,0' \
	"$(awk -F, '$4 == "\"cut/numa.2.data\"" { sub(/:.*/, "\"", $5); print $4 "," $5 "," $6 "," $7 }' last.out)"
# cut right after its process's chunk: a process with no thread, merged
# (under the sanitizers: no error)
head -c "$(after_process job/numa.2.data)" job/numa.2.data > cut/numa.2.data
rc=0
"$MEMPRISM" numa --numa 2x1 --by rank --format csv cut >last.out 2>last.err || rc=$?
[ "$rc" -le 1 ] || fail "rank 2 with no thread: exit status $rc: $(cat last.err)"
grep -q 'runtime error\|Sanitizer' last.err && fail "rank 2 with no thread: $(cat last.err)"
expect_eq "rank 2 with no thread: its row" '"cut/numa.2.data",0' "$(awk -F, '$1 == 2 { print $4 "," $6 }' last.out)"
cut_short job/numa.2.data cut/numa.2.data
run 0 "rank 2 cut short" "$MEMPRISM" numa --numa 2x1 --by rank --format csv cut
said "rank 2 cut short" "cut/numa.2.data \\(rank 2\\) is damaged or truncated"
expect_eq "rank 2 cut short: its status" '"damaged: read in part"' "$(awk -F, '$1 == 2 { print $5 }' last.out)"

# --jobs: the same view, byte for byte
numa --jobs 1 --format json job > j1.json
numa --jobs 3 --format json job > j3.json
cmp j1.json j3.json || fail "--jobs 3 differs from --jobs 1"
echo "ok: --jobs 1 and 3 agree"
