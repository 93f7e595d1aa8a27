# NUMA locality on a simulated 4x8 machine (docs/numa.md): each purpose-written
# workload of tests/rt/numa_*.c is recorded with --numa 4x8 (its affinity
# calls name CPUs this host lacks and must still succeed), and `memprism numa`
# must find its pattern with the counts that follow from its construction and
# give the right fix. Plus the options: analysis-time --numa, page policies,
# the model's remote DRAM fills, and bad input.
source "$(dirname "$0")/lib.sh"
for w in prodcons turns matrix arena local policy saturate; do
	build_rt "numa_$w" -pthread -lnuma
	"$MEMPRISM" record -q --numa 4x8 -o "$w.data" -- "./numa_$w" >"$w.out" || fail "numa_$w failed under record --numa"
	"$MEMPRISM" numa -f csv "$w.data" >"$w.csv"
	"$MEMPRISM" numa -f csv --by finding "$w.data" >"$w.find.csv"
done
line() { grep -n "@$2" "$MP_SRC/tests/rt/numa_$1.c" | cut -d: -f1; }
# finding FILE COLUMN: the column of the first finding (CSV header names)
finding() { awk -F, -v col="$2" 'NR == 1 { for (i = 1; i <= NF; i++) idx[$i] = i; next } { print $idx[col]; exit }' "$1"; }

# producer/consumer: pinned on nodes 0 and 1, the buffer first touched on 0
OBJ="heap producer \\(numa_prodcons.c:$(line prodcons BUFFER)\\)"
expect_eq "prodcons: accesses" 163840 "$(csv_field prodcons.csv "$OBJ" accesses)"
expect_eq "prodcons: remote" 131072 "$(csv_field prodcons.csv "$OBJ" remote)"
expect_eq "prodcons: home node" 0 "$(csv_field prodcons.csv "$OBJ" home)"
expect_eq "prodcons: pattern" "remote usage after allocation" "$(csv_field prodcons.csv "$OBJ" pattern)"
expect_eq "prodcons: findings" 1 "$(($(wc -l <prodcons.find.csv) - 1))"
expect_eq "prodcons: consumer's node" 1 "$(finding prodcons.find.csv to_node)"
grep -q 'numa_alloc_onnode(size, 1)' prodcons.find.csv || fail "prodcons: no numa_alloc_onnode(size, 1) advice"
grep -q 'move_pages' prodcons.find.csv || fail "prodcons: no move_pages advice"
"$MEMPRISM" numa -f csv --by thread prodcons.data >pt.csv
expect_eq "prodcons: threads pinned" 2 "$(awk -F, 'NR > 1 && $4 == 1' pt.csv | wc -l)"
expect_eq "prodcons: the consumer on node 1, all remote" 1 \
	"$(awk -F, 'NR > 1 && $3 == 1 && $6 == 131074' pt.csv | wc -l)"
"$MEMPRISM" numa -f csv --by matrix prodcons.data >pm.csv
n10=$(awk -F, '$1 == 1 && $2 == 0 { print $3 }' pm.csv)
[ "$n10" -ge 131072 ] && [ "$n10" -le 131080 ] || fail "prodcons: node 1 -> node 0 accesses $n10, not 131,072 (+ a few statics)"
"$MEMPRISM" numa prodcons.data >pc.txt
grep -q '^topology:  simulated 4x8: 4 nodes of 8 CPUs' pc.txt || fail "text view does not name the topology"
grep -q '2 affinity calls honoured' pc.txt || fail "text view does not count the affinity calls"

