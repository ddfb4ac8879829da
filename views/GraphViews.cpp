#include "views/GraphViews.h"

#include <QCheckBox>
#include <QComboBox>
#include <QElapsedTimer>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QShowEvent>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>

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
    backToOverview_ = barButton(tr("\u25C0 Layer overview"), tr("Back to the layers of the whole program"), bar);
    backToOverview_->setObjectName("backToOverview");
    backToOverview_->setVisible(false);
    forwardView_ = barButton(tr("Layer view"), tr("The forward's ops with the values the backward reads as ports, backward users as stubs"), bar);
    forwardView_->setObjectName("forwardLayerView");
    forwardView_->setVisible(false);
    info_ = new QLabel(bar);
    info_->setObjectName("viewInfo");
    bl->addWidget(backToOverview_);
    bl->addWidget(forwardView_);
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
    connect(backToOverview_, &QToolButton::clicked, this, &ProgramView::closeLayer);
    connect(forwardView_, &QToolButton::clicked, this, &ProgramView::openForwardView);
    connect(fit, &QToolButton::clicked, canvas_, &GraphCanvas::fit);
    connect(doc_, &Document::programChanged, this, &ProgramView::onProgramChanged);
    connect(doc_, &Document::specChanged, this, [this] {
        if (doc_->hasProgram()) {
            layerView_ = LayerViewSpec{};
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
        if (inLayerView() && k.kind == ModelKey::Kind::Op) {
            // Layer view: original ops keep their ids; a clone (rewritten program) selects its original.
            if (auto r = doc_->result(); r && showingRewritten_)
                for (size_t i = 0; i < r->clones.size() && i < r->cloneOf.size(); ++i)
                    if (r->clones[i] == k.id && k.id >= doc_->program().ops().size()) return doc_->select(ModelKey{ModelKey::Kind::Op, r->cloneOf[i]}, this);
            return doc_->select(k, this);  // a stub selects its first backward user
        }
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
        if (inLayerView()) info_->setText(info_->text() + tr(" · built %1 s").arg(layerBuildMs_ / 1000.0, 0, 'f', 3));
        // The new picture shows the selection, without expanding again what was just collapsed.
        if (doc_->selection().valid()) {
            revealOnSelect_ = false;
            onSelection(doc_->selection(), nullptr);
            revealOnSelect_ = true;
        }
    });
    connect(canvas_, &GraphCanvas::layoutFailed, this, [this](const QString& m) { info_->setText(m); });
}

void ProgramView::resetOverview() {
    const Program& p = doc_->program();
    const uint32_t n = uint32_t(p.globalBlock().ops.size());
    const ProgramSplit s = doc_->split();
    layerBytesOf_.reset();   // new layers: the figures per layer follow them
    rewrittenOf_ = nullptr;  // and the rewritten overview is laid out on them again
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
    layerView_ = LayerViewSpec{};
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
    if (on) resetRewrittenOverview();
    rebuild(true);
}

void ProgramView::resetRewrittenOverview() {
    auto r = doc_->result();
    rewrittenOf_ = r && r->rewritten ? r->rewritten.get() : nullptr;
    rewrittenLayers_ = LayerPartition{};
    if (!rewrittenOf_) return;
    const uint32_t n = uint32_t(rewrittenOf_->globalBlock().ops.size());
    // The original's layers, clones joining the backward they serve: the same bundles and labels.
    if (!layers_.groups.empty()) {
        rewrittenLayers_ = layersOfRewritten(layers_, doc_->program(), *rewrittenOf_);
        rewrittenOverview_.reset(n, doc_->split(), rewrittenLayers_);
    } else {
        rewrittenOverview_.reset(n, doc_->split());
    }
}

const std::vector<LayerBytes>& ProgramView::currentLayerBytes() {
    auto r = doc_->result();
    if (!r || !r->ok() || layers_.groups.empty()) {
        layerBytes_.clear();
        layerBytesOf_.reset();
    } else if (layerBytesOf_.lock() != r) {
        layerBytes_ = layerBytes(doc_->program(), layers_, r->plan, doc_->split().backwardOpStartIdx);
        layerBytesOf_ = r;
    }
    return layerBytes_;
}

