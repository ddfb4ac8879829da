#include "views/MainWindow.h"
#include "views/ProfilePanel.h"
#include "views/ParetoPanel.h"
#include "views/LayerTable.h"
#include "views/SweepPanel.h"

#include <QAbstractSpinBox>
#include <QAction>
#include <QActionGroup>
#include <QDateTime>
#include <QKeyEvent>
#include <QProgressBar>
#include <QStyle>
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
#include <QScreen>
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
#include <tuple>

#include "model/PirWriter.h"
#include "views/GenerateDialog.h"
#include "views/MemoryView.h"
#include "views/GraphViews.h"
#include "views/Panels.h"
#include "algorithms/SolveReport.h"
#include "views/SpecSupport.h"
#include "views/TextView.h"
#include "views/VerifyAsync.h"

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

namespace {
const char* kErrorBannerStyle = "#errorBanner { background: #fde8e8; border-bottom: 1px solid #f5a3a3; } QLabel { color: #9b1c1c; }";
const char* kInfoBannerStyle = "#errorBanner { background: #e7f6ec; border-bottom: 1px solid #86d19c; } QLabel { color: #14532d; }";

QPalette darkPalette() {
    QPalette p;
    const QColor window("#2b2d31"), base("#1e1f22"), text("#e6edf3"), mid("#3c3f45"), highlight("#3b82f6");
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, window);
    p.setColor(QPalette::ToolTipBase, window);
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::PlaceholderText, QColor("#8b949e"));
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, mid);
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::BrightText, Qt::red);
    p.setColor(QPalette::Link, QColor("#60a5fa"));
    p.setColor(QPalette::Highlight, highlight);
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::Mid, mid);
    p.setColor(QPalette::Dark, QColor("#17181a"));
    p.setColor(QPalette::Disabled, QPalette::Text, QColor("#6e7681"));
    p.setColor(QPalette::Disabled, QPalette::ButtonText, QColor("#6e7681"));
    p.setColor(QPalette::Disabled, QPalette::WindowText, QColor("#6e7681"));
    return p;
}

QPalette lightPalette() {
    QPalette p = QApplication::style()->standardPalette();
    p.setColor(QPalette::Window, QColor("#f6f7f9"));
    p.setColor(QPalette::Base, Qt::white);
    return p;
}
}  // namespace

