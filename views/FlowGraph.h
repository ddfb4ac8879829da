#pragma once
// Builds the flow-network view: one node per value (its v_in/v_out pair) unless expanded,
// source and sink as per-node badges (hub nodes make dot never finish), finite capacities
// as labels, ∞ arcs dotted, cut arcs red, the source side shaded. Networks with more than
// kMaxPairs values open on the neighbourhood of the cut (and of the selection).
#include <set>

#include "algorithms/Solver.h"
#include "views/VisualGraph.h"

namespace rx {

struct FlowViewState {
    std::set<ValueId> expanded;    // values drawn as separate v_in and v_out nodes
    std::set<ValueId> focus;       // extra values whose neighbourhood is shown
    bool whole = false;            // every value, however many
    static constexpr size_t kMaxPairs = 700;
};

VisualGraph buildFlowGraph(const Program& program, const SolveResult& result, const FlowViewState& state,
                           size_t* totalPairs = nullptr);

}  // namespace rx
