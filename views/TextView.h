#pragma once
// The program as PIR text with syntax colouring; clicking a line selects its op. With the
// diff on, the rewritten program sits beside the original: clones marked in the right pane,
// the ops they copy marked in the left.
#include <QWidget>

#include "views/Document.h"

class QPlainTextEdit;
class QCheckBox;
class QLabel;

namespace rx {

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

protected:
    void showEvent(QShowEvent* event) override;

private:
    void rebuild();
    void rebuildDiff();
    void onSelection(ModelKey key, QObject* origin);
    void markLines();

    Document* doc_;
    QPlainTextEdit* left_;
    QPlainTextEdit* right_;
    QCheckBox* diff_;
    QLabel* info_;
    std::vector<OpId> lineOps_;       // original: op of each line (kNoId for others)
    std::vector<OpId> rightLineOps_;  // rewritten: op of each line
    bool dirty_ = true;
    bool diffDirty_ = true;
    bool syncing_ = false;
};

// Op of each printed line, by walking ops in print order (one line per op; region and
// block-header lines map to kNoId).
std::vector<OpId> mapLinesToOps(const Program& program, const QString& text);

}  // namespace rx
