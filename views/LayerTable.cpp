// The per-layer table: figures per layer under the shown plan and, optionally, a compared one.
#include "views/LayerTable.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>
#include <QtConcurrent>
#include <algorithm>

#include "views/Panels.h"
#include "views/PlanFigures.h"
#include "views/ProgramGraph.h"

namespace rx {

std::vector<LayerRow> computeLayerRows(const Program& program, const RecomputeSpec& spec, const LayerPartition& layers,
                                       const SolveResult& result, const SolveResult* other) {
    const auto& ops = program.globalBlock().ops;
    std::vector<uint32_t> posOf(program.ops().size(), UINT32_MAX);
    for (uint32_t i = 0; i < ops.size(); ++i) posOf[ops[i]] = i;
    auto groupOfOp = [&](OpId op) -> int32_t {
        if (op == kNoId || op >= posOf.size() || posOf[op] >= layers.groupOfPos.size()) return -1;
        return layers.groupOfPos[posOf[op]];
    };
    const std::vector<LayerBytes> bytes = layerBytes(program, layers, result.plan, spec.backwardOpStartIdx);
    std::vector<LayerBytes> otherBytes;
    if (other) otherBytes = layerBytes(program, layers, other->plan, spec.backwardOpStartIdx);
    std::vector<LayerRow> rows(layers.groups.size());
    for (size_t g = 0; g < rows.size(); ++g) {
        rows[g].name = QString::fromStdString(layers.groups[g].name);
        rows[g].group = uint32_t(g);
        rows[g].firstPos = layers.groups[g].fwdBegin;
        rows[g].bytes = bytes[g];
        if (other) {
            rows[g].compared = true;
            rows[g].otherHeld = otherBytes[g].held;
        }
    }
    for (OpId op : result.plan.recomputeOps)
        if (const int32_t g = groupOfOp(op); g >= 0) rows[size_t(g)].recomputeFlops += estimateOpFlops(program, op);
    // What moved between the two plans, by the layer of each value's producer.
    if (other)
        for (ValueId v = 0; v < program.values().size() && v < result.plan.reasons.size() && v < other->plan.reasons.size(); ++v) {
            const ValueSide now = result.plan.reasons[v].side, then = other->plan.reasons[v].side;
            if (now == then) continue;
            const int32_t g = groupOfOp(program.value(v).definingOp);
            if (g < 0) continue;
            LayerRow& row = rows[size_t(g)];
            (now == ValueSide::Saved ? row.newlySaved : now == ValueSide::Recomputed ? row.newlyRecomputed : row.toNeither)++;
        }
    // Each layer's share of the rewritten peak: its values (and clones of its ops) live there.
    if (result.rewritten && result.rewrittenMemory.ok() && result.rewrittenMemory.peakBytes > 0) {
        const Program& rp = *result.rewritten;
        std::vector<ValueId> resident(spec.inputs.begin(), spec.inputs.end());
        const ProgramLifetimes lts = computeLifetimes(rp, LifetimeOptions{resident, spec.fwdOpEndIdx, result.clones});
        std::vector<OpId> originalOfClone(rp.ops().size(), kNoId);
        for (size_t i = 0; i < result.clones.size() && i < result.cloneOf.size(); ++i) originalOfClone[result.clones[i]] = result.cloneOf[i];
        for (const ValueLifetime& lt : lts.liveAt(result.rewrittenMemory.peakOpIndex)) {
            const OpId def = rp.value(lt.value).definingOp;
            const OpId original = def != kNoId && def < originalOfClone.size() && originalOfClone[def] != kNoId ? originalOfClone[def]
                                  : lt.value < program.values().size() ? program.value(lt.value).definingOp
                                                                       : kNoId;
            if (const int32_t g = groupOfOp(original); g >= 0) rows[size_t(g)].bytesAtPeak += lt.bytes;
        }
        for (LayerRow& row : rows) row.peakShare = double(row.bytesAtPeak) / double(result.rewrittenMemory.peakBytes);
    }
    // Groups without forward ops (backward-only leftovers) have nothing to show.
    std::erase_if(rows, [&](const LayerRow& r) { return layers.groups[r.group].fwdEnd <= layers.groups[r.group].fwdBegin; });
    return rows;
}

QString heldDeltaText(const LayerRow& row) {
    const int64_t delta = row.bytes.held - row.otherHeld;
    return delta == 0 ? QStringLiteral("0") : (delta > 0 ? "+" : "−") + formatBytes(double(std::abs(delta)));
}

QColor heldDeltaColor(const LayerRow& row) {
    const int64_t delta = row.bytes.held - row.otherHeld;
    return delta == 0 ? QColor() : QColor(delta < 0 ? "#16a34a" : "#dc2626");  // green: this plan holds less
}

uint32_t movedCount(const LayerRow& row) { return row.newlySaved + row.newlyRecomputed + row.toNeither; }

QString layerComparisonText(const LayerRow& row) {
    return QObject::tr("held %1 | then %2\n(%3) · %4 moved")
        .arg(formatBytes(double(row.bytes.held)), formatBytes(double(row.otherHeld)), heldDeltaText(row))
        .arg(movedCount(row));
}

// ---------------------------------------------------------------- model

void LayerTableModel::setRows(std::vector<LayerRow> rows, bool compared, QString otherName) {
    beginResetModel();
    rows_ = std::move(rows);
    compared_ = compared;
    otherName_ = std::move(otherName);
    endResetModel();
}

int LayerTableModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(rows_.size()); }
int LayerTableModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : compared_ ? ColumnCount : OtherHeld; }

