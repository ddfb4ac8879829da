#include "views/GraphItems.h"

#include <QApplication>
#include <QGraphicsScene>
#include <QPainter>
#include <QPalette>
#include <QStyleOptionGraphicsItem>
#include <QVariantAnimation>
#include <cmath>

namespace rx {

namespace {

GraphPalette makePalette(bool dark) {
    GraphPalette p;
    if (!dark) {
        p.background = QColor("#fafbfc");
        p.text = QColor("#1f2328");
        p.mutedText = QColor("#57606a");
        p.fwdFill = QColor("#e8f1fd");
        p.fwdBorder = QColor("#3b82f6");
        p.bwdFill = QColor("#fff4e5");
        p.bwdBorder = QColor("#f59e0b");
        p.valueFill = QColor("#ffffff");
        p.valueBorder = QColor("#8c959f");
        p.savedFill = QColor("#16a34a");
        p.savedBorder = QColor("#166534");
        p.recomputed = QColor("#9333ea");
        p.clone = QColor("#c026d3");
        p.cut = QColor("#dc2626");
        p.infEdge = QColor("#b6bcc4");
        p.edge = QColor("#6e7781");
        p.sourceSide = QColor("#dcfce7");
        p.sinkSide = QColor("#f1f5f9");
        p.banned = QColor("#64748b");
        p.pinned = QColor("#0ea5e9");
        p.groupFill = QColor("#eef2f7");
        p.groupBorder = QColor("#64748b");
        p.selection = QColor("#2563eb");
        p.clusterFwd = QColor(59, 130, 246, 18);
        p.clusterBwd = QColor(245, 158, 11, 20);
    } else {
        p.background = QColor("#1e1f22");
        p.text = QColor("#e6edf3");
        p.mutedText = QColor("#9da7b3");
        p.fwdFill = QColor("#1d3357");
        p.fwdBorder = QColor("#60a5fa");
        p.bwdFill = QColor("#43300f");
        p.bwdBorder = QColor("#fbbf24");
        p.valueFill = QColor("#2b2d31");
        p.valueBorder = QColor("#8b949e");
        p.savedFill = QColor("#22c55e");
        p.savedBorder = QColor("#86efac");
        p.recomputed = QColor("#c084fc");
        p.clone = QColor("#e879f9");
        p.cut = QColor("#f87171");
        p.infEdge = QColor("#4b5563");
        p.edge = QColor("#9ca3af");
        p.sourceSide = QColor("#14532d");
        p.sinkSide = QColor("#1f2937");
        p.banned = QColor("#94a3b8");
        p.pinned = QColor("#38bdf8");
        p.groupFill = QColor("#2a2f38");
        p.groupBorder = QColor("#94a3b8");
        p.selection = QColor("#60a5fa");
        p.clusterFwd = QColor(96, 165, 250, 22);
        p.clusterBwd = QColor(251, 191, 36, 22);
    }
    return p;
}

GraphPalette& paletteStorage() {
    static GraphPalette p = makePalette(false);
    return p;
}

double lod(QPainter* painter) {
    return QStyleOptionGraphicsItem::levelOfDetailFromTransform(painter->worldTransform());
}

QColor readableOn(const QColor& fill) {
    return fill.lightnessF() < 0.55 ? QColor(Qt::white) : QColor("#1f2328");
}

}  // namespace

const GraphPalette& GraphPalette::current() { return paletteStorage(); }

void GraphPalette::refresh() {
    bool dark = false;
    if (qApp) dark = qApp->palette().color(QPalette::Window).lightnessF() < 0.45;
    paletteStorage() = makePalette(dark);
}

// ---------------------------------------------------------------- NodeItem

NodeItem::NodeItem(const VisualNode& node, int index) : node_(node), index_(index) {
    setFlags(ItemIsSelectable);
    setToolTip(node.tooltip);
    setZValue(node.shape == NodeShape::Group ? 1 : 2);
}

void NodeItem::setNode(const VisualNode& node) {
    node_ = node;
    setToolTip(node.tooltip);
    update();
}

QRectF NodeItem::boundingRect() const {
    const double w = node_.width, h = node_.height;
    return QRectF(-w / 2 - 6, -h / 2 - 6, w + 12, h + 12);
}

QPainterPath NodeItem::shape() const {
    QPainterPath p;
    const QRectF r(-node_.width / 2, -node_.height / 2, node_.width, node_.height);
    if (node_.shape == NodeShape::Ellipse) p.addEllipse(r);
    else p.addRect(r);
    return p;
}

void NodeItem::setHighlighted(bool on) {
    highlighted_ = on;
    update();
}

NodeItem::~NodeItem() {
    // A running flash must not call back into a deleted item (scenes are cleared on relayout).
    if (flashAnimation_) flashAnimation_->stop();
}

void NodeItem::flash() {
    if (flashAnimation_) flashAnimation_->stop();
    auto* anim = new QVariantAnimation();
    flashAnimation_ = anim;
    anim->setStartValue(1.0);
    anim->setEndValue(0.0);
    anim->setDuration(1200);
    anim->setEasingCurve(QEasingCurve::InQuad);
    QGraphicsScene* s = scene();
    QObject::connect(anim, &QVariantAnimation::valueChanged, anim, [this, s](const QVariant& v) {
        if (scene() == s) setFlashLevel(v.toDouble());
    });
    if (s) QObject::connect(s, &QObject::destroyed, anim, &QObject::deleteLater);
    anim->start(QAbstractAnimation::DeleteWhenStopped);
}

void NodeItem::paint(QPainter* painter, const QStyleOptionGraphicsItem*, QWidget*) {
    const GraphPalette& pal = GraphPalette::current();
    const double detail = lod(painter);
    const QRectF r(-node_.width / 2, -node_.height / 2, node_.width, node_.height);
    const uint32_t f = node_.flags;
    const bool bwd = f & kFlagBackward;

    QColor fill, border;
    double borderWidth = 1.2;
    Qt::PenStyle borderStyle = Qt::SolidLine;
    switch (node_.shape) {
    case NodeShape::Ellipse:
        fill = (f & kFlagSaved) ? pal.savedFill : pal.valueFill;
        border = (f & kFlagSaved) ? pal.savedBorder : pal.valueBorder;
        if (f & kFlagPinned) { border = pal.pinned; borderWidth = 2.4; }
        break;
    case NodeShape::Group:
        fill = pal.groupFill;
        border = bwd ? pal.bwdBorder : pal.fwdBorder;
        borderWidth = 1.6;
        break;
    case NodeShape::NetPair:
        fill = (f & kFlagSourceSide) ? pal.sourceSide : pal.sinkSide;
        border = (f & kFlagSaved) ? pal.cut : pal.valueBorder;
        if (f & kFlagSaved) borderWidth = 2.2;
        break;
    case NodeShape::RoundedBox:
        fill = bwd ? pal.bwdFill : pal.fwdFill;
        border = bwd ? pal.bwdBorder : pal.fwdBorder;
        if (f & kFlagRecomputed) { border = pal.recomputed; borderWidth = 2; }
        if (f & kFlagClone) { border = pal.clone; borderWidth = 2; borderStyle = Qt::DashLine; }
        if ((f & kFlagPinned) && !(f & (kFlagRecomputed | kFlagClone))) { border = pal.pinned; borderWidth = 2.4; }
        if (f & kFlagStub) borderStyle = Qt::DotLine;
        break;
    }
    if (node_.fill.isValid()) fill = node_.fill;
    if (f & kFlagDimmed) { fill.setAlphaF(0.35); border.setAlphaF(0.35); }
    if (flash_ > 0) {  // blend toward amber while a changed-side flash runs
        const QColor hot("#facc15");
        fill = QColor::fromRgbF(fill.redF() + (hot.redF() - fill.redF()) * flash_,
                                fill.greenF() + (hot.greenF() - fill.greenF()) * flash_,
                                fill.blueF() + (hot.blueF() - fill.blueF()) * flash_, 1.0);
    }

    if (detail < 0.25) {  // far away: a flat block is all the eye can use
        painter->fillRect(r, isSelected() ? pal.selection : border);
        return;
    }
    painter->setRenderHint(QPainter::Antialiasing, detail > 0.5);
    QPen pen(isSelected() ? pal.selection : border, isSelected() ? borderWidth + 1.8 : borderWidth, borderStyle);
    if (highlighted_) { pen.setColor(QColor("#eab308")); pen.setWidthF(3); }
    painter->setPen(pen);
    painter->setBrush(fill);
    const double radius = std::min(6.0, r.height() / 3);
    if (node_.shape == NodeShape::Ellipse) painter->drawEllipse(r);
    else if (node_.shape == NodeShape::Group) {
        painter->drawRoundedRect(r, radius, radius);
        // stacked look: a second outline offset behind
        painter->setPen(QPen(border, 1));
        painter->setBrush(Qt::NoBrush);
        painter->drawLine(QPointF(r.left() + 4, r.bottom() + 3), QPointF(r.right() + 3, r.bottom() + 3));
        painter->drawLine(QPointF(r.right() + 3, r.top() + 4), QPointF(r.right() + 3, r.bottom() + 3));
    } else painter->drawRoundedRect(r, radius, radius);

    if ((f & kFlagRecomputed) && detail > 0.35) {
        QColor hatch = pal.recomputed;
        hatch.setAlpha(70);
        painter->save();
        QPainterPath clip;
        clip.addRoundedRect(r, radius, radius);
        painter->setClipPath(clip);
        painter->setPen(QPen(hatch, 1.2));
        for (double x = r.left() - r.height(); x < r.right(); x += 7)
            painter->drawLine(QPointF(x, r.bottom()), QPointF(x + r.height(), r.top()));
        painter->restore();
    }
    if (f & kFlagBanned && detail > 0.35) {
        painter->setPen(QPen(pal.banned, 1.4));
        const QPointF c = r.topLeft() + QPointF(6, 6);
        painter->drawEllipse(c, 3.5, 3.5);
        painter->drawLine(c + QPointF(-2.5, 2.5), c + QPointF(2.5, -2.5));
    }
    // Flow-network badges: S (∞ edge from the source) left, T (edge to the sink) right.
    auto badge = [&](QPointF at, const QColor& c, const QString& t) {
        painter->setPen(Qt::NoPen);
        painter->setBrush(c);
        painter->drawEllipse(at, 7, 7);
        if (detail > 0.5) {
            painter->setPen(Qt::white);
            QFont bf = painter->font();
            bf.setPointSizeF(6.5);
            bf.setBold(true);
            painter->setFont(bf);
            painter->drawText(QRectF(at.x() - 7, at.y() - 7, 14, 14), Qt::AlignCenter, t);
        }
    };
    // Ports (layer view): the values the backward needs, as dots on the lower border.
    if (!node_.ports.empty() && detail > 0.3) {
        const double step = r.width() / double(node_.ports.size() + 1);
        painter->setPen(QPen(pal.background, 1.2));
        for (size_t i = 0; i < node_.ports.size(); ++i) {
            painter->setBrush(node_.ports[i].color);
            painter->drawEllipse(QPointF(r.left() + step * double(i + 1), r.bottom()), 5, 5);
        }
    }
    if (f & kFlagSourceBadge) badge(QPointF(r.left(), r.top()), QColor("#16a34a"), "S");
    if (f & kFlagSinkBadge) badge(QPointF(r.right(), r.top()), QColor("#475569"), "T");

    if (detail < 0.45) return;  // text only when it can be read
    QColor textColor = readableOn(fill);
    if (f & kFlagDimmed) textColor.setAlphaF(0.45);
    QFont font = painter->font();
    font.setPointSizeF(kNodeTitlePointSize);
    font.setBold(node_.shape != NodeShape::Ellipse || (f & kFlagSaved));
    painter->setFont(font);
    painter->setPen(textColor);
    const QRectF inner = r.adjusted(6, 2, -6, -2);
    if (node_.subtitle.isEmpty() || detail < 0.7) {
        painter->drawText(inner, Qt::AlignCenter, painter->fontMetrics().elidedText(node_.title, Qt::ElideMiddle, int(inner.width())));
    } else {
        const QRectF top(inner.left(), inner.top(), inner.width(), inner.height() * 0.55);
        const QRectF bottom(inner.left(), inner.top() + inner.height() * 0.5, inner.width(), inner.height() * 0.5);
        painter->drawText(top, Qt::AlignHCenter | Qt::AlignBottom,
                          painter->fontMetrics().elidedText(node_.title, Qt::ElideMiddle, int(inner.width())));
        font.setBold(false);
        font.setPointSizeF(7.2);
        painter->setFont(font);
        QColor sub = textColor;
        sub.setAlphaF(textColor.alphaF() * 0.75);
        painter->setPen(sub);
        painter->drawText(bottom, Qt::AlignHCenter | Qt::AlignTop,
                          painter->fontMetrics().elidedText(node_.subtitle, Qt::ElideRight, int(inner.width())));
    }
    if (!node_.badge.isEmpty()) {
        QFont bf = painter->font();
        bf.setPointSizeF(6.8);
        bf.setBold(true);
        painter->setFont(bf);
        const double bw = painter->fontMetrics().horizontalAdvance(node_.badge) + 8;
        const QRectF br(r.right() - bw + 4, r.top() - 7, bw, 13);
        QColor bc = (f & kFlagClone) ? pal.clone : (f & kFlagRecomputed) ? pal.recomputed : (f & kFlagPinned) ? pal.pinned : border;
        painter->setPen(Qt::NoPen);
        painter->setBrush(bc);
        painter->drawRoundedRect(br, 6, 6);
        painter->setPen(Qt::white);
        painter->drawText(br, Qt::AlignCenter, node_.badge);
    }
}

// ---------------------------------------------------------------- EdgeItem

EdgeItem::EdgeItem(const VisualEdge& edge, int index, const std::vector<QPointF>& pts, bool polyline,
                   QPointF arrowTip)
    : edge_(edge), index_(index) {
    setZValue(zFor(edge));
    if (!edge.label.isEmpty()) setToolTip(edge.label);
    if (pts.empty()) return;
    path_.moveTo(pts[0]);
    if (polyline || pts.size() % 3 != 1) {
        for (size_t i = 1; i < pts.size(); ++i) path_.lineTo(pts[i]);
    } else {
        for (size_t i = 1; i + 2 < pts.size(); i += 3) path_.cubicTo(pts[i], pts[i + 1], pts[i + 2]);
    }
    // Arrow head from the path's end to the tip (dot leaves room for it).
    const QPointF end = pts.back();
    QPointF dir = arrowTip - end;
    double len = std::hypot(dir.x(), dir.y());
    QPointF tip = arrowTip;
    if (len < 1) {  // no room reserved: point along the last segment
        const QPointF prev = path_.pointAtPercent(0.97);
        dir = end - prev;
        len = std::hypot(dir.x(), dir.y());
        tip = end;
        if (len < 1e-6) len = 1;
        dir = dir / len * 8.0;
        len = 8;
    }
    const QPointF u = dir / len, nrm(-u.y(), u.x());
    const QPointF base = tip - u * std::min(len, 9.0);
    arrow_ << tip << base + nrm * 3.6 << base - nrm * 3.6;
    labelPos_ = path_.pointAtPercent(0.5);
    updateBounds();
}

double EdgeItem::zFor(const VisualEdge& edge) {
    // A multi-line label is wider than the gap its edge spans: drawn above the nodes it reads whole.
    return edge.label.contains(QLatin1Char('\n')) ? 3 : edge.cut ? 1.5 : 0;
}

void EdgeItem::updateBounds() {
    bounds_ = path_.boundingRect().united(arrow_.boundingRect()).adjusted(-4, -4, 4, 4);
    // The label box is centred on the path's middle (a comparison label can be long).
    double longest = 0;
    const QStringList lines = edge_.label.split('\n');
    for (const QString& line : lines) longest = std::max(longest, estimateTextWidth(line, 7.2));
    const double half = std::max(40.0, longest / 2 + 8), halfHeight = 10 + 6.0 * double(lines.size() - 1);
    if (!edge_.label.isEmpty()) bounds_ = bounds_.united(QRectF(labelPos_ - QPointF(half, halfHeight), QSizeF(2 * half, 2 * halfHeight)));
}

void EdgeItem::setEdge(const VisualEdge& edge) {
    if (edge.label != edge_.label) {
        prepareGeometryChange();
        edge_ = edge;
        updateBounds();
        setToolTip(edge.label);
    }
    edge_ = edge;
    setZValue(zFor(edge));
    update();
}

QPainterPath EdgeItem::shape() const {
    QPainterPathStroker stroker;
    stroker.setWidth(6);
    return stroker.createStroke(path_);
}

void EdgeItem::paint(QPainter* painter, const QStyleOptionGraphicsItem*, QWidget*) {
    const GraphPalette& pal = GraphPalette::current();
    const double detail = lod(painter);
    QColor c = edge_.color.isValid() ? edge_.color : edge_.cut ? pal.cut : edge_.infinite ? pal.infEdge : pal.edge;
    double w = edge_.cut ? 2.6 : edge_.infinite ? 0.9 : edge_.width;
    if (isSelected()) { c = pal.selection; w += 1.5; }
    QPen pen(c, w, edge_.dashed ? Qt::DashLine : edge_.infinite ? Qt::DotLine : Qt::SolidLine);
    pen.setCosmetic(detail < 0.3);
    painter->setRenderHint(QPainter::Antialiasing, detail > 0.5);
    painter->setPen(pen);
    painter->setBrush(Qt::NoBrush);
    painter->drawPath(path_);
    if (detail < 0.3) return;
    painter->setPen(Qt::NoPen);
    painter->setBrush(c);
    painter->drawPolygon(arrow_);
    if (!edge_.label.isEmpty() && detail > 0.55) {
        QFont font = painter->font();
        font.setPointSizeF(7.2);
        font.setBold(edge_.cut);
        painter->setFont(font);
        const QFontMetricsF fm(font);
        // A label may hold lines ('\n'): the box fits the longest, centred on the path's middle.
        const QStringList lines = edge_.label.split('\n');
        double longest = 0;
        for (const QString& line : lines) longest = std::max(longest, fm.horizontalAdvance(line));
        const double tw = longest + 6, th = 2 + fm.height() * double(lines.size());
        const QRectF box(labelPos_.x() - tw / 2, labelPos_.y() - th / 2, tw, th);
        QColor bg = pal.background;
        bg.setAlpha(225);
        painter->setBrush(bg);
        painter->setPen(edge_.cut ? QPen(pal.cut, 1) : Qt::NoPen);
        painter->drawRoundedRect(box, 3, 3);
        // A multi-line label (a layer's two plans side by side) speaks in its edge's colour.
        painter->setPen(edge_.cut ? pal.cut : lines.size() > 1 && edge_.color.isValid() ? edge_.color.darker(130) : pal.mutedText);
        painter->drawText(box, Qt::AlignCenter, edge_.label);
    }
}

// ---------------------------------------------------------------- ClusterItem

ClusterItem::ClusterItem(const VisualCluster& cluster, QRectF rect) : cluster_(cluster), rect_(rect) {
    setZValue(-10);
}

void ClusterItem::paint(QPainter* painter, const QStyleOptionGraphicsItem*, QWidget*) {
    const GraphPalette& pal = GraphPalette::current();
    painter->setRenderHint(QPainter::Antialiasing);
    QColor border = cluster_.fill;
    border.setAlpha(140);
    painter->setPen(QPen(border, 1, Qt::DashLine));
    painter->setBrush(cluster_.fill);
    painter->drawRoundedRect(rect_, 10, 10);
    if (lod(painter) < 0.15) return;
    painter->setFont(titleFont());
    painter->setPen(pal.mutedText);
    painter->drawText(rect_.adjusted(10, 4, -10, -4), Qt::AlignLeft | Qt::AlignTop, cluster_.label);
}

QFont ClusterItem::titleFont() const {
    QFont font = QApplication::font();
    font.setPointSizeF(10);
    font.setBold(true);
    return font;
}

QRectF ClusterItem::titleRect() const {
    if (cluster_.label.isEmpty()) return {};
    const QFontMetricsF fm(titleFont());
    const QRectF room = rect_.adjusted(10, 4, -10, -4);
    return QRectF(room.topLeft(), QSizeF(std::min(room.width(), fm.horizontalAdvance(cluster_.label)), std::min(room.height(), fm.height())));
}

}  // namespace rx
