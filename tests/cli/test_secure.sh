# Programs the preloaded runtime cannot record (tests/rt/exit_status.c):
# a static build gets a one-line warning from record and runs on; so does a
# 32-bit x86 program (a minimal one written here: exit(3) by int $0x80),
# which --source valgrind refuses before running it (the tool is amd64's); a
# set-user-ID copy run by another user ignores MEMPRISM_OUT (it would append
# to a file only its owner may write) and record warns the same way. The
# set-user-ID part needs root (to make a root-owned set-user-ID file and
# to run it as nobody); it is skipped otherwise.
source "$(dirname "$0")/lib.sh"
build_rt exit_status

# a static build: record warns, the program runs, the trace has its end only
if cc -static -O2 "$MP_SRC/tests/rt/exit_status.c" -o exit_status_static 2> /dev/null; then
	run 7 "static" "$MEMPRISM" record -o static.data -- ./exit_status_static exit7
	expect_eq "static: first line" "memprism: warning: ./exit_status_static is statically linked: memprism's runtime is preloaded by the dynamic loader, which a static program does not use, so nothing of it is recorded (the trace holds the run's end only). Link it dynamically to record it (\`memprism cc\` does)" "$(head -1 last.err)"
	grep -q "allocations are recorded" last.err && fail "static: record still says its allocations are recorded"
	run 0 "static: report" "$MEMPRISM" report --format json static.data
	grep -q '"exit_status":7,' last.out || fail "static: the run's end is not exit status 7"
	grep -q '"warnings":\["no process of the program recorded anything: it ran without memprism'"'"'s runtime (statically linked, built for another machine or word size, or set-user-ID, set-group-ID or with file capabilities: `memprism record` said which)"\]' last.out ||
		fail "static: report warnings: $(grep -o '"warnings".*' last.out)"
	echo "ok: static: warned, ran, the report says nothing was recorded"
else
	echo "skip: static: no static libc (cc -static fails)"
fi

# a 32-bit x86 program: an ELF32 header, one PT_LOAD, and
# mov $1,%eax; mov $3,%ebx; int $0x80
python3 - <<'PY'
import struct
code = bytes.fromhex("b801000000bb03000000cd80")
base, hdr = 0x08048000, 52 + 32
ehdr = struct.pack("<16sHHIIIIIHHHHHH", b"\x7fELF\x01\x01\x01" + bytes(9), 2, 3, 1, base + hdr, 52, 0, 0,
                   52, 32, 1, 0, 0, 0)
phdr = struct.pack("<IIIIIIII", 1, 0, base, base, hdr + len(code), hdr + len(code), 5, 0x1000)
with open("x86_32", "wb") as f:
    f.write(ehdr + phdr + code)
PY
chmod +x x86_32
if rc=0 && ./x86_32 || rc=$? && [ $rc -eq 3 ]; then
	words="./x86_32 is a 32-bit x86 (i386) program, and memprism's runtime loads into 64-bit x86-64 programs only"
	run 3 "32-bit: the program's status" "$MEMPRISM" record -o x86_32.data -- ./x86_32
	expect_eq "32-bit: the warning" "memprism: warning: $words, so nothing of it is recorded (the trace holds the run's end only). Record a 64-bit x86-64 build of it" "$(head -1 last.err)"
	grep -q "allocations are recorded\|statically linked" last.err && fail "32-bit: record says more: $(cat last.err)"
	run 0 "32-bit: report" "$MEMPRISM" report --format json x86_32.data
	grep -q '"exit_status":3,' last.out || fail "32-bit: the run's end is not exit status 3"
	run 3 "32-bit, faults: the program's status" "$MEMPRISM" record --source faults -o x86_32f.data -- ./x86_32
	expect_eq "32-bit, faults: the warning" "memprism: warning: $words, so its objects are not recorded, and its page faults cannot be put on any. Record a 64-bit x86-64 build of it" "$(head -1 last.err)"
	run 2 "32-bit, valgrind" "$MEMPRISM" record --source valgrind -o x86_32v.data -- ./x86_32
	expect_eq "32-bit, valgrind: refused" "memprism: cannot record './x86_32' with --source valgrind: it is a 32-bit x86 (i386) program, and memprism's Valgrind tool runs 64-bit x86-64 programs only" "$(cat last.err)"
	[ ! -e x86_32v.data ] || fail "32-bit, valgrind: a data file was written"
	echo "ok: a 32-bit program: warned (inst, faults) or refused (valgrind), its exit status kept"
