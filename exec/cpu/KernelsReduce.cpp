// Reduction kernels: sum, mean, max, min, prod, any, all and the sum/mean grads.
#include "exec/cpu/KernelContext.h"
#include "exec/cpu/TypedCompute.h"

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

    // -- argmax / argmin (x, axis) {keepdims, flatten, dtype}: first extremum wins; x read in place.
    auto argExtremum = [](bool isMax) {
        return [isMax](Context& c) {
            const Tensor& x = c.x(0);
            const ArgExtremumParams p = argExtremumParams(c, x.dims);
            Tensor out(c.outDType(0), p.outDims);
            IndexWriter at(out);
            visitKernelDType(c, x.dtype, [&](auto tag) {
                using T = typename decltype(tag)::type;
                const T* v = x.data<T>();
                for (int64_t o = 0; o < p.lanes.outer; ++o)
                    for (int64_t in = 0; in < p.lanes.inner; ++in) {
                        const int64_t base = o * p.lanes.n * p.lanes.inner + in;
                        int64_t best = 0;
                        auto bestValue = loadElement(v[base]);
                        for (int64_t j = 1; j < p.lanes.n; ++j) {
                            const auto a = loadElement(v[base + j * p.lanes.inner]);
                            if (isMax ? a > bestValue : a < bestValue) { best = j; bestValue = a; }
                        }
                        at.set(o * p.lanes.inner + in, best);
                    }
            });
            c.setOut(0, std::move(out));
        };
    };
    k["pd_op.argmax"] = argExtremum(true);
    k["pd_op.argmin"] = argExtremum(false);
    // topk (x, k) {axis, largest, sorted} -> out, indices: ties keep the lower index first. One
    // lane's order at a time.
    k["pd_op.topk"] = [](Context& c) {
        const DType t = c.outDType(0);
        std::optional<Tensor> xh;
        const Tensor& x = inDType(c.x(0), t, xh);
        const TopkParams p = topkParams(c, x.dims);
        const bool wantIndices = c.outputs.size() > 1 && !c.resultIsNull(1);
        Tensor out(t, p.outDims), idx = wantIndices ? Tensor(c.outDType(1), p.outDims) : Tensor();
        std::optional<IndexWriter> idxAt;
        if (wantIndices) idxAt.emplace(idx);
        std::vector<int64_t> order(static_cast<size_t>(p.lanes.n));
        visitKernelDType(c, t, [&](auto tag) {
            using T = typename decltype(tag)::type;
            const T* v = x.data<T>();
            T* o = out.data<T>();
            for (int64_t ou = 0; ou < p.lanes.outer; ++ou)
                for (int64_t in = 0; in < p.lanes.inner; ++in) {
                    const int64_t base = ou * p.lanes.n * p.lanes.inner + in, obase = ou * p.k * p.lanes.inner + in;
                    auto at = [&](int64_t j) { return loadElement(v[base + j * p.lanes.inner]); };
                    std::iota(order.begin(), order.end(), int64_t{0});
                    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return p.largest ? at(a) > at(b) : at(a) < at(b); });
                    for (int64_t j = 0; j < p.k; ++j) {
                        o[obase + j * p.lanes.inner] = v[base + order[j] * p.lanes.inner];
                        if (idxAt) idxAt->set(obase + j * p.lanes.inner, order[j]);
                    }
                }
        });
        c.setOut(0, std::move(out));
        if (wantIndices) c.setOut(1, std::move(idx));
    };
    // topk_grad (x, indices, out_grad, k) {axis, largest, sorted} -> x_grad: out_grad
    // scattered back to the positions topk picked (indices along axis).
    k["pd_op.topk_grad"] = [](Context& c) {
        const DType t = c.outDType(0);
        const Tensor& x = c.x(0);
        const Tensor& ind = c.x(1);
        std::optional<Tensor> gh;
        const Tensor& g = inDType(c.x(2), t, gh);
        const TopkParams p = topkGradParams(c, x.dims, ind.dims, g.dims);
        const IndexView indAt(ind);
        Tensor dx(t, x.dims);
        visitKernelDType(c, t, [&](auto tag) {
            using T = typename decltype(tag)::type;
            const T* gv = g.data<T>();
            AddInto<T> acc(dx);
            for (int64_t o = 0; o < p.lanes.outer; ++o)
                for (int64_t j = 0; j < p.k; ++j)
                    for (int64_t in = 0; in < p.lanes.inner; ++in) {
                        const int64_t e = (o * p.k + j) * p.lanes.inner + in;
                        const int64_t at = indAt[e];
                        if (at < 0 || at >= p.lanes.n) c.fail("index " + std::to_string(at) + " is outside [0, " + std::to_string(p.lanes.n) + ")");
                        acc.add((o * p.lanes.n + at) * p.lanes.inner + in, valueAt(gv, e));
                    }
            acc.finish();
        });
        c.setOut(0, std::move(dx));
    };
    // cumsum (x, axis) {flatten, exclusive, reverse}; cumsum_grad (x, out_grad, axis): the
    // reverse cumsum of out_grad (Paddle's backward invokes cumsum with reverse flipped). Each
    // lane is summed in double (int64_t for integers) and stored in the dtype as it goes.
    auto cumsum = [](const Context& c, const Tensor& x, const CumsumParams& p, DType t) {
        std::optional<Tensor> xh;
        const Tensor& v = inDType(x, t, xh);
        Tensor out(t, p.dims);
        visitKernelDType(c, t, [&](auto tag) {
            using T = typename decltype(tag)::type;
            const T* in = v.data<T>();
            T* o = out.data<T>();
            for (int64_t ou = 0; ou < p.lanes.outer; ++ou)
                for (int64_t i = 0; i < p.lanes.inner; ++i) {
                    decltype(loadElement(T{})) acc{};
                    for (int64_t s = 0; s < p.lanes.n; ++s) {
                        const int64_t j = p.reverse ? p.lanes.n - 1 - s : s;
                        const int64_t e = (ou * p.lanes.n + j) * p.lanes.inner + i;
                        if (p.exclusive) { o[e] = storeElement<T>(acc); acc += loadElement(in[e]); }
                        else { acc += loadElement(in[e]); o[e] = storeElement<T>(acc); }
                    }
                }
        });
        return out;
    };
    k["pd_op.cumsum"] = [cumsum](Context& c) {
        const Tensor& x = c.x(0);
        c.setOut(0, cumsum(c, x, cumsumParams(c, x.dims, false), c.outDType(0)));
    };
    k["pd_op.cumsum_grad"] = [cumsum](Context& c) {
        const Tensor& x = c.x(0);
        const Tensor& g = c.x(1);
        if (g.numel() != x.numel()) c.fail("out_grad " + dimsString(g.dims) + " does not match x " + dimsString(x.dims));
        const CumsumParams p = cumsumParams(c, x.dims, true);
        Tensor out = cumsum(c, g, p, c.outDType(0));  // g's storage scanned as p.dims (same count)
        out.dims = x.dims;
        c.setOut(0, std::move(out));
    };
}

}  // namespace rx::exec::cpu
