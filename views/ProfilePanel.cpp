// The profile panel: both runs off the UI thread, then a memory chart, per-op time bars and a
// summary table.
#include "views/ProfilePanel.h"
#include "views/VerifyAsync.h"
#include "views/ProgramGraph.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QHorizontalBarSeries>
#include <QLabel>
#include <QLineSeries>
#include <QProgressBar>
#include <QPushButton>
#include <QScatterSeries>
#include <QSplitter>
#include <QTableWidget>
#include <QTimer>
#include <QValueAxis>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrent>

#include <algorithm>
#include <unordered_map>

namespace rx {
namespace {

double mib(int64_t bytes) { return static_cast<double>(bytes) / (1024.0 * 1024.0); }

// At most `limit` points of a run's memory curve; each bucket keeps its maximum, so peaks stay.
QList<QPointF> memoryPoints(const exec::RunProfile& run, size_t limit) {
    QList<QPointF> pts;
    const size_t n = run.ops.size();
    const size_t bucket = std::max<size_t>(1, (n + limit - 1) / limit);
    for (size_t i = 0; i < n; i += bucket) {
        int64_t best = 0;
        size_t at = i;
        for (size_t j = i; j < std::min(n, i + bucket); ++j)
            if (run.ops[j].peakBytes >= best) { best = run.ops[j].peakBytes; at = j; }
        pts.append(QPointF(static_cast<double>(at), mib(best)));
    }
    return pts;
}

}  // namespace

ProfilePanel::ProfilePanel(Document* doc, QWidget* parent)
    : QWidget(parent), doc_(doc), cancel_(std::make_shared<std::atomic<bool>>(false)),
      done_(std::make_shared<std::atomic<size_t>>(0)), total_(std::make_shared<std::atomic<size_t>>(0)) {
    setObjectName("profilePanel");
    pool_.setMaxThreadCount(1);
    startButton_ = new QPushButton(tr("Profile"), this);
    startButton_->setObjectName("profileStart");
    startButton_->setToolTip(tr("Run the original and the rewritten program on the CPU executor with the same seeded inputs"));
    cancelButton_ = new QPushButton(tr("Cancel"), this);
    cancelButton_->setObjectName("profileCancel");
    cancelButton_->setEnabled(false);
    progress_ = new QProgressBar(this);
    progress_->setRange(0, 1000);
    progress_->setValue(0);
    status_ = new QLabel(tr("Profile runs both programs on the CPU and compares memory and time per op."), this);
    status_->setWordWrap(true);

    memoryView_ = new QChartView(new QChart(), this);
    memoryView_->setRenderHint(QPainter::Antialiasing);
    memoryView_->chart()->setTitle(tr("Memory over time (MiB live while each op runs)"));
    timeView_ = new QChartView(new QChart(), this);
    timeView_->chart()->setTitle(tr("Top 20 ops by time (ms)"));
    timeView_->installEventFilter(this);
    summary_ = new QTableWidget(0, 2, this);
    summary_->setObjectName("profileSummary");
    summary_->setHorizontalHeaderLabels({tr("original"), tr("rewritten")});
    summary_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    summary_->setEditTriggers(QAbstractItemView::NoEditTriggers);

    auto* top = new QHBoxLayout();
    top->addWidget(startButton_);
    top->addWidget(cancelButton_);
    top->addWidget(progress_, 1);
    // The charts take the width; the two-column table is narrow and the splitter lets the
    // user trade (a wide table crushed both charts to ~60 px at the default size).
    memoryView_->setMinimumSize(280, 150);
    timeView_->setMinimumSize(240, 150);
    summary_->setMinimumWidth(360);  // both columns of figures in view
    summary_->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Expanding);
    summary_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    auto* split = new QSplitter(Qt::Horizontal, this);
    split->setObjectName("profileSplit");
    split->setChildrenCollapsible(false);
    split->addWidget(memoryView_);
    split->addWidget(timeView_);
    split->addWidget(summary_);
    split->setStretchFactor(0, 5);
    split->setStretchFactor(1, 4);
    split->setStretchFactor(2, 0);
    split->setSizes({500, 340, 380});
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(status_);
    layout->addWidget(split, 1);

