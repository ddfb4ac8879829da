#!/usr/bin/env bash
# The GPU check: one command on a GPU machine (CUDA 13, cmake, ninja, compute-sanitizer; no
# Debian packages), under 6 minutes on an H200. Procedure:
#   1. HERE (development machine with the packages and nvcc):  scripts/gpu-bundle.sh
#      -> build-gpu-pack/bundle.tar.xz (stripped binaries + the shared libraries they need)
#   2. THERE, in the repository root with build-gpu-pack/ carried along:  scripts/gpu-check.sh
#      (device tool: run(command="scripts/gpu-check.sh", carry=["build-gpu-pack"], timeout_s=420))
#   scripts/gpu-check.sh --build  instead configures and builds the Qt-free parts there
#      (-DRX_WITH_GUI=OFF, header-only LEMON/RapidJSON/CLI11 from the bundle's include/); this
#      needs a top-level CMakeLists that no longer requires Qt6 Core and Graphviz without the GUI.
# Steps: device info; the CUDA tests (allocator, fusion/NVRTC, every kernel vs the CPU executor,
# original vs rewritten transformer/LLaMA on the GPU) -- a skip counts as a failure here;
# compute-sanitizer memcheck on the kernel tests; cuda-profile of a generated 12-layer
# transformer and LLaMA (original and rewritten, unfused and fused); rx-cuda-bench (elementwise
# vs device-to-device copy bandwidth, goal >= 80%; bf16 8192^3 cuBLASLt GEMM, goal >= 600
# TFLOP/s). Prints one summary; exit 0 only when every step passes and both goals are met.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
START=$(date +%s)
WORK=${RX_GPU_WORK:-/tmp/rx-gpu-check}
mkdir -p "$WORK/logs"
export QT_QPA_PLATFORM=offscreen

if [ "${1:-}" = "--build" ]; then
  INC="$ROOT/build-gpu-bundle/include"
  [ -d "$INC" ] || { mkdir -p "$WORK/bundle" && tar -C "$WORK/bundle" -xJf build-gpu-pack/bundle.tar.xz && INC="$WORK/bundle/include"; }
  cmake -S . -B build-gpu-dev -G Ninja -DRX_WITH_GUI=OFF -DRX_WITH_CUDA=ON -DRX_WITH_BENCHMARKS=OFF \
        -DCMAKE_PREFIX_PATH="$INC/../cmake" -DCMAKE_CXX_FLAGS="-I$INC" || exit 1
  ninja -C build-gpu-dev recompute-cli recompute-cli-cuda rx-cuda-bench cuda_test_allocator cuda_test_fusion cuda_test_cuda_kernels \
        cuda_test_cuda_programs || exit 1
  BIN="$WORK/bin"; mkdir -p "$BIN"
  for f in $(find build-gpu-dev -type f -perm -u+x \( -name recompute-cli -o -name recompute-cli-cuda -o -name rx-cuda-bench -o -name 'cuda_test_*' \)); do
    ln -sf "$ROOT/$f" "$BIN/"
  done
else
  if [ -f build-gpu-pack/bundle.tar.xz ]; then
    rm -rf "$WORK/bundle" && mkdir -p "$WORK/bundle" && tar -C "$WORK/bundle" -xJf build-gpu-pack/bundle.tar.xz || exit 1
    B="$WORK/bundle"
  elif [ -d build-gpu-bundle/bin ]; then
    B="$ROOT/build-gpu-bundle"
  else
    echo "gpu-check: no bundle; run scripts/gpu-bundle.sh on a development machine first (or --build)" >&2
    exit 1
  fi
  BIN="$B/bin"
  export LD_LIBRARY_PATH="$B/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
fi
export PATH="/usr/local/cuda/bin:$PATH"

