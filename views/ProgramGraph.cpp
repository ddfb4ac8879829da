#include "views/ProgramGraph.h"

#include <QHash>
#include <QSet>
#include <algorithm>
#include <cmath>
#include <map>

#include "views/GraphItems.h"
#include "views/LayoutService.h"

namespace rx {

QString shortOpName(std::string_view name) {
    QString s = QString::fromUtf8(name.data(), qsizetype(name.size()));
    if (s.startsWith("pd_op.")) s = s.mid(6);
    return s;
}

QString typeSummary(const Program& program, ValueId v) {
    if (v >= program.values().size()) return {};
    const Type& t = program.types()[program.value(v).type];
    switch (t.kind) {
    case Type::Kind::DenseTensor:
    case Type::Kind::SelectedRows:
    case Type::Kind::TensorArray: {
        QStringList dims;
        for (int64_t d : t.dims) dims << (d < 0 ? QStringLiteral("?") : QString::number(d));
        const QString dt = QString::fromUtf8(dtypeShortName(t.dtype).data(), qsizetype(dtypeShortName(t.dtype).size()));
        return dims.isEmpty() ? dt : dims.join(QChar(0xD7)) + " " + dt;
    }
    case Type::Kind::Vector: return QStringLiteral("vec[%1]").arg(t.elements.size());
    case Type::Kind::Null: return QStringLiteral("null");
    case Type::Kind::Opaque: return QString::fromStdString(t.text).left(24);
    }
    return {};
}

QString formatBytes(double bytes) {
    const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    double b = std::abs(bytes);
    while (b >= 1024 && u < 4) {
        b /= 1024;
        ++u;
    }
    const QString sign = bytes < 0 ? "-" : "";
    return sign + (u == 0 ? QString::number(int64_t(b)) : QString::number(b, 'f', b < 10 ? 2 : 1)) + " " + units[u];
}

QString layerHeldText(const LayerBytes& b) {
    return QObject::tr("held %1\n%2 saved \u00B7 %3 recomp").arg(formatBytes(double(b.held))).arg(b.savedValues).arg(b.recomputedValues);
}

// ---------------------------------------------------------------- overview

void ProgramOverview::split(uint32_t begin, uint32_t end, uint32_t parts, std::vector<Segment>& out) {
    if (end <= begin) return;
    parts = std::max<uint32_t>(1, std::min(parts, end - begin));
    const uint32_t size = (end - begin + parts - 1) / parts;
    for (uint32_t b = begin; b < end; b += size) out.push_back(Segment{b, std::min(end, b + size), false, {}, -1, {}});
}

void ProgramOverview::reset(uint32_t opCount, ProgramSplit s) {
    segments_.clear();
    layerOfPos_.clear();
    layerName_.clear();
    expansions_.clear();
    opCount_ = opCount;
    split_ = s;
    if (opCount <= kDirectLimit) {
        if (opCount) segments_.push_back(Segment{0, opCount, true, {}, -1, {}});
        return;
    }
    const uint32_t cut = s.known() ? uint32_t(std::clamp<int64_t>(s.backwardOpStartIdx, 0, opCount)) : opCount;
    const uint32_t fwdParts = std::max<uint32_t>(1, uint32_t(double(kTargetGroups) * cut / opCount));
    split(0, cut, fwdParts, segments_);
    split(cut, opCount, kTargetGroups - std::min(kTargetGroups - 1, fwdParts), segments_);
    first_ = segments_;
}

void ProgramOverview::reset(uint32_t opCount, ProgramSplit s, const LayerPartition& layers) {
    reset(opCount, s);
    if (opCount <= kDirectLimit || layers.layerCount() < 2 || layers.groupOfPos.size() != opCount) return;
    // Many layers: a group stands for a block of consecutive layers, so the first picture
    // stays near kTargetGroups nodes (dot's time grows fast with nodes).
    const size_t layerCount = layers.layerCount();
    const size_t perBlock = std::max<size_t>(1, (layerCount + kTargetGroups / 4 - 1) / (kTargetGroups / 4));
    std::vector<int32_t> blockOf(layers.groups.size(), -1);
    QStringList blockName;
    {
        size_t ordinal = 0;
        for (size_t g = 0; g < layers.groups.size(); ++g) {
            if (layers.groups[g].kind != LayerGroup::Kind::Layer) {
                blockOf[g] = int32_t(blockName.size());
                blockName << QString::fromStdString(layers.groups[g].name);
                continue;
            }
            if (ordinal % perBlock == 0) {
                const size_t last = std::min(layerCount, ordinal + perBlock) - 1;
                blockName << (perBlock == 1 ? QObject::tr("layer %1").arg(ordinal) : QObject::tr("layers %1–%2").arg(ordinal).arg(last));
            }
            blockOf[g] = int32_t(blockName.size() - 1);
            ++ordinal;
        }
    }
    // One group per block and side: a block's runs on one side (its backward's trailing
    // gradient fetches, accumulations between other layers' ops) join its first run, so
    // each backward layer faces its forward layer.
    std::vector<Segment> out;
    const uint32_t bwd = s.known() ? uint32_t(std::clamp<int64_t>(s.backwardOpStartIdx, 0, opCount)) : opCount;
    auto blockAt = [&](uint32_t i) { return layers.groupOfPos[i] >= 0 ? blockOf[size_t(layers.groupOfPos[i])] : -1; };
    std::map<std::pair<int32_t, bool>, size_t> segmentOf;  // (block, backward) -> index in out
    for (uint32_t i = 0; i < opCount;) {
        uint32_t j = i + 1;
        while (j < opCount && blockAt(j) == blockAt(i) && (j < bwd) == (i < bwd)) ++j;
        const int32_t g = blockAt(i);
        const bool backward = i >= bwd;
        if (auto it = segmentOf.find({g, backward}); g >= 0 && it != segmentOf.end()) {
            Segment& seg = out[it->second];
            if (!seg.more.empty() && seg.more.back().second == i) seg.more.back().second = j;
            else seg.more.emplace_back(i, j);
        } else {
            Segment seg{i, j, false, {}, g, {}};
            if (g >= 0) {
                seg.label = blockName[g] + (backward ? QObject::tr(" · backward") : QObject::tr(" · forward"));
                segmentOf[{g, backward}] = out.size();
            }
            out.push_back(std::move(seg));
        }
        i = j;
    }
    // Still too many (a backward that interleaves its layers): the plain overview.
    if (out.size() > 3 * kTargetGroups) return;
    segments_ = std::move(out);
    first_ = segments_;
    if (perBlock > 1) {
        layerOfPos_ = layers.groupOfPos;
        layerName_.clear();
        for (const LayerGroup& lg : layers.groups) layerName_ << QString::fromStdString(lg.name);
    }
}

bool ProgramOverview::expand(uint32_t begin) {
    for (size_t i = 0; i < segments_.size(); ++i) {
        Segment s = segments_[i];
        if (s.begin != begin || s.expanded) continue;
        std::vector<Segment> parts;
        if (s.group >= 0 && s.group < kLayerGroupBase && !layerOfPos_.empty() && !s.label.isEmpty()) {
            // A block of layers: one group per layer (and side), its runs joined as in reset().
            const bool backward = s.label.endsWith(QObject::tr(" · backward"));
            std::map<int32_t, size_t> partOf;
            for (const auto& [b, e] : s.ranges()) {
                expansions_.emplace_back(b, e);
                for (uint32_t p = b; p < e;) {
                    uint32_t q = p + 1;
                    while (q < e && layerOfPos_[q] == layerOfPos_[p]) ++q;
                    const int32_t lg = layerOfPos_[p];
                    if (auto it = partOf.find(lg); it != partOf.end()) {
                        Segment& part = parts[it->second];
                        if (!part.more.empty() && part.more.back().second == p) part.more.back().second = q;
                        else if (part.end == p) part.end = q;
                        else part.more.emplace_back(p, q);
                    } else {
                        Segment part{p, q, false, {}, lg >= 0 ? kLayerGroupBase + lg : -1, {}};
                        if (lg >= 0 && lg < layerName_.size()) part.label = layerName_[lg] + (backward ? QObject::tr(" · backward") : QObject::tr(" · forward"));
                        partOf[lg] = parts.size();
                        parts.push_back(std::move(part));
                    }
                    p = q;
                }
            }
            segments_.erase(segments_.begin() + long(i));
            segments_.insert(segments_.begin() + long(i), parts.begin(), parts.end());
            return true;
        }
        for (const auto& [b, e] : s.ranges()) {
            expansions_.emplace_back(b, e);
            if (e - b <= 300) parts.push_back(Segment{b, e, true, {}, -1, {}});
            else split(b, e, 12, parts);
        }
        segments_.erase(segments_.begin() + long(i));
        segments_.insert(segments_.begin() + long(i), parts.begin(), parts.end());
        return true;
    }
    return false;
}

uint32_t ProgramOverview::Segment::opCount() const {
    uint32_t n = end - begin;
    for (const auto& [b, e] : more) n += e - b;
    return n;
}

bool ProgramOverview::Segment::contains(uint32_t pos) const {
    if (pos >= begin && pos < end) return true;
    return std::any_of(more.begin(), more.end(), [pos](const auto& r) { return pos >= r.first && pos < r.second; });
}

std::vector<std::pair<uint32_t, uint32_t>> ProgramOverview::Segment::ranges() const {
    std::vector<std::pair<uint32_t, uint32_t>> r{{begin, end}};
    r.insert(r.end(), more.begin(), more.end());
    return r;
}

bool ProgramOverview::canCollapse(uint32_t pos) const {
    if (opCount_ <= kDirectLimit) return false;
    for (const auto& [b, e] : expansions_)
        if (pos >= b && pos < e) return true;
    return whole();
}

bool ProgramOverview::collapse(uint32_t pos) {
    if (opCount_ <= kDirectLimit) return false;
    // The innermost (smallest) expansion holding pos.
    int best = -1;
    for (size_t i = 0; i < expansions_.size(); ++i) {
        const auto& [b, e] = expansions_[i];
        if (pos >= b && pos < e && (best < 0 || e - b < expansions_[size_t(best)].second - expansions_[size_t(best)].first)) best = int(i);
    }
    if (best < 0) {
        if (!whole()) return false;
        segments_ = first_;  // after Show Whole Graph: the first overview again
        return true;
    }
    const auto [b, e] = expansions_[size_t(best)];
    // The first overview's group this range belongs to (a layer's backward spans several ranges).
    Segment back{b, e, false, {}, -1, {}};
    for (const Segment& f : first_)
        for (const auto& r : f.ranges())
            if (r.first == b && r.second == e) back = f;
    back.expanded = false;
    const auto ranges = back.ranges();
    auto within = [&](uint32_t sb, uint32_t se) {
        return std::any_of(ranges.begin(), ranges.end(), [&](const auto& r) { return sb >= r.first && se <= r.second; });
    };
    std::vector<Segment> out;
    bool placed = false;
    for (const Segment& s : segments_) {
        if (within(s.begin, s.end)) {
            if (!placed) out.push_back(back);
            placed = true;
            continue;
        }
        out.push_back(s);
    }
    segments_ = std::move(out);
    std::erase_if(expansions_, [&](const auto& x) { return within(x.first, x.second); });
    return true;
}

void ProgramOverview::expandAll() {
    if (segments_.empty()) return;
    const uint32_t n = segments_.back().end;
    segments_ = {Segment{0, n, true, {}, -1, {}}};
    expansions_.clear();
}

bool ProgramOverview::whole() const {
    return std::all_of(segments_.begin(), segments_.end(), [](const Segment& s) { return s.expanded; });
}

size_t ProgramOverview::visibleUnits() const {
    size_t n = 0;
    for (const auto& s : segments_) n += s.expanded ? s.opCount() : 1;
    return n;
}

// ---------------------------------------------------------------- builder

namespace {

QColor overlayColor(double t) {
    // Sequential light-yellow → orange → deep red: reads on both palettes.
    t = std::clamp(t, 0.0, 1.0);
    const QColor stops[] = {QColor("#fff7bc"), QColor("#fec44f"), QColor("#ec7014"), QColor("#993404")};
    const double x = t * 3;
    const int i = std::min(2, int(x));
    const double f = x - i;
    const QColor a = stops[i], b = stops[i + 1];
    return QColor::fromRgbF(a.redF() + (b.redF() - a.redF()) * f, a.greenF() + (b.greenF() - a.greenF()) * f,
                            a.blueF() + (b.blueF() - a.blueF()) * f);
}

struct OverlayScale {
    bool log = true;
    double lo = 0, hi = 1;
    double norm(double x) const {
        if (x < 0) return -1;
        const double v = log ? std::log10(1 + x) : x;
        return hi > lo ? (v - lo) / (hi - lo) : 0.5;
    }
    double inverse(double t) const {
        const double v = lo + t * (hi - lo);
        return log ? std::pow(10, v) - 1 : v;
    }
};

}  // namespace

VisualGraph buildProgramGraph(const Program& program, const ProgramOverview& overview,
                              const ProgramViewOptions& options, const PlanMarks& marks) {
    const GraphPalette& pal = GraphPalette::current();
    VisualGraph g;
    const Block& global = program.globalBlock();
    const uint32_t opCount = uint32_t(global.ops.size());
    const ProgramSplit& split = options.split;

    size_t shownOps = 0;
    for (const auto& s : overview.segments())
        if (s.expanded) shownOps += s.opCount();
    const bool values = shownOps > 0 && (options.showValues == 1 || (options.showValues == -1 && shownOps <= 250));

    if (split.known()) {
        g.clusters.push_back(VisualCluster{QObject::tr("Forward"), pal.clusterFwd});
        g.clusters.push_back(VisualCluster{QObject::tr("Backward"), pal.clusterBwd});
    }
    auto clusterOf = [&](uint32_t pos) { return split.known() ? (split.isBackward(pos) ? 1 : 0) : -1; };

    // Overlay scale over the values on show.
    auto metric = [&](ValueId v) -> double {
        switch (options.overlay) {
        case Overlay::Size: return double(program.valueBytes(v));
        case Overlay::Weight: return v < marks.valueWeight.size() ? marks.valueWeight[v] : -1;
        case Overlay::Distance: return v < marks.valueDistance.size() ? marks.valueDistance[v] : -1;
        case Overlay::None: return -1;
        }
        return -1;
    };
    OverlayScale scale;
    scale.log = options.overlay != Overlay::Distance;
    if (options.overlay != Overlay::None) {
        double lo = 1e300, hi = -1e300;
        for (OpId op : global.ops)
            for (ValueId r : program.op(op).results) {
                const double m = metric(r);
                if (m < 0) continue;
                const double x = scale.log ? std::log10(1 + m) : m;
                lo = std::min(lo, x);
                hi = std::max(hi, x);
            }
        if (lo <= hi) {
            scale.lo = lo;
            scale.hi = hi;
        }
    }

    // Units: one node per expanded op or collapsed segment.
    std::vector<int> unitOfPos(opCount, -1);
    std::vector<int> valueNode;  // per ValueId when values are shown
    if (values) valueNode.assign(program.values().size(), -1);

    bool anyPinned = false;
    auto addOpNode = [&](uint32_t pos) {
        const OpId op = global.ops[pos];
        const Operation& o = program.op(op);
        VisualNode n;
        n.key = ModelKey{ModelKey::Kind::Op, op};
        n.shape = NodeShape::RoundedBox;
        n.title = shortOpName(program.opName(op));
        if (!o.results.empty()) {
            n.subtitle = values ? QString() : typeSummary(program, o.results[0]);
            if (!values) n.subtitle = QString::fromStdString(program.value(o.results[0]).name) + "  " + n.subtitle;
        }
        if (!o.regions.empty()) n.badge = QObject::tr("%1 region%2").arg(o.regions.size()).arg(o.regions.size() > 1 ? "s" : "");
        if (split.isBackward(pos)) n.flags |= kFlagBackward;
        if (PlanMarks::at(marks.opRecomputed, op)) {
            n.flags |= kFlagRecomputed;
            n.badge = QStringLiteral("\u21BB recompute");
        }
        if (PlanMarks::at(marks.opClone, op)) {
            n.flags |= kFlagClone;
            n.badge = QStringLiteral("\u21BB clone");
        }
        for (ValueId r : o.results)
            if (PlanMarks::at(marks.valuePinned, r)) {
                n.flags |= kFlagPinned;
                n.badge = n.badge.isEmpty() ? QObject::tr("\u25C6 pinned") : QObject::tr("\u25C6 ") + n.badge;
                anyPinned = true;
                break;
            }
        QString tip = QStringLiteral("<b>%1</b> · op #%2 (index %3)").arg(QString::fromUtf8(program.opName(op).data(), qsizetype(program.opName(op).size()))).arg(op).arg(pos);
        for (ValueId r : o.results) tip += QStringLiteral("<br>→ %1 : %2").arg(QString::fromStdString(program.value(r).name), typeSummary(program, r));
        n.tooltip = tip;
        const double textW = std::max(estimateTextWidth(n.title, 9.5), estimateTextWidth(n.subtitle, 7.5));
        n.width = std::clamp(textW + 24, 70.0, 220.0);
        n.height = n.subtitle.isEmpty() ? 28 : 38;
        n.cluster = clusterOf(pos);
        if (options.overlay != Overlay::None && !o.results.empty()) {
            double m = -1;
            for (ValueId r : o.results) m = std::max(m, metric(r));
            const double t = scale.norm(m);
            if (t >= 0) n.fill = overlayColor(t);
        }
        g.nodes.push_back(std::move(n));
        return int(g.nodes.size() - 1);
    };

    QHash<int, int32_t> groupOfNode;  // layer group of each layer node
    // The forward layer nodes that start a bundle: those of layers with forward ops (the Layers
    // table's rows; not the "other" ops between forward and backward). Without a partition,
    // every labelled forward group.
    QSet<int> bundleFrom;
    auto hasForwardLayer = [&](const std::vector<std::pair<uint32_t, uint32_t>>& ranges) {
        if (!options.layers) return true;
        for (const auto& [b, e] : ranges)
            for (uint32_t pos = b; pos < e && pos < options.layers->groupOfPos.size(); ++pos)
                if (const int32_t lg = options.layers->groupOfPos[pos]; lg >= 0 && options.layers->groups[size_t(lg)].fwdEnd > options.layers->groups[size_t(lg)].fwdBegin) return true;
        return false;
    };
    // What the plan holds from each forward layer node: the sum over the layers it stands for.
    QHash<int, LayerBytes> heldOfNode;
    const bool layerFigures = options.layers && !marks.layerBytes.empty() && marks.layerBytes.size() == options.layers->groups.size();
    auto layerFiguresOf = [&](const std::vector<std::pair<uint32_t, uint32_t>>& ranges) {
        std::vector<uint8_t> counted(marks.layerBytes.size(), 0);
        LayerBytes sum;
        for (const auto& [b, e] : ranges)
            for (uint32_t pos = b; pos < e && pos < options.layers->groupOfPos.size(); ++pos) {
                const int32_t lg = options.layers->groupOfPos[pos];
                if (lg < 0 || counted[size_t(lg)]) continue;
                counted[size_t(lg)] = 1;
                const LayerGroup& group = options.layers->groups[size_t(lg)];
                if (group.fwdEnd <= group.fwdBegin) continue;  // no row of the table
                const LayerBytes& l = marks.layerBytes[size_t(lg)];
                sum.heldForBackward += l.heldForBackward;
                sum.saved += l.saved;
                sum.recomputed += l.recomputed;
                sum.held += l.held;
                sum.savedValues += l.savedValues;
                sum.recomputedValues += l.recomputedValues;
            }
        return sum;
    };
    for (const auto& seg : overview.segments()) {
        if (seg.expanded) {
            for (uint32_t pos = seg.begin; pos < seg.end && pos < opCount; ++pos) unitOfPos[pos] = addOpNode(pos);
            continue;
        }
        VisualNode n;
        n.key = ModelKey{ModelKey::Kind::Group, seg.begin};
        n.shape = NodeShape::Group;
        const auto ranges = seg.ranges();
        const uint32_t count = seg.opCount();
        std::map<std::string_view, int> hist;
        int recomputed = 0;
        for (const auto& [b, e] : ranges)
            for (uint32_t pos = b; pos < e; ++pos) {
                ++hist[program.opName(global.ops[pos])];
                if (PlanMarks::at(marks.opRecomputed, global.ops[pos])) ++recomputed;
            }
        std::vector<std::pair<int, std::string_view>> top;
        for (auto& [name, c] : hist) top.push_back({c, name});
        std::sort(top.begin(), top.end(), [](auto& a, auto& b) { return a.first > b.first || (a.first == b.first && a.second < b.second); });
        QString span = QObject::tr("ops %1–%2").arg(seg.begin).arg(seg.end - 1);
        if (!seg.more.empty()) span += QObject::tr(" +%1").arg(count - (seg.end - seg.begin));
        n.title = span;
        QStringList parts;
        for (size_t i = 0; i < top.size() && i < 2; ++i) parts << QStringLiteral("%1×%2").arg(shortOpName(top[i].second)).arg(top[i].first);
        n.subtitle = parts.join(", ");
        if (!seg.label.isEmpty()) {
            // A layer: its name, and for the forward what the plan saves and recomputes there.
            n.title = seg.label;
            n.subtitle = span;
            if (!split.isBackward(seg.begin) && hasForwardLayer(ranges)) {
                bundleFrom.insert(int(g.nodes.size()));
                if (layerFigures) {
                    const LayerBytes sum = layerFiguresOf(ranges);
                    heldOfNode.insert(int(g.nodes.size()), sum);
                    n.subtitle = QObject::tr("saved %1 · recomp %2").arg(formatBytes(double(sum.saved)), formatBytes(double(sum.recomputed)));
                }
            }
        }
        if (seg.group >= 0) groupOfNode.insert(int(g.nodes.size()), seg.group);
        n.badge = QString::number(count);
        if (recomputed) {
            n.flags |= kFlagRecomputed;
            n.badge = QStringLiteral("\u21BB %1/%2").arg(recomputed).arg(count);
        }
        if (split.isBackward(seg.begin)) n.flags |= kFlagBackward;
        const bool isLayer = seg.label.startsWith(QObject::tr("layer"));
        QString tip = QObject::tr("<b>%1</b><br>%2 ops (positions %3). %4")
                          .arg(seg.label.isEmpty() ? span : seg.label)
                          .arg(count)
                          .arg(span.mid(4))
                          .arg(isLayer ? QObject::tr("Double-click to open the layer view.") : QObject::tr("Double-click to expand."));
        for (size_t i = 0; i < top.size() && i < 8; ++i)
            tip += QStringLiteral("<br>%1 × %2").arg(top[i].first).arg(QString::fromUtf8(top[i].second.data(), qsizetype(top[i].second.size())));
        n.tooltip = tip;
        // The subtitle is drawn at 7.2 pt: 8.5 pt's estimate leaves it whole ("saved … · recomp …").
        n.width = seg.label.isEmpty() ? 170 : std::max(190.0, estimateTextWidth(n.subtitle, 8.5) + 30);
        n.height = 40;
        n.cluster = clusterOf(seg.begin);
        const int idx = int(g.nodes.size());
        g.nodes.push_back(std::move(n));
        for (const auto& [b, e] : ranges)
            for (uint32_t pos = b; pos < e; ++pos) unitOfPos[pos] = idx;
    }

    // Value nodes (values mode): results of shown ops.
    auto valueNodeFor = [&](ValueId v) -> int {
        if (!values || v >= valueNode.size()) return -1;
        if (valueNode[v] >= 0) return valueNode[v];
        const Value& val = program.value(v);
        VisualNode n;
        n.key = ModelKey{ModelKey::Kind::Value, v};
        n.shape = NodeShape::Ellipse;
        n.title = QString::fromStdString(val.name);
        n.subtitle = typeSummary(program, v);
        n.tooltip = QStringLiteral("<b>%1</b> : %2<br>%3").arg(n.title, n.subtitle, formatBytes(double(program.valueBytes(v))));
        if (PlanMarks::at(marks.valueSaved, v)) {
            n.flags |= kFlagSaved;
            n.tooltip += QObject::tr("<br><b>saved</b> for backward");
        }
        if (PlanMarks::at(marks.valueBanned, v)) n.flags |= kFlagBanned;
        if (PlanMarks::at(marks.valuePinned, v)) {
            n.flags |= kFlagPinned;
            n.badge = QObject::tr("\u25C6 pinned");
            n.tooltip += QObject::tr("<br><b>pinned</b> (right-click to change)");
            anyPinned = true;
        }
        n.width = std::clamp(std::max(estimateTextWidth(n.title, 9), estimateTextWidth(n.subtitle, 7.5)) + 26, 56.0, 170.0);
        n.height = 32;
        if (val.definingOp != kNoId && program.op(val.definingOp).parentBlock == Program::kGlobalBlock) {
            const uint32_t pos = program.indexInBlock(val.definingOp);
            n.cluster = clusterOf(pos);
            if (split.isBackward(pos)) n.flags |= kFlagBackward;
        }
        if (options.overlay != Overlay::None) {
            const double t = scale.norm(metric(v));
            if (t >= 0) n.fill = overlayColor(t);
        }
        valueNode[v] = int(g.nodes.size());
        g.nodes.push_back(std::move(n));
        return valueNode[v];
    };

    // Edges, deduplicated per node pair; `multiplicity` counts the values an edge stands for.
    QHash<quint64, int> edgeIndex;
    std::vector<int> multiplicity;
    std::vector<int64_t> edgeBytes;
    std::vector<ValueId> lastValue;  // a value read by several ops of one group counts once
    auto addEdge = [&](int from, int to, ValueId v) {
        if (from < 0 || to < 0 || from == to) return;
        const quint64 k = (quint64(uint32_t(from)) << 32) | uint32_t(to);
        if (auto it = edgeIndex.find(k); it != edgeIndex.end()) {
            if (lastValue[size_t(*it)] == v) return;
            lastValue[size_t(*it)] = v;
            ++multiplicity[size_t(*it)];
            edgeBytes[size_t(*it)] += program.valueBytes(v);
            return;
        }
        edgeIndex.insert(k, int(g.edges.size()));
        multiplicity.push_back(1);
        edgeBytes.push_back(program.valueBytes(v));
        lastValue.push_back(v);
        VisualEdge e;
        e.from = from;
        e.to = to;
        e.key = ModelKey{ModelKey::Kind::Value, v};
        const bool groupEdge = g.nodes[from].shape == NodeShape::Group || g.nodes[to].shape == NodeShape::Group;
        if (!values && !groupEdge && PlanMarks::at(marks.valueSaved, v)) {
            e.color = pal.savedFill;
            e.width = 2.4;
        }
        // Forward→backward edges do not constrain ranks: the backward stands beside the
        // forward (both top-down) instead of hanging below it with every edge stretched.
        if (split.known() && !(g.nodes[from].flags & kFlagBackward) && (g.nodes[to].flags & kFlagBackward))
            e.constraint = false;
        g.edges.push_back(e);
    };

    // Parameters are resident and read everywhere: in an overview their edges hide the layers'.
    const uint32_t parameterName = program.findOpName("builtin.parameter");
    for (uint32_t pos = 0; pos < opCount; ++pos) {
        const OpId op = global.ops[pos];
        const int src = unitOfPos[pos];
        const bool srcIsOp = g.nodes[src].shape == NodeShape::RoundedBox;
        if (!srcIsOp && program.op(op).nameId == parameterName) continue;
        for (ValueId r : program.op(op).results) {
            const int vn = srcIsOp ? valueNodeFor(r) : -1;
            if (vn >= 0) addEdge(src, vn, r);
            for (const Use& u : program.uses(r)) {
                if (u.ancestor == kNoId || program.op(u.ancestor).parentBlock != Program::kGlobalBlock) continue;
                const int dst = unitOfPos[program.indexInBlock(u.ancestor)];
                if (vn >= 0) addEdge(vn, dst, r);
                else addEdge(src, dst, r);
            }
        }
    }
    // An overview with collapsed groups: dot's cost grows with edges, and a group touches
    // most others through parameters and activations. Keep the chain between neighbouring
    // groups plus the heaviest other edges (at most 2 per node), drawn by weight; forward→
    // backward edges do not constrain ranks so the two halves stand side by side.
    if (!overview.whole()) {
        std::vector<size_t> order(g.edges.size());
        for (size_t i = 0; i < order.size(); ++i) order[i] = i;
        auto adjacent = [&](const VisualEdge& e) { return std::abs(e.from - e.to) == 1; };
        // A layer's forward → its own backward: the bytes the backward holds from it, always drawn.
        auto layerBundle = [&](const VisualEdge& e) {
            const int32_t a = groupOfNode.value(e.from, -1);
            return a >= 0 && a == groupOfNode.value(e.to, -2) && bundleFrom.contains(e.from) && !(g.nodes[e.from].flags & kFlagBackward) &&
                   (g.nodes[e.to].flags & kFlagBackward);
        };
        // A bundle's bytes: what the plan holds from the layer (the Layers table's "held"),
        // else, without a plan, what the backward reads from it.
        auto bundleBytes = [&](size_t i) {
            const auto it = heldOfNode.constFind(g.edges[i].from);
            return it != heldOfNode.cend() ? it->held : edgeBytes[i];
        };
        int64_t maxBundle = 1;
        size_t bundles = 0;
        for (size_t i = 0; i < g.edges.size(); ++i)
            if (layerBundle(g.edges[i])) {
                maxBundle = std::max(maxBundle, bundleBytes(i));
                ++bundles;
            }
        std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
            const bool la = layerBundle(g.edges[a]), lb = layerBundle(g.edges[b]);
            if (la != lb) return la;
            const bool aa = adjacent(g.edges[a]), bb = adjacent(g.edges[b]);
            return aa != bb ? aa : multiplicity[a] > multiplicity[b];
        });
        const size_t keep = std::min(order.size(), 2 * g.nodes.size() + 8 + bundles);
        std::vector<VisualEdge> kept;
        kept.reserve(keep);
        std::sort(order.begin(), order.begin() + long(keep));
        for (size_t k = 0; k < keep; ++k) {
            VisualEdge e = g.edges[order[k]];
            const int m = multiplicity[order[k]];
            e.width = std::min(4.0, 1.0 + std::log2(double(m)) * 0.5);
            if (m > 1) e.label = QString::number(m);
            if ((g.nodes[e.from].flags & kFlagBackward) != (g.nodes[e.to].flags & kFlagBackward)) {
                e.constraint = false;
                e.dashed = true;
            }
            if (layerBundle(e)) {
                // The bytes the plan holds from this layer for the backward: the bundle's width
                // and label. Its two ends share a rank, so it is one straight horizontal line.
                e.dashed = false;
                e.color = pal.savedFill;
                e.width = 1.0 + 7.0 * double(bundleBytes(order[k])) / double(maxBundle);
                const auto held = heldOfNode.constFind(e.from);
                e.label = held != heldOfNode.cend() ? layerHeldText(*held)
                                                    : QObject::tr("backward reads\n%1").arg(formatBytes(double(edgeBytes[order[k]])));
                e.weight = 4;
                e.minLength = 9;  // room for the label between the clusters (a comparison label is ~30 characters)
                g.sameRank.push_back({e.from, e.to});
            } else if (bundles > 0 && (g.nodes[e.to].flags & kFlagBackward)) {
                // The backward runs bottom-up beside its forward: its own edges must not push ranks.
                e.constraint = false;
            }
            kept.push_back(e);
        }
        g.edges = std::move(kept);
    }

    const size_t n = g.nodes.size();
    g.engine = LayoutService::chooseEngine(n, g.edges.size());
    // Spline routing is most of dot's time on an overview; straight edges keep it < 0.3 s.
    if (!overview.whole() && g.engine == LayoutEngine::Dot) g.engine = LayoutEngine::DotLines;
    // Legend
    if (options.overlay != Overlay::None) {
        const char* names[] = {"", "Size", "Weight", "Distance to backward"};
        g.title = QObject::tr("Overlay: %1").arg(names[int(options.overlay)]);
        for (double t : {0.0, 0.33, 0.66, 1.0}) {
            const double v = scale.inverse(t);
            const QString txt = options.overlay == Overlay::Size ? formatBytes(v)
                                : options.overlay == Overlay::Distance ? QString::number(v, 'f', 0)
                                                                        : QString::number(v, 'g', 3);
            g.legend.push_back(LegendEntry{overlayColor(t), QColor(), txt});
        }
    } else {
        g.title = QObject::tr("Program");
        g.legend.push_back(LegendEntry{pal.fwdFill, pal.fwdBorder, QObject::tr("forward op")});
        g.legend.push_back(LegendEntry{pal.bwdFill, pal.bwdBorder, QObject::tr("backward op")});
        if (values) {
            g.legend.push_back(LegendEntry{pal.valueFill, pal.valueBorder, QObject::tr("value"), true});
            g.legend.push_back(LegendEntry{pal.savedFill, pal.savedBorder, QObject::tr("saved for backward"), true});
        } else {
            g.legend.push_back(LegendEntry{pal.savedFill, pal.savedFill, QObject::tr("saved value (edge)"), false, false, true});
        }
        g.legend.push_back(LegendEntry{pal.fwdFill, pal.recomputed, QObject::tr("recomputed op"), false, true});
        if (!marks.opClone.empty()) g.legend.push_back(LegendEntry{pal.bwdFill, pal.clone, QObject::tr("clone (rewritten)")});
        if (anyPinned) g.legend.push_back(LegendEntry{pal.fwdFill, pal.pinned, QObject::tr("pinned by you (\u25C6)")});
        if (!overview.whole()) g.legend.push_back(LegendEntry{pal.groupFill, pal.groupBorder, QObject::tr("op group (double-click)")});
    }
    return g;
}

