# MPI ranks (tests/rt/mpi_ranks.c, built through mpicc with OMPI_CC naming
# `memprism cc`): under Open MPI's mpirun, 4 ranks on loopback, each
# `memprism record` writes its own file named by rank, with the rank, the
# job's size, the launcher's variable and the host in its header; each
# rank's row of its one site counts exactly its own work: N(r) = 1000(r+1)
# ints, N(r) stores, (r+2)N(r) loads, 4N(r) bytes, and r+1 stores to a
# static. -o takes %r; a FILE
# without it gets .rankN; MPICH's PMI_RANK and Slurm's SLURM_PROCID name the
# file too; %r without a launcher and a rank that is not a number are
# refused.
# Merged (report FILES... or DIR): the site's row is the sum over ranks,
# exactly, its spread over the files the arithmetic's, one row per site,
# static and stack kind though ASLR loaded every rank elsewhere; --by rank
# and --by process give each rank's own figures; the model's figures add
# up; --html shows the merged rows; numa, export --dhat and --paraver merge
# the ranks too; files of another program, a rank twice and ranks of two runs are
# refused (--force merges), a rank missing or cut short is named and the
# report goes on. Skipped (77) without mpicc and mpirun (scripts/deps.sh
# installs openmpi-bin and libopenmpi-dev).
source "$(dirname "$0")/lib.sh"
command -v mpicc >/dev/null && command -v mpirun >/dev/null || {
	echo "skip: no mpicc/mpirun (openmpi-bin, libopenmpi-dev)"
	exit 77
}
src="$MP_SRC/tests/rt/mpi_ranks.c"
OMPI_CC="$MEMPRISM cc" mpicc -O2 -g "$src" -o mpi_ranks
# loopback only, shared memory between the ranks; as root, Open MPI wants to
# be told (the variables mpirun --allow-run-as-root sets)
export OMPI_MCA_btl=self,vader OMPI_MCA_oob_tcp_if_include=lo OMPI_MCA_btl_tcp_if_include=lo
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mpirun() { command mpirun --oversubscribe -np 4 "$@"; }
la=$(grep -n '/\* @A \*/' "$src" | cut -d: -f1)
A="^heap work \\(mpi_ranks\\.c:$la\\)\$" H="^static hits \\(mpi_ranks \\.bss\\)\$"
host=$(uname -n)

mpirun "$MEMPRISM" record -q -- ./mpi_ranks > out.txt
expect_eq "program output" "ranks 4 sum 64980000" "$(cat out.txt)"
expect_eq "files" "memprism.rank0.data memprism.rank1.data memprism.rank2.data memprism.rank3.data" \
	"$(echo memprism*.data)"
for r in 0 1 2 3; do
	f=memprism.rank$r.data n=$((1000 * (r + 1)))
	"$MEMPRISM" dump $f | sed -n 2p > head.txt
	expect_eq "rank $r header" "  rank $r of 4 (OMPI_COMM_WORLD_RANK) on host $host" "$(cat head.txt)"
	"$MEMPRISM" report --format csv $f > r$r.csv
	expect_eq "rank $r: stores" $n "$(csv_field r$r.csv "$A" stores)"
	expect_eq "rank $r: loads" $(((r + 2) * n)) "$(csv_field r$r.csv "$A" loads)"
	expect_eq "rank $r: bytes" $((4 * n)) "$(csv_field r$r.csv "$A" size)"
	expect_eq "rank $r: instances" 1 "$(csv_field r$r.csv "$A" instances)"
	expect_eq "rank $r: static stores" $((r + 1)) "$(csv_field r$r.csv "$H" stores)"
done

# merged: the sum over ranks; the spread of (r+3)N(r) = 3000, 8000, 15000, 24000
"$MEMPRISM" report --format csv memprism.rank*.data > m.csv
expect_eq "merged: accesses" 50000 "$(csv_field m.csv "$A" accesses)"
expect_eq "merged: loads" 40000 "$(csv_field m.csv "$A" loads)"
expect_eq "merged: stores" 10000 "$(csv_field m.csv "$A" stores)"
expect_eq "merged: size" 40000 "$(csv_field m.csv "$A" size)"
expect_eq "merged: instances" 4 "$(csv_field m.csv "$A" instances)"
expect_eq "merged: max_size" 16000 "$(csv_field m.csv "$A" max_size)"
expect_eq "merged: spread" "4 3000 11500 24000 \"3\"" "$(for c in files file_min file_median file_max file_top; do
	csv_field m.csv "$A" $c; done | xargs -d'\n' echo)"
