# memprism doctor: exit status 0, one verdict line per source, and verdicts
# that match what this machine really offers (decided here independently:
# a PMU directory in sysfs, perf_event_open of a software event through perf's
# own /proc interface is not available to bash, so faults is checked by
# recording). record --source pmu fails before running anything, with the
# doctor's words, when the doctor says pmu does not work.
source "$(dirname "$0")/lib.sh"
"$MEMPRISM" doctor >doc.txt || fail "doctor exited $?"
cat doc.txt
for s in inst pmu faults valgrind; do
	grep -Eq "^  $s +(works|does not work): " doc.txt || fail "no verdict line for $s"
done
expect_eq "next-step lines" 4 "$(grep -c '^  *next: ' doc.txt)"
grep -q '^  perf_event_paranoid: '"$(cat /proc/sys/kernel/perf_event_paranoid)"'$' doc.txt ||
	fail "paranoid level not reported as the kernel has it"
thp=$(sed -n 's/.*\[\(.*\)\].*/\1/p' /sys/kernel/mm/transparent_hugepage/enabled)
grep -q "transparent huge pages: $thp\$" doc.txt || fail "THP policy is not '$thp'"
nodes=$(ls -d /sys/devices/system/node/node[0-9]* | wc -l)
grep -q "NUMA nodes: $nodes," doc.txt || fail "NUMA node count is not $nodes"
[ "$(id -u)" -eq 0 ] && { grep -q '^  root: yes' doc.txt || fail "root not seen"; }
grep -Eq "^  Arm SPE: +(yes|no) \(" doc.txt || fail "no Arm SPE line"
if [ ! -e /sys/bus/event_source/devices/arm_spe_0 ] && [ "$(uname -m)" = x86_64 ]; then
	grep -q "^  Arm SPE: *no (absent: SPE is an Arm feature and this is an x86_64 machine)" doc.txt ||
		fail "doctor does not say why SPE is absent"
fi
pmu_dirs=0
for d in cpu cpu_core cpu_atom ibs_op arm_spe_0; do
	if [ -e /sys/bus/event_source/devices/$d ]; then
		pmu_dirs=1
		grep -q "^  pmu $d  *present" doc.txt || fail "pmu $d present but not reported"
	else
		grep -q "^  pmu $d  *absent" doc.txt || fail "pmu $d absent but not reported so"
	fi
done
if [ $pmu_dirs -eq 0 ]; then
	grep -q '^  pmu     does not work: no hardware PMU' doc.txt || fail "pmu verdict without a PMU"
	grep -q '^  hardware PMU:      no (perf_event_open cycles: E' doc.txt || fail "no errno for the missing PMU"
	# record fails early, same words, and never starts the program
	set +e
	"$MEMPRISM" record --source pmu -o pmu.data -- touch ran-anyway 2>err.txt
	rc=$?
	set -e
	expect_eq "record --source pmu exit status" 2 "$rc"
	[ ! -e ran-anyway ] || fail "record --source pmu ran the program"
	[ ! -e pmu.data ] || fail "record --source pmu created a data file"
	why=$(sed -n 's/^  pmu     does not work: //p' doc.txt)
	grep -qF -- "--source pmu cannot work on this machine: $why" err.txt || fail "record's words differ: $(cat err.txt)"
	grep -q "Arm SPE is absent" err.txt || fail "record does not say SPE is absent"
	next=$(sed -n '/^  pmu     does not work/{n;s/^  *next: //p}' doc.txt)
	grep -qF -- "next: $next" err.txt || fail "record's next step differs"
fi
# a user without privileges: the faults verdict's next step names the level
# page-fault sampling needs (1: it counts kernel-side faults), never the
# level the machine already has
level=$(cat /proc/sys/kernel/perf_event_paranoid)
if [ "$(id -u)" -eq 0 ] && setpriv --reuid=nobody --regid=nogroup --clear-groups "$MEMPRISM" doctor > nobody.txt 2>&1; then
	if [ "$level" -gt 1 ]; then
		grep -q '^  faults  does not work: software page-fault sampling fails: perf_event_open returned EACCES (Permission denied)$' nobody.txt ||
			fail "nobody: faults verdict: $(grep '^  faults' nobody.txt)"
		expect_eq "nobody: faults next step" "          next: perf_event_paranoid is $level; page-fault sampling, which counts the faults the kernel takes for the program too, needs 1 or lower: sysctl kernel.perf_event_paranoid=1, or run as root, or setcap cap_perfmon+ep on memprism" "$(sed -n '/^  faults  does not work/{n;p}' nobody.txt)"
	else
		grep -q '^  faults  works: ' nobody.txt || fail "nobody: paranoid $level allows faults: $(grep '^  faults' nobody.txt)"
		echo "ok: nobody: faults works at perf_event_paranoid $level"
	fi
