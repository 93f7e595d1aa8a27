# Killing `memprism record` never leaves the program running (tests/rt/
# exit_status.c spin and trap: they store into a heap block until a signal).
# SIGKILL of the launcher: the program is gone too (PR_SET_PDEATHSIG).
# SIGTERM, SIGHUP: passed on to the program; the launcher waits, closes the
# trace and exits as the program did. ^C (SIGINT to the process group):
# the program dies of it, the trace is closed. The same with --source
# faults, whose launcher drains perf rings while it waits. Waits are
# bounded polls; nothing asserts a time.
source "$(dirname "$0")/lib.sh"
build_rt exit_status

L='' C=''
cleanup() { # a failed test leaves no spinning program behind
	[ -z "$C" ] || kill -KILL "$C" 2> /dev/null || true
	[ -z "$L" ] || kill -KILL "$L" 2> /dev/null || true
}
trap cleanup EXIT

# poll CONDITION...: true within 10 s (500 looks), else false
poll() {
	local i
	for ((i = 0; i < 500; i++)); do
		"$@" && return 0
		sleep 0.02
	done
	return 1
}
has_child() { # marker: the launcher's child is running and has made the marker file
	C=$({ cat "/proc/$L/task/$L/children" 2> /dev/null || pgrep -P "$L"; } | tr -d ' \n')
	[ -n "$C" ] && [ -e "$1" ]
}
gone() { [ ! -e "/proc/$1" ] || grep -q '^State:.*Z' "/proc/$1/status" 2> /dev/null; }

start() { # name mode [record options]: runs the launcher in the background, waits for the program
	local name=$1 mode=$2
	shift 2
	rm -f "$name.started"
	"$MEMPRISM" record "$@" -o "$name.data" -- ./exit_status "$mode" "$name.started" > "$name.out" 2> "$name.err" &
	L=$!
	poll has_child "$name.started" || fail "$name: the program did not start"
	echo "ok: $name: launcher $L runs program $C"
}
finish() { # name expected_status: waits for the launcher
	local rc=0
	wait "$L" || rc=$?
	expect_eq "$1: record exit status" "$2" "$rc"
	poll gone "$C" || fail "$1: program $C still runs after the launcher ended"
	L='' C=''
}
json() { # name: the report's JSON in name.json, exit status 0
	run 0 "$1: report" "$MEMPRISM" report --format json "$1.data"
	cp last.out "$1.json"
}

faults=0
"$MEMPRISM" doctor | grep -q '^  faults  works' && faults=1

# SIGKILL: the launcher cannot forward anything; the kernel kills the program
for src in inst faults; do
	[ $src = inst ] || [ $faults = 1 ] || { echo "skip: SIGKILL with --source faults (faults does not work here)"; continue; }
	start kill-$src spin --source $src
	prog=$C
	kill -KILL "$L"
	finish kill-$src 137
	echo "ok: kill-$src: program $prog gone after SIGKILL of the launcher"
	json kill-$src
	# (record killed too: no end of run, so no status to name the signal by)
	grep -q '"warnings":\[[^]]*did not shut down (killed by a signal' kill-$src.json || fail "kill-$src: no warning that the process did not shut down"
	echo "ok: kill-$src: trace readable, the report says the process did not shut down"
done

# SIGTERM: passed on; the program dies of it (the runtime saves its
# records), the launcher closes the trace and exits 128+15
for src in inst faults; do
	[ $src = inst ] || [ $faults = 1 ] || { echo "skip: SIGTERM with --source faults (faults does not work here)"; continue; }
	start term-$src spin --source $src
	kill -TERM "$L"
	finish term-$src 143
	grep -qx "memprism: got SIGTERM: passed it on to ./exit_status" term-$src.err || fail "term-$src: no word of the signal passed on: $(cat term-$src.err)"
	grep -qx "memprism: ./exit_status was killed by signal 15; the trace holds what it recorded until then" term-$src.err ||
		fail "term-$src: no word of the program's death: $(cat term-$src.err)"
	json term-$src
	grep -q '"exit_status":271,' term-$src.json || fail "term-$src: the run's end is not signal 15 (0x100 + 15)"
	grep -q '"warnings":\["process [0-9]* (exit_status) died of signal 15; everything it recorded was saved"\]' term-$src.json ||
		fail "term-$src: warnings: $(grep -o '"warnings".*' term-$src.json)"
	echo "ok: term-$src: trace closed, the run's end says signal 15"
done

# SIGHUP to a program that handles it: it exits 3, and so does record
start hup trap
kill -HUP "$L"
finish hup 3
grep -qx "memprism: got SIGHUP: passed it on to ./exit_status" hup.err || fail "hup: no word of the signal passed on: $(cat hup.err)"
json hup
grep -q '"exit_status":3,' hup.json || fail "hup: the run's end is not exit status 3"
grep -q '"warnings":\[\]' hup.json || fail "hup: warnings: $(grep -o '"warnings".*' hup.json)"
echo "ok: hup: the program ended as it chose, trace closed without warnings"

# ^C: SIGINT to the launcher's process group (its own, with job control)
set -m
start int spin
set +m
kill -INT -- "-$L"
finish int 130
json int
grep -q '"exit_status":258,' int.json || fail "int: the run's end is not signal 2 (0x100 + 2)"
grep -q '"warnings":\["process [0-9]* (exit_status) died of signal 2; everything it recorded was saved"\]' int.json ||
	fail "int: warnings: $(grep -o '"warnings".*' int.json)"
echo "ok: int: ^C reached the program, trace closed"
