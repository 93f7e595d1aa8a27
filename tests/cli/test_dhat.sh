# export --dhat opened in the viewer DHAT users know: Valgrind's own
# dh_view.html (the valgrind package's copy), in headless Chromium, with the
# file handed to its file input as a user's choice would be. The test reads
# the rendered tree: each allocation site of tests/rt/heap_sites.c shows
# the blocks, bytes, reads and writes memprism's report has for it, and the
# live bytes the program's construction gives: site A's ten blocks of 400
# bytes, six live at the end and at the heap's maximum (when B's 4096
# bytes were allocated); B freed before the end.
source "$(dirname "$0")/lib.sh"
browser=$(command -v chromium || command -v chromium-browser || true)
viewer=""
for d in /usr/libexec/valgrind /usr/lib/valgrind /usr/local/libexec/valgrind; do
	[ -f "$d/dh_view.js" ] && viewer=$d && break
done
if [ -z "$browser" ] || [ -z "$viewer" ]; then
	echo "SKIP: needs chromium and Valgrind's dh_view.html (scripts/deps.sh installs both)"
	exit 77
fi
build_rt heap_sites
run 0 "record heap_sites" "$MEMPRISM" record -q -o hs.data -- ./heap_sites
"$MEMPRISM" report --format csv hs.data >hs.csv
run 0 "export --dhat" "$MEMPRISM" export -q --dhat hs.json hs.data
A=$(grep -n '/\* A \*/' "$MP_SRC/tests/rt/heap_sites.c" | cut -d: -f1)
B=$(grep -n '/\* B \*/' "$MP_SRC/tests/rt/heap_sites.c" | cut -d: -f1)

# the viewer's page, its file input given hs.json (through a script that
# holds the text: a page may not read file:// itself)
{
	printf 'var MP_DHAT = JSON.stringify('
	cat hs.json
	printf ');\n'
} >data.js
cat >view.html <<EOF
<!DOCTYPE html>
<html><head><meta charset="UTF-8">
<link rel="stylesheet" href="file://$viewer/dh_view.css">
<script src="file://$viewer/dh_view.js"></script>
<script src="data.js"></script>
</head>
<body onload="onLoad(); const t = new DataTransfer(); t.items.add(new File([MP_DHAT], 'hs.json'));
	gInput.files = t.files; loadFile();"></body></html>
EOF
timeout 120 "$browser" --headless=new --no-sandbox --disable-gpu --user-data-dir="$MP_SCRATCH/chrome-profile" \
	--allow-file-access-from-files --virtual-time-budget=10000 --dump-dom "file://$MP_SCRATCH/view.html" \
	>dom.html 2>chrome.log || fail "chromium failed: $(tail -3 chrome.log)"
sed -e 's/<[^>]*>//g; s/&lt;/</g; s/&gt;/>/g; s/&amp;/\&/g' dom.html >page.txt
grep -q 'Invocation {' page.txt || fail "the viewer did not load the file: $(grep -io 'error[^<]*' dom.html | head -3)"

