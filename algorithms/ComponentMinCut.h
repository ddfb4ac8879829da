#pragma once
// A minimum s-t cut solved again and again on one network whose arcs stay and whose finite
// capacities change (the budget planner's λ cuts), component by component.
//
// Nodes that reach the sink by ∞ arcs are merged into the sink, nodes the source reaches by ∞
// arcs into the source (an ∞ arc is never saturated, so the cut is the same). What is left
// falls apart into components that share only source and sink; their flows add up and each
// node's side depends on its own component alone. A transformer's budget network is ~40k
// components of a few nodes (one layer's ops whose results the backward does not read) and
// one chain through every layer: small components are solved by shortest augmenting paths
// on their own few arcs, the large ones together by LEMON's Preflow.
//
// The cut is networkx's, as solveMinCut's (MinCut.h): the sink side is the set of nodes that
// reach the sink in the residual graph of a maximum (pre)flow, which does not depend on the
// flow found; so every node gets the side solveMinCut gives it (tests/algorithms/
// test_component_min_cut.cpp compares both on random networks).
#include <cstdint>
#include <memory>
#include <vector>

namespace rx {

class ComponentMinCut {
public:
    struct Arc {
        uint32_t from, to;
        bool infinite;
    };
    // `arcs` over nodes 0..nodeCount-1; ∞ arcs take `infiniteCapacity` (above every finite
    // cut). Components of at most `smallComponent` nodes take augmenting paths. Arcs into
    // the source or out of the sink may be given; they never carry flow.
    ComponentMinCut(size_t nodeCount, uint32_t source, uint32_t sink, const std::vector<Arc>& arcs,
                    int64_t infiniteCapacity, size_t smallComponent = 64);
    ~ComponentMinCut();
    ComponentMinCut(const ComponentMinCut&) = delete;
    ComponentMinCut& operator=(const ComponentMinCut&) = delete;

    // False when a path of ∞ arcs joins source to sink (no finite cut; solve must not be called).
    bool bounded() const { return bounded_; }
    // The cut for these capacities (by arc, as given; ∞ arcs' entries are ignored, none may be
    // negative): the sink side by node (1 = reaches the sink in the residual graph), valid until
    // the next call, and the maximum flow's value in `flowValue`.
    const std::vector<uint8_t>& solve(const std::vector<int64_t>& capacity, int64_t& flowValue);

    size_t componentCount() const { return smallCount_ + (largeNodes_ > 0 ? 1 : 0); }
    size_t largeNodes() const { return largeNodes_; }  // inner nodes given to Preflow

private:
    struct LocalArc {
        uint16_t from, to;  // within the component: 0 source, 1 sink, 2.. its nodes
        uint32_t kept;      // index into kept_
    };
    struct KeptArc {
        uint32_t from, to;  // contracted ends (source, sink, or an inner node)
        uint32_t arc;       // the caller's arc
    };
    void solveSmall(uint32_t component, const std::vector<int64_t>& capacity);
    int64_t cap(const KeptArc& k, const std::vector<int64_t>& capacity) const {
        return infinite_[k.arc] ? infiniteCapacity_ : capacity[k.arc];
    }

    size_t nodeCount_;
    uint32_t source_, sink_;
    int64_t infiniteCapacity_;
    bool bounded_ = true;
    std::vector<uint8_t> infinite_;          // by caller's arc
    std::vector<uint8_t> merged_;            // by node: 1 merged into the source, 2 into the sink
    std::vector<KeptArc> kept_;              // arcs of the contracted network
    std::vector<int64_t> flow_;              // by kept arc
    std::vector<uint32_t> direct_;           // kept arcs from source straight to sink
    // Small components, flat: their local arcs and, per local node, the arcs it touches.
    size_t smallCount_ = 0;
    std::vector<uint32_t> arcOff_, incidenceOff_;  // by component; incidence offsets per local node
    std::vector<LocalArc> localArcs_;
    std::vector<uint32_t> incidenceStart_;   // by component: its first entry in incidenceOff_
    std::vector<uint32_t> incidence_;        // local arc numbers within the component
    std::vector<uint32_t> nodesOf_;          // by component: node count (sink and source included)
    // Scratch for the augmenting paths.
    std::vector<int32_t> via_;
    std::vector<uint16_t> queue_;
    // The large components on one LEMON graph.
    size_t largeNodes_ = 0;
    struct Large;
    std::unique_ptr<Large> large_;
    // The residual search from the sink over the kept arcs (CSR by contracted node).
    std::vector<uint32_t> inOff_, inArcs_, outOff_, outArcs_;
    std::vector<uint8_t> reaches_, sinkSide_;
    std::vector<uint32_t> search_;
};

}  // namespace rx
