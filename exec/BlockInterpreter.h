#pragma once
// The block interpreter every backend runs a program with (and the memory model counts its
// bytes with, exec/Liveness.cpp): walks the global block, runs
// pd_op.if / pd_op.while regions, the cf stacks and cf.yield itself, records the branch and
// iteration count of each structured op (RunResult::controlPath), caps and cancels loops, and
// drops values after their last use (exec/Liveness.h) and a block's values when it ends. A
// backend supplies the rest through a small interface (see BlockInterpreter below).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "exec/CompactLists.h"
#include "exec/Executor.h"
#include "exec/OperandSlots.h"
#include "model/Program.h"

namespace rx::exec {

// pd_op.if / pd_op.while: ops holding blocks, run block by block here (no kernel sees a region).
bool isStructuredOp(std::string_view name);
// Paddle's control-flow stacks (what a while's backward reads its forward's values from):
// cf.stack_create () -> (stack, inlet, outlet); cf.tuple_push (inlet, values...);
// cf.tuple_pop (outlet) -> values, last pushed first; pd_op.has_elements (stack) -> [1] bool.
bool isStackOp(std::string_view name);
// cf.yield: hands a block's values back to the op holding it.
bool isYieldOp(std::string_view name);
// Any op the interpreter runs itself (the three above).
bool isInterpretedOp(std::string_view name);
// Their names, sorted (what a backend lists among its supported ops).
std::vector<std::string> interpretedOpNames();
// Whether a backend runs `o`: control flow through the interpreter; any other op when the
// backend has a kernel for it and it holds no region.
bool backendRuns(const Operation& o, std::string_view name, bool hasKernel);

// A while loop stops with an error past this many iterations (a condition that never turns
// false would hang the run otherwise); cancel is honoured between iterations too.
inline constexpr int64_t kMaxWhileIterations = 10'000'000;
// The position BlockInterpreter::Backend::runKernel gets for an op inside a region.
inline constexpr size_t kInsideRegion = SIZE_MAX;

// Throws rx::Error worded as OpSite::fail words it: "op 7 (pd_op.x -> %12): msg".
[[noreturn]] void failAt(const Program& program, OpId op, const std::string& msg);
// What an op produced for one result, as checkProducedResults reads it.
struct ProducedResult {
    bool set = false;
    bool isList = false;
    size_t listSize = 0;
    DType dtype = DType::Invalid;
    const std::vector<int64_t>* dims = nullptr;  // tensor results only
};
// The results of `op` against their declared types (rank, static dims, dtype; a vector's
// length) and the per-value byte limit (0: none); a positioned rx::Error otherwise.
void checkProducedResults(const Program& program, OpId op, const std::vector<ProducedResult>& produced, int64_t maxBytesPerValue);

// Backend (the class template argument) provides:
//   using Handle = ...;   // a shared handle to one tensor (std::shared_ptr<const T>, T having
//                         // `dtype` and `dims`); copying it aliases the storage
//   void runKernel(OpId op, size_t position, std::vector<const SlotOf<Handle>*> in,
//                  std::vector<SlotOf<Handle>>& out);
//     runs an input op or a kernel (position: the global-block position, kInsideRegion for
//     an op inside a region) and sets `out` (sized to the op's results);
//   bool truthOf(OpId op, const Handle& oneElement);  // element 0 read to the host, != 0
//   Handle boolFlag(OpId op, bool value);              // a new [1] bool tensor (has_elements)
//   void beginOp(size_t position, OpId op);            // before each top-level op
//   int64_t opPeakBytes();                             // bytes held at most since beginOp
//   void endOp(size_t position, OpId op);              // after it ran, before values drop
//   int64_t heldBytes();                               // bytes held now
//   void opFinished(size_t position, const OpRecord& record);  // after values dropped
// and may provide, as the memory model's backend does (exec/Liveness.cpp: it runs no kernels
// and counts bytes on programs a run would refuse):
//   std::optional<uint32_t> recordedDecision(OpId op);
//     the decision a recorded run (ControlPath) took at this execution of `op`, asked once per
//     execution of each pd_op.if / pd_op.while: the region an if ran (ControlPath::kNoRegion:
//     none), the iterations a while ran; nullopt: decided by the condition as a run does.
//   static constexpr bool kTolerant = true;
//     what a run fails at (a missing operand or yielded value, a stack op on a value that is no
//     stack, a pop of an empty stack, mismatched counts, a block without cf.yield) is stepped
//     over: missing values stay unset, counts match up to the shorter, a stack op on no stack
//     goes to runKernel, results are not checked against their types. Conditions are then
//     read by  bool conditionOf(OpId op, const Handle* cond, int64_t iterationsRun);  in place
//     of truthOf (cond: null when missing or not one tensor; iterationsRun: -1 for an if, else
//     the iterations the while ran so far).
template <class Backend>
class BlockInterpreter {
public:
    using Handle = typename Backend::Handle;
    using Slot = SlotOf<Handle>;

