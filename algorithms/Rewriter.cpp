#include "algorithms/Rewriter.h"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <utility>

namespace rx {

RewriteResult partitionJointGraph(const Analysis& a, const Plan& plan) {
    // One copy, sized for the clones (copying and then reserving would move every op again).
    const Program& orig = a.program();
    size_t extraValues = 0;
    for (OpId op : plan.recomputeOps) extraValues += orig.op(op).results.size();
    return partitionJointGraph(a, plan, std::make_shared<Program>(orig, plan.recomputeOps.size(), extraValues));
}

RewriteResult partitionJointGraph(const Analysis& a, const Plan& plan, std::shared_ptr<Program> program) {
    RewriteResult res;
    res.fwdOpEndIdx = a.fwdEnd();
    const Program& orig = a.program();
    const auto gops = a.globalOps();
    const size_t nOrigValues = orig.values().size();
    if (!program || program->ops().size() != orig.ops().size() || program->values().size() != nOrigValues)
        throw std::logic_error("partitionJointGraph: the program to write into is not a fresh copy of the original");
    Program& np = *program;

    // Clone the subgraph ops in program order, mapping operands (subgraph inputs map to
    // themselves; each clone's results overwrite the mapping).
    std::vector<ValueId> map(nOrigValues, kNoId);
    for (ValueId x : plan.subgraphInputs) map[x] = x;
    std::vector<uint8_t> isRecompute(orig.ops().size(), 0);
    for (OpId op : plan.recomputeOps) isRecompute[op] = 1;
    res.clones.reserve(plan.recomputeOps.size());
    res.cloneOf.reserve(plan.recomputeOps.size());
    std::vector<OpId> anchor;  // first backward user of the original's first result (orig op id)
    anchor.reserve(plan.recomputeOps.size());
    std::vector<TypeId> types;
    std::vector<ValueId> operands;

    // The marks as the seed sets them, memoized per distinct attribute list: ops that printed the
    // same dict (the reader shares their list) get one marked list, not 2 copies per op (a third
    // of a 56k-op chain's rewrite time and 10 MB).
    std::map<std::pair<const void*, const void*>, AttributeList> cloneLists;
    std::map<const void*, AttributeList> recomputedLists;
    // A clone takes the original's attributes, the op_role and chunk_id of the original's first
    // backward user (where it has both), and is_recompute_bw_op.
    auto cloneAttributes = [&](const Operation& o, const Operation* firstUser) -> const AttributeList& {
        auto [it, fresh] = cloneLists.try_emplace({o.attributes.identity(), firstUser ? firstUser->attributes.identity() : nullptr});
        if (!fresh) return it->second;
        AttributeList list = o.attributes;
        if (firstUser) {
            const Attribute* role = firstUser->attribute("op_role");
            const Attribute* chunk = firstUser->attribute("chunk_id");
            if (role && chunk) {
                list.set("op_role", Attribute::int32(role->intValue));
                list.set("chunk_id", Attribute::int32(chunk->intValue));
            }
        }
        list.set("is_recompute_bw_op", Attribute::boolean(true));
        return it->second = std::move(list);
    };
    auto recomputedAttributes = [&](const Operation& o) -> const AttributeList& {
        auto [it, fresh] = recomputedLists.try_emplace(o.attributes.identity());
        if (fresh) {
            AttributeList list = o.attributes;
            list.set("is_recompute_op", Attribute::boolean(true));
            it->second = std::move(list);
        }
        return it->second;
    };
    for (OpId op : gops) {
        if (!isRecompute[op]) continue;
        const Operation& o = orig.op(op);
        operands.clear();
        for (ValueId x : o.operands) {
            if (x == kNoId) { operands.push_back(kNoId); continue; }
            const ValueId m = x < nOrigValues ? map[x] : kNoId;
            if (m == kNoId) {
                res.error = "cloning " + std::string(orig.opName(op)) + " (op " + std::to_string(a.opIndex(op)) +
                            "): its operand " + orig.value(x).name +
                            " is neither recomputed nor saved (the seed's IrMapping 'not found' error)";
                return res;
            }
            operands.push_back(m);
        }
        types.clear();
        for (ValueId r : o.results) types.push_back(orig.value(r).type);
        // --recompute-random mask: a dropout's clone rebuilds its output from the saved mask
        // (pd_op.dropout_grad(mask, x[, p]), the forward kernel's own expression); the mask
        // itself is a subgraph input and keeps its original.
        const bool applyMask = plan.randomRecompute == RandomRecompute::Mask &&
                               randomCloneForm(orig, op, plan.randomRecompute) == RandomCloneForm::ApplyMask;
        if (applyMask) {
            const MaskApplication m = maskApplication(orig, op);
            operands.assign({m.mask, operands[0]});
            if (m.p != kNoId) operands.push_back(map[m.p] != kNoId ? map[m.p] : m.p);
            if (map[m.mask] != m.mask) {
                res.error = "cloning " + std::string(orig.opName(op)) + " (op " + std::to_string(a.opIndex(op)) +
                            ") from its mask: the mask " + orig.value(m.mask).name + " is not saved";
                return res;
            }
            types.resize(1);
        }
        OpId first = kNoId;
        if (!o.results.empty())
            for (const Use& use : orig.uses(o.results[0])) {
                const OpId u = use.ancestor;
                if (u != kNoId && a.isBackwardRangeOp(u) && (first == kNoId || a.opIndex(u) < a.opIndex(first)))
                    first = u;
            }
        const OpId clone = np.createOp(applyMask ? std::string_view("pd_op.dropout_grad") : orig.opName(op), operands, types);
        const AttributeList& attributes = cloneAttributes(o, first == kNoId ? nullptr : &orig.op(first));
        if (applyMask) {
            // dropout_grad takes the dropout's is_test, mode and p; stop_gradient for its one result.
            std::vector<NamedAttribute> kept;
            for (const NamedAttribute& na : attributes) {
                if (na.name == "fix_seed" || na.name == "seed") continue;
                NamedAttribute copy = na;
                if (copy.name == "stop_gradient" && copy.value.kind == Attribute::Kind::Array && copy.value.elements.size() > 1)
                    copy.value.elements.resize(1);
                kept.push_back(std::move(copy));
            }
            np.setOpAttributes(clone, AttributeList(std::move(kept)));
        } else {
            np.setOpAttributes(clone, attributes);
        }
        for (size_t k = 0; k < types.size(); ++k) map[o.results[k]] = np.op(clone).results[k];
        res.clones.push_back(clone);
        res.cloneOf.push_back(op);
        anchor.push_back(first);
    }
    for (OpId op : plan.recomputeOps) np.setOpAttributes(op, recomputedAttributes(orig.op(op)));

    // Backward uses of mid-hold values read the clones (top-level ops from bwd_start on only).
    for (ValueId m : plan.midHoldValues) {
        const ValueId c = map[m];
        if (c == kNoId) {
            res.error = "mid-hold value " + orig.value(m).name + " has no recomputed counterpart (IrMapping 'not found')";
            return res;
        }
        if (c == m) continue;
        for (const Use& use : orig.uses(m))
            if (use.user == use.ancestor && a.isBackwardRangeOp(use.user))
                np.setOperand(use.user, use.operandIndex, c);
    }

    // Placement: walking the clones in reverse, the anchor is the clone's own first backward
    // user or the earliest anchor among the clones that use its results.
    const size_t nc = res.clones.size();
    std::vector<uint32_t> cloneIndexOfValue;  // by new value id - nOrigValues
    cloneIndexOfValue.assign(np.values().size() - nOrigValues, kNoId);
    for (uint32_t k = 0; k < nc; ++k)
        for (ValueId r : np.op(res.clones[k]).results) cloneIndexOfValue[r - nOrigValues] = k;
    // Which clones use each clone's results, as one flat list per clone (CSR: a vector per
    // clone was most of this pass's allocations at 1M ops).
    std::vector<uint32_t> childStart(nc + 1, 0), childList;
    const auto forEachCloneUse = [&](auto&& visit) {
        for (uint32_t k = 0; k < nc; ++k)
            for (ValueId x : np.op(res.clones[k]).operands)
                if (x != kNoId && x >= nOrigValues && cloneIndexOfValue[x - nOrigValues] != kNoId)
                    visit(cloneIndexOfValue[x - nOrigValues], k);
    };
    forEachCloneUse([&](uint32_t producer, uint32_t) { ++childStart[producer + 1]; });
    for (size_t k = 0; k < nc; ++k) childStart[k + 1] += childStart[k];
    childList.resize(childStart[nc]);
    {
        std::vector<uint32_t> fill(childStart.begin(), childStart.end() - 1);
        forEachCloneUse([&](uint32_t producer, uint32_t user) { childList[fill[producer]++] = user; });
    }
    for (size_t k = nc; k-- > 0;) {
        OpId best = anchor[k];
        for (uint32_t i = childStart[k]; i < childStart[k + 1]; ++i) {
            const uint32_t child = childList[i];
            const OpId ca = anchor[child];
            if (ca == kNoId) continue;
            if (best == kNoId || a.opIndex(ca) < a.opIndex(best)) best = ca;
        }
        if (best == kNoId) {
            const OpId o = res.cloneOf[k];
            res.error = "assertion failed placing the clone of " + std::string(orig.opName(o)) + " (op " +
                        std::to_string(a.opIndex(o)) + ", result " +
                        (orig.op(o).results.empty() ? std::string("-") : orig.value(orig.op(o).results[0]).name) +
                        "): no backward op uses its first result and no clone using it has an anchor";
            return res;
        }
        anchor[k] = best;
    }

    // New global order: clones just before their anchors, same anchor in clone order (grouped
    // by a counting sort, not a vector per op).
    std::vector<uint32_t> beforeStart(orig.ops().size() + 1, 0);
    for (size_t k = 0; k < nc; ++k) ++beforeStart[anchor[k] + 1];
    for (size_t i = 0; i + 1 < beforeStart.size(); ++i) beforeStart[i + 1] += beforeStart[i];
    std::vector<OpId> before(nc);
    {
        std::vector<uint32_t> fill(beforeStart.begin(), beforeStart.end() - 1);
        for (size_t k = 0; k < nc; ++k) before[fill[anchor[k]]++] = res.clones[k];
    }
    std::vector<OpId> order;
    order.reserve(gops.size() + nc);
    for (OpId op : gops) {
        for (uint32_t i = beforeStart[op]; i < beforeStart[op + 1]; ++i) order.push_back(before[i]);  // setBlockOps places them
        order.push_back(op);
    }
    np.setBlockOps(Program::kGlobalBlock, std::move(order));
    np.finish();
    res.program = std::move(program);
    return res;
}

}  // namespace rx
