#pragma once
// Minimum s-t cut of a FlowNetwork with LEMON's Preflow, returning exactly the cut networkx
// returns: the sink side is the set of nodes that can still reach `sink` in the residual
// graph of a maximum (pre)flow; everything else is on the source side.
//
// ∞ arcs get a sentinel capacity above the sum of the finite ones. A path of ∞ arcs from
// source to sink (networkx: "unbounded") is detected before the flow and reported with the
// path. The reduced solve contracts every node reachable from source by ∞ arcs into source
// and every node reaching sink by ∞ arcs into sink, drops nodes on no source-sink path, runs
// Preflow on what is left and maps the cut back (nodes unreachable from source get their
// side by the residual rule). An ∞ arc is never saturated, so the cut is identical.
#include <cstdint>
#include <string>
#include <vector>

#include "algorithms/FlowNetwork.h"

namespace rx {

struct MinCutOptions {
    bool reduce = true;  // false: run Preflow on the whole network (for checking)
    // Preflow with LEMON's linked elevator: lifts a node to the top in O(1) where the array
    // elevator walks every level (quadratic on networks whose nodes mostly end cut off from
    // the sink, like the budget planner's). The cut is the same: the residual sink side does
    // not depend on which maximum flow was found.
    bool linkedElevator = false;
};

struct MinCutResult {
    std::string error;                  // empty on success
    int64_t valueUnits = 0;             // max-flow value in units of 1/network.scale
    std::vector<uint8_t> sinkSide;      // by node: 1 = can reach sink in the residual graph
    std::vector<uint32_t> cutArcs;      // arcs from the source side to the sink side
    std::vector<uint32_t> infinitePath; // nodes source..sink when the flow is unbounded
    size_t solvedNodes = 0, solvedArcs = 0;  // size of the graph given to Preflow
    bool ok() const { return error.empty(); }
};

MinCutResult solveMinCut(const FlowNetwork& network, const Program& program,
                         const MinCutOptions& options = {});

}  // namespace rx
