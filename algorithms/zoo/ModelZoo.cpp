#include "algorithms/zoo/ModelZoo.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <unordered_map>

#include "model/Diagnostic.h"
#include "model/RecomputeSpec.h"

namespace rx::zoo {
namespace {

using Dims = std::vector<int64_t>;

Attribute boolArray(size_t n, bool v) { return Attribute::array(std::vector<Attribute>(n, Attribute::boolean(v))); }
Attribute int32Array(const Dims& v) {
    std::vector<Attribute> e;
    for (int64_t x : v) e.push_back(Attribute::int32(x));
    return Attribute::array(std::move(e));
}
Attribute int64Array(const Dims& v) {
    std::vector<Attribute> e;
    for (int64_t x : v) e.push_back(Attribute::int64(x));
    return Attribute::array(std::move(e));
}
int64_t numel(const Dims& d) {
    int64_t n = 1;
    for (int64_t x : d) n *= x;
    return n;
}

// Builds ops in the global block and records, for every differentiable op, how to emit
// its VJP. backward() walks that tape in reverse and accumulates gradients.
class Builder {
public:
    Builder(Program& p, DType dt, bool composite) : p_(p), dt_(dt), composite_(composite) {}

    Program& p_;
    DType dt_;
    bool composite_;
    std::vector<bool> needsGrad_;   // per value
    struct TapeEntry {
        std::vector<ValueId> outputs;
        std::function<void(const std::vector<ValueId>& grads)> vjp;
    };
    std::vector<TapeEntry> tape_;
    std::unordered_map<ValueId, ValueId> grad_;
    BlockId block_ = Program::kGlobalBlock;   // where op() appends (a branch or loop body while building one)
    // Paddle's `struct_name` for the forward ops being built ("/LSTM/RNN_2/LSTMCell_2/"):
    // the module path the explorer's layer overview groups by. Empty: none printed.
    std::string scope_;
    std::vector<OpId> stackOps_;              // cf.stack_create ops: hoisted to the program's start

    void growNeeds() {
        if (needsGrad_.size() < p_.values().size()) needsGrad_.resize(p_.values().size() * 2 + 16, false);
    }
    const Type& type(ValueId v) const { return p_.types()[p_.value(v).type]; }
    Dims dims(ValueId v) const { return type(v).dims; }
    DType dtypeOf(ValueId v) const { return type(v).dtype; }
    bool needs(ValueId v) const { return v != kNoId && v < needsGrad_.size() && needsGrad_[v]; }

    // Appends an op; stop_gradient per result = !needsGrad.
    std::vector<ValueId> op(std::string_view name, std::vector<ValueId> operands, std::vector<TypeId> results,
                            std::vector<NamedAttribute> attrs, bool grad) {
        std::vector<Attribute> sg;
        for (size_t i = 0; i < results.size(); ++i) sg.push_back(Attribute::boolean(!grad));
        if (!results.empty()) {
            // keep alphabetical order as Paddle prints: insert stop_gradient in place
            NamedAttribute s{"stop_gradient", Attribute::array(std::move(sg))};
            auto it = attrs.begin();
            while (it != attrs.end() && it->name < "stop_gradient") ++it;
            attrs.insert(it, std::move(s));
        }
        if (!scope_.empty() && name != "builtin.parameter") {
            auto it = attrs.begin();
            while (it != attrs.end() && it->name < "struct_name") ++it;
            attrs.insert(it, NamedAttribute{"struct_name", Attribute::string(scope_)});
        }
        OpId id = p_.appendOp(block_, name, operands, results, std::move(attrs));
        const ResultList& res = p_.op(id).results;
        growNeeds();
        for (ValueId r : res) needsGrad_[r] = grad;
        return {res.begin(), res.end()};
    }
    ValueId op1(std::string_view name, std::vector<ValueId> operands, TypeId result, std::vector<NamedAttribute> attrs, bool grad) {
        return op(name, std::move(operands), {result}, std::move(attrs), grad)[0];
    }
    TypeId t(const Dims& d, DType dt) { return p_.tensorType(dt, d); }
    TypeId t(const Dims& d) { return t(d, dt_); }
    bool anyNeeds(std::initializer_list<ValueId> vs) const {
        for (ValueId v : vs) if (needs(v)) return true;
        return false;
    }
    void record(std::vector<ValueId> outs, std::function<void(const std::vector<ValueId>&)> vjp) {
        tape_.push_back({std::move(outs), std::move(vjp)});
    }
    void accumulate(ValueId v, ValueId g) {
        if (!needs(v) || g == kNoId) return;
        if (dims(g) != dims(v)) throw Error("internal: gradient of " + p_.value(v).name + " has the wrong shape");
        auto it = grad_.find(v);
        if (it == grad_.end()) { grad_[v] = g; return; }
        it->second = rawBinary("pd_op.add", it->second, g, false);
    }

    // ---------- constants ----------
    std::string placeText() const { return "Place(cpu)"; }
    ValueId full(const Dims& shape, double value, DType dt) {
        Attribute v = Attribute::float32(value);
        return op1("pd_op.full", {}, t(shape, dt),
                   {{"dtype", Attribute::dataType(std::string(dtypeLongName(dt)))}, {"place", Attribute::place(placeText())},
                    {"shape", Attribute::intArray(shape)}, {"value", v}}, false);
    }
    ValueId full(const Dims& shape, double value) { return full(shape, value, dt_); }
    ValueId fullIntArray(const Dims& v) {
        return op1("pd_op.full_int_array", {}, t({static_cast<int64_t>(v.size())}, DType::Int64),
                   {{"dtype", Attribute::dataType("int64")}, {"place", Attribute::place(placeText())}, {"value", int64Array(v)}}, false);
    }

    // ---------- inputs ----------
    ValueId parameter(const std::string& name, const Dims& d, bool trainable = true) {
        return op1("builtin.parameter", {}, t(d),
                   {{"is_distributed", boolArray(1, false)}, {"is_parameter", boolArray(1, true)}, {"need_clip", boolArray(1, true)},
                    {"parameter_name", Attribute::string(name)}, {"persistable", boolArray(1, true)},
                    {"trainable", boolArray(1, trainable)}}, trainable);
    }
    ValueId data(const std::string& name, const Dims& d, DType dt) {
        return op1("pd_op.data", {}, t(d, dt),
                   {{"dtype", Attribute::dataType(std::string(dtypeLongName(dt)))}, {"name", Attribute::string(name)},
                    {"place", Attribute::place("Place(undefined:0)")}, {"shape", Attribute::intArray(d)}}, false);
    }