# threads taking turns: 13 hand-overs of a buffer on node 0
OBJ="heap main \\(numa_turns.c:$(line turns BUFFER)\\)"
expect_eq "turns: accesses" 204801 "$(csv_field turns.csv "$OBJ" accesses)"
expect_eq "turns: remote" 147456 "$(csv_field turns.csv "$OBJ" remote)"
expect_eq "turns: pattern" "alternate remote accesses" "$(csv_field turns.csv "$OBJ" pattern)"
expect_eq "turns: hand-overs" 13 "$(finding turns.find.csv count)"
grep -q 'pthread_setaffinity_np' turns.find.csv || fail "turns: no pinning advice"
grep -q 'move_pages' turns.find.csv || fail "turns: no migration advice"
"$MEMPRISM" numa -f csv --by timeline turns.data >tt.csv
expect_eq "turns: runs on the timeline" 14 "$(grep -c "numa_turns.c:$(line turns BUFFER)" tt.csv)"

# read-only matrix read by all: replicate
OBJ="heap main \\(numa_matrix.c:$(line matrix MATRIX)\\)"
expect_eq "matrix: accesses" 73728 "$(csv_field matrix.csv "$OBJ" accesses)"
expect_eq "matrix: remote" 49152 "$(csv_field matrix.csv "$OBJ" remote)"
expect_eq "matrix: pattern" "concurrent remote reads" "$(csv_field matrix.csv "$OBJ" pattern)"
expect_eq "matrix: nodes reading" 4 "$(finding matrix.find.csv count)"
grep -q 'replicate it per node' matrix.find.csv || fail "matrix: no replication advice"

# per-thread parts of one arena: 3 shared pages, allocate locally
OBJ="heap main \\(numa_arena.c:$(line arena ARENA)\\)"
expect_eq "arena: accesses" 24002 "$(csv_field arena.csv "$OBJ" accesses)"
expect_eq "arena: remote" 18000 "$(csv_field arena.csv "$OBJ" remote)"
expect_eq "arena: pattern" "thread-private parts share pages" "$(csv_field arena.csv "$OBJ" pattern)"
expect_eq "arena: shared pages" 3 "$(finding arena.find.csv count)"
grep -q 'numa_alloc_local' arena.find.csv || fail "arena: no local allocation advice"

# two tables made on node 0, read together from nodes 1-3: node 0 saturated
for t in KEYS VALUES; do
	OBJ="heap main \\(numa_saturate.c:$(line saturate $t)\\)"
	expect_eq "saturate: $t remote" 24576 "$(csv_field saturate.csv "$OBJ" remote)"
	expect_eq "saturate: $t pattern" "concurrent remote reads" "$(csv_field saturate.csv "$OBJ" pattern)"
done
expect_eq "saturate: saturated node, its objects, its share" "0 2 1.0000" \
	"$(awk -F, '$1 ~ /saturated node/ { print $3, $5, $6 }' saturate.find.csv)"
expect_eq "saturate: nodes reading each table" 3 "$(finding saturate.find.csv count)"

# control: everything local, nothing reported
OBJ="heap worker \\(numa_local.c:$(line local BUFFER)\\)"
expect_eq "local: accesses" 98304 "$(csv_field local.csv "$OBJ" accesses)"
expect_eq "local: remote" 0 "$(csv_field local.csv "$OBJ" remote)"
expect_eq "local: findings" 0 "$(($(wc -l <local.find.csv) - 1))"
grep -q '^  none: ' <("$MEMPRISM" numa local.data) || fail "local: the text view does not say nothing was found"

