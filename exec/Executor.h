#pragma once
// The executor interface: runs a Program on host inputs and returns the fetched tensors plus
// what the memory model needs to be checked against (live bytes after every op, peak).
// CpuExecutor (exec/cpu/CpuExecutor.h) is the reference backend; a GPU backend
// implements the same interface later.
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "exec/Tensor.h"
#include "model/Program.h"

namespace rx::exec {

// Inputs by the name a program gives them: the `name` attribute of `pd_op.data` / `pd_op.feed`, the
// `parameter_name` of `builtin.parameter`. An input not given is filled with seeded random
// values derived from (seed, name), so two programs with the same inputs get the same data.
struct RunInputs {
    std::map<std::string, Tensor> byName;
    uint64_t seed = 0;
};

struct RunOptions {
    // Also return every tensor value of the global block, keyed by value name (costly; for
    // debugging). Fetches are always returned.
    bool keepAllValues = false;
    bool recordOpTimes = true;
    // Keep data/parameter values for the whole run (as the memory model counts them); when
    // false they are freed after their last use like every other value.
    bool inputsResident = true;
    // When set, exactly these values are resident instead (e.g. a recompute spec's inputs,
    // which is what the memory model counts); inputsResident is then ignored.
    std::optional<std::vector<ValueId>> residentValues;
    // Values (by name) to return in RunResult::values besides the fetches, e.g. the
    // program's sinks when it has no pd_op.fetch.
    std::vector<std::string> captureValues;
    // Refuse (rx::Error, before any op runs: exec/OpSemantics.h validates every op
    // and propagates shapes) programs with a value above this many elements
    // or more multiply-adds than this in matmul/conv2d; 0 = no limit. The defaults keep a
    // CPU reference run under a few GiB and a few minutes (matmul and conv run on OpenBLAS).
    int64_t maxElementsPerValue = int64_t(1) << 27;
    int64_t maxMultiplyAdds = int64_t(2'000'000'000'000);
    // Bytes of one value, and of all values live at once, on the shapes propagated by the
    // check pass (OpSemantics.h) and again while running; 0 = no limit.
    int64_t maxBytesPerValue = int64_t(1) << 31;
    int64_t maxTotalBytes = int64_t(6) << 30;
    // Checked between ops; set from another thread to stop a run (RunResult::cancelled).
    const std::atomic<bool>* cancel = nullptr;
    // Called after every top-level op with (ops done, ops in all), on the running thread.
    std::function<void(size_t, size_t)> progress;
};

// One `pd_op.fetch` (or `builtin.shadow_output`) target.
struct FetchedValue {
    std::string fetchName;   // the fetch op's `name` attribute (or output name), may be empty
    std::string valueName;   // the fetched operand's value name, e.g. "%88"
    Tensor tensor;
};

struct OpRecord {
    OpId op = kNoId;
    double micros = 0;       // wall time of the kernel
    int64_t liveBytes = 0;   // bytes held after the op ran and dead values were freed
    int64_t peakBytes = 0;   // bytes held while the op ran (operands + all its results)
};

struct RunResult {
    std::vector<FetchedValue> fetches;      // in program order
    std::map<std::string, Tensor> values;   // RunOptions::keepAllValues / captureValues
    std::vector<OpRecord> ops;              // one per executed top-level op, in order
    int64_t peakBytes = 0;                  // max over ops of OpRecord::peakBytes
    int64_t inputBytes = 0;                 // bytes of data/parameter values
    double totalMs = 0;
    bool cancelled = false;
    std::vector<std::string> generatedInputs;  // input names filled with seeded random data

    const FetchedValue* fetch(std::string_view valueName) const;
};

class Executor {
public:
    virtual ~Executor() = default;
    virtual std::string name() const = 0;
    // Names of ops in `program` (any block) that this backend cannot run, sorted, unique.
    // A run of a program with unsupported ops throws rx::Error naming them before any op runs.
    virtual std::vector<std::string> unsupportedOps(const Program& program) const = 0;
    virtual RunResult run(const Program& program, const RunInputs& inputs, const RunOptions& options) = 0;
};

}  // namespace rx::exec