    // ---------- raw ops (no tape) ----------
    Dims broadcast(const Dims& a, const Dims& b) {
        size_t r = std::max(a.size(), b.size());
        Dims out(r);
        for (size_t i = 0; i < r; ++i) {
            int64_t da = i < r - a.size() ? 1 : a[i - (r - a.size())];
            int64_t db = i < r - b.size() ? 1 : b[i - (r - b.size())];
            if (da != db && da != 1 && db != 1) throw Error("internal: shapes do not broadcast");
            out[i] = da == 1 ? db : da;
        }
        return out;
    }
    ValueId rawBinary(std::string_view name, ValueId a, ValueId b, bool grad) {
        return op1(name, {a, b}, t(broadcast(dims(a), dims(b)), dtypeOf(a)), {}, grad);
    }
    ValueId rawScale(ValueId x, double s, double bias, bool grad) {
        ValueId f = full({1}, s, DType::Float32);
        return op1("pd_op.scale", {x, f}, p_.value(x).type,
                   {{"bias", Attribute::float32(bias)}, {"bias_after_scale", Attribute::boolean(true)}}, grad);
    }
    ValueId rawUnary(std::string_view name, ValueId x, bool grad, std::vector<NamedAttribute> attrs = {}) {
        return op1(name, {x}, p_.value(x).type, std::move(attrs), grad);
    }
    ValueId rawReshape(ValueId x, const Dims& d, bool grad) {
        ValueId s = fullIntArray(d);
        return op1("pd_op.reshape", {x, s}, t(d, dtypeOf(x)), {}, grad);
    }
    ValueId rawSum(ValueId x, const Dims& axes, bool keepdim, bool grad) {
        Dims d = dims(x), out;
        std::vector<bool> red(d.size(), false);
        for (int64_t a : axes) red[a < 0 ? a + d.size() : a] = true;
        for (size_t i = 0; i < d.size(); ++i) if (!red[i]) out.push_back(d[i]); else if (keepdim) out.push_back(1);
        ValueId ax = fullIntArray(axes);
        return op1("pd_op.sum", {x, ax}, t(out, dtypeOf(x)),
                   {{"dtype", Attribute::dataType("Undefined")}, {"keepdim", Attribute::boolean(keepdim)}}, grad);
    }
    ValueId rawTranspose(ValueId x, const Dims& perm, bool grad) {
        Dims d = dims(x), od;
        for (int64_t q : perm) od.push_back(d[q]);
        return op1("pd_op.transpose", {x}, t(od, dtypeOf(x)), {{"perm", int32Array(perm)}}, grad);
    }
    ValueId rawMatmul(ValueId a, ValueId b, bool ta, bool tb, bool grad) {
        Dims da = dims(a), db = dims(b);
        int64_t m = ta ? da[da.size() - 1] : da[da.size() - 2];
        int64_t n = tb ? db[db.size() - 2] : db[db.size() - 1];
        Dims batch = broadcast(Dims(da.begin(), da.end() - 2), Dims(db.begin(), db.end() - 2));
        batch.push_back(m); batch.push_back(n);
        return op1("pd_op.matmul", {a, b}, t(batch, dtypeOf(a)),
                   {{"transpose_x", Attribute::boolean(ta)}, {"transpose_y", Attribute::boolean(tb)}}, grad);
    }
    ValueId rawExpand(ValueId x, const Dims& d, bool grad) {
        ValueId s = fullIntArray(d);
        return op1("pd_op.expand", {x, s}, t(d, dtypeOf(x)), {}, grad);
    }
    ValueId rawCast(ValueId x, DType dt, bool grad) {
        return op1("pd_op.cast", {x}, t(dims(x), dt), {{"dtype", Attribute::dataType(std::string(dtypeLongName(dt)))}}, grad);
    }
    // x[index] along `axis`, that axis dropped (Paddle's `inputs[i]`: pd_op.slice with
    // decrease_axis). No VJP: the zoo slices only the data input, which needs no gradient.
    ValueId rawSliceAt(ValueId x, int64_t axis, int64_t index) {
        if (needs(x)) throw Error("internal: rawSliceAt of a value that needs a gradient");
        Dims d = dims(x);
        d.erase(d.begin() + axis);
        ValueId starts = fullIntArray({index}), ends = fullIntArray({index + 1});
        return op1("pd_op.slice", {x, starts, ends}, t(d, dtypeOf(x)),
                   {{"axes", int64Array({axis})}, {"decrease_axis", int64Array({axis})}, {"infer_flags", int64Array({1})}}, false);
    }
    // Sum a broadcast gradient back down to `target` dims.
    ValueId reduceTo(ValueId g, const Dims& target) {
        Dims gd = dims(g);
        if (gd == target) return g;
        size_t off = gd.size() - target.size();
        Dims axes;
        for (size_t i = 0; i < gd.size(); ++i)
            if (i < off || (target[i - off] == 1 && gd[i] != 1)) axes.push_back(static_cast<int64_t>(i));
        ValueId s = rawSum(g, axes, true, true);
        return dims(s) == target ? s : rawReshape(s, target, true);
    }
    // Broadcast a reduced gradient (keepdim dims `kd`) back to `target`.
    ValueId expandTo(ValueId g, const Dims& kd, const Dims& target) {
        if (dims(g) != kd) g = rawReshape(g, kd, true);
        return kd == target ? g : rawExpand(g, target, true);
    }

