// Reduction kernels: sum, mean, max, min, prod, any, all and the sum/mean grads.
#include "exec/cpu/KernelContext.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

namespace rx::exec::cpu {

void registerReduceKernels(KernelTable& table) {
    auto& k = table.kernels;
    // -- reductions --
    // Each output element accumulates its inputs in ascending order in double (int64_t for
    // integers and bool), read and stored in the tensor's own dtype.
    auto reduceKernel = [](int kind) {  // 0 sum, 1 mean, 2 max, 3 min, 4 prod
        return [kind](Context& c) {
            const Tensor& x = c.x(0);
            const ReduceGeom g = reduceGeometry(c, x.dims, 1);
            Tensor out(c.outDType(0), g.outDims());
            const int64_t on = out.numel();
            const double count = on > 0 ? static_cast<double>(x.numel()) / static_cast<double>(on) : 1.0;
            auto reduceWith = [&](auto load, auto store) {
                forEachReduction(x.dims, g.keptDims, [&](int64_t o, auto&& visit) {
                    double a = kind == 2 ? -INFINITY : kind == 3 ? INFINITY : kind == 4 ? 1.0 : 0.0;
                    visit([&](int64_t i) {
                        const double v = load(i);
                        switch (kind) {
                        case 0: case 1: a += v; break;
                        case 2: a = std::max(a, v); break;
                        case 3: a = std::min(a, v); break;
                        default: a *= v; break;
                        }
                    });
                    if (kind == 1) a /= count;
                    store(o, a);
                });
            };
            auto generic = [&] { reduceWith([&](int64_t i) { return x.get(i); }, [&](int64_t o, double a) { out.set(o, a); }); };
            if (x.dtype != out.dtype) generic();
            else visitRealDType(x.dtype, [&](auto tag) {
                using T = typename decltype(tag)::type;
                const T* in = x.data<T>();
                T* ov = out.data<T>();
                reduceWith([&](int64_t i) { return static_cast<double>(loadElement(in[i])); },
                           [&](int64_t o, double a) { ov[o] = storeElement<T>(a); });
            }, generic);
            c.setOut(0, std::move(out));
        };
    };
    for (const auto& [name, kind] : reductionKinds()) k[name] = reduceKernel(kind);
    // sum_grad / mean_grad(x, out_grad[, axis]): broadcast the gradient back to x.
    auto reduceGrad = [](bool mean) {
        return [mean](Context& c) {
            const Tensor& x = c.x(0);
            const Tensor& g = c.x(1);
            const ReduceGeom geom = reduceGeometry(c, x.dims, 2);
            if (numelOf(geom.keptDims) != g.numel()) c.fail("gradient does not match the reduced shape");
            double scale = mean ? static_cast<double>(numelOf(geom.keptDims)) / static_cast<double>(std::max<int64_t>(x.numel(), 1)) : 1.0;
            Tensor out(c.outDType(0), x.dims);
            const std::array<const Dims*, 1> ins{&geom.keptDims};
            auto generic = [&] { forEachBroadcast(x.dims, ins, [&](int64_t k, const auto& off) { out.set(k, g.get(off[0]) * scale); }); };
            if (g.dtype != out.dtype) generic();
            else visitRealDType(out.dtype, [&](auto tag) {
                using T = typename decltype(tag)::type;
                const T* gv = g.data<T>();
                T* o = out.data<T>();
                forEachBroadcast(x.dims, ins, [&](int64_t k, const auto& off) {
                    o[k] = storeElement<T>(static_cast<double>(loadElement(gv[off[0]])) * scale);
                });
            }, generic);
            c.setOut(0, std::move(out));
        };
    };
    k["pd_op.sum_grad"] = reduceGrad(false);
    k["pd_op.mean_grad"] = reduceGrad(true);

    auto anyAll = [](bool any) {
        return [any](Context& c) {
            const Tensor& x = c.x(0);
            const ReduceGeom g = reduceGeometry(c, x.dims, 1);
            Tensor out(c.outDType(0), g.outDims());
            forEachReduction(x.dims, g.keptDims, [&](int64_t o, auto&& visit) {
                bool a = !any;
                visit([&](int64_t i) { bool b = x.get(i) != 0; a = any ? (a || b) : (a && b); });
                out.set(o, a ? 1.0 : 0.0);
            });
            c.setOut(0, std::move(out));
        };
    };
    k["pd_op.any"] = anyAll(true);
    k["pd_op.all"] = anyAll(false);

    // -- argmax / argmin (x, axis) {keepdims, flatten, dtype}: first extremum wins.
    auto argExtremum = [](bool isMax) {
        return [isMax](Context& c) {
            const Tensor& x = c.x(0);
            bool flatten = c.attrBool("flatten", false), keep = c.attrBool("keepdims", false);
            Dims dims = flatten ? Dims{x.numel()} : x.dims;
            if (dims.empty()) dims = {1};
            int64_t axis = c.normAxis(c.has(1) ? c.ints(1).at(0) : c.attrInt("axis", -1), dims.size());
            int64_t outer = 1, inner = 1, n = dims[axis];
            for (int64_t i = 0; i < axis; ++i) outer *= dims[i];
            for (size_t i = axis + 1; i < dims.size(); ++i) inner *= dims[i];
            if (n <= 0) c.fail("argmax/argmin over an empty axis");
            std::vector<double> v = x.toDoubles(), out(static_cast<size_t>(outer * inner));
            for (int64_t o = 0; o < outer; ++o)
                for (int64_t in = 0; in < inner; ++in) {
                    int64_t best = 0;
                    for (int64_t j = 1; j < n; ++j) {
                        double a = v[(o * n + j) * inner + in], b = v[(o * n + best) * inner + in];
                        if (isMax ? a > b : a < b) best = j;
                    }
                    out[o * inner + in] = static_cast<double>(best);
                }
            Dims od;
            if (flatten) od = keep ? Dims(x.dims.size(), 1) : Dims{};
            else {
                od = dims;
                if (keep) od[axis] = 1; else od.erase(od.begin() + axis);
            }
            c.setOutDoubles(0, od, out);
        };
    };
    k["pd_op.argmax"] = argExtremum(true);
    k["pd_op.argmin"] = argExtremum(false);
    // topk (x, k) {axis, largest, sorted} -> out, indices: ties keep the lower index first.
    k["pd_op.topk"] = [](Context& c) {
        const Tensor& x = c.x(0);
        int64_t kk = c.has(1) ? c.ints(1).at(0) : c.attrInt("k", 1);
        int64_t axis = c.normAxis(c.attrInt("axis", -1), std::max<size_t>(x.dims.size(), 1));
        bool largest = c.attrBool("largest", true);
        Dims dims = x.dims.empty() ? Dims{1} : x.dims;
        int64_t n = dims[axis], outer = 1, inner = 1;
        if (kk < 1 || kk > n) c.fail("k = " + std::to_string(kk) + " is outside [1, " + std::to_string(n) + "]");
        for (int64_t i = 0; i < axis; ++i) outer *= dims[i];
        for (size_t i = axis + 1; i < dims.size(); ++i) inner *= dims[i];
        Dims od = dims;
        od[axis] = kk;
        std::vector<double> v = x.toDoubles(), out(static_cast<size_t>(outer * kk * inner)), idx(out.size());
        std::vector<int64_t> order(static_cast<size_t>(n));
        for (int64_t o = 0; o < outer; ++o)
            for (int64_t in = 0; in < inner; ++in) {
                auto at = [&](int64_t j) { return v[(o * n + j) * inner + in]; };
                std::iota(order.begin(), order.end(), int64_t{0});
                std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return largest ? at(a) > at(b) : at(a) < at(b); });
                for (int64_t j = 0; j < kk; ++j) {
                    out[(o * kk + j) * inner + in] = at(order[j]);
                    idx[(o * kk + j) * inner + in] = static_cast<double>(order[j]);
                }
            }
        c.setOutDoubles(0, od, out);
        if (c.outputs.size() > 1 && !c.resultIsNull(1)) c.setOutDoubles(1, od, idx);
    };
    // topk_grad (x, indices, out_grad, k) {axis, largest, sorted} -> x_grad: out_grad
    // scattered back to the positions topk picked (indices along axis).
    k["pd_op.topk_grad"] = [](Context& c) {
        const Tensor& x = c.x(0);
        const Tensor& ind = c.x(1);
        const Tensor& g = c.x(2);
        Dims dims = x.dims.empty() ? Dims{1} : x.dims;
        int64_t axis = c.normAxis(c.attrInt("axis", -1), dims.size());
        Dims idims = ind.dims.empty() ? Dims{1} : ind.dims;
        if (idims.size() != dims.size() || g.numel() != ind.numel())
            c.fail("indices " + dimsString(ind.dims) + " and out_grad " + dimsString(g.dims) + " do not match x " + dimsString(x.dims));
        for (size_t i = 0; i < dims.size(); ++i)
            if (static_cast<int64_t>(i) != axis && idims[i] != dims[i]) c.fail("indices " + dimsString(ind.dims) + " do not match x " + dimsString(x.dims) + " off the axis");
        const int64_t n = dims[axis], kk = idims[axis];
        int64_t outer = 1, inner = 1;
        for (int64_t i = 0; i < axis; ++i) outer *= dims[i];
        for (size_t i = axis + 1; i < dims.size(); ++i) inner *= dims[i];
        std::vector<double> dx(static_cast<size_t>(x.numel()), 0.0);
        for (int64_t o = 0; o < outer; ++o)
            for (int64_t j = 0; j < kk; ++j)
                for (int64_t in = 0; in < inner; ++in) {
                    const int64_t e = (o * kk + j) * inner + in;
                    const int64_t t = static_cast<int64_t>(ind.get(e));
                    if (t < 0 || t >= n) c.fail("index " + std::to_string(t) + " is outside [0, " + std::to_string(n) + ")");
                    dx[(o * n + t) * inner + in] += g.get(e);
                }
        c.setOutDoubles(0, x.dims, dx);
    };
    // cumsum (x, axis) {flatten, exclusive, reverse}; cumsum_grad (x, out_grad, axis): the
    // reverse cumsum of out_grad (Paddle's backward invokes cumsum with reverse flipped).
    auto cumsum = [](Context& c, const Tensor& x, int64_t axisIn, bool flatten, bool exclusive, bool reverse) {
        Dims dims = flatten || x.dims.empty() ? Dims{x.numel()} : x.dims;
        int64_t axis = c.normAxis(axisIn, dims.size());
        int64_t outer = 1, inner = 1, n = dims[axis];
        for (int64_t i = 0; i < axis; ++i) outer *= dims[i];
        for (size_t i = axis + 1; i < dims.size(); ++i) inner *= dims[i];
        std::vector<double> v = x.toDoubles(), out(v.size());
        for (int64_t o = 0; o < outer; ++o)
            for (int64_t in = 0; in < inner; ++in) {
                double acc = 0;
                for (int64_t s = 0; s < n; ++s) {
                    int64_t j = reverse ? n - 1 - s : s;
                    size_t e = static_cast<size_t>((o * n + j) * inner + in);
                    if (exclusive) { out[e] = acc; acc += v[e]; }
                    else { acc += v[e]; out[e] = acc; }
                }
            }
        return std::make_pair(dims, out);
    };
    k["pd_op.cumsum"] = [cumsum](Context& c) {
        const Tensor& x = c.x(0);
        auto [dims, out] = cumsum(c, x, c.has(1) ? c.ints(1).at(0) : c.attrInt("axis", -1), c.attrBool("flatten", false),
                                  c.attrBool("exclusive", false), c.attrBool("reverse", false));
        c.setOutDoubles(0, dims, out);
    };
    k["pd_op.cumsum_grad"] = [cumsum](Context& c) {
        const Tensor& x = c.x(0);
        const Tensor& g = c.x(1);
        if (g.numel() != x.numel()) c.fail("out_grad " + dimsString(g.dims) + " does not match x " + dimsString(x.dims));
        auto [dims, out] = cumsum(c, reshaped(g, c.attrBool("flatten", false) ? Dims{g.numel()} : x.dims),
                                  c.has(2) ? c.ints(2).at(0) : c.attrInt("axis", -1), false, c.attrBool("exclusive", false),
                                  !c.attrBool("reverse", false));
        (void)dims;
        c.setOutDoubles(0, x.dims, out);
    };
}

}  // namespace rx::exec::cpu
