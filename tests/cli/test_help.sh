# Every command's --help comes from its option table: for each command of
# `memprism --help` (main.c's table), the long options getopt takes
# (`memprism --list-opts CMD`) are exactly those its help shows, each one
# and each short option shown is taken, and an unknown option, a missing
# argument, an argument to a flag and an ambiguous prefix each exit 2 with
# one clear line. cc, c++, gcc and g++ take the compiler's options (no
# table of their own): help only.
source "$(dirname "$0")/lib.sh"
run 0 "memprism --help" "$MEMPRISM" --help
cmds=$(awk '/^commands:$/ { on = 1; next } on && /^$/ { exit } on { print $1 }' last.out)
[ "$(echo "$cmds" | wc -l)" -ge 14 ] || fail "memprism --help lists too few commands: $cmds"
for cmd in $cmds; do
	run 0 "$cmd --help" "$MEMPRISM" "$cmd" --help
	expect_eq "$cmd --help: first line" "usage: memprism $cmd" "$(head -1 last.out | cut -d' ' -f1-3)"
	[ ! -s last.err ] || fail "$cmd --help wrote to stderr: $(cat last.err)"
	cp last.out help.txt
	run 0 "--list-opts $cmd" "$MEMPRISM" --list-opts "$cmd"
	cp last.out list.txt
	case $cmd in
	cc | c++ | gcc | g++)
		[ ! -s list.txt ] || fail "$cmd has options of its own: $(cat list.txt)"
		grep -q '^environment (docs/environment.md):$' help.txt || fail "$cmd --help does not name its environment"
		continue
		;;
	esac
	[ -s list.txt ] || fail "$cmd has no options (not even --help)"
	# the options the help shows: "  -b, --by VIEW" and "      --html FILE" rows
	sed -nE 's/^  (-[[:alnum:]], |    )--([a-z0-9-]+).*/--\2/p' help.txt | sort -u >shown.txt
	sed 's/=$//' list.txt | sort -u >taken.txt
	diff taken.txt shown.txt >d.txt || fail "$cmd: taken (<) and shown (>) differ: $(cat d.txt)"
	echo "ok: $cmd: its $(wc -l <taken.txt) long options are the ones its help shows"
	# each is taken: whatever it then says, not that the option is wrong
	while read -r opt; do
		case $opt in --help) continue ;; *=) opt="${opt}x" ;; esac
		"$MEMPRISM" "$cmd" "$opt" /nonexistent.data >/dev/null 2>err.txt || true
		if grep -qE "unknown option '|is ambiguous: |takes no argument \\(got |wants an argument" err.txt; then
			fail "$cmd $opt is not taken: $(cat err.txt)"
		fi
	done <list.txt
	sed -nE 's/^  -([[:alnum:]]), --[a-z0-9-]+( ([^ ]+))?.*/\1 \3/p' help.txt | while read -r s arg; do
		[ "$s" = h ] && continue
		if [ -n "$arg" ]; then set -- "-$s" x; else set -- "-$s"; fi
		"$MEMPRISM" "$cmd" "$@" /nonexistent.data >/dev/null 2>err.txt || true
		if grep -qE "unknown option '|wants an argument" err.txt; then fail "$cmd -$s is not taken: $(cat err.txt)"; fi
	done
	echo "ok: $cmd: every option shown is taken"
	run 2 "$cmd --no-such-option" "$MEMPRISM" "$cmd" --no-such-option
	expect_eq "$cmd --no-such-option: message" \
		"memprism: $cmd: unknown option '--no-such-option' (\`memprism $cmd --help\` lists the options)" "$(cat last.err)"
	run 2 "$cmd -Z" "$MEMPRISM" "$cmd" -Z
	expect_eq "$cmd -Z: message" "memprism: $cmd: unknown option '-Z' (\`memprism $cmd --help\` lists the options)" \
		"$(cat last.err)"
	[ ! -s last.out ] || fail "$cmd -Z wrote to stdout"
done

# the other ways an option can be wrong
run 2 "report --by (no argument)" "$MEMPRISM" report --by
expect_eq "report --by: message" "memprism: report: --by wants an argument: VIEW" "$(cat last.err)"
run 2 "report -b (no argument)" "$MEMPRISM" report -b
expect_eq "report -b: message" "memprism: report: -b (--by) wants an argument: VIEW" "$(cat last.err)"
run 2 "dump --accesses=yes" "$MEMPRISM" dump --accesses=yes
expect_eq "dump --accesses=yes: message" "memprism: dump: --accesses takes no argument (got '--accesses=yes')" \
	"$(cat last.err)"
run 2 "report --sample 4" "$MEMPRISM" report --sample 4
expect_eq "report --sample: message" \
	"memprism: report: '--sample' is ambiguous: it starts --sample-sets, --sample-bursts" "$(cat last.err)"
run 2 "memprism --list-opts nosuch" "$MEMPRISM" --list-opts nosuch
# a unique prefix is the option (getopt_long's rule, kept)
run 2 "report --form xml" "$MEMPRISM" report --form xml
expect_eq "report --form xml: message" "memprism: report: --format wants text, csv or json (got 'xml')" \
	"$(cat last.err)"
# record's options end at the program: its own -Z is not record's
run 127 "record -- ./nosuch -Z" "$MEMPRISM" record -q ./nosuch -Z
said "record ./nosuch -Z" "cannot run './nosuch'"
# numeric variables record passes on: junk is said, not taken as 0
MEMPRISM_ZSTD_LEVEL=fast run 2 "MEMPRISM_ZSTD_LEVEL=fast" "$MEMPRISM" record -q -o z.data -- true
expect_eq "MEMPRISM_ZSTD_LEVEL=fast: message" \
	"memprism: MEMPRISM_ZSTD_LEVEL wants a number from 1 to 19, not 'fast' (unset it for the default)" \
	"$(cat last.err)"
MEMPRISM_ZSTD_LEVEL=22 run 2 "MEMPRISM_ZSTD_LEVEL=22" "$MEMPRISM" record -q -o z.data -- true
MEMPRISM_VG_RING=24x run 2 "MEMPRISM_VG_RING=24x" "$MEMPRISM" record -q --source valgrind -o z.data -- true
said "MEMPRISM_VG_RING=24x" "MEMPRISM_VG_RING wants a number from 0 to 256, not '24x'"
# (read by the valgrind source only)
MEMPRISM_VG_RING=24x run 0 "MEMPRISM_VG_RING=24x, inst" "$MEMPRISM" record -q -o z.data -- true