bool ProgramView::canShowWholeGraph() const {
    if (!doc_->hasProgram()) return false;
    auto r = doc_->result();
    const Program& p = showingRewritten_ && r && r->rewritten ? *r->rewritten : doc_->program();
    return p.liveOpCount() <= kWholeGraphMaxOps;
}

bool ProgramView::showWholeGraph() {
    if (!canShowWholeGraph()) return false;
    layerView_ = LayerViewSpec{};
    (showingRewritten_ ? rewrittenOverview_ : overview_).expandAll();
    rebuild(true);
    return true;
}

PlanMarks ProgramView::marksWithMidHold() const {
    PlanMarks m = doc_->planMarks();
    if (auto r = doc_->result(); r && r->ok() && !m.valueSaved.empty()) {
        m.valueRecomputed.assign(doc_->program().values().size(), 0);
        for (ValueId v : r->plan.midHoldValues)
            if (v < m.valueRecomputed.size()) m.valueRecomputed[v] = 1;
    }
    return m;
}

void ProgramView::rebuild(bool relayout) {
    if (!doc_->hasProgram()) return;
    ProgramViewOptions opt;
    opt.split = doc_->split();
    opt.overlay = Overlay(overlay_->currentIndex());
    opt.showValues = valuesMode_->currentIndex() == 0 ? -1 : valuesMode_->currentIndex() == 1 ? 0 : 1;
    VisualGraph g;
    auto r = doc_->result();
    backToOverview_->setVisible(inLayerView());
    backToOverview_->setText(layers_.layerCount() ? tr("\u25C0 Layer overview") : tr("\u25C0 Whole program"));
    forwardView_->setVisible(!inLayerView() && layers_.layerCount() == 0 && !showingRewritten_ && opt.split.known() && opt.split.fwdOpEndIdx >= 0 && opt.split.fwdOpEndIdx < 600);
    if (inLayerView()) {
        LayerViewClones clones;
        if (showingRewritten_ && r && r->rewritten) clones = LayerViewClones{r->rewritten.get(), &r->clones, &r->cloneOf};
        QElapsedTimer timer;
        timer.start();
        g = buildLayerGraph(doc_->program(), layers_, layerView_, opt, marksWithMidHold(), clones);
        layerBuildMs_ = double(timer.nsecsElapsed()) / 1e6;
        whole_->setEnabled(canShowWholeGraph());
        if (!relayout) canvas_->restyle(g);
        else canvas_->showGraph(std::move(g), false);
        return;
    }
    if (showingRewritten_ && r && r->rewritten) {
        const Program& p = *r->rewritten;
        if (rewrittenOf_ != &p) resetRewrittenOverview();  // a new plan, a new rewritten program
        PlanMarks m;
        m.opClone.assign(p.ops().size(), 0);
        for (OpId c : r->clones)
            if (c < p.ops().size()) m.opClone[c] = 1;
        m.valueSaved.assign(p.values().size(), 0);
        for (ValueId v : r->plan.savedValues)  // the rewriter keeps original ids for originals
            if (v < p.values().size()) m.valueSaved[v] = 1;
        // The clones are inserted into the backward: the split moves by their count.
        opt.split.backwardOpStartIdx = doc_->split().backwardOpStartIdx;
        opt.layers = &rewrittenLayers_;
        m.layerBytes = currentLayerBytes();
        g = buildProgramGraph(p, rewrittenOverview_, opt, m);
        g.title = tr("Rewritten program · %1 clones").arg(r->clones.size());
        annotateComparison(g, rewrittenOverview_, rewrittenLayers_);
    } else {
        opt.layers = &layers_;
        PlanMarks m = marksWithMidHold();
        m.layerBytes = currentLayerBytes();
        g = buildProgramGraph(doc_->program(), overview_, opt, m);
        annotateComparison(g, overview_, layers_);
    }
    const bool wholeAllowed = canShowWholeGraph();
    whole_->setEnabled(wholeAllowed && !(showingRewritten_ ? rewrittenOverview_ : overview_).whole());
    whole_->setToolTip(wholeAllowed ? tr("Lay out every op (may take a while; cancel with Esc)")
                                    : tr("The whole graph is laid out up to %L1 ops; this program has more: "
                                         "double-click a layer or group to open it").arg(kWholeGraphMaxOps));
    if (!relayout) canvas_->restyle(g);  // relayouts only if the structure changed
    else canvas_->showGraph(std::move(g), false);
}

