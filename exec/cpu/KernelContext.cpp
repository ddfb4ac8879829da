// Shared CPU kernel support: seeded hashing, broadcasting indices, reduction plans, elementwise
// tables, shape helpers, the matmul core, layer-norm and pool windows, concat/split.
#include "exec/cpu/KernelContext.h"
#include "exec/cpu/Blas.h"
#include "exec/ScalarMath.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

namespace rx::exec::cpu {

// ---------- broadcasting ----------
// For each output element, the linear index into an input of dims `in` broadcast to `out`
// (the walk forEachBroadcast makes, written down).
std::vector<int64_t> broadcastIndex(const Dims& in, const Dims& out) {
    std::vector<int64_t> idx(static_cast<size_t>(numelOf(out)));
    forEachBroadcast(out, std::array<const Dims*, 1>{&in}, [&](int64_t k, const auto& off) { idx[static_cast<size_t>(k)] = off[0]; });
    return idx;
}

// Sum `g` (dims `gd`) down to dims `target` (the reverse of broadcasting).
std::vector<double> reduceToShape(const std::vector<double>& g, const Dims& gd, const Dims& target) {
    std::vector<double> out(static_cast<size_t>(numelOf(target)), 0.0);
    std::vector<int64_t> idx = broadcastIndex(target, gd);
    for (size_t k = 0; k < g.size(); ++k) out[idx[k]] += g[k];
    return out;
}

// ---------- reductions over axes ----------

ReducePlan planReduce(const Context& c, const Dims& in, size_t axesOperand) {
    ReduceGeom g = reduceGeometry(c, in, axesOperand);
    ReducePlan p;
    p.outDims = g.keptDims;
    p.outDimsNoKeep = g.droppedDims;
    p.keepdim = g.keepdim;
    p.target = broadcastIndex(g.keptDims, in);
    return p;
}

// ---------- elementwise tables ----------
// The formulas themselves are exec/ScalarMath.h's, shared with the CUDA kernels.
double gelu(double x, bool approx) { return rx_gelu(x, approx); }
double geluGrad(double x, bool approx) { return rx_gelu_grad(x, approx); }
double sigmoid(double x) { return rx_sigmoid(x); }
double erfinv(double y) { return rx_erfinv(y); }

const std::unordered_map<std::string_view, double (*)(double)>& unaryTable() {
    static const std::unordered_map<std::string_view, double (*)(double)> t = {
        {"pd_op.exp", [](double x) { return std::exp(x); }},
        {"pd_op.expm1", [](double x) { return std::expm1(x); }},
        {"pd_op.log", [](double x) { return std::log(x); }},
        {"pd_op.log1p", [](double x) { return std::log1p(x); }},
        {"pd_op.log2", [](double x) { return std::log2(x); }},
        {"pd_op.log10", [](double x) { return std::log10(x); }},
        {"pd_op.sin", [](double x) { return std::sin(x); }},
        {"pd_op.cos", [](double x) { return std::cos(x); }},
        {"pd_op.tan", [](double x) { return std::tan(x); }},
        {"pd_op.tanh", [](double x) { return std::tanh(x); }},
        {"pd_op.sinh", [](double x) { return std::sinh(x); }},
        {"pd_op.cosh", [](double x) { return std::cosh(x); }},
        {"pd_op.asin", [](double x) { return std::asin(x); }},
        {"pd_op.acos", [](double x) { return std::acos(x); }},
        {"pd_op.atan", [](double x) { return std::atan(x); }},
        {"pd_op.asinh", [](double x) { return std::asinh(x); }},
        {"pd_op.acosh", [](double x) { return std::acosh(x); }},
        {"pd_op.atanh", [](double x) { return std::atanh(x); }},
        {"pd_op.sqrt", [](double x) { return std::sqrt(x); }},
        {"pd_op.rsqrt", [](double x) { return 1.0 / std::sqrt(x); }},
        {"pd_op.square", [](double x) { return x * x; }},
        {"pd_op.reciprocal", [](double x) { return 1.0 / x; }},
        {"pd_op.abs", [](double x) { return std::fabs(x); }},
        {"pd_op.sign", [](double x) { return static_cast<double>((x > 0) - (x < 0)); }},
        {"pd_op.erf", [](double x) { return std::erf(x); }},
        {"pd_op.erfinv", [](double x) { return erfinv(x); }},
        {"pd_op.sigmoid", [](double x) { return sigmoid(x); }},
        {"pd_op.relu", [](double x) { return x > 0 ? x : 0.0; }},
        {"pd_op.relu6", [](double x) { return std::min(std::max(x, 0.0), 6.0); }},
        {"pd_op.silu", [](double x) { return x * sigmoid(x); }},
        {"pd_op.floor", [](double x) { return std::floor(x); }},
        {"pd_op.ceil", [](double x) { return std::ceil(x); }},
        {"pd_op.round", [](double x) { return std::round(x); }},
        {"pd_op.trunc", [](double x) { return std::trunc(x); }},
        {"pd_op.frac", [](double x) { return x - std::trunc(x); }},
        {"pd_op.logical_not", [](double x) { return x == 0 ? 1.0 : 0.0; }},
        {"pd_op.bitwise_not", [](double x) { return static_cast<double>(~static_cast<int64_t>(x)); }},
        {"pd_op.isinf", [](double x) { return std::isinf(x) ? 1.0 : 0.0; }},
        {"pd_op.isnan", [](double x) { return std::isnan(x) ? 1.0 : 0.0; }},
        {"pd_op.isfinite", [](double x) { return std::isfinite(x) ? 1.0 : 0.0; }},
        {"pd_op.logsigmoid", [](double x) { return -std::log1p(std::exp(-x)); }},
    };
    return t;
}

// The op is resolved to its index in kBinaryOps once per kernel, not per element.
double binaryApply(int op, double a, double b, bool integer) {
    switch (op) {
    case 0: return a + b;
    case 1: return a - b;
    case 2: return a * b;
    case 3: return integer ? (b == 0 ? 0.0 : std::trunc(a / b)) : a / b;
    case 4: return b == 0 ? 0.0 : std::floor(a / b);
    case 5: { if (b == 0) return 0.0; double r = std::fmod(a, b); return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r; }
    case 6: return std::max(a, b);
    case 7: return std::min(a, b);
    case 8: return std::pow(a, b);
    case 9: return a == b;
    case 10: return a != b;
    case 11: return a < b;
    case 12: return a <= b;
    case 13: return a > b;
    case 14: return a >= b;
    case 15: return (a != 0) && (b != 0);
    case 16: return (a != 0) || (b != 0);
    case 17: return (a != 0) != (b != 0);
    case 18: return static_cast<double>(static_cast<int64_t>(a) & static_cast<int64_t>(b));
    case 19: return static_cast<double>(static_cast<int64_t>(a) | static_cast<int64_t>(b));
    case 20: return static_cast<double>(static_cast<int64_t>(a) ^ static_cast<int64_t>(b));
    default: return NAN;
    }
}
int64_t binaryApplyInt(int op, int64_t a, int64_t b) {
    switch (op) {
    case 0: return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
    case 1: return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
    case 2: return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
    case 3: return b == 0 ? 0 : b == -1 ? static_cast<int64_t>(0 - static_cast<uint64_t>(a)) : a / b;
    case 4: {
        if (b == 0) return 0;
        if (b == -1) return static_cast<int64_t>(0 - static_cast<uint64_t>(a));
        int64_t q = a / b;
        return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
    }
    case 5: {
        if (b == 0 || b == -1) return 0;
        int64_t r = a % b;
        return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
    }
    case 6: return std::max(a, b);
    case 7: return std::min(a, b);
    case 8: { double p = std::pow(static_cast<double>(a), static_cast<double>(b)); return std::isfinite(p) ? static_cast<int64_t>(p) : 0; }
    case 9: return a == b;
    case 10: return a != b;
    case 11: return a < b;
    case 12: return a <= b;
    case 13: return a > b;
    case 14: return a >= b;
    case 15: return (a != 0) && (b != 0);
    case 16: return (a != 0) || (b != 0);
    case 17: return (a != 0) != (b != 0);
    case 18: return a & b;
    case 19: return a | b;
    case 20: return a ^ b;
    default: return 0;
    }
}

// Index = the case of binaryApply.
const char* const kBinaryOps[kBinaryOpCount] = {
    "pd_op.add", "pd_op.subtract", "pd_op.multiply", "pd_op.divide",
    "pd_op.floor_divide", "pd_op.remainder", "pd_op.maximum", "pd_op.minimum",
    "pd_op.elementwise_pow", "pd_op.equal", "pd_op.not_equal", "pd_op.less_than",
    "pd_op.less_equal", "pd_op.greater_than", "pd_op.greater_equal", "pd_op.logical_and",
    "pd_op.logical_or", "pd_op.logical_xor", "pd_op.bitwise_and", "pd_op.bitwise_or",
    "pd_op.bitwise_xor",
};

// ---------- shape helpers ----------
Tensor reshaped(const Tensor& t, Dims d) { Tensor out = t; out.dims = std::move(d); return out; }

Tensor transposeTensor(const Tensor& t, const Dims& perm) {
    size_t r = t.dims.size();
    Dims od = permutedDims(t.dims, perm);
    Tensor out(t.dtype, od);
    int eb = dtypeBytes(t.dtype);
    Dims inStr = stridesOf(t.dims);
    Dims outStr = stridesOf(od);
    int64_t n = t.numel();
    for (int64_t k = 0; k < n; ++k) {
        int64_t rem = k, pos = 0;
        for (size_t i = 0; i < r; ++i) { pos += (rem / outStr[i]) * inStr[perm[i]]; rem %= outStr[i]; }
        std::memcpy(out.bytes.data() + k * eb, t.bytes.data() + pos * eb, eb);
    }
    return out;
}

Tensor expandTensor(const Tensor& t, const Dims& od) {
    Tensor out(t.dtype, od);
    const size_t eb = static_cast<size_t>(dtypeBytes(t.dtype));
    const std::array<const Dims*, 1> ins{&t.dims};
    forEachBroadcast(od, ins, [&](int64_t k, const auto& off) { std::memcpy(out.bytes.data() + k * eb, t.bytes.data() + off[0] * eb, eb); });
    return out;
}

Tensor filledTensor(DType t, const Dims& d, double v) {
    Tensor out(t, d);
    const int64_t n = out.numel();
    visitRealDType(t, [&](auto tag) {
        using T = typename decltype(tag)::type;
        std::fill(out.data<T>(), out.data<T>() + n, storeElement<T>(v));
    }, [&] { for (int64_t i = 0; i < n; ++i) out.set(i, v); });
    return out;
}

// ---------- matmul ----------
MatmulGeom matmulGeometry(const Context& c, const Dims& a, bool ta, const Dims& b, bool tb) {
    const MatmulShape s = matmulShape(a, ta, b, tb, c.failFn());
    MatmulGeom g;
    g.ta = s.transposeA; g.tb = s.transposeB;
    g.m = s.m; g.n = s.n; g.k = s.k;
    g.aBatch = broadcastIndex(s.aBatch, s.batch);  // one entry per batch, not per element
    g.bBatch = broadcastIndex(s.bBatch, s.batch);
    g.batches = numelOf(s.batch);
    g.aRows = s.a[s.a.size() - 2]; g.aCols = s.a.back();
    g.bRows = s.b[s.b.size() - 2]; g.bCols = s.b.back();
    g.outDims = s.outDims;
    return g;
}

namespace {
// One OpenBLAS GEMM per batch entry (fixed threads: reruns are bit-identical). W is the BLAS
// type: T itself for f32/f64; other dtypes go through one batch entry of W at a time.
template <class T, class W>
void matmulBatches(const MatmulGeom& g, const T* a, const T* b, T* out) {
    const int64_t aSize = g.aRows * g.aCols, bSize = g.bRows * g.bCols, oSize = g.m * g.n;
    if constexpr (std::is_same_v<T, W>) {
        for (int64_t bt = 0; bt < g.batches; ++bt)
            gemm(g.ta, g.tb, g.m, g.n, g.k, a + g.aBatch[bt] * aSize, g.aCols, b + g.bBatch[bt] * bSize, g.bCols,
                 out + bt * oSize, g.n);
    } else {
        std::vector<W> as(static_cast<size_t>(aSize)), bs(static_cast<size_t>(bSize)), os(static_cast<size_t>(oSize));
        for (int64_t bt = 0; bt < g.batches; ++bt) {
            const T* A = a + g.aBatch[bt] * aSize;
            const T* B = b + g.bBatch[bt] * bSize;
            for (int64_t i = 0; i < aSize; ++i) as[i] = static_cast<W>(loadElement(A[i]));
            for (int64_t i = 0; i < bSize; ++i) bs[i] = static_cast<W>(loadElement(B[i]));
            gemm(g.ta, g.tb, g.m, g.n, g.k, as.data(), g.aCols, bs.data(), g.bCols, os.data(), g.n);
            T* O = out + bt * oSize;
            for (int64_t i = 0; i < oSize; ++i) O[i] = storeElement<T>(static_cast<double>(os[i]));
        }
    }
}
}  // namespace

void matmulInto(const MatmulGeom& g, DType t, const uint8_t* a, const uint8_t* b, uint8_t* out) {
    visitRealDType(t, [&](auto tag) {
        using T = typename decltype(tag)::type;
        using W = std::conditional_t<std::is_same_v<T, float> || std::is_same_v<T, double>, T,
                                     std::conditional_t<isHalfLike<T>, float, double>>;
        matmulBatches<T, W>(g, reinterpret_cast<const T*>(a), reinterpret_cast<const T*>(b), reinterpret_cast<T*>(out));
    }, [&] { throw Error(std::string("internal: matmul in dtype ") + std::string(dtypeShortName(t))); });
}

Tensor matmulTensor(const Context& c, const Tensor& a, bool ta, const Tensor& b, bool tb, DType t, const Dims* want) {
    const MatmulGeom g = matmulGeometry(c, a.dims, ta, b.dims, tb);
    auto compute = [&](const Tensor& A, const Tensor& B, bool metered) {
        std::optional<ScopedStorageMeter> off;
        if (!metered) off.emplace(nullptr);
        Tensor out(t, g.outDims);
        matmulInto(g, t, A.bytes.data(), B.bytes.data(), out.bytes.data());
        return out;
    };
    const bool direct = !want || *want == g.outDims;
    if (!direct) checkReducible(g.outDims, *want, c.failFn());  // a grad summed back to its operand
    Tensor product;
    if (a.dtype == t && b.dtype == t) {
        product = compute(a, b, direct);
    } else {
        std::optional<Tensor> a2, b2;
        {
            ScopedStorageMeter off(nullptr);
            if (a.dtype != t) a2 = mapElements(a, t, [](auto v) { return static_cast<double>(v); });
            if (b.dtype != t) b2 = mapElements(b, t, [](auto v) { return static_cast<double>(v); });
        }
        product = compute(a2 ? *a2 : a, b2 ? *b2 : b, direct);
    }
    if (direct) return product;
    return sumToShape(product, *want);
}

Tensor sumToShape(const Tensor& from, const Dims& to) {
    Tensor out(from.dtype, to);
    visitRealDType(from.dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        const T* in = from.data<T>();
        T* o = out.data<T>();
        forEachReduction(from.dims, to, [&](int64_t k, auto&& visit) {
            decltype(loadElement(T{})) acc{};
            visit([&](int64_t off) { acc += loadElement(in[off]); });
            o[k] = storeElement<T>(acc);
        });
    }, [&] { throw Error(std::string("internal: sum in dtype ") + std::string(dtypeShortName(from.dtype))); });
    return out;
}

