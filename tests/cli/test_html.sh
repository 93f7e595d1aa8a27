# The visual report in a real browser: headless Chromium opens the arrays
# report offline; the page's script draws everything and writes "ok ..." in
# #status (or the errors it met). The DOM after scripts ran must show every
# object of the text report as a table row, a plot per object (5 arrays and
# the main stack) and the band overview; no console errors. A screenshot is
# kept in the scratch folder.
source "$(dirname "$0")/lib.sh"
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
	echo "SKIP: chromium is not installed (scripts/deps.sh installs it)"
	exit 77
fi
"$MEMPRISM" cc -O2 -g "$MP_SRC/examples/arrays.c" -o arrays
"$MEMPRISM" record -q -o arrays.data -- ./arrays 64
start=$(date +%s%N)
"$MEMPRISM" report --roi kernel --html arrays.html arrays.data
echo "html: $(stat -c %s arrays.html) bytes, written in $((($(date +%s%N) - start) / 1000000)) ms"
# self-contained: no external scripts, styles, images or fetches
if grep -Eq '(src|href)="(https?:)?//|https?://|fetch\(|XMLHttpRequest' arrays.html; then
	fail "the report refers to the network"
fi
"$MEMPRISM" report --roi kernel --format csv arrays.data > obj.csv
nobj=$(($(wc -l < obj.csv) - 1))
chrome() {
	timeout 120 "$browser" --headless=new --no-sandbox --disable-gpu --hide-scrollbars \
		--user-data-dir="$MP_SCRATCH/chrome-profile" --virtual-time-budget=10000 "$@"
}
chrome --enable-logging=stderr --v=0 --dump-dom "file://$MP_SCRATCH/arrays.html" > dom.html 2> chrome.log
st=$(grep -o '<pre id="status">[^<]*' dom.html | sed 's/.*>//')
echo "status: $st"
case "$st" in ok\ *) ;; *) fail "page script did not finish: '$st'" ;; esac
field() { echo "$st" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
expect_eq "table rows = object rows of the CSV report" "$nobj" "$(field rows)"
expect_eq "objects in the data" "$nobj" "$(field objects)"
expect_eq "plots (5 arrays + main stack)" 6 "$(field plots)"
expect_eq "band overview" 1 "$(field overview)"
expect_eq "no findings without a model" -1 "$(field findings)"
[ "$(field sources)" -ge 1 ] || fail "no source section"
# the hottest line's row: its accesses as the line view counts them (the
# page's report has --roi kernel), marked hot
"$MEMPRISM" report --roi kernel --by line --format csv arrays.data | sed -n 2p >hot.csv
hl=$(cut -d'"' -f2 hot.csv | cut -d' ' -f1 | cut -d: -f2)
ha=$(cut -d, -f3 hot.csv | sed ':a;s/\B[0-9]\{3\}\>/,&/;ta')
grep -o '<tr class="hot">\(<td[^>]*>[^<]*</td>\)*</tr>' dom.html | grep -q "^<tr class=\"hot\"><td>$ha</td>.*<td>$hl</td>" ||
	fail "no hot source row for line $hl with $ha accesses"
echo "ok: the hottest line ($hl, $ha accesses) is marked in the source"
grep -q '<details class="src" open="">' dom.html || fail "the hottest function's source is not open"
echo "ok: the source section ($(field sources) functions, the hottest open)"
if grep -q 'CONSOLE' chrome.log; then
	grep 'CONSOLE' chrome.log >&2
	fail "console messages"
fi
echo "ok: no console messages"
# the patterns are shown next to the plots, the arrays' rows in the table
n=$(grep -o 'pattern: forward +64' dom.html | wc -l)
expect_eq "plots titled forward +64" 3 "$n"
n=$(grep -o 'pattern: backward -64' dom.html | wc -l)
expect_eq "plots titled backward -64" 2 "$n"
chrome --window-size=1280,1600 --screenshot="$MP_SCRATCH/arrays.png" "file://$MP_SCRATCH/arrays.html" 2>/dev/null
[ "$(stat -c %s arrays.png)" -gt 20000 ] || fail "screenshot too small"
echo "ok: screenshot $MP_SCRATCH/arrays.png"

# calling context as a tree (tests/rt/context.c: a constructor's two sites,
# each called from two lines): a row per site with the sums of its
# contexts, the contexts under it, and a click folds them
build_rt context
./context 1000 >/dev/null
"$MEMPRISM" record -q -o ctx.data -- ./context 1000 >/dev/null
"$MEMPRISM" report --html ctx.html ctx.data
"$MEMPRISM" report --format csv ctx.data >ctx.csv
chrome --dump-dom "file://$MP_SCRATCH/ctx.html" >ctx-dom.html 2>/dev/null
st=$(grep -o '<pre id="status">[^<]*' ctx-dom.html | sed 's/.*>//')
echo "status: $st"
expect_eq "context page: object rows = the CSV's" "$(($(wc -l <ctx.csv) - 1))" "$(field rows)"
expect_eq "context page: a row per site of several contexts" 2 "$(field groups)"
tl=$(grep -n "@table" "$MP_SRC/tests/rt/context.c" | cut -d: -f1)
site="heap dict_create (context.c:$tl)"
sum=$(grep -F "\"$site <- " ctx.csv | cut -d, -f3 | paste -sd+ | bc | sed ':a;s/\B[0-9]\{3\}\>/,&/;ta')
grep -o '<tr class="grp"[^>]*><td[^>]*>[^<]*</td>\(<td[^>]*>[^<]*</td>\)*</tr>' ctx-dom.html | grep -F " $site (2 contexts)<" |
	grep -q "^<tr class=\"grp\" data-group=\"g[0-9]\"><td[^>]*>$sum</td>" || fail "no site row for $site with $sum accesses"
n=$(grep -o '<tr class="obj"[^>]*data-under="g[0-9]"[^>]*>' ctx-dom.html | wc -l)
expect_eq "context rows under their site" 4 "$n"
echo "ok: the contexts' tree ($site: $sum accesses over its two callers)"

# with the model: memory levels per function and the page-walk CDF
"$MEMPRISM" record -q -o small.data -- ./arrays 16
"$MEMPRISM" report --roi kernel --model nehalem-e5504 --html model.html small.data
chrome --dump-dom "file://$MP_SCRATCH/model.html" > model-dom.html 2>/dev/null
st=$(grep -o '<pre id="status">[^<]*' model-dom.html | sed 's/.*>//')
echo "status: $st"
case "$st" in ok\ *) ;; *) fail "model page: '$st'" ;; esac
[ "$(field functions)" -ge 1 ] || fail "no memory levels per function"
expect_eq "walk CDF" 1 "$(field cdf)"
grep -q 'MODELLED' model-dom.html || fail "modelled figures not labelled"
# what to change: the findings of the text report, with its words
"$MEMPRISM" report --roi kernel --model nehalem-e5504 small.data > model.txt
expect_eq "findings on the page = the text report's" "$(grep -c '^    evidence: ' model.txt)" "$(field findings)"
[ "$(field findings)" -ge 1 ] || fail "arrays' kernel has no finding (one word of each line it fetches)"
ev=$(grep -m1 '^    evidence: ' model.txt | sed 's/^    evidence: //; s/&/\&amp;/g')
grep -qF "evidence: $ev" model-dom.html || fail "the page's evidence differs from the text report's: $ev"
echo "ok: modelled page"

