#!/usr/bin/env bash
# Installs what is missing, builds, and opens the explorer on a bundled example program.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
exec build/app/recompute-explorer "${@:-resources/examples/transformer_layer.prim.pir}"
