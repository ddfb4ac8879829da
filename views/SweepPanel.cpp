// The knob sweep panel: one knob's values solved off the UI thread, plotted, click to apply.
#include "views/SweepPanel.h"

#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QGraphicsLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineF>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QPromise>
#include <QPushButton>
#include <QScatterSeries>
#include <QThread>
#include <QValueAxis>
#include <QVBoxLayout>
#include <QtConcurrent>
#include <algorithm>
#include <cmath>
#include <limits>

#include "views/Panels.h"
#include "views/PlanFigures.h"
#include "views/ProgramGraph.h"

namespace rx {

namespace {
constexpr double kMiB = 1024.0 * 1024.0;
}

QString sweepKnobName(SweepKnob knob) {
    switch (knob) {
    case SweepKnob::MaxDistFromBw: return QStringLiteral("max_dist_from_bw");
    case SweepKnob::MinimumWeight: return QStringLiteral("minimum_weight");
    case SweepKnob::SizeRatioBan: return QStringLiteral("size_ratio_ban");
    }
    return {};
}

std::vector<double> sweepValues(SweepKnob knob) {
    switch (knob) {
    // Distance 0 bans every value the backward does not read at once; past ~16 nothing changes.
    case SweepKnob::MaxDistFromBw: return {0, 1, 2, 3, 4, 5, 6, 8, 12, 16};
    case SweepKnob::MinimumWeight: return {0, 0.01, 0.05, 0.1, 0.2, 0.5, 1, 2, 5};
    case SweepKnob::SizeRatioBan: return {0.5, 1, 2, 4, 8, 16, 32, 64};
    }
    return {};
}

RecomputeConfig withKnob(RecomputeConfig config, SweepKnob knob, double value) {
    switch (knob) {
    case SweepKnob::MaxDistFromBw: config.maxDistFromBw = int64_t(std::llround(value)); break;
    case SweepKnob::MinimumWeight: config.minimumWeight = value; break;
    case SweepKnob::SizeRatioBan: config.sizeRatioBan = value; break;
    }
    return config;
}

SweepPanel::SweepPanel(Document* doc, QWidget* parent) : QWidget(parent), doc_(doc) {
    pool_.setMaxThreadCount(1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->setSpacing(2);
    auto* row = new QHBoxLayout;
    knob_ = new QComboBox(this);
    knob_->setObjectName("sweepKnob");
    for (SweepKnob k : {SweepKnob::MaxDistFromBw, SweepKnob::MinimumWeight, SweepKnob::SizeRatioBan}) knob_->addItem(sweepKnobName(k), int(k));
    knob_->setToolTip(tr("The knob whose values the sweep solves; every other setting stays the document's"));
    run_ = new QPushButton(tr("Sweep"), this);
    run_->setObjectName("sweepRun");
    cancel_ = new QPushButton(tr("Cancel"), this);
    cancel_->setObjectName("sweepCancel");
    cancel_->setEnabled(false);
    status_ = new QLabel(tr("Choose a knob and press Sweep: one solve per value, in the background"), this);
    status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    row->addWidget(new QLabel(tr("Knob:"), this));
    row->addWidget(knob_);
    row->addWidget(run_);
    row->addWidget(cancel_);
    row->addWidget(status_, 1);
    layout->addLayout(row);

    auto* chart = new QChart;
    chart->setMargins(QMargins(2, 2, 2, 2));
    chart->layout()->setContentsMargins(0, 0, 0, 0);
    chart->setBackgroundRoundness(0);
    chart->legend()->setAlignment(Qt::AlignRight);
    chartView_ = new QChartView(chart, this);
    chartView_->setObjectName("sweepChart");
    chartView_->setRenderHint(QPainter::Antialiasing);
    chartView_->setMinimumHeight(150);
    chartView_->setToolTip(tr("Peak and recompute work per knob value: click a point to apply that value (undoable)"));
    layout->addWidget(chartView_, 1);

    peakLine_ = new QLineSeries(this);
    peakLine_->setName(tr("peak (MiB)"));
    flopsLine_ = new QLineSeries(this);
    flopsLine_->setName(tr("recompute (GFLOP)"));
    peakPoints_ = new QScatterSeries(this);
    peakPoints_->setName(tr("peak points"));
    flopsPoints_ = new QScatterSeries(this);
    flopsPoints_->setName(tr("recompute points"));
    peakLine_->setPen(QPen(QColor("#9333ea"), 2));
    peakPoints_->setColor(QColor("#9333ea"));
    flopsLine_->setPen(QPen(QColor("#0891b2"), 2, Qt::DashLine));
    flopsPoints_->setColor(QColor("#0891b2"));
    for (QScatterSeries* s : {peakPoints_, flopsPoints_}) s->setMarkerSize(10);
    xAxis_ = new QValueAxis(this);
    peakAxis_ = new QValueAxis(this);
    flopsAxis_ = new QValueAxis(this);
    peakAxis_->setTitleText(tr("peak (MiB)"));
    flopsAxis_->setTitleText(tr("recompute (GFLOP)"));
    peakAxis_->setLabelFormat("%.4g");
    flopsAxis_->setLabelFormat("%.3g");
    xAxis_->setLabelFormat("%.3g");
    chart->addAxis(xAxis_, Qt::AlignBottom);
    chart->addAxis(peakAxis_, Qt::AlignLeft);
    chart->addAxis(flopsAxis_, Qt::AlignRight);
    for (QAbstractSeries* s : std::initializer_list<QAbstractSeries*>{peakLine_, peakPoints_, flopsLine_, flopsPoints_}) {
        chart->addSeries(s);
        s->attachAxis(xAxis_);
        s->attachAxis(s == peakLine_ || s == peakPoints_ ? peakAxis_ : flopsAxis_);
    }
    // The lines are drawn from the points; the legend names the two figures once each.
    for (QLegendMarker* m : chart->legend()->markers(peakPoints_)) m->setVisible(false);
    for (QLegendMarker* m : chart->legend()->markers(flopsPoints_)) m->setVisible(false);
    connect(peakPoints_, &QScatterSeries::clicked, this, &SweepPanel::pointClicked);
    connect(flopsPoints_, &QScatterSeries::clicked, this, &SweepPanel::pointClicked);

    connect(run_, &QPushButton::clicked, this, &SweepPanel::start);
    connect(cancel_, &QPushButton::clicked, this, &SweepPanel::cancel);
    connect(&watcher_, &QFutureWatcherBase::resultReadyAt, this, &SweepPanel::pointReady);
    connect(&watcher_, &QFutureWatcherBase::finished, this, [this] {
        // `finished` can come before the last points' resultReadyAt: take them now.
        const int count = watcher_.future().resultCount();
        if (int(points_.size()) < count) {
            for (int i = int(points_.size()); i < count; ++i) points_.push_back(watcher_.resultAt(i));
            redraw();
        }
        sweeping_ = false;
        run_->setEnabled(true);
        cancel_->setEnabled(false);
        const size_t ok = size_t(std::count_if(points_.begin(), points_.end(), [](const SweepPoint& p) { return p.ok; }));
        status_->setText(canceled_ ? tr("Canceled after %1 of %2 values of %3").arg(points_.size()).arg(sweepValues(sweptKnob_).size()).arg(sweepKnobName(sweptKnob_))
                                   : tr("%1: %2 values solved%3; click a point to apply it")
                                         .arg(sweepKnobName(sweptKnob_))
                                         .arg(ok)
                                         .arg(ok < points_.size() ? tr(", %1 failed").arg(points_.size() - ok) : QString()));
        Q_EMIT finished();
    });
    connect(doc_, &Document::programChanged, this, [this] {
        cancel();
        points_.clear();
        redraw();
    });
}

SweepPanel::~SweepPanel() {
    watcher_.cancel();
    watcher_.waitForFinished();
}

SweepKnob SweepPanel::knob() const { return SweepKnob(knob_->currentData().toInt()); }

void SweepPanel::start() {
    if (!doc_->hasProgram() || !doc_->solver()) return;
    if (watcher_.isRunning()) {
        watcher_.cancel();
        watcher_.waitForFinished();  // stops between points: at most one solve
    }
    canceled_ = false;
    points_.clear();
    sweptKnob_ = knob();
    sweptConfig_ = doc_->config();
    redraw();
    run_->setEnabled(false);
    cancel_->setEnabled(true);
    sweeping_ = true;
    const std::vector<double> values = sweepValues(sweptKnob_);
    status_->setText(tr("Solving %1 values of %2 in the background…").arg(values.size()).arg(sweepKnobName(sweptKnob_)));
    auto solver = doc_->solverPtr();
    const RecomputeConfig base = sweptConfig_;
    const SweepKnob knob = sweptKnob_;
    QThread* uiThread = thread();
    watcher_.setFuture(QtConcurrent::run(&pool_, [solver, base, knob, values, uiThread](QPromise<SweepPoint>& promise) {
        for (double value : values) {
            if (promise.isCanceled()) return;
            SweepPoint p;
            p.knobValue = value;
            p.solvedOffUiThread = QThread::currentThread() != uiThread;
            try {
                const SolveResult r = solver->solve(withKnob(base, knob, value));
                p.ok = r.ok() && r.rewrittenMemory.ok();
                if (!p.ok) p.error = QString::fromStdString(r.ok() ? r.rewrittenMemory.error : r.error);
                else {
                    p.peakBytes = r.rewrittenMemory.peakBytes;
                    p.activationPeakBytes = r.rewrittenMemory.activationPeakBytes();
                    p.recomputeFlops = r.rewritten ? estimateFlops(*r.rewritten, r.clones) : 0;
                    p.savedValues = r.plan.savedValues.size();
                    p.recomputedOps = r.plan.recomputeOps.size();
                }
            } catch (const std::exception& e) {
                p.error = QString::fromUtf8(e.what());
            }
            promise.addResult(p);
        }
    }));
}

void SweepPanel::cancel() {
    if (!sweeping_) return;
    canceled_ = true;
    watcher_.cancel();
    cancel_->setEnabled(false);
    status_->setText(tr("Canceling after the value being solved…"));
}

void SweepPanel::pointReady(int resultIndex) {
    // Results arrive in order; the finished handler may have taken this one already.
    if (resultIndex < int(points_.size())) return;
    const SweepPoint p = watcher_.resultAt(resultIndex);
    points_.push_back(p);
    redraw();
    if (sweeping_ && !canceled_)
        status_->setText(tr("Solved %1 of %2 values of %3…").arg(points_.size()).arg(sweepValues(sweptKnob_).size()).arg(sweepKnobName(sweptKnob_)));
}

void SweepPanel::redraw() {
    peakLine_->clear();
    flopsLine_->clear();
    peakPoints_->clear();
    flopsPoints_->clear();
    // FLOPs in the unit their largest value reads in (a small program's clones are kFLOPs).
    double maxFlopsRaw = 0;
    for (const SweepPoint& p : points_)
        if (p.ok) maxFlopsRaw = std::max(maxFlopsRaw, p.recomputeFlops);
    static const std::pair<double, const char*> units[] = {{1e12, "TFLOP"}, {1e9, "GFLOP"}, {1e6, "MFLOP"}, {1e3, "kFLOP"}, {1, "FLOP"}};
    flopScale_ = 1;
    QString flopUnit = QStringLiteral("FLOP");
    for (const auto& [scale, name] : units)
        if (maxFlopsRaw >= scale) {
            flopScale_ = scale;
            flopUnit = QString::fromLatin1(name);
            break;
        }
    flopsLine_->setName(tr("recompute (%1)").arg(flopUnit));
    flopsAxis_->setTitleText(tr("recompute (%1)").arg(flopUnit));
    double maxPeak = 0, maxFlops = 0, minX = std::numeric_limits<double>::infinity(), maxX = -minX;
    for (const SweepPoint& p : points_) {
        if (!p.ok) continue;
        const double peak = double(p.peakBytes) / kMiB, flops = p.recomputeFlops / flopScale_;
        peakLine_->append(p.knobValue, peak);
        peakPoints_->append(p.knobValue, peak);
        flopsLine_->append(p.knobValue, flops);
        flopsPoints_->append(p.knobValue, flops);
        maxPeak = std::max(maxPeak, peak);
        maxFlops = std::max(maxFlops, flops);
        minX = std::min(minX, p.knobValue);
        maxX = std::max(maxX, p.knobValue);
    }
    xAxis_->setTitleText(sweepKnobName(sweptKnob_));
    if (!std::isfinite(minX)) {
        minX = 0;
        maxX = 1;
    }
    // Round ticks on every axis; the knobs are never negative.
    xAxis_->setRange(std::max(0.0, minX), std::max(maxX, minX + 1e-9));
    xAxis_->setTickCount(6);
    xAxis_->applyNiceNumbers();
    xAxis_->setLabelFormat(sweptKnob_ == SweepKnob::MaxDistFromBw ? "%.0f" : "%.3g");
    peakAxis_->setRange(0, std::max(1e-9, maxPeak) * 1.1);
    flopsAxis_->setRange(0, std::max(1e-9, maxFlops) * 1.1);
    for (QValueAxis* axis : {peakAxis_, flopsAxis_}) {
        axis->setTickCount(5);
        axis->applyNiceNumbers();
    }
}

void SweepPanel::pointClicked(const QPointF& point) {
    // The point nearest the click in pixels, on either curve (one knob value per x).
    QChart* chart = chartView_->chart();
    const auto* series = qobject_cast<QScatterSeries*>(sender());
    if (!series) return;
    const QPointF click = chart->mapToPosition(point, const_cast<QScatterSeries*>(series));
    size_t best = points_.size();
    double bestDistance = std::numeric_limits<double>::infinity();
    for (size_t i = 0; i < points_.size(); ++i) {
        if (!points_[i].ok) continue;
        const double y = series == peakPoints_ ? double(points_[i].peakBytes) / kMiB : points_[i].recomputeFlops / flopScale_;
        const double d = QLineF(chart->mapToPosition(QPointF(points_[i].knobValue, y), const_cast<QScatterSeries*>(series)), click).length();
        if (d < bestDistance) {
            bestDistance = d;
            best = i;
        }
    }
    applyPoint(best);
}

void SweepPanel::applyPoint(size_t index) {
    if (index >= points_.size() || !points_[index].ok || !doc_->hasProgram()) return;
    const SweepPoint& p = points_[index];
    const RecomputeConfig c = withKnob(doc_->config(), sweptKnob_, p.knobValue);
    status_->setText(tr("Applied %1 = %2: peak %3, recompute %4")
                         .arg(sweepKnobName(sweptKnob_))
                         .arg(p.knobValue)
                         .arg(formatBytes(double(p.peakBytes)), formatFlops(p.recomputeFlops)));
    doc_->setConfig(c, tr("Sweep: %1 = %2").arg(sweepKnobName(sweptKnob_)).arg(p.knobValue));
}

}  // namespace rx