MainWindow::MainWindow(QWidget* parent, bool useSettings) : QMainWindow(parent), doc_(new Document(this)), useSettings_(useSettings) {
    initExplorerResources();
    verifyPool_.setMaxThreadCount(1);
    setWindowTitle(tr("Recompute Explorer"));
    setAcceptDrops(true);
    setDockNestingEnabled(true);

    auto* central = new QWidget(this);
    auto* cl = new QVBoxLayout(central);
    cl->setContentsMargins(0, 0, 0, 0);
    cl->setSpacing(0);
    banner_ = new QWidget(central);
    banner_->setObjectName("errorBanner");
    banner_->setStyleSheet(kErrorBannerStyle);
    auto* bl = new QHBoxLayout(banner_);
    bl->setContentsMargins(10, 6, 6, 6);
    bannerText_ = new QLabel(banner_);
    bannerText_->setWordWrap(true);
    bannerText_->setTextFormat(Qt::RichText);  // always: the message is escaped, so "->" must not show as "&gt;"
    bannerText_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* close = new QToolButton(banner_);
    close->setText(QStringLiteral("\u2715"));
    close->setAutoRaise(true);
    bannerAction_ = new QPushButton(banner_);
    bannerAction_->setObjectName("bannerAction");
    bannerAction_->hide();
    connect(bannerAction_, &QPushButton::clicked, this, [this] {
        auto act = std::exchange(bannerCallback_, {});
        hideError();
        if (act) act();
    });
    bl->addWidget(bannerText_, 1);
    bl->addWidget(bannerAction_);
    bl->addWidget(close);
    banner_->hide();
    connect(close, &QToolButton::clicked, this, &MainWindow::hideError);
    tabs_ = new QTabWidget(central);
    tabs_->setDocumentMode(true);
    programView_ = new ProgramView(doc_, tabs_);
    flowView_ = new FlowView(doc_, tabs_);
    textView_ = new TextView(doc_, tabs_);
    addViewTab(programView_, tr("Program graph"), "program");
    addViewTab(flowView_, tr("Flow network"), "flow");
    addViewTab(textView_, tr("Text / Diff"), "text");
    memoryView_ = new MemoryView(doc_, tabs_);
    addViewTab(memoryView_, tr("Memory"), "memory");
    cl->addWidget(banner_);
    cl->addWidget(tabs_, 1);
    setCentralWidget(central);
    connect(tabs_, &QTabWidget::currentChanged, this, [this](int i) {
        currentDockTab_.clear();
        // The flow tab lays out on first sight (it costs a layout). Not by re-announcing the
        // result: every view would take that for a new plan (and the banner would close).
        if (i == 1) QMetaObject::invokeMethod(flowView_, &FlowView::ensurePicture, Qt::QueuedConnection);
    });

    buildDocks();
    buildActions();
    inspector_->setGroupResolver([this](uint32_t begin, QString* label) {
        for (const auto& seg : programView_->overview().segments())
            if (seg.begin == begin && !seg.expanded) {
                if (label) *label = seg.label;
                return seg.ranges();
            }
        return std::vector<std::pair<uint32_t, uint32_t>>{};
    });

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
        // A new plan answers a solve failure and outdates a Verify result; an error about
        // the user's input (a file, a config) stays until closed.
        if (bannerKind_ != BannerKind::Error) hideError();
        updateStatus();
    });
    connect(doc_, &Document::solveStarted, this, [this] { statusTimes_->setText(tr("solving…")); });
    connect(doc_, &Document::loadFailed, this, [this](const QString& m) { showError(m); });
    connect(doc_, &Document::solveFailed, this, [this](const QString& m) {
        const auto failed = doc_->failedResult();
        const SolveAdvice advice = failed ? doc_->adviceFor(*failed) : SolveAdvice{};
        if (advice.message.isEmpty()) {
            showError(tr("Solve failed (showing the last good plan): %1").arg(m), BannerKind::PlanError);
        } else if (!advice.opToAdd.isEmpty()) {
            const QString op = advice.opToAdd;
            showError(advice.message, BannerKind::PlanError, tr("Add %1 to recomputable ops").arg(op), [this, op] { tuning_->addOp(0, op); });
        } else {
            const ValueId v = advice.pinnedValue;
            showError(advice.message, BannerKind::PlanError, tr("Clear the pin"), [this, v] { doc_->pinValue(v, 0); });
        }
        log(tr("Solve failed: %1").arg(m));
        updateStatus();
    });
    connect(doc_, &Document::specFallback, this, [this](const QString& specFile, const QString& m) {
        showError(tr("%1 is broken: %2. Using the detected forward/backward split instead.").arg(QFileInfo(specFile).fileName(), m),
                  BannerKind::Error, tr("Edit the spec…"), [this] { specDialog(); });
        // The editor opens at once (after this event), so the split can be fixed and saved.
        QTimer::singleShot(0, this, [this] { specDialog(); });
    });
    connect(doc_, &Document::logMessage, this, &MainWindow::log);
    connect(programView_, &ProgramView::contextMenuForKey, this, [this](ModelKey k, QPoint pos) {
        if (QMenu* m = contextMenuFor(k)) {
            m->exec(pos);
            delete m;
        }
    });
    connect(programView_->canvas(), &GraphCanvas::layoutFinished, this, [this] { updateStatus(); });
    connect(flowView_->canvas(), &GraphCanvas::keyContextMenu, this, [this](ModelKey k, QPoint pos) {
        if (k.kind == ModelKey::Kind::Value) showValueMenu(k.id, pos);
    });
    connect(&verifyWatcher_, &QFutureWatcher<VerifyRun>::finished, this, [this] {
        verifyAction_->setEnabled(true);
        verifyTimer_->stop();
        verifyBusy_->hide();
        const VerifyRun out = verifyWatcher_.result();
        if (!out.report) {
            const bool cancelled = verifyCancel_ && verifyCancel_->load();
            log(tr("Verify: %1").arg(cancelled ? tr("cancelled") : QString::fromStdString(out.error)));
            if (cancelled) showInfo(tr("Verify cancelled."));
            else showError(tr("Verify: %1").arg(QString::fromStdString(out.error)), BannerKind::PlanError);
            Q_EMIT verifyFinished(false, cancelled ? tr("cancelled") : QString::fromStdString(out.error));
            return;
        }
        const QString s = exec::verifySummaryText(*out.report);
        log(tr("Verify: %1").arg(s));
        statusBar()->showMessage(out.report->equivalent ? tr("Verified: rewritten program is equivalent") : tr("Verify: DIFFERENT"), 8000);
        if (!out.report->equivalent) showError(tr("Verify found a difference: %1").arg(s), BannerKind::PlanError);
        else showInfo(tr("Verified in %1 s: the rewritten program computes the same values. %2")
                          .arg((QDateTime::currentMSecsSinceEpoch() - verifyStartMs_) / 1000.0, 0, 'f', 1).arg(s));
        Q_EMIT verifyFinished(out.report->equivalent, s);
    });
    // Verify progress: stage, elapsed time and Cancel in the status bar.
    verifyBusy_ = new QWidget(this);
    verifyBusy_->setObjectName("verifyBusy");
    {
        auto* l = new QHBoxLayout(verifyBusy_);
        l->setContentsMargins(0, 0, 0, 0);
        auto* bar = new QProgressBar(verifyBusy_);
        bar->setObjectName("verifyProgress");
        bar->setRange(0, 3);
        bar->setFixedWidth(120);
        bar->setTextVisible(false);
        verifyLabel_ = new QLabel(verifyBusy_);
        auto* cancel = new QPushButton(tr("Cancel"), verifyBusy_);
        cancel->setObjectName("cancelVerify");
        l->addWidget(verifyLabel_);
        l->addWidget(bar);
        l->addWidget(cancel);
        connect(cancel, &QPushButton::clicked, this, &MainWindow::cancelVerify);
        verifyTimer_ = new QTimer(this);
        verifyTimer_->setInterval(200);
        connect(verifyTimer_, &QTimer::timeout, this, [this, bar] {
            const int stage = verifyStage_ ? verifyStage_->load() : 0;
            bar->setValue(stage);
            const char* what[] = {"starting", "running the original", "running the rewritten", "comparing"};
            verifyLabel_->setText(tr("Verify: %1… %2 s").arg(tr(what[std::clamp(stage, 0, 3)]))
                                      .arg((QDateTime::currentMSecsSinceEpoch() - verifyStartMs_) / 1000.0, 0, 'f', 1));
        });
    }
    statusBar()->addPermanentWidget(verifyBusy_);
    verifyBusy_->hide();

    for (QAbstractSpinBox* box : findChildren<QAbstractSpinBox*>()) box->installEventFilter(this);

    QSettings settings;
    if (useSettings_) {
        restoreGeometry(settings.value("window/geometry").toByteArray());
        restoreState(settings.value("window/state").toByteArray());
        const QString theme = settings.value("theme").toString();
        if (theme == "light") setTheme(Theme::Light);
        if (theme == "dark") setTheme(Theme::Dark);
    }
    if (!useSettings_ || !settings.contains("window/geometry")) {
        // The designed size, but never more than the screen has (a 1366x768 laptop got a
        // 1560x960 window with its right and bottom edges, search box and dock rows, off-screen).
        QSize size(1560, 960);
        if (const QScreen* s = screen()) size = size.boundedTo(s->availableGeometry().size());
        resize(size);
        // Dock sizes only apply once the window has its size.
        QTimer::singleShot(0, this, [this] {
            auto* inspector = findChild<QDockWidget*>("inspectorDock");
            auto* tuning = findChild<QDockWidget*>("tuningDock");
            auto* outline = findChild<QDockWidget*>("outlineDock");
            auto* summary = findChild<QDockWidget*>("summaryDock");
            resizeDocks({outline, inspector}, {250, 370}, Qt::Horizontal);
            resizeDocks({inspector, tuning}, {height() * 45 / 100, height() * 40 / 100}, Qt::Vertical);
            // The bottom docks hold charts (memory curve, profile, budget frontier): a quarter
            // of the height, so they stay readable down to 1366×768.
            resizeDocks({summary}, {std::max(220, height() * 28 / 100)}, Qt::Vertical);
        });
    }
    updateRecentMenu();
    updateStatus();
}

