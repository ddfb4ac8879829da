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
        const DropoutParams d = dropoutParams(c, c.runSeed);
        const double p = d.p;
        const bool isTest = d.isTest, upscale = d.upscale;
        const uint64_t key = d.key;
        auto kept = [&](int64_t i) { return isTest || (p < 1.0 && uniformAt(key, static_cast<size_t>(i)) >= p); };
        auto value = [&](int64_t i, double e) {
            if (isTest) return upscale ? e : e * (1.0 - p);
            return kept(i) ? (upscale ? e / (1.0 - p) : e) : 0.0;
        };
        c.setOut(0, generatedTensorFrom(x, c.outDType(0), value));
        if (c.outputs.size() > 1 && !c.resultIsNull(1))
            c.setOut(1, generatedTensor(c.outDType(1), x.dims, [&](int64_t i) { return kept(i) ? 1.0 : 0.0; }));
    };
    k["pd_op.dropout_grad"] = [](Context& c) {
        // (mask, out_grad[, p])
        const Tensor& mask = c.x(0);
        const Tensor& g = c.x(1);
        const DropoutParams d = dropoutParams(c);
        const double p = d.p;
        const bool isTest = d.isTest, upscale = d.upscale;
        c.setOut(0, generatedTensorFrom(g, c.outDType(0), [&](int64_t i, double e) {
            if (isTest) return upscale ? e : e * (1.0 - p);
            return mask.get(i) != 0 ? (upscale ? e / (1.0 - p) : e) : 0.0;
        }));
    };

    // Seeded random ops (keyed, like dropout, by the run seed and the result's name).
    k["pd_op.uniform"] = [](Context& c) {
        const RandomParams r = uniformParams(c, c.runSeed);
        c.requireElements(r.shape);
        c.setOut(0, generatedTensor(c.outDType(0), r.shape, [&](int64_t i) { return r.low + (r.high - r.low) * uniformAt(r.key, static_cast<size_t>(i)); }));
    };
    k["pd_op.randint"] = [](Context& c) {
        const RandomParams r = randintParams(c, c.runSeed);
        c.requireElements(r.shape);
        const int64_t lo = static_cast<int64_t>(r.low), span = static_cast<int64_t>(r.high) - lo;
        c.setOut(0, generatedTensor(c.outDType(0), r.shape, [&](int64_t i) {
            return static_cast<double>(lo + static_cast<int64_t>(uniformAt(r.key, static_cast<size_t>(i)) * static_cast<double>(span)));
        }));
    };
}

}  // namespace rx::exec::cpu
