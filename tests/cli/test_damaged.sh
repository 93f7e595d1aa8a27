# Damaged and hostile data files (docs/trace-format.md, "Damaged files"):
# copies of real traces with a chunk twice, chunks out of sequence, a chunk
# of an unknown type, no process, no end of run, and payloads edited to claim huge counts,
# all with their checksums right (tests/tools/trace_edit.c). Each run says
# what it found and how many; where the figures cannot be trusted every
# command exits 1 (and still writes them), and a copy is never counted
# twice; the huge counts stay within a memory limit.
source "$(dirname "$0")/lib.sh"
E=$MP_TRACE_EDIT
build_rt exit_status
build_rt fold
"$MEMPRISM" record -q --no-pagemap -o big.data -- ./exit_status big
"$MEMPRISM" record -q --no-pagemap -o fold.data -- ./fold > /dev/null

# field FILE TYPE K NAME: NAME's value ("at": the file offset) in the K-th
# chunk of TYPE that `trace_edit FILE - list` shows
field() {
	"$E" "$1" - list | awk -v t="$2" -v k="$3" -v f="$4" \
		'$2 == t && n++ == k { for (i = 3; i < NF; i++) if ($i == f) print $(i + 1) }'
}
# uv_hex N: N as a LEB128 varint, in hex
uv_hex() {
	local n=$1 out=""
	while [ "$n" -ge 128 ]; do
		out+=$(printf %02x $((n % 128 + 128)))
		n=$((n / 128))
	done
	echo "$out$(printf %02x "$n")"
}
untrusted() { # FILE: the line every command ends a damaged file's warnings with
	echo "memprism: warning: $1 is damaged: its chunks are not those of a recording, and its figures cannot be trusted (the warnings say why)"
}
partial() {
	echo "memprism: warning: $1 is damaged or truncated; the report covers what could be read (the warnings say what was not)"
}
pid=$(field big.data process 0 pid)

run 0 "report of the clean trace" "$MEMPRISM" report -q --format json big.data
allocs=$(grep -o '"allocations":[0-9]*' last.out | head -1 | cut -d: -f2)
run 0 "report of the clean trace" "$MEMPRISM" report -q --format csv big.data
cp last.out clean.csv
expect_eq "clean trace: warnings" "" "$(cat last.err)"
expect_eq "clean trace: block stores" 2000000 "$(csv_field clean.csv '^heap main' stores)"

# a recording that stopped between two chunks (memprism record killed, or
# the file cut at a chunk's end): its chunks all whole, no end of run
"$E" big.data norun.data drop-type run_end
run 0 "report without an end of run" "$MEMPRISM" report -q --format csv norun.data
said_line "no end of run" "memprism: warning: the file has no end of run: the recording stopped before the program ended (memprism record killed, or the file cut short at a chunk's end); the figures are those of what was recorded"
said_line "no end of run" "$(partial norun.data)"
cmp -s clean.csv last.out || fail "no end of run: the counts differ from the clean trace's: $(diff clean.csv last.out | head -5)"
echo "ok: no end of run: said, every count as the clean trace's"

# a chunk twice (the process's): the copy is skipped
"$E" big.data dup.data dup stream:2 dup process:0
run 1 "report of chunks twice" "$MEMPRISM" report -q --format csv dup.data
said_line "chunks twice" "memprism: warning: chunks that appear twice: 1 (the first copy at byte $(field dup.data process 1 at), of the chunk at byte $(field dup.data process 0 at)): the copies are skipped, but the file was damaged or edited after it was recorded"
said_line "chunks twice" "$(untrusted dup.data)"
cmp -s clean.csv last.out || fail "chunks twice: the counts differ from the clean trace's: $(diff clean.csv last.out | head -5)"
echo "ok: chunks twice: every count as the clean trace's"

# a thread's chunk again after it, as record appends the buffer of a
# process killed in the instant between writing the chunk and marking it
# written: the same bytes, framed raw (the runtime's chunks under
# Valgrind), without its record count and cut at an event (a buffer that
# was filling): taken once, no warning
seq2=$(field big.data stream 2 seq)
for copy in "dup stream:2" "dup stream:2 raw stream:2" "dup stream:2 hdr stream:3 accesses 0" \
	"dup stream:2 cut stream:3 100"; do
	# shellcheck disable=SC2086 # (the operations are words)
	"$E" big.data copy.data $copy
	expect_eq "$copy: the copy's seq" "$seq2" "$(field copy.data stream 3 seq)"
	run 0 "report with $copy" "$MEMPRISM" report -q --format csv copy.data
	expect_eq "$copy: warnings" "" "$(cat last.err)"
	cmp -s clean.csv last.out || fail "$copy: the counts differ from the clean trace's: $(diff clean.csv last.out | head -5)"
	echo "ok: $copy: taken once, every count as the clean trace's"
