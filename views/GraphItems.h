#pragma once
// Graphics items drawn from a layout: nodes, spline edges with arrow heads, clusters.
// Each draws less when zoomed out (level of detail) so 10k items stay smooth.
#include <QFont>
#include <QGraphicsItem>
#include <QPointer>
#include <QVariantAnimation>
#include <QPainterPath>

#include "views/VisualGraph.h"

namespace rx {

// Point size of a node's title: the canvas sizes its first zoom so this reads on screen.
inline constexpr double kNodeTitlePointSize = 8.5;

// Colours with meaning, shared by items and legends.
struct GraphPalette {
    QColor background, text, mutedText;
    QColor fwdFill, fwdBorder, bwdFill, bwdBorder;
    QColor valueFill, valueBorder, savedFill, savedBorder;
    QColor recomputed, clone, cut, infEdge, edge, sourceSide, sinkSide, banned, pinned;
    QColor groupFill, groupBorder, selection, clusterFwd, clusterBwd;
    static const GraphPalette& current();  // light or dark, following the application palette
    static void refresh();
};

class NodeItem : public QGraphicsItem {
public:
    enum { Type = UserType + 1 };
    NodeItem(const VisualNode& node, int index);
    ~NodeItem() override;
    int type() const override { return Type; }
    QRectF boundingRect() const override;
    QPainterPath shape() const override;
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

    const VisualNode& node() const { return node_; }
    void setNode(const VisualNode& node);     // restyle in place (no relayout)
    int index() const { return index_; }
    void setHighlighted(bool on);             // search hit
    void flash();                             // briefly emphasised (changed side)
    void setFlashLevel(double level) { flash_ = level; update(); }
    double flashLevel() const { return flash_; }

private:
    VisualNode node_;
    int index_;
    bool highlighted_ = false;
    double flash_ = 0;
    QPointer<QVariantAnimation> flashAnimation_;
};

class EdgeItem : public QGraphicsItem {
public:
    enum { Type = UserType + 2 };
    EdgeItem(const VisualEdge& edge, int index, const std::vector<QPointF>& points, bool polyline,
             QPointF arrowTip);
    int type() const override { return Type; }
    QRectF boundingRect() const override { return bounds_; }
    QPainterPath shape() const override;
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;
    const VisualEdge& edge() const { return edge_; }
    void setEdge(const VisualEdge& edge);
    int index() const { return index_; }

private:
    void updateBounds();  // the path, its arrow and its label's box
    static double zFor(const VisualEdge& edge);
    VisualEdge edge_;
    int index_;
    QPainterPath path_;
    QPolygonF arrow_;
    QPointF labelPos_;
    QRectF bounds_;
};

class ClusterItem : public QGraphicsItem {
public:
    enum { Type = UserType + 3 };
    ClusterItem(const VisualCluster& cluster, QRectF rect);
    int type() const override { return Type; }
    QRectF boundingRect() const override { return rect_.adjusted(-2, -2, 2, 2); }
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;
    // Where its title is drawn, in scene coordinates (overlays keep off it).
    QRectF titleRect() const;

private:
    QFont titleFont() const;
    VisualCluster cluster_;
    QRectF rect_;
};

}  // namespace rx
