// The flow network tab restricted to a layer or the selection (issue 12 item 3): exactly the
// layer's value pairs, source and sink only as badges, red arcs = the cut restricted to the
// layer with its capacities, readable at Fit for 300 values, the ∞ path of a failed cut, the
// seed's raise marked, and an applied budget plan's decisions drawn instead of the seed's.
#include <QComboBox>
#include <QFile>
#include <QFontMetricsF>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>
#include <set>

#include "algorithms/Layers.h"
#include "algorithms/planner/BudgetPlanner.h"
#include "algorithms/planner/PlanResult.h"
#include "algorithms/zoo/ModelZoo.h"
#include "model/PirWriter.h"
#include "support/ProgramBuilder.h"
#include "support/GeneratedFiles.h"
#include "views/Document.h"
#include "views/FlowGraph.h"
#include "views/GraphViews.h"
#include "views/LayoutService.h"

using namespace rx;
using namespace rx::test;

namespace {

zoo::GeneratedProgram transformer(int layers) {
    zoo::ZooOptions o;
    o.model = "transformer";
    o.layers = layers;
    return zoo::generateModel(o);
}

QString writeGenerated(const QString& dir, const zoo::GeneratedProgram& g, const QString& stem) {
    return testing::writeGeneratedFiles(dir, g, stem);
}

// The layer's values computed here independently: network values whose defining op is one
// of the group's forward ops.
std::set<ValueId> layerValues(const Program& p, const FlowNetwork& net, const LayerGroup& g) {
    std::set<ValueId> out;
    const auto& ops = p.globalBlock().ops;
    for (uint32_t pos = g.fwdBegin; pos < g.fwdEnd; ++pos)
        for (ValueId v : p.op(ops[pos]).results)
            if (v != kNoId && (net.inNode(v) != kNoId || net.outNode(v) != kNoId)) out.insert(v);
    return out;
}

// The fit scale GraphCanvas::fit() gives a laid-out graph in a viewport (20 px margins, ≤ 1.6).
double fitScale(const LayoutResult& r, QSizeF viewport) {
    const QRectF b = r.bounds.adjusted(-20, -20, 20, 20);
    return std::min({viewport.width() / b.width(), viewport.height() / b.height(), 1.6});
}

// Readable: NodeItem draws titles at level of detail ≥ 0.45 and both lines at ≥ 0.7, edge
// labels above 0.55; the 8.5 pt title must come out at least 8 px tall on screen.
constexpr double kMinLabelPx = 8.0;
double titlePixelHeight(double scale) {
    QFont f;
    f.setPointSizeF(8.5);
    f.setBold(true);
    return QFontMetricsF(f).height() * scale;
}

}  // namespace

class FlowViewTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void layerViewHoldsExactlyTheLayersPairsAndItsCut() {
        const auto g = transformer(4);
        RecomputeSolver solver(g.program, g.spec);
        const SolveResult r = solver.solve(RecomputeConfig::seedDefaults());
        QVERIFY2(r.ok(), r.error.c_str());
        const Program& p = *g.program;
        const FlowNetwork& net = *r.network;
        const LayerPartition layers = detectLayers(p, g.spec.fwdOpEndIdx, g.spec.backwardOpStartIdx);
        int group = -1;
        for (size_t i = 0; i < layers.groups.size(); ++i)
            if (layers.groups[i].kind == LayerGroup::Kind::Layer) { group = int(i); break; }
        QVERIFY(group >= 0);
        const std::set<ValueId> expected = layerValues(p, net, layers.groups[group]);
        QVERIFY(expected.size() > 20);

        const std::vector<ValueId> scope = flowValuesOfGroup(p, net, layers, group);
        QCOMPARE(std::set<ValueId>(scope.begin(), scope.end()), expected);
        ScopedFlowOptions opt;
        opt.scopeName = "layer";
        const VisualGraph vg = buildScopedFlowGraph(p, r, scope, opt);
        QCOMPARE(vg.engine, LayoutEngine::Preset);
        QCOMPARE(vg.presetCenter.size(), vg.nodes.size());

