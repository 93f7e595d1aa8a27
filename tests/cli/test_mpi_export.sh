# export over many processes (docs/mpi.md): four processes of a job
# (tests/rt/numa_ranks.c, its rank from PMI_RANK) each record a file;
# `export --dhat` of the files (or their directory) merges their
# allocation sites into one DHAT program point per stack, keyed by
# function, file and line (each rank loaded the program elsewhere): rank r
# allocates 4N(r) bytes at @A, N(r) = 1000(r+1), writes them once and
# reads them r+1 times, so the merged point has 4 blocks, 40000 bytes,
# 120000 read and 40000 written, and every figure of every point is the
# sum of the ranks' own exports. `export --paraver` writes the ranks as
# the tasks of one application, each rank's records its own export's;
# --sqlite of several files is refused, naming the format; files of
# another program are refused
# (--force merges); a missing rank and an unreadable file are named and
# the export goes on.
source "$(dirname "$0")/lib.sh"
numa_ranks_job
la=$(grep -n '/\* @A \*/' "$MP_SRC/tests/rt/numa_ranks.c" | cut -d: -f1)

# pp FILE: a line per program point, "FRAMES(sans addresses)|tb|tbk|rb|wb|mb|gb|eb"
pp() {
	python3 - "$1" <<'EOF2'
import json, re, sys
d = json.load(open(sys.argv[1]))
for p in d["pps"]:
    fs = ";".join(re.sub(r"^0x[0-9a-f]+: ", "", d["ftbl"][i]) for i in p["fs"])
    print("|".join([fs] + [str(p[k]) for k in ("tb", "tbk", "rb", "wb", "mb", "gb", "eb")]))
EOF2
}
run 0 "export --dhat of the directory" "$MEMPRISM" export -q --dhat all.json job
pp all.json > all.txt
expect_eq "@A merged: tb tbk rb wb mb gb eb" "40000|4|120000|40000|40000|40000|0" \
	"$(grep "^main ([^)]*numa_ranks\.c:$la)" all.txt | cut -d'|' -f2-)"
expect_eq "@A: one program point" 1 "$(grep -c "^main ([^)]*numa_ranks\.c:$la)" all.txt)"
for r in 0 1 2 3; do
	"$MEMPRISM" export -q --dhat r$r.json job/numa.$r.data
	pp r$r.json
done | awk -F'|' '{ k = $1; n[k]++; for (i = 2; i <= 8; i++) s[k, i] += $i }
	END { for (k in n) { line = k; for (i = 2; i <= 8; i++) line = line "|" s[k, i]; print line } }' | sort > want.txt
sort all.txt > got.txt
diff want.txt got.txt > d.txt || fail "merged points are not the ranks' summed: $(head -5 d.txt)"
echo "ok: every merged point is the sum of the ranks' ($(wc -l < got.txt) points)"
run 0 "export --dhat of the files" "$MEMPRISM" export -q --dhat files.json job/numa.3.data job/numa.1.data \
	job/numa.0.data job/numa.2.data
cmp all.json files.json || fail "the files' export differs from the directory's"
echo "ok: the files' export is the directory's (rank order)"
python3 -c "import json; d = json.load(open('all.json')); print(d['dhatFileVersion'], d['mode'])" > v.txt
expect_eq "a DHAT file" "2 heap" "$(cat v.txt)"

# Paraver: one application, a task per rank (as Extrae writes a job), a node
# per file with its own CPUs; each rank's records are its own export's, on
# its own clock, objects named once by label
run 0 "export --paraver of the directory" "$MEMPRISM" export -q --paraver job job
# (each node's CPUs: those its rank's threads ran on)
hdr=$(head -1 job.prv | sed 's/^.*_ns://')
[[ $hdr =~ ^4\([12],[12],[12],[12]\):1:4\(2:1,2:2,2:3,2:4\)$ ]] ||
	fail "paraver header: 4 nodes, one application, a task per rank of 2 threads on its node: got '$hdr'"