else
	echo "skip: doctor as nobody (needs root and setpriv)"
fi
set +e
"$MEMPRISM" doctor extra 2>err.txt
rc=$?
set -e
expect_eq "doctor with an argument" 2 "$rc"
"$MEMPRISM" record --source bogus -- true 2>err.txt && fail "unknown source accepted"
grep -q "unknown source 'bogus'" err.txt || fail "no message for an unknown source"
echo "ok: doctor"

# which instrumentation memprism cc will use
if [ "${MP_INLINE:-0}" = 1 ]; then
	grep -q '^  instrumentation:  inline, by memprism.s pass plugin' <("$MEMPRISM" doctor) || fail "doctor does not report inline instrumentation"
	echo "ok: doctor reports inline instrumentation"
fi
grep -q '^  instrumentation:  sanitizer-coverage callbacks (MEMPRISM_INSTRUMENT=sancov)' <(MEMPRISM_INSTRUMENT=sancov "$MEMPRISM" doctor) ||
	fail "doctor does not report the callbacks under MEMPRISM_INSTRUMENT=sancov"
echo "ok: doctor reports callbacks under MEMPRISM_INSTRUMENT=sancov"
# and memprism gcc
if [ "${MP_GCC_INLINE:-0}" = 1 ]; then
	grep -q "^  memprism gcc: *inline, by memprism's GCC plugin" <("$MEMPRISM" doctor) ||
		fail "doctor does not report memprism gcc's plugin"
	echo "ok: doctor reports memprism gcc's plugin"
fi
grep -q '^  memprism gcc: *a call into the runtime per access (MEMPRISM_INSTRUMENT=sancov)' \
	<(MEMPRISM_INSTRUMENT=sancov "$MEMPRISM" doctor) || fail "doctor does not report memprism gcc's calls under sancov"
echo "ok: doctor reports memprism gcc's calls under MEMPRISM_INSTRUMENT=sancov"

# the host model: a summary line, and the whole of it as a machine file
# that --model FILE reads back into the same model (the same report)
grep -Eq '^  --model host: +L1D [0-9]+K [0-9]+-way, L2 [0-9]+K' doc.txt || fail "no host model line"
grep -q '^  host notes: ' doc.txt || fail "no host notes line"
"$MEMPRISM" doctor --machine >host.machine || fail "doctor --machine exited $?"
grep -q '^name = host$' host.machine || fail "the machine file is not the host's"
grep -q '^stlb.entries = [0-9]' host.machine || fail "the machine file has no STLB"
"$MEMPRISM" cc -O2 "$MP_SRC/examples/arrays.c" -o arrays
"$MEMPRISM" record -q --no-pagemap -o a.data -- ./arrays 2 >/dev/null
"$MEMPRISM" report -q --model host --format json a.data >host.json
"$MEMPRISM" report -q --model ./host.machine --format json a.data >file.json
cmp -s host.json file.json || fail "--model host.machine gives another report than --model host"
echo "ok: doctor --machine is the host model"

# libc's debug info: as readelf and the build-id path say
libc=$(ldd "$MEMPRISM" | awk '/libc\.so/ { print $3 }')
b=$(readelf -n "$libc" 2> /dev/null | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p')
if readelf -S "$libc" 2> /dev/null | grep -q ' \.debug_info'; then
	grep -q "^  libc debug info:   yes ($libc)" doc.txt || fail "libc's own DWARF not reported"
elif [ -n "$b" ] && [ -e "/usr/lib/debug/.build-id/${b:0:2}/${b:2}.debug" ]; then
	grep -q "^  libc debug info:   yes (/usr/lib/debug/.build-id/${b:0:2}/${b:2}.debug)" doc.txt ||
		fail "libc's debug file not reported: $(grep 'libc debug' doc.txt)"
else
	grep -q "^  libc debug info:   no (.*apt-get install libc6-dbg" doc.txt || fail "missing libc debug info not reported"
fi
echo "ok: libc debug info reported"
