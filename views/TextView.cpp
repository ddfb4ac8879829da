#include "views/TextView.h"

#include <QAbstractListModel>
#include <QAction>
#include <QCheckBox>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QListView>
#include <QPainter>
#include <QProgressBar>
#include <QRegularExpression>
#include <QScrollBar>
#include <QSplitter>
#include <QStyledItemDelegate>
#include <QTextLayout>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>
#include <QtConcurrent>
#include <algorithm>
#include <cmath>
#include <functional>

#include "model/PirWriter.h"

namespace rx {

namespace {

// Syntax colours of one PIR line (types, attribute keys, numbers, value names, op names).
QList<QTextLayout::FormatRange> highlightRanges(const QString& text) {
    struct Rule {
        QRegularExpression re;
        QTextCharFormat format;
    };
    static const std::vector<Rule> rules = [] {
        auto fmt = [](const char* color, bool bold = false) {
            QTextCharFormat f;
            f.setForeground(QColor(color));
            if (bold) f.setFontWeight(QFont::DemiBold);
            return f;
        };
        return std::vector<Rule>{
            {QRegularExpression(R"((pd_op|builtin|tensor|vec)[\w.]*<[^>]*>)"), fmt("#0f766e")},
            {QRegularExpression(R"(\b[a-z_]+:(?=[^:]))"), fmt("#6e7781")},
            {QRegularExpression(R"(\(\w+(\.\w+)?\))"), fmt("#8c959f")},
            {QRegularExpression(R"(\b-?\d+(\.\d+)?([eE][-+]?\d+)?\b)"), fmt("#b45309")},
            {QRegularExpression(R"(%[\w.]+)"), fmt("#2563eb")},
            {QRegularExpression(R"("[a-z_]+_op\.[\w.]+"|"builtin\.[\w.]+"|"pd\.[\w.]+")"), fmt("#7c3aed", true)},
            {QRegularExpression(R"(={3,}.*|IRPrinting.*)"), fmt("#8c959f")},
        };
    }();
    QList<QTextLayout::FormatRange> out;
    for (const Rule& rule : rules) {
        auto it = rule.re.globalMatch(text);
        while (it.hasNext()) {
            const auto m = it.next();
            out.push_back({int(m.capturedStart()), int(m.capturedLength()), rule.format});
        }
    }
    return out;
}

constexpr int kRowMarkRole = Qt::UserRole + 1;
enum RowMark { kMarkNone, kMarkRecomputed, kMarkClone, kMarkGap, kMarkChanged };

// Paints a row: its mark as a background, then the text with syntax colours. Only visible
// rows are painted, so colouring costs nothing per program size.
class PirRowDelegate : public QStyledItemDelegate {
public:
    using QStyledItemDelegate::QStyledItemDelegate;
    void paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const override {
        painter->save();
        const int mark = index.data(kRowMarkRole).toInt();
        QColor background;
        if (option.state & QStyle::State_Selected) background = QColor(37, 99, 235, 60);
        else if (mark == kMarkRecomputed) background = QColor(147, 51, 234, 30);
        else if (mark == kMarkClone) background = QColor(192, 38, 211, 45);
        else if (mark == kMarkGap) background = QColor(140, 149, 159, 40);
        else if (mark == kMarkChanged) background = QColor(217, 119, 6, 35);
        if (background.isValid()) painter->fillRect(option.rect, background);
        const QString text = index.data().toString();
        // Lay out only the columns inside the viewport: a row is as wide as the longest line,
        // and shaping all of a long line on every repaint is work no one sees. The font is
        // monospace (the row width assumes it too), so column c starts at c * advance.
        const qreal advance = QFontMetricsF(option.font).horizontalAdvance(QLatin1Char('x'));
        const qreal textLeft = option.rect.left() + 4;
        const auto* view = qobject_cast<const QAbstractItemView*>(option.widget);
        const int visibleWidth = view ? view->viewport()->width() : option.rect.width();
        int first = 0;
        int end = int(text.size());
        if (advance > 0) {
            first = std::clamp(int(std::floor(-textLeft / advance)), 0, end);
            end = std::clamp(int(std::ceil((visibleWidth - textLeft) / advance)) + 1, first, end);
        }
        QList<QTextLayout::FormatRange> formats;
        for (QTextLayout::FormatRange r : highlightRanges(text)) {  // coloured over the whole line, clipped
            const int from = std::max(r.start, first);
            const int to = std::min(r.start + r.length, end);
            if (to <= from) continue;
            r.start = from - first;
            r.length = to - from;
            formats.push_back(r);
        }
        QTextLayout layout(text.mid(first, end - first), option.font);
        layout.setFormats(formats);
        layout.beginLayout();
        QTextLine line = layout.createLine();
        layout.endLayout();
        painter->setPen(option.palette.color(QPalette::Text));
        if (line.isValid())
            layout.draw(painter, QPointF(textLeft + first * advance, option.rect.top() + (option.rect.height() - line.height()) / 2));
        painter->restore();
    }
};

// Is `line` an op line: "(results) = "name"(" or "{"? (What the printer writes for an op.)
bool isOpLine(std::string_view line) {
    size_t i = 0;
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    if (i >= line.size() || line[i] != '(') return false;
    // Any ')' after which: blanks '=' blanks ["]identifier["] blanks ( '(' | '{' ).
    for (size_t close = line.find(')', i); close != std::string_view::npos; close = line.find(')', close + 1)) {
        size_t k = close + 1;
        auto blanks = [&] {
            while (k < line.size() && (line[k] == ' ' || line[k] == '\t')) ++k;
        };
        blanks();
        if (k >= line.size() || line[k] != '=') continue;
        ++k;
        blanks();
        if (k < line.size() && line[k] == '"') ++k;
        if (k >= line.size() || !(std::isalpha(static_cast<unsigned char>(line[k])) || line[k] == '_')) continue;
        while (k < line.size() && (std::isalnum(static_cast<unsigned char>(line[k])) || line[k] == '_' || line[k] == '.')) ++k;
        if (k < line.size() && line[k] == '"') ++k;
        blanks();
        if (k < line.size() && (line[k] == '(' || line[k] == '{')) return true;
    }
    return false;
}

PrintedLines splitLines(std::string text) {
    PrintedLines out;
    out.text = std::move(text);
    out.starts.reserve(out.text.size() / 64 + 1);
    out.starts.push_back(0);
    for (size_t i = 0; i < out.text.size(); ++i)
        if (out.text[i] == '\n') out.starts.push_back(uint32_t(i + 1));
    return out;
}

std::vector<OpId> printOrder(const Program& program) {
    std::vector<OpId> order;
    order.reserve(program.ops().size());
    std::function<void(BlockId)> walk = [&](BlockId b) {
        for (OpId op : program.block(b).ops) {
            order.push_back(op);
            for (const auto& region : program.op(op).regions)
                for (BlockId inner : region) walk(inner);
        }
    };
    walk(Program::kGlobalBlock);
    return order;
}

// The alignment of alignDiff over lines given by a comparison (one implementation for the
// QStringList API and the worker's string views).
template <typename Same>
std::vector<DiffRow> alignRows(int leftCount, int rightCount, const std::vector<uint8_t>& rightInserted, Same same) {
    std::vector<DiffRow> rows;
    rows.reserve(size_t(std::max(leftCount, rightCount)));
    int i = 0;
    for (int j = 0; j < rightCount; ++j) {
        const bool inserted = size_t(j) < rightInserted.size() && rightInserted[size_t(j)];
        if (inserted || i >= leftCount) {
            rows.push_back({-1, j, DiffRow::Mark::Inserted});
            continue;
        }
        rows.push_back({i, j, same(i, j) ? DiffRow::Mark::Same : DiffRow::Mark::Changed});
        ++i;
    }
    for (; i < leftCount; ++i) rows.push_back({i, -1, DiffRow::Mark::Removed});
    return rows;
}

}  // namespace

std::string_view PrintedLines::line(int i) const {
    if (i < 0 || i >= count()) return {};
    const size_t begin = starts[size_t(i)];
    size_t end = size_t(i) + 1 < starts.size() ? starts[size_t(i) + 1] - 1 : text.size();
    if (end > begin && text[end - 1] == '\r') --end;
    return std::string_view(text).substr(begin, end - begin);
}

std::vector<OpId> mapLinesToOps(const Program& program, const PrintedLines& lines) {
    const std::vector<OpId> order = printOrder(program);
    std::vector<OpId> out;
    out.reserve(size_t(lines.count()));
    size_t next = 0;
    for (int i = 0; i < lines.count(); ++i) {
        if (next < order.size() && isOpLine(lines.line(i))) out.push_back(order[next++]);
        else out.push_back(kNoId);
    }
    return out;
}

std::vector<OpId> mapLinesToOps(const Program& program, const QString& text) {
    return mapLinesToOps(program, splitLines(text.toStdString()));
}

std::vector<DiffRow> alignDiff(const QStringList& left, const QStringList& right,
                               const std::vector<uint8_t>& rightInserted) {
    return alignRows(int(left.size()), int(right.size()), rightInserted, [&](int i, int j) { return left[i] == right[j]; });
}

std::shared_ptr<const TextSnapshot> buildTextSnapshot(std::shared_ptr<const Program> program,
                                                      std::shared_ptr<const SolveResult> result, bool diff,
                                                      std::atomic<int>* progress, const std::atomic<bool>* cancel) {
    auto s = std::make_shared<TextSnapshot>();
    auto step = [&](int percent) {
        if (progress) progress->store(percent);
        return !(cancel && cancel->load());
    };
    const Program& original = *program;
    s->diff = diff;
    s->left = splitLines(printProgram(original));
    if (!step(diff ? 20 : 60)) return s;
    s->leftOps = mapLinesToOps(original, s->left);
    s->recomputed.assign(original.ops().size(), 0);
    const bool ok = result && result->ok();
    if (ok)
        for (OpId op : result->plan.recomputeOps)
            if (op < s->recomputed.size()) s->recomputed[op] = 1;
    s->haveRewrite = diff && ok && result->rewritten;
    if (!step(diff ? 35 : 90)) return s;
    auto longest = [&](const PrintedLines& l) {
        int m = 0;
        for (int i = 0; i < l.count(); ++i) m = std::max(m, int(l.line(i).size()));
        return m;
    };
    s->longestLine = longest(s->left);
    s->rowOfOp.assign(original.ops().size(), -1);
    if (!diff) {
        s->rowLeftOp = s->leftOps;
        for (size_t line = 0; line < s->leftOps.size(); ++line)
            if (s->leftOps[line] != kNoId && s->leftOps[line] < s->rowOfOp.size()) s->rowOfOp[s->leftOps[line]] = int(line);
        step(100);
        return s;
    }
    std::vector<uint8_t> inserted;
    if (s->haveRewrite) {
        const Program& rewritten = *result->rewritten;
        s->right = splitLines(printProgram(rewritten));
        if (!step(55)) return s;
        s->rightOps = mapLinesToOps(rewritten, s->right);
        s->clone.assign(rewritten.ops().size(), 0);
        s->cloneOf.assign(rewritten.ops().size(), kNoId);
        for (size_t i = 0; i < result->clones.size(); ++i) {
            s->clone[result->clones[i]] = 1;
            if (i < result->cloneOf.size()) s->cloneOf[result->clones[i]] = result->cloneOf[i];
        }
        inserted.assign(s->rightOps.size(), 0);
        for (size_t j = 0; j < s->rightOps.size(); ++j)
            inserted[j] = s->rightOps[j] != kNoId && s->rightOps[j] < s->clone.size() && s->clone[s->rightOps[j]];
        s->longestLine = std::max(s->longestLine, longest(s->right));
    }
    if (!step(70)) return s;
    s->rows = alignRows(s->left.count(), s->right.count(), inserted,
                        [&](int i, int j) { return s->left.line(i) == s->right.line(j); });
    if (!step(85)) return s;
    s->rowLeftOp.assign(s->rows.size(), kNoId);
    s->rowRightOp.assign(s->rows.size(), kNoId);
    for (size_t k = 0; k < s->rows.size(); ++k) {
        const DiffRow& row = s->rows[k];
        if (row.mark == DiffRow::Mark::Inserted) ++s->inserts;
        if (row.mark == DiffRow::Mark::Changed) ++s->changes;
        if (row.leftLine >= 0) s->rowLeftOp[k] = s->leftOps[size_t(row.leftLine)];
        if (row.rightLine >= 0 && size_t(row.rightLine) < s->rightOps.size()) s->rowRightOp[k] = s->rightOps[size_t(row.rightLine)];
        if (s->rowLeftOp[k] != kNoId && s->rowLeftOp[k] < s->rowOfOp.size()) s->rowOfOp[s->rowLeftOp[k]] = int(k);
        if (row.mark != DiffRow::Mark::Same && (k == 0 || s->rows[k - 1].mark == DiffRow::Mark::Same)) s->changeStarts.push_back(int(k));
    }
    s->longestLine += 2;  // the gutter
    step(100);
    return s;
}

// ---------------------------------------------------------------- the rows model

// One pane's rows of a snapshot: text made on demand, marks as a role.
class TextRowsModel : public QAbstractListModel {
public:
    TextRowsModel(int side, QObject* parent) : QAbstractListModel(parent), side_(side) {}
    void setSnapshot(std::shared_ptr<const TextSnapshot> s, QSize rowSize) {
        beginResetModel();
        snapshot_ = std::move(s);
        rowSize_ = rowSize;
        endResetModel();
    }
    int rowCount(const QModelIndex& parent = {}) const override {
        if (parent.isValid() || !snapshot_) return 0;
        if (side_ == 1 && !snapshot_->diff) return 0;
        if (side_ == 1 && !snapshot_->haveRewrite) return 1;  // "no rewritten program yet"
        return snapshot_->rowCount();
    }
    QString text(int row) const {
        const TextSnapshot& s = *snapshot_;
        auto fromView = [](std::string_view v) { return QString::fromUtf8(v.data(), qsizetype(v.size())); };
        if (!s.diff) return fromView(s.left.line(row));
        if (side_ == 1 && !s.haveRewrite) return QObject::tr("// no rewritten program yet");
        const DiffRow& r = s.rows[size_t(row)];
        if (side_ == 0) {
            if (r.leftLine < 0) return {};
            const bool minus = r.mark == DiffRow::Mark::Changed || r.mark == DiffRow::Mark::Removed;
            return (minus ? QStringLiteral("- ") : QStringLiteral("  ")) + fromView(s.left.line(r.leftLine));
        }
        if (r.rightLine < 0) return {};
        return (r.mark == DiffRow::Mark::Same ? QStringLiteral("  ") : QStringLiteral("+ ")) + fromView(s.right.line(r.rightLine));
    }
    QVariant data(const QModelIndex& index, int role) const override {
        if (!index.isValid() || !snapshot_ || index.row() >= rowCount()) return {};
        const int row = index.row();
        if (role == Qt::DisplayRole) return text(row);
        if (role == Qt::SizeHintRole) return rowSize_;
        if (role == kRowMarkRole) return mark(row);
        return {};
    }

private:
    int mark(int row) const {
        const TextSnapshot& s = *snapshot_;
        if (side_ == 1 && !s.haveRewrite) return kMarkNone;
        const std::vector<OpId>& ops = s.diff ? (side_ == 0 ? s.rowLeftOp : s.rowRightOp) : s.leftOps;
        const std::vector<uint8_t>& flag = side_ == 0 ? s.recomputed : s.clone;
        const OpId op = size_t(row) < ops.size() ? ops[size_t(row)] : kNoId;
        if (op != kNoId && op < flag.size() && flag[op]) return side_ == 0 ? kMarkRecomputed : kMarkClone;
        if (!s.diff) return kMarkNone;
        const DiffRow& r = s.rows[size_t(row)];
        if (r.leftLine < 0 || r.rightLine < 0) return kMarkGap;
        if (r.mark == DiffRow::Mark::Changed) return kMarkChanged;
        return kMarkNone;
    }
    int side_;
    std::shared_ptr<const TextSnapshot> snapshot_;
    QSize rowSize_;
};

// ---------------------------------------------------------------- the view

namespace {
QListView* makePane(QWidget* parent, const char* name, QAbstractItemModel* model) {
    auto* v = new QListView(parent);
    v->setObjectName(name);
    v->setModel(model);
    v->setUniformItemSizes(true);  // 100k rows lay out in O(1)
    v->setEditTriggers(QAbstractItemView::NoEditTriggers);
    v->setSelectionMode(QAbstractItemView::SingleSelection);
    v->setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    v->setHorizontalScrollMode(QAbstractItemView::ScrollPerPixel);
    v->setItemDelegate(new PirRowDelegate(v));
    QFont f("monospace");
    f.setStyleHint(QFont::Monospace);
    f.setPointSizeF(9);
    v->setFont(f);
    return v;
}
}  // namespace

TextView::TextView(Document* doc, QWidget* parent) : QWidget(parent), doc_(doc) {
    pool_.setMaxThreadCount(1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    auto* bar = new QWidget(this);
    bar->setObjectName("viewBar");
    auto* bl = new QHBoxLayout(bar);
    bl->setContentsMargins(8, 4, 8, 4);
    diff_ = new QCheckBox(tr("Diff: rewritten beside original"), bar);
    diff_->setObjectName("diffToggle");
    // Next/previous change: actions on this widget, so the Help menu lists their keys.
    previousChange_ = new QAction(tr("Previous change"), this);
    previousChange_->setShortcut(QKeySequence(Qt::SHIFT | Qt::Key_F7));
    previousChange_->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    nextChange_ = new QAction(tr("Next change"), this);
    nextChange_->setShortcut(QKeySequence(Qt::Key_F7));
    nextChange_->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    addAction(previousChange_);
    addAction(nextChange_);
    connect(previousChange_, &QAction::triggered, this, &TextView::previousChange);
    connect(nextChange_, &QAction::triggered, this, &TextView::nextChange);
    auto* prevButton = new QToolButton(bar);
    prevButton->setObjectName("previousChange");
    prevButton->setDefaultAction(previousChange_);
    auto* nextButton = new QToolButton(bar);
    nextButton->setObjectName("nextChange");
    nextButton->setDefaultAction(nextChange_);
    previousChange_->setEnabled(false);
    nextChange_->setEnabled(false);
    progress_ = new QProgressBar(bar);
    progress_->setObjectName("textProgress");
    progress_->setRange(0, 100);
    progress_->setFixedWidth(160);
    progress_->setFormat(tr("printing… %p%"));
    progress_->hide();
    info_ = new QLabel(bar);
    info_->setObjectName("textInfo");
    bl->addWidget(diff_);
    bl->addWidget(prevButton);
    bl->addWidget(nextButton);
    bl->addStretch(1);
    bl->addWidget(progress_);
    bl->addWidget(info_);
    layout->addWidget(bar);
    leftModel_ = new TextRowsModel(0, this);
    rightModel_ = new TextRowsModel(1, this);
    auto* split = new QSplitter(this);
    auto pane = [split](const char* listName, const char* headerName, QAbstractItemModel* model, QListView** list, QLabel** header) {
        auto* box = new QWidget(split);
        auto* v = new QVBoxLayout(box);
        v->setContentsMargins(0, 0, 0, 0);
        v->setSpacing(0);
        *header = new QLabel(box);
        (*header)->setObjectName(headerName);
        (*header)->setContentsMargins(8, 2, 8, 2);
        (*header)->hide();
        *list = makePane(box, listName, model);
        v->addWidget(*header);
        v->addWidget(*list, 1);
        split->addWidget(box);
        return box;
    };
    pane("originalText", "originalHeader", leftModel_, &left_, &leftHeader_);
    rightPane_ = pane("rewrittenText", "rewrittenHeader", rightModel_, &right_, &rightHeader_);
    rightPane_->hide();
    layout->addWidget(split, 1);

    progressPoll_ = new QTimer(this);
    progressPoll_->setInterval(100);
    connect(progressPoll_, &QTimer::timeout, this, [this] {
        if (progressValue_) progress_->setValue(progressValue_->load());
    });
    connect(&watcher_, &QFutureWatcher<std::shared_ptr<const TextSnapshot>>::finished, this, [this] {
        progressPoll_->stop();
        progress_->hide();
        const bool again = std::exchange(rebuildAfter_, false);
        auto s = watcher_.result();
        if (again || (cancel_ && cancel_->load())) {
            rebuild();
            return;
        }
        install(std::move(s));
    });

    connect(diff_, &QCheckBox::toggled, this, &TextView::setDiff);
    connect(doc_, &Document::programChanged, this, [this] {
        dirty_ = true;
        if (isVisible()) rebuild();
    });
    connect(doc_, &Document::resultChanged, this, [this] {
        // The plain text does not depend on the result, only its marks; the diff does.
        dirty_ = true;
        if (isVisible()) rebuild();
    });
    connect(doc_, &Document::selectionChanged, this, &TextView::onSelection);
    connect(left_->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& index) {
        if (!syncing_ && index.isValid()) selectOpOfRow(index.row(), 0);
    });
    connect(right_->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& index) {
        if (!syncing_ && index.isValid()) selectOpOfRow(index.row(), 1);
    });
    // Scroll the panes together, both ways and both axes: rows stay aligned while a long
    // line is scrolled into view.
    auto link = [this](QScrollBar* from, QScrollBar* to) {
        connect(from, &QScrollBar::valueChanged, this, [this, to](int v) {
            if (!rightPane_->isVisible() || syncing_) return;
            syncing_ = true;
            to->setValue(v);
            syncing_ = false;
        });
    };
    link(left_->verticalScrollBar(), right_->verticalScrollBar());
    link(right_->verticalScrollBar(), left_->verticalScrollBar());
    link(left_->horizontalScrollBar(), right_->horizontalScrollBar());
    link(right_->horizontalScrollBar(), left_->horizontalScrollBar());
}

