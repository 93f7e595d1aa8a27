# The exports of several data files replay the files --jobs N at once
# (docs/mpi.md): `export --dhat` and `export --paraver` of a job's four
# ranks (tests/rt/numa_ranks.c), of the job with one rank unreadable, and
# of forked programs' files (tests/rt/fork4.c, fork.c, forkexec.c: each
# file several processes) given with the largest first (fork4 at 400 times
# its accesses: it finishes last), write the same files, byte for byte, and say the same on stderr,
# at --jobs 1, 2, 3 and 4 (Paraver's header line dates the trace to the
# minute: compared without its date). So is `report --html` of the
# job and of a forked file at --jobs 1 and 3. Two copies of fork4.data merge into
# points whose figures are twice the file's own: B (a 4 KiB block in each
# of the three children) 6 blocks, 24 KiB.
source "$(dirname "$0")/lib.sh"
numa_ranks_job
build_rt fork4
build_rt fork
build_rt forkexec
"$MEMPRISM" record -q -o fork4.data -- ./fork4 > /dev/null
"$MEMPRISM" record -q -o fork.data -- ./fork > /dev/null
"$MEMPRISM" record -q -o forkexec.data -- ./forkexec > /dev/null
"$MEMPRISM" record -q -o fork4big.data -- ./fork4 "$(sized 400 50)" > /dev/null
mkdir part
cp job/numa.[013].data part/ && head -c 100 job/numa.2.data > part/numa.2.data
# (the largest first, so the replays at once end in another order)
big=fork4big.data
# (under the sanitizers fork4 runs at 50 times, its file barely larger than
# the others, whose sizes vary with when a slow run's chunks went out: the
# order is not checked there)
[ "${MP_SANITIZED:-0}" = 1 ] || for f in fork4.data fork.data forkexec.data; do
	[ "$(stat -c %s "$f")" -lt "$(stat -c %s $big)" ] || fail "$f is larger than $big"
done

# same_exports WHAT STATUS OPERANDS...: --dhat and --paraver at --jobs 1..4
same_exports() {
	local what=$1 status=$2 j x
	shift 2
	for j in 1 2 3 4; do
		run "$status" "$what --dhat --jobs $j" "$MEMPRISM" export --jobs $j --dhat d$j.json "$@"
		mv last.err de$j
		run "$status" "$what --paraver --jobs $j" "$MEMPRISM" export --jobs $j --paraver p$j "$@"
		mv last.err pe$j
		sed -i '1s/^#Paraver ([^)]*)//' p$j.prv
	done
	for j in 2 3 4; do
		for x in d$j.json de$j p$j.prv p$j.pcf p$j.row pe$j; do
			cmp -s "$x" "${x/$j/1}" || fail "$what: $x differs from --jobs 1's: $(diff "${x/$j/1}" "$x" | head -5)"
		done
	done
	echo "ok: $what: the same --dhat and --paraver files and stderr at --jobs 1, 2, 3 and 4"
}
same_exports "the job" 0 job
same_exports "the job, rank 2 unreadable" 0 part
grep -q "part/numa.2.data was not read" de1 || fail "the unreadable rank is not named: $(cat de1)"
same_exports "forked programs" 0 --force $big fork4.data fork.data forkexec.data

# report --html of several files (the merge's tables, with a model its
# TLB and memory-level sections) and of one forked file (its plots, whose
# replays take the processes one after another): the same page at --jobs
# 1 and 3
for run in "job" "--model nehalem-e5504 job" "--model nehalem-e5504 $big"; do
	for j in 1 3; do
		# shellcheck disable=SC2086
		"$MEMPRISM" report -q --jobs $j --html "h$j.html" $run 2> "he$j"
	done
	cmp -s h1.html h3.html && cmp -s he1 he3 || fail "report --html $run: --jobs 3 differs from --jobs 1"
done
echo "ok: report --html the same at --jobs 1 and 3"

# two copies of fork4.data: each point twice the file's own
cp fork4.data copy.data
run 0 "fork4 alone" "$MEMPRISM" export -q --dhat one.json fork4.data
run 0 "fork4 twice" "$MEMPRISM" export -q --jobs 2 --dhat two.json fork4.data copy.data
lb=$(grep -n '/\* @B \*/' "$MP_SRC/tests/rt/fork4.c" | cut -d: -f1)
# point FILE: the tbk and tb of B's point
point() {
	python3 - "$1" "$lb" <<'EOF2'
import json, re, sys
d = json.load(open(sys.argv[1]))
for p in d["pps"]:
    if any(re.search(r"fork4\.c:%s\)" % sys.argv[2], d["ftbl"][i]) for i in p["fs"][:1]):
        print(p["tbk"], p["tb"])
EOF2
}
# (B: INTS = 1024 ints, 4096 bytes, in each child)
expect_eq "B: blocks, bytes" "3 $((3 * 4096))" "$(point one.json)"
expect_eq "B, two copies: blocks, bytes" "6 $((6 * 4096))" "$(point two.json)"
