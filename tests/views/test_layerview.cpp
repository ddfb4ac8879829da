// The program tab's layer overview and layer view (issue 12 items 1–2), through the real
// window offscreen on a generated 12-layer transformer: one backward group per layer facing
// its forward, one bundle per layer pair sized by the bytes the plan holds; layer 3's view has a port
// for exactly the layer's values the backward needs, stubs that count backward users and
// select one on click, the recomputed ops in their own cluster, clones with the rewritten
// program, and the way back to the overview; a one-layer torch-joint program opens its
// forward as the layer view.
#include <QAction>
#include <QMenu>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QToolButton>
#include <QtTest>
#include <set>

#include "algorithms/Solver.h"
#include "algorithms/zoo/ModelZoo.h"
#include "model/PirWriter.h"
#include "support/GeneratedFiles.h"
#include "views/GraphItems.h"
#include "views/GraphViews.h"
#include "views/MainWindow.h"

using namespace rx;

namespace {

QString writeGenerated(const QString& dir, const std::string& model, int layers) {
    return testing::writeGeneratedModel(dir, model, layers);
}

// "layer 3 · forward" -> 3; -1 for anything else.
int layerIndex(const QString& title, const QString& side) {
    static const QRegularExpression re(QStringLiteral("^layer (\\d+) · (forward|backward)$"));
    const auto m = re.match(title);
    return m.hasMatch() && m.captured(2) == side ? m.captured(1).toInt() : -1;
}

}  // namespace

class LayerViewTest : public QObject {
    Q_OBJECT
    MainWindow* window_ = nullptr;
    QTemporaryDir tmp_;

