#pragma once
// The Memory tab, after PyTorch's memory-snapshot viewer: live bytes over op index as
// stacked bands, one per value, coloured by role (resident, held for the backward,
// recomputed clone, gradient, temporary), for the original program and the rewritten one
// on one scale; each peak marked; the values live at a peak listed by size with their
// decision and producer. Clicking a band or a row selects the value everywhere.
#include <QWidget>
#include <memory>

#include "views/Document.h"
#include "views/PlanFigures.h"

class QTreeWidget;
class QComboBox;
class QLabel;

namespace rx {

// What one pane draws: a program's lifetimes and its live-bytes curve.
struct MemoryPane {
    QString title;
    std::shared_ptr<const Program> program;
    ProgramLifetimes lifetimes;
    std::vector<int64_t> liveBytes;
    int64_t peakBytes = 0;
    uint32_t peakOp = 0;
    std::vector<uint8_t> cloneValue;      // per ValueId of `program`: a clone's result
    std::vector<ValueId> originalOf;      // per ValueId: the original-program value it stands for
};

class MemoryChart : public QWidget {
    Q_OBJECT
public:
    explicit MemoryChart(QWidget* parent = nullptr);
    void setPanes(std::vector<MemoryPane> panes);
    const std::vector<MemoryPane>& panes() const { return panes_; }
    void setSelectedValue(ValueId originalValue);  // highlighted in both panes
    // Values of pane `pane`'s program drawn hatched and outlined (what is new at the
    // rewritten peak); empty: none.
    void setHighlighted(int pane, std::vector<ValueId> values);
    const std::vector<ValueId>& highlighted() const { return highlighted_; }
    int highlightedPane() const { return highlightedPane_; }
    // The original-program value whose band is under `pos` (widget coordinates), or kNoId.
    ValueId valueAt(QPoint pos) const;
    // Where the band of `originalValue` is drawn in pane `pane` at its widest, for tests.
    QPoint bandPoint(int pane, ValueId originalValue) const;
    QSize minimumSizeHint() const override { return {400, 260}; }
    // The role legend's entries (swatch and text box), wrapped onto as many rows as the
    // width needs so that no role is cut off on a narrow screen.
    struct LegendEntry { QRect swatch; QRect text; QString label; };
    std::vector<LegendEntry> legendLayout() const;
    // The red "peak … at op #N" label of pane `pane`: its text, font and box in widget
    // coordinates, placed above the peak line so it never covers a band.
    struct PeakLabel { QString text; QFont font; QRect box; };
    PeakLabel peakLabel(int pane) const;

Q_SIGNALS:
    void valueClicked(rx::ValueId originalValue);

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;

private:
    struct Slice { float y0, y1; ValueId value; MemoryRole role; };
    struct Column { int x0, x1; std::vector<Slice> slices; };
    struct PaneGeometry { QRect plot; std::vector<Column> columns; };
    void layoutColumns() const;
    QRect paneRect(int i) const;
    double yMax() const;

    std::vector<MemoryPane> panes_;
    mutable std::vector<PaneGeometry> geometry_;
    mutable bool dirty_ = true;
    mutable QSize laidOutFor_;
    ValueId selected_ = kNoId;
    int highlightedPane_ = -1;
    std::vector<ValueId> highlighted_;      // sorted
};

class MemoryView : public QWidget {
    Q_OBJECT
public:
    MemoryView(Document* doc, QWidget* parent = nullptr);
    MemoryChart* chart() const { return chart_; }
    QTreeWidget* peakTable() const { return table_; }
    QString peakTitle() const;
    QComboBox* peakChoice() const { return which_; }
    // Values live at the rewritten program's peak whose original was not live at the
    // original program's peak (the rewritten pane's ids), largest first.
    std::vector<ValueLifetime> newAtRewrittenPeak() const;

private:
    void rebuild();
    void fillTable();
    Document* doc_;
    MemoryChart* chart_;
    QTreeWidget* table_;
    QComboBox* which_;
    QLabel* tableTitle_;
    bool syncing_ = false;
};

QColor memoryRoleColor(MemoryRole role);

}  // namespace rx
