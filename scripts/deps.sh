#!/usr/bin/env bash
# Installs what memprism needs to build and test on Debian 12, if missing.
# Needs root (or sudo). Safe to run again.
set -euo pipefail
pkgs=(build-essential cmake pkg-config clang-16 libclang-rt-16-dev
      libdw-dev libelf-dev libzstd-dev zlib1g-dev libpfm4-dev libnuma-dev
      libsqlite3-dev sqlite3 chromium jq llvm-16-dev
      gcc-12-plugin-dev # memprism gcc: the GCC plugin's headers (inline instrumentation)
      man-db # the man pages' test (man, groff, col)
      valgrind # record --source valgrind: headers and static core libraries to build the tool
      openmpi-bin libopenmpi-dev) # tests/cli/test_mpi.sh: mpirun and mpicc
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
	exit 0
fi
echo "memprism: installing ${missing[*]}" >&2
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
