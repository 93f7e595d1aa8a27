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

# Link-time optimization runs the optimizer again over the instrumented
# code: the passive copy must stay a copy (not inlined back into its
# function, where merging the two copies' tails left calls at line 0), so
# every site keeps its line, with full and thin LTO.
for lto in -flto -flto=thin; do
	"$MEMPRISM" cc -O2 -g $lto "$MP_SRC/tests/rt/lto_sites.c" -o "lto$lto" || fail "memprism cc $lto failed"
	expect_eq "$lto build runs" 1498500 "$(./lto$lto 1000)"
	"$MEMPRISM" record -q -o lto.data -- "./lto$lto" 1000 >/dev/null
	"$MEMPRISM" report --by site --format csv lto.data >lto.csv
	for what in "first" "after the loop"; do
		l=$(grep -n "site: $what" "$MP_SRC/tests/rt/lto_sites.c" | cut -d: -f1)
		expect_eq "$lto: the block allocated $what is sited at its line" 8000 \
			"$(csv_field lto.csv "main \\(lto_sites.c:$l\\)" size)"
	done
	l=$(grep -n "site: stdout" "$MP_SRC/tests/rt/lto_sites.c" | cut -d: -f1)
	expect_eq "$lto: stdout's buffer is sited at the printf" '"heap"' \
		"$(csv_field lto.csv "main \\(lto_sites.c:$l\\)" kind)"
	grep -q 'lto_sites.c:0)' lto.csv && fail "$lto: a site at line 0: $(cat lto.csv)"
	echo "ok: $lto: no site at line 0"
done