TextView::~TextView() {
    if (cancel_) cancel_->store(true);
    watcher_.waitForFinished();
}

void TextView::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    if (dirty_) rebuild();
}

bool TextView::isDiff() const { return diff_->isChecked(); }

bool TextView::isBuilding() const { return watcher_.isRunning(); }

void TextView::setDiff(bool on) {
    if (diff_->isChecked() != on) return diff_->setChecked(on);
    rightPane_->setVisible(on);
    leftHeader_->setVisible(on);
    rightHeader_->setVisible(on);
    dirty_ = true;
    if (isVisible()) rebuild();
}

void TextView::rebuild() {
    dirty_ = false;
    if (watcher_.isRunning()) {  // one build at a time; the newest state builds next
        rebuildAfter_ = true;
        if (cancel_) cancel_->store(true);
        return;
    }
    if (!doc_->hasProgram()) {
        install(std::make_shared<TextSnapshot>());
        return;
    }
    progressValue_ = std::make_shared<std::atomic<int>>(0);
    cancel_ = std::make_shared<std::atomic<bool>>(false);
    progress_->setValue(0);
    progress_->setFormat(diff_->isChecked() ? tr("aligning the diff… %p%") : tr("printing… %p%"));
    progress_->show();
    progressPoll_->start();
    watcher_.setFuture(QtConcurrent::run(&pool_, [program = doc_->programPtr(), result = doc_->result(), diff = diff_->isChecked(),
                                          progress = progressValue_, cancel = cancel_] {
        return buildTextSnapshot(program, result, diff, progress.get(), cancel.get());
    }));
}

