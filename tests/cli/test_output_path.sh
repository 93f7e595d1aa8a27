# record -o writes only regular files: '-', a device, directory, FIFO or symlink
# at the path (or at its .old, where an existing file is kept) is refused
# with status 2 and words naming what is there, and nothing is moved or
# written; an existing regular file still becomes FILE.old.
source "$(dirname "$0")/lib.sh"
build_rt exit_status

same() { # what path "type inode" before: the entry at path is unchanged
	expect_eq "$1: $2 left as it was" "$3" "$(stat -c '%F %i' "$2")"
}
refused() { # what path expected-message: record -o path is refused, nothing moved
	local before had_old=0
	before=$(stat -c '%F %i' "$2")
	[ -e "$2.old" ] && had_old=1
	run 2 "$1" "$MEMPRISM" record -o "$2" -- ./exit_status exit7
	expect_eq "$1: message" "memprism: $3" "$(cat last.err)"
	same "$1" "$2" "$before"
	[ $had_old -eq 1 ] || [ ! -e "$2.old" ] || fail "$1: $2.old appeared"
}

# a device node: made here as root; otherwise /dev/null itself (a user
# cannot rename in /dev, so a regression cannot harm it)
if [ "$(id -u)" -eq 0 ]; then
	mknod null c 1 3
	dev=null
else
	dev=/dev/null
fi
refused "character device" $dev "cannot record to $dev: it is a character device, and -o writes only regular files (every recorded process appends to it, reports read it back); nothing was moved. Name a new or regular file"
[ -c $dev ] || fail "$dev is no longer a character device"
[ -c /dev/null ] || fail "/dev/null is no longer a character device"
echo "ok: /dev/null is a character device"

# "-" is no standard output here
run 2 "-o -" "$MEMPRISM" record -o - -- ./exit_status exit7
expect_eq "-o -: message" "memprism: cannot record to '-': -o writes only regular files (every recorded process appends to it, reports read it back), not standard output. Name a new or regular file" "$(cat last.err)"
[ ! -e ./- ] || fail "-o -: a file named '-' was written"

mkdir out
refused "directory" out "cannot record to out: it is a directory, and -o writes only regular files; nothing was moved. Name a file, e.g. -o out/memprism.data"
[ -z "$(ls -A out)" ] || fail "directory: something was written into out/"

mkfifo pipe
refused "FIFO" pipe "cannot record to pipe: it is a FIFO (named pipe), and -o writes only regular files (every recorded process appends to it, reports read it back); nothing was moved. Name a new or regular file"

echo "keep me" > target
ln -s target link.data
refused "symlink to a regular file" link.data "cannot record to link.data: it is a symbolic link (to target), and -o does not follow links; nothing was moved. Name the file itself, or remove the link"
expect_eq "symlink: its target's content" "keep me" "$(cat target)"
ln -s nowhere dangling.data
refused "dangling symlink" dangling.data "cannot record to dangling.data: it is a symbolic link (to nowhere), and -o does not follow links; nothing was moved. Name the file itself, or remove the link"
[ ! -e nowhere ] || fail "dangling symlink: its target was created"

# the .old slot holds a directory: the regular x.data stays where it is
echo "previous run" > x.data
mkdir x.data.old
refused "x.data.old a directory" x.data "cannot record to x.data: x.data.old, where the existing x.data would be kept, is a directory; nothing was moved. Move x.data.old away, or name another file with -o"
expect_eq "x.data.old a directory: x.data's content" "previous run" "$(cat x.data)"
[ -d x.data.old ] && [ -z "$(ls -A x.data.old)" ] || fail "x.data.old was changed"
rmdir x.data.old

# a regular file becomes .old (replacing a regular .old), the new file is a trace
echo "older run" > x.data.old
run 7 "regular file" "$MEMPRISM" record -q -o x.data -- ./exit_status exit7
expect_eq "regular file: x.data.old is the previous x.data" "previous run" "$(cat x.data.old)"
expect_eq "regular file: new x.data" "regular file" "$(stat -c %F x.data)"
expect_eq "regular file: new x.data mode" 600 "$(stat -c %a x.data)"
run 0 "report of the new x.data" "$MEMPRISM" report --format csv x.data
blk="^heap main \\(exit_status\\.c:$(grep -n '/\* @BLK \*/' "$MP_SRC/tests/rt/exit_status.c" | cut -d: -f1)\\)\$"
expect_eq "new x.data: block stores" 100 "$(csv_field last.out "$blk" stores)"
echo "ok: -o refuses what is not a regular file"

# a program memprism cc did not build, into a directory that is not there:
# the error alone (what record says of the program comes once the file is made)
run 2 "missing directory" "$MEMPRISM" record -o nodir/x.data -- /bin/true
expect_eq "missing directory: message" "memprism: cannot record to nodir/x.data: No such file or directory" "$(cat last.err)"
run 0 "a program memprism cc did not build" "$MEMPRISM" record -o plain.data -- /bin/true
grep -q "^memprism: note: /bin/true was not built with .memprism cc." last.err || fail "the note is gone: $(cat last.err)"
echo "ok: the note once the file is made"
