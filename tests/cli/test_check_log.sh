# The page-walk what-ifs a report checks its findings with are made from
# the model run's logged translations, not by a replay of the trace: both
# give the same walks (tests/tools/check_walks.c runs both) for processes
# forked and replayed at once, a region, --pages rules, a calling
# context's rule and pages recorded in transparent huge pages.
source "$(dirname "$0")/lib.sh"
build_rt fork4
build_rt two_tables
build_rt context
build_rt thp
small_machine tiny.machine tiny 16
"$MEMPRISM" record -q -o fork4.data -- ./fork4 >/dev/null
"$MEMPRISM" record -q --no-pagemap -o tt.data -- ./two_tables 2048 2 >/dev/null
"$MEMPRISM" record -q -o c.data -- ./context 100000 >/dev/null
"$MEMPRISM" record -q -o thp.data -- ./thp 16 >/dev/null
ln() { grep -n "@$1" "$MP_SRC/tests/rt/$2" | cut -d: -f1; }

# both ways, and the walks of each check: "PATTERN LOG REPLAY" lines
both() {
	"$MP_CHECK_WALKS" "$@" >cw.out 2>cw.err || fail "check_walks $*: $(cat cw.out cw.err)"
	cat cw.out
}
for j in 1 3; do
	both -j $j fork4.data tiny.machine "fork4.c=21" "main=30" "fork4.c=12" "nothing=21"
done
both -r pages tt.data tiny.machine "two_tables.c:$(ln A two_tables.c)=21" "two_tables.c:$(ln B two_tables.c)=21"
# (the walks the what-if test of two_tables.c says: A's check leaves B's
# 2,048, B's A's 4,096)
expect_eq "two_tables A's check" 2048 "$(sed -n 1p cw.out | cut -d' ' -f2)"
expect_eq "two_tables B's check" 4096 "$(sed -n 2p cw.out | cut -d' ' -f2)"
both -p "two_tables.c:$(ln A two_tables.c)=21" tt.data tiny.machine "two_tables.c:$(ln B two_tables.c)=21" "main=12"
both c.data tiny.machine "dict_create (context.c:$(ln table context.c)) <- main (context.c:$(ln keys context.c))=21" \
	"context.c:$(ln table context.c)=21"
both thp.data tiny.machine "thp.c=12" "main=21" "thp.c=30"
# the report's findings checked from the log: the same figures as the
# replay made them (test_advice.sh asserts them against the full model)
"$MEMPRISM" report -q --model ./tiny.machine --roi pages --format json tt.data >tt.json
grep -qF '"whatif_walks":[6144,2048]' tt.json && grep -qF '"whatif_walks":[6144,4096]' tt.json ||
	fail "the report's checks: $(grep -o '"whatif_walks":\[[0-9,]*\]' tt.json)"
echo "ok: the report's checks from the log"
