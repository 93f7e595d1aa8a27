# A STREAM chunk's header counts its accesses when it holds nothing else
# (docs/trace-format.md, `accesses`), and `--sample-bursts` at replay
# passes over such chunks inside a skip without decoding them. The count
# must be the records' own: `dump` decodes every chunk and says WRONG
# where the header disagrees. Threads and inline loops (arrays), events
# in every chunk (allocheavy), a bounded recording (DROPPED records) and
# the sanitizer-coverage callbacks' path.
source "$(dirname "$0")/lib.sh"
check_counts() { # what data: plain chunks found, none WRONG
	"$MEMPRISM" dump "$2" >dump.txt
	local plain wrong
	plain=$(grep -c "header: plain" dump.txt || true)
	wrong=$(grep -c "WRONG" dump.txt || true)
	expect_eq "$1: chunks whose header count disagrees" 0 "$wrong"
	echo "ok: $1: $plain plain chunks"
	echo "$plain"
}
"$MEMPRISM" cc -O2 -g "$MP_SRC/examples/arrays.c" -o arrays -lpthread
"$MEMPRISM" record -q --no-pagemap -o arrays.data -- ./arrays 64 >/dev/null
n=$(check_counts arrays arrays.data | tail -1)
[ "$n" -gt 0 ] || fail "arrays: no chunk counted as plain"
"$MEMPRISM" cc -O2 "$MP_SRC/bench/workloads/allocheavy.c" -o allocheavy
"$MEMPRISM" record -q --no-pagemap -o alloc.data -- ./allocheavy 100000 >/dev/null
check_counts allocheavy alloc.data >/dev/null
"$MEMPRISM" record -q --no-pagemap --sample-bursts 1000,9000 -o bounded.data -- ./arrays 16 >/dev/null
check_counts "arrays in bursts" bounded.data >/dev/null
MEMPRISM_INSTRUMENT=sancov "$MEMPRISM" cc -O2 "$MP_SRC/bench/workloads/randacc.c" -o randacc
"$MEMPRISM" record -q --no-pagemap -o randacc.data -- ./randacc 16 300000 >/dev/null
n=$(check_counts "randacc, callbacks" randacc.data | tail -1)
[ "$n" -gt 0 ] || fail "randacc: no chunk counted as plain"
# Replayed in bursts, each thread records ON of every ON + OFF accesses of
# its own, from its first: the recorded count is the arithmetic's, whether
# a skip passed over whole chunks or decoded them. arrays' workers record
# 1,048,581 accesses each at 64 MiB, in 3 chunks: skips of 90,000 pass
# over none, of 900,000 one.
"$MEMPRISM" report --by thread --format csv arrays.data >threads.csv
for b in 10000,90000 1000,300000 100,900000; do
	on=${b%,*}
	off=${b#*,}
	want=$(awk -F, -v on="$on" -v off="$off" 'NR > 1 { n = $3; r = int(n / (on + off)) * on; m = n % (on + off); s += r + (m < on ? m : on) } END { print s }' threads.csv)
	got=$("$MEMPRISM" report --sample-bursts "$b" --model nehalem-e5504 --format json arrays.data |
		grep -o '"sampling":{[^}]*}' | grep -o '"recorded":[0-9]*' | cut -d: -f2)
	expect_eq "arrays replayed in bursts of $b: recorded" "$want" "$got"
done
