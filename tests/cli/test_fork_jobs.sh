# The processes of one data file replayed at once (report --jobs N, with
# a model or without): the reports of fork4 (tests/rt/fork4.c: a parent and three children that
# inherit its block A, each with a block B of its own at one site) are the
# same, byte for byte, at --jobs 1, 2 and 3, in every view and format; A's
# and B's rows and each process's row hold the figures the program's
# loops make. The same holds for fork.c with --roi (and `fork inherit`,
# whose child runs in the region it inherited open) and for forkexec.c (an exec'd image shares its pid's main
# thread with the process it replaced).
source "$(dirname "$0")/lib.sh"
build_rt fork4
build_rt fork
build_rt forkexec
src="$MP_SRC/tests/rt/fork4.c"
"$MEMPRISM" record -q -o fork4.data -- ./fork4 > out.txt
"$MEMPRISM" record -q -o fork.data -- ./fork > /dev/null
"$MEMPRISM" record -q -o forkinherit.data -- ./fork inherit > /dev/null
"$MEMPRISM" record -q -o forkexec.data -- ./forkexec > /dev/null
cat out.txt
N=1000 M=700 P=300 Q=400
ppid=$(sed -n 's/^parent \([0-9]*\)$/\1/p' out.txt)
[ -n "$ppid" ] || fail "fork4 printed no parent pid"

# every view (the object view in every format) at --jobs 1, 2, 3
views=("" "--by site" "--by process" "--by thread" "--by function" "--by kind" "--by line")
for data in fork4 fork forkinherit forkexec; do
	roi=()
	[ $data = fork ] || [ $data = forkinherit ] && roi=(--roi work)
	for view in "${views[@]}"; do
		fmts=(json)
		[ -n "$view" ] || fmts=(text csv json)
		for fmt in "${fmts[@]}"; do
			for j in 1 2 3; do
				# shellcheck disable=SC2086
				"$MEMPRISM" report --jobs $j "${roi[@]}" $view --format $fmt $data.data > "r$j" 2> "e$j"
			done
			cmp -s r1 r2 && cmp -s r1 r3 && cmp -s e1 e2 && cmp -s e1 e3 ||
				fail "$data ${view:-by object} $fmt: --jobs 2 or 3 differs from --jobs 1: $(diff r1 r2 | head -5)"
		done
	done
	echo "ok: $data: every view the same at --jobs 1, 2 and 3"
done

# with a model, each process's replay at once runs it on a machine of its
# own, as the serial replay does (set sampling too: its estimated L1 hits;
# the TLB view's pages; the golden v2 file: physical addresses, two
# processes)
cp "$MP_SRC/tests/golden/v2-fork-thread-far.data" phys.data
runs=("text" "csv" "json" "json --by process" "json --by thread" "json --by function" "json --sample-sets 4")
for data in fork4 fork forkexec phys; do
	roi=()
	[ $data = fork ] && roi=(--roi work)
	for run in "${runs[@]}"; do
		for j in 1 3; do
			# shellcheck disable=SC2086
			"$MEMPRISM" report --jobs $j "${roi[@]}" --model nehalem-e5504 --format $run $data.data > "r$j" 2> "e$j"
		done
		cmp -s r1 r3 && cmp -s e1 e3 || fail "$data --model --format $run: --jobs 3 differs from --jobs 1: $(diff r1 r3 | head -5)"
	done
	# the TLB view's pages, each process's made in its state
	for cmd in "tlb --format text" "tlb --format csv" "whatif --vs-pages 2M --format csv"; do
		for j in 1 3; do
			# shellcheck disable=SC2086
			"$MEMPRISM" $cmd --jobs $j "${roi[@]}" --model nehalem-e5504 $data.data > "r$j" 2> "e$j"
		done
		cmp -s r1 r3 && cmp -s e1 e3 || fail "$data $cmd: --jobs 3 differs from --jobs 1: $(diff r1 r3 | head -5)"
	done
	echo "ok: $data: with a model, the same at --jobs 1 and 3 (report, tlb, whatif)"
