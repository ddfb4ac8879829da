#pragma once
// The seed's flow network (docs/ALGORITHM.md §6): every value v becomes v_in -> v_out with
// capacity weight(v); source/sink and ∞ arcs encode inputs, bans, users, the backward, the
// fusion-loop judge and the explorer's pins. Capacities are exact integers in units of
// 1/scale (scale = 10 when the minimum weight is 0.1), so 0.1 is never rounded away.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "algorithms/Analysis.h"

namespace rx {

class AtomicFile;  // model/FileIO.h

// Why a value is (not) allowed to be recomputed (§5 banned(v)); None = not banned.
enum class BanRule : uint8_t {
    None,
    TendingToRecompute,     // never banned: def is tending-to-recompute
    AggressiveUnrecomputable,
    NotRecomputable,        // def not in the recomputable ops
    MaterializedBackwards,
    TooFarFromBackward,     // dist > max_dist_from_bw
    SizeRatio,              // ratio * size < sum of real input sizes
};
std::string_view banRuleName(BanRule r);  // stable identifier, e.g. "size_ratio"
std::string banRuleText(BanRule r);       // one sentence for humans

// Why a graph value got no nodes of its own (§6 step 1).
enum class SkipReason : uint8_t {
    None, NotGraphValue, ForwardOutput, NotInitialized, CombineResult, IgnoredOp, UsedOnceBySplit
};
std::string_view skipReasonName(SkipReason r);

// Where the seed itself raises for this program and config instead of cutting (e.g. with
// pd_op.dropout made recomputable, its null seed-tensor operand fails the size-ratio rule):
// what the seed would print, and the value, op and rule at fault. The first such value in
// program order is reported; the solve goes on as an extension (null inputs count 0 bytes).
struct SeedError {
    std::string message;    // the seed's exception, e.g. "ValueError: value node illegal: <<NULL VALUE>>"
    std::string value;      // the value being judged, "%12"
    int64_t opIndex = -1;   // its defining op's global index
    std::string opName;     // that op's name
    std::string rule;       // the rule being evaluated, e.g. "size_ratio" (banRuleName)
    std::string detail;     // one sentence: what the seed could not read
    bool empty() const { return message.empty(); }
};

// Per-value facts of one solve (what the explorer's "why" panel and the report show).
struct ValueFacts {
    SkipReason skip = SkipReason::NotGraphValue;
    int64_t weightUnits = 0;     // capacity of v_in -> v_out (units of 1/scale); forward values only
    bool materialized = false;
    bool materializedBackwards = false;
    bool fusionLoop = false;     // some forward user has an unfusible op on a path (§6 step 7)
    bool banned = false;         // source -> v_in for the ban (fw values)
    BanRule banRule = BanRule::None;
    enum class Pin : uint8_t { None, Saved, Recomputed } pin = Pin::None;
};

class FlowNetwork {
public:
    static constexpr uint32_t kSource = 0;
    static constexpr uint32_t kSink = 1;

    enum class NodeKind : uint8_t { Source, Sink, In, Out };
    struct Node {
        NodeKind kind;
        ValueId value;  // kNoId for source/sink
    };
    // Reasons an arc was added (a bit set: adding an arc twice keeps one arc).
    enum ArcReason : uint16_t {
        Weight = 1, User = 2, Input = 4, Ban = 8, FusionLoopSource = 16, FusionLoopSink = 32,
        BackwardSink = 64, PinSaved = 128, PinRecomputed = 256
    };
    struct Arc {
        uint32_t from, to;
        int64_t capacity;  // units of 1/scale; meaningless when infinite
        bool infinite;
        uint16_t reasons;
    };

    int64_t scale = 1;                 // capacities are in units of 1/scale
    std::vector<Node> nodes;           // [0] source, [1] sink, then in/out nodes as created
    std::vector<Arc> arcs;
    std::vector<ValueFacts> facts;     // by ValueId
    std::vector<std::string> warnings; // e.g. pins naming unknown values
    SeedError seedError;               // set where the seed raises while building the network

    uint32_t inNode(ValueId v) const { return v < inNode_.size() ? inNode_[v] : kNoId; }
    uint32_t outNode(ValueId v) const { return v < outNode_.size() ? outNode_[v] : kNoId; }
    // networkx only has the nodes some edge touches: source/sink may be missing.
    bool hasSource() const { return sourceUsed_; }
    bool hasSink() const { return sinkUsed_; }
    size_t nodeCount() const;  // as networkx counts them (source/sink only if used)

    std::string nodeName(uint32_t node, const Program& program) const;  // "%3_in", "source"
    // Exact decimal text of a capacity in units (e.g. "73819750", "0.1"); "inf" for ∞.
    std::string capacityText(const Arc& arc) const;
    static std::string unitsText(int64_t units, int64_t scale);
    // The same text into a caller's buffer (no allocation; the solve report writes one per value).
    using UnitsBuffer = std::array<char, 48>;
    static std::string_view formatUnits(UnitsBuffer& buf, int64_t units, int64_t scale);

    // Exports (docs/FORMATS.md): sinkSide (optional, by node) colours the cut in .dot/.json.
    std::string toDot(const Program& program, const std::vector<uint8_t>* sinkSide = nullptr) const;
    std::string toJson(const Program& program, const std::vector<uint8_t>* sinkSide = nullptr) const;
    std::string toDimacs(const Program& program) const;
    // Writes by extension (.dot, .json, .dimacs); throws rx::Error otherwise.
    void writeFile(const std::string& path, const Program& program,
                   const std::vector<uint8_t>* sinkSide = nullptr) const;
    // The same into `file` (format by its path), finished but not published (FileIO commitAll).
    void writeTo(AtomicFile& file, const Program& program, const std::vector<uint8_t>* sinkSide = nullptr) const;

    // ---- construction ----
    uint32_t ensureIn(ValueId v);
    uint32_t ensureOut(ValueId v);
    void addArc(uint32_t from, uint32_t to, int64_t capacity, bool infinite, ArcReason reason);
    void resizeValues(size_t n);
    void reserve(size_t nodeCount, size_t arcCount);  // capacity only: no reallocation while building

private:
    std::vector<uint32_t> inNode_, outNode_;
    bool sourceUsed_ = false, sinkUsed_ = false;
    // De-duplication of ∞ arcs from source / to sink per node, and v_out -> u_in per v.
    std::vector<uint32_t> sourceArc_, sinkArc_;
};

// Builds the seed's network for a config (§5 weights and bans, §6 arcs). Throws rx::Error
// for a config it cannot represent exactly (minimum_weight with more than 6 decimals, or
// capacities beyond int64).
FlowNetwork buildFlowNetwork(const Analysis& analysis, const RecomputeConfig& config,
                             const OpClasses& classes, const std::vector<uint8_t>& fusionLoop);

}  // namespace rx
