# `cmake --install` with a prefix gives a working memprism: its cc finds the
# installed header and runtime, and records and reports from there.
source "$(dirname "$0")/lib.sh"
: "${MP_BUILD:?MP_BUILD must name the build tree}"
cmake --install "$MP_BUILD" --prefix "$MP_SCRATCH/prefix" >/dev/null
P=$MP_SCRATCH/prefix
[ -x "$P/bin/memprism" ] || fail "no bin/memprism"
[ -f "$P/lib/memprism/libmemprism-rt.so" ] || fail "no runtime"
[ -f "$P/include/memprism.h" ] || fail "no memprism.h"
"$P/bin/memprism" cc -O2 -g "$MP_SRC/examples/arrays.c" -o arrays
readelf -d arrays | grep -q "RUNPATH.*$P/lib/memprism" || fail "runpath does not point at the installed runtime"
"$P/bin/memprism" record -q -o a.data -- ./arrays 1 >/dev/null
"$P/bin/memprism" report --roi kernel --format csv a.data >a.csv
line=$(grep -n 'malloc(bytes)' "$MP_SRC/examples/arrays.c" | head -1 | cut -d: -f1)
expect_eq "a0 accesses at 1 MiB" 16384 "$(csv_field a.csv "heap main \\(arrays.c:$line\\)" accesses)"
# the Valgrind tool, when it was built: installed with the core files it
# needs beside it, it records the same program from there, and the
# program's own inline instrumentation records nothing then (no access
# counts twice)
if [ -x "$MP_BUILD/lib/memprism/valgrind/memprism-amd64-linux" ] && command -v valgrind >/dev/null; then
	"$P/bin/memprism" doctor | grep -q '^  valgrind works:' || fail "installed: the valgrind source does not work"
	"$P/bin/memprism" record -q --no-pagemap --source valgrind -o v.data -- ./arrays 1 >/dev/null
	"$P/bin/memprism" report --roi kernel --format csv v.data >v.csv
	expect_eq "installed, --source valgrind: a0 accesses" 16384 \
		"$(csv_field v.csv "heap main \\(arrays.c:$line\\)" accesses)"
fi

# the man pages and the completion, where man and bash-completion look
for page in memprism memprism-report memprism-record memprism-cc; do
	[ -f "$P/share/man/man1/$page.1" ] || fail "no $page.1 in share/man/man1"
done
MANWIDTH=80 man -M "$P/share/man" memprism-report 2>/dev/null | col -bx >man.txt
grep -q '^NAME' man.txt && grep -q -- '--by VIEW' man.txt || fail "man -M $P/share/man memprism-report: $(head -3 man.txt)"
echo "ok: man memprism-report reads the installed page"
[ -f "$P/share/bash-completion/completions/memprism" ] || fail "no share/bash-completion/completions/memprism"
[ -f "$P/share/doc/memprism/LICENSE" ] && [ -f "$P/share/doc/memprism/copyright" ] || fail "no licence in share/doc/memprism"

# the flow API installs as a header and a shared library a user's program
# links against with a plain compiler (sanitized builds: their library needs
# the sanitizer runtime, so this part runs in plain builds only)
[ -f "$P/include/memprism/flows.h" ] || fail "no memprism/flows.h"
lib=$(ls "$P"/lib*/libmemprism-flows.so 2>/dev/null | head -1)
[ -n "$lib" ] || fail "no libmemprism-flows.so"
nm -D "$lib" > flows.syms # not piped into grep -q: pipefail would see nm's SIGPIPE
if grep -q "__asan_" flows.syms; then
	echo "SKIP: sanitized build: the installed flow library needs the ASan runtime"
else
	exported=$(nm -D --defined-only "$lib" | awk '$3 !~ /^(mp_flow|_)/ { print $3 }')
	expect_eq "symbols exported besides mp_flow*" "" "$exported"
	# (its flags from the installed pkg-config file, which names this prefix)
	pc=$(dirname "$lib")/pkgconfig
	[ -f "$pc/memprism-flows.pc" ] || fail "no memprism-flows.pc in $pc"
	expect_eq "pkg-config --cflags --libs memprism-flows" "-I$P/include -L$(dirname "$lib") -lmemprism-flows" \
		"$(PKG_CONFIG_PATH=$pc pkg-config --cflags --libs memprism-flows | sed 's/ *$//')"
	# shellcheck disable=SC2046
	cc -O2 "$MP_SRC/examples/flows_shared.c" -o flows_shared $(PKG_CONFIG_PATH=$pc pkg-config --cflags --libs memprism-flows) \
		-Wl,-rpath,"$(dirname "$lib")"
	./flows_shared a.data 1 > fs.txt || fail "the installed flow API failed on a trace"
	echo "ok: a program built against the installed flow API ran ($(wc -l < fs.txt) lines)"
fi
