#include "views/Panels.h"

#include <QChart>
#include <QChartView>
#include <QAbstractSpinBox>
#include <QApplication>
#include <QCheckBox>
#include <QCompleter>
#include <QStringListModel>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLineSeries>
#include <QListWidget>
#include <QPushButton>
#include <QSpinBox>
#include <QTabWidget>
#include <QTextBrowser>
#include <QTreeWidget>
#include <QUndoView>
#include <QVBoxLayout>
#include <QValueAxis>
#include <algorithm>
#include <functional>
#include <map>
#include <utility>

#include "model/PirWriter.h"
#include "views/PlanFigures.h"
#include "views/ProgramGraph.h"

namespace rx {

namespace {

QString qs(std::string_view s) { return QString::fromUtf8(s.data(), qsizetype(s.size())); }

enum Role { KeyKindRole = Qt::UserRole + 1, KeyIdRole, LazyRole, OpListRole };

QString sideName(ValueSide s) {
    switch (s) {
    case ValueSide::Saved: return QObject::tr("saved");
    case ValueSide::Recomputed: return QObject::tr("recomputed");
    case ValueSide::Neither: return QObject::tr("neither");
    }
    return {};
}

}  // namespace

// ---------------------------------------------------------------- Outline

OutlinePanel::OutlinePanel(Document* doc, QWidget* parent) : QWidget(parent), doc_(doc) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    filter_ = new QLineEdit(this);
    filter_->setPlaceholderText(tr("Filter ops and values…"));
    filter_->setClearButtonEnabled(true);
    tree_ = new QTreeWidget(this);
    tree_->setObjectName("outlineTree");
    tree_->setHeaderLabels({tr("Name"), tr("Info")});
    // Whole op names (a narrow dock scrolls sideways rather than cutting "pd_op.divide" to "pd_op.di…").
    tree_->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    tree_->header()->setStretchLastSection(true);
    tree_->setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    tree_->setUniformRowHeights(true);
    layout->addWidget(filter_);
    layout->addWidget(tree_, 1);
    connect(filter_, &QLineEdit::textChanged, this, &OutlinePanel::applyFilter);
    connect(tree_, &QTreeWidget::itemExpanded, this, &OutlinePanel::populate);
    connect(tree_, &QTreeWidget::currentItemChanged, this, [this](QTreeWidgetItem* item) {
        if (syncing_ || !item || !item->data(0, KeyKindRole).isValid()) return;
        doc_->select(ModelKey{ModelKey::Kind(item->data(0, KeyKindRole).toInt()), item->data(0, KeyIdRole).toUInt()}, this);
    });
    connect(doc_, &Document::programChanged, this, &OutlinePanel::rebuild);
    connect(doc_, &Document::specChanged, this, &OutlinePanel::rebuild);
    connect(doc_, &Document::resultChanged, this, &OutlinePanel::rebuild);
    connect(doc_, &Document::selectionChanged, this, &OutlinePanel::onSelection);
}

void OutlinePanel::rebuild() {
    syncing_ = true;
    tree_->clear();
    syncing_ = false;
    if (!doc_->hasProgram()) return;
    const Program& p = doc_->program();
    const ProgramSplit split = doc_->split();
    const auto& ops = p.globalBlock().ops;
    // Forward / backward → op name → ops (ops filled lazily when a name group opens).
    for (int half = 0; half < 2; ++half) {
        std::map<std::string_view, std::vector<uint32_t>> byName;
        for (uint32_t pos = 0; pos < ops.size(); ++pos)
            if (split.isBackward(pos) == bool(half)) byName[p.opName(ops[pos])].push_back(pos);
        size_t count = 0;
        for (auto& [n, v] : byName) count += v.size();
        if (half == 1 && count == 0) continue;
        auto* top = new QTreeWidgetItem(tree_, {half ? tr("Backward") : (split.known() ? tr("Forward") : tr("Ops")), tr("%1 ops").arg(count)});
        QFont f = top->font(0);
        f.setBold(true);
        top->setFont(0, f);
        for (auto& [name, list] : byName) {
            auto* group = new QTreeWidgetItem(top, {qs(name), QString::number(list.size())});
            QVariantList positions;
            positions.reserve(qsizetype(list.size()));
            for (uint32_t pos : list) positions << pos;
            group->setData(0, LazyRole, positions);
            group->setChildIndicatorPolicy(QTreeWidgetItem::ShowIndicator);
        }
        top->setExpanded(half == 0 && byName.size() < 30);
    }
    if (auto r = doc_->result(); r && r->ok()) {
        auto* saved = new QTreeWidgetItem(tree_, {tr("Saved values"), QString::number(r->plan.savedValues.size())});
        for (ValueId v : r->plan.savedValues) {
            auto* it = new QTreeWidgetItem(saved, {qs(p.value(v).name), formatBytes(double(p.valueBytes(v)))});
            it->setData(0, KeyKindRole, int(ModelKey::Kind::Value));
            it->setData(0, KeyIdRole, v);
        }
        auto* midHold = new QTreeWidgetItem(tree_, {tr("Recomputed values"), QString::number(r->plan.midHoldValues.size())});
        midHold->setToolTip(0, tr("Mid-hold values: forward results the backward reads that the plan recomputes"));
        for (ValueId v : r->plan.midHoldValues) {
            auto* it = new QTreeWidgetItem(midHold, {qs(p.value(v).name), formatBytes(double(p.valueBytes(v)))});
            it->setData(0, KeyKindRole, int(ModelKey::Kind::Value));
            it->setData(0, KeyIdRole, v);
        }
        auto* rec = new QTreeWidgetItem(tree_, {tr("Recomputed ops"), QString::number(r->plan.recomputeOps.size())});
        for (OpId op : r->plan.recomputeOps) {
            auto* it = new QTreeWidgetItem(rec, {shortOpName(p.opName(op)), QStringLiteral("#%1").arg(p.indexInBlock(op))});
            it->setData(0, KeyKindRole, int(ModelKey::Kind::Op));
            it->setData(0, KeyIdRole, op);
        }
        saved->setExpanded(r->plan.savedValues.size() < 40);
    }
    if (!filter_->text().isEmpty()) applyFilter(filter_->text());
}

void OutlinePanel::populate(QTreeWidgetItem* item) {
    const QVariant lazy = item->data(0, LazyRole);
    if (!lazy.isValid() || item->childCount() > 0) return;
    const Program& p = doc_->program();
    const auto& ops = p.globalBlock().ops;
    QList<QTreeWidgetItem*> children;
    for (const QVariant& v : lazy.toList()) {
        const uint32_t pos = v.toUInt();
        const OpId op = ops[pos];
        const auto& res = p.op(op).results;
        auto* it = new QTreeWidgetItem({QStringLiteral("#%1 %2").arg(pos).arg(res.empty() ? QString() : qs(p.value(res[0]).name)),
                                        res.empty() ? QString() : typeSummary(p, res[0])});
        it->setData(0, KeyKindRole, int(ModelKey::Kind::Op));
        it->setData(0, KeyIdRole, op);
        children << it;
    }
    item->addChildren(children);
}

bool OutlinePanel::lazyGroupMatches(QTreeWidgetItem* item, const QString& text) const {
    const Program& p = doc_->program();
    const auto& ops = p.globalBlock().ops;
    for (const QVariant& v : item->data(0, LazyRole).toList()) {
        const uint32_t pos = v.toUInt();
        if (QStringLiteral("#%1").arg(pos).contains(text, Qt::CaseInsensitive)) return true;
        for (ValueId r : p.op(ops[pos]).results)
            if (qs(p.value(r).name).contains(text, Qt::CaseInsensitive)) return true;
    }
    return false;
}