# NUMA: four threads taking turns on one buffer, each pinned to its node of a
# simulated 4x8 machine: the node x node matrix and the buffer's timeline
build_rt numa_turns -pthread
"$MEMPRISM" record -q --numa 4x8 -o turns.data -- ./numa_turns > /dev/null
"$MEMPRISM" report --html numa.html turns.data
chrome --dump-dom "file://$MP_SCRATCH/numa.html" > numa-dom.html 2>/dev/null
st=$(grep -o '<pre id="status">[^<]*' numa-dom.html | sed 's/.*>//')
echo "status: $st"
case "$st" in ok\ *numa=[1-9]*) ;; *) fail "numa page: '$st'" ;; esac
grep -q 'id="numa-matrix"' numa-dom.html || fail "no node x node matrix"
expect_eq "matrix cells (4 x 4 nodes)" 16 "$(grep -o '<table id="numa-matrix">.*</table>' numa-dom.html | grep -o '<td' | wc -l)"
grep -q 'alternate' numa-dom.html || fail "the turn-taking finding is not on the page"
echo "ok: NUMA page"

# bad input: a clear error and a non-zero exit
if "$MEMPRISM" report --html /nonexistent-dir/x.html arrays.data 2> err.txt; then
	fail "writing into a missing directory succeeded"