else
	echo "skip: 32-bit: this kernel does not run i386 programs (exit status $rc)"
fi

if [ "$(id -u)" -ne 0 ]; then
	echo "skip: set-user-ID: needs root to make a root-owned set-user-ID program and run it as nobody"
	exit 0
fi
as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }
# nobody must reach the programs and the runtime (the scratch directory
# lies under the build tree)
rc=0
as_nobody ./exit_status exit7 > /dev/null 2>&1 || rc=$?
if [ $rc -ne 7 ]; then
	echo "skip: set-user-ID: nobody cannot run programs from $PWD (exit status $rc)"
	exit 0
fi
# a set-user-ID root program lying about (exit_status spin FILE creates
# FILE) would be a hole: it goes when the test ends, however it ends
trap 'rm -f exit_status_suid' EXIT
cp exit_status exit_status_suid
chmod 4755 exit_status_suid
printf "root's own\n" > rootfile
chmod 600 rootfile
before=$(stat -c '%s %Y %i' rootfile)

# the control: run by its owner the exec is not secure, and MEMPRISM_OUT is
# written to (the runtime appends its chunks), so the check below can see a write
cp rootfile control
rc=0
MEMPRISM_OUT=$PWD/control ./exit_status_suid exit7 || rc=$?
expect_eq "control: exit status" 7 "$rc"
[ "$(stat -c %s control)" -gt "$(stat -c %s rootfile)" ] || fail "control: the runtime did not append to MEMPRISM_OUT"
echo "ok: control: run by its owner, the runtime appends to MEMPRISM_OUT"

# run by nobody: secure execution, MEMPRISM_OUT ignored, rootfile unchanged
rc=0
MEMPRISM_OUT=$PWD/rootfile as_nobody ./exit_status_suid exit7 > last.out 2> last.err || rc=$?
expect_eq "set-user-ID as nobody: exit status" 7 "$rc"
expect_eq "set-user-ID as nobody: root's file (size, mtime, inode)" "$before" "$(stat -c '%s %Y %i' rootfile)"
expect_eq "set-user-ID as nobody: root's file content" "root's own" "$(cat rootfile)"
expect_eq "set-user-ID as nobody: stderr" "memprism: not recording: this program runs with privileges its user lacks (set-user-ID, set-group-ID or file capabilities), and MEMPRISM_OUT is not trusted there" "$(cat last.err)"

# record as nobody: one warning line, the run goes on
mkdir -m 777 out
rc=0
as_nobody "$MEMPRISM" record -o out/suid.data -- ./exit_status_suid exit7 > last.out 2> last.err || rc=$?
expect_eq "record of set-user-ID as nobody: exit status" 7 "$rc"
expect_eq "record of set-user-ID as nobody: first line" "memprism: warning: ./exit_status_suid is set-user-ID (owner root), so it runs for you in secure-execution mode, where memprism's runtime is not preloaded and ignores MEMPRISM_OUT: nothing of it is recorded (the trace holds the run's end only). Record a copy without the bit (cp drops it), or run memprism as root" "$(head -1 last.err)"
run 0 "record of set-user-ID as nobody: report" "$MEMPRISM" report --format json out/suid.data
grep -q '"processes":\[\]' last.out || fail "set-user-ID: the trace holds a process"
echo "ok: set-user-ID: nothing recorded, record said why"
