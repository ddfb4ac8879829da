#pragma once
// The executor interface: runs a Program on host inputs and returns the fetched tensors plus
// what the memory model needs to be checked against (live bytes after every op, peak).
// Executor::run is the one entry point: it validates the program (kernels, dtypes, the check
// pass of OpSemantics.h under RunOptions' limits), then hands the backend's execute() a
// RunControl through which progress is reported and cancel honoured. Backends run programs
// through exec/BlockInterpreter.h; CpuExecutor (exec/cpu/CpuExecutor.h) is the reference
// backend, cuda/CudaExecutor the GPU one.
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "exec/Liveness.h"
#include "exec/OpSemantics.h"
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

// A fetched (or captured) value as a run produces it, handed to RunOptions::fetchSink: the
// tensor is the run's own and lives only for the call (copy what must outlive it).
struct FetchView {
    bool captured = false;        // a RunResult::values entry (captureValues / keepAllValues), else a fetch
    std::string_view fetchName;   // the fetch op's name attribute (empty for captured values)
    std::string_view valueName;   // the value's name, e.g. "%88"
    const Tensor& tensor;
};

struct RunOptions {
    // Also return every tensor value of the global block, keyed by value name (costly; for
    // debugging). Fetches are always returned.
    bool keepAllValues = false;
    bool recordOpTimes = true;
    // RunResult::ops, one record per top-level op (32 bytes each: 32 MB in a 1M-op run).
    // When false it stays empty; the peak, times and fetches are as ever (verify reads no more).
    bool keepOpRecords = true;
    // Keep data/parameter values for the whole run (as the memory model counts them); when
    // false they are freed after their last use like every other value.
    bool inputsResident = true;
    // When set, these values and every feed and parameter are resident instead (e.g. a
    // recompute spec's inputs: what the memory model counts, exec/Liveness.h);
    // inputsResident is then ignored.
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
    // Values held on cf stacks at once; 0 = no limit. Their tensors count in maxTotalBytes,
    // but a loop that never ends pushing small values grew by the stacks' own bookkeeping
    // (~100 bytes a value) until the allocator failed. 16M: a million-step loop pushing
    // a dozen values a step.
    size_t maxStackedValues = size_t(1) << 24;
    // Checked between ops; set from another thread to stop a run (RunResult::cancelled).
    const std::atomic<bool>* cancel = nullptr;
    // Called after every top-level op with (ops done, ops in all), on the running thread.
    std::function<void(size_t, size_t)> progress;
    // When set, every fetch and captured value is handed to it, in program order, as it is
    // produced, and none is kept in RunResult::fetches / values: a caller that compares or
    // discards them holds no copy (a 1M-op program fetches hundreds of MiB of gradients).
    std::function<void(const FetchView&)> fetchSink;
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
    std::vector<OpRecord> ops;              // one per executed top-level op, in order (RunOptions::keepOpRecords)
    int64_t peakBytes = 0;                  // max over ops of OpRecord::peakBytes
    int64_t inputBytes = 0;                 // bytes of data/parameter values
    double totalMs = 0;
    bool cancelled = false;
    std::vector<std::string> generatedInputs;  // input names filled with seeded random data
    ControlPath controlPath;                // the branch each if took, the iterations each while ran

    const FetchedValue* fetch(std::string_view valueName) const;
};

// What Executor::run hands a backend's execute(): the check pass's result, the values that never
// die, and the per-op hooks. A backend calls stopRequested() before each top-level op (and
// stops, setting RunResult::cancelled, when it is true) and opDone() after each.
class RunControl {
public:
    RunControl(const RunOptions& options, ProgramCheck check, std::vector<uint8_t> resident, size_t opCount)
        : options_(options), check_(std::move(check)), resident_(std::move(resident)), opCount_(opCount) {}
    bool stopRequested() const { return options_.cancel && options_.cancel->load(); }
    void opDone(size_t done) const { if (options_.progress) options_.progress(done, opCount_); }
    size_t opCount() const { return opCount_; }
    // The check pass's figures (largest value, peak, multiply-adds); its shapes are not kept.
    const ProgramCheck& check() const { return check_; }
    // By ValueId: 1 = kept for the whole run (RunOptions::residentValues / inputsResident).
    const std::vector<uint8_t>& resident() const { return resident_; }

private:
    const RunOptions& options_;
    ProgramCheck check_;
    std::vector<uint8_t> resident_;
    size_t opCount_;
};

// The limits of the check pass, from a run's options.
RunLimits limitsOf(const RunOptions& options);
// By ValueId, the values a run keeps for its whole length under `options`.
std::vector<uint8_t> residentMask(const Program& program, const RunOptions& options);
// pd_op.data, pd_op.feed, builtin.parameter: the ops whose result a run is given (or seeds).
bool isInputOpName(std::string_view name);

// For a process about to run programs whose tensors dwarf everything else it holds: blocks of
// 256 KiB and more are mmap-ed (so freeing one returns it to the kernel) and freed heap is
// handed back now, so the resident set follows the bytes a run holds. The CLI's heap set-up
// for solves (app/cli/WarmUp.cpp: no mmap, no trim) would otherwise keep every freed block of
// the solve and of each run. glibc only; elsewhere nothing. Not for timed runs: a fresh mmap
// per tensor puts page faults inside the kernels' times (profile uses returnFreedHeap).
void useHeapForRuns();
// Hands the heap the solve freed back to the kernel and lets the heap trim again, leaving the
// allocator's reuse of freed tensor blocks (and so kernel times) as it was. glibc only.
void returnFreedHeap();

class Executor {
public:
    virtual ~Executor() = default;
    virtual std::string name() const = 0;
    // Names of ops in `program` (any block) that this backend cannot run, sorted, unique.
    // A run of a program with unsupported ops throws rx::Error naming them before any op runs.
    virtual std::vector<std::string> unsupportedOps(const Program& program) const = 0;
    // Validates (unsupported ops, dtypes, checkProgram under the options' limits; rx::Error
    // before any op runs), then execute(). Not virtual: every backend gets the same checks.
    RunResult run(const Program& program, const RunInputs& inputs, const RunOptions& options);

protected:
    // "CPU", "CUDA": how error messages name the backend.
    virtual std::string label() const { return name(); }
    // Dtypes this backend holds tensors of (default: isSupportedDType).
    virtual bool supportsDType(DType t) const { return isSupportedDType(t); }
    // Runs a validated program. Must call control.stopRequested() / opDone() around each
    // top-level op.
    virtual RunResult execute(const Program& program, const RunInputs& inputs, const RunOptions& options,
                              const RunControl& control) = 0;
};

}  // namespace rx::exec
