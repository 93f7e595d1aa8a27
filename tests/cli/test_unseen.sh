# What the inst source cannot see, said, and how much of the program's CPU
# time it took: a program whose buffer zlib reads (zlib is no memprism cc
# build) gets "unseen: ... libz.so.1" with its share, and zlib's own loads
# are not in its trace (its mem* calls are); a program whose CPU time is
# almost all in a plain-gcc library of its own (tests/rt/unseen_main.c)
# gets that library's share over 80%; the C library, the loader and the
# runtime's own libraries (zstd, zlib when only the runtime needs it) are
# not named; a program of memprism cc code alone gets no such line;
# `record --no-cpu-time`, and perf refusing the events (record then says so
# in one line), give the line without shares. The CPU-time samples change
# no other figure: a file with them and the same file without them give
# the same report, function view, JSON, numa, memtrace and exports but for
# the new figures. A report of several files sums them by module. Under
# --source valgrind nothing is unseen.
source "$(dirname "$0")/lib.sh"
# (the doctor's probe: perf_event_paranoid 2 or lower, nothing else in the way)
cpu=0
"$MEMPRISM" doctor 2>/dev/null | grep -q '^  CPU-time sampling: yes ' && cpu=1
echo "CPU-time sampling here: $cpu"
tail_words='`record --source valgrind` sees them'

