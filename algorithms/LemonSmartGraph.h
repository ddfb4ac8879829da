#pragma once
// LEMON's SmartDigraph for C++20, included before lemon/elevator.h and lemon/preflow.h by the
// min cuts (MinCut.cpp, planner/ParametricCut.cpp).
#include <lemon/smart_graph.h>

namespace lemon {
// LEMON's ArrayMap calls std::allocator::construct, which C++20 removed; node-valued maps
// (the linked elevator's) use VectorMap instead, as LEMON already does for scalars.
template <typename Graph, typename Item>
struct DefaultMapSelector<Graph, Item, SmartDigraphBase::Node> {
    typedef VectorMap<Graph, Item, SmartDigraphBase::Node> Map;
};
}  // namespace lemon
