// The CPU reference executor: the kernel table (one registration per family, Kernels*.cpp),
// the support check, and run() in phases: check, plan lifetimes, execute, record.
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

#include "exec/cpu/KernelContext.h"
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
    std::vector<std::string> names = {"pd_op.data", "pd_op.feed", "builtin.parameter"};
    for (const auto& [name, kernel] : kernels()) if (kernel) names.push_back(name);
    std::sort(names.begin(), names.end());
    return names;
}

std::vector<std::string> CpuExecutor::unsupportedOps(const Program& program) const {
    return unsupportedOpsOf(
        program,
        [](const Operation& o, std::string_view name) {
            auto it = kernels().find(std::string(name));
            return it != kernels().end() && it->second && o.regions.empty();
        },
        [](std::string_view name) { return registry().complexAware.count(std::string(name)) > 0; });
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

std::vector<uint8_t> residentMask(const Program& program, const RunOptions& options) {
    std::vector<uint8_t> resident(program.values().size(), 0);
    if (options.residentValues) {
        for (ValueId v : *options.residentValues) if (v < resident.size()) resident[v] = 1;
    } else if (options.inputsResident) {
        for (OpId op : program.globalBlock().ops)
            if (isInputOp(program.opName(op))) for (ValueId r : program.op(op).results) resident[r] = 1;
    }
    return resident;
}

RunLimits limitsOf(const RunOptions& o) {
    RunLimits l;
    l.maxElementsPerValue = o.maxElementsPerValue;
    l.maxBytesPerValue = o.maxBytesPerValue;
    l.maxTotalBytes = o.maxTotalBytes;
    l.maxMultiplyAdds = o.maxMultiplyAdds;
    return l;
}

// Phase 1: every op has a kernel and supported dtypes, every op passes OpSemantics' checks,
// and the propagated shapes fit the limits.
void checkRunnable(const CpuExecutor& executor, const Program& program, const RunOptions& options,
                   const std::vector<uint8_t>& resident) {
    refuseUnrunnable(program, executor.unsupportedOps(program), "CPU", [](DType t) { return isSupportedDType(t); });
    checkProgram(program, limitsOf(options), resident);
}

// Phase 2: each value dies after its last top-level use (values read by nobody at once);
// resident values never die.
std::vector<std::vector<ValueId>> planLifetimes(const Program& program, const std::vector<uint8_t>& resident) {
    const Block& block = program.globalBlock();
    const size_t nOps = block.ops.size();
    std::vector<int64_t> lastUse(program.values().size(), -1);
    for (size_t pos = 0; pos < nOps; ++pos)
        for (ValueId v : program.op(block.ops[pos]).operands)
            if (v != kNoId) lastUse[v] = static_cast<int64_t>(pos);
    std::vector<std::vector<ValueId>> dieAfter(nOps);
    for (size_t pos = 0; pos < nOps; ++pos)
        for (ValueId r : program.op(block.ops[pos]).results) {
            if (resident[r]) continue;
            dieAfter[std::max<int64_t>(lastUse[r], static_cast<int64_t>(pos))].push_back(r);
        }
    return dieAfter;
}

// Phases 3 and 4: execute the ops in order and record what each one cost.
class Run {
public:
    Run(const Program& p, const RunInputs& in, const RunOptions& o)
        : program_(p), inputs_(in), options_(o), slots_(p.values().size()), slotBytes_(p.values().size(), 0) {
        for (const std::string& n : o.captureValues) capture_.insert(n);
    }

    RunResult execute(const std::vector<std::vector<ValueId>>& dieAfter) {
        using Clock = std::chrono::steady_clock;
        const auto start = Clock::now();
        const Block& block = program_.globalBlock();
        for (size_t pos = 0; pos < block.ops.size(); ++pos) {
            if (options_.cancel && options_.cancel->load()) { result_.cancelled = true; break; }
            const auto t0 = Clock::now();
            OpRecord rec = executeOp(block.ops[pos]);
            for (ValueId v : dieAfter[pos]) { live_ -= slotBytes_[v]; slotBytes_[v] = 0; slots_[v] = Slot{}; }
            rec.liveBytes = live_;
            rec.micros = options_.recordOpTimes ? std::chrono::duration<double, std::micro>(Clock::now() - t0).count() : 0.0;
            result_.peakBytes = std::max(result_.peakBytes, rec.peakBytes);
            result_.ops.push_back(rec);
            if (options_.progress) options_.progress(pos + 1, block.ops.size());
        }
        result_.totalMs = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
        return std::move(result_);
    }

private:
    const Program& program_;
    const RunInputs& inputs_;
    const RunOptions& options_;
    std::vector<Slot> slots_;
    std::vector<int64_t> slotBytes_;
    std::unordered_set<std::string> capture_;
    RunResult result_;
    int64_t live_ = 0;

    std::vector<const Slot*> operandSlots(OpId op) const {
        const Operation& o = program_.op(op);
        std::vector<const Slot*> in;
        for (ValueId v : o.operands) {
            if (v == kNoId) { in.push_back(nullptr); continue; }
            if (!slots_[v].set) {
                if (program_.types()[program_.value(v).type].kind != Type::Kind::Null)
                    throw Error(opWhere(program_, op) + ": reads " + program_.value(v).name + " before it is defined or after it was freed");
                in.push_back(nullptr);
                continue;
            }
            in.push_back(&slots_[v]);
        }
        return in;
    }

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
                if (d < 0) ctx.fail("input " + iname + " has a dynamic shape " + dimsString(t.dims) + "; give it explicitly");
            ctx.setOut(0, seededInputFor(program_, ctx.id, inputs_.seed));
            result_.generatedInputs.push_back(iname);
        }
        result_.inputBytes += ctx.outputs[0].tensor->byteSize();
    }

    // Results against the declared types (rank, static dims, dtype) and the per-value limit.
    void checkResults(Context& ctx) const {
        const Operation& o = ctx.o;
        for (size_t i = 0; i < o.results.size(); ++i) {
            const Type& t = program_.types()[program_.value(o.results[i]).type];
            const Slot& s = ctx.outputs[i];
            if (t.kind == Type::Kind::Null) continue;
            if (!s.set) ctx.fail("kernel produced no result " + std::to_string(i));
            if (!s.isList && s.tensor && options_.maxBytesPerValue > 0 && s.tensor->byteSize() > options_.maxBytesPerValue)
                ctx.fail("result " + program_.value(o.results[i]).name + " holds " + std::to_string(s.tensor->byteSize()) +
                         " bytes (limit " + std::to_string(options_.maxBytesPerValue) + ", RunOptions::maxBytesPerValue)");
            if (t.kind == Type::Kind::DenseTensor) {
                if (s.isList) ctx.fail("result " + std::to_string(i) + " is a vector, declared a tensor");
                const Tensor& r = *s.tensor;
                bool ok = r.dtype == t.dtype && r.dims.size() == t.dims.size();
                for (size_t d = 0; ok && d < t.dims.size(); ++d) ok = t.dims[d] < 0 || t.dims[d] == r.dims[d];
                if (!ok) {
                    std::string declared;
                    for (int64_t d : t.dims) declared += std::to_string(d) + "x";
                    ctx.fail("computed " + r.shapeString() + " for " + program_.value(o.results[i]).name + ", declared " + declared +
                             std::string(dtypeShortName(t.dtype)));
                }
            } else if (t.kind == Type::Kind::Vector) {
                if (!s.isList || s.list.size() != t.elements.size())
                    ctx.fail("result " + std::to_string(i) + " does not match its vector type");
            }
        }
    }

    OpRecord executeOp(OpId op) {
        const Operation& o = program_.op(op);
        std::string_view name = program_.opName(op);
        Context ctx(program_, op, operandSlots(op), inputs_.seed);
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
        checkResults(ctx);
        for (size_t i = 0; i < o.results.size(); ++i) {
            ValueId r = o.results[i];
            slots_[r] = std::move(ctx.outputs[i]);
            // vectors alias their elements and hold nothing
            slotBytes_[r] = slots_[r].set && !slots_[r].isList && slots_[r].tensor ? slots_[r].tensor->byteSize() : 0;
            live_ += slotBytes_[r];
        }
        if (options_.maxTotalBytes > 0 && live_ > options_.maxTotalBytes)
            ctx.fail("the run holds " + std::to_string(live_) + " bytes of live values (limit " + std::to_string(options_.maxTotalBytes) +
                     ", RunOptions::maxTotalBytes)");
        record(op, name);
        OpRecord rec;
        rec.op = op;
        rec.peakBytes = live_;
        return rec;
    }

    // Fetches and captured values.
    void record(OpId op, std::string_view name) {
        const Operation& o = program_.op(op);
        if (name == "pd_op.fetch" || name == "builtin.shadow_output") {
            ValueId v = o.operands.empty() ? kNoId : o.operands[0];
            if (v != kNoId && slots_[v].set && !slots_[v].isList) {
                FetchedValue f;
                const Attribute* a = o.attribute(name == "pd_op.fetch" ? "name" : "output_name");
                f.fetchName = a ? a->text : std::string();
                f.valueName = program_.value(v).name;
                f.tensor = *slots_[v].tensor;
                result_.fetches.push_back(std::move(f));
            }
        }
        for (ValueId r : o.results)
            if (slots_[r].set && !slots_[r].isList && (options_.keepAllValues || capture_.count(program_.value(r).name)))
                result_.values[program_.value(r).name] = *slots_[r].tensor;
    }
};

}  // namespace

RunResult CpuExecutor::run(const Program& program, const RunInputs& inputs, const RunOptions& options) {
    const std::vector<uint8_t> resident = residentMask(program, options);
    checkRunnable(*this, program, options, resident);
    const std::vector<std::vector<ValueId>> dieAfter = planLifetimes(program, resident);
    return Run(program, inputs, options).execute(dieAfter);
}

}  // namespace rx::exec
