#pragma once
// Conformance value cases for complex tensors (as_complex/as_real/complex, real/imag/conj/
// angle/abs, arithmetic, cast, the complex grads) and the seeded random ops (uniform, randint,
// dropout in training), whose values are judged by their properties: range, mean, zero share.
#include "exec/conformance/Cases.h"

namespace rx::conformance {

using Cplx = std::complex<double>;

inline Tensor complexTensor(Dims dims, const std::vector<Cplx>& v, DType t = DType::Complex128) {
    Tensor out(t, std::move(dims));
    for (size_t i = 0; i < v.size(); ++i) out.setComplex(static_cast<int64_t>(i), v[i]);
    return out;
}

// A check that fetch `which` holds the complex values `want` (within tol).
inline std::function<std::string(const std::vector<Tensor>&)> complexIs(size_t which, std::vector<Cplx> want, double tol = 1e-12) {
    return [=](const std::vector<Tensor>& got) -> std::string {
        const Tensor& t = got.at(which);
        if (!exec::isComplexDType(t.dtype)) return "fetch " + std::to_string(which) + " is not complex";
        for (size_t i = 0; i < want.size(); ++i) {
            Cplx g = t.getComplex(static_cast<int64_t>(i));
            if (!(std::abs(g - want[i]) <= tol))
                return "fetch " + std::to_string(which) + "[" + std::to_string(i) + "] is (" + std::to_string(g.real()) + ", " + std::to_string(g.imag()) +
                       "), expected (" + std::to_string(want[i].real()) + ", " + std::to_string(want[i].imag()) + ")";
        }
        return {};
    };
}

inline std::vector<ValueCase> complexRandomValueCases() {
    std::vector<ValueCase> c;
    const DType C = DType::Complex128;
    const std::vector<Cplx> z = {{1, 2}, {-3, 0.5}, {0, -1}}, w = {{2, -1}, {1, 1}, {-0.5, 2}};
    auto zIn = [z](CaseBuilder& b) { return b.tensor("z", complexTensor({3}, z)); };
    auto wIn = [w](CaseBuilder& b) { return b.tensor("w", complexTensor({3}, w)); };
    c.push_back({"pd_op.as_complex", [](CaseBuilder& b) { b.fetch(b.op("pd_op.as_complex", {b.f64("x", {2, 2}, {1, 2, 3, 4})}, C, {2})); },
                 {{{2}, {}}}, 0, complexIs(0, {{1, 2}, {3, 4}})});
    c.push_back({"pd_op.as_real", [zIn](CaseBuilder& b) { b.fetch(b.op("pd_op.as_real", {zIn(b)}, F, {3, 2})); },
                 {{{3, 2}, {1, 2, -3, 0.5, 0, -1}}}});
    c.push_back({"pd_op.complex", [](CaseBuilder& b) {  // imag broadcast over rows
                     b.fetch(b.op("pd_op.complex", {b.f64("re", {2, 2}, {1, 2, 3, 4}), b.f64("im", {2}, {-1, 5})}, C, {2, 2}));
                 },
                 {{{2, 2}, {}}}, 0, complexIs(0, {{1, -1}, {2, 5}, {3, -1}, {4, 5}})});
    c.push_back({"pd_op.real", [zIn](CaseBuilder& b) { b.fetch(b.op("pd_op.real", {zIn(b)}, F, {3})); }, {{{3}, {1, -3, 0}}}});
    c.push_back({"pd_op.real", [](CaseBuilder& b) { b.fetch(b.op("pd_op.real", {b.f64("x", {2}, {-1, 2})}, F, {2})); }, {{{2}, {-1, 2}}}});
    c.push_back({"pd_op.imag", [zIn](CaseBuilder& b) { b.fetch(b.op("pd_op.imag", {zIn(b)}, F, {3})); }, {{{3}, {2, 0.5, -1}}}});
    c.push_back({"pd_op.imag", [](CaseBuilder& b) { b.fetch(b.op("pd_op.imag", {b.f64("x", {2}, {-1, 2})}, F, {2})); }, {{{2}, {0, 0}}}});
    c.push_back({"pd_op.conj", [zIn](CaseBuilder& b) { b.fetch(b.op("pd_op.conj", {zIn(b)}, C, {3})); },
                 {{{3}, {}}}, 0, complexIs(0, {{1, -2}, {-3, -0.5}, {0, 1}})});
    c.push_back({"pd_op.conj", [](CaseBuilder& b) { b.fetch(b.op("pd_op.conj", {b.f64("x", {2}, {-1, 2})}, F, {2})); }, {{{2}, {-1, 2}}}});
    c.push_back({"pd_op.angle", [zIn](CaseBuilder& b) { b.fetch(b.op("pd_op.angle", {zIn(b)}, F, {3})); },
                 {{{3}, {std::atan2(2.0, 1.0), std::atan2(0.5, -3.0), -M_PI / 2}}}, 1e-14});
    c.push_back({"pd_op.angle", [](CaseBuilder& b) { b.fetch(b.op("pd_op.angle", {b.f64("x", {3}, {-1, 0, 2})}, F, {3})); }, {{{3}, {M_PI, 0, 0}}}});
    c.push_back({"pd_op.abs", [zIn](CaseBuilder& b) { b.fetch(b.op("pd_op.abs", {zIn(b)}, F, {3})); },
                 {{{3}, {std::sqrt(5.0), std::sqrt(9.25), 1}}}, 1e-14});
    c.push_back({"pd_op.cast", [zIn](CaseBuilder& b) { b.fetch(b.op("pd_op.cast", {zIn(b)}, F, {3}, {{"dtype", Attribute::string("float64")}})); },
                 {{{3}, {1, -3, 0}}}});
    c.push_back({"pd_op.cast", [](CaseBuilder& b) { b.fetch(b.op("pd_op.cast", {b.f64("x", {2}, {1.5, -2})}, C, {2}, {{"dtype", Attribute::string("complex128")}})); },
                 {{{2}, {}}}, 0, complexIs(0, {{1.5, 0}, {-2, 0}})});
    const char* const arith[] = {"pd_op.add", "pd_op.subtract", "pd_op.multiply", "pd_op.divide"};
    for (int op = 0; op < 4; ++op) {
        std::vector<Cplx> want;
        for (size_t i = 0; i < 3; ++i) want.push_back(op == 0 ? z[i] + w[i] : op == 1 ? z[i] - w[i] : op == 2 ? z[i] * w[i] : z[i] / w[i]);
        c.push_back({arith[op], [zIn, wIn, op, arith](CaseBuilder& b) { b.fetch(b.op(arith[op], {zIn(b), wIn(b)}, DType::Complex128, {3})); },
                     {{{3}, {}}}, 0, complexIs(0, want, 1e-14)});
    }
    // The complex grads, by Paddle's rules (conjugates: the gradient of a real loss).
    c.push_back({"pd_op.real_grad", [](CaseBuilder& b) { b.fetch(b.op("pd_op.real_grad", {b.f64("g", {2}, {1, -2})}, C, {2})); },
                 {{{2}, {}}}, 0, complexIs(0, {{1, 0}, {-2, 0}})});
    c.push_back({"pd_op.imag_grad", [](CaseBuilder& b) { b.fetch(b.op("pd_op.imag_grad", {b.f64("g", {2}, {1, -2})}, C, {2})); },
                 {{{2}, {}}}, 0, complexIs(0, {{0, 1}, {0, -2}})});
    c.push_back({"pd_op.as_complex_grad", [](CaseBuilder& b) {
                     ValueId x = b.f64("x", {2, 2}, {0, 0, 0, 0}), g = b.tensor("g", complexTensor({2}, {{1, 2}, {3, 4}}));
                     b.fetch(b.op("pd_op.as_complex_grad", {x, g}, F, {2, 2}));
                 },
                 {{{2, 2}, {1, 2, 3, 4}}}});
    c.push_back({"pd_op.as_real_grad", [zIn](CaseBuilder& b) {
                     ValueId x = zIn(b), g = b.f64("g", {3, 2}, {1, 2, 3, 4, 5, 6});
                     b.fetch(b.op("pd_op.as_real_grad", {x, g}, DType::Complex128, {3}));
                 },
                 {{{3}, {}}}, 0, complexIs(0, {{1, 2}, {3, 4}, {5, 6}})});
    c.push_back({"pd_op.complex_grad", [](CaseBuilder& b) {  // y was broadcast: its grad sums over rows
                     ValueId x = b.f64("x", {2, 2}, {0, 0, 0, 0}), y = b.f64("y", {2}, {0, 0});
                     ValueId g = b.tensor("g", complexTensor({2, 2}, {{1, 2}, {3, 4}, {5, 6}, {7, 8}}));
                     b.fetchAll(b.ops("pd_op.complex_grad", {x, y, g}, {{F, {2, 2}}, {F, {2}}}));
                 },
                 {{{2, 2}, {1, 3, 5, 7}}, {{2}, {2 + 6, 4 + 8}}}});
    c.push_back({"pd_op.angle_grad", [zIn](CaseBuilder& b) {  // g * (-im, re) / |z|^2
                     ValueId g = b.f64("g", {3}, {1, 2, -1});
                     b.fetch(b.op("pd_op.angle_grad", {zIn(b), g}, DType::Complex128, {3}));
                 },
                 {{{3}, {}}}, 0, complexIs(0, {{-2.0 / 5, 1.0 / 5}, {-2 * 0.5 / 9.25, 2 * -3 / 9.25}, {-1 * 1.0 / 1, 0}}, 1e-14)});
    c.push_back({"pd_op.angle_grad", [](CaseBuilder& b) {  // a real x: flat almost everywhere
                     b.fetch(b.op("pd_op.angle_grad", {b.f64("x", {2}, {-1, 3}), b.f64("g", {2}, {5, 6})}, F, {2}));
                 },
                 {{{2}, {0, 0}}}});
    c.push_back({"pd_op.abs_grad", [zIn](CaseBuilder& b) {  // g * z / |z|
                     ValueId g = b.f64("g", {3}, {1, 2, -1});
                     b.fetch(b.op("pd_op.abs_grad", {zIn(b), g}, DType::Complex128, {3}));
                 },
                 {{{3}, {}}}, 0, complexIs(0, {Cplx(1, 2) / std::sqrt(5.0), 2.0 * Cplx(-3, 0.5) / std::sqrt(9.25), -1.0 * Cplx(0, -1)}, 1e-14)});
    c.push_back({"pd_op.multiply_grad", [zIn, wIn](CaseBuilder& b) {  // dx = g conj(y), dy = g conj(x)
                     ValueId x = zIn(b), y = wIn(b), g = b.tensor("g", complexTensor({3}, {{1, 0}, {0, 1}, {2, 2}}));
                     b.fetchAll(b.ops("pd_op.multiply_grad", {x, y, g}, {{DType::Complex128, {3}}, {DType::Complex128, {3}}}));
                 },
                 {{{3}, {}}, {{3}, {}}}, 0, [z, w](const std::vector<Tensor>& got) {
                     const std::vector<Cplx> g = {{1, 0}, {0, 1}, {2, 2}};
                     std::vector<Cplx> dx, dy;
                     for (size_t i = 0; i < 3; ++i) { dx.push_back(g[i] * std::conj(w[i])); dy.push_back(g[i] * std::conj(z[i])); }
                     std::string why = complexIs(0, dx, 1e-14)(got);
                     return why.empty() ? complexIs(1, dy, 1e-14)(got) : why;
                 }});

    // Random ops: seeded, so judged by what any correct generator gives.
    auto stats = [](const Tensor& t, double& lo, double& hi, double& mean) {
        std::vector<double> v = t.toDoubles();
        lo = INFINITY; hi = -INFINITY; mean = 0;
        for (double e : v) { lo = std::min(lo, e); hi = std::max(hi, e); mean += e / static_cast<double>(v.size()); }
    };
    c.push_back({"pd_op.uniform", [](CaseBuilder& b) {
                     b.fetch(b.op("pd_op.uniform", {b.ints({40, 100})}, F, {40, 100},
                                  {{"min", Attribute::float32(-2)}, {"max", Attribute::float32(6)}, {"seed", Attribute::int32(0)}}));
                 },
                 {{{40, 100}, {}}}, 0, [stats](const std::vector<Tensor>& got) -> std::string {
                     double lo, hi, mean;
                     stats(got[0], lo, hi, mean);
                     // U(-2, 6): sd 8/sqrt(12) = 2.31; the mean of 4000 within 5 sd of 2 is 0.18.
                     if (lo < -2 || hi >= 6 || lo > -1.9 || hi < 5.9 || std::fabs(mean - 2) > 0.18)
                         return "uniform(-2, 6) gave min " + std::to_string(lo) + ", max " + std::to_string(hi) + ", mean " + std::to_string(mean);
                     return {};
                 }});
    c.push_back({"pd_op.randint", [](CaseBuilder& b) {
                     b.fetch(b.op("pd_op.randint", {b.ints({1000})}, I64, {1000}, {{"low", Attribute::int32(-3)}, {"high", Attribute::int32(4)}, {"seed", Attribute::int32(0)}}));
                 },
                 {{{1000}, {}}}, 0, [](const std::vector<Tensor>& got) -> std::string {
                     std::map<int64_t, int> hits;
                     for (double e : got[0].toDoubles()) {
                         if (e != std::floor(e) || e < -3 || e >= 4) return "randint(-3, 4) gave " + std::to_string(e);
                         ++hits[static_cast<int64_t>(e)];
                     }
                     for (int64_t v = -3; v < 4; ++v)  // 1000 / 7 = 143 expected each
                         if (hits[v] < 90) return "randint(-3, 4) gave " + std::to_string(v) + " only " + std::to_string(hits[v]) + " times in 1000";
                     return {};
                 }});
    c.push_back({"pd_op.dropout", [](CaseBuilder& b) {  // training, upscale: kept elements x / (1 - p), the mask says which
                     b.fetchAll(b.ops("pd_op.dropout", {b.f64("x", {2000}, std::vector<double>(2000, 3))}, {{F, {2000}}, {DType::UInt8, {2000}}},
                                      {{"p", Attribute::float32(0.25)}, {"is_test", Attribute::boolean(false)},
                                       {"mode", Attribute::string("upscale_in_train")}, {"seed", Attribute::int32(0)}}));
                 },
                 {{{2000}, {}}, {{2000}, {}}}, 0, [](const std::vector<Tensor>& got) -> std::string {
                     std::vector<double> out = got[0].toDoubles(), mask = got[1].toDoubles();
                     int dropped = 0;
                     for (size_t i = 0; i < out.size(); ++i) {
                         if (!((mask[i] == 0 && out[i] == 0) || (mask[i] == 1 && out[i] == 4))) return "element " + std::to_string(i) + " is " + std::to_string(out[i]) + " with mask " + std::to_string(mask[i]);
                         dropped += mask[i] == 0;
                     }
                     // p = 0.25 of 2000: 500 expected, sd 19.4
                     if (dropped < 400 || dropped > 600) return std::to_string(dropped) + " of 2000 dropped at p = 0.25";
                     return {};
                 }});
    c.push_back({"pd_op.dropout_grad", [](CaseBuilder& b) {  // the mask picks, upscaled
                     ValueId mask = b.input("m", DType::UInt8, {4}, {1, 0, 0, 1}), g = b.f64("g", {4}, {1, 2, 3, 4});
                     b.fetch(b.op("pd_op.dropout_grad", {mask, g}, F, {4}, {{"p", Attribute::float32(0.5)}, {"is_test", Attribute::boolean(false)},
                                                                          {"mode", Attribute::string("upscale_in_train")}}));
                 },
                 {{{4}, {2, 0, 0, 8}}}});
    c.push_back({"pd_op.dropout_grad", [](CaseBuilder& b) {  // inference, downscale: g * (1 - p)
                     ValueId mask = b.input("m", DType::UInt8, {2}, {1, 1}), g = b.f64("g", {2}, {1, 2});
                     b.fetch(b.op("pd_op.dropout_grad", {mask, g}, F, {2}, {{"p", Attribute::float32(0.25)}, {"is_test", Attribute::boolean(true)},
                                                                          {"mode", Attribute::string("downgrade_in_infer")}}));
                 },
                 {{{2}, {0.75, 1.5}}}});
    return c;
}

}  // namespace rx::conformance
