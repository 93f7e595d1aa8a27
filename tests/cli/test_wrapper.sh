# Allocation wrappers (tests/rt/wrapper.c): the site of a heap block is the
# first frame that is not a wrapper, and a function is judged a wrapper by
# what it does, not by its name. xmalloc, get_buffer and new_node allocate
# from one line and hand the block to their callers: wrappers. alloc_graph
# allocates from three lines, xalloc_and_sum uses its table itself: not
# wrappers, whatever their names say. --no-wrapper-heuristic judges nothing;
# -w makes a function a wrapper and --not-wrapper never one, with the
# judgement on or off. (--context 0 throughout: a site whose blocks come
# from several callers is one row, as the judgement sees it.)
source "$(dirname "$0")/lib.sh"
build_rt wrapper
src="$MP_SRC/tests/rt/wrapper.c"
"$MEMPRISM" record -q -o wrapper.data -- ./wrapper > out.txt
grep -q '^checksum ' out.txt || fail "wrapper printed no checksum"
declare -A L
for m in XM GM X1 X2 G1 G2 N1 OUT GC GS GA GW XS; do
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
not_wrappers() { # file what: alloc_graph's and xalloc_and_sum's rows, in them
	row "$1" "$2" alloc_graph GS 1 0 1
	row "$1" "$2" alloc_graph GA 60 60 1
	row "$1" "$2" alloc_graph GW 40 40 1
	row "$1" "$2" xalloc_and_sum XS 100 50 2
}

"$MEMPRISM" report --context 0 --roi work --format csv wrapper.data > default.csv
row default.csv default main X1 100 100 1
row default.csv default main X2 250 200 1
row default.csv default main G1 300 300 1
row default.csv default main G2 400 400 1
row default.csv default main N1 10 10 1
# stdout's buffer, allocated inside libc's printf: sited at main's call
row default.csv default main OUT 0 0 1
not_wrappers default.csv default
expect_eq "default: heap rows" 10 "$(nrows default.csv)"

"$MEMPRISM" report --context 0 --roi work --format csv --no-wrapper-heuristic wrapper.data > noheur.csv
row noheur.csv no-heuristic xmalloc XM 360 310 3
row noheur.csv no-heuristic get_buffer GM 700 700 2
row noheur.csv no-heuristic main OUT 0 0 1
not_wrappers noheur.csv no-heuristic
expect_eq "no-heuristic: heap rows" 7 "$(nrows noheur.csv)"

# -w a function judged a wrapper anyway: nothing changes
"$MEMPRISM" report --context 0 --roi work --format csv -w get_buffer wrapper.data > w.csv
row w.csv "-w get_buffer" main G1 300 300 1
row w.csv "-w get_buffer" main G2 400 400 1
expect_eq "-w get_buffer: heap rows" 10 "$(nrows w.csv)"

# --not-wrapper undoes the judgement
"$MEMPRISM" report --context 0 --roi work --format csv --not-wrapper get_buffer wrapper.data > nw.csv
row nw.csv "--not-wrapper get_buffer" get_buffer GM 700 700 2
row nw.csv "--not-wrapper get_buffer" main X1 100 100 1
not_wrappers nw.csv "--not-wrapper get_buffer"
expect_eq "--not-wrapper get_buffer: heap rows" 9 "$(nrows nw.csv)"
"$MEMPRISM" report --context 0 --roi work --format csv --not-wrapper xmalloc wrapper.data > nx.csv
row nx.csv "--not-wrapper xmalloc" xmalloc XM 360 310 3
row nx.csv "--not-wrapper xmalloc" main G1 300 300 1
expect_eq "--not-wrapper xmalloc: heap rows" 8 "$(nrows nx.csv)"

# -w undoes the judgement the other way: alloc_graph's blocks at its call
"$MEMPRISM" report --context 0 --roi work --format csv -w alloc_graph wrapper.data > wg.csv
row wg.csv "-w alloc_graph" main GC 101 100 3
expect_eq "-w alloc_graph: heap rows" 8 "$(nrows wg.csv)"

"$MEMPRISM" report --context 0 --roi work --format csv --no-wrapper-heuristic --alloc-wrapper xmalloc --alloc-wrapper new_node \
	wrapper.data > wn.csv
row wn.csv "no-heuristic + -w xmalloc,new_node" main X1 100 100 1
row wn.csv "no-heuristic + -w xmalloc,new_node" main X2 250 200 1
row wn.csv "no-heuristic + -w xmalloc,new_node" main N1 10 10 1
row wn.csv "no-heuristic + -w xmalloc,new_node" get_buffer GM 700 700 2
not_wrappers wn.csv "no-heuristic + -w xmalloc,new_node"
expect_eq "no-heuristic + -w: heap rows" 9 "$(nrows wn.csv)"

# the same judgement in every view of the trace: export's
"$MEMPRISM" export --context 0 --roi work --sqlite w.db wrapper.data
if command -v sqlite3 > /dev/null; then
	expect_eq "export: alloc_graph's rows" 3 "$(sqlite3 w.db "select count(*) from objects where label like 'heap alloc_graph (wrapper.c:%'")"
	expect_eq "export --not-wrapper: get_buffer's row" 1 \
		"$("$MEMPRISM" export --context 0 --roi work --not-wrapper get_buffer --sqlite w2.db wrapper.data && sqlite3 w2.db "select count(*) from objects where label = 'heap get_buffer (wrapper.c:${L[GM]})'")"
fi

# --pages rules are matched during the replay, before the judgement: a
# rule naming a row's site applies quietly; one naming a wrapper's line
# applies to the blocks allocated through it and says they are sited above
"$MEMPRISM" report --context 0 --roi work --format json --model haswell-e5-2680v3 --pages "wrapper.c:${L[X1]}=2M" wrapper.data > p1.json
grep -q '"warnings":\[\]' p1.json || fail "--pages wrapper.c:${L[X1]}: $(grep -o '"warnings".*' p1.json)"
echo "ok: --pages wrapper.c:${L[X1]} names a row"
"$MEMPRISM" report --context 0 --roi work --format json --model haswell-e5-2680v3 --pages "wrapper.c:${L[XM]}=2M" wrapper.data > p2.json
grep -q "\"--pages wrapper.c:${L[XM]}: also applied to the blocks of 3 allocation stacks that pass through a frame it names but are sited above it" p2.json ||
	fail "--pages wrapper.c:${L[XM]}: no word of the wrapper's blocks: $(grep -o '"warnings".*' p2.json)"
echo "ok: --pages wrapper.c:${L[XM]} says it named a wrapper's line"
