#include "views/TextView.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QRegularExpression>
#include <QScrollBar>
#include <QSplitter>
#include <QSyntaxHighlighter>
#include <QTextBlock>
#include <QVBoxLayout>
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
        for (OpId op : program.blocks[b].ops) {
            order.push_back(op);
            for (const auto& region : program.ops[op].regions)
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
    info_ = new QLabel(bar);
    bl->addWidget(diff_);
    bl->addStretch(1);
    bl->addWidget(info_);
    layout->addWidget(bar);
    auto* split = new QSplitter(this);
    left_ = makeEditor(split, "originalText");
    right_ = makeEditor(split, "rewrittenText");
    split->addWidget(left_);
    split->addWidget(right_);
    right_->hide();
    layout->addWidget(split, 1);

    connect(diff_, &QCheckBox::toggled, this, &TextView::setDiff);
    connect(doc_, &Document::programChanged, this, [this] {
        dirty_ = diffDirty_ = true;
        if (isVisible()) rebuild();
    });
    connect(doc_, &Document::resultChanged, this, [this] {
        diffDirty_ = true;
        if (isVisible()) {
            if (diff_->isChecked()) rebuildDiff();
            markLines();
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
        if (op < doc_->program().ops.size()) doc_->select(ModelKey{ModelKey::Kind::Op, op}, this);
    });
    // Scroll the panes together.
    connect(left_->verticalScrollBar(), &QScrollBar::valueChanged, this, [this](int v) {
        if (right_->isVisible() && !syncing_) {
            syncing_ = true;
            right_->verticalScrollBar()->setValue(v);
            syncing_ = false;
        }
    });
}

void TextView::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    if (dirty_) rebuild();
    if (diff_->isChecked() && diffDirty_) rebuildDiff();
}

void TextView::setDiff(bool on) {
    if (diff_->isChecked() != on) return diff_->setChecked(on);
    right_->setVisible(on);
    if (on && diffDirty_) rebuildDiff();
    markLines();
}

void TextView::rebuild() {
    dirty_ = false;
    if (!doc_->hasProgram()) {
        left_->clear();
        return;
    }
    const QString text = QString::fromStdString(printProgram(doc_->program()));
    lineOps_ = mapLinesToOps(doc_->program(), text);
    syncing_ = true;
    delete left_->document()->findChild<PirHighlighter*>();
    left_->setPlainText(text);
    if (lineOps_.size() < size_t(kHighlightLineLimit)) new PirHighlighter(left_->document());
    syncing_ = false;
    info_->setText(tr("%1 lines").arg(lineOps_.size()));
    markLines();
    onSelection(doc_->selection(), nullptr);
}

void TextView::rebuildDiff() {
    diffDirty_ = false;
    auto r = doc_->result();
    syncing_ = true;
    if (!r || !r->rewritten) {
        right_->setPlainText(tr("// no rewritten program yet"));
        rightLineOps_.clear();
        syncing_ = false;
        return;
    }
    const QString text = QString::fromStdString(printProgram(*r->rewritten));
    rightLineOps_ = mapLinesToOps(*r->rewritten, text);
    delete right_->document()->findChild<PirHighlighter*>();
    right_->setPlainText(text);
    if (rightLineOps_.size() < size_t(kHighlightLineLimit)) new PirHighlighter(right_->document());
    syncing_ = false;
    markLines();
}

void TextView::markLines() {
    auto r = doc_->result();
    auto mark = [](QPlainTextEdit* edit, const std::vector<OpId>& lineOps, const std::vector<uint8_t>& flag, QColor color, int selectedLine) {
        QList<QTextEdit::ExtraSelection> sels;
        for (size_t line = 0; line < lineOps.size(); ++line) {
            const OpId op = lineOps[line];
            const bool marked = op != kNoId && op < flag.size() && flag[op];
            if (!marked && int(line) != selectedLine) continue;
            QTextEdit::ExtraSelection s;
            s.cursor = QTextCursor(edit->document()->findBlockByNumber(int(line)));
            s.format.setProperty(QTextFormat::FullWidthSelection, true);
            s.format.setBackground(int(line) == selectedLine ? QColor(37, 99, 235, 60) : color);
            sels << s;
            if (sels.size() > 5000) break;
        }
        edit->setExtraSelections(sels);
    };
    std::vector<uint8_t> recomputed, clones;
    if (r && r->ok()) {
        recomputed.assign(doc_->program().ops.size(), 0);
        for (OpId op : r->plan.recomputeOps) recomputed[op] = 1;
        if (r->rewritten) {
            clones.assign(r->rewritten->ops.size(), 0);
            for (OpId c : r->clones) clones[c] = 1;
        }
    }
    const int sel = doc_->selection().kind == ModelKey::Kind::Op ? lineOfOp(doc_->selection().id) : -1;
    mark(left_, lineOps_, recomputed, QColor(147, 51, 234, 30), sel);
    if (right_->isVisible()) mark(right_, rightLineOps_, clones, QColor(192, 38, 211, 45), -1);
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
    if (key.kind == ModelKey::Kind::Value && key.id < doc_->program().values.size()) op = doc_->program().values[key.id].definingOp;
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
