#pragma once
// The explorer's main window as the views tests drive it: shown at 1560x960, zoo programs
// opened the way a user does (a file and its spec), the Memory Budget frontier clicked.
#include <QChart>
#include <QChartView>
#include <QScatterSeries>
#include <QTemporaryDir>
#include <QtTest>

#include "algorithms/zoo/ModelZoo.h"
#include "model/FileIO.h"
#include "model/PirWriter.h"
#include "views/MainWindow.h"
#include "views/ParetoPanel.h"

namespace rx::testing {

// A test class's base: derive the QObject with the test slots from it.
class ExplorerWindowTest : public QObject {
protected:
    MainWindow* window_ = nullptr;
    QTemporaryDir tmp_;

    Document* doc() { return window_->document(); }

    // The window, shown and exposed at `size` (call from initTestCase; cleanupTestCase deletes it).
    void showWindow(QSize size = QSize(1560, 960)) {
        QVERIFY(tmp_.isValid());
        window_ = new MainWindow(nullptr, false);
        window_->resize(size);
        window_->show();
        QVERIFY(QTest::qWaitForWindowExposed(window_));
    }

    // A generated `layers`-layer transformer with its spec, opened and solved.
    void openZooTransformer(int layers) {
        zoo::ZooOptions o;
        o.model = "transformer";
        o.layers = layers;
        const zoo::GeneratedProgram g = zoo::generateModel(o);
        const QString path = tmp_.path() + QStringLiteral("/zoo%1.pir").arg(layers);
        writeProgramFile(*g.program, path.toStdString());
        writeFileAtomic((tmp_.path() + QStringLiteral("/zoo%1.spec.json").arg(layers)).toStdString(), zoo::specJson(g));
        QVERIFY(window_->openFile(path));
        QVERIFY(doc()->waitForSolve(30000));
        QVERIFY(doc()->result() && doc()->result()->ok());
    }

    // The Memory Budget tab with its frontier computed; null if it does not come.
    ParetoPanel* planFrontier() {
        auto* pareto = window_->findChild<ParetoPanel*>();
        if (!pareto) return nullptr;
        window_->showTab("pareto");
        QTest::qWait(50);
        if (!QTest::qWaitFor([&] { return !pareto->busy() && pareto->frontierCount() > 1; }, 60000)) return nullptr;
        return pareto;
    }

    // Clicks frontier point `index` of the Memory Budget chart with the mouse (the cheapest
    // point is the original's plan; the last one recomputes the most).
    bool clickPlanPoint(ParetoPanel* pareto, size_t index) {
        QChartView* view = pareto->chartView();
        QChart* chart = view->chart();
        QScatterSeries* points = nullptr;
        for (QAbstractSeries* s : chart->series())
            if (s->name() == "budget plans") points = qobject_cast<QScatterSeries*>(s);
        if (!points || int(index) >= points->count()) return false;
        const QPointF at = chart->mapToPosition(points->at(int(index)), points);
        QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, view->mapFromScene(chart->mapToScene(at)));
        return true;
    }

    // Applies the frontier's lowest-peak plan (a click on its point) and waits for it solved.
    void applyLowestPeakPlan() {
        ParetoPanel* pareto = planFrontier();
        QVERIFY(pareto);
        const auto before = doc()->result();
        QVERIFY(clickPlanPoint(pareto, pareto->frontierCount() - 1));
        QTRY_VERIFY_WITH_TIMEOUT(doc()->result() != before, 30000);
        QVERIFY(doc()->waitForSolve(30000));
    }
};

}  // namespace rx::testing
