#include "model/Program.h"

#include <algorithm>
#include <cassert>
#include <charconv>
#include <stdexcept>

namespace rx {

std::string_view generationName(Generation g) {
    switch (g) {
    case Generation::G0: return "G0";
    case Generation::G1: return "G1";
    case Generation::G2: return "G2";
    case Generation::G3: return "G3";
    }
    return "G2";
}

std::optional<Generation> parseGenerationName(std::string_view s) {
    if (s == "G0" || s == "g0") return Generation::G0;
    if (s == "G1" || s == "g1") return Generation::G1;
    if (s == "G2" || s == "g2") return Generation::G2;
    if (s == "G3" || s == "g3") return Generation::G3;
    return std::nullopt;
}

const Attribute* Operation::attribute(std::string_view key) const {
    for (const auto& a : attributes)
        if (a.name == key) return &a.value;
    return nullptr;
}

Attribute* Operation::attribute(std::string_view key) {
    for (auto& a : attributes)
        if (a.name == key) return &a.value;
    return nullptr;
}

void Operation::setAttribute(std::string_view key, Attribute value) {
    if (Attribute* existing = attribute(key)) {
        *existing = std::move(value);
        return;
    }
    attributes.push_back({std::string(key), std::move(value)});
}

Program::Program() {
    blocks.emplace_back();  // the global block
}

Program::Program(const Program& o, size_t extraOps, size_t extraValues)
    : blocks(o.blocks), types(o.types), generation(o.generation), warnings(o.warnings), fragment(o.fragment),
      operandTypeOverrides(o.operandTypeOverrides), opNames_(o.opNames_), opNameIds_(o.opNameIds_),
      nextNumericName_(o.nextNumericName_) {
    // Every data member but the finish() tables: the copy is unfinished, as the caller is about
    // to append to it. Keep in step with Program.h.
    ops.reserve(o.ops.size() + extraOps);
    ops.assign(o.ops.begin(), o.ops.end());
    values.reserve(o.values.size() + extraValues);
    values.assign(o.values.begin(), o.values.end());
}

uint32_t Program::internOpName(std::string_view name) {
    auto it = opNameIds_.find(name);
    if (it != opNameIds_.end()) return it->second;
    const auto id = static_cast<uint32_t>(opNames_.size());
    opNames_.emplace_back(name);
    opNameIds_.emplace(std::string(name), id);
    return id;
}

uint32_t Program::findOpName(std::string_view name) const {
    auto it = opNameIds_.find(name);
    return it == opNameIds_.end() ? kNoId : it->second;
}

BlockId Program::addBlock(OpId parentOp) {
    blocks.emplace_back();
    blocks.back().parentOp = parentOp;
    return static_cast<BlockId>(blocks.size() - 1);
}

void Program::noteValueName(std::string_view name) {
    if (name.size() < 2 || name[0] != '%') return;
    int64_t n = 0;
    auto [ptr, ec] = std::from_chars(name.data() + 1, name.data() + name.size(), n);
    if (ec == std::errc() && ptr == name.data() + name.size() && n + 1 > nextNumericName_)
        nextNumericName_ = n + 1;
}

std::string Program::nextValueName() { return "%" + std::to_string(nextNumericName_++); }

OpId Program::createOp(std::string_view name, std::span<const ValueId> operands,
                       std::span<const TypeId> resultTypes, std::vector<NamedAttribute> attributes) {
    const auto id = static_cast<OpId>(ops.size());
    Operation op;
    op.nameId = internOpName(name);
    op.operands.assign(operands.begin(), operands.end());
    op.attributes = std::move(attributes);
    op.results.reserve(resultTypes.size());
    for (size_t i = 0; i < resultTypes.size(); ++i) {
        Value v;
        v.type = resultTypes[i];
        v.definingOp = id;
        v.index = static_cast<uint32_t>(i);
        v.name = nextValueName();
        op.results.push_back(static_cast<ValueId>(values.size()));
        values.push_back(std::move(v));
    }
    ops.push_back(std::move(op));
    markUnfinished();
    return id;
}

OpId Program::appendOp(BlockId block, std::string_view name, std::span<const ValueId> operands,
                       std::span<const TypeId> resultTypes, std::vector<NamedAttribute> attributes,
                       std::span<const std::string> resultNames) {
    const OpId id = createOp(name, operands, resultTypes, std::move(attributes));
    for (size_t i = 0; i < resultNames.size() && i < ops[id].results.size(); ++i) {
        values[ops[id].results[i]].name = resultNames[i];
        noteValueName(resultNames[i]);
    }
    appendExistingOp(id, block);
    return id;
}

ValueId Program::addBlockArgument(BlockId block, TypeId type, std::string name, std::string keyword) {
    Value v;
    v.type = type;
    v.block = block;
    const bool isKeyword = !keyword.empty();
    v.index = static_cast<uint32_t>(isKeyword ? blocks[block].kwargs.size() : blocks[block].args.size());
    noteValueName(name);
    v.name = std::move(name);
    v.keyword = keyword;
    const auto id = static_cast<ValueId>(values.size());
    values.push_back(std::move(v));
    (isKeyword ? blocks[block].kwargs : blocks[block].args).push_back(id);
    markUnfinished();
    return id;
}

namespace {
void detach(Program& p, OpId op) {
    const BlockId b = p.ops[op].parentBlock;
    if (b == kNoId) return;
    auto& list = p.blocks[b].ops;
    list.erase(std::find(list.begin(), list.end(), op));
    p.ops[op].parentBlock = kNoId;
}
void setResultBlocks(Program& p, OpId op, BlockId block) {
    for (ValueId r : p.ops[op].results) p.values[r].block = block;
}
}  // namespace

void Program::insertOpBefore(OpId op, OpId before) {
    assert(op != before);
    detach(*this, op);
    const BlockId b = ops[before].parentBlock;
    auto& list = blocks[b].ops;
    list.insert(std::find(list.begin(), list.end(), before), op);
    ops[op].parentBlock = b;
    setResultBlocks(*this, op, b);
    markUnfinished();
}

void Program::appendExistingOp(OpId op, BlockId block) {
    detach(*this, op);
    blocks[block].ops.push_back(op);
    ops[op].parentBlock = block;
    setResultBlocks(*this, op, block);
    markUnfinished();
}

void Program::setOperand(OpId op, uint32_t index, ValueId v) {
    ops[op].operands[index] = v;
    if (!operandTypeOverrides.empty()) operandTypeOverrides.erase(op);
    markUnfinished();
}

void Program::eraseOp(OpId op) {
    detach(*this, op);
    ops[op].dead = true;
    markUnfinished();
}

size_t Program::liveOpCount() const {
    size_t n = 0;
    for (const auto& op : ops)
        if (!op.dead && op.parentBlock != kNoId) ++n;
    return n;
}

void Program::finish() {
    buildIndex();
    buildUses();
    finished_ = true;
}

void Program::requireFinished(const char* call) const {
    if (!finished_)
        throw std::logic_error(std::string("Program::") + call +
                               " called on an unfinished program (call Program::finish() after building or editing it)");
    if (indexInBlock_.size() != ops.size() || useOffsets_.size() != values.size() + 1)
        throw std::logic_error(std::string("Program::") + call +
                               " called after ops or values were added by hand since Program::finish()");
}

void Program::buildIndex() {
    indexInBlock_.assign(ops.size(), kNoId);
    for (const Block& b : blocks)
        for (size_t i = 0; i < b.ops.size(); ++i) indexInBlock_[b.ops[i]] = static_cast<uint32_t>(i);
}

uint32_t Program::indexInBlock(OpId op) const {
    requireFinished("indexInBlock()");
    if (op >= indexInBlock_.size())
        throw std::out_of_range("Program::indexInBlock(): op " + std::to_string(op) + " out of range (" +
                                std::to_string(ops.size()) + " ops)");
    return indexInBlock_[op];
}

OpId Program::ancestorInBlock(OpId op, BlockId block) const {
    while (op != kNoId && op < ops.size()) {
        const BlockId b = ops[op].parentBlock;
        if (b == block) return op;
        if (b == kNoId) return kNoId;
        op = blocks[b].parentOp;
    }
    return kNoId;
}

void Program::buildUses() {
    // Pre-order walk from the global block gives "program order" for nested uses too.
    std::vector<uint32_t> counts(values.size() + 1, 0);
    struct FlatUse { Use use; ValueId value; };
    std::vector<FlatUse> flat;
    flat.reserve(ops.size() * 2);
    std::vector<std::pair<BlockId, size_t>> stack;
    if (!blocks.empty()) stack.push_back({kGlobalBlock, 0});
    while (!stack.empty()) {
        auto& [b, i] = stack.back();
        if (i >= blocks[b].ops.size()) {
            stack.pop_back();
            continue;
        }
        const OpId op = blocks[b].ops[i++];
        const Operation& o = ops[op];
        for (uint32_t k = 0; k < o.operands.size(); ++k) {
            const ValueId v = o.operands[k];
            if (v == kNoId) continue;
            // The op's own block is known here: no walk up for the common same-block use.
            const BlockId vb = values[v].block;
            flat.push_back({Use{op, k, vb == b ? op : ancestorInBlock(op, vb)}, v});
            ++counts[v];
        }
        // Push regions in reverse so the first region's blocks are visited first.
        for (auto r = o.regions.rbegin(); r != o.regions.rend(); ++r)
            for (auto blk = r->rbegin(); blk != r->rend(); ++blk) stack.push_back({*blk, 0});
    }
    useOffsets_.assign(values.size() + 1, 0);
    for (size_t v = 0; v < values.size(); ++v) useOffsets_[v + 1] = useOffsets_[v] + counts[v];
    useEntries_.assign(flat.size(), Use{});
    std::vector<uint32_t> fill(useOffsets_.begin(), useOffsets_.end() - 1);
    for (const FlatUse& f : flat) useEntries_[fill[f.value]++] = f.use;
}

std::span<const Use> Program::uses(ValueId v) const {
    requireFinished("uses()");
    if (v >= values.size())
        throw std::out_of_range("Program::uses(): value " + std::to_string(v) + " out of range (" +
                                std::to_string(values.size()) + " values)");
    return {useEntries_.data() + useOffsets_[v], useEntries_.data() + useOffsets_[v + 1]};
}

}  // namespace rx
