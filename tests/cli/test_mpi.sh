# MPI ranks (tests/rt/mpi_ranks.c, built through mpicc with OMPI_CC naming
# `memprism cc`): under Open MPI's mpirun, 4 ranks on loopback, each
# `memprism record` writes its own file named by rank, with the rank, the
# job's size, the launcher's variable and the host in its header; each
# rank's row of its one site counts exactly its own work: N(r) = 1000(r+1)
# ints, N(r) stores, (r+2)N(r) loads, 4N(r) bytes. -o takes %r; a FILE
# without it gets .rankN; MPICH's PMI_RANK and Slurm's SLURM_PROCID name the
# file too; %r without a launcher and a rank that is not a number are
# refused. Skipped (77) without mpicc and mpirun (scripts/deps.sh installs
# openmpi-bin and libopenmpi-dev).
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
A="^heap work \\(mpi_ranks\\.c:$la\\)\$"
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
done

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