expect_eq "merged static: stores" 10 "$(csv_field m.csv "$H" stores)"
expect_eq "merged static: spread" "1 2.5 4" "$(for c in file_min file_median file_max; do csv_field m.csv "$H" $c; done | xargs echo)"
expect_eq "merged main stacks: instances" 4 "$(csv_field m.csv '^main thread stacks$' instances)"
"$MEMPRISM" report --format csv . > d.csv
cmp m.csv d.csv || fail "a directory's report differs from its files'"
echo "ok: the directory's report is the files'"
# ASLR: each rank's program was loaded elsewhere, yet one row per object:
# the merged rows are exactly the files' rows, stacks by kind
for r in 0 1 2 3; do
	"$MEMPRISM" dump memprism.rank$r.data > dump.txt
	grep -m1 'map_initial.*/mpi_ranks"' dump.txt | awk '{print $4}'
done | sort -u > bases.txt
if [ "$(cat /proc/sys/kernel/randomize_va_space)" != 0 ]; then
	expect_eq "ranks' load addresses (ASLR)" 4 "$(wc -l < bases.txt)"
fi
labels() { awk -F'",' 'FNR > 1 { sub(/^"/, "", $1); print $1 }' "$@"; }
labels r?.csv | sed -E 's/^main thread stack \(pid [0-9]+\)$/main thread stacks/; s/^stack of thread [0-9]+$/thread stacks/' |
	sort -u > want.txt
labels m.csv | sort > got.txt
diff want.txt got.txt > d.txt || fail "merged rows are not the files' rows: $(head d.txt)"
expect_eq "merged rows, one per object" "$(wc -l < want.txt)" "$(wc -l < got.txt)"

# the model: each rank on a machine of its own, the figures add up (report,
# whatif); the TLB view's pages are each rank's own
mach=nehalem-e5504
"$MEMPRISM" report -q --model $mach --format csv . > mm.csv
"$MEMPRISM" whatif -q --model $mach --vs-pages 2M --format csv . > mw.csv
"$MEMPRISM" tlb -q --model $mach --format csv . > mt.csv
rr=0 rw=0 wa=0 da=0 pages=0
for r in 0 1 2 3; do
	"$MEMPRISM" report -q --model $mach --format csv memprism.rank$r.data > x.csv
	rr=$((rr + $(csv_field x.csv "$A" dram_reads))) rw=$((rw + $(csv_field x.csv "$A" dram_writes)))
	"$MEMPRISM" whatif -q --model $mach --vs-pages 2M --format csv memprism.rank$r.data > x.csv
	wa=$((wa + $(csv_field x.csv "$A" walks_a))) da=$((da + $(csv_field x.csv "$A" dram_a)))
	pages=$((pages + $("$MEMPRISM" tlb -q --model $mach --format csv memprism.rank$r.data | tail -n +2 | wc -l)))
done
[ "$rr" -gt 0 ] || fail "the model found no DRAM reads of the site"
expect_eq "merged model: DRAM reads" $rr "$(csv_field mm.csv "$A" dram_reads)"
expect_eq "merged model: DRAM writes" $rw "$(csv_field mm.csv "$A" dram_writes)"
expect_eq "merged whatif: A's walks" $wa "$(csv_field mw.csv "$A" walks_a)"
expect_eq "merged whatif: A's DRAM" $da "$(csv_field mw.csv "$A" dram_a)"
expect_eq "merged tlb: pages" $pages "$(tail -n +2 mt.csv | wc -l)"

# the visual report of the merge: a table row per merged row (no plots)
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -n "$browser" ]; then
	"$MEMPRISM" report --html m.html .
	timeout 120 "$browser" --headless=new --no-sandbox --disable-gpu --user-data-dir="$MP_SCRATCH/chrome-profile" \
		--virtual-time-budget=10000 --dump-dom "file://$MP_SCRATCH/m.html" > dom.html 2>/dev/null
	st=$(grep -o '<pre id="status">[^<]*' dom.html | sed 's/.*>//')
	expect_eq "--html of the merge" "ok objects=$(($(wc -l < m.csv) - 1)) rows=$(($(wc -l < m.csv) - 1)) plots=0" \
		"$(echo "$st" | cut -d' ' -f1-4)"
