# exec (tests/rt/exec.c): the program execs itself; the runtime, re-loaded
# through LD_PRELOAD, appends the new image to the same data file as a second
# process instance with the same pid. P (before exec) counts N stores, C
# (after exec) M stores, each by the one tid that exec keeps.
source "$(dirname "$0")/lib.sh"
build_rt exec
src="$MP_SRC/tests/rt/exec.c"
"$MEMPRISM" record -q -o exec.data -- ./exec > out.txt || fail "record exited $?"
cat out.txt
N=1000 M=600
read -r ppid ptid < <(sed -n 's/^pid \([0-9]*\) tid \([0-9]*\) parent$/\1 \2/p' out.txt)
read -r cpid ctid < <(sed -n 's/^pid \([0-9]*\) tid \([0-9]*\) child$/\1 \2/p' out.txt)
[ -n "$ppid" ] && [ -n "$ptid" ] || fail "parent image printed no ids"
[ -n "$cpid" ] && [ -n "$ctid" ] || fail "child image printed no ids"
expect_eq "pid after exec" "$ppid" "$cpid"
expect_eq "tid after exec" "$ptid" "$ctid"
lp=$(grep -n '/\* @P \*/' "$src" | cut -d: -f1) lc=$(grep -n '/\* @C \*/' "$src" | cut -d: -f1)
P="^heap main \\(exec\\.c:$lp\\)\$" C="^heap main \\(exec\\.c:$lc\\)\$"
"$MEMPRISM" report --roi work --format csv exec.data > obj.csv
expect_eq "P accesses" $N "$(csv_field obj.csv "$P" accesses)"
expect_eq "P stores" $N "$(csv_field obj.csv "$P" stores)"
expect_eq "P loads" 0 "$(csv_field obj.csv "$P" loads)"
expect_eq "P threads" 1 "$(csv_field obj.csv "$P" threads)"
expect_eq "C accesses" $M "$(csv_field obj.csv "$C" accesses)"
expect_eq "C stores" $M "$(csv_field obj.csv "$C" stores)"
expect_eq "C loads" 0 "$(csv_field obj.csv "$C" loads)"
expect_eq "C threads" 1 "$(csv_field obj.csv "$C" threads)"
"$MEMPRISM" report --roi work --format json exec.data > obj.json
row_threads() { grep -o "\"label\":\"heap main (exec.c:$1)\"[^]]*\\]" obj.json | grep -o 'threads":\[[0-9,]*' | cut -d[ -f2; }
expect_eq "P thread ids" "$ptid" "$(row_threads "$lp")"
expect_eq "C thread ids" "$ptid" "$(row_threads "$lc")"
procs=$(grep -o '"processes":\[[^]]*\]' obj.json)
expect_eq "process count" 2 "$(grep -o '"pid":' <<<"$procs" | wc -l)"
expect_eq "processes with pid $ppid" 2 "$(grep -o "\"pid\":$ppid," <<<"$procs" | wc -l)"
echo "ok: processes $procs"
# the first image ended by exec: flagged as such, and no "did not shut down" warning
expect_eq "images replaced by exec" 1 "$(grep -o '"exec":true' <<<"$procs" | wc -l)"
expect_eq "warnings" '"warnings":[]' "$(grep -o '"warnings":\[[^]]*\]' obj.json)"
# --by process: one row for the pid (exec replaces the program, not the
# process), its programs in turn, with the figures of its images together
"$MEMPRISM" report --roi work --by process --format csv exec.data > proc.csv
expect_eq "--by process: rows" 1 "$(tail -n +2 proc.csv | wc -l)"
exe=$(realpath ./exec)
expect_eq "--by process: pid, programs, stores" "$ppid,\"$exe -> $exe\",$((N + M))" \
	"$(tail -n 1 proc.csv | awk -F, '{ print $3 "," $4 "," $7 }')"
"$MEMPRISM" numa --numa 2x2 --roi work --by process --format csv exec.data > nproc.csv
expect_eq "numa --by process: pid, programs, accesses" "$ppid,\"$exe -> $exe\",$((N + M))" \
	"$(tail -n +2 nproc.csv | awk -F, '{ print $3 "," $4 "," $5 }')"
