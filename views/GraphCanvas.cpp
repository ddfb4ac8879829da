#include "views/GraphCanvas.h"

#include <QApplication>
#include <QContextMenuEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QPainter>
#include <QPushButton>
#include <QScrollBar>
#include <QTimer>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

#include "views/LayoutService.h"

namespace rx {

// ---------------------------------------------------------------- overlays

// The whole scene in a corner, rendered once per layout; the visible area is a rectangle
// that can be dragged.
class Minimap : public QWidget {
public:
    explicit Minimap(GraphCanvas* canvas) : QWidget(canvas->viewport()), canvas_(canvas) {
        setFixedSize(kMaxWidth, kMaxHeight);
        setCursor(Qt::PointingHandCursor);
        setToolTip(QObject::tr("Overview: click or drag to move the view; the ▾ corner folds it"));
    }
    // Full: within 200×140; Small: within 120×84, where the full one would cover the graph;
    // Folded: a tab that unfolds it.
    enum class Form { Full, Small, Folded };
    static constexpr int kMaxWidth = 200, kMaxHeight = 140, kSmallWidth = 120, kSmallHeight = 84, kFolded = 22;
    bool collapsed() const { return form_ == Form::Folded; }
    Form form() const { return form_; }
    void setForm(Form f) {
        if (f == form_) return;
        form_ = f;
        rebuild();
    }
    bool enabledByUser() const { return enabled_; }
    void setEnabledByUser(bool on) {
        enabled_ = on;
        rebuild();
    }
    // Its size in a form: as big as the graph's shape needs within the form's box (a tall graph
    // gets a narrow map).
    QSize sizeFor(Form f) const {
        const QRectF bounds = canvas_->sceneBounds();
        if (f == Form::Folded || bounds.isEmpty()) return QSize(kFolded, kFolded);
        const int maxW = f == Form::Full ? kMaxWidth : kSmallWidth, maxH = f == Form::Full ? kMaxHeight : kSmallHeight;
        const double fitScale = std::min((maxW - 8) / bounds.width(), (maxH - 8) / bounds.height());
        return QSize(std::max(60, int(bounds.width() * fitScale) + 8), std::max(40, int(bounds.height() * fitScale) + 8));
    }
    void rebuild() {
        const QRectF bounds = canvas_->sceneBounds();
        if (bounds.isEmpty() || !enabled_) {
            pixmap_ = QPixmap();
            hide();
            return;
        }
        setFixedSize(sizeFor(form_));
        if (form_ == Form::Folded) {  // a small tab to unfold it
            pixmap_ = QPixmap();
            show();
            update();
            return;
        }
        const double s = std::min((width() - 8) / bounds.width(), (height() - 8) / bounds.height());
        QSize size(std::max(1, int(bounds.width() * s)), std::max(1, int(bounds.height() * s)));
        pixmap_ = QPixmap(size * devicePixelRatioF());
        pixmap_.setDevicePixelRatio(devicePixelRatioF());
        pixmap_.fill(Qt::transparent);
        QPainter p(&pixmap_);
        canvas_->renderScene(&p, QRectF(QPointF(0, 0), QSizeF(size)));
        scale_ = s;
        origin_ = QPointF((width() - size.width()) / 2.0, (height() - size.height()) / 2.0);
        show();
        update();
    }

protected:
    void paintEvent(QPaintEvent*) override {
        QPainter p(this);
        p.setRenderHint(QPainter::Antialiasing);
        const GraphPalette& pal = GraphPalette::current();
        QColor bg = pal.background;
        bg.setAlpha(235);
        p.setPen(QPen(pal.valueBorder, 1));
        p.setBrush(bg);
        p.drawRoundedRect(rect().adjusted(0, 0, -1, -1), 6, 6);
        p.setPen(pal.text);
        if (form_ == Form::Folded) {
            p.drawText(rect(), Qt::AlignCenter, QStringLiteral("\u25b8"));
            return;
        }
        if (pixmap_.isNull()) return;
        p.drawPixmap(origin_, pixmap_);
        p.drawText(foldRect(), Qt::AlignCenter, QStringLiteral("\u25be"));
        const QRectF visible = canvas_->mapToScene(canvas_->viewport()->rect()).boundingRect();
        const QRectF b = canvas_->sceneBounds();
        QRectF r((visible.left() - b.left()) * scale_ + origin_.x(), (visible.top() - b.top()) * scale_ + origin_.y(),
                 visible.width() * scale_, visible.height() * scale_);
        r = r.intersected(QRectF(rect()).adjusted(1, 1, -1, -1));
        QColor sel = pal.selection;
        p.setPen(QPen(sel, 1.5));
        sel.setAlpha(30);
        p.setBrush(sel);
        p.drawRect(r);
    }
    void mousePressEvent(QMouseEvent* e) override {
        if (collapsed() || foldRect().contains(e->position().toPoint())) {
            canvas_->setOverlayCollapsed(GraphCanvas::Overlay::Minimap, !collapsed());  // the user's choice, kept
            return;
        }
        moveTo(e->position());
    }
    void mouseMoveEvent(QMouseEvent* e) override {
        if (!collapsed() && (e->buttons() & Qt::LeftButton)) moveTo(e->position());
    }

private:
    QRect foldRect() const { return QRect(width() - 16, 1, 15, 15); }
    Form form_ = Form::Full;
    bool enabled_ = true;
    void moveTo(QPointF pos) {
        if (scale_ <= 0) return;
        const QRectF b = canvas_->sceneBounds();
        canvas_->centerOn(QPointF((pos.x() - origin_.x()) / scale_ + b.left(), (pos.y() - origin_.y()) / scale_ + b.top()));
    }
    GraphCanvas* canvas_;
    QPixmap pixmap_;
    double scale_ = 0;
    QPointF origin_;
};

class LegendOverlay : public QWidget {
public:
    explicit LegendOverlay(GraphCanvas* canvas) : QWidget(canvas->viewport()), canvas_(canvas) {
        setToolTip(QObject::tr("Click the title to fold or unfold the legend"));
    }
    bool collapsed() const { return collapsed_; }
    void setCollapsed(bool c) {
        if (c == collapsed_) return;
        collapsed_ = c;
        setEntries(entries_, title_);
    }
    bool enabledByUser() const { return enabled_; }
    void setEnabledByUser(bool on) {
        enabled_ = on;
        setEntries(entries_, title_);
    }
    // Its size folded to the title row or open.
    QSize sizeFor(bool folded) const {
        QFont f = font();
        f.setPointSizeF(8.5);
        const QFontMetrics fm(f);
        QFont bold = f;
        bold.setBold(true);
        int w = QFontMetrics(bold).horizontalAdvance(title_) + 40;
        if (!folded)
            for (const auto& e : entries_) w = std::max(w, fm.horizontalAdvance(e.text) + 58);
        return QSize(w, folded ? 26 : 28 + int(entries_.size()) * 18 + 4);
    }
    void setEntries(const std::vector<LegendEntry>& entries, const QString& title) {
        if (&entries != &entries_) entries_ = entries;
        if (&title != &title_) title_ = title;
        QFont f = font();
        f.setPointSizeF(8.5);
        setFont(f);
        setFixedSize(sizeFor(collapsed_));
        setVisible(enabled_ && !entries_.empty());
        update();
    }

protected:
    void paintEvent(QPaintEvent*) override {
        QPainter p(this);
        p.setRenderHint(QPainter::Antialiasing);
        const GraphPalette& pal = GraphPalette::current();
        QColor bg = pal.background;
        bg.setAlpha(235);
        p.setPen(QPen(pal.valueBorder, 1));
        p.setBrush(bg);
        p.drawRoundedRect(rect().adjusted(0, 0, -1, -1), 6, 6);
        QFont bold = font();
        bold.setBold(true);
        p.setFont(bold);
        p.setPen(pal.text);
        p.drawText(QRect(10, 5, width() - 20, 18), Qt::AlignLeft | Qt::AlignVCenter, title_);
        p.drawText(QRect(width() - 22, 5, 16, 18), Qt::AlignCenter, collapsed_ ? QStringLiteral("\u25b8") : QStringLiteral("\u25be"));
        if (collapsed_) return;
        p.setFont(font());
        int y = 28;
        for (const auto& e : entries_) {
            const QRectF sw(10, y + 2, 24, 13);
            if (e.line) {
                p.setPen(QPen(e.border.isValid() ? e.border : e.fill, 2.4));
                p.drawLine(QPointF(sw.left(), sw.center().y()), QPointF(sw.right(), sw.center().y()));
            } else {
                p.setPen(QPen(e.border.isValid() ? e.border : e.fill.darker(130), 1.4));
                p.setBrush(e.fill);
                if (e.ellipse) p.drawEllipse(sw);
                else p.drawRoundedRect(sw, 3, 3);
                if (e.hatched) {
                    p.save();
                    p.setClipRect(sw);
                    p.setPen(QPen(e.border, 1));
                    for (double x = sw.left() - 13; x < sw.right(); x += 5)
                        p.drawLine(QPointF(x, sw.bottom()), QPointF(x + 13, sw.top()));
                    p.restore();
                }
            }
            p.setPen(pal.text);
            p.drawText(QRect(40, y, width() - 46, 17), Qt::AlignLeft | Qt::AlignVCenter, e.text);
            y += 18;
        }
    }