QVariant LayerTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal) return {};
    static const char* names[] = {"layer", "held", "saved", "recomputed", "recompute FLOPs", "peak share", "held then", "Δ held", "moved"};
    if (role == Qt::DisplayRole && section >= 0 && section < ColumnCount) return tr(names[section]);
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case Held: return tr("Bytes the backward keeps from this layer under the plan: saved, or read by it and not recomputed");
        case Saved: return tr("Values the plan saves (the cut), and their bytes");
        case Recomputed: return tr("Values the backward reads that the plan recomputes, and their bytes");
        case Flops: return tr("Estimated work of the clones of this layer's ops");
        case PeakShare: return tr("Bytes of this layer's values (and its clones' results) live at the rewritten peak, as a share of it");
        case OtherHeld: return tr("Held bytes under %1").arg(otherName_);
        case HeldDelta: return tr("Held now less held under %1").arg(otherName_);
        case Moved: return tr("This layer's values that changed side since %1").arg(otherName_);
        default: return {};
        }
    }
    return {};
}

QVariant LayerTableModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || size_t(index.row()) >= rows_.size()) return {};
    const LayerRow& r = rows_[size_t(index.row())];
    const LayerBytes& b = r.bytes;
    const int64_t delta = b.held - r.otherHeld;
    if (role == SortRole) {
        switch (index.column()) {
        case Layer: return r.group;
        case Held: return qlonglong(b.held);
        case Saved: return qlonglong(b.saved);
        case Recomputed: return qlonglong(b.recomputed);
        case Flops: return r.recomputeFlops;
        case PeakShare: return r.peakShare;
        case OtherHeld: return qlonglong(r.otherHeld);
        case HeldDelta: return qlonglong(delta);
        case Moved: return movedCount(r);
        default: return {};
        }
    }
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case Layer: return r.name;
        case Held: return formatBytes(double(b.held));
        case Saved: return tr("%1 in %2").arg(formatBytes(double(b.saved))).arg(b.savedValues);
        case Recomputed: return tr("%1 in %2").arg(formatBytes(double(b.recomputed))).arg(b.recomputedValues);
        case Flops: return r.recomputeFlops > 0 ? formatFlops(r.recomputeFlops) : QStringLiteral("—");
        case PeakShare: return QStringLiteral("%1%").arg(100.0 * r.peakShare, 0, 'f', 1);
        case OtherHeld: return formatBytes(double(r.otherHeld));
        case HeldDelta: return heldDeltaText(r);
        case Moved: {
            QStringList parts;
            if (r.newlySaved) parts << tr("+%1 saved").arg(r.newlySaved);
            if (r.newlyRecomputed) parts << tr("+%1 recomputed").arg(r.newlyRecomputed);
            if (r.toNeither) parts << tr("%1 neither").arg(r.toNeither);
            return parts.isEmpty() ? QStringLiteral("—") : parts.join(" · ");
        }
        default: return {};
        }
    }
    if (role == Qt::TextAlignmentRole && index.column() != Layer && index.column() != Moved)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ForegroundRole && index.column() == HeldDelta && delta != 0) return heldDeltaColor(r);
    return {};
}