void TextView::install(std::shared_ptr<const TextSnapshot> snapshot) {
    const int keepRow = currentRow();
    // The snapshot on show until now is freed on a worker: a 100k-op one is tens of MB, and
    // unmapping it here stalled the UI thread on every Diff tick and edit.
    std::shared_ptr<const TextSnapshot> previous = std::exchange(shown_, std::move(snapshot));
    // Fractional advance, as the painter lays text out (7.19 px at 9 pt, not 7): the integer
    // one cut the end off the longest lines.
    const QFontMetricsF fm(left_->font());
    const QSize rowSize(int(std::ceil(fm.horizontalAdvance(QLatin1Char('x')) * std::max(1, shown_->longestLine))) + 16,
                        QFontMetrics(left_->font()).height() + 2);
    syncing_ = true;
    leftModel_->setSnapshot(shown_, rowSize);
    rightModel_->setSnapshot(shown_, rowSize);
    syncing_ = false;
    if (previous && previous.use_count() == 1)
        (void)QtConcurrent::run(&pool_, [old = std::move(previous)]() mutable { old.reset(); });
    const TextSnapshot& s = *shown_;
    previousChange_->setEnabled(!s.changeStarts.empty());
    nextChange_->setEnabled(!s.changeStarts.empty());
    if (doc_->hasProgram()) {
        const QString name = QFileInfo(doc_->filePath()).fileName();
        const Program& original = doc_->program();
        if (s.diff) {
            auto r = doc_->result();
            leftHeader_->setText(tr("<b>Original</b> · %1 · %2 ops").arg(name.toHtmlEscaped()).arg(original.ops().size()));
            rightHeader_->setText(s.haveRewrite && r && r->rewritten
                                      ? tr("<b>Rewritten</b> · %1 · %2 ops (+%3 clones)").arg(name.toHtmlEscaped()).arg(r->rewritten->ops().size()).arg(r->clones.size())
                                      : tr("<b>Rewritten</b> · none yet"));
            info_->setText(tr("%1 rows · %2 inserted · %3 changed · %4 changes").arg(s.rows.size()).arg(s.inserts).arg(s.changes).arg(s.changeStarts.size()));
        } else {
            info_->setText(tr("%1 lines").arg(s.left.count()));
        }
    } else {
        info_->clear();
    }
    // Back where the user was: the selected op's row, else the same row.
    const ModelKey sel = doc_->selection();
    if (sel.valid()) onSelection(sel, nullptr);
    else if (keepRow >= 0) goToRow(std::min(keepRow, rowCount() - 1), false);
    Q_EMIT built();
}

