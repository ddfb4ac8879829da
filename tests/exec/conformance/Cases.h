#pragma once
// The conformance suite's case types (value, gradient, invalid) and the builder every case
// uses to make its one-op program; the family tables (tests/exec/conformance/*Cases.h) fill them.
#include <cmath>
#include <complex>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "exec/Executor.h"
#include "exec/OpSemantics.h"
#include "model/Diagnostic.h"
#include "model/PirReader.h"
#include "model/Program.h"

namespace rx::conformance {

using exec::Tensor;
using Dims = std::vector<int64_t>;
inline constexpr DType F = DType::Float64, I64 = DType::Int64, I32 = DType::Int32, B = DType::Bool;

// Builds one case's program; inputs are pd_op.data ops fed with explicit values.
struct CaseBuilder {
    Program p;
    exec::RunInputs inputs;
    // Inputs declared with dynamic dims (-1, rank kept) and fed the same values: the check
    // pass then knows no operand shape of the op under test, and its kernel works the shapes
    // out from what it is given (the twin run of an InvalidCase with `kernelTwin`).
    bool dynamicInputs = false;

    TypeId inputType(DType t, const Dims& dims) { return p.tensorType(t, dynamicInputs ? Dims(dims.size(), -1) : dims); }
    ValueId input(const std::string& name, DType t, Dims dims, std::vector<double> values) {
        OpId op = p.appendOp(0, "pd_op.data", {}, std::vector<TypeId>{inputType(t, dims)}, {{"name", Attribute::string(name)}});
        inputs.byName[name] = Tensor::fromDoubles(t, dims, values);
        return p.op(op).results[0];
    }
    // An input of any tensor (complex ones), fed as it is.
    ValueId tensor(const std::string& name, Tensor t) {
        OpId op = p.appendOp(0, "pd_op.data", {}, std::vector<TypeId>{inputType(t.dtype, t.dims)}, {{"name", Attribute::string(name)}});
        inputs.byName[name] = std::move(t);
        return p.op(op).results[0];
    }
    ValueId f64(const std::string& name, Dims dims, std::vector<double> values) { return input(name, DType::Float64, std::move(dims), std::move(values)); }
    ValueId i64(const std::string& name, Dims dims, std::vector<double> values) { return input(name, DType::Int64, std::move(dims), std::move(values)); }
    std::vector<ValueId> ops(const std::string& name, std::vector<ValueId> operands, std::vector<std::pair<DType, Dims>> results,
                             std::vector<NamedAttribute> attrs = {}) {
        std::vector<TypeId> types;
        for (const auto& [t, d] : results) types.push_back(p.tensorType(t, d));
        const auto& r = p.op(p.appendOp(0, name, operands, types, std::move(attrs))).results;
        return {r.begin(), r.end()};
    }
    ValueId op(const std::string& name, std::vector<ValueId> operands, DType t, Dims dims, std::vector<NamedAttribute> attrs = {}) {
        return ops(name, std::move(operands), {{t, std::move(dims)}}, std::move(attrs))[0];
    }
    ValueId ints(Dims v) {
        return op("pd_op.full_int_array", {}, DType::Int64, {static_cast<int64_t>(v.size())}, {{"value", Attribute::intArray(v)}});
    }
    ValueId combine(std::vector<ValueId> parts) {
        std::vector<TypeId> elems;
        for (ValueId v : parts) elems.push_back(p.value(v).type);
        OpId op = p.appendOp(0, "builtin.combine", parts, std::vector<TypeId>{p.internType(Type::vector(elems))}, {});
        return p.op(op).results[0];
    }
    // An op with one vector result of `parts` tensors, unpacked by builtin.split.
    std::vector<ValueId> vectorOp(const std::string& name, std::vector<ValueId> operands, std::vector<std::pair<DType, Dims>> parts,
                                  std::vector<NamedAttribute> attrs = {}) {
        std::vector<TypeId> elems;
        for (const auto& [t, d] : parts) elems.push_back(p.tensorType(t, d));
        OpId op = p.appendOp(0, name, operands, std::vector<TypeId>{p.internType(Type::vector(elems))}, std::move(attrs));
        return ops("builtin.split", {p.op(op).results[0]}, parts);
    }
    void fetch(ValueId v) {
        p.appendOp(0, "pd_op.fetch", std::vector<ValueId>{v}, std::vector<TypeId>{p.value(v).type},
                   {{"name", Attribute::string(p.value(v).name)}});
    }
    void fetchAll(const std::vector<ValueId>& vs) { for (ValueId v : vs) fetch(v); }
};

struct Expected {
    Dims dims;
    std::vector<double> values;  // empty: only the dims are compared (a `check` judges the values)
};

// A value case: the op under test, how to build it, the fetches it must produce. `check`, when
// set, judges the fetched tensors itself (random ops: properties, not values; complex results)
// and returns "" when they hold.
struct ValueCase {
    std::string op;
    std::function<void(CaseBuilder&)> build;
    std::vector<Expected> expected;
    double tol = 1e-12;  // absolute, per element (f64 everywhere but where noted)
    std::function<std::string(const std::vector<Tensor>&)> check = {};
};

// A gradient case: L(x) = sum(forward(x)[0] * G) for a fixed G; the grad op fed with G must
// return dL/dx for every differentiable input, within `tol` of central differences.
struct GradInput {
    std::string name;
    Dims dims;
    std::vector<double> values = {};  // empty: gradInputValues' formula
    DType dtype = DType::Float64;
    bool differentiable = true;  // false: indices, labels, masks (held fixed)
};
struct GradCase {
    std::string forward, grad;
    std::vector<GradInput> inputs;
    // Builds the forward op from the inputs; its results, the first the one L reads.
    std::function<std::vector<ValueId>(CaseBuilder&, const std::vector<ValueId>&)> forwardOp;
    // Builds the grad op from the inputs, the forward's results and out_grad `g`; one value
    // per differentiable input, in order.
    std::function<std::vector<ValueId>(CaseBuilder&, const std::vector<ValueId>& xs, const std::vector<ValueId>& outs, ValueId g)> gradOp;
    double tol = 1e-6;
    double step = 1e-6;
};

// An invalid op: refused before it runs, with this exact message in every backend.
// `kernelTwin`: run it a second time with dynamic inputs (CaseBuilder::dynamicInputs), where
// the check pass cannot see the fault and the kernel refuses it; the message must be the
// same (the check pass and the kernels take the rule from one OpSemantics provider).
struct InvalidCase {
    std::string what;
    std::function<void(CaseBuilder&)> build;
    std::string message;
    bool kernelTwin = false;
};

inline std::vector<NamedAttribute> none() { return {}; }

// Deterministic f64 input values away from kinks and zero: 0.3 + 0.17 k, alternating sign.
inline std::vector<double> gradInputValues(size_t which, int64_t n) {
    std::vector<double> v;
    for (int64_t k = 0; k < n; ++k) v.push_back((k % 2 ? -1.0 : 1.0) * (0.3 + 0.17 * static_cast<double>(k) + 0.05 * static_cast<double>(which)));
    return v;
}

// The common gradient case: forward(x...) {attrs} -> one result of outDims; grad(operands)
// {attrs} -> one grad per input, each of its input's dims. Operand tokens: "x<i>" input i,
// "o" the forward result, "g" out_grad, "a:<ints>" a full_int_array (comma separated).
inline GradCase simpleGrad(const std::string& forward, const std::string& grad, std::vector<GradInput> inputs, Dims outDims,
                           std::vector<NamedAttribute> attrs, std::vector<std::string> gradOperands, double tol = 1e-6) {
    GradCase gc{forward, grad, inputs, {}, {}, tol};
    gc.forwardOp = [=](CaseBuilder& b, const std::vector<ValueId>& xs) {
        return std::vector<ValueId>{b.op(forward, xs, DType::Float64, outDims, attrs)};
    };
    gc.gradOp = [=](CaseBuilder& b, const std::vector<ValueId>& xs, const std::vector<ValueId>& outs, ValueId g) {
        std::vector<ValueId> operands;
        for (const std::string& t : gradOperands) {
            if (t == "o") operands.push_back(outs[0]);
            else if (t == "g") operands.push_back(g);
            else if (t.rfind("a:", 0) == 0) {
                Dims v;
                size_t at = 2;
                while (at < t.size()) {
                    size_t comma = t.find(',', at);
                    v.push_back(std::stoll(t.substr(at, comma == std::string::npos ? std::string::npos : comma - at)));
                    at = comma == std::string::npos ? t.size() : comma + 1;
                }
                operands.push_back(b.ints(v));
            } else operands.push_back(xs.at(static_cast<size_t>(std::stoi(t.substr(1)))));
        }
        std::vector<std::pair<DType, Dims>> results;
        for (const auto& in : inputs) if (in.differentiable) results.push_back({DType::Float64, in.dims});
        return b.ops(grad, operands, results, attrs);
    };
    return gc;
}

inline std::vector<GradInput> f64Inputs(std::vector<std::pair<std::string, Dims>> l) {
    std::vector<GradInput> r;
    for (auto& [n, d] : l) r.push_back({n, d});
    return r;
}

// Reference helpers the tables compute expectations with (never the kernels).
inline std::vector<double> iota(int64_t n, double from = 0, double step = 1) {
    std::vector<double> v;
    for (int64_t i = 0; i < n; ++i) v.push_back(from + step * static_cast<double>(i));
    return v;
}
inline std::vector<double> mapped(const std::vector<double>& v, const std::function<double(double)>& f) {
    std::vector<double> r;
    for (double e : v) r.push_back(f(e));
    return r;
}

}  // namespace rx::conformance
