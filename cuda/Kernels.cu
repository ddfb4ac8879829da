// The CUDA kernels: grid-stride elementwise with broadcasting (float4 fast path), strided
// copies, CUB block reductions, softmax, layer_norm, seeded random ops, gather/embedding.
#include "cuda/Kernels.h"

#include <cub/block/block_reduce.cuh>

#include "cuda/ElementwiseOps.cuh"

namespace rx::cuda::kernels {
namespace {

constexpr int kThreads = 256;
using BlockReduceD = cub::BlockReduce<double, kThreads>;

int gridFor(int64_t n) {
    int64_t blocks = (n + kThreads - 1) / kThreads;
    if (blocks < 1) blocks = 1;
    return static_cast<int>(blocks > 65535 * 8 ? 65535 * 8 : blocks);  // grid-stride covers the rest
}

__device__ __forceinline__ double evalAt(const ElementwiseLaunch& l, int64_t i) {
    double v[3] = {0, 0, 0};
    if (l.arity > 0) {
        int64_t off[3] = {i, i, i};
        bool allContig = true;
        for (int k = 0; k < l.arity; ++k) allContig = allContig && l.in[k].contiguous;
        if (!allContig) {
            for (int k = 0; k < l.arity; ++k) off[k] = 0;
            int64_t rem = i;
            for (int d = l.rank - 1; d >= 0; --d) {
                int64_t idx = rem % l.dims[d];
                rem /= l.dims[d];
                for (int k = 0; k < l.arity; ++k) off[k] += idx * l.in[k].strides[d];
            }
            for (int k = 0; k < l.arity; ++k) if (l.in[k].contiguous) off[k] = i;
        }
        for (int k = 0; k < l.arity; ++k) v[k] = rx_load(l.in[k].data, l.in[k].dtype, off[k]);
    }
    switch (l.arity) {
    case 0: case 1: return rx_unary(l.op, v[0], l.p0, l.p1);
    case 2: return rx_binary(l.op, v[0], v[1], l.integer, l.p0);
    default: return rx_ternary(l.op, v[0], v[1], v[2]);
    }
}

__global__ void elementwiseKernel(const ElementwiseLaunch l) {
    int64_t stride = int64_t(blockDim.x) * gridDim.x;
    for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < l.numel; i += stride)
        rx_store(l.out, l.outDtype, i, evalAt(l, i));
}

// All operands and the output dense f32: four elements per thread through float4, still
// computed in double (what keeps it equal to the CPU bit for bit).
__global__ void elementwiseF32x4Kernel(const ElementwiseLaunch l) {
    int64_t n4 = l.numel / 4;
    int64_t stride = int64_t(blockDim.x) * gridDim.x;
    const float4* a = static_cast<const float4*>(l.in[0].data);
    const float4* b = static_cast<const float4*>(l.in[1].data);
    const float4* c = static_cast<const float4*>(l.in[2].data);
    float4* o = static_cast<float4*>(l.out);
    for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n4; i += stride) {
        float4 x = l.arity > 0 ? a[i] : make_float4(0, 0, 0, 0);
        float4 y = l.arity > 1 ? b[i] : make_float4(0, 0, 0, 0);
        float4 z = l.arity > 2 ? c[i] : make_float4(0, 0, 0, 0);
        float xs[4] = {x.x, x.y, x.z, x.w}, ys[4] = {y.x, y.y, y.z, y.w}, zs[4] = {z.x, z.y, z.z, z.w}, r[4];
#pragma unroll
        for (int k = 0; k < 4; ++k) {
            double v;
            if (l.arity <= 1) v = rx_unary(l.op, xs[k], l.p0, l.p1);
            else if (l.arity == 2) v = rx_binary(l.op, xs[k], ys[k], l.integer, l.p0);
            else v = rx_ternary(l.op, xs[k], ys[k], zs[k]);
            r[k] = static_cast<float>(v);
        }
        o[i] = make_float4(r[0], r[1], r[2], r[3]);
    }
    // the tail (numel % 4) by the first threads
    int64_t tail = n4 * 4 + int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (tail < l.numel) rx_store(l.out, l.outDtype, tail, evalAt(l, tail));
}

