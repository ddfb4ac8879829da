#pragma once
// The program as PIR text with syntax colouring; clicking a line selects its op. With the
// diff on, original and rewritten are aligned row by row: a gap opposite each inserted clone,
// a +/- gutter, next/previous change (F7 / Shift+F7).
//
// Printing, line mapping and alignment run on a worker (TextSnapshot); the panes are list
// views over a model of the aligned rows that makes a row's text only when it is painted,
// so a 100k-op program neither freezes the window nor fills a text document.
#include <QFutureWatcher>
#include <QThreadPool>
#include <QStringList>
#include <QWidget>
#include <atomic>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "views/Document.h"

class QListView;
class QCheckBox;
class QLabel;
class QAction;
class QProgressBar;
class QTimer;

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

// A printed program kept as one UTF-8 string and its line starts (a QString per line would
// double it, a text document more than triple it).
struct PrintedLines {
    std::string text;
    std::vector<uint32_t> starts;
    int count() const { return int(starts.size()); }
    std::string_view line(int i) const;
};

// Everything a pane shows, built off the UI thread.
struct TextSnapshot {
    bool diff = false;
    bool haveRewrite = false;
    PrintedLines left, right;
    std::vector<OpId> leftOps, rightOps;   // op of each printed line (kNoId: none)
    std::vector<DiffRow> rows;             // diff: the aligned rows; plain: empty (row = line)
    std::vector<int> changeStarts;         // first row of each run of changes
    std::vector<OpId> rowLeftOp, rowRightOp;  // op shown on each row, per pane
    std::vector<int> rowOfOp;              // original op -> its row (-1: not shown)
    std::vector<uint8_t> recomputed;       // original op is recomputed
    std::vector<uint8_t> clone;            // rewritten op is a clone
    std::vector<OpId> cloneOf;             // rewritten op -> the original it copies (kNoId: none)
    int longestLine = 0;                   // characters, for the horizontal scroll range
    int inserts = 0, changes = 0;
    int rowCount() const { return diff ? int(rows.size()) : left.count(); }
};
// Builds the snapshot of `program` (and of `result`'s rewrite when `diff`). `progress` goes
// 0..100; a set `cancel` stops it early (the snapshot is then incomplete and is dropped).
std::shared_ptr<const TextSnapshot> buildTextSnapshot(std::shared_ptr<const Program> program,
                                                      std::shared_ptr<const SolveResult> result, bool diff,
                                                      std::atomic<int>* progress = nullptr,
                                                      const std::atomic<bool>* cancel = nullptr);

class TextRowsModel;

class TextView : public QWidget {
    Q_OBJECT
public:
    TextView(Document* doc, QWidget* parent = nullptr);
    ~TextView() override;
    QListView* original() const { return left_; }
    QListView* rewritten() const { return right_; }
    void setDiff(bool on);
    bool isDiff() const;
    // A snapshot is being built on the worker (a progress bar shows meanwhile).
    bool isBuilding() const;
    // Line (row, 0-based) of `op` in the original pane, -1 if none.
    int lineOfOp(OpId op) const;
    OpId opAtLine(int line) const;
    // What a pane shows on a row (side 0: original, 1: rewritten), gutter included.
    QString rowText(int side, int row) const;
    int rowCount() const;
    // The diff (empty when off): rows, the first row of each run of changes, the current row.
    const std::vector<DiffRow>& diffRows() const;
    const std::vector<int>& changeStarts() const;
    int currentRow() const;
    // Puts both panes on `row` and selects its op, as a click would.
    void setCurrentRow(int row);
    void nextChange();
    void previousChange();
    QAction* nextChangeAction() const { return nextChange_; }
    QAction* previousChangeAction() const { return previousChange_; }

Q_SIGNALS:
    void built();  // a new snapshot is on show

protected:
    void showEvent(QShowEvent* event) override;

private:
    void rebuild();
    void install(std::shared_ptr<const TextSnapshot> snapshot);
    void goToRow(int row, bool selectOp);
    void onSelection(ModelKey key, QObject* origin);
    void selectOpOfRow(int row, int side);

    Document* doc_;
    QListView* left_;
    QListView* right_;
    TextRowsModel* leftModel_;
    TextRowsModel* rightModel_;
    QCheckBox* diff_;
    QLabel* info_;
    QLabel* leftHeader_;
    QLabel* rightHeader_;
    QWidget* rightPane_;
    QProgressBar* progress_;
    QTimer* progressPoll_;
    QAction* nextChange_;
    QAction* previousChange_;
    std::shared_ptr<const TextSnapshot> shown_;
    // Its own worker thread, not the global pool: painting (Qt's raster engine fills on the
    // global pool) never waits on this work (MainWindow.h's verifyPool_ says the same).
    QThreadPool pool_;
    QFutureWatcher<std::shared_ptr<const TextSnapshot>> watcher_;
    std::shared_ptr<std::atomic<int>> progressValue_;
    std::shared_ptr<std::atomic<bool>> cancel_;
    bool rebuildAfter_ = false;  // an edit came in while building: build again when done
    bool dirty_ = true;
    bool syncing_ = false;
};

// Op of each printed line, by walking ops in print order (one line per op; region and
// block-header lines map to kNoId).
std::vector<OpId> mapLinesToOps(const Program& program, const QString& text);
std::vector<OpId> mapLinesToOps(const Program& program, const PrintedLines& lines);

}  // namespace rx