    BlockInterpreter(const Program& program, Backend& backend, const RunOptions& options, const RunControl& control,
                     RunResult& result)
        : program_(program), backend_(backend), options_(options), control_(control), result_(result),
          slots_(program.values().size()) {}

    // Runs the global block; `deadAfter` (Liveness::valuesDeadAfter) says when each value's
    // reference drops. Sets result.cancelled (and stops) when cancel is requested between
    // top-level ops or between a loop's iterations; result.peakBytes, controlPath.
    void runGlobalBlock(const CompactLists<ValueId>& deadAfter) {
        const Block& block = program_.globalBlock();
        for (size_t pos = 0; pos < block.ops.size(); ++pos) {
            if (control_.stopRequested()) { result_.cancelled = true; return; }
            const OpId op = block.ops[pos];
            backend_.beginOp(pos, op);
            try {
                runOp(op, pos);
            } catch (const Cancelled&) {
                result_.cancelled = true;
                return;
            }
            OpRecord rec;
            rec.op = op;
            rec.peakBytes = backend_.opPeakBytes();
            if (options_.maxTotalBytes > 0 && rec.peakBytes > options_.maxTotalBytes)
                failAt(program_, op, "the run holds " + std::to_string(rec.peakBytes) + " bytes of live values (limit " +
                                         std::to_string(options_.maxTotalBytes) + ", RunOptions::maxTotalBytes)");
            backend_.endOp(pos, op);
            for (ValueId v : deadAfter[pos]) slots_[v] = Slot{};
            rec.liveBytes = backend_.heldBytes();
            result_.peakBytes = std::max(result_.peakBytes, rec.peakBytes);
            backend_.opFinished(pos, rec);
        }
    }

    // Every value's slot (by ValueId): what the backend reads fetches and fused groups from.
    std::vector<Slot>& valueSlots() { return slots_; }

private:
    struct Cancelled {};  // thrown from inside a loop when cancel is set
    static constexpr bool kTolerant = [] {
        if constexpr (requires { Backend::kTolerant; }) return bool(Backend::kTolerant);
        else return false;
    }();

    const Program& program_;
    Backend& backend_;
    const RunOptions& options_;
    const RunControl& control_;
    RunResult& result_;
    std::vector<Slot> slots_;
    std::vector<std::vector<std::vector<Slot>>> stacks_;  // cf stacks: tuples pushed, in order
    size_t stackedValues_ = 0;  // values held in all stacks (an empty tuple counts one)
    std::unordered_map<ValueId, size_t> stackOf_;         // stack/inlet/outlet value -> its stack

    [[noreturn]] void fail(OpId op, const std::string& msg) const { failAt(program_, op, msg); }

    std::vector<const Slot*> operandSlots(OpId op) const {
        const Operation& o = program_.op(op);
        std::vector<const Slot*> in;
        in.reserve(o.operands.size());
        for (ValueId v : o.operands) {
            if (v == kNoId) { in.push_back(nullptr); continue; }
            if (!slots_[v].set) {
                if (!kTolerant && program_.types()[program_.value(v).type].kind != Type::Kind::Null)
                    fail(op, "reads " + program_.value(v).name + " before it is defined or after it was freed");
                in.push_back(nullptr);
                continue;
            }
            in.push_back(&slots_[v]);
        }
        return in;
    }

    // One op of any block: control flow here, anything else by the backend.
    void runOp(OpId op, size_t position) {
        const Operation& o = program_.op(op);
        const std::string_view name = program_.opName(op);
        std::vector<const Slot*> in = operandSlots(op);
        std::vector<Slot> out(o.results.size());
        if (name == "pd_op.if") runIf(op, in, out);
        else if (name == "pd_op.while") runWhile(op, in, out);
        else if (isStackOp(name)) runStackOp(op, position, name, in, out);
        else backend_.runKernel(op, position, std::move(in), out);
        if constexpr (!kTolerant) checkResults(op, out);
        for (size_t i = 0; i < o.results.size(); ++i) slots_[o.results[i]] = std::move(out[i]);
    }

    void checkResults(OpId op, const std::vector<Slot>& out) const {
        std::vector<ProducedResult> produced(out.size());
        for (size_t i = 0; i < out.size(); ++i) {
            produced[i].set = out[i].set;
            produced[i].isList = out[i].isList;
            produced[i].listSize = out[i].list.size();
            if (out[i].set && !out[i].isList && out[i].tensor) {
                produced[i].dtype = out[i].tensor->dtype;
                produced[i].dims = &out[i].tensor->dims;
            }
        }
        checkProducedResults(program_, op, produced, options_.maxBytesPerValue);
    }