    // ---------- differentiable ops ----------
    ValueId add(ValueId a, ValueId b) { return binary("pd_op.add", a, b); }
    ValueId sub(ValueId a, ValueId b) { return binary("pd_op.subtract", a, b); }
    ValueId mul(ValueId a, ValueId b) { return binary("pd_op.multiply", a, b); }
    ValueId div(ValueId a, ValueId b) { return binary("pd_op.divide", a, b); }
    ValueId binary(std::string_view name, ValueId a, ValueId b) {
        bool g = anyNeeds({a, b});
        ValueId out = rawBinary(name, a, b, g);
        if (!g) return out;
        std::string n(name);
        record({out}, [this, n, a, b, out](const std::vector<ValueId>& gs) {
            ValueId go = gs[0];
            if (composite_ && n != "pd_op.divide") {
                std::vector<TypeId> rt = {needs(a) ? p_.value(a).type : kNullType, needs(b) ? p_.value(b).type : kNullType};
                auto r = op(n + "_grad", {a, b, go}, rt, {{"axis", Attribute::int32(-1)}}, true);
                if (needs(a)) accumulate(a, r[0]);
                if (needs(b)) accumulate(b, r[1]);
                return;
            }
            if (n == "pd_op.add") { accumulate(a, reduceTo(go, dims(a))); accumulate(b, reduceTo(go, dims(b))); }
            else if (n == "pd_op.subtract") {
                accumulate(a, reduceTo(go, dims(a)));
                if (needs(b)) accumulate(b, reduceTo(rawScale(go, -1.0, 0.0, true), dims(b)));
            } else if (n == "pd_op.multiply") {
                if (needs(a)) accumulate(a, reduceTo(rawBinary("pd_op.multiply", go, b, true), dims(a)));
                if (needs(b)) accumulate(b, reduceTo(rawBinary("pd_op.multiply", go, a, true), dims(b)));
            } else {  // divide: da = g / b, db = -g * out / b
                if (needs(a)) accumulate(a, reduceTo(rawBinary("pd_op.divide", go, b, true), dims(a)));
                if (needs(b)) {
                    ValueId q = rawBinary("pd_op.divide", rawBinary("pd_op.multiply", go, out, true), b, true);
                    accumulate(b, reduceTo(rawScale(q, -1.0, 0.0, true), dims(b)));
                }
            }
        });
        return out;
    }
    ValueId scale(ValueId x, double s, double bias) {
        bool g = needs(x);
        ValueId out = rawScale(x, s, bias, g);
        if (g) record({out}, [this, x, s](const std::vector<ValueId>& gs) { accumulate(x, rawScale(gs[0], s, 0.0, true)); });
        return out;
    }
    // Unary math with a primitive VJP expressed through out / x.
    ValueId unary(std::string_view name, ValueId x) {
        bool g = needs(x);
        ValueId out = rawUnary(name, x, g);
        if (!g) return out;
        std::string n(name);
        record({out}, [this, n, x, out](const std::vector<ValueId>& gs) {
            ValueId go = gs[0];
            if (composite_ && (n == "pd_op.relu" || n == "pd_op.rsqrt" || n == "pd_op.exp" || n == "pd_op.silu" || n == "pd_op.sigmoid" || n == "pd_op.tanh")) {
                ValueId arg = (n == "pd_op.silu") ? x : out;
                accumulate(x, op1(n + "_grad", {arg, go}, p_.value(x).type, {}, true));
                return;
            }
            ValueId d;
            if (n == "pd_op.exp") d = rawBinary("pd_op.multiply", go, out, true);
            else if (n == "pd_op.rsqrt") {  // d = -0.5 * out^3
                ValueId o3 = rawBinary("pd_op.multiply", rawBinary("pd_op.multiply", out, out, true), out, true);
                d = rawBinary("pd_op.multiply", go, rawScale(o3, -0.5, 0.0, true), true);
            } else if (n == "pd_op.sin") d = rawBinary("pd_op.multiply", go, rawUnary("pd_op.cos", x, true), true);
            else if (n == "pd_op.cos") d = rawBinary("pd_op.multiply", go, rawScale(rawUnary("pd_op.sin", x, true), -1.0, 0.0, true), true);
            else if (n == "pd_op.tanh") {
                ValueId o2 = rawBinary("pd_op.multiply", out, out, true);
                d = rawBinary("pd_op.multiply", go, rawScale(o2, -1.0, 1.0, true), true);
            } else if (n == "pd_op.sigmoid") {
                ValueId om = rawScale(out, -1.0, 1.0, true);
                d = rawBinary("pd_op.multiply", go, rawBinary("pd_op.multiply", out, om, true), true);
            } else if (n == "pd_op.erf") {  // 2/sqrt(pi) * exp(-x^2)
                ValueId x2 = rawBinary("pd_op.multiply", x, x, true);
                ValueId e = rawUnary("pd_op.exp", rawScale(x2, -1.0, 0.0, true), true);
                d = rawBinary("pd_op.multiply", go, rawScale(e, 1.1283791670955126, 0.0, true), true);
            } else if (n == "pd_op.relu") {
                ValueId zero = full({}, 0.0);
                ValueId mask = op1("pd_op.greater_than", {out, zero}, t(dims(out), DType::Bool), {}, false);
                d = op1("pd_op.where", {mask, go, zero}, p_.value(x).type, {}, true);
            } else if (n == "pd_op.silu") {  // s * (1 + x * (1 - s))
                ValueId s = rawUnary("pd_op.sigmoid", x, true);
                ValueId inner = rawScale(rawBinary("pd_op.multiply", x, rawScale(s, -1.0, 1.0, true), true), 1.0, 1.0, true);
                d = rawBinary("pd_op.multiply", go, rawBinary("pd_op.multiply", s, inner, true), true);
            } else throw Error("internal: no VJP for " + n);
            accumulate(x, d);
        });
        return out;
    }
    ValueId square(ValueId x) {  // pd_op.pow y=2
        bool g = needs(x);
        ValueId out = op1("pd_op.pow", {x}, p_.value(x).type, {{"y", Attribute::float32(2.0)}}, g);
        if (g) record({out}, [this, x](const std::vector<ValueId>& gs) {
            accumulate(x, rawBinary("pd_op.multiply", gs[0], rawScale(x, 2.0, 0.0, true), true));
        });
        return out;
    }
    ValueId matmul(ValueId a, ValueId b, bool ta = false, bool tb = false) {
        bool g = anyNeeds({a, b});
        ValueId out = rawMatmul(a, b, ta, tb, g);
        if (!g) return out;
        record({out}, [this, a, b, ta, tb](const std::vector<ValueId>& gs) {
            ValueId go = gs[0];
            if (composite_) {
                std::vector<TypeId> rt = {needs(a) ? p_.value(a).type : kNullType, needs(b) ? p_.value(b).type : kNullType};
                auto r = op("pd_op.matmul_grad", {a, b, go}, rt,
                            {{"transpose_x", Attribute::boolean(ta)}, {"transpose_y", Attribute::boolean(tb)}}, true);
                if (needs(a)) accumulate(a, r[0]);
                if (needs(b)) accumulate(b, r[1]);
                return;
            }
            if (needs(a)) {
                ValueId da = ta ? rawMatmul(b, go, tb, true, true) : rawMatmul(go, b, false, !tb, true);
                accumulate(a, reduceTo(da, dims(a)));
            }
            if (needs(b)) {
                ValueId db = tb ? rawMatmul(go, a, true, ta, true) : rawMatmul(a, go, !ta, false, true);
                accumulate(b, reduceTo(db, dims(b)));
            }
        });
        return out;
    }
    ValueId transpose(ValueId x, const Dims& perm) {
        bool g = needs(x);
        ValueId out = rawTranspose(x, perm, g);
        if (g) record({out}, [this, x, perm](const std::vector<ValueId>& gs) {
            Dims inv(perm.size());
            for (size_t i = 0; i < perm.size(); ++i) inv[perm[i]] = static_cast<int64_t>(i);
            if (composite_) accumulate(x, op1("pd_op.transpose_grad", {gs[0]}, p_.value(x).type, {{"perm", int32Array(perm)}}, true));
            else accumulate(x, rawTranspose(gs[0], inv, true));
        });
        return out;
    }
    ValueId reshape(ValueId x, const Dims& d) {
        bool g = needs(x);
        ValueId out = rawReshape(x, d, g);
        if (g) record({out}, [this, x](const std::vector<ValueId>& gs) { accumulate(x, rawReshape(gs[0], dims(x), true)); });
        return out;
    }
    ValueId cast(ValueId x, DType dt) {
        bool g = needs(x);
        ValueId out = rawCast(x, dt, g);
        if (g) record({out}, [this, x](const std::vector<ValueId>& gs) { accumulate(x, rawCast(gs[0], dtypeOf(x), true)); });
        return out;
    }
    ValueId mean(ValueId x, const Dims& axes, bool keepdim) {
        bool g = needs(x);
        Dims d = dims(x), out, kd = d;
        std::vector<bool> red(d.size(), false);
        for (int64_t a : axes) red[a < 0 ? a + d.size() : a] = true;
        int64_t count = 1;
        for (size_t i = 0; i < d.size(); ++i) {
            if (red[i]) { kd[i] = 1; count *= d[i]; if (keepdim) out.push_back(1); }
            else out.push_back(d[i]);
        }
        ValueId r = op1("pd_op.mean", {x}, t(out, dtypeOf(x)), {{"axis", Attribute::intArray(axes)}, {"keepdim", Attribute::boolean(keepdim)}}, g);
        if (g) record({r}, [this, x, axes, keepdim, kd, d, count](const std::vector<ValueId>& gs) {
            if (composite_) {
                accumulate(x, op1("pd_op.mean_grad", {x, gs[0]}, p_.value(x).type,
                                  {{"axis", Attribute::intArray(axes)}, {"keepdim", Attribute::boolean(keepdim)}, {"reduce_all", Attribute::boolean(false)}}, true));
                return;
            }
            accumulate(x, rawScale(expandTo(gs[0], kd, d), 1.0 / static_cast<double>(count), 0.0, true));
        });
        return r;
    }
    ValueId sum(ValueId x, const Dims& axes, bool keepdim) {
        bool g = needs(x);
        ValueId r = rawSum(x, axes, keepdim, g);
        if (g) record({r}, [this, x, axes](const std::vector<ValueId>& gs) {
            Dims d = dims(x), kd = d;
            for (int64_t a : axes) kd[a < 0 ? a + d.size() : a] = 1;
            accumulate(x, expandTo(gs[0], kd, d));
        });
        return r;
    }
    // Reduction that carries no gradient (softmax's max shift: the result is invariant to it).
    ValueId maxNoGrad(ValueId x, const Dims& axes) {
        Dims d = dims(x);
        for (int64_t a : axes) d[a < 0 ? a + d.size() : a] = 1;
        ValueId ax = fullIntArray(axes);
        return op1("pd_op.max", {x, ax}, t(d, dtypeOf(x)), {{"keepdim", Attribute::boolean(true)}}, false);
    }
    ValueId where(ValueId cond, ValueId a, ValueId b) {
        bool g = anyNeeds({a, b});
        ValueId out = op1("pd_op.where", {cond, a, b}, t(broadcast(broadcast(dims(cond), dims(a)), dims(b)), dtypeOf(a)), {}, g);
        if (g) record({out}, [this, cond, a, b](const std::vector<ValueId>& gs) {
            ValueId zero = full({}, 0.0, dtypeOf(gs[0]));
            if (needs(a)) accumulate(a, reduceTo(op1("pd_op.where", {cond, gs[0], zero}, p_.value(gs[0]).type, {}, true), dims(a)));
            if (needs(b)) accumulate(b, reduceTo(op1("pd_op.where", {cond, zero, gs[0]}, p_.value(gs[0]).type, {}, true), dims(b)));
        });
        return out;
    }
    // split along `axis` into equal halves through pd_op.split + builtin.split.
    std::vector<ValueId> split(ValueId x, const Dims& sections, int64_t axis) {
        bool g = needs(x);
        Dims d = dims(x);
        std::vector<TypeId> parts;
        for (int64_t s : sections) { Dims pd = d; pd[axis] = s; parts.push_back(t(pd, dtypeOf(x))); }
        ValueId sec = fullIntArray(sections);
        ValueId ax = full({1}, static_cast<double>(axis), DType::Int32);
        ValueId vec = op1("pd_op.split", {x, sec, ax}, p_.internType(Type::vector(parts)), {}, g);
        std::vector<ValueId> outs = op("builtin.split", {vec}, parts, {}, g);
        if (g) record(outs, [this, x, outs, axis](const std::vector<ValueId>& gs) {
            std::vector<ValueId> filled;
            for (size_t i = 0; i < outs.size(); ++i) filled.push_back(gs[i] != kNoId ? gs[i] : full(dims(outs[i]), 0.0, dtypeOf(outs[i])));
            accumulate(x, rawConcat(filled, axis, true));
        });
        return outs;
    }
    ValueId rawConcat(const std::vector<ValueId>& xs, int64_t axis, bool grad) {
        std::vector<TypeId> types;
        Dims d = dims(xs[0]);
        d[axis] = 0;
        for (ValueId v : xs) { types.push_back(p_.value(v).type); d[axis] += dims(v)[axis]; }
        ValueId vec = op1("builtin.combine", xs, p_.internType(Type::vector(types)), {}, grad);
        ValueId ax = full({1}, static_cast<double>(axis), DType::Int32);
        return op1("pd_op.concat", {vec, ax}, t(d, dtypeOf(xs[0])), {}, grad);
    }
    ValueId concat(const std::vector<ValueId>& xs, int64_t axis) {
        bool g = false;
        for (ValueId v : xs) g = g || needs(v);
        ValueId out = rawConcat(xs, axis, g);
        if (g) record({out}, [this, xs, axis](const std::vector<ValueId>& gs) {
            Dims sections;
            for (ValueId v : xs) sections.push_back(dims(v)[axis]);
            std::vector<TypeId> parts;
            for (ValueId v : xs) parts.push_back(p_.value(v).type);
            ValueId sec = fullIntArray(sections);
            ValueId ax = full({1}, static_cast<double>(axis), DType::Int32);
            ValueId vec = op1("pd_op.split", {gs[0], sec, ax}, p_.internType(Type::vector(parts)), {}, true);
            std::vector<ValueId> outs = op("builtin.split", {vec}, parts, {}, true);
            for (size_t i = 0; i < xs.size(); ++i) accumulate(xs[i], outs[i]);
        });
        return out;
    }