void OutlinePanel::applyFilter(const QString& text) {
    // An item shows when it, an ancestor or a descendant matches; lazy op groups fill in
    // when one of their ops (position, result names) matches, so "%72" finds any value.
    std::function<bool(QTreeWidgetItem*, bool)> visit = [&](QTreeWidgetItem* it, bool ancestorMatched) -> bool {
        const bool self = text.isEmpty() || it->text(0).contains(text, Qt::CaseInsensitive) ||
                          (it->data(0, KeyKindRole).isValid() && it->text(1).contains(text, Qt::CaseInsensitive));
        if (!text.isEmpty() && it->childCount() == 0 && it->data(0, LazyRole).isValid() && lazyGroupMatches(it, text)) populate(it);
        bool any = false;
        for (int i = 0; i < it->childCount(); ++i) any |= visit(it->child(i), ancestorMatched || (self && !text.isEmpty()));
        const bool show = self || any || ancestorMatched;
        it->setHidden(!show);
        if (!text.isEmpty() && any) it->setExpanded(true);
        return self || any;
    };
    for (int i = 0; i < tree_->topLevelItemCount(); ++i) {
        QTreeWidgetItem* top = tree_->topLevelItem(i);
        visit(top, false);
        top->setHidden(false);  // the sections stay, so an empty result reads as "nothing here"
    }
}

QTreeWidgetItem* OutlinePanel::firstVisibleMatch(const QString& text) const {
    std::function<QTreeWidgetItem*(QTreeWidgetItem*)> find = [&](QTreeWidgetItem* it) -> QTreeWidgetItem* {
        if (!it->isHidden() && it->data(0, KeyKindRole).isValid() && it->text(0).contains(text, Qt::CaseInsensitive)) return it;
        for (int i = 0; i < it->childCount(); ++i)
            if (QTreeWidgetItem* f = find(it->child(i))) return f;
        return nullptr;
    };
    for (int i = 0; i < tree_->topLevelItemCount(); ++i)
        if (QTreeWidgetItem* f = find(tree_->topLevelItem(i))) return f;
    return nullptr;
}

void OutlinePanel::onSelection(ModelKey key, QObject* origin) {
    if (origin == this || !doc_->hasProgram()) return;
    if (key.kind != ModelKey::Kind::Op && key.kind != ModelKey::Kind::Value) return;
    const Program& p = doc_->program();
    OpId op = key.kind == ModelKey::Kind::Op ? key.id : p.value(key.id).definingOp;
    // Saved values are listed directly.
    QTreeWidgetItem* found = nullptr;
    for (int i = 0; i < tree_->topLevelItemCount() && !found; ++i) {
        QTreeWidgetItem* top = tree_->topLevelItem(i);
        for (int j = 0; j < top->childCount() && !found; ++j) {
            QTreeWidgetItem* c = top->child(j);
            if (c->data(0, KeyKindRole).toInt() == int(key.kind) && c->data(0, KeyIdRole).toUInt() == key.id &&
                c->data(0, KeyKindRole).isValid())
                found = c;
        }
    }
    if (!found && op != kNoId && p.op(op).parentBlock == Program::kGlobalBlock) {
        const uint32_t pos = p.indexInBlock(op);
        const bool bwd = doc_->split().isBackward(pos);
        const QString name = qs(p.opName(op));
        QTreeWidgetItem* top = tree_->topLevelItem(bwd ? 1 : 0);
        for (int j = 0; top && j < top->childCount() && !found; ++j) {
            QTreeWidgetItem* g = top->child(j);
            if (g->text(0) != name) continue;
            populate(g);
            for (int k = 0; k < g->childCount(); ++k)
                if (g->child(k)->data(0, KeyIdRole).toUInt() == op) { found = g->child(k); break; }
        }
    }
    syncing_ = true;
    if (found) {
        tree_->setCurrentItem(found);
        tree_->scrollToItem(found);
    } else {
        tree_->setCurrentItem(nullptr);
    }
    syncing_ = false;
}

// ---------------------------------------------------------------- Inspector

InspectorPanel::InspectorPanel(Document* doc, QWidget* parent) : QWidget(parent), doc_(doc) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    text_ = new QTextBrowser(this);
    text_->setObjectName("inspectorText");
    text_->setOpenLinks(false);
    text_->setFrameShape(QFrame::NoFrame);
    layout->addWidget(text_);
    connect(text_, &QTextBrowser::anchorClicked, this, [this](const QUrl& url) {
        const QString s = url.toString();
        const QStringList parts = s.split(':');
        if (parts.size() < 2) return;
        if (parts[0] == "value") doc_->select(ModelKey{ModelKey::Kind::Value, parts[1].toUInt()}, this);
        else if (parts[0] == "op") doc_->select(ModelKey{ModelKey::Kind::Op, parts[1].toUInt()}, this);
        else if (parts[0] == "pin" && parts.size() == 3) doc_->pinValue(parts[2].toUInt(), parts[1].toInt());
    });
    connect(doc_, &Document::selectionChanged, this, [this] { refresh(); });
    connect(doc_, &Document::resultChanged, this, [this] { refresh(); });
    connect(doc_, &Document::programChanged, this, [this] { refresh(); });
    connect(doc_, &Document::configChanged, this, [this] { refresh(); });  // a pin shows at once
    connect(doc_, &Document::solveFailed, this, [this] { refresh(); });
    refresh();
}

QString InspectorPanel::currentHtml() const { return text_->toHtml(); }

QString InspectorPanel::valueLink(ValueId v) const {
    return QStringLiteral("<a href='value:%1'>%2</a>").arg(v).arg(doc_->valueName(v).toHtmlEscaped());
}

QString InspectorPanel::opLink(OpId op) const {
    const Program& p = doc_->program();
    const QString pos = p.op(op).parentBlock == Program::kGlobalBlock ? QStringLiteral("#%1 ").arg(p.indexInBlock(op)) : QString();
    return QStringLiteral("<a href='op:%1'>%2%3</a>").arg(op).arg(pos, qs(p.opName(op)).toHtmlEscaped());
}

namespace {
QString row(const QString& k, const QString& v) {
    return QStringLiteral("<tr><td style='color:#6e7781;padding-right:10px'>%1</td><td>%2</td></tr>").arg(k, v);
}
QString yesNo(bool b) { return b ? QObject::tr("yes") : QObject::tr("no"); }
const char* kPinNames[] = {QT_TR_NOOP("none"), QT_TR_NOOP("always save"), QT_TR_NOOP("always recompute")};
}  // namespace