void ProgramView::setLayerComparison(std::vector<LayerRow> rows) {
    comparison_ = std::move(rows);
    rebuild(false);  // labels and colours only: the layout stays
}

void ProgramView::annotateComparison(VisualGraph& g, const ProgramOverview& overview, const LayerPartition& layers) const {
    if (comparison_.empty() || overview.whole()) return;
    auto groupOfPos = [&](uint32_t pos) { return pos < layers.groupOfPos.size() ? layers.groupOfPos[pos] : -1; };
    for (const LayerRow& row : comparison_) {
        const ModelKey forward{ModelKey::Kind::Group, row.firstPos};
        const QString text = layerComparisonText(row);
        // The layer's bundle: its forward group to a backward group of the same layer.
        for (VisualEdge& e : g.edges) {
            const VisualNode& from = g.nodes[size_t(e.from)];
            const VisualNode& to = g.nodes[size_t(e.to)];
            if (from.key != forward || (from.flags & kFlagBackward) || !(to.flags & kFlagBackward) || to.key.kind != ModelKey::Kind::Group ||
                groupOfPos(to.key.id) != int32_t(row.group))
                continue;
            e.label = text;
            if (const QColor c = heldDeltaColor(row); c.isValid()) e.color = c;
        }
        for (VisualNode& n : g.nodes)
            if (n.key == forward) n.tooltip += (n.tooltip.isEmpty() ? QString() : QStringLiteral("\n")) + text;
    }
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
    if (showingRewritten_ || inLayerView() || !doc_->hasProgram()) return false;
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
    if (op != kNoId && revealOnSelect_ && !canvas_->nodeItem(target) && revealOp(op)) {
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
    if (inLayerView()) return true;  // back to the overview
    if (!doc_->hasProgram() || op >= doc_->program().ops().size() || doc_->program().op(op).parentBlock != Program::kGlobalBlock) return false;
    return overview_.canCollapse(doc_->program().indexInBlock(op));
}

bool ProgramView::collapseAround(OpId op) {
    if (inLayerView()) {
        closeLayer();
        return true;
    }
    if (!canCollapseAround(op) || showingRewritten_) return false;
    if (!overview_.collapse(doc_->program().indexInBlock(op))) return false;
    rebuild(true);
    return true;
}

void ProgramView::onDoubleClick(ModelKey key) {
    if (inLayerView() && key.kind == ModelKey::Kind::Op && !showingRewritten_ && key.id < doc_->program().ops().size()) {
        // A stub (or an op outside the layer): go there, in the overview, the op revealed.
        const Program& p = doc_->program();
        if (p.op(key.id).parentBlock == Program::kGlobalBlock && layerView_.contains(p.indexInBlock(key.id))) return;
        layerView_ = LayerViewSpec{};
        revealOp(key.id);
        rebuild(true);
        doc_->select(key, this);
        return;
    }
    if (key.kind != ModelKey::Kind::Group || inLayerView()) return;
    if (!showingRewritten_ && openLayer(key.id)) return;
    ProgramOverview& ov = showingRewritten_ ? rewrittenOverview_ : overview_;
    if (ov.expand(key.id)) rebuild(true);
}

LayerViewSpec ProgramView::layerSpecFor(uint32_t groupBegin) const {
    LayerViewSpec spec;
    if (!doc_->hasProgram() || layers_.groups.empty()) return spec;
    const ProgramSplit split = doc_->split();
    const ProgramOverview::Segment* seg = nullptr;
    for (const auto& s : overview_.segments())
        if (s.begin == groupBegin && !s.expanded) seg = &s;
    if (!seg || seg->group < 0 || !seg->label.startsWith(tr("layer"))) return spec;
    if (seg->group >= ProgramOverview::kLayerGroupBase) {  // one layer of an expanded block
        const size_t lg = size_t(seg->group - ProgramOverview::kLayerGroupBase);
        if (lg >= layers_.groups.size()) return spec;
        const LayerGroup& g = layers_.groups[lg];
        if (g.fwdEnd <= g.fwdBegin || g.fwdEnd - g.fwdBegin > 600) return spec;
        spec.forward = {{g.fwdBegin, g.fwdEnd}};
        spec.name = QString::fromStdString(g.name);
        return spec;
    }
    // A backward layer opens as the forward it faces (its ports are where the backward reads).
    const ProgramOverview::Segment* fwd = split.isBackward(seg->begin) ? nullptr : seg;
    for (const auto& s : overview_.segments())
        if (!fwd && s.group == seg->group && !split.isBackward(s.begin) && !s.expanded) fwd = &s;
    if (!fwd) return spec;
    // Only a few hundred ops: dot stays well under a second; bigger blocks expand in place.
    if (fwd->opCount() > 600) return spec;
    spec.forward = fwd->ranges();
    spec.name = fwd->label.left(fwd->label.indexOf(QStringLiteral(" · ")));
    return spec;
}

bool ProgramView::canOpenLayer(uint32_t groupBegin) const { return !showingRewritten_ && !layerSpecFor(groupBegin).empty(); }

bool ProgramView::openLayer(uint32_t groupBegin) {
    LayerViewSpec spec = layerSpecFor(groupBegin);
    if (spec.empty()) return false;
    layerView_ = std::move(spec);
    rebuild(true);
    return true;
}

bool ProgramView::openForwardView() {
    // A program of one layer (no repeats, e.g. a torch.nn module's joint graph): its whole
    // forward as the layer view, ports and stubs instead of edges across the program.
    const ProgramSplit split = doc_->split();
    if (!doc_->hasProgram() || !split.known() || split.fwdOpEndIdx < 0 || split.fwdOpEndIdx >= 600 || showingRewritten_) return false;
    layerView_ = LayerViewSpec{tr("forward"), {{0u, uint32_t(split.fwdOpEndIdx + 1)}}};
    rebuild(true);
    return true;
}

bool ProgramView::openLayerNumber(size_t layer) {
    if (layers_.layerCount() == 0) return layer == 0 && openForwardView();
    size_t ordinal = 0;
    for (const LayerGroup& g : layers_.groups) {
        if (g.kind != LayerGroup::Kind::Layer) continue;
        if (ordinal++ != layer) continue;
        // The layer itself, also where the overview shows it in a block of layers.
        if (g.fwdEnd <= g.fwdBegin || g.fwdEnd - g.fwdBegin > 600 || showingRewritten_) return false;
        layerView_ = LayerViewSpec{QString::fromStdString(g.name), {{g.fwdBegin, g.fwdEnd}}};
        rebuild(true);
        return true;
    }
    return false;
}

void ProgramView::closeLayer() {
    if (!inLayerView()) return;
    layerView_ = LayerViewSpec{};
    rebuild(true);
}

// ---------------------------------------------------------------- FlowView

FlowView::FlowView(Document* doc, QWidget* parent) : QWidget(parent), doc_(doc) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    QHBoxLayout* bl;
    QWidget* bar = makeBar(this, bl);
    scopeCombo_ = new QComboBox(bar);
    scopeCombo_->setObjectName("flowScope");
    scopeCombo_->setToolTip(tr("Which part of the network to draw: one layer (follows the selection), the "
                               "selection's surroundings, or the whole network"));
    scopeCombo_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    auto* hint = new QLabel(tr("v_in \u2022\u2192 v_out box per value, in forward order"), bar);
    hint->setObjectName("hint");
    info_ = new QLabel(bar);
    whole_ = barButton(tr("Show whole network"), tr("Every value, not only the cut's neighbourhood"), bar);
    auto* fit = barButton(tr("Fit"), tr("Fit to window (F)"), bar);
    bl->addWidget(scopeCombo_);
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
    // The scoped picture is laid out for the window's shape: a resize lays it out again.
    refit_ = new QTimer(this);
    refit_->setSingleShot(true);
    refit_->setInterval(120);
    // The canvas widget's size, not its viewport's: scroll bars coming and going must not
    // lay the picture out again (that would loop).
    connect(refit_, &QTimer::timeout, this, [this] {
        const QSize now = canvas_->size();
        const bool moved = std::abs(now.width() - laidOutFor_.width()) > 40 || std::abs(now.height() - laidOutFor_.height()) > 40;
        if (isVisible() && !scope_.empty() && moved) rebuild(true);
    });
    canvas_->installEventFilter(this);
    connect(whole_, &QToolButton::clicked, this, [this] {
        state_.whole = true;
        rebuild(true);
    });
    connect(scopeCombo_, &QComboBox::activated, this, [this](int index) {
        const int data = scopeCombo_->itemData(index).toInt();
        if (data >= 0) showLayer(data);
        else if (data == -2) showAroundSelection();
        else showWhole();
    });
    connect(doc_, &Document::programChanged, this, [this] {
        state_ = FlowViewState{};
        scopeKind_ = ScopeKind::Layer;
        layer_ = -1;
        layerChosen_ = false;
        layersStale_ = true;
        dirty_ = true;
        if (isVisible()) rebuild(true);
    });
    connect(doc_, &Document::specChanged, this, [this] {
        layersStale_ = true;
        dirty_ = true;
        if (isVisible()) rebuild(true);
    });
    connect(doc_, &Document::resultChanged, this, [this] {
        dirty_ = true;
        if (isVisible()) rebuild(false);
    });
    connect(doc_, &Document::solveFailed, this, [this] {  // an ∞ path is worth drawing
        dirty_ = true;
        if (isVisible()) rebuild(true);
    });
    connect(doc_, &Document::selectionChanged, this, &FlowView::onSelection);
    connect(canvas_, &GraphCanvas::keyActivated, this, [this](ModelKey k) { doc_->select(k, this); });
    connect(canvas_, &GraphCanvas::keyDoubleClicked, this, [this](ModelKey k) {
        if (k.kind != ModelKey::Kind::Value || scopeKind_ != ScopeKind::Whole || scope_.size()) return;
        if (!state_.expanded.erase(k.id)) state_.expanded.insert(k.id);  // the dot picture splits pairs
        rebuild(true);
    });
    connect(canvas_, &GraphCanvas::layoutFinished, this, [this](double ms, int nodes) {
        info_->setText(tr("%1 nodes · layout %2 s").arg(nodes).arg(ms / 1000.0, 0, 'f', 2));
        canvas_->selectKey(doc_->selection(), false);
    });
}

