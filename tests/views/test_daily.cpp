// The explorer as a daily tool (issue 23), driven on the shown window with real key events:
// the completer + Enter path of the Tuning panel, Verify's banner in human units, Export's
// names, bad inputs reported in the window (a --config, a broken spec beside a good program, a
// file cut mid-name), and a failed solve said in the user's words with its one-click fix.
#include <QAbstractItemView>
#include <QChartView>
#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QCompleter>
#include <QDialog>
#include <QFile>
#include <QFileDialog>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QToolButton>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTextBrowser>
#include <QTextDocument>
#include <QtTest>

#include "algorithms/zoo/ModelZoo.h"
#include "model/FileIO.h"
#include "model/PirWriter.h"
#include "views/GraphViews.h"
#include "views/MainWindow.h"
#include "views/Panels.h"
#include "views/VerifyAsync.h"

using namespace rx;

namespace {
const QString kTransformer = QStringLiteral(RX_SHARED_DIR "/corpus/torch-joint/transformer_layer.prim.pir");

QByteArray readAll(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

bool writeFile(const QString& path, const QByteArray& bytes) {
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

// What a QLabel shows: its text rendered as rich text when it takes it as such, else verbatim.
QString shownText(const QLabel* label) {
    const bool rich = label->textFormat() == Qt::RichText || (label->textFormat() == Qt::AutoText && Qt::mightBeRichText(label->text()));
    if (!rich) return label->text();
    QTextDocument d;
    d.setHtml(label->text());
    return d.toPlainText();
}
}  // namespace

class DailyTest : public QObject {
    Q_OBJECT
    MainWindow* window_ = nullptr;
    QTemporaryDir tmp_;

    Document* doc() { return window_->document(); }
    void waitSolved() { QVERIFY(doc()->waitForSolve(30000)); }
    QLabel* bannerLabel() {
        auto* banner = window_->findChild<QWidget*>("errorBanner");
        return banner ? banner->findChild<QLabel*>() : nullptr;
    }
    void openTransformer() {
        QVERIFY(window_->openFile(kTransformer));
        waitSolved();
        QVERIFY(doc()->result() && doc()->result()->ok());
    }

private Q_SLOTS:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY(tmp_.isValid());
        window_ = new MainWindow(nullptr, false);
        window_->resize(1560, 960);
        window_->show();
        QVERIFY(QTest::qWaitForWindowExposed(window_));
        window_->activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(window_));
        openTransformer();
    }
    void cleanupTestCase() { delete window_; }

    // Item 1: type "pd_op.re", pick pd_op.relu in the popup, Enter. It crashed (the completer
    // was replaced inside its own key event); now it adds the op, once, with the same completer.
    void completerEnterAddsOp() {
        const auto& before = doc()->config().recomputableOps;
        QVERIFY(std::find(before.begin(), before.end(), "pd_op.relu") == before.end());
        QLineEdit* edit = window_->tuning()->opAdder(0);
        QVERIFY(edit && edit->isVisible());
        QCompleter* completer = edit->completer();
        QVERIFY(completer);
        edit->setFocus();
        QTRY_VERIFY(edit->hasFocus());
        QTest::keyClicks(edit, "pd_op.re");
        QTRY_VERIFY(completer->popup()->isVisible());
        // Walk the popup down to pd_op.relu, as the arrow keys do.
        QAbstractItemView* popup = completer->popup();
        int guard = 0;
        while (popup->currentIndex().data().toString() != "pd_op.relu" && ++guard < 20) QTest::keyClick(popup, Qt::Key_Down);
        QCOMPARE(popup->currentIndex().data().toString(), QStringLiteral("pd_op.relu"));
        const int undoBefore = doc()->undoStack()->count();
        QTest::keyClick(popup, Qt::Key_Return);
        QTRY_VERIFY(std::find(doc()->config().recomputableOps.begin(), doc()->config().recomputableOps.end(), "pd_op.relu") !=
                    doc()->config().recomputableOps.end());
        QCOMPARE(doc()->undoStack()->count(), undoBefore + 1);
        QVERIFY(!popup->isVisible());
        QCOMPARE(edit->completer(), completer);  // refreshed in place, not replaced (nor leaked)
        QCOMPARE(edit->findChildren<QCompleter*>().size(), 1);
        QTRY_COMPARE(edit->text(), QString());
        // The list shows it, and a second add through the same path works as well.
        QVERIFY(!window_->tuning()->opList(0)->findItems("pd_op.relu", Qt::MatchStartsWith).isEmpty());
        waitSolved();
        doc()->undoStack()->undo();  // back to the seed's lists for the tests below
        waitSolved();
    }

