// The Memory tab: stacked per-value bands of live bytes, original and rewritten, and the
// values live at the peak.
#include "views/MemoryView.h"

#include <QComboBox>
#include <QFontMetrics>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMouseEvent>
#include <QPainter>
#include <QSplitter>
#include <QToolTip>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "views/GraphItems.h"
#include "views/ProgramGraph.h"

namespace rx {

QColor memoryRoleColor(MemoryRole role) {
    switch (role) {
    case MemoryRole::Resident: return QColor("#94a3b8");
    case MemoryRole::HeldForBackward: return QColor("#16a34a");
    case MemoryRole::RecomputedClone: return QColor("#9333ea");
    case MemoryRole::Gradient: return QColor("#f59e0b");
    case MemoryRole::Temporary: return QColor("#3b82f6");
    }
    return Qt::gray;
}

namespace {

QString qs(std::string_view s) { return QString::fromUtf8(s.data(), qsizetype(s.size())); }

// Neighbouring bands of one role differ a little in lightness so they read as separate values.
QColor bandColor(MemoryRole role, ValueId v) {
    QColor c = memoryRoleColor(role);
    const int shift = int((v * 2654435761u) >> 28) - 8;  // -8..7
    return shift >= 0 ? c.lighter(100 + shift * 4) : c.darker(100 - shift * 3);
}

double niceStep(double range, int ticks) {
    const double raw = range / std::max(1, ticks);
    const double mag = std::pow(10.0, std::floor(std::log10(std::max(raw, 1e-12))));
    for (double m : {1.0, 2.0, 2.5, 5.0, 10.0})
        if (raw <= m * mag) return m * mag;
    return 10 * mag;
}

}  // namespace

// ---------------------------------------------------------------- MemoryChart

MemoryChart::MemoryChart(QWidget* parent) : QWidget(parent) {
    setObjectName("memoryChart");
    setMouseTracking(true);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
}

void MemoryChart::setPanes(std::vector<MemoryPane> panes) {
    panes_ = std::move(panes);
    dirty_ = true;
    update();
}

void MemoryChart::setSelectedValue(ValueId v) {
    selected_ = v;
    update();
}

void MemoryChart::resizeEvent(QResizeEvent* event) {
    dirty_ = true;
    QWidget::resizeEvent(event);
}

namespace {
QFont legendFont(const QFont& base) {
    QFont f = base;
    f.setPointSizeF(7.5);
    return f;
}
constexpr int kLegendLeft = 78, kLegendRight = 16, kLegendTop = 9, kLegendRowHeight = 16;
}  // namespace

std::vector<MemoryChart::LegendEntry> MemoryChart::legendLayout() const {
    const QFontMetrics fm(legendFont(font()));
    std::vector<LegendEntry> entries;
    int x = kLegendLeft, y = kLegendTop;
    for (int r = 0; r < kMemoryRoleCount; ++r) {
        const QString t = tr(memoryRoleName(MemoryRole(r)));
        const int w = 16 + fm.horizontalAdvance(t);
        if (x > kLegendLeft && x + w > width() - kLegendRight) {
            x = kLegendLeft;
            y += kLegendRowHeight;
        }
        entries.push_back({QRect(x, y, 12, 10), QRect(x + 16, y - 3, w - 16, fm.height()), t});
        x += w + 18;
    }
    return entries;
}

QRect MemoryChart::paneRect(int i) const {
    const int n = std::max<int>(1, int(panes_.size()));
    const std::vector<LegendEntry> legend = legendLayout();
    const int extraRows = legend.empty() ? 0 : (legend.back().swatch.top() - kLegendTop) / kLegendRowHeight;
    const int top = 46 + extraRows * kLegendRowHeight, gap = 34, bottomAxis = 30;
    const int h = (height() - top - bottomAxis - gap * (n - 1)) / n;
    return QRect(78, top + i * (h + gap), std::max(10, width() - 78 - 16), std::max(10, h));
}

double MemoryChart::yMax() const {
    int64_t peak = 1;
    for (const auto& p : panes_) peak = std::max(peak, p.peakBytes);
    // Room above the peak line for its bold label (about 18 px), so the label never sits on
    // the bands; at least 6% of the scale on tall panes.
    const int h = paneRect(0).height();
    const double headroom = h > 36 ? std::max(1.06, double(h) / double(h - 18)) : 1.06;
    return double(peak) * headroom;
}

void MemoryChart::layoutColumns() const {
    // A hidden widget's resize sends no resize event until it is shown: the size is checked too.
    if (!dirty_ && laidOutFor_ == size()) return;
    dirty_ = false;
    laidOutFor_ = size();
    geometry_.assign(panes_.size(), {});
    const double ymax = yMax();
    for (size_t pi = 0; pi < panes_.size(); ++pi) {
        const MemoryPane& pane = panes_[pi];
        PaneGeometry& g = geometry_[pi];
        g.plot = paneRect(int(pi));
        const uint32_t n = pane.lifetimes.opCount;
        if (n == 0) continue;
        const int cols = std::max(1, std::min<int>(int(n), g.plot.width() / 2));
        // Lifetimes in allocation order: a band sits on the values allocated before it.
        std::vector<const ValueLifetime*> order;
        order.reserve(pane.lifetimes.values.size());
        for (const auto& lt : pane.lifetimes.values) order.push_back(&lt);
        std::stable_sort(order.begin(), order.end(), [](auto* a, auto* b) { return a->begin < b->begin; });
        std::vector<const ValueLifetime*> active;
        size_t next = 0;
        const double pxPerByte = g.plot.height() / ymax;
        for (int c = 0; c < cols; ++c) {
            const uint32_t b = uint32_t(uint64_t(c) * n / uint64_t(cols));
            const uint32_t e = std::max(b + 1, uint32_t(uint64_t(c + 1) * n / uint64_t(cols)));
            // The column shows its busiest op, so no peak falls between columns.
            uint32_t rep = b;
            for (uint32_t k = b; k < e && k < pane.liveBytes.size(); ++k)
                if (pane.liveBytes[k] > pane.liveBytes[rep]) rep = k;
            while (next < order.size() && order[next]->begin <= rep) active.push_back(order[next++]);
            std::erase_if(active, [rep](const ValueLifetime* lt) { return lt->end < rep; });
            Column col;
            col.x0 = g.plot.left() + int(double(b) / n * g.plot.width());
            col.x1 = std::max(col.x0 + 1, g.plot.left() + int(double(e) / n * g.plot.width()));
            double y = g.plot.bottom() + 1;
            auto push = [&](int64_t bytes, ValueId v, MemoryRole role) {
                const double h = double(bytes) * pxPerByte;
                if (!col.slices.empty() && h < 0.75 && col.slices.back().value == kNoId && col.slices.back().role == role) {
                    col.slices.back().y0 -= float(h);  // too thin to see alone: merged per role
                } else {
                    col.slices.push_back(Slice{float(y - h), float(y), h < 0.75 ? kNoId : v, role});
                }
                y -= h;
            };
            if (pane.lifetimes.residentBytes) push(pane.lifetimes.residentBytes, kNoId, MemoryRole::Resident);
            for (const ValueLifetime* lt : active)
                if (lt->begin <= rep && rep <= lt->end) push(lt->bytes, lt->value, lt->role);
            g.columns.push_back(std::move(col));
        }
    }
}

void MemoryChart::paintEvent(QPaintEvent*) {
    layoutColumns();
    QPainter p(this);
    const GraphPalette& pal = GraphPalette::current();
    p.fillRect(rect(), pal.background);
    const QFont small = legendFont(font());
    p.setFont(small);
    // Role legend along the top, wrapped where the chart is narrow.
    const std::vector<LegendEntry> legend = legendLayout();
    for (size_t r = 0; r < legend.size(); ++r) {
        p.fillRect(legend[r].swatch, memoryRoleColor(MemoryRole(r)));
        p.setPen(pal.text);
        p.drawText(legend[r].text, Qt::AlignLeft | Qt::AlignVCenter, legend[r].label);
    }
    if (panes_.empty()) {
        p.setPen(pal.mutedText);
        p.drawText(rect(), Qt::AlignCenter, tr("Solve a program to see its memory"));
        return;
    }
    const double ymax = yMax();
    // Ticks at round numbers of the binary unit the peak is in (MiB, GiB, …).
    double unit = 1;
    while (ymax / unit >= 1024 && unit < 1e15) unit *= 1024;
    const double step = niceStep(ymax / unit, 4) * unit;
    for (size_t pi = 0; pi < panes_.size(); ++pi) {
        const MemoryPane& pane = panes_[pi];
        const PaneGeometry& g = geometry_[pi];
        const QRect plot = g.plot;
        // Axes and grid in human units.
        p.setPen(QPen(pal.mutedText, 1));
        for (double v = 0; v <= ymax; v += step) {
            const int y = plot.bottom() - int(v / ymax * plot.height());
            QColor grid = pal.mutedText;
            grid.setAlpha(50);
            p.setPen(QPen(grid, 1, Qt::DotLine));
            p.drawLine(plot.left(), y, plot.right(), y);
            p.setPen(pal.mutedText);
            p.drawText(QRect(0, y - 7, plot.left() - 6, 14), Qt::AlignRight | Qt::AlignVCenter, formatBytes(v));
        }
        for (const Column& c : g.columns)
            for (const Slice& s : c.slices) {
                const QRectF r(c.x0, s.y0, c.x1 - c.x0, std::max(0.5f, s.y1 - s.y0));
                p.fillRect(r, s.value == kNoId ? memoryRoleColor(s.role) : bandColor(s.role, s.value));
            }
        // The selected value outlined in every column it is live.
        if (selected_ != kNoId) {
            p.setPen(QPen(pal.selection, 2));
            p.setBrush(Qt::NoBrush);
            for (const Column& c : g.columns)
                for (const Slice& s : c.slices)
                    if (s.value != kNoId && s.value < pane.originalOf.size() && pane.originalOf[s.value] == selected_)
                        p.drawRect(QRectF(c.x0, s.y0, c.x1 - c.x0, std::max(1.0f, s.y1 - s.y0)));
        }
        // What is new at the rewritten peak: hatched and outlined in amber wherever it is live.
        if (int(pi) == highlightedPane_ && !highlighted_.empty()) {
            const QColor amber("#f59e0b");
            p.setPen(QPen(amber, 1.5));
            p.setBrush(QBrush(amber, Qt::BDiagPattern));
            for (const Column& c : g.columns)
                for (const Slice& s : c.slices)
                    if (s.value != kNoId && std::binary_search(highlighted_.begin(), highlighted_.end(), s.value))
                        p.drawRect(QRectF(c.x0, s.y0, c.x1 - c.x0, std::max(1.0f, s.y1 - s.y0)));
            p.setBrush(Qt::NoBrush);
        }
        p.setPen(QPen(pal.mutedText, 1));
        p.drawLine(plot.bottomLeft(), plot.bottomRight());
        p.drawLine(plot.bottomLeft(), plot.topLeft());
        // Peak marker.
        const uint32_t n = std::max<uint32_t>(1, pane.lifetimes.opCount);
        const int px = plot.left() + int((pane.peakOp + 0.5) / n * plot.width());
        const int py = plot.bottom() - int(double(pane.peakBytes) / ymax * plot.height());
        p.setPen(QPen(QColor("#dc2626"), 1.4, Qt::DashLine));
        p.drawLine(px, plot.bottom(), px, py - 4);
        p.drawLine(plot.left(), py, plot.right(), py);
        const PeakLabel label = peakLabel(int(pi));
        p.setFont(label.font);
        p.setPen(QColor("#dc2626"));
        p.drawText(label.box, Qt::AlignLeft | Qt::AlignVCenter, label.text);
        p.setPen(pal.text);
        p.drawText(QPoint(plot.left() + 6, plot.top() - 6), pane.title);
        p.setFont(small);
        // x ticks
        p.setPen(pal.mutedText);
        const double xs = niceStep(n, 8);
        for (double v = 0; v <= n; v += xs) {
            const int x = plot.left() + int(v / n * plot.width());
            p.drawLine(x, plot.bottom(), x, plot.bottom() + 3);
            p.drawText(QRect(x - 30, plot.bottom() + 3, 60, 12), Qt::AlignHCenter | Qt::AlignTop, QString::number(int64_t(v)));
        }
    }
    p.setPen(pal.mutedText);
    p.drawText(QRect(0, height() - 14, width(), 14), Qt::AlignHCenter, tr("op index (global block)"));
}

MemoryChart::PeakLabel MemoryChart::peakLabel(int paneIndex) const {
    PeakLabel label;
    if (paneIndex < 0 || size_t(paneIndex) >= panes_.size()) return label;
    const MemoryPane& pane = panes_[size_t(paneIndex)];
    const QRect plot = paneRect(paneIndex);
    label.font = legendFont(font());
    label.font.setBold(true);
    label.text = tr("peak %1 at op #%2").arg(formatBytes(double(pane.peakBytes))).arg(pane.peakOp);
    const QFontMetrics metrics(label.font);
    const int tw = metrics.horizontalAdvance(label.text), th = metrics.height();
    const uint32_t n = std::max<uint32_t>(1, pane.lifetimes.opCount);
    const int px = plot.left() + int((pane.peakOp + 0.5) / n * plot.width());
    const int py = plot.bottom() - int(double(pane.peakBytes) / yMax() * plot.height());
    // Just above the peak line (yMax leaves room for it), inside the plot.
    const int x = std::clamp(px + 6, plot.left() + 4, std::max(plot.left() + 4, plot.right() - tw - 4));
    const int y = std::max(plot.top(), py - 2 - th);
    label.box = QRect(x, y, tw, th);
    return label;
}

void MemoryChart::setHighlighted(int pane, std::vector<ValueId> values) {
    std::sort(values.begin(), values.end());
    highlightedPane_ = values.empty() ? -1 : pane;
    highlighted_ = std::move(values);
    update();
}

ValueId MemoryChart::valueAt(QPoint pos) const {
    layoutColumns();
    for (size_t pi = 0; pi < geometry_.size(); ++pi) {
        const PaneGeometry& g = geometry_[pi];
        if (!g.plot.adjusted(0, -2, 0, 2).contains(pos)) continue;
        for (const Column& c : g.columns) {
            if (pos.x() < c.x0 || pos.x() >= c.x1) continue;
            for (const Slice& s : c.slices)
                if (pos.y() >= s.y0 - 0.5 && pos.y() <= s.y1 + 0.5 && s.value != kNoId)
                    return s.value < panes_[pi].originalOf.size() ? panes_[pi].originalOf[s.value] : s.value;
        }
    }
    return kNoId;
}

QPoint MemoryChart::bandPoint(int pane, ValueId originalValue) const {
    layoutColumns();
    if (pane < 0 || size_t(pane) >= geometry_.size()) return {};
    float best = 0;
    QPoint at;
    for (const Column& c : geometry_[size_t(pane)].columns)
        for (const Slice& s : c.slices)
            if (s.value != kNoId && s.value < panes_[size_t(pane)].originalOf.size() &&
                panes_[size_t(pane)].originalOf[s.value] == originalValue && s.y1 - s.y0 > best) {
                best = s.y1 - s.y0;
                at = QPoint((c.x0 + c.x1) / 2, int((s.y0 + s.y1) / 2));
            }
    return at;
}

void MemoryChart::mousePressEvent(QMouseEvent* event) {
    const ValueId v = valueAt(event->pos());
    if (v != kNoId) Q_EMIT valueClicked(v);
}

void MemoryChart::mouseMoveEvent(QMouseEvent* event) {
    const ValueId v = valueAt(event->pos());
    if (v == kNoId || panes_.empty() || !panes_[0].program) return QToolTip::hideText();
    const Program& p = *panes_[0].program;
    if (v >= p.values().size()) return;
    QToolTip::showText(event->globalPosition().toPoint(),
                       QStringLiteral("<b>%1</b> %2 · %3").arg(qs(p.value(v).name), formatBytes(double(p.valueBytes(v))), typeSummary(p, v)), this);
}

// ---------------------------------------------------------------- MemoryView

enum { ValueRole = Qt::UserRole + 1 };

MemoryView::MemoryView(Document* doc, QWidget* parent) : QWidget(parent), doc_(doc) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* splitter = new QSplitter(Qt::Horizontal, this);
    chart_ = new MemoryChart(splitter);
    auto* side = new QWidget(splitter);
    auto* sl = new QVBoxLayout(side);
    sl->setContentsMargins(4, 4, 4, 4);
    which_ = new QComboBox(side);
    which_->setObjectName("memoryPeakOf");
    which_->addItems({tr("Live at the peak: with recompute"), tr("Live at the peak: original"),
                      tr("New at the rewritten peak (not live at the original's)")});
    which_->setItemData(2, tr("Values live at the rewritten program's peak whose original was not live at the original "
                              "program's peak: what recompute brought there. Hatched amber in the chart."),
                        Qt::ToolTipRole);
    tableTitle_ = new QLabel(side);
    tableTitle_->setWordWrap(true);
    table_ = new QTreeWidget(side);
    table_->setObjectName("memoryPeakTable");
    table_->setRootIsDecorated(false);
    table_->setUniformRowHeights(true);
    table_->setHeaderLabels({tr("value"), tr("size"), tr("role"), tr("decision"), tr("producer")});
    table_->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    sl->addWidget(which_);
    sl->addWidget(tableTitle_);
    sl->addWidget(table_, 1);
    splitter->addWidget(chart_);
    splitter->addWidget(side);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 1);
    splitter->setSizes({760, 360});
    layout->addWidget(splitter);
    connect(which_, &QComboBox::currentIndexChanged, this, &MemoryView::fillTable);
    connect(doc_, &Document::resultChanged, this, &MemoryView::rebuild);
    connect(doc_, &Document::programChanged, this, [this] { chart_->setPanes({}); table_->clear(); });
    connect(chart_, &MemoryChart::valueClicked, this, [this](ValueId v) { doc_->select(ModelKey{ModelKey::Kind::Value, v}, this); });
    connect(table_, &QTreeWidget::currentItemChanged, this, [this](QTreeWidgetItem* it) {
        if (syncing_ || !it) return;
        doc_->select(ModelKey{ModelKey::Kind::Value, it->data(0, ValueRole).toUInt()}, this);
    });
    connect(doc_, &Document::selectionChanged, this, [this](ModelKey k, QObject*) {
        chart_->setSelectedValue(k.kind == ModelKey::Kind::Value ? k.id : kNoId);
        syncing_ = true;
        QTreeWidgetItem* hit = nullptr;
        for (int i = 0; i < table_->topLevelItemCount() && k.kind == ModelKey::Kind::Value; ++i)
            if (table_->topLevelItem(i)->data(0, ValueRole).toUInt() == k.id) hit = table_->topLevelItem(i);
        table_->setCurrentItem(hit);
        if (hit) table_->scrollToItem(hit);
        syncing_ = false;
    });
}

