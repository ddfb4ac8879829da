#pragma once
// The program as PIR text with syntax colouring; clicking a line selects its op. With the
// diff on, original and rewritten are aligned row by row: a gap opposite each inserted clone,
// a +/- gutter, next/previous change (F7 / Shift+F7).
#include <QStringList>
#include <QWidget>
#include <vector>

#include "views/Document.h"

class QPlainTextEdit;
class QCheckBox;
class QLabel;
class QAction;

namespace rx {

// One row of the side-by-side diff: the line of each program shown there (-1: a gap).
struct DiffRow {
    enum class Mark : char { Same = ' ', Inserted = '+', Changed = '~', Removed = '-' };
    int leftLine = -1;
    int rightLine = -1;
    Mark mark = Mark::Same;
};

// Aligns the printed original and rewritten programs. The rewrite only inserts clones and
// edits ops in place (operands redirected, recompute attributes), so every non-clone line of
// the rewritten text pairs, in order, with the next original line; a clone line gets a gap.
std::vector<DiffRow> alignDiff(const QStringList& left, const QStringList& right,
                               const std::vector<uint8_t>& rightInserted);

class TextView : public QWidget {
    Q_OBJECT
public:
    TextView(Document* doc, QWidget* parent = nullptr);
    QPlainTextEdit* original() const { return left_; }
    QPlainTextEdit* rewritten() const { return right_; }
    void setDiff(bool on);
    // Line (0-based) of `op` in the original pane, -1 if none.
    int lineOfOp(OpId op) const;
    OpId opAtLine(int line) const;
    // The diff (empty when off): rows, the first row of each run of changes, the current row.
    const std::vector<DiffRow>& diffRows() const { return rows_; }
    const std::vector<int>& changeStarts() const { return changeStarts_; }
    int currentRow() const;
    void nextChange();
    void previousChange();
    QAction* nextChangeAction() const { return nextChange_; }
    QAction* previousChangeAction() const { return previousChange_; }

protected:
    void showEvent(QShowEvent* event) override;

private:
    void rebuild();
    void rebuildPlain();
    void rebuildAligned();
    void goToRow(int row);
    void onSelection(ModelKey key, QObject* origin);
    void markLines();

    Document* doc_;
    QPlainTextEdit* left_;
    QPlainTextEdit* right_;
    QCheckBox* diff_;
    QLabel* info_;
    QLabel* leftHeader_;
    QLabel* rightHeader_;
    QWidget* rightPane_;
    QAction* nextChange_;
    QAction* previousChange_;
    std::vector<DiffRow> rows_;
    std::vector<int> changeStarts_;
    std::vector<OpId> lineOps_;       // original: op of each line (kNoId for others)
    std::vector<OpId> rightLineOps_;  // rewritten: op of each line
    bool dirty_ = true;
    bool syncing_ = false;
};

// Op of each printed line, by walking ops in print order (one line per op; region and
// block-header lines map to kNoId).
std::vector<OpId> mapLinesToOps(const Program& program, const QString& text);

}  // namespace rx