# the JSON view: the same numbers as the CSV tables, every table in one object
if command -v jq >/dev/null; then
	"$MEMPRISM" numa -f json prodcons.data >pc.json
	OBJ="heap producer (numa_prodcons.c:$(line prodcons BUFFER))"
	expect_eq "json prodcons: schema, origin, topology" "memprism-numa-1 modelled 4x8 4 true" \
		"$(jq -r '"\(.schema) \(.origin) \(.topology.spec) \(.topology.nodes) \(.topology.simulated)"' pc.json)"
	expect_eq "json prodcons: accesses, remote, home, pattern" "163840 131072 0 remote usage after allocation" \
		"$(jq -r --arg l "$OBJ" '.objects[] | select(.label == $l) | "\(.accesses) \(.remote) \(.home) \(.pattern)"' pc.json)"
	expect_eq "json prodcons: the finding's node, API" "1 numa_alloc_onnode,move_pages" \
		"$(jq -r '.findings[0] | "\(.to_node) \(.api | join(","))"' pc.json)"
	jq -r '.findings[0].fix' pc.json | grep -q 'numa_alloc_onnode(size, 1)' || fail "json prodcons: no fix text"
	n10=$(jq '.matrix[1][0]' pc.json)
	[ "$n10" -ge 131072 ] && [ "$n10" -le 131080 ] || fail "json prodcons: node 1 -> node 0 accesses $n10"
	expect_eq "json prodcons: overall remote share = remote / accesses" 1 \
		"$(jq '(.remote_share - (.remote / .accesses) | fabs) < 0.0001' pc.json | grep -c true)"
	expect_eq "json prodcons: pinned threads" 2 "$(jq '[.threads[] | select(.pinned)] | length' pc.json)"
	expect_eq "json prodcons: the consumer on node 1, all remote" 1 \
		"$(jq '[.threads[] | select(.node == 1 and .remote == 131074)] | length' pc.json)"
	expect_eq "json prodcons: site row" 131072 \
		"$(jq --arg s "producer (numa_prodcons.c:$(line prodcons BUFFER))" '.sites[] | select(.site == $s) | .remote' pc.json)"
	"$MEMPRISM" numa -f json turns.data >tu.json
	OBJ="heap main (numa_turns.c:$(line turns BUFFER))"
	expect_eq "json turns: accesses, remote, pattern, hand-overs, runs" "204801 147456 alternate remote accesses 13 14" \
		"$(jq -r --arg l "$OBJ" '.objects[] | select(.label == $l) | "\(.accesses) \(.remote) \(.pattern) \(.handoffs) \(.timeline | length)"' tu.json)"
	expect_eq "json turns: the finding counts the hand-overs" 13 \
		"$(jq --arg l "$OBJ" '.findings[] | select(.object == $l) | .count' tu.json)"
	"$MEMPRISM" numa -f json saturate.data >sa.json
	expect_eq "json saturate: saturated node 0, 2 objects, share 1" "0 2 1" \
		"$(jq -r '.findings[] | select(.pattern == "saturated node") | "\(.node) \(.count) \(.share)"' sa.json)"
	"$MEMPRISM" numa -f json local.data >lo.json
	OBJ="heap worker (numa_local.c:$(line local BUFFER))"
	expect_eq "json local: the buffers all local, no finding" "98304 0 0" \
		"$(jq -r --arg l "$OBJ" '"\(.objects[] | select(.label == $l) | "\(.accesses) \(.remote)") \(.findings | length)"' lo.json)"
	# measured: the constructed PMU trace of tests/unit/test_numa_pmu.c (4-node host)
	"$MP_BUILD/bin/test_numa_pmu" pmu.data >/dev/null
	"$MEMPRISM" numa -f json pmu.data >pmu.json 2>/dev/null
	expect_eq "json pmu: origin, accesses, remote, samples" "measured 50000 35000 50" \
		"$(jq -r '"\(.origin) \(.accesses) \(.remote) \(.samples)"' pmu.json)"
	expect_eq "json pmu: node 1 -> node 0, node 2 -> unknown" "30000 5000" \
		"$(jq -r '"\(.matrix[1][0]) \(.elsewhere[2])"' pmu.json)"
	expect_eq "json pmu: the finding" "remote usage after allocation 1 30000" \
		"$(jq -r '.findings[0] | "\(.pattern) \(.to_node) \(.count)"' pmu.json)"
	"$MEMPRISM" numa -f json --numa 4x8 pmu.data >pmus.json 2>/dev/null
	expect_eq "json pmu under --numa 4x8: modelled, samples left out" "modelled 53" \
		"$(jq -r '"\(.origin) \(.samples_simulated)"' pmus.json)"
