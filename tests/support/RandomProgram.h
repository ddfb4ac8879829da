#pragma once
// Seeded random joint programs (forward chain with combine/split, a gradient seed, backward
// ops reading forward values, result-less backward ops) for property tests of any area.
#include <random>
#include <string_view>

#include "support/ProgramBuilder.h"

namespace rx::test {

struct RandomProgram {
    ProgramBuilder b;
    RecomputeSpec spec;
};

inline RandomProgram makeRandomProgram(uint32_t seed) {
    std::mt19937 rng(seed);
    auto pick = [&](int n) { return int(rng() % uint32_t(n)); };
    RandomProgram rp;
    ProgramBuilder& b = rp.b;
    const std::vector<TypeId> types{b.f32({8, 8}), b.f32({8, 1}), b.f32({2, 8}), b.f32({8}), b.f32({0}), b.f32({16, 8})};
    auto type = [&] { return types[size_t(pick(int(types.size())))]; };
    std::vector<ValueId> fw, inputs;
    const int nInputs = 1 + pick(3);
    for (int i = 0; i < nInputs; ++i) { inputs.push_back(b.op("pd_op.data", {}, type())); fw.push_back(inputs.back()); }
    auto recent = [&](const std::vector<ValueId>& pool) {
        const int n = int(pool.size());
        const int window = std::min(n, 6);
        return pick(3) == 0 ? pool[size_t(pick(n))] : pool[size_t(n - 1 - pick(window))];
    };
    static const char* unary[] = {"pd_op.exp", "pd_op.sin", "pd_op.relu", "pd_op.cast", "pd_op.tanh", "pd_op.dropout", "pd_op.sum", "pd_op.slice", "pd_op.reshape"};
    static const char* binary[] = {"pd_op.add", "pd_op.multiply", "pd_op.matmul", "pd_op.divide", "pd_op.subtract"};
    const int nFw = 4 + pick(30);
    for (int i = 0; i < nFw; ++i) {
        const int kind = pick(10);
        if (kind < 4) fw.push_back(b.op(unary[pick(9)], {recent(fw)}, type()));
        else if (kind < 8) fw.push_back(b.op(binary[pick(5)], {recent(fw), recent(fw)}, type()));
        else if (kind == 8) fw.push_back(b.op(pick(2) ? "pd_op.full" : "pd_op.full_int_array", {}, type()));
        else if (pick(2)) {
            const ValueId x = recent(fw), y = recent(fw);
            const TypeId vt = b.p.internType(Type::vector({b.p.value(x).type, b.p.value(y).type}));
            const ValueId c = b.op("builtin.combine", {x, y}, vt);
            fw.push_back(b.op("pd_op.concat", {c}, type()));
        } else {
            const TypeId t = type();
            const ValueId s = b.op("pd_op.split", {recent(fw)}, b.p.internType(Type::vector({t, t})));
            for (ValueId r : b.ops("builtin.split", {s}, {t, t})) fw.push_back(r);
        }
    }
    const int fwdEnd = b.index();
    std::vector<ValueId> outputs{fw.back()};
    const ValueId grad = b.op("pd_op.full", {}, b.p.value(fw.back()).type);
    const int bwdStart = b.index() + 1;
    std::vector<ValueId> bw{grad};
    static const char* bwOps[] = {"pd_op.multiply", "pd_op.add", "pd_op.exp", "pd_op.matmul", "pd_op.mean_grad", "pd_op.add_grad", "pd_op.sum", "pd_op.relu_grad"};
    const int nBw = 3 + pick(30);
    for (int i = 0; i < nBw; ++i) {
        const int kind = pick(20);
        const ValueId f = fw[size_t(pick(int(fw.size())))];
        if (kind == 0) { b.noResult("builtin.shadow_output", {f}); continue; }
        const char* name = bwOps[pick(8)];
        if (std::string_view(name) == "pd_op.add_grad") bw.push_back(b.op(name, {f, recent(fw), recent(bw)}, type()));
        else if (kind < 12) bw.push_back(b.op(name, {f, recent(bw)}, type()));
        else bw.push_back(b.op(name, {recent(bw), recent(bw)}, type()));
    }
    rp.spec = makeSpec(fwdEnd, bwdStart, inputs, outputs);
    return rp;
}

}  // namespace rx::test
