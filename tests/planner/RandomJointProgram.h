#pragma once
// Random small joint forward+backward programs for the planner's tests (exact mode compares on them).
#include <memory>
#include <random>

#include "model/Program.h"
#include "model/RecomputeSpec.h"
#include "support/ProgramBuilder.h"

namespace rx::test {

// A random small joint program: `fwd` forward ops over tensors of random sizes, a gradient
// seed, and `bwd` backward ops each reading a forward value and the previous gradient.
struct SmallProgram {
    std::shared_ptr<Program> program;
    RecomputeSpec spec;
};

inline SmallProgram randomProgram(uint32_t seed, int fwd, int bwd) {
    std::mt19937 rng(seed);
    ProgramBuilder b;
    const int64_t n = 1 << (6 + rng() % 4);
    const ValueId x = b.op("pd_op.data", {}, b.f32({n, n}), {{"name", Attribute::string("x")}});
    const ValueId w = b.op("builtin.parameter", {}, b.f32({n, n}), {{"parameter_name", Attribute::string("w")}});
    std::vector<ValueId> fw{x};
    static const char* kUnary[] = {"pd_op.exp", "pd_op.relu", "pd_op.tanh", "pd_op.sigmoid"};
    static const char* kBinary[] = {"pd_op.add", "pd_op.multiply", "pd_op.subtract"};
    for (int i = 0; i < fwd; ++i) {
        const ValueId a = fw[fw.size() - 1 - rng() % std::min<size_t>(fw.size(), 3)];
        const int kind = int(rng() % 4);
        if (kind == 0) fw.push_back(b.op("pd_op.matmul", {a, w}, b.f32({n, n})));
        else if (kind == 1) fw.push_back(b.op(kUnary[rng() % 4], {a}, b.f32({n, n})));
        else {
            const ValueId c = fw[rng() % fw.size()];
            fw.push_back(b.op(kBinary[rng() % 3], {a, c}, b.f32({n, n})));
        }
    }
    const ValueId loss = b.op("pd_op.mean", {fw.back()}, b.f32({}));
    const int fwdEnd = b.index();
    ValueId g = b.op("pd_op.full", {}, b.f32({n, n}));
    const int bwdStart = b.index();
    for (int i = 0; i < bwd; ++i) {
        const ValueId v = fw[1 + rng() % (fw.size() - 1)];
        g = b.op("pd_op.multiply", {g, v}, b.f32({n, n}));
    }
    b.noResult("pd_op.fetch", {g});
    SmallProgram out;
    out.program = b.program;
    out.spec = makeSpec(fwdEnd, bwdStart + 0, {x}, {loss});
    out.spec.backwardOpStartIdx = bwdStart;
    return out;
}

}  // namespace rx::test