    // ---------- composite or decomposed layers ----------
    ValueId gelu(ValueId x) {
        if (composite_) {
            bool g = needs(x);
            ValueId out = rawUnary("pd_op.gelu", x, g, {{"approximate", Attribute::boolean(false)}});
            if (g) record({out}, [this, x](const std::vector<ValueId>& gs) {
                accumulate(x, op1("pd_op.gelu_grad", {x, gs[0]}, p_.value(x).type, {{"approximate", Attribute::boolean(false)}}, true));
            });
            return out;
        }
        // 0.5 * x * (1 + erf(x / sqrt(2)))
        ValueId half = scale(x, 0.5, 0.0);
        ValueId e = unary("pd_op.erf", scale(x, 0.7071067811865476, 0.0));
        return mul(half, scale(e, 1.0, 1.0));
    }
    ValueId silu(ValueId x) {
        if (composite_) return unary("pd_op.silu", x);
        return mul(x, unary("pd_op.sigmoid", x));
    }
    ValueId relu(ValueId x) { return unary("pd_op.relu", x); }
    ValueId softmax(ValueId x) {
        if (composite_) {
            bool g = needs(x);
            ValueId out = rawUnary("pd_op.softmax", x, g, {{"axis", Attribute::int32(-1)}});
            if (g) record({out}, [this, x, out](const std::vector<ValueId>& gs) {
                accumulate(x, op1("pd_op.softmax_grad", {out, gs[0]}, p_.value(x).type, {{"axis", Attribute::int32(-1)}}, true));
            });
            return out;
        }
        ValueId m = maxNoGrad(x, {-1});
        ValueId e = unary("pd_op.exp", sub(x, m));
        return div(e, sum(e, {-1}, true));
    }
    // Paddle's layer_norm over the last axis of a 2-D [N, H] activation.
    ValueId layerNorm(ValueId x, ValueId w, ValueId b, double eps = 1e-5) {
        Dims d = dims(x);
        int64_t axis = static_cast<int64_t>(d.size()) - 1;
        if (composite_) {
            bool g = anyNeeds({x, w, b});
            int64_t rows = numel(d) / d.back();
            auto r = op("pd_op.layer_norm", {x, w, b}, {p_.value(x).type, t({rows}, DType::Float32), t({rows}, DType::Float32)},
                        {{"begin_norm_axis", Attribute::int32(axis)}, {"epsilon", Attribute::float32(eps)}}, g);
            if (g) record({r[0]}, [this, x, w, b, r, axis, eps](const std::vector<ValueId>& gs) {
                auto gr = op("pd_op.layer_norm_grad", {x, w, b, r[1], r[2], gs[0]},
                             {p_.value(x).type, p_.value(w).type, p_.value(b).type},
                             {{"begin_norm_axis", Attribute::int32(axis)}, {"epsilon", Attribute::float32(eps)}}, true);
                accumulate(x, gr[0]); accumulate(w, gr[1]); accumulate(b, gr[2]);
            });
            return r[0];
        }
        ValueId mu = mean(x, {axis}, true);
        ValueId c = sub(x, mu);
        ValueId var = mean(mul(c, c), {axis}, true);
        ValueId inv = unary("pd_op.rsqrt", scale(var, 1.0, eps));
        return add(mul(mul(c, inv), w), b);
    }
    ValueId rmsNorm(ValueId x, ValueId w, double eps = 1e-6) {
        int64_t axis = static_cast<int64_t>(dims(x).size()) - 1;
        ValueId ms = mean(square(x), {axis}, true);
        ValueId inv = unary("pd_op.rsqrt", scale(ms, 1.0, eps));
        return mul(mul(x, inv), w);
    }
    ValueId dropout(ValueId x, double prob) {
        if (prob <= 0) return x;
        bool g = needs(x);
        ValueId pt = full({1}, prob, DType::Float32);
        auto r = op("pd_op.dropout", {x, pt}, {p_.value(x).type, t(dims(x), DType::UInt8)},
                    {{"fix_seed", Attribute::boolean(false)}, {"is_test", Attribute::boolean(false)},
                     {"mode", Attribute::string("upscale_in_train")}, {"p", Attribute::float32(prob)}, {"seed", Attribute::int32(0)}}, g);
        const OpId dropout = p_.value(r[1]).definingOp;
        Attribute stopGradient = *p_.op(dropout).attribute("stop_gradient");
        stopGradient.elements[1] = Attribute::boolean(true);
        p_.setOpAttribute(dropout, "stop_gradient", std::move(stopGradient));
        if (g) record({r[0]}, [this, x, r, prob](const std::vector<ValueId>& gs) {
            if (composite_) {
                accumulate(x, op1("pd_op.dropout_grad", {r[1], gs[0]}, p_.value(x).type,
                                  {{"is_test", Attribute::boolean(false)}, {"mode", Attribute::string("upscale_in_train")}, {"p", Attribute::float32(prob)}}, true));
                return;
            }
            ValueId m = rawCast(r[1], dtypeOf(x), false);
            accumulate(x, rawScale(rawBinary("pd_op.multiply", gs[0], m, true), 1.0 / (1.0 - prob), 0.0, true));
        });
        return r[0];
    }
    ValueId conv2d(ValueId x, ValueId w, int64_t stride, int64_t pad) {
        Dims xd = dims(x), wd = dims(w);
        int64_t oh = (xd[2] + 2 * pad - wd[2]) / stride + 1, ow = (xd[3] + 2 * pad - wd[3]) / stride + 1;
        std::vector<NamedAttribute> attrs = {{"data_format", Attribute::string("NCHW")}, {"dilations", int32Array({1, 1})},
                                             {"groups", Attribute::int32(1)}, {"padding_algorithm", Attribute::string("EXPLICIT")},
                                             {"paddings", int32Array({pad, pad})}, {"strides", int32Array({stride, stride})}};
        bool g = anyNeeds({x, w});
        ValueId out = op1("pd_op.conv2d", {x, w}, t({xd[0], wd[0], oh, ow}), attrs, g);
        if (g) record({out}, [this, x, w, attrs](const std::vector<ValueId>& gs) {
            std::vector<TypeId> rt = {needs(x) ? p_.value(x).type : kNullType, p_.value(w).type};
            auto r = op("pd_op.conv2d_grad", {x, w, gs[0]}, rt, attrs, true);
            if (needs(x)) accumulate(x, r[0]);
            accumulate(w, r[1]);
        });
        return out;
    }
    ValueId batchNorm(ValueId x, ValueId mean, ValueId var, ValueId w, ValueId b) {
        int64_t ch = dims(x)[1];
        if (!composite_) {  // training-mode normalization with batch statistics, decomposed
            ValueId w4 = reshape(w, {1, ch, 1, 1}), b4 = reshape(b, {1, ch, 1, 1});
            ValueId mu = this->mean(x, {0, 2, 3}, true);
            ValueId c = sub(x, mu);
            ValueId v = this->mean(mul(c, c), {0, 2, 3}, true);
            ValueId inv = unary("pd_op.rsqrt", scale(v, 1.0, 1e-5));
            return add(mul(mul(c, inv), w4), b4);
        }
        std::vector<NamedAttribute> attrs = {{"data_format", Attribute::string("NCHW")}, {"epsilon", Attribute::float32(1e-5)},
                                             {"is_test", Attribute::boolean(false)}, {"momentum", Attribute::float32(0.9)},
                                             {"trainable_statistics", Attribute::boolean(false)}, {"use_global_stats", Attribute::boolean(false)}};
        bool g = anyNeeds({x, w, b});
        TypeId st = t({ch}, DType::Float32);
        auto r = op("pd_op.batch_norm_", {x, mean, var, w, b}, {p_.value(x).type, st, st, st, st, t({0}, DType::UInt8)}, attrs, g);
        if (g) record({r[0]}, [this, x, w, b, r, attrs](const std::vector<ValueId>& gs) {
            auto gr = op("pd_op.batch_norm_grad", {x, w, b, r[1], r[2], r[3], r[4], r[5], gs[0]},
                         {needs(x) ? p_.value(x).type : kNullType, p_.value(w).type, p_.value(b).type}, attrs, true);
            if (needs(x)) accumulate(x, gr[0]);
            accumulate(w, gr[1]); accumulate(b, gr[2]);
        });
        return r[0];
    }
    ValueId maxPool2x2(ValueId x) {
        Dims d = dims(x);
        std::vector<NamedAttribute> attrs = {{"adaptive", Attribute::boolean(false)}, {"ceil_mode", Attribute::boolean(false)},
                                             {"data_format", Attribute::string("NCHW")}, {"exclusive", Attribute::boolean(true)},
                                             {"global_pooling", Attribute::boolean(false)}, {"padding_algorithm", Attribute::string("EXPLICIT")},
                                             {"paddings", int32Array({0, 0})}, {"pooling_type", Attribute::string("max")},
                                             {"strides", int32Array({2, 2})}};
        ValueId ks = fullIntArray({2, 2});
        bool g = needs(x);
        ValueId out = op1("pd_op.pool2d", {x, ks}, t({d[0], d[1], d[2] / 2, d[3] / 2}), attrs, g);
        if (g) record({out}, [this, x, out, ks, attrs](const std::vector<ValueId>& gs) {
            accumulate(x, op1("pd_op.pool2d_grad", {x, out, gs[0], ks}, p_.value(x).type, attrs, true));
        });
        return out;
    }


