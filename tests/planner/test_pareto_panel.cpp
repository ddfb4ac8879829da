// The explorer's Pareto panel: the frontier plotted with titled axes in human units, the
// seed's and reference plans marked, a click applying a plan, the budget slider re-planning
// off the UI thread.
#include <QtTest>

#include <QSemaphore>
#include <QThreadPool>
#include <QtConcurrent>

#include <QChart>
#include <QComboBox>
#include <QDockWidget>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QChartView>
#include <QLineSeries>
#include <QRegularExpression>
#include <QScatterSeries>
#include <QSlider>
#include <QUndoStack>
#include <QValueAxis>

#include "algorithms/planner/PlanResult.h"
#include "algorithms/zoo/ModelZoo.h"
#include "planner/PlannerPrograms.h"
#include "views/Document.h"
#include "views/MainWindow.h"
#include "views/ParetoPanel.h"

using namespace rx;

namespace {
zoo::GeneratedProgram program() { return test::smallTransformer(2); }
}  // namespace

class TestParetoPanel : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void plotsFrontierAndReferences() {
        const auto g = program();
        ParetoPanel panel;
        panel.resize(640, 480);
        panel.show();
        QSignalSpy ready(&panel, &ParetoPanel::frontierReady);
        panel.setProgram(g.program, g.spec);
        QVERIFY(ready.wait(30000));
        QVERIFY(panel.frontierCount() >= 3);
        QChart* chart = panel.chartView()->chart();
        QStringList names;
        for (QAbstractSeries* s : chart->series()) names << s->name();
        for (const char* n : {"budget plans", "seed", "pytorch-style", "full-checkpoint", "no-recompute"})
            QVERIFY2(names.contains(n), qPrintable(names.join(", ")));
        const auto axes = chart->axes();
        QCOMPARE(axes.size(), 2);
        QStringList titles;
        for (QAbstractAxis* a : axes) titles << a->titleText();
        QVERIFY2(titles.join("|").contains(QRegularExpression("Activation peak \\((KiB|MiB)\\)")), qPrintable(titles.join("|")));
        QVERIFY2(titles.join("|").contains("FLOP)"), qPrintable(titles.join("|")));
        // The peak axis spans the plans and the floor line (the lower bound), not 0 up: the
        // plans lie within a few percent of each other. Every plan at or above the floor.
        QValueAxis* peakAxis = nullptr;
        for (QAbstractAxis* a : axes)
            if (a->titleText().startsWith("Activation peak")) peakAxis = static_cast<QValueAxis*>(a);
        QVERIFY(peakAxis);
        QLineSeries* floorLine = nullptr;
        for (QAbstractSeries* s : chart->series())
            if (s->name() == "floor (lower bound)") floorLine = static_cast<QLineSeries*>(s);
        QVERIFY2(floorLine && floorLine->count() == 2, qPrintable(names.join(", ")));
        const double floorY = floorLine->at(0).y();
        QVERIFY(peakAxis->min() > 0 && peakAxis->min() < floorY);
        double lowest = std::numeric_limits<double>::infinity(), highest = 0;
        for (QAbstractSeries* s : chart->series())
            if (auto* scatter = qobject_cast<QScatterSeries*>(s))
                for (const QPointF& pt : scatter->points()) {
                    QVERIFY2(pt.y() >= floorY, qPrintable(s->name()));
                    lowest = std::min(lowest, pt.y());
                    highest = std::max(highest, pt.y());
                }
        QVERIFY(peakAxis->max() > highest);
        QVERIFY2((highest - floorY) > 0.5 * (peakAxis->max() - peakAxis->min()),
                 "the plans fill less than half of the peak axis");
        // The frontier series holds one point per frontier plan.
        for (QAbstractSeries* s : chart->series())
            if (s->name() == "budget plans")
                QCOMPARE(size_t(static_cast<QScatterSeries*>(s)->count()), panel.frontierCount());

        // Clicking a point emits that plan.
        QSignalSpy chosen(&panel, &ParetoPanel::planChosen);
        panel.choosePlan(1);
        QCOMPARE(chosen.size(), 1);
        const auto plan = chosen.at(0).at(0).value<planner::BudgetPlan>();
        QCOMPARE(plan.activationPeakBytes, panel.plans()[1].activationPeakBytes);