    Document* doc() { return window_->document(); }
    ProgramView* view() { return window_->programView(); }
    const VisualGraph& graph() { return view()->canvas()->graph(); }
    // The layer view's last backward-reader stub, or null.
    const VisualNode* lastStub() {
        const VisualNode* stub = nullptr;
        for (const VisualNode& n : graph().nodes)
            if (n.flags & kFlagStub) stub = &n;
        return stub;
    }
    void waitLayout() {
        QTRY_VERIFY_WITH_TIMEOUT(!view()->canvas()->isLayingOut() && view()->canvas()->itemCountForNodes() > 0, 30000);
    }
    const ProgramOverview::Segment* segment(const QString& label) {
        for (const auto& s : view()->overview().segments())
            if (s.label == label) return &s;
        return nullptr;
    }
    void openLayer3() {
        const ProgramOverview::Segment* s = segment("layer 3 · forward");
        QVERIFY(s);
        Q_EMIT view()->canvas()->keyDoubleClicked(ModelKey{ModelKey::Kind::Group, s->begin});
        QVERIFY(view()->inLayerView());
        waitLayout();
    }
    // Distinct backward ops reading v.
    std::set<OpId> backwardUsers(ValueId v) {
        const Program& p = doc()->program();
        std::set<OpId> users;
        for (const Use& u : p.uses(v))
            if (u.ancestor != kNoId && p.op(u.ancestor).parentBlock == Program::kGlobalBlock &&
                int64_t(p.indexInBlock(u.ancestor)) >= doc()->spec().backwardOpStartIdx)
                users.insert(u.ancestor);
        return users;
    }

private Q_SLOTS:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY(tmp_.isValid());
        window_ = new MainWindow(nullptr, false);
        window_->resize(1400, 900);
        window_->show();
        QVERIFY(QTest::qWaitForWindowExposed(window_));
        const QString path = writeGenerated(tmp_.path(), "transformer", 12);
        QVERIFY(window_->openFile(path));
        QVERIFY(doc()->waitForSolve(30000));
        waitLayout();
    }
    void cleanupTestCase() { delete window_; }

    void oneBackwardGroupPerLayer() {
        QCOMPARE(view()->layers().layerCount(), size_t(12));
        std::set<int> fwd, bwd;
        int fwdSegments = 0, bwdSegments = 0;
        for (const auto& s : view()->overview().segments()) {
            if (const int k = layerIndex(s.label, "forward"); k >= 0) fwd.insert(k), ++fwdSegments;
            if (const int k = layerIndex(s.label, "backward"); k >= 0) bwd.insert(k), ++bwdSegments;
        }
        QCOMPARE(fwdSegments, 12);
        QCOMPARE(bwdSegments, 12);  // not a big and a small group per layer
        QCOMPARE(fwd.size(), size_t(12));
        QCOMPARE(bwd.size(), size_t(12));
        // Every backward op of a layer lies in that layer's one group.
        const LayerPartition& part = view()->layers();
        for (const auto& s : view()->overview().segments())
            if (layerIndex(s.label, "backward") >= 0)
                for (const auto& [b, e] : s.ranges())
                    for (uint32_t pos = b; pos < e; ++pos) QCOMPARE(part.groupOfPos[pos], part.groupOfPos[s.begin]);
        // One bundle per layer pair, forward k → backward k, its ends on one rank (facing).
        const VisualGraph& g = graph();
        std::set<int> bundled;
        for (const VisualEdge& e : g.edges) {
            if (!e.label.startsWith("held ")) continue;
            const int a = layerIndex(g.nodes[size_t(e.from)].title, "forward"), b = layerIndex(g.nodes[size_t(e.to)].title, "backward");
            if (a < 0 && b < 0) continue;  // embedding / head bundles
            QCOMPARE(a, b);
            QVERIFY(bundled.insert(a).second);
            bool sameRank = false;
            for (const auto& r : g.sameRank) sameRank |= r.size() == 2 && r[0] == e.from && r[1] == e.to;
            QVERIFY(sameRank);
        }
        QCOMPARE(bundled.size(), size_t(12));
    }

    void bundleWidthsOrderedByBytes() {
        // What the plan holds from layer k for the backward: its forward values saved, or read
        // by the backward and not recomputed; with the values saved and recomputed.
        const Program& p = doc()->program();
        const auto& ops = p.globalBlock().ops;
        const auto r = doc()->result();
        QVERIFY(r && r->ok());
        const std::set<ValueId> saved(r->plan.savedValues.begin(), r->plan.savedValues.end());
        const std::set<ValueId> recomputed(r->plan.midHoldValues.begin(), r->plan.midHoldValues.end());
        const VisualGraph& g = graph();
        std::vector<std::pair<int64_t, double>> bytesAndWidth;
        size_t layerBundles = 0;
        for (const VisualEdge& e : g.edges) {
            // The layers' bundles, and the embedding's and the head's where they have one.
            const QString& title = g.nodes[size_t(e.from)].title;
            if (!title.endsWith(" · forward") || !e.label.startsWith("held ")) continue;
            layerBundles += layerIndex(title, "forward") >= 0;
            const auto* f = segment(title);
            QVERIFY(f);
            int64_t bytes = 0;
            int savedValues = 0, recomputedValues = 0;
            for (const auto& [b, end] : f->ranges())
                for (uint32_t pos = b; pos < end; ++pos)
                    for (ValueId v : p.op(ops[pos]).results) {
                        const bool read = !backwardUsers(v).empty();
                        if (saved.count(v) || (read && !recomputed.count(v))) bytes += p.valueBytes(v);
                        savedValues += int(saved.count(v));
                        recomputedValues += int(recomputed.count(v));
                    }
            QCOMPARE(e.label, QStringLiteral("held %1\n%2 saved \u00B7 %3 recomp").arg(formatBytes(double(bytes))).arg(savedValues).arg(recomputedValues));
            bytesAndWidth.emplace_back(bytes, e.width);
        }
        QCOMPARE(layerBundles, size_t(12));
        bool differ = false;
        for (const auto& [ba, wa] : bytesAndWidth)
            for (const auto& [bb, wb] : bytesAndWidth) {
                if (ba < bb) QVERIFY(wa < wb);
                if (ba == bb) QCOMPARE(wa, wb);
                differ |= ba != bb;
            }
        QVERIFY(differ);  // the layers and the head hold different bytes: the order is tested
    }

    void layerViewHasThePortsTheBackwardNeeds() {
        openLayer3();
        auto r = doc()->result();
        QVERIFY(r && r->ok());
        const Program& p = doc()->program();
        const auto* seg = segment("layer 3 · forward");
        QVERIFY(seg);
        std::set<ValueId> saved(r->plan.savedValues.begin(), r->plan.savedValues.end());
        std::set<ValueId> midHold(r->plan.midHoldValues.begin(), r->plan.midHoldValues.end());
        std::set<ValueId> expected, expectedSaved, expectedRecomputed;
        for (uint32_t pos = seg->begin; pos < seg->end; ++pos)
            for (ValueId v : p.op(p.globalBlock().ops[pos]).results) {
                if (saved.count(v)) expectedSaved.insert(v);
                if (midHold.count(v)) expectedRecomputed.insert(v);
                if (saved.count(v) || midHold.count(v) || !backwardUsers(v).empty()) expected.insert(v);
            }
        QVERIFY(!expectedSaved.empty());
        QVERIFY(!expectedRecomputed.empty());
        const GraphPalette& pal = GraphPalette::current();
        std::set<ValueId> ports, savedPorts, recomputedPorts;
        int opNodes = 0, stubs = 0, withUsers = 0;
        for (const VisualNode& n : graph().nodes) {
            if (n.flags & kFlagStub) {
                ++stubs;
                // "→ N backward users": N is the value's distinct backward readers; its key the first.
                const ValueId v = doc()->findValue(n.subtitle);
                QVERIFY2(v != kNoId, qPrintable(n.subtitle));
                const std::set<OpId> users = backwardUsers(v);
                const QString want = users.size() == 1 ? QStringLiteral("\u2192 1 backward user") : QStringLiteral("\u2192 %1 backward users").arg(users.size());
                QCOMPARE(n.title, want);
                QCOMPARE(n.key.kind, ModelKey::Kind::Op);
                QVERIFY(users.count(n.key.id));
                continue;
            }
            if (n.key.kind != ModelKey::Kind::Op || n.shape != NodeShape::RoundedBox) continue;
            ++opNodes;
            const uint32_t pos = p.indexInBlock(n.key.id);
            QVERIFY(pos >= seg->begin && pos < seg->end);
            // The cut as a boundary: exactly the recomputed ops sit in the recomputed cluster.
            const bool recomputed = std::find(r->plan.recomputeOps.begin(), r->plan.recomputeOps.end(), n.key.id) != r->plan.recomputeOps.end();
            QCOMPARE(n.cluster == 0, recomputed);
            for (const VisualPort& port : n.ports) {
                QCOMPARE(port.key.kind, ModelKey::Kind::Value);
                QVERIFY(ports.insert(port.key.id).second);
                QCOMPARE(p.value(port.key.id).definingOp, n.key.id);  // on its producing op
                if (port.color == pal.savedFill) savedPorts.insert(port.key.id);
                if (port.color == pal.recomputed) recomputedPorts.insert(port.key.id);
                withUsers += !backwardUsers(port.key.id).empty();
            }
        }
        QCOMPARE(opNodes, int(seg->end - seg->begin));
        QCOMPARE(ports, expected);
        QCOMPARE(savedPorts, expectedSaved);
        QCOMPARE(recomputedPorts, expectedRecomputed);
        QCOMPARE(stubs, withUsers);
        QVERIFY(graph().clusters.size() >= 1 && graph().clusters[0].label.contains("recomputed"));
        qInfo("layer 3: %d ops, %zu ports (%zu saved, %zu recomputed), %d stubs", opNodes, ports.size(), savedPorts.size(), recomputedPorts.size(), stubs);
    }

    void stubClickSelectsABackwardOp() {
        QVERIFY(view()->inLayerView());
        const VisualNode* stub = lastStub();
        QVERIFY(stub);
        const ModelKey key = stub->key;
        Q_EMIT view()->canvas()->keyActivated(key);
        QCOMPARE(doc()->selection(), key);
        QVERIFY(int64_t(doc()->program().indexInBlock(doc()->selection().id)) >= doc()->spec().backwardOpStartIdx);
        QVERIFY(view()->inLayerView());  // the view stays; the inspector shows the op
    }

    void stubDoubleClickGoesThere() {
        QVERIFY(view()->inLayerView());
        const VisualNode* stub = lastStub();
        QVERIFY(stub);
        const ModelKey key = stub->key;
        Q_EMIT view()->canvas()->keyDoubleClicked(key);
        QVERIFY(!view()->inLayerView());
        waitLayout();
        QCOMPARE(doc()->selection(), key);
        NodeItem* item = view()->canvas()->nodeItem(key);  // its backward group expanded
        QVERIFY(item);
        QVERIFY(item->isSelected());
        QVERIFY(view()->collapseAround(key.id));
        waitLayout();
        openLayer3();
    }

    void rewrittenShowsTheLayersClones() {
        QVERIFY(view()->inLayerView());
        view()->setShowRewritten(true);
        waitLayout();
        QVERIFY(view()->inLayerView());
        auto r = doc()->result();
        const Program& p = doc()->program();
        const auto* seg = segment("layer 3 · forward");
        size_t expected = 0;
        for (size_t i = 0; i < r->cloneOf.size(); ++i) {
            const uint32_t pos = p.indexInBlock(r->cloneOf[i]);
            expected += p.op(r->cloneOf[i]).parentBlock == Program::kGlobalBlock && pos >= seg->begin && pos < seg->end;
        }
        QVERIFY(expected > 0);
        size_t clones = 0;
        for (const VisualNode& n : graph().nodes)
            if (n.flags & kFlagClone) {
                ++clones;
                QCOMPARE(n.cluster, 1);
                QVERIFY(n.key.id >= p.ops().size());  // an op of the rewritten program
            }
        QCOMPARE(clones, expected);
        view()->setShowRewritten(false);
        waitLayout();
        for (const VisualNode& n : graph().nodes) QVERIFY(!(n.flags & kFlagClone));
    }

    void backToTheOverview() {
        QVERIFY(view()->inLayerView());
        auto* back = view()->findChild<QToolButton*>("backToOverview");
        QVERIFY(back && back->isVisible());
        // The op context menu says so too.
        QMenu* menu = window_->contextMenuFor(ModelKey{ModelKey::Kind::Op, doc()->program().globalBlock().ops[segment("layer 3 · forward")->begin]});
        QVERIFY(menu);
        bool offered = false;
        for (QAction* a : menu->actions()) offered |= a->text() == "Back to the layer overview";
        delete menu;
        QVERIFY(offered);
        doc()->select(ModelKey{}, nullptr);  // nothing to reveal on the way back
        back->click();
        QVERIFY(!view()->inLayerView());
        waitLayout();
        QVERIFY(!back->isVisible());
        int groups = 0;
        for (const VisualNode& n : graph().nodes) groups += layerIndex(n.title, "backward") >= 0;
        if (groups != 12)
            for (const auto& s : view()->overview().segments()) qInfo("%u-%u %d %s", s.begin, s.end, s.expanded, qPrintable(s.label));
        QCOMPARE(groups, 12);
        // A layer group's context menu opens its layer view.
        const auto* bwd = segment("layer 5 · backward");
        QVERIFY(bwd);
        menu = window_->contextMenuFor(ModelKey{ModelKey::Kind::Group, bwd->begin});
        QVERIFY(menu);
        QAction* open = nullptr;
        for (QAction* a : menu->actions())
            if (a->text() == "Open layer") open = a;
        QVERIFY(open);
        open->trigger();
        delete menu;
        QVERIFY(view()->inLayerView());
        QCOMPARE(view()->layerView().name, QString("layer 5"));  // a backward layer opens as the forward it faces
        waitLayout();
        view()->closeLayer();
        waitLayout();
    }

    void aLayerInsideABlockOfLayers() {
        // 48 layers: the overview groups two layers a block; the layer view still opens one layer.
        QVERIFY(window_->openFile(writeGenerated(tmp_.path(), "transformer", 48)));
        QVERIFY(doc()->waitForSolve(60000));
        waitLayout();
        QVERIFY(segment("layers 4–5 · forward"));
        // 13k ops: the whole graph is refused (dot would take minutes), the overview stays.
        QVERIFY(doc()->program().liveOpCount() > ProgramView::kWholeGraphMaxOps);
        const size_t overviewSegments = view()->overview().segments().size();
        QVERIFY(!view()->canShowWholeGraph());
        QVERIFY(!view()->showWholeGraph());
        QVERIFY(!view()->overview().whole());
        QCOMPARE(view()->overview().segments().size(), overviewSegments);
        QVERIFY(!view()->canvas()->isLayingOut());
        QVERIFY(view()->openLayerNumber(5));
        waitLayout();
        QCOMPARE(view()->layerView().name, QString("layer 5"));
        int ops = 0;
        for (const VisualNode& n : graph().nodes) ops += n.key.kind == ModelKey::Kind::Op && n.shape == NodeShape::RoundedBox && !(n.flags & kFlagStub);
        QCOMPARE(uint32_t(ops), view()->layers().period);
        QVERIFY(!view()->openLayerNumber(48));
        view()->closeLayer();
        waitLayout();
    }

    void aBlockOfLayersExpandsIntoItsLayers() {
        // 200 layers of 10 forward + 10 backward ops (backward in reverse, its last op of each
        // layer trailing at the end): blocks of 7 layers; a block expands into 7 layer groups.
        LayerPartition part;
        const uint32_t layers = 200, per = 10, fwd = layers * per, n = 2 * fwd;
        for (uint32_t k = 0; k < layers; ++k) {
            LayerGroup g;
            g.kind = LayerGroup::Kind::Layer;
            g.name = "layer " + std::to_string(k);
            g.fwdBegin = k * per;
            g.fwdEnd = (k + 1) * per;
            part.groups.push_back(g);
        }
        part.groupOfPos.resize(n);
        for (uint32_t i = 0; i < fwd; ++i) part.groupOfPos[i] = int32_t(i / per);
        const uint32_t tail = n - layers;  // one trailing op per layer
        for (uint32_t i = fwd; i < tail; ++i) part.groupOfPos[i] = int32_t(layers - 1 - (i - fwd) / (per - 1));
        for (uint32_t i = tail; i < n; ++i) part.groupOfPos[i] = int32_t(i - tail);
        ProgramOverview ov;
        ov.reset(n, ProgramSplit{int64_t(fwd - 1), int64_t(fwd)}, part);
        const auto first = ov.segments();
        const ProgramOverview::Segment* block = nullptr;
        for (const auto& s : first)
            if (s.label == QString("layers 7–13 · backward")) block = &s;
        QVERIFY(block);
        QVERIFY(!block->more.empty());  // its trailing ops joined it
        QVERIFY(ov.expand(block->begin));
        std::set<int> seen;
        uint32_t ops = 0;
        for (const auto& s : ov.segments()) {
            const int k = layerIndex(s.label, "backward");
            if (k < 0) continue;
            QVERIFY(k >= 7 && k <= 13);
            QCOMPARE(s.group, ProgramOverview::kLayerGroupBase + k);
            QCOMPARE(s.opCount(), per);  // 9 in the backward run + its trailing op
            for (const auto& [b, e] : s.ranges())
                for (uint32_t p = b; p < e; ++p) QCOMPARE(part.groupOfPos[p], int32_t(k));
            QVERIFY(seen.insert(k).second);
            ops += s.opCount();
        }
        QCOMPARE(seen.size(), size_t(7));
        QCOMPARE(ops, 7 * per);
        // Collapse folds the layers back into the block.
        QVERIFY(ov.collapse(block->begin + 1));
        QCOMPARE(ov.segments().size(), first.size());
        for (size_t i = 0; i < first.size(); ++i) QCOMPARE(ov.segments()[i].label, first[i].label);
    }

    void oneLayerProgramOpensItsForwardAsTheLayerView() {
        // The torch-joint transformer layer repeats nothing: its forward is the layer view,
        // no edge crosses to the backward, every value the backward reads is a port.
        QVERIFY(window_->openFile(QStringLiteral(RX_SHARED_DIR "/corpus/torch-joint/transformer_layer.prim.pir")));
        QVERIFY(doc()->waitForSolve(30000));
        waitLayout();
        QCOMPARE(view()->layers().layerCount(), size_t(0));
        auto* button = view()->findChild<QToolButton*>("forwardLayerView");
        QVERIFY(button && button->isVisible());
        button->click();
        QVERIFY(view()->inLayerView());
        waitLayout();
        const Program& p = doc()->program();
        auto r = doc()->result();
        std::set<ValueId> expected;
        for (uint32_t pos = 0; int64_t(pos) <= doc()->spec().fwdOpEndIdx; ++pos)
            for (ValueId v : p.op(p.globalBlock().ops[pos]).results)
                if (std::count(r->plan.savedValues.begin(), r->plan.savedValues.end(), v) ||
                    std::count(r->plan.midHoldValues.begin(), r->plan.midHoldValues.end(), v) || !backwardUsers(v).empty())
                    expected.insert(v);
        std::set<ValueId> ports;
        for (const VisualNode& n : graph().nodes) {
            if (n.flags & kFlagStub) continue;
            if (n.key.kind == ModelKey::Kind::Op && n.shape == NodeShape::RoundedBox)
                QVERIFY(int64_t(p.indexInBlock(n.key.id)) <= doc()->spec().fwdOpEndIdx);
            for (const VisualPort& port : n.ports) ports.insert(port.key.id);
        }
        QCOMPARE(ports, expected);
        QVERIFY(view()->collapseAround(p.globalBlock().ops[0]));
        QVERIFY(!view()->inLayerView());
        waitLayout();
    }
};

QTEST_MAIN(LayerViewTest)
#include "test_layerview.moc"
