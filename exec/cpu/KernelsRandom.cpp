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
        double p = dropoutP(c);
        bool isTest = c.attrBool("is_test", false);
        bool upscale = c.attrString("mode", "upscale_in_train") == "upscale_in_train";
        std::vector<double> v = x.toDoubles(), mask(v.size(), 1.0);
        if (isTest) {
            if (!upscale) for (double& e : v) e *= (1.0 - p);
        } else {
            uint64_t key = hashString(c.resultName(0), c.runSeed ^ static_cast<uint64_t>(c.attrInt("seed", 0)));
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
        double p = c.hasAttr("p") ? c.attrFloat("p", 0.5) : (c.has(2) ? c.scalar(2) : 0.5);
        bool isTest = c.attrBool("is_test", false);
        bool upscale = c.attrString("mode", "upscale_in_train") == "upscale_in_train";
        std::vector<double> gv = g.toDoubles();
        for (size_t i = 0; i < gv.size(); ++i) {
            if (isTest) { if (!upscale) gv[i] *= (1.0 - p); continue; }
            gv[i] = mask.get(static_cast<int64_t>(i)) != 0 ? (upscale ? gv[i] / (1.0 - p) : gv[i]) : 0.0;
        }
        c.setOutDoubles(0, g.dims, gv);
    };

    // Seeded random ops (keyed, like dropout, by the run seed and the result's name).
    k["pd_op.uniform"] = [](Context& c) {
        Dims shape = c.has(0) ? c.ints(0) : c.attrInts("shape");
        double lo = c.has(1) ? c.scalar(1) : c.attrFloat("min", -1.0);
        double hi = c.has(2) ? c.scalar(2) : c.attrFloat("max", 1.0);
        c.requireElements(shape);
        uint64_t key = hashString(c.resultName(0), c.runSeed ^ static_cast<uint64_t>(c.attrInt("seed", 0)));
        std::vector<double> v(static_cast<size_t>(numelOf(shape)));
        for (size_t i = 0; i < v.size(); ++i) v[i] = lo + (hi - lo) * uniformAt(key, i);
        c.setOutDoubles(0, shape, v);
    };
    k["pd_op.randint"] = [](Context& c) {
        Dims shape = c.has(0) ? c.ints(0) : c.attrInts("shape");
        int64_t lo = c.attrInt("low", 0), hi = c.attrInt("high", 2);
        if (hi <= lo) c.fail("randint needs high > low");
        c.requireElements(shape);
        uint64_t key = hashString(c.resultName(0), c.runSeed ^ 0x7261ull);
        std::vector<double> v(static_cast<size_t>(numelOf(shape)));
        for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(lo + static_cast<int64_t>(uniformAt(key, i) * static_cast<double>(hi - lo)));
        c.setOutDoubles(0, shape, v);
    };
}

}  // namespace rx::exec::cpu