// ---------- conv / pool geometry (OpSemantics) ----------

Tensor concatTensors(Context& c, std::span<const TensorPtr> l, size_t axis) {
    if (l.empty()) c.fail("concat of an empty vector");
    std::vector<Dims> parts;
    for (const TensorPtr& t : l) parts.push_back(t->dims);
    Dims od = concatDims(c, parts, axis);
    Tensor out(c.outDType(0), od);
    const AxisLanes lanes = axisLanes(od, axis);
    const int64_t outer = lanes.outer, inner = lanes.inner;
    int64_t off = 0;
    for (const TensorPtr& t : l) {
        int64_t chunk = t->dims[axis] * inner;
        const size_t eb = static_cast<size_t>(dtypeBytes(out.dtype));
        for (int64_t o = 0; o < outer; ++o) {
            if (t->dtype == out.dtype && !isComplexDType(out.dtype)) {
                std::memcpy(out.bytes.data() + (o * od[axis] * inner + off) * eb, t->bytes.data() + o * chunk * eb, chunk * eb);
                continue;
            }
            for (int64_t j = 0; j < chunk; ++j) out.set(o * od[axis] * inner + off + j, t->get(o * chunk + j));
        }
        off += chunk;
    }
    return out;
}

void splitInto(Context& c, const Tensor& x, const SplitGeom& g) {
    const int64_t total = g.lanes.n, outer = g.lanes.outer, inner = g.lanes.inner;
    int eb = dtypeBytes(x.dtype);
    std::vector<TensorPtr> parts;
    int64_t off = 0;
    for (size_t i = 0; i < g.sections.size(); ++i) {
        const int64_t s = g.sections[i];
        Tensor t(x.dtype, g.parts[i]);
        for (int64_t o = 0; o < outer; ++o)
            std::memcpy(t.bytes.data() + o * s * inner * eb, x.bytes.data() + (o * total + off) * inner * eb, s * inner * eb);
        off += s;
        parts.push_back(std::make_shared<const Tensor>(std::move(t)));
    }
    c.setOutList(0, std::move(parts));
}

}  // namespace rx::exec::cpu
