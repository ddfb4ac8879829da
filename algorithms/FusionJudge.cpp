// The seed's fusion-loop judge by bounded searches with a bitset fallback (FusionJudge.h).
#include "algorithms/FusionJudge.h"

#include <algorithm>
#include <limits>

namespace rx {

namespace {

constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();

bool hasArc(const OpDag& dag, uint32_t from, uint32_t to) {
    const auto first = dag.consumers.begin() + dag.consumerOffsets[from];
    const auto last = dag.consumers.begin() + dag.consumerOffsets[from + 1];
    return std::binary_search(first, last, to);
}

// Phase 1 bounds over forward arcs: the lowest unrecomputable op reachable from i and the
// highest unrecomputable op reaching i (both inclusive of i; kNone when there is none).
struct IndexBounds {
    std::vector<uint32_t> lowestUnrecDescendant, highestUnrecAncestor;

    IndexBounds(const OpDag& dag, std::span<const uint8_t> unrec) {
        const size_t n = dag.size();
        lowestUnrecDescendant.assign(n, kNone);
        highestUnrecAncestor.assign(n, kNone);
        for (size_t i = n; i-- > 0;) {
            uint32_t best = unrec[i] ? uint32_t(i) : kNone;
            for (uint32_t k = dag.consumerOffsets[i]; k < dag.consumerOffsets[i + 1] && !unrec[i]; ++k) {
                const uint32_t c = dag.consumers[k];
                if (c > i) best = std::min(best, lowestUnrecDescendant[c]);
            }
            lowestUnrecDescendant[i] = best;
        }
        for (size_t i = 0; i < n; ++i) {
            uint32_t best = unrec[i] ? uint32_t(i) : kNone;
            for (uint32_t k = dag.producerOffsets[i]; k < dag.producerOffsets[i + 1] && !unrec[i]; ++k) {
                const uint32_t p = dag.producers[k];
                if (p < i && highestUnrecAncestor[p] != kNone)
                    best = best == kNone ? highestUnrecAncestor[p] : std::max(best, highestUnrecAncestor[p]);
            }
            highestUnrecAncestor[i] = best;
        }
    }
};

// Phases 2-3: one bounded search per group of queries sharing an end. Forward: from a over
// arcs to higher indices up to `bound`, then "an unrecomputable op of that set reaches x".
// Backward: the mirror image from b down to `bound`.
class GroupSearch {
public:
    GroupSearch(const OpDag& dag, std::span<const uint8_t> unrec)
        : dag_(dag), unrec_(unrec), reached_(dag.size(), 0), marked_(dag.size(), 0) {}

    // False when the search would pass `budget` arcs (budget is decreased by the work done).
    bool run(uint32_t start, uint32_t bound, bool forward, size_t& budget, size_t& work) {
        ++stamp_;
        list_.clear();
        list_.push_back(start);
        reached_[start] = stamp_;
        size_t spent = 0;
        for (size_t q = 0; q < list_.size(); ++q) {
            if (!expand(list_[q], bound, forward, reached_, nullptr, spent, budget)) return false;
        }
        queue_.clear();
        for (uint32_t x : list_)
            if (unrec_[x]) { marked_[x] = stamp_; queue_.push_back(x); }
        for (size_t q = 0; q < queue_.size(); ++q)
            if (!expand(queue_[q], bound, forward, marked_, &reached_, spent, budget)) return false;
        work += spent;
        return true;
    }
    bool marked(uint32_t x) const { return marked_[x] == stamp_; }

private:
    bool expand(uint32_t x, uint32_t bound, bool forward, std::vector<uint32_t>& mark,
                const std::vector<uint32_t>* within, size_t& spent, size_t& budget) {
        const auto& off = forward ? dag_.consumerOffsets : dag_.producerOffsets;
        const auto& adj = forward ? dag_.consumers : dag_.producers;
        const uint32_t degree = off[x + 1] - off[x];
        if (degree > budget) return false;
        budget -= degree;
        spent += degree;
        auto& out = within ? queue_ : list_;
        for (uint32_t k = off[x]; k < off[x + 1]; ++k) {
            const uint32_t y = adj[k];
            if (forward ? (y <= x || y > bound) : (y >= x || y < bound)) continue;
            if (mark[y] == stamp_ || (within && (*within)[y] != stamp_)) continue;
            mark[y] = stamp_;
            out.push_back(y);
        }
        return true;
    }

