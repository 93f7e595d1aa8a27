# The man pages the build wrote (share/man/man1 in the build tree, what
# `cmake --install` and the package install) say what --help says: for
# every command, the same options with the same short letters and
# argument names, the same examples, each example's options taken by the
# command; the page is the one `memprism --man CMD` writes now (not a
# stale copy), groff renders it without a warning, and memprism(1) names
# every command. The report's page explains every column its text view
# prints, plain and with --model.
source "$(dirname "$0")/lib.sh"
: "${MP_BUILD:?MP_BUILD must name the build tree}"
MAN=$MP_BUILD/share/man/man1
command -v groff >/dev/null || {
	echo "SKIP: no groff"
	exit 77
}

# roff's escapes undone, as far as the generator makes them
unroff() { sed -e 's/\\f[BIR]//g; s/\\f(CW//g; s/\\-/-/g; s/\\(aq/'"'"'/g; s/\\(ga/`/g; s/\\e/\\/g; s/^\\&//'; }

run 0 "--list-commands" "$MEMPRISM" --list-commands
cp last.out cmds.txt
run 0 "--help" "$MEMPRISM" --help
awk '/^commands:$/ { on = 1; next } on && /^$/ { exit } on { print $1 }' last.out >help-cmds.txt
diff cmds.txt help-cmds.txt >d.txt || fail "--list-commands and --help's commands differ: $(cat d.txt)"
[ -f "$MAN/memprism.1" ] || fail "no memprism.1 in $MAN"
npages=0
for cmd in "" $(cat cmds.txt); do
	page=$MAN/memprism${cmd:+-$cmd}.1
	[ -f "$page" ] || fail "no man page $page"
	# ($cmd unquoted: the overview page has no command)
	# shellcheck disable=SC2086
	"$MEMPRISM" --man $cmd >now.1
	cmp -s now.1 "$page" || fail "$page is not what \`memprism --man $cmd\` writes now"
	groff -man -ww -Tutf8 -z "$page" 2>warn.txt
	[ ! -s warn.txt ] || fail "$page: groff warns: $(head -3 warn.txt)"
	MANWIDTH=250 man -l "$page" 2>/dev/null | col -bx >page.txt
	npages=$((npages + 1))
	if [ -z "$cmd" ]; then
		while read -r c; do
			grep -qF "memprism-$c(1)" page.txt || fail "memprism(1) does not name memprism-$c(1)"
		done <cmds.txt
		continue
	fi
	summary=$("$MEMPRISM" --help | awk -v c="$cmd" '$1 == c { $1 = ""; sub(/^ +/, ""); print }')
	grep -qF "memprism-$cmd - $summary" page.txt || fail "$cmd: the page's NAME is not '$summary'"
	"$MEMPRISM" "$cmd" --help >help.txt
	# options as "-b --by VIEW" (short letter or "-", long name, argument):
	# the help's rows and the roff's .TP tags
	sed -nE 's/^  (-([[:alnum:]]), |    )--([a-z0-9-]+)( ([^ ]+))?.*/\2 --\3 \5/p' help.txt |
		sed 's/^ /- /; s/ $//' | sort -u >help-opts.txt
	awk 'prev == ".TP" { print } { prev = $0 }' "$page" | unroff |
		sed -nE 's/^(-([[:alnum:]]), )?--([a-z0-9-]+)( ([^ ]+))?$/\2 --\3 \5/p' |
		sed 's/^ /- /; s/ $//' | sort -u >man-opts.txt
	diff help-opts.txt man-opts.txt >d.txt || fail "$cmd: --help (<) and the man page (>) differ: $(cat d.txt)"
	# and both are what getopt takes
	"$MEMPRISM" --list-opts "$cmd" | sed 's/=$//' | sort -u >taken.txt
	awk '{ print $2 }' man-opts.txt | sort -u >man-long.txt
	case $cmd in
	cc | c++ | gcc | g++) [ ! -s taken.txt ] || fail "$cmd takes options of its own" ;;
	*) diff taken.txt man-long.txt >d.txt || fail "$cmd: taken (<) and in the man page (>) differ: $(cat d.txt)" ;;
	esac
	# the examples: the help's, in the page's EXAMPLES, each one's options taken
	awk '/^examples:$/ { on = 1; next } on && /^  [^ ]/ { sub(/^  /, ""); print }' help.txt >help-ex.txt
	awk 'prev == ".nf" { print } { prev = $0 }' "$page" | unroff >man-ex.txt
	[ -s help-ex.txt ] || fail "$cmd --help shows no examples"
	diff help-ex.txt man-ex.txt >d.txt || fail "$cmd: examples in --help (<) and the man page (>) differ: $(cat d.txt)"
	while read -r line; do
		for tok in $line; do
			case $tok in
			--) ;;
			--*) grep -qx -- "${tok%%=*}" taken.txt || fail "$cmd: example '$line': ${tok%%=*} is not taken" ;;
			esac
		done
	done <help-ex.txt
	echo "ok: $cmd: $(wc -l <man-opts.txt) options and $(wc -l <man-ex.txt) examples, as --help has them"
done
expect_eq "man pages" "$(($(wc -l <cmds.txt) + 1))" "$npages"

# the report's COLUMNS: each heading its text view prints, plain and
# modelled (a golden trace: no program to build)
# (awk reads to the end: leaving early would end col with SIGPIPE, whose
# status pipefail takes for the pipeline's when col has more to write)
MANWIDTH=100 man -l "$MAN/memprism-report.1" 2>/dev/null | col -bx |
	awk '/^COLUMNS/ { on = 1; next } on && /^[A-Z]/ { on = 0 } on' >columns.txt
# the terms explained: an entry is "  TERM, TERM  what it is"
sed -nE 's/^ +([^ ].*[^ ]|[^ ])  +[^ ].*/\1/p' columns.txt | sed 's/, /\n/g' | sort -u >terms.txt
data=$MP_SRC/tests/golden/v1-fork-thread.data
for model in "" "--model nehalem-e5504"; do
	# shellcheck disable=SC2086
	"$MEMPRISM" report -q $model "$data" >rep.txt
	header=$(grep -m1 -E '^ +accesses +share' rep.txt)
	[ -n "$header" ] || fail "report ${model:-(plain)}: no table header"
	# the header's words ("DRAM reads" and "page walks" are one each)
	for col in $(echo "$header" | sed 's/DRAM reads/DRAM_reads/; s/DRAM writes/DRAM_writes/; s/page walks/page_walks/'); do
		grep -qxF -- "${col//_/ }" terms.txt || fail "memprism-report(1) COLUMNS does not explain '${col//_/ }'"
	done
	echo "ok: report ${model:-(plain)}: every column of its text view is explained in COLUMNS"
done
