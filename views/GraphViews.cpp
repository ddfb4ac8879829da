#include "views/GraphViews.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QToolButton>
#include <QVBoxLayout>

namespace rx {

namespace {

QWidget* makeBar(QWidget* parent, QHBoxLayout*& layout) {
    auto* bar = new QWidget(parent);
    bar->setObjectName("viewBar");
    layout = new QHBoxLayout(bar);
    layout->setContentsMargins(8, 4, 8, 4);
    layout->setSpacing(8);
    return bar;
}

QToolButton* barButton(const QString& text, const QString& tip, QWidget* parent) {
    auto* b = new QToolButton(parent);
    b->setText(text);
    b->setToolTip(tip);
    b->setAutoRaise(true);
    return b;
}

}  // namespace

// ---------------------------------------------------------------- ProgramView

ProgramView::ProgramView(Document* doc, QWidget* parent) : QWidget(parent), doc_(doc) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    QHBoxLayout* bl;
    QWidget* bar = makeBar(this, bl);
    overlay_ = new QComboBox(bar);
    overlay_->setObjectName("overlayCombo");
    overlay_->addItems({tr("Colour: role"), tr("Colour: size"), tr("Colour: weight"), tr("Colour: distance to backward")});
    valuesMode_ = new QComboBox(bar);
    valuesMode_->addItems({tr("Values: auto"), tr("Values: off"), tr("Values: on")});
    rewritten_ = new QCheckBox(tr("Rewritten program"), bar);
    rewritten_->setObjectName("showRewritten");
    rewritten_->setToolTip(tr("Show the program after recomputation: clones marked"));
    whole_ = barButton(tr("Show whole graph"), tr("Lay out every op (may take a while; cancel with Esc)"), bar);
    auto* fit = barButton(tr("Fit"), tr("Fit to window (F)"), bar);
    info_ = new QLabel(bar);
    info_->setObjectName("viewInfo");
    bl->addWidget(overlay_);
    bl->addWidget(valuesMode_);
    bl->addWidget(rewritten_);
    bl->addStretch(1);
    bl->addWidget(info_);
    bl->addWidget(whole_);
    bl->addWidget(fit);
    layout->addWidget(bar);
    canvas_ = new GraphCanvas("program", this);
    canvas_->setObjectName("programCanvas");
    layout->addWidget(canvas_, 1);

    connect(overlay_, &QComboBox::currentIndexChanged, this, [this] { rebuild(false); });
    connect(valuesMode_, &QComboBox::currentIndexChanged, this, [this] { rebuild(true); });
    connect(rewritten_, &QCheckBox::toggled, this, [this](bool on) { setShowRewritten(on); });
    connect(whole_, &QToolButton::clicked, this, &ProgramView::showWholeGraph);
    connect(fit, &QToolButton::clicked, canvas_, &GraphCanvas::fit);
    connect(doc_, &Document::programChanged, this, &ProgramView::onProgramChanged);
    connect(doc_, &Document::specChanged, this, [this] {
        if (doc_->hasProgram()) {
            resetOverview();
            rebuild(true);
        }
    });
    connect(doc_, &Document::resultChanged, this, &ProgramView::onResult);
    // Pins show at once, before (or without) the re-solve.
    connect(doc_, &Document::configChanged, this, [this] {
        if (doc_->hasProgram() && !showingRewritten_) rebuild(false);
    });
    connect(doc_, &Document::selectionChanged, this, &ProgramView::onSelection);
    connect(canvas_, &GraphCanvas::keyActivated, this, [this](ModelKey k) {
        if (k.kind == ModelKey::Kind::Group) return;
        if (showingRewritten_ && k.kind == ModelKey::Kind::Op) {
            auto r = doc_->result();
            if (!r || !r->rewritten) return;
            // A clone selects its original; other ops of the rewritten program keep ids? No:
            // map by position through cloneOf where possible.
            for (size_t i = 0; i < r->clones.size(); ++i)
                if (r->clones[i] == k.id) return doc_->select(ModelKey{ModelKey::Kind::Op, r->cloneOf[i]}, this);
            return;
        }
        doc_->select(k, this);
    });
    connect(canvas_, &GraphCanvas::keyDoubleClicked, this, &ProgramView::onDoubleClick);
    connect(canvas_, &GraphCanvas::keyContextMenu, this, [this](ModelKey k, QPoint pos) {
        if (k.valid() && !showingRewritten_) Q_EMIT contextMenuForKey(k, pos);
    });
    connect(canvas_, &GraphCanvas::layoutFinished, this, [this](double ms, int nodes) {
        info_->setText(tr("%1 nodes · layout %2 s").arg(nodes).arg(ms / 1000.0, 0, 'f', 2));
        if (doc_->selection().valid()) onSelection(doc_->selection(), nullptr);  // the new picture shows it
    });
    connect(canvas_, &GraphCanvas::layoutFailed, this, [this](const QString& m) { info_->setText(m); });
}