QString InspectorPanel::valueHtml(ValueId v) const {
    const Program& p = doc_->program();
    const Value& val = p.value(v);
    QString h = QStringLiteral("<h3 style='margin:2px'>value %1</h3><table>").arg(doc_->valueName(v).toHtmlEscaped());
    h += row(tr("type"), typeSummary(p, v).toHtmlEscaped());
    h += row(tr("size"), formatBytes(double(p.valueBytes(v))) + QStringLiteral(" (%1 B)").arg(p.valueBytes(v)));
    h += row(tr("defined by"), val.definingOp == kNoId ? tr("block argument") : opLink(val.definingOp));
    QStringList users;
    int shown = 0;
    for (const Use& u : p.uses(v)) {
        if (++shown > 12) { users << tr("… %1 more").arg(p.uses(v).size() - 12); break; }
        users << opLink(u.user);
    }
    h += row(tr("users"), users.isEmpty() ? tr("none") : users.join("<br>"));
    auto r = doc_->result();
    if (r && r->ok() && v < r->plan.reasons.size()) {
        const ValueReason& why = r->plan.reasons[v];
        const char* cls[] = {"other", "forward", "backward"};
        h += row(tr("class"), cls[int(why.valueClass)]);
        QString side = sideName(why.side);
        const QString color = why.side == ValueSide::Saved ? "#16a34a" : why.side == ValueSide::Recomputed ? "#9333ea" : "#6e7781";
        h += row(tr("<b>decision</b>"), QStringLiteral("<b style='color:%1'>%2</b>%3").arg(color, side, why.midHold ? tr(" · mid-hold (backward needs it: recomputed)") : QString()));
        h += row(tr("in network"), why.inNetwork ? tr("yes") : tr("no (%1)").arg(qs(skipReasonName(why.skip))));
        h += row(tr("distance to bw"), why.distance < 0 ? tr("none") : why.distance >= Analysis::kFarDistance ? tr("far") : QString::number(why.distance));
        if (why.inNetwork) h += row(tr("weight"), QString::fromStdString(r->plan.weightText(v)));
        h += row(tr("materialized"), yesNo(why.materialized) + tr(" · backwards: ") + yesNo(why.materializedBackwards));
        h += row(tr("fusion loop"), yesNo(why.fusionLoop));
        h += row(tr("banned"), why.banned ? QStringLiteral("<b>%1</b> — %2").arg(qs(banRuleName(why.banRule)), QString::fromStdString(why.banText).toHtmlEscaped()) : tr("no"));
        if (int(why.pin) != doc_->pinOf(v))  // the config's pin is what the graph shows; say why the plan differs
            h += row(tr("pin in the plan"), QStringLiteral("<span style='color:#b45309'>%1</span>")
                                                .arg(doc_->failedResult() ? tr("%1 — the solve with the current pins failed; this is the plan before it")
                                                                                .arg(tr(kPinNames[int(why.pin)]))
                                                                          : tr("%1 — re-solving with the current pins…").arg(tr(kPinNames[int(why.pin)]))));
        // Why, in one sentence.
        QString because;
        if (why.side == ValueSide::Saved) because = tr("The minimum cut crosses its v_in→v_out arc: saving it (weight %1) is cheaper than recomputing through it.").arg(QString::fromStdString(r->plan.weightText(v)));
        else if (why.midHold) because = tr("The backward uses it and it lies on the sink side beyond the cut: the clones of its defining ops recompute it.");
        else if (!why.inNetwork) because = tr("Not part of the flow network (%1).").arg(qs(skipReasonName(why.skip)));
        else if (why.banned) because = tr("Banned from recomputation: %1").arg(QString::fromStdString(why.banText).toHtmlEscaped());
        if (!because.isEmpty()) h += QStringLiteral("</table><p style='margin-top:6px'>%1</p><table>").arg(because);
        if (r->network && r->network->inNode(v) != kNoId) {
            const uint32_t in = r->network->inNode(v);
            h += row(tr("v_in side"), in < r->cut.sinkSide.size() && !r->cut.sinkSide[in] ? tr("source") : tr("sink"));
        }
    }
    h += row(tr("pin"), tr(kPinNames[doc_->pinOf(v)]));  // the config's pin: the one the graph and the Tuning list show
    h += "</table>";
    h += QStringLiteral("<p>%1 <a href='pin:1:%2'>always save</a> · <a href='pin:2:%2'>always recompute</a> · <a href='pin:0:%2'>clear</a></p>")
             .arg(tr("Pin:"))
             .arg(v);
    return h;
}

QString InspectorPanel::opHtml(OpId op) const {
    const Program& p = doc_->program();
    const Operation& o = p.op(op);
    QString h = QStringLiteral("<h3 style='margin:2px'>%1</h3><table>").arg(qs(p.opName(op)).toHtmlEscaped());
    if (o.parentBlock == Program::kGlobalBlock) {
        const uint32_t pos = p.indexInBlock(op);
        h += row(tr("index"), QString::number(pos));
        h += row(tr("part"), doc_->split().known() ? (doc_->split().isBackward(pos) ? tr("backward") : int64_t(pos) <= doc_->spec().fwdOpEndIdx ? tr("forward") : tr("between")) : tr("—"));
    } else {
        h += row(tr("nested in"), opLink(p.block(o.parentBlock).parentOp));
    }
    QStringList ins, outs, attrs;
    for (ValueId v : o.operands) ins << (v == kNoId ? QStringLiteral("&lt;&lt;NULL VALUE&gt;&gt;") : valueLink(v) + " " + typeSummary(p, v).toHtmlEscaped());
    for (ValueId v : o.results) outs << valueLink(v) + " " + typeSummary(p, v).toHtmlEscaped();
    for (const auto& a : o.attributes)
        attrs << QStringLiteral("%1: %2").arg(QString::fromStdString(a.name).toHtmlEscaped(),
                                             QString::fromStdString(printAttribute(a.value, p.generation())).toHtmlEscaped().left(120));
    h += row(tr("operands"), ins.join("<br>"));
    h += row(tr("results"), outs.join("<br>"));
    if (auto r = doc_->result(); r && r->ok()) {
        const bool rec = std::find(r->plan.recomputeOps.begin(), r->plan.recomputeOps.end(), op) != r->plan.recomputeOps.end();
        h += row(tr("<b>recomputed</b>"), rec ? tr("<b style='color:#9333ea'>yes</b> — cloned into the backward") : tr("no"));
    }
    h += row(tr("attributes"), attrs.join("<br>"));
    h += "</table>";
    return h;
}

QString InspectorPanel::arcHtml(uint32_t a) const {
    auto r = doc_->result();
    if (!r || !r->network || a >= r->network->arcs.size()) return {};
    const FlowNetwork& net = *r->network;
    const auto& arc = net.arcs[a];
    const Program& p = doc_->program();
    QString h = QStringLiteral("<h3 style='margin:2px'>arc %1 → %2</h3><table>")
                    .arg(QString::fromStdString(net.nodeName(arc.from, p)).toHtmlEscaped(),
                         QString::fromStdString(net.nodeName(arc.to, p)).toHtmlEscaped());
    h += row(tr("capacity"), QString::fromStdString(net.capacityText(arc)));
    const bool cut = std::find(r->cut.cutArcs.begin(), r->cut.cutArcs.end(), a) != r->cut.cutArcs.end();
    h += row(tr("in the cut"), cut ? tr("<b style='color:#dc2626'>yes</b>") : tr("no"));
    if (cut && !arc.infinite && r->cut.valueUnits > 0)
        h += row(tr("share of cut"), QStringLiteral("%1 %").arg(100.0 * double(arc.capacity) / double(r->cut.valueUnits), 0, 'f', 1));
    QStringList why;
    const std::pair<int, const char*> reasons[] = {{FlowNetwork::Weight, "weight"}, {FlowNetwork::User, "user"}, {FlowNetwork::Input, "input"},
        {FlowNetwork::Ban, "ban"}, {FlowNetwork::FusionLoopSource, "fusion loop (source)"}, {FlowNetwork::FusionLoopSink, "fusion loop (sink)"},
        {FlowNetwork::BackwardSink, "backward user"}, {FlowNetwork::PinSaved, "pin: save"}, {FlowNetwork::PinRecomputed, "pin: recompute"}};
    for (auto [bit, name] : reasons)
        if (arc.reasons & bit) why << name;
    h += row(tr("added for"), why.join(", "));
    for (uint32_t node : {arc.from, arc.to})
        if (node >= 2 && net.nodes[node].value != kNoId) h += row(tr("value"), valueLink(net.nodes[node].value));
    h += "</table>";
    return h;
}

