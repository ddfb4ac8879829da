// Lifetimes of a program's values and a host replay of their allocations.
#include "cuda/LifetimePlan.h"

#include <algorithm>
#include <map>

#include "cuda/CachingAllocator.h"
#include "exec/Executor.h"

namespace rx::cuda {

bool isInputOpName(std::string_view name) { return exec::isInputOpName(name); }

LifetimePlan planLifetimes(const Program& program, const std::optional<std::vector<ValueId>>& residentValues,
                           bool inputsResident) {
    LifetimePlan plan;
    const Block& block = program.globalBlock();
    plan.order.assign(block.ops.begin(), block.ops.end());
    exec::RunOptions options;
    options.residentValues = residentValues;
    options.inputsResident = inputsResident;
    plan.resident = exec::residentMask(program, options);
    plan.liveness = exec::analyzeLiveness(program, plan.resident);
    plan.dieAfter = plan.liveness.valuesDeadAfter;
    return plan;
}

ReplayStats replayAllocations(const Program& program, const LifetimePlan& plan) {
    (void)program;
    HostBackingStore store(~size_t(0) >> 1);
    CachingAllocator alloc(store);
    std::map<uint32_t, uintptr_t> held;
    ReplayStats out;
    for (size_t pos = 0; pos < plan.order.size(); ++pos) {
        for (uint32_t b : plan.liveness.allocatedAt[pos])
            held[b] = alloc.allocate(static_cast<size_t>(plan.liveness.buffers[b].bytes));
        if (alloc.stats().requestedBytes >= out.peakRequestedBytes) out.fragmentationAtPeak = alloc.fragmentation();
        out.peakRequestedBytes = alloc.stats().peakRequestedBytes;
        for (uint32_t b : plan.liveness.freedAfter[pos])
            if (auto it = held.find(b); it != held.end()) { alloc.free(it->second); held.erase(it); }
    }
    out.peakAllocatedBytes = alloc.stats().peakAllocatedBytes;
    out.peakReservedBytes = alloc.stats().peakReservedBytes;
    return out;
}

}  // namespace rx::cuda
