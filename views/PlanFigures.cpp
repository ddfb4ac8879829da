// Lifetimes, roles and FLOP estimates behind the explorer's summary and memory view.
#include "views/PlanFigures.h"
#include "exec/Liveness.h"

#include <algorithm>

namespace rx {

const char* memoryRoleName(MemoryRole role) {
    switch (role) {
    case MemoryRole::Resident: return "resident";
    case MemoryRole::HeldForBackward: return "held for backward";
    case MemoryRole::RecomputedClone: return "recomputed clone";
    case MemoryRole::Gradient: return "gradient";
    case MemoryRole::Temporary: return "temporary";
    }
    return "";
}

ProgramLifetimes computeLifetimes(const Program& program, const LifetimeOptions& options) {
    ProgramLifetimes out;
    const auto& gops = program.globalBlock().ops;
    const size_t n = gops.size();
    out.opCount = uint32_t(n);
    // The one liveness (exec/Liveness.h): aliases own nothing, storage lives to the last use of
    // any alias, feeds and parameters are resident.
    const std::vector<uint8_t> resident =
        exec::residentValuesOf(program, std::vector<ValueId>(options.resident.begin(), options.resident.end()));
    const exec::Liveness liveness = exec::analyzeLiveness(program, resident);
    std::vector<uint8_t> isClone(program.ops().size(), 0);
    for (OpId c : options.clones)
        if (c < isClone.size()) isClone[c] = 1;

    for (size_t i = 0; i < n; ++i) {
        const OpId op = gops[i];
        const std::string_view name = program.opName(op);
        const bool gradOp = name.size() > 5 && name.substr(name.size() - 5) == "_grad";
        for (ValueId r : program.op(op).results)
          for (size_t element = 0; element < liveness.buffersOf[r].size(); ++element) {  // a vector: one band per element
            const exec::Liveness::Buffer& buf = liveness.buffers[liveness.buffersOf[r][element]];
            if (buf.owner != r || !buf.bytes) continue;
            if (buf.death == exec::Liveness::kNever) {  // resident (or kept by a resident alias)
                out.residentBytes += buf.bytes;
                out.residentDefs.emplace_back(uint32_t(i), buf.bytes);
                continue;
            }
            ValueLifetime lt;
            lt.value = r;
            if (program.types()[program.value(r).type].kind == Type::Kind::Vector)
                lt.element = int32_t(element);
            lt.begin = uint32_t(i);
            lt.end = std::max<uint32_t>(uint32_t(i), buf.death);
            lt.bytes = buf.bytes;
            const bool forward = int64_t(i) <= options.fwdOpEndIdx;
            if (isClone[op]) lt.role = MemoryRole::RecomputedClone;
            else if (forward && int64_t(lt.end) > options.fwdOpEndIdx) lt.role = MemoryRole::HeldForBackward;
            // Backward results of grad ops, or living past the next op (accumulated), count as gradients.
            else if (!forward && options.fwdOpEndIdx >= 0 && (gradOp || lt.end > lt.begin + 1)) lt.role = MemoryRole::Gradient;
            else lt.role = MemoryRole::Temporary;
            out.values.push_back(lt);
          }
    }
    return out;
}

int64_t ProgramLifetimes::liveBytesAt(uint32_t op) const {
    int64_t live = 0;
    for (const auto& [at, bytes] : residentDefs)
        if (at <= op) live += bytes;
    for (const auto& lt : values)
        if (lt.begin <= op && op <= lt.end) live += lt.bytes;
    return live;
}

std::vector<ValueLifetime> ProgramLifetimes::liveAt(uint32_t op) const {
    std::vector<ValueLifetime> out;
    for (const auto& lt : values)
        if (lt.begin <= op && op <= lt.end) out.push_back(lt);
    std::stable_sort(out.begin(), out.end(), [](const ValueLifetime& a, const ValueLifetime& b) { return a.bytes > b.bytes; });
    return out;
}

namespace {

const Type* tensorType(const Program& p, ValueId v) {
    if (v == kNoId || v >= p.values().size()) return nullptr;
    const Type& t = p.types()[p.value(v).type];
    return t.kind == Type::Kind::DenseTensor ? &t : nullptr;
}

bool boolAttr(const Operation& op, std::string_view key) {
    const Attribute* a = op.attribute(key);
    return a && a->kind == Attribute::Kind::Bool && a->boolValue;
}

}  // namespace

double estimateOpFlops(const Program& program, OpId op) {
    const Operation& o = program.op(op);
    const std::string_view name = program.opName(op);
    double outElems = 0;
    for (ValueId r : o.results) outElems += double(std::max<int64_t>(0, program.types().elementCount(program.value(r).type)));
    const bool matmul = name == "pd_op.matmul" || name == "pd_op.bmm" || name == "pd_op.mm" || name == "pd_op.linear" ||
                        name == "pd_op.fused_gemm_epilogue" || name == "pd_op.addmm";
    if (matmul && !o.operands.empty()) {
        if (const Type* x = tensorType(program, o.operands[0]); x && !x->dims.empty()) {
            const bool tx = boolAttr(o, "transpose_x");
            const size_t k = x->dims.size() >= 2 && tx ? x->dims.size() - 2 : x->dims.size() - 1;
            const double kd = double(std::max<int64_t>(1, x->dims[k]));
            return 2.0 * outElems * kd;
        }
    }
    const bool reduce = name.find("sum") != std::string_view::npos || name.find("mean") != std::string_view::npos ||
                        name.find("max") != std::string_view::npos || name.find("softmax") != std::string_view::npos;
    if (reduce && !o.operands.empty() && o.operands[0] != kNoId)
        return std::max(outElems, double(std::max<int64_t>(0, program.types().elementCount(program.value(o.operands[0]).type))));
    return outElems;
}

double estimateFlops(const Program& program, std::span<const OpId> ops) {
    double total = 0;
    for (OpId op : ops)
        if (op < program.ops().size()) total += estimateOpFlops(program, op);
    return total;
}

PlanPeaks planPeaks(const MemoryProfile& original, const MemoryProfile& rewritten) {
    PlanPeaks p;
    p.known = original.ok() && rewritten.ok();
    if (!p.known) return p;
    p.peakBefore = original.peakBytes;
    p.peakAfter = rewritten.peakBytes;
    p.activationBefore = original.activationPeakBytes();
    p.activationAfter = rewritten.activationPeakBytes();
    return p;
}

}  // namespace rx