    void mousePressEvent(QMouseEvent* e) override {
        if (e->position().y() < 26) {  // the title row folds it; the rest lets the graph have the click
            canvas_->setOverlayCollapsed(GraphCanvas::Overlay::Legend, !collapsed_);  // the user's choice, kept
            return;
        }
        e->ignore();
    }

private:
    GraphCanvas* canvas_;
    std::vector<LegendEntry> entries_;
    QString title_;
    bool collapsed_ = false;
    bool enabled_ = true;
};

// ---------------------------------------------------------------- GraphCanvas

GraphCanvas::GraphCanvas(const QString& channel, QWidget* parent)
    : QGraphicsView(parent), channel_(channel), scene_(new QGraphicsScene(this)) {
    setScene(scene_);
    setDragMode(QGraphicsView::ScrollHandDrag);
    setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
    setViewportUpdateMode(QGraphicsView::BoundingRectViewportUpdate);
    setOptimizationFlags(QGraphicsView::DontSavePainterState | QGraphicsView::DontAdjustForAntialiasing);
    setRenderHint(QPainter::Antialiasing);
    setRenderHint(QPainter::TextAntialiasing);
    setFrameShape(QFrame::NoFrame);
    setFocusPolicy(Qt::StrongFocus);
    scene_->setItemIndexMethod(QGraphicsScene::BspTreeIndex);

    minimap_ = new Minimap(this);
    minimap_->hide();
    legend_ = new LegendOverlay(this);
    placeTimer_ = new QTimer(this);
    placeTimer_->setSingleShot(true);
    placeTimer_->setInterval(250);
    connect(placeTimer_, &QTimer::timeout, this, [this] {
        // A resized window refits a picture the user has not zoomed since its fit (the widget's
        // size, not the viewport's: scroll bars coming and going must not refit, that loops).
        const bool fittedZoom = fittedScale_ > 0 && std::abs(transform().m11() - fittedScale_) <= 1e-9 * fittedScale_;
        if (fittedZoom && size() != fittedFor_ && !shown_.nodes.empty() && !job_) fitReadable();
        chooseOverlayCorners();
    });
    connect(this, &GraphCanvas::viewChanged, placeTimer_, qOverload<>(&QTimer::start));  // zoom, fit
    legend_->hide();

    busy_ = new QWidget(viewport());
    busy_->setObjectName("layoutBusy");
    busy_->setAutoFillBackground(true);
    auto* bl = new QHBoxLayout(busy_);
    bl->setContentsMargins(10, 4, 6, 4);
    busyLabel_ = new QLabel(busy_);
    auto* cancel = new QPushButton(tr("Cancel"), busy_);
    cancel->setObjectName("cancelLayout");
    bl->addWidget(busyLabel_);
    bl->addWidget(cancel);
    busy_->hide();
    connect(cancel, &QPushButton::clicked, this, &GraphCanvas::cancelLayout);
    busyTimer_ = new QTimer(this);
    busyTimer_->setInterval(100);
    connect(busyTimer_, &QTimer::timeout, this, &GraphCanvas::updateBusy);

    emptyLabel_ = new QLabel(tr("Open a program (Ctrl+O) or drop a .pir file here"), viewport());
    emptyLabel_->setAlignment(Qt::AlignCenter);
    emptyLabel_->setStyleSheet("color: #8c959f; font-size: 13pt;");

    connect(&LayoutService::instance(), &LayoutService::finished, this, &GraphCanvas::onLayoutFinished);
    connect(scene_, &QGraphicsScene::selectionChanged, this, [this] {
        if (selecting_) return;
        const ModelKey k = selectedKey();
        if (k.valid()) Q_EMIT keyActivated(k);
    });
    GraphPalette::refresh();
}

GraphCanvas::~GraphCanvas() {
    if (job_) LayoutService::instance().cancel(job_);
}

void GraphCanvas::showGraph(VisualGraph graph, bool keepView) {
    if (job_) LayoutService::instance().cancel(job_);
    pending_ = std::move(graph);
    keepViewPending_ = keepView;
    emptyLabel_->hide();
    if (pending_.nodes.empty()) {
        job_ = 0;
        build(LayoutResult{true, {}, {}, {}, {}, {}, {}, {}, 0, pending_.engine});
        return;
    }
    job_ = LayoutService::instance().submit(channel_, pending_.toRequest());
    Q_EMIT layoutStarted(int(pending_.nodes.size()));
    busyTimer_->start();
    QTimer::singleShot(150, this, [this] { updateBusy(); });
}

void GraphCanvas::cancelLayout() {
    if (!job_) return;
    LayoutService::instance().cancel(job_);
    job_ = 0;
    busyTimer_->stop();
    busy_->hide();
    Q_EMIT layoutFailed(tr("Layout cancelled"));
}

void GraphCanvas::updateBusy() {
    if (!job_) {
        busy_->hide();
        busyTimer_->stop();
        return;
    }
    const qint64 ms = LayoutService::instance().runningElapsedMs();
    if (ms < 150) return;  // short layouts never flash a banner
    busyLabel_->setText(tr("Laying out %1 nodes · %2 s").arg(pending_.nodes.size()).arg(ms / 1000.0, 0, 'f', 1));
    busy_->adjustSize();
    busy_->show();
    placeOverlays();
}

void GraphCanvas::onLayoutFinished(quint64 job, const QString& channel, const LayoutResult& result) {
    if (channel != channel_ || job != job_) return;
    job_ = 0;
    busyTimer_->stop();
    busy_->hide();
    if (!result.ok) {
        Q_EMIT layoutFailed(result.error);
        return;
    }
    build(result);
}

void GraphCanvas::build(const LayoutResult& result) {
    const ModelKey previous = selectedKey();
    const QPointF oldCenter = mapToScene(viewport()->rect().center());
    const QTransform oldTransform = transform();
    selecting_ = true;
    scene_->clear();
    nodeItems_.clear();
    edgeItems_.clear();
    nodeByKey_.clear();
    edgeByKey_.clear();
    searchHits_.clear();
    shown_ = std::move(pending_);
    pending_ = VisualGraph{};
    lastLayoutMs_ = result.elapsedMs;

    clusterTitles_.clear();
    for (size_t c = 0; c < shown_.clusters.size() && c < result.clusterRect.size(); ++c)
        if (!result.clusterRect[c].isNull()) {
            auto* cluster = new ClusterItem(shown_.clusters[c], result.clusterRect[c]);
            scene_->addItem(cluster);
            if (const QRectF title = cluster->titleRect(); !title.isEmpty()) clusterTitles_.push_back(title);
        }
    nodeItems_.reserve(shown_.nodes.size());
    for (size_t i = 0; i < shown_.nodes.size(); ++i) {
        auto* item = new NodeItem(shown_.nodes[i], int(i));
        if (i < result.nodeCenter.size()) item->setPos(result.nodeCenter[i]);
        scene_->addItem(item);
        nodeItems_.push_back(item);
        if (shown_.nodes[i].key.valid()) nodeByKey_.insert(keyHash(shown_.nodes[i].key), item);
    }
    edgeItems_.reserve(shown_.edges.size());
    for (size_t i = 0; i < shown_.edges.size() && i < result.edgePath.size(); ++i) {
        auto* item = new EdgeItem(shown_.edges[i], int(i), result.edgePath[i], result.edgeIsPolyline[i],
                                  result.edgeArrowTip[i]);
        scene_->addItem(item);
        edgeItems_.push_back(item);
        if (shown_.edges[i].key.valid()) {
            item->setFlags(QGraphicsItem::ItemIsSelectable);
            edgeByKey_.insert(keyHash(shown_.edges[i].key), item);
        }
    }
    const QRectF bounds = result.bounds.isEmpty() ? scene_->itemsBoundingRect() : result.bounds;
    scene_->setSceneRect(bounds.adjusted(-40, -40, 40, 40));
    selecting_ = false;
    legend_->setEntries(shown_.legend, shown_.title);
    emptyLabel_->setVisible(shown_.nodes.empty());
    if (keepViewPending_ && !oldTransform.isIdentity()) {
        setTransform(oldTransform);
        centerOn(oldCenter);
    } else {
        fitReadable();
    }
    if (previous.valid()) selectKey(previous, keepViewPending_);
    minimap_->rebuild();
    chooseOverlayCorners();
    Q_EMIT layoutFinished(result.elapsedMs, int(shown_.nodes.size()));
}

bool GraphCanvas::sameStructure(const VisualGraph& g) const {
    if (job_ || g.nodes.size() != shown_.nodes.size() || g.edges.size() != shown_.edges.size()) return false;
    for (size_t i = 0; i < g.nodes.size(); ++i)
        if (!(g.nodes[i].key == shown_.nodes[i].key) || g.nodes[i].width != shown_.nodes[i].width) return false;
    for (size_t i = 0; i < g.edges.size(); ++i)
        if (g.edges[i].from != shown_.edges[i].from || g.edges[i].to != shown_.edges[i].to) return false;
    return true;
}

void GraphCanvas::restyle(const VisualGraph& g) {
    if (job_ && pending_.nodes.size() == g.nodes.size() && pending_.edges.size() == g.edges.size()) {
        bool same = true;
        for (size_t i = 0; i < g.nodes.size() && same; ++i) same = g.nodes[i].key == pending_.nodes[i].key;
        for (size_t i = 0; i < g.edges.size() && same; ++i) same = g.edges[i].from == pending_.edges[i].from && g.edges[i].to == pending_.edges[i].to;
        if (same) {  // the layout under way fits: only the look changes
            pending_ = g;
            return;
        }
    }
    if (!sameStructure(g)) return showGraph(g, true);
    for (size_t i = 0; i < g.nodes.size(); ++i) nodeItems_[i]->setNode(g.nodes[i]);
    for (size_t i = 0; i < g.edges.size() && i < edgeItems_.size(); ++i) edgeItems_[i]->setEdge(g.edges[i]);
    shown_.nodes = g.nodes;
    shown_.edges = g.edges;
    shown_.legend = g.legend;
    shown_.title = g.title;
    legend_->setEntries(shown_.legend, shown_.title);
    minimap_->rebuild();
    chooseOverlayCorners();
}

void GraphCanvas::flash(const std::vector<ModelKey>& keys) {
    for (const ModelKey& k : keys)
        if (NodeItem* item = nodeByKey_.value(keyHash(k))) item->flash();
}

void GraphCanvas::selectKey(ModelKey key, bool center) {
    selecting_ = true;
    scene_->clearSelection();
    QGraphicsItem* item = nodeByKey_.value(keyHash(key));
    if (!item) item = edgeByKey_.value(keyHash(key));
    if (item) {
        item->setSelected(true);
        if (center && !mapToScene(viewport()->rect()).boundingRect().adjusted(40, 40, -40, -40).contains(item->sceneBoundingRect()))
            centerOn(item);
    }
    selecting_ = false;
}

ModelKey GraphCanvas::selectedKey() const {
    const auto items = scene_->selectedItems();
    for (QGraphicsItem* item : items) {
        if (item->type() == NodeItem::Type) return static_cast<NodeItem*>(item)->node().key;
        if (item->type() == EdgeItem::Type) return static_cast<EdgeItem*>(item)->edge().key;
    }
    return {};
}

int GraphCanvas::search(const QString& text) {
    if (text != lastSearch_) {
        for (int i : searchHits_) nodeItems_[i]->setHighlighted(false);
        searchHits_.clear();
        lastSearch_ = text;
        searchCursor_ = -1;
        if (!text.isEmpty()) {
            for (size_t i = 0; i < shown_.nodes.size(); ++i) {
                const VisualNode& n = shown_.nodes[i];
                if (n.title.contains(text, Qt::CaseInsensitive) || n.subtitle.contains(text, Qt::CaseInsensitive) ||
                    n.tooltip.contains(text, Qt::CaseInsensitive)) {
                    searchHits_.push_back(int(i));
                    nodeItems_[i]->setHighlighted(true);
                }
            }
        }
    }
    if (searchHits_.empty()) return 0;
    searchCursor_ = (searchCursor_ + 1) % int(searchHits_.size());
    NodeItem* item = nodeItems_[searchHits_[searchCursor_]];
    scene_->clearSelection();
    item->setSelected(true);  // emits keyActivated: the search result becomes the selection
    centerOn(item);
    return int(searchHits_.size());
}

QRectF GraphCanvas::sceneBounds() const { return scene_->itemsBoundingRect(); }

void GraphCanvas::renderScene(QPainter* painter, const QRectF& target) {
    scene_->render(painter, target, sceneBounds(), Qt::KeepAspectRatio);
}

void GraphCanvas::fit() {
    const QRectF b = sceneBounds();
    if (b.isEmpty()) return;
    fitInView(b.adjusted(-20, -20, 20, 20), Qt::KeepAspectRatio);
    // Never magnify a tiny graph past 1.6x: it looks like a toy.
    if (transform().m11() > 1.6) setTransform(QTransform::fromScale(1.6, 1.6));
    centerOn(b.center());
    fittedScale_ = transform().m11();
    fittedFor_ = size();
    Q_EMIT viewChanged();
}

double GraphCanvas::nodeTitlePixels() const {
    return kNodeTitlePointSize * viewport()->logicalDpiY() / 72.0 * transform().m11();
}

void GraphCanvas::fitReadable() {
    const QRectF b = sceneBounds();
    if (b.isEmpty()) return;
    fit();
    if (nodeTitlePixels() >= kMinReadablePixels) return;  // the whole graph reads: keep it whole
    const double unit = nodeTitlePixels() / transform().m11();  // title pixels at zoom 1
    const double readable = kMinReadablePixels / unit;
    const double widthFit = (viewport()->width() - 8) / (b.width() + 40);
    if (widthFit >= readable) {
        // Fit the width, scroll the height: the top of the graph (its first layers) first.
        setTransform(QTransform::fromScale(std::min(widthFit, 1.6), std::min(widthFit, 1.6)));
        const double s = transform().m11();
        centerOn(QPointF(b.center().x(), b.top() - 20 + viewport()->height() / 2.0 / s));
    } else {
        // Too wide to read whole: a readable zoom at the focus (the first saved or recomputed
        // node); the minimap shows the rest.
        const double s = std::max(readable, 0.85);
        setTransform(QTransform::fromScale(s, s));
        QPointF focus = b.topLeft() + QPointF(b.width() / 2, 0);
        for (NodeItem* item : nodeItems_)
            if (item->node().flags & (kFlagSaved | kFlagRecomputed)) {
                focus = item->pos();
                break;
            }
        centerOn(focus);
    }
    fittedScale_ = transform().m11();
    fittedFor_ = size();
    minimap_->update();
    Q_EMIT viewChanged();
}

void GraphCanvas::zoomBy(double factor) {
    const double s = transform().m11() * factor;
    if (s < 0.01 || s > 8) return;
    scale(factor, factor);
    minimap_->update();
    Q_EMIT viewChanged();
}

void GraphCanvas::wheelEvent(QWheelEvent* event) {
    if (event->modifiers() & Qt::ShiftModifier) return QGraphicsView::wheelEvent(event);
    const double steps = event->angleDelta().y() / 120.0;
    zoomBy(std::pow(1.18, steps));
    event->accept();
}

void GraphCanvas::keyPressEvent(QKeyEvent* event) {
    switch (event->key()) {
    case Qt::Key_Plus:
    case Qt::Key_Equal: zoomBy(1.25); return;
    case Qt::Key_Minus: zoomBy(0.8); return;
    case Qt::Key_F:
        if (event->modifiers() == Qt::NoModifier) { fit(); return; }
        break;
    case Qt::Key_Escape: cancelLayout(); return;
    default: break;
    }
    QGraphicsView::keyPressEvent(event);
}

ModelKey GraphCanvas::keyAt(QPoint pos) const {
    for (QGraphicsItem* item : items(pos)) {
        if (item->type() == NodeItem::Type) return static_cast<NodeItem*>(item)->node().key;
        if (item->type() == EdgeItem::Type) return static_cast<EdgeItem*>(item)->edge().key;
    }
    return {};
}

void GraphCanvas::mouseDoubleClickEvent(QMouseEvent* event) {
    const ModelKey k = keyAt(event->pos());
    if (k.valid()) {
        Q_EMIT keyDoubleClicked(k);
        return;
    }
    QGraphicsView::mouseDoubleClickEvent(event);
}

void GraphCanvas::contextMenuEvent(QContextMenuEvent* event) {
    const ModelKey k = keyAt(event->pos());
    if (k.valid()) {
        selectKey(k, false);
        Q_EMIT keyActivated(k);
    }
    Q_EMIT keyContextMenu(k, event->globalPos());
}

void GraphCanvas::resizeEvent(QResizeEvent* event) {
    QGraphicsView::resizeEvent(event);
    placeOverlays();      // kept in their corners while the size changes
    placeTimer_->start();  // and, once it rests, a fitted picture refitted and the corners chosen again
}

void GraphCanvas::scrollContentsBy(int dx, int dy) {
    QGraphicsView::scrollContentsBy(dx, dy);
    // Scrolling the viewport moves its child widgets too: put the overlays back in their
    // corners now, and choose the corners again once the view rests.
    placeOverlays();
    minimap_->update();
    placeTimer_->start();
}

void GraphCanvas::setOverlayShown(Overlay which, bool shown) {
    if (which == Overlay::Minimap) minimap_->setEnabledByUser(shown);
    else legend_->setEnabledByUser(shown);
    overlaysChanged();
}

void GraphCanvas::setOverlayCollapsed(Overlay which, bool collapsed) {
    userCollapsed_[int(which)] = collapsed;
    if (which == Overlay::Minimap) minimap_->setForm(collapsed ? Minimap::Form::Folded : Minimap::Form::Full);
    else legend_->setCollapsed(collapsed);
    overlaysChanged();
}

bool GraphCanvas::overlayCollapsed(Overlay which) const {
    return which == Overlay::Minimap ? minimap_->collapsed() : legend_->collapsed();
}

void GraphCanvas::overlaysChanged() {
    chooseOverlayCorners();
}

int GraphCanvas::nodesUnder(const QRect& viewRect) const {
    int n = 0;
    for (QGraphicsItem* item : scene_->items(mapToScene(viewRect), Qt::IntersectsItemBoundingRect))
        if (item->type() == NodeItem::Type) ++n;
    return n;
}

int GraphCanvas::itemsUnder(const QRect& viewRect) const {
    const QRectF area = mapToScene(viewRect).boundingRect();
    return nodesUnder(viewRect) + int(std::count_if(clusterTitles_.begin(), clusterTitles_.end(), [&](const QRectF& t) { return t.intersects(area); }));
}

void GraphCanvas::chooseOverlayCorners() {
    // Every placement of the two overlays (corner × form) that keeps them apart, scored by what
    // they hide (nodes, cluster titles), then by how much smaller than whole they are, then by
    // the usual corners (the legend bottom-left, the minimap bottom-right).
    const QRect vp = viewport()->rect();
    auto cornerRect = [&](QSize size, int corner) {  // corner bit 1: right, bit 2: bottom
        const int x = (corner & 1) ? vp.right() - size.width() - 10 : 10;
        const int y = (corner & 2) ? vp.bottom() - size.height() - 10 : 10;
        return QRect(QPoint(x, y), size);
    };
    struct Placement {
        int corner = 0, form = 0;
        QRect rect;
        double cost = 0;
    };
    // Forms: the minimap Full, Small, Folded (Minimap::Form); the legend open (0) or folded (2).
    // The minimap may fold where the picture is the fitted one and shows the graph's whole width
    // (whole, or scrolled down only); zoomed in, or at a readable zoom on a wide graph, it is
    // the way around.
    const bool fitted = fittedScale_ > 0 && std::abs(transform().m11() - fittedScale_) <= 1e-9 * fittedScale_ &&
                        mapFromScene(sceneBounds()).boundingRect().width() <= vp.width() + 2;
    auto placements = [&](Overlay which, std::initializer_list<int> cornerOrder) {
        std::vector<int> forms;
        const std::optional<bool> user = userCollapsed_[int(which)];
        if (which == Overlay::Minimap) {
            if (user != true) forms = {int(Minimap::Form::Full), int(Minimap::Form::Small)};
            // Zoomed in, the minimap is how one gets around: it folds only at a fitted whole width.
            if (user == true || (!user && fitted)) forms.push_back(int(Minimap::Form::Folded));
        } else {
            if (user != true) forms.push_back(0);
            if (user != false) forms.push_back(2);
        }
        std::vector<Placement> out;
        int preference = 0;
        for (int corner : cornerOrder) {
            for (int form : forms) {
                const QSize size = which == Overlay::Minimap ? minimap_->sizeFor(Minimap::Form(form)) : legend_->sizeFor(form == 2);
                const QRect r = cornerRect(size, corner);
                out.push_back(Placement{corner, form, r, 1000.0 * itemsUnder(r) + 10.0 * form + preference});
            }
            ++preference;
        }
        return out;
    };
    const bool legendShown = legend_->enabledByUser() && !shown_.legend.empty();
    const bool minimapShown = minimap_->enabledByUser() && !sceneBounds().isEmpty();
    const std::vector<Placement> legendOptions = legendShown ? placements(Overlay::Legend, {2, 0, 3, 1}) : std::vector<Placement>{Placement{2, legend_->collapsed() ? 2 : 0, QRect(), 0}};
    const std::vector<Placement> minimapOptions = minimapShown ? placements(Overlay::Minimap, {3, 1, 2, 0}) : std::vector<Placement>{Placement{3, int(minimap_->form()), QRect(), 0}};
    const Placement* bestLegend = nullptr;
    const Placement* bestMinimap = nullptr;
    double best = 0;
    for (const Placement& l : legendOptions)
        for (const Placement& m : minimapOptions) {
            if (legendShown && minimapShown && l.rect.intersects(m.rect)) continue;
            if (!bestLegend || l.cost + m.cost < best) {
                best = l.cost + m.cost;
                bestLegend = &l;
                bestMinimap = &m;
            }
        }
    if (!bestLegend) {  // a view too small to keep both apart: the minimap folds, the legend stays
        legendCorner_ = 2;
        minimapCorner_ = 1;
        if (minimapShown) minimap_->setForm(Minimap::Form::Folded);
        placeOverlays();
        return;
    }
    legendCorner_ = bestLegend->corner;
    minimapCorner_ = bestMinimap->corner;
    if (legendShown) legend_->setCollapsed(bestLegend->form == 2);
    if (minimapShown) minimap_->setForm(Minimap::Form(bestMinimap->form));
    placeOverlays();
}

void GraphCanvas::refreshPalette() {
    scene_->update();
    viewport()->update();
    minimap_->rebuild();
    if (shown_.nodes.empty()) minimap_->hide();
    legend_->update();
}

QWidget* GraphCanvas::legendWidget() const { return legend_; }
QWidget* GraphCanvas::minimapWidget() const { return minimap_; }

void GraphCanvas::drawBackground(QPainter* painter, const QRectF& rect) {
    painter->fillRect(rect, GraphPalette::current().background);
}

void GraphCanvas::placeOverlays() {
    const QRect vp = viewport()->rect();
    auto place = [&](QWidget* w, int corner) {
        w->move((corner & 1) ? vp.right() - w->width() - 10 : 10, (corner & 2) ? vp.bottom() - w->height() - 10 : 10);
    };
    place(minimap_, minimapCorner_);
    place(legend_, legendCorner_);
    busy_->move((vp.width() - busy_->width()) / 2, 10);
    emptyLabel_->setGeometry(vp);
}

}  // namespace rx