void FlowView::resetLayers() {
    layersStale_ = false;
    layers_ = LayerPartition{};
    if (doc_->hasProgram()) {
        const ProgramSplit s = doc_->split();
        layers_ = detectLayers(doc_->program(), s.fwdOpEndIdx, s.backwardOpStartIdx);
    }
    fillScopeCombo();
}

void FlowView::fillScopeCombo() {
    scopeCombo_->blockSignals(true);
    scopeCombo_->clear();
    for (size_t g = 0; g < layers_.groups.size(); ++g)
        if (layers_.groups[g].fwdEnd > layers_.groups[g].fwdBegin)
            scopeCombo_->addItem(tr("Layer: %1").arg(QString::fromStdString(layers_.groups[g].name)), int(g));
    scopeCombo_->addItem(tr("Around the selection"), -2);
    scopeCombo_->addItem(tr("Whole network"), -3);
    const int want = scopeKind_ == ScopeKind::Layer ? layer_ : scopeKind_ == ScopeKind::Around ? -2 : -3;
    const int at = scopeCombo_->findData(want);
    if (at >= 0) scopeCombo_->setCurrentIndex(at);
    scopeCombo_->blockSignals(false);
}

int FlowView::groupOfValueOrOp(ModelKey key) const {
    if (!doc_->hasProgram()) return -1;
    int64_t pos = -1;
    if (key.kind == ModelKey::Kind::Op) pos = topLevelPosition(doc_->program(), key.id);
    if (key.kind == ModelKey::Kind::Value) pos = valuePosition(doc_->program(), key.id);
    if (pos < 0 || size_t(pos) >= layers_.groupOfPos.size()) return -1;
    const int g = layers_.groupOfPos[pos];
    return g >= 0 && size_t(g) < layers_.groups.size() && layers_.groups[g].fwdEnd > layers_.groups[g].fwdBegin ? g : -1;
}

