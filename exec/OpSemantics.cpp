// Op semantics shared by every backend: attribute readers, broadcasting, conv/pool geometry,
// and the check pass (validation + shape propagation + byte limits) that runs before any op.
#include "exec/OpSemantics.h"
#include "exec/Liveness.h"

#include <algorithm>
#include <cmath>
#include <unordered_set>

#include "model/Diagnostic.h"
#include "model/RandomRecompute.h"

namespace rx::exec {

int64_t numelOf(const Dims& d) {
    int64_t n = 1;
    for (int64_t x : d) n *= x;
    return n;
}

std::string dimsString(const Dims& d) {
    std::string s = "[";
    for (size_t i = 0; i < d.size(); ++i) s += (i ? "," : "") + std::to_string(d[i]);
    return s + "]";
}

Dims stridesOf(const Dims& d) {
    Dims s(d.size(), 1);
    for (int i = static_cast<int>(d.size()) - 2; i >= 0; --i) s[i] = s[i + 1] * d[i + 1];
    return s;
}

std::optional<Dims> broadcastShapes(const Dims& a, const Dims& b) {
    size_t r = std::max(a.size(), b.size());
    Dims out(r);
    for (size_t i = 0; i < r; ++i) {
        int64_t da = i < r - a.size() ? 1 : a[i - (r - a.size())];
        int64_t db = i < r - b.size() ? 1 : b[i - (r - b.size())];
        if (da != db && da != 1 && db != 1) return std::nullopt;
        out[i] = da == 1 ? db : da;
    }
    return out;
}

Dims broadcastDims(const Dims& a, const Dims& b, const FailFn& fail) {
    auto out = broadcastShapes(a, b);
    if (!out) fail("shapes " + dimsString(a) + " and " + dimsString(b) + " do not broadcast");
    return *out;
}

void checkReducible(const Dims& from, const Dims& to, const FailFn& fail) {
    auto b = broadcastShapes(to, from);
    if (!b || *b != from) fail("cannot reduce " + dimsString(from) + " to " + dimsString(to));
}

Dims whereDims(const Dims& cond, const Dims& x, const Dims& y, const FailFn& fail) {
    return broadcastDims(broadcastDims(cond, x, fail), y, fail);
}

MatmulShape matmulShape(const Dims& a, bool ta, const Dims& b, bool tb, const FailFn& fail) {
    if (a.empty() || b.empty()) fail("matmul of a 0-d tensor");
    MatmulShape g;
    g.a = a.size() == 1 ? Dims{1, a[0]} : a;
    g.b = b.size() == 1 ? Dims{b[0], 1} : b;
    g.transposeA = a.size() == 1 ? false : ta;
    g.transposeB = b.size() == 1 ? false : tb;
    const Dims& ad = g.a;
    const Dims& bd = g.b;
    g.m = g.transposeA ? ad.back() : ad[ad.size() - 2];
    g.k = g.transposeA ? ad[ad.size() - 2] : ad.back();
    const int64_t k2 = g.transposeB ? bd.back() : bd[bd.size() - 2];
    g.n = g.transposeB ? bd[bd.size() - 2] : bd.back();
    if (g.k != k2)
        fail("inner dims differ: " + dimsString(a) + " x " + dimsString(b) + " (transpose_x " + std::to_string(g.transposeA) +
             ", transpose_y " + std::to_string(g.transposeB) + ")");
    g.aBatch.assign(ad.begin(), ad.end() - 2);
    g.bBatch.assign(bd.begin(), bd.end() - 2);
    auto batch = broadcastShapes(g.aBatch, g.bBatch);
    if (!batch) fail("batch dims of " + dimsString(a) + " and " + dimsString(b) + " do not broadcast");
    g.batch = *batch;
    g.outDims = g.batch;
    if (a.size() != 1) g.outDims.push_back(g.m);
    if (b.size() != 1) g.outDims.push_back(g.n);
    return g;
}

int64_t arangeLength(double start, double end, double step, const FailFn& fail) {
    if (step == 0) fail("arange with step 0");
    const double len = std::ceil((end - start) / step);
    if (!std::isfinite(len)) fail("arange with a non-finite length (start " + std::to_string(start) + ", end " + std::to_string(end) +
                                  ", step " + std::to_string(step) + ")");
    return std::max<int64_t>(0, static_cast<int64_t>(std::min(len, 9.0e18)));
}

// ---------- attribute readers ----------
int64_t attrInt(const Operation& o, std::string_view n, int64_t def) {
    const Attribute* a = o.attribute(n);
    if (!a) return def;
    if (a->kind == Attribute::Kind::Bool) return a->boolValue;
    if (a->kind == Attribute::Kind::Float || a->kind == Attribute::Kind::Double) {
        if (!std::isfinite(a->floatValue) || std::fabs(a->floatValue) > 9.2e18) return def;
        return static_cast<int64_t>(a->floatValue);
    }
    if (a->kind == Attribute::Kind::Array || a->kind == Attribute::Kind::IntArray) {
        Dims v = a->toIntVector();
        return v.empty() ? def : v[0];
    }
    return a->intValue;
}

double attrFloat(const Operation& o, std::string_view n, double def) {
    const Attribute* a = o.attribute(n);
    if (!a) return def;
    if (a->kind == Attribute::Kind::Float || a->kind == Attribute::Kind::Double) return a->floatValue;
    if (a->kind == Attribute::Kind::Int32 || a->kind == Attribute::Kind::Int64 || a->kind == Attribute::Kind::Index)
        return static_cast<double>(a->intValue);
    if (a->kind == Attribute::Kind::Bool) return a->boolValue;
    if (a->kind == Attribute::Kind::Opaque || a->kind == Attribute::Kind::String) {
        try { return std::stod(a->text); } catch (...) {
            throw Error("attribute " + std::string(n) + " = " + a->text + " is not a number");
        }
    }
    return def;
}

bool attrBool(const Operation& o, std::string_view n, bool def) {
    const Attribute* a = o.attribute(n);
    if (!a) return def;
    if (a->kind == Attribute::Kind::Bool) return a->boolValue;
    if (a->kind == Attribute::Kind::Int32 || a->kind == Attribute::Kind::Int64) return a->intValue != 0;
    if (a->kind == Attribute::Kind::Opaque || a->kind == Attribute::Kind::String) return a->text == "true" || a->text == "1";
    return def;
}

Dims attrInts(const Operation& o, std::string_view n) {
    const Attribute* a = o.attribute(n);
    if (!a) return {};
    if (a->kind == Attribute::Kind::Array || a->kind == Attribute::Kind::IntArray) return a->toIntVector();
    if (a->kind == Attribute::Kind::Int32 || a->kind == Attribute::Kind::Int64) return {a->intValue};
    return {};
}

std::string attrString(const Operation& o, std::string_view n, std::string def) {
    const Attribute* a = o.attribute(n);
    if (!a) return def;
    return a->text;
}

std::string opWhere(const Program& p, OpId op) {
    std::string where = "op " + std::to_string(op) + " (" + std::string(p.opName(op));
    if (!p.op(op).results.empty()) where += " -> " + p.value(p.op(op).results[0]).name;
    return where + ")";
}

// ---------- conv / pool geometry ----------
namespace {

void pads4(const Dims& p, const FailFn& fail, int64_t& ph0, int64_t& ph1, int64_t& pw0, int64_t& pw1) {
    if (p.size() == 2) { ph0 = ph1 = p[0]; pw0 = pw1 = p[1]; }
    else if (p.size() == 4) { ph0 = p[0]; ph1 = p[1]; pw0 = p[2]; pw1 = p[3]; }
    else if (p.empty()) { ph0 = ph1 = pw0 = pw1 = 0; }
    else fail("attribute paddings = " + dimsString(p) + ": expected 2 or 4 entries");
    if (ph0 < 0 || ph1 < 0 || pw0 < 0 || pw1 < 0) fail("attribute paddings = " + dimsString(p) + ": every padding must be >= 0");
}

void samePads(int64_t in, int64_t k, int64_t s, int64_t& p0, int64_t& p1) {
    int64_t out = (in + s - 1) / s;
    int64_t total = std::max<int64_t>((out - 1) * s + k - in, 0);
    p0 = total / 2; p1 = total - p0;
}

// Two positive entries from an attribute (one entry means both); `what` names it.
void positivePair(const Dims& v, const char* what, const FailFn& fail, int64_t& a, int64_t& b) {
    a = v.size() > 0 ? v[0] : 1;
    b = v.size() > 1 ? v[1] : a;
    if (v.size() > 2) fail(std::string("attribute ") + what + " = " + dimsString(v) + ": expected 1 or 2 entries");
    if (a <= 0 || b <= 0) fail(std::string("attribute ") + what + " = " + dimsString(v) + ": every entry must be > 0");
}

}  // namespace

Conv2dGeom conv2dGeometry(const Operation& o, const Dims& x, const Dims& f, const FailFn& fail) {
    if (x.size() != 4 || f.size() != 4)
        fail("conv2d needs a 4-d input and filter, got " + dimsString(x) + " and " + dimsString(f));
    std::string layout = attrString(o, "data_format", "NCHW");
    if (layout != "NCHW" && layout != "AnyLayout") fail("attribute data_format = " + layout + ": only NCHW is supported");
    for (int64_t d : x) if (d < 0) fail("input dims " + dimsString(x) + " must be >= 0");
    for (int64_t d : f) if (d <= 0) fail("filter dims " + dimsString(f) + " must be > 0");
    Conv2dGeom g{};
    g.n = x[0]; g.cin = x[1]; g.h = x[2]; g.w = x[3]; g.cout = f[0]; g.kh = f[2]; g.kw = f[3];
    positivePair(attrInts(o, "strides"), "strides", fail, g.sh, g.sw);
    positivePair(attrInts(o, "dilations"), "dilations", fail, g.dh, g.dw);
    g.groups = attrInt(o, "groups", 1);
    if (g.groups < 1) fail("attribute groups = " + std::to_string(g.groups) + ": must be >= 1");
    if (g.cin % g.groups || g.cout % g.groups || f[1] * g.groups != g.cin)
        fail("attribute groups = " + std::to_string(g.groups) + ": input channels " + std::to_string(g.cin) + ", filter " +
             dimsString(f) + " do not match");
    std::string algo = attrString(o, "padding_algorithm", "EXPLICIT");
    if (algo == "VALID") g.ph0 = g.ph1 = g.pw0 = g.pw1 = 0;
    else if (algo == "SAME") {
        samePads(g.h, (g.kh - 1) * g.dh + 1, g.sh, g.ph0, g.ph1);
        samePads(g.w, (g.kw - 1) * g.dw + 1, g.sw, g.pw0, g.pw1);
    } else pads4(attrInts(o, "paddings"), fail, g.ph0, g.ph1, g.pw0, g.pw1);
    g.oh = (g.h + g.ph0 + g.ph1 - (g.kh - 1) * g.dh - 1) / g.sh + 1;
    g.ow = (g.w + g.pw0 + g.pw1 - (g.kw - 1) * g.dw - 1) / g.sw + 1;
    if (g.h + g.ph0 + g.ph1 < (g.kh - 1) * g.dh + 1 || g.w + g.pw0 + g.pw1 < (g.kw - 1) * g.dw + 1 || g.oh <= 0 || g.ow <= 0)
        fail("conv2d output would be empty (input " + dimsString(x) + ", filter " + dimsString(f) + ")");
    return g;
}

PoolGeom pool2dGeometry(const Operation& o, const Dims& x, Dims ksize, const FailFn& fail) {
    if (x.size() != 4) fail("pool2d needs a 4-d input, got " + dimsString(x));
    if (attrString(o, "data_format", "NCHW") != "NCHW") fail("attribute data_format: only NCHW pool2d is supported");
    for (int64_t d : x) if (d < 0) fail("input dims " + dimsString(x) + " must be >= 0");
    PoolGeom g{};
    g.n = x[0]; g.ch = x[1]; g.h = x[2]; g.w = x[3];
    std::string type = attrString(o, "pooling_type", "max");
    if (type != "max" && type != "avg") fail("attribute pooling_type = " + type + ": expected max or avg");
    g.avg = type == "avg";
    g.exclusive = attrBool(o, "exclusive", true);
    g.adaptive = attrBool(o, "adaptive", false);
    if (ksize.size() == 1) ksize.push_back(ksize[0]);
    if (ksize.size() != 2) fail("attribute kernel_size = " + dimsString(ksize) + ": expected 2 entries");
    if (ksize[0] <= 0 || ksize[1] <= 0) fail("attribute kernel_size = " + dimsString(ksize) + ": every entry must be > 0");
    g.kh = ksize[0]; g.kw = ksize[1];
    positivePair(attrInts(o, "strides"), "strides", fail, g.sh, g.sw);
    pads4(attrInts(o, "paddings"), fail, g.ph0, g.ph1, g.pw0, g.pw1);
    if (attrBool(o, "global_pooling", false)) { g.kh = g.h; g.kw = g.w; g.sh = g.sw = 1; g.ph0 = g.ph1 = g.pw0 = g.pw1 = 0; }
    std::string algo = attrString(o, "padding_algorithm", "EXPLICIT");
    if (algo == "VALID") g.ph0 = g.ph1 = g.pw0 = g.pw1 = 0;
    else if (algo == "SAME") { samePads(g.h, g.kh, g.sh, g.ph0, g.ph1); samePads(g.w, g.kw, g.sw, g.pw0, g.pw1); }
    if (g.adaptive) {
        g.oh = g.kh; g.ow = g.kw;
        if (g.h <= 0 || g.w <= 0) fail("adaptive pool2d of an empty input " + dimsString(x));
        return g;
    }
    bool ceil = attrBool(o, "ceil_mode", false);
    auto outSize = [&](int64_t in, int64_t k, int64_t st, int64_t p) {
        int64_t span = in + p - k;
        if (span < 0) return int64_t(0);
        return (ceil ? (span + st - 1) / st : span / st) + 1;
    };
    g.oh = outSize(g.h, g.kh, g.sh, g.ph0 + g.ph1);
    g.ow = outSize(g.w, g.kw, g.sw, g.pw0 + g.pw1);
    if (g.oh <= 0 || g.ow <= 0) fail("pool2d output would be empty (input " + dimsString(x) + ", kernel " + dimsString(ksize) + ")");
    return g;
}

Conv2dGeom conv2dGeometry(const OpSite& s, const Dims& x, const Dims& f) { return conv2dGeometry(s.o, x, f, s.failFn()); }

PoolGeom pool2dGeometry(const OpSite& s, const Dims& x, size_t kernelOperand) {
    return pool2dGeometry(s.o, x, s.intsOr(kernelOperand, "kernel_size"), s.failFn());
}

// ---------- OpSite ----------
void OpSite::fail(const std::string& msg) const { throw Error(opWhere(program, id) + ": " + msg); }

double OpSite::attrFloat(std::string_view n, double def) const {
    try { return rx::exec::attrFloat(o, n, def); } catch (const Error& e) { fail(e.what()); }
}

void OpSite::needOperand(size_t i, bool vector) const {
    if (!has(i)) fail("operand " + std::to_string(i) + " is missing");
    if (isVector(i) != vector)
        fail("operand " + std::to_string(i) + (vector ? " is a tensor, expected a vector" : " is a vector, expected a tensor"));
}

int64_t OpSite::intOr(size_t i, std::string_view n, int64_t def) const {
    if (!has(i)) return attrInt(n, def);
    Dims v = ints(i);
    if (v.empty()) fail("operand " + std::to_string(i) + " is empty, expected " + std::string(n));
    return v[0];
}

const Type& OpSite::resultType(size_t i) const {
    if (i >= o.results.size()) fail("has " + std::to_string(o.results.size()) + " results, expected at least " + std::to_string(i + 1));
    return program.types()[program.value(o.results[i]).type];
}

std::optional<Dims> OpSite::staticDims(size_t i) const {
    const Type& t = resultType(i);
    if (t.kind != Type::Kind::DenseTensor) return std::nullopt;
    for (int64_t d : t.dims) if (d < 0) return std::nullopt;
    return t.dims;
}

std::string OpSite::resultName(size_t i) const {
    return i < o.results.size() ? program.value(o.results[i]).name : std::string("(no result)");
}

int64_t OpSite::normAxis(int64_t axis, size_t rank) const {
    int64_t r = static_cast<int64_t>(rank);
    int64_t a = axis < 0 ? axis + r : axis;
    if (a < 0 || a >= std::max<int64_t>(r, 1)) fail("axis " + std::to_string(axis) + " out of range for rank " + std::to_string(r));
    return a;
}

Dims OpSite::broadcast(const Dims& a, const Dims& b) const { return broadcastDims(a, b, failFn()); }

int64_t OpSite::checkedNumel(const Dims& d) const { return rx::exec::checkedNumel(d, failFn()); }

// ---------- the seeded generator ----------
uint64_t mix64(uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

uint64_t hashString(std::string_view s, uint64_t seed) {
    uint64_t h = mix64(seed ^ 0x51ed270b27a4d1c3ull);
    for (unsigned char c : s) h = mix64(h ^ c);
    return h;
}

double uniformAt(uint64_t key, uint64_t index) {
    return static_cast<double>(mix64(key ^ mix64(index)) >> 11) * (1.0 / 9007199254740992.0);
}

bool isFloatDType(DType t) {
    return t == DType::Float16 || t == DType::BFloat16 || t == DType::Float32 || t == DType::Float64;
}

Tensor seededInput(const std::string& name, DType dtype, const std::vector<int64_t>& dims, uint64_t seed, int64_t integerBound) {
    const double bound = static_cast<double>(integerBound > 0 ? integerBound : 4);
    Tensor t(dtype, dims);
    uint64_t key = hashString(name, seed);
    int64_t n = t.numel();
    for (int64_t i = 0; i < n; ++i) {
        double u = uniformAt(key, static_cast<uint64_t>(i));
        if (isComplexDType(dtype)) {  // real and imaginary parts each uniform in [-1, 1)
            double re = uniformAt(key, static_cast<uint64_t>(2 * i)), im = uniformAt(key, static_cast<uint64_t>(2 * i + 1));
            t.setComplex(i, {2.0 * re - 1.0, 2.0 * im - 1.0});
        } else if (isFloatDType(dtype)) t.set(i, 2.0 * u - 1.0);
        else if (dtype == DType::Bool) t.set(i, u < 0.5 ? 0.0 : 1.0);
        else t.set(i, std::floor(u * bound));
    }
    return t;
}

std::optional<int64_t> indexOperandBound(const Program& p, OpId op, size_t operand) {
    const Operation& o = p.op(op);
    auto dimsOf = [&](size_t i) -> std::optional<Dims> {
        if (i >= o.operands.size() || o.operands[i] == kNoId) return std::nullopt;
        const Type& t = p.types()[p.value(o.operands[i]).type];
        if (t.kind != Type::Kind::DenseTensor) return std::nullopt;
        for (int64_t d : t.dims) if (d < 0) return std::nullopt;
        return t.dims;
    };
    // Dim `axis` (attribute, default `def`) of operand `table`.
    auto axisOf = [&](size_t table, int64_t def) -> std::optional<int64_t> {
        auto d = dimsOf(table);
        if (!d || d->empty()) return std::nullopt;
        int64_t r = static_cast<int64_t>(d->size()), a = attrInt(o, "axis", def);
        if (a < 0) a += r;
        if (a < 0 || a >= r) return std::nullopt;
        return (*d)[static_cast<size_t>(a)];
    };
    const std::string_view n = p.opName(op);
    if ((n == "pd_op.embedding" || n == "pd_op.embedding_grad") && operand == 0) {
        auto w = dimsOf(1);
        if (w && w->size() == 2) return (*w)[0];
        return std::nullopt;
    }
    if ((n == "pd_op.gather" || n == "pd_op.index_select" || n == "pd_op.gather_grad" || n == "pd_op.index_select_grad") && operand == 1) {
        if (o.operands.size() > 2 && o.operands[2] != kNoId && !n.ends_with("_grad")) return std::nullopt;  // axis from data
        return axisOf(0, 0);
    }
    if (n == "pd_op.put_along_axis" && operand == 1) return axisOf(0, 0);
    if ((n == "pd_op.scatter" || n == "pd_op.scatter_grad") && operand == 1) {
        auto d = dimsOf(0);
        if (d && !d->empty()) return (*d)[0];
        return std::nullopt;
    }
    if (n == "pd_op.index_sample" && operand == 1) {
        auto d = dimsOf(0);
        if (d && d->size() == 2) return (*d)[1];
        return std::nullopt;
    }
    if ((n == "pd_op.gather_nd" || n == "pd_op.gather_nd_grad") && operand == 1) {
        auto d = dimsOf(0);
        if (!d || d->empty()) return std::nullopt;
        return *std::min_element(d->begin(), d->end());  // each index component addresses one leading dim
    }
    if (n == "pd_op.cross_entropy_with_softmax" && operand == 1 && !attrBool(o, "soft_label", false)) return axisOf(0, -1);
    if (n == "pd_op.cross_entropy_with_softmax_grad" && operand == 0 && !attrBool(o, "soft_label", false)) return axisOf(1, -1);
    return std::nullopt;
}

std::optional<int64_t> inputIndexBound(const Program& p, OpId inputOp) {
    const Operation& in = p.op(inputOp);
    if (in.results.empty()) return std::nullopt;
    std::optional<int64_t> bound;
    std::vector<ValueId> work{in.results[0]}, seen;
    while (!work.empty()) {
        ValueId v = work.back();
        work.pop_back();
        if (std::find(seen.begin(), seen.end(), v) != seen.end()) continue;
        seen.push_back(v);
        for (const Use& u : p.uses(v)) {
            const Operation& reader = p.op(u.user);
            const std::string_view n = p.opName(u.user);
            // Views and casts keep the values: follow their result 0.
            if ((hasOpTrait(n, OpTrait::View) || n == "pd_op.cast") && !reader.results.empty() && n != "builtin.combine") {
                work.push_back(reader.results[0]);
                continue;
            }
            if (auto b = indexOperandBound(p, u.user, u.operandIndex); b && *b > 0) bound = bound ? std::min(*bound, *b) : *b;
        }
    }
    return bound;
}

Tensor seededInputFor(const Program& p, OpId inputOp, uint64_t seed) {
    const Operation& o = p.op(inputOp);
    if (o.results.empty()) throw Error(opWhere(p, inputOp) + ": input op without a result");
    const Type& t = p.types()[p.value(o.results[0]).type];
    int64_t bound = 4;
    if (!isFloatDType(t.dtype) && !isComplexDType(t.dtype) && t.dtype != DType::Bool)
        if (auto b = inputIndexBound(p, inputOp); b && *b < bound) bound = *b;
    return seededInput(inputName(p, inputOp), t.dtype, t.dims, seed, bound);
}

uint64_t randomOpKey(const OpSite& s, uint64_t runSeed) {
    // randint has no seed attribute in the programs it comes from: a fixed salt keeps its
    // draws apart from a uniform's of the same name.
    if (s.program.opName(s.id) == "pd_op.randint") return hashString(s.resultName(0), runSeed ^ 0x7261ull);
    // fix_seed (Paddle): the draws depend on the seed attribute alone, not on where the op
    // sits, so a clone re-run under --recompute-random seed draws the same numbers.
    if (carriesFixedSeed(s.program, s.id)) return hashString("fix_seed", runSeed ^ static_cast<uint64_t>(s.attrInt("seed", 0)));
    return hashString(s.resultName(0), runSeed ^ static_cast<uint64_t>(s.attrInt("seed", 0)));
}

// ---------- inputs and the ops a backend walks ----------

std::string inputName(const Program& p, OpId op) {
    const Operation& o = p.op(op);
    const Attribute* a = o.attribute(p.opName(op) == "builtin.parameter" ? "parameter_name" : "name");
    if (a && !a->text.empty()) return a->text;
    return o.results.empty() ? std::string() : p.value(o.results[0]).name;
}

void collectOps(const Program& p, BlockId b, std::vector<OpId>& out) {
    for (OpId op : p.block(b).ops) {
        out.push_back(op);
        for (const auto& region : p.op(op).regions)
            for (BlockId nb : region) collectOps(p, nb, out);
    }
}

bool isComplexValue(const Program& p, ValueId v) {
    if (v == kNoId) return false;
    const Type& t = p.types()[p.value(v).type];
    if (t.kind == Type::Kind::DenseTensor) return isComplexDType(t.dtype);
    if (t.kind == Type::Kind::Vector)
        for (TypeId e : t.elements)
            if (p.types()[e].kind == Type::Kind::DenseTensor && isComplexDType(p.types()[e].dtype)) return true;
    return false;
}

void refuseUnrunnable(const Program& p, const std::vector<std::string>& missing, const std::string& backend,
                      const std::function<bool(DType)>& runsDType) {
    if (!missing.empty()) {
        std::string list;
        for (const std::string& m : missing) list += (list.empty() ? "" : ", ") + m;
        throw Error("the " + backend + " executor has no kernel for: " + list);
    }
    for (OpId op : p.globalBlock().ops)
        for (ValueId r : p.op(op).results) {
            const Type& t = p.types()[p.value(r).type];
            if (t.kind == Type::Kind::DenseTensor && !runsDType(t.dtype))
                throw Error("the " + backend + " executor has no " + std::string(dtypeShortName(t.dtype)) + " tensors (" + p.value(r).name +
                            ", defined by " + std::string(p.opName(op)) + ")");
        }
}

std::vector<std::string> unsupportedOpsOf(const Program& p, const std::function<bool(const Operation&, std::string_view)>& runs,
                                          const std::function<bool(std::string_view)>& complexAware) {
    std::vector<OpId> all;
    collectOps(p, Program::kGlobalBlock, all);
    std::vector<std::string> missing;
    for (OpId op : all) {
        const Operation& o = p.op(op);
        if (o.dead) continue;
        const std::string_view name = p.opName(op);
        if (isInputOp(name)) continue;
        if (!runs(o, name)) { missing.emplace_back(name); continue; }
        if (complexAware(name)) continue;
        auto complex = [&](ValueId v) { return isComplexValue(p, v); };
        if (std::any_of(o.operands.begin(), o.operands.end(), complex) || std::any_of(o.results.begin(), o.results.end(), complex))
            missing.push_back(std::string(name) + " (on complex tensors)");
    }
    std::sort(missing.begin(), missing.end());
    missing.erase(std::unique(missing.begin(), missing.end()), missing.end());
    return missing;
}

// ---------- normalised parameters of each op family ----------
Dims fullShape(const OpSite& s) {
    Dims shape = s.intsOr(0, "shape");
    s.checkedNumel(shape);
    return shape;
}

Dims fullWithTensorShape(const OpSite& s) {
    Dims shape = s.has(1) ? s.ints(1) : Dims{};
    if (auto d = s.staticDims(0)) shape = *d;
    s.checkedNumel(shape);
    return shape;
}

Dims reshapeDims(const OpSite& s, const Dims& in, Dims shape) { return reshapeTarget(in, std::move(shape), s.failFn()); }

Dims reshapeDims(const OpSite& s) { return reshapeDims(s, s.operandDims(0), s.intsOr(1, "shape")); }

Dims squeezeDims(const OpSite& s) {
    Dims in = s.operandDims(0), axes = s.intsOr(1, "axis"), od;
    std::vector<bool> drop(in.size(), false);
    if (axes.empty()) for (size_t i = 0; i < in.size(); ++i) drop[i] = in[i] == 1;
    for (int64_t a : axes) {
        size_t n = static_cast<size_t>(s.normAxis(a, in.size()));
        if (n < in.size() && in[n] == 1) drop[n] = true;
    }
    for (size_t i = 0; i < in.size(); ++i) if (!drop[i]) od.push_back(in[i]);
    return od;
}

Dims unsqueezeDims(const OpSite& s) {
    Dims od = s.operandDims(0), axes = s.intsOr(1, "axis"), norm;
    int64_t finalRank = static_cast<int64_t>(od.size() + axes.size());
    for (int64_t a : axes) norm.push_back(a < 0 ? a + finalRank : a);
    std::sort(norm.begin(), norm.end());
    for (int64_t a : norm) {
        if (a < 0 || a > static_cast<int64_t>(od.size())) s.fail("unsqueeze axes " + dimsString(axes) + ": out of range for rank " + std::to_string(finalRank));
        od.insert(od.begin() + a, 1);
    }
    return od;
}

Dims flattenDims(const OpSite& s) {
    Dims in = s.operandDims(0);
    size_t r = in.size();
    if (r == 0) return {1};
    int64_t b = s.normAxis(s.attrInt("start_axis", 1), r), e = s.normAxis(s.attrInt("stop_axis", -1), r);
    if (b > e) s.fail("flatten start_axis " + std::to_string(b) + " is after stop_axis " + std::to_string(e));
    Dims od(in.begin(), in.begin() + b);
    od.push_back(s.checkedNumel(Dims(in.begin() + b, in.begin() + e + 1)));
    od.insert(od.end(), in.begin() + e + 1, in.end());
    return od;
}

Dims xshapeDims(const Dims& in) {
    Dims xs{0};
    xs.insert(xs.end(), in.begin(), in.end());
    return xs;
}

Dims transposePerm(const OpSite& s, size_t rank, bool inverse) {
    return transposePermutation(s.attrInts("perm"), static_cast<int64_t>(rank), inverse, s.failFn());
}

Dims permutedDims(const Dims& in, const Dims& perm) {
    Dims od(perm.size());
    for (size_t i = 0; i < perm.size(); ++i) od[i] = in[static_cast<size_t>(perm[i])];
    return od;
}

Dims expandDims(const OpSite& s) { return expandTarget(s.operandDims(0), s.intsOr(1, "shape"), s.failFn()); }

Dims expandAsDims(const OpSite& s) {
    Dims in = s.operandDims(0), shape = s.has(1) ? s.operandDims(1) : s.attrInts("target_shape");
    s.broadcast(in, shape);
    return shape;
}

SliceGeom sliceGeometry(const OpSite& s, const Dims& in, size_t startsOperand) {
    Dims axes = s.attrInts("axes");
    Dims starts = s.intsOr(startsOperand, "starts"), ends = s.intsOr(startsOperand + 1, "ends");
    if (starts.size() != axes.size() || ends.size() != axes.size())
        s.fail("slice axes " + dimsString(axes) + ", starts " + dimsString(starts) + ", ends " + dimsString(ends) + " differ in length");
    size_t r = in.size();
    SliceGeom g{Dims(r, 0), in, {}};
    std::vector<bool> seen(r, false);
    for (size_t i = 0; i < axes.size(); ++i) {
        size_t a = static_cast<size_t>(s.normAxis(axes[i], r));
        if (seen[a]) s.fail("attribute axes = " + dimsString(axes) + ": axis " + std::to_string(axes[i]) + " is repeated");
        seen[a] = true;
        int64_t d = in[a];
        int64_t b = std::clamp<int64_t>(starts[i] < 0 ? starts[i] + d : starts[i], 0, d);
        int64_t e = std::clamp<int64_t>(ends[i] < 0 ? ends[i] + d : ends[i], 0, d);
        g.begin[a] = b;
        g.size[a] = std::max<int64_t>(e - b, 0);
    }
    std::vector<bool> drop(r, false);
    for (int64_t a : s.attrInts("decrease_axis")) {
        const size_t at = static_cast<size_t>(s.normAxis(a, r));
        // As Paddle's slice: only a length-1 axis is dropped (else the result's dims would
        // not describe its elements: an empty slice dropped would claim a full tensor).
        if (g.size[at] != 1)
            s.fail("attribute decrease_axis = " + dimsString(s.attrInts("decrease_axis")) + ": axis " + std::to_string(a) +
                   " has length " + std::to_string(g.size[at]) + " after slicing, not 1");
        drop[at] = true;
    }
    for (size_t i = 0; i < r; ++i) if (!drop[i]) g.outDims.push_back(g.size[i]);
    return g;
}

SplitGeom splitGeometry(const OpSite& s, const Dims& in, Dims sections, int64_t axis) {
    SplitGeom g;
    g.axis = static_cast<size_t>(s.normAxis(axis, in.size()));
    if (in.empty()) s.fail("split of a 0-d tensor");
    int64_t total = in[g.axis], known = 0, infer = -1;
    for (size_t i = 0; i < sections.size(); ++i) {
        if (sections[i] < 0) {
            if (infer >= 0) s.fail("split sections " + dimsString(sections) + ": two inferred (-1) sections");
            infer = static_cast<int64_t>(i);
        } else known += sections[i];
    }
    if (infer >= 0) sections[static_cast<size_t>(infer)] = total - known;
    int64_t sum = 0;
    for (int64_t x : sections) {
        if (x < 0) s.fail("split sections " + dimsString(sections) + " exceed the axis size " + std::to_string(total));
        sum += x;
    }
    if (sum != total) s.fail("split sections " + dimsString(sections) + " do not sum to the axis size " + std::to_string(total));
    g.sections = std::move(sections);
    g.lanes = axisLanes(in, g.axis);
    for (int64_t x : g.sections) {
        Dims d = in;
        d[g.axis] = x;
        g.parts.push_back(std::move(d));
    }
    return g;
}

SplitGeom splitGeometry(const OpSite& s) {
    Dims in = s.operandDims(0);
    if (s.program.opName(s.id) == "pd_op.split_with_num") {
        int64_t num = s.attrInt("num", 1), axis = s.intOr(1, "axis", 0);
        size_t a = static_cast<size_t>(s.normAxis(axis, in.size()));
        if (num <= 0 || a >= in.size() || in[a] % num)
            s.fail("attribute num = " + std::to_string(num) + ": does not divide axis " + std::to_string(axis) + " of " + dimsString(in));
        return splitGeometry(s, in, Dims(static_cast<size_t>(num), in[a] / num), axis);
    }
    return splitGeometry(s, in, s.intsOr(1, "sections"), s.intOr(2, "axis", 0));
}

size_t concatAxis(const OpSite& s, size_t axisOperand, size_t rank) {
    return static_cast<size_t>(s.normAxis(s.intOr(axisOperand, "axis", 0), rank));
}

Dims concatDims(const OpSite& s, const std::vector<Dims>& parts, size_t axis) {
    if (parts.empty()) s.fail("concat of an empty vector");
    Dims od = parts[0];
    od[axis] = 0;
    for (const Dims& d : parts) {
        if (d.size() != od.size()) s.fail("concat of " + dimsString(parts[0]) + " and " + dimsString(d) + ": ranks differ");
        for (size_t i = 0; i < d.size(); ++i)
            if (i != axis && d[i] != parts[0][i]) s.fail("concat of " + dimsString(parts[0]) + " and " + dimsString(d) + " along axis " + std::to_string(axis));
        od[axis] += d[axis];
    }
    return od;
}

size_t stackAxis(const OpSite& s, size_t rank) {
    int64_t axis = s.attrInt("axis", 0), r = static_cast<int64_t>(rank) + 1;
    int64_t a = axis < 0 ? axis + r : axis;
    if (a < 0 || a >= r) s.fail("axis " + std::to_string(axis) + " out of range for stacking rank " + std::to_string(rank));
    return static_cast<size_t>(a);
}

SplitGeom concatGradGeometry(const OpSite& s, const Dims& g, const std::vector<Dims>& xs) {
    if (xs.empty()) s.fail("concat_grad of an empty vector");
    const size_t axis = concatAxis(s, 2, xs[0].size());
    const Dims whole = concatDims(s, xs, axis);
    if (whole != g) s.fail("out_grad " + dimsString(g) + " is not the concat " + dimsString(whole) + " of x");
    Dims sections;
    for (const Dims& d : xs) sections.push_back(d[axis]);
    return splitGeometry(s, g, std::move(sections), static_cast<int64_t>(axis));
}

StackGeom stackGeometry(const OpSite& s, const std::vector<Dims>& parts) {
    if (parts.empty()) s.fail("stack of nothing");
    StackGeom g;
    g.axis = stackAxis(s, parts[0].size());
    for (const Dims& d : parts) {
        if (d.size() != parts[0].size()) s.fail("stack of " + dimsString(parts[0]) + " and " + dimsString(d) + ": ranks differ");
        if (d != parts[0]) s.fail("stack of " + dimsString(parts[0]) + " and " + dimsString(d) + ": shapes differ");
        Dims u = d;
        u.insert(u.begin() + static_cast<int64_t>(g.axis), 1);
        g.parts.push_back(std::move(u));
    }
    g.outDims = concatDims(s, g.parts, g.axis);
    return g;
}

Dims addNDims(const OpSite& s, const std::vector<Dims>& parts) {
    if (parts.empty()) s.fail("add_n of nothing");
    for (const Dims& d : parts)
        if (d != parts[0]) s.fail("add_n of different shapes: " + dimsString(parts[0]) + " and " + dimsString(d));
    return parts[0];
}

Dims reshapeGradDims(const OpSite& s, const Dims& xs, int64_t gradCount) {
    Dims d(xs.begin() + (xs.empty() ? 0 : 1), xs.end());
    if (auto sd = s.staticDims(0)) d = *sd;
    if (numelOf(d) != gradCount)
        s.fail("x " + dimsString(d) + " (from xshape " + dimsString(xs) + ") does not hold out_grad's " + std::to_string(gradCount) + " elements");
    return d;
}

ReduceGeom reduceGeometry(const OpSite& s, const Dims& in, size_t axesOperand) {
    Dims axes = s.intsOr(axesOperand, "axis");
    size_t r = in.size();
    ReduceGeom g;
    g.keepdim = s.attrBool("keepdim", false);
    g.reduced.assign(r, axes.empty() || s.attrBool("reduce_all", false));
    std::vector<bool> named(r, false);
    for (int64_t a : axes) {
        if (r == 0) continue;  // a 0-d tensor: axis 0 or -1 both name the whole value
        size_t n = static_cast<size_t>(s.normAxis(a, r));
        if (named[n]) s.fail("axis = " + dimsString(axes) + ": axis " + std::to_string(a) + " is repeated");
        named[n] = true;
        g.reduced[n] = true;
    }
    for (size_t i = 0; i < r; ++i) {
        g.keptDims.push_back(g.reduced[i] ? 1 : in[i]);
        if (!g.reduced[i]) g.droppedDims.push_back(in[i]);
    }
    return g;
}

size_t vectorSliceIndex(const OpSite& s, size_t size) {
    int64_t i = s.attrInt("index", 0);
    if (i < 0 || i >= static_cast<int64_t>(size))
        s.fail("attribute index = " + std::to_string(i) + ": out of range for a vector of " + std::to_string(size));
    return static_cast<size_t>(i);
}

void checkVectorSplit(const OpSite& s, size_t size) {
    if (size != s.o.results.size())
        s.fail("splits a vector of " + std::to_string(size) + " into " + std::to_string(s.o.results.size()) + " results");
}

const std::vector<std::pair<std::string, int>>& reductionKinds() {
    static const std::vector<std::pair<std::string, int>> k = {
        {"pd_op.sum", 0}, {"pd_op.mean", 1}, {"pd_op.max", 2}, {"pd_op.min", 3}, {"pd_op.prod", 4}};
    return k;
}

size_t gatherAxis(const OpSite& s, size_t rank) { return static_cast<size_t>(s.normAxis(s.intOr(2, "axis", 0), rank)); }

Dims embeddingDims(const OpSite& s, const Dims& ids, const Dims& weight) {
    if (weight.size() != 2) s.fail("operand 1 (weight) " + dimsString(weight) + " must be 2-d");
    Dims od = ids;
    od.push_back(weight[1]);
    return od;
}

DropoutParams dropoutParams(const OpSite& s, std::optional<uint64_t> runSeed) {
    DropoutParams d;
    bool grad = s.program.opName(s.id) == "pd_op.dropout_grad";
    if (s.hasAttr("p")) d.p = s.attrFloat("p", 0.5);
    else if (grad) d.p = s.has(2) ? s.scalar(2) : 0.5;
    else  // p as a mutable scalar operand: the last 1-element float operand after x
        for (size_t i = s.operandCount(); i-- > 1;)
            if (s.isFloatScalar(i)) { d.p = s.scalar(i); break; }
    if (!(d.p >= 0 && d.p <= 1)) s.fail("dropout probability p = " + std::to_string(d.p) + ": must be in [0, 1]");
    d.isTest = s.attrBool("is_test", false);
    d.upscale = s.attrString("mode", "upscale_in_train") == "upscale_in_train";
    if (runSeed && !d.isTest) d.key = randomOpKey(s, *runSeed);
    return d;
}

RandomParams uniformParams(const OpSite& s, uint64_t runSeed) {
    RandomParams r;
    r.shape = s.intsOr(0, "shape");
    s.checkedNumel(r.shape);
    r.low = s.has(1) ? s.scalar(1) : s.attrFloat("min", -1.0);
    r.high = s.has(2) ? s.scalar(2) : s.attrFloat("max", 1.0);
    r.key = randomOpKey(s, runSeed);
    return r;
}

RandomParams randintParams(const OpSite& s, uint64_t runSeed) {
    RandomParams r;
    r.shape = s.intsOr(0, "shape");
    s.checkedNumel(r.shape);
    int64_t lo = s.attrInt("low", 0), hi = s.attrInt("high", 2);
    if (hi <= lo) s.fail("randint needs high > low (low " + std::to_string(lo) + ", high " + std::to_string(hi) + ")");
    r.low = static_cast<double>(lo);
    r.high = static_cast<double>(hi);
    r.key = randomOpKey(s, runSeed);
    return r;
}

// ---------- scalar parameters of the norm, softmax, elementwise and matmul families ----------
namespace {
// The op's name without its dialect ("pd_op.group_norm" -> "group_norm"), for messages.
std::string shortOpName(const OpSite& s) {
    std::string_view n = s.program.opName(s.id);
    if (size_t dot = n.find('.'); dot != std::string_view::npos) n.remove_prefix(dot + 1);
    return std::string(n);
}
}  // namespace

AxisLanes axisLanes(const Dims& d, size_t axis) {
    AxisLanes l;
    l.axis = axis;
    l.n = d.empty() ? 1 : d[axis];
    for (size_t i = 0; i < axis && i < d.size(); ++i) l.outer *= d[i];
    for (size_t i = axis + 1; i < d.size(); ++i) l.inner *= d[i];
    return l;
}

AxisLanes softmaxLanes(const OpSite& s, const Dims& x) {
    return axisLanes(x, static_cast<size_t>(s.normAxis(s.attrInt("axis", -1), x.size())));
}

double normEpsilon(const Operation& o, double fallback, const FailFn& fail) {
    if (!o.attribute("epsilon")) return fallback;
    double eps = attrFloat(o, "epsilon", fallback);
    if (!(eps >= 0) || !std::isfinite(eps)) fail("attribute epsilon = " + std::to_string(eps) + ": must be finite and >= 0");
    return eps;
}

RowNormParams rowNormParams(const OpSite& s, const Dims& d) {
    RowNormParams p;
    int64_t axis = s.attrInt("begin_norm_axis", 1);
    if (axis < 0) axis += static_cast<int64_t>(d.size());
    if (axis < 0 || axis > static_cast<int64_t>(d.size())) s.fail("begin_norm_axis out of range");
    for (int64_t i = 0; i < static_cast<int64_t>(d.size()); ++i) (i < axis ? p.rows : p.cols) *= d[static_cast<size_t>(i)];
    const bool rms = s.program.opName(s.id).starts_with("pd_op.rms_norm");
    p.epsilon = normEpsilon(s.o, rms ? 1e-6 : 1e-5, s.failFn());
    return p;
}

Dims rowStatDims(const OpSite& s, size_t result, int64_t rows) {
    if (auto d = s.staticDims(result); d && numelOf(*d) == rows) return *d;
    return {rows};
}

namespace {
// The channel-first geometry the three channel norms share (messages name the op).
ChannelNormParams channelGeometry(const OpSite& s, const Dims& x) {
    if (x.size() < 2) s.fail(shortOpName(s) + " needs rank >= 2");
    ChannelNormParams p;
    p.batch = x[0];
    p.channels = x[1];
    p.spatial = numelOf(x) / std::max<int64_t>(p.batch * p.channels, 1);
    p.epsilon = normEpsilon(s.o, 1e-5, s.failFn());
    return p;
}
}  // namespace

ChannelNormParams batchNormParams(const OpSite& s, const Dims& x) {
    if (x.size() < 2) s.fail("batch_norm needs rank >= 2");
    std::string layout = s.attrString("data_format", s.attrString("data_layout", "NCHW"));
    if (layout != "NCHW" && layout != "NCL" && layout != "NC" && layout != "AnyLayout") s.fail("only channel-first batch_norm is supported");
    ChannelNormParams p = channelGeometry(s, x);
    p.momentum = s.attrFloat("momentum", 0.9);
    p.useGlobalStats = s.attrBool("is_test", false) || s.attrBool("use_global_stats", false);
    return p;
}

ChannelNormParams groupNormParams(const OpSite& s, const Dims& x) {
    ChannelNormParams p = channelGeometry(s, x);
    if (s.attrString("data_format", "NCHW") != "NCHW") s.fail("attribute data_format: only NCHW group_norm is supported");
    p.groups = s.attrInt("groups", 1);
    if (p.groups < 1 || p.channels % p.groups)
        s.fail("attribute groups = " + std::to_string(p.groups) + " does not divide " + std::to_string(p.channels) + " channels");
    return p;
}

ChannelNormParams instanceNormParams(const OpSite& s, const Dims& x) { return channelGeometry(s, x); }

CrossEntropyParams crossEntropyParams(const OpSite& s, const Dims& x) {
    if (x.empty()) s.fail("cross_entropy_with_softmax of a 0-d input");
    CrossEntropyParams p;
    p.lanes = axisLanes(x, static_cast<size_t>(s.normAxis(s.attrInt("axis", -1), x.size())));
    p.lossDims = x;
    p.lossDims[p.lanes.axis] = 1;
    p.softLabel = s.attrBool("soft_label", false);
    p.useSoftmax = s.attrBool("use_softmax", true);
    p.ignoreIndex = s.attrInt("ignore_index", -100);
    if (!p.useSoftmax && s.program.opName(s.id) == "pd_op.cross_entropy_with_softmax_grad")
        s.fail("attribute use_softmax = false: the grad is only defined through the softmax here");
    return p;
}

ScaleParams scaleParams(const OpSite& s) {
    ScaleParams p;
    p.scale = s.has(1) ? s.scalar(1) : s.attrFloat("scale", 1.0);
    p.bias = s.attrFloat("bias", 0.0);
    p.biasAfterScale = s.attrBool("bias_after_scale", true);
    return p;
}

ClipParams clipParams(const OpSite& s) {
    ClipParams p;
    p.min = s.has(1) ? s.scalar(1) : s.attrFloat("min", -std::numeric_limits<double>::infinity());
    p.max = s.has(2) ? s.scalar(2) : s.attrFloat("max", std::numeric_limits<double>::infinity());
    return p;
}

PowParams powParams(const OpSite& s) {
    const size_t operand = s.program.opName(s.id) == "pd_op.pow_grad" ? 2 : 1;
    return PowParams{s.has(operand) ? s.scalar(operand) : s.attrFloat("y", 1.0)};
}

GeluParams geluParams(const OpSite& s) { return GeluParams{s.attrBool("approximate", false)}; }

MatmulParams matmulParams(const OpSite& s) { return MatmulParams{s.attrBool("transpose_x", false), s.attrBool("transpose_y", false)}; }

void checkTriangleRank(int64_t rank, const FailFn& fail) {
    if (rank < 2) fail("operand 0 has rank " + std::to_string(rank) + ", expected >= 2");
}

TriangleParams triangleParams(const OpSite& s, const Dims& x) {
    checkTriangleRank(static_cast<int64_t>(x.size()), s.failFn());
    return TriangleParams{s.attrInt("diagonal", 0), x[x.size() - 2], x.back()};
}

SwigluGeom swigluGeometry(const OpSite& s, const Dims& x, bool grad) {
    SwigluGeom g;
    // The grad's operands are (x, y, out_grad) or (x, out_grad); the forward's (x[, y]).
    g.hasY = s.has(1) && (!grad || s.operandCount() >= 3);
    const std::string op = shortOpName(s);
    if (g.hasY) {
        const Dims y = s.operandDims(1);
        if (y != x) s.fail(op + ": y " + dimsString(y) + " differs from x " + dimsString(x));
        g.outDims = x;
        g.half = x.empty() ? 1 : x.back();
    } else {
        if (x.empty() || x.back() % 2) s.fail(op + " without y needs an even last axis, got x " + dimsString(x));
        g.outDims = x;
        g.half = x.back() / 2;
        g.outDims.back() = g.half;
    }
    g.rows = numelOf(x) / std::max<int64_t>(x.empty() ? 1 : x.back(), 1);
    if (grad) {
        const Dims og = s.operandDims(s.operandCount() - 1);
        if (numelOf(og) != numelOf(g.outDims)) s.fail("out_grad " + dimsString(og) + " does not match the result " + dimsString(g.outDims));
    }
    return g;
}

ArangeParams arangeParams(const OpSite& s) {
    ArangeParams p;
    p.start = s.scalar(0);
    p.step = s.scalar(2);
    p.length = arangeLength(p.start, s.scalar(1), p.step, s.failFn());
    return p;
}

LogitParams logitParams(const OpSite& s) { return LogitParams{s.attrFloat("eps", 0.0)}; }

EmbeddingParams embeddingParams(const OpSite& s) { return EmbeddingParams{s.attrInt("padding_idx", -1)}; }

double fullValue(const OpSite& s) {
    if (s.program.opName(s.id) == "pd_op.full_like" && s.has(1)) return s.scalar(1);
    return s.attrFloat("value", 0.0);
}

Dims fullIntArrayValues(const OpSite& s) { return s.attrInts("value"); }

std::string fetchName(const Program& p, OpId op) {
    const Attribute* a = p.op(op).attribute(p.opName(op) == "pd_op.fetch" ? "name" : "output_name");
    return a ? a->text : std::string();
}
// ---------- end of the scalar parameters ----------

// ---------- reshape / expand / transpose rules, for the ops and for the check pass ----------
int64_t checkedNumel(const Dims& d, const FailFn& fail) {
    int64_t n = 1;
    for (int64_t x : d) {
        if (x < 0) fail("shape " + dimsString(d) + " has a negative dim");
        if (__builtin_mul_overflow(n, x, &n)) fail("shape " + dimsString(d) + " has more elements than 64-bit arithmetic counts");
    }
    return n;
}

void checkReshapeTarget(const Dims& shape, const FailFn& fail) {
    int minus = 0;
    for (int64_t d : shape) {
        if (d < -1) fail("shape " + dimsString(shape) + ": dims must be >= -1");
        minus += d == -1;
    }
    if (minus > 1) fail("shape " + dimsString(shape) + ": more than one -1");
}

Dims reshapeTarget(const Dims& in, Dims shape, const FailFn& fail) {
    checkReshapeTarget(shape, fail);
    int64_t total = checkedNumel(in, fail), known = 1, infer = -1;
    for (size_t i = 0; i < shape.size(); ++i) {
        if (shape[i] == 0 && i < in.size()) shape[i] = in[i];
        if (shape[i] == -1) infer = static_cast<int64_t>(i);
        else if (__builtin_mul_overflow(known, shape[i], &known))
            fail("reshape to " + dimsString(shape) + ": more elements than 64-bit arithmetic counts");
    }
    if (infer >= 0) {
        if (known == 0 || total % known) fail("reshape of " + dimsString(in) + " to " + dimsString(shape) + ": cannot infer the -1 dim");
        shape[static_cast<size_t>(infer)] = total / known;
    }
    if (checkedNumel(shape, fail) != total) fail("reshape of " + dimsString(in) + " to " + dimsString(shape) + " changes the element count");
    return shape;
}

void checkExpandTarget(const Dims& shape, int64_t rank, const FailFn& fail) {
    for (int64_t d : shape)
        if (d < -1) fail("shape " + dimsString(shape) + ": dims must be >= -1");
    if (rank >= 0 && static_cast<int64_t>(shape.size()) < rank) fail("shape " + dimsString(shape) + " has a lower rank than the input");
}

Dims expandTarget(const Dims& in, const Dims& shape, const FailFn& fail, bool checkCount) {
    checkExpandTarget(shape, static_cast<int64_t>(in.size()), fail);
    Dims d = shape;
    const size_t off = d.size() - in.size();
    for (size_t i = 0; i < d.size(); ++i)
        if (d[i] == -1) {
            if (i < off) fail("shape " + dimsString(shape) + ": -1 in a new dim");
            d[i] = in[i - off];
        }
    if (checkCount) checkedNumel(d, fail);
    for (size_t i = 0; i < in.size(); ++i)
        if (in[i] != 1 && in[i] != d[off + i]) fail("cannot expand " + dimsString(in) + " to " + dimsString(shape));
    return d;
}

Dims transposePermutation(const Dims& permIn, int64_t rank, bool inverse, const FailFn& fail) {
    if (rank >= 0 && static_cast<int64_t>(permIn.size()) != rank)
        fail("attribute perm = " + dimsString(permIn) + ": expected " + std::to_string(rank) + " entries (the operand's rank)");
    const int64_t r = static_cast<int64_t>(permIn.size());
    Dims perm(permIn.size());
    std::vector<bool> seen(permIn.size(), false);
    for (size_t i = 0; i < permIn.size(); ++i) {
        const int64_t a = permIn[i] < 0 ? permIn[i] + r : permIn[i];
        if (a < 0 || a >= std::max<int64_t>(r, 1))
            fail("attribute perm " + dimsString(permIn) + ": axis = " + std::to_string(permIn[i]) + ": out of range for rank " + std::to_string(r));
        if (seen[static_cast<size_t>(a)]) fail("attribute perm = " + dimsString(permIn) + ": axis " + std::to_string(permIn[i]) + " is repeated");
        seen[static_cast<size_t>(a)] = true;
        perm[i] = a;
    }
    if (!inverse) return perm;
    Dims inv(perm.size());
    for (size_t i = 0; i < perm.size(); ++i) inv[static_cast<size_t>(perm[i])] = static_cast<int64_t>(i);
    return inv;
}
// ---------- end of the reshape / expand / transpose rules ----------

// ---------- the check pass ----------
namespace {


// Elementwise ops whose result has the shape of operand 0.
const std::unordered_set<std::string_view>& sameShapeOps() {
    static const std::unordered_set<std::string_view> s = {
        "pd_op.exp", "pd_op.expm1", "pd_op.log", "pd_op.log1p", "pd_op.log2", "pd_op.log10", "pd_op.sin", "pd_op.cos",
        "pd_op.tan", "pd_op.tanh", "pd_op.sinh", "pd_op.cosh", "pd_op.asin", "pd_op.acos", "pd_op.atan", "pd_op.asinh",
        "pd_op.acosh", "pd_op.atanh", "pd_op.sqrt", "pd_op.rsqrt", "pd_op.square", "pd_op.reciprocal", "pd_op.abs",
        "pd_op.sign", "pd_op.erf", "pd_op.erfinv", "pd_op.sigmoid", "pd_op.relu", "pd_op.relu6", "pd_op.silu",
        "pd_op.floor", "pd_op.ceil", "pd_op.round", "pd_op.trunc", "pd_op.frac", "pd_op.logical_not",
        "pd_op.bitwise_not", "pd_op.isinf", "pd_op.isnan", "pd_op.isfinite", "pd_op.logsigmoid", "pd_op.gelu",
        "pd_op.scale", "pd_op.clip", "pd_op.cast", "pd_op.pow", "pd_op.softmax", "pd_op.log_softmax", "pd_op.full_like",
        "pd_op.assign", "pd_op.tril", "pd_op.triu", "pd_op.tril_grad", "pd_op.triu_grad", "pd_op.cumsum", "pd_op.logit"};
    return s;
}

const std::unordered_set<std::string_view>& broadcastOps() {
    static const std::unordered_set<std::string_view> s = {
        "pd_op.add", "pd_op.subtract", "pd_op.multiply", "pd_op.divide", "pd_op.floor_divide", "pd_op.remainder",
        "pd_op.maximum", "pd_op.minimum", "pd_op.elementwise_pow", "pd_op.equal", "pd_op.not_equal", "pd_op.less_than",
        "pd_op.less_equal", "pd_op.greater_than", "pd_op.greater_equal", "pd_op.logical_and", "pd_op.logical_or",
        "pd_op.logical_xor", "pd_op.bitwise_and", "pd_op.bitwise_or", "pd_op.bitwise_xor"};
    return s;
}

const std::unordered_set<std::string_view>& reduceOps() {
    static const std::unordered_set<std::string_view> s = {"pd_op.sum", "pd_op.mean", "pd_op.max", "pd_op.min",
                                                           "pd_op.prod", "pd_op.any", "pd_op.all"};
    return s;
}

class Checker {
public:
    Checker(const Program& p, const RunLimits& l) : p_(p), limits_(l) {
        out_.shapes.resize(p.values().size());
        consts_.resize(p.values().size());
    }

    ProgramCheck run(const std::vector<uint8_t>& resident) {
        const Block& block = p_.globalBlock();
        for (OpId op : block.ops) checkOp(op);
        accountBytes(resident);
        return std::move(out_);
    }

private:
    const Program& p_;
    const RunLimits& limits_;
    ProgramCheck out_;
    std::vector<std::optional<std::vector<double>>> consts_;  // small constant contents
    OpId op_ = kNoId;
    const Operation* o_ = nullptr;

    [[noreturn]] void fail(const std::string& msg) const { throw Error(opWhere(p_, op_) + ": " + msg); }
    FailFn failFn() const { return [this](const std::string& m) { fail(m); }; }

    const Type& typeOf(ValueId v) const { return p_.types()[p_.value(v).type]; }
    bool isTensor(ValueId v) const { return v != kNoId && typeOf(v).kind == Type::Kind::DenseTensor; }
    size_t nIn() const { return o_->operands.size(); }
    size_t nOut() const { return o_->results.size(); }
    ValueId in(size_t i) const { return i < nIn() ? o_->operands[i] : kNoId; }
    // The rank of operand i from its declared type (dims may be dynamic); -1 if not a tensor.
    int64_t rank(size_t i) const { return isTensor(in(i)) ? static_cast<int64_t>(typeOf(in(i)).dims.size()) : -1; }
    std::optional<Dims> shape(size_t i) const { ValueId v = in(i); return v == kNoId ? std::nullopt : out_.shapes[v]; }
    std::optional<std::vector<double>> constOf(size_t i) const { ValueId v = in(i); return v == kNoId ? std::nullopt : consts_[v]; }
    std::optional<Dims> constInts(size_t i) const {
        auto c = constOf(i);
        if (!c) return std::nullopt;
        Dims d;
        for (double x : *c) {
            if (!std::isfinite(x) || std::fabs(x) > 9.2e18) return std::nullopt;
            d.push_back(static_cast<int64_t>(x));
        }
        return d;
    }
    // Ints from operand i when it is constant, else from attribute `name` (when the operand is absent).
    std::optional<Dims> intsFrom(size_t i, std::string_view name) const {
        if (in(i) != kNoId) return constInts(i);
        return attrInts(*o_, name);
    }

    void needOperands(size_t n) const {
        if (nIn() < n) fail("has " + std::to_string(nIn()) + " operands, expected at least " + std::to_string(n));
        for (size_t i = 0; i < n; ++i)
            if (in(i) == kNoId) fail("operand " + std::to_string(i) + " is <<NULL VALUE>>, expected a tensor");
    }
    void needResults(size_t n) const {
        if (nOut() < n) fail("has " + std::to_string(nOut()) + " results, expected at least " + std::to_string(n));
    }
    void needTensorOperand(size_t i) const {
        if (in(i) != kNoId && !isTensor(in(i)) && typeOf(in(i)).kind != Type::Kind::Null)
            fail("operand " + std::to_string(i) + " (" + p_.value(in(i)).name + ") is not a dense tensor");
    }
    int64_t normAxis(int64_t axis, int64_t r, const std::string& what) const {
        int64_t a = axis < 0 ? axis + r : axis;
        if (a < 0 || a >= std::max<int64_t>(r, 1))
            fail(what + " = " + std::to_string(axis) + ": out of range for rank " + std::to_string(r));
        return a;
    }
    // Axes in range for rank r and distinct.
    void distinctAxes(const Dims& axes, int64_t r, const std::string& what) const {
        std::vector<int64_t> seen;
        for (int64_t a : axes) {
            int64_t n = normAxis(a, r, what + " " + dimsString(axes) + ": axis");
            if (std::find(seen.begin(), seen.end(), n) != seen.end())
                fail(what + " = " + dimsString(axes) + ": axis " + std::to_string(a) + " is repeated");
            seen.push_back(n);
        }
    }

    // epsilon of the norms: finite and >= 0 (a negative one can take sqrt of a negative).
    void checkNormAttrs() const { normEpsilon(*o_, 0.0, failFn()); }

    void setShape(size_t result, Dims d) {
        if (result >= nOut()) return;
        ValueId r = o_->results[result];
        for (int64_t x : d) if (x < 0) fail("computed a negative dim " + dimsString(d) + " for " + p_.value(r).name);
        const Type& t = typeOf(r);
        if (t.kind == Type::Kind::DenseTensor) {
            bool ok = t.dims.size() == d.size();
            for (size_t i = 0; ok && i < d.size(); ++i) ok = t.dims[i] < 0 || t.dims[i] == d[i];
            if (!ok) fail("result " + p_.value(r).name + " is declared " + dimsString(t.dims) + " but the op computes " + dimsString(d));
        }
        out_.shapes[r] = std::move(d);
    }

    void declaredShapes() {
        for (ValueId r : o_->results) {
            const Type& t = typeOf(r);
            if (t.kind != Type::Kind::DenseTensor) continue;
            bool known = std::all_of(t.dims.begin(), t.dims.end(), [](int64_t d) { return d >= 0; });
            if (known) out_.shapes[r] = t.dims;
        }
    }

    void checkOp(OpId op) {
        op_ = op;
        o_ = &p_.op(op);
        const std::string_view name = p_.opName(op);
        declaredShapes();
        if (name == "builtin.shadow_output") { needOperands(1); return; }
        // Control flow (the CPU backend runs it, exec/cpu/CpuExecutor.cpp): operands checked
        // there; results keep their declared shapes.
        if (name == "cf.tuple_push") { needOperands(1); return; }
        if (name == "cf.stack_create") { needResults(3); return; }
        if (name == "pd_op.has_elements") { needOperands(1); needResults(1); return; }
        if (name == "pd_op.if" || name == "pd_op.while" || name == "cf.tuple_pop") { needOperands(1); return; }
        if (isInputOp(name)) {
            needResults(1);
            if (!isTensor(o_->results[0])) fail("input op with a result that is not a dense tensor");
            return;
        }
        needResults(1);
        if (hasOpTrait(name, OpTrait::VectorOperand)) {
            needOperands(1);
            if (typeOf(in(0)).kind != Type::Kind::Vector) fail("operand 0 (" + p_.value(in(0)).name + ") is not a vector");
        }
        if (sameShapeOps().count(name)) {
            needOperands(1);
            needTensorOperand(0);
            if (name == "pd_op.softmax" || name == "pd_op.log_softmax" || name == "pd_op.cumsum")
                if (rank(0) >= 0 && !(name == "pd_op.cumsum" && attrBool(*o_, "flatten", false)))
                    normAxis(attrInt(*o_, "axis", -1), rank(0), "attribute axis");
            if ((name.substr(0, 10) == "pd_op.tril" || name.substr(0, 10) == "pd_op.triu") && rank(0) >= 0) checkTriangleRank(rank(0), failFn());
            if (auto s = shape(0); s && !(name == "pd_op.cumsum" && attrBool(*o_, "flatten", false))) setShape(0, *s);
            return;
        }
        if (broadcastOps().count(name)) {
            needOperands(2);
            needTensorOperand(0);
            needTensorOperand(1);
            auto a = shape(0), b = shape(1);
            if (a && b) setShape(0, broadcastDims(*a, *b, failFn()));
            return;
        }
        if (name == "pd_op.where") {
            needOperands(3);
            for (size_t i = 0; i < 3; ++i) needTensorOperand(i);
            auto c = shape(0), a = shape(1), b = shape(2);
            if (c && a && b) setShape(0, whereDims(*c, *a, *b, failFn()));
            return;
        }
        if (reduceOps().count(name)) {
            needOperands(1);
            needTensorOperand(0);
            if (rank(0) >= 0) {
                if (auto axes = intsFrom(1, "axis")) distinctAxes(*axes, std::max<int64_t>(rank(0), 1), "axis");
            }
            return;
        }
        if (name == "pd_op.full") {
            auto s = nIn() > 0 ? constInts(0) : std::optional<Dims>(attrInts(*o_, "shape"));
            if (s) {
                for (int64_t d : *s) if (d < 0) fail("attribute shape = " + dimsString(*s) + ": dims must be >= 0");
                checkElements(*s);
                setShape(0, *s);
                double v = attrFloat(*o_, "value", 0.0);
                if (numelOf(*s) <= 64) consts_[o_->results[0]] = std::vector<double>(static_cast<size_t>(numelOf(*s)), v);
            }
            return;
        }
        if (name == "pd_op.full_int_array") {
            Dims v = attrInts(*o_, "value");
            setShape(0, {static_cast<int64_t>(v.size())});
            if (v.size() <= 64) consts_[o_->results[0]] = std::vector<double>(v.begin(), v.end());
            return;
        }
        if (name == "builtin.combine") {
            std::vector<double> all;
            bool known = true;
            for (size_t i = 0; i < nIn(); ++i) {
                auto c = constOf(i);
                if (!c) { known = false; break; }
                all.insert(all.end(), c->begin(), c->end());
            }
            if (known && all.size() <= 64) consts_[o_->results[0]] = std::move(all);
            return;
        }
        if (name == "pd_op.arange") {
            needOperands(3);
            auto s = constOf(0), e = constOf(1), st = constOf(2);
            if (st && !st->empty() && (*st)[0] == 0) arangeLength(0, 0, 0, failFn());  // refuses the step before start, end are known
            if (s && e && st && !s->empty() && !e->empty() && !st->empty()) {
                Dims d{arangeLength((*s)[0], (*e)[0], (*st)[0], failFn())};
                checkElements(d);
                setShape(0, d);
            }
            return;
        }
        if (name == "pd_op.uniform" || name == "pd_op.randint" || name == "pd_op.gaussian") {
            if (auto s = intsFrom(0, "shape")) {
                for (int64_t d : *s) if (d < 0) fail("shape " + dimsString(*s) + ": dims must be >= 0");
                checkElements(*s);
                setShape(0, *s);
            }
            if (name == "pd_op.randint" && attrInt(*o_, "high", 2) <= attrInt(*o_, "low", 0))
                fail("attributes low, high: high must be > low");
            return;
        }
        if (name == "pd_op.expand") {
            needOperands(1);
            if (auto s = intsFrom(1, "shape")) {
                checkExpandTarget(*s, rank(0), failFn());
                if (auto x = shape(0)) {
                    // The run's element limit rather than int64's: its message names the limit.
                    Dims d = expandTarget(*x, *s, failFn(), false);
                    checkElements(d);
                    setShape(0, std::move(d));
                }
            }
            return;
        }
        if (name == "pd_op.reshape" || name == "pd_op.view_shape") {
            needOperands(1);
            if (auto s = intsFrom(1, "shape")) {
                checkReshapeTarget(*s, failFn());
                if (auto x = shape(0)) setShape(0, reshapeTarget(*x, *s, failFn()));
            }
            return;
        }
        if (name == "pd_op.transpose" || name == "pd_op.transpose_grad") {
            needOperands(1);
            const Dims perm = transposePermutation(attrInts(*o_, "perm"), rank(0), name == "pd_op.transpose_grad", failFn());
            if (auto x = shape(0)) setShape(0, permutedDims(*x, perm));
            return;
        }
        if (name == "pd_op.squeeze" || name == "pd_op.unsqueeze") {
            needOperands(1);
            if (auto axes = intsFrom(1, "axis"); axes && rank(0) >= 0) {
                int64_t r = rank(0) + (name == "pd_op.unsqueeze" ? static_cast<int64_t>(axes->size()) : 0);
                distinctAxes(*axes, std::max<int64_t>(r, 1), "axis");
            }
            return;
        }
        if (name == "pd_op.flatten") {
            needOperands(1);
            int64_t r = rank(0);
            if (r > 0) {
                int64_t s = normAxis(attrInt(*o_, "start_axis", 1), r, "attribute start_axis");
                int64_t e = normAxis(attrInt(*o_, "stop_axis", -1), r, "attribute stop_axis");
                if (s > e) fail("attributes start_axis, stop_axis: start " + std::to_string(s) + " is after stop " + std::to_string(e));
            }
            return;
        }
        if (name == "pd_op.slice" || name == "pd_op.slice_grad") {
            needOperands(1);
            Dims axes = attrInts(*o_, "axes");
            if (rank(0) >= 0) {
                distinctAxes(axes, rank(0), "attribute axes");
                for (int64_t a : attrInts(*o_, "decrease_axis")) normAxis(a, rank(0), "attribute decrease_axis");
            }
            size_t si = name == "pd_op.slice" ? 1 : 2;
            auto starts = intsFrom(si, "starts"), ends = intsFrom(si + 1, "ends");
            if (starts && starts->size() != axes.size()) fail("starts " + dimsString(*starts) + " and attribute axes " + dimsString(axes) + " differ in length");
            if (ends && ends->size() != axes.size()) fail("ends " + dimsString(*ends) + " and attribute axes " + dimsString(axes) + " differ in length");
            return;
        }
        if (name == "pd_op.split_with_num") {
            needOperands(1);
            int64_t num = attrInt(*o_, "num", 1);
            if (num <= 0) fail("attribute num = " + std::to_string(num) + ": must be > 0");
            if (auto x = shape(0); x && !x->empty()) {
                auto axis = in(1) != kNoId ? constInts(1) : std::optional<Dims>(Dims{attrInt(*o_, "axis", 0)});
                if (axis && !axis->empty()) {
                    int64_t a = normAxis((*axis)[0], static_cast<int64_t>(x->size()), "axis");
                    if ((*x)[a] % num) fail("attribute num = " + std::to_string(num) + " does not divide dim " + std::to_string((*x)[a]));
                }
            }
            return;
        }
        if (name == "pd_op.matmul" || name == "pd_op.matmul_grad") {
            needOperands(name == "pd_op.matmul" ? 2 : 3);
            needTensorOperand(0);
            needTensorOperand(1);
            auto a = shape(0), b = shape(1);
            if (!a || !b) return;
            const MatmulShape g = matmulShape(*a, attrBool(*o_, "transpose_x", false), *b, attrBool(*o_, "transpose_y", false), failFn());
            out_.multiplyAdds += numelOf(g.batch) * g.m * g.n * g.k * (name == "pd_op.matmul" ? 1 : 2);
            if (name == "pd_op.matmul") setShape(0, g.outDims);
            return;
        }
        if (name == "pd_op.conv2d" || name == "pd_op.conv2d_grad" || name == "pd_op.depthwise_conv2d" ||
            name == "pd_op.depthwise_conv2d_grad") {
            needOperands(name.ends_with("_grad") ? 3 : 2);
            auto x = shape(0), f = shape(1);
            if (x && f) {
                Conv2dGeom g = conv2dGeometry(*o_, *x, *f, failFn());
                out_.multiplyAdds += g.n * g.cout * g.oh * g.ow * (g.cin / g.groups) * g.kh * g.kw * (name.ends_with("_grad") ? 2 : 1);
                if (!name.ends_with("_grad")) setShape(0, {g.n, g.cout, g.oh, g.ow});
            } else {
                int64_t a, b;
                positivePair(attrInts(*o_, "strides"), "strides", failFn(), a, b);
                positivePair(attrInts(*o_, "dilations"), "dilations", failFn(), a, b);
                if (attrInt(*o_, "groups", 1) < 1) fail("attribute groups must be >= 1");
            }
            return;
        }
        if (name == "pd_op.pool2d" || name == "pd_op.pool2d_grad" || name == "pd_op.max_pool2d_with_index" ||
            name == "pd_op.max_pool2d_with_index_grad") {
            needOperands(1);
            size_t kIndex = name == "pd_op.pool2d" ? 1 : name == "pd_op.pool2d_grad" ? 3 : 99;
            auto ks = kIndex < nIn() && in(kIndex) != kNoId ? constInts(kIndex) : std::optional<Dims>(attrInts(*o_, "kernel_size"));
            auto x = shape(0);
            if (ks && x) {
                PoolGeom g = pool2dGeometry(*o_, *x, *ks, failFn());
                if (!name.ends_with("_grad")) {
                    setShape(0, {g.n, g.ch, g.oh, g.ow});
                    if (name == "pd_op.max_pool2d_with_index") setShape(1, {g.n, g.ch, g.oh, g.ow});
                }
            } else {
                int64_t a, b;
                positivePair(attrInts(*o_, "strides"), "strides", failFn(), a, b);
                if (ks) positivePair(*ks, "kernel_size", failFn(), a, b);
            }
            return;
        }
        if (name == "pd_op.concat" || name == "pd_op.stack") {
            auto axisConst = name == "pd_op.concat" && in(1) != kNoId ? constInts(1) : std::optional<Dims>(Dims{attrInt(*o_, "axis", 0)});
            const Type& vt = typeOf(in(0));
            if (vt.elements.empty()) fail("operand 0 is an empty vector");
            const Type& e0 = p_.types()[vt.elements[0]];
            if (axisConst && !axisConst->empty() && e0.kind == Type::Kind::DenseTensor)
                normAxis((*axisConst)[0], static_cast<int64_t>(e0.dims.size()) + (name == "pd_op.stack"), "axis");
            return;
        }
        if (name == "pd_op.layer_norm" || name == "pd_op.layer_norm_grad") {
            needOperands(1);
            int64_t axis = attrInt(*o_, "begin_norm_axis", 1), r = rank(0);
            if (r >= 0 && (axis < -r || axis > r)) fail("attribute begin_norm_axis = " + std::to_string(axis) + ": out of range for rank " + std::to_string(r));
            return;
        }
        if (name == "pd_op.dropout") {
            needOperands(1);
            if (o_->attribute("p")) {
                double pr = attrFloat(*o_, "p", 0.5);
                if (!(pr >= 0 && pr <= 1)) fail("attribute p = " + std::to_string(pr) + ": must be in [0, 1]");
            }
            return;
        }
        if (name == "pd_op.gather" || name == "pd_op.index_select") {
            needOperands(2);
            if (rank(0) >= 0 && in(2) == kNoId) normAxis(attrInt(*o_, name == "pd_op.gather" ? "axis" : "axis", 0), std::max<int64_t>(rank(0), 1), "attribute axis");
            return;
        }
        if (name == "pd_op.topk_grad") {
            needOperands(3);
            if (rank(0) >= 0) normAxis(attrInt(*o_, "axis", -1), std::max<int64_t>(rank(0), 1), "attribute axis");
            if (rank(0) >= 0 && rank(1) >= 0 && rank(0) != rank(1)) fail("operand 1 (indices) has rank " + std::to_string(rank(1)) + ", x has " + std::to_string(rank(0)));
            return;
        }
        if (name == "pd_op.group_norm" || name == "pd_op.group_norm_grad") {
            needOperands(name == "pd_op.group_norm" ? 1 : 7);
            if (rank(0) >= 0 && rank(0) < 2) fail("operand 0 has rank " + std::to_string(rank(0)) + ", expected >= 2 (NCHW)");
            int64_t groups = attrInt(*o_, "groups", 1);
            if (groups < 1) fail("attribute groups = " + std::to_string(groups) + ": must be >= 1");
            if (auto x = shape(0); x && x->size() >= 2 && (*x)[1] % groups)
                fail("attribute groups = " + std::to_string(groups) + ": does not divide the " + std::to_string((*x)[1]) + " channels of " + dimsString(*x));
            checkNormAttrs();
            if (attrString(*o_, "data_format", "NCHW") != "NCHW") fail("attribute data_format = " + attrString(*o_, "data_format", "") + ": only NCHW is supported");
            return;
        }
        if (name == "pd_op.instance_norm" || name == "pd_op.instance_norm_grad") {
            needOperands(name == "pd_op.instance_norm" ? 1 : 5);
            if (name == "pd_op.instance_norm_grad" && (in(2) == kNoId || in(3) == kNoId)) fail("operands 2, 3 (saved_mean, saved_variance) are required");
            if (rank(0) >= 0 && rank(0) < 2) fail("operand 0 has rank " + std::to_string(rank(0)) + ", expected >= 2 (NCHW)");
            checkNormAttrs();
            return;
        }
        if (name == "pd_op.rms_norm" || name == "pd_op.rms_norm_grad") {
            needOperands(1);
            if (name == "pd_op.rms_norm_grad" && (nIn() < 7 || in(5) == kNoId || in(6) == kNoId))
                fail("operands 5, 6 (inv_var, out_grad) are required");
            int64_t axis = attrInt(*o_, "begin_norm_axis", 1), r = rank(0);
            if (r >= 0 && (axis < -r || axis > r)) fail("attribute begin_norm_axis = " + std::to_string(axis) + ": out of range for rank " + std::to_string(r));
            checkNormAttrs();
            return;
        }
        if (name == "pd_op.bilinear_interp" || name == "pd_op.nearest_interp" || name == "pd_op.bilinear_interp_grad" ||
            name == "pd_op.nearest_interp_grad") {
            const bool grad = name.size() > 5 && name.substr(name.size() - 5) == "_grad";
            needOperands(1);
            if (grad && (nIn() < 5 || in(4) == kNoId)) fail("operand 4 (output_grad) is required");
            if (rank(0) >= 0 && rank(0) != 4) fail("operand 0 has rank " + std::to_string(rank(0)) + ", expected a 4-d NCHW tensor");
            if (attrString(*o_, "data_format", "NCHW") != "NCHW") fail("attribute data_format = " + attrString(*o_, "data_format", "") + ": only NCHW is supported");
            const std::string method = attrString(*o_, "interp_method", "");
            const std::string expected = name.find("bilinear") != std::string_view::npos ? "bilinear" : "nearest";
            if (!method.empty() && method != expected) fail("attribute interp_method = \"" + method + "\": expected \"" + expected + "\" for this op");
            int64_t mode = attrInt(*o_, "align_mode", 1);
            if (mode != 0 && mode != 1) fail("attribute align_mode = " + std::to_string(mode) + ": must be 0 or 1");
            for (const char* a : {"out_h", "out_w"})
                if (int64_t v = attrInt(*o_, a, 0); v < -1) fail(std::string("attribute ") + a + " = " + std::to_string(v) + ": must be >= 0 (or -1, unset)");
            return;
        }
        if (name == "pd_op.flash_attn" || name == "pd_op.flash_attn_grad") {
            const bool grad = name == "pd_op.flash_attn_grad";
            needOperands(grad ? 5 : 3);
            if (grad && (nIn() < 8 || in(7) == kNoId)) fail("operand 7 (out_grad) is required");
            for (size_t i = 0; i < 3; ++i)
                if (rank(i) >= 0 && rank(i) != 4) fail("operand " + std::to_string(i) + " has rank " + std::to_string(rank(i)) + ", expected 4 [batch, seq, heads, head_dim]");
            double dropout = attrFloat(*o_, "dropout", 0.0);
            if (!(dropout >= 0 && dropout < 1)) fail("attribute dropout = " + std::to_string(dropout) + ": must be in [0, 1)");
            if (grad && dropout != 0) fail("attribute dropout = " + std::to_string(dropout) + ": flash_attn dropout cannot be reproduced on the CPU");
            return;
        }
        if (name == "pd_op.fused_rotary_position_embedding" || name == "pd_op.fused_rotary_position_embedding_grad") {
            const size_t first = name == "pd_op.fused_rotary_position_embedding" ? 0 : 3;
            if (nIn() <= first || in(first) == kNoId) fail("operand " + std::to_string(first) + (first ? " (out_q_grad)" : " (q)") + " is required");
            if (rank(first) >= 0 && rank(first) != 4) fail("operand " + std::to_string(first) + " has rank " + std::to_string(rank(first)) + ", expected 4 [batch, seq, heads, head_dim]");
            if (isTensor(in(first)) && typeOf(in(first)).dims.size() == 4 && typeOf(in(first)).dims[3] >= 0 && (typeOf(in(first)).dims[3] % 2 || typeOf(in(first)).dims[3] == 0))
                fail("operand " + std::to_string(first) + " has head_dim " + std::to_string(typeOf(in(first)).dims[3]) + ", a rotary embedding needs an even one > 0");
            const size_t sinAt = first ? 0 : 3;
            if ((in(sinAt) == kNoId) != (in(sinAt + 1) == kNoId)) fail("operands " + std::to_string(sinAt) + ", " + std::to_string(sinAt + 1) + " (sin, cos) must be given together");
            if (in(sinAt) == kNoId && o_->attribute("rotary_emb_base") && !(attrFloat(*o_, "rotary_emb_base", 10000.0) > 0))
                fail("attribute rotary_emb_base = " + std::to_string(attrFloat(*o_, "rotary_emb_base", 10000.0)) + ": must be > 0");
            return;
        }
        if (name == "pd_op.embedding" || name == "pd_op.embedding_grad") {
            needOperands(2);
            if (rank(1) >= 0 && rank(1) != 2) fail("operand 1 (weight) has rank " + std::to_string(rank(1)) + ", expected 2");
            return;
        }
    }

    void checkElements(const Dims& d) const {
        // Overflow-safe element count against the per-value limit.
        double n = 1;
        for (int64_t x : d) n *= static_cast<double>(x);
        if (limits_.maxElementsPerValue > 0 && n > static_cast<double>(limits_.maxElementsPerValue))
            fail("shape " + dimsString(d) + " has " + std::to_string(static_cast<long double>(n)) + " elements (limit " +
                 std::to_string(limits_.maxElementsPerValue) + ", RunLimits::maxElementsPerValue)");
    }

    int64_t bytesOf(ValueId v) const {
        const auto& s = out_.shapes[v];
        if (!s || !isTensor(v)) return 0;
        return numelOf(*s) * dtypeBytes(typeOf(v).dtype);
    }

    // Per-value and total limits on the propagated shapes, storage allocated and freed as
    // exec/Liveness.h says (what the CPU run holds).
    void accountBytes(const std::vector<uint8_t>& resident) {
        const Block& block = p_.globalBlock();
        const Liveness liveness = analyzeLiveness(p_, resident);
        auto bufferBytes = [&](uint32_t b) -> int64_t {
            const Liveness::Buffer& buf = liveness.buffers[b];
            if (isTensor(buf.owner)) return bytesOf(buf.owner);
            return buf.bytes == kInt64Max ? 0 : buf.bytes;  // a vector element, as declared
        };
        int64_t live = 0;
        for (size_t pos = 0; pos < block.ops.size(); ++pos) {
            op_ = block.ops[pos];
            o_ = &p_.op(op_);
            for (ValueId r : o_->results) {
                int64_t b = bytesOf(r);
                if (b > out_.largestBytes) { out_.largestBytes = b; out_.largestValue = p_.value(r).name; }
                if (limits_.maxElementsPerValue > 0 && out_.shapes[r] && numelOf(*out_.shapes[r]) > limits_.maxElementsPerValue)
                    fail("result " + p_.value(r).name + " " + dimsString(*out_.shapes[r]) + " has more than " +
                         std::to_string(limits_.maxElementsPerValue) + " elements (RunLimits::maxElementsPerValue)");
                if (limits_.maxBytesPerValue > 0 && b > limits_.maxBytesPerValue)
                    fail("result " + p_.value(r).name + " would hold " + std::to_string(b) + " bytes (limit " +
                         std::to_string(limits_.maxBytesPerValue) + ", RunLimits::maxBytesPerValue)");
            }
            for (uint32_t b : liveness.allocatedAt[pos]) live += bufferBytes(b);
            out_.peakBytes = std::max(out_.peakBytes, live);
            if (limits_.maxTotalBytes > 0 && live > limits_.maxTotalBytes)
                fail("the run would hold " + std::to_string(live) + " bytes of live values here (limit " +
                     std::to_string(limits_.maxTotalBytes) + ", RunLimits::maxTotalBytes)");
            for (uint32_t b : liveness.freedAfter[pos]) live -= bufferBytes(b);
        }
        if (limits_.maxMultiplyAdds > 0 && out_.multiplyAdds > limits_.maxMultiplyAdds)
            throw Error("the program needs about " + std::to_string(out_.multiplyAdds) + " multiply-adds in matmul/conv2d (limit " +
                        std::to_string(limits_.maxMultiplyAdds) + ", RunLimits::maxMultiplyAdds)");
    }
};

}  // namespace

ProgramCheck checkProgram(const Program& program, const RunLimits& limits, const std::vector<uint8_t>& residentValues) {
    return Checker(program, limits).run(residentValues);
}

// ---------- parameters of the conv/pool, attention, indexing and scan kernels ----------
PoolGeom maxPoolWithIndexGeometry(const OpSite& s, const Dims& x) {
    PoolGeom g = pool2dGeometry(s.o, x, s.attrInts("kernel_size"), s.failFn());
    if (g.avg) s.fail("attribute pooling_type: max_pool2d_with_index is a max pool");
    return g;
}

InterpParams interpParams(const OpSite& s, const Dims& xd) {
    if (xd.size() != 4) s.fail("interpolate needs a 4-d NCHW input, got " + dimsString(xd));
    if (s.attrString("data_format", "NCHW") != "NCHW") s.fail("attribute data_format: only NCHW interpolation is supported");
    InterpParams p;
    p.n = xd[0]; p.ch = xd[1]; p.h = xd[2]; p.w = xd[3];
    if (p.h <= 0 || p.w <= 0) s.fail("interpolate of an empty input " + dimsString(xd));
    if (const Attribute* a = s.attr("scale"); a && a->kind == Attribute::Kind::Array)
        for (const Attribute& e : a->elements)
            p.scales.push_back(e.kind == Attribute::Kind::Float || e.kind == Attribute::Kind::Double ? e.floatValue : static_cast<double>(e.intValue));
    int64_t oh = s.attrInt("out_h", 0), ow = s.attrInt("out_w", 0);
    if (s.has(1)) { Dims v = s.ints(1); if (v.size() != 2) s.fail("out_size must hold 2 values"); oh = v[0]; ow = v[1]; }
    else if (s.operandCount() > 2 && s.has(2)) { Dims v = s.ints(2); if (v.size() != 2) s.fail("size_tensor must hold 2 values"); oh = v[0]; ow = v[1]; }
    else if ((oh <= 0 || ow <= 0) && !p.scales.empty()) {
        const double sh = p.scales[0], sw = p.scales.size() > 1 ? p.scales[1] : p.scales[0];
        if (!(sh > 0) || !(sw > 0)) s.fail("attribute scale must be > 0");
        oh = static_cast<int64_t>(static_cast<double>(p.h) * sh);
        ow = static_cast<int64_t>(static_cast<double>(p.w) * sw);
    }
    if (oh <= 0 || ow <= 0) s.fail("output size " + std::to_string(oh) + "x" + std::to_string(ow) + " must be > 0 (out_h/out_w, out_size or scale)");
    p.oh = oh; p.ow = ow;
    p.alignCorners = s.attrBool("align_corners", true);
    p.alignMode = s.attrInt("align_mode", 1);
    return p;
}

FlashAttnParams flashAttnParams(const OpSite& s, bool grad) {
    const std::string op = grad ? "flash_attn_grad" : "flash_attn";
    const Dims q = s.operandDims(0), k = s.operandDims(1), v = s.operandDims(2);
    if (q.size() != 4 || k.size() != 4 || v != k)
        s.fail(op + " needs q [b,sq,h,d] and k, v [b,sk,hk,d] of one shape, got " + dimsString(q) + ", " + dimsString(k) + ", " + dimsString(v));
    FlashAttnParams p;
    p.b = q[0]; p.sq = q[1]; p.h = q[2]; p.d = q[3]; p.sk = k[1]; p.hk = k[2];
    if (k[0] != p.b || k[3] != p.d || p.hk <= 0 || p.h % p.hk) s.fail(op + ": k/v batch, heads or head_dim do not match q");
    if (grad) {
        const Dims out = s.operandDims(3), lse = s.operandDims(4), g = s.operandDims(7);
        if (out != q || g != q) s.fail("out " + dimsString(out) + " and out_grad " + dimsString(g) + " must have q's shape " + dimsString(q));
        if (numelOf(lse) != p.b * p.h * p.sq)
            s.fail("softmax_lse " + dimsString(lse) + " must hold b*h*sq = " + std::to_string(p.b * p.h * p.sq) + " values");
    }
    const double dropout = s.attrFloat("dropout", 0.0);
    if (dropout != 0.0 && (grad || !s.attrBool("is_test", false)))
        s.fail("attribute dropout = " + std::to_string(dropout) + ": flash_attn dropout cannot be reproduced on the CPU");
    p.causal = s.attrBool("causal", false);
    p.scale = 1.0 / std::sqrt(static_cast<double>(p.d));
    p.lseDims = {p.b, p.h, p.sq};
    p.maskOperand = grad ? 6 : 4;
    if (s.operandCount() > p.maskOperand && s.has(p.maskOperand)) {
        const Dims m = s.operandDims(p.maskOperand);
        const int64_t n = numelOf(m);
        p.maskLayout = n == p.sq * p.sk ? 1 : n == p.b * p.sq * p.sk ? 2 : n == p.b * p.h * p.sq * p.sk ? 3 : 0;
        if (!p.maskLayout) s.fail("attn_mask " + dimsString(m) + " does not broadcast to [b, h, sq, sk]");
    }
    return p;
}

RotaryParams rotaryParams(const OpSite& s, bool grad) {
    RotaryParams p;
    p.sinAt = grad ? 0 : 3; p.cosAt = p.sinAt + 1; p.posAt = p.sinAt + 2; p.firstX = grad ? 3 : 0;
    if (!s.has(p.firstX)) s.fail(std::string(grad ? "out_q_grad" : "q") + " (operand " + std::to_string(p.firstX) + ") is required");
    const Dims xd = s.operandDims(p.firstX);
    if (xd.size() != 4) s.fail("rotary embedding needs 4-d q [batch, seq, heads, head_dim], got " + dimsString(xd));
    p.timeMajor = s.attrBool("time_major", false);
    p.neox = s.attrBool("use_neox_rotary_style", true);
    p.batch = p.timeMajor ? xd[1] : xd[0]; p.seq = p.timeMajor ? xd[0] : xd[1]; p.d = xd[3];  // xd[2]: heads
    if (p.d <= 0 || p.d % 2) s.fail("head_dim " + std::to_string(p.d) + " must be even and > 0 for a rotary embedding");
    if (s.has(p.sinAt) != s.has(p.cosAt)) s.fail("sin and cos must be given together");
    p.hasSinCos = s.has(p.sinAt);
    p.rows = p.seq;
    if (p.hasSinCos) {
        const Dims sd = s.operandDims(p.sinAt), cd = s.operandDims(p.cosAt);
        if (sd != cd) s.fail("sin " + dimsString(sd) + " and cos " + dimsString(cd) + " differ");
        const int64_t n = numelOf(sd);
        if (n == 0 || n % p.d) s.fail("sin/cos " + dimsString(sd) + " do not hold rows of head_dim " + std::to_string(p.d));
        p.rows = n / p.d;
    }
    p.hasPositions = s.has(p.posAt);
    if (p.hasPositions) {
        const Dims pd = s.operandDims(p.posAt);
        if (numelOf(pd) != p.batch * p.seq)
            s.fail("position_ids " + dimsString(pd) + " must hold batch*seq = " + std::to_string(p.batch * p.seq) + " values");
    } else if (p.hasSinCos && p.rows != p.seq) {
        s.fail("sin/cos hold " + std::to_string(p.rows) + " rows, expected seq = " + std::to_string(p.seq) + " (no position_ids)");
    }
    for (size_t r = 0; r < 3; ++r) {
        const size_t at = p.firstX + r;
        if (at >= s.operandCount() || !s.has(at)) continue;
        if (r >= s.o.results.size()) s.fail("has " + std::to_string(s.o.results.size()) + " results, expected one per given q/k/v");
        const Dims d = s.operandDims(at);
        if (d.size() != 4 || d[0] != xd[0] || d[1] != xd[1] || d[3] != p.d)
            s.fail("operand " + std::to_string(at) + " " + dimsString(d) + " does not match q " + dimsString(xd) + " (heads may differ)");
    }
    p.base = s.attrFloat("rotary_emb_base", 10000.0);
    if (!p.hasSinCos && !(p.base > 0)) s.fail("attribute rotary_emb_base = " + std::to_string(p.base) + ": must be > 0");
    return p;
}

CumsumParams cumsumParams(const OpSite& s, const Dims& x, bool grad) {
    CumsumParams p;
    const bool flatten = s.attrBool("flatten", false);
    p.dims = flatten || x.empty() ? Dims{numelOf(x)} : x;
    const int64_t axis = s.normAxis(s.intOr(grad ? 2 : 1, "axis", -1), p.dims.size());
    p.lanes = axisLanes(p.dims, static_cast<size_t>(axis));
    p.exclusive = s.attrBool("exclusive", false);
    p.reverse = s.attrBool("reverse", false) != grad;  // the grad scans out_grad the other way
    return p;
}

ArgExtremumParams argExtremumParams(const OpSite& s, const Dims& x) {
    ArgExtremumParams p;
    const bool flatten = s.attrBool("flatten", false), keep = s.attrBool("keepdims", false);
    Dims dims = flatten ? Dims{numelOf(x)} : x;
    if (dims.empty()) dims = {1};
    const int64_t axis = s.normAxis(s.intOr(1, "axis", -1), dims.size());
    p.lanes = axisLanes(dims, static_cast<size_t>(axis));
    if (p.lanes.n <= 0) s.fail("argmax/argmin over an empty axis");
    if (flatten) p.outDims = keep ? Dims(x.size(), 1) : Dims{};
    else {
        p.outDims = dims;
        if (keep) p.outDims[static_cast<size_t>(axis)] = 1;
        else p.outDims.erase(p.outDims.begin() + axis);
    }
    return p;
}

TopkParams topkParams(const OpSite& s, const Dims& x) {
    TopkParams p;
    p.k = s.intOr(1, "k", 1);
    const int64_t axis = s.normAxis(s.attrInt("axis", -1), std::max<size_t>(x.size(), 1));
    p.largest = s.attrBool("largest", true);
    const Dims dims = x.empty() ? Dims{1} : x;
    p.lanes = axisLanes(dims, static_cast<size_t>(axis));
    if (p.k < 1 || p.k > p.lanes.n) s.fail("k = " + std::to_string(p.k) + " is outside [1, " + std::to_string(p.lanes.n) + "]");
    p.outDims = dims;
    p.outDims[static_cast<size_t>(axis)] = p.k;
    return p;
}

TopkParams topkGradParams(const OpSite& s, const Dims& x, const Dims& ind, const Dims& g) {
    const Dims dims = x.empty() ? Dims{1} : x;
    const int64_t axis = s.normAxis(s.attrInt("axis", -1), dims.size());
    const Dims idims = ind.empty() ? Dims{1} : ind;
    if (idims.size() != dims.size() || numelOf(g) != numelOf(ind))
        s.fail("indices " + dimsString(ind) + " and out_grad " + dimsString(g) + " do not match x " + dimsString(x));
    for (size_t i = 0; i < dims.size(); ++i)
        if (static_cast<int64_t>(i) != axis && idims[i] != dims[i])
            s.fail("indices " + dimsString(ind) + " do not match x " + dimsString(x) + " off the axis");
    TopkParams p;
    p.lanes = axisLanes(dims, static_cast<size_t>(axis));
    p.k = idims[static_cast<size_t>(axis)];
    p.outDims = x;
    return p;
}

GatherGeom gatherGeometry(const OpSite& s, const Dims& x, int64_t indexCount) {
    GatherGeom g;
    const size_t axis = gatherAxis(s, x.size());
    if (x.empty()) s.fail("gather from a 0-d tensor");
    g.lanes = axisLanes(x, axis);
    g.outDims = x;
    g.outDims[axis] = indexCount;
    return g;
}

GatherNdGeom gatherNdGeometry(const OpSite& s, const Dims& x, const Dims& index) {
    if (index.empty()) s.fail("gather_nd index must have rank >= 1");
    GatherNdGeom g;
    g.depth = index.back();
    if (g.depth < 0 || g.depth > static_cast<int64_t>(x.size()))
        s.fail("gather_nd index depth " + std::to_string(g.depth) + " is outside [0, " + std::to_string(x.size()) + "] (x " + dimsString(x) + ")");
    g.outDims.assign(index.begin(), index.end() - 1);
    g.outDims.insert(g.outDims.end(), x.begin() + g.depth, x.end());
    for (size_t i = static_cast<size_t>(g.depth); i < x.size(); ++i) g.inner *= x[i];
    g.rows = numelOf(Dims(index.begin(), index.end() - 1));
    return g;
}

GatherGradParams gatherGradParams(const OpSite& s, const Dims& x, int64_t indexCount, const Dims& g) {
    const int64_t axis = s.normAxis(s.intOr(3, "axis", 0), x.size());
    GatherGradParams p;
    p.lanes = axisLanes(x, static_cast<size_t>(axis));
    if (numelOf(g) != p.lanes.outer * indexCount * p.lanes.inner) s.fail("out_grad " + dimsString(g) + " does not match the gathered shape");
    return p;
}

bool scatterOverwrite(const OpSite& s) { return s.attrBool("overwrite", true); }

PutAlongAxisParams putAlongAxisParams(const OpSite& s, const Dims& arr, const Dims& idx, const Dims& values) {
    PutAlongAxisParams p;
    p.axis = static_cast<size_t>(s.normAxis(s.attrInt("axis", 0), arr.size()));
    const std::string reduce = s.attrString("reduce", "assign");
    if (reduce == "add") p.reduce = PutAlongAxisParams::Reduce::Add;
    else if (reduce == "mul" || reduce == "multiply") p.reduce = PutAlongAxisParams::Reduce::Multiply;
    else if (reduce != "assign") s.fail("attribute reduce = \"" + reduce + "\": expected assign, add or mul");
    if (idx.size() != arr.size()) s.fail("put_along_axis indices must have the rank of arr");
    if (auto b = broadcastShapes(values, idx); !b || *b != idx)
        s.fail("values " + dimsString(values) + " do not broadcast to the indices " + dimsString(idx));
    return p;
}

PadParams padParams(const OpSite& s, const Dims& in) {
    const Dims pads = s.attrInts("paddings");
    if (pads.size() != 2 * in.size()) s.fail("attribute paddings = " + dimsString(pads) + ": expected 2 entries per dim of " + dimsString(in));
    PadParams p;
    p.before.assign(in.size(), 0);
    p.outDims = in;
    for (size_t i = 0; i < in.size(); ++i) {
        if (pads[2 * i] < 0 || pads[2 * i + 1] < 0) s.fail("attribute paddings = " + dimsString(pads) + ": must be >= 0");
        p.before[i] = pads[2 * i];
        p.outDims[i] = in[i] + pads[2 * i] + pads[2 * i + 1];
    }
    if (s.program.opName(s.id) == "pd_op.pad") p.value = s.has(1) ? s.scalar(1) : s.attrFloat("pad_value", 0.0);
    return p;
}

SplitGeom unbindGeometry(const OpSite& s, const Dims& x) {
    if (x.empty()) s.fail("unbind of a 0-d tensor");
    const int64_t axis = s.normAxis(s.attrInt("axis", 0), x.size());
    SplitGeom g = splitGeometry(s, x, Dims(static_cast<size_t>(x[static_cast<size_t>(axis)]), 1), axis);
    for (Dims& d : g.parts) d.erase(d.begin() + axis);
    return g;
}

SplitGeom stackGradGeometry(const OpSite& s, const Dims& g, const std::vector<Dims>& xs) {
    if (xs.empty()) s.fail("stack_grad of nothing");
    int64_t axis = s.attrInt("axis", 0);
    if (axis < 0) axis += static_cast<int64_t>(g.size());
    if (axis < 0 || axis >= static_cast<int64_t>(g.size()) || g[static_cast<size_t>(axis)] != static_cast<int64_t>(xs.size()))
        s.fail("stack_grad: out_grad " + dimsString(g) + " does not stack " + std::to_string(xs.size()) + " tensors on axis " + std::to_string(axis));
    SplitGeom geom = splitGeometry(s, g, Dims(xs.size(), 1), axis);
    for (size_t i = 0; i < xs.size(); ++i) {
        if (numelOf(xs[i]) != numelOf(geom.parts[i]))
            s.fail("stack_grad: x " + dimsString(xs[i]) + " is not a slice " + dimsString(geom.parts[i]) + " of out_grad " + dimsString(g));
        geom.parts[i] = xs[i];
    }
    return geom;
}

int64_t scatterRowWidth(const OpSite& s, const Dims& x) {
    if (x.empty()) s.fail(shortOpName(s) + " of a 0-d tensor");
    return axisLanes(x, 0).inner;
}

PoolPlanes maxPoolWithIndexGradPlanes(const OpSite& s, const Dims& x, const Dims& mask, const Dims& g) {
    if (x.size() != 4 || mask != g || g.size() != 4 || g[0] != x[0] || g[1] != x[1])
        s.fail("max_pool2d_with_index_grad needs x [N,C,H,W] and mask, out_grad [N,C,OH,OW], got " + dimsString(x) + ", " +
               dimsString(mask) + ", " + dimsString(g));
    return PoolPlanes{x[0] * x[1], x[2] * x[3], g[2] * g[3]};
}

Dims asComplexDims(const OpSite& s, const Dims& x) {
    if (x.empty() || x.back() != 2) s.fail("as_complex needs a last dim of 2, got " + dimsString(x));
    return Dims(x.begin(), x.end() - 1);
}

Dims asRealDims(const Dims& x) {
    Dims d = x;
    d.push_back(2);
    return d;
}

Dims indexSampleDims(const OpSite& s, const Dims& x, const Dims& index) {
    if (x.size() != 2 || index.size() != 2 || x[0] != index[0])
        s.fail("index_sample needs x [N, M] and index [N, K], got " + dimsString(x) + " and " + dimsString(index));
    return index;
}
// ---------- end of the conv/pool, attention, indexing and scan parameters ----------

}  // namespace rx::exec
