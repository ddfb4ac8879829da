#!/bin/sh
# Builds the libFuzzer targets (fuzz/CMakeLists.txt: clang++, ASan + UBSan, UB fatal) and runs
# one of them for SECONDS (default 180), seeded from fuzz/seeds/ and the shared corpus.
#   fuzz/run.sh --build-only            build every target
#   fuzz/run.sh TARGET [SECONDS]        e.g. fuzz/run.sh fuzz_spec_reader 30
# Exits 77 (a skip for ctest) when clang++ or its libFuzzer runtime is absent; the fuzzer's
# own status otherwise (non-zero: a finding, written to $FUZZ_BUILD/findings/TARGET/).
# Everything it writes stays in $FUZZ_BUILD (default build-fuzz/).
set -e
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
out=${FUZZ_BUILD:-$root/build-fuzz}
shared=${RX_SHARED_DIR:-$root/../shared}
cxx=${FUZZ_CXX:-$(command -v clang++ || command -v clang++-14 || true)}
if [ -z "$cxx" ]; then
  echo "fuzz: no clang++ (apt-get install clang libclang-rt-14-dev): skipped"
  exit 77
fi
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
printf 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }\n' > "$probe/p.cpp"
if ! "$cxx" -fsanitize=fuzzer,address,undefined "$probe/p.cpp" -o "$probe/p" 2> "$probe/err"; then
  echo "fuzz: $cxx cannot link libFuzzer with ASan/UBSan (libclang-rt-14-dev?): skipped"
  cat "$probe/err"
  exit 77
fi
mkdir -p "$out"
if [ ! -f "$out/build.ninja" ]; then
  cmake -S "$here" -B "$out" -G Ninja -DCMAKE_CXX_COMPILER="$cxx" > "$out/configure.log" || {
    cat "$out/configure.log"; exit 1; }
fi
cmake --build "$out" -j"${FUZZ_JOBS:-2}"
[ "$1" = "--build-only" ] && exit 0
target=$1
seconds=${2:-180}
[ -x "$out/$target" ] || { echo "fuzz: no target '$target'"; exit 2; }
corpus="$out/corpus/$target"
findings="$out/findings/$target"
mkdir -p "$corpus" "$findings"
case $target in
  fuzz_pir_reader) cp "$shared"/corpus/*/*.pir "$corpus/" 2>/dev/null || true; maxlen=4096 ;;
  fuzz_pir_json_reader) cp "$here"/seeds/pir_json/* "$corpus/"; maxlen=16384 ;;
  fuzz_spec_reader) cp "$here"/seeds/spec/* "$shared"/corpus/*/*.spec.json "$corpus/" 2>/dev/null || true; maxlen=4096 ;;
  fuzz_config_reader) cp "$here"/seeds/config/* "$corpus/"; maxlen=4096 ;;
  fuzz_profile_reader) cp "$here"/seeds/profile/* "$corpus/"; maxlen=4096 ;;
esac
export UBSAN_OPTIONS="suppressions=$here/ubsan.supp:print_stacktrace=1:halt_on_error=1"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
cd "$findings"
exec "$out/$target" -max_total_time="$seconds" -max_len="$maxlen" -timeout=10 -rss_limit_mb=2048 \
  -print_final_stats=1 -artifact_prefix="$findings/" "$corpus"
