#pragma once
// The memory-budget frontier as a Qt Charts plot: recompute FLOPs against activation peak,
// one point per frontier plan, the seed's and the reference plans marked. Planning runs off
// the UI thread (QtConcurrent); a budget slider re-plans live; clicking a point (or
// choosePlan) emits planChosen so the window can apply that plan to every view. The
// frontier, the slider and the applied plans share one planner (one answer per budget).
#include <QWidget>

#include <QFutureWatcher>
#include <QThreadPool>
#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

#include "algorithms/Solver.h"
#include "algorithms/planner/BudgetPlanner.h"

QT_BEGIN_NAMESPACE
class QChartView;
class QLabel;
class QSlider;
class QComboBox;
QT_END_NAMESPACE

namespace rx {

class Document;

class ParetoPanel : public QWidget {
    Q_OBJECT
public:
    explicit ParetoPanel(QWidget* parent = nullptr);
    ~ParetoPanel() override;

    // Plans the frontier (and reference plans) of a program in the background.
    void setProgram(std::shared_ptr<const Program> program, RecomputeSpec spec,
                    RecomputeConfig config = RecomputeConfig::seedDefaults());

    bool busy() const;
    // Frontier plans (cheapest first) followed by the reference plans.
    const std::vector<planner::BudgetPlan>& plans() const { return plans_; }
    size_t frontierCount() const { return frontierCount_; }
    int64_t minimumActivationPeak() const { return minPeak_; }
    int64_t originalActivationPeak() const { return originalPeak_; }

    QChartView* chartView() const { return chartView_; }
    QSlider* budgetSlider() const { return slider_; }
    // --recompute-random in the dock: whether the planner may recompute random ops (from their
    // saved masks, or by re-running fixed seeds); a change re-plans the frontier.
    QComboBox* randomRecomputeBox() const { return randomBox_; }
    RandomRecompute randomRecompute() const { return randomRecompute_; }
    void setRandomRecompute(RandomRecompute mode);
    // The plan the document shows, in the Summary's words and figures (planPeaksText).
    QLabel* shownPeaksLabel() const { return shownPeaks_; }

    // The planner behind the frontier, the slider and the applied plans (null before the
    // first frontier); lock its mutex to call it.
    struct SharedPlanner {
        std::mutex mutex;
        std::unique_ptr<planner::BudgetPlanner> planner;
    };
    std::shared_ptr<SharedPlanner> sharedPlanner() const { return planner_; }

    // What a click on point `index` of plans() does.
    void choosePlan(size_t index);

    // Follows a document: re-plans when its program, spec or config changes (while the
    // panel is shown) and applies a clicked or slider plan to it as an undo step
    // (Document::applyPlan; one drag of the slider is one step), so every view shows it.
    void attach(Document* document);

Q_SIGNALS:
    void frontierReady();
    void planChosen(const rx::planner::BudgetPlan& plan);
    void budgetPlanned(const rx::planner::BudgetPlan& plan);  // the slider's plan
    void failed(const QString& message);
    // The chosen plan as a SolveResult for the views (computed off the UI thread).
    void planResultReady(std::shared_ptr<const rx::SolveResult> result, const QString& description);

protected:
    void showEvent(QShowEvent* event) override;

private:
    struct Result;
    void followDocument();
    void showFrontier();
    void replanForSlider(int permille);
    void pointClicked(const QPointF& point);
    size_t nearestPlan(const QPointF& point) const;  // plans_.size() when none
    // Builds the views' SolveResult for `plan` off the UI thread, then applies it.
    void applyInBackground(const planner::BudgetPlan& plan, qint64 mergeKey);
    bool appliedHere(const std::shared_ptr<const SolveResult>& result) const;

    std::shared_ptr<const Program> program_;
    std::shared_ptr<SharedPlanner> planner_;  // of the current generation
    RecomputeSpec spec_;
    RecomputeConfig config_;
    RandomRecompute randomRecompute_ = RandomRecompute::Off;
    std::vector<planner::BudgetPlan> plans_;
    size_t frontierCount_ = 0;
    int64_t minPeak_ = 0, originalPeak_ = 0;
    int64_t floor_ = 0;     // the activation lower bound, drawn as the floor line
    double flopScale_ = 1;  // the axes' units: FLOP and bytes per axis unit
    double byteScale_ = 1;
    uint64_t generation_ = 0;

    QChartView* chartView_ = nullptr;
    QSlider* slider_ = nullptr;
    QComboBox* randomBox_ = nullptr;
    QLabel* status_ = nullptr;
    QLabel* shownPeaks_ = nullptr;
    // The panel's own worker: its planning never holds up the document's solve (or another
    // dock's work) in the global pool, and a frontier for a program no longer shown gives
    // way to the next (latestGeneration_, read by the worker).
    QThreadPool pool_;
    std::shared_ptr<std::atomic<uint64_t>> latestGeneration_ = std::make_shared<std::atomic<uint64_t>>(0);
    QFutureWatcher<std::shared_ptr<Result>>* frontierWatcher_ = nullptr;
    QFutureWatcher<std::shared_ptr<Result>>* budgetWatcher_ = nullptr;
    QFutureWatcher<std::shared_ptr<const SolveResult>>* applyWatcher_ = nullptr;
    Document* document_ = nullptr;
    std::shared_ptr<const SolveResult> seedResult_, shownPlan_;
    QString applyDescription_;
    qint64 applyMergeKey_ = -1;   // of the apply in flight: -1 a click, else the slider drag
    qint64 dragSerial_ = 0;       // bumped per slider press (and per step not dragged)
    std::vector<std::weak_ptr<const SolveResult>> applied_;  // results this panel applied
    bool stale_ = false;
};

}  // namespace rx

Q_DECLARE_METATYPE(rx::planner::BudgetPlan)
