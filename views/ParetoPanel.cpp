// The Pareto panel: frontier plot (Qt Charts), reference markers, live budget slider.
#include "views/ParetoPanel.h"

#include <QChart>
#include <QChartView>
#include <QLabel>
#include <QLineSeries>
#include <QScatterSeries>
#include <QSlider>
#include <QValueAxis>
#include <QVBoxLayout>
#include <QtConcurrent>

#include <algorithm>
#include <cmath>

#include "algorithms/planner/Budget.h"
#include "algorithms/planner/PlanResult.h"
#include "views/Document.h"
#include "model/Diagnostic.h"

namespace rx {

struct ParetoPanel::Result {
    std::vector<planner::BudgetPlan> plans;
    size_t frontierCount = 0;
    int64_t minPeak = 0, originalPeak = 0;
    std::string error;
    uint64_t generation = 0;
    qint64 mergeKey = -1;  // the slider drag it answers
};

namespace {
constexpr double kMiB = 1024.0 * 1024.0;

std::pair<double, QString> flopUnit(double maxFlops) {
    if (maxFlops >= 1e12) return {1e12, "TFLOP"};
    if (maxFlops >= 1e9) return {1e9, "GFLOP"};
    if (maxFlops >= 1e6) return {1e6, "MFLOP"};
    if (maxFlops >= 1e3) return {1e3, "KFLOP"};
    return {1, "FLOP"};
}
}  // namespace

ParetoPanel::ParetoPanel(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    chartView_ = new QChartView(new QChart, this);
    chartView_->setRenderHint(QPainter::Antialiasing);
    chartView_->chart()->setTitle(tr("Memory budget frontier"));
    layout->addWidget(chartView_, 1);
    slider_ = new QSlider(Qt::Horizontal, this);
    slider_->setRange(0, 1000);
    slider_->setValue(1000);
    slider_->setEnabled(false);
    slider_->setToolTip(tr("Budget: from the smallest feasible activation peak (left) to the original's (right)"));
    layout->addWidget(slider_);
    status_ = new QLabel(tr("No program"), this);
    layout->addWidget(status_);
    frontierWatcher_ = new QFutureWatcher<std::shared_ptr<Result>>(this);
    budgetWatcher_ = new QFutureWatcher<std::shared_ptr<Result>>(this);
    connect(frontierWatcher_, &QFutureWatcherBase::finished, this, [this] {
        const auto r = frontierWatcher_->result();
        if (!r || r->generation != generation_) return;
        if (!r->error.empty()) {
            status_->setText(QString::fromStdString(r->error));
            Q_EMIT failed(QString::fromStdString(r->error));
            return;
        }
        plans_ = r->plans;
        frontierCount_ = r->frontierCount;
        minPeak_ = r->minPeak;
        originalPeak_ = r->originalPeak;
        showFrontier();
        Q_EMIT frontierReady();
    });
    connect(budgetWatcher_, &QFutureWatcherBase::finished, this, [this] {
        const auto r = budgetWatcher_->result();
        if (!r || r->generation != generation_) return;
        if (!r->error.empty()) {
            status_->setText(QString::fromStdString(r->error));
            return;
        }
        const planner::BudgetPlan& p = r->plans.front();
        status_->setText(tr("Budget %1: activation peak %2, recompute %3")
                             .arg(QString::fromStdString(planner::humanBytes(*p.budgetBytes)),
                                  QString::fromStdString(planner::humanBytes(p.activationPeakBytes)),
                                  QString::fromStdString(planner::humanFlops(p.recomputeFlops))));
        Q_EMIT budgetPlanned(p);
        applyInBackground(p, r->mergeKey);
    });
    // One press-drag-release of the slider is one undo step; each keyboard step is its own.
    connect(slider_, &QSlider::sliderPressed, this, [this] { ++dragSerial_; });
    connect(slider_, &QSlider::valueChanged, this, [this](int permille) {
        if (!slider_->isSliderDown()) ++dragSerial_;
        replanForSlider(permille);
    });
    applyWatcher_ = new QFutureWatcher<std::shared_ptr<const SolveResult>>(this);
    connect(applyWatcher_, &QFutureWatcherBase::finished, this, [this] {
        auto r = applyWatcher_->result();
        if (r) Q_EMIT planResultReady(r, applyDescription_);
    });
}

void ParetoPanel::attach(Document* document) {
    document_ = document;
    connect(document, &Document::resultChanged, this, [this] { followDocument(); });
    connect(this, &ParetoPanel::planResultReady, document,
            [this](std::shared_ptr<const SolveResult> r, const QString& description) {
                shownPlan_ = r;
                applied_.push_back(r);
                document_->applyPlan(std::move(r), description, applyMergeKey_);
            });
    followDocument();
}

void ParetoPanel::followDocument() {
    if (!document_ || !document_->hasProgram()) return;
    const auto result = document_->result();
    // The seed's result is the base of every applied plan; an undo may bring back a plan.
    if (result && !appliedHere(result) && result->ok()) seedResult_ = result;
    const bool changed = document_->programPtr() != program_ || document_->config() != config_ ||
                         document_->spec().fwdOpEndIdx != spec_.fwdOpEndIdx ||
                         document_->spec().backwardOpStartIdx != spec_.backwardOpStartIdx;
    if (!changed) return;
    if (isVisible()) setProgram(document_->programPtr(), document_->spec(), document_->config());
    else stale_ = true;  // planned when shown: big programs cost nothing until asked
}

void ParetoPanel::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    if (stale_ && document_) {
        stale_ = false;
        setProgram(document_->programPtr(), document_->spec(), document_->config());
    }
}

