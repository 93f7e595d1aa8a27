# C++: new int[N], new Node and delete (tests/rt/cxx.cc). operator new is
# never the allocation site: rows are "heap main (cxx.cc:LINE)" at the lines
# of the new expressions, with exact loads, stores, sizes and instances.
source "$(dirname "$0")/lib.sh"
build_rt cxx
src="$MP_SRC/tests/rt/cxx.cc"
"$MEMPRISM" record -q -o cxx.data -- ./cxx > out.txt
grep -q '^checksum ' out.txt || fail "cxx printed no checksum"
"$MEMPRISM" report --roi work --format csv cxx.data > obj.csv
line_of() { grep -n "/\\* $1 \\*/" "$src" | cut -d: -f1; }
check() { # marker loads stores bytes_loaded bytes_stored size instances
	local line lab
	line=$(line_of "$1")
	[ -n "$line" ] || fail "marker $1 not in cxx.cc"
	lab="^heap main \\(cxx\\.cc:$line\\)\$"
	expect_eq "$1 loads" "$2" "$(csv_field obj.csv "$lab" loads)"
	expect_eq "$1 stores" "$3" "$(csv_field obj.csv "$lab" stores)"
	expect_eq "$1 bytes_loaded" "$4" "$(csv_field obj.csv "$lab" bytes_loaded)"
	expect_eq "$1 bytes_stored" "$5" "$(csv_field obj.csv "$lab" bytes_stored)"
	expect_eq "$1 size" "$6" "$(csv_field obj.csv "$lab" size)"
	expect_eq "$1 instances" "$7" "$(csv_field obj.csv "$lab" instances)"
	expect_eq "$1 threads" 1 "$(csv_field obj.csv "$lab" threads)"
}
check @ARR 1000 1000 4000 4000 4000 1
check @NODE 100 300 800 2400 24 1
check @NODE2 10 10 80 80 240 10
# no row names operator new or libstdc++ as the site
if grep -qi 'operator new\|libstdc\|_Zn[aw]m' obj.csv; then
	cat obj.csv
	fail "a row is labelled with operator new / libstdc++"
fi
echo "ok: no operator-new rows"