void ProgramView::resetOverview() {
    const Program& p = doc_->program();
    const uint32_t n = uint32_t(p.globalBlock().ops.size());
    const ProgramSplit s = doc_->split();
    // Structure first: layers only matter where the overview groups ops at all.
    if (n > ProgramOverview::kDirectLimit) {
        layers_ = detectLayers(p, s.fwdOpEndIdx, s.backwardOpStartIdx);
        overview_.reset(n, s, layers_);
    } else {
        layers_ = LayerPartition{};
        overview_.reset(n, s);
    }
}

void ProgramView::onProgramChanged() {
    showingRewritten_ = false;
    rewritten_->blockSignals(true);
    rewritten_->setChecked(false);
    rewritten_->blockSignals(false);
    resetOverview();
    rebuild(true);
}

void ProgramView::setOverlay(Overlay overlay) { overlay_->setCurrentIndex(int(overlay)); }

void ProgramView::setShowRewritten(bool on) {
    if (rewritten_->isChecked() != on) return rewritten_->setChecked(on);  // re-enters via toggled
    showingRewritten_ = on;
    if (on) {
        auto r = doc_->result();
        if (r && r->rewritten) rewrittenOverview_.reset(uint32_t(r->rewritten->globalBlock().ops.size()), doc_->split());
    }
    rebuild(true);
}

void ProgramView::showWholeGraph() {
    (showingRewritten_ ? rewrittenOverview_ : overview_).expandAll();
    rebuild(true);
}

void ProgramView::rebuild(bool relayout) {
    if (!doc_->hasProgram()) return;
    ProgramViewOptions opt;
    opt.split = doc_->split();
    opt.overlay = Overlay(overlay_->currentIndex());
    opt.showValues = valuesMode_->currentIndex() == 0 ? -1 : valuesMode_->currentIndex() == 1 ? 0 : 1;
    VisualGraph g;
    auto r = doc_->result();
    if (showingRewritten_ && r && r->rewritten) {
        const Program& p = *r->rewritten;
        PlanMarks m;
        m.opClone.assign(p.ops().size(), 0);
        for (OpId c : r->clones)
            if (c < p.ops().size()) m.opClone[c] = 1;
        m.valueSaved.assign(p.values().size(), 0);
        for (ValueId v : r->plan.savedValues)  // the rewriter keeps original ids for originals
            if (v < p.values().size()) m.valueSaved[v] = 1;
        // The clones are inserted into the backward: the split moves by their count.
        opt.split.backwardOpStartIdx = doc_->split().backwardOpStartIdx;
        g = buildProgramGraph(p, rewrittenOverview_, opt, m);
        g.title = tr("Rewritten program · %1 clones").arg(r->clones.size());
    } else {
        g = buildProgramGraph(doc_->program(), overview_, opt, doc_->planMarks());
    }
    whole_->setEnabled(!(showingRewritten_ ? rewrittenOverview_ : overview_).whole());
    if (!relayout) canvas_->restyle(g);  // relayouts only if the structure changed
    else canvas_->showGraph(std::move(g), false);
}

void ProgramView::onResult(const std::vector<ValueId>& changed) {
    rebuild(showingRewritten_);
    std::vector<ModelKey> keys;
    for (ValueId v : changed) {
        keys.push_back(ModelKey{ModelKey::Kind::Value, v});
        const OpId def = doc_->program().value(v).definingOp;
        if (def != kNoId) keys.push_back(ModelKey{ModelKey::Kind::Op, def});
    }
    canvas_->flash(keys);
}

bool ProgramView::revealOp(OpId op) {
    if (showingRewritten_ || !doc_->hasProgram()) return false;
    const Program& p = doc_->program();
    if (op >= p.ops().size()) return false;
    OpId top = op;
    while (top != kNoId && p.op(top).parentBlock != Program::kGlobalBlock) {
        const BlockId b = p.op(top).parentBlock;
        top = b == kNoId ? kNoId : p.block(b).parentOp;
    }
    if (top == kNoId) return false;
    const uint32_t pos = p.indexInBlock(top);
    bool changed = false;
    for (int guard = 0; guard < 8; ++guard) {
        bool found = false;
        for (const auto& s : overview_.segments()) {
            if (pos >= s.begin && pos < s.end) {
                if (!s.expanded) {
                    overview_.expand(s.begin);
                    changed = found = true;
                }
                break;
            }
        }
        if (!found) break;
    }
    return changed;
}

