// The CPU reference executor: the kernel table (one registration per family, Kernels*.cpp),
// the support check, and execute() (after Executor::run's checks) in phases: plan lifetimes,
// execute, record.
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

// Ops that hold blocks and run them here (the kernels never see a region), and the
// terminator that hands a block's values back to them.
bool isStructuredOp(std::string_view name) { return name == "pd_op.if" || name == "pd_op.while"; }
// Paddle's control-flow stacks (what a while's backward reads its forward's values from):
// cf.stack_create () -> (stack, inlet, outlet); cf.tuple_push (inlet, values...);
// cf.tuple_pop (outlet) -> values, last pushed first; pd_op.has_elements (stack) -> [1] bool
// (the grad loop's condition).
bool isStackOp(std::string_view name) {
    return name == "cf.stack_create" || name == "cf.tuple_push" || name == "cf.tuple_pop" || name == "pd_op.has_elements";
}
bool isYield(std::string_view name) { return name == "cf.yield"; }
// A while loop stops with an error past this many iterations (a condition that never turns
// false would hang the run otherwise); cancel is honoured between iterations too.
constexpr int64_t kMaxWhileIterations = 10'000'000;

}  // namespace

std::vector<std::string> CpuExecutor::supportedOps() {
    std::vector<std::string> names = {"pd_op.data", "pd_op.feed", "builtin.parameter", "pd_op.if", "pd_op.while", "cf.yield",
                                      "cf.stack_create", "cf.tuple_push", "cf.tuple_pop", "pd_op.has_elements"};
    for (const auto& [name, kernel] : kernels()) if (kernel) names.push_back(name);
    std::sort(names.begin(), names.end());
    return names;
}

