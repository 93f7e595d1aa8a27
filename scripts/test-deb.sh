#!/usr/bin/env bash
# The Debian package, as a user gets it: builds memprism_VERSION_ARCH.deb
# from the plain build tree (cpack), installs it with apt-get, and runs the
# bundled example from /usr: `memprism cc`, `record` and `report` (counted
# and modelled), `memprism gcc`, the Valgrind source, the man page, the
# completion and the flow library through its pkg-config file. Then purges the package, so
# /usr is as it was. Needs root (apt-get); .ci/run calls it after
# scripts/test.sh. Usage: scripts/test-deb.sh [BUILD_DIR, default build]
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD
build=${1:-build}
[ "$(id -u)" -eq 0 ] || {
	echo "test-deb.sh: needs root (apt-get install)" >&2
	exit 2
}
fail() {
	echo "FAIL: test-deb.sh: $*" >&2
	exit 1
}
expect_eq() { # what expected actual
	[ "$2" = "$3" ] || fail "$1: expected '$2', got '$3'"
	echo "ok: $1 = $3"
}
if [ ! -x "$build/bin/memprism" ]; then
	bash scripts/deps.sh
	cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	cmake --build "$build" -j"$(nproc)" >/dev/null
fi
# (a package of a sanitized build would need the sanitizer runtime)
grep -q '^MEMPRISM_SANITIZE:BOOL=ON' "$build/CMakeCache.txt" && fail "$build is a sanitized build: package a plain one"

rm -f "$build"/memprism_*.deb
(cd "$build" && cpack -G DEB >/dev/null)
deb=$(ls "$build"/memprism_*.deb)
version=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$build/CMakeCache.txt")
expect_eq "package file" "memprism_${version}_$(dpkg --print-architecture).deb" "$(basename "$deb")"
depends=$(dpkg-deb -f "$deb" Depends)
for d in clang-16 libdw1 libelf1 libzstd1; do
	[[ ", $depends," == *", $d"[\ ,]* ]] || fail "Depends lacks $d: $depends"
done
echo "ok: Depends: $depends"
echo "ok: Recommends: $(dpkg-deb -f "$deb" Recommends)"

dpkg-query -W -f='${Status}' memprism 2>/dev/null | grep -q "install ok installed" &&
	fail "a memprism package is installed already: remove it first (apt-get remove memprism)"
work=$(mktemp -d)
cleanup() {
	DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq memprism >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap cleanup EXIT
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$(realpath "$deb")" >/dev/null
expect_eq "memprism on PATH" /usr/bin/memprism "$(command -v memprism)"
[ -f /usr/lib/memprism/libmemprism-rt.so ] || fail "no /usr/lib/memprism/libmemprism-rt.so"

cd "$work"
# the README's example, from /usr: 16 MiB arrays, 262,144 accesses each,
# split 4/0, 3/1, 2/2, 1/3, 0/4 quarters between loads and stores
mib=16 n=$((16 << 20 >> 6))
memprism cc -O2 -g "$src/examples/arrays.c" -o arrays
readelf -d arrays | grep -q 'RUNPATH.*\[/usr/lib/memprism\]' || fail "arrays' RUNPATH is not /usr/lib/memprism"
memprism record -q -- ./arrays "$mib" >/dev/null
memprism report --roi kernel --format csv >a.csv
first=$(grep -n 'malloc(bytes)' "$src/examples/arrays.c" | head -1 | cut -d: -f1)
row() { # CSV row of array i: loads,stores
	awk -F, -v l="\"heap main (arrays.c:$(($first + $1)))\"" '$1 == l { print $4 "," $5 }' "$2"
}
for i in 0 1 2 3 4; do
	expect_eq "a$i loads,stores" "$((n * (4 - i) / 4)),$((n * i / 4))" "$(row $i a.csv)"
done
# modelled (the paper's Table II): the arrays are far past the LLC, so
# every line of a4 (all stores) is written back: n/1 DRAM writes
memprism report --roi kernel --model nehalem-e5504 --format csv >m.csv
col=$(head -1 m.csv | tr ',' '\n' | grep -nx dram_writes | cut -d: -f1)
expect_eq "a4 DRAM writes (modelled)" "$n" \
	"$(awk -F, -v l="\"heap main (arrays.c:$((first + 4)))\"" -v c="$col" '$1 == l { print $c }' m.csv)"
# any binary under the Valgrind tool, when it was built and valgrind came
# with the package
if [ -x /usr/lib/memprism/valgrind/memprism-amd64-linux ] && command -v valgrind >/dev/null; then
	memprism record -q --no-pagemap --source valgrind -o v.data -- ./arrays 1 >/dev/null
	memprism report --roi kernel --format csv v.data >v.csv
	expect_eq "--source valgrind: a1 loads,stores" "$((16384 * 3 / 4)),$((16384 / 4))" "$(row 1 v.csv)"
fi

# memprism gcc, from /usr: the GCC plugin when it was built, the calls
# otherwise; the same counts either way
if command -v gcc >/dev/null; then
	memprism gcc -O2 -g "$src/examples/arrays.c" -o garrays -lpthread
	if [ -f /usr/lib/memprism/memprism-gcc.so ]; then
		nm -D --undefined-only garrays | grep -q ' __memprism_inline_abi_' ||
			fail "memprism gcc from /usr: the GCC plugin did not run"
		echo "ok: memprism gcc: the GCC plugin"
	fi
	memprism record -q -o g.data -- ./garrays "$mib" >/dev/null
	memprism report --roi kernel --format csv g.data >g.csv
	expect_eq "memprism gcc: a1 loads,stores" "$((n * 3 / 4)),$((n / 4))" "$(row 1 g.csv)"
fi

# the man page, the completion, the flow library
MANWIDTH=80 man memprism-report 2>/dev/null | col -bx >man.txt
grep -q -- '--by VIEW' man.txt || fail "man memprism-report: $(head -3 man.txt)"
echo "ok: man memprism-report"
bash -c 'source /usr/share/bash-completion/completions/memprism
	COMP_WORDS=(memprism report --by fu); COMP_CWORD=3; _memprism; echo "${COMPREPLY[*]}"' >comp.txt
expect_eq "completion of memprism report --by fu" function "$(cat comp.txt)"
# shellcheck disable=SC2046
cc -O2 "$src/examples/flows_shared.c" -o flows_shared $(pkg-config --cflags --libs memprism-flows)
./flows_shared memprism.data 1 >flows.txt || fail "a program built with pkg-config's memprism-flows failed"
echo "ok: flows_shared built with pkg-config memprism-flows ($(wc -l <flows.txt) lines)"
echo "test-deb.sh: passed ($(basename "$deb"))"
