// Executor::run: the validation every backend gets before its execute() (Executor.h).
#include "exec/Executor.h"

#include <algorithm>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "exec/Liveness.h"
#include "exec/OpSemantics.h"
#include "model/Diagnostic.h"
#include "model/OpTraits.h"

namespace rx::exec {

const FetchedValue* RunResult::fetch(std::string_view valueName) const {
    for (const FetchedValue& f : fetches)
        if (f.valueName == valueName || f.fetchName == valueName) return &f;
    return nullptr;
}

bool isInputOpName(std::string_view name) { return isInputOp(name); }

RunLimits limitsOf(const RunOptions& o) {
    RunLimits l;
    l.maxElementsPerValue = o.maxElementsPerValue;
    l.maxBytesPerValue = o.maxBytesPerValue;
    l.maxTotalBytes = o.maxTotalBytes;
    l.maxMultiplyAdds = o.maxMultiplyAdds;
    return l;
}

std::vector<uint8_t> residentMask(const Program& program, const RunOptions& options) {
    std::vector<uint8_t> resident(program.values().size(), 0);
    if (options.residentValues) return residentValuesOf(program, *options.residentValues);
    if (options.inputsResident) {
        for (OpId op : program.globalBlock().ops)
            if (isInputOpName(program.opName(op))) for (ValueId r : program.op(op).results) resident[r] = 1;
    }
    return resident;
}

void useHeapForRuns() {
#if defined(__GLIBC__)
    mallopt(M_MMAP_THRESHOLD, 256 * 1024);  // fixed: glibc no longer raises it after a free
    mallopt(M_MMAP_MAX, 1 << 20);
    mallopt(M_TRIM_THRESHOLD, 32 * 1024 * 1024);
    malloc_trim(0);
#endif
}

void returnFreedHeap() {
#if defined(__GLIBC__)
    mallopt(M_TRIM_THRESHOLD, 32 * 1024 * 1024);
    malloc_trim(0);
#endif
}

RunResult Executor::run(const Program& program, const RunInputs& inputs, const RunOptions& options) {
    refuseUnrunnable(program, unsupportedOps(program), label(), [this](DType t) { return supportsDType(t); });
    std::vector<uint8_t> resident = residentMask(program, options);
    ProgramCheck check = checkProgram(program, limitsOf(options), resident);
    // No backend reads the propagated shapes once the check passed; dropped, they do not sit
    // beside the run's tensors (an optional vector and its heap block per value: ~64 MB at 1M ops).
    check.shapes = {};
    const RunControl control(options, std::move(check), std::move(resident), program.globalBlock().ops.size());
    if (control.stopRequested()) {
        RunResult cancelled;
        cancelled.cancelled = true;
        return cancelled;
    }
    RunResult result = execute(program, inputs, options, control);
    // A run stopped short has fewer records than ops (without records, the backend says so itself).
    if (control.stopRequested() && options.keepOpRecords)
        result.cancelled = result.cancelled || result.ops.size() < control.opCount();
    return result;
}

}  // namespace rx::exec
