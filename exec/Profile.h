#pragma once
// Profiling a rewrite: run the original and the rewritten program on the same seeded inputs,
// compare their fetches, and set measured memory and time per op beside the memory model's
// figures. The report is what `recompute-cli profile` writes (FORMATS.md "Profile report")
// and what the explorer's profile panel draws. Qt-free.
#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "exec/Executor.h"
#include "exec/Verify.h"

namespace rx::exec {

struct OpProfile {
    int64_t index = 0;          // position in the program's global block
    OpId op = kNoId;            // the op (ids of the original survive in the rewritten program)
    std::string name;           // op name, e.g. "pd_op.matmul"
    std::string result;         // first result's value name (may be empty)
    double ms = 0;              // measured kernel time: the median over the repeats
    double msMin = 0, msMax = 0;  // the spread over the repeats
    int64_t liveBytes = 0;      // measured: bytes held after the op (dead values freed)
    int64_t peakBytes = 0;      // measured: bytes held while it ran
    int64_t resultBytes = 0;    // bytes its results added
    int64_t modelLiveBytes = -1;  // the memory model's bytes alive while it runs (-1: not given)
    bool recompute = false;     // a clone made by the rewrite
};

struct RunProfile {
    int64_t peakBytes = 0;        // measured
    int64_t peakOpIndex = 0;
    int64_t modelPeakBytes = -1;  // the liveness model's (-1: not given)
    int64_t peakReservedBytes = -1;  // a caching device allocator's reserved peak (-1: none)
    double totalMs = 0;           // step time: the median over the repeats
    double totalMsMin = 0, totalMsMax = 0;
    int64_t backwardStartIndex = -1;  // first op after the forward (-1: unknown)
    std::vector<OpProfile> ops;
};

struct ProfileReport {
    std::string device = "cpu";
    bool equivalent = false;
    VerifyReport verify;               // comparison details (first difference, counts)
    RunProfile original, rewritten;
    double recomputeOverheadMs = 0;    // sum of the recompute (clone) ops' median times
    double recomputeOverheadPct = 0;   // of the original step's median time
    double stepTimeDifferenceMs = 0;   // rewritten median step - original median step (noisier)
    int repeats = 0;                   // measured runs of each program (after the warm-up)
    int warmupRuns = 0;                // unmeasured runs of each program before them
    int recomputedOps = 0;
    uint64_t seed = 0;
    bool cancelled = false;
};

struct ProfileInputs {
    const Program* original = nullptr;
    const Program* rewritten = nullptr;
    std::vector<OpId> clones;                       // recompute ops in `rewritten`
    int64_t fwdOpEndIdx = -1;                       // of the original (spec)
    int64_t backwardOpStartIdx = -1;                // of the original (spec); -1: fwdOpEndIdx + 1
    std::vector<int64_t> modelLiveOriginal, modelLiveRewritten;  // per global op, may be empty
    int64_t modelPeakOriginal = -1, modelPeakRewritten = -1;
};

struct ProfileOptions {
    VerifyOptions verify;                                 // seed, tolerance, resident values
    const std::atomic<bool>* cancel = nullptr;
    // (ops done, ops in all) over both runs together.
    std::function<void(size_t, size_t)> progress;
    RunOptions limits;                                    // size limits (other fields ignored)
    // Backends with a caching allocator (CUDA): the reserved peak of the run just finished.
    std::function<int64_t()> peakReservedOfLastRun;
    // Timing: warm-up runs of both programs (caches, pages, BLAS threads), then `repeats`
    // runs of the original and the rewritten program interleaved; times are medians.
    int warmupRuns = 1;
    int repeats = 5;
};

// Runs both programs with `executor` (CPU when null): warm-up, then the repeats interleaved
// (original, rewritten, original, ...). Memory and equivalence come from the first measured
// pair (every run of a program holds the same bytes); times are medians with min/max.
// Throws rx::Error if either cannot run or repeats < 1.
ProfileReport profilePrograms(const ProfileInputs& inputs, const ProfileOptions& options, Executor* executor = nullptr);

// The top `n` ops of a run by time and by result bytes (indices into RunProfile::ops).
std::vector<size_t> topOpsByTime(const RunProfile& run, size_t n);
std::vector<size_t> topOpsByBytes(const RunProfile& run, size_t n);

// FORMATS.md "Profile report" as JSON text (RapidJSON), and both runs as Chrome trace
// event JSON (loads in Perfetto / chrome://tracing): one process per run, an X event per op,
// a live-bytes counter, and an instant event at the forward/backward boundary.
std::string profileReportJson(const ProfileReport& report, const std::string& programPath = {});
std::string chromeTraceJson(const ProfileReport& report);

// Writes `text` to `path` through a temporary file in the same folder and a rename, so a
// failed write never leaves a half-written file; throws rx::Error naming the path.
void writeFileAtomically(const std::string& path, const std::string& text);

}  // namespace rx::exec
