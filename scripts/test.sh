#!/usr/bin/env bash
# Installs what is missing, builds, and runs the whole test suite (GPU tests skip without a GPU).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
export QT_QPA_PLATFORM=offscreen
ctest --test-dir build --output-on-failure -j "${JOBS:-$(nproc)}" --timeout 600
