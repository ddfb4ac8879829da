#pragma once
// The one liveness analysis of a program's global block: which storage each value refers to,
// when that storage is allocated and released, and the bytes held at every op. The memory
// model, the executors' lifetime plans, the check pass and the planner's replay all read it.
//
// Conventions (README "Memory conventions", FORMATS.md "Profile report"):
//  - A value that is not an alias allocates its own storage at the op defining it; a vector
//    result of such an op (pd_op.split, pd_op.unbind, ...) allocates one buffer per element,
//    all at that op: input and outputs coexist while it runs.
//  - Aliases allocate nothing: builtin.combine packs its operands' buffers into a vector,
//    builtin.split / builtin.slice unpack a vector's buffers, pd_op.fetch refers to its operand.
//  - A buffer is released after the last top-level op reading any value that refers to it (a
//    use inside a region counts at the top-level op holding the region); a value read by
//    nobody is released after the op defining it.
//  - Resident values are never released. Every feed and parameter (pd_op.data, pd_op.feed,
//    builtin.parameter) is resident for the step, whether it is a forward input or not (a
//    grad-output pd_op.data too): the framework holds feeds until the step ends.
//  - Bytes are counted from the op that allocates them, resident ones included.
//  - Control flow (pd_op.if, pd_op.while and the cf stacks), as every backend runs it
//    (exec/BlockInterpreter.h): a block's values are held until the block ends (its scope is
//    dropped as a whole); block arguments, cf.yield, cf.tuple_push and cf.tuple_pop allocate
//    nothing (they refer to their operands' storage), an if's or while's results are what its
//    block yielded; a while's iteration holds its arguments (the previous iteration's values)
//    while it makes the next; a value pushed on a cf stack is held until the block that pops it
//    ends. The bytes a structured op holds while it runs depend on the branch it takes and the
//    iterations it runs: liveBytesOf follows a run's ControlPath; without one it evaluates
//    conditions computed from small integer and bool constants (a counted loop, a loop on
//    pd_op.has_elements that runs until its stack is empty) and otherwise assumes the then
//    branch and one iteration.
#include <cstdint>
#include <string>
#include <unordered_map>
#include <string_view>
#include <vector>

#include "exec/CompactLists.h"
#include "model/CheckedMath.h"
#include "model/Program.h"

namespace rx::exec {

// How an op's results refer to storage.
enum class AliasKind : uint8_t {
    None,     // results allocate their own storage
    Pack,     // builtin.combine: the result vector holds the operands' buffers
    Unpack,   // builtin.split: result i is element i of operand 0
    Element,  // builtin.slice: the result is element `index` of operand 0
    Same,     // pd_op.fetch: the result is operand 0
};
AliasKind aliasKindOf(std::string_view opName);

// The feeds and parameters (always resident) plus `extra` (a spec's inputs, by ValueId).
std::vector<uint8_t> residentValuesOf(const Program& program, const std::vector<ValueId>& extra = {});

struct Liveness {
    static constexpr uint32_t kNever = UINT32_MAX;

    struct Buffer {
        ValueId owner = kNoId;     // the value whose defining op allocated it
        uint32_t element = 0;      // index in the owner's vector (0 for a tensor)
        int64_t bytes = 0;         // saturates at kInt64Max (model/CheckedMath.h)
        uint32_t birth = 0;        // global-block position allocating it
        uint32_t death = kNever;   // position after which it is released; kNever: resident
    };
    std::vector<Buffer> buffers;
    // The lists below are CompactLists (8 bytes a list, not a vector's 24 and a heap block):
    // a run holds them beside its tensors.
    CompactLists<uint32_t> buffersOf;   // by ValueId: the buffers it refers to
    // By ValueId: position of the last top-level op reading it (its definition when unread);
    // kNever for values not defined in the global block.
    std::vector<uint32_t> lastUse;
    // By ValueId: position after which its own reference is dropped (lastUse; kNever if resident).
    std::vector<uint32_t> releaseAfter;
    CompactLists<uint32_t> allocatedAt;  // per position: buffers allocated there
    CompactLists<uint32_t> freedAfter;   // per position: buffers released after it
    CompactLists<ValueId> valuesDeadAfter;  // per position: values whose reference drops

    // Bytes the value's defining op allocated for it (0 for an alias), saturating.
    int64_t ownedBytes(ValueId v) const;
    // The latest position any of the value's own buffers is alive (kNever: resident; its
    // definition when it owns none).
    uint32_t storageEnd(ValueId v) const;
};

// `resident`: by ValueId, values never released (residentValuesOf, or an executor's mask).
Liveness analyzeLiveness(const Program& program, const std::vector<uint8_t>& resident);

// The control decisions of one run: per structured op (pd_op.if / pd_op.while, in any block),
// one entry per time it ran, in order: the region an if ran (kNoRegion: none), the
// iterations a while ran. Recorded by the executors (RunResult::controlPath).
struct ControlPath {
    static constexpr uint32_t kNoRegion = UINT32_MAX;
    std::unordered_map<OpId, std::vector<uint32_t>> decisions;
};

// True when some op holds a region or is a cf.* op (the bytes then follow ControlPath rules).
bool hasControlFlow(const Program& program);

// Bytes held while each op runs (its operands, its new buffers and everything still alive),
// exact or an error naming where a sum passed int64.
struct LiveBytes {
    std::vector<int64_t> perOp;
    int64_t peakBytes = 0;
    uint32_t peakIndex = 0;
    int64_t residentBytes = 0;
    std::string error;
};
// With control flow, the bytes inside structured ops and on cf stacks follow `path` (null:
// the conditions the model can evaluate, else the then branch and one iteration; see above).
LiveBytes liveBytesOf(const Program& program, const Liveness& liveness, const ControlPath* path = nullptr);

}  // namespace rx::exec