done
# the same seq with other records is no copy: out of sequence, replayed
"$E" big.data notcopy.data hdr stream:3 seq "$seq2"
run 1 "report of a seq twice, other records" "$MEMPRISM" report -q --format csv notcopy.data
said "a seq twice, other records" "chunks out of sequence in 1 of the threads"
said_line "a seq twice, other records" "$(untrusted notcopy.data)"

# two chunks of a thread swapped: replayed in sequence, counts exact
"$E" big.data swap.data swap stream:2 stream:3
run 1 "report of swapped chunks" "$MEMPRISM" report -q --format csv swap.data
said_line "swapped chunks" "memprism: warning: chunks out of sequence in 1 of the threads (the first: thread $pid of pid $pid): 1 after a later one, 0 missing; replayed in sequence, but chunks that moved or went missing were damaged or edited after recording"
said_line "swapped chunks" "$(untrusted swap.data)"
cmp -s clean.csv last.out || fail "swapped chunks: the counts differ from the clean trace's: $(diff clean.csv last.out | head -5)"
echo "ok: swapped chunks: every count as the clean trace's"

# a chunk gone from the middle of a thread: its accesses are missing
gone=$(field big.data stream 3 accesses)
"$E" big.data gap.data drop stream:3
run 1 "report of a missing chunk" "$MEMPRISM" report -q --format csv gap.data
said_line "missing chunk" "memprism: warning: chunks out of sequence in 1 of the threads (the first: thread $pid of pid $pid): 0 after a later one, 1 missing; replayed in sequence, but chunks that moved or went missing were damaged or edited after recording"
expect_eq "missing chunk: block stores" $((2000000 - gone)) "$(csv_field last.out '^heap main' stores)"

# a chunk of an unknown type (the process chunk's copy stays): skipped,
# said, and not a reason to distrust the rest
"$E" big.data unknown.data dup process:0 hdr process:0 type 9
run 0 "report with an unknown chunk" "$MEMPRISM" report -q --format csv unknown.data
said_line "unknown chunk" "memprism: warning: chunks of an unknown type: 1 (the first: type 9 at byte $(field unknown.data '?' 0 at)): skipped (a newer memprism's?)"
said_line "unknown chunk" "$(partial unknown.data)"
cmp -s clean.csv last.out || fail "unknown chunk: the counts differ from the clean trace's"
echo "ok: unknown chunk: every count as the clean trace's"

# no process: a header alone, and chunks without their process's
"$E" big.data header.data keep 0
run 1 "report of a header alone" "$MEMPRISM" report -q --format csv header.data
said_line "header alone" "memprism: warning: the file holds no process: it has no chunk at all (the recording wrote its header only)"
said_line "header alone" "$(untrusted header.data)"
run 1 "JSON report of a header alone" "$MEMPRISM" report -q --format json header.data
grep -q '"damaged":true,' last.out || fail "header alone: the JSON does not say damaged"
grep -q '"processes":\[\]' last.out || fail "header alone: the JSON lists processes"
echo "ok: header alone: the JSON says damaged, no process"
"$E" big.data noproc.data drop-type process
run 1 "report without a process chunk" "$MEMPRISM" report -q --format csv noproc.data
said_line "no process chunk" "memprism: warning: the file holds no process: none of its $("$E" noproc.data - list | wc -l) chunks starts one (the program ran without memprism's runtime?)"

# every command that reads a trace exits 1 on a file it cannot trust
"$E" fold.data fold_dup.data dup process:0
"$E" fold.data fold_copy.data dup stream:0
M=(--model nehalem-e5504)
for f in dup.data header.data; do
	run 1 "report of $f" "$MEMPRISM" report -q "$f"
	run 1 "tlb of $f" "$MEMPRISM" tlb -q "${M[@]}" "$f"
	run 1 "numa of $f" "$MEMPRISM" numa -q "$f"
	run 1 "whatif of $f" "$MEMPRISM" whatif -q "${M[@]}" --vs-pages 2M "$f"
	run 1 "memtrace of $f" "$MEMPRISM" memtrace -q "${M[@]}" -o memtrace.csv "$f"
	said_line "memtrace of $f" "$(untrusted "$f")"
	rm -f export.db
	run 1 "export of $f" "$MEMPRISM" export --sqlite export.db "$f"
	said_line "export of $f" "$(untrusted "$f")"
	run 1 "report --html of $f" "$MEMPRISM" report -q --html report.html "$f"
done
run 0 "fold of the clean trace" "$MEMPRISM" fold iter --format csv fold.data
cp last.out fold.csv
run 1 "fold of chunks twice" "$MEMPRISM" fold iter --format csv fold_dup.data
said_line "fold of chunks twice" "$(untrusted fold_dup.data)"
cmp -s fold.csv last.out || fail "fold of chunks twice: the folded counts differ from the clean trace's"
echo "ok: fold of chunks twice: every count as the clean trace's"
run 0 "fold with a thread's chunk again (a killed process's copy)" "$MEMPRISM" fold iter --format csv fold_copy.data
cmp -s fold.csv last.out || fail "fold with a thread's chunk again: the folded counts differ from the clean trace's"
echo "ok: fold with a thread's chunk again: taken once, every count as the clean trace's"