QString InspectorPanel::groupHtml(uint32_t begin) const {
    QString label;
    const auto ranges = groupResolver_ ? groupResolver_(begin, &label) : std::vector<std::pair<uint32_t, uint32_t>>{};
    if (ranges.empty()) return tr("<h3>op group from #%1</h3><p>Double-click the group in the graph to expand it.</p>").arg(begin);
    // What the plan does inside the group: held (saved) and recomputed values, the clones' work.
    const Program& p = doc_->program();
    const auto& ops = p.globalBlock().ops;
    auto r = doc_->result();
    const bool solved = r && r->ok();
    std::vector<uint8_t> recomputedOp;
    if (solved) {
        recomputedOp.assign(p.ops().size(), 0);
        for (OpId op : r->plan.recomputeOps) recomputedOp[op] = 1;
    }
    std::map<std::string_view, int> byType;
    size_t opCount = 0, saved = 0, recomputed = 0, recomputedOps = 0;
    int64_t savedBytes = 0, recomputedBytes = 0;
    double recomputeFlops = 0;
    for (const auto& [b, e] : ranges)
        for (uint32_t pos = b; pos < e && pos < ops.size(); ++pos) {
            const OpId op = ops[pos];
            ++opCount;
            ++byType[p.opName(op)];
            if (!solved) continue;
            if (recomputedOp[op]) {
                ++recomputedOps;
                recomputeFlops += estimateOpFlops(p, op);
            }
            for (ValueId v : p.op(op).results) {
                if (v >= r->plan.reasons.size()) continue;
                const int64_t bytes = std::max<int64_t>(0, p.valueBytes(v));
                if (r->plan.reasons[v].side == ValueSide::Saved) ++saved, savedBytes += bytes;
                if (r->plan.reasons[v].side == ValueSide::Recomputed) ++recomputed, recomputedBytes += bytes;
            }
        }
    QString h = QStringLiteral("<h3 style='margin:2px'>%1</h3><table>")
                    .arg(label.isEmpty() ? tr("op group from #%1").arg(begin) : label.toHtmlEscaped());
    QStringList spans;
    for (const auto& [b, e] : ranges) spans << QStringLiteral("#%1–#%2").arg(b).arg(e - 1);
    h += row(tr("ops"), tr("%1 (%2)").arg(opCount).arg(spans.join(", ")));
    if (solved) {
        h += row(tr("<b>held for the backward</b>"), tr("<b>%1</b> in %2 saved value(s)").arg(formatBytes(double(savedBytes))).arg(saved));
        h += row(tr("recomputed"), tr("%1 in %2 value(s), by %3 cloned op(s)").arg(formatBytes(double(recomputedBytes))).arg(recomputed).arg(recomputedOps));
        h += row(tr("recompute work"), QStringLiteral("≈ %1").arg(formatFlops(recomputeFlops)));
    }
    std::vector<std::pair<int, std::string_view>> top;
    for (const auto& [name, c] : byType) top.push_back({c, name});
    std::sort(top.begin(), top.end(), [](const auto& a, const auto& b) { return a.first > b.first || (a.first == b.first && a.second < b.second); });
    QStringList types;
    for (size_t i = 0; i < top.size() && i < 10; ++i) types << QStringLiteral("%1 × %2").arg(qs(top[i].second).toHtmlEscaped()).arg(top[i].first);
    if (top.size() > 10) types << tr("… %1 more types").arg(top.size() - 10);
    h += row(tr("ops by type"), types.join("<br>"));
    h += "</table>";
    h += tr("<p style='color:#6e7781'>Double-click the group in the graph to open it.</p>");
    return h;
}

void InspectorPanel::refresh() {
    if (!doc_->hasProgram()) {
        text_->setHtml(tr("<p style='color:#6e7781'>No program open.</p>"));
        return;
    }
    const ModelKey k = doc_->selection();
    QString h;
    switch (k.kind) {
    case ModelKey::Kind::Value:
        if (k.id < doc_->program().values().size()) h = valueHtml(k.id);
        break;
    case ModelKey::Kind::Op:
        if (k.id < doc_->program().ops().size()) h = opHtml(k.id);
        break;
    case ModelKey::Kind::NetEdge: h = arcHtml(k.id); break;
    case ModelKey::Kind::Group: h = groupHtml(k.id); break;
    case ModelKey::Kind::None: break;
    }
    if (h.isEmpty()) h = tr("<p style='color:#6e7781'>Select an op, a value or a flow-network arc to see what the algorithm knows about it.</p>");
    text_->setHtml(h);
}

// ---------------------------------------------------------------- Tuning

namespace {
const char* kListNames[] = {"Recomputable", "Tending", "Random", "Compute-intensive", "View", "Ignore"};
const char* kListKeys[] = {"recomputable_ops", "tending_to_recompute_ops", "random_ops", "compute_intensive_ops", "view_ops", "ignore_ops"};
}  // namespace

std::vector<std::string>& TuningPanel::listOf(RecomputeConfig& c, int index) const {
    switch (index) {
    case 0: return c.recomputableOps;
    case 1: return c.tendingToRecomputeOps;
    case 2: return c.randomOps;
    case 3: return c.computeIntensiveOps;
    case 4: return c.viewOps;
    default: return c.ignoreOps;
    }
}

TuningPanel::TuningPanel(Document* doc, QWidget* parent) : QWidget(parent), doc_(doc) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    tabs_ = new QTabWidget(this);
    tabs_->setDocumentMode(true);
    tabs_->setUsesScrollButtons(true);
    for (int i = 0; i < 6; ++i) {
        auto* page = new QWidget(tabs_);
        auto* pl = new QVBoxLayout(page);
        pl->setContentsMargins(2, 4, 2, 2);
        auto* list = new QListWidget(page);
        list->setObjectName(QStringLiteral("opList_%1").arg(kListKeys[i]));
        list->setSelectionMode(QAbstractItemView::ExtendedSelection);
        list->setToolTip(tr("Bold: ops this program holds (count). %1").arg(kListKeys[i]));
        auto* row = new QHBoxLayout();
        auto* edit = new QLineEdit(page);
        edit->setPlaceholderText(tr("add op, e.g. pd_op.exp"));
        auto* add = new QPushButton(tr("Add"), page);
        auto* remove = new QPushButton(tr("Remove"), page);
        row->addWidget(edit, 1);
        row->addWidget(add);
        row->addWidget(remove);
        pl->addWidget(list, 1);
        pl->addLayout(row);
        tabs_->addTab(page, tr(kListNames[i]));
        lists_.push_back(list);
        adders_.push_back(edit);
        // One completer per field for the panel's life; refresh() only swaps its word list.
        // (Replacing the completer from inside its own key event deleted the popup under it.)
        auto* completer = new QCompleter(new QStringListModel(edit), edit);
        completer->setCaseSensitivity(Qt::CaseInsensitive);
        completer->setFilterMode(Qt::MatchContains);
        edit->setCompleter(completer);
        completers_.push_back(completer);
        auto doAdd = [this, i, edit] {
            if (!edit->text().trimmed().isEmpty()) addOp(i, edit->text().trimmed());
            edit->clear();
        };
        connect(add, &QPushButton::clicked, this, doAdd);
        // Queued: Enter in the completion popup reaches the field inside the completer's event
        // filter, which then writes the chosen completion into the field; the edit (and its
        // refresh) runs after that, and the field is cleared last.
        connect(edit, &QLineEdit::returnPressed, this, doAdd, Qt::QueuedConnection);
        connect(remove, &QPushButton::clicked, this, [this, i, list] {
            RecomputeConfig c = doc_->config();
            auto& l = listOf(c, i);
            QStringList removed;
            for (QListWidgetItem* it : list->selectedItems()) {
                const std::string name = it->data(OpListRole).toString().toStdString();
                l.erase(std::remove(l.begin(), l.end(), name), l.end());
                removed << it->data(OpListRole).toString();
            }
            if (!removed.isEmpty()) doc_->setConfig(c, tr("Remove %1 from %2").arg(removed.join(", "), kListKeys[i]));
        });
    }
    layout->addWidget(tabs_, 3);

    auto* form = new QFormLayout();
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    aggressive_ = new QCheckBox(tr("aggressive recomputation"), this);
    aggressive_->setObjectName("aggressive");
    maxDist_ = new QSpinBox(this);
    maxDist_->setObjectName("maxDistFromBw");
    maxDist_->setRange(0, 1000000);
    minWeight_ = new QDoubleSpinBox(this);
    minWeight_->setDecimals(3);
    minWeight_->setRange(0, 1e6);
    minWeight_->setSingleStep(0.1);
    distBase_ = new QDoubleSpinBox(this);
    distBase_->setDecimals(3);
    distBase_->setRange(1, 10);
    distBase_->setSingleStep(0.05);
    distCap_ = new QSpinBox(this);
    distCap_->setRange(0, 100000);
    nonMat_ = new QSpinBox(this);
    nonMat_->setRange(1, 1000);
    sizeRatio_ = new QDoubleSpinBox(this);
    sizeRatio_->setDecimals(2);
    sizeRatio_->setRange(0, 1e6);
    form->addRow(aggressive_);
    form->addRow(tr("max dist from bw"), maxDist_);
    form->addRow(tr("minimum weight"), minWeight_);
    form->addRow(tr("distance base"), distBase_);
    form->addRow(tr("distance cap"), distCap_);
    form->addRow(tr("non-materialized ×"), nonMat_);
    form->addRow(tr("size ratio ban"), sizeRatio_);
    layout->addLayout(form);
    // Tooltips in the seed's terms (docs/ALGORITHM.md §4–§5).
    aggressive_->setToolTip(tr("<b>AGGRESSIVE_RECOMPUTATION</b> (seed: False). On: a value is banned from recompute only when "
                               "its op is unrecomputable (random or compute-intensive); the distance and size-ratio bans are off."));
    maxDist_->setToolTip(tr("<b>MAX_DIST_FROM_BW</b> (seed: 3). A forward value more than this many ops away from the "
                            "backward (dist(v)) is banned: it is always saved, never recomputed."));
    minWeight_->setToolTip(tr("<b>MINIMUM_WEIGHT</b> (seed: 0.1). Weight of a zero-sized value made by a "
                              "tending-to-recompute op, so the cut can still prefer it."));
    distBase_->setToolTip(tr("<b>Distance base</b> (seed: 1.1). weight(v) = size(v) × base^max(min(dist(v), cap), 1): "
                             "values far from the backward cost more to save."));
    distCap_->setToolTip(tr("<b>Distance cap</b> (seed: 100). The largest dist(v) the weight's exponent uses."));
    nonMat_->setToolTip(tr("<b>Non-materialized factor</b> (seed: 2). A value that is not materialized (every user fuses "
                           "with it) weighs this many times its size."));
    sizeRatio_->setToolTip(tr("<b>Output/input size ratio</b> (seed: 4). A value is banned when ratio × size(v) is smaller "
                              "than the sizes of its op's real inputs summed (recompute would keep bigger inputs alive)."));
    // Typing "250" is one edit, not three: values commit on Enter or when the box loses focus.
    for (QAbstractSpinBox* box : std::initializer_list<QAbstractSpinBox*>{maxDist_, minWeight_, distBase_, distCap_, nonMat_, sizeRatio_})
        box->setKeyboardTracking(false);
    connect(aggressive_, &QCheckBox::toggled, this, [this] { knobChanged(tr("Toggle aggressive recomputation"), -1); });
    connect(maxDist_, &QSpinBox::valueChanged, this, [this] { knobChanged(tr("max_dist_from_bw = %1").arg(maxDist_->value()), 1); });
    connect(minWeight_, &QDoubleSpinBox::valueChanged, this, [this] { knobChanged(tr("minimum_weight = %1").arg(minWeight_->value()), 2); });
    connect(distBase_, &QDoubleSpinBox::valueChanged, this, [this] { knobChanged(tr("distance_base = %1").arg(distBase_->value()), 3); });
    connect(distCap_, &QSpinBox::valueChanged, this, [this] { knobChanged(tr("distance_cap = %1").arg(distCap_->value()), 4); });
    connect(nonMat_, &QSpinBox::valueChanged, this, [this] { knobChanged(tr("non_materialized_factor = %1").arg(nonMat_->value()), 5); });
    connect(sizeRatio_, &QDoubleSpinBox::valueChanged, this, [this] { knobChanged(tr("size_ratio_ban = %1").arg(sizeRatio_->value()), 6); });

    auto* pinsLabel = new QLabel(tr("<b>Pins</b> (right-click a value in the graph)"), this);
    pins_ = new QListWidget(this);
    pins_->setObjectName("pinList");
    pins_->setMaximumHeight(80);
    auto* clearPin = new QPushButton(tr("Clear selected pin"), this);
    connect(clearPin, &QPushButton::clicked, this, [this] {
        if (auto* it = pins_->currentItem()) {
            const ValueId v = doc_->findValue(it->data(OpListRole).toString());
            if (v != kNoId) doc_->pinValue(v, 0);
        }
    });
    connect(pins_, &QListWidget::itemClicked, this, [this](QListWidgetItem* it) {
        const ValueId v = doc_->findValue(it->data(OpListRole).toString());
        if (v != kNoId) doc_->select(ModelKey{ModelKey::Kind::Value, v}, this);
    });
    layout->addWidget(pinsLabel);
    layout->addWidget(pins_);
    layout->addWidget(clearPin);
    auto* history = new QLabel(tr("<b>History</b>"), this);
    auto* undoView = new QUndoView(doc_->undoStack(), this);
    undoView->setEmptyLabel(tr("<solved with the loaded config>"));
    undoView->setMaximumHeight(110);
    layout->addWidget(history);
    layout->addWidget(undoView, 1);

    connect(doc_, &Document::configChanged, this, &TuningPanel::refresh);
    connect(doc_, &Document::programChanged, this, &TuningPanel::refresh);
    refresh();
}

