// The CPU reference executor: the kernel table (one registration per family, Kernels*.cpp),
// the support check, and execute() (after Executor::run's checks): the shared block
// interpreter (exec/BlockInterpreter.h) over host tensors, storage metered as it is held.
#include "exec/cpu/CpuExecutor.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <functional>
#include <memory>
#include <numeric>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "exec/BlockInterpreter.h"
#include "exec/cpu/KernelContext.h"
#include "exec/Liveness.h"
#include "exec/OpSemantics.h"
#include "model/Diagnostic.h"

namespace rx::exec {
namespace {

using cpu::Context;
using cpu::Kernel;
using cpu::KernelTable;
using cpu::Slot;

const KernelTable& registry() {
    static const KernelTable table = [] {
        KernelTable t;
        cpu::registerShapeKernels(t);
        cpu::registerElementwiseKernels(t);
        cpu::registerReduceKernels(t);
        cpu::registerLinalgKernels(t);
        cpu::registerConvPoolKernels(t);
        cpu::registerNormKernels(t);
        cpu::registerRandomKernels(t);
        cpu::registerGradsKernels(t);
        cpu::registerComplexKernels(t);
        return t;
    }();
    return table;
}

const std::unordered_map<std::string, Kernel>& kernels() { return registry().kernels; }

}  // namespace

std::vector<std::string> CpuExecutor::supportedOps() {
    std::vector<std::string> names = interpretedOpNames();
    for (std::string_view name : opsWithTrait(OpTrait::Input)) names.emplace_back(name);
    for (const auto& [name, kernel] : kernels()) if (kernel) names.push_back(name);
    std::sort(names.begin(), names.end());
    return names;
}

std::vector<std::string> CpuExecutor::unsupportedOps(const Program& program) const {
    return unsupportedOpsOf(
        program,
        [](const Operation& o, std::string_view name) {
            auto it = kernels().find(std::string(name));
            return backendRuns(o, name, it != kernels().end() && it->second);
        },
        [](std::string_view name) { return isInterpretedOp(name) || registry().complexAware.count(std::string(name)) > 0; });
}

CpuExecutor::Cost CpuExecutor::estimateCost(const Program& program) {
    // The check pass's propagated shapes and multiply-adds, without limits.
    ProgramCheck check = checkProgram(program, RunLimits{0, 0, 0, 0});
    Cost cost;
    cost.multiplyAdds = check.multiplyAdds;
    for (OpId op : program.globalBlock().ops)
        for (ValueId r : program.op(op).results)
            if (const auto& d = check.shapes[r]; d && numelOf(*d) > cost.largestElements) {
                cost.largestElements = numelOf(*d);
                cost.largestValue = program.value(r).name;
            }
    return cost;
}

namespace {

// The CPU side of the block interpreter (exec/BlockInterpreter.h): kernels and inputs on host
// tensors, storage counted by meter_ (exec/Tensor.h) as kernels allocate it and as the
// interpreter lets values go, and what each top-level op cost.
class CpuBackend {
public:
    using Handle = cpu::TensorPtr;
    using Slot = cpu::Slot;

    CpuBackend(const Program& p, const RunInputs& in, const RunOptions& o, const RunControl& c, RunResult& result)
        : program_(p), inputs_(in), options_(o), control_(c), result_(result), meter_(std::make_shared<StorageMeter>()) {
        for (const std::string& n : o.captureValues) capture_.insert(n);
        if (options_.keepOpRecords) result_.ops.reserve(p.globalBlock().ops.size());  // grown by doubling it would hold up to twice that
    }
    const std::shared_ptr<StorageMeter>& meter() const { return meter_; }
    void attach(std::vector<Slot>& values) { slots_ = &values; }

    void runKernel(OpId op, size_t /*position*/, std::vector<const Slot*> in, std::vector<Slot>& out) {
        Context ctx(program_, op, std::move(in), inputs_.seed);
        const std::string_view name = program_.opName(op);
        if (isInputOp(name)) {
            produceInput(ctx);
        } else {
            ctx.maxElements = options_.maxElementsPerValue;
            try {
                kernels().at(std::string(name))(ctx);
            } catch (const Error&) {
                throw;
            } catch (const std::exception& e) {  // a library error (bad_alloc, out_of_range): name the op
                ctx.fail(std::string("kernel failed: ") + e.what());
            }
        }
        out = std::move(ctx.outputs);
    }
    bool truthOf(OpId, const Handle& t) const { return t->get(0) != 0.0; }
    Handle boolFlag(OpId, bool value) const {
        Tensor flag(DType::Bool, {1});
        flag.set(0, value ? 1.0 : 0.0);
        return std::make_shared<const Tensor>(std::move(flag));
    }