template <typename T>
__global__ void stridedCopyKernel(const StridedCopy c, int64_t n) {
    int64_t stride = int64_t(blockDim.x) * gridDim.x;
    for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
        int64_t rem = i, s = c.srcOffset, d = c.dstOffset;
        for (int k = c.rank - 1; k >= 0; --k) {
            int64_t idx = rem % c.dims[k];
            rem /= c.dims[k];
            s += idx * c.srcStrides[k];
            d += idx * c.dstStrides[k];
        }
        static_cast<T*>(c.dst)[d] = static_cast<const T*>(c.src)[s];
    }
}

__device__ __forceinline__ double reduceCombine(int kind, double a, double b) {
    switch (kind) {
    case 2: return rx_max(a, b);
    case 3: return rx_min(a, b);
    case 4: return a * b;
    default: return a + b;
    }
}

__global__ void reduceKernel(const Reduce r) {
    __shared__ typename BlockReduceD::TempStorage temp;
    const double init = r.kind == 2 ? -RX_INF : r.kind == 3 ? RX_INF : r.kind == 4 ? 1.0 : 0.0;
    for (int64_t o = blockIdx.x; o < r.outCount; o += gridDim.x) {
        int64_t base = 0, rem = o;
        for (int d = r.keptRank - 1; d >= 0; --d) {
            base += (rem % r.keptDims[d]) * r.keptStrides[d];
            rem /= r.keptDims[d];
        }
        double acc = init;
        for (int64_t j = threadIdx.x; j < r.reducedCount; j += blockDim.x) {
            int64_t off = base, rj = j;
            for (int d = r.reducedRank - 1; d >= 0; --d) {
                off += (rj % r.reducedDims[d]) * r.reducedStrides[d];
                rj /= r.reducedDims[d];
            }
            acc = reduceCombine(r.kind, acc, rx_load(r.x, r.xDtype, off));
        }
        double total;
        if (r.kind == 2) total = BlockReduceD(temp).Reduce(acc, [](double a, double b) { return rx_max(a, b); });
        else if (r.kind == 3) total = BlockReduceD(temp).Reduce(acc, [](double a, double b) { return rx_min(a, b); });
        else if (r.kind == 4) total = BlockReduceD(temp).Reduce(acc, [](double a, double b) { return a * b; });
        else total = BlockReduceD(temp).Sum(acc);
        if (threadIdx.x == 0) {
            if (r.kind == 1 && r.reducedCount > 0) total /= static_cast<double>(r.reducedCount);
            rx_store(r.out, r.outDtype, o, total);
        }
        __syncthreads();  // temp storage is reused by the next output
    }
}

// Broadcast a block-reduced value to every thread.
__device__ double blockAll(double v, int kind, typename BlockReduceD::TempStorage& temp, double* shared) {
    double t = kind == 2 ? BlockReduceD(temp).Reduce(v, [](double a, double b) { return rx_max(a, b); })
                         : BlockReduceD(temp).Sum(v);
    if (threadIdx.x == 0) *shared = t;
    __syncthreads();
    double out = *shared;
    __syncthreads();
    return out;
}

__global__ void softmaxKernel(int kind, const void* x, int dt, void* out, int64_t outer, int64_t n, int64_t inner) {
    __shared__ typename BlockReduceD::TempStorage temp;
    __shared__ double shared;
    for (int64_t row = blockIdx.x; row < outer * inner; row += gridDim.x) {
        int64_t base = (row / inner) * n * inner + row % inner;
        double m = -RX_INF;
        for (int64_t j = threadIdx.x; j < n; j += blockDim.x) m = rx_max(m, rx_load(x, dt, base + j * inner));
        m = blockAll(m, 2, temp, &shared);
        double s = 0;
        for (int64_t j = threadIdx.x; j < n; j += blockDim.x) s += exp(rx_load(x, dt, base + j * inner) - m);
        s = blockAll(s, 0, temp, &shared);
        for (int64_t j = threadIdx.x; j < n; j += blockDim.x) {
            double v = rx_load(x, dt, base + j * inner);
            rx_store(out, dt, base + j * inner, kind == 1 ? v - m - log(s) : exp(v - m) / s);
        }
    }
}

