#!/usr/bin/env bash
# The README's second command: the whole test suite, twice: a normal build
# and one with AddressSanitizer + UBSan (library, CLI and tests; the runtime
# preloaded into programs is never sanitized). Also a short libFuzzer run of
# the trace reader, and ThreadSanitizer on the threaded symbol loader.
# Installs what is missing first.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
jobs=$(nproc)
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMEMPRISM_WERROR=ON >/dev/null
cmake --build build -j"$jobs"
# deps.sh installed llvm-16-dev: the inline instrumentation must have been
# built, or every test would silently run the sanitizer-coverage fallback
if [ ! -f build/lib/memprism/memprism-pass.so ]; then
	echo "test.sh: llvm-16-dev is installed but the pass plugin was not built (see cmake's output)" >&2
	exit 1
fi
ctest --test-dir build --output-on-failure -j"$jobs"
# -O1, as ASan recommends: the model tests replay ~40M line references and
# an -O0 build spends minutes on them
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g" -DMEMPRISM_SANITIZE=ON -DMEMPRISM_WERROR=ON \
	-DMEMPRISM_FUZZ=ON -DCMAKE_C_COMPILER=clang-16 >/dev/null
cmake --build build-asan -j"$jobs"
ASAN_OPTIONS=detect_leaks=1 ctest --test-dir build-asan --output-on-failure -j"$jobs"
# ThreadSanitizer on the one threaded part of the analysis side: debug info
# loaded on a second thread while the replay runs (unit test test_sym)
cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMEMPRISM_TSAN=ON -DMEMPRISM_WERROR=ON \
	-DCMAKE_C_COMPILER=clang-16 >/dev/null
cmake --build build-tsan -j"$jobs" --target test_sym
TSAN_OPTIONS=halt_on_error=1 ctest --test-dir build-tsan --output-on-failure -R '^unit/test_sym$'