fi
grep -q 'cannot write /nonexistent-dir/x.html' err.txt || fail "unclear error: $(cat err.txt)"
echo "ok: unwritable path"
# "-": the page on standard output, the file's byte for byte
"$MEMPRISM" report --roi kernel --html - arrays.data >arrays-stdout.html
cmp -s arrays.html arrays-stdout.html || fail "report --html -: not the file's page"
[ ! -e ./- ] || fail "report --html - wrote a file named '-'"
echo "ok: report --html - writes the page to standard output"

# One site's blocks in the brk heap and in mmap'd space, terabytes apart:
# the address axis leaves the gap out, so every address bin holds stores
# (over one range, two bins of 256 would hold them all); the binned SQLite
# export has the same axis, and the page says which ranges it shows.
"$MEMPRISM" cc -O2 -g "$MP_SRC/tests/rt/two_heaps.c" -o two_heaps
"$MEMPRISM" record -q -o two.data -- ./two_heaps >/dev/null
"$MEMPRISM" export --sqlite two.db --binned two.data
l=$(grep -n '@site' "$MP_SRC/tests/rt/two_heaps.c" | cut -d: -f1)
site="main (two_heaps.c:$l)"
q() { sqlite3 two.db "$1"; }
id=$(q "SELECT id FROM objects WHERE label = 'heap $site'")
"$MEMPRISM" report --format csv two.data >two.csv
expect_eq "binned stores: every store of the 8 blocks" "$(csv_field two.csv "heap main \\(two_heaps.c:$l\\)" stores)" \
	"$(q "SELECT sum(stores) FROM access_bins WHERE object_id = $id")"
expect_eq "address bins with stores" 256 "$(q "SELECT count(DISTINCT addr_bin) FROM access_bins WHERE object_id = $id")"
[ "$(q "SELECT addr_span < 8 * 1048576 AND addr_hi - addr_lo > 1073741824 FROM bin_axes WHERE object_id = $id")" = 1 ] ||
	fail "the axis did not leave the gap out: $(q "SELECT * FROM bin_axes WHERE object_id = $id")"
expect_eq "segments' lengths add up to the axis" "$(q "SELECT addr_span FROM bin_axes WHERE object_id = $id")" \
	"$(q "SELECT sum(addr_hi - addr_lo) FROM bin_segments WHERE object_id = $id")"
"$MEMPRISM" report --html two.html two.data
chrome --dump-dom "file://$MP_SCRATCH/two.html" > two-dom.html 2>/dev/null
grep -q "addresses in [2-8] ranges laid end to end" two-dom.html || fail "the plot does not say its ranges"
echo "ok: the plot names its address ranges"

# What the inst source could not see is in the page's summary, in the text
# report's words: zlib_heap's buffer read by zlib (no memprism cc build)
build_rt zlib_heap -lz
"$MEMPRISM" record -q -o z.data -- ./zlib_heap 200 >/dev/null
"$MEMPRISM" report z.data | sed -n 's/^unseen:    //p' >unseen.txt
[ -s unseen.txt ] || fail "no unseen line in the text report"
"$MEMPRISM" report --html z.html z.data
chrome --dump-dom "file://$MP_SCRATCH/z.html" > z-dom.html 2>/dev/null
while read -r u; do
	grep -qF "<dt>unseen</dt><dd>$u</dd>" z-dom.html || fail "the page's summary lacks: $u"
done <unseen.txt
echo "ok: the page names what the inst source could not see ($(wc -l <unseen.txt) line(s))"