    // ---------- control flow, and its backward as Paddle builds it ----------
    // (python/paddle/autograd/ir_backward.py, control_flow_op.cc): the gradient of a pd_op.if
    // is a pd_op.if on the same condition whose branches hold the branch's grad ops; the
    // gradient of a pd_op.while is a pd_op.while on pd_op.has_elements of a cf stack that the
    // forward body pushed every iteration. Both read the forward block's values from the
    // stack (cf.tuple_pop), never directly.
    std::vector<ValueId> plain(std::string_view name, std::vector<ValueId> operands, std::vector<TypeId> results) {
        OpId id = p_.appendOp(block_, name, operands, results, {});
        growNeeds();
        const ResultList& res = p_.op(id).results;
        return {res.begin(), res.end()};
    }
    TypeId opaque(const char* text) {
        Type t;
        t.kind = Type::Kind::Opaque;
        t.text = text;
        return p_.internType(t);
    }
    struct Pipe {
        ValueId stack = kNoId, inlet = kNoId, outlet = kNoId;
        std::vector<ValueId> values;  // pushed, in order: the block's arguments, then its ops' results
    };
    // build_pipe_for_block: a stack made at the program's start, and a cf.tuple_push of
    // every argument and op result of `body` at its end (the caller appends the cf.yield).
    Pipe buildPipe(BlockId body) {
        const BlockId saved = block_;
        block_ = Program::kGlobalBlock;
        auto handles = plain("cf.stack_create", {}, {opaque("cf.stack"), opaque("cf.inlet"), opaque("cf.outlet")});
        stackOps_.push_back(p_.value(handles[0]).definingOp);
        Pipe pipe{handles[0], handles[1], handles[2], {}};
        const Block& blk = p_.block(body);
        pipe.values.assign(blk.args.begin(), blk.args.end());
        for (OpId op : blk.ops)
            for (ValueId r : p_.op(op).results) pipe.values.push_back(r);
        block_ = body;
        std::vector<ValueId> pushed{pipe.inlet};
        pushed.insert(pushed.end(), pipe.values.begin(), pipe.values.end());
        plain("cf.tuple_push", pushed, {});
        block_ = saved;
        return pipe;
    }
    // In the grad block: pops the forward block's values; returns forward value -> popped copy.
    std::unordered_map<ValueId, ValueId> popPipe(const Pipe& pipe) {
        std::vector<TypeId> types;
        for (ValueId v : pipe.values) types.push_back(p_.value(v).type);
        auto popped = plain("cf.tuple_pop", {pipe.outlet}, types);
        std::unordered_map<ValueId, ValueId> copy;
        for (size_t i = 0; i < popped.size(); ++i) copy[pipe.values[i]] = popped[i];
        return copy;
    }
    // The grad ops emitted in `block` from op index `first` read the popped copies.
    void readCopies(BlockId block, size_t first, const std::unordered_map<ValueId, ValueId>& copy) {
        const std::vector<OpId> ops = p_.block(block).ops;
        for (size_t i = first; i < ops.size(); ++i) {
            const std::vector<ValueId> operands(p_.op(ops[i]).operands.begin(), p_.op(ops[i]).operands.end());
            for (size_t k = 0; k < operands.size(); ++k)
                if (auto it = copy.find(operands[k]); it != copy.end()) p_.setOperand(ops[i], uint32_t(k), it->second);
        }
    }
    // Values the block's ops read that it does not define (get_used_external_value), in order.
    std::vector<ValueId> usedExternal(BlockId block) const {
        std::unordered_map<ValueId, bool> local;
        for (ValueId a : p_.block(block).args) local[a] = true;
        std::vector<ValueId> used;
        for (OpId op : p_.block(block).ops) {
            for (ValueId v : p_.op(op).operands)
                if (v != kNoId && !local.count(v)) { local[v] = true; used.push_back(v); }
            for (ValueId r : p_.op(op).results) local[r] = true;
        }
        return used;
    }
    ValueId fullLike(ValueId x, double value) {
        ValueId v = full({1}, value, DType::Float32);
        return op1("pd_op.full_like", {x, v}, p_.value(x).type,
                   {{"dtype", Attribute::dataType(std::string(dtypeLongName(dtypeOf(x))))}, {"place", Attribute::place(placeText())}}, true);
    }
    std::vector<TapeEntry> takeTape(size_t from) {
        std::vector<TapeEntry> sub(std::make_move_iterator(tape_.begin() + long(from)), std::make_move_iterator(tape_.end()));
        tape_.resize(from);
        return sub;
    }
    void setStopGradient(OpId op, const std::vector<ValueId>& results) {
        std::vector<Attribute> sg;
        for (ValueId r : results) sg.push_back(Attribute::boolean(!needs(r)));
        p_.setOpAttribute(op, "stop_gradient", Attribute::array(std::move(sg)));
    }

    using BranchFn = std::function<std::vector<ValueId>()>;
    // pd_op.if (cond) {then} else {else}: each branch returns the values it yields (`types`).
    std::vector<ValueId> ifOp(ValueId cond, const std::vector<TypeId>& types, const BranchFn& thenBranch, const BranchFn& elseBranch) {
        auto res = plain("pd_op.if", {cond}, types);
        const OpId ifId = p_.value(res[0]).definingOp;
        p_.setOpSyntax(ifId, OpSyntax::kArrowOnlySignature);
        struct Branch { BlockId block; std::vector<ValueId> yielded; std::vector<TapeEntry> tape; Pipe pipe; };
        auto branches = std::make_shared<std::vector<Branch>>();
        const BlockId saved = block_;
        for (const BranchFn* fn : {&thenBranch, &elseBranch}) {
            Branch br;
            br.block = p_.addBlock(ifId);
            p_.addRegion(ifId, {br.block});
            block_ = br.block;
            const size_t tapeStart = tape_.size();
            br.yielded = (*fn)();
            br.tape = takeTape(tapeStart);
            branches->push_back(std::move(br));
            block_ = saved;
        }
        // The if's inputs for the gradient: the values its branches read from outside.
        std::vector<ValueId> withGrad;
        for (const Branch& br : *branches)
            for (ValueId v : usedExternal(br.block))
                if (needs(v) && std::find(withGrad.begin(), withGrad.end(), v) == withGrad.end()) withGrad.push_back(v);
        const bool grad = !withGrad.empty();
        for (Branch& br : *branches) {
            block_ = br.block;
            if (grad) br.pipe = buildPipe(br.block);
            plain("cf.yield", br.yielded, {});
            block_ = saved;
        }
        for (size_t i = 0; i < res.size(); ++i) {
            bool any = false;
            for (const Branch& br : *branches) any = any || needs(br.yielded[i]);
            needsGrad_[res[i]] = any;
        }
        setStopGradient(ifId, res);
        if (!grad) return res;
        record(res, [this, cond, res, branches, withGrad](const std::vector<ValueId>& gs) {
            std::vector<TypeId> gradTypes;
            for (ValueId v : withGrad) gradTypes.push_back(p_.value(v).type);
            auto gres = plain("pd_op.if", {cond}, gradTypes);
            const OpId gradIf = p_.value(gres[0]).definingOp;
            p_.setOpSyntax(gradIf, OpSyntax::kArrowOnlySignature);
            for (ValueId r : gres) needsGrad_[r] = true;
            setStopGradient(gradIf, gres);
            const BlockId outer = block_;
            for (Branch& br : *branches) {
                const BlockId gb = p_.addBlock(gradIf);
                p_.addRegion(gradIf, {gb});
                block_ = gb;
                auto copy = popPipe(br.pipe);
                const size_t first = p_.block(gb).ops.size();
                auto outerGrads = std::move(grad_);
                grad_.clear();
                for (size_t i = 0; i < res.size(); ++i)
                    if (gs[i] != kNoId && needs(br.yielded[i])) accumulate(br.yielded[i], gs[i]);
                runTape(br.tape);
                std::vector<ValueId> yielded;
                for (ValueId v : withGrad) yielded.push_back(gradOf(v) != kNoId ? gradOf(v) : fullLike(v, 0.0));
                plain("cf.yield", yielded, {});
                readCopies(gb, first, copy);
                grad_ = std::move(outerGrads);
                block_ = outer;
            }
            for (size_t i = 0; i < withGrad.size(); ++i) accumulate(withGrad[i], gres[i]);
        });
        return res;
    }

