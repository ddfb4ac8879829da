// Reduction kernels: sum, mean, max, min, prod, any, all and the sum/mean grads.
#include "algorithms/exec/KernelContext.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

namespace rx::exec::cpu {

void registerReduceKernels(KernelTable& table) {
    auto& k = table.kernels;
    // -- reductions --
    auto reduceKernel = [](int kind) {  // 0 sum, 1 mean, 2 max, 3 min, 4 prod
        return [kind](Context& c) {
            const Tensor& x = c.x(0);
            Dims axes = c.has(1) ? c.ints(1) : c.attrInts("axis");
            bool keep = c.attrBool("keepdim", false);
            bool all = c.attrBool("reduce_all", false);
            ReducePlan p = planReduce(c, x.dims, axes, all);
            size_t on = static_cast<size_t>(numelOf(p.outDims));
            double init = kind == 2 ? -INFINITY : kind == 3 ? INFINITY : kind == 4 ? 1.0 : 0.0;
            std::vector<double> acc(on, init);
            std::vector<double> v = x.toDoubles();
            for (size_t i = 0; i < v.size(); ++i) {
                double& a = acc[p.target[i]];
                switch (kind) {
                case 0: case 1: a += v[i]; break;
                case 2: a = std::max(a, v[i]); break;
                case 3: a = std::min(a, v[i]); break;
                default: a *= v[i]; break;
                }
            }
            if (kind == 1 && on > 0) {
                double count = static_cast<double>(v.size()) / static_cast<double>(on);
                for (double& a : acc) a /= count;
            }
            c.setOutDoubles(0, keep ? p.outDims : p.outDimsNoKeep, acc);
        };
    };
    k["pd_op.sum"] = reduceKernel(0);
    k["pd_op.mean"] = reduceKernel(1);
    k["pd_op.max"] = reduceKernel(2);
    k["pd_op.min"] = reduceKernel(3);
    k["pd_op.prod"] = reduceKernel(4);
    // sum_grad / mean_grad(x, out_grad[, axis]): broadcast the gradient back to x.
    auto reduceGrad = [](bool mean) {
        return [mean](Context& c) {
            const Tensor& x = c.x(0);
            const Tensor& g = c.x(1);
            Dims axes = c.has(2) ? c.ints(2) : c.attrInts("axis");
            ReducePlan p = planReduce(c, x.dims, axes, c.attrBool("reduce_all", false));
            if (numelOf(p.outDims) != g.numel()) c.fail("gradient does not match the reduced shape");
            std::vector<double> gv = g.toDoubles(), out(static_cast<size_t>(x.numel()));
            double scale = mean ? static_cast<double>(numelOf(p.outDims)) / static_cast<double>(std::max<int64_t>(x.numel(), 1)) : 1.0;
            for (size_t i = 0; i < out.size(); ++i) out[i] = gv[p.target[i]] * scale;
            c.setOutDoubles(0, x.dims, out);
        };
    };
    k["pd_op.sum_grad"] = reduceGrad(false);
    k["pd_op.mean_grad"] = reduceGrad(true);

    auto anyAll = [](bool any) {
        return [any](Context& c) {
            const Tensor& x = c.x(0);
            Dims axes = c.has(1) ? c.ints(1) : c.attrInts("axis");
            bool keep = c.attrBool("keepdim", false);
            ReducePlan p = planReduce(c, x.dims, axes, c.attrBool("reduce_all", false));
            std::vector<double> acc(static_cast<size_t>(numelOf(p.outDims)), any ? 0.0 : 1.0);
            for (int64_t i = 0; i < x.numel(); ++i) {
                bool b = x.get(i) != 0;
                double& a = acc[p.target[i]];
                a = any ? (a != 0 || b) : (a != 0 && b);
            }
            c.setOutDoubles(0, keep ? p.outDims : p.outDimsNoKeep, acc);
        };
    };
    k["pd_op.any"] = anyAll(true);
    k["pd_op.all"] = anyAll(false);
}

}  // namespace rx::exec::cpu
