#include "views/MainWindow.h"
#include "views/ProfilePanel.h"
#include "views/ParetoPanel.h"

#include <QAction>
#include <QBuffer>
#include <QApplication>
#include <QCloseEvent>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPainter>
#include <QPdfWriter>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSaveFile>
#include <QScrollArea>
#include <QSettings>
#include <QSpinBox>
#include <QStandardPaths>
#include <QStatusBar>
#include <QSvgGenerator>
#include <QTabWidget>
#include <QTime>
#include <QTimer>
#include <QToolBar>
#include <QToolButton>
#include <QVBoxLayout>
#include <QtConcurrent>
#include <cmath>

#include "model/PirWriter.h"
#include "views/GenerateDialog.h"
#include "views/GraphViews.h"
#include "views/Panels.h"
#include "algorithms/SolveReport.h"
#include "views/SpecSupport.h"
#include "views/TextView.h"

// Resources of a static library must be registered explicitly (outside any namespace).
static void initExplorerResources() { Q_INIT_RESOURCE(explorer); }

namespace rx {

namespace {

QString writeAtomically(const QString& path, const QByteArray& bytes) {
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly)) return QObject::tr("cannot write %1: %2").arg(path, f.errorString());
    f.write(bytes);
    if (!f.commit()) return QObject::tr("cannot write %1: %2").arg(path, f.errorString());
    return {};
}


}  // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent), doc_(new Document(this)) {
    initExplorerResources();
    setWindowTitle(tr("Recompute Explorer"));
    setAcceptDrops(true);
    setDockNestingEnabled(true);

    auto* central = new QWidget(this);
    auto* cl = new QVBoxLayout(central);
    cl->setContentsMargins(0, 0, 0, 0);
    cl->setSpacing(0);
    banner_ = new QWidget(central);
    banner_->setObjectName("errorBanner");
    banner_->setStyleSheet("#errorBanner { background: #fde8e8; border-bottom: 1px solid #f5a3a3; } QLabel { color: #9b1c1c; }");
    auto* bl = new QHBoxLayout(banner_);
    bl->setContentsMargins(10, 6, 6, 6);
    bannerText_ = new QLabel(banner_);
    bannerText_->setWordWrap(true);
    bannerText_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* close = new QToolButton(banner_);
    close->setText(QStringLiteral("\u2715"));
    close->setAutoRaise(true);
    bl->addWidget(bannerText_, 1);
    bl->addWidget(close);
    banner_->hide();
    connect(close, &QToolButton::clicked, this, &MainWindow::hideError);
    tabs_ = new QTabWidget(central);
    tabs_->setDocumentMode(true);
    programView_ = new ProgramView(doc_, tabs_);
    flowView_ = new FlowView(doc_, tabs_);
    textView_ = new TextView(doc_, tabs_);
    tabs_->addTab(programView_, tr("Program graph"));
    tabs_->addTab(flowView_, tr("Flow network"));
    tabs_->addTab(textView_, tr("Text / Diff"));
    cl->addWidget(banner_);
    cl->addWidget(tabs_, 1);
    setCentralWidget(central);
    connect(tabs_, &QTabWidget::currentChanged, this, [this](int i) {
        if (i == 1) QMetaObject::invokeMethod(flowView_, [this] {
            // The flow tab lays out on first sight (it costs a layout).
            if (flowView_->canvas()->graph().nodes.empty() && doc_->result()) Q_EMIT doc_->resultChanged({});
        }, Qt::QueuedConnection);
    });

    buildDocks();
    buildActions();

    statusFile_ = new QLabel(this);
    statusNumbers_ = new QLabel(this);
    statusNumbers_->setObjectName("statusNumbers");
    statusTimes_ = new QLabel(this);
    statusBar()->addWidget(statusFile_);
    statusBar()->addWidget(statusNumbers_, 1);
    statusBar()->addPermanentWidget(statusTimes_);

    connect(doc_, &Document::programChanged, this, [this] {
        hideError();
        setWindowTitle(tr("%1 — Recompute Explorer").arg(doc_->displayName()));
        updateStatus();
    });
    connect(doc_, &Document::resultChanged, this, [this] {
        hideError();
        updateStatus();
    });
    connect(doc_, &Document::solveStarted, this, [this] { statusTimes_->setText(tr("solving…")); });
    connect(doc_, &Document::loadFailed, this, &MainWindow::showError);
    connect(doc_, &Document::solveFailed, this, [this](const QString& m) {
        showError(tr("Solve failed (showing the last good plan): %1").arg(m));
        updateStatus();
    });
    connect(doc_, &Document::logMessage, this, &MainWindow::log);
    connect(programView_, &ProgramView::contextMenuForValue, this, &MainWindow::showValueMenu);
    connect(programView_->canvas(), &GraphCanvas::layoutFinished, this, [this] { updateStatus(); });
    connect(flowView_->canvas(), &GraphCanvas::keyContextMenu, this, [this](ModelKey k, QPoint pos) {
        if (k.kind == ModelKey::Kind::Value) showValueMenu(k.id, pos);
    });
    connect(&verifyWatcher_, &QFutureWatcher<VerifyRun>::finished, this, [this] {
        verifyAction_->setEnabled(true);
        const VerifyRun out = verifyWatcher_.result();
        if (!out.report) {
            showError(tr("Verify: %1").arg(QString::fromStdString(out.error)));
            Q_EMIT verifyFinished(false, QString::fromStdString(out.error));
            return;
        }
        const QString s = QString::fromStdString(out.report->summary());
        Q_EMIT verifyFinished(out.report->equivalent, s);
        log(tr("Verify: %1").arg(s));
        statusBar()->showMessage(out.report->equivalent ? tr("Verified: rewritten program is equivalent") : tr("Verify: DIFFERENT"), 8000);
        if (!out.report->equivalent) showError(tr("Verify found a difference: %1").arg(s));
    });

    QSettings settings;
    restoreGeometry(settings.value("window/geometry").toByteArray());
    restoreState(settings.value("window/state").toByteArray());
    if (!settings.contains("window/geometry")) {
        resize(1560, 960);
        // Dock sizes only apply once the window has its size.
        QTimer::singleShot(0, this, [this] {
            auto* inspector = findChild<QDockWidget*>("inspectorDock");
            auto* tuning = findChild<QDockWidget*>("tuningDock");
            auto* outline = findChild<QDockWidget*>("outlineDock");
            auto* summary = findChild<QDockWidget*>("summaryDock");
            resizeDocks({outline, inspector}, {250, 370}, Qt::Horizontal);
            resizeDocks({inspector, tuning}, {height() * 45 / 100, height() * 40 / 100}, Qt::Vertical);
            resizeDocks({summary}, {200}, Qt::Vertical);
        });
    }
    updateRecentMenu();
    updateStatus();
}

