# A daemonizing program (tests/rt/daemon.c): main returns at once, its
# daemon (a grandchild in a session of its own) works 300 ms later.
# `record` waits for it: when record returns, the daemon's block has its N
# stores and the daemon's process ended cleanly in the file, and record
# said it was waiting. With ^C while it waits, record returns at once and
# says that the daemon still runs and records into the file; the daemon's
# records reach the file when it ends.
source "$(dirname "$0")/lib.sh"
build_rt daemon
src="$MP_SRC/tests/rt/daemon.c"
N=5000
ld=$(grep -n '/\* @D \*/' "$src" | cut -d: -f1)
D="^heap main \\(daemon\\.c:$ld\\)\$"

run 0 "record of a daemonizing program" "$MEMPRISM" record -o d.data -- ./daemon
cat last.out
said "record waits for the daemon" "daemon exited \\(status 0\\); waiting for the process it left running \\(pid [0-9]+\\), which records into d\\.data"
dpid=$(sed -n 's/^daemon \([0-9]*\)$/\1/p' last.out)
[ -n "$dpid" ] || fail "the daemon printed no pid"
kill -0 "$dpid" 2>/dev/null && fail "record returned while daemon $dpid still runs"
echo "ok: daemon $dpid ended before record returned"
"$MEMPRISM" report --format csv d.data > d.csv
expect_eq "daemon block stores" $N "$(csv_field d.csv "$D" stores)"
expect_eq "daemon block threads" 1 "$(csv_field d.csv "$D" threads)"
"$MEMPRISM" report --format json d.data > d.json
grep -q "{\"pid\":$dpid,\"ppid\":[0-9]*,[^}]*\"ended\":true" d.json || fail "daemon $dpid missing or not ended: $(grep -o '"processes":\[[^]]*\]' d.json)"
echo "ok: daemon $dpid ended cleanly in the file"
expect_eq "processes" 3 "$(grep -o '"processes":\[[^]]*\]' d.json | grep -o '"pid":' | wc -l)"
grep -q '"warnings":\[\]' d.json || fail "unexpected warnings: $(grep -o '"warnings".*' d.json)"
echo "ok: no warnings"

# -q: no note, the same wait
run 0 "record -q" "$MEMPRISM" record -q -o q.data -- ./daemon
[ -s last.err ] && fail "record -q said: $(cat last.err)"
dpid=$(sed -n 's/^daemon \([0-9]*\)$/\1/p' last.out)
kill -0 "$dpid" 2>/dev/null && fail "record -q returned while daemon $dpid still runs"
"$MEMPRISM" report --format csv q.data > q.csv
expect_eq "daemon block stores (-q)" $N "$(csv_field q.csv "$D" stores)"

# ^C while record waits: it stops waiting and says so; the daemon goes on
mkfifo go
"$MEMPRISM" record -o c.data -- ./daemon go > c.out 2> c.err &
rec=$!
for _ in $(seq 200); do
	grep -qs "waiting for the process" c.err && break
	sleep 0.05
done
grep -q "waiting for the process" c.err || fail "record never said it waits: $(cat c.err)"
kill -INT "$rec"
rc=0
wait "$rec" || rc=$?
expect_eq "record status after ^C" 0 "$rc"
cat c.err
grep -qE "stopped waiting: 1 process that \./daemon started is still running \(pid [0-9]+\) and records into c\.data: the trace is complete when it ends" c.err ||
	fail "record did not say the daemon runs on: $(cat c.err)"
echo "ok: record said the daemon runs on"
dpid=$(sed -n 's/^daemon \([0-9]*\)$/\1/p' c.out)
kill -0 "$dpid" 2>/dev/null || fail "the daemon $dpid did not outlive record"
echo go > go
for _ in $(seq 200); do
	kill -0 "$dpid" 2>/dev/null || break
	sleep 0.05
done
kill -0 "$dpid" 2>/dev/null && fail "the daemon $dpid did not end"
"$MEMPRISM" report --format csv c.data > c.csv
expect_eq "daemon block stores (after ^C)" $N "$(csv_field c.csv "$D" stores)"

# The same ^C under --source valgrind: the launcher's compressed copy must
# not take the file's place while the daemon still appends to it, so the
# trace stays raw, said so, and whole when the daemon ends.
if "$MEMPRISM" doctor 2>/dev/null | grep -q '^  valgrind works:'; then
	rm -f go && mkfifo go
	"$MEMPRISM" record --source valgrind -o v.data -- ./daemon go > v.out 2> v.err &
	rec=$!
	for _ in $(seq 400); do
		grep -qs "waiting for the process" v.err && break
		sleep 0.05
	done
	grep -q "waiting for the process" v.err || fail "record never said it waits: $(cat v.err)"
	kill -INT "$rec"
	wait "$rec" || fail "record status after ^C (valgrind): $?"
	grep -q "the trace stays uncompressed: processes of ./daemon still write to it" v.err ||
		fail "record did not say why the trace stays raw: $(cat v.err)"
	dpid=$(sed -n 's/^daemon \([0-9]*\)$/\1/p' v.out)
	echo go > go
	for _ in $(seq 400); do
		kill -0 "$dpid" 2>/dev/null || break
		sleep 0.05
	done
	"$MEMPRISM" report --format csv v.data > v.csv
	expect_eq "daemon block stores (valgrind, after ^C)" $N "$(csv_field v.csv "$D" stores)"
else
	echo "skip: the valgrind source does not work here"
fi