// ---------------------------------------------------------------- widget

LayerTable::LayerTable(Document* doc, QWidget* parent) : QWidget(parent), doc_(doc) {
    pool_.setMaxThreadCount(1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 2, 4, 2);
    layout->setSpacing(2);
    auto* row = new QHBoxLayout;
    compare_ = new QComboBox(this);
    compare_->setObjectName("layerCompare");
    compare_->setToolTip(tr("Compare the shown plan with one shown before: held bytes per layer side by side, and what moved"));
    compare_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    info_ = new QLabel(this);
    info_->setWordWrap(false);
    row->addWidget(new QLabel(tr("Compare with:"), this));
    row->addWidget(compare_);
    row->addWidget(info_, 1);
    layout->addLayout(row);
    model_ = new LayerTableModel(this);
    proxy_ = new QSortFilterProxyModel(this);
    proxy_->setSourceModel(model_);
    proxy_->setSortRole(LayerTableModel::SortRole);
    view_ = new QTableView(this);
    view_->setObjectName("layerTable");
    view_->setModel(proxy_);
    view_->setSortingEnabled(true);
    view_->sortByColumn(LayerTableModel::Layer, Qt::AscendingOrder);
    view_->setSelectionBehavior(QAbstractItemView::SelectRows);
    view_->setSelectionMode(QAbstractItemView::SingleSelection);
    view_->verticalHeader()->hide();
    view_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    view_->horizontalHeader()->setStretchLastSection(true);
    layout->addWidget(view_, 1);
    fillCompareChoice();

    connect(&watcher_, &QFutureWatcherBase::finished, this, [this] {
        awaiting_ = false;
        if (running_ == generation_) {
            Computed c = watcher_.result();
            layers_ = c.layers;
            const bool compared = compare_->currentIndex() > 0;
            model_->setRows(std::move(c.rows), compared, otherName_);
            onSelection(doc_->selection(), nullptr);
        }
        if (pending_) {
            pending_ = false;
            recompute();
        }
    });
    connect(doc_, &Document::resultChanged, this, &LayerTable::onResult);
    connect(doc_, &Document::programChanged, this, [this] {
        history_.clear();
        planSerial_ = 0;
        layers_.reset();
        ++generation_;
        fillCompareChoice();
        model_->setRows({}, false, {});
    });
    connect(compare_, &QComboBox::currentIndexChanged, this, [this] { recompute(); });
    connect(doc_, &Document::selectionChanged, this, &LayerTable::onSelection);
    connect(view_->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& current) {
        if (syncing_ || !current.isValid()) return;
        const QModelIndex source = proxy_->mapToSource(current);
        if (size_t(source.row()) >= model_->rows().size()) return;
        doc_->select(ModelKey{ModelKey::Kind::Group, model_->rows()[size_t(source.row())].firstPos}, this);
    });
}

LayerTable::~LayerTable() { watcher_.waitForFinished(); }

// Until its rows are shown: the future ends on its thread before `finished` reaches this one.
bool LayerTable::busy() const { return awaiting_ || pending_; }