MainWindow::~MainWindow() { verifyWatcher_.waitForFinished(); }

void MainWindow::buildDocks() {
    auto dock = [this](const QString& title, const char* name, QWidget* w, Qt::DockWidgetArea area) {
        auto* d = new QDockWidget(title, this);
        d->setObjectName(name);
        d->setWidget(w);
        addDockWidget(area, d);
        return d;
    };
    outline_ = new OutlinePanel(doc_, this);
    inspector_ = new InspectorPanel(doc_, this);
    tuning_ = new TuningPanel(doc_, this);
    summary_ = new SummaryPanel(doc_, this);
    log_ = new QPlainTextEdit(this);
    log_->setObjectName("logText");
    log_->setReadOnly(true);
    log_->setMaximumBlockCount(5000);
    auto* dOutline = dock(tr("Outline"), "outlineDock", outline_, Qt::LeftDockWidgetArea);
    auto* dInspector = dock(tr("Inspector"), "inspectorDock", inspector_, Qt::RightDockWidgetArea);
    // In a scroll area so the inspector above can take most of the height.
    auto* tuningScroll = new QScrollArea(this);
    tuningScroll->setWidget(tuning_);
    tuningScroll->setWidgetResizable(true);
    tuningScroll->setFrameShape(QFrame::NoFrame);
    tuningScroll->setMinimumHeight(120);
    auto* dTuning = dock(tr("Tuning"), "tuningDock", tuningScroll, Qt::RightDockWidgetArea);
    auto* dSummary = dock(tr("Summary"), "summaryDock", summary_, Qt::BottomDockWidgetArea);
    auto* dLog = dock(tr("Log"), "logDock", log_, Qt::BottomDockWidgetArea);
    splitDockWidget(dInspector, dTuning, Qt::Vertical);
    tabifyDockWidget(dSummary, dLog);
    tabifyDockWidget(dSummary, dock(tr("Profile"), "profileDock", new ProfilePanel(doc_, this), Qt::BottomDockWidgetArea));
    auto* pareto = new ParetoPanel(this);  // memory-budget frontier (algorithms/planner)
    pareto->attach(doc_);
    tabifyDockWidget(dSummary, dock(tr("Memory Budget"), "paretoDock", pareto, Qt::BottomDockWidgetArea));
    dSummary->raise();
    resizeDocks({dOutline}, {250}, Qt::Horizontal);
    resizeDocks({dInspector}, {360}, Qt::Horizontal);
    resizeDocks({dSummary}, {190}, Qt::Vertical);
    resizeDocks({dInspector, dTuning}, {450, 350}, Qt::Vertical);
}

