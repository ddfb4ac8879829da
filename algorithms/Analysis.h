#pragma once
// Per-program facts of the auto_recompute pass (docs/ALGORITHM.md §1-§5), computed once for
// a program and its recompute spec and reused by every solve: value classes, users through
// combine/split/slice, distances to the backward, sizes, bw-no-need-buffer values, and the
// fusion-loop judge. Everything that depends on the heuristics config (op classes, bans,
// weights) is computed per solve from these arrays (see FlowNetwork.h).
//
// Thread safety: an Analysis is immutable after construction; all const members may be
// called concurrently. The program must be finished (Program::finish()).
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "algorithms/FusionJudge.h"
#include "model/Program.h"
#include "model/RecomputeConfig.h"

#if __has_include("model/RecomputeSpec.h")
#include "model/RecomputeSpec.h"
#else
namespace rx {
// Stand-in until model/RecomputeSpec.h lands (same field names).
struct RecomputeSpec {
    int64_t fwdOpEndIdx = 0;
    int64_t backwardOpStartIdx = 0;
    std::vector<ValueId> inputs, outputs, gradOutputs;
};
}  // namespace rx
#endif

namespace rx {

// Which operand slots of a grad op do not need their buffer (data/no_need_buffer.tsv).
// Matched by op name (inplace "<op>_" shares its entry) and operand position.
class NoNeedBufferTable {
public:
    // The table compiled into the library (generated from data/no_need_buffer.tsv).
    static const NoNeedBufferTable& builtin();
    static NoNeedBufferTable parse(std::string_view tsv, const std::string& fileName);  // throws rx::Error
    static NoNeedBufferTable readFile(const std::string& path);                         // throws rx::Error

    // Slots for `opName`, or nullptr when the op has none.
    const std::vector<uint32_t>* operandSlots(std::string_view opName) const;
    size_t size() const { return slots_.size(); }

private:
    std::unordered_map<std::string, std::vector<uint32_t>> slots_;  // (not "slots": a Qt macro)
};

enum class ValueClass : uint8_t { Other, Forward, Backward };

// Per-op-name flags for one config (ALGORITHM.md §4), indexed by Program op name id.
struct OpClasses {
    enum : uint8_t {
        Recomputable = 1, Unrecomputable = 2, Fusible = 4, Tending = 8, Ignored = 16, View = 32
    };
    std::vector<uint8_t> flags;  // by nameId
    bool has(uint32_t nameId, uint8_t f) const { return nameId < flags.size() && (flags[nameId] & f); }
};

class Analysis {
public:
    static constexpr int64_t kNoDistance = -1;       // the seed has no entry (missing key)
    static constexpr int64_t kFarDistance = 1000000000;

    Analysis(std::shared_ptr<const Program> program, const RecomputeSpec& spec,
             const NoNeedBufferTable& table = NoNeedBufferTable::builtin());

    const Program& program() const { return *program_; }
    const std::shared_ptr<const Program>& programPtr() const { return program_; }
    const RecomputeSpec& spec() const { return spec_; }

    // The seed returns the program unchanged (no bw values, or bwd_start >= op count).
    bool unchanged() const { return unchanged_; }
    // A failure of the seed's analysis itself (e.g. a missing distance key); empty if none.
    const std::string& error() const { return error_; }
    const std::vector<std::string>& warnings() const { return warnings_; }

    // ---- global block ----
    std::span<const OpId> globalOps() const { return program_->globalBlock().ops; }
    size_t opCount() const { return program_->globalBlock().ops.size(); }
    int64_t fwdEnd() const { return spec_.fwdOpEndIdx; }
    int64_t bwdStart() const { return spec_.backwardOpStartIdx; }
    // Index of a global-block op, kNoId for nested or unplaced ops.
    uint32_t opIndex(OpId op) const { return op < opIndex_.size() ? opIndex_[op] : kNoId; }
    bool isForwardOp(OpId op) const { return opIndex(op) != kNoId && int64_t(opIndex(op)) <= fwdEnd(); }
    bool isBackwardRangeOp(OpId op) const { return opIndex(op) != kNoId && int64_t(opIndex(op)) >= bwdStart(); }

