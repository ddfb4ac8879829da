// rx-cuda-bench: the GPU check's figures. Device-to-device copy bandwidth, the elementwise
// kernels' bandwidth on large f32 tensors (add: 2 reads + 1 write; scale: 1 + 1), their ratio
// to the copy (goal >= 0.8), and a bf16 M=N=K GEMM through cuBLASLt in TFLOP/s (H200 goal
// >= 600 at 8192). Medians of --reps timed repetitions after a warm-up. Prints key=value lines.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <cublasLt.h>
#include <cuda_runtime_api.h>

#include "cuda/CudaExecutor.h"
#include "cuda/ElementwiseCodes.h"
#include "cuda/Kernels.h"

namespace {

[[noreturn]] void die(const std::string& msg) {
    std::fprintf(stderr, "rx-cuda-bench: %s\n", msg.c_str());
    std::exit(1);
}
void ck(cudaError_t e, const char* what) {
    if (e != cudaSuccess) die(std::string(what) + ": " + cudaGetErrorString(e));
}
void ckLt(cublasStatus_t s, const char* what) {
    if (s != CUBLAS_STATUS_SUCCESS) die(std::string(what) + ": " + cublasGetStatusString(s));
}

template <typename F>
double medianMs(int reps, cudaStream_t s, F&& body) {
    cudaEvent_t a, b;
    ck(cudaEventCreate(&a), "event");
    ck(cudaEventCreate(&b), "event");
    body();  // warm-up
    ck(cudaStreamSynchronize(s), "warm-up");
    std::vector<double> t;
    for (int i = 0; i < reps; ++i) {
        ck(cudaEventRecord(a, s), "record");
        body();
        ck(cudaEventRecord(b, s), "record");
        ck(cudaEventSynchronize(b), "sync");
        float ms = 0;
        ck(cudaEventElapsedTime(&ms, a, b), "elapsed");
        t.push_back(ms);
    }
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
    int64_t mib = 1024;  // per buffer
    int64_t gemm = 8192;
    int reps = 10;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        auto next = [&]() -> std::string { if (i + 1 >= argc) die("missing value after " + a); return argv[++i]; };
        if (a == "--mib") mib = std::atoll(next().c_str());
        else if (a == "--gemm") gemm = std::atoll(next().c_str());
        else if (a == "--reps") reps = std::atoi(next().c_str());
        else die("usage: rx-cuda-bench [--mib MiB-per-buffer] [--gemm N] [--reps R]");
    }
    if (mib <= 0 || gemm <= 0 || reps <= 0) die("sizes and --reps must be positive");
    std::string why;
    if (rx::cuda::cudaDeviceCount(&why) <= 0) die("no CUDA device: " + why);
    cudaDeviceProp prop{};
    ck(cudaGetDeviceProperties(&prop, 0), "properties");
    std::printf("device=%s\n", prop.name);
    cudaStream_t s;
    ck(cudaStreamCreate(&s), "stream");

    // --- bandwidth ---
    const size_t bytes = static_cast<size_t>(mib) << 20;
    const int64_t n = static_cast<int64_t>(bytes / 4);
    void *x, *y, *z;
    ck(cudaMalloc(&x, bytes), "cudaMalloc");
    ck(cudaMalloc(&y, bytes), "cudaMalloc");
    ck(cudaMalloc(&z, bytes), "cudaMalloc");
    ck(cudaMemsetAsync(x, 0, bytes, s), "memset");
    ck(cudaMemsetAsync(y, 0, bytes, s), "memset");
    double copyMs = medianMs(reps, s, [&] { ck(cudaMemcpyAsync(z, x, bytes, cudaMemcpyDeviceToDevice, s), "copy"); });
    double copyGBps = 2.0 * static_cast<double>(bytes) / (copyMs * 1e6);
    auto ew = [&](int arity, int op) {
        rx::cuda::kernels::ElementwiseLaunch l;
        l.arity = arity;
        l.op = op;
        for (int k = 0; k < arity; ++k) {
            l.in[k].data = k == 0 ? x : y;
            l.in[k].dtype = RX_DT_F32;
            l.in[k].contiguous = true;
        }
        l.out = z;
        l.outDtype = RX_DT_F32;
        l.rank = 1;
        l.dims[0] = n;
        l.numel = n;
        l.p0 = 0.5;
        return l;
    };
    auto addL = ew(2, RX_B_ADD), scaleL = ew(1, RX_U_SCALE_AFTER);
    double addMs = medianMs(reps, s, [&] { rx::cuda::kernels::elementwise(addL, s); });
    double scaleMs = medianMs(reps, s, [&] { rx::cuda::kernels::elementwise(scaleL, s); });
    ck(cudaGetLastError(), "elementwise");
    double addGBps = 3.0 * static_cast<double>(bytes) / (addMs * 1e6);
    double scaleGBps = 2.0 * static_cast<double>(bytes) / (scaleMs * 1e6);
    std::printf("copy_GBps=%.1f\nadd_f32_GBps=%.1f\nscale_f32_GBps=%.1f\nadd_vs_copy=%.3f\nscale_vs_copy=%.3f\n", copyGBps, addGBps,
                scaleGBps, addGBps / copyGBps, scaleGBps / copyGBps);
    cudaFree(x);
    cudaFree(y);
    cudaFree(z);