QString MemoryView::peakTitle() const { return tableTitle_->text(); }

void MemoryView::rebuild() {
    auto r = doc_->result();
    if (!doc_->hasProgram() || !r || !r->ok()) return;
    std::vector<ValueId> resident(doc_->spec().inputs.begin(), doc_->spec().inputs.end());
    const int64_t fwdEnd = doc_->spec().fwdOpEndIdx;
    auto pane = [&](std::shared_ptr<const Program> p, const MemoryProfile& m, std::span<const OpId> clones, const QString& title) {
        MemoryPane out;
        out.title = title;
        out.program = p;
        out.lifetimes = computeLifetimes(*p, LifetimeOptions{resident, fwdEnd, clones});
        out.liveBytes = m.liveBytes;
        out.peakBytes = m.peakBytes;
        out.peakOp = m.peakOpIndex;
        out.cloneValue.assign(p->values().size(), 0);
        out.originalOf.resize(p->values().size());
        for (ValueId v = 0; v < p->values().size(); ++v) out.originalOf[v] = v;
        return out;
    };
    std::vector<MemoryPane> panes;
    panes.push_back(pane(doc_->programPtr(), r->originalMemory, {}, tr("Original program · peak %1").arg(formatBytes(double(r->originalMemory.peakBytes)))));
    if (r->rewritten) {
        MemoryPane rw = pane(r->rewritten, r->rewrittenMemory, r->clones,
                             tr("With recompute (%1 clones) · peak %2").arg(r->clones.size()).arg(formatBytes(double(r->rewrittenMemory.peakBytes))));
        // A clone's result stands for the original value it recomputes (same result slot).
        const Program& orig = doc_->program();
        for (size_t i = 0; i < r->clones.size() && i < r->cloneOf.size(); ++i) {
            const auto& res = r->rewritten->op(r->clones[i]).results;
            const auto& ores = orig.op(r->cloneOf[i]).results;
            for (size_t k = 0; k < res.size() && k < ores.size(); ++k) {
                rw.cloneValue[res[k]] = 1;
                rw.originalOf[res[k]] = ores[k];
            }
        }
        panes.push_back(std::move(rw));
    }
    chart_->setPanes(std::move(panes));
    const ModelKey sel = doc_->selection();
    chart_->setSelectedValue(sel.kind == ModelKey::Kind::Value ? sel.id : kNoId);
    fillTable();
}