    bool truth(OpId op, const Slot& s, const std::string& what) {
        if (!s.set || s.isList || !s.tensor) fail(op, what + " is not a tensor");
        const int64_t n = numelOf(s.tensor->dims);
        if (n != 1) fail(op, what + " has " + std::to_string(n) + " elements, expected 1");
        return backend_.truthOf(op, s.tensor);
    }

    // A condition (null: missing): the backend's reading of it; iterationsRun as conditionOf's.
    bool condition(OpId op, const Slot* s, const std::string& what, int64_t iterationsRun) {
        if constexpr (kTolerant) {
            return backend_.conditionOf(op, s && s->set && !s->isList && s->tensor ? &s->tensor : nullptr, iterationsRun);
        } else {
            if (!s) fail(op, what + " is missing");
            return truth(op, *s, what);
        }
    }

    std::optional<uint32_t> recordedDecision(OpId op) {
        if constexpr (requires(Backend& b, OpId o) { b.recordedDecision(o); }) return backend_.recordedDecision(op);
        else return std::nullopt;
    }

    // Runs a block's ops up to its cf.yield and returns the yielded values; every value the
    // block defined (and its arguments) is dropped when it ends, as Paddle's scope of a
    // sub-block is.
    std::vector<Slot> runBlock(OpId holder, BlockId b) {
        const Block& block = program_.block(b);
        std::vector<Slot> yielded;
        bool ended = false;
        for (OpId op : block.ops) {
            if (program_.op(op).dead) continue;
            if (isYieldOp(program_.opName(op))) {
                for (ValueId v : program_.op(op).operands) {
                    if (v == kNoId || !slots_[v].set) {
                        if constexpr (kTolerant) {
                            yielded.push_back(Slot{});
                            continue;
                        }
                        fail(holder, "cf.yield of a value that is not defined");
                    }
                    yielded.push_back(slots_[v]);
                }
                ended = true;
                break;
            }
            runOp(op, kInsideRegion);
        }
        for (OpId op : block.ops)
            for (ValueId r : program_.op(op).results) slots_[r] = Slot{};
        for (ValueId a : block.args) slots_[a] = Slot{};
        for (ValueId a : block.kwargs) slots_[a] = Slot{};
        if (!kTolerant && !ended && !block.ops.empty() && !program_.op(holder).results.empty()) fail(holder, "a block ends without cf.yield");
        return yielded;
    }

    void runStackOp(OpId op, size_t position, std::string_view name, const std::vector<const Slot*>& in, std::vector<Slot>& out) {
        const Operation& o = program_.op(op);
        if (name == "cf.stack_create") {
            if (!kTolerant && o.results.size() != 3) fail(op, "expected 3 results (stack, inlet, outlet)");
            const size_t id = stacks_.size();
            stacks_.emplace_back();
            for (size_t i = 0; i < out.size(); ++i) {
                stackOf_[o.results[i]] = id;
                out[i].set = true;  // a handle: no tensor
            }
            return;
        }
        if (o.operands.empty() || !stackOf_.count(o.operands[0])) {
            if constexpr (kTolerant) {
                backend_.runKernel(op, position, in, out);
                return;
            }
            fail(op, "operand 0 is not a stack made by cf.stack_create");
        }
        auto& stack = stacks_[stackOf_.at(o.operands[0])];
        if (name == "pd_op.has_elements") {
            if (out.empty()) {
                if constexpr (kTolerant) return;
                fail(op, "expected 1 result");
            }
            out[0].tensor = backend_.boolFlag(op, !stack.empty());
            out[0].set = true;
            return;
        }
        if (name == "cf.tuple_push") {
            std::vector<Slot> tuple;
            for (size_t i = 1; i < in.size(); ++i) {
                if (!in[i] || !in[i]->set) {
                    if constexpr (kTolerant) {
                        tuple.push_back(Slot{});
                        continue;
                    }
                    fail(op, "operand " + std::to_string(i) + " is missing");
                }
                tuple.push_back(*in[i]);
            }
            stackedValues_ += std::max<size_t>(1, tuple.size());
            if (options_.maxStackedValues > 0 && stackedValues_ > options_.maxStackedValues)
                fail(op, "the cf stacks hold " + std::to_string(stackedValues_) + " pushed values (limit " +
                             std::to_string(options_.maxStackedValues) + ", RunOptions::maxStackedValues)");
            stack.push_back(std::move(tuple));
            return;
        }
        if (stack.empty()) {
            if constexpr (kTolerant) return;
            fail(op, "pops an empty stack");
        }
        std::vector<Slot> tuple = std::move(stack.back());
        stack.pop_back();
        stackedValues_ -= std::max<size_t>(1, tuple.size());
        if (!kTolerant && tuple.size() != o.results.size())
            fail(op, "pops " + std::to_string(tuple.size()) + " values for " + std::to_string(o.results.size()) + " results");
        for (size_t i = 0; i < tuple.size() && i < out.size(); ++i) out[i] = std::move(tuple[i]);
    }