std::vector<std::string> CpuExecutor::unsupportedOps(const Program& program) const {
    return unsupportedOpsOf(
        program,
        [](const Operation& o, std::string_view name) {
            if (isYield(name) || isStackOp(name)) return true;
            if (isStructuredOp(name)) return !o.regions.empty();  // run here, block by block
            auto it = kernels().find(std::string(name));
            return it != kernels().end() && it->second && o.regions.empty();
        },
        [](std::string_view name) { return isYield(name) || isStackOp(name) || isStructuredOp(name) ||
                                           registry().complexAware.count(std::string(name)) > 0; });
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

// Thrown from inside a long structured op (a while loop) when cancel is set.
struct RunCancelled {};

// Phases 3 and 4: execute the ops in order and record what each one cost.
class Run {
public:
    Run(const Program& p, const RunInputs& in, const RunOptions& o, const RunControl& c)
        : program_(p), inputs_(in), options_(o), control_(c), slots_(p.values().size()), meter_(std::make_shared<StorageMeter>()) {
        for (const std::string& n : o.captureValues) capture_.insert(n);
    }

    // Storage is counted by meter_ (exec/Tensor.h) as kernels allocate it and as slots let
    // it go: a value's reference drops after its last use (exec/Liveness.h), its storage when
    // no value refers to it any more.
    RunResult execute(const CompactLists<ValueId>& deadAfter) {
        using Clock = std::chrono::steady_clock;
        const ScopedStorageMeter metered(meter_);
        const auto start = Clock::now();
        const Block& block = program_.globalBlock();
        if (options_.keepOpRecords) result_.ops.reserve(block.ops.size());  // grown by doubling it would hold up to twice that
        for (size_t pos = 0; pos < block.ops.size(); ++pos) {
            if (control_.stopRequested()) { result_.cancelled = true; break; }
            const auto t0 = Clock::now();
            meter_->resetPeak();
            OpRecord rec;
            try {
                rec = executeOp(block.ops[pos]);
            } catch (const RunCancelled&) {
                result_.cancelled = true;
                break;
            }
            for (ValueId v : deadAfter[pos]) slots_[v] = Slot{};
            rec.liveBytes = meter_->currentBytes();
            rec.micros = options_.recordOpTimes ? std::chrono::duration<double, std::micro>(Clock::now() - t0).count() : 0.0;
            result_.peakBytes = std::max(result_.peakBytes, rec.peakBytes);
            if (options_.keepOpRecords) result_.ops.push_back(rec);
            control_.opDone(pos + 1);
        }
        result_.totalMs = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
        return std::move(result_);
    }

private:
    const Program& program_;
    const RunInputs& inputs_;
    const RunOptions& options_;
    const RunControl& control_;
    std::vector<Slot> slots_;
    std::shared_ptr<StorageMeter> meter_;
    std::vector<std::vector<std::vector<Slot>>> stacks_;   // cf stacks: tuples pushed, in order
    std::unordered_map<ValueId, size_t> stackOf_;          // stack/inlet/outlet value -> its stack
    std::unordered_set<std::string> capture_;
    RunResult result_;

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
        std::string_view name = program_.opName(op);
        runOp(op);
        Context ctx(program_, op, {}, inputs_.seed);  // for positioned errors below
        const int64_t held = meter_->peakBytes();
        if (options_.maxTotalBytes > 0 && held > options_.maxTotalBytes)
            ctx.fail("the run holds " + std::to_string(held) + " bytes of live values (limit " + std::to_string(options_.maxTotalBytes) +
                     ", RunOptions::maxTotalBytes)");
        OpRecord rec;
        rec.op = op;
        rec.peakBytes = held;
        record(op, name);
        return rec;
    }

    // One op of any block: its kernel, an input, or a structured op running its blocks.
    void runOp(OpId op) {
        const Operation& o = program_.op(op);
        std::string_view name = program_.opName(op);
        Context ctx(program_, op, operandSlots(op), inputs_.seed);
        if (isInputOp(name)) {
            produceInput(ctx);
        } else if (name == "pd_op.if") {
            runIf(ctx);
        } else if (name == "pd_op.while") {
            runWhile(ctx);
        } else if (isStackOp(name)) {
            runStackOp(ctx, name);
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
        for (size_t i = 0; i < o.results.size(); ++i) slots_[o.results[i]] = std::move(ctx.outputs[i]);
    }

    // Runs a block's ops up to its cf.yield and returns the yielded values; every value the
    // block defined (and its arguments) is dropped when it ends, as Paddle's scope of a
    // sub-block is.
    std::vector<Slot> runBlock(const Context& holder, BlockId b) {
        const Block& block = program_.block(b);
        std::vector<Slot> yielded;
        bool ended = false;
        for (OpId op : block.ops) {
            if (program_.op(op).dead) continue;
            if (isYield(program_.opName(op))) {
                for (ValueId v : program_.op(op).operands) {
                    if (v == kNoId || !slots_[v].set) holder.fail("cf.yield of a value that is not defined");
                    yielded.push_back(slots_[v]);
                }
                ended = true;
                break;
            }
            runOp(op);
        }
        for (OpId op : block.ops)
            for (ValueId r : program_.op(op).results) slots_[r] = Slot{};
        for (ValueId a : block.args) slots_[a] = Slot{};
        for (ValueId a : block.kwargs) slots_[a] = Slot{};
        if (!ended && !block.ops.empty() && !holder.o.results.empty()) holder.fail("a block ends without cf.yield");
        return yielded;
    }

    void runStackOp(Context& ctx, std::string_view name) {
        const Operation& o = ctx.o;
        if (name == "cf.stack_create") {
            if (o.results.size() != 3) ctx.fail("expected 3 results (stack, inlet, outlet)");
            const size_t id = stacks_.size();
            stacks_.emplace_back();
            for (size_t i = 0; i < 3; ++i) {
                stackOf_[o.results[i]] = id;
                ctx.outputs[i].set = true;  // a handle: no tensor
            }
            return;
        }
        if (o.operands.empty() || !stackOf_.count(o.operands[0])) ctx.fail("operand 0 is not a stack made by cf.stack_create");
        auto& stack = stacks_[stackOf_.at(o.operands[0])];
        if (name == "pd_op.has_elements") {
            Tensor flag(DType::Bool, {1});
            flag.set(0, stack.empty() ? 0.0 : 1.0);
            ctx.setOut(0, std::move(flag));
            return;
        }
        if (name == "cf.tuple_push") {
            std::vector<Slot> tuple;
            for (size_t i = 1; i < o.operands.size(); ++i) {
                if (!ctx.has(i)) ctx.fail("operand " + std::to_string(i) + " is missing");
                tuple.push_back(*ctx.inputs[i]);
            }
            stack.push_back(std::move(tuple));
            return;
        }
        if (stack.empty()) ctx.fail("pops an empty stack");
        std::vector<Slot> tuple = std::move(stack.back());
        stack.pop_back();
        if (tuple.size() != o.results.size())
            ctx.fail("pops " + std::to_string(tuple.size()) + " values for " + std::to_string(o.results.size()) + " results");
        for (size_t i = 0; i < tuple.size(); ++i) ctx.outputs[i] = std::move(tuple[i]);
    }

    bool truth(const Context& ctx, const Slot& s, const std::string& what) const {
        if (!s.set || s.isList || !s.tensor) ctx.fail(what + " is not a tensor");
        if (s.tensor->numel() != 1) ctx.fail(what + " has " + std::to_string(s.tensor->numel()) + " elements, expected 1");
        return s.tensor->get(0) != 0.0;
    }

    // pd_op.if (cond) {then} else {else}: the results are what the chosen block yields.
    void runIf(Context& ctx) {
        const Operation& o = ctx.o;
        if (!ctx.has(0)) ctx.fail("operand 0 (the condition) is missing");
        const bool cond = truth(ctx, *ctx.inputs[0], "the condition");
        const size_t region = cond ? 0 : 1;
        const bool runs = region < o.regions.size() && !o.regions[region].empty();
        result_.controlPath.decisions[ctx.id].push_back(runs ? uint32_t(region) : ControlPath::kNoRegion);
        if (!runs) {
            if (!o.results.empty()) ctx.fail(std::string("no ") + (cond ? "then" : "else") + " block for the results");
            return;
        }
        std::vector<Slot> yielded = runBlock(ctx, o.regions[region][0]);
        if (yielded.size() != o.results.size())
            ctx.fail("the " + std::string(cond ? "then" : "else") + " block yields " + std::to_string(yielded.size()) + " values for " +
                     std::to_string(o.results.size()) + " results");
        for (size_t i = 0; i < yielded.size(); ++i) ctx.outputs[i] = std::move(yielded[i]);
    }

    // pd_op.while (cond, inputs...) {^args: ... cf.yield (cond', values'...)}: the body runs
    // while the condition holds, its arguments bound to the carried values; the results are
    // the values carried out.
    void runWhile(Context& ctx) {
        const Operation& o = ctx.o;
        if (o.regions.empty() || o.regions[0].empty()) ctx.fail("no body block");
        const BlockId body = o.regions[0][0];
        const Block& block = program_.block(body);
        const size_t carriedCount = o.operands.empty() ? 0 : o.operands.size() - 1;
        if (block.args.size() != carriedCount)
            ctx.fail("the body takes " + std::to_string(block.args.size()) + " arguments for " + std::to_string(carriedCount) + " inputs");
        if (o.results.size() != carriedCount)
            ctx.fail(std::to_string(o.results.size()) + " results for " + std::to_string(carriedCount) + " inputs");
        if (!ctx.has(0)) ctx.fail("operand 0 (the condition) is missing");
        bool cond = truth(ctx, *ctx.inputs[0], "the condition");
        std::vector<Slot> carried;
        for (size_t i = 1; i < o.operands.size(); ++i) {
            if (!ctx.has(i)) ctx.fail("operand " + std::to_string(i) + " is missing");
            carried.push_back(*ctx.inputs[i]);
        }
        int64_t iterations = 0;
        while (cond) {
            if (++iterations > kMaxWhileIterations)
                ctx.fail("the loop ran " + std::to_string(kMaxWhileIterations) + " iterations without its condition turning false");
            if (control_.stopRequested()) throw RunCancelled{};
            for (size_t i = 0; i < carriedCount; ++i) slots_[block.args[i]] = carried[i];
            std::vector<Slot> yielded = runBlock(ctx, body);
            if (yielded.size() != carriedCount + 1)
                ctx.fail("the body yields " + std::to_string(yielded.size()) + " values, expected the condition and " +
                         std::to_string(carriedCount));
            cond = truth(ctx, yielded[0], "the yielded condition");
            carried.assign(std::make_move_iterator(yielded.begin() + 1), std::make_move_iterator(yielded.end()));
        }
        result_.controlPath.decisions[ctx.id].push_back(uint32_t(iterations));
        for (size_t i = 0; i < carriedCount; ++i) ctx.outputs[i] = std::move(carried[i]);
    }

    // Fetches and captured values: copies the run returns, not counted as its memory.
    void record(OpId op, std::string_view name) {
        const ScopedStorageMeter unmetered(nullptr);
        const Operation& o = program_.op(op);
        if (name == "pd_op.fetch" || name == "builtin.shadow_output") {
            ValueId v = o.operands.empty() ? kNoId : o.operands[0];
            if (v != kNoId && slots_[v].set && !slots_[v].isList && options_.fetchSink) {
                const std::string fetched = fetchName(program_, op);
                options_.fetchSink(FetchView{false, fetched, program_.value(v).name, *slots_[v].tensor});
            } else if (v != kNoId && slots_[v].set && !slots_[v].isList) {
                FetchedValue f;
                f.fetchName = fetchName(program_, op);
                f.valueName = program_.value(v).name;
                f.tensor = *slots_[v].tensor;
                result_.fetches.push_back(std::move(f));
            }
        }
        for (ValueId r : o.results)
            if (slots_[r].set && !slots_[r].isList && (options_.keepAllValues || capture_.count(program_.value(r).name))) {
                if (options_.fetchSink) options_.fetchSink(FetchView{true, {}, program_.value(r).name, *slots_[r].tensor});
                else result_.values[program_.value(r).name] = *slots_[r].tensor;
            }
    }
};

}  // namespace

RunResult CpuExecutor::execute(const Program& program, const RunInputs& inputs, const RunOptions& options,
                               const RunControl& control) {
    // The run reads only when each value's reference drops: the rest of the analysis (the
    // buffers and their lifetimes, ~65 bytes per op) is freed before the first tensor.
    const CompactLists<ValueId> deadAfter = std::move(analyzeLiveness(program, control.resident()).valuesDeadAfter);
    return Run(program, inputs, options, control).execute(deadAfter);
}

}  // namespace rx::exec
