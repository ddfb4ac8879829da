#include "algorithms/exec/CpuExecutor.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <functional>
#include <memory>
#include <numeric>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "algorithms/exec/OpSemantics.h"
#include "model/Diagnostic.h"

namespace rx::exec {
namespace {

using TensorPtr = std::shared_ptr<const Tensor>;

// A value at run time: one tensor, or a list (vector types from combine / split).
struct Slot {
    TensorPtr tensor;
    std::vector<TensorPtr> list;
    bool isList = false;
    bool set = false;
};

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

class Context;
using Kernel = std::function<void(Context&)>;

class Context {
public:
    Context(const Program& p, OpId op, std::vector<const Slot*> in, uint64_t seed)
        : program(p), id(op), o(p.ops[op]), inputs(std::move(in)), runSeed(seed) {
        outputs.resize(o.results.size());
    }
    const Program& program;
    OpId id;
    const Operation& o;
    std::vector<const Slot*> inputs;
    std::vector<Slot> outputs;
    uint64_t runSeed;

    [[noreturn]] void fail(const std::string& msg) const {
        std::string where = "op " + std::to_string(id) + " (" + std::string(program.opName(id));
        if (!o.results.empty()) where += " -> " + program.values[o.results[0]].name;
        throw Error(where + "): " + msg);
    }
    size_t operandCount() const { return inputs.size(); }
    bool has(size_t i) const { return i < inputs.size() && inputs[i] && inputs[i]->set; }
    const Tensor& x(size_t i) const {
        if (!has(i)) fail("operand " + std::to_string(i) + " is missing");
        if (inputs[i]->isList) fail("operand " + std::to_string(i) + " is a vector, expected a tensor");
        return *inputs[i]->tensor;
    }
    const std::vector<TensorPtr>& list(size_t i) const {
        if (!has(i)) fail("operand " + std::to_string(i) + " is missing");
        if (!inputs[i]->isList) fail("operand " + std::to_string(i) + " is a tensor, expected a vector");
        return inputs[i]->list;
    }
    // Integer contents of an operand: a tensor, or a vector of (0-d / 1-element) tensors.
    Dims ints(size_t i) const {
        Dims out;
        if (!has(i)) fail("operand " + std::to_string(i) + " is missing");
        auto add = [&](const Tensor& t) {
            for (int64_t k = 0; k < t.numel(); ++k) out.push_back(static_cast<int64_t>(t.get(k)));
        };
        if (inputs[i]->isList) for (const TensorPtr& t : inputs[i]->list) add(*t);
        else add(*inputs[i]->tensor);
        return out;
    }
    double scalar(size_t i) const {
        const Tensor& t = x(i);
        if (t.numel() < 1) fail("operand " + std::to_string(i) + " is empty, expected a scalar");
        return t.get(0);
    }
    const Type& resultType(size_t i) const {
        if (i >= o.results.size()) fail("has " + std::to_string(o.results.size()) + " results, expected at least " + std::to_string(i + 1));
        return program.types[program.values[o.results[i]].type]; }
    bool resultIsNull(size_t i) const { return resultType(i).kind == Type::Kind::Null; }
    DType outDType(size_t i) const {
        const Type& t = resultType(i);
        if (t.kind != Type::Kind::DenseTensor) fail("result " + std::to_string(i) + " is not a dense tensor");
        if (!isSupportedDType(t.dtype)) fail("unsupported dtype " + std::string(dtypeShortName(t.dtype)));
        return t.dtype;
    }
    // Static dims of result i, or nullopt if any is dynamic.
    std::optional<Dims> staticDims(size_t i) const {
        const Type& t = resultType(i);
        if (t.kind != Type::Kind::DenseTensor) return std::nullopt;
        for (int64_t d : t.dims) if (d < 0) return std::nullopt;
        return t.dims;
    }

    const Attribute* attr(std::string_view n) const { return o.attribute(n); }
    bool hasAttr(std::string_view n) const { return attr(n) != nullptr; }
    int64_t attrInt(std::string_view n, int64_t def) const { return rx::exec::attrInt(o, n, def); }
    double attrFloat(std::string_view n, double def) const {
        try { return rx::exec::attrFloat(o, n, def); } catch (const Error& e) { fail(e.what()); }
    }
    bool attrBool(std::string_view n, bool def) const { return rx::exec::attrBool(o, n, def); }
    Dims attrInts(std::string_view n) const { return rx::exec::attrInts(o, n); }
    std::string attrString(std::string_view n, std::string def) const { return rx::exec::attrString(o, n, std::move(def)); }
    // Refuses a result of `d` elements above the run's limit before it is allocated (shapes
    // that come from data, e.g. full with a shape operand).
    void requireElements(const Dims& d) const {
        double n = 1;
        for (int64_t x : d) {
            if (x < 0) fail("shape " + dimsString(d) + " has a negative dim");
            n *= static_cast<double>(x);
        }
        if (maxElements > 0 && n > static_cast<double>(maxElements))
            fail("shape " + dimsString(d) + " exceeds the limit of " + std::to_string(maxElements) + " elements per value (RunOptions::maxElementsPerValue)");
    }
    int64_t maxElements = 0;
    std::string resultName(size_t i) const { return i < o.results.size() ? program.values[o.results[i]].name : std::string("(no result)"); }