void ProgramView::onSelection(ModelKey key, QObject* origin) {
    if (origin == this) return;
    ModelKey target = key;
    if (showingRewritten_ && key.kind == ModelKey::Kind::Op) {
        auto r = doc_->result();
        if (r)
            for (size_t i = 0; i < r->cloneOf.size(); ++i)
                if (r->cloneOf[i] == key.id) { target.id = r->clones[i]; break; }
    }
    OpId op = kNoId;
    if (key.kind == ModelKey::Kind::Op) op = key.id;
    if (key.kind == ModelKey::Kind::Value && doc_->hasProgram() && key.id < doc_->program().values().size())
        op = doc_->program().value(key.id).definingOp;
    if (op != kNoId && !canvas_->nodeItem(target) && revealOp(op)) {
        rebuild(true);  // the new layout re-selects through selectedKey... set it after
        QMetaObject::Connection* c = new QMetaObject::Connection;
        *c = connect(canvas_, &GraphCanvas::layoutFinished, this, [this, target, c] {
            canvas_->selectKey(target);
            disconnect(*c);
            delete c;
        });
        return;
    }
    if (key.kind == ModelKey::Kind::Value && !canvas_->nodeItem(target) && op != kNoId)
        target = ModelKey{ModelKey::Kind::Op, op};  // ops-only mode: the value is an edge
    canvas_->selectKey(target);
}

bool ProgramView::canCollapseAround(OpId op) const {
    if (!doc_->hasProgram() || op >= doc_->program().ops().size() || doc_->program().op(op).parentBlock != Program::kGlobalBlock) return false;
    return overview_.canCollapse(doc_->program().indexInBlock(op));
}

bool ProgramView::collapseAround(OpId op) {
    if (!canCollapseAround(op) || showingRewritten_) return false;
    if (!overview_.collapse(doc_->program().indexInBlock(op))) return false;
    rebuild(true);
    return true;
}

void ProgramView::onDoubleClick(ModelKey key) {
    if (key.kind != ModelKey::Kind::Group) return;
    ProgramOverview& ov = showingRewritten_ ? rewrittenOverview_ : overview_;
    if (ov.expand(key.id)) rebuild(true);
}

// ---------------------------------------------------------------- FlowView

FlowView::FlowView(Document* doc, QWidget* parent) : QWidget(parent), doc_(doc) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    QHBoxLayout* bl;
    QWidget* bar = makeBar(this, bl);
    auto* hint = new QLabel(tr("Double-click a value to split it into v_in → v_out"), bar);
    hint->setObjectName("hint");
    info_ = new QLabel(bar);
    whole_ = barButton(tr("Show whole network"), tr("Every value, not only the cut's neighbourhood"), bar);
    auto* fit = barButton(tr("Fit"), tr("Fit to window (F)"), bar);
    bl->addWidget(hint);
    bl->addStretch(1);
    bl->addWidget(info_);
    bl->addWidget(whole_);
    bl->addWidget(fit);
    layout->addWidget(bar);
    canvas_ = new GraphCanvas("flow", this);
    canvas_->setObjectName("flowCanvas");
    layout->addWidget(canvas_, 1);
    connect(fit, &QToolButton::clicked, canvas_, &GraphCanvas::fit);
    connect(whole_, &QToolButton::clicked, this, [this] {
        state_.whole = true;
        rebuild(true);
    });
    connect(doc_, &Document::programChanged, this, [this] {
        state_ = FlowViewState{};
        dirty_ = true;
        if (isVisible()) rebuild(true);
    });
    connect(doc_, &Document::resultChanged, this, [this] {
        dirty_ = true;
        if (isVisible()) rebuild(false);
    });
    connect(doc_, &Document::selectionChanged, this, &FlowView::onSelection);
    connect(canvas_, &GraphCanvas::keyActivated, this, [this](ModelKey k) { doc_->select(k, this); });
    connect(canvas_, &GraphCanvas::keyDoubleClicked, this, [this](ModelKey k) {
        if (k.kind != ModelKey::Kind::Value) return;
        if (!state_.expanded.erase(k.id)) state_.expanded.insert(k.id);
        rebuild(true);
    });
    connect(canvas_, &GraphCanvas::layoutFinished, this, [this](double ms, int nodes) {
        info_->setText(tr("%1 nodes · layout %2 s").arg(nodes).arg(ms / 1000.0, 0, 'f', 2));
        canvas_->selectKey(doc_->selection());
    });
}

void FlowView::rebuild(bool force) {
    auto r = doc_->result();
    if (!r || !r->ok() || !r->network) {
        canvas_->showGraph(VisualGraph{});
        return;
    }
    size_t total = 0;
    VisualGraph g = buildFlowGraph(doc_->program(), *r, state_, &total);
    whole_->setEnabled(!state_.whole && total > FlowViewState::kMaxPairs);
    dirty_ = false;
    if (!force) canvas_->restyle(g);
    else canvas_->showGraph(std::move(g), false);
}

void FlowView::onSelection(ModelKey key, QObject* origin) {
    if (origin == this) return;
    if (dirty_ && isVisible()) rebuild(true);
    if (key.kind == ModelKey::Kind::Value && !canvas_->nodeItem(key) && doc_->result() && doc_->result()->network &&
        doc_->result()->network->inNode(key.id) != kNoId && !state_.whole) {
        state_.focus.insert(key.id);
        if (isVisible()) rebuild(true);
    }
    canvas_->selectKey(key);
}

}  // namespace rx
