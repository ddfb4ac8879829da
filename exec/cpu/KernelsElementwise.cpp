// Elementwise kernels: the unary table, binary ops with broadcasting, gelu, pow, scale, clip, cast, where, add_n, tril/triu, logit, swiglu.
#include "exec/cpu/KernelContext.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

namespace rx::exec::cpu {

namespace {
// out = fn(x) in place of the old double-vector round trip, for the unary kernels below.
template <class Fn>
void setMapped(Context& c, Fn&& fn) {
    const Tensor& x = c.x(0);
    c.setOut(0, mapElements(x, c.outDType(0), [&](auto e) { return fn(static_cast<double>(e)); }));
}

// A binary op over broadcast operands, computed in the operands' dtype (int64_t arithmetic for
// integers and bool, double per element for the floating dtypes) and stored in the result's.
void binaryKernel(Context& c, int op) {
    const Tensor& a = c.x(0);
    const Tensor& b = c.x(1);
    const Dims od = c.broadcast(a.dims, b.dims);
    const DType ot = c.outDType(0);
    const bool integer = !isFloat(ot) && ot != DType::Bool;
    Tensor out(ot, od);
    const std::array<const Dims*, 2> ins{&a.dims, &b.dims};
    auto generic = [&] {
        forEachBroadcast(od, ins, [&](int64_t k, const auto& off) { out.set(k, binaryApply(op, a.get(off[0]), b.get(off[1]), integer)); });
    };
    auto typed = [&](auto inTag, auto outTag) {
        using T = typename decltype(inTag)::type;
        using O = typename decltype(outTag)::type;
        const T* av = a.data<T>();
        const T* bv = b.data<T>();
        O* o = out.data<O>();
        forEachBroadcast(od, ins, [&](int64_t k, const auto& off) {
            if constexpr (std::is_integral_v<T>) o[k] = storeElement<O>(binaryApplyInt(op, loadElement(av[off[0]]), loadElement(bv[off[1]])));
            else o[k] = storeElement<O>(binaryApply(op, loadElement(av[off[0]]), loadElement(bv[off[1]]), integer));
        });
    };
    if (a.dtype != b.dtype || (ot != a.dtype && ot != DType::Bool)) generic();
    else visitRealDType(a.dtype, [&](auto tag) {
        if (ot == a.dtype) typed(tag, tag);
        else typed(tag, std::type_identity<bool>{});
    }, generic);
    c.setOut(0, std::move(out));
}
}  // namespace

void registerElementwiseKernels(KernelTable& table) {
    auto& k = table.kernels;
    // -- elementwise --
    for (const auto& [name, fn] : unaryTable()) {
        auto f = fn;
        k[std::string(name)] = [f](Context& c) { setMapped(c, f); };
    }
    k["pd_op.gelu"] = [](Context& c) {
        const bool approx = geluParams(c).approximate;
        setMapped(c, [approx](double e) { return gelu(e, approx); });
    };
    k["pd_op.pow"] = [](Context& c) {
        const double y = powParams(c).exponent;
        setMapped(c, [y](double e) { return (y == 2.0) ? e * e : std::pow(e, y); });
    };
    k["pd_op.scale"] = [](Context& c) {
        const ScaleParams p = scaleParams(c);
        const double s = p.scale, b = p.bias;
        const bool after = p.biasAfterScale;
        setMapped(c, [=](double e) { return after ? e * s + b : (e + b) * s; });
    };
    k["pd_op.clip"] = [](Context& c) {
        const ClipParams p = clipParams(c);
        const double lo = p.min, hi = p.max;
        setMapped(c, [=](double e) { return std::min(std::max(e, lo), hi); });
    };
    k["pd_op.cast"] = [](Context& c) {
        const Tensor& x = c.x(0);
        const bool toBool = c.outDType(0) == DType::Bool;
        // Integers stay integers (exact past 2^53); anything to bool is "nonzero".
        c.setOut(0, mapElements(x, c.outDType(0), [toBool](auto e) {
            if constexpr (std::is_integral_v<decltype(e)>) return e;
            else return toBool ? static_cast<double>(e != 0.0) : static_cast<double>(e);
        }));
    };
    for (int code = 0; code < static_cast<int>(std::size(kBinaryOps)); ++code)
        k[kBinaryOps[code]] = [code](Context& c) { binaryKernel(c, code); };
    k["pd_op.where"] = [](Context& c) {
        const Tensor& cond = c.x(0);
        const Tensor& a = c.x(1);
        const Tensor& b = c.x(2);
        const Dims od = whereDims(cond.dims, a.dims, b.dims, c.failFn());
        Tensor out(c.outDType(0), od);
        const std::array<const Dims*, 3> ins{&cond.dims, &a.dims, &b.dims};
        auto generic = [&] {
            forEachBroadcast(od, ins, [&](int64_t k, const auto& off) { out.set(k, cond.get(off[0]) != 0 ? a.get(off[1]) : b.get(off[2])); });
        };
        if (a.dtype != out.dtype || b.dtype != out.dtype) generic();
        else visitRealDType(out.dtype, [&](auto tag) {
            using T = typename decltype(tag)::type;
            const T* av = a.data<T>();
            const T* bv = b.data<T>();
            T* o = out.data<T>();
            forEachBroadcast(od, ins, [&](int64_t k, const auto& off) { o[k] = cond.get(off[0]) != 0 ? av[off[1]] : bv[off[2]]; });
        }, generic);
        c.setOut(0, std::move(out));
    };
    k["pd_op.add_n"] = [](Context& c) {
        const auto& l = c.list(0);
        std::vector<Dims> parts;
        for (const TensorPtr& t : l) parts.push_back(t->dims);
        Tensor out(c.outDType(0), addNDims(c, parts));
        const int64_t n = out.numel();
        bool sameType = true;
        for (const TensorPtr& t : l) sameType = sameType && t->dtype == out.dtype;
        // Each element summed in the order of the list, in double (int64_t for integers).
        auto generic = [&] {
            for (int64_t e = 0; e < n; ++e) {
                double acc = l[0]->get(e);
                for (size_t i = 1; i < l.size(); ++i) acc += l[i]->get(e);
                out.set(e, acc);
            }
        };
        if (!sameType) generic();
        else visitRealDType(out.dtype, [&](auto tag) {
            using T = typename decltype(tag)::type;
            T* o = out.data<T>();
            for (int64_t e = 0; e < n; ++e) {
                auto acc = loadElement(l[0]->data<T>()[e]);
                for (size_t i = 1; i < l.size(); ++i) acc += loadElement(l[i]->data<T>()[e]);
                o[e] = storeElement<T>(acc);
            }
        }, generic);
        c.setOut(0, std::move(out));
    };
    auto triKernel = [](bool lower) {
        return [lower](Context& c) {
            const Tensor& x = c.x(0);
            const TriangleParams p = triangleParams(c, x.dims);
            const int64_t diag = p.diagonal, rows = p.rows, cols = p.cols;
            Tensor out = mapElements(x, c.outDType(0), [](auto e) { return e; });
            const int eb = dtypeBytes(out.dtype);
            for (int64_t e = 0; e < out.numel(); ++e) {
                int64_t j = e % cols, i = (e / cols) % rows;
                bool keep = lower ? (j - i <= diag) : (j - i >= diag);
                if (!keep) std::memset(out.bytes.data() + e * eb, 0, static_cast<size_t>(eb));  // 0 in every dtype
            }
            c.setOut(0, std::move(out));
        };
    };
    k["pd_op.tril"] = triKernel(true);
    k["pd_op.triu"] = triKernel(false);
    // tril_grad / triu_grad (out_grad) {diagonal}: the mask is its own adjoint.
    k["pd_op.tril_grad"] = triKernel(true);
    k["pd_op.triu_grad"] = triKernel(false);

    k["pd_op.logit"] = [](Context& c) {
        const double eps = logitParams(c).eps;
        setMapped(c, [eps](double e) {
            double p = eps > 0 ? std::clamp(e, eps, 1.0 - eps) : e;
            return std::log(p / (1.0 - p));
        });
    };
    k["pd_op.swiglu"] = [](Context& c) {
        // silu(x) * y; with no y, x's last axis holds [x | y].
        const Tensor& x = c.x(0);
        const SwigluGeom g = swigluGeometry(c, x.dims, false);
        const bool hasY = g.hasY;
        const int64_t h = g.half;
        Tensor out(c.outDType(0), g.outDims);
        // (x index, y index) of output element i
        auto at = [&](int64_t i) { return hasY ? std::pair{i, i} : std::pair{(i / h) * 2 * h + i % h, (i / h) * 2 * h + h + i % h}; };
        const Tensor& yt = hasY ? c.x(1) : x;
        auto generic = [&] {
            for (int64_t i = 0; i < out.numel(); ++i) {
                auto [xi, yi] = at(i);
                double a = x.get(xi);
                out.set(i, a * sigmoid(a) * yt.get(yi));
            }
        };
        if (x.dtype != out.dtype || yt.dtype != out.dtype) generic();
        else visitRealDType(out.dtype, [&](auto tag) {
            using T = typename decltype(tag)::type;
            const T* xv = x.data<T>();
            const T* yv = yt.data<T>();
            T* o = out.data<T>();
            for (int64_t i = 0; i < out.numel(); ++i) {
                auto [xi, yi] = at(i);
                double a = static_cast<double>(loadElement(xv[xi]));
                o[i] = storeElement<T>(a * sigmoid(a) * static_cast<double>(loadElement(yv[yi])));
            }
        }, generic);
        c.setOut(0, std::move(out));
    };
}

}  // namespace rx::exec::cpu
