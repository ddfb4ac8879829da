// Issue 23 items 5 and 9: each layer's bundle in the Program tab's overview says what the
// Layers table's row says the plan holds there (seed plan and an applied budget plan), and
// "compare with" shows both plans side by side on each layer (held now and then, Δ, what
// moved), with the table's figures, on the original's and the rewritten program's overview.

#include <QComboBox>
#include <QDockWidget>
#include <QGraphicsScene>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QtTest>
#include <map>

#include "support/ExplorerWindow.h"
#include "views/GraphViews.h"
#include "views/LayerTable.h"

using namespace rx;

class LayerCompareTest : public testing::ExplorerWindowTest {
    Q_OBJECT

    // The overview's bundle from a layer's forward group to its backward: the layer's label.
    static std::vector<const EdgeItem*> bundleItems(GraphCanvas* canvas, uint32_t firstPos) {
        std::vector<const EdgeItem*> out;
        const VisualGraph& g = canvas->graph();
        for (QGraphicsItem* item : canvas->scene()->items())
            if (item->type() == EdgeItem::Type) {
                const auto* edge = static_cast<const EdgeItem*>(item);
                const VisualEdge& e = edge->edge();
                if (g.nodes[size_t(e.from)].key == ModelKey{ModelKey::Kind::Group, firstPos} && !(g.nodes[size_t(e.from)].flags & kFlagBackward) &&
                    (g.nodes[size_t(e.to)].flags & kFlagBackward) && e.label.contains("held"))
                    out.push_back(edge);
            }
        return out;
    }