QListWidget* TuningPanel::opList(int index) const { return lists_.at(size_t(index)); }

QList<QWidget*> TuningPanel::knobs() const { return {aggressive_, maxDist_, minWeight_, distBase_, distCap_, nonMat_, sizeRatio_}; }

void TuningPanel::addOp(int index, const QString& op) {
    RecomputeConfig c = doc_->config();
    auto& l = listOf(c, index);
    if (std::find(l.begin(), l.end(), op.toStdString()) != l.end()) return;
    l.push_back(op.toStdString());
    doc_->setConfig(c, tr("Add %1 to %2").arg(op, kListKeys[index]));
}

void TuningPanel::removeOp(int index, const QString& op) {
    RecomputeConfig c = doc_->config();
    auto& l = listOf(c, index);
    const auto before = l.size();
    l.erase(std::remove(l.begin(), l.end(), op.toStdString()), l.end());
    if (l.size() != before) doc_->setConfig(c, tr("Remove %1 from %2").arg(op, kListKeys[index]));
}

void TuningPanel::knobChanged(const QString& description, int mergeId) {
    if (refreshing_) return;
    RecomputeConfig c = doc_->config();
    c.aggressiveRecomputation = aggressive_->isChecked();
    c.maxDistFromBw = maxDist_->value();
    c.minimumWeight = minWeight_->value();
    c.distanceBase = distBase_->value();
    c.distanceCap = distCap_->value();
    c.nonMaterializedFactor = nonMat_->value();
    c.sizeRatioBan = sizeRatio_->value();
    doc_->setConfig(c, description, mergeId);
}

void TuningPanel::refresh() {
    refreshing_ = true;
    const RecomputeConfig& c = doc_->config();
    std::map<std::string_view, int> counts;
    QStringList programOps;
    if (doc_->hasProgram()) {
        const Program& p = doc_->program();
        for (OpId op : p.globalBlock().ops) ++counts[p.opName(op)];
        for (auto& [n, k] : counts) programOps << qs(n);
    }
    RecomputeConfig copy = c;
    for (int i = 0; i < 6; ++i) {
        QListWidget* list = lists_[size_t(i)];
        list->clear();
        std::vector<std::string> names = listOf(copy, i);
        std::sort(names.begin(), names.end(), [&](const std::string& a, const std::string& b) {
            const int ca = counts.count(a) ? counts[a] : 0, cb = counts.count(b) ? counts[b] : 0;
            return (ca > 0) != (cb > 0) ? ca > 0 : a < b;  // ops of this program first
        });
        int inProgram = 0;
        for (const std::string& n : names) {
            const int cnt = counts.count(n) ? counts[n] : 0;
            auto* it = new QListWidgetItem(cnt ? QStringLiteral("%1  · %2 in program").arg(QString::fromStdString(n)).arg(cnt)
                                               : QString::fromStdString(n), list);
            it->setData(OpListRole, QString::fromStdString(n));
            if (cnt) {
                QFont f = it->font();
                f.setBold(true);
                it->setFont(f);
                ++inProgram;
            } else {
                it->setForeground(QColor("#8c959f"));
            }
        }
        tabs_->setTabText(i, QStringLiteral("%1 (%2)").arg(tr(kListNames[i])).arg(inProgram));
        tabs_->setTabToolTip(i, tr("%1: %2 ops, %3 of them in this program").arg(kListKeys[i]).arg(names.size()).arg(inProgram));
        // Only when the program's op names changed: a reset model would drop the popup's row.
        auto* words = static_cast<QStringListModel*>(completers_[size_t(i)]->model());
        if (words->stringList() != programOps) words->setStringList(programOps);
    }
    aggressive_->setChecked(c.aggressiveRecomputation);
    maxDist_->setValue(int(c.maxDistFromBw));
    minWeight_->setValue(c.minimumWeight);
    distBase_->setValue(c.distanceBase);
    distCap_->setValue(int(c.distanceCap));
    nonMat_->setValue(int(c.nonMaterializedFactor));
    sizeRatio_->setValue(c.sizeRatioBan);
    pins_->clear();
    for (const auto& n : c.pinnedSaved) {
        auto* it = new QListWidgetItem(tr("%1 — always save").arg(QString::fromStdString(n)), pins_);
        it->setData(OpListRole, QString::fromStdString(n));
    }
    for (const auto& n : c.pinnedRecomputed) {
        auto* it = new QListWidgetItem(tr("%1 — always recompute").arg(QString::fromStdString(n)), pins_);
        it->setData(OpListRole, QString::fromStdString(n));
    }
    refreshing_ = false;
}