void MainWindow::buildActions() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    QAction* open = file->addAction(tr("&Open…"), this, &MainWindow::openDialog);
    open->setShortcut(QKeySequence::Open);
    QMenu* examples = file->addMenu(tr("Open &Example"));
    for (const QString& name : exampleNames()) examples->addAction(name, this, [this, name] { openExample(name); });
    recentMenu_ = file->addMenu(tr("Open &Recent"));
    file->addAction(tr("&Generate Model…"), this, &MainWindow::showGenerateDialog);
    QAction* reload = file->addAction(tr("Re&load"), this, [this] {
        if (!doc_->filePath().isEmpty()) openFile(doc_->filePath());
    });
    reload->setShortcut(QKeySequence::Refresh);
    file->addSeparator();
    QAction* exportAct = file->addAction(tr("&Export…"), this, &MainWindow::exportDialog);
    exportAct->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    file->addAction(tr("Load Config…"), this, [this] {
        const QString p = QFileDialog::getOpenFileName(this, tr("Load config"), {}, tr("Config (*.json)"));
        if (!p.isEmpty()) {
            const QString e = loadConfig(p);
            if (!e.isEmpty()) showError(e);
        }
    });
    file->addAction(tr("Save Config…"), this, [this] {
        const QString p = QFileDialog::getSaveFileName(this, tr("Save config"), "recompute.config.json", tr("Config (*.json)"));
        if (!p.isEmpty()) {
            const QString e = exportConfig(p);
            if (!e.isEmpty()) showError(e);
        }
    });
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);

    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    QAction* undo = doc_->undoStack()->createUndoAction(this, tr("&Undo"));
    undo->setShortcut(QKeySequence::Undo);
    QAction* redo = doc_->undoStack()->createRedoAction(this, tr("&Redo"));
    redo->setShortcuts({QKeySequence::Redo, QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z)});
    edit->addAction(undo);
    edit->addAction(redo);
    edit->addSeparator();
    QAction* find = edit->addAction(tr("&Find…"), this, [this] {
        search_->setFocus();
        search_->selectAll();
    });
    find->setShortcut(QKeySequence::Find);

    QMenu* view = menuBar()->addMenu(tr("&View"));
    auto current = [this]() -> GraphCanvas* { return tabs_->currentIndex() == 1 ? flowView_->canvas() : programView_->canvas(); };
    view->addAction(tr("&Fit"), this, [current] { current()->fit(); });
    view->addAction(tr("Zoom &In"), QKeySequence::ZoomIn, this, [current] { current()->zoomBy(1.25); });
    view->addAction(tr("Zoom &Out"), QKeySequence::ZoomOut, this, [current] { current()->zoomBy(0.8); });
    view->addAction(tr("Show &Whole Graph"), this, [this] { programView_->showWholeGraph(); });
    view->addSeparator();
    for (QDockWidget* d : findChildren<QDockWidget*>()) view->addAction(d->toggleViewAction());

    QMenu* tools = menuBar()->addMenu(tr("&Tools"));
    QAction* spec = tools->addAction(tr("Recompute &Spec…"), this, &MainWindow::specDialog);
    QAction* solve = tools->addAction(tr("&Solve Now"), this, [this] { doc_->solveNow(); });
    solve->setShortcut(QKeySequence(Qt::Key_F5));
    verifyAction_ = tools->addAction(tr("&Verify (run original vs rewritten on CPU)"), this, &MainWindow::verify);
    tools->addAction(tr("&Profile (memory and time per op on CPU)"), this, [this] {
        auto* d = findChild<QDockWidget*>("profileDock");
        d->show();
        d->raise();
        findChild<ProfilePanel*>()->start();
    });

    QToolBar* tb = addToolBar(tr("Main"));
    tb->setObjectName("mainToolbar");
    tb->setMovable(false);
    tb->setToolButtonStyle(Qt::ToolButtonTextOnly);
    tb->addAction(open);
    tb->addAction(reload);
    tb->addAction(spec);
    tb->addSeparator();
    tb->addAction(solve);
    tb->addAction(verifyAction_);
    verifyAction_->setText(tr("Verify"));
    tb->addAction(exportAct);
    tb->addSeparator();
    tb->addAction(undo);
    tb->addAction(redo);
    auto* spacer = new QWidget(tb);
    spacer->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
    tb->addWidget(spacer);
    search_ = new QLineEdit(tb);
    search_->setObjectName("searchBox");
    search_->setPlaceholderText(tr("Search op name or value id (Ctrl+F, Enter: next)"));
    search_->setClearButtonEnabled(true);
    search_->setFixedWidth(320);
    tb->addWidget(search_);
    connect(search_, &QLineEdit::returnPressed, this, [this, current] {
        const QString text = search_->text().trimmed();
        if (text.isEmpty()) return;
        // A value id jumps straight there (and expands the overview around it).
        if (text.startsWith('%')) {
            const ValueId v = doc_->hasProgram() ? doc_->findValue(text) : kNoId;
            if (v != kNoId) {
                doc_->select(ModelKey{ModelKey::Kind::Value, v}, this);
                return;
            }
        }
        const int n = current()->search(text);
        statusBar()->showMessage(n ? tr("%1 matches").arg(n) : tr("No match for “%1” in the shown graph").arg(text), 4000);
    });
}

