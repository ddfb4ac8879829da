// Lifetimes of a program's values and a host replay of their allocations.
#include "cuda/LifetimePlan.h"

#include <algorithm>
#include <map>

#include "cuda/CachingAllocator.h"

namespace rx::cuda {

bool isInputOpName(std::string_view name) {
    return name == "pd_op.data" || name == "builtin.parameter" || name == "pd_op.feed";
}

LifetimePlan planLifetimes(const Program& program, const std::optional<std::vector<ValueId>>& residentValues,
                           bool inputsResident) {
    LifetimePlan plan;
    const Block& block = program.globalBlock();
    plan.order.assign(block.ops.begin(), block.ops.end());
    const size_t nOps = plan.order.size();
    std::vector<int64_t> lastUse(program.values().size(), -1);
    for (size_t pos = 0; pos < nOps; ++pos)
        for (ValueId v : program.op(plan.order[pos]).operands)
            if (v != kNoId) lastUse[v] = static_cast<int64_t>(pos);
    plan.resident.assign(program.values().size(), 0);
    if (residentValues) {
        for (ValueId v : *residentValues) if (v < plan.resident.size()) plan.resident[v] = 1;
    } else if (inputsResident) {
        for (OpId op : plan.order)
            if (isInputOpName(program.opName(op))) for (ValueId r : program.op(op).results) plan.resident[r] = 1;
    }
    plan.dieAfter.resize(nOps);
    for (size_t pos = 0; pos < nOps; ++pos)
        for (ValueId r : program.op(plan.order[pos]).results) {
            if (plan.resident[r]) continue;
            int64_t last = std::max<int64_t>(lastUse[r], static_cast<int64_t>(pos));
            plan.dieAfter[static_cast<size_t>(last)].push_back(r);
        }
    return plan;
}

ReplayStats replayAllocations(const Program& program, const LifetimePlan& plan) {
    HostBackingStore store(~size_t(0) >> 1);
    CachingAllocator alloc(store);
    std::map<ValueId, uintptr_t> held;
    ReplayStats out;
    for (size_t pos = 0; pos < plan.order.size(); ++pos) {
        for (ValueId r : program.op(plan.order[pos]).results) {
            const Type& t = program.types()[program.value(r).type];
            if (t.kind != Type::Kind::DenseTensor) continue;  // vectors alias their elements
            held[r] = alloc.allocate(static_cast<size_t>(program.valueBytes(r)));
        }
        if (alloc.stats().requestedBytes >= out.peakRequestedBytes) out.fragmentationAtPeak = alloc.fragmentation();
        out.peakRequestedBytes = alloc.stats().peakRequestedBytes;
        for (ValueId v : plan.dieAfter[pos])
            if (auto it = held.find(v); it != held.end()) { alloc.free(it->second); held.erase(it); }
    }
    out.peakAllocatedBytes = alloc.stats().peakAllocatedBytes;
    out.peakReservedBytes = alloc.stats().peakReservedBytes;
    return out;
}

}  // namespace rx::cuda
