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
# Skips and bursts shorter than a round of malloc, 2,048 accesses and free:
# events fall inside skips, every access is still the block's, and the
# counts add up exactly (-O1: one access per int, as the comment counts).
"$MEMPRISM" cc -O1 -g "$MP_SRC/tests/rt/sampling_events.c" -o events
"$MEMPRISM" record -q --sample-bursts 1000,3000 -o events.data -- ./events >/dev/null
samp=$("$MEMPRISM" report --format json events.data | grep -o '"sampling":{[^}]*}')
expect_eq "events: recorded" 1024000 "$(num "$samp" recorded)"
expect_eq "events: skipped" 3072000 "$(num "$samp" skipped)"
"$MEMPRISM" report --format csv events.data >e.csv
expect_eq "events: the block's estimate" 4096000 "$(csv_field e.csv '^heap main ' accesses)"
expect_eq "events: unknown accesses" missing "$(csv_field e.csv '^unknown' accesses)"
# the model's share of physically indexed references is a share of the
# estimate, not of what was recorded: all of them, as in a full run
"$MEMPRISM" record -q -o events_full.data -- ./events >/dev/null
phys() { "$MEMPRISM" report --model host "$1" 2>/dev/null | grep '^physical:' | sed 's/(translations.*//'; }
expect_eq "events: physically indexed share, sampled as full" "$(phys events_full.data)" "$(phys events.data)"
# a failed exec (the runtime flushed before it) does not end the sampling
"$MEMPRISM" cc -O1 -g "$MP_SRC/tests/rt/sampling_exec.c" -o exec_fail
"$MEMPRISM" record -q -o exec_full.data -- ./exec_fail >/dev/null
"$MEMPRISM" record -q --sample-bursts 1000,3000 -o exec_samp.data -- ./exec_fail >/dev/null
full=$("$MEMPRISM" report --format json exec_full.data | grep -o '"sampling":{[^}]*}')
samp=$("$MEMPRISM" report --format json exec_samp.data | grep -o '"sampling":{[^}]*}')
expect_eq "failed exec: recorded + skipped = all" "$(num "$full" recorded)" \
	$(($(num "$samp" recorded) + $(num "$samp" skipped)))
[ $(($(num "$samp" recorded) * 3)) -lt "$(num "$full" recorded)" ] ||
	fail "failed exec: $(num "$samp" recorded) of $(num "$full" recorded) recorded: sampling stopped"
echo "ok: failed exec: $(num "$samp" recorded) of $(num "$full" recorded) recorded"
# bad values are refused
for bad in 5 0,5 5,0 -1,5 a,b 5,; do
	if "$MEMPRISM" record --sample-bursts "$bad" -- true 2>err.txt; then fail "--sample-bursts $bad accepted"; fi
	grep -q "sample-bursts wants ON,OFF" err.txt || fail "no clear message for $bad"
done
echo "ok: bad values refused"