MainWindow::~MainWindow() {
    if (verifyCancel_) verifyCancel_->store(true);
    verifyWatcher_.waitForFinished();
}

int MainWindow::addViewTab(QWidget* page, const QString& title, const QString& name) {
    tabNames_ << name;
    page->setProperty("rxTabName", name);
    return tabs_->addTab(page, title);
}

void MainWindow::addDockTab(QDockWidget* dock, const QString& name) {
    dockTabs_.emplace_back(name, dock);
}

QStringList MainWindow::tabNames() const {
    QStringList out;
    for (int i = 0; i < tabs_->count(); ++i) out << tabs_->widget(i)->property("rxTabName").toString();
    for (const auto& [name, dock] : dockTabs_) out << name;
    return out;
}

bool MainWindow::showTab(const QString& name) {
    for (int i = 0; i < tabs_->count(); ++i)
        if (tabs_->widget(i)->property("rxTabName").toString() == name) {
            tabs_->setCurrentIndex(i);
            currentDockTab_.clear();
            return true;
        }
    for (const auto& [dockName, dock] : dockTabs_)
        if (dockName == name) {
            dock->show();
            dock->raise();
            // The panel is the subject: most of the height, the central view above it. After
            // this event: before the window's first layout the dock area has no size to share.
            QTimer::singleShot(0, this, [this, dock = dock] { resizeDocks({dock}, {std::max(320, height() * 3 / 5)}, Qt::Vertical); });
            currentDockTab_ = name;
            return true;
        }
    return false;
}

QString MainWindow::currentTabName() const {
    if (!currentDockTab_.isEmpty()) return currentDockTab_;
    return tabs_->currentWidget() ? tabs_->currentWidget()->property("rxTabName").toString() : QString();
}

bool MainWindow::eventFilter(QObject* watched, QEvent* event) {
    // A spin box would take Ctrl+Z for its text; the knob's undo is the document's.
    if (event->type() == QEvent::ShortcutOverride && qobject_cast<QAbstractSpinBox*>(watched)) {
        auto* key = static_cast<QKeyEvent*>(event);
        if (key->matches(QKeySequence::Undo) || key->matches(QKeySequence::Redo) ||
            (key->key() == Qt::Key_Z && key->modifiers() == (Qt::ControlModifier | Qt::ShiftModifier))) {
            event->ignore();
            return true;  // not accepted: the window's Undo/Redo shortcut runs
        }
    }
    return QMainWindow::eventFilter(watched, event);
}

