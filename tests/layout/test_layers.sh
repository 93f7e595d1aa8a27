#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The tree keeps its shape: no folder under src/ includes a header its
# layer may not (tests/layers.txt, shown in CONTRIBUTING.md). Then the
# check itself, on a scratch copy of src/: an upward include planted in
# the model fails it with the file and line, and so does an exception that
# no longer occurs.
set -uo pipefail
: "${MP_SRC:?MP_SRC must name the source tree}"
: "${MP_SCRATCH:=$(mktemp -d)}"
check="$MP_SRC/tests/layout/check_layers.sh"
fail() {
	echo "FAIL: $*" >&2
	exit 1
}

bash "$check" "$MP_SRC/src" "$MP_SRC/tests/layers.txt" "$MP_SRC/CONTRIBUTING.md" ||
	fail "src/ includes across its layers (above), or CONTRIBUTING.md does not show tests/layers.txt"
echo "ok: src/ keeps to tests/layers.txt, as CONTRIBUTING.md shows it"

rm -rf "$MP_SCRATCH" && mkdir -p "$MP_SCRATCH" && cd "$MP_SCRATCH" || exit 1
cp -r "$MP_SRC/src" src && cp "$MP_SRC/tests/layers.txt" layers.txt || exit 1
line=$(grep -n '^#include "model/model_int.h"' src/model/model.c | cut -d: -f1)
[ -n "$line" ] || fail "src/model/model.c: no include of model/model_int.h to plant beside"
sed -i "${line}a #include \"analysis/analysis.h\"" src/model/model.c
if bash "$check" src layers.txt >out.txt 2>&1; then fail "an upward include from the model passed"; fi
want="src/model/model.c:$((line + 1)): model may not include \"analysis/analysis.h\" (it may include: common; layers.txt)"
grep -qxF "$want" out.txt || fail "the upward include is not reported as '$want': $(cat out.txt)"
echo "ok: an upward include fails with its file and line"

cp "$MP_SRC/src/model/model.c" src/model/model.c
echo "except model/model.c: analysis/analysis.h" >>layers.txt
if bash "$check" src layers.txt >out.txt 2>&1; then fail "a stale exception passed"; fi
grep -qF 'the exception "model/model.c: analysis/analysis.h" no longer occurs: remove it' out.txt ||
	fail "the stale exception is not reported: $(cat out.txt)"
echo "ok: an exception that no longer occurs fails"
