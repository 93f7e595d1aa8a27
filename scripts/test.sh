#!/usr/bin/env bash
# The README's second command: the whole test suite, twice: a normal build
# and one with AddressSanitizer + UBSan (library, CLI and tests; the runtime
# preloaded into programs is never sanitized). Also short libFuzzer runs of
# the trace reader and the SPE decoder (a build of their own), and
# ThreadSanitizer on the threaded symbol loader.
# Installs what is missing first.
# Every stage runs even when an earlier one failed, so one failure does not
# hide another; a stage whose build failed skips its ctest. The failed
# stages are listed at the end, and the exit status is 1 if any failed.
set -uo pipefail
cd "$(dirname "$0")/.." || exit
jobs=$(nproc)
failed=()

stage() { # name command...: runs one stage, notes its failure
	local name=$1 t0=$SECONDS rc=0
	shift
	echo "== test.sh: $name" >&2
	"$@" || rc=$?
	echo "== test.sh: $name: $([ $rc = 0 ] && echo passed || echo "FAILED ($rc)") in $((SECONDS - t0)) s" >&2
	[ $rc = 0 ] || failed+=("$name")
	return $rc
}

skipped() { # name: a stage that cannot run, because its build failed
	echo "== test.sh: $1: not run (its build failed)" >&2
	failed+=("$1 (not run)")
}

build_plain() {
	cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMEMPRISM_WERROR=ON >/dev/null &&
		cmake --build build -j"$jobs" || return
	# deps.sh installed llvm-16-dev: the inline instrumentation must have
	# been built, or every test would silently run the sanitizer-coverage
	# fallback
	if [ ! -f build/lib/memprism/memprism-pass.so ]; then
		echo "test.sh: llvm-16-dev is installed but the pass plugin was not built (see cmake's output)" >&2
		return 1
	fi
}

# -O1, as ASan recommends: the model tests replay ~40M line references and
# an -O0 build spends minutes on them
build_asan() {
	cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g" \
		-DMEMPRISM_SANITIZE=ON -DMEMPRISM_WERROR=ON -DMEMPRISM_FUZZ=OFF -DCMAKE_C_COMPILER=clang-16 >/dev/null &&
		cmake --build build-asan -j"$jobs"
}

# libFuzzer's targets in a build of their own, with the libraries they
# drive: its coverage instrumentation (a call at every compare) made the
# ASan build's replay and model 2.5 times slower
build_fuzz() {
	cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g" \
		-DMEMPRISM_SANITIZE=ON -DMEMPRISM_WERROR=ON -DMEMPRISM_FUZZ=ON -DCMAKE_C_COMPILER=clang-16 >/dev/null &&
		cmake --build build-fuzz -j"$jobs" --target fuzz_trace_reader fuzz_spe
}

# ThreadSanitizer on the threaded parts of the analysis side: debug info
# loaded on a second thread while the replay runs (unit test test_sym), the
# model on several threads (test_model_par) and the page-walk checks on
# threads of their own (test_checks)
build_tsan() {
	cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMEMPRISM_TSAN=ON -DMEMPRISM_WERROR=ON \
		-DCMAKE_C_COMPILER=clang-16 >/dev/null &&
		cmake --build build-tsan -j"$jobs" --target test_sym test_model_par test_vg_ring test_checks
}

# (a failed install may still leave what the builds need: they say if not)
stage "deps" bash scripts/deps.sh

if stage "plain build" build_plain; then
	stage "plain ctest" ctest --test-dir build --output-on-failure -j"$jobs"
else
	skipped "plain ctest"
fi

if stage "ASan build" build_asan; then
	stage "ASan ctest" env ASAN_OPTIONS=detect_leaks=1 ctest --test-dir build-asan --output-on-failure -j"$jobs"
else
	skipped "ASan ctest"
fi

if stage "fuzz build" build_fuzz; then
	stage "libFuzzer" env ASAN_OPTIONS=detect_leaks=1 ctest --test-dir build-fuzz --output-on-failure -j"$jobs" -R '^fuzz/libfuzzer'
else
	skipped "libFuzzer"
fi

if stage "TSan build" build_tsan; then
	stage "TSan ctest" env TSAN_OPTIONS=halt_on_error=1 ctest --test-dir build-tsan --output-on-failure -R '^unit/test_(sym|model_par|vg_ring|checks)$'
else
	skipped "TSan ctest"
fi

if [ ${#failed[@]} -gt 0 ]; then
	echo "test.sh: FAILED: $(printf '%s, ' "${failed[@]}" | sed 's/, $//')" >&2
	exit 1
fi
echo "test.sh: all stages passed" >&2
