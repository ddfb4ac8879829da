// Elementwise kernels: the unary table, binary ops with broadcasting, gelu, pow, scale, clip, cast, where, add_n, tril/triu, logit, swiglu.
#include "exec/cpu/KernelContext.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

namespace rx::exec::cpu {

void registerElementwiseKernels(KernelTable& table) {
    auto& k = table.kernels;
    // -- elementwise --
    for (const auto& [name, fn] : unaryTable()) {
        auto f = fn;
        k[std::string(name)] = [f](Context& c) {
            const Tensor& x = c.x(0);
            std::vector<double> v = x.toDoubles();
            for (double& e : v) e = f(e);
            c.setOutDoubles(0, x.dims, v);
        };
    }
    k["pd_op.gelu"] = [](Context& c) {
        bool approx = c.attrBool("approximate", false);
        const Tensor& x = c.x(0);
        std::vector<double> v = x.toDoubles();
        for (double& e : v) e = gelu(e, approx);
        c.setOutDoubles(0, x.dims, v);
    };
    k["pd_op.pow"] = [](Context& c) {
        double y = c.has(1) ? c.scalar(1) : c.attrFloat("y", 1.0);
        const Tensor& x = c.x(0);
        std::vector<double> v = x.toDoubles();
        for (double& e : v) e = (y == 2.0) ? e * e : std::pow(e, y);
        c.setOutDoubles(0, x.dims, v);
    };
    k["pd_op.scale"] = [](Context& c) {
        double s = c.has(1) ? c.scalar(1) : c.attrFloat("scale", 1.0);
        double b = c.attrFloat("bias", 0.0);
        bool after = c.attrBool("bias_after_scale", true);
        const Tensor& x = c.x(0);
        std::vector<double> v = x.toDoubles();
        for (double& e : v) e = after ? e * s + b : (e + b) * s;
        c.setOutDoubles(0, x.dims, v);
    };
    k["pd_op.clip"] = [](Context& c) {
        double lo = c.has(1) ? c.scalar(1) : c.attrFloat("min", -INFINITY);
        double hi = c.has(2) ? c.scalar(2) : c.attrFloat("max", INFINITY);
        const Tensor& x = c.x(0);
        std::vector<double> v = x.toDoubles();
        for (double& e : v) e = std::min(std::max(e, lo), hi);
        c.setOutDoubles(0, x.dims, v);
    };
    k["pd_op.cast"] = [](Context& c) {
        const Tensor& x = c.x(0);
        std::vector<double> v = x.toDoubles();
        if (c.outDType(0) == DType::Bool) for (double& e : v) e = e != 0.0;
        c.setOutDoubles(0, x.dims, v);
    };
    for (int code = 0; code < static_cast<int>(std::size(kBinaryOps)); ++code) {
        const int n = code;
        k[kBinaryOps[code]] = [n](Context& c) {
            const Tensor& a = c.x(0);
            const Tensor& b = c.x(1);
            Dims od = broadcastDims(c, a.dims, b.dims);
            std::vector<double> av = a.toDoubles(), bv = b.toDoubles();
            bool integer = !isFloat(c.outDType(0)) && c.outDType(0) != DType::Bool;
            std::vector<double> out(static_cast<size_t>(numelOf(od)));
            if (a.dims == od && b.dims == od) {  // no broadcasting: skip the index maps
                for (size_t i = 0; i < out.size(); ++i) out[i] = binaryApply(n, av[i], bv[i], integer);
            } else if (a.dims == od && b.numel() == 1) {
                for (size_t i = 0; i < out.size(); ++i) out[i] = binaryApply(n, av[i], bv[0], integer);
            } else {
                std::vector<int64_t> ia = broadcastIndex(a.dims, od), ib = broadcastIndex(b.dims, od);
                for (size_t i = 0; i < out.size(); ++i) out[i] = binaryApply(n, av[ia[i]], bv[ib[i]], integer);
            }
            c.setOutDoubles(0, od, out);
        };
    }
    k["pd_op.where"] = [](Context& c) {
        const Tensor& cond = c.x(0);
        const Tensor& a = c.x(1);
        const Tensor& b = c.x(2);
        Dims od = broadcastDims(c, broadcastDims(c, cond.dims, a.dims), b.dims);
        auto ic = broadcastIndex(cond.dims, od), ia = broadcastIndex(a.dims, od), ib = broadcastIndex(b.dims, od);
        std::vector<double> out(ic.size());
        for (size_t i = 0; i < ic.size(); ++i) out[i] = cond.get(ic[i]) != 0 ? a.get(ia[i]) : b.get(ib[i]);
        c.setOutDoubles(0, od, out);
    };
    k["pd_op.add_n"] = [](Context& c) {
        const auto& l = c.list(0);
        if (l.empty()) c.fail("add_n of nothing");
        std::vector<double> acc = l[0]->toDoubles();
        for (size_t i = 1; i < l.size(); ++i) {
            if (l[i]->dims != l[0]->dims) c.fail("add_n of different shapes");
            std::vector<double> v = l[i]->toDoubles();
            for (size_t j = 0; j < acc.size(); ++j) acc[j] += v[j];
        }
        c.setOutDoubles(0, l[0]->dims, acc);
    };
    auto triKernel = [](bool lower) {
        return [lower](Context& c) {
            const Tensor& x = c.x(0);
            if (x.dims.size() < 2) c.fail("tril/triu need rank >= 2");
            int64_t diag = c.attrInt("diagonal", 0);
            int64_t rows = x.dims[x.dims.size() - 2], cols = x.dims.back();
            std::vector<double> v = x.toDoubles();
            for (size_t e = 0; e < v.size(); ++e) {
                int64_t j = static_cast<int64_t>(e) % cols, i = (static_cast<int64_t>(e) / cols) % rows;
                bool keep = lower ? (j - i <= diag) : (j - i >= diag);
                if (!keep) v[e] = 0;
            }
            c.setOutDoubles(0, x.dims, v);
        };
    };
    k["pd_op.tril"] = triKernel(true);
    k["pd_op.triu"] = triKernel(false);
    // tril_grad / triu_grad (out_grad) {diagonal}: the mask is its own adjoint.
    k["pd_op.tril_grad"] = triKernel(true);
    k["pd_op.triu_grad"] = triKernel(false);

    k["pd_op.logit"] = [](Context& c) {
        double eps = c.attrFloat("eps", 0.0);
        const Tensor& x = c.x(0);
        std::vector<double> v = x.toDoubles();
        for (double& e : v) {
            double p = eps > 0 ? std::clamp(e, eps, 1.0 - eps) : e;
            e = std::log(p / (1.0 - p));
        }
        c.setOutDoubles(0, x.dims, v);
    };
    k["pd_op.swiglu"] = [](Context& c) {
        // silu(x) * y; with no y, x's last axis holds [x | y].
        const Tensor& x = c.x(0);
        std::vector<double> xv = x.toDoubles(), out;
        Dims od = x.dims;
        if (c.has(1)) {
            if (c.x(1).dims != x.dims) c.fail("swiglu operands differ in shape");
            std::vector<double> yv = c.x(1).toDoubles();
            out.resize(xv.size());
            for (size_t i = 0; i < xv.size(); ++i) out[i] = xv[i] * sigmoid(xv[i]) * yv[i];
        } else {
            if (od.empty() || od.back() % 2) c.fail("swiglu without y needs an even last axis");
            int64_t h = od.back() / 2, rows = x.numel() / std::max<int64_t>(od.back(), 1);
            od.back() = h;
            out.resize(static_cast<size_t>(rows * h));
            for (int64_t r = 0; r < rows; ++r)
                for (int64_t j = 0; j < h; ++j) {
                    double a = xv[r * 2 * h + j], b = xv[r * 2 * h + h + j];
                    out[r * h + j] = a * sigmoid(a) * b;
                }
        }
        c.setOutDoubles(0, od, out);
    };
}

}  // namespace rx::exec::cpu
