#pragma once
// Equivalence by execution: run the original and the rewritten program on the same seeded
// inputs and compare every fetched value. The CPU executor is deterministic and a rewrite
// only clones ops, so the default demands identical bits; a tolerance can be stated for
// backends (or programs) where that cannot hold.
#include <memory>
#include <atomic>
#include <functional>
#include <map>
#include <optional>
#include <string>

#include "exec/Executor.h"

namespace rx::exec {

struct VerifyOptions {
    uint64_t seed = 0;
    // 0 and 0: bitwise. Else |a-b| <= atol + rtol*|b| per element (NaN == NaN).
    double rtol = 0.0;
    double atol = 0.0;
    // Resident values for both runs' memory figures (e.g. the spec's inputs); default: every
    // data/parameter value. Value ids of the original survive in the rewritten program.
    std::optional<std::vector<ValueId>> residentValues;
    // Set from another thread to stop between ops (verifyPrograms then throws "verify cancelled").
    const std::atomic<bool>* cancel = nullptr;
    // When set, verifyPrograms stores its stage: 1 running the original, 2 the rewritten, 3 comparing.
    std::atomic<int>* stage = nullptr;
};

struct ValueDifference {
    std::string valueName;    // name in the original program
    std::string fetchName;
    int64_t index = -1;       // first differing element (-1: shape or dtype differs)
    double original = 0, rewritten = 0;
    std::string reason;       // "shape", "dtype", "value", "missing"
};

struct VerifyReport {
    bool equivalent = false;
    int compared = 0;                  // fetched values compared
    int bitwiseEqual = 0;              // of those, identical bits
    double maxAbsDifference = 0;
    std::optional<ValueDifference> firstDifference;
    int64_t originalPeakBytes = 0, rewrittenPeakBytes = 0;
    double originalMs = 0, rewrittenMs = 0;
    std::string summary() const;       // one paragraph for the CLI / a status bar
};

// Compares two runs' fetches in order (fetch i of one against fetch i of the other), then
// the captured values (RunResult::values) present in both, by name.
VerifyReport compareRuns(const RunResult& original, const RunResult& rewritten, const VerifyOptions& options);

// Compares a second run against a first one while the second runs, holding neither run's
// fetches in memory: the first run hands its fetches and captured values to firstRunSink(),
// which writes them to an unlinked temporary file (kept in memory only if that file cannot be
// written); the second run hands its own to sink(), which reads the first run's counterpart
// back, compares, and keeps only the outcome. finish() then gives what compareRuns(first,
// second) gives (same counts, first difference, max |difference|), in the same order.
class StreamingComparison {
public:
    explicit StreamingComparison(const VerifyOptions& options);
    ~StreamingComparison();
    StreamingComparison(const StreamingComparison&) = delete;  // the sinks capture `this`
    StreamingComparison& operator=(const StreamingComparison&) = delete;

    // For the first run's RunOptions::fetchSink; then firstRunDone with its result.
    std::function<void(const FetchView&)> firstRunSink();
    void record(const FetchView& produced);
    void firstRunDone(const RunResult& first);
    // The first run's fetches and values from a finished run, read in place (`first` must
    // outlive the comparison): what compareRuns does.
    void borrowFirstRun(const RunResult& first);

    // For the second run's RunOptions::fetchSink.
    std::function<void(const FetchView&)> sink();
    void compare(const FetchView& produced);
    // `second`: the second run's result (its memory and time; its fetches, if any, are ignored).
    VerifyReport finish(const RunResult& second);

    // Bytes of the first run's tensors held in memory (not in the file, not yet compared).
    int64_t heldFirstRunBytes() const;
    // Bytes of them in the temporary file.
    int64_t spilledFirstRunBytes() const { return fileBytes_; }

private:
    // One compared pair: identical bits, the largest |difference|, the first difference.
    struct Outcome {
        bool bitwise = false;
        double maxAbsDifference = 0;
        std::optional<ValueDifference> difference;
    };
    // A first-run tensor: its names and where its data is (in the file, held, or borrowed).
    struct Stored {
        std::string fetchName, valueName;
        DType dtype = DType::Float32;
        std::vector<int64_t> dims;
        int64_t fileOffset = -1;
        Tensor held;
        const Tensor* borrowed = nullptr;
        bool compared = false;
    };
    static Outcome compareTensors(const Tensor& a, const Tensor& b, const std::string& valueName,
                                  const std::string& fetchName, const VerifyOptions& options);
    Stored store(const FetchView& produced);
    Tensor load(Stored& stored) const;  // the data (moved out of `held`; read back from the file)
    Outcome compareWith(Stored& stored, const Tensor& produced);

    VerifyOptions options_;
    int fd_ = -1;                                    // the unlinked temporary file (-1: none yet / none possible)
    bool fileFailed_ = false;
    int64_t fileBytes_ = 0;
    int64_t firstPeakBytes_ = 0;
    double firstMs_ = 0;
    std::vector<Stored> fetches_;                    // the first run's, in order
    std::map<std::string, Stored> values_;           // the first run's captured values, by name
    std::vector<Outcome> fetchOutcomes_;             // by the second run's fetch index
    std::vector<ValueDifference> extraFetches_;      // "missing": fetches beyond the first run's
    std::map<std::string, Outcome> valueOutcomes_;   // captured values of the first run, by name
};

// verifyPrograms in two steps, for a caller that frees or builds things between the runs
// (the CLI runs the original before it solves, so no run shares the memory with two programs).
class Verification {
public:
    explicit Verification(const VerifyOptions& options, Executor* executor = nullptr);
    ~Verification();
    // Runs the original (its fetches go to the comparison's file). Throws rx::Error if it
    // cannot run or was cancelled. Once; the original is not read afterwards.
    void runOriginal(const Program& original);
    // Runs the rewritten program, comparing as it fetches; after runOriginal, once.
    VerifyReport runRewritten(const Program& rewritten);

private:
    VerifyOptions options_;
    std::unique_ptr<Executor> ownedExecutor_;  // the CPU backend when none was given
    Executor* executor_;
    RunInputs inputs_;
    RunOptions runOptions_;
    std::unique_ptr<StreamingComparison> comparison_;
};

// Runs both programs with `executor` (CPU when null). Throws rx::Error if either cannot run.
// A program without pd_op.fetch is compared on its sinks (values nobody reads), by name.
VerifyReport verifyPrograms(const Program& original, const Program& rewritten, const VerifyOptions& options,
                            Executor* executor = nullptr);
// The same, letting go of `original` once it has run: a caller that hands over its last
// reference has the original program freed before the rewritten one runs.
VerifyReport verifyPrograms(std::shared_ptr<const Program> original, const Program& rewritten, const VerifyOptions& options,
                            Executor* executor = nullptr);

}  // namespace rx::exec
