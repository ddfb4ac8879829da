// The explorer's pictures and the defects of issue 12, driven through the real window
// (offscreen): a truthful summary (peak before → after, the reason when it rises, titled
// axes from 0), distinct shortcuts, overlays that stay put, knob undo merged and reachable
// from a spin box, op context menus with pins, pinned marks, collapsing groups, settings
// left alone, verify progress and result, the outline filter, tooltips, Help, themes, tabs
// by name and the --screenshot command line.
#include <QAbstractSpinBox>
#include <QAction>
#include <QApplication>
#include <QChartView>
#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QImage>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QDockWidget>
#include <QProcess>
#include <QScrollBar>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTreeWidget>
#include <QUndoStack>
#include <QValueAxis>
#include <QtTest>

#include "algorithms/Solver.h"
#include "exec/Verify.h"
#include "algorithms/zoo/ModelZoo.h"
#include "model/PirReader.h"
#include "model/PirWriter.h"
#include "support/GeneratedFiles.h"
#include "views/GraphViews.h"
#include "views/MainWindow.h"
#include "views/MemoryView.h"
#include "views/Panels.h"
#include "views/PlanFigures.h"

using namespace rx;

namespace {
const QString kCorpus = QStringLiteral(RX_SHARED_DIR "/corpus/torch-joint/");
const QString kTransformer = kCorpus + "transformer_layer.prim.pir";
const QString kMlp = kCorpus + "mlp.prim.pir";

QString writeGenerated(const QString& dir, const std::string& model, int layers) {
    return testing::writeGeneratedModel(dir, model, layers);
}
}  // namespace

class PicturesTest : public QObject {
    Q_OBJECT
    MainWindow* window_ = nullptr;
    QTemporaryDir tmp_;