    const OpDag& dag_;
    std::span<const uint8_t> unrec_;
    std::vector<uint32_t> reached_, marked_, list_, queue_;
    uint32_t stamp_ = 0;
};

struct Group {
    uint32_t end;    // the shared op
    uint32_t bound;  // the farthest other end
    uint32_t first, count;  // in the sorted open-query list
};

}  // namespace

std::vector<uint8_t> judgeFusionLoops(const OpDag& dag, std::span<const uint8_t> unrec,
                                      std::span<const OpPair> queries, const FusionJudgeOptions& options,
                                      FusionJudgeStats* statsOut) {
    FusionJudgeStats stats;
    stats.queries = queries.size();
    std::vector<uint8_t> answer(queries.size(), 0);
    const size_t n = dag.size();
    if (queries.empty() || n == 0) {
        if (statsOut) *statsOut = stats;
        return answer;
    }

    // ---- phase 1
    const IndexBounds bounds(dag, unrec);
    std::vector<uint32_t> open;  // query indices still undecided
    std::vector<OpPair> ordered(queries.size());
    for (uint32_t q = 0; q < queries.size(); ++q) {
        auto [a, b] = queries[q];
        if (a > b) std::swap(a, b);
        ordered[q] = {a, b};
        if (a == b) { answer[q] = unrec[a]; ++stats.byBounds; continue; }
        if ((unrec[a] || unrec[b]) && hasArc(dag, a, b)) { answer[q] = 1; ++stats.byBounds; continue; }
        const uint32_t low = bounds.lowestUnrecDescendant[a], high = bounds.highestUnrecAncestor[b];
        if (low == kNone || high == kNone || low > b || high < a) { ++stats.byBounds; continue; }
        open.push_back(q);
    }

    // ---- phases 2 and 3
    size_t budget = options.searchBudget ? options.searchBudget : 8 * (n + dag.consumers.size()) + 4096;
    if (options.skipSearches) budget = 0;
    GroupSearch search(dag, unrec);
    for (const bool forward : {true, false}) {
        if (open.empty() || budget == 0) break;
        auto shared = [&](uint32_t q) { return forward ? ordered[q].first : ordered[q].second; };
        auto other = [&](uint32_t q) { return forward ? ordered[q].second : ordered[q].first; };
        std::sort(open.begin(), open.end(), [&](uint32_t x, uint32_t y) { return shared(x) < shared(y); });
        std::vector<Group> groups;
        for (uint32_t i = 0; i < open.size();) {
            Group g{shared(open[i]), other(open[i]), i, 0};
            for (; i < open.size() && shared(open[i]) == g.end; ++i, ++g.count)
                g.bound = forward ? std::max(g.bound, other(open[i])) : std::min(g.bound, other(open[i]));
            groups.push_back(g);
        }
        // Narrow spans first: the budget settles as many queries as it can.
        auto span = [](const Group& g) { return g.bound > g.end ? g.bound - g.end : g.end - g.bound; };
        std::stable_sort(groups.begin(), groups.end(),
                         [&](const Group& x, const Group& y) { return span(x) < span(y); });
        std::vector<uint8_t> settled(queries.size(), 0);
        for (const Group& g : groups) {
            if (!search.run(g.end, g.bound, forward, budget, stats.searchWork)) break;
            for (uint32_t i = g.first; i < g.first + g.count; ++i) {
                const uint32_t q = open[i];
                answer[q] = search.marked(other(q));
                settled[q] = 1;
                ++(forward ? stats.byLowerSearch : stats.byUpperSearch);
            }
        }
        std::erase_if(open, [&](uint32_t q) { return settled[q]; });
    }

    // ---- phase 4: the seed's sets as bits, windowed to the open queries
    if (!open.empty()) {
        std::vector<uint32_t> unrecOps;
        for (uint32_t i = 0; i < n; ++i)
            if (unrec[i]) unrecOps.push_back(i);
        std::vector<uint64_t> up(n, 0), down(n, 0);
        for (size_t start = 0; start < unrecOps.size() && !open.empty(); start += 64) {
            const size_t count = std::min<size_t>(64, unrecOps.size() - start);
            const uint32_t lo = unrecOps[start], hi = unrecOps[start + count - 1];
            uint32_t winLo = kNone, winHi = 0;
            for (uint32_t q : open) {
                const auto [a, b] = ordered[q];
                if (a <= hi && b >= lo) { winLo = std::min(winLo, a); winHi = std::max(winHi, b); }
            }
            if (winLo == kNone) continue;
            std::fill(up.begin() + lo, up.begin() + std::max(lo, winHi) + 1, 0);
            std::fill(down.begin() + std::min(winLo, hi), down.begin() + hi + 1, 0);
            for (size_t b = 0; b < count; ++b) {
                up[unrecOps[start + b]] |= uint64_t(1) << b;
                down[unrecOps[start + b]] |= uint64_t(1) << b;
            }
            for (uint32_t i = lo; i <= winHi; ++i)
                for (uint32_t k = dag.producerOffsets[i]; k < dag.producerOffsets[i + 1]; ++k) {
                    const uint32_t p = dag.producers[k];
                    if (p < i && p >= lo) up[i] |= up[p];
                }
            for (uint32_t i = hi + 1; i-- > winLo;)
                for (uint32_t k = dag.consumerOffsets[i]; k < dag.consumerOffsets[i + 1]; ++k) {
                    const uint32_t c = dag.consumers[k];
                    if (c > i && c <= hi) down[i] |= down[c];
                }
            std::erase_if(open, [&](uint32_t q) {
                const auto [a, b] = ordered[q];
                if (a > hi || b < lo || !(down[a] & up[b])) return false;
                answer[q] = 1;
                ++stats.byBitsets;
                return true;
            });
        }
        stats.byBitsets += open.size();  // no chunk found an op between them: answer 0
    }
    if (statsOut) *statsOut = stats;
    return answer;
}

}  // namespace rx
