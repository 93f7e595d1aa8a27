# Calling context: a generic constructor's blocks are a row per caller by
# default (its site has two callers), one row with --context 0, and more
# levels with --context N (tests/rt/context.c: a 16-long table for one
# caller, a big one for the other).
source "$(dirname "$0")/lib.sh"
build_rt context
big=100000
expect_eq "output" $((15 + big - 1)) "$(./context $big)"
"$MEMPRISM" record -q -o c.data -- ./context $big >/dev/null
ln() { grep -n "@$1" "$MP_SRC/tests/rt/context.c" | cut -d: -f1; }
T="heap dict_create \\(context.c:$(ln table)\\)"
"$MEMPRISM" report --format csv c.data >c.csv
expect_eq "the big table's row: its caller's stores" $big \
	"$(csv_field c.csv "^$T <- main \\(context.c:$(ln keys)\\)\$" stores)"
expect_eq "the big table's row: its size" $((8 * big)) \
	"$(csv_field c.csv "^$T <- main \\(context.c:$(ln keys)\\)\$" size)"
expect_eq "the small table's row: its caller's stores" 16 \
	"$(csv_field c.csv "^$T <- main \\(context.c:$(ln config)\\)\$" stores)"
grep -q '"heap main (context.c:[0-9]*) <-' c.csv && fail "a site of one caller got a context: $(cat c.csv)"
echo "ok: a site of one caller keeps its row"
# the site view splits the same way
"$MEMPRISM" report --by site --format csv c.data >s.csv
expect_eq "site view: the big table's context" $big \
	"$(csv_field s.csv "^dict_create \\(context.c:$(ln table)\\) <- main \\(context.c:$(ln keys)\\)\$" stores)"
# --context 0: one row for the site, both callers' blocks
"$MEMPRISM" report --context 0 --format csv c.data >c0.csv
expect_eq "--context 0: one row, both tables' stores" $((big + 16)) "$(csv_field c0.csv "^$T\$" stores)"
expect_eq "--context 0: both instances" 2 "$(csv_field c0.csv "^$T\$" instances)"
# --context 2: main's caller too, on every heap row
"$MEMPRISM" report --context 2 --format csv c.data >c2.csv
n=$(grep -c "^\"heap dict_create (context.c:$(ln table)) <- main (context.c:[0-9]*) <- " c2.csv)
expect_eq "--context 2: two callers on the table rows" 2 "$n"
run 2 "--context 17" "$MEMPRISM" report --context 17 c.data
said "--context 17" "from 0 to 16"
# a what-if rule may name one context's row: only that row's pages change
small_machine tiny.machine tiny 16
rule="dict_create (context.c:$(ln table)) <- main (context.c:$(ln keys))"
"$MEMPRISM" whatif --model ./tiny.machine --vs-pages "$rule=2M" --format csv c.data >w.csv 2>w.err
grep -q "no object's label contains" w.err && fail "the context rule matched nothing: $(cat w.err)"
wa=$(csv_field w.csv "^$T <- main \\(context.c:$(ln keys)\\)\$" walks_a)
wb=$(csv_field w.csv "^$T <- main \\(context.c:$(ln keys)\\)\$" walks_b)
[ "$wa" -gt 100 ] && [ "$wb" -lt $((wa / 10)) ] || fail "the big table's context in 2 MiB pages: walks $wa -> $wb"
echo "ok: the big table's context in 2 MiB pages: walks $wa -> $wb"
expect_eq "the small table's context: its walks unchanged" \
	"$(csv_field w.csv "^$T <- main \\(context.c:$(ln config)\\)\$" walks_a)" \
	"$(csv_field w.csv "^$T <- main \\(context.c:$(ln config)\\)\$" walks_b)"