__global__ void softmaxGradKernel(int kind, const void* y, const void* g, int dt, void* out, int64_t outer, int64_t n,
                                  int64_t inner) {
    __shared__ typename BlockReduceD::TempStorage temp;
    __shared__ double shared;
    for (int64_t row = blockIdx.x; row < outer * inner; row += gridDim.x) {
        int64_t base = (row / inner) * n * inner + row % inner;
        double dot = 0;
        for (int64_t j = threadIdx.x; j < n; j += blockDim.x) {
            int64_t i = base + j * inner;
            dot += kind == 1 ? rx_load(g, dt, i) : rx_load(y, dt, i) * rx_load(g, dt, i);
        }
        dot = blockAll(dot, 0, temp, &shared);
        for (int64_t j = threadIdx.x; j < n; j += blockDim.x) {
            int64_t i = base + j * inner;
            double yv = rx_load(y, dt, i), gv = rx_load(g, dt, i);
            rx_store(out, dt, i, kind == 1 ? gv - exp(yv) * dot : yv * (gv - dot));
        }
    }
}

__global__ void layerNormKernel(const void* x, int xDt, const void* scale, int scaleDt, const void* bias, int biasDt,
                                void* out, int outDt, void* mean, void* var, int statDt, int64_t rows, int64_t cols,
                                double eps) {
    __shared__ typename BlockReduceD::TempStorage temp;
    __shared__ double shared;
    for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
        int64_t base = r * cols;
        double s = 0;
        for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) s += rx_load(x, xDt, base + j);
        double m = blockAll(s, 0, temp, &shared) / static_cast<double>(cols);
        double q = 0;
        for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) {
            double d = rx_load(x, xDt, base + j) - m;
            q += d * d;
        }
        q = blockAll(q, 0, temp, &shared) / static_cast<double>(cols);
        double inv = 1.0 / sqrt(q + eps);
        for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) {
            double y = (rx_load(x, xDt, base + j) - m) * inv;
            if (scale) y *= rx_load(scale, scaleDt, j);
            if (bias) y += rx_load(bias, biasDt, j);
            rx_store(out, outDt, base + j, y);
        }
        if (threadIdx.x == 0) {
            if (mean) rx_store(mean, statDt, r, m);
            if (var) rx_store(var, statDt, r, q);
        }
    }
}

__global__ void layerNormGradRowsKernel(const void* x, int xDt, const void* scale, int scaleDt, const void* mean,
                                        const void* var, int statDt, const void* g, int gDt, void* dx, int dxDt,
                                        int64_t rows, int64_t cols, double eps) {
    __shared__ typename BlockReduceD::TempStorage temp;
    __shared__ double shared;
    for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
        int64_t base = r * cols;
        double m = rx_load(mean, statDt, r);
        double inv = 1.0 / sqrt(rx_load(var, statDt, r) + eps);
        double sumG = 0, sumGX = 0;
        for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) {
            double xhat = (rx_load(x, xDt, base + j) - m) * inv;
            double gy = rx_load(g, gDt, base + j) * (scale ? rx_load(scale, scaleDt, j) : 1.0);
            sumG += gy;
            sumGX += gy * xhat;
        }
        sumG = blockAll(sumG, 0, temp, &shared);
        sumGX = blockAll(sumGX, 0, temp, &shared);
        double n = static_cast<double>(cols);
        for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) {
            double xhat = (rx_load(x, xDt, base + j) - m) * inv;
            double gy = rx_load(g, gDt, base + j) * (scale ? rx_load(scale, scaleDt, j) : 1.0);
            rx_store(dx, dxDt, base + j, inv * (gy - sumG / n - xhat * sumGX / n));
        }
    }
}

// Column sums for dscale / dbias, rows ascending per column (the CPU's order).
__global__ void layerNormGradColsKernel(const void* x, int xDt, const void* mean, const void* var, int statDt,
                                        const void* g, int gDt, void* dscale, void* dbias, int paramDt, int64_t rows,
                                        int64_t cols, double eps) {
    int64_t j = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (j >= cols) return;
    double ds = 0, db = 0;
    for (int64_t r = 0; r < rows; ++r) {
        double inv = 1.0 / sqrt(rx_load(var, statDt, r) + eps);
        double gv = rx_load(g, gDt, r * cols + j);
        ds += gv * ((rx_load(x, xDt, r * cols + j) - rx_load(mean, statDt, r)) * inv);
        db += gv;
    }
    if (dscale) rx_store(dscale, paramDt, j, ds);
    if (dbias) rx_store(dbias, paramDt, j, db);
}