fi

# numa and the exports over the ranks: each rank on a 2-node machine of its
# own (one thread: every access local), DHAT's point of @A the ranks' sum
# (4 blocks, 40000 bytes, 4 x 40000 bytes read, 40000 written), Paraver a
# task per rank
"$MEMPRISM" numa -q --numa 2x4 --format csv . > mn.csv
expect_eq "merged numa: @A accesses, remote" "50000 0" \
	"$(for c in accesses remote; do csv_field mn.csv "$A" $c; done | xargs echo)"
"$MEMPRISM" numa -q --numa 2x4 --by rank --format csv . > mnr.csv
for r in 0 1 2 3; do
	"$MEMPRISM" numa -q --numa 2x4 --format json memprism.rank$r.data | grep -o '^"accesses":[0-9]*' | cut -d: -f2
done | xargs echo > want.txt
expect_eq "merged numa --by rank: each rank's accesses" "$(cat want.txt)" "$(awk -F, 'NR > 1 { print $6 }' mnr.csv | xargs echo)"
"$MEMPRISM" export -q --dhat m.json --paraver mp .
python3 - m.json "mpi_ranks.c:$la" > mdh.txt <<'EOF2'
import json, sys
d = json.load(open(sys.argv[1]))
for p in d["pps"]:
    if sys.argv[2] in d["ftbl"][p["fs"][0]]:
        print(p["tbk"], p["tb"], p["rb"], p["wb"])
EOF2
expect_eq "merged dhat: @A tbk tb rb wb" "4 40000 160000 40000" "$(cat mdh.txt)"
expect_eq "merged paraver: a task per rank" ":1:4(" "$(head -1 mp.prv | grep -o ':1:4(')"

