#include "views/TextView.h"

#include <QAction>
#include <QCheckBox>
#include <QFileInfo>
#include <QToolButton>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QRegularExpression>
#include <QScrollBar>
#include <QSplitter>
#include <QSyntaxHighlighter>
#include <QTextBlock>
#include <QVBoxLayout>
#include <algorithm>
#include <functional>

#include "model/PirWriter.h"

namespace rx {

namespace {

class PirHighlighter : public QSyntaxHighlighter {
public:
    explicit PirHighlighter(QTextDocument* doc) : QSyntaxHighlighter(doc) {
        auto fmt = [](const char* color, bool bold = false) {
            QTextCharFormat f;
            f.setForeground(QColor(color));
            if (bold) f.setFontWeight(QFont::DemiBold);
            return f;
        };
        rules_ = {
            {QRegularExpression(R"((pd_op|builtin|tensor|vec)[\w.]*<[^>]*>)"), fmt("#0f766e")},
            {QRegularExpression(R"(\b[a-z_]+:(?=[^:]))"), fmt("#6e7781")},
            {QRegularExpression(R"(\(\w+(\.\w+)?\))"), fmt("#8c959f")},
            {QRegularExpression(R"(\b-?\d+(\.\d+)?([eE][-+]?\d+)?\b)"), fmt("#b45309")},
            {QRegularExpression(R"(%[\w.]+)"), fmt("#2563eb")},
            {QRegularExpression(R"("[a-z_]+_op\.[\w.]+"|"builtin\.[\w.]+"|"pd\.[\w.]+")"), fmt("#7c3aed", true)},
            {QRegularExpression(R"(={3,}.*|IRPrinting.*)"), fmt("#8c959f")},
        };
    }

protected:
    void highlightBlock(const QString& text) override {
        for (const auto& [re, f] : rules_) {
            auto it = re.globalMatch(text);
            while (it.hasNext()) {
                const auto m = it.next();
                setFormat(int(m.capturedStart()), int(m.capturedLength()), f);
            }
        }
    }

private:
    std::vector<std::pair<QRegularExpression, QTextCharFormat>> rules_;
};

QPlainTextEdit* makeEditor(QWidget* parent, const char* name) {
    auto* e = new QPlainTextEdit(parent);
    e->setObjectName(name);
    e->setReadOnly(true);
    e->setLineWrapMode(QPlainTextEdit::NoWrap);
    QFont f("monospace");
    f.setStyleHint(QFont::Monospace);
    f.setPointSizeF(9);
    e->setFont(f);
    e->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    return e;
}

constexpr int kHighlightLineLimit = 20000;  // bigger texts stay plain: highlighting is O(text)

}  // namespace

std::vector<OpId> mapLinesToOps(const Program& program, const QString& text) {
    std::vector<OpId> order;
    std::function<void(BlockId)> walk = [&](BlockId b) {
        for (OpId op : program.block(b).ops) {
            order.push_back(op);
            for (const auto& region : program.op(op).regions)
                for (BlockId inner : region) walk(inner);
        }
    };
    walk(Program::kGlobalBlock);
    std::vector<OpId> lines;
    size_t next = 0;
    static const QRegularExpression opLine(R"(^\s*\(.*\)\s*=\s*"?[A-Za-z_][\w.]*"?\s*[\(\{])");
    const QStringList all = text.split('\n');
    lines.reserve(size_t(all.size()));
    for (const QString& line : all) {
        const QString t = line.trimmed();
        if (next < order.size() && t.startsWith('(') && opLine.match(line).hasMatch()) lines.push_back(order[next++]);
        else lines.push_back(kNoId);
    }
    return lines;
}

std::vector<DiffRow> alignDiff(const QStringList& left, const QStringList& right,
                               const std::vector<uint8_t>& rightInserted) {
    std::vector<DiffRow> rows;
    rows.reserve(size_t(std::max(left.size(), right.size())));
    int i = 0;
    for (int j = 0; j < right.size(); ++j) {
        const bool inserted = size_t(j) < rightInserted.size() && rightInserted[size_t(j)];
        if (inserted || i >= left.size()) {
            rows.push_back({-1, j, DiffRow::Mark::Inserted});
            continue;
        }
        rows.push_back({i, j, left[i] == right[j] ? DiffRow::Mark::Same : DiffRow::Mark::Changed});
        ++i;
    }
    for (; i < left.size(); ++i) rows.push_back({i, -1, DiffRow::Mark::Removed});
    return rows;
}

TextView::TextView(Document* doc, QWidget* parent) : QWidget(parent), doc_(doc) {
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
    info_ = new QLabel(bar);
    info_->setObjectName("textInfo");
    bl->addWidget(diff_);
    bl->addWidget(prevButton);
    bl->addWidget(nextButton);
    bl->addStretch(1);
    bl->addWidget(info_);
    layout->addWidget(bar);
    auto* split = new QSplitter(this);
    auto pane = [split](const char* editorName, const char* headerName, QPlainTextEdit** edit, QLabel** header) {
        auto* box = new QWidget(split);
        auto* v = new QVBoxLayout(box);
        v->setContentsMargins(0, 0, 0, 0);
        v->setSpacing(0);
        *header = new QLabel(box);
        (*header)->setObjectName(headerName);
        (*header)->setContentsMargins(8, 2, 8, 2);
        (*header)->hide();
        *edit = makeEditor(box, editorName);
        v->addWidget(*header);
        v->addWidget(*edit, 1);
        split->addWidget(box);
        return box;
    };
    pane("originalText", "originalHeader", &left_, &leftHeader_);
    rightPane_ = pane("rewrittenText", "rewrittenHeader", &right_, &rightHeader_);
    rightPane_->hide();
    layout->addWidget(split, 1);

    connect(diff_, &QCheckBox::toggled, this, &TextView::setDiff);
    connect(doc_, &Document::programChanged, this, [this] {
        dirty_ = true;
        if (isVisible()) rebuild();
    });
    connect(doc_, &Document::resultChanged, this, [this] {
        // The plain text does not depend on the result; the aligned diff does.
        if (diff_->isChecked()) dirty_ = true;
        if (isVisible()) {
            if (dirty_) rebuild();
            else markLines();
        }
    });
    connect(doc_, &Document::selectionChanged, this, &TextView::onSelection);
    connect(left_, &QPlainTextEdit::cursorPositionChanged, this, [this] {
        if (syncing_) return;
        const OpId op = opAtLine(left_->textCursor().blockNumber());
        if (op != kNoId) doc_->select(ModelKey{ModelKey::Kind::Op, op}, this);
    });
    connect(right_, &QPlainTextEdit::cursorPositionChanged, this, [this] {
        if (syncing_) return;
        const int line = right_->textCursor().blockNumber();
        if (line < 0 || size_t(line) >= rightLineOps_.size() || rightLineOps_[line] == kNoId) return;
        auto r = doc_->result();
        if (!r) return;
        OpId op = rightLineOps_[line];
        for (size_t i = 0; i < r->clones.size(); ++i)
            if (r->clones[i] == op) { op = r->cloneOf[i]; break; }
        if (op < doc_->program().ops().size()) doc_->select(ModelKey{ModelKey::Kind::Op, op}, this);
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

void TextView::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    if (dirty_) rebuild();
}

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
    rows_.clear();
    changeStarts_.clear();
    rightLineOps_.clear();
    if (!doc_->hasProgram()) {
        left_->clear();
        right_->clear();
        lineOps_.clear();
    } else if (diff_->isChecked()) {
        rebuildAligned();
    } else {
        rebuildPlain();
    }
    previousChange_->setEnabled(!changeStarts_.empty());
    nextChange_->setEnabled(!changeStarts_.empty());
    markLines();
    onSelection(doc_->selection(), nullptr);
}

namespace {
void setText(QPlainTextEdit* edit, const QString& text, size_t lines) {
    delete edit->document()->findChild<PirHighlighter*>();
    edit->setPlainText(text);
    if (lines < size_t(kHighlightLineLimit)) new PirHighlighter(edit->document());
}
}  // namespace

void TextView::rebuildPlain() {
    const QString text = QString::fromStdString(printProgram(doc_->program()));
    lineOps_ = mapLinesToOps(doc_->program(), text);
    syncing_ = true;
    setText(left_, text, lineOps_.size());
    syncing_ = false;
    info_->setText(tr("%1 lines").arg(lineOps_.size()));
}

void TextView::rebuildAligned() {
    auto r = doc_->result();
    const Program& original = doc_->program();
    const QString leftText = QString::fromStdString(printProgram(original));
    const QStringList leftLines = leftText.split('\n');
    const std::vector<OpId> leftOps = mapLinesToOps(original, leftText);
    const QString name = QFileInfo(doc_->filePath()).fileName();
    const bool haveRewrite = r && r->ok() && r->rewritten;
    QStringList rightLines;
    std::vector<OpId> rightOps;
    std::vector<uint8_t> inserted;
    if (haveRewrite) {
        const QString rightText = QString::fromStdString(printProgram(*r->rewritten));
        rightLines = rightText.split('\n');
        rightOps = mapLinesToOps(*r->rewritten, rightText);
        std::vector<uint8_t> isClone(r->rewritten->ops().size(), 0);
        for (OpId c : r->clones) isClone[c] = 1;
        inserted.assign(rightOps.size(), 0);
        for (size_t j = 0; j < rightOps.size(); ++j) inserted[j] = rightOps[j] != kNoId && rightOps[j] < isClone.size() && isClone[rightOps[j]];
    }
    rows_ = alignDiff(leftLines, rightLines, inserted);
    // The gutter is part of each row's text: '-'/'+' on a changed row, '+' opposite a gap.
    QStringList leftRows, rightRows;
    lineOps_.assign(rows_.size(), kNoId);
    rightLineOps_.assign(rows_.size(), kNoId);
    int inserts = 0, changes = 0;
    for (size_t k = 0; k < rows_.size(); ++k) {
        const DiffRow& row = rows_[k];
        const bool changed = row.mark == DiffRow::Mark::Changed;
        if (row.mark == DiffRow::Mark::Inserted) ++inserts;
        if (changed) ++changes;
        if (row.leftLine >= 0) {
            leftRows << (changed || row.mark == DiffRow::Mark::Removed ? QStringLiteral("- ") : QStringLiteral("  ")) + leftLines[row.leftLine];
            lineOps_[k] = leftOps[size_t(row.leftLine)];
        } else {
            leftRows << QString();
        }
        if (row.rightLine >= 0) {
            rightRows << (row.mark == DiffRow::Mark::Same ? QStringLiteral("  ") : QStringLiteral("+ ")) + rightLines[row.rightLine];
            rightLineOps_[k] = rightOps[size_t(row.rightLine)];
        } else {
            rightRows << QString();
        }
        if (row.mark != DiffRow::Mark::Same && (k == 0 || rows_[k - 1].mark == DiffRow::Mark::Same)) changeStarts_.push_back(int(k));
    }
    syncing_ = true;
    setText(left_, leftRows.join('\n'), rows_.size());
    if (haveRewrite) setText(right_, rightRows.join('\n'), rows_.size());
    else right_->setPlainText(tr("// no rewritten program yet"));
    syncing_ = false;
    leftHeader_->setText(tr("<b>Original</b> · %1 · %2 ops").arg(name.toHtmlEscaped()).arg(original.ops().size()));
    rightHeader_->setText(haveRewrite ? tr("<b>Rewritten</b> · %1 · %2 ops (+%3 clones)").arg(name.toHtmlEscaped()).arg(r->rewritten->ops().size()).arg(r->clones.size())
                                      : tr("<b>Rewritten</b> · none yet"));
    info_->setText(tr("%1 rows · %2 inserted · %3 changed · %4 changes").arg(rows_.size()).arg(inserts).arg(changes).arg(changeStarts_.size()));
}

int TextView::currentRow() const { return left_->textCursor().blockNumber(); }

void TextView::goToRow(int row) {
    if (row < 0 || size_t(row) >= rows_.size()) return;
    syncing_ = true;
    for (QPlainTextEdit* edit : {left_, right_}) {
        QTextCursor c(edit->document()->findBlockByNumber(row));
        edit->setTextCursor(c);
        edit->centerCursor();
    }
    syncing_ = false;
    // Select the op of the row (a clone stands for the op it copies), as a click would.
    OpId op = lineOps_[size_t(row)];
    if (op == kNoId && rightLineOps_[size_t(row)] != kNoId) {
        if (auto r = doc_->result())
            for (size_t i = 0; i < r->clones.size(); ++i)
                if (r->clones[i] == rightLineOps_[size_t(row)]) op = r->cloneOf[i];
    }
    if (op != kNoId && op < doc_->program().ops().size()) doc_->select(ModelKey{ModelKey::Kind::Op, op}, this);
    markLines();
}

void TextView::nextChange() {
    if (changeStarts_.empty()) return;
    const int cur = currentRow();
    auto it = std::upper_bound(changeStarts_.begin(), changeStarts_.end(), cur);
    goToRow(it == changeStarts_.end() ? changeStarts_.front() : *it);  // wraps to the first
}

void TextView::previousChange() {
    if (changeStarts_.empty()) return;
    const int cur = currentRow();
    auto it = std::lower_bound(changeStarts_.begin(), changeStarts_.end(), cur);
    goToRow(it == changeStarts_.begin() ? changeStarts_.back() : *std::prev(it));  // wraps to the last
}

void TextView::markLines() {
    auto r = doc_->result();
    const std::vector<DiffRow>& rows = rows_;
    auto mark = [&rows](QPlainTextEdit* edit, const std::vector<OpId>& lineOps, const std::vector<uint8_t>& flag, QColor color, int selectedLine) {
        QList<QTextEdit::ExtraSelection> sels;
        for (size_t line = 0; line < lineOps.size(); ++line) {
            const OpId op = lineOps[line];
            const bool marked = op != kNoId && op < flag.size() && flag[op];
            const bool gap = line < rows.size() && (rows[line].leftLine < 0 || rows[line].rightLine < 0);
            const bool changed = line < rows.size() && rows[line].mark == DiffRow::Mark::Changed;
            if (!marked && !gap && !changed && int(line) != selectedLine) continue;
            QTextEdit::ExtraSelection s;
            s.cursor = QTextCursor(edit->document()->findBlockByNumber(int(line)));
            s.format.setProperty(QTextFormat::FullWidthSelection, true);
            // Selection over clone/recompute colour over the diff's gap (grey) and change (amber).
            const QColor diffColor = gap ? QColor(140, 149, 159, 40) : QColor(217, 119, 6, 35);
            s.format.setBackground(int(line) == selectedLine ? QColor(37, 99, 235, 60) : marked ? color : diffColor);
            sels << s;
            if (sels.size() > 5000) break;
        }
        edit->setExtraSelections(sels);
    };
    std::vector<uint8_t> recomputed, clones;
    if (r && r->ok()) {
        recomputed.assign(doc_->program().ops().size(), 0);
        for (OpId op : r->plan.recomputeOps) recomputed[op] = 1;
        if (r->rewritten) {
            clones.assign(r->rewritten->ops().size(), 0);
            for (OpId c : r->clones) clones[c] = 1;
        }
    }
    const int sel = doc_->selection().kind == ModelKey::Kind::Op ? lineOfOp(doc_->selection().id) : -1;
    mark(left_, lineOps_, recomputed, QColor(147, 51, 234, 30), sel);
    if (rightPane_->isVisible()) mark(right_, rightLineOps_, clones, QColor(192, 38, 211, 45), -1);
}

int TextView::lineOfOp(OpId op) const {
    for (size_t i = 0; i < lineOps_.size(); ++i)
        if (lineOps_[i] == op) return int(i);
    return -1;
}

OpId TextView::opAtLine(int line) const {
    return line >= 0 && size_t(line) < lineOps_.size() ? lineOps_[line] : kNoId;
}

void TextView::onSelection(ModelKey key, QObject* origin) {
    if (origin == this || dirty_ || !doc_->hasProgram()) return;
    OpId op = kNoId;
    if (key.kind == ModelKey::Kind::Op) op = key.id;
    if (key.kind == ModelKey::Kind::Value && key.id < doc_->program().values().size()) op = doc_->program().value(key.id).definingOp;
    const int line = op == kNoId ? -1 : lineOfOp(op);
    if (line < 0) return;
    syncing_ = true;
    QTextCursor c(left_->document()->findBlockByNumber(line));
    left_->setTextCursor(c);
    left_->centerCursor();
    syncing_ = false;
    markLines();
}

}  // namespace rx
