// The flow-network tab's pictures: the cut neighbourhood (dot) and the scoped layer view (preset layout).
#include "views/FlowGraph.h"

#include <QHash>
#include <QSet>
#include <algorithm>
#include <cmath>
#include <numeric>

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

// ---------------------------------------------------------------- scoped flow view

int64_t topLevelPosition(const Program& program, OpId op) {
    if (op >= program.ops().size()) return -1;
    while (op != kNoId && program.op(op).parentBlock != Program::kGlobalBlock) {
        const BlockId b = program.op(op).parentBlock;
        op = b == kNoId || b >= program.blocks().size() ? kNoId : program.block(b).parentOp;
    }
    return op == kNoId ? -1 : int64_t(program.indexInBlock(op));
}

int64_t valuePosition(const Program& program, ValueId v) {
    return v < program.values().size() ? topLevelPosition(program, program.value(v).definingOp) : -1;
}

namespace {

int64_t forwardPosition(const Program& program, ValueId v) { return valuePosition(program, v); }

bool hasNodes(const FlowNetwork& net, ValueId v) { return net.inNode(v) != kNoId || net.outNode(v) != kNoId; }

void sortForward(const Program& program, std::vector<ValueId>& values) {
    std::vector<std::pair<int64_t, ValueId>> keyed;
    keyed.reserve(values.size());
    for (ValueId v : values) keyed.emplace_back(forwardPosition(program, v), v);
    std::sort(keyed.begin(), keyed.end());
    keyed.erase(std::unique(keyed.begin(), keyed.end()), keyed.end());
    values.clear();
    for (const auto& [pos, v] : keyed) values.push_back(v);
}

}  // namespace

std::vector<ValueId> flowValuesOfGroup(const Program& program, const FlowNetwork& network,
                                       const LayerPartition& layers, int group) {
    std::vector<ValueId> out;
    if (group < 0) {
        for (size_t i = 2; i < network.nodes.size(); ++i)
            if (network.nodes[i].value != kNoId) out.push_back(network.nodes[i].value);
    } else if (size_t(group) < layers.groups.size()) {
        const LayerGroup& g = layers.groups[group];
        const auto& ops = program.globalBlock().ops;
        for (uint32_t pos = g.fwdBegin; pos < g.fwdEnd && pos < ops.size(); ++pos)
            for (ValueId v : program.op(ops[pos]).results)
                if (v != kNoId && hasNodes(network, v)) out.push_back(v);
    }
    sortForward(program, out);
    return out;
}

std::vector<ValueId> flowValuesAround(const Program& program, const FlowNetwork& network, OpId op, uint32_t radius) {
    std::vector<ValueId> out;
    if (op >= program.ops().size()) return out;
    ValueId anyResult = program.op(op).results.empty() ? kNoId : program.op(op).results.front();
    int64_t center = anyResult != kNoId ? forwardPosition(program, anyResult) : -1;
    if (center < 0 && program.op(op).parentBlock == Program::kGlobalBlock) center = program.indexInBlock(op);
    if (center < 0) return out;
    const auto& ops = program.globalBlock().ops;
    const int64_t lo = std::max<int64_t>(0, center - radius), hi = std::min<int64_t>(int64_t(ops.size()), center + radius + 1);
    for (int64_t pos = lo; pos < hi; ++pos)
        for (ValueId v : program.op(ops[pos]).results)
            if (v != kNoId && hasNodes(network, v)) out.push_back(v);
    sortForward(program, out);
    return out;
}

std::vector<ValueId> infinitePathValues(const FlowNetwork& network, const MinCutResult& cut) {
    std::vector<ValueId> out;
    for (uint32_t node : cut.infinitePath) {
        if (node >= network.nodes.size()) continue;
        const ValueId v = network.nodes[node].value;
        if (v != kNoId && (out.empty() || out.back() != v)) out.push_back(v);
    }
    return out;
}