// ---------------------------------------------------------------- Summary

SummaryPanel::SummaryPanel(Document* doc, QWidget* parent) : QWidget(parent), doc_(doc) {
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(6, 4, 6, 4);
    numbers_ = new QLabel(this);
    numbers_->setObjectName("summaryNumbers");
    numbers_->setTextFormat(Qt::RichText);
    numbers_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    numbers_->setMinimumWidth(330);
    numbers_->setMaximumWidth(460);
    numbers_->setWordWrap(true);  // the peak warning wraps instead of widening the column over the chart
    numbers_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    chart_ = new QChartView(this);
    chart_->setRenderHint(QPainter::Antialiasing);
    chart_->setMinimumHeight(150);
    chart_->setMinimumWidth(320);
    changes_ = new QTreeWidget(this);
    changes_->setObjectName("sideChanges");
    changes_->setColumnCount(4);
    changes_->setHeaderLabels({tr("Changed side"), tr("now"), tr("held bytes"), tr("recompute")});
    changes_->setRootIsDecorated(true);
    changes_->setUniformRowHeights(true);
    changes_->setMinimumWidth(360);
    changes_->setToolTip(tr("After every edit, the values that changed side: bytes held for the backward "
                            "(+ held, − freed) and recompute FLOPs of their producers. Newest edit first; click to select."));
    changes_->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    layout->addWidget(numbers_);
    layout->addWidget(chart_, 1);
    layout->addWidget(changes_);
    // Before refresh(): recordChanges compares against its own base, not previous_.
    connect(doc_, &Document::resultChanged, this, &SummaryPanel::recordChanges);
    connect(doc_, &Document::resultChanged, this, &SummaryPanel::refresh);
    // A failed solve leaves the last good plan on show: mark it as such until the next result.
    connect(doc_, &Document::solveFailed, this, [this] {
        if (!doc_->hasProgram() || !doc_->result()) return;
        const QString edit = doc_->undoStack()->index() > 0 ? doc_->undoStack()->text(doc_->undoStack()->index() - 1) : QString();
        stale_ = edit.isEmpty() ? tr("The last solve failed: these numbers are of the plan before it.")
                                : tr("“%1” could not be solved: these numbers are of the plan before it.").arg(edit);
        numbers_->setText(QStringLiteral("<p style='color:#b45309;margin:2px'><b>Stale plan.</b> %1</p>").arg(stale_.toHtmlEscaped()) + lastText_);
    });
    connect(doc_, &Document::programChanged, this, [this] {
        previous_.reset();
        mergeBase_.reset();
        mergeKey_ = -1;
        changesBase_.reset();
        changes_->clear();
        lastChanges_.clear();
        editCount_ = 0;
        refresh();
    });
    // Name each edit after what the undo stack did last (a knob, a pin, an undo).
    connect(doc_->undoStack(), &QUndoStack::indexChanged, this, [this](int index) {
        QUndoStack* stack = doc_->undoStack();
        // A plan step shows its plan inside the push (or undo): it already named its change.
        if (std::exchange(planStepRecorded_, false)) {
            undoIndex_ = index;
            return;
        }
        pendingEdit_ = index < undoIndex_ ? tr("Undo %1").arg(stack->text(index)) : stack->text(index - 1);
        undoIndex_ = index;
    });
    connect(changes_, &QTreeWidget::currentItemChanged, this, [this](QTreeWidgetItem* item) {
        if (!item || !item->data(0, Qt::UserRole).isValid()) return;
        doc_->select(ModelKey{ModelKey::Kind::Value, item->data(0, Qt::UserRole).toUInt()}, this);
    });
    refresh();
}

std::vector<SideChange> sideChanges(const Program& program, const Plan& before, const Plan& after,
                                    const std::vector<ValueId>& changed) {
    std::vector<uint8_t> wasCloned(program.ops().size(), 0), isCloned(program.ops().size(), 0);
    for (OpId op : before.recomputeOps) wasCloned[op] = 1;
    for (OpId op : after.recomputeOps) isCloned[op] = 1;
    std::vector<SideChange> out;
    for (ValueId v : changed) {
        if (v >= before.reasons.size() || v >= after.reasons.size() || v >= program.values().size()) continue;
        SideChange c{v, before.reasons[v].side, after.reasons[v].side, 0, 0};
        if (c.before == c.after) continue;
        const int64_t bytes = std::max<int64_t>(0, program.valueBytes(v));
        c.heldBytesDelta = (c.after == ValueSide::Saved ? bytes : 0) - (c.before == ValueSide::Saved ? bytes : 0);
        // The producer's clone appears or goes away with the value (counted once per op).
        const OpId def = program.value(v).definingOp;
        if (def != kNoId && def < program.ops().size() && wasCloned[def] != isCloned[def]) {
            const double f = estimateOpFlops(program, def);
            c.recomputeFlopsDelta = isCloned[def] ? f : -f;
            wasCloned[def] = isCloned[def];
        }
        out.push_back(c);
    }
    std::stable_sort(out.begin(), out.end(), [](const SideChange& a, const SideChange& b) {
        return std::abs(a.heldBytesDelta) > std::abs(b.heldBytesDelta);
    });
    return out;
}

QString planPeaksText(const PlanPeaks& p) {
    if (!p.known) return {};
    return QObject::tr("peak %1 → %2 · activation peak %3 → %4")
        .arg(formatBytes(double(p.peakBefore)), formatBytes(double(p.peakAfter)), formatBytes(double(p.activationBefore)),
             formatBytes(double(p.activationAfter)));
}

ChangeCounts countChanges(const std::vector<SideChange>& changes) {
    ChangeCounts c;
    for (const SideChange& s : changes)
        (s.after == ValueSide::Saved ? c.newlySaved : s.after == ValueSide::Recomputed ? c.newlyRecomputed : c.toNeither)++;
    return c;
}

