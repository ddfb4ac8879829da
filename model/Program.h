#pragma once
// The program IR: Program owns flat arrays of Operation, Value, Block and Type; everything
// refers to everything else by 32-bit index. Ids are stable for the program's lifetime (an
// erased op keeps its slot, marked dead), so analyses can keep per-op / per-value vectors.
//
// Structure mirrors MLIR/PIR: an Operation has operands (ValueIds), results (ValueIds),
// attributes, and regions; a region is a list of Blocks; a Block is an ordered list of ops
// plus block arguments. Block 0 is the global block ("global_block()" in Paddle).
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "model/Attribute.h"
#include "model/AttributeList.h"
#include "model/IdList.h"
#include "model/RareVector.h"
#include "model/Type.h"

namespace rx {

using OpId = uint32_t;
using ValueId = uint32_t;
using BlockId = uint32_t;
inline constexpr uint32_t kNoId = UINT32_MAX;  // "none": null value, block argument's defining op...

// Which Paddle printer wrote (or will write) the text. See docs/FORMATS.md.
enum class Generation : uint8_t { G0, G1, G2, G3 };
std::string_view generationName(Generation g);              // "G0".."G3"
std::optional<Generation> parseGenerationName(std::string_view s);

struct Value {
    TypeId type = kNullType;
    OpId definingOp = kNoId;     // kNoId for block arguments
    BlockId block = kNoId;       // block that defines it (defining op's block, or the arg's block)
    uint32_t index = 0;          // result index, or argument index
    std::string name;            // as in the file, e.g. "%12", "%arg_0"; never empty once named
    InternedString keyword;      // block keyword-argument name (while/if kwargs), else empty
};

// An op's operands and results, inline up to 3 (nearly every op): reading a program or
// copying it (the rewriter) allocates nothing per op for them. Reads like a std::vector.
using OperandList = IdList;
using ResultList = IdList;

// 80 bytes: a program and its rewritten copy hold one per op, and the passes walk them in
// order (a 1M-op program's ops took 120 MB with boost small_vectors for the id lists).
struct Operation {
    uint32_t nameId = 0;                       // interned op name, see Program::opName()
    BlockId parentBlock = kNoId;
    OperandList operands;                      // kNoId = <<NULL VALUE>>
    ResultList results;
    AttributeList attributes;                  // in printed order; copy-on-write, shared by copies
    RareVector<std::string> operandKeywords;   // empty, or one per operand ("cond", "inputs")
    RareVector<std::vector<BlockId>> regions;  // each region: its blocks in order
    uint32_t printedId = kNoId;                // the "[id:N]" suffix some printers add; kNoId if none
    bool dead = false;                         // erased; slot kept so ids stay stable
    // How the reader found the op printed (OpSyntax bits); 0 = the printer's default form.
    uint8_t syntax = 0;

    const Attribute* attribute(std::string_view key) const;
    Attribute* attribute(std::string_view key);
    void setAttribute(std::string_view key, Attribute value);  // replaces or appends
};
static_assert(sizeof(Operation) <= 80, "Operation grew: every op of a program pays for it twice");

// Bits of Operation::syntax: how an op was printed where printers differ, so that the
// writer reproduces it (G1 `pd_op.if` unquoted, `"pd_op.while"(cond=..)` without types ...).
namespace OpSyntax {
inline constexpr uint8_t kBareName = 1;             // name printed without quotes
inline constexpr uint8_t kNoSpaceBeforeOperands = 2;
inline constexpr uint8_t kNoAttributeDict = 4;      // attribute dict left out (no attributes)
inline constexpr uint8_t kArrowOnlySignature = 8;   // "-> types" without "(inputs)"
inline constexpr uint8_t kNoSignature = 16;         // no type signature at all
inline constexpr uint8_t kRegionOnNewLine = 32;     // "{" of the first region on its own line
}  // namespace OpSyntax

struct Block {
    std::vector<OpId> ops;         // program order
    std::vector<ValueId> args;     // positional block arguments (^%arg_0 ...)
    std::vector<ValueId> kwargs;   // keyword block arguments (Value::keyword holds the name)
    OpId parentOp = kNoId;         // kNoId for the global block
    bool argsPrinted = false;      // the reader saw a "^%arg_0, ..." line
    bool argTypesPrinted = false;  // ... with ": type" after each argument
};

// One use of a value: the op that reads it, which operand slot, and the op's ancestor that
// lives in the value's own block (== user for a use in the same block). Paddle's
// all_used_ops_in_same_block() is the list of `ancestor` over these, one entry per slot.
struct Use {
    OpId user = kNoId;
    uint32_t operandIndex = 0;
    OpId ancestor = kNoId;
};

class Program {
public:
    Program();
    // A copy of `other` with room for `extraOps` more ops and `extraValues` more values, so a
    // pass that appends to the copy (the rewriter's clones) does not move the arrays again.
    Program(const Program& other, size_t extraOps, size_t extraValues);

