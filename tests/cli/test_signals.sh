# Signal handlers record exactly (tests/rt/signals.c): a handler's stores
# (64 volatile 8-byte stores of the static `hand` each time it runs) and
# those of the code it interrupted (plain loops storing words of a heap
# array) are all counted, each to its object, with no "unknown" row:
# SIGALRM every millisecond over a store loop, over allocations (signals that
# come inside the runtime wait until it is done), a handler that longjmps
# out, handlers nested 3 deep, and 4 threads. Then vfork (tests/rt/vfork.c):
# no hang, and a vfork'd child recorded as a fork child.
source "$(dirname "$0")/lib.sh"
build_rt signals
build_rt vfork
src="$MP_SRC/tests/rt/signals.c"
line() { grep -n "/\\* @$1 \\*/" "$2" | cut -d: -f1; }
W=64 # HANDLER_WORDS

rec() { # name args...: records ./signals args into name.data, report as CSV in name.csv
	local name=$1 rc=0
	shift
	timeout 120 "$MEMPRISM" record -q -o "$name.data" -- "$@" > "$name.out" 2> "$name.err" || rc=$?
	expect_eq "$name: record exit status" 0 "$rc"
	"$MEMPRISM" report --format csv "$name.data" > "$name.csv" 2> "$name.rerr"
	if grep -q '^"unknown' "$name.csv"; then
		fail "$name: accesses at no object: $(grep '^"unknown' "$name.csv")"
	fi
	echo "ok: $name: no unknown row"
}
ticks() { awk '$1 == "ticks" { print $2 }' "$1.out"; }

# SIGALRM over a plain store loop: N words, every one counted
N=30000000
rec alarm ./signals alarm $N
grep -qx "query ok" alarm.out || fail "sigaction did not report the program's own handler: $(cat alarm.out)"
echo "ok: sigaction reports the program's handler"
T=$(ticks alarm)
[ "$T" -gt 0 ] || fail "alarm: no signal came"
expect_eq "alarm: heap bytes stored" $((N * 8)) "$(csv_field alarm.csv "^heap main \\(signals\\.c:$(line RING "$src")\\)$" bytes_stored)"
expect_eq "alarm: handler's stores ($T signals)" $((T * W)) "$(csv_field alarm.csv '^static hand ' stores)"
# (into a file: grep -q ends at the first match, and dump, cut short,
# would fail the pipe)
"$MEMPRISM" dump alarm.data >alarm.dump
grep -q " signal-handlers 1$" alarm.dump || fail "alarm: no stream of signal handlers in the file"
echo "ok: alarm: the handlers have a stream of their own"

# signals inside the runtime's allocation hooks wait; the handler allocates too
A=2000000
rec alloc ./signals alloc $A
T=$(ticks alloc)
"$MEMPRISM" report --by site --format csv alloc.data > alloc-site.csv
expect_eq "alloc: main's allocations" $A "$(csv_field alloc-site.csv "^main \\(signals\\.c:$(line MAIN_ALLOC "$src")\\)$" instances)"
expect_eq "alloc: the handler's allocations, at its own line" "$T" \
	"$(csv_field alloc-site.csv "^on_alarm_heap \\(signals\\.c:$(line HANDLER_ALLOC "$src")\\)$" instances)"
expect_eq "alloc: main's stores to sink ($A) and the handler's ($T)" $((A + T)) "$(csv_field alloc.csv '^static sink ' stores)"
expect_eq "alloc: handler's stores" $((T * W)) "$(csv_field alloc.csv '^static hand ' stores)"
expect_eq "alloc: heap sites" 3 "$(grep -c '^"' alloc-site.csv)" # main's, the handler's, stdio's buffer

# longjmp out of the handler, J times: every handler's stores, and the
# report says how many handlers were left by longjmp
J=200
rec jump ./signals jump $J
expect_eq "jump: signals" $J "$(ticks jump)"
expect_eq "jump: handler's stores" $((J * W)) "$(csv_field jump.csv '^static hand ' stores)"
grep -q "^warning: .*: $J signal handlers left by longjmp" <("$MEMPRISM" report jump.data) ||
	fail "jump: no warning about the longjmps: $("$MEMPRISM" report jump.data | grep warning)"