__device__ __forceinline__ unsigned long long mix64(unsigned long long x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}
__device__ __forceinline__ double uniformAt(unsigned long long key, unsigned long long index) {
    return static_cast<double>(mix64(key ^ mix64(index)) >> 11) * (1.0 / 9007199254740992.0);
}

__global__ void dropoutKernel(const void* x, int xDt, void* out, void* mask, int maskDt, int64_t n, uint64_t key,
                              double p, bool upscale) {
    int64_t stride = int64_t(blockDim.x) * gridDim.x;
    for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
        bool keep = p < 1.0 && uniformAt(key, static_cast<unsigned long long>(i)) >= p;
        double v = rx_load(x, xDt, i);
        rx_store(out, xDt, i, keep ? (upscale ? v / (1.0 - p) : v) : 0.0);
        if (mask) rx_store(mask, maskDt, i, keep ? 1.0 : 0.0);
    }
}

__global__ void uniformKernel(void* out, int dt, int64_t n, uint64_t key, double lo, double hi) {
    int64_t stride = int64_t(blockDim.x) * gridDim.x;
    for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
        rx_store(out, dt, i, lo + (hi - lo) * uniformAt(key, static_cast<unsigned long long>(i)));
}

__global__ void randintKernel(void* out, int dt, int64_t n, uint64_t key, int64_t lo, int64_t hi) {
    int64_t stride = int64_t(blockDim.x) * gridDim.x;
    for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
        rx_store(out, dt, i,
                 static_cast<double>(lo + static_cast<int64_t>(uniformAt(key, static_cast<unsigned long long>(i)) *
                                                               static_cast<double>(hi - lo))));
}

__global__ void arangeKernel(void* out, int dt, int64_t n, double start, double step) {
    int64_t stride = int64_t(blockDim.x) * gridDim.x;
    for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
        rx_store(out, dt, i, start + step * static_cast<double>(i));
}

__device__ __forceinline__ void copyElem(void* dst, int64_t di, const void* src, int64_t si, int eb) {
    const unsigned char* s = static_cast<const unsigned char*>(src) + si * eb;
    unsigned char* d = static_cast<unsigned char*>(dst) + di * eb;
    for (int b = 0; b < eb; ++b) d[b] = s[b];
}

__global__ void gatherKernel(const void* x, const void* index, int indexDt, void* out, int64_t outer, int64_t axisDim,
                             int64_t nIndex, int64_t inner, int eb, int* error) {
    int64_t n = outer * nIndex * inner;
    int64_t stride = int64_t(blockDim.x) * gridDim.x;
    for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
        int64_t in = i % inner, j = (i / inner) % nIndex, o = i / (inner * nIndex);
        int64_t v = static_cast<int64_t>(rx_load(index, indexDt, j));
        if (v < 0 || v >= axisDim) { *error = 1; continue; }
        copyElem(out, i, x, (o * axisDim + v) * inner + in, eb);
    }
}

__global__ void embeddingKernel(const void* ids, int idsDt, const void* w, void* out, int64_t nIds, int64_t rows,
                                int64_t width, int64_t pad, int eb, int* error) {
    int64_t n = nIds * width;
    int64_t stride = int64_t(blockDim.x) * gridDim.x;
    for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
        int64_t r = i / width, j = i % width;
        int64_t id = static_cast<int64_t>(rx_load(ids, idsDt, r));
        if (id < 0 || id >= rows) { *error = 1; continue; }
        if (pad >= 0 && id == pad) { for (int b = 0; b < eb; ++b) static_cast<unsigned char*>(out)[i * eb + b] = 0; continue; }
        copyElem(out, i, w, id * width + j, eb);
    }
}

__global__ void triangleKernel(const void* x, int dt, void* out, int64_t n, int64_t rows, int64_t cols, int64_t diag,
                               bool lower) {
    int64_t stride = int64_t(blockDim.x) * gridDim.x;
    for (int64_t e = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; e < n; e += stride) {
        int64_t j = e % cols, i = (e / cols) % rows;
        bool keep = lower ? (j - i <= diag) : (j - i >= diag);
        rx_store(out, dt, e, keep ? rx_load(x, dt, e) : 0.0);
    }
}


