# Programs that die (tests/rt/crash.c, N = 3,000,000 one-byte stores into a
# heap buffer, several trace chunks' worth). On a fatal signal the runtime
# flushes everything: the buffer row has exactly N stores, record exits
# 128+signal and the report warns about the signal. With SIGKILL nothing can
# be flushed: record exits 137, the report still works, warns that the
# process was killed by SIGKILL, and has a whole-chunk prefix of the
# stores (0 < count <= N); and a thread's stores into a block another
# thread allocated land on that block (kill-mt, kill-handoff, kill-join,
# kill-wait), a killed fork child's committed stores on its block
# (kill-fork).
source "$(dirname "$0")/lib.sh"
build_rt crash
src="$MP_SRC/tests/rt/crash.c"
N=3000000 N2=1500000
lb=$(grep -n '/\* @BUF \*/' "$src" | cut -d: -f1) lb2=$(grep -n '/\* @BUF2 \*/' "$src" | cut -d: -f1)
BUF="^heap main \\(crash\\.c:$lb\\)\$" BUF2="^heap worker \\(crash\\.c:$lb2\\)\$"

record() { # mode expected_status
	local rc=0
	"$MEMPRISM" record -o "$1.data" -- ./crash "$1" > "$1.out" 2> "$1.err" || rc=$?
	expect_eq "record exit status ($1)" "$2" "$rc"
}
report() { # mode format [--roi work]: stdout in $1.$2, exit status checked
	local rc=0
	"$MEMPRISM" report "${@:3}" --format "$2" "$1.data" > "$1.$2" 2> "$1.rerr" || rc=$?
	expect_eq "report exit status ($1 $2)" 0 "$rc"
}

for sig in "segv 11" "abort 6"; do
	set -- $sig
	mode=$1 n=$2
	record "$mode" $((128 + n))
	grep -q "killed by signal $n" "$mode.err" || fail "record did not say the program was killed by signal $n"
	report "$mode" csv --roi work
	expect_eq "$mode: buffer stores" $N "$(csv_field "$mode.csv" "$BUF" stores)"
	expect_eq "$mode: buffer bytes_stored" $N "$(csv_field "$mode.csv" "$BUF" bytes_stored)"
	expect_eq "$mode: buffer loads" 0 "$(csv_field "$mode.csv" "$BUF" loads)"
	report "$mode" json
	grep -q "\"warnings\":\\[[^]]*signal $n[^0-9]" "$mode.json" || fail "$mode: no warning mentions signal $n: $(grep -o '"warnings".*' "$mode.json")"
	grep -q "\"ended\":true,\"exec\":false,\"signal\":$n," "$mode.json" || fail "$mode: the process is not marked ended by signal $n"
	report "$mode" text
	grep -q "^warning: .*signal $n" "$mode.text" || fail "$mode: text report has no signal warning"
	echo "ok: $mode warns about signal $n"
done

# segv with a second thread blocked in pause(): its buffer is flushed too
record segv-mt 139
report segv-mt csv --roi work
expect_eq "segv-mt: main buffer stores" $N "$(csv_field segv-mt.csv "$BUF" stores)"
expect_eq "segv-mt: worker buffer stores (flushed by the crashing thread)" $N2 "$(csv_field segv-mt.csv "$BUF2" stores)"
expect_eq "segv-mt: worker buffer threads" 1 "$(csv_field segv-mt.csv "$BUF2" threads)"

# SIGSEGV inside a loop without calls, at store K = 2,000,000: every store
# before the crash's iteration is kept (an unrolled loop's iteration is a few
# stores)
K=2000000
record segv-loop 139
report segv-loop csv --roi work
got=$(csv_field segv-loop.csv "$BUF" stores)
[ "$got" -le $K ] && [ "$got" -ge $((K - 16)) ] || fail "segv-loop: buffer stores $got, expected $((K - 16))..$K"
echo "ok: segv-loop: buffer stores $got (crash at store $K)"

# SIGKILL: no flush
record kill 137
grep -q "killed by signal 9" kill.err || fail "record did not say the program was killed by signal 9"
report kill csv --roi work
got=$(csv_field kill.csv "$BUF" stores)
[[ "$got" =~ ^[0-9]+$ ]] && [ "$got" -gt 0 ] && [ "$got" -le $N ] || fail "kill: buffer stores should be in (0, $N], got '$got'"
echo "ok: kill: buffer stores $got in (0, $N]"
report kill json
grep -q '"warnings":\[[^]]*was killed by signal 9 (SIGKILL) before it could shut down: the accesses each of its threads made after its last event' kill.json ||
	fail "kill: no warning that the process was killed by SIGKILL: $(grep -o '"warnings".*' kill.json)"
grep -q '"ended":false' kill.json || fail "kill: process should not be marked ended"
echo "ok: kill warns that the process was killed by SIGKILL, and what is missing"

# SIGKILL after the main thread allocated a block, started a thread and
# waited: the runtime sent the main thread's records out when it started
# the thread (kill-mt); or when, a second after its chunk started, it
# allocated a block for a thread it had started (kill-handoff); or when
# it waited for the thread it had just given a block (kill-join); or, when
# it waited on a semaphore with the allocation in its buffer, the launcher
# read that buffer after the kill (kill-wait). The thread's stores (whole
# chunks of them) land on the block, not on an address nobody recorded.
for mode in kill-mt kill-handoff kill-join kill-wait; do
	tag=$([ $mode = kill-mt ] && echo SHARED || echo HANDOFF) fn=kill_handoff; [ $mode = kill-mt ] && fn=kill_mt
	l=$(grep -n "/\* @$tag \*/" "$src" | cut -d: -f1)
	record $mode 137
	report $mode csv
	got=$(csv_field $mode.csv "^heap $fn \\(crash\\.c:$l\\)\$" stores)
	[[ "$got" =~ ^[0-9]+$ ]] && [ "$got" -gt 0 ] && [ "$got" -le $N2 ] ||
		fail "$mode: stores into the block of crash.c:$l should be in (0, $N2], got '$got': $(head -5 $mode.csv)"
	echo "ok: $mode: $got stores into the block of crash.c:$l"
done
# (the launcher appended the waiting thread's buffer, and says so)
grep -q "^memprism: kept [1-9][0-9]* unwritten buffers\? of killed processes" kill-wait.err ||
	fail "kill-wait: record did not say it kept the killed process's buffers: $(cat kill-wait.err)"

# A fork child killed (SIGKILL) after an event that followed its M stores:
# its buffer, a copy of its parent's mapping until the fork, is its own
# and in the launcher's shared memory: exactly M stores on its block; the
# parent's exactly N2 on its own, which the child's records did not touch.
M=1000
record kill-fork 0
report kill-fork csv
lp=$(grep -n '/\* @FORKP \*/' "$src" | cut -d: -f1) lc=$(grep -n '/\* @FORKC \*/' "$src" | cut -d: -f1)
expect_eq "kill-fork: the child's block's stores" $M "$(csv_field kill-fork.csv "^heap kill_fork \\(crash\\.c:$lc\\)\$" stores)"
expect_eq "kill-fork: the parent's block's stores" $N2 "$(csv_field kill-fork.csv "^heap kill_fork \\(crash\\.c:$lp\\)\$" stores)"
echo "ok: kill-fork: $M stores of the killed child, $N2 of its parent"