void LayerTable::onResult() {
    auto r = doc_->result();
    if (!r || !r->ok()) return;
    if (history_.empty() || history_.front().result != r) {
        const QString what = doc_->shownPlanDescription().isEmpty() ? tr("the config's solve") : doc_->shownPlanDescription();
        history_.insert(history_.begin(), ShownPlan{tr("plan %1 · %2").arg(++planSerial_).arg(what), r});
        constexpr size_t kKept = 12;
        if (history_.size() > kKept) history_.resize(kKept);
    }
    fillCompareChoice();
    recompute();
}

void LayerTable::fillCompareChoice() {
    // Keep the compared plan chosen while the list grows; the shown plan is never offered.
    const QVariant chosen = compare_->currentData();
    QSignalBlocker block(compare_);
    compare_->clear();
    compare_->addItem(tr("nothing"));
    for (size_t i = 1; i < history_.size(); ++i)
        compare_->addItem(history_[i].name, QVariant::fromValue(quintptr(history_[i].result.get())));
    const int keep = chosen.isValid() ? compare_->findData(chosen) : -1;
    compare_->setCurrentIndex(keep > 0 ? keep : 0);
}

void LayerTable::recompute() {
    auto r = doc_->result();
    if (!doc_->hasProgram() || !r || !r->ok()) {
        model_->setRows({}, false, {});
        return;
    }
    if (awaiting_ || watcher_.isRunning()) {  // one job at a time; the newest state runs next
        pending_ = true;
        ++generation_;
        return;
    }
    std::shared_ptr<const SolveResult> other;
    otherName_.clear();
    const quintptr key = compare_->currentData().value<quintptr>();
    for (const ShownPlan& p : history_)
        if (key && quintptr(p.result.get()) == key) {
            other = p.result;
            otherName_ = p.name;
        }
    info_->setText(other ? tr("now: %1 · then: %2").arg(history_.front().name, otherName_) : history_.empty() ? QString() : tr("now: %1").arg(history_.front().name));
    running_ = ++generation_;
    awaiting_ = true;
    auto program = doc_->programPtr();
    RecomputeSpec spec = doc_->spec();
    watcher_.setFuture(QtConcurrent::run(&pool_, [program, spec, layers = layers_, r, other]() mutable {
        // The same detection as the overview's (algorithms/Layers.h), once per program.
        if (!layers) layers = std::make_shared<const LayerPartition>(detectLayers(*program, spec.fwdOpEndIdx, spec.backwardOpStartIdx));
        return Computed{computeLayerRows(*program, spec, *layers, *r, other.get()), layers};
    }));
}

void LayerTable::onSelection(ModelKey key, QObject* origin) {
    if (origin == this || !doc_->hasProgram() || !layers_) return;
    const LayerPartition& layers = *layers_;
    const Program& p = doc_->program();
    int32_t group = -1;
    auto groupOfPos = [&](uint32_t pos) { return pos < layers.groupOfPos.size() ? layers.groupOfPos[pos] : -1; };
    if (key.kind == ModelKey::Kind::Group) group = groupOfPos(key.id);
    else if (key.kind == ModelKey::Kind::Op || key.kind == ModelKey::Kind::Value) {
        const OpId op = key.kind == ModelKey::Kind::Op ? OpId(key.id) : key.id < p.values().size() ? p.value(key.id).definingOp : kNoId;
        const auto& ops = p.globalBlock().ops;
        if (op != kNoId)
            for (uint32_t i = 0; i < ops.size(); ++i)
                if (ops[i] == op) {
                    group = groupOfPos(i);
                    break;
                }
    }
    syncing_ = true;
    const auto& rows = model_->rows();
    QModelIndex hit;
    for (size_t i = 0; i < rows.size() && group >= 0; ++i)
        if (int32_t(rows[i].group) == group) hit = proxy_->mapFromSource(model_->index(int(i), 0));
    if (hit.isValid()) {
        view_->selectionModel()->setCurrentIndex(hit, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        view_->scrollTo(hit);
    } else {
        view_->selectionModel()->clearSelection();
    }
    syncing_ = false;
}

}  // namespace rx