        // One named box per value, one v_in dot per value that has both nodes; nothing else
        // (no source or sink hub).
        std::set<ValueId> boxes;
        size_t dots = 0, pairsExpected = 0;
        for (ValueId v : expected) pairsExpected += net.inNode(v) != kNoId && net.outNode(v) != kNoId;
        std::vector<int> sourceArcCount(net.nodes.size(), 0), sinkArcCount(net.nodes.size(), 0);
        for (const auto& a : net.arcs) {
            if (a.from == FlowNetwork::kSource) ++sourceArcCount[a.to];
            if (a.to == FlowNetwork::kSink) ++sinkArcCount[a.from];
        }
        for (const VisualNode& n : vg.nodes) {
            QVERIFY(n.title != "source" && n.title != "sink");
            if (n.key.kind == ModelKey::Kind::Value) {
                QVERIFY(boxes.insert(n.key.id).second);
                const uint32_t out = net.outNode(n.key.id);
                if (out != kNoId) QCOMPARE(bool(n.flags & kFlagSinkBadge), sinkArcCount[out] > 0);
            } else {
                QCOMPARE(n.key.kind, ModelKey::Kind::NetEdge);  // a v_in dot stands for its weight arc
                const auto& arc = net.arcs[n.key.id];
                QCOMPARE(net.nodes[arc.from].value, net.nodes[arc.to].value);
                QCOMPARE(bool(n.flags & kFlagSourceBadge), sourceArcCount[arc.from] > 0);
                ++dots;
            }
        }
        QCOMPARE(boxes, expected);
        QCOMPARE(dots, pairsExpected);

