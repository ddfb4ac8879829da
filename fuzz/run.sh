#!/bin/sh
# Builds the libFuzzer target with clang++ (ASan + UBSan) and runs it for N seconds (default
# 180) seeded with the corpus. Everything it writes stays in the build dir (build-fuzz/).
set -e
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
out=${FUZZ_BUILD:-$root/build-fuzz}
seconds=${1:-180}
mkdir -p "$out" "$out/corpus" "$out/findings"
cp "$root"/../shared/corpus/*/*.pir "$out/corpus/" 2>/dev/null || true
# The whole of model/ (Qt-free): the reader needs the file module and JSON support too.
clang++ -std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -I"$root" "$here/fuzz_pir_reader.cpp" "$root"/model/*.cpp -o "$out/fuzz_pir_reader"
cd "$out/findings"
"$out/fuzz_pir_reader" -max_total_time="$seconds" -max_len=4096 -timeout=5 -rss_limit_mb=2048 "$out/corpus"
