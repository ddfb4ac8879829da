#include "model/Program.h"

#include <algorithm>
#include <cassert>
#include <charconv>
#include <optional>
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

void Operation::setAttribute(std::string_view key, Attribute value) { attributes.set(key, std::move(value)); }

Program::Program() {
    blocks_.emplace_back();  // the global block
}

Program::Program(const Program& o, size_t extraOps, size_t extraValues)
    : blocks_(o.blocks_), types_(o.types_), generation_(o.generation_), warnings_(o.warnings_), fragment_(o.fragment_),
      operandTypeOverrides_(o.operandTypeOverrides_), opNames_(o.opNames_), opNameIds_(o.opNameIds_),
      nextNumericName_(o.nextNumericName_) {
    // Every data member but the finish() tables: the copy is unfinished, as the caller is about
    // to append to it. Keep in step with Program.h.
    ops_.reserve(o.ops_.size() + extraOps);
    ops_.assign(o.ops_.begin(), o.ops_.end());
    values_.reserve(o.values_.size() + extraValues);
    values_.assign(o.values_.begin(), o.values_.end());
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
    blocks_.emplace_back();
    blocks_.back().parentOp = parentOp;
    markUnfinished();
    return static_cast<BlockId>(blocks_.size() - 1);
}

void Program::noteValueName(std::string_view name) {
    if (name.size() < 2 || name[0] != '%') return;
    int64_t n = 0;
    auto [ptr, ec] = std::from_chars(name.data() + 1, name.data() + name.size(), n);
    if (ec == std::errc() && ptr == name.data() + name.size() && n + 1 > nextNumericName_)
        nextNumericName_ = n + 1;
}

std::string Program::nextValueName() {
    char text[24] = {'%'};
    char* end = std::to_chars(text + 1, text + sizeof text, nextNumericName_++).ptr;
    return std::string(text, size_t(end - text));
}

OpId Program::createOp(std::string_view name, std::span<const ValueId> operands,
                       std::span<const TypeId> resultTypes, std::vector<NamedAttribute> attributes) {
    const uint32_t nameId = internOpName(name);
    const auto id = static_cast<OpId>(ops_.size());
    // Built in place (the rewriter creates one op per clone: moving a finished Operation and
    // its Values into the arrays was a third of this).
    Operation& op = ops_.emplace_back();
    op.nameId = nameId;
    op.operands.assign(operands.begin(), operands.end());
    op.attributes = std::move(attributes);
    for (size_t i = 0; i < resultTypes.size(); ++i) {
        op.results.push_back(static_cast<ValueId>(values_.size()));
        Value& v = values_.emplace_back();
        v.type = resultTypes[i];
        v.definingOp = id;
        v.index = static_cast<uint32_t>(i);
        v.name = nextValueName();
    }
    markUnfinished();
    return id;
}