else
	echo "note: jq not installed: the JSON view is not checked"
fi

# memory-policy calls through libnuma (nodes the host lacks): mbind from
# numa_alloc_onnode / _interleaved_subset, set_mempolicy, move_pages. The
# mappings libnuma makes are sited at main's calls, through libnuma's
# frames: A all remote, B interleaved over 4 nodes, D local then moved.
OBJ="heap main \\(numa_policy.c:$(line policy C)\\)"
expect_eq "policy: set_mempolicy(MPOL_BIND, node 1): remote" 32768 "$(csv_field policy.csv "$OBJ" remote)"
for o in "A 8192 8192" "B 8192 6144" "D 4096 2048"; do
	set -- $o
	OBJ="mmap main \\(numa_policy.c:$(line policy $1)\\)"
	expect_eq "policy: $1: accesses, remote" "$2 $3" "$(csv_field policy.csv "$OBJ" accesses) $(csv_field policy.csv "$OBJ" remote)"
done
"$MEMPRISM" dump policy.data >pd.txt
expect_eq "policy: mbind calls" 3 "$(grep -c ' mbind ' pd.txt)"
grep -q ' set_mempolicy .* 0x2 0x2$' pd.txt || fail "policy: set_mempolicy(MPOL_BIND, node 1) not recorded"
grep -q ' move_pages .* 0x4 0x' pd.txt || fail "policy: move_pages of 4 pages not recorded"

# the topology at analysis time: matrix recorded without --numa
"$MEMPRISM" record -q -o m1.data -- ./numa_matrix >/dev/null
"$MEMPRISM" numa -f csv m1.data >m1.csv
OBJ="heap main \\(numa_matrix.c:$(line matrix MATRIX)\\)"
expect_eq "host (one node): remote" 0 "$(csv_field m1.csv "$OBJ" remote)"
"$MEMPRISM" numa -f csv --numa 4x8 m1.data >m4.csv
expect_eq "--numa 4x8 at analysis: remote" 49152 "$(csv_field m4.csv "$OBJ" remote)"
"$MEMPRISM" numa -f csv --numa 4x8 --threads compact m1.data >mc.csv
expect_eq "--threads compact: all on node 0" 0 "$(csv_field mc.csv "$OBJ" remote)"

# page policies and the model: all pages bound to node 2, every fill remote
OBJ="heap producer \\(numa_prodcons.c:$(line prodcons BUFFER)\\)"
"$MEMPRISM" numa -f csv --page-policy bind:2 prodcons.data >pb.csv
expect_eq "--page-policy bind:2: remote" 163840 "$(csv_field pb.csv "$OBJ" remote)"
# the other spellings: --pages with a policy, --by in the plural
"$MEMPRISM" numa -f csv --pages bind:2 prodcons.data >pb-old.csv
cmp -s pb.csv pb-old.csv || fail "--pages bind:2 differs from --page-policy bind:2"
for by in object site thread matrix timeline finding; do
	"$MEMPRISM" numa -f csv --by $by prodcons.data >by1.csv
	"$MEMPRISM" numa -f csv --by ${by}s prodcons.data >by2.csv
	cmp -s by1.csv by2.csv || fail "numa --by ${by}s differs from --by $by"