# Counts that claim more than the file can hold, in a few bytes each: a
# warning and the rest left out, within 2 GiB of address space (ASan's
# shadow memory needs more: there, without the limit)
case "$(nm -D --defined-only "$MEMPRISM" 2> /dev/null)" in
*__asan_init*) limited() { "$@"; } ;;
*) limited() { (ulimit -v 2097152 && exec "$@"); } ;;
esac
# a page-table run of 2^28 pages
"$E" big.data pages.data dup stream:0 hdr stream:1 type 7 set pagemap:0 010101$(uv_hex 512)$(uv_hex $((1 << 28)))0100
run 0 "report of a run of 2^28 pages" limited "$MEMPRISM" report -q --format csv pages.data
said_line "2^28 pages" "memprism: warning: page-table records of more than 4194304 pages, more than a file of $(stat -c %s pages.data) bytes can hold (a damaged file?): the rest are ignored"
said_line "2^28 pages" "$(partial pages.data)"
# 20 threads of a 64 MiB chunk each (a thread name that long): 16 fit in
# the 1 GiB the replay holds at once, the 17th is skipped
raw=$(field big.data stream 0 raw)
name=$(((64 << 20) - raw - 3 - 4))
args=(grow stream:0 "6f0000$(uv_hex $name)" 1 grow stream:0 61 "$name")
for t in $(seq 1 20); do
	args+=(dup stream:0 hdr stream:1 tid "$t")
done
"$E" big.data held.data "${args[@]}"
expect_eq "a thread's chunk: decoded bytes" $((64 << 20)) "$(field held.data stream 1 raw)"
run 0 "report of 20 threads of 64 MiB" limited "$MEMPRISM" report -q --format csv held.data
at17=$("$E" held.data - list | awk '$2 == "stream" && $6 == 17 { print $NF }')
said_line "20 threads of 64 MiB" "memprism: warning: thread 17: its chunk at byte $at17 decodes to $((64 << 20)) bytes, and the threads' records would take over $((1 << 30)) bytes at once, more than a file of $(stat -c %s held.data) bytes can ask for (a damaged file?): skipped"
# 6,000,000 allocations of 64 bytes, 10 bytes each: all counted, 2^22
# objects live at most
"$E" big.data objects.data grow stream:0 61000000800140000000 6000000
run 0 "report of 6,000,000 allocations" limited "$MEMPRISM" report -q --format csv objects.data
said_line "6,000,000 allocations" "memprism: warning: more than 4194304 objects live at once, more than a file of $(stat -c %s objects.data) bytes can hold (a damaged file?): the later ones are counted, not placed"
run 0 "JSON report of 6,000,000 allocations" limited "$MEMPRISM" report -q --format json objects.data
expect_eq "6,000,000 allocations: counted" $((allocs + 6000000)) "$(grep -o '"allocations":[0-9]*' last.out | head -1 | cut -d: -f2)"
# 5,000,000 page faults of 9 bytes: as many kept as the file has bytes
"$E" big.data samples.data dup stream:0 hdr stream:1 type 5 set samples:0 730000000101000000 grow samples:0 730000000101000000 4999999
run 0 "report of 5,000,000 samples" limited "$MEMPRISM" report -q --format csv samples.data
size=$(stat -c %s samples.data)
said_line "5,000,000 samples" "memprism: warning: more than $((size / 1024 * 1024)) samples, more than a file of $size bytes can hold (a damaged file?): the rest are left out"
# 300,000 accesses of 3 bytes, each at the next code address: 2^18 kept
"$E" big.data ips.data grow stream:0 100002 300000
run 0 "report of 300,000 code addresses" limited "$MEMPRISM" report -q --format csv ips.data
said_line "300,000 code addresses" "memprism: warning: more than 262144 code addresses, more than a file of $(stat -c %s ips.data) bytes can hold (a damaged file?): the later ones are counted as one, address 0"
expect_eq "300,000 code addresses: accesses counted" $(($(sum_col clean.csv accesses) + 300000)) "$(sum_col last.out accesses)"
# 600,000 accesses of 3 bytes, each a page further: 2^19 pages get a row
# of the TLB view
"$E" big.data tlbpages.data grow stream:0 038040 600000
run 0 "tlb of 600,000 pages" limited "$MEMPRISM" tlb -q --model nehalem-e5504 --format csv tlbpages.data
said_line "600,000 pages" "memprism: warning: TLB misses on more than 524288 pages, more than a file of $(stat -c %s tlbpages.data) bytes can hold (a damaged file?): the later pages have no row of their own"
