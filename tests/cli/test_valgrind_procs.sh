# record --source valgrind across threads and processes, plain gcc builds of
# the programs the inst tests use, with the same exact counts:
#  - threads (tests/rt/threads.c): 2,000 threads in waves of 200, 100 stores
#    each into a block of its own: 200,000 stores from 2,000 threads
#  - fork (tests/rt/fork.c): parent N + Q stores and the child M loads of A,
#    the child P stores of B, in two processes
#  - fork + exec (tests/rt/forkexec.c): the exec'd image's stores are its
#    own, in a third process instance with the child's pid
#  - a crash (tests/rt/crash.c segv-mt): SIGSEGV after 3,000,000 stores by
#    the main thread and 1,500,000 by a second one; every one is kept, and
#    the exit status is the signal's; SIGKILL (kill-mt, kill-handoff,
#    kill-join, kill-wait, a killed fork child): the blocks the stores went
#    to are known
#  - signal handlers (tests/rt/signals.c): nested 3 deep, K * 3 runs of 64
#    stores each; SIGALRM every millisecond over a store loop, every store
#    of the loop counted (Valgrind delivers a signal at its own moment: the
#    handler may run once more after the program counted its runs)
source "$(dirname "$0")/lib.sh"
if ! "$MEMPRISM" doctor 2>/dev/null | grep -q '^  valgrind works:'; then
	echo "skip: the valgrind source does not work here: $("$MEMPRISM" doctor 2>/dev/null | grep '^  valgrind ')"
	exit 77
fi
gccrt() { gcc -O2 -g -I"$MP_SRC/include" "$MP_SRC/tests/rt/$1.c" -o "$1" -lpthread; }
rec() { "$MEMPRISM" record -q --no-pagemap --source valgrind "$@"; }

gccrt threads
rec -o t.data -- ./threads >out.txt
expect_eq "threads: output" "threads done" "$(cat out.txt)"
"$MEMPRISM" report --roi work --format csv t.data >t.csv
line=$(grep -n '@SITE' "$MP_SRC/tests/rt/threads.c" | cut -d: -f1)
expect_eq "threads: stores at the site" 200000 "$(csv_field t.csv "heap work \\(threads.c:$line\\)" stores)"
expect_eq "threads: loads at the site" 0 "$(csv_field t.csv "heap work \\(threads.c:$line\\)" loads)"
expect_eq "threads: instances" 2000 "$(csv_field t.csv "heap work \\(threads.c:$line\\)" instances)"
expect_eq "threads: distinct threads" 2000 "$(csv_field t.csv "heap work \\(threads.c:$line\\)" threads)"
n=$("$MEMPRISM" report --by thread --format csv t.data | tail -n +2 | wc -l)
expect_eq "threads in the thread view (2000 + main; not the runtime's writer)" 2001 "$n"

gccrt fork
rec -o f.data -- ./fork >out.txt
src="$MP_SRC/tests/rt/fork.c"
la=$(grep -n '/\* @A \*/' "$src" | cut -d: -f1) lb=$(grep -n '/\* @B \*/' "$src" | cut -d: -f1)
"$MEMPRISM" report --roi work --format csv f.data >f.csv
expect_eq "fork: A stores (parent N + Q)" 1400 "$(csv_field f.csv "^heap main \\(fork\\.c:$la\\)\$" stores)"
expect_eq "fork: A loads (child M)" 700 "$(csv_field f.csv "^heap main \\(fork\\.c:$la\\)\$" loads)"
expect_eq "fork: A threads" 2 "$(csv_field f.csv "^heap main \\(fork\\.c:$la\\)\$" threads)"
expect_eq "fork: B stores (child P)" 300 "$(csv_field f.csv "^heap main \\(fork\\.c:$lb\\)\$" stores)"
"$MEMPRISM" report --format json f.data >f.json
expect_eq "fork: processes" 2 "$(grep -o '"processes":\[[^]]*\]' f.json | grep -o '"pid":' | wc -l)"
expect_eq "fork: warnings" '"warnings":[]' "$(grep -o '"warnings":\[[^]]*\]' f.json)"

gccrt forkexec
rec -o fe.data -- ./forkexec >out.txt
read -r ppid cpid < <(sed -n 's/^parent \([0-9]*\) child \([0-9]*\)$/\1 \2/p' out.txt)
expect_eq "fork+exec: the exec'd image's pid" "$cpid" "$(sed -n 's/^image //p' out.txt)"
src="$MP_SRC/tests/rt/forkexec.c"
lp=$(grep -n '/\* @P \*/' "$src" | cut -d: -f1) lc=$(grep -n '/\* @C \*/' "$src" | cut -d: -f1)
"$MEMPRISM" report --roi work --format csv fe.data >fe.csv
expect_eq "fork+exec: P stores (parent N + Q)" 1400 "$(csv_field fe.csv "^heap main \\(forkexec\\.c:$lp\\)\$" stores)"
expect_eq "fork+exec: C stores (exec'd image M)" 600 "$(csv_field fe.csv "^heap main \\(forkexec\\.c:$lc\\)\$" stores)"
"$MEMPRISM" report --roi work --format json fe.data >fe.json
row_threads() { grep -o "\"label\":\"heap main (forkexec.c:$1)\"[^]]*\\]" fe.json | grep -o 'threads":\[[0-9,]*' | cut -d[ -f2; }
expect_eq "fork+exec: P's thread" "$ppid" "$(row_threads "$lp")"
expect_eq "fork+exec: C's thread" "$cpid" "$(row_threads "$lc")"
procs=$(grep -o '"processes":\[[^]]*\]' fe.json)
expect_eq "fork+exec: process instances (parent, fork child, exec'd image)" 3 "$(grep -o '"pid":' <<<"$procs" | wc -l)"
expect_eq "fork+exec: instances of the child's pid" 2 "$(grep -o "\"pid\":$cpid," <<<"$procs" | wc -l)"
expect_eq "fork+exec: images replaced by exec" 1 "$(grep -o '"exec":true' <<<"$procs" | wc -l)"
expect_eq "fork+exec: warnings" '"warnings":[]' "$(grep -o '"warnings":\[[^]]*\]' fe.json)"
# the child execs /proc/self/exe, which under Valgrind names its tool: the
# runtime execs the program's path, and the image runs and records as above
rec -o fes.data -- ./forkexec self >out.txt
"$MEMPRISM" report --roi work --format csv fes.data >fes.csv
expect_eq "fork+exec /proc/self/exe: C stores (exec'd image M)" 600 "$(csv_field fes.csv "^heap main \\(forkexec\\.c:$lc\\)\$" stores)"
expect_eq "fork+exec /proc/self/exe: P stores" 1400 "$(csv_field fes.csv "^heap main \\(forkexec\\.c:$lp\\)\$" stores)"