    // Item 8: Verify's banner in human units with a real arrow (it read "-&gt;" and raw bytes).
    void verifyBannerReadsWell() {
        exec::VerifyReport r;
        r.equivalent = true;
        r.compared = 3;
        r.bitwiseEqual = 3;
        r.originalPeakBytes = 361847812;
        r.rewrittenPeakBytes = 384916484;
        const QString s = exec::verifySummaryText(r);
        QVERIFY2(s.contains(QStringLiteral("345.1 MiB \u2192 367.1 MiB")), qPrintable(s));
        QVERIFY(!s.contains("bytes"));
        QSignalSpy done(window_, &MainWindow::verifyFinished);
        window_->verify();
        QVERIFY(done.wait(120000));
        QVERIFY(done.first().at(0).toBool());
        const QString shown = shownText(bannerLabel());
        QVERIFY2(shown.contains(QStringLiteral("\u2192")) && shown.contains("iB"), qPrintable(shown));
        QVERIFY2(!shown.contains("&gt;") && !shown.contains("->") && !shown.contains(" bytes"), qPrintable(shown));
    }

    // Item 8: Export adds the chosen type's extension, and the name proposed under a filter
    // matches that filter.
    void exportNamesFollowTheType() {
        const QStringList filters = MainWindow::exportFilters();
        QCOMPARE(filters.size(), 5);
        const QString report = filters[2], config = filters[1], image = filters[4];
        QCOMPARE(MainWindow::exportFileName("/tmp/run", report), QStringLiteral("/tmp/run.report.json"));
        QCOMPARE(MainWindow::exportFileName("/tmp/run.json", config), QStringLiteral("/tmp/run.config.json"));
        QCOMPARE(MainWindow::exportFileName("/tmp/run.png", report), QStringLiteral("/tmp/run.png"));  // an explicit type wins
        QCOMPARE(MainWindow::exportFileName("/tmp/run", image), QStringLiteral("/tmp/run.svg"));
        QCOMPARE(MainWindow::proposedExportName("t.recompute.pir", report), QStringLiteral("t.recompute.report.json"));

        std::unique_ptr<QFileDialog> dlg(window_->createExportDialog());
        dlg->setOption(QFileDialog::DontUseNativeDialog);
        dlg->setDirectory(tmp_.path());
        dlg->show();
        auto* types = dlg->findChild<QComboBox*>("fileTypeCombo");
        auto* name = dlg->findChild<QLineEdit*>("fileNameEdit");
        QVERIFY(types && name);
        QVERIFY(name->text().endsWith(".pir"));
        QTest::keyClick(types, Qt::Key_Down);  // Config, then Report, as a user steps through them
        QTest::keyClick(types, Qt::Key_Down);
        QCOMPARE(types->currentIndex(), 2);
        QTRY_VERIFY2(name->text().endsWith(".report.json"), qPrintable(name->text()));
        QVERIFY(QDir::match(QStringLiteral("*.report.json"), name->text()));
        dlg->reject();

        // The export itself, through the chosen type, writes the extended name.
        const QString e = window_->exportTo(tmp_.path() + "/bare", report);
        QVERIFY2(e.isEmpty(), qPrintable(e));
        QVERIFY(QFile::exists(tmp_.path() + "/bare.report.json"));
        QVERIFY(!QFile::exists(tmp_.path() + "/bare"));
    }