QStringList MainWindow::exampleNames() {
    return {"generated-transformer.pir", "transformer_layer.prim.pir", "docstring-before-recompute.pir", "mlp.prim.pir"};
}

bool MainWindow::openExample(const QString& name) {
    const QString dir = QStandardPaths::writableLocation(QStandardPaths::AppLocalDataLocation) + "/examples";
    QDir().mkpath(dir);
    for (const QString& f : {name, QString(name).replace(".pir", ".spec.json")}) {
        const QString target = dir + "/" + f;
        QFile::remove(target);
        if (QFile::exists(":/examples/" + f)) {
            QFile::copy(":/examples/" + f, target);
            QFile::setPermissions(target, QFile::ReadOwner | QFile::WriteOwner | QFile::ReadGroup);
        }
    }
    return openFile(dir + "/" + name);
}

bool MainWindow::openFile(const QString& path) {
    QString error;
    if (!doc_->open(path, &error)) return false;  // the banner shows it; the old program stays
    addRecent(QFileInfo(path).absoluteFilePath());
    return true;
}

GenerateDialog* MainWindow::showGenerateDialog() {
    if (!generateDialog_) {
        generateDialog_ = new GenerateDialog(this);
        connect(generateDialog_, &GenerateDialog::generated, this, [this](const QString& path, const QString& summary) {
            log(summary);
            openFile(path);
        });
    }
    generateDialog_->show();
    generateDialog_->raise();
    generateDialog_->activateWindow();
    return generateDialog_;
}

