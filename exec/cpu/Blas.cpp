// OpenBLAS dgemm and sgemm behind one function, loaded on the first GEMM; the thread count is set once.
#include "exec/cpu/Blas.h"

#include <cblas.h>
#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <thread>

#include "model/Diagnostic.h"

namespace rx::exec::cpu {

namespace {

// OpenBLAS is opened when the executor first multiplies, not when the process starts: linked
// in, its start-up (CPU probing, buffers, a worker thread that spins on sched_yield) cost every
// CLI run ~9 ms and a core's worth of yields, though only the executor uses it.
struct OpenBlas {
    decltype(&cblas_dgemm) dgemm = nullptr;
    decltype(&cblas_sgemm) sgemm = nullptr;
    decltype(&openblas_set_num_threads) setNumThreads = nullptr;
};

const OpenBlas& openBlas() {
    static const OpenBlas lib = [] {
        void* handle = ::dlopen(RX_OPENBLAS_LIBRARY, RTLD_NOW | RTLD_LOCAL);
        if (!handle)
            throw Error(std::string("the CPU executor needs OpenBLAS (") + RX_OPENBLAS_LIBRARY +
                        ") and cannot load it: " + ::dlerror());
        OpenBlas l;
        l.dgemm = reinterpret_cast<decltype(&cblas_dgemm)>(::dlsym(handle, "cblas_dgemm"));
        l.sgemm = reinterpret_cast<decltype(&cblas_sgemm)>(::dlsym(handle, "cblas_sgemm"));
        l.setNumThreads = reinterpret_cast<decltype(&openblas_set_num_threads)>(::dlsym(handle, "openblas_set_num_threads"));
        if (!l.dgemm || !l.sgemm || !l.setNumThreads)
            throw Error(std::string(RX_OPENBLAS_LIBRARY) + " lacks cblas_dgemm, cblas_sgemm or openblas_set_num_threads");
        return l;
    }();
    return lib;
}

}  // namespace

int blasThreads() {
    static const int threads = [] {
        int n = 0;
        if (const char* env = std::getenv("RX_BLAS_THREADS")) n = std::atoi(env);
        if (n <= 0) n = static_cast<int>(std::min(4u, std::max(1u, std::thread::hardware_concurrency())));
        openBlas().setNumThreads(n);
        return n;
    }();
    return threads;
}

namespace {
template <class T, class Blas>
void gemmWith(Blas blas, bool transA, bool transB, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda, const T* b,
              int64_t ldb, T* c, int64_t ldc, bool accumulate) {
    if (m <= 0 || n <= 0) return;
    blasThreads();
    if (k <= 0) {
        if (!accumulate) for (int64_t i = 0; i < m; ++i) std::fill(c + i * ldc, c + i * ldc + n, T(0));
        return;
    }
    blas(CblasRowMajor, transA ? CblasTrans : CblasNoTrans, transB ? CblasTrans : CblasNoTrans,
         static_cast<blasint>(m), static_cast<blasint>(n), static_cast<blasint>(k), T(1), a,
         static_cast<blasint>(lda), b, static_cast<blasint>(ldb), accumulate ? T(1) : T(0), c,
         static_cast<blasint>(ldc));
}
}  // namespace

void gemm(bool transA, bool transB, int64_t m, int64_t n, int64_t k, const double* a, int64_t lda, const double* b,
          int64_t ldb, double* c, int64_t ldc, bool accumulate) {
    gemmWith(openBlas().dgemm, transA, transB, m, n, k, a, lda, b, ldb, c, ldc, accumulate);
}

void gemm(bool transA, bool transB, int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b,
          int64_t ldb, float* c, int64_t ldc, bool accumulate) {
    gemmWith(openBlas().sgemm, transA, transB, m, n, k, a, lda, b, ldb, c, ldc, accumulate);
}

}  // namespace rx::exec::cpu
