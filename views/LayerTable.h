#pragma once
// The per-layer table beside the layer overview: per detected layer, the bytes the backward
// holds, saved and recomputed values, the clones' FLOPs and the layer's share of the rewritten
// peak; sortable, synced with the one selection, and with a "compare with" choice that puts a
// plan shown earlier beside the current one (held bytes per layer, what moved). Figures come
// from algorithms (layerBytes, lifetimes) and are computed off the UI thread.
#include <QAbstractTableModel>
#include <QColor>
#include <QFutureWatcher>
#include <QThreadPool>
#include <QWidget>
#include <memory>
#include <vector>

#include "algorithms/Layers.h"
#include "views/Document.h"

class QComboBox;
class QLabel;
class QSortFilterProxyModel;
class QTableView;

namespace rx {

// One layer's figures under one plan.
struct LayerRow {
    QString name;
    uint32_t group = 0;          // index in LayerPartition::groups
    uint32_t firstPos = 0;       // its first op position (the overview group's key)
    LayerBytes bytes;
    double recomputeFlops = 0;
    int64_t bytesAtPeak = 0;     // of its values live at the rewritten peak
    double peakShare = 0;        // bytesAtPeak / rewritten peak
    // Against the compared plan (when one is chosen).
    bool compared = false;
    int64_t otherHeld = 0;
    uint32_t newlySaved = 0, newlyRecomputed = 0, toNeither = 0;
};

// Rows of every layer group (embedding, layers, head) of `layers` under `result`; with
// `other`, the comparison columns too. Qt-free work, run off the UI thread.
std::vector<LayerRow> computeLayerRows(const Program& program, const RecomputeSpec& spec, const LayerPartition& layers,
                                       const SolveResult& result, const SolveResult* other);

// How a compared row reads, for the table's columns and the overview's layer labels alike.
QString heldDeltaText(const LayerRow& row);       // "−6.2 MiB", "+1.0 KiB", "0"
QColor heldDeltaColor(const LayerRow& row);       // green: lighter now; red: heavier; invalid: same
uint32_t movedCount(const LayerRow& row);
// "held 25.0 MiB | then 31.2 MiB" over "(−6.2 MiB) · 12 moved": both plans side by side, in two
// lines so the label fits between a layer's forward and backward groups.
QString layerComparisonText(const LayerRow& row);

class LayerTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Layer, Held, Saved, Recomputed, Flops, PeakShare, OtherHeld, HeldDelta, Moved, ColumnCount };
    static constexpr int SortRole = Qt::UserRole + 1;
    using QAbstractTableModel::QAbstractTableModel;
    void setRows(std::vector<LayerRow> rows, bool compared, QString otherName);
    const std::vector<LayerRow>& rows() const { return rows_; }
    bool compared() const { return compared_; }
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    std::vector<LayerRow> rows_;
    bool compared_ = false;
    QString otherName_;
};

class LayerTable : public QWidget {
    Q_OBJECT
public:
    explicit LayerTable(Document* doc, QWidget* parent = nullptr);
    ~LayerTable() override;
    QTableView* view() const { return view_; }
    LayerTableModel* model() const { return model_; }
    QSortFilterProxyModel* proxy() const { return proxy_; }
    QComboBox* compareChoice() const { return compare_; }
    bool busy() const;
    // The layers the rows are of (algorithms/Layers.h, detected off the UI thread); null
    // before the first rows of a program.
    std::shared_ptr<const LayerPartition> layers() const { return layers_; }
    // The plans the compare choice offers (newest first), as shown to the document.
    struct ShownPlan {
        QString name;
        std::shared_ptr<const SolveResult> result;
    };
    const std::vector<ShownPlan>& history() const { return history_; }

private:
    void onResult();
    void recompute();
    void onSelection(ModelKey key, QObject* origin);
    void fillCompareChoice();

    Document* doc_;
    LayerTableModel* model_;
    QSortFilterProxyModel* proxy_;
    QTableView* view_;
    QComboBox* compare_;
    QLabel* info_;
    struct Computed {
        std::vector<LayerRow> rows;
        std::shared_ptr<const LayerPartition> layers;
    };
    // Its own worker thread, not the global pool: painting (Qt's raster engine fills on the
    // global pool) never waits on this work (MainWindow.h's verifyPool_ says the same).
    QThreadPool pool_;
    QFutureWatcher<Computed> watcher_;
    std::shared_ptr<const LayerPartition> layers_;
    std::vector<ShownPlan> history_;
    int planSerial_ = 0;
    quint64 generation_ = 0, running_ = 0;
    bool pending_ = false, syncing_ = false;
    bool awaiting_ = false;  // a job started whose `finished` this thread has not handled yet
    QString otherName_;
};

}  // namespace rx