    // Item 7: a bad --config is said in the window, and stays there after the solve finishes.
    void badConfigIsReportedInTheWindow() {
        const QString bad = tmp_.path() + "/bad.config.json";
        QVERIFY(writeFile(bad, "{ \"max_dist_from_bw\": "));
        const QString e = window_->loadConfigOption(bad);
        QVERIFY(!e.isEmpty());
        QVERIFY2(window_->errorBannerText().contains("bad.config.json"), qPrintable(window_->errorBannerText()));
        doc()->solveNow();
        waitSolved();
        QVERIFY(!window_->errorBannerText().isEmpty());
        window_->findChild<QWidget*>("errorBanner")->findChild<QToolButton*>()->click();  // closed by the user
        QVERIFY(window_->errorBannerText().isEmpty());
    }

    // Item 7: a broken spec beside a good program: the program opens on the detected split,
    // the banner says so, and the spec editor opens.
    void brokenSpecFallsBackToTheDetectedSplit() {
        const QString dir = tmp_.path() + "/spec";
        QDir().mkpath(dir);
        QVERIFY(writeFile(dir + "/t.pir", readAll(kTransformer)));
        QVERIFY(writeFile(dir + "/t.spec.json", "{ \"fwd_op_end_idx\": 12, "));
        QVERIFY(window_->openFile(dir + "/t.pir"));
        waitSolved();
        QCOMPARE(doc()->displayName(), QStringLiteral("t.pir"));
        QVERIFY(doc()->specDetected());
        QVERIFY(doc()->result() && doc()->result()->ok());
        const QString banner = window_->errorBannerText();
        QVERIFY2(banner.contains("t.spec.json") && banner.contains("detected"), qPrintable(banner));
        QTRY_VERIFY(window_->specEditor() && window_->specEditor()->isVisible());
        window_->specEditor()->reject();
        QTRY_VERIFY(!window_->specEditor());
        openTransformer();
        QVERIFY(window_->errorBannerText().isEmpty());  // a new program closes it
    }

    // Item 7: a file cut mid-name at "(%7" is an unexpected end of file, not "'%7' defined twice".
    void fileCutMidNameSaysEndOfFile() {
        const QByteArray text = readAll(kTransformer);
        const qsizetype at = text.indexOf("(%70, %71)");
        QVERIFY(at > 0);
        const QString cut = tmp_.path() + "/cut.pir";
        QVERIFY(writeFile(cut, text.left(at + 3)));  // ends in "(%7"
        QVERIFY(!window_->openFile(cut));
        const QString banner = window_->errorBannerText();
        QVERIFY2(banner.contains("end of file") && !banner.contains("defined twice"), qPrintable(banner));
        QCOMPARE(doc()->displayName(), QStringLiteral("transformer_layer.prim.pir"));  // the last good program stays
        window_->findChild<QWidget*>("errorBanner")->findChild<QToolButton*>()->click();
    }

