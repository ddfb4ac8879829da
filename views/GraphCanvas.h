#pragma once
// A QGraphicsView over one laid-out VisualGraph: zoom (wheel, +/-), pan (drag), fit (F),
// a minimap in the corner, a legend, search highlighting, and a busy overlay with cancel
// while LayoutService works. The old picture stays until the new layout arrives.
#include <QGraphicsView>
#include <QHash>
#include <QPointer>
#include <optional>
#include <vector>

#include "views/GraphItems.h"
#include "views/VisualGraph.h"

class QLabel;
class QPushButton;
class QTimer;

namespace rx {

class Minimap;
class LegendOverlay;

inline quint64 keyHash(ModelKey k) { return (quint64(k.kind) << 32) | k.id; }

class GraphCanvas : public QGraphicsView {
    Q_OBJECT
public:
    explicit GraphCanvas(const QString& channel, QWidget* parent = nullptr);
    ~GraphCanvas() override;

    // Lays out and shows `graph` (asynchronously). `keepView`: keep zoom/centre on the
    // selection instead of fitting.
    void showGraph(VisualGraph graph, bool keepView = false);
    // Same nodes and edges, new look (after a re-solve): no relayout.
    void restyle(const VisualGraph& graph);
    bool sameStructure(const VisualGraph& graph) const;
    void flash(const std::vector<ModelKey>& keys);

    void selectKey(ModelKey key, bool centerOn = true);
    ModelKey selectedKey() const;
    // Highlights nodes whose title/subtitle contains `text`; selects the next match after the
    // current selection. Returns the number of matches.
    int search(const QString& text);

    void fit();
    // The first picture of a graph: fit the whole when its node titles read at that zoom,
    // else fit the width and scroll the height, else a readable zoom at the focus; never
    // titles under kMinReadablePixels on screen. Resized before any zoom, it fits again.
    void fitReadable();
    static constexpr double kMinReadablePixels = 9.0;
    // A node title's em height on screen at the current zoom, in device-independent pixels.
    double nodeTitlePixels() const;
    // After a palette change: repaint items, minimap and legend in the new colours.
    void refreshPalette();
    QWidget* legendWidget() const;
    QWidget* minimapWidget() const;
    // The minimap and the legend: shown or not (View menu), folded to their title or not
    // (a click on the title: the user's choice, kept). Each sits where the graph is not: the
    // corner (and, for the minimap, the size) where it hides the fewest nodes and cluster
    // titles, chosen again after each layout, fit, zoom, scroll and resize. Where every corner
    // would hide some, an overlay the user has not opened folds to its title (the minimap only
    // where the fitted picture shows the graph's whole width: zoomed in, it is the way around
    // and stays, as small as it gets).
    enum class Overlay { Minimap, Legend };
    void setOverlayShown(Overlay which, bool shown);
    void setOverlayCollapsed(Overlay which, bool collapsed);
    bool overlayCollapsed(Overlay which) const;
    void overlaysChanged();  // an overlay changed size: choose corners again
    // Nodes whose bounding box a rectangle of the viewport covers.
    int nodesUnder(const QRect& viewRect) const;
    // Nodes and cluster titles (what the overlays keep off) under a rectangle of the viewport.
    int itemsUnder(const QRect& viewRect) const;
    // The clusters' titles as drawn, in scene coordinates.
    const std::vector<QRectF>& clusterTitleRects() const { return clusterTitles_; }
    void zoomBy(double factor);
    void cancelLayout();
    bool isLayingOut() const { return job_ != 0; }
    const VisualGraph& graph() const { return shown_; }
    double lastLayoutMs() const { return lastLayoutMs_; }
    int itemCountForNodes() const { return int(nodeItems_.size()); }
    NodeItem* nodeItem(ModelKey key) const { return nodeByKey_.value(keyHash(key)); }
    // Renders the whole scene (for export) into a painter target rect.
    void renderScene(QPainter* painter, const QRectF& target);
    QRectF sceneBounds() const;

Q_SIGNALS:
    void keyActivated(rx::ModelKey key);
    void keyDoubleClicked(rx::ModelKey key);
    void keyContextMenu(rx::ModelKey key, QPoint globalPos);
    void layoutStarted(int nodes);
    void layoutFinished(double ms, int nodes);
    void layoutFailed(const QString& message);
    void viewChanged();

protected:
    void wheelEvent(QWheelEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void contextMenuEvent(QContextMenuEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void scrollContentsBy(int dx, int dy) override;
    void drawBackground(QPainter* painter, const QRectF& rect) override;

private:
    void onLayoutFinished(quint64 job, const QString& channel, const rx::LayoutResult& result);
    void build(const LayoutResult& result);
    void placeOverlays();
    void chooseOverlayCorners();
    void updateBusy();
    ModelKey keyAt(QPoint viewPos) const;

    QString channel_;
    QGraphicsScene* scene_;
    VisualGraph pending_;
    VisualGraph shown_;
    bool keepViewPending_ = false;
    quint64 job_ = 0;
    double lastLayoutMs_ = 0;
    std::vector<NodeItem*> nodeItems_;
    std::vector<EdgeItem*> edgeItems_;
    QHash<quint64, NodeItem*> nodeByKey_;
    QHash<quint64, EdgeItem*> edgeByKey_;
    std::vector<int> searchHits_;
    QString lastSearch_;
    int searchCursor_ = -1;
    bool selecting_ = false;
    Minimap* minimap_;
    LegendOverlay* legend_;
    QTimer* placeTimer_;
    int minimapCorner_ = 3, legendCorner_ = 2;  // bit 1: right, bit 2: bottom
    // The user's fold for each overlay (by Overlay): unset = the canvas chooses.
    std::optional<bool> userCollapsed_[2];
    double fittedScale_ = 0;  // the zoom fit()/fitReadable() chose last
    QSize fittedFor_;         // and the widget's size then
    std::vector<QRectF> clusterTitles_;
    QWidget* busy_;
    QLabel* busyLabel_;
    QTimer* busyTimer_;
    QLabel* emptyLabel_;
};

}  // namespace rx
