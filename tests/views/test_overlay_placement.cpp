// Issue 23 item 4: the minimap and the legend are placed where the graph is not. At the first
// picture of a 12-layer transformer's overview and of the compare overview (the Layers dock
// comparing an applied budget plan with the seed's), at 1560x960 and 1366x768, neither overlay
// covers a node or a cluster title (or, where that cannot be, it is folded to its title); and
// the corners are chosen again when the window is resized.
#include <QComboBox>
#include <QGraphicsScene>
#include <QStandardPaths>
#include <QtTest>

#include "support/ExplorerWindow.h"
#include "views/GraphViews.h"
#include "views/LayerTable.h"

using namespace rx;

class OverlayPlacementTest : public testing::ExplorerWindowTest {
    Q_OBJECT

    GraphCanvas* canvas() { return window_->programView()->canvas(); }

    // What the overlays must keep off: the nodes and cluster titles in view, in viewport pixels.
    std::vector<std::pair<QString, QRect>> graphInView() {
        std::vector<std::pair<QString, QRect>> out;
        GraphCanvas* c = canvas();
        const QRect vp = c->viewport()->rect();
        for (QGraphicsItem* item : c->scene()->items())
            if (item->type() == NodeItem::Type) {
                const QRect r = c->mapFromScene(item->sceneBoundingRect()).boundingRect();
                if (r.intersects(vp)) out.emplace_back(static_cast<NodeItem*>(item)->node().title, r);
            }
        for (const QRectF& t : c->clusterTitleRects()) {
            const QRect r = c->mapFromScene(t).boundingRect();
            if (r.intersects(vp)) out.emplace_back(QStringLiteral("cluster title"), r);
        }
        return out;
    }

    void overlaysKeepOffTheGraph(const QString& what) {
        GraphCanvas* c = canvas();
        QTRY_VERIFY_WITH_TIMEOUT(!c->isLayingOut() && c->itemCountForNodes() > 0, 60000);
        QTest::qWait(400);  // the corners are chosen again once the view rests
        const auto graph = graphInView();
        QVERIFY2(graph.size() >= 5, qPrintable(what));
        QWidget* minimap = c->minimapWidget();
        QWidget* legend = c->legendWidget();
        QVERIFY(minimap->isVisible() && legend->isVisible());
        QVERIFY(!minimap->geometry().intersects(legend->geometry()));
        for (auto [which, w, name] : {std::tuple{GraphCanvas::Overlay::Minimap, minimap, "minimap"}, std::tuple{GraphCanvas::Overlay::Legend, legend, "legend"}}) {
            const QRect at = w->geometry();
            QVERIFY(c->viewport()->rect().contains(at));
            qInfo("%s: %s %s at %d,%d %dx%d", qPrintable(what), name, c->overlayCollapsed(which) ? "folded" : "open", at.x(), at.y(), at.width(), at.height());
            if (c->overlayCollapsed(which)) continue;  // folded to its title where no corner is free
            for (const auto& [title, r] : graph)
                QVERIFY2(!at.intersects(r), qPrintable(QStringLiteral("%1: the %2 (%3,%4 %5x%6) covers '%7' (%8,%9 %10x%11)")
                                                           .arg(what, name)
                                                           .arg(at.x()).arg(at.y()).arg(at.width()).arg(at.height())
                                                           .arg(title)
                                                           .arg(r.x()).arg(r.y()).arg(r.width()).arg(r.height())));
        }
    }

private Q_SLOTS:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        showWindow();
    }
    void cleanupTestCase() { delete window_; }

    void firstPictures_data() {
        QTest::addColumn<QSize>("size");
        QTest::newRow("1560x960") << QSize(1560, 960);
        QTest::newRow("1366x768") << QSize(1366, 768);
    }
    void firstPictures() {
        QFETCH(QSize, size);
        window_->resize(size);
        QTest::qWait(100);
        QVERIFY(window_->showTab("program"));
        openZooTransformer(12);
        overlaysKeepOffTheGraph(QStringLiteral("12-layer overview at %1x%2").arg(size.width()).arg(size.height()));

        // The compare overview: a budget plan applied, compared with the seed's in the Layers dock.
        openZooTransformer(4);
        applyLowestPeakPlan();
        auto* table = window_->findChild<LayerTable*>();
        QVERIFY(table && window_->showTab("layers"));
        QTRY_VERIFY(table->compareChoice()->count() >= 2);
        table->compareChoice()->setCurrentIndex(1);
        QTRY_VERIFY_WITH_TIMEOUT(!table->busy() && table->model()->compared(), 30000);
        QVERIFY(window_->showTab("program"));
        QTRY_VERIFY_WITH_TIMEOUT(!canvas()->isLayingOut() && !window_->programView()->layerComparison().empty(), 30000);
        canvas()->fitReadable();  // the first picture's zoom, as Fit gives it
        overlaysKeepOffTheGraph(QStringLiteral("compare overview at %1x%2").arg(size.width()).arg(size.height()));
        table->compareChoice()->setCurrentIndex(0);
    }

    // Resized, the picture keeps its zoom and the overlays move off what now sits in their way.
    void resizingChoosesAgain() {
        window_->resize(1560, 960);
        openZooTransformer(12);
        overlaysKeepOffTheGraph(QStringLiteral("12-layer overview at 1560x960"));
        window_->resize(1366, 768);
        overlaysKeepOffTheGraph(QStringLiteral("12-layer overview resized to 1366x768"));
        window_->resize(1560, 960);
        overlaysKeepOffTheGraph(QStringLiteral("12-layer overview resized back to 1560x960"));
    }
};

QTEST_MAIN(OverlayPlacementTest)
#include "test_overlay_placement.moc"