# per program point: its site (first frame in heap_sites.c) and figures,
# "SITE|FIELD|TEXT" lines
awk '
	/PP [0-9.\/]+ .*\{$/ { pp++; site[pp] = "" }
	{ line = $0; sub(/^[^A-Za-z#^]*/, "", line) }
	line ~ /^(Total|Max|At t-gmax|At t-end|Reads|Writes): / {
		f = line; sub(/:.*/, "", f); v = line; sub(/^[^:]*: +/, "", v)
		val[pp, f] = v
	}
	line ~ /^[#^][0-9]+: / && site[pp] == "" && match(line, /heap_sites\.c:[0-9]+/) {
		site[pp] = substr(line, RSTART + 13, RLENGTH - 13)
	}
	END {
		for (p = 1; p <= pp; p++) {
			if (site[p] == "") continue
			print site[p] "|Total|" val[p, "Total"]
			print site[p] "|Max|" val[p, "Max"]
			print site[p] "|gmax|" val[p, "At t-gmax"]
			print site[p] "|end|" val[p, "At t-end"]
			print site[p] "|Reads|" val[p, "Reads"]
			print site[p] "|Writes|" val[p, "Writes"]
		}
	}' page.txt >pps.txt
rendered() { # LINE FIELD: the viewer's text for that site's field
	awk -F'|' -v s="$1" -v f="$2" '$1 == s && $2 == f { print $3 }' pps.txt
}
# "4,000 bytes (...) in 10 blocks (...)": bytes and blocks, no commas
bytes_blocks() { sed -E 's/^([0-9,]+) bytes.* in ([0-9,]+) blocks.*/\1 \2/; s/,//g'; }
first_bytes() { sed -E 's/^([0-9,]+) bytes.*/\1/; s/,//g'; }

expect_eq "program points with a site in heap_sites.c" 2 "$(cut -d'|' -f1 pps.txt | sort -u | wc -l)"
for line in $A $B; do
	label="heap main \\(heap_sites.c:$line\\)"
	expect_eq "site $line: total bytes and blocks = report's size and instances" \
		"$(csv_field hs.csv "$label" size) $(csv_field hs.csv "$label" instances)" \
		"$(rendered "$line" Total | bytes_blocks)"
	expect_eq "site $line: reads (bytes) = report's bytes_loaded" "$(csv_field hs.csv "$label" bytes_loaded)" \
		"$(rendered "$line" Reads | first_bytes)"
	expect_eq "site $line: writes (bytes) = report's bytes_stored" "$(csv_field hs.csv "$label" bytes_stored)" \
		"$(rendered "$line" Writes | first_bytes)"
done
# and what the program's construction gives
expect_eq "A: total" "4000 10" "$(rendered "$A" Total | bytes_blocks)"
expect_eq "A: writes (ten memsets of 400)" 4000 "$(rendered "$A" Writes | first_bytes)"
expect_eq "A: most live" "4000 10" "$(rendered "$A" Max | bytes_blocks)"
expect_eq "A: live at the heap's maximum" "2400 6" "$(rendered "$A" gmax | bytes_blocks)"
expect_eq "A: live at the end" "2400 6" "$(rendered "$A" end | bytes_blocks)"
expect_eq "B: reads (one byte of each 64 of 4096)" 64 "$(rendered "$B" Reads | first_bytes)"
expect_eq "B: live at the heap's maximum" "4096 1" "$(rendered "$B" gmax | bytes_blocks)"
expect_eq "B: live at the end" "0 0" "$(rendered "$B" end | bytes_blocks)"
grep -q 'avg lifetime [0-9,.]* ns' page.txt || fail "no lifetimes in ns"
echo "ok: lifetimes shown in ns"

# bad input: a file that cannot be written, a data file that is not there
run 1 "export --dhat into a missing directory" "$MEMPRISM" export -q --dhat nosuch/x.json hs.data
said "export --dhat nosuch/x.json" "dhat export: cannot write nosuch/x.json: No such file or directory"
run 1 "export --dhat of a missing data file" "$MEMPRISM" export -q --dhat x.json missing.data
said "export --dhat missing.data" "cannot read missing.data"
# "-": standard output, the same JSON; the other exports write files of
# their own and refuse it (a file named "-" is nobody's wish)
"$MEMPRISM" export -q --dhat - hs.data >hs-stdout.json
cmp -s hs.json hs-stdout.json || fail "export --dhat -: not the file's JSON: $(diff hs.json hs-stdout.json | head -3)"
echo "ok: export --dhat - writes the same JSON to standard output"
run 1 "export --dhat - into a full device" sh -c '"$0" export -q --dhat - hs.data >/dev/full' "$MEMPRISM"
said "export --dhat - into /dev/full" "dhat export: standard output: No space left on device"
run 2 "export --sqlite -" "$MEMPRISM" export -q --sqlite - hs.data
said "export --sqlite -" "--sqlite wants a file name, not '-'"
[ ! -e ./- ] || fail "export wrote a file named '-'"