std::vector<ValueLifetime> MemoryView::newAtRewrittenPeak() const {
    const auto& panes = chart_->panes();
    if (panes.size() < 2) return {};
    const MemoryPane& original = panes[0];
    const MemoryPane& rewritten = panes[1];
    std::vector<uint8_t> liveBefore(original.program->values().size(), 0);
    for (const ValueLifetime& lt : original.lifetimes.liveAt(original.peakOp)) liveBefore[lt.value] = 1;
    std::vector<ValueLifetime> out;
    for (const ValueLifetime& lt : rewritten.lifetimes.liveAt(rewritten.peakOp)) {
        const ValueId orig = rewritten.originalOf[lt.value];
        if (orig >= liveBefore.size() || !liveBefore[orig]) out.push_back(lt);
    }
    return out;
}

void MemoryView::fillTable() {
    syncing_ = true;
    table_->clear();
    syncing_ = false;
    const auto& panes = chart_->panes();
    if (panes.empty()) return;
    const bool newOnly = which_->currentIndex() == 2 && panes.size() > 1;
    const size_t which = (which_->currentIndex() == 0 || newOnly) && panes.size() > 1 ? 1 : 0;
    const MemoryPane& pane = panes[which];
    const Program& p = *pane.program;
    auto r = doc_->result();
    const std::vector<ValueLifetime> live = newOnly ? newAtRewrittenPeak() : pane.lifetimes.liveAt(pane.peakOp);
    const OpId peakOp = pane.peakOp < p.globalBlock().ops.size() ? p.globalBlock().ops[pane.peakOp] : kNoId;
    std::vector<ValueId> highlight;
    int64_t newBytes = 0;
    if (newOnly)
        for (const ValueLifetime& lt : live) {
            highlight.push_back(lt.value);
            newBytes += lt.bytes;
        }
    chart_->setHighlighted(1, std::move(highlight));
    if (newOnly)
        tableTitle_->setText(tr("<b>%1</b> in %2 values live at the rewritten peak (op #%3, %4) that were not live at the "
                                "original's (op #%5), hatched amber")
                                 .arg(formatBytes(double(newBytes)))
                                 .arg(live.size())
                                 .arg(pane.peakOp)
                                 .arg(peakOp == kNoId ? QString() : shortOpName(p.opName(peakOp)))
                                 .arg(panes[0].peakOp));
    else
        tableTitle_->setText(tr("<b>%1</b> live at op #%2 (%3): %4 values + %5 resident")
                                 .arg(formatBytes(double(pane.peakBytes)))
                                 .arg(pane.peakOp)
                                 .arg(peakOp == kNoId ? QString() : shortOpName(p.opName(peakOp)))
                                 .arg(live.size())
                                 .arg(formatBytes(double(pane.lifetimes.residentBytes))));
    QList<QTreeWidgetItem*> items;
    for (const ValueLifetime& lt : live) {
        const ValueId orig = pane.originalOf[lt.value];
        QString decision;
        if (pane.cloneValue[lt.value]) decision = tr("clone of %1").arg(doc_->valueName(orig));
        else if (r && orig < r->plan.reasons.size()) {
            const ValueSide side = r->plan.reasons[orig].side;
            decision = side == ValueSide::Saved ? tr("saved") : side == ValueSide::Recomputed ? tr("recomputed") : tr("—");
        }
        const OpId def = p.value(lt.value).definingOp;
        const QString name = qs(p.value(lt.value).name) + (lt.element >= 0 ? QStringLiteral("[%1]").arg(lt.element) : QString());
        auto* it = new QTreeWidgetItem({name, formatBytes(double(lt.bytes)), tr(memoryRoleName(lt.role)), decision,
                                        def == kNoId ? QString() : QStringLiteral("#%1 %2").arg(lt.begin).arg(shortOpName(p.opName(def)))});
        it->setData(0, ValueRole, orig);
        it->setForeground(2, memoryRoleColor(lt.role));
        items << it;
    }
    table_->addTopLevelItems(items);
}

}  // namespace rx
