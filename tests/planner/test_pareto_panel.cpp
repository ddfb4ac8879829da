// The explorer's Pareto panel: the frontier plotted with titled axes in human units, the
// seed's and reference plans marked, a click applying a plan, the budget slider re-planning
// off the UI thread.
#include <QtTest>

#include <QChart>
#include <QChartView>
#include <QScatterSeries>
#include <QSlider>
#include <QUndoStack>
#include <QValueAxis>

#include "algorithms/planner/PlanResult.h"
#include "algorithms/zoo/ModelZoo.h"
#include "views/Document.h"
#include "views/ParetoPanel.h"

using namespace rx;

namespace {
zoo::GeneratedProgram program() {
    zoo::ZooOptions o;
    o.model = "transformer";
    o.layers = 2;
    o.hidden = 32;
    o.heads = 2;
    o.seq = 8;
    o.batch = 2;
    return zoo::generateModel(o);
}
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
        QVERIFY2(titles.join("|").contains("Activation peak (MiB)"), qPrintable(titles.join("|")));
        QVERIFY2(titles.join("|").contains("FLOP)"), qPrintable(titles.join("|")));
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
