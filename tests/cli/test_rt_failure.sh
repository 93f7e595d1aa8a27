# The runtime never takes the program down: when the data file cannot be
# written (here /dev/full), it says so once, stops recording, and the program
# finishes with its own output and exit status.
source "$(dirname "$0")/lib.sh"
build_rt threads
rt=$(dirname "$MEMPRISM")/../lib/memprism/libmemprism-rt.so
set +e
MEMPRISM_OUT=/dev/full LD_PRELOAD="$rt" ./threads >out.txt 2>err.txt
st=$?
set -e
expect_eq "exit status" 0 "$st"
expect_eq "program output" "threads done" "$(cat out.txt)"
expect_eq "messages" 1 "$(grep -c 'recording stopped' err.txt)"
grep -q 'cannot write the data file' err.txt || fail "message does not say why: $(cat err.txt)"
# a data file that cannot be created is an error of memprism record, before the program runs
mkdir ro && chmod 500 ro
set +e
"$MEMPRISM" record -o ro/x.data -- ./threads >out2.txt 2>err2.txt
st=$?
set -e
if [ "$(id -u)" != 0 ]; then
	expect_eq "record into a read-only directory" 2 "$st"
	grep -q "cannot record to ro/x.data" err2.txt || fail "no clear message: $(cat err2.txt)"
fi
"$MEMPRISM" record -o /nonexistent-dir/x.data -- ./threads >out3.txt 2>err3.txt && fail "record into a missing directory succeeded"
grep -q "cannot record to /nonexistent-dir/x.data" err3.txt || fail "no clear message: $(cat err3.txt)"
[ ! -s out3.txt ] || fail "the program ran although the data file could not be created"
echo "ok: failures reported"
