#include "algorithms/Analysis.h"

#include <algorithm>
#include <stdexcept>

#include "model/Diagnostic.h"
#include "model/FileIO.h"

namespace rx {

extern const std::string_view kNoNeedBufferTsv;  // NoNeedBufferData.cpp

// ---------------------------------------------------------------- NoNeedBufferTable

const NoNeedBufferTable& NoNeedBufferTable::builtin() {
    static const NoNeedBufferTable table = parse(kNoNeedBufferTsv, "<builtin no_need_buffer.tsv>");
    return table;
}

NoNeedBufferTable NoNeedBufferTable::parse(std::string_view tsv, const std::string& fileName) {
    NoNeedBufferTable table;
    int lineNo = 0;
    bool sawHeader = false;
    size_t pos = 0;
    while (pos <= tsv.size()) {
        size_t end = tsv.find('\n', pos);
        if (end == std::string_view::npos) end = tsv.size();
        std::string_view line = tsv.substr(pos, end - pos);
        pos = end + 1;
        ++lineNo;
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        if (line.empty() || line[0] == '#') continue;
        std::vector<std::string_view> cols;
        size_t c = 0;
        while (true) {
            size_t tab = line.find('\t', c);
            cols.push_back(line.substr(c, tab == std::string_view::npos ? std::string_view::npos : tab - c));
            if (tab == std::string_view::npos) break;
            c = tab + 1;
        }
        if (!sawHeader) {  // the column header line
            sawHeader = true;
            if (cols.size() < 4 || cols[0] != "op" || cols[3] != "no_need_buffer_operand_idx")
                throw Error(SourceLocation{fileName, lineNo, 1},
                            "expected the header 'op, args_in_order, no_need_buffer, no_need_buffer_operand_idx'");
            continue;
        }
        if (cols.size() < 4 || cols[0].empty())
            throw Error(SourceLocation{fileName, lineNo, 1}, "expected at least 4 tab-separated columns");
        std::vector<uint32_t> slots;
        std::string_view idx = cols[3];
        size_t col = cols[0].size() + cols[1].size() + cols[2].size() + 4;
        size_t i = 0;
        while (i < idx.size()) {
            size_t comma = idx.find(',', i);
            if (comma == std::string_view::npos) comma = idx.size();
            std::string_view num = idx.substr(i, comma - i);
            uint32_t n = 0;
            if (num.empty()) throw Error(SourceLocation{fileName, lineNo, int(col + i)}, "empty operand index");
            for (char ch : num) {
                if (ch < '0' || ch > '9')
                    throw Error(SourceLocation{fileName, lineNo, int(col + i)},
                                "operand index must be a non-negative integer, found '" + std::string(num) + "'");
                n = n * 10 + uint32_t(ch - '0');
            }
            slots.push_back(n);
            i = comma + 1;
        }
        table.slots_[std::string(cols[0])] = std::move(slots);
    }
    if (!sawHeader) throw Error(SourceLocation{fileName, 0, 0}, "no_need_buffer table has no header line");
    return table;
}

NoNeedBufferTable NoNeedBufferTable::readFile(const std::string& path) {
    return parse(rx::readFile(path), path);  // the one bounded reader: regular files only
}

const std::vector<uint32_t>* NoNeedBufferTable::operandSlots(std::string_view opName) const {
    auto it = slots_.find(std::string(opName));
    if (it != slots_.end()) return &it->second;
    // Inplace variants "<op>_" share their op's entry.
    if (opName.size() > 1 && opName.back() == '_') {
        it = slots_.find(std::string(opName.substr(0, opName.size() - 1)));
        if (it != slots_.end()) return &it->second;
    }
    return nullptr;
}

// ---------------------------------------------------------------- Analysis

namespace {
// By interned name id: no string compare per value on the hot paths.
struct SplitSliceIds {
    uint32_t split, slice;
    explicit SplitSliceIds(const Program& p)
        : split(p.findOpName("builtin.split")), slice(p.findOpName("builtin.slice")) {}
    bool contains(uint32_t nameId) const { return nameId != kNoId && (nameId == split || nameId == slice); }
};
}  // namespace

Analysis::Analysis(std::shared_ptr<const Program> program, const RecomputeSpec& spec,
                   const NoNeedBufferTable& table)
    : program_(std::move(program)), spec_(spec) {
    const Program& p = *program_;
    const size_t nValues = p.values().size();
    // Workers share the program read-only: its use lists must exist before they start.
    if (!p.isFinished()) throw std::logic_error("Analysis needs a finished program (call Program::finish())");

    const auto& gops = p.globalBlock().ops;
    const int64_t n = int64_t(gops.size());
    opIndex_.assign(p.ops().size(), kNoId);
    for (size_t i = 0; i < gops.size(); ++i) opIndex_[gops[i]] = uint32_t(i);
    cls_.assign(nValues, ValueClass::Other);
    flags_.assign(nValues, 0);
    dist_.assign(nValues, kNoDistance);
    splitNameId_ = p.findOpName("builtin.split");
    sliceNameId_ = p.findOpName("builtin.slice");
    combineNameId_ = p.findOpName("builtin.combine");
    defName_.resize(nValues);
    for (ValueId v = 0; v < nValues; ++v) {
        const OpId def = p.value(v).definingOp;
        defName_[v] = def == kNoId ? kNoId : p.op(def).nameId;
    }

    auto validValue = [&](ValueId v) { return v < nValues; };
    for (ValueId v : spec_.inputs)
        if (validValue(v)) flags_[v] |= kInput;
    for (ValueId v : spec_.outputs)
        if (validValue(v)) flags_[v] |= kOutput;

    if (spec_.fwdOpEndIdx == -1) {
        error_ = "no forward/backward split: fwd_op_end_idx is -1 (nothing detected); give a spec (--spec)";
        return;
    }
    if (spec_.fwdOpEndIdx < 0 || spec_.fwdOpEndIdx >= n) {
        error_ = "fwd_op_end_idx " + std::to_string(spec_.fwdOpEndIdx) + " is out of range: the program has " +
                 std::to_string(n) + " ops in its global block";
        return;
    }
    if (spec_.backwardOpStartIdx < 0) {
        error_ = "backward_op_start_idx " + std::to_string(spec_.backwardOpStartIdx) + " is negative";
        return;
    }
    for (ValueId v : spec_.inputs)
        if (!validValue(v)) { error_ = "a spec input names no value of the program"; return; }
    for (ValueId v : spec_.outputs)
        if (!validValue(v)) { error_ = "a spec output names no value of the program"; return; }

    // §1 classification
    bool anyBackward = false;
    for (int64_t i = 0; i < n; ++i) {
        for (ValueId r : p.op(gops[i]).results) {
            cls_[r] = i <= spec_.fwdOpEndIdx ? ValueClass::Forward : ValueClass::Backward;
            graphValues_.push_back(r);
            if (i > spec_.fwdOpEndIdx) anyBackward = true;
        }
    }
    unchanged_ = !anyBackward || spec_.backwardOpStartIdx >= n;

    // used exactly once (one slot) by split/slice
    const SplitSliceIds splitSlice(p);
    if (splitSlice.split != kNoId || splitSlice.slice != kNoId)
        for (ValueId v = 0; v < nValues; ++v) {
            auto uses = p.uses(v);
            if (uses.size() == 1 && uses[0].ancestor != kNoId && splitSlice.contains(p.op(uses[0].ancestor).nameId))
                flags_[v] |= kSplitOnce;
        }

    // §5 bw-no-need-buffer values: operands of [bwd_start..end] minus need-buffer reads.
    {
        std::vector<uint8_t> seen(nValues, 0);  // 1 = operand, 2 = need buffer
        // The table's entry per interned op name, looked up once per name (not once per op).
        std::vector<const std::vector<uint32_t>*> slotsByName(p.opNameCount(), nullptr);
        std::vector<uint8_t> slotsLooked(p.opNameCount(), 0);
        for (int64_t i = std::max<int64_t>(spec_.backwardOpStartIdx, 0); i < n; ++i) {
            const Operation& op = p.op(gops[i]);
            if (!slotsLooked[op.nameId]) {
                slotsLooked[op.nameId] = 1;
                slotsByName[op.nameId] = table.operandSlots(p.opNameById(op.nameId));
            }
            const std::vector<uint32_t>* slots = slotsByName[op.nameId];
            for (ValueId v : op.operands) {
                if (v == kNoId) continue;
                seen[v] |= 1;
                bool noNeed = false;
                if (slots)
                    for (uint32_t s : *slots)
                        if (s < op.operands.size() && op.operands[s] == v) { noNeed = true; break; }
                if (!noNeed) seen[v] |= 2;
            }
        }
        for (ValueId v = 0; v < nValues; ++v)
            if (seen[v] == 1) flags_[v] |= kBwNoNeedBuffer;
    }

    computeUsers();
    computeProducerGraph();
    if (!unchanged_) computeDistances();
}

void Analysis::computeUsers() {
    const Program& p = *program_;
    const size_t nValues = p.values().size();
    const uint32_t combineId = p.findOpName("builtin.combine");
    userOff_.assign(nValues + 1, 0);
    filtOff_.assign(nValues + 1, 0);
    fwdUseOff_.assign(nValues + 1, 0);
    std::vector<ValueId> tmp;
    auto expand = [&](ValueId r) {
        if (usedOnceBySplitSlice(r)) {
            const OpId s = p.uses(r)[0].ancestor;
            for (ValueId x : p.op(s).results) tmp.push_back(x);
        } else {
            tmp.push_back(r);
        }
    };
    auto collect = [&](ValueId v, bool filtered) {
        tmp.clear();
        for (const Use& use : p.uses(v)) {
            const OpId a = use.ancestor;
            if (a == kNoId) continue;
            if (filtered && !isForwardOp(a)) continue;
            if (p.op(a).nameId == combineId) {
                if (p.op(a).results.empty()) continue;
                for (const Use& use2 : p.uses(p.op(a).results[0])) {
                    if (use2.ancestor == kNoId) continue;
                    for (ValueId r : p.op(use2.ancestor).results) expand(r);
                }
            } else {
                for (ValueId r : p.op(a).results) expand(r);
            }
        }
        if (tmp.size() > 1) {
            std::sort(tmp.begin(), tmp.end());
            tmp.erase(std::unique(tmp.begin(), tmp.end()), tmp.end());
        }
    };
    size_t totalUses = 0;
    for (ValueId v : graphValues_) totalUses += p.uses(v).size();
    userList_.reserve(totalUses + totalUses / 4);
    fwdUseList_.reserve(totalUses);
    for (ValueId v = 0; v < nValues; ++v) {
        const bool global = cls_[v] != ValueClass::Other;
        if (global) {
            collect(v, false);
            userList_.insert(userList_.end(), tmp.begin(), tmp.end());
            if (isBwNoNeedBuffer(v)) {
                collect(v, true);
                filtList_.insert(filtList_.end(), tmp.begin(), tmp.end());
            }
            for (const Use& use : p.uses(v))
                if (use.ancestor != kNoId && isForwardOp(use.ancestor)) fwdUseList_.push_back(use.ancestor);
        }
        userOff_[v + 1] = uint32_t(userList_.size());
        filtOff_[v + 1] = uint32_t(filtList_.size());
        fwdUseOff_[v + 1] = uint32_t(fwdUseList_.size());
    }
}

std::span<const ValueId> Analysis::users(ValueId v, bool filtered) const {
    if (filtered && isBwNoNeedBuffer(v))
        return {filtList_.data() + filtOff_[v], filtList_.data() + filtOff_[v + 1]};
    return {userList_.data() + userOff_[v], userList_.data() + userOff_[v + 1]};
}

std::span<const OpId> Analysis::forwardUserOps(ValueId v) const {
    return {fwdUseList_.data() + fwdUseOff_[v], fwdUseList_.data() + fwdUseOff_[v + 1]};
}

void Analysis::computeDistances() {
    // §3: reverse program order, skipping combine ops and split-once results.
    const Program& p = *program_;
    const uint32_t combineId = p.findOpName("builtin.combine");
    const auto& gops = p.globalBlock().ops;
    for (size_t k = gops.size(); k-- > 0;) {
        const Operation& op = p.op(gops[k]);
        if (op.nameId == combineId) continue;
        for (ValueId r : op.results) {
            if (usedOnceBySplitSlice(r)) continue;
            if (!isForwardValue(r)) {
                dist_[r] = 0;
                continue;
            }
            int64_t d = kFarDistance;
            for (ValueId u : users(r, false)) {
                if (dist_[u] == kNoDistance) {
                    if (error_.empty())
                        error_ = "missing distance for value " + p.value(u).name + " (a user of " +
                                 p.value(r).name + ", defined by " +
                                 (p.value(u).definingOp == kNoId ? std::string("a block argument")
                                                                  : std::string(p.opName(p.value(u).definingOp))) +
                                 "): the seed fails here with a KeyError";
                    continue;
                }
                d = std::min(d, dist_[u] + 1);
            }
            dist_[r] = d;
        }
    }
}

void Analysis::computeProducerGraph() {
    // Consumers of each global op (deduplicated per op), then producers by transposition.
    const Program& p = *program_;
    const auto& gops = p.globalBlock().ops;
    const size_t n = gops.size();
    consOff_.assign(n + 1, 0);
    cons_.clear();
    std::vector<uint32_t> tmp;
    for (size_t i = 0; i < n; ++i) {
        tmp.clear();
        for (ValueId r : p.op(gops[i]).results)
            for (const Use& use : p.uses(r)) {
                const uint32_t c = opIndex(use.ancestor);
                if (c != kNoId && c != i) tmp.push_back(c);
            }
        if (tmp.size() > 1) {
            std::sort(tmp.begin(), tmp.end());
            tmp.erase(std::unique(tmp.begin(), tmp.end()), tmp.end());
        }
        cons_.insert(cons_.end(), tmp.begin(), tmp.end());
        consOff_[i + 1] = uint32_t(cons_.size());
    }
    prodOff_.assign(n + 1, 0);
    for (uint32_t c : cons_) ++prodOff_[c + 1];
    for (size_t i = 0; i < n; ++i) prodOff_[i + 1] += prodOff_[i];
    prod_.resize(cons_.size());
    std::vector<uint32_t> fill(prodOff_.begin(), prodOff_.end() - 1);
    for (size_t i = 0; i < n; ++i)
        for (uint32_t k = consOff_[i]; k < consOff_[i + 1]; ++k) prod_[fill[cons_[k]]++] = uint32_t(i);
}

bool Analysis::isSplitOrSliceOp(OpId op) const {
    const uint32_t id = program_->op(op).nameId;
    return id != kNoId && (id == splitNameId_ || id == sliceNameId_);
}

int64_t Analysis::realInputsSize(ValueId v) const {
    const Program& p = *program_;
    const OpId def = p.value(v).definingOp;
    if (def == kNoId) return -1;
    const Operation* op = &p.op(def);
    if (isSplitOrSliceOp(def)) {
        if (op->operands.empty() || op->operands[0] == kNoId) return -1;
        const OpId real = p.value(op->operands[0]).definingOp;
        if (real == kNoId) return -1;
        op = &p.op(real);
    }
    const uint32_t combineId = combineNameId_;
    // Reused per thread: this runs for every forward value of every solve.
    static thread_local std::vector<ValueId> set;
    set.clear();
    for (ValueId x : op->operands) {
        if (x == kNoId) continue;
        const OpId d = p.value(x).definingOp;
        if (d != kNoId && p.op(d).nameId == combineId) {
            for (ValueId y : p.op(d).operands)
                if (y != kNoId) set.push_back(y);
        } else {
            set.push_back(x);
        }
    }
    std::sort(set.begin(), set.end());
    set.erase(std::unique(set.begin(), set.end()), set.end());
    int64_t sum = 0;
    for (ValueId x : set) sum += p.valueBytes(x);
    return sum;
}

Analysis::RealInputsRaise Analysis::realInputsRaise(ValueId v) const {
    const Program& p = *program_;
    RealInputsRaise r;
    const OpId def = p.value(v).definingOp;
    if (def == kNoId) return r;
    const Operation* op = &p.op(def);
    if (isSplitOrSliceOp(def)) {
        // define_op.operands_source()[0].get_defining_op().operands_source()
        if (op->operands.empty()) {
            r.message = "IndexError: list index out of range";
            r.culprit = "operand 0 of " + std::string(p.opName(def)) + " (it has no operands)";
            return r;
        }
        const ValueId in = op->operands[0];
        const OpId real = in == kNoId ? kNoId : p.value(in).definingOp;
        if (real == kNoId) {
            r.message = "AttributeError: 'NoneType' object has no attribute 'operands_source'";
            r.culprit = "operand 0 of " + std::string(p.opName(def)) +
                        (in == kNoId ? std::string(" (null)") : " (" + p.value(in).name + ", a block argument)");
            return r;
        }
        op = &p.op(real);
    }
    // cal_value_node_size(i) for every real input: is_vector_value_node reads i.type(), which
    // fails for a null value (an optional operand left out, e.g. dropout's seed tensor) and a
    // value of null type: "ValueError: value node illegal: {value}".
    const uint32_t combineId = combineNameId_;
    auto check = [&](ValueId x, const Operation& owner, size_t slot) {
        if (r.raises()) return;
        if (x == kNoId || p.value(x).type == kNullType) {
            r.message = "ValueError: value node illegal: " +
                        (x == kNoId ? std::string("<<NULL VALUE>>") : p.value(x).name);
            r.culprit = "operand " + std::to_string(slot) + " of " + std::string(p.opNameById(owner.nameId)) +
                        (x == kNoId ? std::string(" (null)") : " (" + p.value(x).name + ", of null type)");
        }
    };
    for (size_t i = 0; i < op->operands.size(); ++i) {
        const ValueId x = op->operands[i];
        const OpId d = x == kNoId ? kNoId : p.value(x).definingOp;
        if (d != kNoId && p.op(d).nameId == combineId) {
            for (size_t j = 0; j < p.op(d).operands.size(); ++j) check(p.op(d).operands[j], p.op(d), j);
        } else {
            check(x, *op, i);
        }
    }
    return r;
}


uint32_t Analysis::realDefineOpNameId(ValueId v) const {
    const Program& p = *program_;
    const OpId def = p.value(v).definingOp;
    if (def == kNoId) return kNoId;
    if (isSplitOrSliceOp(def)) {
        const auto& ops = p.op(def).operands;
        if (ops.empty() || ops[0] == kNoId) return kNoId;
        return defNameId(ops[0]);
    }
    return p.op(def).nameId;
}

std::string_view Analysis::realDefineOpName(ValueId v) const {
    const uint32_t id = realDefineOpNameId(v);
    return id == kNoId ? std::string_view() : program_->opNameById(id);
}

OpClasses Analysis::classify(const RecomputeConfig& config) const {
    const Program& p = *program_;
    OpClasses c;
    c.flags.assign(p.opNameCount(), 0);
    auto mark = [&](const std::vector<std::string>& names, uint8_t f) {
        for (const auto& name : names) {
            const uint32_t id = p.findOpName(name);
            if (id != kNoId) c.flags[id] |= f;
        }
    };
    mark(config.recomputableOps, OpClasses::Recomputable | OpClasses::Fusible);
    mark(config.viewOps, OpClasses::Recomputable | OpClasses::Fusible | OpClasses::View);
    mark(config.randomOps, OpClasses::Unrecomputable | OpClasses::Fusible);
    mark(config.computeIntensiveOps, OpClasses::Unrecomputable);
    mark(config.tendingToRecomputeOps, OpClasses::Tending);
    mark(config.ignoreOps, OpClasses::Ignored);
    return c;
}

OpDag Analysis::opDag() const {
    return OpDag{consOff_, cons_, prodOff_, prod_};
}

std::vector<uint8_t> Analysis::unrecomputableByIndex(const OpClasses& classes) const {
    const Program& p = *program_;
    const auto gops = globalOps();
    std::vector<uint8_t> unrec(gops.size(), 0);
    for (size_t i = 0; i < gops.size(); ++i) unrec[i] = classes.has(p.op(gops[i]).nameId, OpClasses::Unrecomputable);
    return unrec;
}

std::vector<uint8_t> Analysis::fusionLoopFlags(const OpClasses& classes, const FusionJudgeOptions& options,
                                               FusionJudgeStats* stats) const {
    // One query per (forward value, forward user op) pair of §6 step 7; equal pairs asked once.
    const Program& p = *program_;
    std::vector<uint8_t> flags(p.values().size(), 0);
    std::vector<std::pair<OpPair, ValueId>> asks;
    for (ValueId v : graphValues_) {
        if (!isForwardValue(v)) continue;
        const uint32_t d = opIndex(p.value(v).definingOp);
        for (OpId user : forwardUserOps(v)) asks.push_back({{d, opIndex(user)}, v});
    }
    std::sort(asks.begin(), asks.end());
    std::vector<OpPair> pairs;
    for (size_t i = 0; i < asks.size(); ++i)
        if (i == 0 || asks[i].first != asks[i - 1].first) pairs.push_back(asks[i].first);
    const std::vector<uint8_t> unrec = unrecomputableByIndex(classes);
    const std::vector<uint8_t> answers = judgeFusionLoops(opDag(), unrec, pairs, options, stats);
    for (size_t i = 0, k = 0; i < asks.size(); ++i) {
        if (i > 0 && asks[i].first != asks[i - 1].first) ++k;
        if (answers[k]) flags[asks[i].second] = 1;
    }
    return flags;
}

bool Analysis::hasUnfusibleOpOnAnyPath(const OpClasses& classes, OpId op1, OpId op2) const {
    const uint32_t a = opIndex(op1), b = opIndex(op2);
    if (a == kNoId || b == kNoId) return false;
    const OpPair pair{a, b};
    return judgeFusionLoops(opDag(), unrecomputableByIndex(classes), std::span<const OpPair>(&pair, 1))[0];
}

ValueId Analysis::findValue(std::string_view name) const {
    std::call_once(byNameOnce_, [this] {
        const Program& p = *program_;
        byName_.reserve(p.values().size());
        for (ValueId v = 0; v < p.values().size(); ++v) byName_.emplace(p.value(v).name, v);
    });
    auto it = byName_.find(std::string(name));
    return it == byName_.end() ? kNoId : it->second;
}

}  // namespace rx
