#pragma once
// Dock panels: Outline (ops by forward/backward and op name, saved values, recomputed
// ops), Inspector (everything the algorithm knows about the selection), Tuning (op lists,
// knobs, pins, history), Summary (the plan's numbers and the memory curve).
#include <QWidget>
#include <functional>
#include <utility>
#include <vector>

#include "views/Document.h"
#include "views/PlanFigures.h"

class QTreeWidget;
class QTreeWidgetItem;
class QLineEdit;
class QCompleter;
class QTextBrowser;
class QListWidget;
class QTabWidget;
class QCheckBox;
class QSpinBox;
class QDoubleSpinBox;
class QLabel;
class QGridLayout;

class QChartView;
class QLineSeries;
class QValueAxis;
class QChart;

namespace rx {

// "1.2 GFLOP": a FLOP count in SI units.
QString formatFlops(double flops);

class OutlinePanel : public QWidget {
    Q_OBJECT
public:
    OutlinePanel(Document* doc, QWidget* parent = nullptr);
    QTreeWidget* tree() const { return tree_; }
    QLineEdit* filter() const { return filter_; }
    // The first shown op/value row whose name contains `text` (after filtering), or null.
    QTreeWidgetItem* firstVisibleMatch(const QString& text) const;

private:
    bool lazyGroupMatches(QTreeWidgetItem* item, const QString& text) const;
    void rebuild();
    void populate(QTreeWidgetItem* item);
    void onSelection(ModelKey key, QObject* origin);
    void applyFilter(const QString& text);

    Document* doc_;
    QLineEdit* filter_;
    QTreeWidget* tree_;
    bool syncing_ = false;
};

class InspectorPanel : public QWidget {
    Q_OBJECT
public:
    InspectorPanel(Document* doc, QWidget* parent = nullptr);
    QString currentHtml() const;
    QTextBrowser* browser() const { return text_; }
    // How a group key (its first op position) maps to op ranges and a label; the program
    // view's overview answers. Without it a group shows only its position.
    using GroupResolver = std::function<std::vector<std::pair<uint32_t, uint32_t>>(uint32_t begin, QString* label)>;
    void setGroupResolver(GroupResolver resolver) { groupResolver_ = std::move(resolver); }

private:
    void refresh();
    QString valueHtml(ValueId v) const;
    QString opHtml(OpId op) const;
    QString arcHtml(uint32_t arc) const;
    QString groupHtml(uint32_t begin) const;
    QString valueLink(ValueId v) const;
    QString opLink(OpId op) const;

    Document* doc_;
    QTextBrowser* text_;
    GroupResolver groupResolver_;
};

class TuningPanel : public QWidget {
    Q_OBJECT
public:
    TuningPanel(Document* doc, QWidget* parent = nullptr);
    QSpinBox* maxDistSpin() const { return maxDist_; }
    QDoubleSpinBox* minWeightSpin() const { return minWeight_; }
    QList<QWidget*> knobs() const;
    QCheckBox* aggressiveBox() const { return aggressive_; }
    QListWidget* opList(int index) const;
    QLineEdit* opAdder(int index) const { return adders_.at(size_t(index)); }  // the "add op" field (with completion)
    // Adds `op` to list `index` (0..5: recomputable, tending, random, compute-intensive, view, ignore).
    void addOp(int index, const QString& op);
    void removeOp(int index, const QString& op);

private:
    void refresh();
    void knobChanged(const QString& description, int mergeId);
    std::vector<std::string>& listOf(RecomputeConfig& c, int index) const;

    Document* doc_;
    QTabWidget* tabs_;
    std::vector<QListWidget*> lists_;
    std::vector<QLineEdit*> adders_;
    std::vector<QCompleter*> completers_;  // one per adder, created once
    QCheckBox* aggressive_;
    QSpinBox* maxDist_;
    QDoubleSpinBox* minWeight_;
    QDoubleSpinBox* distBase_;
    QSpinBox* distCap_;
    QSpinBox* nonMat_;
    QDoubleSpinBox* sizeRatio_;
    QListWidget* pins_;
    bool refreshing_ = false;
};

// One value that changed side (saved / recomputed / neither) in an edit, and what it moves:
// bytes held for the backward (+ held, − freed) and recompute FLOPs of its producer (+ added).
struct SideChange {
    ValueId value = kNoId;
    ValueSide before = ValueSide::Neither, after = ValueSide::Neither;
    int64_t heldBytesDelta = 0;
    double recomputeFlopsDelta = 0;
};
// The side changes between two plans of `program`, largest byte move first.
std::vector<SideChange> sideChanges(const Program& program, const Plan& before, const Plan& after,
                                    const std::vector<ValueId>& changed);
// What moved between two plans, counted: values newly saved, newly recomputed, and those
// that went back to neither side.
struct ChangeCounts {
    size_t newlySaved = 0, newlyRecomputed = 0, toNeither = 0;
    size_t total() const { return newlySaved + newlyRecomputed + toNeither; }
};
ChangeCounts countChanges(const std::vector<SideChange>& changes);

// "peak 1.2 GiB → 1.0 GiB · activation peak 400 MiB → 210 MiB": the Summary's and the Memory
// Budget dock's one wording of PlanPeaks (empty when the peaks are unknown).
QString planPeaksText(const PlanPeaks& peaks);

class SummaryPanel : public QWidget {
    Q_OBJECT
public:
    SummaryPanel(Document* doc, QWidget* parent = nullptr);
    QString text() const;
    QString headline() const { return headline_; }        // "Peak 1.32 GiB → 1.41 GiB (+6.8%)"
    QString peakWarning() const { return warning_; }      // empty unless recompute raises the peak
    // Non-empty while the plan shown is older than the config (its solve failed): why.
    QString staleReason() const { return stale_; }
    double extraFlops() const { return extraFlops_; }
    QChartView* chartView() const { return chart_; }
    QValueAxis* xAxis() const { return xAxis_; }
    QValueAxis* yAxis() const { return yAxis_; }
    // After every edit, the values that changed side (newest edit first; click selects).
    QTreeWidget* changesTree() const { return changes_; }
    const std::vector<SideChange>& lastChanges() const { return lastChanges_; }
    ChangeCounts lastChangeCounts() const { return countChanges(lastChanges_); }

protected:
    void changeEvent(QEvent* event) override;

private:
    void refresh();
    void recordChanges(std::vector<ValueId> changed);
    void styleChart(QChart* chart);
    Document* doc_;
    QLabel* numbers_;
    QChartView* chart_;
    QValueAxis* xAxis_ = nullptr;
    QValueAxis* yAxis_ = nullptr;
    QString headline_, warning_, stale_;
    double extraFlops_ = 0;
    std::shared_ptr<const SolveResult> previous_;
    QString lastText_;
    QTreeWidget* changes_;
    std::shared_ptr<const SolveResult> changesBase_;  // the result the next edit is compared with
    std::vector<SideChange> lastChanges_;
    QString pendingEdit_;                             // what the undo stack last did
    bool planStepRecorded_ = false;                   // a plan step named its own change
    qint64 mergeKey_ = -1;                            // of the newest entry (a slider drag)
    std::shared_ptr<const SolveResult> mergeBase_;    // the plan before that drag
    int undoIndex_ = 0;
    int editCount_ = 0;
};

}  // namespace rx