        // Red arcs: the result's cut arcs between the layer's nodes, labelled with their capacity.
        std::map<uint32_t, QString> expectedCut;
        for (uint32_t a : r.cut.cutArcs) {
            const auto& arc = net.arcs[a];
            if (arc.from < 2 || arc.to < 2) continue;
            if (expected.count(net.nodes[arc.from].value) && expected.count(net.nodes[arc.to].value))
                expectedCut[a] = QString::fromStdString(net.capacityText(arc));
        }
        QVERIFY(!expectedCut.empty());
        std::map<uint32_t, QString> drawnCut;
        for (const VisualEdge& e : vg.edges) {
            QCOMPARE(e.key.kind, ModelKey::Kind::NetEdge);
            const auto& arc = net.arcs[e.key.id];
            QVERIFY(arc.from != FlowNetwork::kSource && arc.to != FlowNetwork::kSink);
            QCOMPARE(e.infinite, arc.infinite);  // ∞ arcs dotted
            if (e.cut) drawnCut[e.key.id] = e.label;
        }
        QCOMPARE(drawnCut, expectedCut);
        // The plan's saved values are the red-bordered boxes.
        for (const VisualNode& n : vg.nodes)
            if (n.key.kind == ModelKey::Kind::Value)
                QCOMPARE(bool(n.flags & kFlagSaved), r.plan.reasons[n.key.id].side == ValueSide::Saved);
        // Forward order, left to right within a band: a box never sits left of its producer's
        // box in the same band... checked as: the first value is drawn at the top left.
        QVERIFY(vg.presetCenter.front().x() < 40 && vg.presetCenter.front().y() < 40);
    }

    void threeHundredValuesAreReadableAtFit() {
        const auto g = transformer(12);
        RecomputeSolver solver(g.program, g.spec);
        const SolveResult r = solver.solve(RecomputeConfig::seedDefaults());
        QVERIFY2(r.ok(), r.error.c_str());
        LayerPartition none;
        std::vector<ValueId> all = flowValuesOfGroup(*g.program, *r.network, none, -1);
        QVERIFY(all.size() > 300);
        all.resize(300);
        ScopedFlowOptions opt;
        opt.aspect = 1400.0 / 800.0;
        const VisualGraph vg = buildScopedFlowGraph(*g.program, r, all, opt);
        const LayoutResult laid = LayoutService::layoutPreset(vg.toRequest());
        QVERIFY2(laid.ok, qPrintable(laid.error));
        const double s = fitScale(laid, QSizeF(1400, 800));
        qInfo("300 values: %.0f x %.0f scene, fit scale %.2f, title %.1f px", laid.bounds.width(), laid.bounds.height(), s,
              titlePixelHeight(s));
        QVERIFY2(s >= 0.7, "titles, subtitles and capacities are drawn only from a level of detail of 0.7");
        QVERIFY(titlePixelHeight(s) >= kMinLabelPx);
        // No two nodes overlap (a fit that stacks labels on each other is not readable).
        for (size_t i = 0; i < vg.nodes.size(); ++i)
            for (size_t j = i + 1; j < vg.nodes.size(); ++j) {
                const QRectF a(laid.nodeCenter[i] - QPointF(vg.nodes[i].width / 2, vg.nodes[i].height / 2),
                               QSizeF(vg.nodes[i].width, vg.nodes[i].height));
                const QRectF b(laid.nodeCenter[j] - QPointF(vg.nodes[j].width / 2, vg.nodes[j].height / 2),
                               QSizeF(vg.nodes[j].width, vg.nodes[j].height));
                QVERIFY(!a.intersects(b));
            }
    }

    void tabShowsALayerFollowsTheSelectionAndFits() {
        QTemporaryDir dir;
        const auto g = transformer(4);
        const QString path = writeGenerated(dir.path(), g, "t4");
        Document doc;
        FlowView view(&doc);
        view.resize(1400, 800 + 40);
        view.show();
        QString error;
        QVERIFY2(doc.open(path, &error), qPrintable(error));
        QVERIFY(doc.waitForSolve(60000));
        QTRY_VERIFY(doc.result() && doc.result()->ok());
        QTRY_VERIFY_WITH_TIMEOUT(!view.canvas()->isLayingOut() && !view.canvas()->graph().nodes.empty(), 10000);
        QCOMPARE(view.scopeKind(), FlowView::ScopeKind::Layer);
        const int first = view.currentLayer();
        QVERIFY(first >= 0);
        QVERIFY(view.scopeCombo()->currentText().startsWith("Layer: "));
        QVERIFY(view.canvas()->transform().m11() >= 0.7);  // at Fit, labels drawn
        QVERIFY(titlePixelHeight(view.canvas()->transform().m11()) >= kMinLabelPx);

        // Selecting an op of another layer (as the program tab does) shows that layer.
        const LayerPartition& layers = view.layers();
        int other = -1;
        for (size_t i = 0; i < layers.groups.size(); ++i)
            if (int(i) != first && layers.groups[i].kind == LayerGroup::Kind::Layer) other = int(i);
        QVERIFY(other >= 0);
        const OpId op = doc.program().globalBlock().ops[layers.groups[other].fwdBegin + 1];
        doc.select(ModelKey{ModelKey::Kind::Op, op}, nullptr);
        QCOMPARE(view.currentLayer(), other);
        QTRY_VERIFY_WITH_TIMEOUT(!view.canvas()->isLayingOut(), 10000);
        const std::set<ValueId> expected = layerValues(doc.program(), *doc.result()->network, layers.groups[other]);
        std::set<ValueId> drawn;
        for (const VisualNode& n : view.canvas()->graph().nodes)
            if (n.key.kind == ModelKey::Kind::Value) drawn.insert(n.key.id);
        QCOMPARE(drawn, expected);
        QVERIFY(view.canvas()->graph().title.contains(QString::fromStdString(layers.groups[other].name)));
    }

    void aroundTheSelectionFollowsIt() {
        QTemporaryDir dir;
        const auto g = transformer(4);
        const QString path = writeGenerated(dir.path(), g, "t4");
        Document doc;
        FlowView view(&doc);
        view.resize(1400, 840);
        view.show();
        QString error;
        QVERIFY2(doc.open(path, &error), qPrintable(error));
        QVERIFY(doc.waitForSolve(60000));
        QTRY_VERIFY(doc.result() && doc.result()->ok());
        const FlowNetwork& net = *doc.result()->network;
        std::vector<ValueId> inNet;
        for (ValueId v = 0; v < doc.program().values().size(); ++v)
            if (net.inNode(v) != kNoId && net.outNode(v) != kNoId) inNet.push_back(v);
        QVERIFY(inNet.size() > 100);
        for (ValueId v : {inNet[inNet.size() / 3], inNet[inNet.size() / 2]}) {
            doc.select(ModelKey{ModelKey::Kind::Value, v}, nullptr);
            if (view.scopeKind() != FlowView::ScopeKind::Around) {
                const int at = view.scopeCombo()->findData(-2);
                QVERIFY(at >= 0);
                view.scopeCombo()->setCurrentIndex(at);
                Q_EMIT view.scopeCombo()->activated(at);  // as a user picks it
            }
            QCOMPARE(view.scopeKind(), FlowView::ScopeKind::Around);
            QTRY_VERIFY_WITH_TIMEOUT(!view.canvas()->isLayingOut() && view.canvas()->nodeItem(ModelKey{ModelKey::Kind::Value, v}), 10000);
            QVERIFY(view.canvas()->graph().title.contains("around " + doc.valueName(v)));
            const std::vector<ValueId>& scope = view.scopeValues();
            QVERIFY(scope.size() > 3 && scope.size() < 200);
            // In forward order, within the window around the value's op.
            const int64_t at = valuePosition(doc.program(), v);
            for (size_t i = 0; i < scope.size(); ++i) {
                QVERIFY(std::abs(valuePosition(doc.program(), scope[i]) - at) <= 30);
                if (i) QVERIFY(valuePosition(doc.program(), scope[i - 1]) <= valuePosition(doc.program(), scope[i]));
            }
        }
    }

    void expandLayerOptionPrintsItsTimes() {
        QTemporaryDir dir;
        const QString path = writeGenerated(dir.path(), transformer(4), "t4");
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("QT_QPA_PLATFORM", "offscreen");
        p.setProcessEnvironment(env);
        p.start(RX_EXPLORER_BIN, {path, "--expand-layer", "1", "--screenshot", dir.path() + "/s.png"});
        QVERIFY(p.waitForFinished(120000));
        const QString out = QString::fromUtf8(p.readAllStandardOutput());
        QCOMPARE(p.exitCode(), 0);
        QVERIFY2(out.contains(QRegularExpression("overview picture \\d+ ms after start")), qPrintable(out));
        QVERIFY2(out.contains(QRegularExpression("layer 1 expanded in \\d+ ms \\(\\d+ nodes\\)")), qPrintable(out));
        QProcess bad;
        bad.setProcessEnvironment(env);
        bad.start(RX_EXPLORER_BIN, {path, "--expand-layer", "x", "--screenshot", dir.path() + "/s.png"});
        QVERIFY(bad.waitForFinished(60000));
        QVERIFY(bad.exitCode() != 0);
        QVERIFY(QString::fromUtf8(bad.readAllStandardError()).contains("--expand-layer"));
    }

    void failedCutDrawsTheInfinitePath() {
        ProgramBuilder b;
        const TypeId t = b.f32({32, 32});
        const ValueId x = b.op("pd_op.data", {}, t);
        const ValueId a = b.op("pd_op.exp", {x}, t);
        const ValueId c = b.op("pd_op.exp", {a}, t);
        const ValueId out = b.op("pd_op.exp", {c}, t);
        const int fwdEnd = b.index();
        b.op("pd_op.multiply", {c, a}, t);
        b.op("pd_op.multiply", {x, x}, t);
        RecomputeSolver solver(b.program, makeSpec(fwdEnd, fwdEnd + 1, {x}, {out}));
        RecomputeConfig cfg = RecomputeConfig::seedDefaults();
        cfg.pinnedRecomputed = {b.name(x)};  // an input cannot be recomputed: ∞ path
        const SolveResult r = solver.solve(cfg);
        QVERIFY(!r.ok());
        QVERIFY(r.cut.infinitePath.size() >= 3);
        const std::vector<ValueId> path = infinitePathValues(*r.network, r.cut);
        QVERIFY(std::find(path.begin(), path.end(), x) != path.end());
        ScopedFlowOptions opt;
        opt.scopeName = "∞ path";
        const VisualGraph vg = buildScopedFlowGraph(b.p, r, path, opt);
        // Every step of the path between drawn nodes is an amber dashed arc labelled ∞.
        std::set<std::pair<uint32_t, uint32_t>> steps;
        for (size_t i = 0; i + 1 < r.cut.infinitePath.size(); ++i)
            if (r.cut.infinitePath[i] >= 2 && r.cut.infinitePath[i + 1] >= 2)
                steps.emplace(r.cut.infinitePath[i], r.cut.infinitePath[i + 1]);
        QVERIFY(!steps.empty());
        size_t highlighted = 0;
        for (const VisualEdge& e : vg.edges) {
            const auto& arc = r.network->arcs[e.key.id];
            const bool onPath = steps.count({arc.from, arc.to}) > 0;
            QCOMPARE(e.dashed && e.color == QColor("#d97706"), onPath);
            if (onPath) {
                QCOMPARE(e.label, QStringLiteral("\u221E"));
                ++highlighted;
            }
        }
        QCOMPARE(highlighted, steps.size());
        bool legend = false;
        for (const auto& l : vg.legend) legend = legend || l.text.contains("\u221E path: source");
        QVERIFY(legend);
        QVERIFY(!vg.legend.empty() && vg.legend.front().text.contains("cut fails"));
    }

    void failedSolveInTheTabShowsThePath() {
        // The program of failedCutDrawsTheInfinitePath, opened in the explorer; the pin is the edit.
        ProgramBuilder b;
        const TypeId t = b.f32({32, 32});
        const ValueId x = b.op("pd_op.data", {}, t);
        const ValueId a = b.op("pd_op.exp", {x}, t);
        const ValueId c = b.op("pd_op.exp", {a}, t);
        const ValueId out = b.op("pd_op.exp", {c}, t);
        const int fwdEnd = b.index();
        b.op("pd_op.multiply", {c, a}, t);
        b.op("pd_op.multiply", {x, x}, t);
        zoo::GeneratedProgram gp;
        gp.program = b.program;
        gp.spec = makeSpec(fwdEnd, fwdEnd + 1, {x}, {out});
        QTemporaryDir dir;
        const QString path = writeGenerated(dir.path(), gp, "pins");
        Document doc;
        FlowView view(&doc);
        view.resize(1200, 700);
        view.show();
        QString error;
        QVERIFY2(doc.open(path, &error), qPrintable(error));
        QVERIFY(doc.waitForSolve(60000));
        QTRY_VERIFY(doc.result() && doc.result()->ok());
        QTRY_VERIFY_WITH_TIMEOUT(!view.canvas()->isLayingOut() && !view.canvas()->graph().nodes.empty(), 10000);
        QSignalSpy failed(&doc, &Document::solveFailed);
        doc.pinValue(doc.findValue(QString::fromStdString(b.name(x))), 2);  // an input cannot be recomputed
        QVERIFY(doc.waitForSolve(60000));
        QTRY_VERIFY(failed.count() == 1);
        QVERIFY(doc.failedResult() && !doc.failedResult()->cut.infinitePath.empty());
        QTRY_VERIFY_WITH_TIMEOUT(!view.canvas()->isLayingOut() && view.canvas()->graph().title.contains("\u221E path"), 10000);
        bool amber = false;
        for (const VisualEdge& e : view.canvas()->graph().edges) amber = amber || e.color == QColor("#d97706");
        QVERIFY(amber);
        doc.undoStack()->undo();  // solved again: the path goes away
        QVERIFY(doc.waitForSolve(60000));
        QTRY_VERIFY(!doc.failedResult());
        QTRY_VERIFY_WITH_TIMEOUT(!view.canvas()->graph().title.contains("\u221E path"), 10000);
    }

    void seedRaiseIsMarkedOnItsValue() {
        // x -> dropout(x, <<NULL VALUE>>, p) -> exp; dropout made recomputable: the seed raises.
        ProgramBuilder b;
        const TypeId t = b.f32({8, 8}), one = b.f32({1});
        const ValueId x = b.op("pd_op.data", {}, t);
        const ValueId p = b.op("pd_op.full", {}, one);
        const auto d = b.ops("pd_op.dropout", {x, kNoId, p}, {t, b.p.tensorType(DType::UInt8, {8, 8})});
        const ValueId e = b.op("pd_op.exp", {d[0]}, t);
        const int fwdEnd = b.index();
        const ValueId g = b.op("pd_op.full", {}, t);
        const ValueId ge = b.op("pd_op.multiply", {e, g}, t);
        b.op("pd_op.multiply", {d[0], ge}, t);
        RecomputeSolver solver(b.program, makeSpec(fwdEnd, fwdEnd + 2, {x}, {e}));
        RecomputeConfig cfg = RecomputeConfig::seedDefaults();
        cfg.recomputableOps.push_back("pd_op.dropout");
        const SolveResult r = solver.solve(cfg);
        QVERIFY2(r.ok(), r.error.c_str());
        QVERIFY(r.extension);
        LayerPartition none;
        const VisualGraph vg = buildScopedFlowGraph(b.p, r, flowValuesOfGroup(b.p, *r.network, none, -1), ScopedFlowOptions{});
        int marked = 0;
        for (const VisualNode& n : vg.nodes)
            if (n.badge == "!") {
                QCOMPARE(n.key, (ModelKey{ModelKey::Kind::Value, d[0]}));
                ++marked;
            }
        QCOMPARE(marked, 1);
        bool legend = false;
        for (const auto& l : vg.legend) legend = legend || l.text.contains("the seed raises at " + QString::fromStdString(b.name(d[0])));
        QVERIFY(legend);
    }

    void appliedBudgetPlanIsWhatTheViewDraws() {
        QTemporaryDir dir;
        const auto g = transformer(2);
        const QString path = writeGenerated(dir.path(), g, "t2");
        Document doc;
        FlowView view(&doc);
        view.resize(1400, 840);
        view.show();
        QString error;
        QVERIFY2(doc.open(path, &error), qPrintable(error));
        QVERIFY(doc.waitForSolve(60000));
        QTRY_VERIFY(doc.result() && doc.result()->ok());
        QTRY_VERIFY_WITH_TIMEOUT(!view.canvas()->isLayingOut() && !view.canvas()->graph().nodes.empty(), 10000);
        QVERIFY(view.canvas()->graph().legend.front().text.contains("seed's min cut"));

        planner::BudgetPlanner planner(doc.programPtr(), doc.spec(), doc.config());
        const planner::BudgetPlan plan = planner.planForBudget(planner.minimumActivationPeak());
        auto shown = planner::solveResultFor(planner, plan, *doc.result());
        // The plan differs from the seed's: otherwise the test could not tell them apart.
        std::set<ValueId> seedRecomputed(doc.result()->plan.midHoldValues.begin(), doc.result()->plan.midHoldValues.end());
        QVERIFY(std::set<ValueId>(plan.recomputedValues.begin(), plan.recomputedValues.end()) != seedRecomputed);
        doc.showPlan(shown, "the budget plan (activation peak 1.2 MiB)");
        QTRY_VERIFY_WITH_TIMEOUT(!view.canvas()->isLayingOut() &&
                                     view.canvas()->graph().legend.front().text.contains("budget plan (activation peak 1.2 MiB)"),
                                 10000);
        const VisualGraph& vg = view.canvas()->graph();
        const std::set<ValueId> saved(plan.savedValues.begin(), plan.savedValues.end());
        // Recomputed as in the seed's own plan (valueSideOf): not saved, and its producer cloned.
        std::set<ValueId> recomputed;
        const std::set<OpId> cloned(plan.recomputeOps.begin(), plan.recomputeOps.end());
        for (ValueId v = 0; v < doc.program().values().size(); ++v)
            if (!saved.count(v) && doc.program().value(v).definingOp != kNoId && cloned.count(doc.program().value(v).definingOp)) recomputed.insert(v);
        for (ValueId v : plan.recomputedValues) QVERIFY(recomputed.count(v));  // every mid-hold value among them
        size_t boxes = 0;
        for (const VisualNode& n : vg.nodes) {
            if (n.key.kind != ModelKey::Kind::Value) continue;
            ++boxes;
            QCOMPARE(bool(n.flags & kFlagSaved), saved.count(n.key.id) > 0);
            QCOMPARE(bool(n.flags & kFlagRecomputed), recomputed.count(n.key.id) > 0);
        }
        QVERIFY(boxes > 0);
        // The red arcs cross the plan's boundary: every saved value's drawn v_in -> v_out arc
        // is red with its capacity, and no red arc leaves a recomputed value.
        const FlowNetwork& net = *shown->network;
        size_t savedArcs = 0;
        for (const VisualEdge& e : vg.edges) {
            const auto& arc = net.arcs[e.key.id];
            const ValueId a = net.nodes[arc.from].value, b = net.nodes[arc.to].value;
            if (a == b && saved.count(a)) {
                QVERIFY(e.cut);
                QCOMPARE(e.label, QString::fromStdString(net.capacityText(arc)));
                ++savedArcs;
            }
            if (e.cut) QVERIFY(!recomputed.count(a));
        }
        QVERIFY(savedArcs > 0);
        // A re-solve (any edit) shows the seed's cut again.
        RecomputeConfig cfg = doc.config();
        cfg.maxDistFromBw = cfg.maxDistFromBw + 1;
        doc.setConfig(cfg, "knob");
        QVERIFY(doc.waitForSolve(60000));

        QTRY_VERIFY_WITH_TIMEOUT(!view.canvas()->isLayingOut() && view.canvas()->graph().legend.front().text.contains("seed's min cut"), 10000);
    }
};

QTEST_MAIN(FlowViewTest)
#include "test_flowview.moc"