// ---------------------------------------------------------------- layer view

bool LayerViewSpec::contains(uint32_t pos) const {
    return std::any_of(forward.begin(), forward.end(), [pos](const auto& r) { return pos >= r.first && pos < r.second; });
}

VisualGraph buildLayerGraph(const Program& program, const LayerPartition& layers, const LayerViewSpec& spec,
                            const ProgramViewOptions& options, const PlanMarks& marks, const LayerViewClones& clones) {
    const GraphPalette& pal = GraphPalette::current();
    VisualGraph g;
    const Block& global = program.globalBlock();
    const uint32_t opCount = uint32_t(global.ops.size());
    const ProgramSplit& split = options.split;
    const uint32_t bwdBegin = split.known() ? uint32_t(std::clamp<int64_t>(split.backwardOpStartIdx, 0, opCount)) : opCount;
    const bool planned = !marks.valueSaved.empty();
    const int recomputedCluster = 0, cloneCluster = 1;
    g.clusters.push_back(VisualCluster{QObject::tr("\u21BB recomputed in the backward"), QColor(147, 51, 234, 26)});
    const bool withClones = clones.rewritten && clones.clones && clones.cloneOf;
    if (withClones) g.clusters.push_back(VisualCluster{QObject::tr("clones (rewritten program)"), QColor(192, 38, 211, 22)});

    auto topPos = [&](OpId op) -> int64_t {  // the op's position in the global block, -1 if none
        while (op != kNoId && program.op(op).parentBlock != Program::kGlobalBlock) {
            const BlockId b = program.op(op).parentBlock;
            op = b == kNoId ? kNoId : program.block(b).parentOp;
        }
        return op == kNoId ? -1 : int64_t(program.indexInBlock(op));
    };
    // Backward readers of a value: global-block ops at or after the backward's start.
    auto backwardUsers = [&](ValueId v) {
        std::vector<OpId> users;
        for (const Use& u : program.uses(v)) {
            if (u.ancestor == kNoId || program.op(u.ancestor).parentBlock != Program::kGlobalBlock) continue;
            if (program.indexInBlock(u.ancestor) >= bwdBegin && (users.empty() || users.back() != u.ancestor)) users.push_back(u.ancestor);
        }
        std::sort(users.begin(), users.end(), [&](OpId a, OpId b) { return program.indexInBlock(a) < program.indexInBlock(b); });
        users.erase(std::unique(users.begin(), users.end()), users.end());
        return users;
    };

    std::vector<int> nodeOfPos(opCount, -1);
    size_t ports = 0, stubs = 0;
    int64_t savedBytes = 0, recomputedBytes = 0, heldBytes = 0;
    struct Stub { int op; ValueId v; std::vector<OpId> users; QColor color; };
    std::vector<Stub> pending;
    for (const auto& [b, e] : spec.forward)
        for (uint32_t pos = b; pos < e && pos < opCount; ++pos) {
            const OpId op = global.ops[pos];
            const Operation& o = program.op(op);
            VisualNode n;
            n.key = ModelKey{ModelKey::Kind::Op, op};
            n.shape = NodeShape::RoundedBox;
            n.title = shortOpName(program.opName(op));
            if (!o.results.empty()) n.subtitle = QString::fromStdString(program.value(o.results[0]).name) + "  " + typeSummary(program, o.results[0]);
            const bool recomputed = PlanMarks::at(marks.opRecomputed, op);
            if (recomputed) {
                n.flags |= kFlagRecomputed;
                n.cluster = recomputedCluster;
            }
            QString tip = QStringLiteral("<b>%1</b> · op #%2 (index %3)").arg(QString::fromUtf8(program.opName(op).data(), qsizetype(program.opName(op).size()))).arg(op).arg(pos);
            for (ValueId r : o.results) {
                const std::vector<OpId> users = backwardUsers(r);
                const bool saved = PlanMarks::at(marks.valueSaved, r), midHold = PlanMarks::at(marks.valueRecomputed, r);
                tip += QStringLiteral("<br>→ %1 : %2").arg(QString::fromStdString(program.value(r).name), typeSummary(program, r));
                if (!saved && !midHold && users.empty()) continue;
                // A port: the backward needs this value, saved (the cut), recomputed, or held as is.
                const int64_t bytes = program.valueBytes(r);
                QColor c = saved ? pal.savedFill : midHold ? pal.recomputed : pal.banned;
                const QString role = saved ? QObject::tr("saved") : midHold ? QObject::tr("recomputed") : planned ? QObject::tr("held (not in the network)") : QObject::tr("read by the backward");
                (saved ? savedBytes : midHold ? recomputedBytes : heldBytes) += bytes;
                n.ports.push_back(VisualPort{ModelKey{ModelKey::Kind::Value, r}, c, QString::fromStdString(program.value(r).name)});
                tip += QObject::tr(" · <b>%1</b>, %2, %3 backward user(s)").arg(role, formatBytes(double(bytes))).arg(users.size());
                ++ports;
                if (!users.empty()) pending.push_back(Stub{int(g.nodes.size()), r, users, c});
            }
            if (PlanMarks::at(marks.valuePinned, o.results.empty() ? kNoId : o.results[0])) n.flags |= kFlagPinned;
            n.tooltip = tip;
            const double textW = std::max(estimateTextWidth(n.title, 9.5), estimateTextWidth(n.subtitle, 7.5));
            n.width = std::clamp(std::max(textW + 24, 16.0 * double(n.ports.size()) + 16), 70.0, 240.0);
            n.height = n.ports.empty() ? 38 : 44;
            nodeOfPos[pos] = int(g.nodes.size());
            g.nodes.push_back(std::move(n));
        }

    QHash<quint64, int> edgeIndex;
    auto addEdge = [&](int from, int to, ValueId v) -> VisualEdge* {
        if (from < 0 || to < 0 || from == to) return nullptr;
        const quint64 k = (quint64(uint32_t(from)) << 32) | uint32_t(to);
        if (edgeIndex.contains(k)) return nullptr;
        edgeIndex.insert(k, int(g.edges.size()));
        VisualEdge e;
        e.from = from;
        e.to = to;
        e.key = ModelKey{ModelKey::Kind::Value, v};
        g.edges.push_back(e);
        return &g.edges.back();
    };
    // Where a value read from outside the layer comes from: one node per source group.
    QHash<int, int> sourceNode;  // group (or -2: program inputs) -> node
    const uint32_t parameterName = program.findOpName("builtin.parameter"), dataName = program.findOpName("pd_op.data");
    auto sourceFor = [&](OpId def) -> int {
        const int64_t pos = topPos(def);
        const int group = pos >= 0 && size_t(pos) < layers.groupOfPos.size() ? layers.groupOfPos[size_t(pos)] : -2;
        if (auto it = sourceNode.find(group); it != sourceNode.end()) return *it;
        VisualNode n;
        n.key = ModelKey{ModelKey::Kind::Op, def};
        n.shape = NodeShape::Group;
        n.title = group >= 0 ? QObject::tr("from %1").arg(QString::fromStdString(layers.groups[size_t(group)].name)) : QObject::tr("from the inputs");
        n.tooltip = QObject::tr("Values this layer reads from outside it (parameters not drawn)");
        n.width = std::max(120.0, estimateTextWidth(n.title, 9.5) + 24);
        n.height = 30;
        sourceNode.insert(group, int(g.nodes.size()));
        g.nodes.push_back(std::move(n));
        return int(g.nodes.size() - 1);
    };
    for (const auto& [b, e] : spec.forward)
        for (uint32_t pos = b; pos < e && pos < opCount; ++pos) {
            const int to = nodeOfPos[pos];
            for (ValueId x : program.op(global.ops[pos]).operands) {
                if (x == kNoId || x >= program.values().size()) continue;
                const OpId def = program.value(x).definingOp;
                if (def == kNoId) continue;
                if (program.op(def).nameId == parameterName || program.op(def).nameId == dataName) continue;  // resident
                const int64_t dp = topPos(def);
                if (dp >= 0 && size_t(dp) < nodeOfPos.size() && nodeOfPos[size_t(dp)] >= 0) addEdge(nodeOfPos[size_t(dp)], to, x);
                else if (dp >= 0 && uint32_t(dp) < bwdBegin) addEdge(sourceFor(def), to, x);
            }
        }
    // Forward values that leave the layer for later forward ops: one node per target group.
    QHash<int, int> sinkNode;
    for (const auto& [b, e] : spec.forward)
        for (uint32_t pos = b; pos < e && pos < opCount; ++pos)
            for (ValueId r : program.op(global.ops[pos]).results)
                for (const Use& u : program.uses(r)) {
                    const int64_t up = u.ancestor == kNoId ? -1 : topPos(u.ancestor);
                    if (up < 0 || uint32_t(up) >= bwdBegin || spec.contains(uint32_t(up))) continue;
                    const int group = size_t(up) < layers.groupOfPos.size() ? layers.groupOfPos[size_t(up)] : -1;
                    int sink = sinkNode.value(group, -1);
                    if (sink < 0) {
                        VisualNode n;
                        n.key = ModelKey{ModelKey::Kind::Op, u.ancestor};
                        n.shape = NodeShape::Group;
                        n.title = group >= 0 ? QObject::tr("to %1").arg(QString::fromStdString(layers.groups[size_t(group)].name)) : QObject::tr("to the rest of the forward");
                        n.width = std::max(120.0, estimateTextWidth(n.title, 9.5) + 24);
                        n.height = 30;
                        sink = int(g.nodes.size());
                        sinkNode.insert(group, sink);
                        g.nodes.push_back(std::move(n));
                    }
                    addEdge(nodeOfPos[pos], sink, r);
                }
    // Stubs: a port's backward readers in one small node next to it.
    for (const Stub& st : pending) {
        VisualNode n;
        n.key = ModelKey{ModelKey::Kind::Op, st.users.front()};
        n.shape = NodeShape::RoundedBox;
        n.flags = kFlagBackward | kFlagStub;
        n.title = st.users.size() == 1 ? QObject::tr("\u2192 1 backward user") : QObject::tr("\u2192 %1 backward users").arg(st.users.size());
        n.subtitle = QString::fromStdString(program.value(st.v).name);
        QString tip = QObject::tr("<b>%1</b> is read by the backward:").arg(n.subtitle);
        for (size_t i = 0; i < st.users.size() && i < 12; ++i)
            tip += QStringLiteral("<br>%1 (op #%2, index %3)").arg(shortOpName(program.opName(st.users[i]))).arg(st.users[i]).arg(program.indexInBlock(st.users[i]));
        n.tooltip = tip + QObject::tr("<br>Click to select the first.");
        n.width = std::max(estimateTextWidth(n.title, 10.5), estimateTextWidth(n.subtitle, 8)) + 28;
        n.height = 32;
        const int idx = int(g.nodes.size());
        g.nodes.push_back(std::move(n));
        if (VisualEdge* e = addEdge(st.op, idx, st.v)) {
            e->color = st.color;
            e->width = 1.6;
            e->dashed = true;
            e->weight = 2;
        }
        ++stubs;
    }
    // The rewritten program: the layer's clones, with the edges among them.
    size_t cloneCount = 0;
    if (withClones) {
        const Program& rp = *clones.rewritten;
        QHash<OpId, int> cloneNode;
        for (size_t i = 0; i < clones.clones->size() && i < clones.cloneOf->size(); ++i) {
            const OpId orig = (*clones.cloneOf)[i];
            if (orig >= program.ops().size()) continue;
            const int64_t pos = topPos(orig);
            if (pos < 0 || !spec.contains(uint32_t(pos))) continue;
            const OpId c = (*clones.clones)[i];
            if (c >= rp.ops().size()) continue;
            VisualNode n;
            n.key = ModelKey{ModelKey::Kind::Op, c};
            n.shape = NodeShape::RoundedBox;
            n.flags = kFlagBackward | kFlagClone;
            n.title = shortOpName(rp.opName(c));
            n.subtitle = QObject::tr("clone of op #%1").arg(orig);
            n.badge = QStringLiteral("\u21BB clone");
            n.tooltip = QObject::tr("<b>%1</b> · clone (op #%2 of the rewritten program) of op #%3").arg(n.title).arg(c).arg(orig);
            n.width = std::clamp(estimateTextWidth(n.title, 9.5) + 40, 90.0, 200.0);
            n.height = 34;
            n.cluster = cloneCluster;
            cloneNode.insert(c, int(g.nodes.size()));
            g.nodes.push_back(std::move(n));
            ++cloneCount;
        }
        for (auto it = cloneNode.begin(); it != cloneNode.end(); ++it)
            for (ValueId x : rp.op(it.key()).operands) {
                if (x == kNoId || x >= rp.values().size()) continue;
                const OpId def = rp.value(x).definingOp;
                if (def != kNoId && cloneNode.contains(def)) {
                    addEdge(cloneNode.value(def), it.value(), x);
                }
                // Saved inputs of the clones are the ports already drawn: no edge across the view.
            }
    }

    g.engine = LayoutEngine::Dot;
    g.title = QObject::tr("%1 · %2 ops · %3 ports · saved %4 · recomputed %5%6")
                  .arg(spec.name)
                  .arg(nodeOfPos.empty() ? 0 : std::count_if(nodeOfPos.begin(), nodeOfPos.end(), [](int i) { return i >= 0; }))
                  .arg(ports)
                  .arg(formatBytes(double(savedBytes)), formatBytes(double(recomputedBytes)))
                  .arg(heldBytes ? QObject::tr(" · held %1").arg(formatBytes(double(heldBytes))) : QString());
    g.legend.push_back(LegendEntry{pal.fwdFill, pal.fwdBorder, QObject::tr("forward op")});
    g.legend.push_back(LegendEntry{pal.savedFill, pal.savedBorder, QObject::tr("port: saved value (the cut)"), true});
    g.legend.push_back(LegendEntry{pal.recomputed, pal.recomputed, QObject::tr("port: recomputed value"), true});
    g.legend.push_back(LegendEntry{pal.banned, pal.banned, QObject::tr("port: held as is"), true});
    g.legend.push_back(LegendEntry{pal.fwdFill, pal.recomputed, QObject::tr("recomputed op (its region's border is the cut)"), false, true});
    g.legend.push_back(LegendEntry{pal.bwdFill, pal.bwdBorder, QObject::tr("\u2192 backward users (click)")});
    if (cloneCount) g.legend.push_back(LegendEntry{pal.bwdFill, pal.clone, QObject::tr("clone (rewritten)")});
    (void)stubs;
    return g;
}

}  // namespace rx