    void beginOp(size_t, OpId) {
        opStart_ = Clock::now();
        meter_->resetPeak();
    }
    int64_t opPeakBytes() const { return meter_->peakBytes(); }
    void endOp(size_t, OpId op) { record(op); }
    int64_t heldBytes() const { return meter_->currentBytes(); }
    void opFinished(size_t position, OpRecord rec) {
        rec.micros = options_.recordOpTimes ? std::chrono::duration<double, std::micro>(Clock::now() - opStart_).count() : 0.0;
        if (options_.keepOpRecords) result_.ops.push_back(rec);
        control_.opDone(position + 1);
    }

private:
    using Clock = std::chrono::steady_clock;
    const Program& program_;
    const RunInputs& inputs_;
    const RunOptions& options_;
    const RunControl& control_;
    RunResult& result_;
    std::shared_ptr<StorageMeter> meter_;
    std::vector<Slot>* slots_ = nullptr;
    std::unordered_set<std::string> capture_;
    Clock::time_point opStart_;

    void produceInput(Context& ctx) {
        const Operation& o = ctx.o;
        std::string iname = inputName(program_, ctx.id);
        if (o.results.empty()) ctx.fail("input op without a result");
        const Type& t = program_.types()[program_.value(o.results[0]).type];
        if (t.kind != Type::Kind::DenseTensor) ctx.fail("input of a non-tensor type");
        auto it = inputs_.byName.find(iname);
        if (it != inputs_.byName.end()) {
            if (it->second.dtype != t.dtype) ctx.fail("input " + iname + " given as " + it->second.shapeString());
            for (size_t i = 0; i < t.dims.size(); ++i)
                if (t.dims.size() != it->second.dims.size() || (t.dims[i] >= 0 && t.dims[i] != it->second.dims[i]))
                    ctx.fail("input " + iname + " given as " + it->second.shapeString() + ", declared " + dimsString(t.dims));
            ctx.setOut(0, it->second);
        } else {
            for (int64_t d : t.dims)
                if (d < 0) ctx.fail("input " + iname + " has a dynamic shape " + dimsString(t.dims) +
                                    ": bind its dims before the run (exec::bindInputDims, the CLI's --input-dims)");
            ctx.setOut(0, seededInputFor(program_, ctx.id, inputs_.seed));
            result_.generatedInputs.push_back(iname);
        }
        result_.inputBytes += ctx.outputs[0].tensor->byteSize();
    }

    // Fetches and captured values: copies the run returns, not counted as its memory.
    void record(OpId op) {
        const ScopedStorageMeter unmetered(nullptr);
        const std::vector<Slot>& slots = *slots_;
        const Operation& o = program_.op(op);
        if (isFetchOp(program_.opName(op))) {
            ValueId v = o.operands.empty() ? kNoId : o.operands[0];
            if (v != kNoId && slots[v].set && !slots[v].isList && options_.fetchSink) {
                const std::string fetched = fetchName(program_, op);
                options_.fetchSink(FetchView{false, fetched, program_.value(v).name, *slots[v].tensor});
            } else if (v != kNoId && slots[v].set && !slots[v].isList) {
                FetchedValue f;
                f.fetchName = fetchName(program_, op);
                f.valueName = program_.value(v).name;
                f.tensor = *slots[v].tensor;
                result_.fetches.push_back(std::move(f));
            }
        }
        for (ValueId r : o.results)
            if (slots[r].set && !slots[r].isList && (options_.keepAllValues || capture_.count(program_.value(r).name))) {
                if (options_.fetchSink) options_.fetchSink(FetchView{true, {}, program_.value(r).name, *slots[r].tensor});
                else result_.values[program_.value(r).name] = *slots[r].tensor;
            }
    }
};

}  // namespace

RunResult CpuExecutor::execute(const Program& program, const RunInputs& inputs, const RunOptions& options,
                               const RunControl& control) {
    // The run reads only when each value's reference drops: the rest of the analysis (the
    // buffers and their lifetimes, ~65 bytes per op) is freed before the first tensor.
    const CompactLists<ValueId> deadAfter = std::move(analyzeLiveness(program, control.resident()).valuesDeadAfter);
    RunResult result;
    CpuBackend backend(program, inputs, options, control, result);
    {
        const ScopedStorageMeter metered(backend.meter());
        const auto start = std::chrono::steady_clock::now();
        BlockInterpreter<CpuBackend> interpreter(program, backend, options, control, result);
        backend.attach(interpreter.valueSlots());
        interpreter.runGlobalBlock(deadAfter);
        result.totalMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    }
    return result;
}

}  // namespace rx::exec
