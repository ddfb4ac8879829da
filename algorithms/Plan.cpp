#include "algorithms/Plan.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <initializer_list>

namespace rx {

std::string_view valueSideName(ValueSide s) {
    switch (s) {
    case ValueSide::Neither: return "neither";
    case ValueSide::Saved: return "saved";
    case ValueSide::Recomputed: return "recomputed";
    }
    return "neither";
}

void sortValuesByName(const Program& program, std::vector<ValueId>& values) {
    // Keys computed once: "%N" sorts by N, other names after them by text.
    struct Key { int64_t num; ValueId v; };
    std::vector<Key> keys;
    keys.reserve(values.size());
    for (ValueId v : values) {
        const std::string& n = program.value(v).name;
        int64_t num = -1;
        if (n.size() > 1 && n[0] == '%') {
            auto [ptr, ec] = std::from_chars(n.data() + 1, n.data() + n.size(), num);
            if (ec != std::errc() || ptr != n.data() + n.size()) num = -1;
        }
        keys.push_back({num < 0 ? INT64_MAX : num, v});
    }
    const auto before = [&](const Key& a, const Key& b) {
        if (a.num != b.num) return a.num < b.num;
        if (a.num == INT64_MAX) {
            const std::string& na = program.value(a.v).name;
            const std::string& nb = program.value(b.v).name;
            if (na != nb) return na < nb;
        }
        return a.v < b.v;
    };
    // Values come mostly in definition order, which is name order in printed programs: a
    // linear check first (the report's 20k-value sort was a fifth of writing it).
    if (std::is_sorted(keys.begin(), keys.end(), before)) return;
    std::sort(keys.begin(), keys.end(), before);
    for (size_t i = 0; i < keys.size(); ++i) values[i] = keys[i].v;
}

namespace {

std::string banDetail(const Analysis& a, const RecomputeConfig& config, ValueId v, BanRule rule) {
    const Program& p = a.program();
    const OpId def = p.value(v).definingOp;
    const std::string_view op = def == kNoId ? std::string_view("(none)") : p.opName(def);
    auto cat = [](std::initializer_list<std::string_view> parts) {
        std::string out;
        size_t n = 0;
        for (auto part : parts) n += part.size();
        out.reserve(n);
        for (auto part : parts) out += part;
        return out;
    };
    switch (rule) {
    case BanRule::None: return "not banned";
    case BanRule::TendingToRecompute: return cat({"never banned: ", op, " tends to be recomputed"});
    case BanRule::AggressiveUnrecomputable: return cat({"banned (aggressive mode): ", op, " is unrecomputable"});
    case BanRule::NotRecomputable: return cat({"banned: ", op, " is not a recomputable op"});
    case BanRule::MaterializedBackwards:
        return "banned: a backward user is not fusible with it, so it must be materialized in the backward";
    case BanRule::TooFarFromBackward: {  // the commonest text: one allocation
        char text[96];
        const int n = std::snprintf(text, sizeof text, "banned: distance to the backward %lld > max_dist_from_bw %lld",
                                    static_cast<long long>(a.distance(v)), static_cast<long long>(config.maxDistFromBw));
        return std::string(text, size_t(std::max(n, 0)));
    }
    case BanRule::SizeRatio: {
        char ratio[32];
        auto r = std::to_chars(ratio, ratio + sizeof ratio, config.sizeRatioBan);
        return "banned: " + std::string(ratio, r.ptr) + " x " + std::to_string(a.size(v)) + " bytes < " +
               std::to_string(a.realInputsSize(v)) + " bytes of inputs";
    }
    }
    return "";
}

}  // namespace

Plan buildPlan(const Analysis& a, const RecomputeConfig& config, const OpClasses& classes,
               const FlowNetwork& net, const MinCutResult& cut, std::string& error) {
    const Program& p = a.program();
    const size_t nValues = p.values().size();
    Plan plan;
    plan.scale = net.scale;
    plan.cutValueUnits = cut.valueUnits;
    plan.warnings = net.warnings;

    // §6: saved values = v with v_in on the source side and v_out on the sink side.
    std::vector<uint8_t> saved(nValues, 0);
    for (uint32_t k : cut.cutArcs) {
        const auto& arc = net.arcs[k];
        const auto& from = net.nodes[arc.from];
        const auto& to = net.nodes[arc.to];
        if (from.kind != FlowNetwork::NodeKind::In || to.kind != FlowNetwork::NodeKind::Out || from.value != to.value) {
            error = "a cut edge " + net.nodeName(arc.from, p) + " -> " + net.nodeName(arc.to, p) +
                    " is not a value's in -> out edge (the seed's assertion)";
            return plan;
        }
        if (!saved[from.value]) {
            saved[from.value] = 1;
            plan.savedValues.push_back(from.value);
        }
    }
    sortValuesByName(p, plan.savedValues);

    // §7 mid-hold values.
    const auto gops = a.globalOps();
    const uint32_t combineId = p.findOpName("builtin.combine");
    std::vector<uint8_t> midHold(nValues, 0);
    for (int64_t i = 0; i <= a.fwdEnd() && i < int64_t(gops.size()); ++i) {
        const OpId op = gops[size_t(i)];
        for (ValueId r : p.op(op).results) {
            bool backwardUse = false;
            for (const Use& use : p.uses(r)) {
                const OpId u = use.ancestor;
                if (u == kNoId) continue;
                if (p.op(u).nameId == combineId && (p.op(u).results.empty() || p.uses(p.op(u).results[0]).empty()))
                    continue;  // combine ops nobody uses are ignored
                if (a.isBackwardRangeOp(u)) { backwardUse = true; break; }
            }
            if (backwardUse && !saved[r] && !a.isOutput(r) && !a.isInput(r) && !a.isBwNoNeedBuffer(r) &&
                !classes.has(p.op(op).nameId, OpClasses::Ignored)) {
                midHold[r] = 1;
                plan.midHoldValues.push_back(r);
                plan.memorySavedBytes += a.size(r);
            }
        }
    }
    sortValuesByName(p, plan.midHoldValues);

    // §7 recompute subgraph: walk back from each mid-hold value (explicit stack; the seed
    // recurses) until saved values, pd_op.data or builtin.parameter values.
    std::vector<uint8_t> done(p.ops().size(), 0), isInput(nValues, 0);
    struct Frame { OpId op; uint32_t next; };
    std::vector<Frame> stack;
    const uint32_t dataId = p.findOpName("pd_op.data"), paramId = p.findOpName("builtin.parameter");
    const uint32_t fullId = p.findOpName("pd_op.full"), fullIntId = p.findOpName("pd_op.full_int_array");
    auto addInput = [&](ValueId v) {
        if (!isInput[v]) { isInput[v] = 1; plan.subgraphInputs.push_back(v); }
    };
    // Returns false (and sets error) on the seed's zero-input exception.
    auto enter = [&](ValueId v) -> bool {
        const OpId def = p.value(v).definingOp;
        if (def == kNoId || done[def]) return true;
        const uint32_t name = p.op(def).nameId;
        if (name == dataId || name == paramId) { addInput(v); return true; }
        if (p.op(def).operands.empty() && name != fullId && name != fullIntId) {
            error = "Every path to recompute value " + p.value(v).name +
                    " must have saved value or starting point of the path is one of op in [pd_op.full, "
                    "pd_op.full_int_array], but find " + std::string(p.opName(def)) + " op (op " +
                    std::to_string(a.opIndex(def)) + ")";
            return false;
        }
        done[def] = 1;  // on the stack (re-entry only in a cyclic, malformed program)
        stack.push_back({def, 0});
        plan.maxRecomputeDepth = std::max(plan.maxRecomputeDepth, stack.size());
        return true;
    };
    for (ValueId m : plan.midHoldValues) {
        if (!enter(m)) return plan;
        while (!stack.empty()) {
            Frame& f = stack.back();
            const auto& operands = p.op(f.op).operands;
            if (f.next < operands.size()) {
                const ValueId x = operands[f.next++];
                if (x == kNoId) continue;
                if (saved[x]) { addInput(x); continue; }
                if (!enter(x)) return plan;
                continue;
            }
            done[f.op] = 2;
            plan.recomputeOps.push_back(f.op);
            stack.pop_back();
        }
    }
    // Program order: the global block's ops filtered by a mark, not a sort by index (the sort
    // of a 56k-op chain's 20k recompute ops was 3% of a whole solve). Ops without an index
    // (none in a valid program: the walk enters only definers of values global ops read) last.
    std::vector<uint8_t> recomputed(p.ops().size(), 0);
    for (OpId op : plan.recomputeOps) recomputed[op] = 1;
    {
        std::vector<OpId> unindexed;
        for (OpId op : plan.recomputeOps)
            if (a.opIndex(op) == kNoId) unindexed.push_back(op);
        plan.recomputeOps.clear();
        for (OpId op : a.globalOps())
            if (recomputed[op]) plan.recomputeOps.push_back(op);
        plan.recomputeOps.insert(plan.recomputeOps.end(), unindexed.begin(), unindexed.end());
    }
    if (plan.maxRecomputeDepth > 1000)
        plan.warnings.push_back("a recompute path is " + std::to_string(plan.maxRecomputeDepth) +
                                " ops deep: the seed's recursion would fail here (RecursionError); solved iteratively");

    // Reasons per value.
    plan.reasons.resize(nValues);
    for (ValueId v = 0; v < nValues; ++v) {
        ValueReason& r = plan.reasons[v];
        const ValueFacts& f = net.facts[v];
        r.valueClass = a.valueClass(v);
        r.inNetwork = net.inNode(v) != kNoId;
        r.skip = f.skip;
        r.distance = a.distance(v);
        r.size = a.size(v);
        r.weightUnits = f.weightUnits;
        r.materialized = f.materialized;
        r.materializedBackwards = f.materializedBackwards;
        r.fusionLoop = f.fusionLoop;
        r.banned = f.banned;
        r.banRule = f.banRule;
        if (a.isForwardValue(v) && f.skip == SkipReason::None) r.banText = banDetail(a, config, v, f.banRule);
        r.pin = f.pin;
        r.midHold = midHold[v];
        const OpId def = p.value(v).definingOp;
        r.side = valueSideOf(saved[v], def != kNoId && recomputed[def]);
    }

    // Hazards (ALGORITHM.md §8).
    for (ValueId m : plan.midHoldValues) {
        bool resultUser = false, resultless = false;
        for (const Use& use : p.uses(m)) {
            if (use.ancestor == kNoId || !a.isBackwardRangeOp(use.ancestor)) continue;
            (p.op(use.ancestor).results.empty() ? resultless : resultUser) = true;
        }
        if (resultless && !resultUser)
            plan.hazards.push_back("value " + p.value(m).name +
                                   " is held only by backward op(s) without results (e.g. builtin.shadow_output): "
                                   "it is mid-hold but has no edge to sink, so it is recomputed regardless of the cut");
        if (net.facts[m].banned)
            plan.hazards.push_back("value " + p.value(m).name + " is banned from recomputation (" +
                                   std::string(banRuleName(net.facts[m].banRule)) + ") yet is recomputed");
    }
    return plan;
}

}  // namespace rx