void MainWindow::openDialog() {
    QSettings s;
    const QString p = QFileDialog::getOpenFileName(this, tr("Open program"), s.value("lastDir").toString(),
                                                   tr("PIR programs (*.pir *.txt *.json);;All files (*)"));
    if (p.isEmpty()) return;
    s.setValue("lastDir", QFileInfo(p).absolutePath());
    openFile(p);
}

void MainWindow::addRecent(const QString& path) {
    QSettings s;
    QStringList recent = s.value("recentFiles").toStringList();
    recent.removeAll(path);
    recent.prepend(path);
    while (recent.size() > 10) recent.removeLast();
    s.setValue("recentFiles", recent);
    updateRecentMenu();
}

void MainWindow::updateRecentMenu() {
    recentMenu_->clear();
    const QStringList recent = QSettings().value("recentFiles").toStringList();
    for (const QString& p : recent) recentMenu_->addAction(QFileInfo(p).fileName() + "  —  " + QFileInfo(p).absolutePath(), this, [this, p] { openFile(p); });
    recentMenu_->setEnabled(!recent.isEmpty());
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
    if (event->mimeData()->hasUrls()) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
    const auto urls = event->mimeData()->urls();
    if (!urls.isEmpty() && urls.first().isLocalFile()) openFile(urls.first().toLocalFile());
}

void MainWindow::closeEvent(QCloseEvent* event) {
    QSettings s;
    s.setValue("window/geometry", saveGeometry());
    s.setValue("window/state", saveState());
    if (!doc_->filePath().isEmpty()) s.setValue("lastFile", doc_->filePath());
    QMainWindow::closeEvent(event);
}

void MainWindow::log(const QString& message) {
    log_->appendPlainText(QTime::currentTime().toString("HH:mm:ss  ") + message);
}

void MainWindow::showError(const QString& message) {
    bannerText_->setText(QStringLiteral("<b>%1</b> %2").arg(tr("Error:"), message.toHtmlEscaped()) +
                         (doc_->hasProgram() ? tr(" — still showing %1.").arg(doc_->displayName().toHtmlEscaped()) : QString()));
    banner_->show();
}

void MainWindow::hideError() { banner_->hide(); }

QString MainWindow::errorBannerText() const { return banner_->isVisible() ? bannerText_->text() : QString(); }

QString MainWindow::statusText() const { return statusNumbers_->text(); }

void MainWindow::updateStatus() {
    if (!doc_->hasProgram()) {
        statusFile_->setText(tr("No program"));
        statusNumbers_->clear();
        statusTimes_->clear();
        return;
    }
    const Program& p = doc_->program();
    statusFile_->setText(tr("%1 · %2 ops · %3 values").arg(doc_->displayName()).arg(p.globalBlock().ops.size()).arg(p.values.size()));
    auto r = doc_->result();
    if (r && r->ok()) {
        statusNumbers_->setText(tr("  cut %1 · saved %2 · recomputed ops %3 · memory saved %4 · peak %5 → %6")
                                    .arg(QString::fromStdString(r->plan.cutValueText()))
                                    .arg(r->plan.savedValues.size())
                                    .arg(r->plan.recomputeOps.size())
                                    .arg(formatBytes(double(r->plan.memorySavedBytes)))
                                    .arg(formatBytes(double(r->originalMemory.peakBytes)))
                                    .arg(formatBytes(double(r->rewrittenMemory.peakBytes))));
        statusTimes_->setText(tr("parse %1 ms · solve %2 ms · layout %3 s")
                                  .arg(doc_->lastParseMs(), 0, 'f', 0)
                                  .arg(r->timings.totalMs, 0, 'f', 1)
                                  .arg(programView_->canvas()->lastLayoutMs() / 1000.0, 0, 'f', 2));
    }
}

