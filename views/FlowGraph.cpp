#include "views/FlowGraph.h"

#include <QHash>
#include <QSet>
#include <algorithm>

#include "views/GraphItems.h"
#include "views/LayoutService.h"
#include "views/ProgramGraph.h"

namespace rx {

VisualGraph buildFlowGraph(const Program& program, const SolveResult& result, const FlowViewState& state,
                           size_t* totalPairs) {
    const GraphPalette& pal = GraphPalette::current();
    VisualGraph g;
    if (!result.network) return g;
    const FlowNetwork& net = *result.network;
    const auto& sinkSide = result.cut.sinkSide;
    auto onSource = [&](uint32_t node) { return node < sinkSide.size() ? sinkSide[node] == 0 : true; };
    std::vector<uint8_t> isCut(net.arcs.size(), 0);
    for (uint32_t a : result.cut.cutArcs)
        if (a < isCut.size()) isCut[a] = 1;

    // Values that have nodes, in id order.
    std::vector<ValueId> pairs;
    for (size_t i = 2; i < net.nodes.size(); ++i)
        if (net.nodes[i].kind == FlowNetwork::NodeKind::In) pairs.push_back(net.nodes[i].value);
    for (size_t i = 2; i < net.nodes.size(); ++i)  // out nodes whose value has no in node
        if (net.nodes[i].kind == FlowNetwork::NodeKind::Out && net.inNode(net.nodes[i].value) == kNoId)
            pairs.push_back(net.nodes[i].value);
    std::sort(pairs.begin(), pairs.end());
    pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
    if (totalPairs) *totalPairs = pairs.size();

    // Adjacency between values (through non-weight arcs) for the neighbourhood view.
    auto valueOfNode = [&](uint32_t node) { return node < net.nodes.size() ? net.nodes[node].value : kNoId; };
    std::set<ValueId> shown;
    const bool whole = state.whole || pairs.size() <= FlowViewState::kMaxPairs;
    if (whole) {
        shown.insert(pairs.begin(), pairs.end());
    } else {
        std::set<ValueId> seeds(state.focus.begin(), state.focus.end());
        for (ValueId v : result.plan.savedValues) seeds.insert(v);
        for (uint32_t a : result.cut.cutArcs) {
            seeds.insert(valueOfNode(net.arcs[a].from));
            seeds.insert(valueOfNode(net.arcs[a].to));
        }
        seeds.erase(kNoId);
        shown = seeds;
        for (const auto& arc : net.arcs) {  // one hop around the seeds
            if (shown.size() >= FlowViewState::kMaxPairs) break;
            const ValueId a = valueOfNode(arc.from), b = valueOfNode(arc.to);
            if (a == kNoId || b == kNoId) continue;
            if (seeds.count(a)) shown.insert(b);
            else if (seeds.count(b)) shown.insert(a);
        }
    }

    // Nodes.
    QHash<ValueId, int> pairNode, inNodeIdx, outNodeIdx;
    struct Marks { bool src = false, sink = false; QString cap; bool cut = false; };
    QHash<ValueId, Marks> marks;
    for (size_t i = 0; i < net.arcs.size(); ++i) {
        const auto& arc = net.arcs[i];
        if (arc.from == FlowNetwork::kSource) marks[valueOfNode(arc.to)].src = true;
        if (arc.to == FlowNetwork::kSink) marks[valueOfNode(arc.from)].sink = true;
        if ((arc.reasons & FlowNetwork::Weight) && valueOfNode(arc.from) == valueOfNode(arc.to)) {
            Marks& m = marks[valueOfNode(arc.from)];
            m.cap = QString::fromStdString(net.capacityText(arc));
            m.cut = isCut[i];
        }
    }
    auto addNode = [&](ValueId v, int part) {  // part: 0 pair, 1 in, 2 out
        VisualNode n;
        n.key = ModelKey{ModelKey::Kind::Value, v};
        n.shape = NodeShape::NetPair;
        const QString name = QString::fromStdString(program.value(v).name);
        const Marks m = marks.value(v);
        const uint32_t in = net.inNode(v), out = net.outNode(v);
        n.title = part == 0 ? name : part == 1 ? name + "_in" : name + "_out";
        if (part == 0 && !m.cap.isEmpty()) n.subtitle = (m.cap == "inf" ? QStringLiteral("\u221E") : m.cap);
        const bool srcSide = onSource(part == 2 ? out : in != kNoId ? in : out);
        if (srcSide) n.flags |= kFlagSourceSide;
        if (m.cut && part == 0) n.flags |= kFlagSaved;
        if (m.src && part != 2) n.flags |= kFlagSourceBadge;
        if (m.sink && part != 1) n.flags |= kFlagSinkBadge;
        if (v < result.plan.reasons.size()) {
            const ValueReason& r = result.plan.reasons[v];
            if (r.banned) n.flags |= kFlagBanned;
            if (r.pin != ValueFacts::Pin::None) n.flags |= kFlagPinned;
        }
        n.tooltip = QStringLiteral("<b>%1</b> %2<br>capacity %3<br>%4 side%5%6")
                        .arg(name, typeSummary(program, v), m.cap.isEmpty() ? "—" : m.cap,
                             srcSide ? "source" : "sink", m.src ? "<br>∞ from source" : "", m.sink ? "<br>edge to sink" : "");
        if (m.cut) n.tooltip += "<br><b style='color:#dc2626'>cut: saved</b>";
        n.width = std::clamp(std::max(estimateTextWidth(n.title, 9.5), estimateTextWidth(n.subtitle, 8)) + 30, 64.0, 170.0);
        n.height = part == 0 ? 36 : 26;
        g.nodes.push_back(n);
        return int(g.nodes.size() - 1);
    };
    for (ValueId v : shown) {
        if (state.expanded.count(v)) {
            if (net.inNode(v) != kNoId) inNodeIdx[v] = addNode(v, 1);
            if (net.outNode(v) != kNoId) outNodeIdx[v] = addNode(v, 2);
        } else {
            pairNode[v] = addNode(v, 0);
        }
    }
    auto nodeFor = [&](uint32_t netNode) -> int {
        const ValueId v = valueOfNode(netNode);
        if (v == kNoId || !shown.count(v)) return -1;
        if (pairNode.contains(v)) return pairNode[v];
        const auto kind = net.nodes[netNode].kind;
        return kind == FlowNetwork::NodeKind::In ? inNodeIdx.value(v, -1) : outNodeIdx.value(v, -1);
    };

    QSet<quint64> seen;
    int64_t cutTotal = std::max<int64_t>(1, result.cut.valueUnits);
    for (size_t i = 0; i < net.arcs.size(); ++i) {
        const auto& arc = net.arcs[i];
        if (arc.from == FlowNetwork::kSource || arc.to == FlowNetwork::kSink) continue;  // badges
        const int a = nodeFor(arc.from), b = nodeFor(arc.to);
        if (a < 0 || b < 0 || a == b) continue;
        const quint64 k = (quint64(uint32_t(a)) << 32) | uint32_t(b);
        if (seen.contains(k)) continue;
        seen.insert(k);
        VisualEdge e;
        e.from = a;
        e.to = b;
        e.key = ModelKey{ModelKey::Kind::NetEdge, uint32_t(i)};
        e.infinite = arc.infinite;
        e.cut = isCut[i];
        if (!arc.infinite) {
            e.label = QString::fromStdString(net.capacityText(arc));
            if (e.cut) e.label += QStringLiteral(" (%1%)").arg(100.0 * double(arc.capacity) / double(cutTotal), 0, 'f', 0);
        }
        g.edges.push_back(e);
    }
    g.engine = LayoutService::chooseEngine(g.nodes.size(), g.edges.size());
    if (g.engine == LayoutEngine::Dot && g.nodes.size() > 250) g.engine = LayoutEngine::DotLines;
    g.title = whole ? QObject::tr("Flow network · %1 values · cut %2").arg(pairs.size()).arg(QString::fromStdString(result.plan.cutValueText()))
                    : QObject::tr("Flow network · cut neighbourhood: %1 of %2 values").arg(shown.size()).arg(pairs.size());
    g.legend.push_back(LegendEntry{pal.sourceSide, pal.valueBorder, QObject::tr("source side (v_in→v_out)")});
    g.legend.push_back(LegendEntry{pal.sinkSide, pal.valueBorder, QObject::tr("sink side")});
    g.legend.push_back(LegendEntry{pal.sourceSide, pal.cut, QObject::tr("cut value: saved")});
    g.legend.push_back(LegendEntry{pal.cut, pal.cut, QObject::tr("cut arc"), false, false, true});
    g.legend.push_back(LegendEntry{pal.infEdge, pal.infEdge, QObject::tr("\u221E arc (dotted)"), false, false, true});
    g.legend.push_back(LegendEntry{QColor("#16a34a"), QColor("#16a34a"), QObject::tr("S: \u221E arc from source"), true});
    g.legend.push_back(LegendEntry{QColor("#475569"), QColor("#475569"), QObject::tr("T: arc to sink"), true});
    return g;
}

}  // namespace rx
