#pragma once
// The conformance suite every executor backend runs (header-only): one table of value cases
// (inputs, expected results and shapes), gradient cases checked against central differences
// of their forward op, and invalid ops every backend must refuse with the same positioned
// message. tests/exec/test_conformance.cpp runs it on the CPU backend; tests/cuda/
// test_cuda_conformance.cpp on the CUDA backend when a device is present.
#include <cmath>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "exec/Executor.h"
#include "exec/OpSemantics.h"
#include "model/Diagnostic.h"
#include "model/Program.h"

namespace rx::conformance {

using exec::Tensor;
using Dims = std::vector<int64_t>;

// Builds one case's program; inputs are pd_op.data ops fed with explicit values.
struct CaseBuilder {
    Program p;
    exec::RunInputs inputs;

    ValueId input(const std::string& name, DType t, Dims dims, std::vector<double> values) {
        OpId op = p.appendOp(0, "pd_op.data", {}, std::vector<TypeId>{p.tensorType(t, dims)}, {{"name", Attribute::string(name)}});
        inputs.byName[name] = Tensor::fromDoubles(t, dims, values);
        return p.op(op).results[0];
    }
    ValueId f64(const std::string& name, Dims dims, std::vector<double> values) { return input(name, DType::Float64, std::move(dims), std::move(values)); }
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
    void fetch(ValueId v) {
        p.appendOp(0, "pd_op.fetch", std::vector<ValueId>{v}, std::vector<TypeId>{p.value(v).type},
                   {{"name", Attribute::string(p.value(v).name)}});
    }
};

struct Expected {
    Dims dims;
    std::vector<double> values;
};

// A value case: the op under test, how to build it, the fetches it must produce.
struct ValueCase {
    std::string op;
    std::function<void(CaseBuilder&)> build;
    std::vector<Expected> expected;
    double tol = 1e-12;  // absolute, per element (f64 everywhere but where noted)
};

// A gradient case: L(x) = sum(forward(x)[0] * G) for a fixed G; the grad op fed with G must
// return dL/dx for every differentiable input, within `tol` of central differences.
struct GradCase {
    std::string forward, grad;
    std::vector<std::pair<std::string, Dims>> inputs;  // f64 inputs, values from a fixed formula
    Dims outDims;
    std::vector<NamedAttribute> attrs;
    // Grad operand tokens: "x<i>" input i, "o" the forward result, "g" out_grad.
    std::vector<std::string> gradOperands;
    double tol = 1e-6;
};

// An invalid op: refused before it runs, with this exact message in every backend.
struct InvalidCase {
    std::string what;
    std::function<void(CaseBuilder&)> build;
    std::string message;
};

inline std::vector<NamedAttribute> none() { return {}; }

inline std::vector<ValueCase> valueCases() {
    const DType F = DType::Float64, I = DType::Int64;
    std::vector<ValueCase> c;
    const std::vector<double> x23 = {1, 2, 3, 4, 5, 6};
    auto binary = [&](const std::string& op, std::vector<double> out) {
        c.push_back({op, [op, x23](CaseBuilder& b) {
                         ValueId x = b.f64("x", {2, 3}, x23), y = b.f64("y", {3}, {1, 2, 4});  // y broadcast over rows
                         b.fetch(b.op(op, {x, y}, DType::Float64, {2, 3}));
                     },
                     {{{2, 3}, std::move(out)}}});
    };
    binary("pd_op.add", {2, 4, 7, 5, 7, 10});
    binary("pd_op.subtract", {0, 0, -1, 3, 3, 2});
    binary("pd_op.multiply", {1, 4, 12, 4, 10, 24});
    binary("pd_op.divide", {1, 1, 0.75, 4, 2.5, 1.5});
    binary("pd_op.maximum", {1, 2, 4, 4, 5, 6});
    binary("pd_op.minimum", {1, 2, 3, 1, 2, 4});
    binary("pd_op.elementwise_pow", {1, 4, 81, 4, 25, 1296});
    auto unary = [&](const std::string& op, std::vector<double> in, double (*f)(double), double tol = 1e-12,
                     std::vector<NamedAttribute> attrs = {}) {
        std::vector<double> out;
        for (double v : in) out.push_back(f(v));
        c.push_back({op, [op, in, attrs](CaseBuilder& b) {
                         ValueId x = b.f64("x", {static_cast<int64_t>(in.size())}, in);
                         b.fetch(b.op(op, {x}, DType::Float64, {static_cast<int64_t>(in.size())}, attrs));
                     },
                     {{{static_cast<int64_t>(in.size())}, out}}, tol});
    };
    const std::vector<double> mixed = {-2, -0.5, 0, 0.5, 3};
    unary("pd_op.exp", mixed, [](double v) { return std::exp(v); });
    unary("pd_op.tanh", mixed, [](double v) { return std::tanh(v); });
    unary("pd_op.sigmoid", mixed, [](double v) { return 1 / (1 + std::exp(-v)); });
    unary("pd_op.relu", mixed, [](double v) { return v > 0 ? v : 0.0; });
    unary("pd_op.abs", mixed, [](double v) { return std::fabs(v); });
    unary("pd_op.square", mixed, [](double v) { return v * v; });
    unary("pd_op.sin", mixed, [](double v) { return std::sin(v); });
    unary("pd_op.erf", mixed, [](double v) { return std::erf(v); });
    unary("pd_op.floor", mixed, [](double v) { return std::floor(v); });
    unary("pd_op.sqrt", {0, 0.25, 4, 9}, [](double v) { return std::sqrt(v); });
    unary("pd_op.log", {0.5, 1, 4}, [](double v) { return std::log(v); });
    unary("pd_op.erfinv", {-0.9, -0.2, 0, 0.5, 0.99}, [](double v) { return v; }, 0);  // replaced below
    c.back().expected[0].values = {-1.1630871536766743, -0.17914345462129166, 0, 0.4769362762044699, 1.8213863677184496};
    c.back().tol = 1e-9;
    unary("pd_op.gelu", mixed, [](double v) { return 0.5 * v * (1 + std::erf(v / std::sqrt(2.0))); }, 1e-12,
          {{"approximate", Attribute::boolean(false)}});
    c.push_back({"pd_op.scale", [](CaseBuilder& b) {
                     ValueId x = b.f64("x", {3}, {1, 2, 3});
                     b.fetch(b.op("pd_op.scale", {x}, DType::Float64, {3},
                                  {{"scale", Attribute::float32(2)}, {"bias", Attribute::float32(1)}, {"bias_after_scale", Attribute::boolean(true)}}));
                 },
                 {{{3}, {3, 5, 7}}}});
    c.push_back({"pd_op.clip", [](CaseBuilder& b) {
                     ValueId x = b.f64("x", {4}, {-3, 0, 2, 9});
                     b.fetch(b.op("pd_op.clip", {x}, DType::Float64, {4}, {{"min", Attribute::float32(-1)}, {"max", Attribute::float32(3)}}));
                 },
                 {{{4}, {-1, 0, 2, 3}}}});
    c.push_back({"pd_op.cast", [](CaseBuilder& b) {
                     ValueId x = b.f64("x", {4}, {-1.5, 0.25, 2.75, 7});
                     b.fetch(b.op("pd_op.cast", {x}, DType::Int32, {4}, {{"dtype", Attribute::string("int32")}}));
                 },
                 {{{4}, {-1, 0, 2, 7}}}});
    c.push_back({"pd_op.where", [](CaseBuilder& b) {
                     ValueId cond = b.input("c", DType::Bool, {3}, {1, 0, 1});
                     ValueId x = b.f64("x", {3}, {1, 2, 3}), y = b.f64("y", {3}, {7, 8, 9});
                     b.fetch(b.op("pd_op.where", {cond, x, y}, DType::Float64, {3}));
                 },
                 {{{3}, {1, 8, 3}}}});
    // Reductions: axes, keepdim, reduce_all.
    auto reduce = [&](const std::string& op, Dims axes, bool keep, Dims od, std::vector<double> out) {
        c.push_back({op, [op, axes, keep, od, x23](CaseBuilder& b) {
                         ValueId x = b.f64("x", {2, 3}, x23);
                         b.fetch(b.op(op, {x, b.ints(axes)}, DType::Float64, od, {{"keepdim", Attribute::boolean(keep)}}));
                     },
                     {{od, std::move(out)}}});
    };
    reduce("pd_op.sum", {1}, false, {2}, {6, 15});
    reduce("pd_op.sum", {-2}, true, {1, 3}, {5, 7, 9});
    reduce("pd_op.mean", {}, false, {}, {3.5});
    reduce("pd_op.max", {0}, false, {3}, {4, 5, 6});
    reduce("pd_op.min", {1}, true, {2, 1}, {1, 4});
    reduce("pd_op.prod", {1}, false, {2}, {6, 120});
    // Shapes.
    c.push_back({"pd_op.reshape", [x23](CaseBuilder& b) {
                     ValueId x = b.f64("x", {2, 3}, x23);
                     b.fetch(b.ops("pd_op.reshape", {x, b.ints({0, -1, 1})}, {{DType::Float64, {2, 3, 1}}, {DType::Float64, {0, 2, 3}}})[0]);
                 },
                 {{{2, 3, 1}, x23}}});
    c.push_back({"pd_op.squeeze", [](CaseBuilder& b) {
                     ValueId x = b.f64("x", {1, 3, 1}, {1, 2, 3});
                     b.fetch(b.ops("pd_op.squeeze", {x, b.ints({0})}, {{DType::Float64, {3, 1}}, {DType::Float64, {0, 1, 3, 1}}})[0]);
                 },
                 {{{3, 1}, {1, 2, 3}}}});
    c.push_back({"pd_op.unsqueeze", [](CaseBuilder& b) {
                     ValueId x = b.f64("x", {3}, {1, 2, 3});
                     b.fetch(b.ops("pd_op.unsqueeze", {x, b.ints({0, -1})}, {{DType::Float64, {1, 3, 1}}, {DType::Float64, {0, 3}}})[0]);
                 },
                 {{{1, 3, 1}, {1, 2, 3}}}});
    c.push_back({"pd_op.flatten", [](CaseBuilder& b) {
                     ValueId x = b.f64("x", {2, 1, 3}, {1, 2, 3, 4, 5, 6});
                     b.fetch(b.ops("pd_op.flatten", {x}, {{DType::Float64, {2, 3}}, {DType::Float64, {0, 2, 1, 3}}},
                                   {{"start_axis", Attribute::int32(1)}, {"stop_axis", Attribute::int32(-1)}})[0]);
                 },
                 {{{2, 3}, {1, 2, 3, 4, 5, 6}}}});
    c.push_back({"pd_op.transpose", [x23](CaseBuilder& b) {
                     ValueId x = b.f64("x", {2, 3}, x23);
                     b.fetch(b.op("pd_op.transpose", {x}, DType::Float64, {3, 2}, {{"perm", Attribute::intArray({1, -2})}}));
                 },
                 {{{3, 2}, {1, 4, 2, 5, 3, 6}}}});
    c.push_back({"pd_op.expand", [](CaseBuilder& b) {
                     ValueId x = b.f64("x", {1, 3}, {1, 2, 3});
                     b.fetch(b.op("pd_op.expand", {x, b.ints({2, -1})}, DType::Float64, {2, 3}));
                 },
                 {{{2, 3}, {1, 2, 3, 1, 2, 3}}}});
    c.push_back({"pd_op.slice", [](CaseBuilder& b) {
                     ValueId x = b.f64("x", {3, 4}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
                     b.fetch(b.op("pd_op.slice", {x, b.ints({1, -3}), b.ints({2, 100})}, DType::Float64, {3},
                                  {{"axes", Attribute::intArray({0, 1})}, {"decrease_axis", Attribute::intArray({0})}}));
                 },
                 {{{3}, {5, 6, 7}}}});
    c.push_back({"pd_op.concat", [](CaseBuilder& b) {
                     ValueId x = b.f64("x", {2, 1}, {1, 2}), y = b.f64("y", {2, 2}, {3, 4, 5, 6});
                     b.fetch(b.op("pd_op.concat", {b.combine({x, y}), b.ints({-1})}, DType::Float64, {2, 3}));
                 },
                 {{{2, 3}, {1, 3, 4, 2, 5, 6}}}});
    c.push_back({"pd_op.stack", [](CaseBuilder& b) {
                     ValueId x = b.f64("x", {2}, {1, 2}), y = b.f64("y", {2}, {3, 4});
                     b.fetch(b.op("pd_op.stack", {b.combine({x, y})}, DType::Float64, {2, 2}, {{"axis", Attribute::int32(1)}}));
                 },
                 {{{2, 2}, {1, 3, 2, 4}}}});
    c.push_back({"pd_op.split", [](CaseBuilder& b) {
                     ValueId x = b.f64("x", {5, 2}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
                     Program& p = b.p;
                     TypeId a = p.tensorType(DType::Float64, {2, 2}), c3 = p.tensorType(DType::Float64, {3, 2});
                     OpId s = p.appendOp(0, "pd_op.split", std::vector<ValueId>{x, b.ints({2, -1}), b.ints({0})},
                                         std::vector<TypeId>{p.internType(Type::vector({a, c3}))}, {});
                     auto parts = b.ops("builtin.split", {p.op(s).results[0]}, {{DType::Float64, {2, 2}}, {DType::Float64, {3, 2}}});
                     b.fetch(parts[1]);
                 },
                 {{{3, 2}, {4, 5, 6, 7, 8, 9}}}});
    c.push_back({"pd_op.gather", [](CaseBuilder& b) {
                     ValueId x = b.f64("x", {3, 2}, {1, 2, 3, 4, 5, 6});
                     ValueId idx = b.input("i", I, {2}, {2, 0});
                     b.fetch(b.op("pd_op.gather", {x, idx}, DType::Float64, {2, 2}, {{"axis", Attribute::int32(0)}}));
                 },
                 {{{2, 2}, {5, 6, 1, 2}}}});
    c.push_back({"pd_op.embedding", [](CaseBuilder& b) {  // a 3-row table
                     ValueId ids = b.input("ids", I, {2, 2}, {0, 2, 1, 2});
                     ValueId w = b.f64("w", {3, 2}, {10, 11, 20, 21, 30, 31});
                     b.fetch(b.op("pd_op.embedding", {ids, w}, DType::Float64, {2, 2, 2}, {{"padding_idx", Attribute::int64(-1)}}));
                 },
                 {{{2, 2, 2}, {10, 11, 30, 31, 20, 21, 30, 31}}}});
    c.push_back({"pd_op.matmul", [](CaseBuilder& b) {
                     ValueId x = b.f64("x", {2, 3}, {1, 2, 3, 4, 5, 6}), y = b.f64("y", {2, 3}, {1, 0, 1, 0, 1, 0});
                     b.fetch(b.op("pd_op.matmul", {x, y}, DType::Float64, {2, 2},
                                  {{"transpose_x", Attribute::boolean(false)}, {"transpose_y", Attribute::boolean(true)}}));
                 },
                 {{{2, 2}, {4, 2, 10, 5}}}});
    c.push_back({"pd_op.softmax", [](CaseBuilder& b) {
                     ValueId x = b.f64("x", {2, 2}, {0, std::log(3.0), 1, 1});
                     b.fetch(b.op("pd_op.softmax", {x}, DType::Float64, {2, 2}, {{"axis", Attribute::int32(-1)}}));
                 },
                 {{{2, 2}, {0.25, 0.75, 0.5, 0.5}}}, 1e-12});
    c.push_back({"pd_op.conv2d", [](CaseBuilder& b) {  // 1 channel 3x3, 2x2 ones filter, stride 1, pad 0
                     ValueId x = b.f64("x", {1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9}), w = b.f64("w", {1, 1, 2, 2}, {1, 1, 1, 1});
                     b.fetch(b.op("pd_op.conv2d", {x, w}, DType::Float64, {1, 1, 2, 2},
                                  {{"strides", Attribute::intArray({1, 1})}, {"paddings", Attribute::intArray({0, 0})},
                                   {"dilations", Attribute::intArray({1, 1})}, {"groups", Attribute::int32(1)},
                                   {"padding_algorithm", Attribute::string("EXPLICIT")}, {"data_format", Attribute::string("NCHW")}}));
                 },
                 {{{1, 1, 2, 2}, {12, 16, 24, 28}}}});
    auto pool = [&](const std::string& type, std::vector<double> out) {
        c.push_back({"pd_op.pool2d", [type](CaseBuilder& b) {  // 4x4, 2x2 windows, stride 2
                         std::vector<double> v;
                         for (int i = 0; i < 16; ++i) v.push_back(i);
                         ValueId x = b.f64("x", {1, 1, 4, 4}, v);
                         b.fetch(b.op("pd_op.pool2d", {x, b.ints({2, 2})}, DType::Float64, {1, 1, 2, 2},
                                      {{"strides", Attribute::intArray({2, 2})}, {"paddings", Attribute::intArray({0, 0})},
                                       {"pooling_type", Attribute::string(type)}, {"exclusive", Attribute::boolean(true)}}));
                     },
                     {{{1, 1, 2, 2}, std::move(out)}}});
    };
    pool("max", {5, 7, 13, 15});
    pool("avg", {2.5, 4.5, 10.5, 12.5});
    c.push_back({"pd_op.dropout", [](CaseBuilder& b) {  // is_test, downscale: x * (1 - p)
                     ValueId x = b.f64("x", {3}, {1, 2, 3});
                     b.fetch(b.ops("pd_op.dropout", {x}, {{DType::Float64, {3}}, {DType::UInt8, {3}}},
                                   {{"p", Attribute::float32(0.25)}, {"is_test", Attribute::boolean(true)},
                                    {"mode", Attribute::string("downgrade_in_infer")}, {"seed", Attribute::int32(0)}})[0]);
                 },
                 {{{3}, {0.75, 1.5, 2.25}}}});
    c.push_back({"pd_op.full", [](CaseBuilder& b) {
                     b.fetch(b.op("pd_op.full", {}, DType::Float64, {2, 2}, {{"shape", Attribute::intArray({2, 2})}, {"value", Attribute::float32(1.5)}}));
                 },
                 {{{2, 2}, {1.5, 1.5, 1.5, 1.5}}}});
    c.push_back({"pd_op.tril", [](CaseBuilder& b) {
                     ValueId x = b.f64("x", {2, 2}, {1, 2, 3, 4});
                     b.fetch(b.op("pd_op.tril", {x}, DType::Float64, {2, 2}, {{"diagonal", Attribute::int32(0)}}));
                 },
                 {{{2, 2}, {1, 0, 3, 4}}}});
    return c;
}

inline std::vector<GradCase> gradCases() {
    std::vector<GradCase> c;
    auto unaryOut = [&](const std::string& op) { c.push_back({op, op + "_grad", {{"x", {2, 3}}}, {2, 3}, {}, {"o", "g"}}); };
    auto unaryIn = [&](const std::string& op, std::vector<NamedAttribute> a = {}) {
        c.push_back({op, op + "_grad", {{"x", {2, 3}}}, {2, 3}, std::move(a), {"x0", "g"}});
    };
    unaryOut("pd_op.tanh");
    unaryOut("pd_op.sigmoid");
    unaryOut("pd_op.exp");
    unaryIn("pd_op.sin");
    unaryIn("pd_op.square");
    unaryIn("pd_op.gelu", {{"approximate", Attribute::boolean(false)}});
    unaryIn("pd_op.silu");
    c.push_back({"pd_op.multiply", "pd_op.multiply_grad", {{"x", {2, 3}}, {"y", {3}}}, {2, 3}, {}, {"x0", "x1", "g"}});
    c.push_back({"pd_op.divide", "pd_op.divide_grad", {{"x", {2, 3}}, {"y", {2, 3}}}, {2, 3}, {}, {"x0", "x1", "o", "g"}});
    c.push_back({"pd_op.matmul", "pd_op.matmul_grad", {{"x", {2, 3}}, {"y", {3, 2}}}, {2, 2},
                 {{"transpose_x", Attribute::boolean(false)}, {"transpose_y", Attribute::boolean(false)}}, {"x0", "x1", "g"}});
    c.push_back({"pd_op.softmax", "pd_op.softmax_grad", {{"x", {2, 3}}}, {2, 3}, {{"axis", Attribute::int32(-1)}}, {"o", "g"}});
    return c;
}

inline std::vector<InvalidCase> invalidCases() {
    std::vector<InvalidCase> c;
    auto conv = [](Dims strides) {
        return [strides](CaseBuilder& b) {
            ValueId x = b.f64("x", {1, 1, 4, 4}, std::vector<double>(16, 1)), w = b.f64("w", {1, 1, 2, 2}, {1, 1, 1, 1});
            b.fetch(b.op("pd_op.conv2d", {x, w}, DType::Float64, {1, 1, -1, -1},
                         {{"strides", Attribute::intArray(strides)}, {"paddings", Attribute::intArray({0, 0})},
                          {"dilations", Attribute::intArray({1, 1})}, {"groups", Attribute::int32(1)},
                          {"padding_algorithm", Attribute::string("EXPLICIT")}, {"data_format", Attribute::string("NCHW")}}));
        };
    };
    c.push_back({"conv2d stride 0", conv({0, 1}), "op 2 (pd_op.conv2d -> %2): attribute strides = [0,1]: every entry must be > 0"});
    c.push_back({"pool2d stride 0", [](CaseBuilder& b) {
                     ValueId x = b.f64("x", {1, 1, 4, 4}, std::vector<double>(16, 1));
                     b.fetch(b.op("pd_op.pool2d", {x, b.ints({2, 2})}, DType::Float64, {1, 1, -1, -1},
                                  {{"strides", Attribute::intArray({0, 0})}, {"paddings", Attribute::intArray({0, 0})},
                                   {"pooling_type", Attribute::string("max")}}));
                 },
                 "op 2 (pd_op.pool2d -> %2): attribute strides = [0,0]: every entry must be > 0"});
    c.push_back({"transpose repeated axis", [](CaseBuilder& b) {
                     ValueId x = b.f64("x", {2, 3}, {1, 2, 3, 4, 5, 6});
                     b.fetch(b.op("pd_op.transpose", {x}, DType::Float64, {2, 2}, {{"perm", Attribute::intArray({0, 0})}}));
                 },
                 "op 1 (pd_op.transpose -> %1): attribute perm = [0,0]: axis 0 is repeated"});
    c.push_back({"sum repeated axis", [](CaseBuilder& b) {
                     ValueId x = b.f64("x", {2, 3}, {1, 2, 3, 4, 5, 6});
                     b.fetch(b.op("pd_op.sum", {x, b.ints({1, -1})}, DType::Float64, {2}, {{"keepdim", Attribute::boolean(false)}}));
                 },
                 "op 2 (pd_op.sum -> %2): axis = [1,-1]: axis -1 is repeated"});
    c.push_back({"slice repeated axis", [](CaseBuilder& b) {
                     ValueId x = b.f64("x", {2, 3}, {1, 2, 3, 4, 5, 6});
                     b.fetch(b.op("pd_op.slice", {x, b.ints({0, 0}), b.ints({1, 1})}, DType::Float64, {1, 3},
                                  {{"axes", Attribute::intArray({0, 0})}, {"decrease_axis", Attribute::intArray(Dims{})}}));
                 },
                 "op 3 (pd_op.slice -> %3): attribute axes = [0,0]: axis 0 is repeated"});
    c.push_back({"full shape overflows", [](CaseBuilder& b) {
                     b.fetch(b.op("pd_op.full", {b.ints({int64_t(1) << 40, int64_t(1) << 40})}, DType::Float64, {-1, -1},
                                  {{"value", Attribute::float32(0)}}));
                 },
                 "op 1 (pd_op.full -> %1): shape [1099511627776,1099511627776] has 1208925819614629174706176.000000 elements "
                 "(limit 134217728, RunLimits::maxElementsPerValue)"});
    c.push_back({"reshape shape overflows", [](CaseBuilder& b) {
                     ValueId x = b.f64("x", {4}, {1, 2, 3, 4});
                     b.fetch(b.ops("pd_op.reshape", {x, b.ints({int64_t(1) << 62, 8})}, {{DType::Float64, {-1, -1}}, {DType::Float64, {0, 4}}})[0]);
                 },
                 "op 2 (pd_op.reshape -> %2): reshape to [4611686018427387904,8]: more elements than 64-bit arithmetic counts"});
    c.push_back({"split sections do not sum", [](CaseBuilder& b) {
                     ValueId x = b.f64("x", {5}, {1, 2, 3, 4, 5});
                     Program& p = b.p;
                     TypeId a = p.tensorType(DType::Float64, {-1});
                     OpId s = p.appendOp(0, "pd_op.split", std::vector<ValueId>{x, b.ints({2, 2}), b.ints({0})}, std::vector<TypeId>{p.internType(Type::vector({a, a}))}, {});
                     auto parts = b.ops("builtin.split", {p.op(s).results[0]}, {{DType::Float64, {-1}}, {DType::Float64, {-1}}});
                     b.fetch(parts[0]);
                 },
                 "op 3 (pd_op.split -> %3): split sections [2,2] do not sum to the axis size 5"});
    return c;
}

// ---------- runners: "" when the case holds, else what went wrong ----------

inline std::string describe(const std::vector<double>& v) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
    return s + "]";
}

inline std::string runValueCase(exec::Executor& ex, const ValueCase& vc) {
    CaseBuilder b;
    vc.build(b);
    b.p.finish();
    exec::RunResult r;
    try {
        r = ex.run(b.p, b.inputs, {});
    } catch (const Error& e) {
        return std::string("refused: ") + e.what();
    }
    if (r.fetches.size() != vc.expected.size())
        return std::to_string(r.fetches.size()) + " fetches, expected " + std::to_string(vc.expected.size());
    for (size_t i = 0; i < vc.expected.size(); ++i) {
        const Tensor& t = r.fetches[i].tensor;
        if (t.dims != vc.expected[i].dims) return "fetch " + std::to_string(i) + " has dims " + exec::dimsString(t.dims) + ", expected " + exec::dimsString(vc.expected[i].dims);
        std::vector<double> got = t.toDoubles();
        for (size_t k = 0; k < got.size(); ++k)
            if (!(std::fabs(got[k] - vc.expected[i].values[k]) <= vc.tol))
                return "fetch " + std::to_string(i) + " is " + describe(got) + ", expected " + describe(vc.expected[i].values);
    }
    return {};
}

// Deterministic f64 input values away from kinks and zero: 0.3 + 0.17 k, alternating sign.
inline std::vector<double> gradInputValues(size_t which, int64_t n) {
    std::vector<double> v;
    for (int64_t k = 0; k < n; ++k) v.push_back((k % 2 ? -1.0 : 1.0) * (0.3 + 0.17 * static_cast<double>(k) + 0.05 * static_cast<double>(which)));
    return v;
}

inline std::string runGradCase(exec::Executor& ex, const GradCase& gc) {
    const int64_t outN = exec::numelOf(gc.outDims);
    std::vector<double> G;
    for (int64_t k = 0; k < outN; ++k) G.push_back(0.5 - 0.13 * static_cast<double>(k));
    std::vector<std::vector<double>> values;
    for (size_t i = 0; i < gc.inputs.size(); ++i) values.push_back(gradInputValues(i, exec::numelOf(gc.inputs[i].second)));
    // L(values): sum(forward * G), run on the backend.
    auto build = [&](const std::vector<std::vector<double>>& vals, bool withGrad, CaseBuilder& b) {
        std::vector<ValueId> xs;
        for (size_t i = 0; i < gc.inputs.size(); ++i) xs.push_back(b.f64(gc.inputs[i].first, gc.inputs[i].second, vals[i]));
        ValueId out = b.op(gc.forward, xs, DType::Float64, gc.outDims, gc.attrs);
        if (!withGrad) { b.fetch(out); return; }
        ValueId g = b.f64("g", gc.outDims, G);
        std::vector<ValueId> operands;
        for (const std::string& t : gc.gradOperands)
            operands.push_back(t == "o" ? out : t == "g" ? g : xs.at(static_cast<size_t>(std::stoi(t.substr(1)))));
        std::vector<std::pair<DType, Dims>> results;
        for (const auto& in : gc.inputs) results.push_back({DType::Float64, in.second});
        for (ValueId v : b.ops(gc.grad, operands, results, gc.attrs)) b.fetch(v);
    };
    auto loss = [&](const std::vector<std::vector<double>>& vals) {
        CaseBuilder b;
        build(vals, false, b);
        b.p.finish();
        std::vector<double> y = ex.run(b.p, b.inputs, {}).fetches.at(0).tensor.toDoubles();
        double l = 0;
        for (size_t k = 0; k < y.size(); ++k) l += y[k] * G[k];
        return l;
    };
    try {
        CaseBuilder b;
        build(values, true, b);
        b.p.finish();
        exec::RunResult r = ex.run(b.p, b.inputs, {});
        for (size_t i = 0; i < gc.inputs.size(); ++i) {
            std::vector<double> analytic = r.fetches.at(i).tensor.toDoubles();
            for (size_t k = 0; k < values[i].size(); ++k) {
                const double h = 1e-6;
                auto plus = values, minus = values;
                plus[i][k] += h;
                minus[i][k] -= h;
                const double numeric = (loss(plus) - loss(minus)) / (2 * h);
                if (!(std::fabs(numeric - analytic[k]) <= gc.tol * (1 + std::fabs(numeric))))
                    return "d/d" + gc.inputs[i].first + "[" + std::to_string(k) + "] = " + std::to_string(analytic[k]) +
                           ", central differences give " + std::to_string(numeric);
            }
        }
    } catch (const Error& e) {
        return std::string("refused: ") + e.what();
    }
    return {};
}

// The message the backend refuses the case with ("" when it ran).
inline std::string refusal(exec::Executor& ex, const InvalidCase& ic) {
    CaseBuilder b;
    ic.build(b);
    b.p.finish();
    try {
        ex.run(b.p, b.inputs, {});
    } catch (const Error& e) {
        return e.what();
    }
    return {};
}

}  // namespace rx::conformance
