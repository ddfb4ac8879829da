#pragma once
// Row-major GEMM (f64 and f32) through OpenBLAS with a thread count fixed once per process, so a
// product of the same shapes always sums in the same order (bit-identical reruns).
#include <cstdint>

namespace rx::exec::cpu {

// C[m,n] = op(A) * op(B) (+ C when accumulate); lda/ldb/ldc are the row strides as stored.
void gemm(bool transA, bool transB, int64_t m, int64_t n, int64_t k, const double* a, int64_t lda, const double* b,
          int64_t ldb, double* c, int64_t ldc, bool accumulate = false);

// The same in f32 (sgemm): f32 values are multiplied in their own dtype.
void gemm(bool transA, bool transB, int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b,
          int64_t ldb, float* c, int64_t ldc, bool accumulate = false);

// The OpenBLAS threads every GEMM uses (RX_BLAS_THREADS, else min(4, hardware threads)).
int blasThreads();

}  // namespace rx::exec::cpu