    void needResult(size_t i) const {
        if (i >= outputs.size()) fail("has " + std::to_string(outputs.size()) + " results, the kernel writes result " + std::to_string(i));
    }
    void setOut(size_t i, Tensor t) {
        needResult(i);
        outputs[i].tensor = std::make_shared<const Tensor>(std::move(t));
        outputs[i].set = true;
    }
    void setOutShared(size_t i, TensorPtr t) { needResult(i); outputs[i].tensor = std::move(t); outputs[i].set = true; }
    void setOutList(size_t i, std::vector<TensorPtr> l) {
        needResult(i);
        outputs[i].list = std::move(l); outputs[i].isList = true; outputs[i].set = true;
    }
    void setOutDoubles(size_t i, Dims d, const std::vector<double>& v) { setOut(i, Tensor::fromDoubles(outDType(i), std::move(d), v)); }
    int64_t normAxis(int64_t axis, size_t rank) const {
        int64_t r = static_cast<int64_t>(rank);
        int64_t a = axis < 0 ? axis + r : axis;
        if (a < 0 || a >= std::max<int64_t>(r, 1)) fail("axis " + std::to_string(axis) + " out of range for rank " + std::to_string(r));
        return a;
    }
};

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
struct ReducePlan {
    Dims outDims;        // with keepdim
    Dims outDimsNoKeep;
    std::vector<int64_t> target;  // output index of every input element
};

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
const char* const kBinaryOps[] = {
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
[[gnu::optimize("O3")]] std::vector<double> matmulCore(const Context& c, const std::vector<double>& a, Dims ad, bool ta,
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
    // op(B) as a contiguous [k, n] panel, so the inner loop is a unit-stride axpy that the
    // compiler vectorizes; the summation order (p ascending) is fixed, so results are
    // reproducible bit for bit.
    std::vector<double> panel;
    for (int64_t bt = 0; bt < nb; ++bt) {
        const double* A = a.data() + ai[bt] * ar * ac;
        const double* B = b.data() + bi[bt] * br * bc;
        if (tb) {
            panel.resize(static_cast<size_t>(k * n));
            for (int64_t j = 0; j < n; ++j)
                for (int64_t p = 0; p < k; ++p) panel[p * n + j] = B[j * bc + p];
            B = panel.data();
        }
        double* O = out.data() + bt * m * n;
        for (int64_t i = 0; i < m; ++i) {
            double* __restrict row = O + i * n;
            for (int64_t p = 0; p < k; ++p) {
                const double av = ta ? A[p * ac + i] : A[i * ac + p];
                if (av == 0.0) continue;
                const double* __restrict brow = B + p * n;
                for (int64_t j = 0; j < n; ++j) row[j] += av * brow[j];
            }
        }
    }
    outDims = batch;
    if (!aVec) outDims.push_back(m);
    if (!bVec) outDims.push_back(n);
    return out;
}

// ---------- layer norm ----------
struct LnShape { int64_t rows, cols; };
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

// ---------- kernel registry ----------
std::unordered_map<std::string, Kernel> buildKernels() {
    std::unordered_map<std::string, Kernel> k;

    // -- sources and plumbing (inputs are handled by the run loop) --
    k["pd_op.full"] = [](Context& c) {
        Dims shape = c.attrInts("shape");
        if (c.operandCount() > 0 && c.has(0)) shape = c.ints(0);
        c.requireElements(shape);
        double v = c.attrFloat("value", 0.0);
        int64_t n = numelOf(shape);
        c.setOutDoubles(0, shape, std::vector<double>(static_cast<size_t>(n), v));
    };
    k["pd_op.full_int_array"] = [](Context& c) {
        Dims v = c.attrInts("value");
        std::vector<double> d(v.begin(), v.end());
        c.setOutDoubles(0, {static_cast<int64_t>(v.size())}, d);
    };
    k["pd_op.full_like"] = [](Context& c) {
        double v = c.has(1) ? c.scalar(1) : c.attrFloat("value", 0.0);
        const Tensor& x = c.x(0);
        c.setOutDoubles(0, x.dims, std::vector<double>(static_cast<size_t>(x.numel()), v));
    };
    k["pd_op.full_with_tensor"] = [](Context& c) {
        // (value, shape) as Paddle prints it; fall back to the result type for the shape.
        double v = c.scalar(0);
        Dims shape = c.has(1) ? c.ints(1) : Dims{};
        if (auto d = c.staticDims(0)) shape = *d;
        c.requireElements(shape);
        c.setOutDoubles(0, shape, std::vector<double>(static_cast<size_t>(numelOf(shape)), v));
    };
    k["pd_op.arange"] = [](Context& c) {
        double start = c.scalar(0), end = c.scalar(1), step = c.scalar(2);
        if (step == 0) c.fail("arange with step 0");
        double len = std::ceil((end - start) / step);
        if (!std::isfinite(len)) c.fail("arange with non-finite length");
        int64_t n = std::max<int64_t>(0, static_cast<int64_t>(std::min(len, 9.0e18)));
        c.requireElements({n});
        std::vector<double> v(static_cast<size_t>(n));
        for (int64_t i = 0; i < n; ++i) v[i] = start + step * static_cast<double>(i);
        c.setOutDoubles(0, {n}, v);
    };
    auto shapeKernel = [](Context& c) {
        const Tensor& x = c.x(0);
        std::vector<double> d(x.dims.begin(), x.dims.end());
        c.setOutDoubles(0, {static_cast<int64_t>(d.size())}, d);
    };
    k["pd_op.shape"] = shapeKernel;
    k["pd_op.shape64"] = shapeKernel;
    auto identity = [](Context& c) { c.x(0); c.setOutShared(0, c.inputs[0]->tensor); };
    k["pd_op.assign"] = identity;
    k["pd_op.fetch"] = identity;
    k["builtin.shadow_output"] = [](Context&) {};
    k["builtin.combine"] = [](Context& c) {
        std::vector<TensorPtr> l;
        for (size_t i = 0; i < c.operandCount(); ++i) { c.x(i); l.push_back(c.inputs[i]->tensor); }
        c.setOutList(0, std::move(l));
    };
    k["builtin.split"] = [](Context& c) {
        const auto& l = c.list(0);
        if (l.size() != c.outputs.size()) c.fail("splits a vector of " + std::to_string(l.size()) + " into " + std::to_string(c.outputs.size()));
        for (size_t i = 0; i < l.size(); ++i) c.setOutShared(i, l[i]);
    };
    k["builtin.slice"] = [](Context& c) {
        const auto& l = c.list(0);
        int64_t i = c.attrInt("index", 0);
        if (i < 0 || i >= static_cast<int64_t>(l.size())) c.fail("slice index out of range");
        c.setOutShared(0, l[i]);
    };

    // -- elementwise --
    for (const auto& [name, fn] : unaryTable()) {
        auto f = fn;
        k[std::string(name)] = [f](Context& c) {
            const Tensor& x = c.x(0);
            std::vector<double> v = x.toDoubles();
            for (double& e : v) e = f(e);
            c.setOutDoubles(0, x.dims, v);
        };
    }
    k["pd_op.gelu"] = [](Context& c) {
        bool approx = c.attrBool("approximate", false);
        const Tensor& x = c.x(0);
        std::vector<double> v = x.toDoubles();
        for (double& e : v) e = gelu(e, approx);
        c.setOutDoubles(0, x.dims, v);
    };
    k["pd_op.pow"] = [](Context& c) {
        double y = c.has(1) ? c.scalar(1) : c.attrFloat("y", 1.0);
        const Tensor& x = c.x(0);
        std::vector<double> v = x.toDoubles();
        for (double& e : v) e = (y == 2.0) ? e * e : std::pow(e, y);
        c.setOutDoubles(0, x.dims, v);
    };
    k["pd_op.scale"] = [](Context& c) {
        double s = c.has(1) ? c.scalar(1) : c.attrFloat("scale", 1.0);
        double b = c.attrFloat("bias", 0.0);
        bool after = c.attrBool("bias_after_scale", true);
        const Tensor& x = c.x(0);
        std::vector<double> v = x.toDoubles();
        for (double& e : v) e = after ? e * s + b : (e + b) * s;
        c.setOutDoubles(0, x.dims, v);
    };
    k["pd_op.clip"] = [](Context& c) {
        double lo = c.has(1) ? c.scalar(1) : c.attrFloat("min", -INFINITY);
        double hi = c.has(2) ? c.scalar(2) : c.attrFloat("max", INFINITY);
        const Tensor& x = c.x(0);
        std::vector<double> v = x.toDoubles();
        for (double& e : v) e = std::min(std::max(e, lo), hi);
        c.setOutDoubles(0, x.dims, v);
    };
    k["pd_op.cast"] = [](Context& c) {
        const Tensor& x = c.x(0);
        std::vector<double> v = x.toDoubles();
        if (c.outDType(0) == DType::Bool) for (double& e : v) e = e != 0.0;
        c.setOutDoubles(0, x.dims, v);
    };
    for (int code = 0; code < static_cast<int>(std::size(kBinaryOps)); ++code) {
        const int n = code;
        k[kBinaryOps[code]] = [n](Context& c) {
            const Tensor& a = c.x(0);
            const Tensor& b = c.x(1);
            Dims od = broadcastDims(c, a.dims, b.dims);
            std::vector<double> av = a.toDoubles(), bv = b.toDoubles();
            bool integer = !isFloat(c.outDType(0)) && c.outDType(0) != DType::Bool;
            std::vector<double> out(static_cast<size_t>(numelOf(od)));
            if (a.dims == od && b.dims == od) {  // no broadcasting: skip the index maps
                for (size_t i = 0; i < out.size(); ++i) out[i] = binaryApply(n, av[i], bv[i], integer);
            } else if (a.dims == od && b.numel() == 1) {
                for (size_t i = 0; i < out.size(); ++i) out[i] = binaryApply(n, av[i], bv[0], integer);
            } else {
                std::vector<int64_t> ia = broadcastIndex(a.dims, od), ib = broadcastIndex(b.dims, od);
                for (size_t i = 0; i < out.size(); ++i) out[i] = binaryApply(n, av[ia[i]], bv[ib[i]], integer);
            }
            c.setOutDoubles(0, od, out);
        };
    }
    k["pd_op.where"] = [](Context& c) {
        const Tensor& cond = c.x(0);
        const Tensor& a = c.x(1);
        const Tensor& b = c.x(2);
        Dims od = broadcastDims(c, broadcastDims(c, cond.dims, a.dims), b.dims);
        auto ic = broadcastIndex(cond.dims, od), ia = broadcastIndex(a.dims, od), ib = broadcastIndex(b.dims, od);
        std::vector<double> out(ic.size());
        for (size_t i = 0; i < ic.size(); ++i) out[i] = cond.get(ic[i]) != 0 ? a.get(ia[i]) : b.get(ib[i]);
        c.setOutDoubles(0, od, out);
    };
    k["pd_op.add_n"] = [](Context& c) {
        const auto& l = c.list(0);
        if (l.empty()) c.fail("add_n of nothing");
        std::vector<double> acc = l[0]->toDoubles();
        for (size_t i = 1; i < l.size(); ++i) {
            if (l[i]->dims != l[0]->dims) c.fail("add_n of different shapes");
            std::vector<double> v = l[i]->toDoubles();
            for (size_t j = 0; j < acc.size(); ++j) acc[j] += v[j];
        }
        c.setOutDoubles(0, l[0]->dims, acc);
    };
    auto triKernel = [](bool lower) {
        return [lower](Context& c) {
            const Tensor& x = c.x(0);
            if (x.dims.size() < 2) c.fail("tril/triu need rank >= 2");
            int64_t diag = c.attrInt("diagonal", 0);
            int64_t rows = x.dims[x.dims.size() - 2], cols = x.dims.back();
            std::vector<double> v = x.toDoubles();
            for (size_t e = 0; e < v.size(); ++e) {
                int64_t j = static_cast<int64_t>(e) % cols, i = (static_cast<int64_t>(e) / cols) % rows;
                bool keep = lower ? (j - i <= diag) : (j - i >= diag);
                if (!keep) v[e] = 0;
            }
            c.setOutDoubles(0, x.dims, v);
        };
    };
    k["pd_op.tril"] = triKernel(true);
    k["pd_op.triu"] = triKernel(false);

    // -- shape ops --
    auto reshapeKernel = [](Context& c) {
        const Tensor& x = c.x(0);
        Dims shape = c.has(1) ? c.ints(1) : c.attrInts("shape");
        Dims od = inferReshape(c, x.dims, shape);
        c.setOut(0, reshaped(x, od));
        if (c.outputs.size() > 1 && !c.resultIsNull(1)) {  // xshape: [0, x dims...], no data
            Dims xs{0}; xs.insert(xs.end(), x.dims.begin(), x.dims.end());
            c.setOut(1, Tensor(c.outDType(1), xs));
        }
    };
    k["pd_op.reshape"] = reshapeKernel;
    k["pd_op.view_shape"] = reshapeKernel;
    auto squeezeLike = [](bool squeeze) {
        return [squeeze](Context& c) {
            const Tensor& x = c.x(0);
            Dims axes = c.has(1) ? c.ints(1) : c.attrInts("axis");
            Dims od;
            if (squeeze) {
                std::vector<bool> drop(x.dims.size(), false);
                if (axes.empty()) for (size_t i = 0; i < x.dims.size(); ++i) drop[i] = x.dims[i] == 1;
                for (int64_t a : axes) { int64_t n = c.normAxis(a, x.dims.size()); if (x.dims[n] == 1) drop[n] = true; }
                for (size_t i = 0; i < x.dims.size(); ++i) if (!drop[i]) od.push_back(x.dims[i]);
            } else {
                od = x.dims;
                size_t finalRank = x.dims.size() + axes.size();
                Dims norm;
                for (int64_t a : axes) norm.push_back(a < 0 ? a + static_cast<int64_t>(finalRank) : a);
                std::sort(norm.begin(), norm.end());
                for (int64_t a : norm) {
                    if (a < 0 || a > static_cast<int64_t>(od.size())) c.fail("unsqueeze axis out of range");
                    od.insert(od.begin() + a, 1);
                }
            }
            c.setOut(0, reshaped(x, od));
            if (c.outputs.size() > 1 && !c.resultIsNull(1)) {
                Dims xs{0}; xs.insert(xs.end(), x.dims.begin(), x.dims.end());
                c.setOut(1, Tensor(c.outDType(1), xs));
            }
        };
    };
    k["pd_op.squeeze"] = squeezeLike(true);
    k["pd_op.unsqueeze"] = squeezeLike(false);
    k["pd_op.flatten"] = [](Context& c) {
        const Tensor& x = c.x(0);
        int64_t r = static_cast<int64_t>(x.dims.size());
        int64_t s = c.attrInt("start_axis", 1), e = c.attrInt("stop_axis", -1);
        if (r == 0) { c.setOut(0, reshaped(x, {1})); return; }
        s = c.normAxis(s, r); e = c.normAxis(e, r);
        Dims od(x.dims.begin(), x.dims.begin() + s);
        int64_t m = 1;
        for (int64_t i = s; i <= e; ++i) m *= x.dims[i];
        od.push_back(m);
        od.insert(od.end(), x.dims.begin() + e + 1, x.dims.end());
        c.setOut(0, reshaped(x, od));
        if (c.outputs.size() > 1 && !c.resultIsNull(1)) {
            Dims xs{0}; xs.insert(xs.end(), x.dims.begin(), x.dims.end());
            c.setOut(1, Tensor(c.outDType(1), xs));
        }
    };
    k["pd_op.transpose"] = [](Context& c) { c.setOut(0, transposeTensor(c, c.x(0), c.attrInts("perm"))); };
    k["pd_op.expand"] = [](Context& c) {
        const Tensor& x = c.x(0);
        Dims shape = c.has(1) ? c.ints(1) : c.attrInts("shape");
        if (shape.size() < x.dims.size()) c.fail("expand to a lower rank");
        for (size_t i = 0; i < shape.size(); ++i) {
            size_t off = shape.size() - x.dims.size();
            if (shape[i] == -1) { if (i < off) c.fail("-1 in a new expand dim"); shape[i] = x.dims[i - off]; }
        }
        broadcastDims(c, x.dims, shape);
        c.requireElements(shape);
        c.setOut(0, expandTensor(x, shape));
    };
    k["pd_op.expand_as"] = [](Context& c) {
        const Tensor& x = c.x(0);
        Dims shape = c.has(1) ? c.x(1).dims : c.attrInts("target_shape");
        broadcastDims(c, x.dims, shape);
        c.setOut(0, expandTensor(x, shape));
    };
    k["pd_op.slice"] = [](Context& c) {
        const Tensor& x = c.x(0);
        Dims axes = c.attrInts("axes");
        Dims starts = c.has(1) ? c.ints(1) : c.attrInts("starts");
        Dims ends = c.has(2) ? c.ints(2) : c.attrInts("ends");
        if (starts.size() != axes.size() || ends.size() != axes.size()) c.fail("slice: axes, starts, ends differ in length");
        size_t r = x.dims.size();
        Dims begin(r, 0), size = x.dims;
        for (size_t i = 0; i < axes.size(); ++i) {
            int64_t a = c.normAxis(axes[i], r), d = x.dims[a];
            int64_t s = starts[i] < 0 ? starts[i] + d : starts[i];
            int64_t e = ends[i] < 0 ? ends[i] + d : ends[i];
            s = std::clamp<int64_t>(s, 0, d); e = std::clamp<int64_t>(e, 0, d);
            begin[a] = s; size[a] = std::max<int64_t>(e - s, 0);
        }
        Tensor out(x.dtype, size);
        int eb = dtypeBytes(x.dtype);
        Dims inStr = stridesOf(x.dims), outStr = stridesOf(size);
        int64_t n = out.numel();
        for (int64_t k2 = 0; k2 < n; ++k2) {
            int64_t rem = k2, pos = 0;
            for (size_t i = 0; i < r; ++i) { int64_t idx = rem / outStr[i]; rem %= outStr[i]; pos += (idx + begin[i]) * inStr[i]; }
            std::memcpy(out.bytes.data() + k2 * eb, x.bytes.data() + pos * eb, eb);
        }
        Dims od;
        Dims dec = c.attrInts("decrease_axis");
        for (size_t i = 0; i < r; ++i) {
            bool drop = false;
            for (int64_t a : dec) if (c.normAxis(a, r) == static_cast<int64_t>(i)) drop = true;
            if (!drop) od.push_back(size[i]);
        }
        out.dims = od;
        c.setOut(0, std::move(out));
    };
    auto concatTensors = [](Context& c, const std::vector<TensorPtr>& l, int64_t axisIn) {
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
    };
    k["pd_op.concat"] = [concatTensors](Context& c) {
        int64_t axis = c.has(1) ? c.ints(1).at(0) : c.attrInt("axis", 0);
        c.setOut(0, concatTensors(c, c.list(0), axis));
    };
    k["pd_op.stack"] = [concatTensors](Context& c) {
        const auto& l = c.list(0);
        if (l.empty()) c.fail("stack of nothing");
        int64_t axis = c.attrInt("axis", 0);
        if (axis < 0) axis += static_cast<int64_t>(l[0]->dims.size()) + 1;
        std::vector<TensorPtr> us;
        for (const TensorPtr& t : l) {
            Dims d = t->dims;
            if (axis < 0 || axis > static_cast<int64_t>(d.size())) c.fail("stack axis out of range");
            d.insert(d.begin() + axis, 1);
            us.push_back(std::make_shared<const Tensor>(reshaped(*t, d)));
        }
        c.setOut(0, concatTensors(c, us, axis));
    };
    auto splitInto = [](Context& c, const Tensor& x, Dims sections, int64_t axisIn) {
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
    };
    k["pd_op.split"] = [splitInto](Context& c) {
        Dims sections = c.has(1) ? c.ints(1) : c.attrInts("sections");
        int64_t axis = c.has(2) ? c.ints(2).at(0) : c.attrInt("axis", 0);
        splitInto(c, c.x(0), sections, axis);
    };
    k["pd_op.split_with_num"] = [splitInto](Context& c) {
        const Tensor& x = c.x(0);
        int64_t num = c.attrInt("num", 1);
        int64_t axis = c.has(1) ? c.ints(1).at(0) : c.attrInt("axis", 0);
        int64_t a = c.normAxis(axis, x.dims.size());
        if (num <= 0 || x.dims[a] % num) c.fail("split_with_num does not divide the axis");
        splitInto(c, x, Dims(static_cast<size_t>(num), x.dims[a] / num), axis);
    };
    k["pd_op.gather_nd"] = [](Context& c) {
        const Tensor& x = c.x(0);
        const Tensor& index = c.x(1);
        if (index.dims.empty()) c.fail("gather_nd index must have rank >= 1");
        int64_t depth = index.dims.back();
        if (depth > static_cast<int64_t>(x.dims.size())) c.fail("gather_nd index depth exceeds the rank");
        Dims od(index.dims.begin(), index.dims.end() - 1);
        od.insert(od.end(), x.dims.begin() + depth, x.dims.end());
        int64_t inner = 1;
        for (size_t i = depth; i < x.dims.size(); ++i) inner *= x.dims[i];
        Dims str = stridesOf(x.dims);
        int64_t rows = index.numel() / std::max<int64_t>(depth, 1);
        if (depth == 0) rows = index.numel() == 0 ? numelOf(Dims(index.dims.begin(), index.dims.end() - 1)) : rows;
        Tensor out(x.dtype, od);
        int eb = dtypeBytes(x.dtype);
        for (int64_t r = 0; r < rows; ++r) {
            int64_t pos = 0;
            for (int64_t j = 0; j < depth; ++j) {
                int64_t v = static_cast<int64_t>(index.get(r * depth + j));
                if (v < 0) v += x.dims[j];
                if (v < 0 || v >= x.dims[j]) c.fail("gather_nd index " + std::to_string(v) + " out of range");
                pos += v * str[j];
            }
            std::memcpy(out.bytes.data() + r * inner * eb, x.bytes.data() + pos * eb, inner * eb);
        }
        c.setOut(0, std::move(out));
    };
    k["pd_op.gather"] = [](Context& c) {
        const Tensor& x = c.x(0);
        const Tensor& index = c.x(1);
        int64_t axis = c.normAxis(c.has(2) ? c.ints(2).at(0) : c.attrInt("axis", 0), x.dims.size());
        Dims od = x.dims;
        od[axis] = index.numel();
        int64_t outer = 1, inner = 1;
        for (int64_t i = 0; i < axis; ++i) outer *= x.dims[i];
        for (size_t i = axis + 1; i < x.dims.size(); ++i) inner *= x.dims[i];
        Tensor out(x.dtype, od);
        int eb = dtypeBytes(x.dtype);
        for (int64_t o = 0; o < outer; ++o)
            for (int64_t j = 0; j < index.numel(); ++j) {
                int64_t v = static_cast<int64_t>(index.get(j));
                if (v < 0 || v >= x.dims[axis]) c.fail("gather index out of range");
                std::memcpy(out.bytes.data() + (o * index.numel() + j) * inner * eb,
                            x.bytes.data() + (o * x.dims[axis] + v) * inner * eb, inner * eb);
            }
        c.setOut(0, std::move(out));
    };

    // -- reductions --
    auto reduceKernel = [](int kind) {  // 0 sum, 1 mean, 2 max, 3 min, 4 prod
        return [kind](Context& c) {
            const Tensor& x = c.x(0);
            Dims axes = c.has(1) ? c.ints(1) : c.attrInts("axis");
            bool keep = c.attrBool("keepdim", false);
            bool all = c.attrBool("reduce_all", false);
            ReducePlan p = planReduce(c, x.dims, axes, all);
            size_t on = static_cast<size_t>(numelOf(p.outDims));
            double init = kind == 2 ? -INFINITY : kind == 3 ? INFINITY : kind == 4 ? 1.0 : 0.0;
            std::vector<double> acc(on, init);
            std::vector<double> v = x.toDoubles();
            for (size_t i = 0; i < v.size(); ++i) {
                double& a = acc[p.target[i]];
                switch (kind) {
                case 0: case 1: a += v[i]; break;
                case 2: a = std::max(a, v[i]); break;
                case 3: a = std::min(a, v[i]); break;
                default: a *= v[i]; break;
                }
            }
            if (kind == 1 && on > 0) {
                double count = static_cast<double>(v.size()) / static_cast<double>(on);
                for (double& a : acc) a /= count;
            }
            c.setOutDoubles(0, keep ? p.outDims : p.outDimsNoKeep, acc);
        };
    };
    k["pd_op.sum"] = reduceKernel(0);
    k["pd_op.mean"] = reduceKernel(1);
    k["pd_op.max"] = reduceKernel(2);
    k["pd_op.min"] = reduceKernel(3);
    k["pd_op.prod"] = reduceKernel(4);
    // sum_grad / mean_grad(x, out_grad[, axis]): broadcast the gradient back to x.
    auto reduceGrad = [](bool mean) {
        return [mean](Context& c) {
            const Tensor& x = c.x(0);
            const Tensor& g = c.x(1);
            Dims axes = c.has(2) ? c.ints(2) : c.attrInts("axis");
            ReducePlan p = planReduce(c, x.dims, axes, c.attrBool("reduce_all", false));
            if (numelOf(p.outDims) != g.numel()) c.fail("gradient does not match the reduced shape");
            std::vector<double> gv = g.toDoubles(), out(static_cast<size_t>(x.numel()));
            double scale = mean ? static_cast<double>(numelOf(p.outDims)) / static_cast<double>(std::max<int64_t>(x.numel(), 1)) : 1.0;
            for (size_t i = 0; i < out.size(); ++i) out[i] = gv[p.target[i]] * scale;
            c.setOutDoubles(0, x.dims, out);
        };
    };
    k["pd_op.sum_grad"] = reduceGrad(false);
    k["pd_op.mean_grad"] = reduceGrad(true);

    // -- matmul --
    k["pd_op.matmul"] = [](Context& c) {
        Dims od;
        std::vector<double> out = matmulCore(c, c.x(0).toDoubles(), c.x(0).dims, c.attrBool("transpose_x", false),
                                             c.x(1).toDoubles(), c.x(1).dims, c.attrBool("transpose_y", false), od);
        c.setOutDoubles(0, od, out);
    };
    k["pd_op.matmul_grad"] = [](Context& c) {
        // x: [..,M,K] (or transposed), y: [..,K,N]; dOut: [..,M,N]. Rank >= 2 only.
        const Tensor& x = c.x(0);
        const Tensor& y = c.x(1);
        const Tensor& g = c.x(2);
        bool tx = c.attrBool("transpose_x", false), ty = c.attrBool("transpose_y", false);
        if (x.dims.size() < 2 || y.dims.size() < 2) c.fail("matmul_grad supports rank >= 2 only");
        std::vector<double> xv = x.toDoubles(), yv = y.toDoubles(), gv = g.toDoubles();
        Dims dxd, dyd;
        // dX = g * op(y)^T (then transposed back if tx); dY = op(x)^T * g (transposed back if ty).
        std::vector<double> dx = tx ? matmulCore(c, yv, y.dims, ty, gv, g.dims, true, dxd)
                                    : matmulCore(c, gv, g.dims, false, yv, y.dims, !ty, dxd);
        std::vector<double> dy = ty ? matmulCore(c, gv, g.dims, true, xv, x.dims, tx, dyd)
                                    : matmulCore(c, xv, x.dims, !tx, gv, g.dims, false, dyd);
        if (!c.resultIsNull(0)) c.setOutDoubles(0, x.dims, reduceToShape(dx, dxd, x.dims));
        if (c.outputs.size() > 1 && !c.resultIsNull(1)) c.setOutDoubles(1, y.dims, reduceToShape(dy, dyd, y.dims));
    };

    // -- elementwise grads --
    auto binaryGrad = [](int kind) {  // 0 add, 1 subtract, 2 multiply, 3 divide
        return [kind](Context& c) {
            const Tensor& x = c.x(0);
            const Tensor& y = c.x(1);
            const Tensor& g = c.x(c.operandCount() - 1);
            std::vector<double> gv = g.toDoubles();
            Dims od = g.dims;
            auto ix = broadcastIndex(x.dims, od), iy = broadcastIndex(y.dims, od);
            std::vector<double> xv = x.toDoubles(), yv = y.toDoubles();
            std::vector<double> dx(gv.size()), dy(gv.size());
            for (size_t i = 0; i < gv.size(); ++i) {
                double a = xv[ix[i]], b = yv[iy[i]];
                switch (kind) {
                case 0: dx[i] = gv[i]; dy[i] = gv[i]; break;
                case 1: dx[i] = gv[i]; dy[i] = -gv[i]; break;
                case 2: dx[i] = gv[i] * b; dy[i] = gv[i] * a; break;
                default: dx[i] = gv[i] / b; dy[i] = -gv[i] * a / (b * b); break;
                }
            }
            if (!c.resultIsNull(0)) c.setOutDoubles(0, x.dims, reduceToShape(dx, od, x.dims));
            if (c.outputs.size() > 1 && !c.resultIsNull(1)) c.setOutDoubles(1, y.dims, reduceToShape(dy, od, y.dims));
        };
    };
    k["pd_op.add_grad"] = binaryGrad(0);
    k["pd_op.subtract_grad"] = binaryGrad(1);
    k["pd_op.multiply_grad"] = binaryGrad(2);
    k["pd_op.divide_grad"] = binaryGrad(3);
    // unary grads: (input-or-output, out_grad) -> x_grad
    auto unaryGrad = [](double (*f)(double, double)) {
        return [f](Context& c) {
            const Tensor& a = c.x(0);
            const Tensor& g = c.x(c.operandCount() - 1);
            if (a.dims != g.dims) c.fail("gradient shape differs from the input");
            std::vector<double> av = a.toDoubles(), gv = g.toDoubles();
            for (size_t i = 0; i < gv.size(); ++i) gv[i] = f(av[i], gv[i]);
            c.setOutDoubles(0, a.dims, gv);
        };
    };
    k["pd_op.relu_grad"] = unaryGrad([](double out, double g) { return out > 0 ? g : 0.0; });
    k["pd_op.sigmoid_grad"] = unaryGrad([](double out, double g) { return g * out * (1 - out); });
    k["pd_op.tanh_grad"] = unaryGrad([](double out, double g) { return g * (1 - out * out); });
    k["pd_op.exp_grad"] = unaryGrad([](double out, double g) { return g * out; });
    k["pd_op.rsqrt_grad"] = unaryGrad([](double out, double g) { return -0.5 * g * out * out * out; });
    k["pd_op.sqrt_grad"] = unaryGrad([](double out, double g) { return 0.5 * g / out; });
    k["pd_op.silu_grad"] = unaryGrad([](double x, double g) { double s = sigmoid(x); return g * s * (1 + x * (1 - s)); });
    k["pd_op.sin_grad"] = unaryGrad([](double x, double g) { return g * std::cos(x); });
    k["pd_op.cos_grad"] = unaryGrad([](double x, double g) { return -g * std::sin(x); });
    k["pd_op.gelu_grad"] = [](Context& c) {
        bool approx = c.attrBool("approximate", false);
        const Tensor& x = c.x(0);
        const Tensor& g = c.x(1);
        std::vector<double> xv = x.toDoubles(), gv = g.toDoubles();
        for (size_t i = 0; i < gv.size(); ++i) gv[i] *= geluGrad(xv[i], approx);
        c.setOutDoubles(0, x.dims, gv);
    };
    k["pd_op.scale_grad"] = [](Context& c) {  // d(x*s + b) = g*s
        double s = c.has(1) ? c.scalar(1) : c.attrFloat("scale", 1.0);
        const Tensor& g = c.x(0);
        std::vector<double> v = g.toDoubles();
        for (double& e : v) e *= s;
        c.setOutDoubles(0, g.dims, v);
    };
    k["pd_op.reshape_grad"] = [](Context& c) {
        // (xshape, out_grad): x's dims are xshape's dims without the leading 0.
        const Tensor& xs = c.x(0);
        const Tensor& g = c.x(1);
        Dims d(xs.dims.begin() + (xs.dims.empty() ? 0 : 1), xs.dims.end());
        if (auto sd = c.staticDims(0)) d = *sd;
        if (numelOf(d) != g.numel()) c.fail("reshape_grad element count mismatch");
        c.setOut(0, reshaped(g, d));
    };
    k["pd_op.transpose_grad"] = [](Context& c) {
        Dims perm = c.attrInts("perm"), inv(perm.size());
        for (size_t i = 0; i < perm.size(); ++i) inv[c.normAxis(perm[i], perm.size())] = static_cast<int64_t>(i);
        c.setOut(0, transposeTensor(c, c.x(0), inv));
    };

    // -- softmax --
    auto softmaxLike = [](bool logSoftmax) {
        return [logSoftmax](Context& c) {
            const Tensor& x = c.x(0);
            int64_t axis = c.normAxis(c.attrInt("axis", -1), x.dims.size());
            int64_t n = x.dims.empty() ? 1 : x.dims[axis], inner = 1, outer = 1;
            for (size_t i = axis + 1; i < x.dims.size(); ++i) inner *= x.dims[i];
            for (int64_t i = 0; i < axis; ++i) outer *= x.dims[i];
            std::vector<double> v = x.toDoubles();
            for (int64_t o = 0; o < outer; ++o)
                for (int64_t in = 0; in < inner; ++in) {
                    double* base = v.data() + o * n * inner + in;
                    double m = -INFINITY, s = 0;
                    for (int64_t j = 0; j < n; ++j) m = std::max(m, base[j * inner]);
                    for (int64_t j = 0; j < n; ++j) s += std::exp(base[j * inner] - m);
                    for (int64_t j = 0; j < n; ++j)
                        base[j * inner] = logSoftmax ? base[j * inner] - m - std::log(s) : std::exp(base[j * inner] - m) / s;
                }
            c.setOutDoubles(0, x.dims, v);
        };
    };
    k["pd_op.softmax"] = softmaxLike(false);
    k["pd_op.log_softmax"] = softmaxLike(true);
    k["pd_op.softmax_grad"] = [](Context& c) {
        const Tensor& y = c.x(0);
        const Tensor& g = c.x(1);
        int64_t axis = c.normAxis(c.attrInt("axis", -1), y.dims.size());
        int64_t n = y.dims.empty() ? 1 : y.dims[axis], inner = 1, outer = 1;
        for (size_t i = axis + 1; i < y.dims.size(); ++i) inner *= y.dims[i];
        for (int64_t i = 0; i < axis; ++i) outer *= y.dims[i];
        std::vector<double> yv = y.toDoubles(), gv = g.toDoubles(), out(yv.size());
        for (int64_t o = 0; o < outer; ++o)
            for (int64_t in = 0; in < inner; ++in) {
                int64_t b = o * n * inner + in;
                double dot = 0;
                for (int64_t j = 0; j < n; ++j) dot += yv[b + j * inner] * gv[b + j * inner];
                for (int64_t j = 0; j < n; ++j) out[b + j * inner] = yv[b + j * inner] * (gv[b + j * inner] - dot);
            }
        c.setOutDoubles(0, y.dims, out);
    };

    // -- layer norm: out, mean, variance (Paddle's outputs) --
    k["pd_op.layer_norm"] = [](Context& c) {
        const Tensor& x = c.x(0);
        LnShape s = lnShape(c, x.dims);
        double eps = c.attrFloat("epsilon", 1e-5);
        std::vector<double> v = x.toDoubles(), scale, bias;
        if (c.has(1)) scale = c.x(1).toDoubles();
        if (c.has(2)) bias = c.x(2).toDoubles();
        if ((!scale.empty() && static_cast<int64_t>(scale.size()) != s.cols) || (!bias.empty() && static_cast<int64_t>(bias.size()) != s.cols))
            c.fail("layer_norm scale/bias size differs from the normalized size");
        std::vector<double> mean(s.rows), var(s.rows), out(v.size());
        for (int64_t r = 0; r < s.rows; ++r) {
            const double* row = v.data() + r * s.cols;
            double m = 0;
            for (int64_t j = 0; j < s.cols; ++j) m += row[j];
            m /= static_cast<double>(s.cols);
            double q = 0;
            for (int64_t j = 0; j < s.cols; ++j) q += (row[j] - m) * (row[j] - m);
            q /= static_cast<double>(s.cols);
            mean[r] = m; var[r] = q;
            double inv = 1.0 / std::sqrt(q + eps);
            for (int64_t j = 0; j < s.cols; ++j) {
                double y = (row[j] - m) * inv;
                if (!scale.empty()) y *= scale[j];
                if (!bias.empty()) y += bias[j];
                out[r * s.cols + j] = y;
            }
        }
        c.setOutDoubles(0, x.dims, out);
        if (c.outputs.size() > 1 && !c.resultIsNull(1)) c.setOutDoubles(1, statDims(c, 1, s.rows), mean);
        if (c.outputs.size() > 2 && !c.resultIsNull(2)) c.setOutDoubles(2, statDims(c, 2, s.rows), var);
    };
    k["pd_op.layer_norm_grad"] = [](Context& c) {
        // (x, scale, bias, mean, variance, out_grad)
        const Tensor& x = c.x(0);
        LnShape s = lnShape(c, x.dims);
        double eps = c.attrFloat("epsilon", 1e-5);
        std::vector<double> v = x.toDoubles(), scale;
        if (c.has(1)) scale = c.x(1).toDoubles();
        std::vector<double> mean = c.x(3).toDoubles(), var = c.x(4).toDoubles(), g = c.x(5).toDoubles();
        if (static_cast<int64_t>(mean.size()) != s.rows || static_cast<int64_t>(var.size()) != s.rows) c.fail("layer_norm_grad statistics size mismatch");
        std::vector<double> dx(v.size()), ds(s.cols, 0.0), db(s.cols, 0.0);
        for (int64_t r = 0; r < s.rows; ++r) {
            double inv = 1.0 / std::sqrt(var[r] + eps);
            double sumG = 0, sumGX = 0;
            for (int64_t j = 0; j < s.cols; ++j) {
                size_t i = r * s.cols + j;
                double xhat = (v[i] - mean[r]) * inv;
                double gy = g[i] * (scale.empty() ? 1.0 : scale[j]);
                sumG += gy; sumGX += gy * xhat;
                ds[j] += g[i] * xhat; db[j] += g[i];
            }
            double n = static_cast<double>(s.cols);
            for (int64_t j = 0; j < s.cols; ++j) {
                size_t i = r * s.cols + j;
                double xhat = (v[i] - mean[r]) * inv;
                double gy = g[i] * (scale.empty() ? 1.0 : scale[j]);
                dx[i] = inv * (gy - sumG / n - xhat * sumGX / n);
            }
        }
        if (!c.resultIsNull(0)) c.setOutDoubles(0, x.dims, dx);
        if (c.outputs.size() > 1 && !c.resultIsNull(1) && c.has(1)) c.setOutDoubles(1, c.x(1).dims, ds);
        if (c.outputs.size() > 2 && !c.resultIsNull(2) && c.has(2)) c.setOutDoubles(2, c.x(2).dims, db);
    };

    // -- dropout (seeded by the run seed and the op's first result name) --
    k["pd_op.dropout"] = [](Context& c) {
        const Tensor& x = c.x(0);
        double p = dropoutP(c);
        bool isTest = c.attrBool("is_test", false);
        bool upscale = c.attrString("mode", "upscale_in_train") == "upscale_in_train";
        std::vector<double> v = x.toDoubles(), mask(v.size(), 1.0);
        if (isTest) {
            if (!upscale) for (double& e : v) e *= (1.0 - p);
        } else {
            uint64_t key = hashString(c.resultName(0), c.runSeed ^ static_cast<uint64_t>(c.attrInt("seed", 0)));
            for (size_t i = 0; i < v.size(); ++i) {
                bool keep = p < 1.0 && uniformAt(key, i) >= p;
                mask[i] = keep;
                v[i] = keep ? (upscale ? v[i] / (1.0 - p) : v[i]) : 0.0;
            }
        }
        c.setOutDoubles(0, x.dims, v);
        if (c.outputs.size() > 1 && !c.resultIsNull(1)) c.setOutDoubles(1, x.dims, mask);
    };
    k["pd_op.dropout_grad"] = [](Context& c) {
        // (mask, out_grad[, p])
        const Tensor& mask = c.x(0);
        const Tensor& g = c.x(1);
        double p = c.hasAttr("p") ? c.attrFloat("p", 0.5) : (c.has(2) ? c.scalar(2) : 0.5);
        bool isTest = c.attrBool("is_test", false);
        bool upscale = c.attrString("mode", "upscale_in_train") == "upscale_in_train";
        std::vector<double> gv = g.toDoubles();
        for (size_t i = 0; i < gv.size(); ++i) {
            if (isTest) { if (!upscale) gv[i] *= (1.0 - p); continue; }
            gv[i] = mask.get(static_cast<int64_t>(i)) != 0 ? (upscale ? gv[i] / (1.0 - p) : gv[i]) : 0.0;
        }
        c.setOutDoubles(0, g.dims, gv);
    };

    // -- conv2d --
    k["pd_op.conv2d"] = [](Context& c) {
        const Tensor& x = c.x(0);
        const Tensor& f = c.x(1);
        Conv2dGeom g = convGeom(c, x.dims, f.dims);
        std::vector<double> xv = x.toDoubles(), fv = f.toDoubles();
        std::vector<double> out(static_cast<size_t>(g.n * g.cout * g.oh * g.ow), 0.0);
        int64_t cpg = g.cin / g.groups, opg = g.cout / g.groups;
        for (int64_t n = 0; n < g.n; ++n)
            for (int64_t oc = 0; oc < g.cout; ++oc) {
                int64_t grp = oc / opg;
                for (int64_t i = 0; i < g.oh; ++i)
                    for (int64_t j = 0; j < g.ow; ++j) {
                        double acc = 0;
                        for (int64_t ic = 0; ic < cpg; ++ic)
                            for (int64_t a = 0; a < g.kh; ++a) {
                                int64_t h = i * g.sh - g.ph0 + a * g.dh;
                                if (h < 0 || h >= g.h) continue;
                                for (int64_t b = 0; b < g.kw; ++b) {
                                    int64_t w = j * g.sw - g.pw0 + b * g.dw;
                                    if (w < 0 || w >= g.w) continue;
                                    acc += xv[((n * g.cin + grp * cpg + ic) * g.h + h) * g.w + w] * fv[((oc * cpg + ic) * g.kh + a) * g.kw + b];
                                }
                            }
                        out[((n * g.cout + oc) * g.oh + i) * g.ow + j] = acc;
                    }
            }
        c.setOutDoubles(0, {g.n, g.cout, g.oh, g.ow}, out);
    };
    k["pd_op.conv2d_grad"] = [](Context& c) {
        const Tensor& x = c.x(0);
        const Tensor& f = c.x(1);
        const Tensor& gy = c.x(2);
        Conv2dGeom g = convGeom(c, x.dims, f.dims);
        if (gy.dims != Dims{g.n, g.cout, g.oh, g.ow}) c.fail("conv2d_grad output gradient has the wrong shape");
        std::vector<double> xv = x.toDoubles(), fv = f.toDoubles(), gv = gy.toDoubles();
        std::vector<double> dx(xv.size(), 0.0), df(fv.size(), 0.0);
        int64_t cpg = g.cin / g.groups, opg = g.cout / g.groups;
        for (int64_t n = 0; n < g.n; ++n)
            for (int64_t oc = 0; oc < g.cout; ++oc) {
                int64_t grp = oc / opg;
                for (int64_t i = 0; i < g.oh; ++i)
                    for (int64_t j = 0; j < g.ow; ++j) {
                        double go = gv[((n * g.cout + oc) * g.oh + i) * g.ow + j];
                        for (int64_t ic = 0; ic < cpg; ++ic)
                            for (int64_t a = 0; a < g.kh; ++a) {
                                int64_t h = i * g.sh - g.ph0 + a * g.dh;
                                if (h < 0 || h >= g.h) continue;
                                for (int64_t b = 0; b < g.kw; ++b) {
                                    int64_t w = j * g.sw - g.pw0 + b * g.dw;
                                    if (w < 0 || w >= g.w) continue;
                                    size_t xi = ((n * g.cin + grp * cpg + ic) * g.h + h) * g.w + w;
                                    size_t fi = ((oc * cpg + ic) * g.kh + a) * g.kw + b;
                                    dx[xi] += go * fv[fi];
                                    df[fi] += go * xv[xi];
                                }
                            }
                    }
            }
        if (!c.resultIsNull(0)) c.setOutDoubles(0, x.dims, dx);
        if (c.outputs.size() > 1 && !c.resultIsNull(1)) c.setOutDoubles(1, f.dims, df);
    };

    // -- batch norm (NCHW or NC): out, mean_out, variance_out, saved_mean, saved_inv_std, reserve --
    auto batchNorm = [](Context& c) {
        const Tensor& x = c.x(0);
        if (x.dims.size() < 2) c.fail("batch_norm needs rank >= 2");
        std::string layout = c.attrString("data_format", c.attrString("data_layout", "NCHW"));
        if (layout != "NCHW" && layout != "NCL" && layout != "NC" && layout != "AnyLayout") c.fail("only channel-first batch_norm is supported");
        int64_t ch = x.dims[1], nb = x.dims[0], sp = x.numel() / std::max<int64_t>(nb * ch, 1);
        double eps = c.attrFloat("epsilon", 1e-5), mom = c.attrFloat("momentum", 0.9);
        bool useGlobal = c.attrBool("is_test", false) || c.attrBool("use_global_stats", false);
        std::vector<double> v = x.toDoubles(), rm = c.x(1).toDoubles(), rv = c.x(2).toDoubles();
        std::vector<double> scale = c.has(3) ? c.x(3).toDoubles() : std::vector<double>(ch, 1.0);
        std::vector<double> bias = c.has(4) ? c.x(4).toDoubles() : std::vector<double>(ch, 0.0);
        if (static_cast<int64_t>(rm.size()) != ch || static_cast<int64_t>(rv.size()) != ch || static_cast<int64_t>(scale.size()) != ch || static_cast<int64_t>(bias.size()) != ch)
            c.fail("batch_norm statistics do not match the channel count");
        std::vector<double> out(v.size()), mean(ch), var(ch), mOut(ch), vOut(ch), inv(ch);
        double cnt = static_cast<double>(nb * sp);
        for (int64_t k2 = 0; k2 < ch; ++k2) {
            if (useGlobal) { mean[k2] = rm[k2]; var[k2] = rv[k2]; }
            else {
                double m = 0, q = 0;
                for (int64_t n = 0; n < nb; ++n) for (int64_t s = 0; s < sp; ++s) m += v[(n * ch + k2) * sp + s];
                m /= cnt;
                for (int64_t n = 0; n < nb; ++n) for (int64_t s = 0; s < sp; ++s) { double d = v[(n * ch + k2) * sp + s] - m; q += d * d; }
                mean[k2] = m; var[k2] = q / cnt;
            }
            inv[k2] = 1.0 / std::sqrt(var[k2] + eps);
            mOut[k2] = useGlobal ? rm[k2] : mom * rm[k2] + (1 - mom) * mean[k2];
            vOut[k2] = useGlobal ? rv[k2] : mom * rv[k2] + (1 - mom) * var[k2];
            for (int64_t n = 0; n < nb; ++n) for (int64_t s = 0; s < sp; ++s) {
                size_t i = (n * ch + k2) * sp + s;
                out[i] = (v[i] - mean[k2]) * inv[k2] * scale[k2] + bias[k2];
            }
        }
        c.setOutDoubles(0, x.dims, out);
        auto setIf = [&](size_t i, const std::vector<double>& d) {
            if (c.outputs.size() > i && !c.resultIsNull(i)) {
                Dims dd = c.staticDims(i).value_or(Dims{ch});
                if (numelOf(dd) == ch) c.setOutDoubles(i, {ch}, d);
                else c.setOut(i, Tensor(c.outDType(i), dd));  // reserve space: no data on CPU
            }
        };
        setIf(1, mOut); setIf(2, vOut); setIf(3, mean); setIf(4, inv);
        if (c.outputs.size() > 5 && !c.resultIsNull(5)) c.setOut(5, Tensor(c.outDType(5), c.staticDims(5).value_or(Dims{0})));
    };
    k["pd_op.batch_norm"] = batchNorm;
    k["pd_op.batch_norm_"] = batchNorm;
    k["pd_op.batch_norm_grad"] = [](Context& c) {
        // (x, scale, bias, mean_out, variance_out, saved_mean, saved_inv_std, reserve_space, out_grad)
        const Tensor& x = c.x(0);
        int64_t ch = x.dims[1], nb = x.dims[0], sp = x.numel() / std::max<int64_t>(nb * ch, 1);
        std::vector<double> v = x.toDoubles(), scale = c.has(1) ? c.x(1).toDoubles() : std::vector<double>(ch, 1.0);
        std::vector<double> mean = c.x(5).toDoubles(), inv = c.x(6).toDoubles();
        const Tensor& gy = c.x(c.operandCount() - 1);
        std::vector<double> g = gy.toDoubles(), dx(v.size()), ds(ch, 0.0), db(ch, 0.0);
        double cnt = static_cast<double>(nb * sp);
        for (int64_t k2 = 0; k2 < ch; ++k2) {
            double sg = 0, sgx = 0;
            for (int64_t n = 0; n < nb; ++n) for (int64_t s = 0; s < sp; ++s) {
                size_t i = (n * ch + k2) * sp + s;
                double xhat = (v[i] - mean[k2]) * inv[k2];
                sg += g[i]; sgx += g[i] * xhat;
            }
            ds[k2] = sgx; db[k2] = sg;
            for (int64_t n = 0; n < nb; ++n) for (int64_t s = 0; s < sp; ++s) {
                size_t i = (n * ch + k2) * sp + s;
                double xhat = (v[i] - mean[k2]) * inv[k2];
                dx[i] = scale[k2] * inv[k2] * (g[i] - sg / cnt - xhat * sgx / cnt);
            }
        }
        if (!c.resultIsNull(0)) c.setOutDoubles(0, x.dims, dx);
        if (c.outputs.size() > 1 && !c.resultIsNull(1)) c.setOutDoubles(1, {ch}, ds);
        if (c.outputs.size() > 2 && !c.resultIsNull(2)) c.setOutDoubles(2, {ch}, db);
    };

    // -- pool2d --
    k["pd_op.pool2d"] = [](Context& c) {
        const Tensor& x = c.x(0);
        PoolGeom g = poolGeom(c, x.dims, c.has(1) ? c.ints(1) : c.attrInts("kernel_size"));
        std::vector<double> v = x.toDoubles(), out(static_cast<size_t>(g.n * g.ch * g.oh * g.ow));
        for (int64_t nc = 0; nc < g.n * g.ch; ++nc)
            for (int64_t i = 0; i < g.oh; ++i)
                for (int64_t j = 0; j < g.ow; ++j) {
                    int64_t h0, h1, w0, w1, cnt;
                    poolWindow(g, i, j, h0, h1, w0, w1, cnt);
                    double acc = g.avg ? 0.0 : -INFINITY;
                    for (int64_t h = h0; h < h1; ++h)
                        for (int64_t w = w0; w < w1; ++w) {
                            double e = v[(nc * g.h + h) * g.w + w];
                            acc = g.avg ? acc + e : std::max(acc, e);
                        }
                    out[(nc * g.oh + i) * g.ow + j] = g.avg ? (cnt > 0 ? acc / static_cast<double>(cnt) : 0.0) : acc;
                }
        c.setOutDoubles(0, {g.n, g.ch, g.oh, g.ow}, out);
    };
    k["pd_op.pool2d_grad"] = [](Context& c) {
        // (x, out, out_grad, kernel_size)
        const Tensor& x = c.x(0);
        PoolGeom g = poolGeom(c, x.dims, c.has(3) ? c.ints(3) : c.attrInts("kernel_size"));
        std::vector<double> v = x.toDoubles(), y = c.x(1).toDoubles(), gy = c.x(2).toDoubles(), dx(v.size(), 0.0);
        for (int64_t nc = 0; nc < g.n * g.ch; ++nc)
            for (int64_t i = 0; i < g.oh; ++i)
                for (int64_t j = 0; j < g.ow; ++j) {
                    int64_t h0, h1, w0, w1, cnt;
                    poolWindow(g, i, j, h0, h1, w0, w1, cnt);
                    size_t oi = (nc * g.oh + i) * g.ow + j;
                    bool done = false;
                    for (int64_t h = h0; h < h1 && !done; ++h)
                        for (int64_t w = w0; w < w1 && !done; ++w) {
                            size_t xi = (nc * g.h + h) * g.w + w;
                            if (g.avg) dx[xi] += gy[oi] / static_cast<double>(cnt);
                            else if (v[xi] == y[oi]) { dx[xi] += gy[oi]; done = true; }  // first max wins
                        }
                }
        c.setOutDoubles(0, x.dims, dx);
    };

    // -- the rest of the seed's op lists and ops of the real corpus --
    k["pd_op.logit"] = [](Context& c) {
        double eps = c.attrFloat("eps", 0.0);
        const Tensor& x = c.x(0);
        std::vector<double> v = x.toDoubles();
        for (double& e : v) {
            double p = eps > 0 ? std::clamp(e, eps, 1.0 - eps) : e;
            e = std::log(p / (1.0 - p));
        }
        c.setOutDoubles(0, x.dims, v);
    };
    // Complex helpers on real tensors: real and conj are the identity, imag is zero, angle is
    // 0 or pi. Complex tensors take the paths added by addComplexKernels.
    k["pd_op.real"] = [](Context& c) { c.setOutDoubles(0, c.x(0).dims, c.x(0).toDoubles()); };
    k["pd_op.conj"] = k["pd_op.real"];
    k["pd_op.imag"] = [](Context& c) { c.setOutDoubles(0, c.x(0).dims, std::vector<double>(static_cast<size_t>(c.x(0).numel()), 0.0)); };
    k["pd_op.angle"] = [](Context& c) {
        std::vector<double> v = c.x(0).toDoubles();
        for (double& e : v) e = e < 0 ? M_PI : 0.0;
        c.setOutDoubles(0, c.x(0).dims, v);
    };
    auto anyAll = [](bool any) {
        return [any](Context& c) {
            const Tensor& x = c.x(0);
            Dims axes = c.has(1) ? c.ints(1) : c.attrInts("axis");
            bool keep = c.attrBool("keepdim", false);
            ReducePlan p = planReduce(c, x.dims, axes, c.attrBool("reduce_all", false));
            std::vector<double> acc(static_cast<size_t>(numelOf(p.outDims)), any ? 0.0 : 1.0);
            for (int64_t i = 0; i < x.numel(); ++i) {
                bool b = x.get(i) != 0;
                double& a = acc[p.target[i]];
                a = any ? (a != 0 || b) : (a != 0 && b);
            }
            c.setOutDoubles(0, keep ? p.outDims : p.outDimsNoKeep, acc);
        };
    };
    k["pd_op.any"] = anyAll(true);
    k["pd_op.all"] = anyAll(false);
    k["pd_op.put_along_axis"] = [](Context& c) {
        // (arr, indices, values) {axis, reduce: assign|add|mul}; values broadcast to indices.
        const Tensor& arr = c.x(0);
        const Tensor& idx = c.x(1);
        const Tensor& val = c.x(2);
        int64_t axis = c.normAxis(c.attrInt("axis", 0), arr.dims.size());
        std::string reduce = c.attrString("reduce", "assign");
        if (idx.dims.size() != arr.dims.size()) c.fail("put_along_axis indices must have the rank of arr");
        std::vector<double> out = arr.toDoubles();
        std::vector<int64_t> vi = broadcastIndex(val.dims, idx.dims);
        Dims is = stridesOf(idx.dims), as = stridesOf(arr.dims);
        for (int64_t k2 = 0; k2 < idx.numel(); ++k2) {
            int64_t rem = k2, pos = 0;
            for (size_t d = 0; d < idx.dims.size(); ++d) {
                int64_t coord = rem / is[d];
                rem %= is[d];
                if (static_cast<int64_t>(d) == axis) {
                    coord = static_cast<int64_t>(idx.get(k2));
                    if (coord < 0) coord += arr.dims[d];
                    if (coord < 0 || coord >= arr.dims[d]) c.fail("put_along_axis index out of range");
                } else if (coord >= arr.dims[d]) c.fail("put_along_axis indices exceed arr");
                pos += coord * as[d];
            }
            double v = val.get(vi[k2]);
            if (reduce == "add") out[pos] += v;
            else if (reduce == "mul" || reduce == "multiply") out[pos] *= v;
            else out[pos] = v;
        }
        c.setOutDoubles(0, arr.dims, out);
    };
    k["pd_op.index_sample"] = [](Context& c) {
        const Tensor& x = c.x(0);
        const Tensor& idx = c.x(1);
        if (x.dims.size() != 2 || idx.dims.size() != 2 || x.dims[0] != idx.dims[0]) c.fail("index_sample needs [N,M] and [N,K]");
        std::vector<double> out(static_cast<size_t>(idx.numel()));
        for (int64_t r = 0; r < idx.dims[0]; ++r)
            for (int64_t j = 0; j < idx.dims[1]; ++j) {
                int64_t v = static_cast<int64_t>(idx.get(r * idx.dims[1] + j));
                if (v < 0 || v >= x.dims[1]) c.fail("index_sample index out of range");
                out[r * idx.dims[1] + j] = x.get(r * x.dims[1] + v);
            }
        c.setOutDoubles(0, idx.dims, out);
    };
    k["pd_op.embedding"] = [](Context& c) {
        const Tensor& ids = c.x(0);
        const Tensor& w = c.x(1);
        if (w.dims.size() != 2) c.fail("embedding weight must be 2-d");
        int64_t pad = c.attrInt("padding_idx", -1), width = w.dims[1];
        Dims od = ids.dims;
        od.push_back(width);
        Tensor out(w.dtype, od);
        int eb = dtypeBytes(w.dtype);
        for (int64_t i = 0; i < ids.numel(); ++i) {
            int64_t id = static_cast<int64_t>(ids.get(i));
            if (id < 0 || id >= w.dims[0]) c.fail("embedding id " + std::to_string(id) + " out of range");
            if (pad >= 0 && id == pad) continue;  // zero row
            std::memcpy(out.bytes.data() + i * width * eb, w.bytes.data() + id * width * eb, width * eb);
        }
        c.setOut(0, std::move(out));
    };
    k["pd_op.swiglu"] = [](Context& c) {
        // silu(x) * y; with no y, x's last axis holds [x | y].
        const Tensor& x = c.x(0);
        std::vector<double> xv = x.toDoubles(), out;
        Dims od = x.dims;
        if (c.has(1)) {
            if (c.x(1).dims != x.dims) c.fail("swiglu operands differ in shape");
            std::vector<double> yv = c.x(1).toDoubles();
            out.resize(xv.size());
            for (size_t i = 0; i < xv.size(); ++i) out[i] = xv[i] * sigmoid(xv[i]) * yv[i];
        } else {
            if (od.empty() || od.back() % 2) c.fail("swiglu without y needs an even last axis");
            int64_t h = od.back() / 2, rows = x.numel() / std::max<int64_t>(od.back(), 1);
            od.back() = h;
            out.resize(static_cast<size_t>(rows * h));
            for (int64_t r = 0; r < rows; ++r)
                for (int64_t j = 0; j < h; ++j) {
                    double a = xv[r * 2 * h + j], b = xv[r * 2 * h + h + j];
                    out[r * h + j] = a * sigmoid(a) * b;
                }
        }
        c.setOutDoubles(0, od, out);
    };
    // Seeded random ops (keyed, like dropout, by the run seed and the result's name).
    k["pd_op.uniform"] = [](Context& c) {
        Dims shape = c.has(0) ? c.ints(0) : c.attrInts("shape");
        double lo = c.has(1) ? c.scalar(1) : c.attrFloat("min", -1.0);
        double hi = c.has(2) ? c.scalar(2) : c.attrFloat("max", 1.0);
        c.requireElements(shape);
        uint64_t key = hashString(c.resultName(0), c.runSeed ^ static_cast<uint64_t>(c.attrInt("seed", 0)));
        std::vector<double> v(static_cast<size_t>(numelOf(shape)));
        for (size_t i = 0; i < v.size(); ++i) v[i] = lo + (hi - lo) * uniformAt(key, i);
        c.setOutDoubles(0, shape, v);
    };
    k["pd_op.randint"] = [](Context& c) {
        Dims shape = c.has(0) ? c.ints(0) : c.attrInts("shape");
        int64_t lo = c.attrInt("low", 0), hi = c.attrInt("high", 2);
        if (hi <= lo) c.fail("randint needs high > low");
        c.requireElements(shape);
        uint64_t key = hashString(c.resultName(0), c.runSeed ^ 0x7261ull);
        std::vector<double> v(static_cast<size_t>(numelOf(shape)));
        for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(lo + static_cast<int64_t>(uniformAt(key, i) * static_cast<double>(hi - lo)));
        c.setOutDoubles(0, shape, v);
    };
    // Collectives of a single-process run: one rank, so reduce and broadcast leave the
    // tensor as it is.
    for (const char* name : {"pd_op.all_reduce_", "pd_op.c_broadcast_", "pd_op.reduce_", "pd_op.c_allreduce_sum_",
                             "pd_op.c_allreduce_sum", "pd_op.all_reduce"})
        k[name] = [](Context& c) { c.x(0); c.setOutShared(0, c.inputs[0]->tensor); };
    k["pd_op.batchnorm"] = k["pd_op.batch_norm"];  // the seed's spelling in COMPUTE_INTENSIVE_OPS

    // -- more _grad ops (Paddle's argument order: forward inputs, forward outputs, out_grad) --
    // squeeze/unsqueeze/flatten_grad(xshape, out_grad): reshape back to x's dims.
    for (const char* name : {"pd_op.squeeze_grad", "pd_op.unsqueeze_grad", "pd_op.flatten_grad"})
        k[name] = k["pd_op.reshape_grad"];
    k["pd_op.expand_grad"] = [](Context& c) {  // (x, out_grad, shape)
        const Tensor& x = c.x(0);
        const Tensor& g = c.x(1);
        c.setOutDoubles(0, x.dims, reduceToShape(g.toDoubles(), g.dims, x.dims));
    };
    k["pd_op.expand_as_grad"] = k["pd_op.expand_grad"];
    k["pd_op.slice_grad"] = [](Context& c) {  // (input, out_grad, starts, ends) {axes, decrease_axis}
        const Tensor& x = c.x(0);
        const Tensor& g = c.x(1);
        Dims axes = c.attrInts("axes");
        Dims starts = c.has(2) ? c.ints(2) : c.attrInts("starts");
        Dims ends = c.has(3) ? c.ints(3) : c.attrInts("ends");
        if (starts.size() != axes.size() || ends.size() != axes.size()) c.fail("slice_grad: axes, starts, ends differ in length");
        size_t r = x.dims.size();
        Dims begin(r, 0), size = x.dims;
        for (size_t i = 0; i < axes.size(); ++i) {
            int64_t a = c.normAxis(axes[i], r), d = x.dims[a];
            int64_t s = std::clamp<int64_t>(starts[i] < 0 ? starts[i] + d : starts[i], 0, d);
            int64_t e = std::clamp<int64_t>(ends[i] < 0 ? ends[i] + d : ends[i], 0, d);
            begin[a] = s; size[a] = std::max<int64_t>(e - s, 0);
        }
        if (numelOf(size) != g.numel()) c.fail("slice_grad: out_grad does not match the slice");
        std::vector<double> out(static_cast<size_t>(x.numel()), 0.0), gv = g.toDoubles();
        Dims inStr = stridesOf(x.dims), outStr = stridesOf(size);
        for (int64_t k2 = 0; k2 < g.numel(); ++k2) {
            int64_t rem = k2, pos = 0;
            for (size_t i = 0; i < r; ++i) { int64_t idx = rem / outStr[i]; rem %= outStr[i]; pos += (idx + begin[i]) * inStr[i]; }
            out[pos] = gv[k2];
        }
        c.setOutDoubles(0, x.dims, out);
    };
    k["pd_op.concat_grad"] = [splitInto](Context& c) {  // (x vec, out_grad, axis) -> vec of grads
        const auto& xs = c.list(0);
        int64_t axis = c.has(2) ? c.ints(2).at(0) : c.attrInt("axis", 0);
        if (xs.empty()) c.fail("concat_grad of nothing");
        int64_t a = c.normAxis(axis, xs[0]->dims.size());
        Dims sections;
        for (const TensorPtr& t : xs) sections.push_back(t->dims[a]);
        splitInto(c, c.x(1), sections, axis);
    };
    k["pd_op.split_grad"] = [concatTensors](Context& c) {  // (out_grad vec, axis) -> x_grad
        int64_t axis = c.has(1) ? c.ints(1).at(0) : c.attrInt("axis", 0);
        c.setOut(0, concatTensors(c, c.list(0), axis));
    };
    k["pd_op.gather_nd_grad"] = [](Context& c) {  // (x, index, out_grad): scatter-add
        const Tensor& x = c.x(0);
        const Tensor& index = c.x(1);
        const Tensor& g = c.x(2);
        int64_t depth = index.dims.empty() ? 0 : index.dims.back();
        if (depth < 1 || depth > static_cast<int64_t>(x.dims.size())) c.fail("gather_nd_grad index depth out of range");
        int64_t inner = 1;
        for (size_t i = depth; i < x.dims.size(); ++i) inner *= x.dims[i];
        Dims str = stridesOf(x.dims);
        std::vector<double> out(static_cast<size_t>(x.numel()), 0.0), gv = g.toDoubles();
        int64_t rows = index.numel() / depth;
        if (static_cast<int64_t>(gv.size()) != rows * inner) c.fail("gather_nd_grad out_grad has the wrong size");
        for (int64_t r = 0; r < rows; ++r) {
            int64_t pos = 0;
            for (int64_t j = 0; j < depth; ++j) {
                int64_t v = static_cast<int64_t>(index.get(r * depth + j));
                if (v < 0) v += x.dims[j];
                if (v < 0 || v >= x.dims[j]) c.fail("gather_nd_grad index out of range");
                pos += v * str[j];
            }
            for (int64_t e = 0; e < inner; ++e) out[pos + e] += gv[r * inner + e];
        }
        c.setOutDoubles(0, x.dims, out);
    };
    k["pd_op.where_grad"] = [](Context& c) {  // (cond, x, y, out_grad) -> x_grad, y_grad
        const Tensor& cond = c.x(0);
        const Tensor& x = c.x(1);
        const Tensor& y = c.x(2);
        const Tensor& g = c.x(3);
        auto ic = broadcastIndex(cond.dims, g.dims);
        std::vector<double> gv = g.toDoubles(), gx(gv.size()), gy(gv.size());
        for (size_t i = 0; i < gv.size(); ++i) {
            bool t = cond.get(ic[i]) != 0;
            gx[i] = t ? gv[i] : 0.0;
            gy[i] = t ? 0.0 : gv[i];
        }
        if (!c.resultIsNull(0)) c.setOutDoubles(0, x.dims, reduceToShape(gx, g.dims, x.dims));
        if (c.outputs.size() > 1 && !c.resultIsNull(1)) c.setOutDoubles(1, y.dims, reduceToShape(gy, g.dims, y.dims));
    };
    auto extremumGrad = [](Context& c) {  // (x, out, out_grad, axis) {keepdim, reduce_all}: to the first extremum
        const Tensor& x = c.x(0);
        const Tensor& out = c.x(1);
        const Tensor& g = c.x(2);
        Dims axes = c.has(3) ? c.ints(3) : c.attrInts("axis");
        ReducePlan p = planReduce(c, x.dims, axes, c.attrBool("reduce_all", false));
        if (numelOf(p.outDims) != g.numel() || out.numel() != g.numel()) c.fail("gradient does not match the reduced shape");
        std::vector<double> xv = x.toDoubles(), ov = out.toDoubles(), gv = g.toDoubles(), dx(xv.size(), 0.0);
        std::vector<uint8_t> taken(gv.size(), 0);
        for (size_t i = 0; i < xv.size(); ++i) {
            int64_t t = p.target[i];
            if (!taken[t] && xv[i] == ov[t]) { dx[i] = gv[t]; taken[t] = 1; }
        }
        c.setOutDoubles(0, x.dims, dx);
    };
    k["pd_op.max_grad"] = extremumGrad;
    k["pd_op.min_grad"] = extremumGrad;
    auto pairGrad = [](bool isMax) {  // maximum_grad / minimum_grad (x, y, out_grad)
        return [isMax](Context& c) {
            const Tensor& x = c.x(0);
            const Tensor& y = c.x(1);
            const Tensor& g = c.x(2);
            auto ix = broadcastIndex(x.dims, g.dims), iy = broadcastIndex(y.dims, g.dims);
            std::vector<double> xv = x.toDoubles(), yv = y.toDoubles(), gv = g.toDoubles(), gx(gv.size()), gy(gv.size());
            for (size_t i = 0; i < gv.size(); ++i) {
                bool toX = isMax ? xv[ix[i]] > yv[iy[i]] : xv[ix[i]] < yv[iy[i]];
                gx[i] = toX ? gv[i] : 0.0;
                gy[i] = toX ? 0.0 : gv[i];
            }
            if (!c.resultIsNull(0)) c.setOutDoubles(0, x.dims, reduceToShape(gx, g.dims, x.dims));
            if (c.outputs.size() > 1 && !c.resultIsNull(1)) c.setOutDoubles(1, y.dims, reduceToShape(gy, g.dims, y.dims));
        };
    };
    k["pd_op.maximum_grad"] = pairGrad(true);
    k["pd_op.minimum_grad"] = pairGrad(false);
    k["pd_op.elementwise_pow_grad"] = [](Context& c) {  // (x, y, out_grad)
        const Tensor& x = c.x(0);
        const Tensor& y = c.x(1);
        const Tensor& g = c.x(2);
        auto ix = broadcastIndex(x.dims, g.dims), iy = broadcastIndex(y.dims, g.dims);
        std::vector<double> xv = x.toDoubles(), yv = y.toDoubles(), gv = g.toDoubles(), gx(gv.size()), gy(gv.size());
        for (size_t i = 0; i < gv.size(); ++i) {
            double a = xv[ix[i]], b = yv[iy[i]];
            gx[i] = gv[i] * b * std::pow(a, b - 1);
            gy[i] = a > 0 ? gv[i] * std::pow(a, b) * std::log(a) : 0.0;
        }
        if (!c.resultIsNull(0)) c.setOutDoubles(0, x.dims, reduceToShape(gx, g.dims, x.dims));
        if (c.outputs.size() > 1 && !c.resultIsNull(1)) c.setOutDoubles(1, y.dims, reduceToShape(gy, g.dims, y.dims));
    };
    k["pd_op.pow_grad"] = [](Context& c) {  // (x, out_grad) {y}
        const Tensor& x = c.x(0);
        const Tensor& g = c.x(1);
        double y = c.has(2) ? c.scalar(2) : c.attrFloat("y", 1.0);
        std::vector<double> xv = x.toDoubles(), gv = g.toDoubles();
        for (size_t i = 0; i < gv.size(); ++i) gv[i] *= y * std::pow(xv[i], y - 1);
        c.setOutDoubles(0, x.dims, gv);
    };
    k["pd_op.square_grad"] = unaryGrad([](double x, double g) { return 2 * x * g; });
    k["pd_op.log_grad"] = unaryGrad([](double x, double g) { return g / x; });
    k["pd_op.abs_grad"] = unaryGrad([](double x, double g) { return x > 0 ? g : x < 0 ? -g : 0.0; });
    k["pd_op.erf_grad"] = unaryGrad([](double x, double g) { return g * 1.1283791670955126 * std::exp(-x * x); });
    k["pd_op.cast_grad"] = [](Context& c) {  // (x, out_grad): back to x's dtype
        c.setOutDoubles(0, c.x(1).dims, c.x(1).toDoubles());
    };
    k["pd_op.assign_grad"] = [](Context& c) { c.x(0); c.setOutShared(0, c.inputs[0]->tensor); };
    k["pd_op.embedding_grad"] = [](Context& c) {  // (x ids, weight, out_grad) {padding_idx}
        const Tensor& ids = c.x(0);
        const Tensor& w = c.x(1);
        const Tensor& g = c.x(2);
        int64_t pad = c.attrInt("padding_idx", -1), width = w.dims.size() == 2 ? w.dims[1] : 0;
        if (g.numel() != ids.numel() * width) c.fail("embedding_grad out_grad has the wrong size");
        std::vector<double> out(static_cast<size_t>(w.numel()), 0.0), gv = g.toDoubles();
        for (int64_t i = 0; i < ids.numel(); ++i) {
            int64_t id = static_cast<int64_t>(ids.get(i));
            if (id < 0 || id >= w.dims[0]) c.fail("embedding id out of range");
            if (pad >= 0 && id == pad) continue;
            for (int64_t j = 0; j < width; ++j) out[id * width + j] += gv[i * width + j];
        }
        c.setOutDoubles(0, w.dims, out);
    };
    k["pd_op.log_softmax_grad"] = [](Context& c) {  // (out, out_grad) {axis}: g - exp(out) * sum(g)
        const Tensor& y = c.x(0);
        const Tensor& g = c.x(1);
        int64_t axis = c.normAxis(c.attrInt("axis", -1), y.dims.size());
        int64_t n = y.dims.empty() ? 1 : y.dims[axis], inner = 1, outer = 1;
        for (size_t i = axis + 1; i < y.dims.size(); ++i) inner *= y.dims[i];
        for (int64_t i = 0; i < axis; ++i) outer *= y.dims[i];
        std::vector<double> yv = y.toDoubles(), gv = g.toDoubles(), out(yv.size());
        for (int64_t o = 0; o < outer; ++o)
            for (int64_t in = 0; in < inner; ++in) {
                int64_t b = o * n * inner + in;
                double s = 0;
                for (int64_t j = 0; j < n; ++j) s += gv[b + j * inner];
                for (int64_t j = 0; j < n; ++j) out[b + j * inner] = gv[b + j * inner] - std::exp(yv[b + j * inner]) * s;
            }
        c.setOutDoubles(0, y.dims, out);
    };
    return k;
}

// ---------- complex ----------
// Complex tensors (c64, c128) reach only the kernels named here; every other op with a
// complex operand or result is reported by unsupportedOps. Arithmetic is in
// std::complex<double>, stored in the value's dtype, like every real kernel.
using Cplx = std::complex<double>;

bool anyComplex(const Context& c) {
    for (size_t i = 0; i < c.operandCount(); ++i)
        if (c.has(i) && !c.inputs[i]->isList && isComplexDType(c.inputs[i]->tensor->dtype)) return true;
    for (size_t i = 0; i < c.o.results.size(); ++i) {
        const Type& t = c.resultType(i);
        if (t.kind == Type::Kind::DenseTensor && isComplexDType(t.dtype)) return true;
    }
    return false;
}

std::vector<Cplx> complexValues(const Tensor& t) {
    std::vector<Cplx> v(static_cast<size_t>(t.numel()));
    for (int64_t i = 0; i < t.numel(); ++i) v[i] = t.getComplex(i);
    return v;
}

Tensor complexTensor(const Context& c, size_t result, Dims d, const std::vector<Cplx>& v) {
    DType t = c.outDType(result);
    if (!isComplexDType(t)) c.fail("result " + std::to_string(result) + " is declared " + std::string(dtypeShortName(t)) + ", expected a complex dtype");
    Tensor out(t, std::move(d));
    for (int64_t i = 0; i < out.numel(); ++i) out.setComplex(i, v[i]);
    return out;
}

// as_complex: [..., 2] reals -> [...] complex; as_real the reverse. Both layouts are the same
// bytes (interleaved pairs), so these copy bytes and are exact.
Tensor asComplex(const Context& c, const Tensor& x, DType out) {
    if (!isComplexDType(out) || x.dtype != complexComponentDType(out))
        c.fail("as_complex of " + x.shapeString() + " to " + std::string(dtypeShortName(out)) + " (needs f32 -> c64 or f64 -> c128)");
    if (x.dims.empty() || x.dims.back() != 2) c.fail("as_complex needs a last dim of 2, got " + x.shapeString());
    Tensor r = x;
    r.dtype = out;
    r.dims.pop_back();
    return r;
}

Tensor asReal(const Context& c, const Tensor& x) {
    if (!isComplexDType(x.dtype)) c.fail("as_real of a real tensor " + x.shapeString());
    Tensor r = x;
    r.dtype = complexComponentDType(x.dtype);
    r.dims.push_back(2);
    return r;
}

void addComplexKernels(std::unordered_map<std::string, Kernel>& k, std::unordered_set<std::string>& complexAware) {
    auto add = [&](const std::string& name, Kernel kernel) { k[name] = std::move(kernel); complexAware.insert(name); };
    // Ops with a real kernel already: complex inputs/results take `complexPath`.
    auto extend = [&](const std::string& name, std::function<void(Context&)> complexPath) {
        Kernel real = k.at(name);
        add(name, [real, complexPath](Context& c) { if (anyComplex(c)) complexPath(c); else real(c); });
    };

    add("pd_op.as_complex", [](Context& c) { c.setOut(0, asComplex(c, c.x(0), c.outDType(0))); });
    add("pd_op.as_real", [](Context& c) { c.setOut(0, asReal(c, c.x(0))); });
    // Paddle: as_complex_grad invokes as_real(out_grad), as_real_grad invokes as_complex(out_grad).
    add("pd_op.as_complex_grad", [](Context& c) { c.setOut(0, asReal(c, c.x(c.operandCount() - 1))); });
    add("pd_op.as_real_grad", [](Context& c) { c.setOut(0, asComplex(c, c.x(c.operandCount() - 1), c.outDType(0))); });

    add("pd_op.complex", [](Context& c) {  // (real, imag), broadcast
        const Tensor& re = c.x(0);
        const Tensor& im = c.x(1);
        if (isComplexDType(re.dtype) || isComplexDType(im.dtype)) c.fail("complex of complex operands");
        Dims od = broadcastDims(c, re.dims, im.dims);
        std::vector<int64_t> ia = broadcastIndex(re.dims, od), ib = broadcastIndex(im.dims, od);
        std::vector<double> rv = re.toDoubles(), iv = im.toDoubles();
        std::vector<Cplx> out(ia.size());
        for (size_t i = 0; i < out.size(); ++i) out[i] = Cplx(rv[ia[i]], iv[ib[i]]);
        c.setOut(0, complexTensor(c, 0, od, out));
    });
    // complex_grad (x, y, out_grad) -> x_grad = real(out_grad), y_grad = imag(out_grad), each
    // summed back over the dims it was broadcast along.
    add("pd_op.complex_grad", [](Context& c) {
        const Tensor& x = c.x(0);
        const Tensor& y = c.x(1);
        const Tensor& g = c.x(2);
        std::vector<double> gr(static_cast<size_t>(g.numel())), gi(gr.size());
        for (int64_t i = 0; i < g.numel(); ++i) { Cplx v = g.getComplex(i); gr[i] = v.real(); gi[i] = v.imag(); }
        if (c.outputs.size() > 0 && !c.resultIsNull(0)) c.setOutDoubles(0, x.dims, reduceToShape(gr, g.dims, x.dims));
        if (c.outputs.size() > 1 && !c.resultIsNull(1)) c.setOutDoubles(1, y.dims, reduceToShape(gi, g.dims, y.dims));
    });
    extend("pd_op.real", [](Context& c) {
        const Tensor& x = c.x(0);
        std::vector<double> v(static_cast<size_t>(x.numel()));
        for (int64_t i = 0; i < x.numel(); ++i) v[i] = x.getComplex(i).real();
        c.setOutDoubles(0, x.dims, v);
    });
    extend("pd_op.imag", [](Context& c) {
        const Tensor& x = c.x(0);
        std::vector<double> v(static_cast<size_t>(x.numel()));
        for (int64_t i = 0; i < x.numel(); ++i) v[i] = x.getComplex(i).imag();
        c.setOutDoubles(0, x.dims, v);
    });
    extend("pd_op.conj", [](Context& c) {
        std::vector<Cplx> v = complexValues(c.x(0));
        for (Cplx& e : v) e = std::conj(e);
        c.setOut(0, complexTensor(c, 0, c.x(0).dims, v));
    });
    extend("pd_op.angle", [](Context& c) {
        const Tensor& x = c.x(0);
        std::vector<double> v(static_cast<size_t>(x.numel()));
        for (int64_t i = 0; i < x.numel(); ++i) { Cplx e = x.getComplex(i); v[i] = std::atan2(e.imag(), e.real()); }
        c.setOutDoubles(0, x.dims, v);
    });
    extend("pd_op.abs", [](Context& c) {
        const Tensor& x = c.x(0);
        std::vector<double> v(static_cast<size_t>(x.numel()));
        for (int64_t i = 0; i < x.numel(); ++i) v[i] = std::abs(x.getComplex(i));
        c.setOutDoubles(0, x.dims, v);
    });
    // real_grad / imag_grad (out_grad) -> complex(out_grad, 0) / complex(0, out_grad).
    add("pd_op.real_grad", [](Context& c) {
        const Tensor& g = c.x(c.operandCount() - 1);
        std::vector<Cplx> v(static_cast<size_t>(g.numel()));
        for (int64_t i = 0; i < g.numel(); ++i) v[i] = Cplx(g.get(i), 0.0);
        c.setOut(0, complexTensor(c, 0, g.dims, v));
    });
    add("pd_op.imag_grad", [](Context& c) {
        const Tensor& g = c.x(c.operandCount() - 1);
        std::vector<Cplx> v(static_cast<size_t>(g.numel()));
        for (int64_t i = 0; i < g.numel(); ++i) v[i] = Cplx(0.0, g.get(i));
        c.setOut(0, complexTensor(c, 0, g.dims, v));
    });
    // (x, out_grad): Paddle's complex angle/abs grads, zero where x is 0.
    // angle: out_grad * (-im, re) / |x|^2; abs: out_grad * x / |x|.
    auto complexUnaryGrad = [](Cplx (*f)(Cplx, double)) {
        return [f](Context& c) {
            const Tensor& x = c.x(0);
            const Tensor& g = c.x(c.operandCount() - 1);
            if (x.dims != g.dims) c.fail("gradient shape differs from the input");
            std::vector<Cplx> v(static_cast<size_t>(x.numel()));
            for (int64_t i = 0; i < x.numel(); ++i) v[i] = f(x.getComplex(i), g.get(i));
            c.setOut(0, complexTensor(c, 0, x.dims, v));
        };
    };
    if (!k.count("pd_op.angle_grad"))  // real x: atan2(0, x) is flat almost everywhere
        k["pd_op.angle_grad"] = [](Context& c) {
            const Tensor& x = c.x(0);
            c.setOutDoubles(0, x.dims, std::vector<double>(static_cast<size_t>(x.numel()), 0.0));
        };
    extend("pd_op.angle_grad", complexUnaryGrad([](Cplx x, double g) {
        double r2 = std::norm(x);
        return r2 == 0 ? Cplx(0, 0) : Cplx(-g * x.imag() / r2, g * x.real() / r2);
    }));
    extend("pd_op.abs_grad", complexUnaryGrad([](Cplx x, double g) {
        double r = std::abs(x);
        return r == 0 ? Cplx(0, 0) : Cplx(g * x.real() / r, g * x.imag() / r);
    }));
    // cast: real -> complex gives (x, 0); complex -> real keeps the real part, complex -> bool
    // is (re != 0 || im != 0) (phi::dtype::complex's conversions); c64 <-> c128 keeps both.
    extend("pd_op.cast", [](Context& c) {
        const Tensor& x = c.x(0);
        DType out = c.outDType(0);
        if (isComplexDType(out)) { c.setOut(0, complexTensor(c, 0, x.dims, complexValues(x))); return; }
        std::vector<double> v(static_cast<size_t>(x.numel()));
        for (int64_t i = 0; i < x.numel(); ++i) {
            Cplx e = x.getComplex(i);
            v[i] = out == DType::Bool ? (e.real() != 0.0 || e.imag() != 0.0) : e.real();
        }
        c.setOutDoubles(0, x.dims, v);
    });
    // add / subtract / multiply / divide with broadcasting; a real operand reads as (x, 0).
    const char* const arith[] = {"pd_op.add", "pd_op.subtract", "pd_op.multiply", "pd_op.divide"};
    for (int op = 0; op < 4; ++op) {
        extend(arith[op], [op](Context& c) {
            const Tensor& a = c.x(0);
            const Tensor& b = c.x(1);
            Dims od = broadcastDims(c, a.dims, b.dims);
            std::vector<int64_t> ia = broadcastIndex(a.dims, od), ib = broadcastIndex(b.dims, od);
            std::vector<Cplx> av = complexValues(a), bv = complexValues(b), out(ia.size());
            for (size_t i = 0; i < out.size(); ++i) {
                Cplx x = av[ia[i]], y = bv[ib[i]];
                out[i] = op == 0 ? x + y : op == 1 ? x - y : op == 2 ? x * y : x / y;
            }
            c.setOut(0, complexTensor(c, 0, od, out));
        });
    }
    // (x, y, [out,] out_grad) -> x_grad, y_grad, Paddle's complex rules: multiply dx = g * conj(y),
    // dy = g * conj(x); divide dx = g / conj(y), dy = -g * conj(x / y^2); each summed back over
    // broadcast dims. A real x or y (mixed operands) gets the real part.
    const char* const arithGrad[] = {"pd_op.add_grad", "pd_op.subtract_grad", "pd_op.multiply_grad", "pd_op.divide_grad"};
    for (int op = 0; op < 4; ++op) {
        extend(arithGrad[op], [op](Context& c) {
            const Tensor& x = c.x(0);
            const Tensor& y = c.x(1);
            const Tensor& g = c.x(c.operandCount() - 1);
            const Dims& od = g.dims;
            std::vector<int64_t> ix = broadcastIndex(x.dims, od), iy = broadcastIndex(y.dims, od);
            std::vector<Cplx> xv = complexValues(x), yv = complexValues(y), gv = complexValues(g);
            std::vector<double> dxr(gv.size()), dxi(gv.size()), dyr(gv.size()), dyi(gv.size());
            for (size_t i = 0; i < gv.size(); ++i) {
                Cplx a = xv[ix[i]], b = yv[iy[i]], dx, dy;
                switch (op) {
                case 0: dx = gv[i]; dy = gv[i]; break;
                case 1: dx = gv[i]; dy = -gv[i]; break;
                case 2: dx = gv[i] * std::conj(b); dy = gv[i] * std::conj(a); break;
                default: dx = gv[i] / std::conj(b); dy = -gv[i] * std::conj(a / (b * b)); break;
                }
                dxr[i] = dx.real(); dxi[i] = dx.imag(); dyr[i] = dy.real(); dyi[i] = dy.imag();
            }
            auto store = [&](size_t result, const Dims& d, const std::vector<double>& re, const std::vector<double>& im) {
                if (c.outputs.size() <= result || c.resultIsNull(result)) return;
                std::vector<double> r = reduceToShape(re, od, d), i = reduceToShape(im, od, d);
                if (!isComplexDType(c.outDType(result))) { c.setOutDoubles(result, d, r); return; }
                std::vector<Cplx> v(r.size());
                for (size_t e = 0; e < v.size(); ++e) v[e] = Cplx(r[e], i[e]);
                c.setOut(result, complexTensor(c, result, d, v));
            };
            store(0, x.dims, dxr, dxi);
            store(1, y.dims, dyr, dyi);
        });
    }
    // Kernels that move bytes without reading them as numbers work on complex as they are;
    // full / full_like store (value, 0).
    for (const char* name : {"pd_op.assign", "pd_op.fetch", "builtin.shadow_output", "builtin.combine", "builtin.split",
                             "builtin.slice", "pd_op.full", "pd_op.full_like", "pd_op.reshape", "pd_op.view_shape", "pd_op.squeeze", "pd_op.unsqueeze",
                             "pd_op.flatten", "pd_op.transpose", "pd_op.expand", "pd_op.concat", "pd_op.stack",
                             "pd_op.split", "pd_op.split_with_num"})
        if (k.count(name)) complexAware.insert(name);
}

struct KernelRegistry {
    std::unordered_map<std::string, Kernel> kernels;
    std::unordered_set<std::string> complexAware;  // ops allowed to see complex tensors
};

const KernelRegistry& registry() {
    static const KernelRegistry r = [] {
        KernelRegistry k;
        k.kernels = buildKernels();
        addComplexKernels(k.kernels, k.complexAware);
        return k;
    }();
    return r;
}

const std::unordered_map<std::string, Kernel>& kernels() { return registry().kernels; }

bool isComplexValue(const Program& p, ValueId v) {
    if (v == kNoId) return false;
    const Type& t = p.types[p.values[v].type];
    if (t.kind == Type::Kind::DenseTensor) return isComplexDType(t.dtype);
    if (t.kind == Type::Kind::Vector)
        for (TypeId e : t.elements)
            if (p.types[e].kind == Type::Kind::DenseTensor && isComplexDType(p.types[e].dtype)) return true;
    return false;
}

bool isInputOp(std::string_view name) { return name == "pd_op.data" || name == "builtin.parameter" || name == "pd_op.feed"; }

std::string inputName(const Program& p, OpId op) {
    const Operation& o = p.ops[op];
    const Attribute* a = o.attribute(p.opName(op) == "builtin.parameter" ? "parameter_name" : "name");
    if (a && !a->text.empty()) return a->text;
    return o.results.empty() ? std::string() : p.values[o.results[0]].name;
}

void collectOps(const Program& p, BlockId b, std::vector<OpId>& out) {
    for (OpId op : p.blocks[b].ops) {
        out.push_back(op);
        for (const auto& region : p.ops[op].regions)
            for (BlockId nb : region) collectOps(p, nb, out);
    }
}

}  // namespace

Tensor seededInput(const std::string& name, DType dtype, const std::vector<int64_t>& dims, uint64_t seed) {
    Tensor t(dtype, dims);
    uint64_t key = hashString(name, seed);
    int64_t n = t.numel();
    for (int64_t i = 0; i < n; ++i) {
        double u = uniformAt(key, static_cast<uint64_t>(i));
        if (isComplexDType(dtype)) {  // real and imaginary parts each uniform in [-1, 1)
            double re = uniformAt(key, static_cast<uint64_t>(2 * i)), im = uniformAt(key, static_cast<uint64_t>(2 * i + 1));
            t.setComplex(i, {2.0 * re - 1.0, 2.0 * im - 1.0});
        } else if (isFloat(dtype)) t.set(i, 2.0 * u - 1.0);
        else if (dtype == DType::Bool) t.set(i, u < 0.5 ? 0.0 : 1.0);
        else t.set(i, std::floor(u * 4.0));
    }
    return t;
}

std::vector<std::string> CpuExecutor::supportedOps() {
    std::vector<std::string> names = {"pd_op.data", "pd_op.feed", "builtin.parameter"};
    for (const auto& [name, kernel] : kernels()) if (kernel) names.push_back(name);
    std::sort(names.begin(), names.end());
    return names;
}

std::vector<std::string> CpuExecutor::unsupportedOps(const Program& program) const {
    std::vector<OpId> all;
    collectOps(program, Program::kGlobalBlock, all);
    std::vector<std::string> missing;
    for (OpId op : all) {
        if (program.ops[op].dead) continue;
        std::string name(program.opName(op));
        if (isInputOp(name)) continue;
        auto it = kernels().find(name);
        if (it == kernels().end() || !it->second || !program.ops[op].regions.empty()) { missing.push_back(name); continue; }
        if (registry().complexAware.count(name)) continue;
        const Operation& o = program.ops[op];
        bool complex = std::any_of(o.operands.begin(), o.operands.end(), [&](ValueId v) { return isComplexValue(program, v); }) ||
                       std::any_of(o.results.begin(), o.results.end(), [&](ValueId v) { return isComplexValue(program, v); });
        if (complex) missing.push_back(name + " (on complex tensors)");
    }
    std::sort(missing.begin(), missing.end());
    missing.erase(std::unique(missing.begin(), missing.end()), missing.end());
    return missing;
}

CpuExecutor::Cost CpuExecutor::estimateCost(const Program& program) {
    Cost cost;
    const Block& block = program.globalBlock();
    auto staticDims = [&](ValueId v, std::vector<int64_t>& d) {
        if (v == kNoId) return false;
        const Type& t = program.types[program.values[v].type];
        if (t.kind != Type::Kind::DenseTensor) return false;
        for (int64_t x : t.dims) if (x < 0) return false;
        d = t.dims;
        return true;
    };
    for (OpId op : block.ops) {
        const Operation& o = program.ops[op];
        for (ValueId r : o.results) {
            int64_t n = program.types.elementCount(program.values[r].type);
            if (n > cost.largestElements) { cost.largestElements = n; cost.largestValue = program.values[r].name; }
        }
        std::string_view name = program.opName(op);
        std::vector<int64_t> a, b, out;
        if ((name == "pd_op.matmul" || name == "pd_op.matmul_grad") && o.operands.size() >= 2 &&
            staticDims(o.operands[0], a) && staticDims(o.operands[1], b) && !a.empty() && !b.empty()) {
            // work = elements of the product times the shared dim; the grad does it twice
            bool tx = o.attribute("transpose_x") && o.attribute("transpose_x")->boolValue;
            int64_t k = a.size() == 1 ? a[0] : (tx ? a[a.size() - 2] : a.back());
            int64_t prod = 1;
            if (name == "pd_op.matmul" && !o.results.empty() && staticDims(o.results[0], out)) for (int64_t x : out) prod *= x;
            else { for (int64_t x : a) prod *= x; prod = prod / std::max<int64_t>(k, 1) * (b.size() == 1 ? 1 : b.back()); }
            cost.multiplyAdds += prod * k * (name == "pd_op.matmul" ? 1 : 2);
        } else if ((name == "pd_op.conv2d" || name == "pd_op.conv2d_grad") && o.operands.size() >= 2 &&
                   staticDims(o.operands[0], a) && staticDims(o.operands[1], b) && a.size() == 4 && b.size() == 4) {
            // upper bound: every output position of a stride-1 conv, times the filter size
            cost.multiplyAdds += a[0] * b[0] * a[2] * a[3] * b[1] * b[2] * b[3] * (name == "pd_op.conv2d" ? 1 : 2);
        }
    }
    return cost;
}

static std::vector<uint8_t> residentMask(const Program& program, const RunOptions& options) {
    std::vector<uint8_t> resident(program.values.size(), 0);
    if (options.residentValues) {
        for (ValueId v : *options.residentValues) if (v < resident.size()) resident[v] = 1;
    } else if (options.inputsResident) {
        for (OpId op : program.globalBlock().ops)
            if (isInputOp(program.opName(op))) for (ValueId r : program.ops[op].results) resident[r] = 1;
    }
    return resident;
}

static RunLimits limitsOf(const RunOptions& o) {
    RunLimits l;
    l.maxElementsPerValue = o.maxElementsPerValue;
    l.maxBytesPerValue = o.maxBytesPerValue;
    l.maxTotalBytes = o.maxTotalBytes;
    l.maxMultiplyAdds = o.maxMultiplyAdds;
    return l;
}

RunResult CpuExecutor::run(const Program& program, const RunInputs& inputs, const RunOptions& options) {
    std::vector<std::string> missing = unsupportedOps(program);
    if (!missing.empty()) {
        std::string list;
        for (const std::string& m : missing) list += (list.empty() ? "" : ", ") + m;
        throw Error("the CPU executor has no kernel for: " + list);
    }
    for (OpId op : program.globalBlock().ops)
        for (ValueId r : program.ops[op].results) {
            const Type& t = program.types[program.values[r].type];
            if (t.kind == Type::Kind::DenseTensor && !isSupportedDType(t.dtype))
                throw Error("the CPU executor has no " + std::string(dtypeShortName(t.dtype)) + " tensors (" + program.values[r].name +
                            ", defined by " + std::string(program.opName(op)) + ")");
        }
    // Validate every op and refuse work that would exhaust memory or run for hours, on the
    // propagated shapes, before anything runs.
    const std::vector<uint8_t> resident = residentMask(program, options);
    checkProgram(program, limitsOf(options), resident);
    using Clock = std::chrono::steady_clock;
    auto start = Clock::now();
    const Block& block = program.globalBlock();
    const size_t nOps = block.ops.size();

    // Last top-level position that reads each value (values read by nobody die at once).
    std::vector<int64_t> lastUse(program.values.size(), -1);
    for (size_t pos = 0; pos < nOps; ++pos)
        for (ValueId v : program.ops[block.ops[pos]].operands)
            if (v != kNoId) lastUse[v] = static_cast<int64_t>(pos);
    std::unordered_map<std::string, bool> capture;
    for (const std::string& n : options.captureValues) capture[n] = true;
    std::vector<std::vector<ValueId>> dieAfter(nOps);
    for (size_t pos = 0; pos < nOps; ++pos)
        for (ValueId r : program.ops[block.ops[pos]].results) {
            if (resident[r]) continue;
            int64_t last = std::max<int64_t>(lastUse[r], static_cast<int64_t>(pos));
            dieAfter[last].push_back(r);
        }

    std::vector<Slot> slots(program.values.size());
    std::vector<int64_t> slotBytes(program.values.size(), 0);
    RunResult result;
    int64_t live = 0;
    auto bytesOf = [&](ValueId v, const Slot& s) -> int64_t {
        if (!s.set || s.isList) return 0;  // vectors alias their elements
        (void)v;
        return s.tensor ? s.tensor->byteSize() : 0;
    };

    for (size_t pos = 0; pos < nOps; ++pos) {
        if (options.cancel && options.cancel->load()) { result.cancelled = true; break; }
        OpId op = block.ops[pos];
        const Operation& o = program.ops[op];
        std::string_view name = program.opName(op);
        auto t0 = Clock::now();
        std::vector<const Slot*> in;
        for (ValueId v : o.operands) {
            if (v == kNoId) { in.push_back(nullptr); continue; }
            if (!slots[v].set) {
                bool nullType = program.types[program.values[v].type].kind == Type::Kind::Null;
                if (!nullType)
                    throw Error("op " + std::to_string(op) + " (" + std::string(name) + ") reads " + program.values[v].name +
                                " before it is defined or after it was freed");
                in.push_back(nullptr);
                continue;
            }
            in.push_back(&slots[v]);
        }
        Context ctx(program, op, std::move(in), inputs.seed);
        if (isInputOp(name)) {
            std::string iname = inputName(program, op);
            if (o.results.empty()) throw Error("input op without a result");
            const Type& t = program.types[program.values[o.results[0]].type];
            if (t.kind != Type::Kind::DenseTensor) ctx.fail("input of a non-tensor type");
            auto it = inputs.byName.find(iname);
            if (it != inputs.byName.end()) {
                if (it->second.dtype != t.dtype) ctx.fail("input " + iname + " given as " + it->second.shapeString());
                for (size_t i = 0; i < t.dims.size(); ++i)
                    if (t.dims.size() != it->second.dims.size() || (t.dims[i] >= 0 && t.dims[i] != it->second.dims[i]))
                        ctx.fail("input " + iname + " given as " + it->second.shapeString() + ", declared " + dimsString(t.dims));
                ctx.setOut(0, it->second);
            } else {
                for (int64_t d : t.dims)
                    if (d < 0) ctx.fail("input " + iname + " has a dynamic shape " + dimsString(t.dims) + "; give it explicitly");
                ctx.setOut(0, seededInput(iname, t.dtype, t.dims, inputs.seed));
                result.generatedInputs.push_back(iname);
            }
            result.inputBytes += ctx.outputs[0].tensor->byteSize();
        } else {
            ctx.maxElements = options.maxElementsPerValue;
            try {
                kernels().at(std::string(name))(ctx);
            } catch (const Error&) {
                throw;
            } catch (const std::exception& e) {  // a library error (bad_alloc, out_of_range): name the op
                ctx.fail(std::string("kernel failed: ") + e.what());
            }
        }
        // Check results against the declared types: rank, static dims, dtype.
        for (size_t i = 0; i < o.results.size(); ++i) {
            const Type& t = program.types[program.values[o.results[i]].type];
            const Slot& s = ctx.outputs[i];
            if (t.kind == Type::Kind::Null) continue;
            if (!s.set) ctx.fail("kernel produced no result " + std::to_string(i));
            if (!s.isList && s.tensor && options.maxBytesPerValue > 0 && s.tensor->byteSize() > options.maxBytesPerValue)
                ctx.fail("result " + program.values[o.results[i]].name + " holds " + std::to_string(s.tensor->byteSize()) +
                         " bytes (limit " + std::to_string(options.maxBytesPerValue) + ", RunOptions::maxBytesPerValue)");
            if (t.kind == Type::Kind::DenseTensor) {
                if (s.isList) ctx.fail("result " + std::to_string(i) + " is a vector, declared a tensor");
                const Tensor& r = *s.tensor;
                bool ok = r.dtype == t.dtype && r.dims.size() == t.dims.size();
                for (size_t d = 0; ok && d < t.dims.size(); ++d) ok = t.dims[d] < 0 || t.dims[d] == r.dims[d];
                if (!ok) {
                    std::string declared;
                    for (int64_t d : t.dims) declared += std::to_string(d) + "x";
                    ctx.fail("computed " + r.shapeString() + " for " + program.values[o.results[i]].name + ", declared " + declared +
                             std::string(dtypeShortName(t.dtype)));
                }
            } else if (t.kind == Type::Kind::Vector) {
                if (!s.isList || s.list.size() != t.elements.size())
                    ctx.fail("result " + std::to_string(i) + " does not match its vector type");
            }
        }
        int64_t added = 0;
        for (size_t i = 0; i < o.results.size(); ++i) {
            ValueId r = o.results[i];
            slots[r] = std::move(ctx.outputs[i]);
            slotBytes[r] = bytesOf(r, slots[r]);
            added += slotBytes[r];
        }
        live += added;
        if (options.maxTotalBytes > 0 && live > options.maxTotalBytes)
            ctx.fail("the run holds " + std::to_string(live) + " bytes of live values (limit " + std::to_string(options.maxTotalBytes) +
                     ", RunOptions::maxTotalBytes)");
        OpRecord rec;
        rec.op = op;
        rec.peakBytes = live;
        if (name == "pd_op.fetch" || name == "builtin.shadow_output") {
            ValueId v = o.operands.empty() ? kNoId : o.operands[0];
            if (v != kNoId && slots[v].set && !slots[v].isList) {
                FetchedValue f;
                const Attribute* a = o.attribute(name == "pd_op.fetch" ? "name" : "output_name");
                f.fetchName = a ? a->text : std::string();
                f.valueName = program.values[v].name;
                f.tensor = *slots[v].tensor;
                result.fetches.push_back(std::move(f));
            }
        }
        for (ValueId r : o.results)
            if (slots[r].set && !slots[r].isList && (options.keepAllValues || capture.count(program.values[r].name)))
                result.values[program.values[r].name] = *slots[r].tensor;
        for (ValueId v : dieAfter[pos]) { live -= slotBytes[v]; slotBytes[v] = 0; slots[v] = Slot{}; }
        rec.liveBytes = live;
        rec.micros = options.recordOpTimes ? std::chrono::duration<double, std::micro>(Clock::now() - t0).count() : 0.0;
        result.peakBytes = std::max(result.peakBytes, rec.peakBytes);
        result.ops.push_back(rec);
    }
    result.totalMs = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    return result;
}

}  // namespace rx::exec