    // Item 6: pinning a value whose producer is not recomputable says so in the config's terms,
    // with the fix one click away; the banner survives tab switches; the Summary marks the
    // stale plan; the Inspector shows the pin the graph shows.
    void unrecomputablePinIsExplained() {
        const ValueId v = doc()->findValue("%98");  // pd_op.relu's result
        QVERIFY(v != kNoId);
        QCOMPARE(QString::fromStdString(std::string(doc()->program().opName(doc()->program().value(v).definingOp))), QStringLiteral("pd_op.relu"));
        QSignalSpy failed(doc(), &Document::solveFailed);
        doc()->pinValue(v, 2);
        waitSolved();
        QCOMPARE(failed.count(), 1);
        QString banner = shownText(bannerLabel());
        QVERIFY2(banner.contains("pd_op.relu is not recomputable: add it to the list?"), qPrintable(banner));
        QVERIFY(!banner.contains("networkx"));
        QVERIFY(window_->bannerAction()->isVisible());
        QVERIFY(window_->bannerAction()->text().contains("pd_op.relu"));
        // Tab switches neither close the banner nor re-announce the plan.
        QSignalSpy results(doc(), &Document::resultChanged);
        for (const char* tab : {"flow", "text", "memory", "program"}) {
            QVERIFY(window_->showTab(tab));
            QTest::qWait(50);
        }
        QCOMPARE(results.count(), 0);
        QVERIFY(!window_->errorBannerText().isEmpty());
        QVERIFY(window_->summary()->staleReason().contains("Pin %98 recomputed"));
        QVERIFY(window_->summary()->text().contains("Stale plan"));
        doc()->select(ModelKey{ModelKey::Kind::Value, v});
        const QString inspector = window_->inspector()->browser()->toPlainText();
        QVERIFY2(inspector.contains("always recompute"), qPrintable(inspector));
        QVERIFY(inspector.contains("pin in the plan"));
        // One click: relu joins the recomputable ops.
        QTest::mouseClick(window_->bannerAction(), Qt::LeftButton);
        QVERIFY(std::find(doc()->config().recomputableOps.begin(), doc()->config().recomputableOps.end(), "pd_op.relu") !=
                doc()->config().recomputableOps.end());
        waitSolved();
        // %98 also feeds the FFN's second matmul, which no config makes recomputable (a fusion
        // loop): the next failure says that, and its one click clears the pin.
        QCOMPARE(failed.count(), 2);
        banner = shownText(bannerLabel());
        QVERIFY2(banner.contains("%98 cannot be recomputed as pinned") && banner.contains("fusion loop"), qPrintable(banner));
        QCOMPARE(window_->bannerAction()->text(), QStringLiteral("Clear the pin"));
        QTest::mouseClick(window_->bannerAction(), Qt::LeftButton);
        QCOMPARE(doc()->pinOf(v), 0);
        waitSolved();
        auto r = doc()->result();
        QVERIFY(r && r->ok());
        QVERIFY2(window_->errorBannerText().isEmpty(), qPrintable(window_->errorBannerText()));
        QVERIFY(window_->summary()->staleReason().isEmpty());
        QVERIFY(!window_->inspector()->browser()->toPlainText().contains("pin in the plan"));
    }

    // Item 4: the minimap and the legend hide from the View menu, fold on their title, and
    // never cover each other.
    void overlaysHideFoldAndKeepApart() {
        openTransformer();
        GraphCanvas* canvas = window_->programView()->canvas();
        QTRY_VERIFY_WITH_TIMEOUT(!canvas->isLayingOut() && canvas->itemCountForNodes() > 0, 30000);
        QWidget* minimap = canvas->minimapWidget();
        QWidget* legend = canvas->legendWidget();
        QTRY_VERIFY(minimap->isVisible() && legend->isVisible());
        QVERIFY(!minimap->geometry().intersects(legend->geometry()));
        auto* showMinimap = window_->findChild<QAction*>("showMinimap");
        auto* showLegend = window_->findChild<QAction*>("showLegend");
        QVERIFY(showMinimap && showLegend && showMinimap->isChecked());
        showMinimap->trigger();
        QVERIFY(!minimap->isVisible());
        showLegend->trigger();
        QVERIFY(!legend->isVisible());
        showMinimap->trigger();
        showLegend->trigger();
        QVERIFY(minimap->isVisible() && legend->isVisible());
        const int tall = legend->height();
        QTest::mouseClick(legend, Qt::LeftButton, {}, QPoint(20, 10));  // its title row
        QVERIFY(canvas->overlayCollapsed(GraphCanvas::Overlay::Legend));
        QVERIFY(legend->height() < tall / 2);
        QTest::mouseClick(legend, Qt::LeftButton, {}, QPoint(20, 10));
        QCOMPARE(legend->height(), tall);
    }