__global__ void batchNormKernel(const BatchNorm b) {
    __shared__ typename BlockReduceD::TempStorage temp;
    __shared__ double shared;
    const double cnt = static_cast<double>(b.n * b.sp);
    for (int64_t k = blockIdx.x; k < b.ch; k += gridDim.x) {
        double mean, var;
        if (b.useGlobal) {
            mean = rx_load(b.rm, b.statInDt, k);
            var = rx_load(b.rv, b.statInDt, k);
        } else {
            double m = 0;
            for (int64_t e = threadIdx.x; e < b.n * b.sp; e += blockDim.x)
                m += rx_load(b.x, b.xDt, ((e / b.sp) * b.ch + k) * b.sp + e % b.sp);
            mean = blockAll(m, 0, temp, &shared) / cnt;
            double q = 0;
            for (int64_t e = threadIdx.x; e < b.n * b.sp; e += blockDim.x) {
                double d = rx_load(b.x, b.xDt, ((e / b.sp) * b.ch + k) * b.sp + e % b.sp) - mean;
                q += d * d;
            }
            var = blockAll(q, 0, temp, &shared) / cnt;
        }
        double inv = 1.0 / sqrt(var + b.eps);
        double sc = b.scale ? rx_load(b.scale, b.paramDt, k) : 1.0, bi = b.bias ? rx_load(b.bias, b.paramDt, k) : 0.0;
        for (int64_t e = threadIdx.x; e < b.n * b.sp; e += blockDim.x) {
            int64_t i = ((e / b.sp) * b.ch + k) * b.sp + e % b.sp;
            rx_store(b.out, b.outDt, i, (rx_load(b.x, b.xDt, i) - mean) * inv * sc + bi);
        }
        if (threadIdx.x == 0) {
            double rm = rx_load(b.rm, b.statInDt, k), rv = rx_load(b.rv, b.statInDt, k);
            if (b.meanOut) rx_store(b.meanOut, b.statOutDt, k, b.useGlobal ? rm : b.momentum * rm + (1 - b.momentum) * mean);
            if (b.varOut) rx_store(b.varOut, b.statOutDt, k, b.useGlobal ? rv : b.momentum * rv + (1 - b.momentum) * var);
            if (b.savedMean) rx_store(b.savedMean, b.statOutDt, k, mean);
            if (b.savedInv) rx_store(b.savedInv, b.statOutDt, k, inv);
        }
    }
}

__global__ void batchNormGradKernel(const void* x, int xDt, const void* scale, int scaleDt, const void* mean, const void* inv,
                                    int statDt, const void* g, int gDt, void* dx, int dxDt, void* dscale, void* dbias,
                                    int paramDt, int64_t n, int64_t ch, int64_t sp) {
    __shared__ typename BlockReduceD::TempStorage temp;
    __shared__ double shared;
    const double cnt = static_cast<double>(n * sp);
    for (int64_t k = blockIdx.x; k < ch; k += gridDim.x) {
        double m = rx_load(mean, statDt, k), iv = rx_load(inv, statDt, k);
        double sg = 0, sgx = 0;
        for (int64_t e = threadIdx.x; e < n * sp; e += blockDim.x) {
            int64_t i = ((e / sp) * ch + k) * sp + e % sp;
            double gv = rx_load(g, gDt, i);
            sg += gv;
            sgx += gv * ((rx_load(x, xDt, i) - m) * iv);
        }
        sg = blockAll(sg, 0, temp, &shared);
        sgx = blockAll(sgx, 0, temp, &shared);
        double sc = scale ? rx_load(scale, scaleDt, k) : 1.0;
        if (dx)
            for (int64_t e = threadIdx.x; e < n * sp; e += blockDim.x) {
                int64_t i = ((e / sp) * ch + k) * sp + e % sp;
                double xhat = (rx_load(x, xDt, i) - m) * iv;
                rx_store(dx, dxDt, i, sc * iv * (rx_load(g, gDt, i) - sg / cnt - xhat * sgx / cnt));
            }
        if (threadIdx.x == 0) {
            if (dscale) rx_store(dscale, paramDt, k, sgx);
            if (dbias) rx_store(dbias, paramDt, k, sg);
        }
    }
}