    // ---- values ----
    ValueClass valueClass(ValueId v) const { return cls_[v]; }
    bool isForwardValue(ValueId v) const { return cls_[v] == ValueClass::Forward; }
    bool isBackwardValue(ValueId v) const { return cls_[v] == ValueClass::Backward; }
    bool isInput(ValueId v) const { return flags_[v] & kInput; }
    bool isOutput(ValueId v) const { return flags_[v] & kOutput; }
    bool isInitialized(ValueId v) const { return program_->value(v).type != kNullType; }
    // used exactly once (one operand slot), by builtin.split / builtin.slice
    bool usedOnceBySplitSlice(ValueId v) const { return flags_[v] & kSplitOnce; }
    bool isBwNoNeedBuffer(ValueId v) const { return flags_[v] & kBwNoNeedBuffer; }
    int64_t size(ValueId v) const { return program_->valueBytes(v); }
    int64_t distance(ValueId v) const { return dist_[v]; }
    // Sum of sizes of the value's real inputs (§5 banned(v)), -1 where the seed would fail.
    int64_t realInputsSize(ValueId v) const;
    // Where the seed's size-ratio rule raises for v instead of answering (get_real_input_nodes
    // and cal_value_node_size): its exception text and the value at fault; empty if it does not.
    struct RealInputsRaise {
        std::string message;    // e.g. "ValueError: value node illegal: <<NULL VALUE>>"
        std::string culprit;    // what the seed could not read, e.g. "operand 1 of pd_op.dropout (null)"
        bool raises() const { return !message.empty(); }
    };
    RealInputsRaise realInputsRaise(ValueId v) const;
    // The seed's get_real_define_op_name: for split/slice results, the op before it.
    std::string_view realDefineOpName(ValueId v) const;
    uint32_t realDefineOpNameId(ValueId v) const;
    uint32_t defNameId(ValueId v) const { return defName_[v]; }  // kNoId for block arguments

    // users(v) of §2, sorted by id. `filtered` drops non-forward user ops of bw-no-need-buffer values.
    std::span<const ValueId> users(ValueId v, bool filtered = true) const;
    // Ops of v's block using v that lie in the forward range (one entry per slot).
    std::span<const OpId> forwardUserOps(ValueId v) const;

    // Values the seed looks at: results of global ops [0..end] (fw then bw), in program order.
    std::span<const ValueId> graphValues() const { return graphValues_; }

    // ---- per config ----
    OpClasses classify(const RecomputeConfig& config) const;
    // Fusion-loop judge (§5) for the config's unrecomputable ops: per value, 1 if some op in
    // forwardUserOps(v) has an unfusible op on a path to/from def(v). Exact for the seed's
    // one-pass set construction (FusionJudge.h).
    std::vector<uint8_t> fusionLoopFlags(const OpClasses& classes, const FusionJudgeOptions& options = {},
                                         FusionJudgeStats* stats = nullptr) const;
    // The judge for one pair of global ops (slower; for the explorer's "why" panel).
    bool hasUnfusibleOpOnAnyPath(const OpClasses& classes, OpId op1, OpId op2) const;

    // Value lookup by file name ("%12"); kNoId if none.
    ValueId findValue(std::string_view name) const;

private:
    enum : uint8_t { kInput = 1, kOutput = 2, kSplitOnce = 4, kBwNoNeedBuffer = 8 };

    void computeUsers();
    void computeDistances();
    void computeProducerGraph();
    OpDag opDag() const;
    std::vector<uint8_t> unrecomputableByIndex(const OpClasses& classes) const;  // by global index

    std::shared_ptr<const Program> program_;
    RecomputeSpec spec_;
    bool unchanged_ = false;
    std::string error_;
    std::vector<std::string> warnings_;

    std::vector<uint32_t> opIndex_;  // by OpId
    std::vector<ValueClass> cls_;    // by ValueId
    std::vector<uint8_t> flags_;     // by ValueId
    std::vector<int64_t> dist_;      // by ValueId
    std::vector<uint32_t> defName_;  // by ValueId: name id of the defining op (hot in the network build)
    // Name ids of the ops the real-input rules look through (kNoId when the program has none),
    // so that the per-value rules of every solve compare ids, not strings.
    uint32_t splitNameId_ = kNoId, sliceNameId_ = kNoId, combineNameId_ = kNoId;
    bool isSplitOrSliceOp(OpId op) const;
    std::vector<ValueId> graphValues_;

    // CSR: users (unfiltered and filtered), forward user ops
    std::vector<uint32_t> userOff_, filtOff_, fwdUseOff_;
    std::vector<ValueId> userList_, filtList_;
    std::vector<OpId> fwdUseList_;

    // Producer -> consumer edges among global ops (by global index), CSR by producer index,
    // plus the reverse (consumer -> producers), used by the fusion-loop judge.
    std::vector<uint32_t> consOff_, cons_, prodOff_, prod_;

    mutable std::once_flag byNameOnce_;  // built on first findValue (pins only)
    mutable std::unordered_map<std::string, ValueId> byName_;
};

}  // namespace rx