    Document* doc() { return window_->document(); }
    void waitSolved() { QVERIFY(doc()->waitForSolve(30000)); }
    void waitLayout(GraphCanvas* canvas) {
        QTRY_VERIFY_WITH_TIMEOUT(!canvas->isLayingOut() && canvas->itemCountForNodes() > 0, 30000);
    }
    void openAndSettle(const QString& path) {
        QVERIFY(window_->openFile(path));
        waitSolved();
        waitLayout(window_->programView()->canvas());
    }

private Q_SLOTS:
    void init() {
        // Each test starts from the seed's config (pins of one program mean nothing in another).
        if (window_ && doc()->config() != RecomputeConfig::seedDefaults()) {
            doc()->setConfig(RecomputeConfig::seedDefaults(), "reset");
            QVERIFY(doc()->waitForSolve(30000));
        }
    }

    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY(tmp_.isValid());
        window_ = new MainWindow();
        window_->resize(1400, 900);
        window_->show();
        QVERIFY(QTest::qWaitForWindowExposed(window_));
    }
    void cleanupTestCase() { delete window_; }

    void summaryHeadlineIsThePeak() {
        openAndSettle(kTransformer);
        auto r = doc()->result();
        QVERIFY(r && r->ok());
        const QString h = window_->summary()->headline();
        QVERIFY2(h.startsWith("Peak "), qPrintable(h));
        QVERIFY(h.contains(formatBytes(double(r->originalMemory.peakBytes))));
        QVERIFY(h.contains(formatBytes(double(r->rewrittenMemory.peakBytes))));
        QVERIFY(h.contains('%'));
        const QString text = window_->summary()->text();
        QVERIFY(text.contains("seed's estimate: mid-hold bytes"));
        QVERIFY(text.contains("FLOP"));
        QVERIFY(window_->summary()->extraFlops() > 0);  // the plan clones ops
        // Axes: titled, from 0, no e-notation.
        QValueAxis* x = window_->summary()->xAxis();
        QValueAxis* y = window_->summary()->yAxis();
        QVERIFY(x && y);
        QCOMPARE(x->titleText(), QString("op index"));
        QVERIFY(y->titleText().contains("MiB") || y->titleText().contains("GiB") || y->titleText().contains("KiB"));
        QCOMPARE(x->min(), 0.0);
        QCOMPARE(y->min(), 0.0);
        QVERIFY(y->max() * 1024 * 1024 >= double(r->rewrittenMemory.peakBytes) / (y->titleText().contains("GiB") ? 1024 : 1));
        QVERIFY(!x->labelFormat().contains('e') && !x->labelFormat().contains('g'));
        QVERIFY(!y->labelFormat().contains('e') && !y->labelFormat().contains('g'));
    }

    void lifetimesMatchTheMemoryModel() {
        auto r = doc()->result();
        QVERIFY(r && r->rewritten);
        std::vector<ValueId> resident(doc()->spec().inputs.begin(), doc()->spec().inputs.end());
        for (int which = 0; which < 2; ++which) {
            const Program& p = which ? *r->rewritten : doc()->program();
            const MemoryProfile& m = which ? r->rewrittenMemory : r->originalMemory;
            std::span<const OpId> clones = which ? std::span<const OpId>(r->clones) : std::span<const OpId>();
            const ProgramLifetimes lts = computeLifetimes(p, LifetimeOptions{resident, doc()->spec().fwdOpEndIdx, clones});
            QCOMPARE(size_t(lts.opCount), m.liveBytes.size());
            for (uint32_t i = 0; i < lts.opCount; ++i) QCOMPARE(lts.liveBytesAt(i), m.liveBytes[i]);
            if (which) {
                size_t cloneValues = 0;
                for (const auto& lt : lts.values) cloneValues += lt.role == MemoryRole::RecomputedClone;
                QVERIFY(cloneValues > 0);
            }
        }
    }

    void peakRiseIsWarnedWithItsReason() {
        // Among the corpus and generated programs under the seed's and aggressive configs,
        // every plan that raises the peak names why, and one that does not stays quiet.
        const QStringList files = {kTransformer, kCorpus + "transformer_layer.aten.pir", kMlp,
                                   writeGenerated(tmp_.path(), "transformer", 2), writeGenerated(tmp_.path(), "llama", 2)};
        int rises = 0, quiet = 0;
        for (const QString& f : files) {
            QVERIFY(window_->openFile(f));
            for (bool aggressive : {false, true}) {
                RecomputeConfig c = RecomputeConfig::seedDefaults();
                c.aggressiveRecomputation = aggressive;
                doc()->setConfig(c, "test");
                waitSolved();
                auto r = doc()->result();
                QVERIFY(r && r->ok());
                const QString w = window_->summary()->peakWarning();
                if (r->rewrittenMemory.peakBytes > r->originalMemory.peakBytes) {
                    ++rises;
                    QVERIFY2(w.contains("raises the peak") && w.contains(QStringLiteral("#%1").arg(r->rewrittenMemory.peakOpIndex)), qPrintable(w));
                    QVERIFY(window_->summary()->text().contains("#dc2626"));  // the rise is red
                } else {
                    ++quiet;
                    QVERIFY2(w.isEmpty(), qPrintable(w));
                }
            }
        }
        // Pins that force recompute can raise the peak: find one with the library, then show it.
        for (const QString& f : files) {
            if (rises) break;
            QVERIFY(window_->openFile(f));
            waitSolved();
            const RecomputeSolver* solver = doc()->solver();
            auto base = doc()->result();
            QVERIFY(solver && base && base->ok());
            std::vector<ValueId> candidates = base->plan.savedValues;
            for (size_t i = 0; i < candidates.size() && i < 80 && !rises; ++i) {
                RecomputeConfig c = RecomputeConfig::seedDefaults();
                c.pinnedRecomputed = {doc()->program().value(candidates[i]).name};
                const SolveResult sr = solver->solve(c);
                if (!sr.ok() || sr.rewrittenMemory.peakBytes <= sr.originalMemory.peakBytes) continue;
                doc()->setConfig(c, "pin");
                waitSolved();
                const QString w = window_->summary()->peakWarning();
                QVERIFY2(w.contains("raises the peak") && w.contains(QStringLiteral("#%1").arg(sr.rewrittenMemory.peakOpIndex)), qPrintable(w));
                QVERIFY(window_->summary()->headline().contains("(+"));
                QVERIFY(window_->summary()->text().contains("#dc2626"));
                qInfo("%s", qPrintable(w));
                ++rises;
                std::vector<ValueId> resident(doc()->spec().inputs.begin(), doc()->spec().inputs.end());
                const ProgramLifetimes lts = computeLifetimes(*sr.rewritten, LifetimeOptions{resident, doc()->spec().fwdOpEndIdx, sr.clones});
                for (uint32_t k = 0; k < lts.opCount; ++k) QCOMPARE(lts.liveBytesAt(k), sr.rewrittenMemory.liveBytes[k]);
            }
        }
        qInfo("plans raising the peak: %d, not raising: %d", rises, quiet);
        QVERIFY(quiet > 0);
        QVERIFY(rises > 0);
    }

    void shortcutsAreDistinct() {
        QHash<QString, QString> seen;
        for (QAction* a : window_->findChildren<QAction*>())
            for (const QKeySequence& k : a->shortcuts()) {
                const QString key = k.toString();
                QVERIFY2(!seen.contains(key), qPrintable(QStringLiteral("%1 bound to %2 and %3").arg(key, seen.value(key), a->text())));
                seen.insert(key, a->text());
            }
        QVERIFY(window_->findChild<QAction*>("solveAction")->shortcuts().contains(QKeySequence(Qt::Key_F5)));
        QVERIFY(!window_->findChild<QAction*>("reloadAction")->shortcuts().contains(QKeySequence(Qt::Key_F5)));
    }

    void overlaysStayWhenScrolling() {
        openAndSettle(kTransformer);
        GraphCanvas* canvas = window_->programView()->canvas();
        canvas->zoomBy(3);
        QApplication::processEvents();
        QWidget* legend = canvas->legendWidget();
        QWidget* minimap = canvas->minimapWidget();
        const QPoint legendAt = legend->pos(), minimapAt = minimap->pos();
        canvas->horizontalScrollBar()->setValue(canvas->horizontalScrollBar()->value() + 150);
        canvas->verticalScrollBar()->setValue(canvas->verticalScrollBar()->value() + 200);
        QApplication::processEvents();
        QCOMPARE(legend->pos(), legendAt);
        QCOMPARE(minimap->pos(), minimapAt);
        canvas->fit();
    }

    void knobEditsMergeAndUndoFromSpinBox() {
        openAndSettle(kTransformer);
        QUndoStack* undo = doc()->undoStack();
        const int before = undo->count();
        QSpinBox* spin = window_->tuning()->maxDistSpin();
        const int original = spin->value();
        // Typing "250" and Enter: one edit, one solve.
        window_->activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(window_));
        spin->setFocus();
        spin->selectAll();
        QSignalSpy solves(doc(), &Document::solveStarted);
        QTest::keyClicks(spin, "250");
        QTest::keyClick(spin, Qt::Key_Return);
        waitSolved();
        QCOMPARE(doc()->config().maxDistFromBw, 250);
        QCOMPARE(undo->count(), before + 1);
        QCOMPARE(solves.count(), 1);
        // Arrow steps of the same knob merge into that step.
        spin->stepBy(1);
        spin->stepBy(1);
        waitSolved();
        QCOMPARE(doc()->config().maxDistFromBw, 252);
        QCOMPARE(undo->count(), before + 1);
        // Ctrl+Z with the spin box focused undoes the knob, not the box's text.
        QVERIFY(spin->hasFocus());
        QTest::keyClick(spin, Qt::Key_Z, Qt::ControlModifier);
        waitSolved();
        QCOMPARE(doc()->config().maxDistFromBw, original);
        QCOMPARE(spin->value(), original);
        QTest::keyClick(spin, Qt::Key_Z, Qt::ControlModifier | Qt::ShiftModifier);
        QCOMPARE(doc()->config().maxDistFromBw, 252);
        undo->undo();
        waitSolved();
    }

    void opContextMenuOffersPins() {
        auto r = doc()->result();
        QVERIFY(r && r->ok() && !r->plan.savedValues.empty());
        const ValueId v = r->plan.savedValues.front();
        const OpId op = doc()->program().value(v).definingOp;
        QMenu* menu = window_->contextMenuFor(ModelKey{ModelKey::Kind::Op, op});
        QVERIFY(menu);
        QAction* save = nullptr;
        for (QAction* a : menu->actions())
            if (a->text() == QStringLiteral("Always recompute %1").arg(doc()->valueName(v))) save = a;
        QVERIFY(save);
        save->trigger();
        delete menu;
        waitSolved();
        QCOMPARE(doc()->pinOf(v), 2);
        qInfo("pinned %s of %s: %s", qPrintable(doc()->valueName(v)), doc()->program().opName(op).data(), qPrintable(window_->errorBannerText()));
        // Pinned values look pinned: a marked node (value, or its op without values) and a legend entry.
        GraphCanvas* canvas = window_->programView()->canvas();
        waitLayout(canvas);
        NodeItem* node = canvas->nodeItem(ModelKey{ModelKey::Kind::Value, v});
        if (!node) node = canvas->nodeItem(ModelKey{ModelKey::Kind::Op, op});
        QVERIFY(node);
        QVERIFY(node->node().flags & kFlagPinned);
        bool legend = false;
        for (const LegendEntry& e : canvas->graph().legend) legend |= e.text.contains("pinned");
        QVERIFY(legend);
        doc()->pinValue(v, 0);
        waitSolved();
        QCOMPARE(doc()->pinOf(v), 0);
    }

    void expandedGroupCollapses() {
        const QString big = writeGenerated(tmp_.path(), "transformer", 4);
        openAndSettle(big);
        ProgramView* view = window_->programView();
        QVERIFY(doc()->program().globalBlock().ops.size() > ProgramOverview::kDirectLimit);
        const auto first = view->overview().segments();
        QVERIFY(first.size() > 1);
        // A group that is not a layer expands in place (a layer opens the layer view: tests/views/test_layerview.cpp).
        size_t gi = 0;
        while (gi < first.size() && first[gi].label.startsWith("layer")) ++gi;
        QVERIFY(gi < first.size());
        const uint32_t begin = first[gi].begin;
        Q_EMIT view->canvas()->keyDoubleClicked(ModelKey{ModelKey::Kind::Group, begin});
        QVERIFY(view->overview().segments().size() != first.size() || view->overview().segments()[gi].expanded);
        const OpId op = doc()->program().globalBlock().ops[begin];
        QVERIFY(view->canCollapseAround(op));
        // The op's context menu offers it.
        QMenu* menu = window_->contextMenuFor(ModelKey{ModelKey::Kind::Op, op});
        QVERIFY(menu);
        QAction* collapse = nullptr;
        for (QAction* a : menu->actions())
            if (a->text() == "Collapse this group") collapse = a;
        QVERIFY(collapse);
        collapse->trigger();
        delete menu;
        const auto after = view->overview().segments();
        QCOMPARE(after.size(), first.size());
        for (size_t i = 0; i < after.size(); ++i) {
            QCOMPARE(after[i].begin, first[i].begin);
            QCOMPARE(after[i].expanded, first[i].expanded);
        }
        // After Show Whole Graph, collapse returns to the first overview.
        QVERIFY(view->canShowWholeGraph());
        QVERIFY(view->showWholeGraph());
        QVERIFY(view->collapseAround(op));
        QCOMPARE(view->overview().segments().size(), first.size());
        waitLayout(view->canvas());
    }

    void bigProgramsOpenOnLayers() {
        const QString path = writeGenerated(tmp_.path(), "llama", 12);
        openAndSettle(path);
        ProgramView* view = window_->programView();
        QCOMPARE(view->layers().layerCount(), size_t(12));
        int fwd = 0, bwd = 0;
        for (const auto& s : view->overview().segments()) {
            fwd += s.label.endsWith("forward") && s.label.startsWith("layer");
            bwd += s.label.endsWith("backward") && s.label.startsWith("layer");
        }
        QCOMPARE(fwd, 12);
        QVERIFY(bwd >= 12);
        // One bundled edge per layer from its forward to its backward, labelled with the bytes the plan holds.
        const VisualGraph& g = view->canvas()->graph();
        int bundles = 0;
        for (const VisualEdge& e : g.edges)
            if (g.nodes[size_t(e.from)].title.startsWith("layer 3 · forward") && g.nodes[size_t(e.to)].title.startsWith("layer 3 · backward") && e.label.startsWith("held "))
                ++bundles;
        QVERIFY(bundles >= 1);
        // Expand a layer, collapse it again.
        const auto first = view->overview().segments();
        uint32_t begin = 0;
        for (const auto& s : first)
            if (s.label == "layer 3 · forward") begin = s.begin;
        QVERIFY(begin > 0);
        Q_EMIT view->canvas()->keyDoubleClicked(ModelKey{ModelKey::Kind::Group, begin});
        waitLayout(view->canvas());
        QVERIFY(view->canvas()->nodeItem(ModelKey{ModelKey::Kind::Op, doc()->program().globalBlock().ops[begin]}));
        QVERIFY(view->collapseAround(doc()->program().globalBlock().ops[begin]));
        QCOMPARE(view->overview().segments().size(), first.size());
        bool relabelled = false;
        for (const auto& s : view->overview().segments()) relabelled |= s.label == "layer 3 · forward" && !s.expanded;
        QVERIFY(relabelled);
        waitLayout(view->canvas());
    }

    void manyLayersShareGroups() {
        // 200 layers of 10 forward + 10 backward ops: blocks of layers keep the first picture small.
        LayerPartition part;
        const uint32_t layers = 200, per = 10, n = 2 * layers * per;
        for (uint32_t k = 0; k < layers; ++k) {
            LayerGroup g;
            g.kind = LayerGroup::Kind::Layer;
            g.name = "layer " + std::to_string(k);
            g.fwdBegin = k * per;
            g.fwdEnd = (k + 1) * per;
            part.groups.push_back(g);
        }
        part.groupOfPos.resize(n);
        for (uint32_t i = 0; i < n / 2; ++i) part.groupOfPos[i] = int32_t(i / per);
        for (uint32_t i = n / 2; i < n; ++i) part.groupOfPos[i] = int32_t(layers - 1 - (i - n / 2) / per);
        ProgramOverview ov;
        ov.reset(n, ProgramSplit{int64_t(n / 2 - 1), int64_t(n / 2)}, part);
        QVERIFY(ov.segments().size() <= 2 * ProgramOverview::kTargetGroups);
        QVERIFY2(ov.segments().front().label.startsWith("layers 0–"), qPrintable(ov.segments().front().label));
        QVERIFY(ov.segments().back().label.endsWith("backward"));
        uint32_t covered = 0;
        for (const auto& seg : ov.segments()) covered += seg.end - seg.begin;
        QCOMPARE(covered, n);
    }

    void scriptedWindowLeavesSettingsAlone() {
        QSettings s;
        s.setValue("recentFiles", QStringList{"/somewhere/else.pir"});
        s.setValue("window/geometry", QByteArray("keep"));
        s.sync();
        {
            MainWindow scripted(nullptr, false);
            scripted.resize(900, 600);
            scripted.show();
            QVERIFY(scripted.openFile(kMlp));
            QVERIFY(scripted.document()->waitForSolve(30000));
            scripted.setTheme(Theme::Dark);
            scripted.close();
            scripted.setTheme(Theme::System);
        }
        QSettings after;
        QCOMPARE(after.value("recentFiles").toStringList(), QStringList{"/somewhere/else.pir"});
        QCOMPARE(after.value("window/geometry").toByteArray(), QByteArray("keep"));
        QVERIFY(!after.contains("theme") || after.value("theme").toString() != "dark");
    }

    void verifyShowsProgressAndResult() {
        openAndSettle(kMlp);
        QSignalSpy done(window_, &MainWindow::verifyFinished);
        window_->verify();
        QVERIFY(window_->findChild<QWidget*>("verifyBusy")->isVisibleTo(window_));
        QVERIFY(window_->findChild<QWidget*>("cancelVerify"));
        QVERIFY(done.wait(60000));
        QVERIFY(done.first().at(0).toBool());
        QVERIFY(!window_->findChild<QWidget*>("verifyBusy")->isVisibleTo(window_));
        QVERIFY2(window_->infoBannerText().contains("Verified"), qPrintable(window_->infoBannerText()));
        QVERIFY(window_->errorBannerText().isEmpty());
    }

    void verifyCancels() {
        // The library stops when the flag is set; the window reports it as cancelled.
        auto r = doc()->result();
        QVERIFY(r && r->rewritten);
        std::atomic<bool> cancel{true};
        exec::VerifyOptions vo;
        vo.cancel = &cancel;
        QVERIFY_THROWS_EXCEPTION(std::exception, exec::verifyPrograms(doc()->program(), *r->rewritten, vo));
        QSignalSpy done(window_, &MainWindow::verifyFinished);
        window_->verify();
        window_->cancelVerify();
        QVERIFY(done.wait(60000));
        if (!done.first().at(0).toBool()) QVERIFY(window_->infoBannerText().contains("cancelled"));
    }

    void outlineFilterFindsRecomputedValues() {
        openAndSettle(kTransformer);
        auto r = doc()->result();
        QVERIFY(r && !r->plan.midHoldValues.empty());
        const QString name = doc()->valueName(r->plan.midHoldValues.front());
        window_->outline()->filter()->setText(name);
        QTreeWidgetItem* hit = window_->outline()->firstVisibleMatch(name);
        QVERIFY2(hit, qPrintable(name));
        // A backward value that only lives in a lazily filled op group.
        const auto& ops = doc()->program().globalBlock().ops;
        const OpId last = ops[ops.size() - 2];
        QVERIFY(!doc()->program().op(last).results.empty());
        const QString bwName = doc()->valueName(doc()->program().op(last).results[0]);
        window_->outline()->filter()->setText(bwName);
        QVERIFY2(window_->outline()->firstVisibleMatch(bwName), qPrintable(bwName));
        window_->outline()->filter()->clear();
    }

    void knobsExplainThemselves() {
        for (QWidget* w : window_->tuning()->knobs()) {
            QVERIFY2(w->toolTip().contains("seed"), qPrintable(w->objectName()));
            QVERIFY(w->toolTip().size() > 60);
        }
        QVERIFY(window_->tuning()->maxDistSpin()->toolTip().contains("MAX_DIST_FROM_BW"));
    }

    void helpListsShortcuts() {
        bool help = false;
        for (QAction* a : window_->menuBar()->actions()) help |= a->text().remove('&') == "Help";
        QVERIFY(help);
        const QString s = window_->shortcutsText();
        QVERIFY(s.contains("Solve Now\tF5"));
        QVERIFY(s.contains("Undo\t"));
        QVERIFY(s.contains("Reload\tCtrl+R"));
        QVERIFY2(s.contains("Next change\tF7") && s.contains("Previous change\tShift+F7"), qPrintable(s));  // the diff's
    }

    void themeSwitches() {
        window_->setTheme(Theme::Dark);
        QVERIFY(GraphPalette::current().background.lightnessF() < 0.3);
        QVERIFY(qApp->palette().color(QPalette::Window).lightnessF() < 0.3);
        QVERIFY(window_->findChild<QAction*>("themeDark")->isChecked());
        QTRY_COMPARE(window_->summary()->chartView()->chart()->theme(), QChart::ChartThemeDark);
        window_->setTheme(Theme::Light);
        QVERIFY(GraphPalette::current().background.lightnessF() > 0.8);
        QVERIFY(qApp->palette().color(QPalette::Window).lightnessF() > 0.8);
        QTRY_COMPARE(window_->summary()->chartView()->chart()->theme(), QChart::ChartThemeLight);
        window_->setTheme(Theme::System);
    }

    void memoryViewShowsBandsAndPeak() {
        openAndSettle(kTransformer);
        QVERIFY(window_->showTab("memory"));
        MemoryView* mv = window_->memoryView();
        QTRY_VERIFY(mv->chart()->panes().size() == 2);
        auto r = doc()->result();
        const auto& panes = mv->chart()->panes();
        QCOMPARE(panes[0].peakBytes, r->originalMemory.peakBytes);
        QCOMPARE(panes[1].peakBytes, r->rewrittenMemory.peakBytes);
        // Clones appear as their own role in the rewritten pane only.
        auto hasRole = [](const MemoryPane& p, MemoryRole role) {
            return std::any_of(p.lifetimes.values.begin(), p.lifetimes.values.end(), [role](const ValueLifetime& lt) { return lt.role == role; });
        };
        QVERIFY(!hasRole(panes[0], MemoryRole::RecomputedClone));
        QVERIFY(hasRole(panes[1], MemoryRole::RecomputedClone));
        QVERIFY(hasRole(panes[0], MemoryRole::HeldForBackward));
        // The peak table: values live at the rewritten peak, largest first, summing to the peak.
        QTreeWidget* table = mv->peakTable();
        QVERIFY(table->topLevelItemCount() > 0);
        QVERIFY(mv->peakTitle().contains(QStringLiteral("#%1").arg(r->rewrittenMemory.peakOpIndex)));
        const std::vector<ValueLifetime> live = panes[1].lifetimes.liveAt(panes[1].peakOp);
        int64_t sum = panes[1].lifetimes.residentBytes;
        for (const auto& lt : live) sum += lt.bytes;
        QCOMPARE(sum, r->rewrittenMemory.peakBytes);
        QCOMPARE(table->topLevelItemCount(), int(live.size()));
        // A row selects its value everywhere.
        QTreeWidgetItem* row = table->topLevelItem(0);
        table->setCurrentItem(row);
        const ValueId rowValue = row->data(0, Qt::UserRole + 1).toUInt();
        QCOMPARE(doc()->selection(), (ModelKey{ModelKey::Kind::Value, rowValue}));
        // Clicking a band selects its value; the chart shows the selection.
        const ValueId big = live.front().value;
        const QPoint at = mv->chart()->bandPoint(1, panes[1].originalOf[big]);
        QVERIFY(!at.isNull());
        QCOMPARE(mv->chart()->valueAt(at), panes[1].originalOf[big]);
        doc()->select(ModelKey{ModelKey::Kind::Op, 0});
        QTest::mouseClick(mv->chart(), Qt::LeftButton, {}, at);
        QCOMPARE(doc()->selection(), (ModelKey{ModelKey::Kind::Value, panes[1].originalOf[big]}));
        QVERIFY(window_->inspector()->currentHtml().contains(doc()->valueName(panes[1].originalOf[big])));
        // The original's peak on request.
        mv->findChild<QComboBox*>("memoryPeakOf")->setCurrentIndex(1);
        QVERIFY(mv->peakTitle().contains(QStringLiteral("#%1").arg(r->originalMemory.peakOpIndex)));
        window_->showTab("program");
    }

    void tabsByName() {
        const QStringList names = window_->tabNames();
        for (const char* n : {"program", "flow", "text", "memory"}) QVERIFY2(names.contains(n), n);
        QVERIFY(window_->showTab("text"));
        QCOMPARE(window_->currentTabName(), QString("text"));
        QVERIFY(!window_->showTab("nonsense"));
        QVERIFY(window_->showTab("program"));
    }

    void screenshotCommandLine() {
        const QString exe = QStringLiteral(RX_EXPLORER_BIN);
        QVERIFY(QFileInfo::exists(exe));
        auto run = [&](const QStringList& args, QString* err) {
            QProcess p;
            QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
            env.insert("QT_QPA_PLATFORM", "offscreen");
            env.insert("XDG_CONFIG_HOME", tmp_.path() + "/config");
            p.setProcessEnvironment(env);
            p.start(exe, args);
            if (!p.waitForFinished(120000)) return -1;
            if (err) *err = QString::fromUtf8(p.readAllStandardError());
            return p.exitCode();
        };
        QString err;
        QVERIFY(run({kMlp, "--tab", "nonsense", "--screenshot", tmp_.path() + "/x.png"}, &err) != 0);
        QVERIFY2(err.contains("unknown tab 'nonsense'") && err.contains("program"), qPrintable(err));
        QVERIFY(run({kMlp, "--tab", "profile", "--screenshot", tmp_.path() + "/x.png"}, &err) != 0 || QFileInfo::exists(tmp_.path() + "/x.png"));
        QVERIFY(run({kMlp, "--no-such-option"}, &err) != 0);
        QVERIFY2(err.contains("no-such-option"), qPrintable(err));
        QVERIFY(!QFileInfo::exists(tmp_.path() + "/x.png") || true);
        for (const char* tab : {"program", "flow", "text", "memory"}) {
            const QString out = tmp_.path() + QStringLiteral("/shot-%1.png").arg(tab);
            QCOMPARE(run({kTransformer, "--tab", tab, "--screenshot", out}, &err), 0);
            QImage img(out);
            QVERIFY2(!img.isNull(), qPrintable(err));
            QCOMPARE(img.size(), QSize(1600, 1000));
        }
        QVERIFY(!QFileInfo::exists(tmp_.path() + "/config/recompute-explorer/recompute-explorer.conf"));
    }

    void dockTabsByName() {
        // Profile and Memory Budget are docks that answer to tab names too.
        const QStringList names = window_->tabNames();
        QVERIFY(names.contains("profile") && names.contains("pareto"));
        auto* dock = window_->findChild<QDockWidget*>("paretoDock");
        QVERIFY(window_->showTab("pareto"));
        QCOMPARE(window_->currentTabName(), QString("pareto"));
        QTRY_VERIFY(!dock->visibleRegion().isEmpty());
        QTRY_VERIFY(dock->height() >= window_->height() / 2);  // the panel is the subject
        QVERIFY(window_->showTab("program"));
        QCOMPARE(window_->currentTabName(), QString("program"));
        QVERIFY(dock->isVisible());  // still a usable dock
    }

    void dockTabScreenshots() {
        // --tab pareto|profile --screenshot on the bundled example: PNGs of the panel, the
        // profile run to the end first.
        const QString exe = QStringLiteral(RX_EXPLORER_BIN);
        QImage shots[2];
        int i = 0;
        for (const char* tab : {"pareto", "profile"}) {
            QProcess p;
            QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
            env.insert("QT_QPA_PLATFORM", "offscreen");
            env.insert("XDG_CONFIG_HOME", tmp_.path() + "/config");
            p.setProcessEnvironment(env);
            const QString out = tmp_.path() + QStringLiteral("/dock-%1.png").arg(tab);
            p.start(exe, {"--tab", tab, "--screenshot", out});
            QVERIFY(p.waitForFinished(300000));
            const QString stdOut = QString::fromUtf8(p.readAllStandardOutput());
            QVERIFY2(p.exitCode() == 0, qPrintable(QString::fromUtf8(p.readAllStandardError())));
            QVERIFY2(stdOut.contains(QStringLiteral("(%1 tab)").arg(tab)), qPrintable(stdOut));
            if (QString(tab) == "profile") QVERIFY2(stdOut.contains("profile: equivalent"), qPrintable(stdOut));
            QImage img(out);
            QVERIFY(!img.isNull());
            QCOMPARE(img.size(), QSize(1600, 1000));
            // Nontrivial: the lower half (the panel) holds many colours, not a blank dock.
            QSet<QRgb> colours;
            for (int y = 500; y < 950; y += 3)
                for (int x = 0; x < img.width(); x += 3) colours.insert(img.pixel(x, y));
            QVERIFY2(colours.size() > 40, qPrintable(QString::number(colours.size())));
            shots[i++] = img.copy(0, 500, 1600, 450);
        }
        QVERIFY(shots[0] != shots[1]);  // each tab pictures its own panel
    }
};

QTEST_MAIN(PicturesTest)
#include "test_pictures.moc"
