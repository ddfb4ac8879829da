#!/usr/bin/env bash
# Installs what is missing (Debian packages), then configures and builds into build/.
# Usage: scripts/setup.sh [extra cmake args...]
set -euo pipefail
cd "$(dirname "$0")/.."
PACKAGES=(cmake ninja-build g++ pkg-config qt6-base-dev qt6-base-dev-tools qt6-svg-dev qt6-charts-dev
          libqt6opengl6-dev libgraphviz-dev liblemon-dev libbenchmark-dev xvfb xauth python3 python3-networkx
          rapidjson-dev libcli11-dev libboost-dev libopenblas-dev libglpk-dev coinor-libcbc-dev ccache imagemagick
          clang libclang-rt-14-dev)  # clang + libFuzzer: the fuzz targets (fuzz/run.sh)
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q "${missing[@]}"
fi
JOBS=${JOBS:-$(nproc)}
cmake -S . -B build -G Ninja "$@"
cmake --build build -j "$JOBS"
