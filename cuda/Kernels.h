#pragma once
// Host launchers of the CUDA kernels (cuda/Kernels.cu). Plain pointers, runtime dtype codes
// (cuda/ElementwiseOps.cuh's RX_DT_*), element strides; every launch goes on `stream` and
// returns at once. Shapes are decided by the caller (cuda/CudaExecutor.cpp).
#include <cstdint>

#include <cuda_runtime_api.h>

#include "exec/Geometry.h"

namespace rx::cuda::kernels {

constexpr int kMaxRank = 8;

// An operand of an elementwise kernel: strides in elements, aligned to the output's dims
// (0 on broadcast dims).
struct Operand {
    const void* data = nullptr;
    int dtype = 0;
    int64_t strides[kMaxRank] = {};
    bool contiguous = false;  // same dims as the output, dense: no index arithmetic
};

struct ElementwiseLaunch {
    int arity = 1;              // 0 (fill), 1, 2 or 3 operands
    int op = 0;                 // RX_U_* (arity 0/1), RX_B_*/RX_G_* (2), RX_T_*/ternary (3)
    Operand in[3];
    void* out = nullptr;
    int outDtype = 0;
    int rank = 0;
    int64_t dims[kMaxRank] = {};
    int64_t numel = 0;
    double p0 = 0, p1 = 0;
    bool integer = false;       // integer division semantics (binary divide)
};
void elementwise(const ElementwiseLaunch& l, cudaStream_t stream);

// dst[dstOffset + sum idx*dstStrides] = src[srcOffset + sum idx*srcStrides] over `dims`,
// elements of elemBytes (1, 2, 4, 8 or 16) copied as bits: transpose, expand, slice, concat,
// split, stack.
struct StridedCopy {
    const void* src = nullptr;
    void* dst = nullptr;
    int elemBytes = 4;
    int rank = 0;
    int64_t dims[kMaxRank] = {};
    int64_t srcStrides[kMaxRank] = {};
    int64_t dstStrides[kMaxRank] = {};
    int64_t srcOffset = 0, dstOffset = 0;
};
void stridedCopy(const StridedCopy& c, cudaStream_t stream);

// Reductions over any set of axes of a dense input: 0 sum, 1 mean, 2 max, 3 min, 4 prod.
// One block per output element, double accumulation, cub::BlockReduce.
struct Reduce {
    int kind = 0;
    const void* x = nullptr;
    int xDtype = 0;
    void* out = nullptr;
    int outDtype = 0;
    int keptRank = 0, reducedRank = 0;
    int64_t keptDims[kMaxRank] = {}, keptStrides[kMaxRank] = {};
    int64_t reducedDims[kMaxRank] = {}, reducedStrides[kMaxRank] = {};
    int64_t outCount = 0, reducedCount = 0;
};
void reduce(const Reduce& r, cudaStream_t stream);

// softmax (0) / log_softmax (1) over the middle axis of [outer, n, inner]; grads take y, g.
void softmax(int kind, const void* x, int dtype, void* out, int64_t outer, int64_t n, int64_t inner, cudaStream_t s);
void softmaxGrad(int kind, const void* y, const void* g, int dtype, void* out, int64_t outer, int64_t n, int64_t inner,
                 cudaStream_t s);

// layer_norm over rows x cols; scale/bias may be null; mean/var outputs may be null.
void layerNorm(const void* x, int xDt, const void* scale, int scaleDt, const void* bias, int biasDt, void* out, int outDt,
               void* mean, void* var, int statDt, int64_t rows, int64_t cols, double eps, cudaStream_t s);
void layerNormGrad(const void* x, int xDt, const void* scale, int scaleDt, const void* mean, const void* var, int statDt,
                   const void* g, int gDt, void* dx, int dxDt, void* dscale, void* dbias, int paramDt, int64_t rows,
                   int64_t cols, double eps, cudaStream_t s);

// CpuExecutor's counter-based generator (splitmix64 of key ^ splitmix64(index)), so the
// device draws the CPU's values: dropout (mask + scaled output), uniform, randint.
void dropout(const void* x, int xDt, void* out, void* mask, int maskDt, int64_t n, uint64_t key, double p, bool upscale,
             cudaStream_t s);
void uniform(void* out, int dt, int64_t n, uint64_t key, double lo, double hi, cudaStream_t s);
void randint(void* out, int dt, int64_t n, uint64_t key, int64_t lo, int64_t hi, cudaStream_t s);
void arange(void* out, int dt, int64_t n, double start, double step, cudaStream_t s);

// gather along an axis of [outer, axisDim, inner] and embedding rows; an index out of range
// sets *error (device int) to 1 and leaves the element zero.
void gather(const void* x, const void* index, int indexDt, void* out, int64_t outer, int64_t axisDim, int64_t nIndex,
            int64_t inner, int elemBytes, int* error, cudaStream_t s);
void embedding(const void* ids, int idsDt, const void* w, void* out, int64_t nIds, int64_t rows, int64_t width,
               int64_t paddingIdx, int elemBytes, int* error, cudaStream_t s);
// tril (lower) / triu over the last two dims.
void triangle(const void* x, int dt, void* out, int64_t n, int64_t rows, int64_t cols, int64_t diagonal, bool lower,
              cudaStream_t s);

// batch_norm over channels of [n, ch, sp] (CpuExecutor's formulas): one block per channel.
// running mean/var in (rm, rv), scale/bias may be null (1, 0); outputs may be null.
struct BatchNorm {
    const void* x = nullptr; int xDt = 0;
    const void* rm = nullptr; const void* rv = nullptr; int statInDt = 0;
    const void* scale = nullptr; const void* bias = nullptr; int paramDt = 0;
    void* out = nullptr; int outDt = 0;
    void* meanOut = nullptr; void* varOut = nullptr; void* savedMean = nullptr; void* savedInv = nullptr; int statOutDt = 0;
    int64_t n = 0, ch = 0, sp = 0;
    double eps = 1e-5, momentum = 0.9;
    bool useGlobal = false;
};
void batchNorm(const BatchNorm& b, cudaStream_t s);
// (x, scale, saved mean, saved inv std, out_grad) -> dx, dscale, dbias (any may be null).
void batchNormGrad(const void* x, int xDt, const void* scale, int scaleDt, const void* mean, const void* inv, int statDt,
                   const void* g, int gDt, void* dx, int dxDt, void* dscale, void* dbias, int paramDt, int64_t n, int64_t ch,
                   int64_t sp, cudaStream_t s);

// pool2d windows: exec/Geometry.h's poolWindow, the CPU backend's rule.
using PoolGeometry = exec::PoolGeom;  // OpSemantics' geometry, windows by exec::poolWindow
void pool2d(const PoolGeometry& g, const void* x, int dt, void* out, cudaStream_t s);
// dx (f64, zero-filled by the caller) += the window gradients, one thread per plane in the
// CPU's order (deterministic; "first max wins").
void pool2dGrad(const PoolGeometry& g, const void* x, const void* y, const void* dy, int dt, double* dx, cudaStream_t s);

// embedding_grad: out (f64 [rows, width], zeroed) += g rows by id, one thread per column, ids
// in order (deterministic, the CPU's summation order); ids out of range set *error.
void embeddingGrad(const void* ids, int idsDt, int64_t nIds, const void* g, int gDt, double* out, int64_t rows, int64_t width,
                   int64_t paddingIdx, int* error, cudaStream_t s);
// max_grad / min_grad: dx (zeroed) gets g at the first element of each reduced group that
// equals the group's extremum `out` (Reduce's geometry over x; one thread per output).
void extremumGrad(const Reduce& geometry, const void* out, int outDt, const void* g, int gDt, void* dx, int dxDt, cudaStream_t s);

}  // namespace rx::cuda::kernels