int TextView::rowCount() const { return shown_ ? shown_->rowCount() : 0; }

QString TextView::rowText(int side, int row) const {
    const TextRowsModel* m = side == 0 ? leftModel_ : rightModel_;
    return row >= 0 && row < m->rowCount() ? m->text(row) : QString();
}

const std::vector<DiffRow>& TextView::diffRows() const {
    static const std::vector<DiffRow> none;
    return shown_ ? shown_->rows : none;
}

const std::vector<int>& TextView::changeStarts() const {
    static const std::vector<int> none;
    return shown_ ? shown_->changeStarts : none;
}

int TextView::currentRow() const { return left_->currentIndex().isValid() ? left_->currentIndex().row() : -1; }

void TextView::setCurrentRow(int row) { goToRow(row, true); }

void TextView::goToRow(int row, bool selectOp) {
    if (row < 0 || row >= rowCount()) return;
    syncing_ = true;
    for (QListView* list : {left_, right_}) {
        if (list->model()->rowCount() <= row) continue;
        const QModelIndex index = list->model()->index(row, 0);
        list->selectionModel()->setCurrentIndex(index, QItemSelectionModel::ClearAndSelect);
        list->scrollTo(index, QAbstractItemView::PositionAtCenter);
    }
    syncing_ = false;
    if (selectOp) selectOpOfRow(row, 0);
}