void MainWindow::setTheme(Theme theme) {
    theme_ = theme;
    if (theme == Theme::Dark) QApplication::setPalette(darkPalette());
    else if (theme == Theme::Light) QApplication::setPalette(lightPalette());
    else QApplication::setPalette(QApplication::style()->standardPalette());
    GraphPalette::refresh();
    for (GraphCanvas* c : findChildren<GraphCanvas*>()) c->refreshPalette();
    if (useSettings_) QSettings().setValue("theme", theme == Theme::Dark ? "dark" : theme == Theme::Light ? "light" : "system");
    Q_EMIT themeChanged();
}

QString MainWindow::shortcutsText() const {
    QStringList lines;
    for (QAction* a : findChildren<QAction*>()) {
        if (a->shortcuts().isEmpty() || a->text().isEmpty()) continue;
        QStringList keys;
        for (const QKeySequence& k : a->shortcuts()) keys << k.toString(QKeySequence::NativeText);
        lines << QStringLiteral("%1\t%2").arg(QString(a->text()).remove('&'), keys.join(", "));
    }
    lines.sort();
    lines << tr("Fit view\tF") << tr("Zoom in / out (graph)\t+ / -") << tr("Cancel layout\tEsc") << tr("Next search match\tEnter (in the search box)");
    return lines.join('\n');
}

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
    QDockWidget* dProfile = dock(tr("Profile"), "profileDock", new ProfilePanel(doc_, this), Qt::BottomDockWidgetArea);
    tabifyDockWidget(dSummary, dProfile);
    addDockTab(dProfile, "profile");
    auto* pareto = new ParetoPanel(this);  // memory-budget frontier (algorithms/planner)
    pareto->attach(doc_);
    QDockWidget* dPareto = dock(tr("Memory Budget"), "paretoDock", pareto, Qt::BottomDockWidgetArea);
    tabifyDockWidget(dSummary, dPareto);
    addDockTab(dPareto, "pareto");
    // Per-layer figures beside the overview, with the compare-with choice (issue 23 items 5, 9).
    auto* layerTable = new LayerTable(doc_, this);
    QDockWidget* dLayers = dock(tr("Layers"), "layersDock", layerTable, Qt::BottomDockWidgetArea);
    tabifyDockWidget(dSummary, dLayers);
    addDockTab(dLayers, "layers");
    // The compared plan's figures also label the overview's layers (one provider: the table's rows).
    connect(layerTable->model(), &QAbstractItemModel::modelReset, this, [this, layerTable] {
        programView_->setLayerComparison(layerTable->model()->compared() ? layerTable->model()->rows() : std::vector<LayerRow>{});
    });
    QDockWidget* dSweep = dock(tr("Knob Sweep"), "sweepDock", new SweepPanel(doc_, this), Qt::BottomDockWidgetArea);
    tabifyDockWidget(dSummary, dSweep);
    addDockTab(dSweep, "sweep");
    addDockTab(dSummary, "summary");
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
    reload->setObjectName("reloadAction");
    reload->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));  // F5 is Solve Now
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
    undo->setObjectName("undoAction");
    undo->setShortcut(QKeySequence::Undo);
    undo->setShortcutContext(Qt::ApplicationShortcut);  // from any focus, docks included
    QAction* redo = doc_->undoStack()->createRedoAction(this, tr("&Redo"));
    redo->setObjectName("redoAction");
    redo->setShortcutContext(Qt::ApplicationShortcut);
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
    view->addAction(tr("Show &Whole Graph"), this, [this] {
        if (!programView_->showWholeGraph())
            statusBar()->showMessage(tr("The whole graph is laid out up to %L1 ops; open a layer or group instead")
                                         .arg(ProgramView::kWholeGraphMaxOps), 8000);
    });
    QAction* collapse = view->addAction(tr("&Collapse Group of Selection"), this, [this] {
        const ModelKey k = doc_->selection();
        if (!doc_->hasProgram() || !k.valid()) return;
        const OpId op = k.kind == ModelKey::Kind::Op ? k.id : k.kind == ModelKey::Kind::Value ? doc_->program().value(k.id).definingOp : kNoId;
        if (op != kNoId) programView_->collapseAround(op);
    });
    collapse->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C));
    view->addSeparator();
    // The graph overlays, for every graph tab; remembered like the theme.
    for (auto [text, which, key, name] : {std::tuple{tr("Show &Minimap"), GraphCanvas::Overlay::Minimap, "view/minimap", "showMinimap"},
                                          std::tuple{tr("Show &Legend"), GraphCanvas::Overlay::Legend, "view/legend", "showLegend"}}) {
        QAction* a = view->addAction(text);
        a->setObjectName(name);
        a->setCheckable(true);
        a->setChecked(!useSettings_ || QSettings().value(key, true).toBool());
        auto apply = [this, which = which, key = QString(key)](bool on) {
            for (GraphCanvas* c : findChildren<GraphCanvas*>()) c->setOverlayShown(which, on);
            if (useSettings_) QSettings().setValue(key, on);
        };
        connect(a, &QAction::toggled, this, apply);
        if (!a->isChecked()) apply(false);
    }
    view->addSeparator();
    QMenu* themeMenu = view->addMenu(tr("&Theme"));
    auto* themeGroup = new QActionGroup(this);
    for (auto [name, t] : {std::pair{tr("Follow &System"), Theme::System}, std::pair{tr("&Light"), Theme::Light}, std::pair{tr("&Dark"), Theme::Dark}}) {
        QAction* a = themeMenu->addAction(name, this, [this, t = t] { setTheme(t); });
        a->setCheckable(true);
        a->setChecked(t == theme_);
        a->setObjectName(t == Theme::Dark ? "themeDark" : t == Theme::Light ? "themeLight" : "themeSystem");
        themeGroup->addAction(a);
        connect(this, &MainWindow::themeChanged, a, [this, a, t = t] { a->setChecked(t == theme_); });
    }
    QAction* toggleTheme = view->addAction(tr("Toggle Light/&Dark"), this, [this] { setTheme(theme_ == Theme::Dark ? Theme::Light : Theme::Dark); });
    toggleTheme->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_L));
    view->addSeparator();
    for (QDockWidget* d : findChildren<QDockWidget*>()) view->addAction(d->toggleViewAction());

    QMenu* tools = menuBar()->addMenu(tr("&Tools"));
    QAction* spec = tools->addAction(tr("Recompute &Spec…"), this, &MainWindow::specDialog);
    QAction* solve = tools->addAction(tr("&Solve Now"), this, [this] { doc_->solveNow(); });
    solve->setShortcut(QKeySequence(Qt::Key_F5));
    solve->setObjectName("solveAction");
    verifyAction_ = tools->addAction(tr("&Verify (run original vs rewritten on CPU)"), this, &MainWindow::verify);
    tools->addAction(tr("&Profile (memory and time per op on CPU)"), this, [this] {
        auto* d = findChild<QDockWidget*>("profileDock");
        d->show();
        d->raise();
        findChild<ProfilePanel*>()->start();
    });
    verifyAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_V));

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&Keyboard Shortcuts"), this, [this] {
        QDialog dlg(this);
        dlg.setWindowTitle(tr("Keyboard shortcuts"));
        auto* l = new QVBoxLayout(&dlg);
        auto* text = new QLabel(&dlg);
        QString html = "<table cellspacing=4>";
        for (const QString& line : shortcutsText().split('\n')) {
            const QStringList parts = line.split('\t');
            html += QStringLiteral("<tr><td>%1</td><td><b>%2</b></td></tr>").arg(parts.value(0).toHtmlEscaped(), parts.value(1).toHtmlEscaped());
        }
        text->setText(html + "</table>");
        l->addWidget(text);
        auto* box = new QDialogButtonBox(QDialogButtonBox::Close, &dlg);
        connect(box, &QDialogButtonBox::rejected, &dlg, &QDialog::reject);
        l->addWidget(box);
        dlg.exec();
    })->setShortcut(QKeySequence::HelpContents);
    help->addAction(tr("&About Recompute Explorer"), this, [this] {
        QMessageBox::about(this, tr("About Recompute Explorer"),
                           tr("<b>Recompute Explorer</b> %1<br>Loads PaddlePaddle PIR programs, reproduces Paddle's auto_recompute "
                              "min cut exactly, and shows what it saves and what it recomputes.").arg(QApplication::applicationVersion()));
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
    QSettings s;  // lastDir: an interactive choice, so it is remembered
    const QString p = QFileDialog::getOpenFileName(this, tr("Open program"), s.value("lastDir").toString(),
                                                   tr("PIR programs (*.pir *.txt *.json);;All files (*)"));
    if (p.isEmpty()) return;
    s.setValue("lastDir", QFileInfo(p).absolutePath());
    openFile(p);
}

void MainWindow::addRecent(const QString& path) {
    if (!useSettings_) return;
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
    if (!useSettings_) return QMainWindow::closeEvent(event);
    QSettings s;
    s.setValue("window/geometry", saveGeometry());
    s.setValue("window/state", saveState());
    if (!doc_->filePath().isEmpty()) s.setValue("lastFile", doc_->filePath());
    QMainWindow::closeEvent(event);
}

void MainWindow::log(const QString& message) {
    log_->appendPlainText(QTime::currentTime().toString("HH:mm:ss  ") + message);
}

void MainWindow::showInfo(const QString& message) {
    banner_->setStyleSheet(kInfoBannerStyle);
    banner_->setProperty("info", true);
    bannerKind_ = BannerKind::Info;
    bannerText_->setText(message.toHtmlEscaped());
    bannerAction_->hide();
    bannerCallback_ = {};
    banner_->show();
}

QString MainWindow::infoBannerText() const { return banner_->isVisible() && banner_->property("info").toBool() ? bannerText_->text() : QString(); }

void MainWindow::showError(const QString& message, BannerKind kind, const QString& actionText, std::function<void()> action) {
    banner_->setStyleSheet(kErrorBannerStyle);
    banner_->setProperty("info", false);
    bannerKind_ = kind;
    bannerCallback_ = std::move(action);
    bannerAction_->setText(actionText);
    bannerAction_->setVisible(bannerCallback_ != nullptr);
    bannerText_->setText(QStringLiteral("<b>%1</b> %2").arg(tr("Error:"), message.toHtmlEscaped()) +
                         (doc_->hasProgram() ? tr(" — still showing %1.").arg(doc_->displayName().toHtmlEscaped()) : QString()));
    banner_->show();
}

void MainWindow::reportInputError(const QString& message) {
    log(tr("Error: %1").arg(message));
    showError(message, BannerKind::Error);
}

void MainWindow::hideError() {
    banner_->hide();
    bannerAction_->hide();
    bannerCallback_ = {};
    bannerKind_ = BannerKind::None;
}

QString MainWindow::errorBannerText() const { return banner_->isVisible() && !banner_->property("info").toBool() ? bannerText_->text() : QString(); }

QString MainWindow::statusText() const { return statusNumbers_->text(); }

void MainWindow::updateStatus() {
    if (!doc_->hasProgram()) {
        statusFile_->setText(tr("No program"));
        statusNumbers_->clear();
        statusTimes_->clear();
        return;
    }
    const Program& p = doc_->program();
    statusFile_->setText(tr("%1 · %2 ops · %3 values").arg(doc_->displayName()).arg(p.globalBlock().ops.size()).arg(p.values().size()));
    auto r = doc_->result();
    if (r && r->ok()) {
        const double before = double(r->originalMemory.peakBytes), after = double(r->rewrittenMemory.peakBytes);
        statusNumbers_->setText(tr("  peak %1 → %2 (%3%4%) · cut %5 · saved %6 · recomputed ops %7 · seed's mid-hold estimate %8")
                                    .arg(formatBytes(before), formatBytes(after), after > before ? "+" : "")
                                    .arg(before > 0 ? (after - before) / before * 100 : 0.0, 0, 'f', 1)
                                    .arg(QString::fromStdString(r->plan.cutValueText()))
                                    .arg(r->plan.savedValues.size())
                                    .arg(r->plan.recomputeOps.size())
                                    .arg(formatBytes(double(r->plan.memorySavedBytes))));
        statusTimes_->setText(tr("parse %1 ms · solve %2 ms · layout %3 s")
                                  .arg(doc_->lastParseMs(), 0, 'f', 0)
                                  .arg(r->timings.totalMs, 0, 'f', 1)
                                  .arg(programView_->canvas()->lastLayoutMs() / 1000.0, 0, 'f', 2));
    }
}

void MainWindow::showValueMenu(ValueId v, QPoint globalPos) {
    if (QMenu* m = contextMenuFor(ModelKey{ModelKey::Kind::Value, v})) {
        m->exec(globalPos);
        delete m;
    }
}

QMenu* MainWindow::contextMenuFor(ModelKey key) {
    if (!doc_->hasProgram() || !key.valid()) return nullptr;
    const Program& p = doc_->program();
    auto* menu = new QMenu(this);
    auto addPins = [&](ValueId v) {
        const int pin = doc_->pinOf(v);
        menu->addSection(tr("%1 · %2").arg(doc_->valueName(v), formatBytes(double(p.valueBytes(v)))));
        QAction* save = menu->addAction(tr("Always save %1").arg(doc_->valueName(v)), this, [this, v] { doc_->pinValue(v, 1); });
        QAction* rec = menu->addAction(tr("Always recompute %1").arg(doc_->valueName(v)), this, [this, v] { doc_->pinValue(v, 2); });
        QAction* clear = menu->addAction(tr("Clear pin of %1").arg(doc_->valueName(v)), this, [this, v] { doc_->pinValue(v, 0); });
        save->setCheckable(true);
        rec->setCheckable(true);
        save->setChecked(pin == 1);
        rec->setChecked(pin == 2);
        clear->setEnabled(pin != 0);
    };
    if (key.kind == ModelKey::Kind::Value && key.id < p.values().size()) {
        addPins(key.id);
    } else if (key.kind == ModelKey::Kind::Op && key.id < p.ops().size()) {
        const OpId op = key.id;
        int shown = 0;
        for (ValueId r : p.op(op).results)
            if (p.valueBytes(r) > 0 && ++shown <= 4) addPins(r);
        if (programView_->canCollapseAround(op)) {
            menu->addSeparator();
            menu->addAction(programView_->inLayerView() ? tr("Back to the layer overview") : tr("Collapse this group"), this,
                            [this, op] { programView_->collapseAround(op); });
        }
    } else if (key.kind == ModelKey::Kind::Group) {
        if (programView_->canOpenLayer(key.id)) menu->addAction(tr("Open layer"), this, [this, key] { programView_->openLayer(key.id); });
        else menu->addAction(tr("Expand group"), this, [this, key] { Q_EMIT programView_->canvas()->keyDoubleClicked(key); });
    }
    if (menu->isEmpty()) {
        delete menu;
        return nullptr;
    }
    return menu;
}

// ---------------------------------------------------------------- export

QString MainWindow::exportRewritten(const QString& path) {
    auto r = doc_->result();
    if (!r || !r->rewritten) return tr("no rewritten program (solve first)");
    WriteOptions wo;
    wo.generation = doc_->program().generation();
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

QString MainWindow::loadConfigOption(const QString& path) {
    const QString e = loadConfig(path);
    if (!e.isEmpty()) reportInputError(tr("--config %1: %2 (the config in use is the seed's defaults)").arg(path, e));
    return e;
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

namespace {
// The Export dialog's types: its name filter and the extensions it writes (first: the one a
// bare name gets).
struct ExportType {
    const char* filter;
    QStringList extensions;
};
const std::vector<ExportType>& exportTypes() {
    static const std::vector<ExportType> types = {
        {QT_TR_NOOP("Rewritten program (*.pir)"), {".pir"}},
        {QT_TR_NOOP("Config (*.config.json)"), {".config.json"}},
        {QT_TR_NOOP("Report (*.report.json)"), {".report.json"}},
        {QT_TR_NOOP("Network (*.dot *.dimacs *.network.json)"), {".dot", ".dimacs", ".network.json"}},
        {QT_TR_NOOP("View image (*.svg *.png *.pdf)"), {".svg", ".png", ".pdf"}},
    };
    return types;
}
const ExportType* exportTypeOf(const QString& filter) {
    for (const ExportType& t : exportTypes())
        if (filter == MainWindow::tr(t.filter) || filter == QLatin1String(t.filter)) return &t;
    return nullptr;
}
// The export extension `path` ends with, or empty.
QString knownExportExtension(const QString& path) {
    const QString lower = path.toLower();
    for (const ExportType& t : exportTypes())
        for (const QString& e : t.extensions)
            if (lower.endsWith(e)) return e;
    return {};
}
}  // namespace

QStringList MainWindow::exportFilters() {
    QStringList out;
    for (const ExportType& t : exportTypes()) out << tr(t.filter);
    return out;
}

QString MainWindow::exportFileName(const QString& typed, const QString& filter) {
    const ExportType* type = exportTypeOf(filter);
    if (typed.isEmpty() || !type || !knownExportExtension(typed).isEmpty()) return typed;  // an explicit type wins
    const QString ext = type->extensions.first();
    // "run.json" as a Report is run.report.json, not run.json.report.json.
    const QString last = ext.mid(ext.lastIndexOf('.'));
    if (last != ext && typed.endsWith(last, Qt::CaseInsensitive)) return typed.left(typed.size() - last.size()) + ext;
    return typed + ext;
}

QString MainWindow::proposedExportName(const QString& current, const QString& filter) {
    const ExportType* type = exportTypeOf(filter);
    if (!type) return current;
    QString stem = current;
    if (const QString e = knownExportExtension(stem); !e.isEmpty()) stem.chop(e.size());
    else if (stem.endsWith(".json", Qt::CaseInsensitive)) stem.chop(5);  // Qt's own rename to the filter's last suffix
    return stem + type->extensions.first();
}

QFileDialog* MainWindow::createExportDialog() {
    const QString base = QFileInfo(doc_->filePath()).completeBaseName();
    auto* dlg = new QFileDialog(this, tr("Export"));
    dlg->setAcceptMode(QFileDialog::AcceptSave);
    dlg->setNameFilters(exportFilters());
    dlg->selectNameFilter(exportFilters().first());
    dlg->selectFile(base + ".recompute.pir");
    // Another type renames the proposed file, so the name always matches its own filter.
    // After the dialog's own handling of the change (it swaps only the last suffix: ".json").
    connect(dlg, &QFileDialog::filterSelected, dlg, [dlg](const QString& filter) {
        QTimer::singleShot(0, dlg, [dlg, filter] {
            const QStringList files = dlg->selectedFiles();
            const QString current = files.isEmpty() ? QString() : QFileInfo(files.first()).fileName();
            if (!current.isEmpty()) dlg->selectFile(proposedExportName(current, filter));
        });
    });
    return dlg;
}

QString MainWindow::exportTo(const QString& typed, const QString& filter) {
    const QString p = exportFileName(typed, filter);
    const QString ext = knownExportExtension(p);
    if (ext == ".pir") return exportRewritten(p);
    if (ext == ".config.json") return exportConfig(p);
    if (ext == ".report.json") return exportReport(p);
    if (ext == ".dot" || ext == ".dimacs" || ext == ".network.json") return exportNetwork(p);
    if (ext == ".svg" || ext == ".png" || ext == ".pdf") return exportView(p);
    return tr("choose a file name ending in .pir, .config.json, .report.json, .dot, .dimacs, .network.json, .svg, .png or .pdf");
}

void MainWindow::exportDialog() {
    if (!doc_->hasProgram()) return;
    std::unique_ptr<QFileDialog> dlg(createExportDialog());
    if (dlg->exec() != QDialog::Accepted || dlg->selectedFiles().isEmpty()) return;
    const QString filter = dlg->selectedNameFilter();
    const QString p = exportFileName(dlg->selectedFiles().first(), filter);
    const QString e = exportTo(p, filter);
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
    if (specEditor_) {  // one editor at a time
        specEditor_->raise();
        specEditor_->activateWindow();
        return;
    }
    // Window-modal, not exec(): the caller (the spec fallback banner, a test) is not blocked.
    auto* dialog = new QDialog(this);
    dialog->setObjectName("specEditor");
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setWindowModality(Qt::WindowModal);
    specEditor_ = dialog;
    QDialog& dlg = *dialog;
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
        for (ValueId v : vs) l << QString::fromStdString(p.value(v).name);
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
    auto save = std::make_shared<bool>(false);
    connect(buttons, &QDialogButtonBox::accepted, &dlg, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, &dlg, &QDialog::reject);
    connect(buttons->button(QDialogButtonBox::Save), &QPushButton::clicked, &dlg, [dialog, save] {
        *save = true;
        dialog->accept();
    });
    connect(dialog, &QDialog::accepted, this, [=, this] { applySpecEdit(fwd->value(), bwd->value(), inputs->text(), outputs->text(), grads->text(), *save); });
    dialog->open();
}

void MainWindow::applySpecEdit(int fwdEnd, int bwdStart, const QString& inputs, const QString& outputs, const QString& grads, bool save) {
    if (!doc_->hasProgram()) return;
    RecomputeSpec ns = doc_->spec();
    ns.fwdOpEndIdx = fwdEnd;
    ns.backwardOpStartIdx = bwdStart;
    auto parse = [this](const QString& text, std::vector<ValueId>& out) -> QString {
        out.clear();
        for (QString t : text.split(',', Qt::SkipEmptyParts)) {
            t = t.trimmed();
            const ValueId v = doc_->findValue(t);
            if (v == kNoId) return tr("unknown value %1").arg(t);
            out.push_back(v);
        }
        return {};
    };
    QString e = parse(inputs, ns.inputs);
    if (e.isEmpty()) e = parse(outputs, ns.outputs);
    if (e.isEmpty()) e = parse(grads, ns.gradOutputs);
    if (!e.isEmpty()) return showError(tr("Spec: %1").arg(e));
    doc_->setSpec(ns, tr("Edit spec"));
    if (save) {
        e = saveSpec();
        if (!e.isEmpty()) showError(e);
        else log(tr("Spec saved"));
    }
}

// ---------------------------------------------------------------- verify

bool MainWindow::isVerifying() const { return verifyWatcher_.isRunning(); }

bool MainWindow::isBusy() const {
    if (doc_->isSolving() || verifyWatcher_.isRunning() || textView_->isBuilding()) return true;
    for (ProfilePanel* p : findChildren<ProfilePanel*>())
        if (p->isRunning()) return true;
    for (ParetoPanel* p : findChildren<ParetoPanel*>())
        if (p->busy()) return true;
    for (GraphCanvas* c : findChildren<GraphCanvas*>())
        if (c->isLayingOut()) return true;
    return false;
}

QString MainWindow::saveScreenshot(const QString& path) {
    QApplication::processEvents();
    const QImage image = grab().toImage();
    if (image.isNull()) return tr("could not render the window");
    QBuffer buffer;
    buffer.open(QIODevice::WriteOnly);
    if (!image.save(&buffer, "PNG")) return tr("could not encode %1 as PNG").arg(path);
    return writeAtomically(path, buffer.data());
}

void MainWindow::cancelVerify() {
    if (verifyCancel_) verifyCancel_->store(true);
    verifyLabel_->setText(tr("Verify: cancelling…"));
}

void MainWindow::verify() {
    auto r = doc_->result();
    if (!r || !r->rewritten) return showError(tr("Verify: no rewritten program yet"));
    if (verifyWatcher_.isRunning()) return;
    verifyAction_->setEnabled(false);
    hideError();
    log(tr("Verify: running original and rewritten on the CPU…"));
    // The shared pointers keep both programs alive while the worker runs them.
    std::shared_ptr<const Program> original = doc_->programPtr(), rewritten = r->rewritten;
    verifyCancel_ = std::make_shared<std::atomic<bool>>(false);
    verifyStage_ = std::make_shared<std::atomic<int>>(0);
    verifyStartMs_ = QDateTime::currentMSecsSinceEpoch();
    verifyLabel_->setText(tr("Verify: starting…"));
    verifyBusy_->show();
    verifyTimer_->start();
    auto cancel = verifyCancel_;
    auto stage = verifyStage_;
    std::vector<ValueId> resident(doc_->spec().inputs.begin(), doc_->spec().inputs.end());
    verifyWatcher_.setFuture(QtConcurrent::run(&verifyPool_, [original, rewritten, cancel, stage, resident]() {
        VerifyRun run;
        try {
            exec::VerifyOptions vo;
            vo.cancel = cancel.get();
            vo.stage = stage.get();
            vo.residentValues = resident;
            run.report = exec::verifyPrograms(*original, *rewritten, vo);
        } catch (const std::exception& e) {
            run.error = e.what();
        }
        return run;
    }));
}

}  // namespace rx
