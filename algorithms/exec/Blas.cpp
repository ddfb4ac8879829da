// OpenBLAS dgemm behind one function; the thread count is set once, before the first GEMM.
#include "algorithms/exec/Blas.h"

#include <cblas.h>

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <thread>

namespace rx::exec::cpu {

int blasThreads() {
    static const int threads = [] {
        int n = 0;
        if (const char* env = std::getenv("RX_BLAS_THREADS")) n = std::atoi(env);
        if (n <= 0) n = static_cast<int>(std::min(4u, std::max(1u, std::thread::hardware_concurrency())));
        openblas_set_num_threads(n);
        return n;
    }();
    return threads;
}

void gemm(bool transA, bool transB, int64_t m, int64_t n, int64_t k, const double* a, int64_t lda, const double* b,
          int64_t ldb, double* c, int64_t ldc, bool accumulate) {
    if (m <= 0 || n <= 0) return;
    blasThreads();
    if (k <= 0) {
        if (!accumulate) for (int64_t i = 0; i < m; ++i) std::fill(c + i * ldc, c + i * ldc + n, 0.0);
        return;
    }
    cblas_dgemm(CblasRowMajor, transA ? CblasTrans : CblasNoTrans, transB ? CblasTrans : CblasNoTrans, static_cast<blasint>(m),
                static_cast<blasint>(n), static_cast<blasint>(k), 1.0, a, static_cast<blasint>(lda), b, static_cast<blasint>(ldb),
                accumulate ? 1.0 : 0.0, c, static_cast<blasint>(ldc));
}

}  // namespace rx::exec::cpu
