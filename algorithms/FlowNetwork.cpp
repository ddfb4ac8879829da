#include "algorithms/FlowNetwork.h"

#include <charconv>
#include <cmath>
#include <cstdio>

#include "model/Diagnostic.h"

namespace rx {

std::string_view banRuleName(BanRule r) {
    switch (r) {
    case BanRule::None: return "none";
    case BanRule::TendingToRecompute: return "tending_to_recompute";
    case BanRule::AggressiveUnrecomputable: return "aggressive_unrecomputable";
    case BanRule::NotRecomputable: return "not_recomputable";
    case BanRule::MaterializedBackwards: return "materialized_backwards";
    case BanRule::TooFarFromBackward: return "too_far_from_backward";
    case BanRule::SizeRatio: return "size_ratio";
    }
    return "none";
}

std::string banRuleText(BanRule r) {
    switch (r) {
    case BanRule::None: return "not banned";
    case BanRule::TendingToRecompute: return "never banned: its op tends to be recomputed";
    case BanRule::AggressiveUnrecomputable: return "banned (aggressive mode): its op is unrecomputable";
    case BanRule::NotRecomputable: return "banned: its op is not recomputable";
    case BanRule::MaterializedBackwards: return "banned: it must be materialized in the backward pass";
    case BanRule::TooFarFromBackward: return "banned: too far from the backward pass";
    case BanRule::SizeRatio: return "banned: its inputs are much larger than it";
    }
    return "";
}

std::string_view skipReasonName(SkipReason r) {
    switch (r) {
    case SkipReason::None: return "none";
    case SkipReason::NotGraphValue: return "not_graph_value";
    case SkipReason::ForwardOutput: return "forward_output";
    case SkipReason::NotInitialized: return "not_initialized";
    case SkipReason::CombineResult: return "combine_result";
    case SkipReason::IgnoredOp: return "ignored_op";
    case SkipReason::UsedOnceBySplit: return "used_once_by_split";
    }
    return "none";
}

// ---------------------------------------------------------------- FlowNetwork

void FlowNetwork::resizeValues(size_t n) {
    inNode_.assign(n, kNoId);
    outNode_.assign(n, kNoId);
    facts.assign(n, ValueFacts{});
    if (nodes.empty()) {
        nodes.push_back({NodeKind::Source, kNoId});
        nodes.push_back({NodeKind::Sink, kNoId});
        sourceArc_.assign(2, kNoId);
        sinkArc_.assign(2, kNoId);
    }
}

void FlowNetwork::reserve(size_t nodeCount, size_t arcCount) {
    nodes.reserve(nodeCount);
    sourceArc_.reserve(nodeCount);
    sinkArc_.reserve(nodeCount);
    arcs.reserve(arcCount);
}

uint32_t FlowNetwork::ensureIn(ValueId v) {
    if (inNode_[v] == kNoId) {
        inNode_[v] = uint32_t(nodes.size());
        nodes.push_back({NodeKind::In, v});
        sourceArc_.push_back(kNoId);
        sinkArc_.push_back(kNoId);
    }
    return inNode_[v];
}

uint32_t FlowNetwork::ensureOut(ValueId v) {
    if (outNode_[v] == kNoId) {
        outNode_[v] = uint32_t(nodes.size());
        nodes.push_back({NodeKind::Out, v});
        sourceArc_.push_back(kNoId);
        sinkArc_.push_back(kNoId);
    }
    return outNode_[v];
}

void FlowNetwork::addArc(uint32_t from, uint32_t to, int64_t capacity, bool infinite, ArcReason reason) {
    // Only arcs from source / to sink can be added twice (input + ban + fusion loop + pins):
    // networkx keeps one edge, and every such edge is ∞.
    uint32_t* slot = from == kSource ? &sourceArc_[to] : to == kSink ? &sinkArc_[from] : nullptr;
    if (slot && *slot != kNoId) {
        arcs[*slot].reasons |= reason;
        return;
    }
    if (slot) *slot = uint32_t(arcs.size());
    if (from == kSource || to == kSource) sourceUsed_ = true;
    if (from == kSink || to == kSink) sinkUsed_ = true;
    arcs.push_back({from, to, infinite ? 0 : capacity, infinite, uint16_t(reason)});
}

size_t FlowNetwork::nodeCount() const {
    return nodes.size() - (sourceUsed_ ? 0 : 1) - (sinkUsed_ ? 0 : 1);
}

std::string FlowNetwork::nodeName(uint32_t node, const Program& program) const {
    const Node& n = nodes[node];
    switch (n.kind) {
    case NodeKind::Source: return "source";
    case NodeKind::Sink: return "sink";
    case NodeKind::In: return program.value(n.value).name + "_in";
    case NodeKind::Out: return program.value(n.value).name + "_out";
    }
    return "?";
}

std::string_view FlowNetwork::formatUnits(UnitsBuffer& buf, int64_t units, int64_t scale) {
    char* const begin = buf.data();
    char* end = begin + buf.size();
    if (scale <= 1) return {begin, size_t(std::to_chars(begin, end, units).ptr - begin)};
    const bool negative = units < 0;
    const uint64_t u = negative ? uint64_t(-(units + 1)) + 1 : uint64_t(units);
    const uint64_t whole = u / uint64_t(scale), frac = u % uint64_t(scale);
    char* q = begin;
    if (negative) *q++ = '-';
    q = std::to_chars(q, end, whole).ptr;
    if (frac) {
        int width = 0;  // decimals of the scale (a power of ten)
        for (int64_t s = scale; s > 1; s /= 10) ++width;
        char digits[24];
        const auto n = int(std::to_chars(digits, digits + sizeof digits, frac).ptr - digits);
        *q++ = '.';
        for (int i = n; i < width; ++i) *q++ = '0';  // leading zeros of the fraction
        int last = n;
        while (last > 0 && digits[last - 1] == '0') --last;  // no trailing zeros
        for (int i = 0; i < last; ++i) *q++ = digits[i];
    }
    return {begin, size_t(q - begin)};
}

std::string FlowNetwork::unitsText(int64_t units, int64_t scale) {
    UnitsBuffer buf;
    return std::string(formatUnits(buf, units, scale));
}

std::string FlowNetwork::capacityText(const Arc& arc) const {
    return arc.infinite ? "inf" : unitsText(arc.capacity, scale);
}

// ---------------------------------------------------------------- building

namespace {

int64_t weightScaleFor(double minimumWeight, int64_t& minimumUnits) {
    int64_t scale = 1;
    for (int k = 0; k <= 6; ++k, scale *= 10) {
        const double x = minimumWeight * double(scale);
        const double r = std::round(x);
        if (std::fabs(x - r) <= 1e-9 * std::fabs(x)) {  // exact up to double rounding
            minimumUnits = int64_t(r);
            return scale;
        }
    }
    throw Error("minimum_weight " + std::to_string(minimumWeight) +
                " has more than 6 decimals: capacities could not be represented exactly");
}

}  // namespace

FlowNetwork buildFlowNetwork(const Analysis& a, const RecomputeConfig& config, const OpClasses& classes,
                             const std::vector<uint8_t>& fusionLoop) {
    const Program& p = a.program();
    FlowNetwork net;
    int64_t minimumUnits = 0;
    net.scale = weightScaleFor(config.minimumWeight, minimumUnits);
    net.resizeValues(p.values().size());
    {
        // Two nodes per graph value; arcs: weight, users, and a few ∞ arcs per value.
        size_t users = 0;
        for (ValueId v : a.graphValues()) users += a.users(v, true).size();
        net.reserve(2 * a.graphValues().size() + 2, 2 * a.graphValues().size() + users + 16);
    }
    constexpr int64_t kMax = INT64_MAX / 4;
    const uint32_t combineId = p.findOpName("builtin.combine");

    // Pins by name. A saved pin on a spec input does nothing (inputs are resident, never
    // saved): said, not silently dropped. A recomputed pin on one is said too, and kept: where
    // the backward needs the input, the cut reports the infinite path that explains why.
    const auto pinOnInput = [&](ValueId v, const std::string& name) {
        if (!a.isInput(v)) return false;
        net.warnings.push_back("pinned value " + name + " is an input of the program (resident throughout, never saved); pin ignored");
        return true;
    };
    for (const auto& name : config.pinnedSaved) {
        const ValueId v = a.findValue(name);
        if (v == kNoId) net.warnings.push_back("pinned value " + name + " does not exist; pin ignored");
        else if (!pinOnInput(v, name)) net.facts[v].pin = ValueFacts::Pin::Saved;
    }
    for (const auto& name : config.pinnedRecomputed) {
        const ValueId v = a.findValue(name);
        if (v == kNoId) { net.warnings.push_back("pinned value " + name + " does not exist; pin ignored"); continue; }
        if (a.isInput(v))
            net.warnings.push_back("pinned value " + name + " is an input of the program (resident throughout); it cannot be recomputed");
        if (net.facts[v].pin == ValueFacts::Pin::Saved)
            net.warnings.push_back("value " + name + " is pinned both saved and recomputed; kept saved");
        else net.facts[v].pin = ValueFacts::Pin::Recomputed;
    }

    auto fusible = [&](ValueId x, ValueId y) {
        const uint32_t dx = a.defNameId(x), dy = a.defNameId(y);
        return dx != kNoId && dy != kNoId && classes.has(dx, OpClasses::Fusible) && classes.has(dy, OpClasses::Fusible);
    };
    std::vector<ValueId> stack;
    std::vector<uint8_t> seen;
    auto materializedBackwards = [&](ValueId v) {
        stack.assign(1, v);
        std::vector<ValueId> touched;
        bool result = false;
        while (!stack.empty() && !result) {
            const ValueId cur = stack.back();
            stack.pop_back();
            for (ValueId u : a.users(cur, true)) {
                if (a.isForwardValue(u)) continue;
                if (!fusible(cur, u)) { result = true; break; }
                const uint32_t real = a.realDefineOpNameId(u);
                if (real != kNoId && classes.has(real, OpClasses::View)) {
                    if (seen.empty()) seen.assign(p.values().size(), 0);
                    if (!seen[u]) { seen[u] = 1; touched.push_back(u); stack.push_back(u); }
                }
            }
        }
        for (ValueId t : touched) seen[t] = 0;
        return result;
    };

    for (ValueId v : a.graphValues()) {
        ValueFacts& f = net.facts[v];
        const OpId def = p.value(v).definingOp;
        const uint32_t defName = p.op(def).nameId;
        const std::string_view defStr = p.opNameById(defName);
        if (a.isOutput(v) && a.isForwardValue(v)) { f.skip = SkipReason::ForwardOutput; continue; }
        if (!a.isInitialized(v)) { f.skip = SkipReason::NotInitialized; continue; }
        if (defName == combineId) { f.skip = SkipReason::CombineResult; continue; }
        if (classes.has(defName, OpClasses::Ignored)) { f.skip = SkipReason::IgnoredOp; continue; }
        if (a.usedOnceBySplitSlice(v)) { f.skip = SkipReason::UsedOnceBySplit; continue; }
        f.skip = SkipReason::None;

        if (a.isBackwardValue(v)) {
            net.addArc(net.ensureIn(v), FlowNetwork::kSink, 0, true, FlowNetwork::BackwardSink);
            continue;
        }
        const uint32_t in = net.ensureIn(v);
        if (a.isInput(v)) net.addArc(FlowNetwork::kSource, in, 0, true, FlowNetwork::Input);

        // §5 materialized / materialized-backwards
        bool materialized = a.isInput(v) || a.isOutput(v);
        if (!materialized)
            for (ValueId u : a.users(v, true))
                if (!fusible(v, u)) { materialized = true; break; }
        f.materialized = materialized;

        // §5 banned(v)
        const int64_t size = a.size(v);
        const int64_t dist = a.distance(v);
        f.materializedBackwards = materializedBackwards(v);
        BanRule rule = BanRule::None;
        if (config.aggressiveRecomputation) {
            if (classes.has(defName, OpClasses::Unrecomputable)) rule = BanRule::AggressiveUnrecomputable;
        } else if (classes.has(defName, OpClasses::Tending)) {
            rule = BanRule::TendingToRecompute;
        } else if (!classes.has(defName, OpClasses::Recomputable)) {
            rule = BanRule::NotRecomputable;
        } else if (f.materializedBackwards) {
            rule = BanRule::MaterializedBackwards;
        } else if (dist > config.maxDistFromBw) {
            rule = BanRule::TooFarFromBackward;
        } else {
            if (net.seedError.empty()) {
                if (const Analysis::RealInputsRaise raise = a.realInputsRaise(v); raise.raises()) {
                    SeedError& e = net.seedError;
                    e.message = raise.message;
                    e.value = p.value(v).name;
                    e.opIndex = int64_t(a.opIndex(def));
                    e.opName = std::string(defStr);
                    e.rule = std::string(banRuleName(BanRule::SizeRatio));
                    char ratio[32];
                    const auto end = std::to_chars(ratio, ratio + sizeof ratio, config.sizeRatioBan).ptr;
                    e.detail = "banned(" + e.value + ") compares " + std::string(ratio, end) + " x its size with the sizes of its real inputs, and the seed cannot size " +
                               raise.culprit;
                }
            }
            const int64_t inputs = std::max<int64_t>(a.realInputsSize(v), 0);
            const double ratio = config.sizeRatioBan;
            bool smaller;
            if (ratio == std::floor(ratio) && ratio < 1e9)
                smaller = __int128(size) * __int128(int64_t(ratio)) < __int128(inputs);
            else
                smaller = static_cast<long double>(size) * ratio < static_cast<long double>(inputs);
            if (smaller) rule = BanRule::SizeRatio;
        }
        f.banRule = rule;
        f.banned = rule != BanRule::None && rule != BanRule::TendingToRecompute;
        const bool pinnedRecomputed = f.pin == ValueFacts::Pin::Recomputed;
        if (f.banned && !pinnedRecomputed) net.addArc(FlowNetwork::kSource, in, 0, true, FlowNetwork::Ban);

        // §5 weight(v), exact in units of 1/scale
        int64_t units;
        if (classes.has(defName, OpClasses::Tending) && size == 0) {
            units = minimumUnits;
        } else {
            const int64_t d = std::max<int64_t>(std::min<int64_t>(dist, config.distanceCap), 1);
            const double w = double(size) * std::pow(config.distanceBase, double(d));
            const double limit = double(kMax) / double(net.scale) / double(std::max<int64_t>(config.nonMaterializedFactor, 1));
            if (!(w < limit)) {
                char text[64];
                std::snprintf(text, sizeof text, "%.6g", w);
                throw Error("the weight of value " + p.value(v).name + " (" + std::to_string(size) + " bytes x " +
                            std::to_string(config.distanceBase) + "^" + std::to_string(d) + " = " + text +
                            ") is too large for this solver's 64-bit capacities (the seed goes on with Python "
                            "integers): lower distance_base or distance_cap");
            }
            int64_t weight = int64_t(w);
            if (!materialized) weight *= config.nonMaterializedFactor;
            units = weight * net.scale;
        }
        f.weightUnits = units;
        const uint32_t out = net.ensureOut(v);
        net.addArc(in, out, units, pinnedRecomputed, pinnedRecomputed ? FlowNetwork::PinRecomputed : FlowNetwork::Weight);

        for (ValueId u : a.users(v, true)) net.addArc(out, net.ensureIn(u), 0, true, FlowNetwork::User);

        // §6 step 7: fusion-loop edges
        if (v < fusionLoop.size() && fusionLoop[v]) {
            f.fusionLoop = true;
            net.addArc(FlowNetwork::kSource, in, 0, true, FlowNetwork::FusionLoopSource);
            net.addArc(out, FlowNetwork::kSink, 0, true, FlowNetwork::FusionLoopSink);
        }
        if (f.pin == ValueFacts::Pin::Saved) {
            net.addArc(FlowNetwork::kSource, in, 0, true, FlowNetwork::PinSaved);
            net.addArc(out, FlowNetwork::kSink, 0, true, FlowNetwork::PinSaved);
        }
    }
    for (ValueId v = 0; v < p.values().size(); ++v) {
        const ValueFacts& f = net.facts[v];
        if (f.pin != ValueFacts::Pin::None && net.outNode(v) == kNoId)
            net.warnings.push_back("pinned value " + p.value(v).name +
                                   " has no v_in -> v_out edge in the network (" +
                                   std::string(skipReasonName(f.skip)) + "); pin ignored");
    }
    return net;
}

}  // namespace rx