    // --- bf16 GEMM through cuBLASLt (row-major C = A B as column-major C^T = B^T A^T) ---
    const int64_t m = gemm, nn = gemm, kk = gemm;
    void *A, *B, *C, *work;
    const size_t workBytes = size_t(64) << 20;
    ck(cudaMalloc(&A, m * kk * 2), "cudaMalloc");
    ck(cudaMalloc(&B, kk * nn * 2), "cudaMalloc");
    ck(cudaMalloc(&C, m * nn * 2), "cudaMalloc");
    ck(cudaMalloc(&work, workBytes), "cudaMalloc");
    ck(cudaMemsetAsync(A, 0, m * kk * 2, s), "memset");
    ck(cudaMemsetAsync(B, 0, kk * nn * 2, s), "memset");
    cublasLtHandle_t lt;
    ckLt(cublasLtCreate(&lt), "cublasLtCreate");
    cublasLtMatmulDesc_t desc;
    ckLt(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F), "desc");
    cublasLtMatrixLayout_t la, lb, lc;
    ckLt(cublasLtMatrixLayoutCreate(&la, CUDA_R_16BF, nn, kk, nn), "layout");  // B^T as column-major nn x kk
    ckLt(cublasLtMatrixLayoutCreate(&lb, CUDA_R_16BF, kk, m, kk), "layout");   // A^T: kk x m
    ckLt(cublasLtMatrixLayoutCreate(&lc, CUDA_R_16BF, nn, m, nn), "layout");
    cublasLtMatmulPreference_t pref;
    ckLt(cublasLtMatmulPreferenceCreate(&pref), "pref");
    ckLt(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workBytes, sizeof(workBytes)), "pref");
    cublasLtMatmulHeuristicResult_t heur[8];
    int found = 0;
    ckLt(cublasLtMatmulAlgoGetHeuristic(lt, desc, la, lb, lc, lc, pref, 8, heur, &found), "heuristic");
    if (found == 0) die("cuBLASLt found no bf16 GEMM algorithm");
    float alpha = 1.0f, beta = 0.0f;
    double best = 1e30;
    for (int h = 0; h < found; ++h) {
        double ms = medianMs(reps, s, [&] {
            ckLt(cublasLtMatmul(lt, desc, &alpha, B, la, A, lb, &beta, C, lc, C, lc, &heur[h].algo, work, workBytes, s), "matmul");
        });
        best = std::min(best, ms);
    }
    double tflops = 2.0 * static_cast<double>(m) * nn * kk / (best * 1e9);
    std::printf("gemm_bf16_n=%lld\ngemm_bf16_ms=%.3f\ngemm_bf16_TFLOPs=%.1f\n", static_cast<long long>(gemm), best, tflops);
    cublasLtMatmulPreferenceDestroy(pref);
    cublasLtMatrixLayoutDestroy(la);
    cublasLtMatrixLayoutDestroy(lb);
    cublasLtMatrixLayoutDestroy(lc);
    cublasLtMatmulDescDestroy(desc);
    cublasLtDestroy(lt);
    cudaFree(A);
    cudaFree(B);
    cudaFree(C);
    cudaFree(work);
    return 0;
}
