#pragma once
// Peak memory by the one liveness analysis (exec/Liveness.h: aliases, vector results counted
// at the op producing them, buffers freed after the last use of any value referring to them,
// feeds and parameters resident). Figures for charts and the report.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "model/Program.h"

namespace rx {

struct MemoryProfile {
    int64_t peakBytes = 0;            // max over ops of liveBytes
    uint32_t peakOpIndex = 0;         // global-block index where the peak occurs
    int64_t residentBytes = 0;        // inputs, feeds and parameters (counted from the op defining them)
    int64_t boundaryBytes = 0;        // alive between op fwdEnd and op fwdEnd+1 (resident included)
    int64_t boundaryActivationBytes = 0;  // the same without resident values
    std::vector<int64_t> liveBytes;   // per global op: bytes alive while it runs (operands + results)
    // Set when a figure would not fit in int64 (a value of exabytes, or their sum): the
    // profile is then empty rather than wrong. Names the value or op where it happened.
    std::string error;
    bool ok() const { return error.empty(); }
    // The peak less what is resident throughout: what a recompute plan can change. The
    // explorer's Summary and Memory Budget dock both show it beside peakBytes.
    int64_t activationPeakBytes() const { return peakBytes - residentBytes; }
};

// `resident`: values alive throughout (spec inputs; feeds and parameters are added).
// Every sum is overflow-checked (model/CheckedMath.h): exact figures or `error`, never wrapped.
MemoryProfile profileMemory(const Program& program, std::span<const ValueId> resident, int64_t fwdOpEndIdx);
// The same from the program's liveness (exec::analyzeLiveness), for a caller that needs the
// liveness too: on a 1M-op program each analysis costs a second.
namespace exec { struct Liveness; }
MemoryProfile profileMemoryFrom(const Program& program, const exec::Liveness& liveness, int64_t fwdOpEndIdx);

}  // namespace rx
