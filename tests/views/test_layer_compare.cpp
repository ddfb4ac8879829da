// Issue 23 item 9: "compare with" in the Layers dock shows both plans side by side on each layer
// of the Program tab's layer overview (held now and then, Δ, what moved), with the table's figures.

#include <QComboBox>
#include <QDockWidget>
#include <QChart>
#include <QChartView>
#include <QGraphicsScene>
#include <QScatterSeries>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>
#include <map>

#include "algorithms/zoo/ModelZoo.h"
#include "model/FileIO.h"
#include "model/PirWriter.h"
#include "views/GraphViews.h"
#include "views/LayerTable.h"
#include "views/MainWindow.h"
#include "views/ParetoPanel.h"

using namespace rx;

class LayerCompareTest : public QObject {
    Q_OBJECT
    MainWindow* window_ = nullptr;
    QTemporaryDir tmp_;

    Document* doc() { return window_->document(); }

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

private Q_SLOTS:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY(tmp_.isValid());
        window_ = new MainWindow(nullptr, false);
        window_->resize(1560, 960);
        window_->show();
        QVERIFY(QTest::qWaitForWindowExposed(window_));
        zoo::ZooOptions o;
        o.model = "transformer";
        o.layers = 4;
        const zoo::GeneratedProgram g = zoo::generateModel(o);
        const QString path = tmp_.path() + "/zoo4.pir";
        writeProgramFile(*g.program, path.toStdString());
        writeFileAtomic((tmp_.path() + "/zoo4.spec.json").toStdString(), zoo::specJson(g));
        QVERIFY(window_->openFile(path));
        QVERIFY(doc()->waitForSolve(30000));
        QVERIFY(doc()->result() && doc()->result()->ok());
    }
    void cleanupTestCase() { delete window_; }

    void overviewLabelsShowTheComparedPlan() {
        auto* table = window_->findChild<LayerTable*>();
        auto* program = window_->findChild<ProgramView*>();
        QVERIFY(table && program);
        const auto before = doc()->result();
        // A second plan: the lowest-peak point of the Memory Budget frontier, clicked.
        auto* pareto = window_->findChild<ParetoPanel*>();
        QVERIFY(pareto);
        window_->showTab("pareto");
        QVERIFY(QTest::qWaitFor([&] { return !pareto->busy() && pareto->frontierCount() > 1; }, 60000));
        QChartView* view = pareto->chartView();
        QScatterSeries* points = nullptr;
        for (QAbstractSeries* s : view->chart()->series())
            if (s->name() == "budget plans") points = qobject_cast<QScatterSeries*>(s);
        QVERIFY(points && points->count() > 1);
        const QPointF at = view->chart()->mapToPosition(points->at(points->count() - 1), points);
        QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, view->mapFromScene(view->chart()->mapToScene(at)));
        QTRY_VERIFY_WITH_TIMEOUT(doc()->result() != before, 30000);
        QVERIFY(doc()->waitForSolve(30000));

        QVERIFY(window_->showTab("layers"));
        QVERIFY(window_->showTab("program"));
        GraphCanvas* canvas = program->canvas();
        QTRY_VERIFY_WITH_TIMEOUT(!canvas->isLayingOut() && !table->busy(), 30000);
        QVERIFY(!program->inLayerView());
        // Before a comparison: the plain "… held" label.
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
        if (const QByteArray shot = qgetenv("RX_LAYER_COMPARE_SHOT"); !shot.isEmpty()) {
            // The picture: the overview's layers tall enough to read, the table below.
            if (auto* dock = window_->findChild<QDockWidget*>("layersDock")) window_->resizeDocks({dock}, {250}, Qt::Vertical);
            canvas->setOverlayCollapsed(GraphCanvas::Overlay::Legend, true);
            QTest::qWait(100);
            canvas->fitReadable();
            QTest::qWait(200);
            QVERIFY(window_->grab().save(QString::fromLocal8Bit(shot)));
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
