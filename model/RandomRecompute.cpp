// How random ops may be recomputed under --recompute-random (see RandomRecompute.h).
#include "model/RandomRecompute.h"

#include "model/OpTraits.h"

namespace rx {

std::optional<RandomRecompute> parseRandomRecompute(std::string_view text) {
    if (text == "off") return RandomRecompute::Off;
    if (text == "mask") return RandomRecompute::Mask;
    if (text == "seed") return RandomRecompute::Seed;
    return std::nullopt;
}

std::string_view randomRecomputeName(RandomRecompute mode) {
    switch (mode) {
    case RandomRecompute::Mask: return "mask";
    case RandomRecompute::Seed: return "seed";
    case RandomRecompute::Off: break;
    }
    return "off";
}

namespace {
bool boolAttribute(const Operation& o, std::string_view key) {
    const Attribute* a = o.attribute(key);
    return a && a->kind == Attribute::Kind::Bool && a->boolValue;
}

bool isFloatScalarValue(const Program& p, ValueId v) {
    if (v == kNoId || v >= p.values().size()) return false;
    const Type& t = p.types()[p.value(v).type];
    if (t.kind != Type::Kind::DenseTensor) return false;
    if (t.dtype != DType::Float16 && t.dtype != DType::BFloat16 && t.dtype != DType::Float32 && t.dtype != DType::Float64)
        return false;
    int64_t n = 1;
    for (int64_t d : t.dims) n *= d;
    return n == 1;
}
}  // namespace

bool carriesFixedSeed(const Program& program, OpId op) { return boolAttribute(program.op(op), "fix_seed"); }

MaskApplication maskApplication(const Program& p, OpId dropout) {
    const Operation& o = p.op(dropout);
    MaskApplication m;
    if (o.results.size() >= 2) m.mask = o.results[1];
    if (!o.operands.empty()) m.x = o.operands[0];
    // p as the forward kernel finds it (exec/OpSemantics dropoutParams): the last 1-element
    // float operand after x; the attribute `p`, when present, wins in both kernels.
    for (size_t i = o.operands.size(); i-- > 1;)
        if (isFloatScalarValue(p, o.operands[i])) { m.p = o.operands[i]; break; }
    return m;
}

RandomCloneForm randomCloneForm(const Program& p, OpId op, RandomRecompute mode) {
    if (mode == RandomRecompute::Off || !hasOpTrait(p.opName(op), OpTrait::Random)) return RandomCloneForm::Never;
    const Operation& o = p.op(op);
    const bool dropout = p.opName(op) == "pd_op.dropout";
    if (mode == RandomRecompute::Seed) {
        if (carriesFixedSeed(p, op) || (dropout && boolAttribute(o, "is_test"))) return RandomCloneForm::Rerun;
        return RandomCloneForm::Never;
    }
    if (!dropout) return RandomCloneForm::Never;
    if (boolAttribute(o, "is_test")) return RandomCloneForm::Rerun;  // inference dropout draws nothing
    const MaskApplication m = maskApplication(p, op);
    if (m.mask == kNoId || m.x == kNoId || o.results.size() != 2) return RandomCloneForm::Never;
    const Type& maskType = p.types()[p.value(m.mask).type];
    if (maskType.kind != Type::Kind::DenseTensor) return RandomCloneForm::Never;  // no mask result to save
    return RandomCloneForm::ApplyMask;
}

}  // namespace rx