    using BodyFn = std::function<std::vector<ValueId>(const std::vector<ValueId>& args)>;
    // pd_op.while (cond, carried...) {^args ... cf.yield (cond', carried'...)}: the body
    // returns the next condition and the next carried values.
    std::vector<ValueId> whileOp(ValueId cond, const std::vector<ValueId>& carried, const BodyFn& body) {
        std::vector<ValueId> operands{cond};
        std::vector<TypeId> types;
        for (ValueId v : carried) { operands.push_back(v); types.push_back(p_.value(v).type); }
        auto res = plain("pd_op.while", operands, types);
        const OpId whileId = p_.value(res[0]).definingOp;
        markWhile(whileId, operands.size());
        const BlockId b = p_.addBlock(whileId);
        p_.addRegion(whileId, {b});
        std::vector<ValueId> args;
        for (ValueId v : carried) {
            args.push_back(p_.addBlockArgument(b, p_.value(v).type, ""));
            growNeeds();
            needsGrad_[args.back()] = needs(v);
        }
        p_.setBlockArgsPrinted(b, true);  // "^%arg_0, %arg_1", no types: Paddle's printer
        const BlockId saved = block_;
        block_ = b;
        const size_t tapeStart = tape_.size();
        std::vector<ValueId> yielded = body(args);
        auto tape = std::make_shared<std::vector<TapeEntry>>(takeTape(tapeStart));
        std::vector<ValueId> withGrad;  // outside values the body reads that need a gradient
        for (ValueId v : usedExternal(b)) if (needs(v)) withGrad.push_back(v);
        std::vector<size_t> carriedWithGrad;
        for (size_t i = 0; i < carried.size(); ++i) if (needs(carried[i])) carriedWithGrad.push_back(i);
        const bool grad = !withGrad.empty() || !carriedWithGrad.empty();
        Pipe pipe;
        if (grad) pipe = buildPipe(b);
        plain("cf.yield", yielded, {});
        block_ = saved;
        for (size_t i = 0; i < res.size(); ++i) needsGrad_[res[i]] = needs(carried[i]);
        if (!grad) return res;
        record(res, [this, res, args, yielded, tape, pipe, withGrad, carriedWithGrad, carried](const std::vector<ValueId>& gs) {
            // Loop variables of the grad loop: the results' grads, then the outside values'
            // running sums (from zero).
            ValueId hasElements = op1("pd_op.has_elements", {pipe.stack}, t({1}, DType::Bool), {}, false);
            std::vector<ValueId> gradOperands{hasElements};
            std::vector<TypeId> gradTypes;
            for (size_t i : carriedWithGrad) gradOperands.push_back(gs[i] != kNoId ? gs[i] : fullLike(res[i], 0.0));
            for (ValueId v : withGrad) gradOperands.push_back(fullLike(v, 0.0));
            for (size_t k = 1; k < gradOperands.size(); ++k) gradTypes.push_back(p_.value(gradOperands[k]).type);
            auto gres = plain("pd_op.while", gradOperands, gradTypes);
            const OpId gradWhile = p_.value(gres[0]).definingOp;
            markWhile(gradWhile, gradOperands.size());
            for (ValueId r : gres) needsGrad_[r] = true;
            const BlockId gb = p_.addBlock(gradWhile);
            p_.addRegion(gradWhile, {gb});
            std::vector<ValueId> gradArgs;
            for (TypeId ty : gradTypes) gradArgs.push_back(p_.addBlockArgument(gb, ty, ""));
            growNeeds();
            p_.setBlockArgsPrinted(gb, true);
            const BlockId outer = block_;
            block_ = gb;
            auto copy = popPipe(pipe);
            const size_t first = p_.block(gb).ops.size();
            auto outerGrads = std::move(grad_);
            grad_.clear();
            for (size_t k = 0; k < carriedWithGrad.size(); ++k) accumulate(yielded[carriedWithGrad[k] + 1], gradArgs[k]);
            for (size_t k = 0; k < withGrad.size(); ++k) grad_[withGrad[k]] = gradArgs[carriedWithGrad.size() + k];
            runTape(*tape);
            std::vector<ValueId> next{op1("pd_op.has_elements", {pipe.stack}, t({1}, DType::Bool), {}, false)};
            for (size_t i : carriedWithGrad) next.push_back(gradOf(args[i]) != kNoId ? gradOf(args[i]) : fullLike(args[i], 0.0));
            for (ValueId v : withGrad) next.push_back(gradOf(v));
            plain("cf.yield", next, {});
            readCopies(gb, first, copy);
            grad_ = std::move(outerGrads);
            block_ = outer;
            for (size_t k = 0; k < carriedWithGrad.size(); ++k) accumulate(carried[carriedWithGrad[k]], gres[k]);
            for (size_t k = 0; k < withGrad.size(); ++k) accumulate(withGrad[k], gres[carriedWithGrad.size() + k]);
        });
        return res;
    }
    // Paddle prints a while as `"pd_op.while"(cond=%c, inputs=%a, %b) {`: no attributes, no types.
    void markWhile(OpId op, size_t operands) {
        std::vector<std::string> keywords(operands);
        keywords[0] = "cond";
        if (operands > 1) keywords[1] = "inputs";
        p_.setOperandKeywords(op, std::move(keywords));
        p_.setOpSyntax(op, OpSyntax::kNoSpaceBeforeOperands | OpSyntax::kNoAttributeDict | OpSyntax::kNoSignature);
    }

