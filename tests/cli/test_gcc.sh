# gcc builds (`memprism gcc`, gcc's ThreadSanitizer instrumentation, libtsan
# never linked), with memprism's GCC plugin (the inline access path, where
# it was built) and with the calls into the runtime (MEMPRISM_INSTRUMENT=
# sancov): the ORMBP paper's Table II exactly per array on
# examples/arrays.c, built in one step and in separate compile and link
# steps, at -O2 and (inline) -O0, and each access on its source line;
# loops that read another thread's new block (tests/rt/inline_loops.c, and
# one whose first load finds its code address in its slot: the epoch
# checked at the loop's top);
# atomics that stay atomic and count a load and a store per
# read-modify-write (tests/rt/atomics.c); a C++ program through `memprism
# g++`. That the plugin did its work: the inline build imports the inline
# ABI's mark and no __tsan_read/__tsan_write, the calls' build the reverse.
# Run without record, a build prints what the plain gcc build prints; the
# plugin's build runs its functions' passive copies, calling nothing.
source "$(dirname "$0")/lib.sh"
command -v gcc >/dev/null || { echo "skip: gcc is not installed"; exit 77; }
src="$MP_SRC/examples/arrays.c"
MIB=$(sized 16 4)
M=$((MIB * 16384)) # accesses per array: one a line of 64 bytes

table2() { # name binary
	local rc=0
	"$MEMPRISM" record -q -o "$1.data" -- "./$2" $MIB > /dev/null 2> "$1.err" || rc=$?
	expect_eq "$1: record exit status" 0 "$rc"
	grep -q "not built with" "$1.err" && fail "$1: record says the program is not instrumented: $(cat "$1.err")"
	"$MEMPRISM" report --roi kernel --format csv "$1.data" > "$1.csv"
	local reads=(4 3 2 1 0) mlines
	mlines=($(grep -n 'malloc(bytes)' "$src" | cut -d: -f1))
	for i in 0 1 2 3 4; do
		local label="heap main \\(arrays\\.c:${mlines[i]}\\)"
		expect_eq "$1: a$i accesses" $M "$(csv_field "$1.csv" "$label" accesses)"
		expect_eq "$1: a$i loads" $((reads[i] * M / 4)) "$(csv_field "$1.csv" "$label" loads)"
		expect_eq "$1: a$i stores" $(((4 - reads[i]) * M / 4)) "$(csv_field "$1.csv" "$label" stores)"
	done
}

