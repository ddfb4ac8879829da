#pragma once
// Builds the flow-network view: one node per value (its v_in/v_out pair) unless expanded,
// source and sink as per-node badges (hub nodes make dot never finish), finite capacities
// as labels, ∞ arcs dotted, cut arcs red, the source side shaded. Networks with more than
// kMaxPairs values open on the neighbourhood of the cut (and of the selection).
#include <QString>
#include <set>

#include "algorithms/Layers.h"
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

// ---- The scoped flow view: one layer (or the selection's surroundings) at a time ----
//
// Every value of the scope is drawn as its pair: a small v_in node and a named v_out box,
// joined by the v_in -> v_out arc that carries the value's finite capacity. Pairs are placed
// in forward order: columns follow the longest-path rank of the forward data flow, a column
// holds consecutive ranks and bands of columns wrap like lines of text, with the number of
// rows and columns chosen so that the picture fits a window of `aspect` at the largest
// scale. Source and sink are badges (S on v_in, T on v_out), never hub nodes.

// Which plan the picture shows: the seed's min cut (the result's cut) or a plan applied from
// elsewhere (a budget plan: its sides define the boundary, `planLabel` names it).
struct FlowPlanShown {
    bool budgetPlan = false;
    QString planLabel;  // e.g. "the budget plan (activation peak 120 MiB)"
};

// Position in the global block of the top-level op that holds `op` (or defines `v`); -1 if none.
int64_t topLevelPosition(const Program& program, OpId op);
int64_t valuePosition(const Program& program, ValueId v);

// Network values (with an in or out node) defined by the forward ops of `group`, in
// forward order. Group -1: every network value.
std::vector<ValueId> flowValuesOfGroup(const Program& program, const FlowNetwork& network,
                                       const LayerPartition& layers, int group);
// Network values whose defining op lies within `radius` global-block positions of `op`.
std::vector<ValueId> flowValuesAround(const Program& program, const FlowNetwork& network, OpId op,
                                      uint32_t radius);
// Values on the ∞ path of a failed cut (MinCutResult::infinitePath), in path order.
std::vector<ValueId> infinitePathValues(const FlowNetwork& network, const MinCutResult& cut);

// Per network node, under the plan shown: 1 = sink side. The seed's cut gives it directly;
// a budget plan's sides give it as recomputed values (both nodes) and saved values (v_out).
std::vector<uint8_t> planSinkSide(const FlowNetwork& network, const SolveResult& result, const FlowPlanShown& shown);

struct ScopedFlowOptions {
    QString scopeName;      // "layer 3", "around %12", "∞ path"
    double aspect = 1.75;   // width / height of the window the picture should fill
    FlowPlanShown plan;
};
// `result` may be a failed solve that has a network: its ∞ path is drawn highlighted.
VisualGraph buildScopedFlowGraph(const Program& program, const SolveResult& result,
                                 const std::vector<ValueId>& scope, const ScopedFlowOptions& options);

}  // namespace rx
