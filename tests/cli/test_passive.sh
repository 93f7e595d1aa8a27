# A memprism-cc build runs normally when not recorded (inline builds take one
# compare per access; callback builds bind their callbacks to an empty
# function), and a callback build is recorded whatever the environment looks
# like around MEMPRISM_OUT (its IFUNC resolvers find it by reading
# /proc/self/environ in 4 KiB pieces: entries straddling two reads included).
source "$(dirname "$0")/lib.sh"
"$MEMPRISM" cc -O2 -g "$MP_SRC/examples/arrays.c" -o arrays-default
expect_eq "runs on its own" "arrays: 1 MiB x 5, checksum 40960" "$(./arrays-default 1)"
if [ "${MP_INLINE:-0}" = 1 ]; then
	# functions with loops run in an uninstrumented copy while not recording
	nm arrays-default | grep -q ' main\.memprism_passive$' || fail "inline build: no passive copy of main()"
	echo "ok: inline build has passive copies of its loops"
fi
MEMPRISM_INSTRUMENT=sancov "$MEMPRISM" cc -O2 -g "$MP_SRC/examples/arrays.c" -o arrays
expect_eq "runs on its own (callbacks)" "arrays: 1 MiB x 5, checksum 40960" "$(./arrays 1)"
MEMPRISM_OUT= ./arrays 1 >/dev/null || fail "an empty MEMPRISM_OUT broke the program"
line=$(grep -n 'malloc(bytes)' "$MP_SRC/examples/arrays.c" | head -1 | cut -d: -f1)
for pad in 1 4070 4079 4083 4087 4090 4095 4099 8180 8190; do
	big=$(head -c "$pad" /dev/zero | tr '\0' x)
	env -i PATH="$PATH" PAD="$big" "$MEMPRISM" record -q -o p.data -- ./arrays 1 >/dev/null
	"$MEMPRISM" report --roi kernel --format csv p.data >p.csv
	expect_eq "a0 accesses with a $pad-byte variable before MEMPRISM_OUT" 16384 \
		"$(csv_field p.csv "heap main \\(arrays.c:$line\\)" accesses)"
done

# the passive copy gets in-memory and narrow arguments exactly as its function
# did: same output as a plain build, not recorded and recorded, at -O0 and -O2
cc -O2 "$MP_SRC/tests/rt/passive_abi.c" -o abi-plain
want=$(./abi-plain)
for o in -O0 -O2; do
	"$MEMPRISM" cc $o -g "$MP_SRC/tests/rt/passive_abi.c" -o "abi$o"
	expect_eq "by-value struct and narrow arguments, $o, not recorded" "$want" "$(./abi$o)"
	expect_eq "by-value struct and narrow arguments, $o, recorded" "$want" "$("$MEMPRISM" record -q -o abi.data -- ./abi$o)"
done