    // ---- storage: read through const accessors; change through the mutators below ----
    // Ids index these; an id from this program is always in range (ops are never removed,
    // only marked dead). The spans stay valid until the next mutator that adds ops/values.
    const Operation& op(OpId id) const { return ops_[id]; }
    const Value& value(ValueId id) const { return values_[id]; }
    const Block& block(BlockId id) const { return blocks_[id]; }
    std::span<const Operation> ops() const { return ops_; }
    std::span<const Value> values() const { return values_; }
    std::span<const Block> blocks() const { return blocks_; }
    const TypeTable& types() const { return types_; }

    Generation generation() const { return generation_; }   // the printer generation it was read in
    const std::vector<std::string>& warnings() const { return warnings_; }  // reader warnings
    // Read from a fragment (ops without the enclosing "{ }"); the writer prints it the same
    // way. Values such a fragment uses without defining are arguments of the global block.
    bool isFragment() const { return fragment_; }
    // Operand types as printed where they disagree with the operands' own types (hand-edited
    // fixtures do this); the writer prints them back. setOperand() drops an op's entry.
    const std::unordered_map<OpId, std::vector<TypeId>>& operandTypeOverrides() const { return operandTypeOverrides_; }

    static constexpr BlockId kGlobalBlock = 0;
    const Block& globalBlock() const { return blocks_[kGlobalBlock]; }

    // ---- metadata (none of these unseals: finish() derives nothing from them) ----
    // Types are append-only and interned; a new type changes no use list or index.
    TypeId internType(const Type& type) { return types_.intern(type); }
    TypeId tensorType(DType dtype, std::vector<int64_t> dims) { return types_.tensor(dtype, std::move(dims)); }
    void setGeneration(Generation g) { generation_ = g; }
    void addWarning(std::string warning) { warnings_.push_back(std::move(warning)); }
    void setFragment(bool fragment) { fragment_ = fragment; }

    // ---- names ----
    uint32_t internOpName(std::string_view name);
    std::string_view opName(OpId op) const { return opNames_[ops_[op].nameId]; }
    std::string_view opNameById(uint32_t nameId) const { return opNames_[nameId]; }
    size_t opNameCount() const { return opNames_.size(); }
    // kNoId if not interned (then no op has that name).
    uint32_t findOpName(std::string_view name) const;

    // ---- construction ----
    BlockId addBlock(OpId parentOp);  // does not attach it to a region; caller does
    // Appends an op at the end of `block` with fresh result values (named by nextValueName()
    // unless names are given). Returns its id.
    OpId appendOp(BlockId block, std::string_view name, std::span<const ValueId> operands,
                  std::span<const TypeId> resultTypes, std::vector<NamedAttribute> attributes = {},
                  std::span<const std::string> resultNames = {});
    // Creates an op not yet placed in any block (parentBlock = kNoId); place it with
    // insertOpBefore / appendExistingOp.
    OpId createOp(std::string_view name, std::span<const ValueId> operands,
                  std::span<const TypeId> resultTypes, std::vector<NamedAttribute> attributes = {});
    ValueId addBlockArgument(BlockId block, TypeId type, std::string name, std::string keyword = {});
    // A name "%N" with N above every numeric name seen so far.
    std::string nextValueName();
    void noteValueName(std::string_view name);  // keeps nextValueName() fresh
    void noteValueNumber(int64_t n) {           // the same for "%N" with N already parsed
        if (n + 1 > nextNumericName_) nextNumericName_ = n + 1;
    }

    // ---- mutation (each marks the program unfinished; call finish() when done) ----
    void insertOpBefore(OpId op, OpId before);     // op must be unplaced or is moved
    void appendExistingOp(OpId op, BlockId block);
    // Replaces operand `index` of `op`; if the new operand's type differs from the old one's,
    // drops the op's printed operand types (they described the old operands).
    void setOperand(OpId op, uint32_t index, ValueId v);
    void eraseOp(OpId op);                         // detaches and marks dead; results stay (unused)
    // Replaces the op list of `block` by `ops` (a new order, or a new set: each listed op and
    // its results move to `block`; an op that was in it and is not listed becomes unplaced).
    void setBlockOps(BlockId block, std::vector<OpId> ops);
    // Appends a region (its blocks, in order) to `op`; the blocks' parentOp must be `op`.
    void addRegion(OpId op, std::vector<BlockId> blocks);
    void setOpAttribute(OpId op, std::string_view key, Attribute value);  // replaces or appends
    void setOpAttributes(OpId op, AttributeList attributes);  // the whole list (shared, copy on write)
    // Replaces all operands of `op` (kNoId = null); drops its printed operand types unless
    // the new operands have the old ones' types.
    void setOpOperands(OpId op, std::vector<ValueId> operands);
    // Keeps the first `count` results of `op`; the dropped values keep their slots, unused
    // (test fuzzers make malformed ops with it).
    void truncateResults(OpId op, size_t count);
    void setOpSyntax(OpId op, uint8_t syntax);               // OpSyntax bits
    void setPrintedId(OpId op, uint32_t printedId);          // "[id:N]"; kNoId for none
    // Empty, or one keyword per operand ("cond", "inputs").
    void setOperandKeywords(OpId op, std::vector<std::string> keywords);
    // The operand types the file printed for `op`, where they differ from its operands' types.
    void setOperandTypeOverride(OpId op, std::vector<TypeId> printedTypes);
    void setValueName(ValueId v, std::string name);  // also keeps nextValueName() fresh
    void setValueType(ValueId v, TypeId type);
    void setBlockArgsPrinted(BlockId block, bool printed);      // "^%arg_0, ..." line seen
    void setBlockArgTypesPrinted(BlockId block, bool printed);  // ... with ": type" after each