        // The slider re-plans in the background; the plan fits the slider's budget.
        QSignalSpy planned(&panel, &ParetoPanel::budgetPlanned);
        panel.budgetSlider()->setValue(0);
        QVERIFY(planned.wait(30000));
        const auto tight = planned.last().at(0).value<planner::BudgetPlan>();
        QVERIFY(tight.budgetBytes.has_value());
        QVERIFY(tight.activationPeakBytes <= *tight.budgetBytes);
        QVERIFY(tight.activationPeakBytes <= panel.minimumActivationPeak());
    }

    void solveAndFrontierNeverWaitOnTheGlobalPool() {
        // The global pool is all taken (on 2 cores it has 2 threads): the document still
        // solves and the panel still plans, each on its own thread. (Long work kept out of
        // the global pool also keeps painting live: Qt's raster engine fills on that pool.)
        QThreadPool* global = QThreadPool::globalInstance();
        const int threads = global->maxThreadCount();
        QSemaphore release;
        std::vector<QFuture<void>> blockers;
        for (int i = 0; i < threads; ++i) blockers.push_back(QtConcurrent::run(global, [&release] { release.acquire(); }));
        const auto g = program();
        Document doc;
        QVERIFY(doc.openText(QString::fromStdString(printProgramForTest(*g.program)), "t.pir"));
        doc.solveNow();
        QElapsedTimer clock;  // not waitForSolve: its waitForFinished would run a queued solve itself
        clock.start();
        while (!doc.result() && clock.elapsed() < 30000) QTest::qWait(20);
        const bool solved = doc.result() != nullptr;
        ParetoPanel panel;  // not shown: Qt's raster painting itself waits on the global pool
        QSignalSpy ready(&panel, &ParetoPanel::frontierReady);
        panel.setProgram(g.program, g.spec);
        const bool planned = ready.wait(30000);
        release.release(threads);
        for (auto& f : blockers) f.waitForFinished();
        QVERIFY2(solved, "the document's solve waited on the global pool");
        QVERIFY2(planned, "the frontier waited on the global pool");
        QVERIFY(doc.result() && doc.result()->ok());
        QVERIFY(panel.frontierCount() >= 1);
    }

    void sliderAndFrontierShareOnePlanner() {
        // The slider asks the frontier's own planner: at a frontier point's budget it gets
        // that point's plan (planning is a function of the budget).
        const auto g = program();
        ParetoPanel panel;
        panel.resize(640, 480);
        panel.show();
        QSignalSpy ready(&panel, &ParetoPanel::frontierReady);
        panel.setProgram(g.program, g.spec);
        QVERIFY(ready.wait(30000));
        auto shared = panel.sharedPlanner();
        QVERIFY(shared && shared->planner);
        for (size_t i = 0; i < panel.frontierCount(); ++i) {
            const planner::BudgetPlan& point = panel.plans()[i];
            std::lock_guard lock(shared->mutex);
            const planner::BudgetPlan asked = shared->planner->planForBudget(*point.budgetBytes);
            QCOMPARE(asked.recomputeOps, point.recomputeOps);
            QCOMPARE(asked.activationPeakBytes, point.activationPeakBytes);
        }
        // The slider at its left end: the smallest frontier peak, as the frontier's last point.
        QSignalSpy planned(&panel, &ParetoPanel::budgetPlanned);
        panel.budgetSlider()->setValue(0);
        QVERIFY(planned.wait(30000));
        const auto tight = planned.last().at(0).value<planner::BudgetPlan>();
        QCOMPARE(tight.activationPeakBytes, panel.plans()[panel.frontierCount() - 1].activationPeakBytes);
    }

    void randomRecomputeControlReplans() {
        // The dock's --recompute-random: choosing "from masks" re-plans with dropout outputs
        // recomputable (attention large enough that it pays), and its plans carry the mode.
        zoo::ZooOptions o;
        o.layers = 2;
        o.hidden = 32;
        o.heads = 2;
        o.seq = 64;
        o.batch = 2;
        const auto g = zoo::generateModel(o);
        ParetoPanel panel;
        panel.resize(640, 480);
        panel.show();
        QSignalSpy ready(&panel, &ParetoPanel::frontierReady);
        panel.setProgram(g.program, g.spec);
        QVERIFY(ready.wait(60000));
        QCOMPARE(panel.randomRecompute(), RandomRecompute::Off);
        const int64_t keptFloor = panel.minimumActivationPeak();
        QComboBox* box = panel.randomRecomputeBox();
        QVERIFY(box && box->count() == 3);
        box->setCurrentIndex(box->findData(int(RandomRecompute::Mask)));
        QCOMPARE(panel.randomRecompute(), RandomRecompute::Mask);
        QVERIFY(ready.wait(60000));
        QCOMPARE(panel.sharedPlanner()->planner->randomRecompute(), RandomRecompute::Mask);
        QVERIFY2(panel.minimumActivationPeak() < keptFloor, "masks did not lower the floor");
        QSignalSpy chosen(&panel, &ParetoPanel::planChosen);
        panel.choosePlan(panel.frontierCount() - 1);
        QCOMPARE(chosen.size(), 1);
        QCOMPARE(chosen.at(0).at(0).value<planner::BudgetPlan>().plan.randomRecompute, RandomRecompute::Mask);
    }

    void frontierReadableAndClickableInTheDefaultLayout_data() {
        QTest::addColumn<QSize>("windowSize");
        QTest::newRow("1560x960") << QSize(1560, 960);
        QTest::newRow("1366x768") << QSize(1366, 768);
    }

    void frontierReadableAndClickableInTheDefaultLayout() {
        // The Memory Budget dock in the window's default layout (a tab beside Summary, 200 px
        // tall): the plot keeps a usable height and a click on every frontier point applies
        // that point's plan (or one drawn on the same spot).
        QFETCH(QSize, windowSize);
        QStandardPaths::setTestModeEnabled(true);
        QTemporaryDir tmp;
        const QString path = tmp.filePath("t.pir");
        {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(QByteArray::fromStdString(printProgramForTest(*program().program)));
        }
        MainWindow window(nullptr, false);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        if (windowSize != window.size()) window.resize(windowSize);
        QTest::qWait(50);
        QVERIFY(window.openFile(path));
        QVERIFY(window.document()->waitForSolve(30000));
        auto* dock = window.findChild<QDockWidget*>("paretoDock");
        auto* panel = window.findChild<ParetoPanel*>();
        QVERIFY(dock && panel);
        QSignalSpy ready(panel, &ParetoPanel::frontierReady);
        dock->raise();  // the user picks the Memory Budget tab
        QVERIFY(ready.wait(30000));
        QTest::qWait(100);
        QChart* chart = panel->chartView()->chart();
        const QRectF area = chart->plotArea();
        qInfo("window %dx%d: dock %dx%d, plot area %.0fx%.0f px", window.width(), window.height(), dock->width(),
              dock->height(), area.width(), area.height());
        QVERIFY2(area.height() >= 60, qPrintable(QString("plot area only %1 px tall").arg(area.height())));
        QVERIFY2(area.width() >= 200, qPrintable(QString("plot area only %1 px wide").arg(area.width())));
        QScatterSeries* points = nullptr;
        for (QAbstractSeries* s : chart->series())
            if (s->name() == "budget plans") points = static_cast<QScatterSeries*>(s);
        QVERIFY(points);
        QCOMPARE(size_t(points->count()), panel->frontierCount());
        auto pixelOf = [&](QPointF value) {
            return panel->chartView()->mapFromScene(chart->mapToScene(chart->mapToPosition(value, points)));
        };
        for (int i = 0; i < points->count(); ++i) {
            const QPoint at = pixelOf(points->at(i));
            QVERIFY2(panel->chartView()->viewport()->rect().contains(at), "point outside the view");
            QSignalSpy chosen(panel, &ParetoPanel::planChosen);
            QTest::mouseClick(panel->chartView()->viewport(), Qt::LeftButton, {}, at);
            QCOMPARE(chosen.size(), 1);
            const auto plan = chosen.at(0).at(0).value<planner::BudgetPlan>();
            // The chosen plan is the clicked one, or drawn within a marker of it.
            const planner::BudgetPlan& clicked = panel->plans()[size_t(i)];
            const bool sameSpot = plan.recomputeFlops == clicked.recomputeFlops &&
                                  plan.activationPeakBytes == clicked.activationPeakBytes;  // e.g. a reference plan
            if (plan.recomputeOps != clicked.recomputeOps && !sameSpot) {
                int index = -1;
                for (size_t k = 0; k < panel->plans().size(); ++k)
                    if (panel->plans()[k].recomputeOps == plan.recomputeOps) index = int(k);
                QVERIFY(index >= 0);
                // Drawn within a marker of the clicked point (a reference plan's marker too).
                const double scale = points->at(i).x() > 0 ? clicked.recomputeFlops / points->at(i).x() : 0;
                const double byteScale = double(clicked.activationPeakBytes) / points->at(i).y();
                const QPointF otherValue = size_t(index) < panel->frontierCount()
                                               ? points->at(index)
                                               : QPointF(scale > 0 ? plan.recomputeFlops / scale : 0,
                                                         double(plan.activationPeakBytes) / byteScale);
                const QPoint other = pixelOf(otherValue);
                qInfo("point %d (%s, %.0f FLOP, %lld B) chose %s (%.0f FLOP, %lld B) at %d px", i,
                      clicked.source.c_str(), clicked.recomputeFlops, (long long)clicked.activationPeakBytes,
                      plan.source.c_str(), plan.recomputeFlops, (long long)plan.activationPeakBytes,
                      (other - at).manhattanLength());
                QVERIFY2((other - at).manhattanLength() <= 12, "a click chose a plan drawn elsewhere");
            }
        }
    }

    void chosenPlanReachesTheDocument() {
        const auto g = program();
        Document doc;
        QVERIFY(doc.openText(QString::fromStdString(printProgramForTest(*g.program)), "t.pir"));
        doc.solveNow();
        QVERIFY(doc.waitForSolve(30000));
        planner::BudgetPlanner planner(doc.programPtr(), doc.spec(), doc.config());
        const planner::BudgetPlan tight = planner.planForBudget(planner.budgetFromFraction(0.0));
        QSignalSpy changed(&doc, &Document::resultChanged);
        doc.showPlan(planner::solveResultFor(planner, tight, *doc.result()), "budget plan");
        QCOMPARE(changed.size(), 1);
        QCOMPARE(doc.result()->plan.recomputeOps, tight.recomputeOps);
        QCOMPARE(doc.result()->rewrittenMemory.peakBytes, tight.peakBytes);
        QVERIFY(!changed.at(0).at(0).value<std::vector<ValueId>>().empty());
    }

    void clickAppliesPlanToAttachedDocument() {
        const auto g = program();
        Document doc;
        QVERIFY(doc.openText(QString::fromStdString(printProgramForTest(*g.program)), "t.pir"));
        doc.solveNow();
        QVERIFY(doc.waitForSolve(30000));
        ParetoPanel panel;
        panel.show();
        QSignalSpy ready(&panel, &ParetoPanel::frontierReady);
        panel.attach(&doc);
        QVERIFY(ready.wait(30000));
        QSignalSpy changed(&doc, &Document::resultChanged);
        const size_t last = panel.frontierCount() - 1;  // the lowest-memory frontier plan
        panel.choosePlan(last);
        QVERIFY(changed.wait(30000));
        QCOMPARE(doc.result()->plan.recomputeOps, panel.plans()[last].recomputeOps);
        QCOMPARE(doc.result()->rewrittenMemory.peakBytes, panel.plans()[last].peakBytes);
        // The panel does not re-plan for its own result.
        QVERIFY(!panel.busy());
    }

    void appliedPlansAreUndoSteps() {
        const auto g = program();
        Document doc;
        QVERIFY(doc.openText(QString::fromStdString(printProgramForTest(*g.program)), "t.pir"));
        doc.solveNow();
        QVERIFY(doc.waitForSolve(30000));
        const auto seed = doc.result();
        ParetoPanel panel;
        panel.show();
        QSignalSpy ready(&panel, &ParetoPanel::frontierReady);
        panel.attach(&doc);
        QVERIFY(ready.wait(30000));
        QVERIFY(panel.frontierCount() >= 3);
        QUndoStack* stack = doc.undoStack();
        const int base = stack->count();
        QSignalSpy changed(&doc, &Document::resultChanged);
        auto waitApplied = [&](int count) {
            while (changed.size() < count)
                if (!changed.wait(30000)) return false;
            return true;
        };
        // Two clicked points: two undo steps; undoing both brings the seed's plan back.
        const size_t last = panel.frontierCount() - 1;
        panel.choosePlan(last);
        QVERIFY(waitApplied(1));
        QCOMPARE(doc.result()->plan.recomputeOps, panel.plans()[last].recomputeOps);
        panel.choosePlan(1);
        QVERIFY(waitApplied(2));
        QCOMPARE(doc.result()->plan.recomputeOps, panel.plans()[1].recomputeOps);
        QCOMPARE(stack->count(), base + 2);
        stack->undo();
        QCOMPARE(doc.result()->plan.recomputeOps, panel.plans()[last].recomputeOps);
        stack->undo();
        QCOMPARE(doc.result(), seed);
        QVERIFY(!panel.busy());  // showing an earlier plan again re-plans nothing
        // A slider drag of 5 steps, each applied: one undo step, undone in one Ctrl+Z.
        panel.budgetSlider()->setSliderDown(true);
        int expected = changed.size();
        for (int v : {900, 700, 500, 300, 100}) {
            panel.budgetSlider()->setValue(v);
            QVERIFY(waitApplied(++expected));
        }
        panel.budgetSlider()->setSliderDown(false);
        QCOMPARE(stack->count(), base + 1);  // the two undone clicks gave way to one drag
        QVERIFY(doc.result() != seed);
        stack->undo();
        QCOMPARE(doc.result(), seed);
        stack->redo();
        QVERIFY(doc.result()->plan.recomputeOps != seed->plan.recomputeOps);
    }

private:
    static std::string printProgramForTest(const Program& p);
};

#include "model/PirWriter.h"
std::string TestParetoPanel::printProgramForTest(const Program& p) { return printProgram(p); }

QTEST_MAIN(TestParetoPanel)
#include "test_pareto_panel.moc"