    // Item 5: clicking a layer group of the overview fills the Inspector with what the plan
    // does there.
    void layerGroupFillsTheInspector() {
        zoo::ZooOptions o;
        o.model = "transformer";
        o.layers = 6;
        const zoo::GeneratedProgram g = zoo::generateModel(o);
        const QString path = tmp_.path() + "/six.pir";
        writeProgramFile(*g.program, path.toStdString());
        writeFileAtomic((tmp_.path() + "/six.spec.json").toStdString(), zoo::specJson(g));
        QVERIFY(window_->openFile(path));
        waitSolved();
        QTRY_VERIFY_WITH_TIMEOUT(!window_->programView()->canvas()->isLayingOut(), 30000);
        uint32_t begin = UINT32_MAX;
        QString label;
        for (const auto& seg : window_->programView()->overview().segments())
            if (!seg.expanded && seg.label.contains("layer")) {
                begin = seg.begin;
                label = seg.label;
                break;
            }
        QVERIFY(begin != UINT32_MAX);
        doc()->select(ModelKey{ModelKey::Kind::Group, begin});
        const QString text = window_->inspector()->browser()->toPlainText();
        QVERIFY2(text.contains("held for the backward") && text.contains("recompute work") && text.contains("ops by type"), qPrintable(text));
        QVERIFY2(text.startsWith(label), qPrintable(text));  // the group's label heads it
    }

    // Issue 24 item 4 in the window: peaks past 8 EiB are unknown, never "Peak 0 B → 0 B".
    void peaksPastInt64AreUnknownInTheSummary() {
        const std::string huge = "builtin.tensor<1073741824x1073741824xf32>", small = "builtin.tensor<4x8xf32>";
        const QString path = tmp_.path() + "/huge.pir";
        writeFileAtomic(path.toStdString(),
                        "{\n"
                        "    (%0) = \"pd_op.data\" () {name:\"x\",stop_gradient:[false]} : () -> " + small + "\n"
                        "    (%1) = \"pd_op.relu\" (%0) {stop_gradient:[false]} : (" + small + ") -> " + small + "\n"
                        "    (%2) = \"pd_op.exp\" (%1) {stop_gradient:[false]} : (" + small + ") -> " + small + "\n"
                        "    (%3) = \"pd_op.full\" () {stop_gradient:[true]} : () -> " + huge + "\n"
                        "    (%4) = \"pd_op.full\" () {stop_gradient:[true]} : () -> " + huge + "\n"
                        "    (%5) = \"pd_op.add\" (%3, %4) {stop_gradient:[false]} : (" + huge + ", " + huge + ") -> " + small + "\n"
                        "    (%6) = \"pd_op.multiply\" (%5, %1) {stop_gradient:[false]} : (" + small + ", " + small + ") -> " + small + "\n"
                        "}\n");
        writeFileAtomic((tmp_.path() + "/huge.spec.json").toStdString(),
                        R"({"fwd_op_end_idx": 2, "backward_op_start_idx": 3, "inputs": ["%0"], "outputs": ["%2"]})");
        QVERIFY(window_->openFile(path));
        waitSolved();
        QVERIFY(doc()->result() && doc()->result()->ok());
        const QString headline = window_->summary()->headline();
        QVERIFY2(headline.startsWith("Peak unknown"), qPrintable(headline));
        QVERIFY2(!headline.contains("0 B"), qPrintable(headline));
        // No curve drawn from unknown figures (it used to feed the chart NaN ranges).
        QChartView* chart = window_->summary()->findChild<QChartView*>();
        QVERIFY(chart && chart->chart());
        QVERIFY2(chart->chart()->series().isEmpty(), "a memory curve was drawn from unknown figures");
        QVERIFY(chart->chart()->title().contains("do not fit"));
    }
};

QTEST_MAIN(DailyTest)
#include "test_daily.moc"
