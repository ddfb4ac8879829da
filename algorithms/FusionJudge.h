#pragma once
// The seed's fusion-loop judge (docs/ALGORITHM.md §5, JudgeFusionLoop) answered per query
// pair without building its per-op sets, so it is no longer quadratic on real programs.
//
// The seed builds up(op) / down(op) in one pass each (program order / reverse order) from
// empty initial sets, so only producer -> consumer arcs from a lower to a higher op index
// ever carry anything: up(b) ∩ down(a) ≠ ∅ iff some unrecomputable op w has a ⇝ w ⇝ b over
// such arcs (w = a or w = b allowed), with a < b; the pair is judged in both directions.
//
// Phases (each query is settled by the first that can):
//   1. O(1) tests: equal ops; an arc a -> b with an unrecomputable end; index bounds (the
//      nearest unrecomputable descendant of a lies after b, or the latest unrecomputable
//      ancestor of b before a).
//   2. Queries grouped by their lower op a: one bounded forward search from a marks the
//      descendants of a up to the group's highest b and, inside them, everything an
//      unrecomputable op reaches; each query of the group is then a lookup. Cheap groups
//      first, under a total work budget.
//   3. Left-over queries grouped by their upper op b, mirrored (bounded backward search).
//   4. What is still open: the seed's sets as 64-bit words, 64 unrecomputable ops at a
//      time, each chunk swept only over the index window its open queries span.
// Deciding in general whether an arc has another path through a marked op is as hard as
// transitive closure; phase 4 keeps the worst case at the old bitset cost, and the budget
// keeps phases 2-3 linear in the program's size.
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace rx {

// Producer -> consumer arcs among the ops of one block, by op index, as CSR lists (both
// directions). Arcs that do not go from a lower to a higher index are ignored.
struct OpDag {
    std::span<const uint32_t> consumerOffsets, consumers;  // size n + 1, arcs
    std::span<const uint32_t> producerOffsets, producers;
    size_t size() const { return consumerOffsets.empty() ? 0 : consumerOffsets.size() - 1; }
};

struct FusionJudgeOptions {
    // Arcs the searches of phases 2-3 may scan in all; 0 = 8 × (ops + arcs) + 4096.
    size_t searchBudget = 0;
    bool skipSearches = false;  // settle everything left after phase 1 by phase 4 (tests)
};

struct FusionJudgeStats {
    size_t queries = 0, byBounds = 0, byLowerSearch = 0, byUpperSearch = 0, byBitsets = 0;
    size_t searchWork = 0;  // arcs scanned by phases 2-3
};

using OpPair = std::pair<uint32_t, uint32_t>;  // op indices, any order

// One answer per query: 1 if the seed's judge finds an unfusible op on a path between the
// two ops. `unrecomputable` is indexed by op index.
std::vector<uint8_t> judgeFusionLoops(const OpDag& dag, std::span<const uint8_t> unrecomputable,
                                      std::span<const OpPair> queries, const FusionJudgeOptions& options = {},
                                      FusionJudgeStats* stats = nullptr);

}  // namespace rx
