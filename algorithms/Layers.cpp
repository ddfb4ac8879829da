// Layer detection: repeated forward motifs (or chunk_id), backward ops assigned by the
// forward values they read.
#include "algorithms/Layers.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "algorithms/Plan.h"

namespace rx {

size_t LayerPartition::layerCount() const {
    return size_t(std::count_if(groups.begin(), groups.end(), [](const LayerGroup& g) { return g.kind == LayerGroup::Kind::Layer; }));
}

namespace {

// Shorter repeats are sub-layer structure (q/k/v projections, a norm's ops), not layers.
constexpr uint32_t kMinPeriod = 8;

struct Motif {
    uint32_t start = 0, period = 0, repeats = 0;
};

// The period p and start s maximising the ops covered by seq[s..s+k·p) with seq[i] ==
// seq[i+p] throughout (k ≥ 2); ties go to the shorter period.
Motif findMotif(const std::vector<uint32_t>& seq) {
    const uint32_t n = uint32_t(seq.size());
    Motif best;
    if (n < 8) return best;
    // Candidate periods: gaps between the 1st..4th next occurrence of each op name.
    std::unordered_map<uint32_t, std::vector<uint32_t>> at;
    for (uint32_t i = 0; i < n; ++i) at[seq[i]].push_back(i);
    std::map<uint32_t, uint32_t> votes;
    for (auto& [name, pos] : at) {
        if (pos.size() < 2 || pos.size() > n / 2) continue;
        for (size_t i = 0; i + 1 < pos.size(); ++i)
            for (size_t k = 1; k <= 4 && i + k < pos.size(); ++k) {
                const uint32_t gap = pos[i + k] - pos[i];
                if (gap >= kMinPeriod && gap <= n / 2) ++votes[gap];
            }
    }
    std::vector<std::pair<uint32_t, uint32_t>> ranked(votes.begin(), votes.end());
    std::sort(ranked.begin(), ranked.end(), [](auto& a, auto& b) { return a.second != b.second ? a.second > b.second : a.first < b.first; });
    if (ranked.size() > 300) ranked.resize(300);
    uint64_t bestCover = 0;
    for (auto [p, _] : ranked) {
        uint32_t run = 0, runStart = 0;
        for (uint32_t i = 0; i + p < n; ++i) {
            if (seq[i] == seq[i + p]) {
                if (run == 0) runStart = i;
                ++run;
            } else {
                run = 0;
            }
            if (run >= p) {
                const uint32_t repeats = (run + p) / p;
                const uint64_t cover = uint64_t(repeats) * p;
                if (cover > bestCover || (cover == bestCover && p < best.period)) {
                    bestCover = cover;
                    best = Motif{runStart, p, repeats};
                }
            }
        }
    }
    return best;
}

// An indexed scope component: "LlamaDecoderLayer_3" (Paddle's struct_name), or "layers" +
// "3" in a PyTorch-style parameter name ("layers.3.mlp.weight", "h.3.attn.c_attn.weight").
struct ScopeIndex {
    std::string base;
    int64_t index = -1;
};

bool allDigits(std::string_view s) {
    return !s.empty() && s.size() <= 9 && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// The outermost indexed component of a struct_name path ("/Model/DecoderLayer_3/Linear_1/").
ScopeIndex structScope(std::string_view path) {
    size_t at = 0;
    while (at < path.size()) {
        size_t next = path.find('/', at);
        if (next == std::string_view::npos) next = path.size();
        const std::string_view part = path.substr(at, next - at);
        const size_t us = part.rfind('_');
        if (us != std::string_view::npos && us > 0 && allDigits(part.substr(us + 1)))
            return ScopeIndex{std::string(part.substr(0, us)), std::stoll(std::string(part.substr(us + 1)))};
        at = next + 1;
    }
    return {};
}

// "layers.3.self_attn.q_proj.weight" -> {"layers", 3}: a dotted name with a numeric component
// (a module list); Paddle's own "linear_3.w_0" counters are not scopes and do not match.
ScopeIndex parameterScope(std::string_view name) {
    std::string prefix;
    size_t at = 0;
    while (at < name.size()) {
        size_t next = name.find('.', at);
        if (next == std::string_view::npos) return {};  // the last component is the tensor, not a scope
        const std::string_view part = name.substr(at, next - at);
        if (allDigits(part) && !prefix.empty()) return ScopeIndex{prefix, std::stoll(std::string(part))};
        if (!prefix.empty()) prefix += '.';
        prefix += part;
        at = next + 1;
    }
    return {};
}

// Layer ranges from name scopes: each forward op's scope is its struct_name, else that of the
// parameters it reads; the base with the most distinct indices (2 or more) names the layers.
// Unscoped ops between two ops of one layer belong to it. Empty when the scopes do not
// describe contiguous layers of a sensible size.
std::vector<std::pair<uint32_t, uint32_t>> scopeLayers(const Program& program, uint32_t fwdEnd) {
    const auto& ops = program.globalBlock().ops;
    std::vector<ScopeIndex> scope(fwdEnd);
    const uint32_t parameterName = program.findOpName("builtin.parameter"), dataName = program.findOpName("pd_op.data");
    auto paramScope = [&](ValueId x) -> ScopeIndex {
        const OpId def = program.value(x).definingOp;
        if (def == kNoId) return {};
        const Operation& d = program.op(def);
        const Attribute* a = d.nameId == parameterName ? d.attribute("parameter_name") : d.nameId == dataName ? d.attribute("name") : nullptr;
        return a && a->kind == Attribute::Kind::String ? parameterScope(a->text) : ScopeIndex{};
    };
    for (uint32_t i = 0; i < fwdEnd; ++i) {
        const Operation& o = program.op(ops[i]);
        if (const Attribute* a = o.attribute("struct_name"); a && a->kind == Attribute::Kind::String) scope[i] = structScope(a->text);
        if (scope[i].index < 0 && o.nameId != parameterName && o.nameId != dataName)
            for (ValueId x : o.operands)
                if (x != kNoId)
                    if (ScopeIndex si = paramScope(x); si.index >= 0) {
                        scope[i] = std::move(si);
                        break;
                    }
    }
    std::map<std::string, std::map<int64_t, int>> indices;
    for (const ScopeIndex& si : scope)
        if (si.index >= 0) ++indices[si.base][si.index];
    std::string base;
    size_t most = 1;
    for (const auto& [b, m] : indices)
        if (m.size() > most) {
            most = m.size();
            base = b;
        }
    if (base.empty()) return {};
    // Runs of one index, first to last op that carries it; an index that comes back after
    // another began means the scopes are not layers in program order.
    std::vector<std::pair<uint32_t, uint32_t>> ranges;
    std::map<int64_t, size_t> rangeOf;
    int64_t current = -1;
    for (uint32_t i = 0; i < fwdEnd; ++i) {
        if (scope[i].base != base || scope[i].index < 0) continue;
        const int64_t k = scope[i].index;
        if (k == current) {
            ranges.back().second = i + 1;
            continue;
        }
        if (rangeOf.count(k)) return {};
        rangeOf[k] = ranges.size();
        ranges.emplace_back(i, i + 1);
        current = k;
    }
    // Ops after a layer's last scoped op and before the next layer belong to it.
    for (size_t k = 0; k + 1 < ranges.size(); ++k) ranges[k].second = ranges[k + 1].first;
    if (ranges.size() < 2) return {};
    uint64_t covered = 0;
    for (const auto& [b, e] : ranges) covered += e - b;
    if (covered < uint64_t(kMinPeriod) * ranges.size()) return {};  // per-op counters, not layers
    return ranges;
}

}  // namespace

LayerPartition detectLayers(const Program& program, int64_t fwdOpEndIdx, int64_t backwardOpStartIdx) {
    LayerPartition out;
    const auto& ops = program.globalBlock().ops;
    const uint32_t n = uint32_t(ops.size());
    out.groupOfPos.assign(n, -1);
    const uint32_t fwdEnd = fwdOpEndIdx >= 0 ? uint32_t(std::min<int64_t>(fwdOpEndIdx + 1, n)) : n;
    const uint32_t bwdBegin = backwardOpStartIdx >= 0 ? uint32_t(std::min<int64_t>(backwardOpStartIdx, n)) : n;

    // Layer boundaries in the forward: chunk_id where the program has several, else a motif.
    std::vector<std::pair<uint32_t, uint32_t>> layerRanges;
    {
        std::vector<int64_t> chunk(fwdEnd, -1);
        std::map<int64_t, int> distinct;
        for (uint32_t i = 0; i < fwdEnd; ++i)
            if (const Attribute* a = program.op(ops[i]).attribute("chunk_id"); a && (a->kind == Attribute::Kind::Int32 || a->kind == Attribute::Kind::Int64)) {
                chunk[i] = a->intValue;
                ++distinct[a->intValue];
            }
        if (distinct.size() >= 2) {
            out.source = "chunk_id";
            for (uint32_t i = 0; i < fwdEnd;) {
                uint32_t j = i + 1;
                while (j < fwdEnd && chunk[j] == chunk[i]) ++j;
                if (chunk[i] >= 0) layerRanges.emplace_back(i, j);
                i = j;
            }
        }
    }
    if (layerRanges.empty()) {
        layerRanges = scopeLayers(program, fwdEnd);
        if (!layerRanges.empty()) out.source = "name scope";
    }
    if (layerRanges.empty()) {
        std::vector<uint32_t> seq(fwdEnd);
        for (uint32_t i = 0; i < fwdEnd; ++i) seq[i] = program.op(ops[i]).nameId;
        const Motif m = findMotif(seq);
        // Layers make up a good part of the forward; a small repeat is a detail, not the structure.
        if (m.repeats >= 2 && uint64_t(m.repeats) * m.period * 10 >= uint64_t(fwdEnd) * 3) {
            out.source = "motif";
            out.period = m.period;
            for (uint32_t k = 0; k < m.repeats; ++k) layerRanges.emplace_back(m.start + k * m.period, m.start + (k + 1) * m.period);
        }
    }
    if (layerRanges.empty()) out.source = "none";

    auto addGroup = [&](LayerGroup::Kind kind, std::string name, uint32_t b, uint32_t e) {
        LayerGroup g;
        g.kind = kind;
        g.name = std::move(name);
        g.fwdBegin = b;
        g.fwdEnd = e;
        g.forwardOps = e - b;
        out.groups.push_back(std::move(g));
        for (uint32_t i = b; i < e; ++i) out.groupOfPos[i] = int32_t(out.groups.size() - 1);
    };
    const uint32_t firstLayer = layerRanges.empty() ? fwdEnd : layerRanges.front().first;
    const uint32_t lastLayer = layerRanges.empty() ? fwdEnd : layerRanges.back().second;
    if (firstLayer > 0) addGroup(LayerGroup::Kind::Embedding, layerRanges.empty() ? "forward" : "embedding", 0, firstLayer);
    for (size_t k = 0; k < layerRanges.size(); ++k) {
        // Ops between chunk ranges (chunk_id -1) join the layer before them.
        const uint32_t e = k + 1 < layerRanges.size() ? layerRanges[k + 1].first : lastLayer;
        addGroup(LayerGroup::Kind::Layer, "layer " + std::to_string(k), layerRanges[k].first, e);
    }
    if (lastLayer < fwdEnd) addGroup(LayerGroup::Kind::Head, "head / loss", lastLayer, fwdEnd);
    int32_t other = -1;
    auto otherGroup = [&] {
        if (other < 0) {
            LayerGroup g;
            g.name = "other";
            out.groups.push_back(g);
            other = int32_t(out.groups.size() - 1);
        }
        return other;
    };
    for (uint32_t i = fwdEnd; i < bwdBegin; ++i) out.groupOfPos[i] = otherGroup();

    // Backward: the group whose forward values the op reads most (bytes), else the group of
    // the backward producers it reads, else the previous op's.
    std::vector<int32_t> groupOfValue(program.values().size(), -1);
    for (uint32_t i = 0; i < n; ++i)
        if (out.groupOfPos[i] >= 0)
            for (ValueId r : program.op(ops[i]).results) groupOfValue[r] = out.groupOfPos[i];
    int32_t previous = out.groups.empty() ? -1 : int32_t(out.groups.size() - 1);
    // Parameters and data are read by every layer's gradient: they say nothing about where an op belongs.
    const uint32_t parameterName = program.findOpName("builtin.parameter"), dataName = program.findOpName("pd_op.data");
    // op_role 2 (optimize) and 4 (learning-rate schedule): the optimizer, not any layer's backward.
    int32_t optimizer = -1;
    auto isOptimizer = [&](const Operation& o) {
        const Attribute* role = o.attribute("op_role");
        return role && (role->kind == Attribute::Kind::Int32 || role->kind == Attribute::Kind::Int64) && (role->intValue == 2 || role->intValue == 4);
    };
    for (uint32_t i = bwdBegin; i < n; ++i) {
        if (isOptimizer(program.op(ops[i]))) {
            if (optimizer < 0) {
                LayerGroup g;
                g.name = "optimizer";
                out.groups.push_back(g);
                optimizer = int32_t(out.groups.size() - 1);
            }
            out.groupOfPos[i] = optimizer;
            for (ValueId r : program.op(ops[i]).results) groupOfValue[r] = optimizer;
            continue;
        }
        std::map<int32_t, int64_t> fwdBytes, bwdBytes;
        for (ValueId x : program.op(ops[i]).operands) {
            if (x == kNoId || groupOfValue[x] < 0) continue;
            const OpId def = program.value(x).definingOp;
            if (def != kNoId && (program.op(def).nameId == parameterName || program.op(def).nameId == dataName)) continue;
            const bool fromForward = def != kNoId && program.op(def).parentBlock == Program::kGlobalBlock && program.indexInBlock(def) < fwdEnd;
            (fromForward ? fwdBytes : bwdBytes)[groupOfValue[x]] += std::max<int64_t>(1, program.valueBytes(x));
        }
        auto pick = [](const std::map<int32_t, int64_t>& m) {
            int32_t g = -1;
            int64_t best = -1;
            for (auto [k, b] : m)
                if (b > best) { best = b; g = k; }
            return g;
        };
        int32_t g = pick(fwdBytes);
        if (g < 0) g = pick(bwdBytes);
        if (g < 0) g = previous >= 0 ? previous : otherGroup();
        out.groupOfPos[i] = g;
        previous = g;
        for (ValueId r : program.op(ops[i]).results) groupOfValue[r] = g;
    }
    for (uint32_t i = bwdBegin; i < n; ++i) ++out.groups[size_t(out.groupOfPos[i])].backwardOps;
    return out;
}

std::vector<LayerBytes> layerBytes(const Program& program, const LayerPartition& layers, const Plan& plan, int64_t backwardOpStartIdx) {
    std::vector<LayerBytes> out(layers.groups.size());
    const auto& ops = program.globalBlock().ops;
    const uint32_t n = uint32_t(ops.size());
    const uint32_t bwdBegin = backwardOpStartIdx >= 0 ? uint32_t(std::min<int64_t>(backwardOpStartIdx, n)) : n;
    std::vector<uint8_t> readByBackward(program.values().size(), 0);
    for (uint32_t i = bwdBegin; i < n; ++i)
        for (ValueId x : program.op(ops[i]).operands)
            if (x != kNoId) readByBackward[x] = 1;
    std::vector<uint8_t> saved(program.values().size(), 0), recomputed(program.values().size(), 0);
    for (ValueId v : plan.savedValues)
        if (v < saved.size()) saved[v] = 1;
    for (ValueId v : plan.midHoldValues)
        if (v < recomputed.size()) recomputed[v] = 1;
    for (uint32_t i = 0; i < bwdBegin; ++i) {
        const int32_t g = layers.groupOfPos[i];
        if (g < 0) continue;
        for (ValueId r : program.op(ops[i]).results) {
            const int64_t b = program.valueBytes(r);
            LayerBytes& l = out[size_t(g)];
            if (readByBackward[r]) l.heldForBackward += b;
            if (saved[r]) l.saved += b, ++l.savedValues;
            if (recomputed[r]) l.recomputed += b, ++l.recomputedValues;
            if (saved[r] || (readByBackward[r] && !recomputed[r])) l.held += b;
        }
    }
    return out;
}

LayerPartition layersOfRewritten(const LayerPartition& layers, const Program& program, const Program& rewritten) {
    LayerPartition out;
    if (layers.groups.empty()) return out;
    out.groups = layers.groups;
    out.period = layers.period;
    out.source = layers.source;
    const auto& ops = program.globalBlock().ops;
    const auto& newOps = rewritten.globalBlock().ops;
    std::vector<int32_t> groupOfOp(program.ops().size(), -1);
    for (uint32_t i = 0; i < ops.size() && i < layers.groupOfPos.size(); ++i) groupOfOp[ops[i]] = layers.groupOfPos[i];
    out.groupOfPos.assign(newOps.size(), -1);
    // Walking back, a clone (or any op the original lacks) takes the group of the op after it.
    int32_t next = -1;
    for (size_t i = newOps.size(); i-- > 0;) {
        const OpId op = newOps[i];
        const bool original = op < groupOfOp.size() && rewritten.opName(op) == program.opName(op);
        out.groupOfPos[i] = original ? groupOfOp[op] : next;
        next = out.groupOfPos[i];
        if (!original && next >= 0) ++out.groups[size_t(next)].backwardOps;
    }
    return out;
}

}  // namespace rx