done
"$MEMPRISM" report --jobs 2 --model nehalem-e5504 phys.data > r2
grep -q '^physical:  caches indexed by physical address for 100.0%' r2 ||
	fail "the golden v2 file's model is not physically indexed: $(grep '^physical' r2)"

# the figures, at --jobs 3
la=$(grep -n '/\* @A \*/' "$src" | cut -d: -f1) lb=$(grep -n '/\* @B \*/' "$src" | cut -d: -f1)
A="^heap main \\(fork4\\.c:$la\\)\$" B="^heap main \\(fork4\\.c:$lb\\)\$"
"$MEMPRISM" report --jobs 3 --format csv fork4.data > obj.csv
expect_eq "A loads" $((6 * M)) "$(csv_field obj.csv "$A" loads)"
expect_eq "A stores" $((N + Q)) "$(csv_field obj.csv "$A" stores)"
expect_eq "A threads" 4 "$(csv_field obj.csv "$A" threads)"
expect_eq "A instances" 1 "$(csv_field obj.csv "$A" instances)"
expect_eq "B stores" $((6 * P)) "$(csv_field obj.csv "$B" stores)"
expect_eq "B loads" 0 "$(csv_field obj.csv "$B" loads)"
expect_eq "B instances" 3 "$(csv_field obj.csv "$B" instances)"
expect_eq "B threads" 3 "$(csv_field obj.csv "$B" threads)"
"$MEMPRISM" report --jobs 3 --by process --format csv fork4.data > proc.csv
expect_eq "--by process: rows" 4 "$(tail -n +2 proc.csv | wc -l)"
for k in 1 2 3; do
	cpid=$(sed -n "s/^child $k \\([0-9]*\\)\$/\\1/p" out.txt)
	expect_eq "--by process: child $k (pid, loads, stores)" "$cpid,$((k * M)),$((k * P))" \
		"$(awk -F, -v p="$cpid" '$3 == p { print $3 "," $6 "," $7 }' proc.csv)"
done
expect_eq "--by process: parent's stores" $((N + Q)) "$(awk -F, -v p="$ppid" '$3 == p { print $7 }' proc.csv)"
"$MEMPRISM" report --jobs 3 --format json fork4.data > obj.json
grep -q '"warnings":\[\]' obj.json || fail "unexpected warnings: $(grep -o '"warnings".*' obj.json)"
echo "ok: no warnings"

# What-if page rules and threads spread over the model's cores replay the
# processes at once too: fork_threads (tests/rt/fork_threads.c: a parent
# and three children of two threads, each block taken through buf_alloc)
# the same at --jobs 1 and 3. A rule's matches are folded in the serial
# order, each class once: its warning names the last class it met, the
# last child's, and counts 4 stacks. A thread's core is its place among
# the file's threads, the serial replay's: on two sockets of four cores
# the second child's threads (the file's 3 and 4) are on different
# sockets, the others' on one, so only the second child's reader finds its
# block in the other socket's LLC (a remote cache hit a line, once).
build_rt fork_threads -lpthread
"$MEMPRISM" record -q -o ft.data -- ./fork_threads > ft.txt
LINES=8192
pages=(--pages buf_alloc=2M --pages nomatch=1G)
for cmd in "report" "report --format csv" "report --format json --by process" "tlb --format csv" \
	"whatif --vs-pages 2M --format csv"; do
	for j in 1 3; do
		# shellcheck disable=SC2086
		"$MEMPRISM" $cmd --jobs $j --model nehalem-e5504 --thread-map spread "${pages[@]}" ft.data > "r$j" 2> "e$j"
	done
	cmp -s r1 r3 && cmp -s e1 e3 ||
		fail "fork_threads $cmd: --jobs 3 differs from --jobs 1: $(diff r1 r3 | head -5; diff e1 e3 | head -3)"
