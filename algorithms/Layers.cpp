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
    for (uint32_t i = bwdBegin; i < n; ++i) {
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
            if (readByBackward[r]) out[size_t(g)].heldForBackward += b;
            if (saved[r]) out[size_t(g)].saved += b;
            if (recomputed[r]) out[size_t(g)].recomputed += b;
        }
    }
    return out;
}

}  // namespace rx
