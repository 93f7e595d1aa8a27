# Mapped memory has sites (tests/rt/maps.c): two deleted temporary files
# mapped at two sites are the rows "file main (maps.c:LINE) DIR/arr-XXXXXX
# (deleted)" and ".../idx-XXXXXX (deleted)", the same in two runs although
# mkstemp names the files anew; two anonymous mappings at two sites are two
# rows, the first keeping its row through mremap; a System V segment is
# "file main (maps.c:LINE) /SYSV00000000". Exact counts inside "work";
# --pages names a file row by its site.
source "$(dirname "$0")/lib.sh"
build_rt maps
src="$MP_SRC/tests/rt/maps.c"
declare -A L
for m in F1 F2 A1 A2 SHM; do
	L[$m]=$(grep -n "/\\* @$m \\*/" "$src" | cut -d: -f1)
	[ -n "${L[$m]}" ] || fail "marker @$m not in maps.c"
done
dir=$(pwd)
re_dir=$(printf '%s' "$dir" | sed 's/[][\.*^$()+?{}|/]/\\&/g')
for run in 1 2; do
	"$MEMPRISM" record -q -o m$run.data -- ./maps "$dir" > out$run.txt
	"$MEMPRISM" report --roi work --format csv m$run.data > m$run.csv
done
ls "$dir" | grep -q -- '-......$' && fail "a temporary file was left: $(ls "$dir")"
f1="^file main \\(maps\\.c:${L[F1]}\\) $re_dir/arr-XXXXXX \\(deleted\\)\$"
f2="^file main \\(maps\\.c:${L[F2]}\\) $re_dir/idx-XXXXXX \\(deleted\\)\$"
a1="^mmap main \\(maps\\.c:${L[A1]}\\)\$"
a2="^mmap main \\(maps\\.c:${L[A2]}\\)\$"
shm="^file main \\(maps\\.c:${L[SHM]}\\) /SYSV00000000\$"
for run in 1 2; do
	c=m$run.csv
	expect_eq "run $run: @F1 stores" 256 "$(csv_field $c "$f1" stores)"
	expect_eq "run $run: @F1 loads" 0 "$(csv_field $c "$f1" loads)"
	expect_eq "run $run: @F1 kind" '"file"' "$(csv_field $c "$f1" kind)"
	expect_eq "run $run: @F1 size" 1048576 "$(csv_field $c "$f1" size)"
	expect_eq "run $run: @F2 loads" 128 "$(csv_field $c "$f2" loads)"
	expect_eq "run $run: @F2 stores" 0 "$(csv_field $c "$f2" stores)"
	expect_eq "run $run: @A1 stores (mremap keeps the row)" 110 "$(csv_field $c "$a1" stores)"
	expect_eq "run $run: @A1 instances" 1 "$(csv_field $c "$a1" instances)"
	expect_eq "run $run: @A2 stores" 50 "$(csv_field $c "$a2" stores)"
	expect_eq "run $run: @SHM stores" 16 "$(csv_field $c "$shm" stores)"
	expect_eq "run $run: @SHM size" 65536 "$(csv_field $c "$shm" size)"
	expect_eq "run $run: every access in the region on these rows" 560 "$(sum_col $c accesses)"
done
# the same rows in both runs
cut -d, -f1 m1.csv | sort > labels1
cut -d, -f1 m2.csv | sort > labels2
diff labels1 labels2 || fail "the rows differ between two runs"
echo "ok: the same $(wc -l < labels1) rows in both runs"
# the site view: one site a mapping
"$MEMPRISM" report --roi work --by site --format csv m1.data > site.csv
expect_eq "site @F1 stores" 256 "$(csv_field site.csv "^main \\(maps\\.c:${L[F1]}\\)\$" stores)"
expect_eq "site @SHM stores" 16 "$(csv_field site.csv "^main \\(maps\\.c:${L[SHM]}\\)\$" stores)"
# --pages names a file row by its site: the rule matches
"$MEMPRISM" report --roi work --format json --model haswell-e5-2680v3 --pages "maps.c:${L[F1]}=2M" m1.data > pages.json
grep -q 'no object' pages.json && fail "--pages maps.c:${L[F1]} matched nothing: $(grep -o '"warnings".*' pages.json)"
echo "ok: --pages maps.c:${L[F1]}=2M names the file row"
