# Allocation wrappers (tests/rt/wrapper.c): the site of a heap block is the
# first frame that is not a wrapper. xmalloc and new_node are skipped by name
# (heuristic), get_buffer only with -w get_buffer; --no-wrapper-heuristic
# keeps xmalloc as the site; -w works with the heuristic off too.
source "$(dirname "$0")/lib.sh"
build_rt wrapper
src="$MP_SRC/tests/rt/wrapper.c"
"$MEMPRISM" record -q -o wrapper.data -- ./wrapper > out.txt
grep -q '^checksum ' out.txt || fail "wrapper printed no checksum"
declare -A L
for m in XM GM X1 X2 G1 G2 N1 OUT; do
	L[$m]=$(grep -n "/\\* @$m \\*/" "$src" | cut -d: -f1)
	[ -n "${L[$m]}" ] || fail "marker @$m not in wrapper.c"
done
lab() { echo "^heap $1 \\(wrapper\\.c:${L[$2]}\\)\$"; }
row() { # file what function marker accesses stores instances
	local l
	l=$(lab "$3" "$4")
	expect_eq "$2: $3 @$4 accesses" "$5" "$(csv_field "$1" "$l" accesses)"
	expect_eq "$2: $3 @$4 stores" "$6" "$(csv_field "$1" "$l" stores)"
	expect_eq "$2: $3 @$4 instances" "$7" "$(csv_field "$1" "$l" instances)"
}
nrows() { # heap rows of wrapper.c
	grep -c '^"heap [a-z_]* (wrapper\.c:' "$1" || true
}

"$MEMPRISM" report --roi work --format csv wrapper.data > default.csv
row default.csv default main X1 100 100 1
row default.csv default main X2 250 200 1
row default.csv default main N1 10 10 1
row default.csv default get_buffer GM 700 700 2
# stdout's buffer, allocated inside libc's printf: sited at main's call
row default.csv default main OUT 0 0 1
expect_eq "default: heap rows" 5 "$(nrows default.csv)"

"$MEMPRISM" report --roi work --format csv --no-wrapper-heuristic wrapper.data > noheur.csv
row noheur.csv no-heuristic xmalloc XM 360 310 3
row noheur.csv no-heuristic get_buffer GM 700 700 2
row noheur.csv no-heuristic main OUT 0 0 1
expect_eq "no-heuristic: heap rows" 3 "$(nrows noheur.csv)"

"$MEMPRISM" report --roi work --format csv -w get_buffer wrapper.data > w.csv
row w.csv "-w get_buffer" main X1 100 100 1
row w.csv "-w get_buffer" main X2 250 200 1
row w.csv "-w get_buffer" main G1 300 300 1
row w.csv "-w get_buffer" main G2 400 400 1
row w.csv "-w get_buffer" main N1 10 10 1
expect_eq "-w get_buffer: heap rows" 6 "$(nrows w.csv)"

"$MEMPRISM" report --roi work --format csv --no-wrapper-heuristic --alloc-wrapper xmalloc --alloc-wrapper new_node \
	wrapper.data > wn.csv
row wn.csv "no-heuristic + -w xmalloc,new_node" main X1 100 100 1
row wn.csv "no-heuristic + -w xmalloc,new_node" main X2 250 200 1
row wn.csv "no-heuristic + -w xmalloc,new_node" main N1 10 10 1
row wn.csv "no-heuristic + -w xmalloc,new_node" get_buffer GM 700 700 2
expect_eq "no-heuristic + -w: heap rows" 5 "$(nrows wn.csv)"