void TextView::selectOpOfRow(int row, int side) {
    if (!shown_ || row < 0 || row >= rowCount()) return;
    const TextSnapshot& s = *shown_;
    // The original op on the row; on a clone's row (a gap opposite), the op it copies.
    OpId op = size_t(row) < s.rowLeftOp.size() ? s.rowLeftOp[size_t(row)] : kNoId;
    if (op == kNoId && s.diff && size_t(row) < s.rowRightOp.size()) {
        const OpId r = s.rowRightOp[size_t(row)];
        if (r != kNoId && r < s.cloneOf.size()) op = s.cloneOf[r];
    }
    // Keep the other pane on the same row.
    syncing_ = true;
    QListView* other = side == 0 ? right_ : left_;
    if (other->model()->rowCount() > row)
        other->selectionModel()->setCurrentIndex(other->model()->index(row, 0), QItemSelectionModel::ClearAndSelect);
    syncing_ = false;
    if (op != kNoId && doc_->hasProgram() && op < doc_->program().ops().size()) doc_->select(ModelKey{ModelKey::Kind::Op, op}, this);
}

void TextView::nextChange() {
    const auto& starts = changeStarts();
    if (starts.empty()) return;
    const int cur = currentRow();
    auto it = std::upper_bound(starts.begin(), starts.end(), cur);
    goToRow(it == starts.end() ? starts.front() : *it, true);  // wraps to the first
}