OpId Program::appendOp(BlockId block, std::string_view name, std::span<const ValueId> operands,
                       std::span<const TypeId> resultTypes, std::vector<NamedAttribute> attributes,
                       std::span<const std::string> resultNames) {
    const OpId id = createOp(name, operands, resultTypes, std::move(attributes));
    for (size_t i = 0; i < resultNames.size() && i < ops_[id].results.size(); ++i) {
        values_[ops_[id].results[i]].name = resultNames[i];
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
    v.index = static_cast<uint32_t>(isKeyword ? blocks_[block].kwargs.size() : blocks_[block].args.size());
    noteValueName(name);
    v.name = std::move(name);
    v.keyword = keyword;
    const auto id = static_cast<ValueId>(values_.size());
    values_.push_back(std::move(v));
    (isKeyword ? blocks_[block].kwargs : blocks_[block].args).push_back(id);
    markUnfinished();
    return id;
}

void Program::detach(OpId op) {
    const BlockId b = ops_[op].parentBlock;
    if (b == kNoId) return;
    auto& list = blocks_[b].ops;
    list.erase(std::find(list.begin(), list.end(), op));
    ops_[op].parentBlock = kNoId;
}

void Program::place(OpId op, BlockId block) {
    ops_[op].parentBlock = block;
    for (ValueId r : ops_[op].results) values_[r].block = block;
}

void Program::insertOpBefore(OpId op, OpId before) {
    assert(op != before);
    detach(op);
    const BlockId b = ops_[before].parentBlock;
    auto& list = blocks_[b].ops;
    list.insert(std::find(list.begin(), list.end(), before), op);
    place(op, b);
    markUnfinished();
}

void Program::appendExistingOp(OpId op, BlockId block) {
    detach(op);
    blocks_[block].ops.push_back(op);
    place(op, block);
    markUnfinished();
}

void Program::setOperand(OpId op, uint32_t index, ValueId v) {
    ValueId& slot = ops_[op].operands[index];
    // The printed operand types stay right while the slot keeps its type (the rewriter's
    // clones); a new type makes them describe operands the op no longer has.
    const auto typeOf = [&](ValueId x) { return x == kNoId ? kNullType : values_[x].type; };
    if (!operandTypeOverrides_.empty() && typeOf(slot) != typeOf(v)) operandTypeOverrides_.erase(op);
    slot = v;
    markUnfinished();
}

void Program::eraseOp(OpId op) {
    detach(op);
    ops_[op].dead = true;
    markUnfinished();
}

void Program::setBlockOps(BlockId block, std::vector<OpId> newOps) {
    for (OpId op : blocks_[block].ops) ops_[op].parentBlock = kNoId;
    // An op listed here that sits in another block leaves that block first.
    for (OpId op : newOps)
        if (ops_[op].parentBlock != kNoId && ops_[op].parentBlock != block) detach(op);
    for (OpId op : newOps) place(op, block);
    blocks_[block].ops = std::move(newOps);
    markUnfinished();
}

void Program::addRegion(OpId op, std::vector<BlockId> regionBlocks) {
    ops_[op].regions.push_back(std::move(regionBlocks));
    markUnfinished();
}

void Program::setOpAttribute(OpId op, std::string_view key, Attribute value) {
    ops_[op].setAttribute(key, std::move(value));
    markUnfinished();
}

void Program::setOpAttributes(OpId op, AttributeList attributes) {
    ops_[op].attributes = std::move(attributes);
    markUnfinished();
}

void Program::setOpOperands(OpId op, std::vector<ValueId> operands) {
    const auto typesOf = [&](std::span<const ValueId> vs) {
        std::vector<TypeId> out;
        for (ValueId x : vs) out.push_back(x == kNoId ? kNullType : values_[x].type);
        return out;
    };
    if (!operandTypeOverrides_.empty() && typesOf({ops_[op].operands.data(), ops_[op].operands.size()}) != typesOf(operands)) operandTypeOverrides_.erase(op);
    ops_[op].operands.assign(operands.begin(), operands.end());
    markUnfinished();
}

void Program::truncateResults(OpId op, size_t count) {
    if (count < ops_[op].results.size()) ops_[op].results.resize(count);
    markUnfinished();
}

void Program::setOpSyntax(OpId op, uint8_t syntax) {
    ops_[op].syntax = syntax;
    markUnfinished();
}

void Program::setPrintedId(OpId op, uint32_t printedId) {
    ops_[op].printedId = printedId;
    markUnfinished();
}

void Program::setOperandKeywords(OpId op, std::vector<std::string> keywords) {
    ops_[op].operandKeywords = std::move(keywords);
    markUnfinished();
}

void Program::setOperandTypeOverride(OpId op, std::vector<TypeId> printedTypes) {
    operandTypeOverrides_[op] = std::move(printedTypes);
    markUnfinished();
}

void Program::setValueName(ValueId v, std::string name) {
    noteValueName(name);
    values_[v].name = std::move(name);
    markUnfinished();
}

void Program::setValueType(ValueId v, TypeId type) {
    values_[v].type = type;
    markUnfinished();
}

void Program::setBlockArgsPrinted(BlockId block, bool printed) {
    blocks_[block].argsPrinted = printed;
    markUnfinished();
}

void Program::setBlockArgTypesPrinted(BlockId block, bool printed) {
    blocks_[block].argTypesPrinted = printed;
    markUnfinished();
}

void Program::reserve(size_t opCount, size_t valueCount) {
    ops_.reserve(opCount);
    values_.reserve(valueCount);
    blocks_[kGlobalBlock].ops.reserve(opCount);
    markUnfinished();
}

ValueId Program::addValue(Value&& value) {
    const auto id = static_cast<ValueId>(values_.size());
    values_.push_back(std::move(value));
    markUnfinished();
    return id;
}

OpId Program::addOperation(Operation op) {
    const auto id = static_cast<OpId>(ops_.size());
    appendOperation(op.parentBlock) = std::move(op);
    return id;
}

Operation& Program::appendOperation(BlockId parent) {
    const auto id = static_cast<OpId>(ops_.size());
    Operation& op = ops_.emplace_back();
    op.parentBlock = parent;
    if (parent != kNoId) blocks_[parent].ops.push_back(id);
    markUnfinished();
    return op;
}

void Program::shrinkToFit() {
    const auto fit = [](auto& v) {
        if (v.capacity() > v.size() + v.size() / 8 + 16) v.shrink_to_fit();
    };
    fit(ops_);
    fit(values_);
    for (Block& b : blocks_) fit(b.ops);
    markUnfinished();
}

size_t Program::liveOpCount() const {
    size_t n = 0;
    for (const auto& op : ops_)
        if (!op.dead && op.parentBlock != kNoId) ++n;
    return n;
}

void Program::finish() {
    buildIndex();
    buildUses();
    finished_ = true;
}

void Program::buildIndex() {
    indexInBlock_.assign(ops_.size(), kNoId);
    for (const Block& b : blocks_)
        for (size_t i = 0; i < b.ops.size(); ++i) indexInBlock_[b.ops[i]] = static_cast<uint32_t>(i);
}

void Program::failQuery(const char* call, const char* kind, uint32_t id, size_t count) const {
    if (!finished_)
        throw std::logic_error(std::string("Program::") + call +
                               " called on an unfinished program (call Program::finish() after building or editing it)");
    throw std::out_of_range(std::string("Program::") + call + ": " + kind + " " + std::to_string(id) +
                            " out of range (" + std::to_string(count) + " " + kind + "s)");
}

OpId Program::ancestorInBlock(OpId op, BlockId block) const {
    while (op != kNoId && op < ops_.size()) {
        const BlockId b = ops_[op].parentBlock;
        if (b == block) return op;
        if (b == kNoId) return kNoId;
        op = blocks_[b].parentOp;
    }
    return kNoId;
}

void Program::buildUses() {
    // Pre-order walk from the global block gives "program order" for nested uses too.
    std::vector<uint32_t> counts(values_.size() + 1, 0);
    struct FlatUse { Use use; ValueId value; };
    std::vector<FlatUse> flat;
    flat.reserve(ops_.size() * 2);
    std::vector<std::pair<BlockId, size_t>> stack;
    if (!blocks_.empty()) stack.push_back({kGlobalBlock, 0});
    while (!stack.empty()) {
        auto& [b, i] = stack.back();
        if (i >= blocks_[b].ops.size()) {
            stack.pop_back();
            continue;
        }
        const OpId op = blocks_[b].ops[i++];
        const Operation& o = ops_[op];
        for (uint32_t k = 0; k < o.operands.size(); ++k) {
            const ValueId v = o.operands[k];
            if (v == kNoId) continue;
            // The op's own block is known here: no walk up for the common same-block use.
            const BlockId vb = values_[v].block;
            flat.push_back({Use{op, k, vb == b ? op : ancestorInBlock(op, vb)}, v});
            ++counts[v];
        }
        // Push regions in reverse so the first region's blocks are visited first.
        for (auto r = o.regions.rbegin(); r != o.regions.rend(); ++r)
            for (auto blk = r->rbegin(); blk != r->rend(); ++blk) stack.push_back({*blk, 0});
    }
    useOffsets_.assign(values_.size() + 1, 0);
    for (size_t v = 0; v < values_.size(); ++v) useOffsets_[v + 1] = useOffsets_[v] + counts[v];
    useEntries_.assign(flat.size(), Use{});
    std::vector<uint32_t> fill(useOffsets_.begin(), useOffsets_.end() - 1);
    for (const FlatUse& f : flat) useEntries_[fill[f.value]++] = f.use;
}

std::string yieldCountProblem(const Program& program, OpId id) {
    const Operation& op = program.op(id);
    const std::string_view name = program.opName(id);
    auto yielded = [&](size_t region) -> std::optional<size_t> {
        if (region >= op.regions.size() || op.regions[region].empty()) return std::nullopt;
        const Block& block = program.block(op.regions[region][0]);
        if (!block.ops.empty() && program.opName(block.ops.back()) == "cf.yield") return program.op(block.ops.back()).operands.size();
        return size_t(0);
    };
    if (name == "pd_op.if") {
        for (size_t r = 0; r < op.regions.size() && r < 2; ++r)
            if (const auto n = yielded(r); n && *n != op.results.size())
                return std::string(r == 0 ? "the then block" : "the else block") + " yields " + std::to_string(*n) +
                       " value(s) for the op's " + std::to_string(op.results.size()) + " result(s)";
    } else if (name == "pd_op.while" && !op.operands.empty()) {
        const size_t carried = op.operands.size() - 1;
        if (const auto n = yielded(0); n && *n != carried + 1)
            return "the body yields " + std::to_string(*n) + " value(s), expected the condition and the " +
                   std::to_string(carried) + " carried value(s)";
        if (op.results.size() != carried)
            return std::to_string(op.results.size()) + " result(s) for " + std::to_string(carried) + " carried input(s)";
    }
    return {};
}

}  // namespace rx
