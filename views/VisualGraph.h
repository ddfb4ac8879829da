#pragma once
// What a view wants drawn, before layout: nodes and edges with their look and the model
// object each stands for. Builders (program, flow network, overview) produce one; the
// canvas lays it out through LayoutService and turns it into graphics items.
#include <QColor>
#include <QString>
#include <algorithm>
#include <cstdint>
#include <vector>

#include "views/LayoutTypes.h"

namespace rx {

// What a graphics item stands for; the unit of the shared selection.
struct ModelKey {
    enum class Kind : uint8_t { None, Op, Value, Group, NetEdge };
    Kind kind = Kind::None;
    uint32_t id = 0;
    bool operator==(const ModelKey&) const = default;
    bool valid() const { return kind != Kind::None; }
};

enum class NodeShape : uint8_t { RoundedBox, Ellipse, Group, NetPair };

// Style bits combined on a node.
enum NodeFlag : uint32_t {
    kFlagBackward = 1u << 0,
    kFlagSaved = 1u << 1,        // value kept for backward (cut)
    kFlagRecomputed = 1u << 2,   // op that gets cloned into backward
    kFlagClone = 1u << 3,        // op that is a clone (rewritten program)
    kFlagSourceSide = 1u << 4,   // flow network: reachable from the source after the cut
    kFlagSourceBadge = 1u << 5,  // flow network: has an ∞ edge from the source
    kFlagSinkBadge = 1u << 6,    // flow network: has an edge to the sink
    kFlagBanned = 1u << 7,
    kFlagInput = 1u << 8,
    kFlagPinned = 1u << 9,
    kFlagDimmed = 1u << 10,
    kFlagStub = 1u << 11,        // layer view: a port's backward users, one small node
};

// A value drawn on its producing op's lower border (layer view): saved, recomputed, held.
struct VisualPort {
    ModelKey key;        // the value
    QColor color;
    QString label;       // value name
};

struct VisualNode {
    ModelKey key;
    NodeShape shape = NodeShape::RoundedBox;
    QString title;       // bold first line (op name, value name)
    QString subtitle;    // second line (shape, count)
    QString tooltip;
    QString badge;       // small text in a corner (e.g. "↻", "×40")
    uint32_t flags = 0;
    QColor fill;         // overlay colour; invalid = default by flags
    double width = 80, height = 28;
    int cluster = -1;
    std::vector<VisualPort> ports;  // drawn along the lower border, left to right
};

struct VisualEdge {
    int from = 0, to = 0;
    ModelKey key;
    QString label;       // drawn at the middle of the path
    QColor color;        // invalid = default
    double width = 1.2;
    bool dashed = false;
    bool infinite = false;  // flow network ∞ edge: drawn thin and dotted
    bool cut = false;       // cut edge: red and thick
    bool constraint = true;
    double weight = 1;      // dot straightness (a cut edge counts at least 2)
    int minLength = 1;      // dot minlen (a flat edge: room for its label)
};

struct VisualCluster {
    QString label;
    QColor fill;
};

struct LegendEntry {
    QColor fill;
    QColor border;
    QString text;
    bool ellipse = false;
    bool hatched = false;
    bool line = false;
};

struct VisualGraph {
    std::vector<VisualNode> nodes;
    std::vector<VisualEdge> edges;
    std::vector<VisualCluster> clusters;
    std::vector<LegendEntry> legend;
    QString title;
    LayoutEngine engine = LayoutEngine::Dot;
    bool leftToRight = false;
    std::vector<QPointF> presetCenter;  // LayoutEngine::Preset: where each node goes
    std::vector<std::vector<int>> sameRank;  // node indices dot keeps on one rank

    LayoutRequest toRequest() const {
        LayoutRequest r;
        r.nodes.reserve(nodes.size());
        for (const auto& n : nodes) r.nodes.push_back(LayoutNode{n.width, n.height, n.cluster, -1});
        r.edges.reserve(edges.size());
        for (const auto& e : edges) r.edges.push_back(LayoutEdge{e.from, e.to, e.constraint, e.cut ? std::max(2.0, e.weight) : e.weight, e.minLength});
        for (const auto& c : clusters) r.clusters.push_back(c.label);
        r.engine = engine;
        r.leftToRight = leftToRight;
        r.presetCenter = presetCenter;
        r.sameRank = sameRank;
        return r;
    }
};

// Width of a label in scene points for the default item font (no QFont off the UI thread).
inline double estimateTextWidth(const QString& s, double pointSize = 9) {
    return s.size() * pointSize * 0.62;
}

}  // namespace rx