done
"$MEMPRISM" report --jobs 3 --model nehalem-e5504 "${pages[@]}" ft.data > e3
"$MEMPRISM" report --jobs 3 --format csv --by process ft.data > ftp.csv
pids=$(tail -n +2 ftp.csv | awk -F, '{ print $3 }' | tr '\n' ' ')
# the children in the file's order, by their k
ks=""
for p in $pids; do
	k=$(sed -n "s/^child \\([0-9]\\) $p\$/\\1/p" ft.txt)
	[ -n "$k" ] && ks="$ks $k"
done
read -r k1 k2 k3 <<< "$ks"
[ -n "$k3" ] || fail "fork_threads: no three children in --by process: $pids / $(cat ft.txt)"
expect_eq "--pages buf_alloc: the warning's count and last class" \
	"4 allocation stacks that pass through a frame it names but are sited above it (\"heap child$k3 " \
	"$(grep -o '4 allocation stacks that pass .*(\"heap child[0-9] ' e3)"
grep -q 'nomatch: no object' e3 || fail "--pages nomatch: no warning: $(cat e3)"
grep -q 'buf_alloc: no object' e3 && fail "--pages buf_alloc: said to match nothing: $(cat e3)"
"$MEMPRISM" report --jobs 3 --model nehalem-e5504 --thread-map spread --format csv ft.data > fts.csv
for k in "$k1" "$k2" "$k3"; do
	want=0
	[ "$k" = "$k2" ] && want=$LINES
	expect_eq "spread: child $k's block's remote cache hits" $want \
		"$(csv_field fts.csv "^heap child$k \\(" remote_cache)"
done
echo "ok: fork_threads: --pages rules and --thread-map spread the same at --jobs 1 and 3"

# NUMA placement replays the processes at once too, each placing its own
# pages (a process's are its own in the serial replay), folded in the
# serial order: fork4's A and fork_threads the same at --jobs 1 and 3 in
# every view. A's timeline goes on from process to process: a run each
# (4), and between two processes a hand-off or an overlap (3). Each
# child's reader (its second thread, on node 1) reads the block its main
# thread touched first (node 0): k x LINES remote loads. (And the golden
# v2 file, whose pages are on the nodes of their recorded frames.)
for data in fork4 ft; do
	for run in "--format json" "--format json --by thread" "--by timeline" "--by process --format csv" \
		"--model nehalem-e5504 --thread-map spread --format json"; do
		for j in 1 3; do
			# shellcheck disable=SC2086
			"$MEMPRISM" numa --numa 2x4 --jobs $j $run $data.data > "r$j" 2> "e$j"
		done
		cmp -s r1 r3 && cmp -s e1 e3 || fail "$data numa $run: --jobs 3 differs from --jobs 1: $(diff r1 r3 | head -5)"
	done
done
# the golden v2 file on its recorded host: pages on the nodes of their
# recorded frames, each process translating its own
for run in "" "--format json --by thread"; do
	for j in 1 3; do
		# shellcheck disable=SC2086
		"$MEMPRISM" numa --jobs $j $run phys.data > "r$j" 2> "e$j"
	done
	cmp -s r1 r3 && cmp -s e1 e3 || fail "phys.data numa $run: --jobs 3 differs from --jobs 1: $(diff r1 r3 | head -5)"
done
"$MEMPRISM" numa --numa 2x4 --jobs 3 --format json fork4.data > n4.json
expect_eq "numa: A's runs, hand-offs + overlaps, threads" "4 3 4" "$(python3 -c '
import json, sys
o = [o for o in json.load(open("n4.json"))["objects"] if o["label"] == "heap main (fork4.c:'"$la"')"][0]
print(o["runs"], o["handoffs"] + o["overlaps"], len(o["users"]))')"
"$MEMPRISM" numa --numa 2x4 --jobs 3 --format csv ft.data > nft.csv
for k in 1 2 3; do
	expect_eq "numa: child $k's block's remote accesses" $((k * LINES)) "$(csv_field nft.csv "^heap child$k \\(" remote)"
done
echo "ok: numa: fork4 and fork_threads the same at --jobs 1 and 3"