    // ---------- backward ----------
    void backward(ValueId loss, ValueId seed) {
        grad_[loss] = seed;
        runTape(tape_);
    }
    // Emits the VJPs of `tape` in reverse, reading and accumulating grad_.
    void runTape(std::vector<TapeEntry>& tape) {
        for (size_t i = tape.size(); i-- > 0;) {
            TapeEntry& e = tape[i];
            std::vector<ValueId> gs;
            bool any = false;
            for (ValueId o : e.outputs) {
                auto it = grad_.find(o);
                gs.push_back(it == grad_.end() ? kNoId : it->second);
                any = any || it != grad_.end();
            }
            if (!any) continue;
            if (e.outputs.size() == 1 && gs[0] == kNoId) continue;
            e.vjp(gs);
            e.vjp = nullptr;  // free captured state as we go
        }
    }
    ValueId gradOf(ValueId v) const {
        auto it = grad_.find(v);
        return it == grad_.end() ? kNoId : it->second;
    }
};

struct Params {
    Builder& b;
    std::vector<ValueId> list;
    int linear = 0, norm = 0, conv = 0, bn = 0;
    ValueId add(const std::string& name, const Dims& d) { ValueId v = b.parameter(name, d); list.push_back(v); return v; }
    ValueId frozen(const std::string& name, const Dims& d) { return b.parameter(name, d, false); }
    ValueId linear2d(ValueId x, int64_t out, bool bias) {
        int64_t in = b.dims(x).back();
        std::string base = "linear_" + std::to_string(linear++);
        ValueId w = add(base + ".w_0", {in, out});
        ValueId y = b.matmul(x, w);
        if (bias) y = b.add(y, add(base + ".b_0", {out}));
        return y;
    }
    std::pair<ValueId, ValueId> lnParams(int64_t h) {
        std::string base = "layer_norm_" + std::to_string(norm++);
        return {add(base + ".w_0", {h}), add(base + ".b_0", {h})};
    }
    ValueId rmsParam(int64_t h) { return add("rms_norm_" + std::to_string(norm++) + ".w_0", {h}); }
};

void checkOptions(const ZooOptions& o) {
    if (o.layers < 1) throw Error("--layers must be at least 1");
    if (o.hidden < 1 || o.batch < 1 || o.seq < 1 || o.heads < 1) throw Error("sizes must be positive");
    if ((o.model == "transformer" || o.model == "llama") && o.hidden % o.heads)
        throw Error("--hidden " + std::to_string(o.hidden) + " is not a multiple of --heads " + std::to_string(o.heads));
    if (o.model == "llama" && (o.hidden / o.heads) % 2) throw Error("llama needs an even head size for the rotary embedding");
    if (o.model == "conv" && (o.seq < 2 || o.seq % 2)) throw Error("conv needs an even image size (--seq) of at least 2");
    if (o.dtype != DType::Float32 && o.dtype != DType::Float16 && o.dtype != DType::BFloat16 && o.dtype != DType::Float64)
        throw Error("--dtype must be f32, f16, bf16 or f64");
    if (o.dropout < 0 || o.dropout >= 1) throw Error("--dropout must be in [0, 1)");
    if (o.loopSteps < 0) throw Error("--loop-steps must be at least 0");
}

// Multi-head attention on x [B*S, H]; `causal` adds the llama mask, `rope` = (cos, sin) [S, D].
ValueId attention(Builder& b, Params& P, const ZooOptions& o, ValueId x, bool bias, ValueId ropeCos, ValueId ropeSin,
                  ValueId causalMask) {
    int64_t B = o.batch, S = o.seq, H = o.hidden, A = o.heads, D = H / A;
    auto heads = [&](ValueId v) { return b.transpose(b.reshape(v, {B, S, A, D}), {0, 2, 1, 3}); };
    ValueId q = heads(P.linear2d(x, H, bias));
    ValueId k = heads(P.linear2d(x, H, bias));
    ValueId v = heads(P.linear2d(x, H, bias));
    if (ropeCos != kNoId) {
        auto rope = [&](ValueId t) {  // t*cos + rotate_half(t)*sin
            auto halves = b.split(t, {D / 2, D / 2}, 3);
            ValueId rot = b.concat({b.scale(halves[1], -1.0, 0.0), halves[0]}, 3);
            return b.add(b.mul(t, ropeCos), b.mul(rot, ropeSin));
        };
        q = rope(q);
        k = rope(k);
    }
    ValueId scores = b.scale(b.matmul(q, k, false, true), 1.0 / std::sqrt(static_cast<double>(D)), 0.0);
    if (causalMask != kNoId) {
        double neg = o.dtype == DType::Float32 || o.dtype == DType::Float64 ? -1e9 : -1e4;
        scores = b.where(causalMask, b.full({}, neg), scores);
    }
    ValueId probs = b.dropout(b.softmax(scores), o.model == "llama" ? 0.0 : o.dropout);
    ValueId ctx = b.matmul(probs, v);
    ValueId merged = b.reshape(b.transpose(ctx, {0, 2, 1, 3}), {B * S, H});
    return P.linear2d(merged, H, bias);
}

// --control-flow: on the hidden state h [R, H] before the loss head, a data-dependent gate
// (pd_op.if: relu(h @ W) when sum(h) > 0, else h / 2) and a recurrent refinement
// (pd_op.while: `steps` times h = h + tanh(h @ Wr) / 2), each with its backward as Paddle
// builds it (Builder::ifOp, Builder::whileOp).
ValueId controlFlowTail(Builder& b, Params& P, const ZooOptions& o, ValueId h) {
    const int64_t H = b.dims(h).back();
    const DType dt = b.dtypeOf(h);
    ValueId gateW = P.add("gate_0.w_0", {H, H});
    ValueId total = b.rawSum(h, {0, 1}, false, false);
    ValueId zero = b.full({1}, 0.0, dt);
    ValueId positive = b.op1("pd_op.greater_than", {total, zero}, b.t({1}, DType::Bool), {}, false);
    ValueId gated = b.ifOp(positive, {b.p_.value(h).type},
                           [&] { return std::vector<ValueId>{b.relu(b.matmul(h, gateW))}; },
                           [&] { return std::vector<ValueId>{b.scale(h, 0.5, 0.0)}; })[0];
    ValueId cellW = P.add("rnn_cell_0.w_0", {H, H});
    ValueId step = b.full({1}, 0.0, DType::Int64);
    ValueId steps = b.full({1}, static_cast<double>(o.loopSteps), DType::Int64);
    ValueId one = b.full({1}, 1.0, DType::Int64);
    ValueId more = b.op1("pd_op.less_than", {step, steps}, b.t({1}, DType::Bool), {}, false);
    auto loop = b.whileOp(more, {step, gated}, [&](const std::vector<ValueId>& args) {
        ValueId next = b.rawBinary("pd_op.add", args[0], one, false);
        ValueId refined = b.add(args[1], b.scale(b.unary("pd_op.tanh", b.matmul(args[1], cellW)), 0.5, 0.0));
        ValueId again = b.op1("pd_op.less_than", {next, steps}, b.t({1}, DType::Bool), {}, false);
        return std::vector<ValueId>{again, next, refined};
    });
    return loop[1];
}

ValueId buildMlp(Builder& b, Params& P, const ZooOptions& o) {
    int64_t F = o.ffn ? o.ffn : 4 * o.hidden;
    ValueId x = b.data("x", {o.batch, o.hidden}, o.dtype);
    ValueId h = x;
    for (int l = 0; l < o.layers; ++l) {
        ValueId f = P.linear2d(b.gelu(P.linear2d(h, F, true)), o.hidden, true);
        f = b.dropout(f, o.dropout);
        auto [w, bias] = P.lnParams(o.hidden);
        h = b.layerNorm(l == 0 ? f : b.add(h, f), w, bias);
    }
    if (o.controlFlow) h = controlFlowTail(b, P, o, h);
    return b.mean(h, {0, 1}, false);
}

ValueId buildTransformer(Builder& b, Params& P, const ZooOptions& o) {
    int64_t B = o.batch, S = o.seq, H = o.hidden, F = o.ffn ? o.ffn : 4 * H;
    ValueId x = b.data("x", {B, S, H}, o.dtype);
    ValueId h = b.reshape(x, {B * S, H});
    for (int l = 0; l < o.layers; ++l) {
        auto [w1, b1] = P.lnParams(H);
        ValueId a = attention(b, P, o, b.layerNorm(h, w1, b1), true, kNoId, kNoId, kNoId);
        h = b.add(h, b.dropout(a, o.dropout));
        auto [w2, b2] = P.lnParams(H);
        ValueId f = P.linear2d(b.gelu(P.linear2d(b.layerNorm(h, w2, b2), F, true)), H, true);
        h = b.add(h, b.dropout(f, o.dropout));
    }
    if (o.controlFlow) h = controlFlowTail(b, P, o, h);
    auto [wf, bf] = P.lnParams(H);
    return b.mean(b.layerNorm(h, wf, bf), {0, 1}, false);
}

ValueId buildLlama(Builder& b, Params& P, const ZooOptions& o) {
    int64_t B = o.batch, S = o.seq, H = o.hidden, D = H / o.heads;
    int64_t F = o.ffn ? o.ffn : ((8 * H / 3 + 7) / 8) * 8;
    ValueId x = b.data("x", {B, S, H}, o.dtype);
    ValueId h = b.reshape(x, {B * S, H});
    // Rotary tables: freqs[s, j] = s * 10000^(-2j/D), emb = concat(freqs, freqs); cos, sin.
    auto arange = [&](int64_t n, DType dt) {
        ValueId s = b.full({1}, 0.0, dt), e = b.full({1}, static_cast<double>(n), dt), st = b.full({1}, 1.0, dt);
        return b.op1("pd_op.arange", {s, e, st}, b.t({n}, dt), {{"dtype", Attribute::dataType(std::string(dtypeLongName(dt)))},
                                                                 {"place", Attribute::place("Place(cpu)")}}, false);
    };
    ValueId pos = b.rawReshape(arange(S, DType::Float32), {S, 1}, false);
    ValueId j = b.rawReshape(arange(D / 2, DType::Float32), {1, D / 2}, false);
    ValueId invFreq = b.rawUnary("pd_op.exp", b.rawScale(j, -2.0 * std::log(10000.0) / static_cast<double>(D), 0.0, false), false);
    ValueId freqs = b.rawBinary("pd_op.multiply", pos, invFreq, false);
    ValueId emb = b.rawConcat({freqs, freqs}, 1, false);
    ValueId cosT = b.rawReshape(b.rawCast(b.rawUnary("pd_op.cos", emb, false), o.dtype, false), {1, 1, S, D}, false);
    ValueId sinT = b.rawReshape(b.rawCast(b.rawUnary("pd_op.sin", emb, false), o.dtype, false), {1, 1, S, D}, false);
    // Causal mask: key position j > query position i is masked.
    ValueId ai = b.rawReshape(arange(S, DType::Int64), {S, 1}, false);
    ValueId aj = b.rawReshape(arange(S, DType::Int64), {1, S}, false);
    ValueId mask = b.op1("pd_op.greater_than", {aj, ai}, b.t({S, S}, DType::Bool), {}, false);
    for (int l = 0; l < o.layers; ++l) {
        ValueId a = attention(b, P, o, b.rmsNorm(h, P.rmsParam(H)), false, cosT, sinT, mask);
        h = b.add(h, a);
        ValueId n = b.rmsNorm(h, P.rmsParam(H));
        ValueId gate = b.silu(P.linear2d(n, F, false));
        ValueId up = P.linear2d(n, F, false);
        h = b.add(h, P.linear2d(b.mul(gate, up), H, false));
    }
    if (o.controlFlow) h = controlFlowTail(b, P, o, h);
    return b.mean(b.rmsNorm(h, P.rmsParam(H)), {0, 1}, false);
}

ValueId buildConv(Builder& b, Params& P, const ZooOptions& o) {
    int64_t C = o.hidden, N = o.batch, HW = o.seq;
    ValueId x = b.data("x", {N, 3, HW, HW}, o.dtype);
    auto convW = [&](int64_t cin, int64_t cout) { return P.add("conv2d_" + std::to_string(P.conv++) + ".w_0", {cout, cin, 3, 3}); };
    auto bn = [&](ValueId v) {
        std::string base = "batch_norm_" + std::to_string(P.bn++);
        ValueId w = P.add(base + ".w_0", {C}), bias = P.add(base + ".b_0", {C});
        ValueId mean = P.frozen(base + ".w_1", {C}), var = P.frozen(base + ".w_2", {C});
        return b.batchNorm(v, mean, var, w, bias);
    };
    ValueId h = b.relu(bn(b.conv2d(x, convW(3, C), 1, 1)));
    h = b.maxPool2x2(h);
    for (int l = 0; l < o.layers; ++l) {
        ValueId y = b.relu(bn(b.conv2d(h, convW(C, C), 1, 1)));
        h = b.add(h, y);
    }
    ValueId pooled = b.mean(h, {2, 3}, false);  // [N, C]
    if (o.controlFlow) pooled = controlFlowTail(b, P, o, pooled);
    ValueId logits = P.linear2d(pooled, 10, true);
    return b.mean(logits, {0, 1}, false);
}

// A stacked recurrent network unrolled over --seq time steps, as Paddle's nn.LSTM / nn.GRU
// run their cells (python/paddle/nn/layer/rnn.py): the batch-major input made time-major,
// each layer's RNN stepping its cell over the whole sequence before the next layer starts,
// dropout between layers, zero initial states. Every forward op of layer l carries the
// struct_name "/LSTM/RNN_l/LSTMCell_l/", so the layer overview shows one row per stacked
// layer (its own weights, facing its own backward) however long the sequence. The loss
// head: the last layer's outputs, concatenated, through a linear layer and a mean.
ValueId buildRecurrent(Builder& b, Params& P, const ZooOptions& o) {
    const bool lstm = o.model == "lstm";
    const int64_t B = o.batch, T = o.seq, H = o.hidden, gates = lstm ? 4 : 3;
    const std::string network = lstm ? "LSTM" : "GRU", cellClass = lstm ? "LSTMCell" : "GRUCell";
    const std::string cellName = lstm ? "lstm_cell_" : "gru_cell_";
    ValueId x = b.data("x", {B, T, H}, o.dtype);
    std::vector<ValueId> inputs;  // the current layer's input per time step, [B, H]
    for (int l = 0; l < o.layers; ++l) {
        const std::string lt = std::to_string(l);
        b.scope_ = "/" + network + "/RNN_" + lt + "/" + cellClass + "_" + lt + "/";
        // LSTMCell / GRUCell: weight_ih [G*H, I], weight_hh [G*H, H], bias_ih, bias_hh [G*H].
        const std::string base = cellName + lt;
        ValueId wIh = P.add(base + ".w_0", {gates * H, H});
        ValueId wHh = P.add(base + ".w_1", {gates * H, H});
        ValueId bIh = P.add(base + ".b_0", {gates * H});
        ValueId bHh = P.add(base + ".b_1", {gates * H});
        if (l == 0) {
            ValueId timeMajor = b.rawTranspose(x, {1, 0, 2}, false);
            for (int64_t t = 0; t < T; ++t) inputs.push_back(b.rawSliceAt(timeMajor, 0, t));
        } else {
            for (ValueId& in : inputs) in = b.dropout(in, o.dropout);
        }
        ValueId h = b.full({B, H}, 0.0);  // the zero initial states
        ValueId c = lstm ? b.full({B, H}, 0.0) : kNoId;
        const Dims gateSizes(size_t(gates), H);
        for (int64_t t = 0; t < T; ++t) {
            ValueId xt = inputs[size_t(t)];
            // One statement per op where an expression would leave their order to the compiler.
            if (lstm) {
                ValueId g = b.add(b.matmul(xt, wIh, false, true), bIh);
                g = b.add(g, b.matmul(h, wHh, false, true));
                g = b.add(g, bHh);
                auto parts = b.split(g, gateSizes, 1);  // i, f, g, o
                ValueId i = b.unary("pd_op.sigmoid", parts[0]), f = b.unary("pd_op.sigmoid", parts[1]);
                ValueId out = b.unary("pd_op.sigmoid", parts[3]);
                ValueId kept = b.mul(f, c);
                ValueId candidate = b.unary("pd_op.tanh", parts[2]);
                c = b.add(kept, b.mul(i, candidate));
                h = b.mul(out, b.unary("pd_op.tanh", c));
            } else {
                ValueId xg = b.add(b.matmul(xt, wIh, false, true), bIh);
                ValueId hg = b.add(b.matmul(h, wHh, false, true), bHh);
                auto xs = b.split(xg, gateSizes, 1);  // r, z, c
                auto hs = b.split(hg, gateSizes, 1);
                ValueId r = b.unary("pd_op.sigmoid", b.add(xs[0], hs[0]));
                ValueId z = b.unary("pd_op.sigmoid", b.add(xs[1], hs[1]));
                ValueId n = b.unary("pd_op.tanh", b.add(xs[2], b.mul(r, hs[2])));
                h = b.add(b.mul(b.sub(h, n), z), n);  // (h - n) * z + n = (1 - z) * n + z * h
            }
            inputs[size_t(t)] = h;
        }
    }
    b.scope_.clear();
    ValueId outputs = b.concat(inputs, 0);  // [T*B, H]
    if (o.controlFlow) outputs = controlFlowTail(b, P, o, outputs);
    return b.mean(P.linear2d(outputs, H, true), {0, 1}, false);
}

}  // namespace

std::vector<std::string> zooModels() { return {"mlp", "transformer", "llama", "conv", "lstm", "gru"}; }

GeneratedProgram generateModel(const ZooOptions& o) {
    checkOptions(o);
    GeneratedProgram out;
    out.program = std::make_shared<Program>();
    Program& p = *out.program;
    p.setGeneration(o.generation);
    Builder b(p, o.dtype, o.composite);
    Params P{b, {}};
    ValueId loss;
    if (o.model == "mlp") loss = buildMlp(b, P, o);
    else if (o.model == "transformer") loss = buildTransformer(b, P, o);
    else if (o.model == "llama") loss = buildLlama(b, P, o);
    else if (o.model == "conv") loss = buildConv(b, P, o);
    else if (o.model == "lstm" || o.model == "gru") loss = buildRecurrent(b, P, o);
    else throw Error("unknown model '" + o.model + "' (mlp, transformer, llama, conv, lstm, gru)");

    ValueId seed = b.full(b.dims(loss), 1.0, o.dtype);  // the gradient seed, as Paddle adds it
    OpId seedOp = p.value(seed).definingOp;
    b.backward(loss, seed);

    out.loss = loss;
    out.parameters = P.list;
    // Fetch the loss and every parameter gradient.
    int col = 0;
    auto fetch = [&](ValueId v) {
        std::string name = "fetch" + std::to_string(col);
        b.op1("pd_op.fetch", {v}, p.value(v).type,
              {{"col", Attribute::int32(col)}, {"is_persistable", boolArray(1, true)}, {"name", Attribute::string(name)}}, false);
        ++col;
    };
    fetch(loss);
    for (ValueId prm : P.list) {
        ValueId gr = b.gradOf(prm);
        if (gr == kNoId) throw Error("internal: parameter " + p.value(prm).name + " got no gradient");
        out.parameterGrads.push_back(gr);
        fetch(gr);
    }
    const Block& g = p.globalBlock();  // taken here: building regions adds blocks (and moves them)
    // Paddle's programs declare every parameter first; the builder made each where it was
    // first used. Hoist them (order kept), after the cf stacks (build_pipe_for_block puts
    // each at the program's start, so the last made comes first).
    std::vector<OpId> order;
    order.reserve(g.ops.size());
    order.assign(b.stackOps_.rbegin(), b.stackOps_.rend());
    auto isStack = [&](OpId op) { return std::find(b.stackOps_.begin(), b.stackOps_.end(), op) != b.stackOps_.end(); };
    for (OpId op : g.ops) if (p.opName(op) == "builtin.parameter") order.push_back(op);
    for (OpId op : g.ops) if (p.opName(op) != "builtin.parameter" && !isStack(op)) order.push_back(op);
    p.setBlockOps(Program::kGlobalBlock, std::move(order));
    // Name values as Paddle's printer meets them: %0, %1, ... with an op's results before
    // its regions' contents, block arguments %arg_0, %arg_1, ...
    int64_t next = 0, nextArg = 0;
    std::function<void(BlockId)> nameBlock = [&](BlockId blk) {
        for (ValueId a : p.block(blk).args) p.setValueName(a, "%arg_" + std::to_string(nextArg++));
        for (OpId op : p.block(blk).ops) {
            for (ValueId r : p.op(op).results) p.setValueName(r, "%" + std::to_string(next++));
            for (const auto& region : p.op(op).regions)
                for (BlockId inner : region) nameBlock(inner);
        }
    };
    nameBlock(Program::kGlobalBlock);
    if (next > 0) p.noteValueName("%" + std::to_string(next - 1));
    p.finish();
    out.spec.fwdOpEndIdx = static_cast<int>(p.indexInBlock(p.value(loss).definingOp));
    out.spec.backwardOpStartIdx = static_cast<int>(p.indexInBlock(seedOp)) + 1;
    for (OpId op : g.ops) {
        std::string_view n = p.opName(op);
        if (n == "pd_op.data" || n == "builtin.parameter") out.spec.inputs.push_back(p.op(op).results[0]);
    }
    out.spec.outputs = {loss};
    out.spec.gradOutputs = {seed};
    return out;
}

std::string specJson(const GeneratedProgram& g) { return specToJson(g.spec, *g.program); }

}  // namespace rx::zoo
