#pragma once
// The two graph tabs: the program (overview of segments for big programs, expand on
// double-click, "whole graph" on request) and the flow network. Both observe the Document,
// restyle in place when only the plan changed, and mirror the shared selection.
#include <QWidget>

#include "views/Document.h"
#include "views/FlowGraph.h"
#include "views/GraphCanvas.h"
#include "views/LayerTable.h"
#include "views/ProgramGraph.h"

class QComboBox;
class QCheckBox;
class QLabel;
class QToolButton;
class QTimer;

namespace rx {

class ProgramView : public QWidget {
    Q_OBJECT
public:
    ProgramView(Document* doc, QWidget* parent = nullptr);
    GraphCanvas* canvas() const { return canvas_; }
    // Dot on a whole program of more ops than this takes minutes (100k ops never end) and shows a
    // hairball: above it the overview and the layer views are the way in.
    static constexpr size_t kWholeGraphMaxOps = 5000;
    bool canShowWholeGraph() const;
    bool showWholeGraph();  // false (and nothing laid out) above kWholeGraphMaxOps
    void setOverlay(Overlay overlay);
    void setShowRewritten(bool on);
    const ProgramOverview& overview() const { return overview_; }
    const LayerPartition& layers() const { return layers_; }

    // Folds the expanded group holding `op` (original program) back into one group.
    bool collapseAround(OpId op);
    bool canCollapseAround(OpId op) const;
    bool showingRewritten() const { return showingRewritten_; }

    // The layer view: a layer group of the overview (forward or backward, by its first op
    // position) opens as its forward ops with ports and stubs; closeLayer() returns.
    bool canOpenLayer(uint32_t groupBegin) const;
    bool openLayer(uint32_t groupBegin);
    bool openLayerNumber(size_t layer);  // the k-th detected layer (0-based); false if none
    bool openForwardView();              // a program without layers: its forward as one layer
    void closeLayer();
    bool inLayerView() const { return !layerView_.empty(); }
    const LayerViewSpec& layerView() const { return layerView_; }
    // The Layers dock's rows against a compared plan (empty: no comparison): each layer's bundle
    // label in the overview then shows both plans side by side, coloured lighter/heavier.
    void setLayerComparison(std::vector<LayerRow> rows);
    const std::vector<LayerRow>& layerComparison() const { return comparison_; }
    // The layers of the rewritten program's overview (layersOfRewritten of layers()); empty
    // when it is not shown or has no layers.
    const LayerPartition& rewrittenLayers() const { return rewrittenLayers_; }
    const ProgramOverview& rewrittenOverview() const { return rewrittenOverview_; }

Q_SIGNALS:
    void contextMenuForKey(rx::ModelKey key, QPoint globalPos);

private:
    void rebuild(bool relayout);
    PlanMarks marksWithMidHold() const;  // the document's marks plus the plan's mid-hold values
    void resetOverview();
    void resetRewrittenOverview();
    // What the current plan holds per layer (layerBytes(), as the Layers table), once per result.
    const std::vector<LayerBytes>& currentLayerBytes();
    void onProgramChanged();
    void onResult(const std::vector<ValueId>& changed);
    void onSelection(ModelKey key, QObject* origin);
    void onDoubleClick(ModelKey key);
    bool revealOp(OpId op);  // expands the segment holding op; true if it changed

    Document* doc_;
    GraphCanvas* canvas_;
    QComboBox* overlay_;
    QComboBox* valuesMode_;
    QCheckBox* rewritten_;
    QToolButton* whole_;
    QLabel* info_;
    ProgramOverview overview_;
    ProgramOverview rewrittenOverview_;
    LayerPartition layers_;
    LayerViewSpec layerView_;     // empty: the overview
    QToolButton* backToOverview_;
    QToolButton* forwardView_;
    bool showingRewritten_ = false;
    bool revealOnSelect_ = true;
    double layerBuildMs_ = 0;     // building the layer view's graph (UI thread), for the info label  // false while a finished layout re-applies the selection
    LayerViewSpec layerSpecFor(uint32_t groupBegin) const;
    // Puts the compared plan's figures on the bundles of an overview of the program whose
    // layers are `layers` (the original's or the rewritten one's).
    void annotateComparison(VisualGraph& g, const ProgramOverview& overview, const LayerPartition& layers) const;
    std::vector<LayerRow> comparison_;
    LayerPartition rewrittenLayers_;
    const Program* rewrittenOf_ = nullptr;  // the rewritten program rewrittenOverview_ was reset for
    std::weak_ptr<const SolveResult> layerBytesOf_;
    std::vector<LayerBytes> layerBytes_;
};

class FlowView : public QWidget {
    Q_OBJECT
public:
    FlowView(Document* doc, QWidget* parent = nullptr);
    GraphCanvas* canvas() const { return canvas_; }

    // What the picture is restricted to. Layer: one group of layers(); Around: the selection's
    // surroundings; Whole: every value (the cut neighbourhood beyond kMaxPairs).
    enum class ScopeKind { Layer, Around, Whole };
    ScopeKind scopeKind() const { return scopeKind_; }
    int currentLayer() const { return layer_; }  // group index in layers(); -1 = none
    void showLayer(int group);
    void showAroundSelection();
    void showWhole();
    const LayerPartition& layers() const { return layers_; }
    // The values drawn by the scoped picture (empty for the whole-network picture).
    const std::vector<ValueId>& scopeValues() const { return scope_; }
    QComboBox* scopeCombo() const { return scopeCombo_; }
    // Draws the current result if nothing is drawn yet (the tab's first sight).
    void ensurePicture();

protected:
    void showEvent(QShowEvent* event) override;  // a scope changed while hidden draws now
    bool eventFilter(QObject* watched, QEvent* event) override;  // re-fits the picture to a resized window

private:
    void rebuild(bool force);
    void onSelection(ModelKey key, QObject* origin);
    void resetLayers();
    void fillScopeCombo();
    int groupOfValueOrOp(ModelKey key) const;
    int defaultLayer(const SolveResult& r) const;

    Document* doc_;
    GraphCanvas* canvas_;
    QLabel* info_;
    QComboBox* scopeCombo_;
    QToolButton* whole_;
    FlowViewState state_;
    LayerPartition layers_;
    ScopeKind scopeKind_ = ScopeKind::Layer;
    int layer_ = -1;
    bool layerChosen_ = false;   // false: follow the default (first layer with a cut arc)
    ModelKey around_;
    std::vector<ValueId> scope_;
    bool dirty_ = true;
    QTimer* refit_ = nullptr;
    QSize laidOutFor_;
    bool layersStale_ = true;  // layers are detected when the tab first needs them
};

}  // namespace rx