echo "ok: paraver header: $hdr"
expect_eq "paraver .row: the ranks' nodes" "rank 0 ($(uname -n))|rank 3 ($(uname -n))" \
	"$(sed -n '/^LEVEL NODE SIZE 4$/,/^$/p' job.row | sed -n '2p;5p' | paste -sd'|')"
# recs PREFIX TASK_OFFSET: "task:thread:time:object label:address:kind" per access record
recs() {
	awk -F: -v off="$2" 'NR == FNR { if ($0 ~ /Object \(memprism\)/) on = 1; else if (on && /^$/) on = 0;
		if (on && $0 ~ /^[0-9]+      /) { id = $0; sub(/ .*/, "", id); lab = $0; sub(/^[0-9]+      /, "", lab); name[id] = lab }
		next }
	FNR > 1 && $7 == 32000001 { print $4 + off ":" $5 ":" $6 ":" name[$8] ":" $10 ":" $12 }' "$1.pcf" "$1.prv"
}
for r in 0 1 2 3; do
	"$MEMPRISM" export -q --paraver p$r job/numa.$r.data
	recs p$r $r
done | sed -E 's/main thread stack \(pid [0-9]+\)/main thread stacks/' | sort > want.txt
recs job 0 | sort > got.txt
expect_eq "paraver: access records" 40032 "$(wc -l < got.txt)"
diff want.txt got.txt > d.txt || fail "merged Paraver records are not the ranks' own: $(head -5 d.txt)"
echo "ok: every rank's records, as its own export has them, in its task"
expect_eq "paraver: @A one object" 1 "$(grep -c "^[0-9]*      main (numa_ranks.c:$la)\|^[0-9]*      heap main ([^)]*numa_ranks\.c:$la)" job.pcf)"

# SQLite: one process's tables: refused, named
run 2 "--sqlite of several" "$MEMPRISM" export --sqlite x.db job
said "--sqlite of several" "^memprism: --sqlite of several data files: not merged"
[ ! -e x.db ] || fail "a refused --sqlite left x.db"
echo "ok: the refused export left no file"

# bad input, as report's merge
cat > other.c <<'EOF2'
#include <stdlib.h>
int main(void) { volatile int *a = malloc(64); a[0] = 1; return a[0] - 1; }
EOF2
"$MEMPRISM" cc -O2 -g other.c -o other
"${clean[@]}" "$MEMPRISM" record -q -o other.data -- ./other
run 2 "another program" "$MEMPRISM" export --dhat o.json job/numa.0.data other.data
said "another program" "job/numa.0.data \\(rank 0\\) records numa_ranks, other.data records other: files of different programs"
run 0 "another program, --force" "$MEMPRISM" export -q --force --dhat o.json job/numa.0.data other.data
expect_eq "another program, --force: @A" "4000|1" \
	"$(pp o.json | grep "^main ([^)]*numa_ranks\.c:$la)" | cut -d'|' -f2-3)"
mkdir part
cp job/numa.[013].data part/ && head -c 100 job/numa.2.data > part/numa.2.data
run 0 "rank 2 unreadable" "$MEMPRISM" export --dhat p.json part
said "rank 2 unreadable" "part/numa.2.data was not read: .*the export goes on without it"
said "rank 2 unreadable" "rank 2 of 4: no readable data file"
expect_eq "rank 2 unreadable: @A of the rest" "28000|3|84000|28000" \
	"$(pp p.json | grep "^main ([^)]*numa_ranks\.c:$la)" | cut -d'|' -f2-5)"
rm part/numa.2.data
run 0 "rank 2 missing" "$MEMPRISM" export --dhat p2.json part
said "rank 2 missing" "rank 2 of 4: no readable data file"
cmp p.json p2.json || fail "a missing rank's export differs from an unreadable one's"
echo "ok: missing and unreadable rank: the same export of the rest"
