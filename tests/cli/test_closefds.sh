# A program that closes every descriptor and opens its own files, which
# take the numbers the runtime's data file had (tests/rt/closefds.c): the
# runtime opens the data file again, its chunks never go into the
# program's files, and nothing it recorded is lost.
source "$(dirname "$0")/lib.sh"
build_rt closefds
gcc -O2 -g "$MP_SRC/tests/rt/closefds.c" -o closefds-gcc # (Valgrind: a plain build)
src="$MP_SRC/tests/rt/closefds.c"
la=$(grep -n '/\* @A \*/' "$src" | cut -d: -f1) lb=$(grep -n '/\* @B \*/' "$src" | cut -d: -f1)

for source in inst valgrind; do
	prog=./closefds
	if [ $source = valgrind ]; then
		if ! "$MEMPRISM" doctor 2>/dev/null | grep -q '^  valgrind works:'; then
			echo "skip: --source valgrind (it does not work here)"
			continue
		fi
		prog=./closefds-gcc
	fi
	rm -f prog.txt
	run 0 "record ($source)" "$MEMPRISM" record -q --source $source -o cf.data -- $prog prog.txt
	expect_eq "$source: the program's file" "done" "$(cat prog.txt)"
	expect_eq "$source: the program's file's size" 5 "$(stat -c %s prog.txt)"
	run 0 "report ($source)" "$MEMPRISM" report --format csv cf.data
	expect_eq "$source: warnings" "" "$(cat last.err)"
	expect_eq "$source: A stores" 1000 "$(csv_field last.out "^heap main \\(closefds\\.c:$la\\)\$" stores)"
	expect_eq "$source: B stores" 640000 "$(csv_field last.out "^heap main \\(closefds\\.c:$lb\\)\$" stores)"
done