    // pd_op.if (cond) {then} else {else}: the results are what the chosen block yields (the
    // recorded region when the backend follows a recorded path).
    void runIf(OpId op, const std::vector<const Slot*>& in, std::vector<Slot>& out) {
        const Operation& o = program_.op(op);
        uint32_t region = 0;
        if (const std::optional<uint32_t> recorded = recordedDecision(op)) {
            region = *recorded;
        } else {
            if (!kTolerant && (in.empty() || !in[0])) fail(op, "operand 0 (the condition) is missing");
            region = condition(op, in.empty() ? nullptr : in[0], "the condition", -1) ? 0 : 1;
        }
        const std::string which = region == 0 ? "then" : region == 1 ? "else" : "recorded";
        const bool runs = region < o.regions.size() && !o.regions[region].empty();
        result_.controlPath.decisions[op].push_back(runs ? region : ControlPath::kNoRegion);
        if (!runs) {
            if (!kTolerant && !o.results.empty()) fail(op, "no " + which + " block for the results");
            return;
        }
        std::vector<Slot> yielded = runBlock(op, o.regions[region][0]);
        if (!kTolerant && yielded.size() != o.results.size())
            fail(op, "the " + which + " block yields " + std::to_string(yielded.size()) + " values for " +
                         std::to_string(o.results.size()) + " results");
        for (size_t i = 0; i < yielded.size() && i < out.size(); ++i) out[i] = std::move(yielded[i]);
    }

    // pd_op.while (cond, inputs...) {^args: ... cf.yield (cond', values'...)}: the body runs
    // while the condition holds (the recorded iterations when the backend follows a recorded
    // path), its arguments bound to the carried values; the results are the values carried out.
    void runWhile(OpId op, const std::vector<const Slot*>& in, std::vector<Slot>& out) {
        const Operation& o = program_.op(op);
        const size_t carriedCount = o.operands.empty() ? 0 : o.operands.size() - 1;
        if (!kTolerant) {
            if (o.regions.empty() || o.regions[0].empty()) fail(op, "no body block");
            const Block& block = program_.block(o.regions[0][0]);
            if (block.args.size() != carriedCount)
                fail(op, "the body takes " + std::to_string(block.args.size()) + " arguments for " + std::to_string(carriedCount) + " inputs");
            if (o.results.size() != carriedCount) fail(op, std::to_string(o.results.size()) + " results for " + std::to_string(carriedCount) + " inputs");
        }
        const std::optional<uint32_t> recorded = recordedDecision(op);
        if (!kTolerant && (in.empty() || !in[0])) fail(op, "operand 0 (the condition) is missing");
        int64_t iterations = 0;
        auto again = [&](const Slot* cond, const char* what) {
            return recorded ? iterations < int64_t(*recorded) : condition(op, cond, what, iterations);
        };
        const bool hasBody = !o.regions.empty() && !o.regions[0].empty();
        bool cond = hasBody && again(in.empty() ? nullptr : in[0], "the condition");
        std::vector<Slot> carried;
        for (size_t i = 1; i < in.size(); ++i) {
            if (!in[i] || !in[i]->set) {
                if constexpr (kTolerant) {
                    carried.push_back(Slot{});
                    continue;
                }
                fail(op, "operand " + std::to_string(i) + " is missing");
            }
            carried.push_back(*in[i]);
        }
        while (cond) {
            if (++iterations > kMaxWhileIterations)
                fail(op, "the loop ran " + std::to_string(kMaxWhileIterations) + " iterations without its condition turning false");
            if (control_.stopRequested()) throw Cancelled{};
            const Block& block = program_.block(o.regions[0][0]);
            for (size_t i = 0; i < block.args.size() && i < carried.size(); ++i) slots_[block.args[i]] = carried[i];
            std::vector<Slot> yielded = runBlock(op, o.regions[0][0]);
            if (yielded.size() != carriedCount + 1) {
                if (kTolerant && yielded.empty()) break;
                if (!kTolerant)
                    fail(op, "the body yields " + std::to_string(yielded.size()) + " values, expected the condition and " +
                                 std::to_string(carriedCount));
            }
            cond = again(&yielded[0], "the yielded condition");
            carried.assign(std::make_move_iterator(yielded.begin() + 1), std::make_move_iterator(yielded.end()));
        }
        result_.controlPath.decisions[op].push_back(uint32_t(iterations));
        for (size_t i = 0; i < carried.size() && i < out.size(); ++i) out[i] = std::move(carried[i]);
    }
};

}  // namespace rx::exec
