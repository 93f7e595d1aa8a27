# Allocation sites through libraries built without frame pointers (Debian's
# zlib, libc, libstdc++). tests/rt/libstacks.c calls deflateInit, asprintf,
# and fopen + fread (one line) once each: exactly three sites, each main's
# calling line, with the library frames inside it kept in the row's stack;
# no row named by a library frame or by a raw address. The same from a plain
# gcc build (no frame pointers in main either). `--lib-sites` names the
# library frames instead. tests/rt/throw.cc: the exception objects
# libstdc++ allocates are sited at the throwing line.
source "$(dirname "$0")/lib.sh"
src="$MP_SRC/tests/rt/libstacks.c"
line() { grep -n "/\\* @$1 \\*/" "$2" | cut -d: -f1; }
D=$(line DEFLATE "$src") A=$(line ASPRINTF "$src") F=$(line FOPEN "$src")

check() { # name binary
	local name=$1 rc=0
	"$MEMPRISM" record -q -o "$name.data" -- "./$2" > /dev/null 2> "$name.err" || rc=$?
	expect_eq "$name: record exit status" 0 "$rc"
	"$MEMPRISM" report --by site --format csv "$name.data" > "$name.csv"
	expect_eq "$name: sites" "$(printf 'main (libstacks.c:%s)\n' $D $A $F | sort)" \
		"$(tail -n +2 "$name.csv" | cut -d, -f1 | tr -d '"' | sort)"
	# zlib's own allocations: deflate_state, window, prev, head, pending_buf
	expect_eq "$name: deflateInit's blocks" 5 "$(csv_field "$name.csv" "^main \\(libstacks\\.c:$D\\)$" instances)"
	"$MEMPRISM" report --format json "$name.data" > "$name.json"
	# the deflate row's stack: zlib's frames, then main at the site
	local row
	row=$(grep -o "\"site\":\"main (libstacks.c:$D)\",\"site_frame\":[0-9]*,\"stack\":\\[[^]]*" "$name.json")
	[[ "$row" =~ \"site_frame\":([0-9]+) ]] || fail "$name: no stack on the deflateInit row"
	local k=${BASH_REMATCH[1]}
	[ "$k" -ge 1 ] || fail "$name: no library frame below the site"
	expect_eq "$name: frames inside the site are zlib's" "$k" "$(echo "$row" | grep -o '"module":"libz\.so[^"]*"' | wc -l)"
	echo "$row" | grep -q "\"function\":\"main\",\"file\":\"[^\"]*libstacks\\.c\",\"line\":$D," ||
		fail "$name: main is not in the stack: $row"
	echo "ok: $name: zlib's $k frames, then main"
}

"$MEMPRISM" cc -O1 -g "$src" -o libstacks -lz
check mpcc libstacks
gcc -O1 -g "$src" -o libstacks-gcc -lz
check gcc libstacks-gcc

# a program installed where libraries are (Debian's cc1 lives in
# /usr/lib/gcc/..., postgres and chromium under /usr/lib too): its own
# frames are sites all the same (skipped as a library's, every block
# would be sited at _start)
if inst=$(mktemp -d /usr/lib/memprism-test.XXXXXX 2>/dev/null); then
	trap 'rm -rf "$inst"' EXIT
	cp libstacks-gcc "$inst/"
	ln -s "$inst/libstacks-gcc" installed
	check installed installed
else
	echo "skip: /usr/lib not writable: the installed program's sites are not checked"
fi

# profiling a library itself: its frames can be sites
"$MEMPRISM" report --by site --lib-sites --format csv gcc.data > lib.csv
grep -q '^"deflateInit2_ (libz\.so' lib.csv || fail "--lib-sites: no zlib site: $(cut -d, -f1 lib.csv)"
grep -q '^"main (libstacks\.c' lib.csv && fail "--lib-sites: main still a site: $(cut -d, -f1 lib.csv)"
echo "ok: --lib-sites names zlib's frames"

# C++ exceptions: the object's site is the throw
tsrc="$MP_SRC/tests/rt/throw.cc"
T=$(line THROW "$tsrc")
for cxx in "$MEMPRISM c++" g++; do
	$cxx -O1 -g "$tsrc" -o throw
	rc=0
	"$MEMPRISM" record -q -o throw.data -- ./throw > /dev/null 2>&1 || rc=$?
	expect_eq "throw ($cxx): record exit status" 0 "$rc"
	# (--context 0: one row for the throw's site; by default a row per caller)
	"$MEMPRISM" report --context 0 --by site --format csv throw.data > throw.csv
	# (clang names the static function by its linkage name, gcc by its name)
	site="^fail_at(\\(int\\))? \\(throw\\.cc:$T\\)$"
	expect_eq "throw ($cxx): sites" 1 "$(tail -n +2 throw.csv | wc -l)"
	expect_eq "throw ($cxx): exception objects at the throw" 4 "$(csv_field throw.csv "$site" instances)"
done