int FlowView::defaultLayer(const SolveResult& r) const {
    // The first layer the plan saves something in: where the cut is.
    int best = -1;
    for (ValueId v : r.plan.savedValues) {
        const int g = groupOfValueOrOp(ModelKey{ModelKey::Kind::Value, v});
        if (g >= 0 && layers_.groups[g].kind == LayerGroup::Kind::Layer && (best < 0 || g < best)) best = g;
    }
    if (best >= 0) return best;
    for (size_t g = 0; g < layers_.groups.size(); ++g)
        if (layers_.groups[g].kind == LayerGroup::Kind::Layer) return int(g);
    return -1;
}

void FlowView::showLayer(int group) {
    if (group < 0 || size_t(group) >= layers_.groups.size()) return;
    scopeKind_ = ScopeKind::Layer;
    layer_ = group;
    layerChosen_ = true;
    fillScopeCombo();
    rebuild(true);
}

void FlowView::showAroundSelection() {
    scopeKind_ = ScopeKind::Around;
    around_ = doc_->selection();
    fillScopeCombo();
    rebuild(true);
}

void FlowView::showWhole() {
    scopeKind_ = ScopeKind::Whole;
    layerChosen_ = true;
    fillScopeCombo();
    rebuild(true);
}

void FlowView::rebuild(bool force) {
    auto r = doc_->result();
    auto failed = doc_->failedResult();
    const bool failing = failed && failed->network && !failed->cut.infinitePath.empty() && doc_->hasProgram();
    std::shared_ptr<const SolveResult> shown = failing ? failed : r;
    scope_.clear();
    if (!shown || !shown->network || !doc_->hasProgram() || (!failing && !shown->ok())) {
        canvas_->showGraph(VisualGraph{});
        return;
    }
    if (layersStale_) resetLayers();
    const Program& p = doc_->program();
    const FlowNetwork& net = *shown->network;
    ScopedFlowOptions opt;
    const QSize vs = canvas_->size();
    laidOutFor_ = vs;
    if (vs.width() > 100 && vs.height() > 100) opt.aspect = std::clamp(double(vs.width()) / vs.height(), 0.6, 4.0);
    opt.plan.budgetPlan = !failing && !doc_->shownPlanDescription().isEmpty();
    opt.plan.planLabel = doc_->shownPlanDescription();
    constexpr size_t kScopedWholeLimit = 400;  // beyond: the dot picture of the cut's neighbourhood
    if (failing) {
        const std::vector<ValueId> path = infinitePathValues(net, failed->cut);
        scope_ = path;
        if (!path.empty()) {  // the path and what surrounds its first value
            const OpId def = p.value(path.front()).definingOp;
            for (ValueId v : flowValuesAround(p, net, def, 12)) scope_.push_back(v);
        }
        opt.scopeName = tr("\u221E path");
    } else if (scopeKind_ == ScopeKind::Layer) {
        if (!layerChosen_ || layer_ < 0 || size_t(layer_) >= layers_.groups.size()) {
            layer_ = defaultLayer(*shown);
            const size_t total = flowValuesOfGroup(p, net, layers_, -1).size();
            if (layer_ < 0 || total <= 300) scopeKind_ = ScopeKind::Whole;  // small networks are readable whole
            layerChosen_ = layer_ >= 0;  // chosen once per program; the selection moves it on
            fillScopeCombo();
        }
        if (scopeKind_ == ScopeKind::Layer) {
            scope_ = flowValuesOfGroup(p, net, layers_, layer_);
            opt.scopeName = QString::fromStdString(layers_.groups[layer_].name);
        }
    } else if (scopeKind_ == ScopeKind::Around) {
        OpId op = kNoId;
        if (around_.kind == ModelKey::Kind::Op) op = around_.id;
        if (around_.kind == ModelKey::Kind::Value && around_.id < p.values().size()) op = p.value(around_.id).definingOp;
        scope_ = flowValuesAround(p, net, op, 30);
        opt.scopeName = around_.kind == ModelKey::Kind::Value ? tr("around %1").arg(doc_->valueName(around_.id))
                        : op != kNoId ? tr("around op %1").arg(QString::fromUtf8(p.opName(op).data(), int(p.opName(op).size())))
                                      : tr("around the selection (select an op or value)");
    }
    VisualGraph g;
    if (!failing && scopeKind_ == ScopeKind::Whole) {
        std::vector<ValueId> all = flowValuesOfGroup(p, net, layers_, -1);
        if (all.size() <= kScopedWholeLimit) {
            scope_ = std::move(all);
            opt.scopeName = tr("whole network");
        }
    }
    if (!failing && scopeKind_ == ScopeKind::Whole && scope_.empty()) {
        size_t total = 0;
        g = buildFlowGraph(p, *shown, state_, &total);
        whole_->setVisible(true);
        whole_->setEnabled(!state_.whole && total > FlowViewState::kMaxPairs);
    } else {
        g = buildScopedFlowGraph(p, *shown, scope_, opt);
        whole_->setVisible(false);
    }
    dirty_ = false;
    if (!force) canvas_->restyle(g);
    else canvas_->showGraph(std::move(g), false);
}