    // ---- the text reader's fast path (also mark the program unfinished) ----
    // Room for `ops` ops and `values` values, and `ops` entries in the global block's list.
    void reserve(size_t ops, size_t values);
    // Appends a value built by the caller (definingOp, block, index, name all set); returns its id.
    ValueId addValue(Value&& value);
    // Appends an op built by the caller, its results already added with addValue(); when its
    // parentBlock is set, it goes at the end of that block. Returns its id.
    OpId addOperation(Operation op);
    // Appends an empty op at the end of `parent` (kNoId: no block) for the caller to fill in
    // place (its id is ops().size() before the call). The reference lasts until the next op
    // is appended.
    Operation& appendOperation(BlockId parent);
    // Drops growth slack of the op, value and block-op arrays (about a third of their size
    // after a read); frees nothing when the slack is small.
    void shrinkToFit();

    // ---- sealing ----
    // Builds the use lists and in-block indices once the program is complete. Builders call
    // it last (readers, rewriter, zoo, test builders); after it, the const queries below
    // read immutable data, so a finished program may be shared across threads. Any
    // structural mutator above makes the program unfinished again.
    void finish();
    // True between finish() and the next mutation through the API.
    bool isFinished() const { return finished_; }

    // ---- queries ----
    // Position of op inside its block; kNoId for an unplaced op. Needs a finished program
    // (throws std::logic_error otherwise) and a valid op id (std::out_of_range).
    // Inline (with the throws out of line): the passes call these in their inner loops.
    uint32_t indexInBlock(OpId op) const {
        if (!finished_ || op >= indexInBlock_.size()) [[unlikely]] failQuery("indexInBlock()", "op", op, ops_.size());
        return indexInBlock_[op];
    }
    // Uses of v, in program order of the using op (nested uses in pre-order). Same
    // preconditions as indexInBlock().
    std::span<const Use> uses(ValueId v) const {
        if (!finished_ || v >= values_.size()) [[unlikely]] failQuery("uses()", "value", v, values_.size());
        return {useEntries_.data() + useOffsets_[v], useEntries_.data() + useOffsets_[v + 1]};
    }
    // The ancestor of `op` that is a direct child of `block`, or kNoId.
    OpId ancestorInBlock(OpId op, BlockId block) const;
    size_t liveOpCount() const;                    // ops not dead, all blocks
    // Size in bytes per docs/ALGORITHM.md §5 (-1 dims left out; vectors summed).
    int64_t valueBytes(ValueId v) const { return types_.bytes(values_[v].type); }

private:
    void markUnfinished() { finished_ = false; }
    void detach(OpId op);                 // out of its block's list; parentBlock = kNoId
    void place(OpId op, BlockId block);   // op's and its results' block become `block`
    // The failed precondition of a query: unfinished (std::logic_error), else the `kind` ("op",
    // "value") `id` not below `count` (std::out_of_range).
    [[noreturn]] void failQuery(const char* call, const char* kind, uint32_t id, size_t count) const;
    void buildUses();
    void buildIndex();

    std::vector<Operation> ops_;
    std::vector<Value> values_;
    std::vector<Block> blocks_;
    TypeTable types_;
    Generation generation_ = Generation::G2;
    std::vector<std::string> warnings_;
    bool fragment_ = false;
    std::unordered_map<OpId, std::vector<TypeId>> operandTypeOverrides_;

    std::vector<std::string> opNames_;
    // Transparent lookup: interning a name already seen allocates nothing.
    struct NameHash {
        using is_transparent = void;
        size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
    };
    std::unordered_map<std::string, uint32_t, NameHash, std::equal_to<>> opNameIds_;
    int64_t nextNumericName_ = 0;

    // Built by finish(), read-only afterwards. CSR use lists: value v's uses are
    // useEntries_[useOffsets_[v] .. useOffsets_[v + 1]).
    bool finished_ = false;
    std::vector<uint32_t> useOffsets_;
    std::vector<Use> useEntries_;
    std::vector<uint32_t> indexInBlock_;
};

// What is wrong with the counts structured op `op`'s blocks yield (empty: nothing), by the
// rules the executor's BlockInterpreter runs it by: pd_op.if's blocks yield one value per
// result; pd_op.while's body yields the condition and one value per carried input (operands
// after the condition), and the while has one result per carried input. A block without a
// closing cf.yield yields nothing.
std::string yieldCountProblem(const Program& program, OpId op);

}  // namespace rx
