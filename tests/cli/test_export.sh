# Exports of the arrays benchmark (4 MiB arrays: 65,536 accesses each inside
# region "kernel"), checked against the CSV report of the same trace:
# SQLite per-object and per-thread counts, the region and the allocations;
# the binned variant sums to the same counts; the Paraver files are
# well-formed (header syntax, one record per access plus the region's begin
# and end, times sorted, every object value named in the .pcf, every thread
# in the .row).
source "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || fail "sqlite3 is not installed (scripts/deps.sh installs it)"
"$MEMPRISM" cc -O2 -g "$MP_SRC/examples/arrays.c" -o arrays
"$MEMPRISM" record -q -o arrays.data -- ./arrays 4
"$MEMPRISM" report --roi kernel --format csv arrays.data > obj.csv
"$MEMPRISM" report --roi kernel --by thread --format csv arrays.data > thr.csv
"$MEMPRISM" export --roi kernel --sqlite arrays.db arrays.data
"$MEMPRISM" export --roi kernel --sqlite binned.db --binned arrays.data
q() { sqlite3 -batch -noheader -separator " " "$1" "$2"; }
# every object row of the report: accesses, loads, stores from the accesses view
tail -n +2 obj.csv | while IFS= read -r line; do
	label=$(echo "$line" | sed 's/^"\(\([^"]\|""\)*\)".*/\1/; s/""/"/g')
	want=$(csv_field obj.csv "^$(printf '%s' "$label" | sed 's/[][()\.*^$+?{}|]/\\&/g')\$" accesses)
	sl=$(printf '%s' "$label" | sed "s/'/''/g")
	got=$(q arrays.db "SELECT count(*) FROM accesses a JOIN objects o ON o.id = a.object_id WHERE o.label = '$sl'")
	expect_eq "accesses view: $label" "$want" "$got"
	got=$(q arrays.db "SELECT accesses FROM objects WHERE label = '$sl'")
	expect_eq "objects table: $label" "$want" "$got"
	# a ranged access counts in every bin it covers: compare the arrays only,
	# whose accesses are single bytes
	if [[ "$label" == "heap main (arrays.c:"* ]]; then
		got=$(q binned.db "SELECT coalesce(sum(b.loads + b.stores), 0) FROM access_bins b JOIN objects o ON o.id = b.object_id WHERE o.label = '$sl'")
		expect_eq "access_bins: $label" "$want" "$got"
	fi
done
M=65536
mlines=($(grep -n 'malloc(bytes)' "$MP_SRC/examples/arrays.c" | cut -d: -f1))
reads=(4 3 2 1 0)
for i in 0 1 2 3 4; do
	l="heap main (arrays.c:${mlines[i]})"
	expect_eq "a$i stores (write=1)" $(((4 - reads[i]) * M / 4)) \
		"$(q arrays.db "SELECT sum(a.write) FROM accesses a JOIN objects o ON o.id = a.object_id WHERE o.label = '$l'")"
	expect_eq "a$i pattern" "$([ $i -lt 3 ] && echo forward || echo backward)" \
		"$(q arrays.db "SELECT pattern FROM objects WHERE label = '$l'")"
	expect_eq "a$i allocation" "1 $((4 << 20))" \
		"$(q arrays.db "SELECT count(*), max(al.size) FROM allocations al JOIN objects o ON o.id = al.object_id WHERE o.label = '$l'")"
done
expect_eq "total accesses" "$(q arrays.db "SELECT value FROM run WHERE key = 'accesses'")" \
	"$(q arrays.db "SELECT count(*) FROM accesses")"
for tid in $(q arrays.db "SELECT tid FROM threads"); do
	expect_eq "thread $tid accesses" "$(csv_field thr.csv "tid $tid( |\$)" accesses)" \
		"$(q arrays.db "SELECT count(*) FROM accesses a JOIN threads t ON t.id = a.thread_id WHERE t.tid = $tid")"
done
expect_eq "regions" "1 kernel 1" "$(q arrays.db "SELECT count(*), name, end_time > begin_time FROM regions")"
expect_eq "allocations = report's" "$(q arrays.db "SELECT value FROM run WHERE key = 'allocations'")" \
	"$(q arrays.db "SELECT count(*) FROM allocations WHERE kind = 'heap'")"

# Paraver
"$MEMPRISM" export --roi kernel --paraver arrays arrays.data
for f in arrays.prv arrays.pcf arrays.row; do [ -s $f ] || fail "$f missing"; done
head -1 arrays.prv | grep -Eq '^#Paraver \([0-9]{2}/[0-9]{2}/[0-9]{2} at [0-9]{2}:[0-9]{2}\):[0-9]+_ns:1\([0-9]+\):1:1\([0-9]+:1\)$' ||
	fail "bad header: $(head -1 arrays.prv)"
nth=$(head -1 arrays.prv | sed 's/.*:1(\([0-9]*\):1)$/\1/')
expect_eq "threads in header = .row" "$(sed -n 's/^LEVEL THREAD SIZE //p' arrays.row)" "$nth"
expect_eq "thread lines in .row" "$nth" "$(grep -c '^THREAD 1\.1\.' arrays.row)"
total=$(q arrays.db "SELECT count(*) FROM accesses")
expect_eq "access records" "$total" "$(grep -c ':32000001:' arrays.prv)"
expect_eq "region records (begin, end)" 2 "$(grep -c ':32000004:' arrays.prv)"
expect_eq "records" $((total + 2)) "$(tail -n +2 arrays.prv | wc -l)"
ftime=$(head -1 arrays.prv | sed 's/.*):\([0-9]*\)_ns.*/\1/')
awk -F: -v nth="$nth" -v ftime="$ftime" 'NR > 1 {
	if ($1 != 2 || $3 != 1 || $4 != 1 || $5 < 1 || $5 > nth) { print "bad record " NR ": " $0; exit 1 }
	if ($6 < last) { print "time goes back at record " NR; exit 1 }
	if ($6 >= ftime) { print "time beyond the header at record " NR; exit 1 }
	last = $6 }' arrays.prv || fail "malformed .prv"
echo "ok: records well-formed and sorted"
# every object value used is named in the .pcf (values are object id + 1)
used=$(grep -o ':32000001:[0-9]*' arrays.prv | cut -d: -f3 | sort -u)
defined=$(awk '/^EVENT_TYPE/ { t = 0 } /32000001/ { t = 1 } t && /^[0-9]+ / { print $1 }' arrays.pcf | sort -u)
missing=$(comm -23 <(echo "$used") <(echo "$defined"))
[ -z "$missing" ] || fail "object values not in .pcf: $missing"
echo "ok: $(echo "$used" | wc -l) object values, all defined in .pcf"
for i in 0 1 2 3 4; do
	id=$(q arrays.db "SELECT id + 1 FROM objects WHERE label = 'heap main (arrays.c:${mlines[i]})'")
	expect_eq "a$i records" $M "$(grep -c ":32000001:$id:" arrays.prv)"
	grep -q "^$id  *heap main (arrays.c:${mlines[i]})\$" arrays.pcf || fail "a$i not named in .pcf"
done
# bad input
if "$MEMPRISM" export arrays.data 2> err.txt; then fail "export without a target succeeded"; fi
grep -q 'give --sqlite DB, --paraver PREFIX or --dhat FILE' err.txt || fail "unclear error: $(cat err.txt)"
if "$MEMPRISM" export --sqlite x.db missing.data 2> err.txt; then fail "missing data file accepted"; fi
grep -q 'cannot read missing.data' err.txt || fail "unclear error: $(cat err.txt)"
echo "ok: errors"