__global__ void pool2dKernel(const PoolGeometry g, const void* x, int dt, void* out) {
    int64_t n = g.n * g.ch * g.oh * g.ow;
    int64_t stride = int64_t(blockDim.x) * gridDim.x;
    for (int64_t o = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; o < n; o += stride) {
        int64_t j = o % g.ow, i = (o / g.ow) % g.oh, nc = o / (g.ow * g.oh);
        int64_t h0, h1, w0, w1, cnt;
        exec::poolWindow(g, i, j, h0, h1, w0, w1, cnt);
        double acc = g.avg ? 0.0 : -RX_INF;
        for (int64_t h = h0; h < h1; ++h)
            for (int64_t w = w0; w < w1; ++w) {
                double e = rx_load(x, dt, (nc * g.h + h) * g.w + w);
                acc = g.avg ? acc + e : rx_max(acc, e);
            }
        rx_store(out, dt, o, g.avg ? (cnt > 0 ? acc / static_cast<double>(cnt) : 0.0) : acc);
    }
}

__global__ void pool2dGradKernel(const PoolGeometry g, const void* x, const void* y, const void* dy, int dt, double* dx) {
    int64_t nc = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (nc >= g.n * g.ch) return;
    for (int64_t i = 0; i < g.oh; ++i)
        for (int64_t j = 0; j < g.ow; ++j) {
            int64_t h0, h1, w0, w1, cnt;
            exec::poolWindow(g, i, j, h0, h1, w0, w1, cnt);
            int64_t oi = (nc * g.oh + i) * g.ow + j;
            double go = rx_load(dy, dt, oi), yo = rx_load(y, dt, oi);
            bool done = false;
            for (int64_t h = h0; h < h1 && !done; ++h)
                for (int64_t w = w0; w < w1 && !done; ++w) {
                    int64_t xi = (nc * g.h + h) * g.w + w;
                    if (g.avg) dx[xi] += go / static_cast<double>(cnt);
                    else if (rx_load(x, dt, xi) == yo) { dx[xi] += go; done = true; }
                }
        }
}


__global__ void embeddingGradKernel(const void* ids, int idsDt, int64_t nIds, const void* g, int gDt, double* out, int64_t rows,
                                    int64_t width, int64_t pad, int* error) {
    int64_t j = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (j >= width) return;
    for (int64_t i = 0; i < nIds; ++i) {
        int64_t id = static_cast<int64_t>(rx_load(ids, idsDt, i));
        if (id < 0 || id >= rows) { *error = 1; continue; }
        if (pad >= 0 && id == pad) continue;
        out[id * width + j] += rx_load(g, gDt, i * width + j);
    }
}

__global__ void extremumGradKernel(const Reduce r, const void* out, int outDt, const void* g, int gDt, void* dx, int dxDt) {
    int64_t stride = int64_t(blockDim.x) * gridDim.x;
    for (int64_t o = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; o < r.outCount; o += stride) {
        int64_t base = 0, rem = o;
        for (int d = r.keptRank - 1; d >= 0; --d) {
            base += (rem % r.keptDims[d]) * r.keptStrides[d];
            rem /= r.keptDims[d];
        }
        double target = rx_load(out, outDt, o);
        for (int64_t j = 0; j < r.reducedCount; ++j) {
            int64_t off = base, rj = j;
            for (int d = r.reducedRank - 1; d >= 0; --d) {
                off += (rj % r.reducedDims[d]) * r.reducedStrides[d];
                rj /= r.reducedDims[d];
            }
            if (rx_load(r.x, r.xDtype, off) == target) { rx_store(dx, dxDt, off, rx_load(g, gDt, o)); break; }
        }
    }
}

int rowGrid(int64_t rows) { return static_cast<int>(rows < 1 ? 1 : rows > 65535 * 16 ? 65535 * 16 : rows); }

}  // namespace