std::vector<uint8_t> planSinkSide(const FlowNetwork& network, const SolveResult& result, const FlowPlanShown& shown) {
    if (!shown.budgetPlan) return result.cut.sinkSide;
    // The budget plan's boundary: what the backward recomputes lies wholly on the sink side,
    // a saved value is split by the cut (v_in source, v_out sink), the rest stays at the source.
    std::vector<uint8_t> side(network.nodes.size(), 0);
    if (side.size() > FlowNetwork::kSink) side[FlowNetwork::kSink] = 1;
    auto mark = [&](uint32_t node) {
        if (node != kNoId && node < side.size()) side[node] = 1;
    };
    for (ValueId v : result.plan.midHoldValues) {
        mark(network.inNode(v));
        mark(network.outNode(v));
    }
    for (size_t v = 0; v < result.plan.reasons.size(); ++v)
        if (result.plan.reasons[v].side == ValueSide::Recomputed) {
            mark(network.inNode(ValueId(v)));
            mark(network.outNode(ValueId(v)));
        }
    for (ValueId v : result.plan.savedValues) mark(network.outNode(v));
    return side;
}

VisualGraph buildScopedFlowGraph(const Program& program, const SolveResult& result,
                                 const std::vector<ValueId>& scopeIn, const ScopedFlowOptions& options) {
    const GraphPalette& pal = GraphPalette::current();
    VisualGraph g;
    if (!result.network) return g;
    const FlowNetwork& net = *result.network;
    std::vector<ValueId> scope;
    for (ValueId v : scopeIn)
        if (v < program.values().size() && hasNodes(net, v)) scope.push_back(v);
    sortForward(program, scope);
    const size_t n = scope.size();
    QHash<ValueId, int> indexOf;
    for (size_t i = 0; i < n; ++i) indexOf.insert(scope[i], int(i));
    auto valueOfNode = [&](uint32_t node) { return node < net.nodes.size() ? net.nodes[node].value : kNoId; };

    const std::vector<uint8_t> sinkSide = planSinkSide(net, result, options.plan);
    const bool haveSides = !sinkSide.empty();
    auto onSink = [&](uint32_t node) { return node < sinkSide.size() && sinkSide[node]; };
    auto crosses = [&](const FlowNetwork::Arc& arc) { return haveSides && !onSink(arc.from) && onSink(arc.to); };

    // ∞ path arcs (a failed cut), by arc index.
    std::set<uint32_t> pathArcs;
    if (!result.cut.infinitePath.empty()) {
        std::set<std::pair<uint32_t, uint32_t>> steps;
        for (size_t i = 0; i + 1 < result.cut.infinitePath.size(); ++i)
            steps.emplace(result.cut.infinitePath[i], result.cut.infinitePath[i + 1]);
        for (size_t i = 0; i < net.arcs.size(); ++i)
            if (net.arcs[i].infinite && steps.count({net.arcs[i].from, net.arcs[i].to})) pathArcs.insert(uint32_t(i));
    }
    const std::vector<ValueId> pathValues = infinitePathValues(net, result.cut);
    const std::set<ValueId> onPath(pathValues.begin(), pathValues.end());

    // Per value: its weight arc, badges and forward successors inside the scope.
    struct PairInfo {
        int weightArc = -1;
        bool source = false, sink = false, sourceOnPath = false, sinkOnPath = false;
        std::vector<int> next;  // scope indices reached by an arc from this value
    };
    std::vector<PairInfo> info(n);
    for (size_t i = 0; i < net.arcs.size(); ++i) {
        const auto& arc = net.arcs[i];
        const ValueId a = valueOfNode(arc.from), b = valueOfNode(arc.to);
        if (arc.from == FlowNetwork::kSource && indexOf.contains(b)) {
            info[indexOf[b]].source = true;
            info[indexOf[b]].sourceOnPath |= pathArcs.count(uint32_t(i)) > 0;
        } else if (arc.to == FlowNetwork::kSink && indexOf.contains(a)) {
            info[indexOf[a]].sink = true;
            info[indexOf[a]].sinkOnPath |= pathArcs.count(uint32_t(i)) > 0;
        } else if (a != kNoId && a == b && indexOf.contains(a) && (arc.reasons & FlowNetwork::Weight)) {
            info[indexOf[a]].weightArc = int(i);
        } else if (a != kNoId && b != kNoId && a != b && indexOf.contains(a) && indexOf.contains(b)) {
            const int ia = indexOf[a], ib = indexOf[b];
            if (ia < ib) info[ia].next.push_back(ib);
        }
    }

    // Ranks: longest path through the scope's arcs, in forward order (the scope is sorted).
    std::vector<int> rank(n, 0);
    for (size_t i = 0; i < n; ++i)
        for (int j : info[i].next) rank[j] = std::max(rank[j], rank[i] + 1);
    std::vector<size_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return rank[a] < rank[b]; });

    // Geometry of one pair: v_in dot, capacity gap, v_out box.
    double capW = 0, nameW = 0;
    for (size_t i = 0; i < n; ++i) {
        // Bold 8.5 pt titles run wider than estimateTextWidth's average glyph: never elide a name.
        nameW = std::max(nameW, 1.45 * estimateTextWidth(QString::fromStdString(program.value(scope[i]).name), 8.5));
        if (info[i].weightArc >= 0)
            capW = std::max(capW, estimateTextWidth(QString::fromStdString(net.capacityText(net.arcs[info[i].weightArc])), 7.2));
    }
    const double inW = 16, outH = 24;
    const double gap = std::clamp(capW + 14, 36.0, 90.0), outW = std::clamp(nameW + 16, 52.0, 150.0);
    const double colPitch = inW + gap + outW + 30, rowPitch = outH + 16, bandGap = 34;

    // Columns hold consecutive ranks (a rank taller than a column spills into the next);
    // columns wrap into bands. Rows per column and columns per band: the best fit scale.
    struct Placement { int col = 0, row = 0; };
    auto pack = [&](int rows, std::vector<Placement>* out) {
        int col = 0, used = 0;
        for (size_t k = 0; k < n;) {
            size_t end = k;
            while (end < n && rank[order[end]] == rank[order[k]]) ++end;
            const int size = int(end - k);
            if (used > 0 && used + size > rows) { ++col; used = 0; }
            for (size_t m = k; m < end; ++m) {
                if (used == rows) { ++col; used = 0; }
                if (out) (*out)[order[m]] = Placement{col, used};
                ++used;
            }
            k = end;
        }
        return n == 0 ? 0 : col + 1;
    };
    int bestRows = 1, bestCols = 1;
    double bestScale = -1;
    for (int rows = 1; rows <= std::max<int>(1, std::min<int>(int(n), 80)); ++rows) {
        const int columns = pack(rows, nullptr);
        const double bandH = rows * rowPitch + bandGap;
        for (int per = 1; per <= std::max(1, columns); ++per) {
            const int bands = (columns + per - 1) / per;
            const double w = per * colPitch, h = bands * bandH - bandGap;
            const double scale = std::min(options.aspect / w, 1.0 / h);
            if (scale > bestScale * 1.0001) { bestScale = scale; bestRows = rows; bestCols = per; }
        }
    }
    std::vector<Placement> place(n);
    pack(bestRows, &place);
    const double bandH = bestRows * rowPitch + bandGap;
    auto pairOrigin = [&](size_t i) {
        const int band = place[i].col / bestCols, col = place[i].col % bestCols;
        return QPointF(col * colPitch, band * bandH + place[i].row * rowPitch);
    };

    // Nodes: v_in (dot) and v_out (named box) per value.
    std::vector<int> inIdx(n, -1), outIdx(n, -1);
    QHash<uint32_t, int> nodeOfNetNode;
    for (size_t i = 0; i < n; ++i) {
        const ValueId v = scope[i];
        const QString name = QString::fromStdString(program.value(v).name);
        const uint32_t in = net.inNode(v), out = net.outNode(v);
        const ValueReason* why = v < result.plan.reasons.size() ? &result.plan.reasons[v] : nullptr;
        const ValueSide decision = why ? why->side : ValueSide::Neither;
        const QString cap = info[i].weightArc >= 0 ? QString::fromStdString(net.capacityText(net.arcs[info[i].weightArc])) : QString();
        const QPointF o = pairOrigin(i);
        const bool seedFault = !result.seedError.empty() && QString::fromStdString(result.seedError.value) == name;
        auto sideFill = [&](uint32_t node) { return !haveSides ? pal.valueFill : onSink(node) ? pal.sinkSide : pal.sourceSide; };
        QString tip = QStringLiteral("<b>%1</b> %2<br>v_in \u2192 v_out capacity %3<br>plan: %4")
                          .arg(name, typeSummary(program, v), cap.isEmpty() ? QStringLiteral("—") : cap,
                               QString::fromUtf8(valueSideName(decision).data(), int(valueSideName(decision).size())));
        if (info[i].source) tip += QObject::tr("<br>S: \u221E arc from the source");
        if (info[i].sink) tip += QObject::tr("<br>T: arc to the sink");
        if (seedFault) tip += QObject::tr("<br><b>the seed raises here:</b> %1").arg(QString::fromStdString(result.seedError.message).toHtmlEscaped());
        if (in != kNoId && out != kNoId) {
            VisualNode d;
            d.key = info[i].weightArc >= 0 ? ModelKey{ModelKey::Kind::NetEdge, uint32_t(info[i].weightArc)} : ModelKey{};
            d.shape = NodeShape::Ellipse;
            d.width = d.height = inW;
            d.fill = sideFill(in);
            if (info[i].source) d.flags |= kFlagSourceBadge;
            if (onPath.count(v)) d.fill = QColor("#fcd34d");
            d.tooltip = name + "_in<br>" + tip;
            inIdx[i] = int(g.nodes.size());
            nodeOfNetNode.insert(in, inIdx[i]);
            g.nodes.push_back(d);
            g.presetCenter.push_back(o + QPointF(inW / 2, outH / 2));
        }
        VisualNode b;
        b.key = ModelKey{ModelKey::Kind::Value, v};
        b.shape = NodeShape::NetPair;
        b.title = name;
        b.width = outW;
        b.height = outH;
        const uint32_t boxNode = out != kNoId ? out : in;
        if (haveSides && !onSink(boxNode)) b.flags |= kFlagSourceSide;
        b.fill = sideFill(boxNode);
        if (decision == ValueSide::Saved) { b.flags |= kFlagSaved; b.fill = pal.savedFill; }
        if (decision == ValueSide::Recomputed) b.flags |= kFlagRecomputed;
        if (info[i].sink) b.flags |= kFlagSinkBadge;
        if (out == kNoId && info[i].source) b.flags |= kFlagSourceBadge;
        if (why && why->banned) b.flags |= kFlagBanned;
        if (why && why->pin != ValueFacts::Pin::None) b.flags |= kFlagPinned;
        if (onPath.count(v)) b.fill = QColor("#fcd34d");
        if (seedFault) b.badge = QStringLiteral("!");
        b.tooltip = tip;
        outIdx[i] = int(g.nodes.size());
        if (out != kNoId) nodeOfNetNode.insert(out, outIdx[i]);
        else nodeOfNetNode.insert(in, outIdx[i]);
        g.nodes.push_back(b);
        g.presetCenter.push_back(o + QPointF(in != kNoId && out != kNoId ? inW + gap + outW / 2 : outW / 2, outH / 2));
    }

    // Arcs between drawn nodes; source and sink arcs are the badges.
    QSet<quint64> seen;
    size_t cutShown = 0;
    for (size_t i = 0; i < net.arcs.size(); ++i) {
        const auto& arc = net.arcs[i];
        if (arc.from == FlowNetwork::kSource || arc.to == FlowNetwork::kSink) continue;
        const int a = nodeOfNetNode.value(arc.from, -1), b = nodeOfNetNode.value(arc.to, -1);
        if (a < 0 || b < 0 || a == b) continue;
        const quint64 k = (quint64(uint32_t(a)) << 32) | uint32_t(b);
        if (seen.contains(k)) continue;
        seen.insert(k);
        VisualEdge e;
        e.from = a;
        e.to = b;
        e.key = ModelKey{ModelKey::Kind::NetEdge, uint32_t(i)};
        e.infinite = arc.infinite;
        e.cut = crosses(arc);
        const bool weight = valueOfNode(arc.from) == valueOfNode(arc.to);
        if (!arc.infinite && (weight || e.cut)) e.label = QString::fromStdString(net.capacityText(arc));
        if (arc.infinite && e.cut) e.label = QStringLiteral("\u221E");
        if (pathArcs.count(uint32_t(i))) {
            e.infinite = false;  // drawn thick and dashed in amber: the reason the cut fails
            e.dashed = true;
            e.width = 3;
            e.color = QColor("#d97706");
            e.label = QStringLiteral("\u221E");
        }
        if (e.cut) ++cutShown;
        g.edges.push_back(e);
    }

    g.engine = LayoutEngine::Preset;
    const QString planText = options.plan.budgetPlan
                                 ? QObject::tr("plan shown: %1").arg(options.plan.planLabel)
                                 : result.ok() ? QObject::tr("plan shown: the seed's min cut (cut %1)").arg(QString::fromStdString(result.plan.cutValueText()))
                                               : QObject::tr("the cut fails: \u221E path from source to sink");
    g.title = QObject::tr("Flow network · %1 · %2 values · %3 cut arcs").arg(options.scopeName).arg(n).arg(cutShown);
    g.legend.push_back(LegendEntry{pal.background, pal.cut, planText});
    if (!result.cut.infinitePath.empty()) {
        QStringList names;
        const auto& path = result.cut.infinitePath;
        for (size_t k = 0; k < path.size(); ++k) {
            if (path.size() > 9 && k == 4) {  // a long path: its ends, and how long it is
                names << QObject::tr("… %1 more …").arg(path.size() - 8);
                k = path.size() - 5;
                continue;
            }
            names << QString::fromStdString(net.nodeName(path[k], program));
        }
        g.legend.push_back(LegendEntry{QColor("#d97706"), QColor("#d97706"), QObject::tr("\u221E path: %1").arg(names.join(QStringLiteral(" \u2192 "))), false, false, true});
    }
    if (!result.seedError.empty())
        g.legend.push_back(LegendEntry{pal.background, pal.cut, QObject::tr("! the seed raises at %1 (%2): the plan is the project's extension")
                                                                     .arg(QString::fromStdString(result.seedError.value), QString::fromStdString(result.seedError.rule))});
    g.legend.push_back(LegendEntry{pal.savedFill, pal.cut, QObject::tr("saved by the plan (v_in\u2192v_out arc cut)")});
    g.legend.push_back(LegendEntry{pal.sinkSide, pal.recomputed, QObject::tr("recomputed by the plan (hatched)"), false, true});
    g.legend.push_back(LegendEntry{pal.sourceSide, pal.valueBorder, QObject::tr("source side")});
    g.legend.push_back(LegendEntry{pal.sinkSide, pal.valueBorder, QObject::tr("sink side")});
    g.legend.push_back(LegendEntry{pal.cut, pal.cut, QObject::tr("cut arc, with its capacity"), false, false, true});
    g.legend.push_back(LegendEntry{pal.infEdge, pal.infEdge, QObject::tr("\u221E arc (dotted)"), false, false, true});
    g.legend.push_back(LegendEntry{QColor("#16a34a"), QColor("#16a34a"), QObject::tr("S: \u221E arc from source"), true});
    g.legend.push_back(LegendEntry{QColor("#475569"), QColor("#475569"), QObject::tr("T: arc to sink"), true});
    return g;
}

}  // namespace rx