build_rt zlib_heap -lz
"$MEMPRISM" record -o z.data -- ./zlib_heap 1000 >z.out 2>z.err
expect_eq "output" "compressed 65536 bytes into $(sed -n 's/.* into //p' z.out)" "$(cat z.out)"
"$MEMPRISM" report z.data >z.txt
"$MEMPRISM" report --format json z.data >z.json
expect_eq "JSON unseen_modules" '["libz.so.1"]' "$(jq -c .unseen_modules z.json)"
if [ $cpu = 1 ]; then
	grep -q 'CPU time not sampled' z.err && fail "record: $(cat z.err)"
	line=$(grep '^unseen:' z.txt)
	re='^unseen:    loads and stores inside libz\.so\.1 \(([0-9]+)% of the program.s CPU time in ([0-9,]+) samples\), not built by memprism cc: `record --source valgrind` sees them$'
	[[ $line =~ $re ]] || fail "the unseen line: $line"
	pct=${BASH_REMATCH[1]} n=${BASH_REMATCH[2]//,/}
	# the text's figures are the JSON's: samples, and the share of the program's
	expect_eq "JSON: zlib's samples" "$n" "$(jq '.unseen_cpu.modules[0].samples' z.json)"
	all=$(jq .unseen_cpu.samples z.json)
	expect_eq "the share: $n of $all samples" "$(((200 * n / all + 1) / 2))" "$pct"
	expect_eq "JSON: the period (4 ms)" 4000000 "$(jq .unseen_cpu.period_ns z.json)"
	# (1000 compressions of 64 KiB: about 200 ms in zlib, the rest the fill
	# loop, start-up and malloc)
	[ "$pct" -ge 50 ] && [ "$n" -ge 10 ] || fail "zlib's share: $pct% in $n samples, want >= 50% in >= 10"
	echo "ok: zlib: $pct% of the program's CPU time in $n samples"
else
	expect_eq "record says it in one line" 1 "$(grep -c '^memprism: note: CPU time not sampled' z.err)"
	expect_eq "the unseen line" "unseen:    loads and stores inside libz.so.1 (not built by memprism cc): $tail_words" \
		"$(grep '^unseen:' z.txt)"
	expect_eq "JSON: unseen_cpu" null "$(jq -c .unseen_cpu z.json)"
fi
line=$(grep -n '/\* @IN \*/' "$MP_SRC/tests/rt/zlib_heap.c" | cut -d: -f1)
IN="^heap main \\(zlib_heap\\.c:$line\\)\$"
"$MEMPRISM" report --format csv z.data >z.csv
expect_eq "inst: the bytes the fill loop stored" 65536 "$(csv_field z.csv "$IN" bytes_stored)"
# zlib reads the buffer with memcpy (libc's, seen as one range), and works
# on its own window with its own loads, which the inst source does not see:
# the loads made in zlib's functions are its few mem* calls
"$MEMPRISM" report --by function --format csv z.data >zf.csv
zl=$(awk -F, '$2 == "\"libz.so.1\"" { l += $4 } END { print l + 0 }' zf.csv)
[ "$zl" -lt $((100 * 1000)) ] || fail "inst: $zl loads in zlib's functions: its own loads should be unseen"
echo "ok: inst: $zl loads in zlib's functions (its mem* calls)"

# --no-cpu-time: the line as it is without samples, and no figures
"$MEMPRISM" record -q --no-cpu-time -o zn.data -- ./zlib_heap >/dev/null
"$MEMPRISM" report zn.data >zn.txt
expect_eq "--no-cpu-time: the unseen line" \
	"unseen:    loads and stores inside libz.so.1 (not built by memprism cc): $tail_words" "$(grep '^unseen:' zn.txt)"
"$MEMPRISM" report --format json zn.data >zn.json
expect_eq "--no-cpu-time: JSON unseen_cpu" null "$(jq -c .unseen_cpu zn.json)"
run 2 "--no-cpu-time with another source" "$MEMPRISM" record --source faults --no-cpu-time -- ./zlib_heap
expect_eq "refused" "memprism: --no-cpu-time applies to --source inst (faults samples no CPU time)" "$(cat last.err)"

# Several files merged: their unseen modules by name, their samples summed
# (z.data's and zn.data's: one with samples, one without)
"$MEMPRISM" report z.data zn.data >zm.txt
"$MEMPRISM" report --format json z.data zn.data >zm.json
expect_eq "merged: unseen_modules" '["libz.so.1"]' "$(jq -c .unseen_modules zm.json)"
expect_eq "merged: the samples, zlib's and all" "$(jq -c '[.unseen_cpu.modules[0].samples, .unseen_cpu.samples]' z.json)" \
	"$(jq -c '[.unseen_cpu.modules[0].samples, .unseen_cpu.samples]' zm.json)"
expect_eq "merged: the unseen line" "$(grep '^unseen:' z.txt)" "$(grep '^unseen:' zm.txt)"
if [ $cpu = 1 ]; then
	cp z.data z2.data
	"$MEMPRISM" report --format json z.data z2.data >zz.json
	expect_eq "merged twice: the samples doubled" \
		"$(jq -c '[.unseen_cpu.modules[0].samples * 2, .unseen_cpu.samples * 2]' z.json)" \
		"$(jq -c '[.unseen_cpu.modules[0].samples, .unseen_cpu.samples]' zz.json)"
fi
echo "ok: merged files: the unseen line and its samples"

# perf refusing the events (a shim fails perf_event_open as a container's
# seccomp would): the run goes on, its status the program's, and record
# says so in one line
cat >noperf.c <<'EOF'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <sys/syscall.h>
long syscall(long nr, ...)
{
	static long (*real)(long, ...);
	va_list ap;
	long a[6];
	va_start(ap, nr);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (nr == SYS_perf_event_open) {
		errno = EACCES;
		return -1;
	}
	if (!real)
		real = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
	return real(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}
EOF
cc -O2 -shared -fPIC noperf.c -o noperf.so -ldl
rc=0
LD_PRELOAD=$PWD/noperf.so ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0 \
	"$MEMPRISM" record -o zp.data -- ./zlib_heap 3 >zp.out 2>zp.err || rc=$?
expect_eq "refused events: the program's status" 0 "$rc"
expect_eq "refused events: one line" \
	"memprism: note: CPU time not sampled (perf_event_open cpu-clock: Permission denied): report cannot say how much of it libraries not built by memprism cc took (\`memprism doctor\` says why)" \
	"$(grep 'CPU time' zp.err)"
"$MEMPRISM" report zp.data >zp.txt
# (the shim is preloaded into the program too: not a memprism cc build)
expect_eq "refused events: the unseen line" \
	"unseen:    loads and stores inside libz.so.1, noperf.so (not built by memprism cc): $tail_words" \
	"$(grep '^unseen:' zp.txt)"

# A library of the test's own, built with plain gcc, doing nearly all of
# the program's work
gcc -O2 -g -shared -fPIC "$MP_SRC/tests/rt/unseen_lib.c" -o libunseen.so
"$MEMPRISM" cc -O2 -g "$MP_SRC/tests/rt/unseen_main.c" -o unseen_main -L. -lunseen -Wl,-rpath,'$ORIGIN'
mkdir -p on off none
"$MEMPRISM" record -q -o on/memprism.data -- ./unseen_main >on.out
"$MEMPRISM" record -q --no-cpu-time -o none/memprism.data -- ./unseen_main >none.out
expect_eq "the same walk" "$(cat none.out)" "$(cat on.out)"
"$MP_TRACE_EDIT" on/memprism.data off/memprism.data drop-type samples
old_line="unseen:    loads and stores inside libunseen.so (not built by memprism cc): $tail_words"
for d in on off none; do
	(cd $d && "$MEMPRISM" report >r.txt && "$MEMPRISM" report --format csv >r.csv &&
		"$MEMPRISM" report --by function --format csv >f.csv && "$MEMPRISM" report --format json >r.json &&
		"$MEMPRISM" numa >numa.txt && "$MEMPRISM" memtrace >mt.txt &&
		"$MEMPRISM" export --dhat dhat.json && "$MEMPRISM" export --sqlite db.sqlite &&
		sqlite3 db.sqlite .dump >db.sql) || fail "$d: a command failed"
done
if [ $cpu = 1 ]; then
	line=$(grep '^unseen:' on/r.txt)
	re='^unseen:    loads and stores inside libunseen\.so \(([0-9]+)% of the program.s CPU time in ([0-9,]+) samples\), not built by memprism cc: `record --source valgrind` sees them$'
	[[ $line =~ $re ]] || fail "the unseen line: $line"
	pct=${BASH_REMATCH[1]} n=${BASH_REMATCH[2]//,/}
	# (4000 walks of 16 Ki steps: about 300 ms, against a fill loop of 16 Ki
	# stores and start-up)
	[ "$pct" -gt 80 ] && [ "$n" -ge 20 ] || fail "libunseen.so's share: $pct% in $n samples, want > 80% in >= 20"
	echo "ok: libunseen.so: $pct% of the program's CPU time in $n samples"
	grep -c '^unseen:' on/r.txt | grep -qx 1 || fail "a second unseen line: $(grep '^unseen:' on/r.txt)"
else
	expect_eq "the unseen line (no samples)" "$old_line" "$(grep '^unseen:' on/r.txt)"
fi
expect_eq "without the samples: the unseen line" "$old_line" "$(grep '^unseen:' off/r.txt)"
expect_eq "--no-cpu-time: the unseen line" "$old_line" "$(grep '^unseen:' none/r.txt)"
# the samples are no accesses: every figure but theirs is the same
expect_eq "the text report but the unseen line" "$(grep -v '^unseen:' off/r.txt)" "$(grep -v '^unseen:' on/r.txt)"
for f in r.csv f.csv numa.txt mt.txt dhat.json db.sql; do
	cmp -s on/$f off/$f || fail "$f differs with the CPU-time samples: $(diff on/$f off/$f | head -5)"
done
echo "ok: report (CSV, functions), numa, memtrace, export --dhat and --sqlite: the same with the samples"
expect_eq "JSON but unseen_cpu" "$(jq -S 'del(.unseen_cpu)' off/r.json)" "$(jq -S 'del(.unseen_cpu)' on/r.json)"
expect_eq "JSON without the samples: unseen_cpu" null "$(jq -c .unseen_cpu off/r.json)"
expect_eq "JSON: measured nothing" '"none"' "$(jq -c .mem_origin on/r.json)"
# a run with sampling and one without: the same objects, the same counts
cmp -s on/r.csv none/r.csv || fail "per-object counts differ with sampling on: $(diff on/r.csv none/r.csv | head -5)"
A=$(grep -n '/\* @ARRAY \*/' "$MP_SRC/tests/rt/unseen_main.c" | cut -d: -f1)
expect_eq "the array's bytes stored (the fill loop; the walk is unseen)" 65536 \
	"$(csv_field on/r.csv "^heap main \\(unseen_main\\.c:$A\\)\$" bytes_stored)"
expect_eq "the array's loads (the walk's are unseen)" 0 \
	"$(csv_field on/r.csv "^heap main \\(unseen_main\\.c:$A\\)\$" loads)"
echo "ok: a run with sampling and one without count the same"

# memprism cc code and libc alone: nothing unseen (the runtime's zstd and
# zlib are its own)
build_rt context
"$MEMPRISM" record -q -o c.data -- ./context 10 >/dev/null
"$MEMPRISM" report c.data >c.txt
grep -q '^unseen:' c.txt && fail "unseen modules named for a program of memprism cc code: $(grep '^unseen:' c.txt)"
"$MEMPRISM" report --format json c.data >c.json
expect_eq "JSON: none unseen" '"unseen_modules":[]' "$(grep -o '"unseen_modules":\[[^]]*\]' c.json)"
expect_eq "JSON: no unseen module's CPU time" '[]' "$(jq -c '.unseen_cpu.modules // []' c.json)"

if "$MEMPRISM" doctor 2>/dev/null | grep -q '^  valgrind works:'; then
	"$MEMPRISM" record -q --no-pagemap --source valgrind -o v.data -- ./zlib_heap >/dev/null 2>&1
	"$MEMPRISM" report v.data >v.txt
	grep -q '^unseen:' v.txt && fail "the valgrind source names unseen modules: $(grep '^unseen:' v.txt)"
	"$MEMPRISM" report --format json v.data >v.json
	expect_eq "valgrind: no CPU time sampled" null "$(jq -c .unseen_cpu v.json)"
	"$MEMPRISM" report --format csv v.data >v.csv
	"$MEMPRISM" report --by function --format csv v.data >vf.csv
	vl=$(awk -F, '$2 == "\"libz.so.1\"" { l += $4 } END { print l + 0 }' vf.csv)
	# (deflate reads each of the 65,536 input bytes from its window at least once)
	[ "$vl" -ge 65536 ] || fail "valgrind: only $vl loads in zlib's functions"
	echo "ok: valgrind: $vl loads in zlib's functions, nothing unseen"
fi
