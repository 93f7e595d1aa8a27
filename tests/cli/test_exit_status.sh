# Exit statuses, command-line errors, bad data files and uninstrumented
# programs (tests/rt/exit_status.c).
source "$(dirname "$0")/lib.sh"
build_rt exit_status
src="$MP_SRC/tests/rt/exit_status.c"
blk="^heap main \\(exit_status\\.c:$(grep -n '/\* @BLK \*/' "$src" | cut -d: -f1)\\)\$"

no_crash() { # what: the last run exited normally with a message on stderr
	[ -s last.err ] || fail "$1: no message on stderr"
	echo "ok: $1 printed: $(head -c 200 last.err | tr '\n' ' ')"
}

# the program's status is record's status
run 7 "exit(7)" "$MEMPRISM" record -o exit7.data -- ./exit_status exit7
"$MEMPRISM" report --format csv exit7.data > exit7.csv
expect_eq "exit(7): block stores" 100 "$(csv_field exit7.csv "$blk" stores)"
"$MEMPRISM" report --format json exit7.data > exit7.json
grep -q '"exit_status":7,' exit7.json || fail "report JSON exit_status is not 7"
echo "ok: report JSON exit_status = 7"
run 143 "SIGTERM" "$MEMPRISM" record -o term.data -- ./exit_status term
said "SIGTERM" "killed by signal 15"
run 0 "report of the SIGTERM run" "$MEMPRISM" report --format csv term.data
cp last.out term.csv
expect_eq "SIGTERM: block stores (flushed by the handler)" 100 "$(csv_field term.csv "$blk" stores)"
grep -q 'signal 15' last.err last.out || grep -q '^warning: .*signal 15' <("$MEMPRISM" report term.data) ||
	fail "SIGTERM: report does not mention signal 15"
echo "ok: SIGTERM report mentions signal 15"

# command-line errors
run 2 "record without a program" "$MEMPRISM" record
said "record without a program" "no program"
run 2 "record -- (nothing after)" "$MEMPRISM" record --
run 127 "record of a missing program" "$MEMPRISM" record -o missing.data -- ./nonexistent
said "record of a missing program" "nonexistent"
run 2 "record --bogus" "$MEMPRISM" record --bogus -- ./exit_status exit7
no_crash "record --bogus"
run 1 "report of a missing file" "$MEMPRISM" report missing.data
said "report of a missing file" "missing\\.data"

# bad data files: an error and a non-zero status, never a crash
: > empty.data
rc=0
"$MEMPRISM" report empty.data > last.out 2> last.err || rc=$?
[ "$rc" -ne 0 ] && [ "$rc" -lt 128 ] || fail "report of an empty file: status $rc (want non-zero, not a signal)"
no_crash "report of an empty file (status $rc)"
LC_ALL=C awk 'BEGIN { srand(42); for (i = 0; i < 65536; i++) printf "%c", int(rand() * 256) }' > random.data
[ "$(stat -c %s random.data)" -eq 65536 ] || fail "could not make 64 KiB of random bytes"
rc=0
"$MEMPRISM" report random.data > last.out 2> last.err || rc=$?
[ "$rc" -ne 0 ] && [ "$rc" -lt 128 ] || fail "report of random bytes: status $rc (want non-zero, not a signal)"
no_crash "report of random bytes (status $rc)"

# a real trace of several chunks, then damaged copies of it
run 0 "record big" "$MEMPRISM" record -q -o big.data -- ./exit_status big
"$MEMPRISM" report --format csv big.data > big.csv
expect_eq "big: block stores" 2000000 "$(csv_field big.csv "$blk" stores)"
size=$(stat -c %s big.data)
[ "$size" -gt 100000 ] || fail "big.data is only $size bytes: not several chunks"
head -c $((size / 2)) big.data > half.data
run 0 "report of a file truncated at half its size" "$MEMPRISM" report half.data
said "truncated file" "damaged|truncated"
grep -q 'damaged\|truncated' last.out || fail "truncated file: the report itself has no warning"
echo "ok: truncated report warns in its output"
"$MEMPRISM" report --format csv half.data > half.csv 2> /dev/null
got=$(csv_field half.csv "$blk" stores)
[[ "$got" =~ ^[0-9]+$ ]] && [ "$got" -gt 0 ] && [ "$got" -lt 2000000 ] || fail "truncated: block stores '$got' not in (0, 2000000)"
echo "ok: truncated: block stores $got in (0, 2000000)"
# a valid start followed by garbage: no crash, whatever the verdict
{ head -c $((size / 2)) big.data; head -c 65536 random.data; } > garbage_tail.data
rc=0
"$MEMPRISM" report garbage_tail.data > last.out 2> last.err || rc=$?
[ "$rc" -lt 128 ] || fail "report of a file with a garbage tail died with status $rc"
said "file with a garbage tail (status $rc)" "damaged|truncated|cannot read"
# a data file on a pipe, or named '-': words for what to do, status 1
run 1 "report of a pipe" sh -c 'cat half.data | "$0" report /dev/stdin' "$MEMPRISM"
said_line "report of a pipe" "memprism: cannot read /dev/stdin: it is not a regular file (a pipe or a device), and data files are mapped whole: save the data to a file and name it"
run 1 "report -" sh -c '"$0" report - <half.data' "$MEMPRISM"
said_line "report -" "memprism: cannot read '-': data files are read by name, not from standard input (they are mapped whole): save the data to a file and name it"

# a program built with plain cc: a note, and its allocation with 0 accesses
cc -O2 -g "$src" -o exit_status_plain
run 7 "uninstrumented exit(7)" "$MEMPRISM" record -o plain.data -- ./exit_status_plain exit7
said "uninstrumented program" "not built with .?memprism cc"
"$MEMPRISM" report --format csv plain.data > plain.csv
expect_eq "uninstrumented: block accesses" 0 "$(csv_field plain.csv "$blk" accesses)"
expect_eq "uninstrumented: block instances" 1 "$(csv_field plain.csv "$blk" instances)"
expect_eq "uninstrumented: block size" 4096 "$(csv_field plain.csv "$blk" size)"
"$MEMPRISM" report --format json plain.data > plain.json
"$MEMPRISM" report plain.data > last.out 2> last.err
said "report of the uninstrumented run" "not built with .?memprism cc"
grep -q '"instrumented":false' plain.json || fail "uninstrumented process not marked instrumented:false in JSON"
echo "ok: JSON says instrumented:false"

# a program built by another memprism version's inline instrumentation
# (it refers to another __memprism_inline_abi_N): refused with a reason
# instead of a loader error or "not built with memprism cc"
printf 'const int __memprism_inline_abi_1 = 1;\n' > oldabi.c
cc -shared -fPIC oldabi.c -o liboldabi.so
printf 'extern const int __memprism_inline_abi_1;\nint main(void) { return __memprism_inline_abi_1 - 1; }\n' > oldprog.c
cc oldprog.c -o oldprog -L. -loldabi -Wl,-rpath,"$PWD"
./oldprog || fail "the old-ABI stand-in does not run natively"
run 2 "program of another inline ABI" "$MEMPRISM" record -o oldabi.data -- ./oldprog
said "program of another inline ABI" "another version of .memprism cc.*Rebuild"

# memprism cc: an unknown instrumentation is refused before the compiler runs
MEMPRISM_INSTRUMENT=bogus run 2 "cc with MEMPRISM_INSTRUMENT=bogus" "$MEMPRISM" cc -c "$src" -o bogus.o
said "cc with an unknown instrumentation" "unknown instrumentation"
[ ! -e bogus.o ] || fail "cc with an unknown instrumentation still compiled"