    poll_ = new QTimer(this);
    poll_->setInterval(100);
    connect(poll_, &QTimer::timeout, this, [this] {
        const size_t total = total_->load();
        if (total > 0) progress_->setValue(static_cast<int>(1000.0 * static_cast<double>(done_->load()) / static_cast<double>(total)));
    });
    connect(startButton_, &QPushButton::clicked, this, [this] { start(); });
    connect(cancelButton_, &QPushButton::clicked, this, &ProfilePanel::cancel);
    connect(&watcher_, &QFutureWatcher<Outcome>::finished, this, &ProfilePanel::onFinished);
}

ProfilePanel::~ProfilePanel() {
    cancel_->store(true);
    watcher_.waitForFinished();
}

bool ProfilePanel::isRunning() const { return watcher_.isRunning(); }
QString ProfilePanel::status() const { return status_->text(); }
QChart* ProfilePanel::memoryChart() const { return memoryView_->chart(); }
QChart* ProfilePanel::timeChart() const { return timeView_->chart(); }

bool ProfilePanel::start() {
    if (isRunning()) return false;
    std::shared_ptr<const SolveResult> result = doc_->result();
    if (!doc_->hasProgram() || !result || !result->rewritten) {
        status_->setText(tr("Nothing to profile: open a program and let it solve first."));
        return false;
    }
    std::shared_ptr<const Program> original = doc_->programPtr();
    const RecomputeSpec spec = doc_->spec();
    cancel_->store(false);
    done_->store(0);
    total_->store(0);
    progress_->setValue(0);
    startButton_->setEnabled(false);
    cancelButton_->setEnabled(true);
    status_->setText(tr("Profiling: running the original and the rewritten program on the CPU…"));
    poll_->start();
    auto cancel = cancel_;
    auto done = done_;
    auto total = total_;
    // The task holds the programs and the result alive; progress goes through atomics that the
    // UI timer reads, never through widgets from the worker thread.
    watcher_.setFuture(QtConcurrent::run(&pool_, [original, result, spec, cancel, done, total]() {
        Outcome out;
        try {
            exec::ProfileInputs in;
            in.original = original.get();
            in.rewritten = result->rewritten.get();
            in.clones = result->clones;
            in.fwdOpEndIdx = spec.fwdOpEndIdx;
            in.backwardOpStartIdx = spec.backwardOpStartIdx;
            in.modelLiveOriginal = result->originalMemory.liveBytes;
            in.modelLiveRewritten = result->rewrittenMemory.liveBytes;
            in.modelPeakOriginal = result->originalMemory.peakBytes;
            in.modelPeakRewritten = result->rewrittenMemory.peakBytes;
            exec::ProfileOptions po;
            po.verify.residentValues = spec.inputs;
            po.cancel = cancel.get();
            po.progress = [done, total](size_t d, size_t t) { done->store(d); total->store(t); };
            out.report = exec::profilePrograms(in, po);
        } catch (const std::exception& e) {
            out.error = e.what();
        }
        return out;
    }));
    return true;
}

void ProfilePanel::cancel() {
    if (!isRunning()) return;
    cancel_->store(true);
    status_->setText(tr("Cancelling…"));
}

void ProfilePanel::onFinished() {
    poll_->stop();
    startButton_->setEnabled(true);
    cancelButton_->setEnabled(false);
    Outcome out = watcher_.result();
    if (!out.error.empty()) {
        status_->setText(tr("Profile failed: %1").arg(QString::fromStdString(out.error)));
        Q_EMIT finished(false, status_->text());
        return;
    }
    if (out.report->cancelled) {
        status_->setText(tr("Profile cancelled."));
        Q_EMIT finished(false, status_->text());
        return;
    }
    progress_->setValue(1000);
    report_ = std::move(out.report);
    showReport(*report_);
    Q_EMIT finished(true, status_->text());
}

