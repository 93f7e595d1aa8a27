# The debug-file cache (src/sym/sym_cache.c): a separate debug file with
# compressed DWARF (as Debian's -dbg packages ship it) is copied once, its
# sections inflated, to $MEMPRISM_CACHE_DIR/debug/BUILDID.debug; later reports
# read the copy. Reports are the same with the cache off, writing it, reading
# it, and after the copy was damaged or replaced (it is checked and written
# again); an unusable cache directory only costs the time.
source "$(dirname "$0")/lib.sh"
# a program with a few hundred KiB of compressed DWARF (random member names
# do not compress away), debug info split off through a debuglink
awk 'BEGIN { srand(7); for (i = 0; i < 4000; i++) { printf "struct s%d {", i
		for (j = 0; j < 10; j++) { n = ""; for (k = 0; k < 12; k++) n = n sprintf("%c", 97 + int(rand() * 26))
			printf " long %s;", n }
		printf " };\nlong f%d(struct s%d *p) { return (long)p; }\n", i, i } }' > big.c
cat >> big.c << 'EOF'
#include <stdlib.h>
#include <string.h>
char *volatile keep; /* (or the compiler drops the malloc) */
int main(void)
{
	char *block = malloc(1 << 20);
	memset(block, 1, 1 << 20);
	keep = block;
	int r = keep[4096] - 1;
	free(block);
	return r;
}
EOF
site=$(grep -n 'malloc(1 << 20)' big.c | cut -d: -f1)
cc -O1 -g big.c -o big
objcopy --only-keep-debug --compress-debug-sections=zlib big big.debug
objcopy --strip-debug --add-gnu-debuglink=big.debug big
id=$(readelf -n big | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p')
[ -n "$id" ] || fail "the test program has no build-id"
# whether FILE's .debug_info is compressed (flag C)
info_packing() { readelf -SW "$1" 2> /dev/null | grep ' \.debug_info ' | grep -q ' C ' && echo compressed || echo plain; }
[ "$(info_packing big.debug)" = compressed ] || fail "objcopy did not compress big.debug's .debug_info"

"$MEMPRISM" record -q -o big.data -- ./big
report() { "$MEMPRISM" report -q --format csv big.data; }
MEMPRISM_CACHE_DIR= report > off.csv
grep -q "big.c:$site" off.csv || fail "the report did not name the malloc site from big.debug"
C=$PWD/cache
copy=$C/debug/$id.debug
MEMPRISM_CACHE_DIR=$C report > first.csv
[ -f "$copy" ] || fail "no plain copy at $copy"
expect_eq "the copy's .debug_info" plain "$(info_packing "$copy")"
[ "$(stat -c %s "$copy")" -gt "$(stat -c %s big.debug)" ] || fail "the copy is not bigger than the compressed file"
expect_eq "report writing the cache = report without" "$(md5sum < off.csv)" "$(md5sum < first.csv)"
# read from the copy: with the original moved away, the DWARF can come from
# nowhere else
mv big.debug big.debug.away
MEMPRISM_CACHE_DIR=$C report > second.csv
mv big.debug.away big.debug
expect_eq "report reading the cache = report without" "$(md5sum < off.csv)" "$(md5sum < second.csv)"
expect_eq "temporary files left in the cache" 0 "$(find "$C" -name '*.tmp' | wc -l)"

# a damaged copy (truncated), and another file's under the name: checked,
# removed and written again
size=$(stat -c %s "$copy")
truncate -s 1000 "$copy"
MEMPRISM_CACHE_DIR=$C report > trunc.csv
expect_eq "report over a truncated copy" "$(md5sum < off.csv)" "$(md5sum < trunc.csv)"
expect_eq "truncated copy written again, size" "$size" "$(stat -c %s "$copy")"
cp "$(type -P true)" "$copy"
MEMPRISM_CACHE_DIR=$C report > other.csv
expect_eq "report over another file's copy" "$(md5sum < off.csv)" "$(md5sum < other.csv)"
expect_eq "replaced copy written again, size" "$size" "$(stat -c %s "$copy")"

# a cache that cannot be made: the same report, no error
MEMPRISM_CACHE_DIR=/proc/no/such/dir report > noroom.csv 2> noroom.err
expect_eq "report with an unusable cache" "$(md5sum < off.csv)" "$(md5sum < noroom.csv)"
expect_eq "its stderr" "" "$(cat noroom.err)"
# XDG_CACHE_HOME without MEMPRISM_CACHE_DIR
env -u MEMPRISM_CACHE_DIR XDG_CACHE_HOME=$PWD/xdg "$MEMPRISM" report -q --format csv big.data > xdg.csv
[ -f "xdg/memprism/debug/$id.debug" ] || fail "no copy under \$XDG_CACHE_HOME/memprism/debug"
expect_eq "report through \$XDG_CACHE_HOME" "$(md5sum < off.csv)" "$(md5sum < xdg.csv)"

# a copy read is marked used (its modification time), and writing one
# removes the least recently used others past MEMPRISM_CACHE_MAX MiB
touch -d '2000-01-01' "$copy"
touch -d '1 minute ago' before.mark # (file times tick coarsely: not now)
MEMPRISM_CACHE_DIR=$C report > /dev/null
[ "$copy" -nt before.mark ] || fail "reading the copy did not mark it used"
C2=$PWD/cache2
mkdir -p "$C2/debug"
for f in a b c; do head -c 300000 /dev/zero > "$C2/debug/$f.debug"; done
echo keep > "$C2/debug/notes.txt"
touch -d '2001-01-01' "$C2/debug/a.debug"
touch -d '2003-01-01' "$C2/debug/b.debug"
# the copy (~1.5 MB) and a, b, c (300,000 bytes each) over 2 MiB: a and b
# go, oldest first, and c, used last, stays
MEMPRISM_CACHE_DIR=$C2 MEMPRISM_CACHE_MAX=2 report > pruned.csv
expect_eq "report with pruning" "$(md5sum < off.csv)" "$(md5sum < pruned.csv)"
# (where libc or ld.so has a separate debug file, as libc6-dbg gives them,
# its copy is written too and takes c's room)
sep_debug() { # FILE: whether it has a debug file under /usr/lib/debug/.build-id
	local b
	b=$(readelf -n "$1" 2> /dev/null | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p')
	[ -n "$b" ] && [ -e "/usr/lib/debug/.build-id/${b:0:2}/${b:2}.debug" ]
}
libs=$(ldd ./big | awk '/libc\.so|ld-linux/ { print ($3 ~ /^\// ? $3 : $1) }')
others=0
for l in $libs; do sep_debug "$l" && others=1; done
if [ $others = 1 ]; then
	expect_eq "left in the bounded cache" "$id.debug notes.txt" "$(cd "$C2/debug" && echo *)"
else
	expect_eq "left in the bounded cache" "$id.debug c.debug notes.txt" "$(cd "$C2/debug" && echo *)"
fi

# the doctor says where the cache is and what it holds, or that it is off
n=$(find "$C/debug" -name '*.debug' | wc -l)
MEMPRISM_CACHE_DIR=$C "$MEMPRISM" doctor > doc.txt
grep -q "^  debug cache: *$C/debug ($n inflated debug file" doc.txt || fail "doctor: $(grep 'debug cache' doc.txt)"
grep -q "^  debug cache: *off" <(MEMPRISM_CACHE_DIR= "$MEMPRISM" doctor) || fail "doctor does not say the cache is off"
MEMPRISM_CACHE_DIR=$C MEMPRISM_CACHE_MAX=2G "$MEMPRISM" doctor > doc2.txt
grep -q "of 1024 MiB" doc2.txt && grep -q "MEMPRISM_CACHE_MAX='2G' is not a number of MiB: 1024 MiB used" doc2.txt ||
	fail "doctor does not flag a bad MEMPRISM_CACHE_MAX: $(grep 'debug cache' doc2.txt)"
grep -q "of 3 MiB;" <(MEMPRISM_CACHE_DIR=$C MEMPRISM_CACHE_MAX=3 "$MEMPRISM" doctor) || fail "doctor does not show the bound"
echo "ok: doctor reports the cache"