suite() { # how: inline or sancov
	local how=$1
	export MEMPRISM_INSTRUMENT=$how
	"$MEMPRISM" gcc -O2 -g "$src" -o arrays -lpthread
	ldd ./arrays | grep -q libtsan && fail "$how: libtsan is linked: $(ldd ./arrays)"
	echo "ok: $how: no libtsan"
	imports=$(nm -D --undefined-only ./arrays)
	if [ "$how" = inline ]; then
		grep -q " __memprism_inline_abi_" <<<"$imports" || fail "inline: arrays does not import the inline ABI mark: $imports"
		grep -qE " __tsan_(read|write)" <<<"$imports" && fail "inline: arrays still calls __tsan_read/write: $imports"
		echo "ok: inline: the plugin replaced every access call"
	else
		grep -q " __memprism_inline_abi_" <<<"$imports" && fail "sancov: arrays imports the inline ABI mark: $imports"
		grep -qE " __tsan_read" <<<"$imports" || fail "sancov: arrays calls no __tsan_read: $imports"
		echo "ok: sancov: the calls"
	fi
	table2 "$how-onestep" arrays
	# run on its own, not recorded: the program's own output (the inline
	# build's five threads write their records into the runtime's scratch
	# area, all at once)
	gcc -O2 -g -I"$MP_SRC/include" "$src" -o arrays_plain -lpthread
	expect_eq "$how: not recorded: output" "$(./arrays_plain $MIB)" "$(env -u MEMPRISM_OUT ./arrays $MIB)"
	if [ "$how" = inline ]; then
		# ... and through the functions' passive copies: not one call of
		# the runtime's access path (a shim in front of it counts them)
		cat > shim.c <<'EOC'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
static unsigned long n;
void __memprism_gcc_access(void *a, unsigned c, void *ip)
{
	static void (*real)(void *, unsigned, void *);
	__atomic_add_fetch(&n, 1, __ATOMIC_RELAXED);
	if (!real)
		real = (void (*)(void *, unsigned, void *))dlsym(RTLD_NEXT, "__memprism_gcc_access");
	real(a, c, ip);
}
__attribute__((destructor)) static void out(void)
{
	fprintf(stderr, "access calls %lu\n", n);
}
EOC
		gcc -O2 -shared -fPIC shim.c -o shim.so -ldl
		env -u MEMPRISM_OUT LD_PRELOAD=./shim.so ./arrays $MIB > /dev/null 2> shim.err
		expect_eq "inline: not recorded: calls of the access path" "access calls 0" "$(cat shim.err)"
		nm arrays | grep -q ' t main\.memprism_passive' || fail "inline: main has no passive copy: $(nm arrays | grep -i passive)"
	fi
	# each access on its line: the loop's load and store lines
	"$MEMPRISM" report --roi kernel --by line --format csv "$how-onestep.data" > lines.csv
	for what in "sum += *p;:loads" "*p = (char)k;:stores"; do
		l=$(grep -nF "${what%:*}" "$src" | cut -d: -f1)
		expect_eq "$how: arrays.c:$l ${what##*:}" $((10 * M / 4)) "$(csv_field lines.csv "^arrays\\.c:$l run\$" "${what##*:}")"
	done
	"$MEMPRISM" gcc -O2 -g -c "$src" -o arrays.o
	"$MEMPRISM" gcc arrays.o -o arrays2 -lpthread
	table2 "$how-twosteps" arrays2

	# loops checking the epoch once per iteration or at every access
	# (tests/rt/inline_loops.c): the output of a plain build, and the reads
	# of a block another thread allocated after this thread's last record
	# are all the block's
	"$MEMPRISM" gcc -O2 -g "$MP_SRC/tests/rt/inline_loops.c" -o loops -lpthread
	expect_eq "$how: loops, recorded" "$(gcc -O2 "$MP_SRC/tests/rt/inline_loops.c" -o loops_plain -lpthread && ./loops_plain)" \
		"$("$MEMPRISM" record -q -o loops.data -- ./loops)"
	"$MEMPRISM" report --by site --format csv loops.data > loops.csv
	expect_eq "$how: bytes loaded from the other thread's block" 16384 "$(csv_field loops.csv '^producer ' bytes_loaded)"
	expect_eq "$how: loops: unknown accesses" missing "$(csv_field loops.csv '^unknown' accesses)"

	# the epoch checked once per loop iteration: sum()'s second call reads a
	# block another thread allocated since this thread's last record, and
	# its loop's first load finds its code address in its slot (the first
	# call left it there) -- only the check at the loop's top sends it
	# down the path that writes the new epoch, else the loads are unknown
	cat > newblock.c <<'NB'
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
static int *block;
static int first[4096];
__attribute__((noinline)) long sum(const int *p, long n)
{
	long s = 0;
	for (long i = 0; i < n; i++)
		s += p[i];
	return s;
}
static void *producer(void *arg)
{
	(void)arg;
	block = malloc(4096 * sizeof(int)); /* @BLOCK */
	for (int i = 0; i < 4096; i++)
		block[i] = i;
	return NULL;
}
__attribute__((no_sanitize_thread, noinline)) static int *make_block(void)
{
	pthread_t t;
	if (pthread_create(&t, NULL, producer, NULL) || pthread_join(t, NULL))
		exit(1);
	return block;
}
int main(void)
{
	long r = sum(first, 4096);
	r += sum(make_block(), 4096);
	printf("%ld\n", r);
	return 0;
}
NB
	"$MEMPRISM" gcc -O2 -g newblock.c -o newblock -lpthread
	expect_eq "$how: newblock's output" $((4095 * 4096 / 2)) "$("$MEMPRISM" record -q -o nb.data -- ./newblock)"
	"$MEMPRISM" report --format csv nb.data > nb.csv
	expect_eq "$how: the new block's loads" 4096 "$(csv_field nb.csv "^heap producer \\(newblock\\.c:$(grep -n @BLOCK newblock.c | cut -d: -f1)\\)\$" loads)"
	expect_eq "$how: unknown accesses" missing "$(csv_field nb.csv '^unknown' accesses)"

	# atomics: atomic, and a load and a store per fetch_add
	N=$(sized 100000 20000)
	"$MEMPRISM" gcc -O2 -g "$MP_SRC/tests/rt/atomics.c" -o atomics -lpthread
	rc=0
	"$MEMPRISM" record -q -o atomics.data -- ./atomics $N > atomics.out || rc=$?
	expect_eq "$how: atomics: exit status (the counter reached 4 x N)" 0 "$rc"
	"$MEMPRISM" report --format csv atomics.data > atomics.csv
	expect_eq "$how: atomics: counter loads" $((4 * N + 1)) "$(csv_field atomics.csv '^static counter ' loads)"
	expect_eq "$how: atomics: counter stores" $((4 * N)) "$(csv_field atomics.csv '^static counter ' stores)"
	expect_eq "$how: atomics: flag accesses (4 compare-and-swaps, a load)" 9 "$(csv_field atomics.csv '^static flag ' accesses)"

	# C++ through g++
	cat > v.cc <<'CC'
#include <vector>
struct Shape { virtual long area() const = 0; virtual ~Shape() {} };
struct Sq : Shape { long s; explicit Sq(long x) : s(x) {} long area() const override { return s * s; } };
int main() {
	std::vector<long> v(1000); // @VEC
	for (long i = 0; i < 1000; i++) v[i] = i;
	Sq q(3);
	const Shape &sh = q;
	long t = sh.area();
	for (long x : v) t += x;
	return t == 499509 ? 0 : 1;
}
CC
	"$MEMPRISM" g++ -O1 -g v.cc -o v
	rc=0
	"$MEMPRISM" record -q -o v.data -- ./v || rc=$?
	expect_eq "$how: g++: exit status" 0 "$rc"
	"$MEMPRISM" report --format csv v.data > v.csv
	L=$(grep -n "@VEC" v.cc | cut -d: -f1)
	row=$(grep "^\"heap main (v\\.cc:$L)\"" v.csv || true)
	[ -n "$row" ] || fail "$how: g++: no row for the vector at v.cc:$L: $(cut -d, -f1 v.csv)"
	expect_eq "$how: g++: the vector's stores (zeroed by the constructor, then filled) and loads (the sum)" "2000 1000" \
		"$(csv_field v.csv "^heap main \\(v\\.cc:$L\\)$" stores) $(csv_field v.csv "^heap main \\(v\\.cc:$L\\)$" loads)"
}

hows=sancov
[ "${MP_GCC_INLINE:-0}" = 1 ] && hows="inline sancov"
for how in $hows; do
	suite "$how"
done
if [ "${MP_GCC_INLINE:-0}" = 1 ]; then
	# -O0: the plugin runs after gcc's tsan0 pass
	MEMPRISM_INSTRUMENT=inline "$MEMPRISM" gcc -O0 -g "$src" -o arrays0 -lpthread
	nm -D --undefined-only ./arrays0 | grep -q " __memprism_inline_abi_" || fail "-O0: the plugin did not run"
	table2 inline-O0 arrays0
else
	echo "(memprism was built without the gcc plugin: the calls only)"
fi
# bad input: an instrumentation that does not exist
run 2 "gcc, MEMPRISM_INSTRUMENT=bogus" env MEMPRISM_INSTRUMENT=bogus "$MEMPRISM" gcc -c "$src" -o bogus.o
said "gcc, MEMPRISM_INSTRUMENT=bogus" "MEMPRISM_INSTRUMENT=bogus: unknown instrumentation \(inline or sancov\)"
# a 32-bit build: the runtime is x86-64's, said before the compiler runs
for cmd in gcc cc; do
	run 2 "$cmd -m32" "$MEMPRISM" $cmd -m32 -c "$src" -o m32.o
	said_line "$cmd -m32" "memprism: -m32: memprism's runtime, which an instrumented program links and loads, is built for 64-bit x86-64 programs only: build without -m32 to record the program"
	[ ! -e m32.o ] || fail "$cmd -m32: an object was written"
	# a static link: no dynamic loader to preload the runtime, said before
	# the compiler runs (the link would fail on -lmemprism-rt); compiling alone is fine
	for flag in -static -static-pie; do
		run 2 "$cmd $flag" "$MEMPRISM" $cmd $flag "$src" -o static.out -lpthread
		said "$cmd $flag" "^memprism: $flag: memprism's runtime is a shared library that the dynamic loader preloads"
		[ ! -e static.out ] || fail "$cmd $flag: a program was written"
	done
	run 0 "$cmd -static -c" "$MEMPRISM" $cmd -static -c "$src" -o static.o
done
if [ "${MP_GCC_INLINE:-0}" = 1 ]; then
	# the plugin asked for, with a gcc of the environment's choosing: it would
	# not load there
	run 2 "gcc, inline with MEMPRISM_GCC" env MEMPRISM_INSTRUMENT=inline MEMPRISM_GCC=gcc "$MEMPRISM" gcc -c "$src" -o x.o
	said "gcc, inline with MEMPRISM_GCC" "MEMPRISM_INSTRUMENT=inline: the gcc plugin is not available"
fi