echo "ok: jump: the report counts $J longjmps out of handlers"
got=$(csv_field jump.csv "^heap main \\(signals\\.c:$(line RING_JUMP "$src")\\)$" stores)
[ "$got" -gt 0 ] || fail "jump: the interrupted loop's stores are missing"
echo "ok: jump: the interrupted loop's $got stores"

# SA_NODEFER handlers raising themselves: 3 deep, K times
K=2000
rec nest ./signals nest $K
expect_eq "nest: handler runs" $((K * 3)) "$(ticks nest)"
expect_eq "nest: handler's stores" $((K * 3 * W)) "$(csv_field nest.csv '^static hand ' stores)"
"$MEMPRISM" dump nest.data >nest.dump
for d in 1 2 3; do
	grep -q " signal-handlers $d$" nest.dump || fail "nest: no stream of handlers at depth $d"
done
echo "ok: nest: streams at depths 1, 2 and 3"

# 4 threads, the signal at whichever thread the kernel picks
P=10000000
rec threads ./signals threads $P
T=$(ticks threads)
expect_eq "threads: heap bytes stored" $((4 * P * 8)) "$(csv_field threads.csv "^heap worker \\(signals\\.c:$(line THREAD_RING "$src")\\)$" bytes_stored)"
expect_eq "threads: handler's stores ($T signals)" $((T * W)) "$(csv_field threads.csv '^static hand ' stores)"
"$MEMPRISM" report --by thread --format csv threads.data > threads-by.csv
expect_eq "threads: threads in the report" 5 "$(($(wc -l < threads-by.csv) - 1))"

# vfork + exec: no hang; the parent is not taken for the exec'd image
vsrc="$MP_SRC/tests/rt/vfork.c"
rc=0
timeout 60 "$MEMPRISM" record -q -o vexec.data -- ./vfork exec > vexec.out 2> vexec.err || rc=$?
expect_eq "vfork exec: record exit status" 0 "$rc"
grep -qx "child status 0" vexec.out || fail "vfork exec: $(cat vexec.out)"
"$MEMPRISM" report --format csv vexec.data > vexec.csv
expect_eq "vfork exec: parent's bytes (before and after the child)" $((2 * 100000 * 8)) \
	"$(csv_field vexec.csv "^heap main \\(vfork\\.c:$(line P "$vsrc")\\)$" bytes_stored)"
expect_eq "vfork exec: exec'd child's bytes" $((30000 * 8)) \
	"$(csv_field vexec.csv "^heap main \\(vfork\\.c:$(line C "$vsrc")\\)$" bytes_stored)"
"$MEMPRISM" report --format json vexec.data > vexec.json
grep -q "\"pid\":[0-9]*,\"ppid\":[0-9]*,\"exe\":\"[^\"]*vfork\",\"instrumented\":true,\"ended\":true,\"exec\":false" vexec.json ||
	fail "vfork exec: the parent is not a process that ended without exec: $(grep -o '"processes":[^]]*' vexec.json)"
expect_eq "vfork exec: processes that exec'd" 1 "$(grep -o '"exec":true' vexec.json | wc -l)"

rc=0
timeout 60 "$MEMPRISM" record -q -o vexit.data -- ./vfork exit > vexit.out 2> vexit.err || rc=$?
expect_eq "vfork _exit: record exit status" 0 "$rc"
grep -qx "child status 7" vexit.out || fail "vfork _exit: $(cat vexit.out)"
"$MEMPRISM" report --format csv vexit.data > vexit.csv
expect_eq "vfork _exit: parent's bytes" $((2 * 100000 * 8)) \
	"$(csv_field vexit.csv "^heap main \\(vfork\\.c:$(line P "$vsrc")\\)$" bytes_stored)"