declare -a SUMMARY
FAILED=0
# step NAME TIMEOUT CMD...: runs CMD with a time limit, logs to $WORK/logs/NAME.log
step() {
  local name=$1 limit=$2; shift 2
  local t0=$(date +%s)
  timeout "$limit" "$@" > "$WORK/logs/$name.log" 2>&1
  local rc=$? t=$(( $(date +%s) - t0 ))
  local status=PASS
  [ $rc -eq 77 ] && status="FAIL(skipped: no device?)"
  [ $rc -ne 0 ] && [ $rc -ne 77 ] && status="FAIL(rc=$rc)"
  [ $rc -eq 124 ] && status="FAIL(timeout ${limit}s)"
  [ "$status" = PASS ] || { FAILED=1; tail -25 "$WORK/logs/$name.log" | sed "s/^/  [$name] /"; }
  SUMMARY+=("$(printf '%-28s %-26s %4ss' "$name" "$status" "$t")")
  return $rc
}

echo "== device"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>&1 | tee "$WORK/logs/device.log"

echo "== CUDA tests"
for t in cuda_test_allocator cuda_test_fusion cuda_test_cuda_kernels cuda_test_cuda_programs; do
  step "$t" 240 "$BIN/$t"
done

echo "== compute-sanitizer memcheck (kernel tests)"
if command -v compute-sanitizer > /dev/null; then
  step memcheck_kernels 240 compute-sanitizer --tool memcheck --error-exitcode 9 --leak-check no "$BIN/cuda_test_cuda_kernels"
else
  SUMMARY+=("$(printf '%-28s %-26s' memcheck_kernels 'FAIL(no compute-sanitizer)')"); FAILED=1
fi

echo "== profiles: 12-layer transformer and LLaMA, original and rewritten, unfused and fused"
"$BIN/recompute-cli" generate transformer --layers 12 --hidden 768 --heads 12 --seq 512 --batch 8 -o "$WORK/transformer12.pir" \
  > "$WORK/logs/generate.log" 2>&1
"$BIN/recompute-cli" generate llama --layers 12 --hidden 1024 --heads 16 --seq 512 --batch 4 -o "$WORK/llama12.pir" \
  >> "$WORK/logs/generate.log" 2>&1
for m in transformer12 llama12; do
  step "profile_$m" 200 "$BIN/recompute-cli" cuda-profile "$WORK/$m.pir" --warmup 1 --steps 3
  step "profile_${m}_json" 200 "$BIN/recompute-cli" cuda-profile "$WORK/$m.pir" --warmup 1 --steps 3 --json
done

echo "== bandwidth and bf16 GEMM"
step bench 180 "$BIN/rx-cuda-bench" --mib 1024 --gemm 8192 --reps 10
val() { sed -n "s/^$1=//p" "$WORK/logs/bench.log" | head -1; }
ADD=$(val add_vs_copy); SCALE=$(val scale_vs_copy); TF=$(val gemm_bf16_TFLOPs)
goal() {  # goal NAME VALUE THRESHOLD
  if [ -n "$2" ] && awk -v v="$2" -v g="$3" 'BEGIN{exit !(v >= g)}'; then echo "met ($2 >= $3)"; else FAILED=1; echo "MISSED (${2:-none} < $3)"; fi
}

echo
echo "================ GPU check summary ================"
cat "$WORK/logs/device.log"
printf '%s\n' "${SUMMARY[@]}"
for m in transformer12 llama12; do
  echo "-- $m"
  sed -n '1,12p' "$WORK/logs/profile_$m.log" 2>/dev/null
done
echo "-- bench"
grep -E '^(copy_GBps|add_f32_GBps|scale_f32_GBps|gemm_bf16_ms|gemm_bf16_TFLOPs)=' "$WORK/logs/bench.log" 2>/dev/null
echo "goal elementwise add >= 0.80 of copy: $(goal add "$ADD" 0.80)"
echo "goal elementwise scale >= 0.80 of copy: $(goal scale "$SCALE" 0.80)"
echo "goal bf16 8192^3 GEMM >= 600 TFLOP/s: $(goal gemm "$TF" 600)"
# goal() runs in a subshell above; re-evaluate for the exit status
for pair in "$ADD 0.80" "$SCALE 0.80" "$TF 600"; do
  set -- $pair
  awk -v v="${1:-0}" -v g="${2:-1}" 'BEGIN{exit !(v >= g)}' || FAILED=1
done
echo "total $(( $(date +%s) - START ))s; logs in $WORK/logs"
if [ $FAILED -eq 0 ]; then echo "GPU CHECK PASSED"; else echo "GPU CHECK FAILED"; fi
exit $FAILED
