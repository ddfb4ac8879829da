// Shared CPU kernel support: seeded hashing, broadcasting indices, reduction plans, elementwise
// tables, shape helpers, the matmul core, layer-norm and pool windows, concat/split.
#include "exec/cpu/KernelContext.h"
#include "exec/cpu/Blas.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

namespace rx::exec::cpu {

uint64_t mix64(uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

uint64_t hashString(const std::string& s, uint64_t seed) {
    uint64_t h = mix64(seed ^ 0x51ed270b27a4d1c3ull);
    for (unsigned char c : s) h = mix64(h ^ c);
    return h;
}

// Uniform double in [0,1) from a counter-based generator (same value for same key, index).
double uniformAt(uint64_t key, uint64_t index) {
    return static_cast<double>(mix64(key ^ mix64(index)) >> 11) * (1.0 / 9007199254740992.0);
}

bool isFloat(DType t) {
    return t == DType::Float16 || t == DType::BFloat16 || t == DType::Float32 || t == DType::Float64;
}

// ---------- broadcasting ----------
Dims broadcastDims(const Context& c, const Dims& a, const Dims& b) {
    auto out = broadcastShapes(a, b);
    if (!out) c.fail("shapes " + dimsString(a) + " and " + dimsString(b) + " do not broadcast");
    return *out;
}

// For each output element, the linear index into an input of dims `in` broadcast to `out`.
std::vector<int64_t> broadcastIndex(const Dims& in, const Dims& out) {
    int64_t n = numelOf(out);
    std::vector<int64_t> idx(static_cast<size_t>(n));
    if (in == out) { std::iota(idx.begin(), idx.end(), 0); return idx; }
    size_t r = out.size();
    Dims inFull(r, 1);
    for (size_t i = 0; i < in.size(); ++i) inFull[r - in.size() + i] = in[i];
    Dims inStr = stridesOf(inFull);
    for (size_t i = 0; i < r; ++i) if (inFull[i] == 1) inStr[i] = 0;
    Dims counter(r, 0);
    int64_t pos = 0;
    for (int64_t k = 0; k < n; ++k) {
        idx[k] = pos;
        for (int i = static_cast<int>(r) - 1; i >= 0; --i) {
            if (++counter[i] < out[i]) { pos += inStr[i]; break; }
            pos -= inStr[i] * (out[i] - 1);
            counter[i] = 0;
        }
    }
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

ReducePlan planReduce(const Context& c, const Dims& in, Dims axes, bool reduceAll) {
    size_t r = in.size();
    std::vector<bool> reduce(r, false);
    if (axes.empty() || reduceAll) std::fill(reduce.begin(), reduce.end(), true);
    for (int64_t a : axes) if (r > 0) reduce[c.normAxis(a, r)] = true;
    ReducePlan p;
    Dims od(r);
    for (size_t i = 0; i < r; ++i) {
        od[i] = reduce[i] ? 1 : in[i];
        if (!reduce[i]) p.outDimsNoKeep.push_back(in[i]);
    }
    p.outDims = od;
    p.target = broadcastIndex(od, in);
    return p;
}

// ---------- elementwise tables ----------
double gelu(double x, bool approx) {
    if (approx) return 0.5 * x * (1.0 + std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
    return 0.5 * x * (1.0 + std::erf(x * 0.7071067811865476));
}
double geluGrad(double x, bool approx) {
    if (approx) {
        double k = 0.7978845608028654, u = k * (x + 0.044715 * x * x * x);
        double t = std::tanh(u);
        return 0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * k * (1.0 + 3 * 0.044715 * x * x);
    }
    return 0.5 * (1.0 + std::erf(x * 0.7071067811865476)) + x * 0.3989422804014327 * std::exp(-0.5 * x * x);
}
double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

double erfinv(double y) {
    if (y <= -1) return -INFINITY;
    if (y >= 1) return INFINITY;
    double w = -std::log((1.0 - y) * (1.0 + y)), x;
    if (w < 5.0) {
        w -= 2.5;
        x = 2.81022636e-08; x = 3.43273939e-07 + x * w; x = -3.5233877e-06 + x * w;
        x = -4.39150654e-06 + x * w; x = 0.00021858087 + x * w; x = -0.00125372503 + x * w;
        x = -0.00417768164 + x * w; x = 0.246640727 + x * w; x = 1.50140941 + x * w;
    } else {
        w = std::sqrt(w) - 3.0;
        x = -0.000200214257; x = 0.000100950558 + x * w; x = 0.00134934322 + x * w;
        x = -0.00367342844 + x * w; x = 0.00573950773 + x * w; x = -0.0076224613 + x * w;
        x = 0.00943887047 + x * w; x = 1.00167406 + x * w; x = 2.83297682 + x * w;
    }
    x *= y;
    for (int i = 0; i < 2; ++i)  // Newton refinement
        x -= (std::erf(x) - y) / (1.1283791670955126 * std::exp(-x * x));
    return x;
}

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
Dims inferReshape(const Context& c, const Dims& in, Dims shape) {
    int64_t total = numelOf(in), known = 1, infer = -1;
    for (size_t i = 0; i < shape.size(); ++i) {
        if (shape[i] == 0 && i < in.size()) shape[i] = in[i];
        if (shape[i] == -1) { if (infer >= 0) c.fail("reshape with two -1 dims"); infer = static_cast<int64_t>(i); }
        else known *= shape[i];
    }
    if (infer >= 0) { if (known == 0 || total % known) c.fail("cannot infer reshape dim"); shape[infer] = total / known; }
    if (numelOf(shape) != total) c.fail("reshape of " + dimsString(in) + " to " + dimsString(shape) + " changes the element count");
    return shape;
}

Tensor reshaped(const Tensor& t, Dims d) { Tensor out = t; out.dims = std::move(d); return out; }

Tensor transposeTensor(const Context& c, const Tensor& t, const Dims& permIn) {
    size_t r = t.dims.size();
    if (permIn.size() != r) c.fail("perm " + dimsString(permIn) + " does not match rank " + std::to_string(r));
    Dims perm(r);
    for (size_t i = 0; i < r; ++i) perm[i] = c.normAxis(permIn[i], r);
    Dims od(r);
    for (size_t i = 0; i < r; ++i) od[i] = t.dims[perm[i]];
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
    int eb = dtypeBytes(t.dtype);
    std::vector<int64_t> idx = broadcastIndex(t.dims, od);
    for (size_t k = 0; k < idx.size(); ++k) std::memcpy(out.bytes.data() + k * eb, t.bytes.data() + idx[k] * eb, eb);
    return out;
}

// ---------- matmul ----------
// Batched matmul with broadcasting of leading dims; operands already 2-D or more.
// optimize("O3"): -O2's cost model leaves the axpy below scalar; vectorizing it does not
// change the result (each element is still one multiply-add per p, in the same order).
std::vector<double> matmulCore(const Context& c, const std::vector<double>& a, Dims ad, bool ta,
                               const std::vector<double>& b, Dims bd, bool tb, Dims& outDims) {
    bool aVec = ad.size() == 1, bVec = bd.size() == 1;
    if (aVec) { ad = {1, ad[0]}; ta = false; }
    if (bVec) { bd = {bd[0], 1}; tb = false; }
    if (ad.size() < 2 || bd.size() < 2) c.fail("matmul of 0-d tensors");
    int64_t m = ta ? ad[ad.size() - 1] : ad[ad.size() - 2];
    int64_t k = ta ? ad[ad.size() - 2] : ad[ad.size() - 1];
    int64_t k2 = tb ? bd[bd.size() - 1] : bd[bd.size() - 2];
    int64_t n = tb ? bd[bd.size() - 2] : bd[bd.size() - 1];
    if (k != k2) c.fail("matmul inner dims differ: " + dimsString(ad) + " x " + dimsString(bd));
    Dims abatch(ad.begin(), ad.end() - 2), bbatch(bd.begin(), bd.end() - 2);
    Dims batch = broadcastDims(c, abatch, bbatch);
    std::vector<int64_t> ai = broadcastIndex(abatch, batch), bi = broadcastIndex(bbatch, batch);
    int64_t nb = numelOf(batch);
    std::vector<double> out(static_cast<size_t>(nb * m * n), 0.0);
    int64_t ar = ad[ad.size() - 2], ac = ad[ad.size() - 1], br = bd[bd.size() - 2], bc = bd[bd.size() - 1];
    // One OpenBLAS GEMM per batch entry (fixed threads: reruns are bit-identical).
    for (int64_t bt = 0; bt < nb; ++bt) {
        const double* A = a.data() + ai[bt] * ar * ac;
        const double* B = b.data() + bi[bt] * br * bc;
        gemm(ta, tb, m, n, k, A, ac, B, bc, out.data() + bt * m * n, n);
    }
    outDims = batch;
    if (!aVec) outDims.push_back(m);
    if (!bVec) outDims.push_back(n);
    return out;
}

// ---------- layer norm ----------
LnShape lnShape(const Context& c, const Dims& d) {
    int64_t axis = c.attrInt("begin_norm_axis", 1);
    if (axis < 0) axis += static_cast<int64_t>(d.size());
    if (axis < 0 || axis > static_cast<int64_t>(d.size())) c.fail("begin_norm_axis out of range");
    LnShape s{1, 1};
    for (int64_t i = 0; i < static_cast<int64_t>(d.size()); ++i) (i < axis ? s.rows : s.cols) *= d[i];
    return s;
}
Dims statDims(const Context& c, size_t result, int64_t rows) {
    if (auto d = c.staticDims(result); d && numelOf(*d) == rows) return *d;
    return {rows};
}

// ---------- conv / pool geometry (OpSemantics) ----------
FailFn failOf(const Context& c) { return [&c](const std::string& m) { c.fail(m); }; }
Conv2dGeom convGeom(const Context& c, const Dims& x, const Dims& f) { return conv2dGeometry(c.o, x, f, failOf(c)); }
PoolGeom poolGeom(const Context& c, const Dims& x, Dims ksize) { return pool2dGeometry(c.o, x, std::move(ksize), failOf(c)); }
// Window of output (i, j): [h0, h1) x [w0, w1) clipped to the input; `count` is the divisor.
void poolWindow(const PoolGeom& g, int64_t i, int64_t j, int64_t& h0, int64_t& h1, int64_t& w0, int64_t& w1, int64_t& count) {
    if (g.adaptive) {
        h0 = i * g.h / g.oh; h1 = ((i + 1) * g.h + g.oh - 1) / g.oh;
        w0 = j * g.w / g.ow; w1 = ((j + 1) * g.w + g.ow - 1) / g.ow;
        count = (h1 - h0) * (w1 - w0);
        return;
    }
    int64_t hs = i * g.sh - g.ph0, ws = j * g.sw - g.pw0;
    int64_t he = std::min(hs + g.kh, g.h + g.ph1), we = std::min(ws + g.kw, g.w + g.pw1);
    int64_t full = (he - hs) * (we - ws);
    h0 = std::max<int64_t>(hs, 0); w0 = std::max<int64_t>(ws, 0);
    h1 = std::min(he, g.h); w1 = std::min(we, g.w);
    count = g.exclusive ? (h1 - h0) * (w1 - w0) : full;
}

// ---------- dropout ----------
double dropoutP(const Context& c) {
    if (c.hasAttr("p")) return c.attrFloat("p", 0.5);
    // p as a mutable scalar operand: the last 1-element float operand after x.
    for (size_t i = c.operandCount(); i-- > 1;)
        if (c.has(i) && !c.inputs[i]->isList && c.x(i).numel() == 1 && isFloat(c.x(i).dtype)) return c.scalar(i);
    return 0.5;
}

Tensor concatTensors(Context& c, const std::vector<TensorPtr>& l, int64_t axisIn) {
    if (l.empty()) c.fail("concat of nothing");
    size_t r = l[0]->dims.size();
    int64_t axis = c.normAxis(axisIn, r);
    Dims od = l[0]->dims;
    od[axis] = 0;
    for (const TensorPtr& t : l) {
        if (t->dims.size() != r) c.fail("concat of different ranks");
        for (size_t i = 0; i < r; ++i)
            if (static_cast<int64_t>(i) != axis && t->dims[i] != l[0]->dims[i]) c.fail("concat of mismatched dims");
        od[axis] += t->dims[axis];
    }
    Tensor out(c.outDType(0), od);
    int64_t outer = 1, inner = 1;
    for (int64_t i = 0; i < axis; ++i) outer *= od[i];
    for (size_t i = axis + 1; i < r; ++i) inner *= od[i];
    int64_t off = 0;
    for (const TensorPtr& t : l) {
        int64_t chunk = t->dims[axis] * inner;
        for (int64_t o = 0; o < outer; ++o)
            for (int64_t j = 0; j < chunk; ++j) out.set(o * od[axis] * inner + off + j, t->get(o * chunk + j));
        off += chunk;
    }
    return out;
}

void splitInto(Context& c, const Tensor& x, Dims sections, int64_t axisIn) {
    int64_t axis = c.normAxis(axisIn, x.dims.size());
    int64_t total = x.dims[axis], known = 0, infer = -1;
    for (size_t i = 0; i < sections.size(); ++i) {
        if (sections[i] < 0) infer = static_cast<int64_t>(i); else known += sections[i];
    }
    if (infer >= 0) sections[infer] = total - known;
    if (std::accumulate(sections.begin(), sections.end(), int64_t{0}) != total) c.fail("split sections do not sum to the axis size");
    int64_t outer = 1, inner = 1;
    for (int64_t i = 0; i < axis; ++i) outer *= x.dims[i];
    for (size_t i = axis + 1; i < x.dims.size(); ++i) inner *= x.dims[i];
    int eb = dtypeBytes(x.dtype);
    std::vector<TensorPtr> parts;
    int64_t off = 0;
    for (int64_t s : sections) {
        Dims d = x.dims; d[axis] = s;
        Tensor t(x.dtype, d);
        for (int64_t o = 0; o < outer; ++o)
            std::memcpy(t.bytes.data() + o * s * inner * eb, x.bytes.data() + (o * total + off) * inner * eb, s * inner * eb);
        off += s;
        parts.push_back(std::make_shared<const Tensor>(std::move(t)));
    }
    c.setOutList(0, std::move(parts));
}

}  // namespace rx::exec::cpu