void MainWindow::showValueMenu(ValueId v, QPoint globalPos) {
    if (!doc_->hasProgram() || v >= doc_->program().values.size()) return;
    QMenu menu(this);
    const int pin = doc_->pinOf(v);
    menu.addSection(doc_->valueName(v));
    QAction* save = menu.addAction(tr("Always save"));
    QAction* rec = menu.addAction(tr("Always recompute"));
    QAction* clear = menu.addAction(tr("Clear pin"));
    save->setCheckable(true);
    rec->setCheckable(true);
    save->setChecked(pin == 1);
    rec->setChecked(pin == 2);
    clear->setEnabled(pin != 0);
    QAction* chosen = menu.exec(globalPos);
    if (chosen == save) doc_->pinValue(v, 1);
    else if (chosen == rec) doc_->pinValue(v, 2);
    else if (chosen == clear) doc_->pinValue(v, 0);
}

// ---------------------------------------------------------------- export

QString MainWindow::exportRewritten(const QString& path) {
    auto r = doc_->result();
    if (!r || !r->rewritten) return tr("no rewritten program (solve first)");
    WriteOptions wo;
    wo.generation = doc_->program().generation;
    return writeAtomically(path, QByteArray::fromStdString(printProgram(*r->rewritten, wo)));
}

QString MainWindow::exportConfig(const QString& path) {
    return writeAtomically(path, QByteArray::fromStdString(configToJson(doc_->config())));
}

QString MainWindow::loadConfig(const QString& path) {
    try {
        doc_->setConfig(readConfigFile(path.toStdString()), tr("Load config %1").arg(QFileInfo(path).fileName()));
        return {};
    } catch (const std::exception& e) {
        return QString::fromUtf8(e.what());
    }
}

QString MainWindow::exportReport(const QString& path) {
    // The library's one report writer (algorithms/SolveReport.h): the CLI's --report bytes.
    auto r = doc_->result();
    if (!r || !r->ok() || !doc_->solver()) return tr("no solve result");
    const std::string programPath = doc_->filePath().toStdString();
    std::string specSource = "detected";
    if (!doc_->specDetected()) specSource = specPathFor(programPath).value_or("edited");
    try {
        writeSolveReportFile(path.toStdString(), SolveReportInput{doc_->program(), doc_->solver()->analysis(), *r, programPath,
                                                                  specSource, doc_->lastParseMs(), true, &doc_->config()});
    } catch (const std::exception& e) {
        return QString::fromUtf8(e.what());
    }
    return {};
}

QString MainWindow::exportNetwork(const QString& path) {
    auto r = doc_->result();
    if (!r || !r->network) return tr("no flow network (solve first)");
    const QString ext = QFileInfo(path).suffix().toLower();
    if (ext != "dot" && ext != "json" && ext != "dimacs") return tr("unknown network format .%1 (use .dot, .json or .dimacs)").arg(ext);
    try {
        r->network->writeFile(path.toStdString(), doc_->program(), &r->cut.sinkSide);  // streamed, atomic
    } catch (const std::exception& e) {
        return QString::fromUtf8(e.what());
    }
    return {};
}

