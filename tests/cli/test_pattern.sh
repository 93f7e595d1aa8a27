# Access patterns on the ORMBP paper's arrays: a0, a1, a2 are walked
# forward and a3, a4 backward, one 64-byte line per access, by one thread
# each: every delta of each stream is +64 or -64, so the dominant delta
# explains all of them (share 1).
source "$(dirname "$0")/lib.sh"
"$MEMPRISM" cc -O2 -g "$MP_SRC/examples/arrays.c" -o arrays
"$MEMPRISM" record -q -o arrays.data -- ./arrays 16
"$MEMPRISM" report --roi kernel --format csv arrays.data > obj.csv
mlines=($(grep -n 'malloc(bytes)' "$MP_SRC/examples/arrays.c" | cut -d: -f1))
[ ${#mlines[@]} -eq 5 ] || fail "expected 5 malloc lines in arrays.c"
dir=(forward forward forward backward backward)
stride=(64 64 64 -64 -64)
for i in 0 1 2 3 4; do
	label="heap main \\(arrays.c:${mlines[i]}\\)"
	expect_eq "a$i pattern" "${dir[i]}" "$(csv_field obj.csv "$label" pattern)"
	expect_eq "a$i stride" "${stride[i]}" "$(csv_field obj.csv "$label" stride)"
	expect_eq "a$i dominant share" 1.000000 "$(csv_field obj.csv "$label" pattern_share)"
	expect_eq "a$i reuse" 0.000000 "$(csv_field obj.csv "$label" reuse_share)"
done
# the text report shows it as a column
"$MEMPRISM" report --roi kernel arrays.data > obj.txt
grep -q ' pattern  *object$' obj.txt || fail "no pattern column in the text report"
n=$(grep -c 'forward +64 *heap main (arrays.c' obj.txt)
expect_eq "text rows forward +64" 3 "$n"
n=$(grep -c 'backward -64 *heap main (arrays.c' obj.txt)
expect_eq "text rows backward -64" 2 "$n"
# and JSON, with the evidence
"$MEMPRISM" report --roi kernel --format json arrays.data > obj.json
label="heap main (arrays.c:${mlines[3]})"
if command -v jq >/dev/null; then
	expect_eq "a3 json pattern" "backward -64 1 1" \
		"$(jq -r --arg l "$label" '.rows[] | select(.label == $l) | "\(.pattern.kind) \(.pattern.stride) \(.pattern.share) \(.pattern.backward)"' obj.json)"
	expect_eq "a3 json streams" 1 "$(jq -r --arg l "$label" '.rows[] | select(.label == $l) | .pattern.streams' obj.json)"
fi
# the site view has no pattern column (patterns are per object)
"$MEMPRISM" report --by site --roi kernel --format csv arrays.data | head -1 | grep -vq pattern ||
	fail "site view has a pattern column"
echo "ok: pattern columns"
