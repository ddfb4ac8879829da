// After every edit the Summary lists the values that changed side, with the held bytes and
// recompute FLOPs each moves, newest edit first; clicking one selects it.
#include <QTreeWidget>
#include <QtTest>
#include <set>

#include "views/Document.h"
#include "views/Panels.h"
#include "views/PlanFigures.h"
#include "views/ProgramGraph.h"

using namespace rx;

namespace {
const QString kTransformer = QStringLiteral(RX_SHARED_DIR "/corpus/torch-joint/transformer_layer.prim.pir");
int64_t savedBytes(const Program& p, const Plan& plan) {
    int64_t sum = 0;
    for (size_t v = 0; v < plan.reasons.size(); ++v)
        if (plan.reasons[v].side == ValueSide::Saved) sum += std::max<int64_t>(0, p.valueBytes(ValueId(v)));
    return sum;
}
}  // namespace

class SideChangesTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void knobChangeListsMovedValues() {
        Document doc;
        SummaryPanel panel(&doc);
        panel.resize(1200, 300);
        panel.show();
        QString error;
        QVERIFY2(doc.open(kTransformer, &error), qPrintable(error));
        QVERIFY(doc.waitForSolve(60000));
        QTRY_VERIFY(doc.result() && doc.result()->ok());
        QCOMPARE(panel.changesTree()->topLevelItemCount(), 0);  // opening is not an edit
        auto r0 = doc.result();

        RecomputeConfig cfg = doc.config();
        cfg.maxDistFromBw = 0;
        doc.setConfig(cfg, "max distance 3 → 0");
        QVERIFY(doc.waitForSolve(60000));
        QTRY_VERIFY(doc.result() != r0 && doc.result()->ok());
        auto r1 = doc.result();

        // Exactly the values whose side differs, each once.
        std::set<ValueId> expected;
        for (size_t v = 0; v < r1->plan.reasons.size(); ++v)
            if (r0->plan.reasons[v].side != r1->plan.reasons[v].side) expected.insert(ValueId(v));
        QVERIFY(!expected.empty());
        const auto& changes = panel.lastChanges();
        std::set<ValueId> listed;
        int64_t held = 0;
        for (const SideChange& c : changes) {
            QVERIFY(listed.insert(c.value).second);
            QCOMPARE(c.before, r0->plan.reasons[c.value].side);
            QCOMPARE(c.after, r1->plan.reasons[c.value].side);
            held += c.heldBytesDelta;
        }
        QCOMPARE(listed, expected);
        // The bytes add up to the change in what the backward holds.
        QCOMPARE(held, savedBytes(doc.program(), r1->plan) - savedBytes(doc.program(), r0->plan));
        // Recompute FLOPs: the producers that gained or lost a clone.
        double flops = 0;
        for (const SideChange& c : changes) flops += c.recomputeFlopsDelta;
        std::set<OpId> ops0(r0->plan.recomputeOps.begin(), r0->plan.recomputeOps.end());
        std::set<OpId> ops1(r1->plan.recomputeOps.begin(), r1->plan.recomputeOps.end());
        double expectFlops = 0;
        std::set<OpId> producers;
        for (ValueId v : expected) producers.insert(doc.program().value(v).definingOp);
        for (OpId op : producers)
            if (ops0.count(op) != ops1.count(op)) expectFlops += (ops1.count(op) ? 1 : -1) * estimateOpFlops(doc.program(), op);
        QCOMPARE(flops, expectFlops);

        // The tree: one edit, its rows are those values with their bytes.
        QTreeWidget* tree = panel.changesTree();
        QCOMPARE(tree->topLevelItemCount(), 1);
        QTreeWidgetItem* edit = tree->topLevelItem(0);
        QVERIFY(edit->text(0).contains("max distance 3 → 0"));
        QCOMPARE(edit->childCount(), int(std::min<size_t>(changes.size(), 200)) + (changes.size() > 200 ? 1 : 0));
        for (int i = 0; i < std::min(edit->childCount(), 200); ++i) {
            const SideChange& c = changes[size_t(i)];
            QCOMPARE(edit->child(i)->text(0), doc.valueName(c.value));
            const QString bytes = c.heldBytesDelta == 0 ? "0" : (c.heldBytesDelta > 0 ? "+" : "−") + formatBytes(double(std::abs(c.heldBytesDelta)));
            QCOMPARE(edit->child(i)->text(2), bytes);
        }

        // Clicking a row selects the value everywhere.
        tree->setCurrentItem(edit->child(0));
        QCOMPARE(doc.selection(), (ModelKey{ModelKey::Kind::Value, changes[0].value}));

        // Undo: a second edit, listed first, moving the same values back.
        const size_t moved = changes.size();
        doc.undoStack()->undo();
        QVERIFY(doc.waitForSolve(60000));
        QTRY_COMPARE(tree->topLevelItemCount(), 2);
        QVERIFY(tree->topLevelItem(0)->text(0).startsWith("Edit 2:") && tree->topLevelItem(0)->text(0).contains("— Undo"));
        QCOMPARE(panel.lastChanges().size(), moved);
        int64_t back = 0;
        for (const SideChange& c : panel.lastChanges()) back += c.heldBytesDelta;
        QCOMPARE(back, -held);
    }
};

QTEST_MAIN(SideChangesTest)
#include "test_side_changes.moc"
