# gcc builds (`memprism gcc`, gcc's ThreadSanitizer calls served by the
# runtime, libtsan never linked): the ORMBP paper's Table II exactly per
# array on examples/arrays.c, built in one step and in separate compile and
# link steps; atomics that stay atomic and count a load and a store per
# read-modify-write (tests/rt/atomics.c); a C++ program through `memprism
# g++`. A gcc build's accesses are recorded as a memprism cc build's are.
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

"$MEMPRISM" gcc -O2 -g "$src" -o arrays -lpthread
ldd ./arrays | grep -q libtsan && fail "libtsan is linked: $(ldd ./arrays)"
echo "ok: no libtsan"
table2 onestep arrays
"$MEMPRISM" gcc -O2 -g -c "$src" -o arrays.o
"$MEMPRISM" gcc arrays.o -o arrays2 -lpthread
table2 twosteps arrays2

# atomics: atomic, and a load and a store per fetch_add
N=$(sized 100000 20000)
"$MEMPRISM" gcc -O2 -g "$MP_SRC/tests/rt/atomics.c" -o atomics -lpthread
rc=0
"$MEMPRISM" record -q -o atomics.data -- ./atomics $N > atomics.out || rc=$?
expect_eq "atomics: exit status (the counter reached 4 x N)" 0 "$rc"
"$MEMPRISM" report --format csv atomics.data > atomics.csv
expect_eq "atomics: counter loads" $((4 * N + 1)) "$(csv_field atomics.csv '^static counter ' loads)"
expect_eq "atomics: counter stores" $((4 * N)) "$(csv_field atomics.csv '^static counter ' stores)"
expect_eq "atomics: flag accesses (4 compare-and-swaps, a load)" 9 "$(csv_field atomics.csv '^static flag ' accesses)"

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
expect_eq "g++: exit status" 0 "$rc"
"$MEMPRISM" report --format csv v.data > v.csv
L=$(grep -n "@VEC" v.cc | cut -d: -f1)
row=$(grep "^\"heap main (v\\.cc:$L)\"" v.csv || true)
[ -n "$row" ] || fail "g++: no row for the vector at v.cc:$L: $(cut -d, -f1 v.csv)"
expect_eq "g++: the vector's stores (zeroed by the constructor, then filled) and loads (the sum)" "2000 1000" \
	"$(csv_field v.csv "^heap main \\(v\\.cc:$L\\)$" stores) $(csv_field v.csv "^heap main \\(v\\.cc:$L\\)$" loads)"
