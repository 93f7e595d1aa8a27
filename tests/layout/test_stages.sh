#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The analysis calls one way and files and functions keep their sizes
# (tests/layout/stages.txt, shown in CONTRIBUTING.md), checked on the built
# libmp_analysis.a and on src/. Then the check itself, on scratch copies:
# a call planted in the first stage to the entry point fails it, naming
# both; so do a new function over the limit, an allowed one past its
# allowance, and an allowance no longer needed.
set -uo pipefail
: "${MP_SRC:?MP_SRC must name the source tree}"
: "${MP_ANALYSIS_LIB:?MP_ANALYSIS_LIB must name the built libmp_analysis.a}"
: "${MP_CC:=cc}"
: "${MP_SCRATCH:=$(mktemp -d)}"
check="$MP_SRC/tests/layout/check_stages.sh"
table="$MP_SRC/tests/layout/stages.txt"
fail() {
	echo "FAIL: $*" >&2
	exit 1
}

bash "$check" "$MP_ANALYSIS_LIB" "$MP_SRC/src" "$table" ||
	fail "the analysis calls a later stage, or a file or function passes its size (above)"
echo "ok: the analysis's stages call one way; files and functions within their sizes"

# CONTRIBUTING.md lists the stages in the table's order
want=$(awk '$1 == "stage" { print $2 }' "$table")
shown=$(awk '/^<!-- tests\/layout\/stages.txt -->$/ { on = 1; next } on && /^[0-9]+\. `an_/ { sub(/^[0-9]+\. `/, ""); sub(/[.`].*/, ""); print } on && /^$/ && n++ > 0 { exit }' "$MP_SRC/CONTRIBUTING.md")
[ "$shown" = "$want" ] || fail "CONTRIBUTING.md does not list the stages of $table in its order: $(diff <(echo "$shown") <(echo "$want"))"
echo "ok: CONTRIBUTING.md lists the stages in the table's order"

rm -rf "$MP_SCRATCH" && mkdir -p "$MP_SCRATCH" && cd "$MP_SCRATCH" || exit 1
first=$(awk '$1 == "stage" { print $2; exit }' "$table")
# the first stage's object replaced by one that calls the entry point
cp "$MP_ANALYSIS_LIB" planted.a || exit 1
printf 'int an_run(const char *, const void *, void **);\nint %s_planted(void) { return an_run("x", 0, 0); }\n' "$first" >"$first.c"
"$MP_CC" -c "$first.c" -o "$first.c.o" && ar r planted.a "$first.c.o" 2>/dev/null || fail "cannot build the planted object"
if bash "$check" planted.a "$MP_SRC/src" "$table" >out.txt 2>&1; then fail "an upward call from $first.c passed"; fi
grep -qF "$first.c calls an_run of an_run.c, a later stage" out.txt ||
	fail "the upward call is not reported: $(cat out.txt)"
echo "ok: a call from $first.c up to an_run fails, naming both"

cp -r "$MP_SRC/src" src || exit 1
{
	echo "int planted_long(int x)"
	echo "{"
	for i in $(seq 148); do echo "	x += $i;"; done
	echo "}"
} >>"src/analysis/$first.c"
if bash "$check" "$MP_ANALYSIS_LIB" src "$table" >out.txt 2>&1; then fail "a function of 151 lines passed"; fi
grep -qF "function analysis/$first.c:planted_long: 151 lines, over the limit of 150" out.txt ||
	fail "the long function is not reported: $(cat out.txt)"
echo "ok: a new function of 151 lines fails"

read -r item n < <(awk '$1 == "allow" && $2 == "function" { print $3, $4; exit }' "$table")
sed "s#^allow function $item $n\$#allow function $item $((n - 1))#" "$table" >less.txt
if bash "$check" "$MP_ANALYSIS_LIB" "$MP_SRC/src" less.txt >out.txt 2>&1; then fail "$item past its allowance passed"; fi
grep -qF "function $item: $n lines, more than the $((n - 1)) it is allowed" out.txt ||
	fail "the grown function is not reported: $(cat out.txt)"
echo "ok: an allowed function past its allowance fails"

cp "$table" stale.txt && echo "allow function analysis/$first.c:nosuch 300" >>stale.txt
if bash "$check" "$MP_ANALYSIS_LIB" "$MP_SRC/src" stale.txt >out.txt 2>&1; then fail "a stale allowance passed"; fi
grep -qF "\"allow function analysis/$first.c:nosuch\" is no longer needed" out.txt ||
	fail "the stale allowance is not reported: $(cat out.txt)"
echo "ok: an allowance no longer needed fails"
