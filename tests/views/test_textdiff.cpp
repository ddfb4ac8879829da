// The Text/Diff tab's side-by-side diff: rows aligned with a gap opposite each inserted
// clone, a +/- gutter, headers naming both programs, next/previous change, scroll linked.
#include <QAction>
#include <QLabel>
#include <QListView>
#include <QScrollBar>
#include <QtTest>

#include "views/Document.h"
#include "views/TextView.h"

using namespace rx;

namespace {
const QString kTransformer = QStringLiteral(RX_SHARED_DIR "/corpus/torch-joint/transformer_layer.prim.pir");
}  // namespace

class TextDiffTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void alignsInsertionsOppositeGaps() {
        const QStringList left{"a", "b", "c"};
        const QStringList right{"a", "x", "b'", "c", "y"};
        const auto rows = alignDiff(left, right, {0, 1, 0, 0, 1});
        QCOMPARE(rows.size(), size_t(5));
        QCOMPARE(rows[0].mark, DiffRow::Mark::Same);
        QCOMPARE(rows[1].mark, DiffRow::Mark::Inserted);
        QCOMPARE(rows[1].leftLine, -1);
        QCOMPARE(rows[2].mark, DiffRow::Mark::Changed);
        QCOMPARE(rows[2].leftLine, 1);
        QCOMPARE(rows[2].rightLine, 2);
        QCOMPARE(rows[3].mark, DiffRow::Mark::Same);
        QCOMPARE(rows[4].mark, DiffRow::Mark::Inserted);
        // an original line with nothing opposite is a removal, not dropped
        const auto tail = alignDiff({"a", "b"}, {"a"}, {0});
        QCOMPARE(tail.size(), size_t(2));
        QCOMPARE(tail[1].mark, DiffRow::Mark::Removed);
    }

    void realProgramDiff() {
        Document doc;
        QString error;
        QVERIFY2(doc.open(kTransformer, &error), qPrintable(error));
        QVERIFY(doc.waitForSolve(60000));
        auto r = doc.result();
        QVERIFY(r && r->ok() && r->rewritten && !r->clones.empty());

        TextView view(&doc);
        view.resize(500, 600);  // narrow: long lines need the horizontal scroll bar
        view.show();
        view.setDiff(true);
        QTRY_VERIFY_WITH_TIMEOUT(!view.diffRows().empty(), 10000);
        const auto& rows = view.diffRows();
        QListView* left = view.original();
        QListView* right = view.rewritten();
        auto rowText = [&view](QListView* pane, int row) { return view.rowText(pane == view.original() ? 0 : 1, row); };
        // Row counts equal: both panes show one line per row.
        QCOMPARE(size_t(left->model()->rowCount()), rows.size());
        QCOMPARE(size_t(right->model()->rowCount()), rows.size());
        QCOMPARE(left->model()->index(3, 0).data().toString(), rowText(left, 3));  // what the pane paints

        // Exactly one inserted row per clone, each with a gap opposite and a '+' gutter.
        size_t inserted = 0, same = 0, changed = 0;
        for (size_t k = 0; k < rows.size(); ++k) {
            const int row = int(k);
            switch (rows[k].mark) {
            case DiffRow::Mark::Inserted:
                ++inserted;
                QVERIFY(rowText(left, row).isEmpty());
                QVERIFY(rowText(right, row).startsWith("+ "));
                break;
            case DiffRow::Mark::Same:
                ++same;
                QCOMPARE(rowText(left, row), rowText(right, row));
                QVERIFY(rowText(left, row).startsWith("  "));
                break;
            case DiffRow::Mark::Changed:
                ++changed;
                QVERIFY(rowText(left, row).startsWith("- "));
                QVERIFY(rowText(right, row).startsWith("+ "));
                QVERIFY(rowText(left, row).mid(2) != rowText(right, row).mid(2));
                break;
            case DiffRow::Mark::Removed: QFAIL("the rewrite removes no line"); break;
            }
        }
        QCOMPARE(inserted, r->clones.size());
        QVERIFY(changed > 0);  // backward ops now read the clones
        QVERIFY(same > changed);
        // Every clone line stands opposite a gap.
        for (OpId clone : r->clones) {
            int row = -1;
            for (size_t k = 0; k < rows.size(); ++k)
                if (rows[k].mark == DiffRow::Mark::Inserted && rowText(right, int(k)).contains(QString::fromStdString(r->rewritten->value(r->rewritten->op(clone).results.at(0)).name) + ")"))
                    row = int(k);
            QVERIFY2(row >= 0, "clone row not found");
        }

        // Headers name both programs.
        auto* lh = view.findChild<QLabel*>("originalHeader");
        auto* rh = view.findChild<QLabel*>("rewrittenHeader");
        QVERIFY(lh && rh && lh->isVisible() && rh->isVisible());
        QVERIFY(lh->text().contains("Original") && lh->text().contains("transformer_layer.prim.pir"));
        QVERIFY(rh->text().contains("Rewritten") && rh->text().contains(QString("+%1 clones").arg(r->clones.size())));

        // Next/previous change walk the starts of the runs of changes, both panes together.
        const auto& starts = view.changeStarts();
        QVERIFY(starts.size() >= 2);
        QCOMPARE(view.nextChangeAction()->shortcut(), QKeySequence(Qt::Key_F7));
        QCOMPARE(view.previousChangeAction()->shortcut(), QKeySequence(Qt::SHIFT | Qt::Key_F7));
        view.setCurrentRow(0);
        const int first = starts[0] == 0 ? starts[1] : starts[0];
        view.nextChangeAction()->trigger();
        QCOMPARE(view.currentRow(), first);
        QCOMPARE(right->currentIndex().row(), first);
        QVERIFY(rows[size_t(first)].mark != DiffRow::Mark::Same);
        QVERIFY(rows[size_t(first) - 1].mark == DiffRow::Mark::Same);
        view.nextChangeAction()->trigger();
        const int second = view.currentRow();
        QVERIFY(second > first);
        for (int k = first; k < second; ++k)  // nothing skipped: the rows between hold one run
            if (k > first) QVERIFY(!(rows[size_t(k)].mark != DiffRow::Mark::Same && rows[size_t(k) - 1].mark == DiffRow::Mark::Same));
        view.previousChangeAction()->trigger();
        QCOMPARE(view.currentRow(), first);
        // the row's op is selected as a click would select it
        QVERIFY(doc.selection().kind == ModelKey::Kind::Op);

        // Long lines scroll horizontally and the panes stay aligned.
        QTRY_VERIFY(left->horizontalScrollBar()->maximum() > 0);
        left->horizontalScrollBar()->setValue(left->horizontalScrollBar()->maximum() / 2);
        QCOMPARE(right->horizontalScrollBar()->value(), left->horizontalScrollBar()->value());
        right->verticalScrollBar()->setValue(right->verticalScrollBar()->maximum() / 3);
        QCOMPARE(left->verticalScrollBar()->value(), right->verticalScrollBar()->value());

        // Diff off: the plain original again, no rows.
        view.setDiff(false);
        QTRY_VERIFY(!view.isBuilding() && view.diffRows().empty());
        QVERIFY(view.lineOfOp(doc.program().globalBlock().ops[0]) >= 0);
    }
};

QTEST_MAIN(TextDiffTest)
#include "test_textdiff.moc"