void elementwise(const ElementwiseLaunch& l, cudaStream_t stream) {
    if (l.numel <= 0) return;
    bool vec = l.outDtype == RX_DT_F32 && (reinterpret_cast<uintptr_t>(l.out) % 16 == 0);
    for (int k = 0; k < l.arity; ++k)
        vec = vec && l.in[k].contiguous && l.in[k].dtype == RX_DT_F32 && reinterpret_cast<uintptr_t>(l.in[k].data) % 16 == 0;
    if (vec && l.numel >= 4) {
        int64_t n4 = l.numel / 4;
        elementwiseF32x4Kernel<<<gridFor(n4 > 4 ? n4 : 4), kThreads, 0, stream>>>(l);
    } else {
        elementwiseKernel<<<gridFor(l.numel), kThreads, 0, stream>>>(l);
    }
}

void stridedCopy(const StridedCopy& c, cudaStream_t stream) {
    int64_t n = 1;
    for (int k = 0; k < c.rank; ++k) n *= c.dims[k];
    if (n <= 0) return;
    switch (c.elemBytes) {
    case 1: stridedCopyKernel<uint8_t><<<gridFor(n), kThreads, 0, stream>>>(c, n); break;
    case 2: stridedCopyKernel<uint16_t><<<gridFor(n), kThreads, 0, stream>>>(c, n); break;
    case 4: stridedCopyKernel<uint32_t><<<gridFor(n), kThreads, 0, stream>>>(c, n); break;
    case 8: stridedCopyKernel<uint64_t><<<gridFor(n), kThreads, 0, stream>>>(c, n); break;
    default: stridedCopyKernel<uint4><<<gridFor(n), kThreads, 0, stream>>>(c, n); break;
    }
}

void reduce(const Reduce& r, cudaStream_t stream) {
    if (r.outCount <= 0) return;
    reduceKernel<<<rowGrid(r.outCount), kThreads, 0, stream>>>(r);
}

void softmax(int kind, const void* x, int dtype, void* out, int64_t outer, int64_t n, int64_t inner, cudaStream_t s) {
    if (outer * inner <= 0) return;
    softmaxKernel<<<rowGrid(outer * inner), kThreads, 0, s>>>(kind, x, dtype, out, outer, n, inner);
}

void softmaxGrad(int kind, const void* y, const void* g, int dtype, void* out, int64_t outer, int64_t n, int64_t inner,
                 cudaStream_t s) {
    if (outer * inner <= 0) return;
    softmaxGradKernel<<<rowGrid(outer * inner), kThreads, 0, s>>>(kind, y, g, dtype, out, outer, n, inner);
}

void layerNorm(const void* x, int xDt, const void* scale, int scaleDt, const void* bias, int biasDt, void* out, int outDt,
               void* mean, void* var, int statDt, int64_t rows, int64_t cols, double eps, cudaStream_t s) {
    if (rows <= 0) return;
    layerNormKernel<<<rowGrid(rows), kThreads, 0, s>>>(x, xDt, scale, scaleDt, bias, biasDt, out, outDt, mean, var, statDt,
                                                       rows, cols, eps);
}

void layerNormGrad(const void* x, int xDt, const void* scale, int scaleDt, const void* mean, const void* var, int statDt,
                   const void* g, int gDt, void* dx, int dxDt, void* dscale, void* dbias, int paramDt, int64_t rows,
                   int64_t cols, double eps, cudaStream_t s) {
    if (rows <= 0) return;
    if (dx)
        layerNormGradRowsKernel<<<rowGrid(rows), kThreads, 0, s>>>(x, xDt, scale, scaleDt, mean, var, statDt, g, gDt, dx,
                                                                   dxDt, rows, cols, eps);
    if (dscale || dbias)
        layerNormGradColsKernel<<<static_cast<int>((cols + kThreads - 1) / kThreads), kThreads, 0, s>>>(
            x, xDt, mean, var, statDt, g, gDt, dscale, dbias, paramDt, rows, cols, eps);
}

void dropout(const void* x, int xDt, void* out, void* mask, int maskDt, int64_t n, uint64_t key, double p, bool upscale,
             cudaStream_t s) {
    if (n <= 0) return;
    dropoutKernel<<<gridFor(n), kThreads, 0, s>>>(x, xDt, out, mask, maskDt, n, key, p, upscale);
}

