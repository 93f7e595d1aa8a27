# Golden traces: one recorded file per format version, with the report it
# must keep producing (tests/golden/vN-*.data and .expected). The program that
# wrote them is gone, as it would be on a user's other machine: only rows that
# depend on the trace alone are compared (not statics read from system ELF files).
source "$(dirname "$0")/lib.sh"
for data in "$MP_SRC"/tests/golden/v*.data; do
	exp=${data%.data}.expected
	{
		"$MEMPRISM" report --by thread --format csv "$data"
		"$MEMPRISM" report --by kind --format csv "$data" | grep -E '^"(heap|mapping|stack|unknown)"'
		# v5 and later: the CPU-time samples' figures that depend on the
		# trace alone: not how they split between the program and the
		# runtime (whether a library is the runtime's alone is read from
		# the ELF files), nor libc's functions (the system's libc names them)
		case $(basename "$data") in
		v[1-4]-*) ;;
		*) "$MEMPRISM" report --format json "$data" |
			jq -c '.unseen_cpu | if . == null then null else {period_ns, placed: (.samples + .runtime_samples), lost} end' ;;
		esac
	} >got.csv
	diff -u "$exp" got.csv || fail "$(basename "$data"): report changed"
	echo "ok: $(basename "$data")"
done