QString MainWindow::exportView(const QString& path) {
    GraphCanvas* canvas = tabs_->currentIndex() == 1 ? flowView_->canvas() : programView_->canvas();
    const QRectF bounds = canvas->sceneBounds();
    if (bounds.isEmpty()) return tr("nothing to export: the view is empty");
    const QString ext = QFileInfo(path).suffix().toLower();
    const QRectF target(QPointF(0, 0), bounds.size() + QSizeF(40, 40));
    auto paint = [&](QPainter& painter, QRectF t) {
        painter.fillRect(t, GraphPalette::current().background);
        canvas->renderScene(&painter, t.adjusted(20, 20, -20, -20));
    };
    if (ext == "svg") {
        QBuffer buffer;
        buffer.open(QIODevice::WriteOnly);
        QSvgGenerator gen;
        gen.setOutputDevice(&buffer);
        gen.setSize(target.size().toSize());
        gen.setViewBox(target);
        gen.setTitle(doc_->displayName());
        {
            QPainter painter(&gen);
            paint(painter, target);
        }
        return writeAtomically(path, buffer.data());
    }
    if (ext == "png") {
        // At most 2x and ~24 megapixels: readers refuse bigger images.
        const double scale = std::min({2.0, 12000.0 / std::max(target.width(), target.height()),
                                       std::sqrt(24e6 / (target.width() * target.height()))});
        QImage img((target.size() * scale).toSize(), QImage::Format_ARGB32);
        img.fill(Qt::white);
        {
            QPainter painter(&img);
            painter.setRenderHint(QPainter::Antialiasing);
            painter.scale(scale, scale);
            paint(painter, target);
        }
        QBuffer buffer;
        buffer.open(QIODevice::WriteOnly);
        img.save(&buffer, "PNG");
        return writeAtomically(path, buffer.data());
    }
    if (ext == "pdf") {
        QBuffer buffer;
        buffer.open(QIODevice::WriteOnly);
        {
            QPdfWriter pdf(&buffer);
            pdf.setTitle(doc_->displayName());
            pdf.setPageSize(QPageSize(target.size(), QPageSize::Point));
            pdf.setPageMargins(QMarginsF(0, 0, 0, 0));
            QPainter painter(&pdf);
            const double s = painter.device()->width() / target.width();
            painter.scale(s, s);
            paint(painter, target);
        }
        return writeAtomically(path, buffer.data());
    }
    return tr("unknown image format .%1 (use .svg, .png or .pdf)").arg(ext);
}

void MainWindow::exportDialog() {
    if (!doc_->hasProgram()) return;
    const QString base = QFileInfo(doc_->filePath()).completeBaseName();
    QString selected;
    const QString p = QFileDialog::getSaveFileName(
        this, tr("Export"), base + ".recompute.pir",
        tr("Rewritten program (*.pir);;Config (*.config.json);;Report (*.report.json);;Network (*.dot *.dimacs *.network.json);;View image (*.svg *.png *.pdf)"),
        &selected);
    if (p.isEmpty()) return;
    QString e;
    const QString lower = p.toLower();
    if (lower.endsWith(".pir")) e = exportRewritten(p);
    else if (lower.endsWith(".config.json")) e = exportConfig(p);
    else if (lower.endsWith(".report.json")) e = exportReport(p);
    else if (lower.endsWith(".dot") || lower.endsWith(".dimacs") || lower.endsWith(".network.json")) e = exportNetwork(p);
    else if (lower.endsWith(".svg") || lower.endsWith(".png") || lower.endsWith(".pdf")) e = exportView(p);
    else if (selected.startsWith(tr("Report"))) e = exportReport(p);
    else if (selected.startsWith(tr("Config"))) e = exportConfig(p);
    else e = tr("choose a file name ending in .pir, .config.json, .report.json, .dot, .dimacs, .network.json, .svg, .png or .pdf");
    if (!e.isEmpty()) showError(e);
    else log(tr("Exported %1").arg(p));
}

// ---------------------------------------------------------------- spec editor

QString MainWindow::saveSpec() {
    if (!doc_->hasProgram() || doc_->filePath().isEmpty()) return tr("no program file");
    const QString path = QString::fromStdString(specPathBeside(doc_->filePath().toStdString()));
    return writeAtomically(path, QByteArray::fromStdString(specToJson(doc_->spec(), doc_->program())));
}

