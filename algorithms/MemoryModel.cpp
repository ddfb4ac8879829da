// The memory model: exec/Liveness.h's bytes per op, plus the forward/backward boundary.
#include "algorithms/MemoryModel.h"

#include <algorithm>

#include "exec/Liveness.h"
#include "model/CheckedMath.h"

namespace rx {

namespace {

MemoryProfile overflow(const std::string& what) {
    MemoryProfile failed;
    failed.error = "memory model: " + what + " does not fit in 64-bit byte counts (above 8 EiB)";
    return failed;
}

}  // namespace

MemoryProfile profileMemory(const Program& program, std::span<const ValueId> resident, int64_t fwdOpEndIdx) {
    const std::vector<uint8_t> residentMask =
        exec::residentValuesOf(program, std::vector<ValueId>(resident.begin(), resident.end()));
    return profileMemoryFrom(program, exec::analyzeLiveness(program, residentMask), fwdOpEndIdx);
}

MemoryProfile profileMemoryFrom(const Program& program, const exec::Liveness& liveness, int64_t fwdOpEndIdx) {
    exec::LiveBytes live = exec::liveBytesOf(program, liveness);
    if (!live.error.empty()) {
        MemoryProfile failed;
        failed.error = live.error;
        return failed;
    }
    MemoryProfile prof;
    prof.residentBytes = live.residentBytes;
    prof.peakBytes = live.peakBytes;
    prof.peakOpIndex = live.peakIndex;
    prof.liveBytes = std::move(live.perOp);
    for (const exec::Liveness::Buffer& b : liveness.buffers) {
        if (b.death == exec::Liveness::kNever || !b.bytes) continue;
        if (int64_t(b.birth) <= fwdOpEndIdx && int64_t(b.death) > fwdOpEndIdx) {
            auto sum = checkedAdd(prof.boundaryActivationBytes, b.bytes);
            if (!sum) return overflow("the bytes alive at the forward/backward boundary");
            prof.boundaryActivationBytes = *sum;
        }
    }
    auto boundary = checkedAdd(prof.boundaryActivationBytes, prof.residentBytes);
    if (!boundary) return overflow("the bytes alive at the forward/backward boundary");
    prof.boundaryBytes = *boundary;
    return prof;
}

}  // namespace rx
