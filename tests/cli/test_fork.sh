# fork (tests/rt/fork.c): the child inherits the parent's heap block A and
# its site; A's row counts the parent's N+Q stores and the child's M loads and
# lists both tids; B, allocated by the child, counts the child's P stores;
# the child's S stores to a local are on its own stack row, "main thread
# stack (pid CHILD)", and none of them on the parent's.
# JSON lists both processes, the child with ppid = the parent's pid.
# --by process has a row for each, with its own loads and stores.
source "$(dirname "$0")/lib.sh"
build_rt fork
src="$MP_SRC/tests/rt/fork.c"
"$MEMPRISM" record -q -o fork.data -- ./fork > out.txt
cat out.txt
N=1000 M=700 P=300 Q=400 S=200
read -r ppid cpid < <(sed -n 's/^parent \([0-9]*\) child \([0-9]*\)$/\1 \2/p' out.txt)
[ -n "$ppid" ] && [ -n "$cpid" ] || fail "fork printed no pids"
la=$(grep -n '/\* @A \*/' "$src" | cut -d: -f1) lb=$(grep -n '/\* @B \*/' "$src" | cut -d: -f1)
A="^heap main \\(fork\\.c:$la\\)\$" B="^heap main \\(fork\\.c:$lb\\)\$"
for roi in "--roi work" ""; do
	# shellcheck disable=SC2086
	"$MEMPRISM" report $roi --format csv fork.data > obj.csv
	w=${roi:-"no roi"}
	expect_eq "A accesses ($w)" $((N + M + Q)) "$(csv_field obj.csv "$A" accesses)"
	expect_eq "A loads ($w)" $M "$(csv_field obj.csv "$A" loads)"
	expect_eq "A stores ($w)" $((N + Q)) "$(csv_field obj.csv "$A" stores)"
	expect_eq "A threads ($w)" 2 "$(csv_field obj.csv "$A" threads)"
	expect_eq "A instances ($w)" 1 "$(csv_field obj.csv "$A" instances)"
	expect_eq "B accesses ($w)" $P "$(csv_field obj.csv "$B" accesses)"
	expect_eq "B stores ($w)" $P "$(csv_field obj.csv "$B" stores)"
	expect_eq "B threads ($w)" 1 "$(csv_field obj.csv "$B" threads)"
	expect_eq "child stack stores ($w)" $S "$(csv_field obj.csv "^main thread stack \\(pid $cpid\\)\$" stores)"
	expect_eq "child stack threads ($w)" 1 "$(csv_field obj.csv "^main thread stack \\(pid $cpid\\)\$" threads)"
	expect_eq "child stack instances ($w)" 1 "$(csv_field obj.csv "^main thread stack \\(pid $cpid\\)\$" instances)"
	pst=$(csv_field obj.csv "^main thread stack \\(pid $ppid\\)\$" threads)
	[ "$pst" = missing ] || expect_eq "parent stack threads ($w)" 1 "$pst"
done
"$MEMPRISM" report --roi work --format json fork.data > obj.json
row_threads() { grep -o "\"label\":\"heap main (fork.c:$1)\"[^]]*\\]" obj.json | grep -o 'threads":\[[0-9,]*' | cut -d[ -f2; }
ta=$(row_threads "$la") tb=$(row_threads "$lb")
if [ "$ta" != "$ppid,$cpid" ] && [ "$ta" != "$cpid,$ppid" ]; then
	fail "A threads: expected $ppid and $cpid, got [$ta]"
fi
echo "ok: A threads = [$ta]"
expect_eq "B threads" "$cpid" "$tb"
procs=$(grep -o '"processes":\[[^]]*\]' obj.json)
expect_eq "process count" 2 "$(grep -o '"pid":' <<<"$procs" | wc -l)"
grep -q "{\"pid\":$ppid,\"ppid\":[0-9]*,[^}]*\"ended\":true" <<<"$procs" || fail "parent $ppid missing or not ended: $procs"
grep -q "{\"pid\":$cpid,\"ppid\":$ppid,[^}]*\"instrumented\":true,\"ended\":true" <<<"$procs" ||
	fail "child $cpid with ppid $ppid missing or not ended: $procs"
echo "ok: processes $procs"
grep -q '"warnings":\[\]' obj.json || fail "unexpected warnings: $(grep -o '"warnings".*' obj.json)"
echo "ok: no warnings"
# --by process: the parent's and the child's own figures, each its own row
"$MEMPRISM" report --by process --format csv fork.data > proc.csv
expect_eq "--by process: rows" 2 "$(tail -n +2 proc.csv | wc -l)"
expect_eq "--by process: child" "$cpid,$M,$((P + S))" "$(awk -F, -v p="$cpid" '$3 == p { print $3 "," $6 "," $7 }' proc.csv)"
expect_eq "--by process: parent's stores" $((N + Q)) "$(awk -F, -v p="$ppid" '$3 == p { print $7 }' proc.csv)"