done
echo "ok: --pages POLICY and the plural views are the same"
# --pages SIZE is the model's, as in every command (--page-size too)
"$MEMPRISM" numa -f csv --model nehalem-e5504 --pages 2M prodcons.data >p2m.csv
"$MEMPRISM" numa -f csv --model nehalem-e5504 --page-size 2M prodcons.data >p2m-old.csv
cmp -s p2m.csv p2m-old.csv || fail "--page-size 2M differs from --pages 2M"
set +e
"$MEMPRISM" numa --pages 2M prodcons.data >/dev/null 2>err.txt
rc=$?
set -e
expect_eq "numa --pages 2M without a model: exit status" 2 "$rc"
grep -q 'need a model' err.txt || fail "numa --pages 2M without a model: $(cat err.txt)"
"$MEMPRISM" numa -f csv --model nehalem-e5504 prodcons.data >pf.csv
# 32,768 words from 16 bytes into a page span 4,097 lines: the producer's
# write-allocate fills; the consumer finds them in the LLC
expect_eq "model, first touch: DRAM fills" 4097 "$(csv_field pf.csv "$OBJ" dram_fills)"
expect_eq "model, first touch: remote fills" 0 "$(csv_field pf.csv "$OBJ" remote_fills)"
"$MEMPRISM" numa -f csv --model nehalem-e5504 --pages bind:2 prodcons.data >pbm.csv
expect_eq "model, bind:2: remote fills" 4097 "$(csv_field pbm.csv "$OBJ" remote_fills)"
"$MEMPRISM" report -f csv --model nehalem-e5504 --pages 4K prodcons.data >rep.csv
expect_eq "report --model on a --numa trace: remote DRAM" 0 "$(csv_field rep.csv "$OBJ" remote_dram)"
"$MEMPRISM" report -f csv --numa 4x8 --model nehalem-e5504 m1.data >rm.csv
OBJ="heap main \\(numa_matrix.c:$(line matrix MATRIX)\\)"
expect_eq "report --numa 4x8 --model: accesses" 73728 "$(csv_field rm.csv "$OBJ" accesses)"
set +e
"$MEMPRISM" report --numa 4y8 m1.data >/dev/null 2>err.txt
rc=$?
set -e
expect_eq "report --numa 4y8: exit status" 2 "$rc"
"$MEMPRISM" dump prodcons.data >pcd.txt
# CPU 0 (the producer, itself) and CPU 8 (the consumer, by its attribute)
grep -q ' affinity .* 0x01$' pcd.txt || fail "dump shows no affinity to CPU 0"
grep -q ' affinity .* 0x0001$' pcd.txt || fail "dump shows no affinity to CPU 8"

# bad input: a clear error and exit status 2
for bad in "--numa 4" "--numa 0x8" "--numa 4x" "--pages bind" "--pages interleave:x" "--page-policy bind" \
	"--page-policy 2M" "--threads far" "--by nodes" "--by kind"; do
	set +e
	# shellcheck disable=SC2086
	"$MEMPRISM" numa $bad prodcons.data >/dev/null 2>err.txt
	rc=$?
	set -e
	expect_eq "numa $bad: exit status" 2 "$rc"
	grep -q '^memprism: ' err.txt || fail "numa $bad: no error message"
done
set +e
"$MEMPRISM" record -q --numa 4y8 -o x.data -- ./numa_local >/dev/null 2>err.txt
rc=$?
set -e
expect_eq "record --numa 4y8: exit status" 2 "$rc"
grep -q 'NODESxCPUS' err.txt || fail "record --numa 4y8: the error does not say what is expected"

# the flow API's examples (examples/flows_*.c) on the same traces
"$MP_BUILD/bin/flows_handoff" turns.data >fh.txt
expect_eq "flows_handoff: hand-overs and cross-node ones of the turns buffer" "13 12" \
	"$(awk -v re="numa_turns.c:$(line turns BUFFER)" '$0 ~ re { print $1, $2 }' fh.txt)"
"$MP_BUILD/bin/flows_shared" matrix.data 4 >fs.txt
expect_eq "flows_shared: the matrix, read by 4 threads on 4 nodes" "4 4 65536 0.0%" \
	"$(awk -v re="numa_matrix.c:$(line matrix MATRIX)" '$0 ~ re { print $1, $2, $3, $4 }' fs.txt)"
expect_eq "flows_shared: nothing else read-mostly by 4 threads" 2 "$(wc -l <fs.txt)"