void SummaryPanel::recordChanges(std::vector<ValueId> changed) {
    auto r = doc_->result();
    if (!r || !r->ok()) return;
    auto base = std::exchange(changesBase_, r);
    QString edit = std::exchange(pendingEdit_, QString());
    const Document::PlanStep& step = doc_->planStep();
    bool replaceTop = false;
    if (step.active) {
        planStepRecorded_ = true;
        edit = step.undo ? tr("Undo %1").arg(step.text) : step.text;
        // One slider drag is one undo step: its entry is replaced, against the plan before the drag.
        replaceTop = !step.undo && step.mergeKey >= 0 && step.mergeKey == mergeKey_ && mergeBase_ && changes_->topLevelItemCount() > 0;
        if (replaceTop) base = mergeBase_;
    }
    mergeKey_ = step.active && !step.undo ? step.mergeKey : -1;
    if (!replaceTop) mergeBase_ = base;
    if (!base || !base->ok()) return;  // the first solve of a program is not an edit
    if (replaceTop) {
        changed.clear();  // recounted against the drag's base
        const auto& a = base->plan.reasons;
        const auto& b = r->plan.reasons;
        for (size_t v = 0; v < std::min(a.size(), b.size()); ++v)
            if (a[v].side != b[v].side) changed.push_back(ValueId(v));
        delete changes_->takeTopLevelItem(0);
        --editCount_;
    }
    lastChanges_ = sideChanges(doc_->program(), base->plan, r->plan, changed);
    int64_t held = 0;
    double flops = 0;
    for (const SideChange& c : lastChanges_) {
        held += c.heldBytesDelta;
        flops += c.recomputeFlopsDelta;
    }
    auto signedBytes = [](int64_t b) { return b == 0 ? QStringLiteral("0") : (b > 0 ? "+" : "−") + formatBytes(double(std::abs(b))); };
    auto signedFlops = [](double f) { return f == 0 ? QStringLiteral("0") : (f > 0 ? "+" : "−") + formatFlops(std::abs(f)); };
    auto* top = new QTreeWidgetItem();
    top->setText(0, tr("Edit %1 · %2").arg(++editCount_).arg(edit.isEmpty() ? tr("re-solve") : edit));
    const ChangeCounts counts = countChanges(lastChanges_);
    QStringList moved;
    if (counts.newlySaved) moved << tr("%1 newly saved").arg(counts.newlySaved);
    if (counts.newlyRecomputed) moved << tr("%1 newly recomputed").arg(counts.newlyRecomputed);
    if (counts.toNeither) moved << tr("%1 neither").arg(counts.toNeither);
    top->setText(1, moved.isEmpty() ? tr("nothing moved") : moved.join(QStringLiteral(" · ")));
    // The edit's row spans the columns so its name and what moved read whole in a narrow dock.
    // What moved first: a narrow dock cuts the end of the row, and the name is in the tooltip.
    top->setText(0, QStringLiteral("Edit %1: %2 · held %3 · recompute %4 — %5")
                        .arg(editCount_)
                        .arg(top->text(1), signedBytes(held), signedFlops(flops), edit.isEmpty() ? tr("re-solve") : edit));

    top->setData(1, Qt::UserRole, QVariantList{qulonglong(counts.newlySaved), qulonglong(counts.newlyRecomputed), qulonglong(counts.toNeither)});
    top->setText(2, signedBytes(held));
    top->setText(3, signedFlops(flops));
    constexpr size_t kShown = 200;  // a big program's edit can move thousands; the rest is a count
    for (size_t i = 0; i < lastChanges_.size() && i < kShown; ++i) {
        const SideChange& c = lastChanges_[i];
        auto* item = new QTreeWidgetItem(top);
        item->setText(0, doc_->valueName(c.value));
        item->setData(0, Qt::UserRole, uint(c.value));
        item->setText(1, QStringLiteral("%1 → %2").arg(QString::fromUtf8(valueSideName(c.before).data(), int(valueSideName(c.before).size())),
                                                       QString::fromUtf8(valueSideName(c.after).data(), int(valueSideName(c.after).size()))));
        item->setText(2, signedBytes(c.heldBytesDelta));
        item->setText(3, signedFlops(c.recomputeFlopsDelta));
        // Green when the edit frees memory, red when it holds more.
        if (c.heldBytesDelta != 0) item->setForeground(2, QColor(c.heldBytesDelta < 0 ? "#16a34a" : "#dc2626"));
    }
    if (lastChanges_.size() > kShown) new QTreeWidgetItem(top, {tr("… and %1 more").arg(lastChanges_.size() - kShown)});
    for (int i = 0; i < changes_->topLevelItemCount(); ++i) changes_->topLevelItem(i)->setExpanded(false);
    top->setToolTip(0, tr("%1, against the plan shown before it").arg(top->text(0)));
    changes_->insertTopLevelItem(0, top);
    top->setFirstColumnSpanned(true);
    top->setExpanded(true);
    constexpr int kEditsKept = 50;
    while (changes_->topLevelItemCount() > kEditsKept) delete changes_->takeTopLevelItem(kEditsKept);
}

QString SummaryPanel::text() const { return numbers_->text(); }

void SummaryPanel::styleChart(QChart* chart) {
    // The chart follows the light/dark palette; the two curves keep their colours.
    const bool dark = QApplication::palette().color(QPalette::Window).lightnessF() < 0.45;
    chart->setTheme(dark ? QChart::ChartThemeDark : QChart::ChartThemeLight);
    chart->setBackgroundRoundness(0);
    const QColor colors[] = {QColor("#94a3b8"), QColor(dark ? "#c084fc" : "#9333ea")};
    int i = 0;
    for (QAbstractSeries* s : chart->series())
        if (auto* line = qobject_cast<QLineSeries*>(s)) line->setPen(QPen(colors[std::min(i++, 1)], 1.6));
}

void SummaryPanel::changeEvent(QEvent* event) {
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange && chart_ && chart_->chart()) styleChart(chart_->chart());
}

QString formatFlops(double flops) {
    const char* units[] = {"", "k", "M", "G", "T", "P"};
    int u = 0;
    double f = std::abs(flops);
    while (f >= 1000 && u < 5) {
        f /= 1000;
        ++u;
    }
    return (flops < 0 ? "-" : "") + QString::number(f, 'f', u == 0 ? 0 : f < 10 ? 2 : 1) + " " + units[u] + "FLOP";
}

namespace {
// Colour of a change: green when it helps, red when it hurts, grey when it is neither.
QString changeColor(double d, int better) {
    if (d == 0 || better == 0) return "#6e7781";
    return (d < 0) == (better < 0) ? "#16a34a" : "#dc2626";
}
}  // namespace