ParetoPanel::~ParetoPanel() {
    frontierWatcher_->waitForFinished();
    budgetWatcher_->waitForFinished();
    applyWatcher_->waitForFinished();
}

bool ParetoPanel::busy() const { return frontierWatcher_->isRunning() || budgetWatcher_->isRunning(); }

void ParetoPanel::setProgram(std::shared_ptr<const Program> program, RecomputeSpec spec, RecomputeConfig config) {
    program_ = std::move(program);
    spec_ = std::move(spec);
    config_ = std::move(config);
    const uint64_t gen = ++generation_;
    slider_->setEnabled(false);
    status_->setText(tr("Planning the frontier…"));
    auto prog = program_;
    auto sp = spec_;
    auto cfg = config_;
    frontierWatcher_->setFuture(QtConcurrent::run([prog, sp, cfg, gen]() {
        auto r = std::make_shared<Result>();
        r->generation = gen;
        try {
            planner::BudgetPlanner planner(prog, sp, cfg);
            std::vector<planner::BudgetPlan> refs;
            try {
                refs.push_back(planner.seedPlan());
            } catch (const Error&) {  // the seed fails on this program: no seed marker
            }
            refs.push_back(planner.pytorchStylePlan(0.5));
            refs.push_back(planner.fullCheckpointPlan());
            refs.push_back(planner.noRecomputePlan());
            r->plans = planner.frontier(20, refs);
            r->frontierCount = r->plans.size();
            r->plans.insert(r->plans.end(), refs.begin(), refs.end());
            r->minPeak = planner.minimumActivationPeak();
            r->originalPeak = planner.originalActivationPeak();
        } catch (const std::exception& e) {
            r->error = e.what();
        }
        return r;
    }));
}

void ParetoPanel::showFrontier() {
    QChart* chart = chartView_->chart();
    chart->removeAllSeries();
    for (QAbstractAxis* axis : chart->axes()) chart->removeAxis(axis);
    double maxFlops = 0;
    for (const auto& p : plans_) maxFlops = std::max(maxFlops, p.recomputeFlops);
    const auto [scale, unit] = flopUnit(maxFlops);
    flopScale_ = scale;

    auto* line = new QLineSeries;
    line->setName(tr("frontier"));
    auto* points = new QScatterSeries;
    points->setName(tr("budget plans"));
    points->setMarkerSize(9);
    for (size_t i = 0; i < frontierCount_; ++i) {
        const QPointF pt(plans_[i].recomputeFlops / scale, double(plans_[i].activationPeakBytes) / kMiB);
        line->append(pt);
        points->append(pt);
    }
    chart->addSeries(line);
    chart->addSeries(points);
    // One marked series per reference source.
    std::map<std::string, QScatterSeries*> refs;
    for (size_t i = frontierCount_; i < plans_.size(); ++i) {
        auto& s = refs[plans_[i].source];
        if (!s) {
            s = new QScatterSeries;
            s->setName(QString::fromStdString(plans_[i].source));
            s->setMarkerShape(plans_[i].source == "seed" ? QScatterSeries::MarkerShapeRectangle
                                                          : QScatterSeries::MarkerShapeCircle);
            s->setMarkerSize(13);
            chart->addSeries(s);
        }
        s->append(plans_[i].recomputeFlops / scale, double(plans_[i].activationPeakBytes) / kMiB);
    }
    auto* x = new QValueAxis;
    x->setTitleText(tr("Recompute (%1)").arg(unit));
    x->setLabelFormat("%.3g");
    auto* y = new QValueAxis;
    y->setTitleText(tr("Activation peak (MiB)"));
    y->setLabelFormat("%.4g");
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    for (QAbstractSeries* s : chart->series()) {
        s->attachAxis(x);
        s->attachAxis(y);
        if (auto* scatter = qobject_cast<QScatterSeries*>(s))
            connect(scatter, &QScatterSeries::clicked, this, &ParetoPanel::pointClicked);
    }
    double maxMiB = 0;
    for (const auto& p : plans_) maxMiB = std::max(maxMiB, double(p.activationPeakBytes) / kMiB);
    x->setRange(0, std::max(1e-9, maxFlops / scale) * 1.05);
    y->setRange(0, std::max(1e-9, maxMiB) * 1.05);
    slider_->setEnabled(true);
    status_->setText(tr("%1 frontier plans; activation peak %2 → %3")
                         .arg(frontierCount_)
                         .arg(QString::fromStdString(planner::humanBytes(originalPeak_)),
                              QString::fromStdString(planner::humanBytes(minPeak_))));
}

