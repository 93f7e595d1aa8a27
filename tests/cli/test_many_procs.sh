# A shell script's hundreds of commands and a program's thousands of short
# threads: every process and thread replayed, under a soft limit of open
# files far below what their images' debug information holds open (report
# raises it to the hard limit), and the process view a row per pid.
source "$(dirname "$0")/lib.sh"
n=150
run 0 "record a shell loop" "$MEMPRISM" record -q -o sh.data -- bash -c "for i in \$(seq $n); do /bin/true; done"
hard=$(ulimit -H -n)
[ "$hard" = unlimited ] || [ "$hard" -ge 2048 ] || { echo "skip: a hard limit of $hard open files"; exit 77; }
(
	ulimit -S -n 128
	run 0 "report under a soft limit of 128 open files" "$MEMPRISM" report -q --format json sh.data
	expect_eq "warnings" "" "$(cat last.err)"
	grep -q '"warnings":\[\]' last.out || fail "warnings: $(grep -o '"warnings".*' last.out | head -c 300)"
	procs=$(grep -o '"processes":\[[^]]*\]' last.out)
	# bash, and per command (seq's too) a fork child and the image it exec'd
	expect_eq "process instances" $((1 + 2 * (n + 1))) "$(grep -o '"pid":' <<<"$procs" | wc -l)"
	run 0 "report --by process" "$MEMPRISM" report --by process --format csv sh.data
	expect_eq "rows (one per pid)" $((1 + n + 1)) "$(tail -n +2 last.out | wc -l)"
	expect_eq "commands: bash, then true" $n "$(grep -c '"[^"]*bash -> /usr/bin/true"' last.out)"
) || exit
# 3,000 threads, 50 at a time, each allocating and freeing a block
cat > thr.c <<'C'
#include <pthread.h>
#include <stdlib.h>
static void *run(void *a) { volatile int *p = malloc(64); for (int i = 0; i < 100; i++) p[i & 15] += i; free((void *)p); return a; }
int main(void) {
	for (int i = 0; i < 3000; i += 50) {
		pthread_t t[50];
		for (int k = 0; k < 50; k++) pthread_create(&t[k], 0, run, 0);
		for (int k = 0; k < 50; k++) pthread_join(t[k], 0);
	}
	return 0;
}
C
"$MEMPRISM" cc -O1 -g thr.c -o thr -lpthread
run 0 "record 3,000 threads" "$MEMPRISM" record -q -o thr.data -- ./thr
run 0 "report" "$MEMPRISM" report --format csv thr.data
expect_eq "the threads' blocks: stores" 300000 "$(csv_field last.out '^heap run \(thr\.c:3\)$' stores)"
expect_eq "the threads' blocks: loads" 300000 "$(csv_field last.out '^heap run \(thr\.c:3\)$' loads)"
run 0 "report --by thread" "$MEMPRISM" report --by thread --format csv thr.data
expect_eq "threads" 3001 "$(tail -n +2 last.out | wc -l)"
# A parent of 30,000 blocks forks 150 children one after another, a block
# freed and one made between forks: each child's map is its parent's at its
# fork (the blocks it stores to are known, the latest one among them), and
# the children's maps together (4.5M objects) are not held at once: past
# what the file could hold, they read as damage
cat > forks.c <<'C'
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
enum { K = 30000, M = 150 };
static int *keep[K];
int main(void) {
	for (int i = 0; i < K; i++) keep[i] = malloc(16);
	int *fresh = 0;
	for (int i = 0; i < M; i++) {
		free(fresh);
		fresh = malloc(32);
		pid_t pid = fork();
		if (pid == 0) { keep[i * 7][0] = i; fresh[1] = i; _exit(0); }
		waitpid(pid, 0, 0);
	}
	return 0;
}
C
"$MEMPRISM" cc -O1 -g forks.c -o forks
run 0 "record 150 forks" "$MEMPRISM" record -q -o forks.data -- ./forks
run 0 "report" "$MEMPRISM" report -q --format csv forks.data
expect_eq "warnings" "" "$(cat last.err)"
expect_eq "the parent's blocks: children's stores" 150 "$(csv_field last.out '^heap main \(forks\.c:7\)$' stores)"
expect_eq "the block made before each fork: stores" 150 "$(csv_field last.out '^heap main \(forks\.c:11\)$' stores)"
expect_eq "no unknown accesses" missing "$(csv_field last.out '^unknown' accesses)"
cp last.out forks.j2
run 0 "report -j 1" "$MEMPRISM" report -q -j 1 --format csv forks.data
expect_eq "one process at a time: the same report" "" "$(diff forks.j2 last.out)"
