#pragma once
// When each value of a program's global block dies, from the one liveness analysis
// (exec/Liveness.h, the same rules as the CPU backend and the memory model). Shared by the
// CUDA executor and by allocator replays on the host.
#include <cstdint>
#include <optional>
#include <vector>

#include "exec/Liveness.h"
#include "model/Program.h"

namespace rx::cuda {

struct LifetimePlan {
    std::vector<OpId> order;                     // the global block's ops, in order
    exec::CompactLists<ValueId> dieAfter;        // per position: values freed after that op
    std::vector<uint8_t> resident;               // per value: kept for the whole run
    exec::Liveness liveness;                     // buffers, aliases, when storage is released
};

// residentValues given: those and every feed and parameter stay (exec::residentValuesOf);
// otherwise inputsResident keeps every result of pd_op.data / pd_op.feed / builtin.parameter.
LifetimePlan planLifetimes(const Program& program, const std::optional<std::vector<ValueId>>& residentValues,
                           bool inputsResident);

bool isInputOpName(std::string_view name);

// Replays `plan` through a fresh CachingAllocator over a fake store: each buffer of the
// liveness analysis allocates its declared bytes where it is allocated and is freed where
// it is released (aliases allocate nothing). What the real executor's
// allocator will see, without a device.
struct ReplayStats {
    int64_t peakRequestedBytes = 0;
    int64_t peakAllocatedBytes = 0;
    int64_t peakReservedBytes = 0;
    double fragmentationAtPeak = 0;
};
ReplayStats replayAllocations(const Program& program, const LifetimePlan& plan);

}  // namespace rx::cuda