void MainWindow::specDialog() {
    if (!doc_->hasProgram()) return;
    const Program& p = doc_->program();
    const RecomputeSpec& s = doc_->spec();
    QDialog dlg(this);
    dlg.setWindowTitle(tr("Recompute spec — %1 (%2)").arg(doc_->displayName(), doc_->specDetected() ? tr("detected") : tr("from file")));
    auto* form = new QFormLayout(&dlg);
    auto* fwd = new QSpinBox(&dlg);
    auto* bwd = new QSpinBox(&dlg);
    const int n = int(p.globalBlock().ops.size());
    fwd->setRange(-1, n);
    bwd->setRange(0, n);
    fwd->setValue(int(s.fwdOpEndIdx));
    bwd->setValue(int(s.backwardOpStartIdx));
    auto names = [&](const std::vector<ValueId>& vs) {
        QStringList l;
        for (ValueId v : vs) l << QString::fromStdString(p.values[v].name);
        return l.join(", ");
    };
    auto* inputs = new QLineEdit(names(s.inputs), &dlg);
    auto* outputs = new QLineEdit(names(s.outputs), &dlg);
    auto* grads = new QLineEdit(names(s.gradOutputs), &dlg);
    form->addRow(tr("forward ends at op"), fwd);
    form->addRow(tr("backward starts at op"), bwd);
    form->addRow(tr("inputs"), inputs);
    form->addRow(tr("outputs"), outputs);
    form->addRow(tr("grad outputs"), grads);
    auto* note = new QLabel(tr("Value names as in the file, comma separated. Saved as %1.")
                                .arg(QFileInfo(QString::fromStdString(specPathBeside(doc_->filePath().toStdString()))).fileName()), &dlg);
    note->setWordWrap(true);
    form->addRow(note);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Save | QDialogButtonBox::Cancel, &dlg);
    form->addRow(buttons);
    bool save = false;
    connect(buttons, &QDialogButtonBox::accepted, &dlg, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, &dlg, &QDialog::reject);
    connect(buttons->button(QDialogButtonBox::Save), &QPushButton::clicked, &dlg, [&] {
        save = true;
        dlg.accept();
    });
    if (dlg.exec() != QDialog::Accepted) return;
    RecomputeSpec ns = s;
    ns.fwdOpEndIdx = fwd->value();
    ns.backwardOpStartIdx = bwd->value();
    auto parse = [&](const QString& text, std::vector<ValueId>& out) -> QString {
        out.clear();
        for (QString t : text.split(',', Qt::SkipEmptyParts)) {
            t = t.trimmed();
            const ValueId v = doc_->findValue(t);
            if (v == kNoId) return tr("unknown value %1").arg(t);
            out.push_back(v);
        }
        return {};
    };
    QString e = parse(inputs->text(), ns.inputs);
    if (e.isEmpty()) e = parse(outputs->text(), ns.outputs);
    if (e.isEmpty()) e = parse(grads->text(), ns.gradOutputs);
    if (!e.isEmpty()) return showError(tr("Spec: %1").arg(e));
    doc_->setSpec(ns, tr("Edit spec"));
    if (save) {
        e = saveSpec();
        if (!e.isEmpty()) showError(e);
        else log(tr("Spec saved"));
    }
}

// ---------------------------------------------------------------- verify

void MainWindow::verify() {
    auto r = doc_->result();
    if (!r || !r->rewritten) return showError(tr("Verify: no rewritten program yet"));
    verifyAction_->setEnabled(false);
    log(tr("Verify: running original and rewritten on the CPU…"));
    // The shared pointers keep both programs alive while the worker runs them.
    std::shared_ptr<const Program> original = doc_->programPtr(), rewritten = r->rewritten;
    verifyWatcher_.setFuture(QtConcurrent::run([original, rewritten]() {
        VerifyRun run;
        try {
            run.report = exec::verifyPrograms(*original, *rewritten, exec::VerifyOptions{});
        } catch (const std::exception& e) {
            run.error = e.what();
        }
        return run;
    }));
}

}  // namespace rx