void SummaryPanel::refresh() {
    auto r = doc_->result();
    stale_.clear();
    auto* chart = new QChart();
    chart->legend()->setAlignment(Qt::AlignTop);
    chart->setMargins(QMargins(2, 2, 2, 2));
    chart->setBackgroundRoundness(0);
    headline_.clear();
    warning_.clear();
    if (!doc_->hasProgram() || !r || !r->ok()) {
        numbers_->setText(doc_->hasProgram() ? tr("<i>solving…</i>") : tr("<i>no program</i>"));
        chart_->setChart(chart);
        return;
    }
    const Plan& plan = r->plan;
    const bool hasPrev = previous_ && previous_->ok();
    // `better`: -1 when lower is better, +1 when higher is better, 0 when neither.
    auto delta = [&](double now, double before, bool bytes, int better) {
        if (!hasPrev) return QString();
        const double d = now - before;
        if (d == 0) return QString();
        const QString t = bytes ? formatBytes(d) : QString::number(d, 'g', 6);
        return QStringLiteral(" <span style='color:%1'>(%2%3 vs last)</span>").arg(changeColor(d, better), d > 0 ? "+" : "", t);
    };
    const double before = double(r->originalMemory.peakBytes), after = double(r->rewrittenMemory.peakBytes);
    const double pct = before > 0 ? (after - before) / before * 100.0 : 0.0;
    const QString pctColor = changeColor(after - before, -1);
    headline_ = tr("Peak %1 → %2 (%3%4%)").arg(formatBytes(before), formatBytes(after), pct > 0 ? "+" : "").arg(pct, 0, 'f', 1);
    QString h = QStringLiteral("<div style='font-size:14pt'><b>%1 %2 → %3</b> <b style='color:%4'>(%5%6%)</b></div>")
                    .arg(tr("Peak"), formatBytes(before), formatBytes(after), pctColor, pct > 0 ? "+" : "")
                    .arg(pct, 0, 'f', 1);
    // A profile whose figures do not fit in 64 bits has none: say so, never "Peak 0 B → 0 B".
    const bool peaksKnown = r->originalMemory.ok() && r->rewrittenMemory.ok();
    if (!peaksKnown) {
        const std::string& why = r->originalMemory.ok() ? r->rewrittenMemory.error : r->originalMemory.error;
        headline_ = tr("Peak unknown: %1").arg(QString::fromStdString(why));
        h = QStringLiteral("<div style='font-size:14pt'><b>%1</b></div>").arg(headline_.toHtmlEscaped());
    }
    if (peaksKnown)
        h += QStringLiteral("<div style='color:#57606a'>%1</div>")
                 .arg(planPeaksText(planPeaks(r->originalMemory, r->rewrittenMemory)).toHtmlEscaped());
    if (peaksKnown && after > before && r->rewritten) {
        // Why: the rewritten program's peak op and the biggest values live there.
        const Program& rp = *r->rewritten;
        const uint32_t at = r->rewrittenMemory.peakOpIndex;
        std::vector<ValueId> resident(doc_->spec().inputs.begin(), doc_->spec().inputs.end());
        const ProgramLifetimes lts = computeLifetimes(rp, LifetimeOptions{resident, doc_->spec().fwdOpEndIdx, r->clones});
        const std::vector<ValueLifetime> live = lts.liveAt(at);
        QStringList top;
        for (size_t i = 0; i < live.size() && i < 4; ++i)
            top << QStringLiteral("%1 %2 (%3)").arg(qs(rp.value(live[i].value).name), formatBytes(double(live[i].bytes)), tr(memoryRoleName(live[i].role)));
        const OpId peakOp = at < rp.globalBlock().ops.size() ? rp.globalBlock().ops[at] : kNoId;
        warning_ = tr("Recompute raises the peak by %1: it is at op #%2 %3 of the rewritten program, where %4 are live — %5%6.")
                       .arg(formatBytes(after - before))
                       .arg(at)
                       .arg(peakOp == kNoId ? QString() : shortOpName(rp.opName(peakOp)))
                       .arg(formatBytes(double(lts.liveBytesAt(at))))
                       .arg(top.join(", "))
                       .arg(live.size() > 4 ? tr(" and %1 more").arg(live.size() - 4) : QString());
        h += QStringLiteral("<p style='color:#dc2626;margin:2px'><b>⚠</b> %1</p>").arg(warning_.toHtmlEscaped());
    }
    const double cut = double(plan.cutValueUnits) / double(std::max<int64_t>(1, plan.scale));
    const double prevCut = hasPrev ? double(previous_->plan.cutValueUnits) / double(std::max<int64_t>(1, previous_->plan.scale)) : cut;
    h += "<table cellspacing=2>";
    auto rowf = [&](const QString& k, const QString& v, const QString& tip = {}) {
        h += QStringLiteral("<tr><td style='color:#6e7781' title='%3'>%1</td><td><b>%2</b></td></tr>").arg(k, v, tip.toHtmlEscaped());
    };
    rowf(tr("peak before → after"), QStringLiteral("%1 → %2").arg(formatBytes(before), formatBytes(after)) +
                                        delta(after, hasPrev ? double(previous_->rewrittenMemory.peakBytes) : after, true, -1));
    rowf(tr("activations held at fwd/bwd boundary"), QStringLiteral("%1 → %2").arg(formatBytes(double(r->originalMemory.boundaryActivationBytes)),
                                                                            formatBytes(double(r->rewrittenMemory.boundaryActivationBytes))));
    rowf(tr("seed's estimate: mid-hold bytes"), formatBytes(double(plan.memorySavedBytes)) +
                                                     delta(double(plan.memorySavedBytes), hasPrev ? double(previous_->plan.memorySavedBytes) : 0, true, +1),
         tr("The seed's memory_saved: the sizes of the mid-hold values summed; not a peak."));
    const double cloneFlops = r->rewritten ? estimateFlops(*r->rewritten, r->clones) : 0;
    const double totalFlops = estimateFlops(doc_->program(), doc_->program().globalBlock().ops);
    extraFlops_ = cloneFlops;
    rowf(tr("extra work of the clones"), tr("≈ %1 (%2% of the program)").arg(formatFlops(cloneFlops)).arg(totalFlops > 0 ? cloneFlops / totalFlops * 100 : 0.0, 0, 'f', 1),
         tr("Estimate: 2·M·N·K per matmul, one per output element otherwise."));
    rowf(tr("cut value"), QString::fromStdString(plan.cutValueText()) + delta(cut, prevCut, false, 0));
    rowf(tr("saved values"), QString::number(plan.savedValues.size()) + delta(double(plan.savedValues.size()), hasPrev ? double(previous_->plan.savedValues.size()) : 0, false, 0));
    rowf(tr("mid-hold (recomputed) values"), QString::number(plan.midHoldValues.size()));
    rowf(tr("recomputed ops"), QString::number(plan.recomputeOps.size()) + delta(double(plan.recomputeOps.size()), hasPrev ? double(previous_->plan.recomputeOps.size()) : 0, false, 0));
    rowf(tr("network"), tr("%1 nodes, %2 arcs").arg(r->network ? r->network->nodeCount() : 0).arg(r->network ? r->network->arcs.size() : 0));
    rowf(tr("solve"), tr("%1 ms (build %2, cut %3, rewrite %4)").arg(r->timings.totalMs, 0, 'f', 1).arg(r->timings.buildMs, 0, 'f', 1).arg(r->timings.solveMs, 0, 'f', 1).arg(r->timings.rewriteMs, 0, 'f', 1));
    h += "</table>";
    for (const auto& w : plan.hazards) h += QStringLiteral("<p style='color:#b45309'>⚠ %1</p>").arg(QString::fromStdString(w).toHtmlEscaped());
    numbers_->setText(h);
    lastText_ = h;

    if (!peaksKnown) {  // no curve to draw: the figures do not fit in 64 bits (never a flat 0)
        chart->setTitle(tr("No memory curve: the figures do not fit in 64 bits"));
        xAxis_ = yAxis_ = nullptr;
        styleChart(chart);
        chart_->setChart(chart);
        previous_ = r;
        return;
    }
    // Memory curve: live bytes per op, original vs rewritten (downsampled to ~1500 points, max per bucket).
    const double peak = std::max(before, after);
    const bool gib = peak >= 1024.0 * 1024.0 * 1024.0;
    const bool kib = peak < 1024.0 * 1024.0;
    const double unit = gib ? 1024.0 * 1024.0 * 1024.0 : kib ? 1024.0 : 1024.0 * 1024.0;
    const QString unitName = gib ? "GiB" : kib ? "KiB" : "MiB";
    size_t maxOps = 1;
    auto addSeries = [&](const MemoryProfile& m, const QString& name, const QColor& color) {
        auto* s = new QLineSeries();
        s->setName(name);
        const size_t n = m.liveBytes.size();
        maxOps = std::max(maxOps, n);
        const size_t step = std::max<size_t>(1, n / 1500);
        for (size_t i = 0; i < n; i += step) {
            int64_t mx = 0;
            for (size_t k = i; k < std::min(n, i + step); ++k) mx = std::max(mx, m.liveBytes[k]);
            s->append(double(i), double(mx) / unit);
        }
        s->setPen(QPen(color, 1.6));
        chart->addSeries(s);
        return s;
    };
    auto* s0 = addSeries(r->originalMemory, tr("original (peak %1)").arg(formatBytes(before)), QColor("#94a3b8"));
    auto* s1 = addSeries(r->rewrittenMemory, tr("with recompute (peak %1)").arg(formatBytes(after)), QColor("#9333ea"));
    auto* xAxis = new QValueAxis(chart);
    auto* yAxis = new QValueAxis(chart);
    xAxis->setTitleText(tr("op index"));
    yAxis->setTitleText(tr("live %1").arg(unitName));
    xAxis->setRange(0, double(maxOps));
    yAxis->setRange(0, peak / unit * 1.08);
    xAxis->setLabelFormat("%.0f");
    yAxis->setLabelFormat(peak / unit >= 20 ? "%.0f" : "%.1f");
    xAxis->setTickCount(6);
    yAxis->setTickCount(5);
    xAxis->applyNiceNumbers();  // round ticks (0, 50, 100, …), still from 0
    yAxis->applyNiceNumbers();
    xAxis->setLabelFormat("%.0f");
    yAxis->setLabelFormat(yAxis->max() >= 20 ? "%.0f" : "%.1f");
    for (QValueAxis* axis : {xAxis, yAxis}) {
        QFont f = axis->labelsFont();
        f.setPointSizeF(7.5);
        axis->setLabelsFont(f);
        f.setPointSizeF(8);
        axis->setTitleFont(f);
    }
    chart->addAxis(xAxis, Qt::AlignBottom);
    chart->addAxis(yAxis, Qt::AlignLeft);
    for (auto* s : {s0, s1}) {
        s->attachAxis(xAxis);
        s->attachAxis(yAxis);
    }
    xAxis_ = xAxis;
    yAxis_ = yAxis;
    styleChart(chart);
    chart_->setChart(chart);
    previous_ = r;
}

}  // namespace rx
