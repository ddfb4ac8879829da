#pragma once
// Conformance value cases for the elementwise family: the unary table, comparisons, logical
// and bitwise ops, integer division, pow/logit/swiglu, add_n, triu, and the value sources
// (full_like, full_with_tensor, arange). Expectations by hand or by <cmath>, never a kernel.
#include "exec/conformance/Cases.h"

namespace rx::conformance {

inline std::vector<ValueCase> elementwiseValueCases() {
    std::vector<ValueCase> c;
    // unary(op, input, reference): f64 in, f64 out, same shape.
    auto unary = [&](const std::string& op, std::vector<double> in, const std::function<double(double)>& f, double tol = 1e-12,
                     DType inType = F, DType outType = F) {
        const int64_t n = static_cast<int64_t>(in.size());
        c.push_back({op, [op, in, n, inType, outType](CaseBuilder& b) {
                         b.fetch(b.op(op, {b.input("x", inType, {n}, in)}, outType, {n}));
                     },
                     {{{n}, mapped(in, f)}}, tol});
    };
    const std::vector<double> unit = {-0.9, -0.25, 0, 0.4, 0.75};
    unary("pd_op.asin", unit, [](double v) { return std::asin(v); });
    unary("pd_op.acos", unit, [](double v) { return std::acos(v); });
    unary("pd_op.atan", {-3, -0.5, 0, 2}, [](double v) { return std::atan(v); });
    unary("pd_op.atanh", unit, [](double v) { return std::atanh(v); });
    unary("pd_op.asinh", {-3, -0.5, 0, 2}, [](double v) { return std::asinh(v); });
    unary("pd_op.acosh", {1, 1.5, 4}, [](double v) { return std::acosh(v); });
    unary("pd_op.cos", {-2, 0, 0.5, 3}, [](double v) { return std::cos(v); });
    unary("pd_op.tan", {-1.2, 0, 0.5, 1}, [](double v) { return std::tan(v); });
    unary("pd_op.sinh", {-2, 0, 0.5, 3}, [](double v) { return std::sinh(v); });
    unary("pd_op.cosh", {-2, 0, 0.5, 3}, [](double v) { return std::cosh(v); });
    unary("pd_op.expm1", {-1, 1e-10, 0, 2}, [](double v) { return std::expm1(v); });
    unary("pd_op.log1p", {-0.5, 1e-10, 0, 3}, [](double v) { return std::log1p(v); });
    unary("pd_op.log2", {0.25, 1, 8, 10}, [](double v) { return std::log(v) / std::log(2.0); }, 1e-14);
    unary("pd_op.log10", {0.01, 1, 1000, 5}, [](double v) { return std::log(v) / std::log(10.0); }, 1e-14);
    unary("pd_op.rsqrt", {0.25, 1, 4, 2}, [](double v) { return 1 / std::sqrt(v); });
    unary("pd_op.reciprocal", {-4, 0.5, 2, 8}, [](double v) { return 1 / v; });
    unary("pd_op.logsigmoid", {-30, -1, 0, 2, 40}, [](double v) { return -std::log(1 + std::exp(-v)); }, 1e-12);
    unary("pd_op.silu", {-3, -0.5, 0, 0.5, 3}, [](double v) { return v / (1 + std::exp(-v)); });
    unary("pd_op.cos", {M_PI, M_PI / 2}, [](double v) { return std::cos(v); });
    // Values whose results are exact, by hand.
    c.push_back({"pd_op.relu6", [](CaseBuilder& b) { b.fetch(b.op("pd_op.relu6", {b.f64("x", {5}, {-1, 0, 3.5, 6, 9})}, F, {5})); },
                 {{{5}, {0, 0, 3.5, 6, 6}}}});
    c.push_back({"pd_op.sign", [](CaseBuilder& b) { b.fetch(b.op("pd_op.sign", {b.f64("x", {4}, {-2.5, 0, 1e-300, 7})}, F, {4})); },
                 {{{4}, {-1, 0, 1, 1}}}});
    const std::vector<double> halves = {-2.5, -1.7, -0.5, 0.5, 1.4, 2.5};
    c.push_back({"pd_op.round", [halves](CaseBuilder& b) { b.fetch(b.op("pd_op.round", {b.f64("x", {6}, halves)}, F, {6})); },
                 {{{6}, {-3, -2, -1, 1, 1, 3}}}});  // halves away from zero, as Paddle
    c.push_back({"pd_op.ceil", [halves](CaseBuilder& b) { b.fetch(b.op("pd_op.ceil", {b.f64("x", {6}, halves)}, F, {6})); },
                 {{{6}, {-2, -1, -0.0, 1, 2, 3}}}});
    c.push_back({"pd_op.trunc", [halves](CaseBuilder& b) { b.fetch(b.op("pd_op.trunc", {b.f64("x", {6}, halves)}, F, {6})); },
                 {{{6}, {-2, -1, 0, 0, 1, 2}}}});
    c.push_back({"pd_op.frac", [halves](CaseBuilder& b) { b.fetch(b.op("pd_op.frac", {b.f64("x", {6}, halves)}, F, {6})); },
                 {{{6}, {-0.5, -0.7, -0.5, 0.5, 0.4, 0.5}}}, 1e-15});
    const double inf = INFINITY, nan = NAN;
    auto predicate = [&](const std::string& op, std::vector<double> out) {
        c.push_back({op, [op, inf, nan](CaseBuilder& b) { b.fetch(b.op(op, {b.f64("x", {4}, {1.5, inf, -inf, nan})}, B, {4})); },
                     {{{4}, std::move(out)}}});
    };
    predicate("pd_op.isinf", {0, 1, 1, 0});
    predicate("pd_op.isnan", {0, 0, 0, 1});
    predicate("pd_op.isfinite", {1, 0, 0, 0});
    c.push_back({"pd_op.logical_not", [](CaseBuilder& b) { b.fetch(b.op("pd_op.logical_not", {b.input("x", B, {3}, {1, 0, 1})}, B, {3})); },
                 {{{3}, {0, 1, 0}}}});
    c.push_back({"pd_op.bitwise_not", [](CaseBuilder& b) { b.fetch(b.op("pd_op.bitwise_not", {b.i64("x", {3}, {0, 5, -3})}, I64, {3})); },
                 {{{3}, {-1, -6, 2}}}});

    // binary(op, in type, a, b, out type, expected): same shapes [n]; one broadcast case per family below.
    auto binary = [&](const std::string& op, DType in, std::vector<double> a, std::vector<double> bv, DType out, std::vector<double> expect) {
        const int64_t n = static_cast<int64_t>(a.size());
        c.push_back({op, [=](CaseBuilder& b) { b.fetch(b.op(op, {b.input("x", in, {n}, a), b.input("y", in, {n}, bv)}, out, {n})); },
                     {{{n}, std::move(expect)}}});
    };
    const std::vector<double> l = {1, 2, 3, -1}, r = {3, 2, 1, -1};
    binary("pd_op.equal", F, l, r, B, {0, 1, 0, 1});
    binary("pd_op.not_equal", F, l, r, B, {1, 0, 1, 0});
    binary("pd_op.less_than", F, l, r, B, {1, 0, 0, 0});
    binary("pd_op.less_equal", F, l, r, B, {1, 1, 0, 1});
    binary("pd_op.greater_than", F, l, r, B, {0, 0, 1, 0});
    binary("pd_op.greater_equal", I64, l, r, B, {0, 1, 1, 1});
    const std::vector<double> p = {1, 1, 0, 0}, q = {1, 0, 1, 0};
    binary("pd_op.logical_and", B, p, q, B, {1, 0, 0, 0});
    binary("pd_op.logical_or", B, p, q, B, {1, 1, 1, 0});
    binary("pd_op.logical_xor", B, p, q, B, {0, 1, 1, 0});
    const std::vector<double> m = {12, -1, 5}, n = {10, 6, 3};
    binary("pd_op.bitwise_and", I64, m, n, I64, {8, 6, 1});
    binary("pd_op.bitwise_or", I64, m, n, I64, {14, -1, 7});
    binary("pd_op.bitwise_xor", I64, m, n, I64, {6, -7, 6});
    // Python's rules: floor division rounds down, the remainder takes the divisor's sign.
    binary("pd_op.floor_divide", I64, {7, -7, 7, -7}, {2, 2, -2, -2}, I64, {3, -4, -4, 3});
    binary("pd_op.remainder", I64, {7, -7, 7, -7}, {2, 2, -2, -2}, I64, {1, 1, -1, -1});
    binary("pd_op.remainder", F, {5.5, -5.5, 5.5}, {2, 2, -2}, F, {1.5, 0.5, -0.5});
    binary("pd_op.floor_divide", F, {5.5, -5.5, 5.5}, {2, 2, -2}, F, {2, -3, -3});
    c.push_back({"pd_op.less_than", [](CaseBuilder& b) {  // broadcast [2,1] against [3]
                     b.fetch(b.op("pd_op.less_than", {b.f64("x", {2, 1}, {1, 3}), b.f64("y", {3}, {0, 2, 4})}, B, {2, 3}));
                 },
                 {{{2, 3}, {0, 1, 1, 0, 0, 1}}}});

    c.push_back({"pd_op.pow", [](CaseBuilder& b) {
                     b.fetch(b.op("pd_op.pow", {b.f64("x", {3}, {-2, 0.5, 3})}, F, {3}, {{"y", Attribute::float32(3)}}));
                 },
                 {{{3}, {-8, 0.125, 27}}}});
    c.push_back({"pd_op.pow", [](CaseBuilder& b) {  // y = 0.5 from a scalar operand
                     b.fetch(b.op("pd_op.pow", {b.f64("x", {3}, {4, 0.25, 9}), b.f64("y", {1}, {0.5})}, F, {3}));
                 },
                 {{{3}, {2, 0.5, 3}}}});
    c.push_back({"pd_op.scale", [](CaseBuilder& b) {  // bias before scale, scale from an operand
                     b.fetch(b.op("pd_op.scale", {b.f64("x", {3}, {1, 2, 3}), b.f64("s", {1}, {-2})}, F, {3},
                                  {{"bias", Attribute::float32(1)}, {"bias_after_scale", Attribute::boolean(false)}}));
                 },
                 {{{3}, {-4, -6, -8}}}});
    c.push_back({"pd_op.clip", [](CaseBuilder& b) {  // bounds from operands
                     b.fetch(b.op("pd_op.clip", {b.f64("x", {4}, {-3, 0, 2, 9}), b.f64("lo", {1}, {0.5}), b.f64("hi", {1}, {2.5})}, F, {4}));
                 },
                 {{{4}, {0.5, 0.5, 2, 2.5}}}});
    c.push_back({"pd_op.cast", [](CaseBuilder& b) {
                     b.fetch(b.op("pd_op.cast", {b.f64("x", {3}, {0, -0.5, 2})}, B, {3}, {{"dtype", Attribute::string("bool")}}));
                 },
                 {{{3}, {0, 1, 1}}}});
    c.push_back({"pd_op.logit", [](CaseBuilder& b) { b.fetch(b.op("pd_op.logit", {b.f64("x", {3}, {0.25, 0.5, 0.8})}, F, {3})); },
                 {{{3}, {std::log(1.0 / 3.0), 0, std::log(4.0)}}}, 1e-14});
    c.push_back({"pd_op.logit", [](CaseBuilder& b) {  // eps clamps to [0.3, 0.7]
                     b.fetch(b.op("pd_op.logit", {b.f64("x", {3}, {0.1, 0.5, 0.9})}, F, {3}, {{"eps", Attribute::float32(0.3f)}}));
                 },
                 {{{3}, {std::log(0.3f / (1 - 0.3f)), 0, std::log((1 - 0.3f) / 0.3f)}}}, 1e-6});
    auto silu = [](double v) { return v / (1 + std::exp(-v)); };
    c.push_back({"pd_op.swiglu", [](CaseBuilder& b) {
                     b.fetch(b.op("pd_op.swiglu", {b.f64("x", {2}, {1, -1}), b.f64("y", {2}, {2, 3})}, F, {2}));
                 },
                 {{{2}, {silu(1) * 2, silu(-1) * 3}}}});
    c.push_back({"pd_op.swiglu", [](CaseBuilder& b) {  // no y: x's last axis is [x | y]
                     b.fetch(b.op("pd_op.swiglu", {b.f64("x", {2, 4}, {1, -1, 2, 3, 0.5, 2, -1, 4})}, F, {2, 2}));
                 },
                 {{{2, 2}, {silu(1) * 2, silu(-1) * 3, silu(0.5) * -1, silu(2) * 4}}}});
    c.push_back({"pd_op.add_n", [](CaseBuilder& b) {
                     ValueId x = b.f64("x", {2}, {1, 2}), y = b.f64("y", {2}, {10, 20}), z = b.f64("z", {2}, {100, 200});
                     b.fetch(b.op("pd_op.add_n", {b.combine({x, y, z})}, F, {2}));
                 },
                 {{{2}, {111, 222}}}});
    c.push_back({"pd_op.triu", [](CaseBuilder& b) {
                     b.fetch(b.op("pd_op.triu", {b.f64("x", {3, 3}, iota(9, 1))}, F, {3, 3}, {{"diagonal", Attribute::int32(1)}}));
                 },
                 {{{3, 3}, {0, 2, 3, 0, 0, 6, 0, 0, 0}}}});
    c.push_back({"pd_op.tril", [](CaseBuilder& b) {  // batched, below the diagonal
                     b.fetch(b.op("pd_op.tril", {b.f64("x", {2, 2, 2}, iota(8, 1))}, F, {2, 2, 2}, {{"diagonal", Attribute::int32(-1)}}));
                 },
                 {{{2, 2, 2}, {0, 0, 3, 0, 0, 0, 7, 0}}}});
    c.push_back({"pd_op.full_like", [](CaseBuilder& b) {
                     b.fetch(b.op("pd_op.full_like", {b.f64("x", {2, 2}, {9, 9, 9, 9})}, F, {2, 2}, {{"value", Attribute::float32(-1.5)}}));
                 },
                 {{{2, 2}, {-1.5, -1.5, -1.5, -1.5}}}});
    c.push_back({"pd_op.full_like", [](CaseBuilder& b) {  // the value from an operand
                     b.fetch(b.op("pd_op.full_like", {b.i64("x", {3}, {1, 2, 3}), b.f64("v", {1}, {7})}, I64, {3}));
                 },
                 {{{3}, {7, 7, 7}}}});
    c.push_back({"pd_op.full_with_tensor", [](CaseBuilder& b) {
                     b.fetch(b.op("pd_op.full_with_tensor", {b.f64("v", {1}, {2.5}), b.ints({2, 3})}, F, {2, 3}));
                 },
                 {{{2, 3}, std::vector<double>(6, 2.5)}}});
    c.push_back({"pd_op.arange", [](CaseBuilder& b) {  // ceil((2.2 - 1) / 0.5) = 3 values
                     b.fetch(b.op("pd_op.arange", {b.f64("s", {1}, {1}), b.f64("e", {1}, {2.2}), b.f64("d", {1}, {0.5})}, F, {3}));
                 },
                 {{{3}, {1, 1.5, 2}}}});
    c.push_back({"pd_op.arange", [](CaseBuilder& b) {  // counting down
                     b.fetch(b.op("pd_op.arange", {b.i64("s", {1}, {5}), b.i64("e", {1}, {0}), b.i64("d", {1}, {-2})}, I64, {3}));
                 },
                 {{{3}, {5, 3, 1}}}});
    return c;
}

}  // namespace rx::conformance