bool FlowView::eventFilter(QObject* watched, QEvent* event) {
    if (watched == canvas_ && event->type() == QEvent::Resize && !scope_.empty()) refit_->start();
    return QWidget::eventFilter(watched, event);
}

void FlowView::ensurePicture() {
    if (canvas_->graph().nodes.empty() && doc_->result()) rebuild(false);
}

void FlowView::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    if (dirty_ && doc_->result()) rebuild(true);
}

void FlowView::onSelection(ModelKey key, QObject* origin) {
    if (origin == this) return;
    if (layersStale_ && isVisible()) resetLayers();
    // Follow the selection: its layer (program tab, outline, memory view) or its surroundings.
    if (scopeKind_ == ScopeKind::Layer && (key.kind == ModelKey::Kind::Op || key.kind == ModelKey::Kind::Value)) {
        const int g = groupOfValueOrOp(key);
        if (g >= 0 && g != layer_) {
            layer_ = g;
            layerChosen_ = true;
            fillScopeCombo();
            dirty_ = true;
        }
    } else if (scopeKind_ == ScopeKind::Around && key.valid() && key.kind != ModelKey::Kind::NetEdge) {
        around_ = key;
        dirty_ = true;
    } else if (scopeKind_ == ScopeKind::Whole && scope_.empty() && key.kind == ModelKey::Kind::Value &&
               !canvas_->nodeItem(key) && doc_->result() && doc_->result()->network &&
               doc_->result()->network->inNode(key.id) != kNoId && !state_.whole) {
        state_.focus.insert(key.id);
        dirty_ = true;
    }
    if (dirty_ && isVisible()) rebuild(true);
    canvas_->selectKey(key);
}

}  // namespace rx
