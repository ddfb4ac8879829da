#pragma once
// Plain data that goes into and comes out of the layout service. No Graphviz type appears
// here: the service converts to and from cgraph on its own thread.
#include <QPointF>
#include <QRectF>
#include <QSizeF>
#include <QString>
#include <cstdint>
#include <vector>

namespace rx {

enum class LayoutEngine : uint8_t {
    Dot,        // hierarchical with curved splines: small graphs (< ~1500 nodes)
    DotLines,   // dot with splines=line: faster routing for medium graphs
    Sfdp,       // multilevel force-directed: big graphs, no ranks
    Layered,    // in-house longest-path layering, O(V+E): whole huge graphs, instant
    Preset,     // node centres given by the caller (LayoutRequest::presetCenter); straight edges
};

struct LayoutNode {
    double width = 80;    // in scene pixels (1 px = 1 point)
    double height = 28;
    int cluster = -1;     // index into LayoutRequest::clusters, or -1
    int rankHint = -1;    // optional rank (Layered engine); -1 = computed
};

struct LayoutEdge {
    int from = 0;
    int to = 0;
    bool constraint = true;  // false: does not influence ranks (dot)
    double weight = 1;       // dot edge weight (straightness)
    int minLength = 1;       // dot minlen: ranks apart, or for a flat edge extra room (its label)
};

struct LayoutRequest {
    std::vector<LayoutNode> nodes;
    std::vector<LayoutEdge> edges;
    std::vector<QString> clusters;  // names only; the views draw the labels themselves
    LayoutEngine engine = LayoutEngine::Dot;
    bool leftToRight = false;       // rankdir LR instead of TB
    double nodeSep = 18;            // points
    double rankSep = 30;            // points
    std::vector<QPointF> presetCenter;  // Preset engine: one centre per node
    // Node sets dot puts on one rank (rank=same): a forward layer and its backward face
    // each other, and the edge between them is drawn flat and straight. Dot engines only.
    std::vector<std::vector<int>> sameRank;
};

struct LayoutResult {
    bool ok = false;
    QString error;
    QRectF bounds;                               // scene coordinates, y down
    std::vector<QPointF> nodeCenter;             // per request node
    std::vector<std::vector<QPointF>> edgePath;  // cubic bezier: p0, (c1, c2, p)*; or a polyline if edgeIsPolyline
    std::vector<bool> edgeIsPolyline;
    std::vector<QPointF> edgeArrowTip;           // where the arrow head points (end of edge)
    std::vector<QRectF> clusterRect;             // per request cluster (empty rect if unused)
    double elapsedMs = 0;
    LayoutEngine engine = LayoutEngine::Dot;
};

}  // namespace rx
