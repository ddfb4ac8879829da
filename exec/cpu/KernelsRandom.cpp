// Seeded random kernels: dropout (and its grad), uniform, randint; keyed by the run seed and the result name.
#include "exec/cpu/KernelContext.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

namespace rx::exec::cpu {

void registerRandomKernels(KernelTable& table) {
    auto& k = table.kernels;
    // -- dropout (seeded by the run seed and the op's first result name) --
    k["pd_op.dropout"] = [](Context& c) {
        const Tensor& x = c.x(0);
        const DropoutParams d = dropoutParams(c);
        const double p = d.p;
        const bool isTest = d.isTest, upscale = d.upscale;
        std::vector<double> v = x.toDoubles(), mask(v.size(), 1.0);
        if (isTest) {
            if (!upscale) for (double& e : v) e *= (1.0 - p);
        } else {
            uint64_t key = randomOpKey(c, c.runSeed);
            for (size_t i = 0; i < v.size(); ++i) {
                bool keep = p < 1.0 && uniformAt(key, i) >= p;
                mask[i] = keep;
                v[i] = keep ? (upscale ? v[i] / (1.0 - p) : v[i]) : 0.0;
            }
        }
        c.setOutDoubles(0, x.dims, v);
        if (c.outputs.size() > 1 && !c.resultIsNull(1)) c.setOutDoubles(1, x.dims, mask);
    };
    k["pd_op.dropout_grad"] = [](Context& c) {
        // (mask, out_grad[, p])
        const Tensor& mask = c.x(0);
        const Tensor& g = c.x(1);
        const DropoutParams d = dropoutParams(c);
        const double p = d.p;
        const bool isTest = d.isTest, upscale = d.upscale;
        std::vector<double> gv = g.toDoubles();
        for (size_t i = 0; i < gv.size(); ++i) {
            if (isTest) { if (!upscale) gv[i] *= (1.0 - p); continue; }
            gv[i] = mask.get(static_cast<int64_t>(i)) != 0 ? (upscale ? gv[i] / (1.0 - p) : gv[i]) : 0.0;
        }
        c.setOutDoubles(0, g.dims, gv);
    };

    // Seeded random ops (keyed, like dropout, by the run seed and the result's name).
    k["pd_op.uniform"] = [](Context& c) {
        const RandomParams r = uniformParams(c, c.runSeed);
        c.requireElements(r.shape);
        std::vector<double> v(static_cast<size_t>(numelOf(r.shape)));
        for (size_t i = 0; i < v.size(); ++i) v[i] = r.low + (r.high - r.low) * uniformAt(r.key, i);
        c.setOutDoubles(0, r.shape, v);
    };
    k["pd_op.randint"] = [](Context& c) {
        const RandomParams r = randintParams(c, c.runSeed);
        c.requireElements(r.shape);
        const int64_t lo = static_cast<int64_t>(r.low), span = static_cast<int64_t>(r.high) - lo;
        std::vector<double> v(static_cast<size_t>(numelOf(r.shape)));
        for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(lo + static_cast<int64_t>(uniformAt(r.key, i) * static_cast<double>(span)));
        c.setOutDoubles(0, r.shape, v);
    };
}

}  // namespace rx::exec::cpu