    // Each layer's bundle says what the Layers table's row says the plan holds there: the
    // bytes (the Held cell), the saved and recomputed values; wider where it holds more.
    void bundlesShowTheTablesHeld(const char* plan) {
        auto* table = window_->findChild<LayerTable*>();
        ProgramView* program = window_->programView();
        QVERIFY(window_->showTab("layers"));
        QVERIFY(window_->showTab("program"));
        GraphCanvas* canvas = program->canvas();
        QTRY_VERIFY_WITH_TIMEOUT(!canvas->isLayingOut() && !table->busy() && table->model()->rowCount() > 0, 30000);
        QVERIFY(!program->inLayerView() && !program->showingRewritten());
        // The first byte figure a label shows ("54.0 KiB"), whatever words stand around it.
        static const QRegularExpression figure(QStringLiteral("(\\d+(?:\\.\\d+)? (?:B|KiB|MiB|GiB|TiB))"));
        std::vector<std::pair<int64_t, double>> heldAndWidth;
        for (int r = 0; r < table->model()->rowCount(); ++r) {
            const LayerRow& row = table->model()->rows()[size_t(r)];
            const auto items = bundleItems(canvas, row.firstPos);
            if (row.name.startsWith("embedding")) {  // its values feed layer 0: it may have no bundle of its own
                if (items.empty()) continue;
            }
            QVERIFY2(items.size() == 1, qPrintable(QStringLiteral("%1 (%2): %3 bundles").arg(row.name, plan).arg(items.size())));
            const VisualEdge& e = items.front()->edge();
            const QString held = table->model()->index(r, LayerTableModel::Held).data(Qt::DisplayRole).toString();
            QCOMPARE(figure.match(e.label).captured(1), held);
            QCOMPARE(e.label, QStringLiteral("held %1\n%2 saved \u00B7 %3 recomp").arg(held).arg(row.bytes.savedValues).arg(row.bytes.recomputedValues));
            heldAndWidth.emplace_back(row.bytes.held, e.width);
        }
        QVERIFY2(heldAndWidth.size() >= 5, plan);  // 4 layers and the head at least
        bool differ = false;
        for (const auto& [ha, wa] : heldAndWidth)
            for (const auto& [hb, wb] : heldAndWidth) {
                if (ha < hb) QVERIFY(wa < wb);
                if (ha == hb) QCOMPARE(wa, wb);
                differ |= ha != hb;
            }
        QVERIFY(differ);
    }

private Q_SLOTS:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        showWindow();
        openZooTransformer(4);
    }
    void cleanupTestCase() { delete window_; }

    // Issue 23 item 5: one provider for what a layer holds, the bundle's label and the table.
    void bundlesShowTheSeedPlansHeld() { bundlesShowTheTablesHeld("seed plan"); }
    void bundlesFollowAnAppliedPlan() {
        const auto before = doc()->result();
        applyLowestPeakPlan();
        QVERIFY(doc()->result() != before);
        bundlesShowTheTablesHeld("budget plan");
    }

    void overviewLabelsShowTheComparedPlan() {
        auto* table = window_->findChild<LayerTable*>();
        auto* program = window_->findChild<ProgramView*>();
        QVERIFY(table && program);
        QVERIFY(table->history().size() >= 2);  // the seed's plan and the applied budget plan
        QVERIFY(window_->showTab("layers"));
        QVERIFY(window_->showTab("program"));
        GraphCanvas* canvas = program->canvas();
        QTRY_VERIFY_WITH_TIMEOUT(!canvas->isLayingOut() && !table->busy(), 30000);
        QVERIFY(!program->inLayerView());
        // Before a comparison: the plain "held …" label.
        std::map<uint32_t, QString> plain;
        for (const LayerRow& row : table->model()->rows())
            for (const EdgeItem* e : bundleItems(canvas, row.firstPos)) {
                QVERIFY2(!e->edge().label.contains("then"), qPrintable(e->edge().label));
                plain[row.firstPos] = e->edge().label;
            }
        QVERIFY2(plain.size() >= 3, "the overview has no layer bundles");

        QComboBox* compare = table->compareChoice();
        QTRY_VERIFY(compare->count() >= 2);
        compare->setCurrentIndex(1);
        QTRY_VERIFY_WITH_TIMEOUT(!table->busy() && table->model()->compared(), 30000);
        QTRY_VERIFY_WITH_TIMEOUT(!canvas->isLayingOut(), 30000);
        QCOMPARE(program->layerComparison().size(), table->model()->rows().size());
        // Each layer's shown label carries the table row's figures: held now, held then, Δ, moved.
        size_t checked = 0, coloured = 0;
        for (int r = 0; r < table->model()->rowCount(); ++r) {
            const LayerRow& row = table->model()->rows()[size_t(r)];
            if (!plain.count(row.firstPos)) continue;
            const auto items = bundleItems(canvas, row.firstPos);
            QCOMPARE(items.size(), size_t(1));
            const VisualEdge& e = items.front()->edge();
            auto cell = [&](int column) { return table->model()->index(r, column).data(Qt::DisplayRole).toString(); };
            const QString expected = QStringLiteral("held %1 | then %2\n(%3) \u00B7 %4 moved")
                                         .arg(cell(LayerTableModel::Held), cell(LayerTableModel::OtherHeld), cell(LayerTableModel::HeldDelta))
                                         .arg(table->model()->index(r, LayerTableModel::Moved).data(LayerTableModel::SortRole).toUInt());
            QCOMPARE(e.label, expected);
            QVERIFY(items.front()->boundingRect().width() >= estimateTextWidth(e.label.section(QLatin1Char(10), 0, 0), 7.2));
            if (row.bytes.held != row.otherHeld) {
                QCOMPARE(e.color, table->model()->index(r, LayerTableModel::HeldDelta).data(Qt::ForegroundRole).value<QColor>());
                ++coloured;
            }
            ++checked;
        }
        QCOMPARE(checked, plain.size());
        QVERIFY2(coloured > 0, "no layer got lighter or heavier between the two plans");
        // The rewritten program's overview shows the same layers with the same labels.
        program->setShowRewritten(true);
        QTRY_VERIFY_WITH_TIMEOUT(!canvas->isLayingOut() && canvas->graph().title.startsWith("Rewritten"), 30000);
        QVERIFY(!program->rewrittenOverview().whole());
        QCOMPARE(program->rewrittenLayers().groups.size(), program->layers().groups.size());
        size_t rewrittenChecked = 0;
        for (const LayerRow& row : table->model()->rows()) {
            if (!plain.count(row.firstPos)) continue;
            const auto items = bundleItems(canvas, row.firstPos);
            QVERIFY2(items.size() == 1, qPrintable(QStringLiteral("%1: %2 bundles on the rewritten overview").arg(row.name).arg(items.size())));
            QCOMPARE(items.front()->edge().label, layerComparisonText(row));
            ++rewrittenChecked;
        }
        QCOMPARE(rewrittenChecked, plain.size());
        program->setShowRewritten(false);
        QTRY_VERIFY_WITH_TIMEOUT(!canvas->isLayingOut() && !canvas->graph().title.startsWith("Rewritten"), 30000);

        if (const QString dir = qEnvironmentVariable("RX_SCREENSHOT_DIR"); !dir.isEmpty()) {
            // The picture: the overview's layers tall enough to read, the table below, at both sizes.
            for (const QSize size : {QSize(1560, 960), QSize(1366, 768)}) {
                window_->resize(size);
                QTest::qWait(200);
                if (auto* dock = window_->findChild<QDockWidget*>("layersDock")) window_->resizeDocks({dock}, {size.height() / 4}, Qt::Vertical);
                QTest::qWait(100);
                canvas->fitReadable();
                QTest::qWait(400);
                QVERIFY(window_->grab().save(dir + QStringLiteral("/explorer-overview-compare-%1x%2.png").arg(size.width()).arg(size.height())));
            }
            window_->resize(1560, 960);
        }

        // Clearing the choice restores the plain labels.
        compare->setCurrentIndex(0);
        QTRY_VERIFY_WITH_TIMEOUT(!table->busy() && !table->model()->compared(), 30000);
        QTRY_VERIFY_WITH_TIMEOUT(!canvas->isLayingOut(), 30000);
        QVERIFY(program->layerComparison().empty());
        for (const auto& [firstPos, label] : plain) {
            const auto items = bundleItems(canvas, firstPos);
            QCOMPARE(items.size(), size_t(1));
            QCOMPARE(items.front()->edge().label, label);
        }
    }
};

QTEST_MAIN(LayerCompareTest)
#include "test_layer_compare.moc"
