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