# exec with an environment of the program's making (env -i): the new image
# still records (the runtime puts back its variables and LD_PRELOAD), as
# does the image that one execs in turn
for k in 1 2; do
	run 0 "record env -i ./exec ($k)" "$MEMPRISM" record -q -o envi$k.data -- env -i ./exec
	"$MEMPRISM" report --roi work --format csv envi$k.data > envi$k.csv
	expect_eq "env -i ($k): P stores" $N "$(csv_field envi$k.csv "$P" stores)"
	expect_eq "env -i ($k): C stores" $M "$(csv_field envi$k.csv "$C" stores)"
done
# posix_spawn, whose child execs by libc's own execve, with an environment
# of one variable
cat > spawn.c <<'C'
#include <spawn.h>
#include <sys/wait.h>
int main(int argc, char **argv) {
	char *args[] = { argv[1], 0 }, *envp[] = { "X=1", 0 };
	pid_t p; int st;
	if (argc != 2 || posix_spawn(&p, argv[1], 0, 0, args, envp) || waitpid(p, &st, 0) != p) return 1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}
C
gcc -O1 spawn.c -o spawn
run 0 "record posix_spawn" "$MEMPRISM" record -q -o spawn.data -- ./spawn "$PWD/exec"
"$MEMPRISM" report --roi work --format csv spawn.data > spawn.csv
expect_eq "posix_spawn: P stores" $N "$(csv_field spawn.csv "$P" stores)"
expect_eq "posix_spawn: C stores" $M "$(csv_field spawn.csv "$C" stores)"
# a site in a module without symbols is named by its address in the file,
# the same in both runs (not where the module was loaded that time)
"$MEMPRISM" report --format csv envi1.data | grep -o 'heap env+0x[0-9a-f]*' | sort -u > sites1.txt
"$MEMPRISM" report --format csv envi2.data | grep -o 'heap env+0x[0-9a-f]*' | sort -u > sites2.txt
if [ -s sites1.txt ]; then
	cmp -s sites1.txt sites2.txt || fail "env's sites differ between runs: $(diff sites1.txt sites2.txt | head -5)"
	echo "ok: env's $(wc -l < sites1.txt) sites without symbols are named alike in both runs"
else
	echo "(env has symbols here: no site named by address)"
fi
# the command line as a shell reads it back (a newline in an argument ended
# the file header's line, and an argument with spaces read as two)
"$MEMPRISM" record -q -o args.data -- ./exec "$(printf 'a b\nc')" "it's" '' plain_1.x >/dev/null ||
	fail "record with arguments exited $?"
expect_eq "command line" "command:   ./exec \$'a b\\nc' 'it'\\''s' '' plain_1.x" "$("$MEMPRISM" report args.data | sed -n 2p)"
# a command line longer than the header holds ends in " ..." (cut where
# the report's line has room, or where the file's header has)
for len in 3000 10000; do
	"$MEMPRISM" record -q -o long.data -- ./exec plain_1.x "$(head -c $len /dev/zero | tr '\0' x)" >/dev/null ||
		fail "record with $len bytes of argument exited $?"
	line=$("$MEMPRISM" report long.data | sed -n 2p)
	case "$line" in "command:   ./exec plain_1.x xxx"*"x ...") ;; *) fail "$len bytes: the command line's end: ${line: -20}" ;; esac
	[ ${#line} -le $((11 + 1023)) ] || fail "$len bytes: a line of ${#line}"
done
echo "ok: a long command line ends in ' ...'"
# The other exec functions: glibc's list forms (execl, execlp, execle) call
# its execve inside libc, past the runtime's, and the first image's records
# would be lost (a 1M-access program would show none, with a "did not shut
# down cleanly" warning): the runtime has its own of each.
for via in execl execlp execle execvp execvpe fexecve; do
	"$MEMPRISM" record -q -o "exec_$via.data" -- ./exec "$via" >/dev/null || fail "$via: record exited $?"
	"$MEMPRISM" report --roi work --format csv "exec_$via.data" >"obj_$via.csv"
	expect_eq "$via: P stores" $N "$(csv_field "obj_$via.csv" "$P" stores)"
	expect_eq "$via: C stores" $M "$(csv_field "obj_$via.csv" "$C" stores)"
	"$MEMPRISM" report --roi work --format json "exec_$via.data" >"obj_$via.json"
	expect_eq "$via: warnings" '"warnings":[]' "$(grep -o '"warnings":\[[^]]*\]' "obj_$via.json")"
done
