#!/usr/bin/env bash
# The README's first command: install what is missing, build memprism, then
# profile the bundled arrays example (the ORMBP paper's Table II micro-benchmark) and
# show its report, measured and then modelled. Usage: scripts/demo.sh [MiB per array, default 256]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)" >/dev/null
mkdir -p build/demo
cd build/demo
../bin/memprism cc -O2 -g ../../examples/arrays.c -o arrays
../bin/memprism record -- ./arrays "${1:-256}"
../bin/memprism report --roi kernel
echo
# The same trace through the model of the paper's machine: DRAM requests per
# array (the ORMBP paper's Table II)
../bin/memprism report --roi kernel --model nehalem-e5504