gccrt crash
run 139 "crash segv-mt" "$MEMPRISM" record -q --no-pagemap --source valgrind -o c.data -- ./crash segv-mt
src="$MP_SRC/tests/rt/crash.c"
l1=$(grep -n '/\* @BUF \*/' "$src" | cut -d: -f1) l2=$(grep -n '/\* @BUF2 \*/' "$src" | cut -d: -f1)
"$MEMPRISM" report --roi work --format csv c.data >c.csv
expect_eq "crash: the main thread's stores" 3000000 "$(csv_field c.csv "^heap main \\(crash\\.c:$l1\\)\$" stores)"
expect_eq "crash: the second thread's stores" 1500000 "$(csv_field c.csv "^heap worker \\(crash\\.c:$l2\\)\$" stores)"
"$MEMPRISM" report --format json c.data >c.json
expect_eq "crash: the process died of" '"signal":11' "$(grep -o '"signal":[0-9]*' c.json)"
# SIGKILL, no flush: the runtime's buffers hold its events only here. The
# main thread's allocation went out when it started the thread that kills
# (kill-mt); one made a second after its chunk started went out with
# itself (kill-handoff); one made just before a pthread_join went out
# then (kill-join); one in the buffer of a thread waiting on a semaphore
# was read by the launcher after the kill (kill-wait); the tool's chunks
# up to the kill are there
for mode in kill-mt kill-handoff kill-join kill-wait; do
	tag=$([ $mode = kill-mt ] && echo SHARED || echo HANDOFF) fn=kill_handoff; [ $mode = kill-mt ] && fn=kill_mt
	l=$(grep -n "/\* @$tag \*/" "$src" | cut -d: -f1)
	run 137 "crash $mode" "$MEMPRISM" record -q --no-pagemap --source valgrind -o $mode.data -- ./crash $mode
	"$MEMPRISM" report --format csv $mode.data >$mode.csv
	got=$(csv_field $mode.csv "^heap $fn \\(crash\\.c:$l\\)\$" stores)
	[[ "$got" =~ ^[0-9]+$ ]] && [ "$got" -gt 0 ] && [ "$got" -le 1500000 ] ||
		fail "$mode: stores into the block of crash.c:$l should be in (0, 1500000], got '$got': $(head -4 $mode.csv)"
	echo "ok: $mode: $got stores into the block of crash.c:$l"
done
# a fork child killed: its allocation, in its runtime's buffer (its own
# since the fork), is known; its stores were in the tool's, lost with it.
# The parent's stores exact.
lp=$(grep -n '/\* @FORKP \*/' "$src" | cut -d: -f1) lc=$(grep -n '/\* @FORKC \*/' "$src" | cut -d: -f1)
rec -o kf.data -- ./crash kill-fork
"$MEMPRISM" report --format csv kf.data >kf.csv
got=$(csv_field kf.csv "^heap kill_fork \\(crash\\.c:$lc\\)\$" instances)
expect_eq "kill-fork: the child's block of crash.c:$lc known" 1 "$got"
expect_eq "kill-fork: the parent's stores" 1500000 "$(csv_field kf.csv "^heap kill_fork \\(crash\\.c:$lp\\)\$" stores)"

gccrt signals
rec -o nest.data -- ./signals nest 100 >nest.out
expect_eq "signals nest: handler runs" "ticks 300" "$(cat nest.out)"
"$MEMPRISM" report --format csv nest.data >nest.csv
expect_eq "signals nest: the handlers' stores" $((300 * 64)) "$(csv_field nest.csv '^static hand ' stores)"
rec -o alarm.data -- ./signals alarm 3000000 >alarm.out
"$MEMPRISM" report --format csv alarm.data >alarm.csv
line=$(grep -n '/\* @RING \*/' "$MP_SRC/tests/rt/signals.c" | cut -d: -f1)
expect_eq "signals alarm: the loop's bytes stored" $((3000000 * 8)) \
	"$(csv_field alarm.csv "^heap main \\(signals\\.c:$line\\)\$" bytes_stored)"
T=$(sed -n 's/^ticks //p' alarm.out) hs=$(csv_field alarm.csv '^static hand ' stores)
[ $((hs % 64)) -eq 0 ] && [ "$hs" -ge $((T * 64)) ] && [ "$hs" -le $(((T + 1) * 64)) ] ||
	fail "signals alarm: $hs handler stores for $T ticks"
echo "ok: signals alarm: $hs handler stores for $T ticks"
