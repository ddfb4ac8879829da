#pragma once
// The conformance suite every executor backend runs (header-only): one table of value cases
// (inputs, expected results and shapes), gradient cases checked against central differences
// of their forward op, and invalid ops every backend must refuse with the same positioned
// message. tests/exec/test_conformance.cpp runs it on the CPU backend; tests/cuda/
// test_cuda_conformance.cpp on the CUDA backend when a device is present.
#include "exec/conformance/Cases.h"
#include "exec/conformance/ComplexRandomCases.h"
#include "exec/conformance/ControlFlowCases.h"
#include "exec/conformance/ElementwiseCases.h"
#include "exec/conformance/GradCases.h"
#include "exec/conformance/InvalidCases.h"
#include "exec/conformance/NetworkCases.h"
#include "exec/conformance/ReduceCases.h"
#include "exec/conformance/ShapeCases.h"

namespace rx::conformance {

inline std::vector<ValueCase> coreValueCases() {
    const DType I = DType::Int64;
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

inline std::vector<GradCase> coreGradCases() {
    std::vector<GradCase> c;
    auto unaryOut = [&](const std::string& op) { c.push_back(simpleGrad(op, op + "_grad", f64Inputs({{"x", {2, 3}}}), {2, 3}, {}, {"o", "g"})); };
    auto unaryIn = [&](const std::string& op, std::vector<NamedAttribute> a = {}) {
        c.push_back(simpleGrad(op, op + "_grad", f64Inputs({{"x", {2, 3}}}), {2, 3}, std::move(a), {"x0", "g"}));
    };
    unaryOut("pd_op.tanh");
    unaryOut("pd_op.sigmoid");
    unaryOut("pd_op.exp");
    unaryIn("pd_op.sin");
    unaryIn("pd_op.square");
    unaryIn("pd_op.gelu", {{"approximate", Attribute::boolean(false)}});
    unaryIn("pd_op.silu");
    c.push_back(simpleGrad("pd_op.multiply", "pd_op.multiply_grad", f64Inputs({{"x", {2, 3}}, {"y", {3}}}), {2, 3}, {}, {"x0", "x1", "g"}));
    c.push_back(simpleGrad("pd_op.divide", "pd_op.divide_grad", f64Inputs({{"x", {2, 3}}, {"y", {2, 3}}}), {2, 3}, {}, {"x0", "x1", "o", "g"}));
    c.push_back(simpleGrad("pd_op.matmul", "pd_op.matmul_grad", f64Inputs({{"x", {2, 3}}, {"y", {3, 2}}}), {2, 2},
                           {{"transpose_x", Attribute::boolean(false)}, {"transpose_y", Attribute::boolean(false)}}, {"x0", "x1", "g"}));
    c.push_back(simpleGrad("pd_op.softmax", "pd_op.softmax_grad", f64Inputs({{"x", {2, 3}}}), {2, 3}, {{"axis", Attribute::int32(-1)}}, {"o", "g"}));
    return c;
}

inline std::vector<InvalidCase> coreInvalidCases() {
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

// The whole table: the core cases above and every family's.
inline std::vector<ValueCase> valueCases() {
    std::vector<ValueCase> all = coreValueCases();
    for (auto family : {elementwiseValueCases, shapeValueCases, reduceValueCases, networkValueCases, complexRandomValueCases,
                        controlFlowValueCases}) {
        std::vector<ValueCase> more = family();
        all.insert(all.end(), more.begin(), more.end());
    }
    return all;
}
inline std::vector<GradCase> gradCases() {
    std::vector<GradCase> all = coreGradCases(), more = familyGradCases();
    all.insert(all.end(), more.begin(), more.end());
    return all;
}
inline std::vector<InvalidCase> invalidCases() {
    std::vector<InvalidCase> all = coreInvalidCases(), more = familyInvalidCases();
    all.insert(all.end(), more.begin(), more.end());
    return all;
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
    std::vector<Tensor> fetched;
    for (size_t i = 0; i < vc.expected.size(); ++i) {
        const Tensor& t = r.fetches[i].tensor;
        fetched.push_back(t);
        if (t.dims != vc.expected[i].dims) return "fetch " + std::to_string(i) + " has dims " + exec::dimsString(t.dims) + ", expected " + exec::dimsString(vc.expected[i].dims);
        if (vc.expected[i].values.empty()) continue;
        std::vector<double> got = t.toDoubles();
        if (got.size() != vc.expected[i].values.size())
            return "fetch " + std::to_string(i) + " holds " + std::to_string(got.size()) + " values, expected " + std::to_string(vc.expected[i].values.size());
        for (size_t k = 0; k < got.size(); ++k) {
            const double want = vc.expected[i].values[k];
            const bool same = std::isnan(want) ? std::isnan(got[k]) : std::isinf(want) ? got[k] == want : std::fabs(got[k] - want) <= vc.tol;
            if (!same) return "fetch " + std::to_string(i) + " is " + describe(got) + ", expected " + describe(vc.expected[i].values);
        }
    }
    if (vc.check) return vc.check(fetched);
    return {};
}

inline std::string runGradCase(exec::Executor& ex, const GradCase& gc) {
    std::vector<std::vector<double>> values;
    for (size_t i = 0; i < gc.inputs.size(); ++i)
        values.push_back(gc.inputs[i].values.empty() ? gradInputValues(i, exec::numelOf(gc.inputs[i].dims)) : gc.inputs[i].values);
    auto inputsOf = [&](const std::vector<std::vector<double>>& vals, CaseBuilder& b) {
        std::vector<ValueId> xs;
        for (size_t i = 0; i < gc.inputs.size(); ++i) xs.push_back(b.input(gc.inputs[i].name, gc.inputs[i].dtype, gc.inputs[i].dims, vals[i]));
        return xs;
    };
    auto forward = [&](const std::vector<std::vector<double>>& vals) {
        CaseBuilder b;
        std::vector<ValueId> xs = inputsOf(vals, b);
        b.fetch(gc.forwardOp(b, xs).at(0));
        b.p.finish();
        return ex.run(b.p, b.inputs, {}).fetches.at(0).tensor;
    };
    try {
        const Tensor y0 = forward(values);
        std::vector<double> G;
        for (int64_t k = 0; k < y0.numel(); ++k) G.push_back(0.5 - 0.13 * static_cast<double>(k % 11) + 0.07 * static_cast<double>(k / 11));
        // L(values): sum(forward * G), run on the backend.
        auto loss = [&](const std::vector<std::vector<double>>& vals) {
            std::vector<double> y = forward(vals).toDoubles();
            double l = 0;
            for (size_t k = 0; k < y.size(); ++k) l += y[k] * G[k];
            return l;
        };
        CaseBuilder b;
        std::vector<ValueId> xs = inputsOf(values, b);
        std::vector<ValueId> outs = gc.forwardOp(b, xs);
        ValueId g = b.f64("g", y0.dims, G);
        std::vector<ValueId> grads = gc.gradOp(b, xs, outs, g);
        b.fetchAll(grads);
        b.p.finish();
        exec::RunResult r = ex.run(b.p, b.inputs, {});
        size_t at = 0;
        for (size_t i = 0; i < gc.inputs.size(); ++i) {
            if (!gc.inputs[i].differentiable) continue;
            if (at >= r.fetches.size()) return "the grad op returned " + std::to_string(r.fetches.size()) + " gradients";
            const Tensor& t = r.fetches.at(at++).tensor;
            if (t.dims != gc.inputs[i].dims) return "d/d" + gc.inputs[i].name + " has dims " + exec::dimsString(t.dims) + ", expected " + exec::dimsString(gc.inputs[i].dims);
            std::vector<double> analytic = t.toDoubles();
            for (size_t k = 0; k < values[i].size(); ++k) {
                const double h = gc.step;
                auto plus = values, minus = values;
                plus[i][k] += h;
                minus[i][k] -= h;
                const double numeric = (loss(plus) - loss(minus)) / (2 * h);
                if (!(std::fabs(numeric - analytic[k]) <= gc.tol * (1 + std::fabs(numeric))))
                    return "d/d" + gc.inputs[i].name + "[" + std::to_string(k) + "] = " + std::to_string(analytic[k]) +
                           ", central differences give " + std::to_string(numeric);
            }
        }
    } catch (const Error& e) {
        return std::string("refused: ") + e.what();
    }
    return {};
}

// The ops of a case's program that `ex` cannot run (its unsupportedOps): a backend without
// some kernel skips the case and says so instead of failing it.
inline std::vector<std::string> unsupportedIn(const exec::Executor& ex, const ValueCase& vc) {
    CaseBuilder b;
    vc.build(b);
    b.p.finish();
    return ex.unsupportedOps(b.p);
}
inline std::vector<std::string> unsupportedIn(const exec::Executor& ex, const GradCase& gc) {
    CaseBuilder b;
    std::vector<ValueId> xs;
    for (size_t i = 0; i < gc.inputs.size(); ++i)
        xs.push_back(b.input(gc.inputs[i].name, gc.inputs[i].dtype, gc.inputs[i].dims, gradInputValues(i, exec::numelOf(gc.inputs[i].dims))));
    std::vector<ValueId> outs = gc.forwardOp(b, xs);
    b.fetchAll(gc.gradOp(b, xs, outs, b.f64("g", {1}, {1})));  // dims do not matter to the support check
    b.p.finish();
    return ex.unsupportedOps(b.p);
}

inline std::vector<std::string> unsupportedIn(const exec::Executor& ex, const InvalidCase& ic) {
    CaseBuilder b;
    ic.build(b);
    b.p.finish();
    return ex.unsupportedOps(b.p);
}

// The message the backend refuses the case with ("" when it ran); `dynamicInputs`: the
// kernel twin (InvalidCase::kernelTwin).
inline std::string refusal(exec::Executor& ex, const InvalidCase& ic, bool dynamicInputs = false) {
    CaseBuilder b;
    b.dynamicInputs = dynamicInputs;
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