void ParetoPanel::pointClicked(const QPointF& point) {
    // The plan nearest the click in the plot's own units.
    size_t best = 0;
    double bestDistance = std::numeric_limits<double>::infinity();
    for (size_t i = 0; i < plans_.size(); ++i) {
        const double dx = plans_[i].recomputeFlops / flopScale_ - point.x();
        const double dy = double(plans_[i].activationPeakBytes) / kMiB - point.y();
        const double d = dx * dx + dy * dy;
        if (d < bestDistance) { bestDistance = d; best = i; }
    }
    if (!plans_.empty()) choosePlan(best);
}

void ParetoPanel::choosePlan(size_t index) {
    if (index >= plans_.size()) return;
    const auto& p = plans_[index];
    status_->setText(tr("Applied the %1 plan: activation peak %2, recompute %3")
                         .arg(QString::fromStdString(p.source),
                              QString::fromStdString(planner::humanBytes(p.activationPeakBytes)),
                              QString::fromStdString(planner::humanFlops(p.recomputeFlops))));
    Q_EMIT planChosen(p);
    applyInBackground(p, -1);
}

bool ParetoPanel::appliedHere(const std::shared_ptr<const SolveResult>& result) const {
    // By owner: an expired entry never matches a new result at a reused address.
    return std::any_of(applied_.begin(), applied_.end(), [&](const std::weak_ptr<const SolveResult>& w) {
        return !w.owner_before(result) && !result.owner_before(w);
    });
}

void ParetoPanel::applyInBackground(const planner::BudgetPlan& p, qint64 mergeKey) {
    if (!seedResult_ || !program_) return;
    // The views' SolveResult for this plan, off the UI thread (rewrites the program).
    applyDescription_ = tr("the %1 plan (activation peak %2)")
                            .arg(QString::fromStdString(p.source),
                                 QString::fromStdString(planner::humanBytes(p.activationPeakBytes)));
    applyMergeKey_ = mergeKey;
    auto prog = program_;
    auto sp = spec_;
    auto cfg = config_;
    auto seed = seedResult_;
    applyWatcher_->setFuture(QtConcurrent::run([prog, sp, cfg, seed, p]() -> std::shared_ptr<const SolveResult> {
        try {
            planner::BudgetPlanner planner(prog, sp, cfg);
            return planner::solveResultFor(planner, p, *seed);
        } catch (const std::exception&) {
            return nullptr;
        }
    }));
}

void ParetoPanel::replanForSlider(int permille) {
    if (!program_ || plans_.empty()) return;
    const int64_t budget = minPeak_ + int64_t(std::llround(double(originalPeak_ - minPeak_) * permille / 1000.0));
    const uint64_t gen = generation_;
    const qint64 key = dragSerial_;
    auto prog = program_;
    auto sp = spec_;
    auto cfg = config_;
    budgetWatcher_->setFuture(QtConcurrent::run([prog, sp, cfg, gen, budget, key]() {
        auto r = std::make_shared<Result>();
        r->generation = gen;
        r->mergeKey = key;
        try {
            planner::BudgetPlanner planner(prog, sp, cfg);
            r->plans.push_back(planner.planForBudget(budget));
        } catch (const std::exception& e) {
            r->error = e.what();
        }
        return r;
    }));
}

}  // namespace rx
