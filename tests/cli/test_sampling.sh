# Bounded mode: --sample-bursts ON,OFF records bursts of ON accesses per
# thread and skips OFF. Recorded + skipped must equal the full run's total
# exactly, the estimates must be close to the truth, and the trace smaller.
source "$(dirname "$0")/lib.sh"
"$MEMPRISM" cc -O2 -g "$MP_SRC/examples/arrays.c" -o arrays
"$MEMPRISM" record -q -o full.data -- ./arrays 64 >/dev/null
"$MEMPRISM" record -q --sample-bursts 100000,900000 -o sampled.data -- ./arrays 64 >/dev/null
full=$("$MEMPRISM" report --format json full.data | grep -o '"sampling":{[^}]*}')
samp=$("$MEMPRISM" report --format json sampled.data | grep -o '"sampling":{[^}]*}')
num() { echo "$1" | grep -o "\"$2\":[0-9.]*" | cut -d: -f2; }
total=$(num "$full" recorded)
expect_eq "full run skips nothing" 0 "$(num "$full" skipped)"
expect_eq "recorded + skipped = all accesses" "$total" $(($(num "$samp" recorded) + $(num "$samp" skipped)))
[ "$(num "$samp" skipped)" -gt 0 ] || fail "nothing was skipped"
# per-array estimates within 1% of 1,048,576
"$MEMPRISM" report --roi kernel --format csv sampled.data >s.csv
line=$(grep -n 'malloc(bytes)' "$MP_SRC/examples/arrays.c" | head -1 | cut -d: -f1)
est=$(csv_field s.csv "heap main \\(arrays.c:$line\\)" accesses)
diff=$((est > 1048576 ? est - 1048576 : 1048576 - est))
[ $((diff * 100)) -le 1048576 ] || fail "estimate $est is more than 1% from 1048576"
echo "ok: estimate $est for 1048576"
"$MEMPRISM" report --roi kernel sampled.data | grep -q "estimates" || fail "text report does not say the counts are estimates"
# bad values are refused
for bad in 5 0,5 5,0 -1,5 a,b 5,; do
	if "$MEMPRISM" record --sample-bursts "$bad" -- true 2>err.txt; then fail "--sample-bursts $bad accepted"; fi
	grep -q "sample-bursts wants ON,OFF" err.txt || fail "no clear message for $bad"
done
echo "ok: bad values refused"