void uniform(void* out, int dt, int64_t n, uint64_t key, double lo, double hi, cudaStream_t s) {
    if (n > 0) uniformKernel<<<gridFor(n), kThreads, 0, s>>>(out, dt, n, key, lo, hi);
}

void randint(void* out, int dt, int64_t n, uint64_t key, int64_t lo, int64_t hi, cudaStream_t s) {
    if (n > 0) randintKernel<<<gridFor(n), kThreads, 0, s>>>(out, dt, n, key, lo, hi);
}

void arange(void* out, int dt, int64_t n, double start, double step, cudaStream_t s) {
    if (n > 0) arangeKernel<<<gridFor(n), kThreads, 0, s>>>(out, dt, n, start, step);
}

void gather(const void* x, const void* index, int indexDt, void* out, int64_t outer, int64_t axisDim, int64_t nIndex,
            int64_t inner, int elemBytes, int* error, cudaStream_t s) {
    int64_t n = outer * nIndex * inner;
    if (n > 0) gatherKernel<<<gridFor(n), kThreads, 0, s>>>(x, index, indexDt, out, outer, axisDim, nIndex, inner, elemBytes, error);
}

void embedding(const void* ids, int idsDt, const void* w, void* out, int64_t nIds, int64_t rows, int64_t width,
               int64_t paddingIdx, int elemBytes, int* error, cudaStream_t s) {
    int64_t n = nIds * width;
    if (n > 0) embeddingKernel<<<gridFor(n), kThreads, 0, s>>>(ids, idsDt, w, out, nIds, rows, width, paddingIdx, elemBytes, error);
}

void triangle(const void* x, int dt, void* out, int64_t n, int64_t rows, int64_t cols, int64_t diagonal, bool lower,
              cudaStream_t s) {
    if (n > 0) triangleKernel<<<gridFor(n), kThreads, 0, s>>>(x, dt, out, n, rows, cols, diagonal, lower);
}

void batchNorm(const BatchNorm& b, cudaStream_t s) {
    if (b.ch > 0) batchNormKernel<<<rowGrid(b.ch), kThreads, 0, s>>>(b);
}

void batchNormGrad(const void* x, int xDt, const void* scale, int scaleDt, const void* mean, const void* inv, int statDt,
                   const void* g, int gDt, void* dx, int dxDt, void* dscale, void* dbias, int paramDt, int64_t n, int64_t ch,
                   int64_t sp, cudaStream_t s) {
    if (ch > 0)
        batchNormGradKernel<<<rowGrid(ch), kThreads, 0, s>>>(x, xDt, scale, scaleDt, mean, inv, statDt, g, gDt, dx, dxDt, dscale,
                                                           dbias, paramDt, n, ch, sp);
}

void pool2d(const PoolGeometry& g, const void* x, int dt, void* out, cudaStream_t s) {
    int64_t n = g.n * g.ch * g.oh * g.ow;
    if (n > 0) pool2dKernel<<<gridFor(n), kThreads, 0, s>>>(g, x, dt, out);
}

void pool2dGrad(const PoolGeometry& g, const void* x, const void* y, const void* dy, int dt, double* dx, cudaStream_t s) {
    int64_t planes = g.n * g.ch;
    if (planes > 0) pool2dGradKernel<<<static_cast<int>((planes + 63) / 64), 64, 0, s>>>(g, x, y, dy, dt, dx);
}

void embeddingGrad(const void* ids, int idsDt, int64_t nIds, const void* g, int gDt, double* out, int64_t rows, int64_t width,
                   int64_t paddingIdx, int* error, cudaStream_t s) {
    if (width > 0 && nIds > 0)
        embeddingGradKernel<<<static_cast<int>((width + 127) / 128), 128, 0, s>>>(ids, idsDt, nIds, g, gDt, out, rows, width,
                                                                                 paddingIdx, error);
}

void extremumGrad(const Reduce& geometry, const void* out, int outDt, const void* g, int gDt, void* dx, int dxDt, cudaStream_t s) {
    if (geometry.outCount > 0) extremumGradKernel<<<gridFor(geometry.outCount), kThreads, 0, s>>>(geometry, out, outDt, g, gDt, dx, dxDt);
}

}  // namespace rx::cuda::kernels
