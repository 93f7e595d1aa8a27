# A recording cut short by a full disk says so: in record's words, in the
# file's header (MP_FILE_WRITE_FAILED with ENOSPC, written in place), and
# in the report, which does not guess "killed?". The disk is a 1 MiB
# tmpfs; tests/rt/exit_status.c big writes a trace of about 4 MB. Needs
# root (mount); skipped otherwise.
source "$(dirname "$0")/lib.sh"
if [ "$(id -u)" -ne 0 ]; then
	echo "skip: mounting a small tmpfs needs root"
	exit 77
fi
build_rt exit_status
mkdir small
mount -t tmpfs -o size=1m memprism-test small || { echo "skip: cannot mount a tmpfs here"; exit 77; }
trap 'umount small' EXIT

run 0 "record onto a full disk" "$MEMPRISM" record --no-pagemap -o small/full.data -- ./exit_status big
expect_eq "record's words" "memprism: recording stopped: cannot write the data file: no space left on the device (disk full)
memprism: warning: the recording stopped early: writing small/full.data failed: No space left on device (the disk is full); the trace holds what was written before" "$(grep -v '^memprism: wrote ' last.err)"

run 0 "dump" "$MEMPRISM" dump small/full.data
head -1 last.out | grep -Eqx 'file small/full\.data: format v[0-9]+, meta [0-9]+ bytes, a write failed during the recording \(No space left on device\)' ||
	fail "dump: the header line does not say the write failed: $(head -1 last.out)"
echo "ok: dump: the header says the write failed"

run 0 "report" "$MEMPRISM" report --format json small/full.data
grep -o '"warnings":.*' last.out > warnings.txt
grep -q 'killed?' warnings.txt && fail "the report still guesses killed?: $(cat warnings.txt)"
grep -Eq '"process [0-9]+ \(exit_status\) has no end record: writing the data file failed during the recording \(No space left on device: the disk was full\), which stopped it; its last unwritten records are lost"' warnings.txt ||
	fail "no word of the failed write for the process: $(cat warnings.txt)"
grep -Eq '"data file damaged at byte [0-9]+ \(data file is truncated\): a write to it failed during the recording \(No space left on device: the disk was full\), which stopped there; read up to the last good chunk"' warnings.txt ||
	fail "no word of the failed write for the file's end: $(cat warnings.txt)"
blk="^heap main \\(exit_status\\.c:$(grep -n '/\* @BLK \*/' "$MP_SRC/tests/rt/exit_status.c" | cut -d: -f1)\\)\$"
"$MEMPRISM" report --format csv small/full.data > full.csv 2> /dev/null
got=$(csv_field full.csv "$blk" stores)
[[ "$got" =~ ^[0-9]+$ ]] && [ "$got" -gt 0 ] && [ "$got" -lt 2000000 ] || fail "block stores '$got' not in (0, 2000000)"
echo "ok: disk full: what was written reads back ($got of 2000000 stores), and every word says why it stops"
