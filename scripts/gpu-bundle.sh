#!/usr/bin/env bash
# Prepares what scripts/gpu-check.sh needs on a GPU machine that has CUDA 13, cmake and ninja
# but none of Debian's packages (no Qt, Graphviz, LEMON, RapidJSON, CLI11, OpenBLAS).
# Run HERE, on a development machine with the packages and nvcc:
#
#   scripts/gpu-bundle.sh [BUILD_DIR]        # default build-gpu (GUI off, CUDA on)
#
# It builds the CLI, the CUDA tests and rx-cuda-bench with CUDA (-DRX_WITH_GUI=OFF), fills a
# staging folder build-gpu-bundle/ and packs it as build-gpu-pack/bundle.tar.xz (both ignored by
# git, /build*/; ICU's data alone is 30 MiB, so only the packed form fits the carry limit):
#   bin/      stripped recompute-cli, rx-cuda-bench, cuda_test_* executables
#   lib/      every shared library they load (ldd) except glibc's own and CUDA's
#             (the GPU machine's CUDA 13 provides cudart, cuBLAS(Lt), NVRTC)
#   include/  LEMON, RapidJSON and CLI11 headers (header-only), for building there once the
#             top level no longer requires Qt6/Graphviz without the GUI (gpu-check.sh --build)
# Then carry the pack to the GPU machine with the working tree and run scripts/gpu-check.sh
# (it unpacks the bundle), e.g. through the device tool:
#   run(command="scripts/gpu-check.sh", carry=["build-gpu-pack"], timeout_s=420)
# The pack must stay under 64 MiB (the device tool's carry limit); this script checks it.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build-gpu}
OUT=build-gpu-bundle
TARGETS="recompute-cli recompute-cli-cuda rx-cuda-bench cuda_test_allocator cuda_test_fusion cuda_test_cuda_kernels cuda_test_cuda_programs"

if [ ! -f "$BUILD/build.ninja" ]; then
  cmake -S . -B "$BUILD" -G Ninja -DRX_WITH_GUI=OFF -DRX_WITH_CUDA=ON -DRX_WITH_BENCHMARKS=OFF
fi
ninja -C "$BUILD" $TARGETS

rm -rf "$OUT"
mkdir -p "$OUT/bin" "$OUT/lib" "$OUT/include"
for t in $TARGETS; do
  f=$(find "$BUILD" -type f -name "$t" -perm -u+x | head -1)
  [ -n "$f" ] || { echo "gpu-bundle: $t was not built in $BUILD" >&2; exit 1; }
  strip --strip-debug -o "$OUT/bin/$t" "$f"
done
# Shared libraries, minus the C library family and CUDA (provided on the GPU machine). OpenBLAS
# is opened at run time (exec/Blas.cpp), so ldd does not list it: it is added here.
blas=$(ldconfig -p | awk '/libopenblas\.so\.0 /{print $NF; exit}')
{ for f in "$OUT"/bin/*; do ldd "$f"; done; [ -n "$blas" ] && ldd "$blas" && echo "x => $blas (0)"; } |
  awk '/=> \//{print $3}' | sort -u | while read -r lib; do
  case "$(basename "$lib")" in
    libc.so.*|libm.so.*|libdl.so.*|librt.so.*|libpthread.so.*|ld-linux*|libcuda.so*|libcudart.so*|libcublas*|libnvrtc*|libcudnn*|libnvToolsExt*) ;;
    *) cp -L "$lib" "$OUT/lib/" ;;
  esac
done
for dir in /usr/include/lemon /usr/include/rapidjson /usr/include/CLI; do
  [ -d "$dir" ] && cp -r "$dir" "$OUT/include/"
done
[ -d /usr/lib/x86_64-linux-gnu/cmake/lemon ] && mkdir -p "$OUT/cmake" && cp -r /usr/lib/x86_64-linux-gnu/cmake/lemon "$OUT/cmake/" || true
mkdir -p build-gpu-pack
tar -C "$OUT" -cf - . | xz -T2 -6 > build-gpu-pack/bundle.tar.xz
size=$(du -m build-gpu-pack/bundle.tar.xz | cut -f1)
echo "gpu-bundle: $OUT is $(du -sm "$OUT" | cut -f1) MiB ($(ls "$OUT/lib" | wc -l) libraries), packed ${size} MiB in build-gpu-pack/bundle.tar.xz"
if [ "$size" -ge 60 ]; then echo "gpu-bundle: the pack is over the 64 MiB carry limit" >&2; exit 1; fi