void ProfilePanel::showReport(const exec::ProfileReport& r) {
    drawMemory(r);
    drawTimes(r);
    fillSummary(r);
    status_->setText(exec::verifySummaryText(r.verify) +
                     tr("; recompute overhead %1 ms (%2% of the original step)")
                         .arg(r.recomputeOverheadMs, 0, 'f', 2)
                         .arg(r.recomputeOverheadPct, 0, 'f', 1));
}

void ProfilePanel::drawMemory(const exec::ProfileReport& r) {
    QChart* chart = memoryView_->chart();
    chart->removeAllSeries();
    for (QAbstractAxis* a : chart->axes()) chart->removeAxis(a);
    auto* axisX = new QValueAxis();
    axisX->setTitleText(tr("op index"));
    axisX->setLabelFormat("%d");
    auto* axisY = new QValueAxis();
    axisY->setTitleText(tr("MiB"));
    chart->addAxis(axisX, Qt::AlignBottom);
    chart->addAxis(axisY, Qt::AlignLeft);
    double maxY = 0, maxX = 1;
    auto add = [&](QAbstractSeries* s) {
        chart->addSeries(s);
        s->attachAxis(axisX);
        s->attachAxis(axisY);
    };
    for (auto [run, label] : {std::pair{&r.original, tr("original")}, std::pair{&r.rewritten, tr("rewritten")}}) {
        auto* line = new QLineSeries();
        line->setName(label);
        line->append(memoryPoints(*run, 4000));
        add(line);
        maxY = std::max(maxY, mib(run->peakBytes));
        maxX = std::max(maxX, static_cast<double>(run->ops.size()));
        auto* peak = new QScatterSeries();
        peak->setName(tr("%1 peak %2 MiB (model %3)").arg(label).arg(mib(run->peakBytes), 0, 'f', 2).arg(mib(run->modelPeakBytes), 0, 'f', 2));
        peak->setMarkerSize(10);
        peak->append(static_cast<double>(run->peakOpIndex), mib(run->peakBytes));
        add(peak);
        if (run->backwardStartIndex >= 0) {
            auto* boundary = new QLineSeries();
            boundary->setName(tr("%1 forward | backward").arg(label));
            QPen pen = boundary->pen();
            pen.setStyle(Qt::DashLine);
            boundary->setPen(pen);
            boundary->append(static_cast<double>(run->backwardStartIndex), 0);
            boundary->append(static_cast<double>(run->backwardStartIndex), mib(run->peakBytes) * 1.05);
            add(boundary);
        }
    }
    axisX->setRange(0, maxX);
    axisY->setRange(0, std::max(maxY * 1.1, 0.001));
}

void ProfilePanel::drawTimes(const exec::ProfileReport& r) {
    QChart* chart = timeView_->chart();
    chart->removeAllSeries();
    for (QAbstractAxis* a : chart->axes()) chart->removeAxis(a);
    // The 20 slowest ops of either run, matched by op id (the rewrite keeps the original's ids).
    std::unordered_map<OpId, double> originalMs, rewrittenMs;
    for (const exec::OpProfile& o : r.original.ops) originalMs[o.op] = o.ms;
    for (const exec::OpProfile& o : r.rewritten.ops) rewrittenMs[o.op] = o.ms;
    std::vector<const exec::OpProfile*> all;
    for (const exec::OpProfile& o : r.rewritten.ops) all.push_back(&o);
    for (const exec::OpProfile& o : r.original.ops)
        if (!rewrittenMs.count(o.op)) all.push_back(&o);
    auto slowest = [&](const exec::OpProfile* o) { return std::max(originalMs[o->op], rewrittenMs[o->op]); };
    std::stable_sort(all.begin(), all.end(), [&](auto* a, auto* b) { return slowest(a) > slowest(b); });
    QFont rowFont = chart->font();
    rowFont.setPointSizeF(8);
    topOpRows_ = topOpRowsThatFit();
    all.resize(std::min<size_t>(size_t(topOpRows_), all.size()));
    chart->setTitle(tr("Top %1 ops by time (ms)").arg(all.size()));
    auto* setA = new QBarSet(tr("original"));
    auto* setB = new QBarSet(tr("rewritten"));
    QStringList names;
    for (auto it = all.rbegin(); it != all.rend(); ++it) {  // slowest at the top
        const exec::OpProfile* o = *it;
        // Short names ("matmul #12 ↻"): the dialect prefix and "(recompute)" took the label's width.
        names << QString("%1 #%2%3").arg(shortOpName(o->name)).arg(o->index).arg(o->recompute ? QStringLiteral(" ↻") : QString());
        *setA << originalMs[o->op];
        *setB << rewrittenMs[o->op];
    }
    auto* series = new QHorizontalBarSeries();
    series->append(setA);
    series->append(setB);
    chart->addSeries(series);
    auto* axisY = new QBarCategoryAxis();
    axisY->append(names);
    axisY->setLabelsFont(rowFont);
    auto* axisX = new QValueAxis();
    axisX->setTitleText(tr("ms  (↻ a recompute clone)"));
    chart->addAxis(axisY, Qt::AlignLeft);
    chart->addAxis(axisX, Qt::AlignBottom);
    series->attachAxis(axisY);
    series->attachAxis(axisX);
}

