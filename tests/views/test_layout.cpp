// LayoutService and the program overview: Graphviz results come back as plain geometry for
// every node and edge, a newer request on a channel supersedes an older one, the in-house
// layered engine handles a 100k-node graph, and big programs open on a bounded overview.
#include <QSignalSpy>
#include <QtTest>

#include "views/LayoutService.h"
#include "views/ProgramGraph.h"

using namespace rx;

namespace {

LayoutRequest chain(int n, LayoutEngine engine) {
    LayoutRequest r;
    r.engine = engine;
    r.clusters = {"a", "b"};
    for (int i = 0; i < n; ++i) r.nodes.push_back(LayoutNode{80, 28, i < n / 2 ? 0 : 1, -1});
    for (int i = 1; i < n; ++i) r.edges.push_back(LayoutEdge{i - 1, i, true, 1});
    for (int i = 2; i < n; i += 3) r.edges.push_back(LayoutEdge{i - 2, i, true, 1});
    return r;
}

// A forward chain and a mirrored backward that reads every forward activation.
Program makeProgram(int forwardOps) {
    Program p;
    const TypeId t = p.tensorType(DType::Float32, {64, 64});
    std::vector<ValueId> acts;
    const OpId data = p.appendOp(Program::kGlobalBlock, "pd_op.data", {}, std::vector<TypeId>{t});
    acts.push_back(p.op(data).results[0]);
    for (int i = 1; i < forwardOps; ++i) {
        const char* name = i % 3 == 0 ? "pd_op.matmul" : i % 3 == 1 ? "pd_op.relu" : "pd_op.add";
        const OpId op = p.appendOp(Program::kGlobalBlock, name, std::vector<ValueId>{acts.back()}, std::vector<TypeId>{t});
        acts.push_back(p.op(op).results[0]);
    }
    ValueId grad = acts.back();
    for (int i = forwardOps - 1; i >= 0; --i) {
        const OpId op = p.appendOp(Program::kGlobalBlock, "pd_op.relu_grad", std::vector<ValueId>{acts[size_t(i)], grad},
                                   std::vector<TypeId>{t});
        grad = p.op(op).results[0];
    }
    p.finish();
    return p;
}

}  // namespace

class LayoutTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void dotGivesGeometryForEverything() {
        auto& service = LayoutService::instance();
        QSignalSpy spy(&service, &LayoutService::finished);
        const LayoutRequest req = chain(40, LayoutEngine::Dot);
        const quint64 job = service.submit("t-dot", req);
        QVERIFY(spy.wait(20000));
        const auto args = spy.takeFirst();
        QCOMPARE(args.at(0).toULongLong(), job);
        const auto result = args.at(2).value<LayoutResult>();
        QVERIFY2(result.ok, qPrintable(result.error));
        QCOMPARE(result.nodeCenter.size(), size_t(40));
        QCOMPARE(result.edgePath.size(), req.edges.size());
        for (size_t i = 0; i < result.nodeCenter.size(); ++i) QVERIFY(result.bounds.adjusted(-1, -1, 1, 1).contains(result.nodeCenter[i]));
        for (size_t i = 0; i < result.edgePath.size(); ++i) {
            QVERIFY(result.edgePath[i].size() >= 2);
            if (!result.edgeIsPolyline[i]) QCOMPARE(result.edgePath[i].size() % 3, size_t(1));
        }
        // Top-to-bottom: a chain's successor sits lower.
        QVERIFY(result.nodeCenter[1].y() > result.nodeCenter[0].y());
        QVERIFY(!result.clusterRect[0].isNull());
    }

    void newerRequestSupersedesOlder() {
        auto& service = LayoutService::instance();
        QSignalSpy spy(&service, &LayoutService::finished);
        const quint64 first = service.submit("t-supersede", chain(300, LayoutEngine::DotLines));
        const quint64 second = service.submit("t-supersede", chain(10, LayoutEngine::Dot));
        QVERIFY(spy.wait(30000));
        QTRY_VERIFY_WITH_TIMEOUT(!service.isBusy(), 30000);
        QCoreApplication::processEvents();
        QCoreApplication::processEvents();
        QList<quint64> delivered;
        for (const auto& a : spy) delivered << a.at(0).toULongLong();
        QVERIFY(delivered.contains(second));
        QVERIFY(!delivered.contains(first));
    }

    void cancelledJobDeliversNothing() {
        auto& service = LayoutService::instance();
        QSignalSpy spy(&service, &LayoutService::finished);
        const quint64 job = service.submit("t-cancel", chain(200, LayoutEngine::Dot));
        service.cancel(job);
        QTRY_VERIFY_WITH_TIMEOUT(!service.isBusy(), 30000);
        QTest::qWait(50);
        for (const auto& a : spy) QVERIFY(a.at(0).toULongLong() != job);
    }

    void sfdpAndLayeredHandleBigGraphs() {
        auto& service = LayoutService::instance();
        QSignalSpy spy(&service, &LayoutService::finished);
        service.submit("t-sfdp", chain(600, LayoutEngine::Sfdp));
        QVERIFY(spy.wait(60000));
        QVERIFY(spy.takeFirst().at(2).value<LayoutResult>().ok);
        const LayoutResult big = LayoutService::layoutLayered(chain(100000, LayoutEngine::Layered));
        QVERIFY(big.ok);
        QCOMPARE(big.nodeCenter.size(), size_t(100000));
        QVERIFY(big.nodeCenter[5].y() > big.nodeCenter[4].y());
        QCOMPARE(LayoutService::chooseEngine(200, 300), LayoutEngine::Dot);
        QCOMPARE(LayoutService::chooseEngine(50000, 90000), LayoutEngine::Layered);
    }

    void bigProgramOpensOnBoundedOverview() {
        const Program p = makeProgram(50000);  // 100k ops
        ProgramOverview ov;
        ProgramSplit split{49999, 50000};
        ov.reset(uint32_t(p.globalBlock().ops.size()), split);
        QVERIFY(ov.visibleUnits() <= ProgramOverview::kTargetGroups + 1);
        QVERIFY(!ov.whole());
        ProgramViewOptions opt;
        opt.split = split;
        VisualGraph g = buildProgramGraph(p, ov, opt, PlanMarks{});
        QCOMPARE(g.nodes.size(), ov.visibleUnits());
        QVERIFY(g.edges.size() > g.nodes.size() / 2);
        QCOMPARE(g.clusters.size(), size_t(2));
        // Groups never straddle forward and backward.
        for (const auto& s : ov.segments()) QVERIFY(s.end <= 50000 || s.begin >= 50000);
        // Expanding a group splits it until ops show, without touching the others.
        const uint32_t first = ov.segments().front().begin;
        const size_t before = ov.segments().size();
        QVERIFY(ov.expand(first));
        QVERIFY(ov.segments().size() > before);
        while (!ov.segments().front().expanded) QVERIFY(ov.expand(ov.segments().front().begin));
        g = buildProgramGraph(p, ov, opt, PlanMarks{});
        QCOMPARE(g.nodes.front().key.kind, ModelKey::Kind::Op);
        QCOMPARE(g.nodes.front().title, QString("data"));
        ov.expandAll();
        QVERIFY(ov.whole());
        QCOMPARE(ov.visibleUnits(), size_t(100000));
    }

    void smallProgramShowsValuesAndMarks() {
        const Program p = makeProgram(4);
        ProgramOverview ov;
        ov.reset(uint32_t(p.globalBlock().ops.size()), ProgramSplit{3, 4});
        PlanMarks marks;
        marks.valueSaved.assign(p.values().size(), 0);
        marks.valueSaved[1] = 1;
        marks.opRecomputed.assign(p.ops().size(), 0);
        marks.opRecomputed[2] = 1;
        const VisualGraph g = buildProgramGraph(p, ov, ProgramViewOptions{ProgramSplit{3, 4}, Overlay::None, -1}, marks);
        int values = 0, saved = 0, recomputed = 0;
        for (const auto& n : g.nodes) {
            if (n.key.kind == ModelKey::Kind::Value) ++values;
            if (n.flags & kFlagSaved) ++saved;
            if (n.flags & kFlagRecomputed) ++recomputed;
        }
        QCOMPARE(values, int(p.values().size()));
        QCOMPARE(saved, 1);
        QCOMPARE(recomputed, 1);
    }
};

QTEST_MAIN(LayoutTest)
#include "test_layout.moc"
