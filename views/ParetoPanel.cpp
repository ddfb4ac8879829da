// The Pareto panel: frontier plot (Qt Charts), reference markers, live budget slider.
#include "views/ParetoPanel.h"

#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QLabel>
#include <QLineF>
#include <QLineSeries>
#include <QPen>
#include <QScatterSeries>
#include <QSlider>
#include <QValueAxis>
#include <QGraphicsLayout>
#include <QHBoxLayout>
#include <QVBoxLayout>
#include <QtConcurrent>

#include <algorithm>
#include <cmath>
#include <limits>

#include "algorithms/planner/Budget.h"
#include "algorithms/planner/PlanResult.h"
#include "views/Document.h"
#include "views/Panels.h"
#include "model/Diagnostic.h"

namespace rx {

struct ParetoPanel::Result {
    std::vector<planner::BudgetPlan> plans;
    size_t frontierCount = 0;
    int64_t minPeak = 0, originalPeak = 0;
    int64_t floor = 0;  // no plan's activation peak goes below it (activationLowerBound)
    std::string error;
    uint64_t generation = 0;
    qint64 mergeKey = -1;  // the slider drag it answers
};

namespace {

std::pair<double, QString> flopUnit(double maxFlops) {
    if (maxFlops >= 1e12) return {1e12, "TFLOP"};
    if (maxFlops >= 1e9) return {1e9, "GFLOP"};
    if (maxFlops >= 1e6) return {1e6, "MFLOP"};
    if (maxFlops >= 1e3) return {1e3, "KFLOP"};
    return {1, "FLOP"};
}

// Bytes in the unit that keeps a peak's axis labels short: a program of a few hundred KiB
// read 0.2484 MiB on every tick.
std::pair<double, QString> byteUnit(double maxBytes) {
    if (maxBytes >= 1024.0 * 1024.0 * 1024.0) return {1024.0 * 1024.0 * 1024.0, "GiB"};
    if (maxBytes >= 1024.0 * 1024.0) return {1024.0 * 1024.0, "MiB"};
    if (maxBytes >= 1024.0) return {1024.0, "KiB"};
    return {1, "B"};
}
}  // namespace

ParetoPanel::ParetoPanel(QWidget* parent) : QWidget(parent) {
    pool_.setMaxThreadCount(1);
    // Laid out for a bottom dock of ~190 px: the plot gets the height. No chart title (the
    // dock's title says it), the legend beside the plot, thin margins, and the slider and
    // status on one row, so the plot area stays well over 100 px tall and every marker can
    // be clicked at 1366x768 (a chart title and a legend below the plot left it ~10 px).
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->setSpacing(2);
    auto* chart = new QChart;
    chart->setMargins(QMargins(2, 2, 2, 2));
    chart->layout()->setContentsMargins(0, 0, 0, 0);
    chart->setBackgroundRoundness(0);
    chart->legend()->setAlignment(Qt::AlignRight);
    QFont small = chart->legend()->font();
    small.setPointSizeF(std::max(6.0, small.pointSizeF() * 0.85));
    chart->legend()->setFont(small);
    chart->setToolTip(tr("Memory budget frontier: click a point to apply its plan"));
    chartView_ = new QChartView(chart, this);
    chartView_->setRenderHint(QPainter::Antialiasing);
    chartView_->setMinimumHeight(150);
    layout->addWidget(chartView_, 1);
    auto* row = new QHBoxLayout;
    row->setSpacing(6);
    slider_ = new QSlider(Qt::Horizontal, this);
    slider_->setRange(0, 1000);
    slider_->setValue(1000);
    slider_->setEnabled(false);
    slider_->setToolTip(tr("Budget: from the smallest feasible activation peak (left) to the original's (right)"));
    row->addWidget(slider_, 1);
    randomBox_ = new QComboBox(this);
    randomBox_->addItem(tr("Random ops: kept"), int(RandomRecompute::Off));
    randomBox_->addItem(tr("Random ops: from masks"), int(RandomRecompute::Mask));
    randomBox_->addItem(tr("Random ops: re-run fixed seeds"), int(RandomRecompute::Seed));
    randomBox_->setToolTip(tr("--recompute-random: whether plans may recompute random ops. Kept (the seed's rule): "
                              "never. From masks: a dropout output is rebuilt from its saved 1-byte mask, bitwise "
                              "as the kernel computes it. Re-run fixed seeds: ops with fix_seed run again."));
    connect(randomBox_, &QComboBox::currentIndexChanged, this,
            [this](int) { setRandomRecompute(RandomRecompute(randomBox_->currentData().toInt())); });
    row->addWidget(randomBox_);
    status_ = new QLabel(tr("No program"), this);
    status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    row->addWidget(status_, 2);
    layout->addLayout(row);
    shownPeaks_ = new QLabel(this);
    shownPeaks_->setObjectName("paretoShownPeaks");
    shownPeaks_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    shownPeaks_->setToolTip(tr("The plan every view shows, as the Summary gives it: the peak counts resident inputs and "
                               "parameters, the activation peak (what a budget bounds) does not"));
    layout->addWidget(shownPeaks_);
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
        floor_ = r->floor;
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
    if (result && result->ok())
        shownPeaks_->setText(tr("Shown: %1").arg(planPeaksText(planPeaks(result->originalMemory, result->rewrittenMemory))));
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

void ParetoPanel::setRandomRecompute(RandomRecompute mode) {
    if (randomBox_->currentData().toInt() != int(mode)) {
        randomBox_->setCurrentIndex(randomBox_->findData(int(mode)));  // comes back here
        return;
    }
    if (mode == randomRecompute_) return;
    randomRecompute_ = mode;
    if (program_) setProgram(program_, spec_, config_);
}

ParetoPanel::~ParetoPanel() {
    latestGeneration_->store(UINT64_MAX);  // a frontier still queued or bounding stops early
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
    latestGeneration_->store(gen);
    slider_->setEnabled(false);
    status_->setText(tr("Planning the frontier…"));
    auto shared = std::make_shared<SharedPlanner>();
    planner_ = shared;
    auto prog = program_;
    auto sp = spec_;
    auto cfg = config_;
    planner::PlannerOptions options;
    options.randomRecompute = randomRecompute_;
    auto latest = latestGeneration_;
    frontierWatcher_->setFuture(QtConcurrent::run(&pool_, [shared, prog, sp, cfg, gen, options, latest]() {
        auto r = std::make_shared<Result>();
        r->generation = gen;
        auto stale = [latest, gen] { return latest->load() != gen; };
        if (stale()) return r;  // another program came while this one waited: nobody reads it
        std::lock_guard lock(shared->mutex);
        try {
            shared->planner = std::make_unique<planner::BudgetPlanner>(prog, sp, cfg, planner::CostModel{}, options);
            planner::BudgetPlanner& planner = *shared->planner;
            r->plans = planner.frontier(20);
            if (stale()) return r;
            // Each point's gap to the LP relaxation's bound (the full model up to 1000
            // candidate ops, as `pareto` does), given up as soon as the panel moves on.
            planner::ExactOptions bounds;
            bounds.lpMaxCandidates = 1000;
            bounds.stop = stale;
            planner.boundFrontier(r->plans, bounds);
            r->frontierCount = r->plans.size();
            const auto& refs = planner.referencePlans().plans;  // assembled once, by the planner
            r->plans.insert(r->plans.end(), refs.begin(), refs.end());
            r->minPeak = planner.minimumActivationPeak();
            r->originalPeak = planner.originalActivationPeak();
            r->floor = planner.activationLowerBound();
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
    double maxFlops = 0, maxBytes = 0, lowBytes = std::numeric_limits<double>::infinity();
    for (const auto& p : plans_) {
        maxFlops = std::max(maxFlops, p.recomputeFlops);
        maxBytes = std::max(maxBytes, double(p.activationPeakBytes));
        lowBytes = std::min(lowBytes, double(p.activationPeakBytes));
    }
    if (plans_.empty()) lowBytes = 0;
    if (floor_ > 0) lowBytes = std::min(lowBytes, double(floor_));
    const auto [scale, unit] = flopUnit(maxFlops);
    flopScale_ = scale;
    const auto [bytesScale, bytesUnit] = byteUnit(maxBytes);
    byteScale_ = bytesScale;

    auto* line = new QLineSeries;
    line->setName(tr("frontier"));
    auto* points = new QScatterSeries;
    points->setName(tr("budget plans"));
    points->setMarkerSize(9);
    for (size_t i = 0; i < frontierCount_; ++i) {
        const QPointF pt(plans_[i].recomputeFlops / scale, double(plans_[i].activationPeakBytes) / byteScale_);
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
        s->append(plans_[i].recomputeFlops / scale, double(plans_[i].activationPeakBytes) / byteScale_);
    }
    // The floor no plan goes below, across the plot: how far the frontier is from it.
    const double xEnd = std::max(1e-9, maxFlops / scale) * 1.05;
    if (floor_ > 0) {
        auto* floorLine = new QLineSeries;
        floorLine->setName(tr("floor (lower bound)"));
        QPen pen(QColor(0x80, 0x80, 0x80));
        pen.setStyle(Qt::DashLine);
        pen.setWidthF(1.5);
        floorLine->setPen(pen);
        floorLine->append(0, double(floor_) / byteScale_);
        floorLine->append(xEnd, double(floor_) / byteScale_);
        chart->addSeries(floorLine);
        // Added last, so the theme's colours of the others stay; a click on it picks the
        // nearest plan (the lowest may lie on it).
        connect(floorLine, &QLineSeries::clicked, this, &ParetoPanel::pointClicked);
    }
    auto* x = new QValueAxis;
    x->setTitleText(tr("Recompute (%1)").arg(unit));
    x->setLabelFormat("%.3g");
    auto* y = new QValueAxis;
    y->setTitleText(tr("Activation peak (%1)").arg(bytesUnit));
    y->setLabelFormat("%.4g");
    for (QValueAxis* axis : {x, y}) {
        QFont f = axis->titleFont();
        f.setPointSizeF(std::max(6.0, f.pointSizeF() * 0.85));
        axis->setTitleFont(f);
        axis->setLabelsFont(f);
        axis->setTickCount(4);
    }
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    for (QAbstractSeries* s : chart->series()) {
        s->attachAxis(x);
        s->attachAxis(y);
        if (auto* scatter = qobject_cast<QScatterSeries*>(s))
            connect(scatter, &QScatterSeries::clicked, this, &ParetoPanel::pointClicked);
    }
    // The peaks' own span (and the floor's), not from 0: plans a few percent apart on a
    // 0-based axis sat on one line at its top.
    const double pad = std::max((maxBytes - lowBytes) * 0.08, maxBytes * 0.002);
    x->setRange(0, xEnd);
    y->setRange(std::max(0.0, lowBytes - pad) / byteScale_, std::max(1e-9, (maxBytes + pad) / byteScale_));
    slider_->setEnabled(true);
    // The proof of quality: the largest gap of a frontier point to its cost lower bound.
    double worstGap = 0;
    size_t bounded = 0, proven = 0;
    for (size_t i = 0; i < frontierCount_; ++i)
        if (const auto& b = plans_[i].bound) {
            ++bounded;
            proven += b->optimal;
            worstGap = std::max(worstGap, b->gap);
        }
    QString quality = bounded == 0 ? tr("no optimality bound")
                      : proven == bounded ? tr("every point proven optimal")
                                          : tr("gap ≤ %1% to the %2 bound").arg(100 * worstGap, 0, 'f', 1)
                                                .arg(QString::fromStdString(plans_[0].bound ? plans_[0].bound->method : ""));
    status_->setText(tr("%1 frontier plans; activation peak %2 → %3; %4")
                         .arg(frontierCount_)
                         .arg(QString::fromStdString(planner::humanBytes(originalPeak_)),
                              QString::fromStdString(planner::humanBytes(minPeak_)), quality));
    connect(points, &QScatterSeries::hovered, this, [this](const QPointF& point, bool state) {
        if (!state) return;
        const size_t i = nearestPlan(point);
        if (i >= plans_.size()) return;
        const auto& p = plans_[i];
        QString text = tr("%1: activation peak %2, recompute %3")
                           .arg(QString::fromStdString(p.source), QString::fromStdString(planner::humanBytes(p.activationPeakBytes)),
                                QString::fromStdString(planner::humanFlops(p.recomputeFlops)));
        if (p.bound)
            text += p.bound->optimal ? tr(", optimal (%1)").arg(QString::fromStdString(p.bound->method))
                                     : tr(", gap %1% (%2 bound)").arg(100 * p.bound->gap, 0, 'f', 1)
                                           .arg(QString::fromStdString(p.bound->method));
        chartView_->setToolTip(text);
    });
}

size_t ParetoPanel::nearestPlan(const QPointF& point) const {
    // The plan drawn nearest the point, in pixels (the axes' units differ: FLOPs and bytes).
    QChart* chart = chartView_->chart();
    const auto series = chart->series();
    if (plans_.empty() || series.isEmpty()) return plans_.size();
    const QPointF click = chart->mapToPosition(point, series.front());
    size_t best = 0;
    double bestDistance = std::numeric_limits<double>::infinity();
    for (size_t i = 0; i < plans_.size(); ++i) {
        const QPointF at = chart->mapToPosition(
            QPointF(plans_[i].recomputeFlops / flopScale_, double(plans_[i].activationPeakBytes) / byteScale_), series.front());
        const double d = QLineF(at, click).length();
        if (d < bestDistance) { bestDistance = d; best = i; }
    }
    return best;
}

void ParetoPanel::pointClicked(const QPointF& point) {
    const size_t i = nearestPlan(point);
    if (i < plans_.size()) choosePlan(i);
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
    if (!seedResult_ || !program_ || !planner_) return;
    // The views' SolveResult for this plan, off the UI thread (rewrites the program).
    applyDescription_ = tr("the %1 plan (activation peak %2)")
                            .arg(QString::fromStdString(p.source),
                                 QString::fromStdString(planner::humanBytes(p.activationPeakBytes)));
    applyMergeKey_ = mergeKey;
    auto shared = planner_;
    auto seed = seedResult_;
    applyWatcher_->setFuture(QtConcurrent::run(&pool_, [shared, seed, p]() -> std::shared_ptr<const SolveResult> {
        try {
            std::lock_guard lock(shared->mutex);
            if (!shared->planner) return nullptr;
            return planner::solveResultFor(*shared->planner, p, *seed);
        } catch (const std::exception&) {
            return nullptr;
        }
    }));
}

void ParetoPanel::replanForSlider(int permille) {
    if (!program_ || plans_.empty() || !planner_) return;
    const int64_t budget = minPeak_ + int64_t(std::llround(double(originalPeak_ - minPeak_) * permille / 1000.0));
    const uint64_t gen = generation_;
    const qint64 key = dragSerial_;
    auto shared = planner_;
    budgetWatcher_->setFuture(QtConcurrent::run(&pool_, [shared, gen, budget, key]() {
        auto r = std::make_shared<Result>();
        r->generation = gen;
        r->mergeKey = key;
        try {
            // The frontier's planner: planning is a function of the budget alone, so the
            // slider's plan at a frontier point's budget is that point's plan.
            std::lock_guard lock(shared->mutex);
            if (!shared->planner) throw Error("the frontier is not planned yet");
            r->plans.push_back(shared->planner->planForBudget(budget));
        } catch (const std::exception& e) {
            r->error = e.what();
        }
        return r;
    }));
}

}  // namespace rx