int ProfilePanel::topOpRowsThatFit() const {
    // As many rows as the plot has room for at a label's line height (20 rows squeezed the
    // labels to elided slivers at 1366x768); the legend, the axis and its title take ~190 px.
    QFont rowFont = timeView_->chart()->font();
    rowFont.setPointSizeF(8);
    const int rowHeight = QFontMetrics(rowFont).height() + 5;
    return std::clamp((timeView_->height() - 190) / rowHeight, 4, 20);
}

bool ProfilePanel::eventFilter(QObject* watched, QEvent* event) {
    // Fitted to the height the chart has now: a dock dragged taller shows more ops, a smaller
    // window fewer, each label whole.
    if (watched == timeView_ && event->type() == QEvent::Resize && report_ && topOpRowsThatFit() != topOpRows_) drawTimes(*report_);
    return QWidget::eventFilter(watched, event);
}

void ProfilePanel::fillSummary(const exec::ProfileReport& r) {
    struct Row { QString label; QString a, b; };
    auto bytes = [](int64_t v) { return v < 0 ? QString("-") : QString("%1 MiB (%2 B)").arg(mib(v), 0, 'f', 2).arg(v); };
    const std::vector<Row> rows = {
        {tr("peak measured"), bytes(r.original.peakBytes), bytes(r.rewritten.peakBytes)},
        {tr("peak modelled"), bytes(r.original.modelPeakBytes), bytes(r.rewritten.modelPeakBytes)},
        {tr("measured = model"), r.original.peakBytes == r.original.modelPeakBytes ? tr("yes") : tr("NO"),
         r.rewritten.peakBytes == r.rewritten.modelPeakBytes ? tr("yes") : tr("NO")},
        {tr("step time"), QString("%1 ms").arg(r.original.totalMs, 0, 'f', 2), QString("%1 ms").arg(r.rewritten.totalMs, 0, 'f', 2)},
        {tr("ops"), QString::number(r.original.ops.size()), QString::number(r.rewritten.ops.size())},
        {tr("recompute overhead"), "", QString("%1 ms (%2%)").arg(r.recomputeOverheadMs, 0, 'f', 2).arg(r.recomputeOverheadPct, 0, 'f', 1)},
        {tr("equivalent"), "", r.equivalent ? tr("yes") : tr("NO")},
    };
    summary_->setRowCount(static_cast<int>(rows.size()));
    QStringList labels;
    for (size_t i = 0; i < rows.size(); ++i) {
        labels << rows[i].label;
        summary_->setItem(static_cast<int>(i), 0, new QTableWidgetItem(rows[i].a));
        summary_->setItem(static_cast<int>(i), 1, new QTableWidgetItem(rows[i].b));
    }
    summary_->setVerticalHeaderLabels(labels);
}

}  // namespace rx