void TextView::previousChange() {
    const auto& starts = changeStarts();
    if (starts.empty()) return;
    const int cur = currentRow();
    auto it = std::lower_bound(starts.begin(), starts.end(), cur);
    goToRow(it == starts.begin() ? starts.back() : *std::prev(it), true);  // wraps to the last
}

int TextView::lineOfOp(OpId op) const {
    if (!shown_ || op >= shown_->rowOfOp.size()) return -1;
    return shown_->rowOfOp[op];
}

OpId TextView::opAtLine(int line) const {
    if (!shown_ || line < 0) return kNoId;
    const std::vector<OpId>& ops = shown_->diff ? shown_->rowLeftOp : shown_->leftOps;
    return size_t(line) < ops.size() ? ops[size_t(line)] : kNoId;
}

void TextView::onSelection(ModelKey key, QObject* origin) {
    if (origin == this || !shown_ || !doc_->hasProgram()) return;
    OpId op = kNoId;
    if (key.kind == ModelKey::Kind::Op) op = key.id;
    if (key.kind == ModelKey::Kind::Value && key.id < doc_->program().values().size()) op = doc_->program().value(key.id).definingOp;
    const int row = op == kNoId ? -1 : lineOfOp(op);
    if (row >= 0) goToRow(row, false);
}

}  // namespace rx
