#include "algorithms/MemoryModel.h"
#include "algorithms/LastUse.h"

#include <algorithm>

#include "model/CheckedMath.h"

namespace rx {

namespace {

// A value's size, or nothing when its type's size does not fit in int64 (TypeTable saturates).
bool valueSize(const Program& program, ValueId v, int64_t& bytes) {
    bytes = program.valueBytes(v);
    return bytes != kInt64Max;
}

MemoryProfile overflow(const std::string& what) {
    MemoryProfile failed;
    failed.error = "memory model: " + what + " does not fit in 64-bit byte counts (above 8 EiB)";
    return failed;
}

}  // namespace

MemoryProfile profileMemory(const Program& program, std::span<const ValueId> resident, int64_t fwdOpEndIdx) {
    MemoryProfile prof;
    const auto& gops = program.globalBlock().ops;
    const size_t n = gops.size();

    std::vector<uint8_t> isResident(program.values().size(), 0);
    for (ValueId v : resident)
        if (v < isResident.size()) isResident[v] = 1;
    const uint32_t paramId = program.findOpName("builtin.parameter");
    for (OpId op : gops)
        if (program.op(op).nameId == paramId)
            for (ValueId r : program.op(op).results) isResident[r] = 1;
    for (ValueId v = 0; v < program.values().size(); ++v) {
        if (!isResident[v]) continue;
        int64_t bytes = 0;
        if (!valueSize(program, v, bytes)) return overflow("the size of resident value " + program.value(v).name);
        auto sum = checkedAdd(prof.residentBytes, bytes);
        if (!sum) return overflow("the resident bytes (at " + program.value(v).name + ")");
        prof.residentBytes = *sum;
    }

    const std::vector<uint32_t> lastUse = lastUseByGlobalIndex(program);
    // delta[i]: bytes allocated at op i minus bytes freed after op i-1.
    std::vector<int64_t> delta(n + 1, 0);
    for (size_t i = 0; i < n; ++i) {
        for (ValueId r : program.op(gops[i]).results) {
            if (isResident[r]) continue;
            int64_t bytes = 0;
            if (!valueSize(program, r, bytes)) return overflow("the size of value " + program.value(r).name);
            if (!bytes) continue;
            const size_t last = std::max<size_t>(i, lastUse[r]);
            auto up = checkedAdd(delta[i], bytes), down = checkedSub(delta[last + 1], bytes);
            if (!up || !down) return overflow("the bytes allocated around value " + program.value(r).name);
            delta[i] = *up;
            delta[last + 1] = *down;
            if (int64_t(i) <= fwdOpEndIdx && int64_t(last) > fwdOpEndIdx) {
                auto b = checkedAdd(prof.boundaryActivationBytes, bytes);
                if (!b) return overflow("the bytes alive at the forward/backward boundary");
                prof.boundaryActivationBytes = *b;
            }
        }
    }
    auto boundary = checkedAdd(prof.boundaryActivationBytes, prof.residentBytes);
    if (!boundary) return overflow("the bytes alive at the forward/backward boundary");
    prof.boundaryBytes = *boundary;
    prof.liveBytes.resize(n);
    int64_t live = prof.residentBytes;
    prof.peakBytes = live;
    for (size_t i = 0; i < n; ++i) {
        auto next = checkedAdd(live, delta[i]);
        if (!next) return overflow("the live bytes at op " + std::to_string(i) + " (" + std::string(program.opName(gops[i])) + ")");
        live = *next;
        prof.liveBytes[i] = live;
        if (live > prof.peakBytes) {
            prof.peakBytes = live;
            prof.peakOpIndex = uint32_t(i);
        }
    }
    return prof;
}

}  // namespace rx