# --by rank: each file's own figures; --by process: each rank's process
"$MEMPRISM" report --by rank --format csv . > rank.csv
for r in 0 1 2 3; do
	t=$("$MEMPRISM" report --format json memprism.rank$r.data | grep -o '"total":{"accesses":[0-9]*' | grep -o '[0-9]*$')
	expect_eq "--by rank: rank $r" "$r,\"$host\",memprism.rank$r.data,ok,$t" \
		"$(awk -F, -v r=$r '$1 == r { gsub(/"/, "", $4); gsub(/"/, "", $5); print $1 "," $2 "," $4 "," $5 "," $6 }' rank.csv)"
done
"$MEMPRISM" report --by process --format csv . > proc.csv
expect_eq "--by process: rows" 4 "$(awk -F, 'NR > 1' proc.csv | wc -l)"
expect_eq "--by process: accesses" "$(awk -F, 'NR > 1 { print $6 }' rank.csv | xargs echo)" \
	"$(awk -F, 'NR > 1 { print $5 }' proc.csv | xargs echo)"

# -o with the rank in it; -o without it
mkdir out
mpirun "$MEMPRISM" record -q -o 'out/run-%r.%%.data' -- ./mpi_ranks > /dev/null
expect_eq "-o with %r" "out/run-0.%.data out/run-1.%.data out/run-2.%.data out/run-3.%.data" "$(echo out/*)"
mpirun "$MEMPRISM" record -q -o plain.data -- ./mpi_ranks > /dev/null
expect_eq "-o without %r" "plain.data.rank0 plain.data.rank1 plain.data.rank2 plain.data.rank3" \
	"$(echo plain.data*)"

# the other launchers' variables (a plain, non-MPI run of the same shape)
cat > one.c <<'EOF2'
#include <stdlib.h>
int main(void) { volatile int *a = malloc(64); a[0] = 1; return a[0] - 1; }
EOF2
"$MEMPRISM" cc -O2 -g one.c -o one
clean=(env -u OMPI_COMM_WORLD_RANK -u PMI_RANK -u PMIX_RANK -u SLURM_PROCID)
"${clean[@]}" PMI_RANK=5 PMI_SIZE=8 "$MEMPRISM" record -q -- ./one
expect_eq "PMI_RANK" "  rank 5 of 8 (PMI_RANK) on host $host" "$("$MEMPRISM" dump memprism.rank5.data | sed -n 2p)"
"${clean[@]}" SLURM_PROCID=3 SLURM_NTASKS=4 "$MEMPRISM" record -q -o 's%r-%h.data' -- ./one
expect_eq "SLURM_PROCID" "  rank 3 of 4 (SLURM_PROCID) on host $host" "$("$MEMPRISM" dump "s3-$host.data" | sed -n 2p)"
"${clean[@]}" "$MEMPRISM" record -q -o solo.data -- ./one
expect_eq "no launcher: no rank line" "@" "$("$MEMPRISM" dump solo.data | sed -n 2p | cut -c1)"

# refused
run 2 "%r without a launcher" "${clean[@]}" "$MEMPRISM" record -q -o 'x%r.data' -- ./one
said "%r without a launcher" "%r needs a rank"
run 2 "a rank that is not a number" "${clean[@]}" OMPI_COMM_WORLD_RANK=two "$MEMPRISM" record -q -- ./one
said "a rank that is not a number" "OMPI_COMM_WORLD_RANK is 'two', not a number"
run 2 "%q" "${clean[@]}" "$MEMPRISM" record -q -o 'x%q.data' -- ./one
[ ! -e x%q.data ] && [ ! -e 'x%r.data' ] || fail "a refused pattern left a file"
echo "ok: refused patterns left no file"

# merged, bad input: another program; a rank twice; a rank missing; cut short
run 2 "another program" "$MEMPRISM" report memprism.rank0.data solo.data
said "another program" "memprism.rank0.data \\(rank 0\\) records mpi_ranks, solo.data records one: files of different programs"
run 0 "another program, --force" "$MEMPRISM" report --force memprism.rank0.data solo.data
mkdir mixed
cp out/run-0.%.data out/run-1.%.data memprism.rank2.data memprism.rank3.data mixed/
run 2 "two runs' ranks" "$MEMPRISM" report mixed
said "two runs' ranks" "are of different runs \\(job [^,]+, 4 ranks; job [^,]+, 4 ranks\\)"
mkdir dup part cut
cp memprism.rank[0-3].data dup/ && cp memprism.rank1.data dup/again.data
run 2 "a rank twice" "$MEMPRISM" report dup
said "a rank twice" "both hold rank 1"
cp memprism.rank[013].data part/
run 0 "rank 2 missing" "$MEMPRISM" report --format csv part
said "rank 2 missing" "rank 2 of 4: no readable data file"
expect_eq "rank 2 missing: the rest" 35000 "$(csv_field last.out "$A" accesses)"
expect_eq "rank 2 missing: the spread of 3" "3 3000 8000 24000 \"3\"" "$(for c in files file_min file_median file_max file_top; do
	csv_field last.out "$A" $c; done | xargs -d'\n' echo)"
cp memprism.rank[013].data cut/ && head -c 100 memprism.rank2.data > cut/memprism.rank2.data
run 0 "rank 2's header cut" "$MEMPRISM" report --format csv cut
said "rank 2's header cut" "cut/memprism.rank2.data was not read: .*the report goes on"
said "rank 2's header cut" "rank 2 of 4: no readable data file"
expect_eq "rank 2's header cut: the rest" 35000 "$(csv_field last.out "$A" accesses)"
cut_short memprism.rank2.data cut/memprism.rank2.data
run 0 "rank 2 cut short" "$MEMPRISM" report --by rank --format csv cut
said "rank 2 cut short" "cut/memprism.rank2.data \\(rank 2\\) is damaged or truncated"
expect_eq "rank 2 cut short: its status" '"damaged: read in part"' "$(awk -F, '$1 == 2 { print $5 }' last.out)"
run 0 "rank 2 cut short, objects" "$MEMPRISM" report --format csv cut
cp last.out cut.csv
# (what of rank 2's row survived depends on where the cut fell: read alone)
"$MEMPRISM" report --format csv cut/memprism.rank2.data > cut2.csv 2>/dev/null || true
x2=$(csv_field cut2.csv "$A" accesses)
[ "$x2" = missing ] && x2=0
expect_eq "rank 2 cut short: the sum" $((35000 + x2)) "$(csv_field cut.csv "$A" accesses)"
expect_eq "rank 2 cut short: the others' spread" "4 24000" \
	"$(for c in files file_max; do csv_field cut.csv "$A" $c; done | xargs echo)"
