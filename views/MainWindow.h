#pragma once
// The explorer's main window: tabs (program graph, flow network, text/diff), dock panels
// (outline, inspector, tuning, summary, log), toolbar, menus, status bar numbers, error
// banner, drag and drop, recent files, export and verify.
#include <QFutureWatcher>
#include <QThreadPool>
#include <QMainWindow>
#include <QDialog>
#include <QPointer>
#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "exec/Verify.h"
#include "views/Document.h"

class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QTabWidget;
class QDockWidget;
class QMenu;
class QAction;
class QTimer;
class QFileDialog;
class QPushButton;

namespace rx {

// Outcome of a verify run on a worker thread.
struct VerifyRun {
    std::optional<exec::VerifyReport> report;
    std::string error;
};

class ProgramView;
class FlowView;
class TextView;
class MemoryView;
class OutlinePanel;
class InspectorPanel;
class TuningPanel;
class SummaryPanel;
class GenerateDialog;

enum class Theme { System, Light, Dark };

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    // `useSettings` false: neither read nor write QSettings (scripted runs: screenshots,
    // measurements), so they leave the user's window, recent files and theme alone.
    explicit MainWindow(QWidget* parent = nullptr, bool useSettings = true);
    ~MainWindow() override;

    Document* document() const { return doc_; }
    ProgramView* programView() const { return programView_; }
    FlowView* flowView() const { return flowView_; }
    TextView* textView() const { return textView_; }
    MemoryView* memoryView() const { return memoryView_; }
    OutlinePanel* outline() const { return outline_; }
    InspectorPanel* inspector() const { return inspector_; }
    TuningPanel* tuning() const { return tuning_; }
    SummaryPanel* summary() const { return summary_; }
    QTabWidget* tabs() const { return tabs_; }
    // Named central tabs ("program", "flow", "text", "memory", …): others add theirs with
    // addViewTab; `--tab NAME` and showTab find them by name.
    int addViewTab(QWidget* page, const QString& title, const QString& name);
    // A dock that answers to a tab name too ("profile", "pareto"): showTab raises it and
    // gives it most of the window's height, so `--tab NAME --screenshot` pictures it.
    void addDockTab(QDockWidget* dock, const QString& name);
    QStringList tabNames() const;
    bool showTab(const QString& name);
    QString currentTabName() const;
    QString errorBannerText() const;
    QString infoBannerText() const;
    // The banner's one-click fix ("Add pd_op.relu to recomputable ops"); hidden when none.
    QPushButton* bannerAction() const { return bannerAction_; }
    // Reports a bad input (a --config that cannot be read) in the window and the log.
    void reportInputError(const QString& message);
    // The context menu of a graph key (value: pins; op: pins of its results, collapse its
    // group). The caller owns the menu; null when the key has none.
    QMenu* contextMenuFor(ModelKey key);
    // Help ▸ Keyboard Shortcuts: every action with a shortcut, one "Name\tKeys" line each.
    QString shortcutsText() const;
    void setTheme(Theme theme);
    Theme theme() const { return theme_; }
    bool isVerifying() const;
    // A layout, solve or verify still running (what a screenshot waits for).
    bool isBusy() const;
    // Renders the window (offscreen too) to a PNG, written atomically; "" or the error.
    QString saveScreenshot(const QString& path);
    void cancelVerify();
    QString statusText() const;

    bool openFile(const QString& path);
    // Copies the bundled examples to a writable folder (specs beside them) and opens one.
    bool openExample(const QString& name);
    static QStringList exampleNames();

    // Export by extension; returns an empty string on success, else the error.
    QString exportRewritten(const QString& path);
    QString exportConfig(const QString& path);
    QString exportReport(const QString& path);
    QString exportNetwork(const QString& path);   // .dot .json .dimacs
    QString exportView(const QString& path);      // .svg .png .pdf: the current graph tab
    // File ▸ Export: the path a typed name exports to under `filter` (the type's extension
    // added unless the name already ends in an export extension), and the export itself.
    static QStringList exportFilters();
    static QString exportFileName(const QString& typed, const QString& filter);
    // The name the dialog proposes when the user picks `filter`: `current` with its type's extension.
    static QString proposedExportName(const QString& current, const QString& filter);
    QFileDialog* createExportDialog();  // the caller owns it
    QString exportTo(const QString& typed, const QString& filter);
    QString loadConfig(const QString& path);
    // --config FILE: loads it, or reports why not in the window (banner and log); returns the error.
    QString loadConfigOption(const QString& path);
    QString saveSpec();
    // The open spec editor (Tools ▸ Recompute Spec…, or opened by a broken spec file), or null.
    QDialog* specEditor() const { return specEditor_; }
    // Runs original and rewritten on the CPU executor off the UI thread; `verifyFinished`
    // reports the summary (also logged, and shown as an error when they differ).
    void verify();
    // File ▸ Generate Model…: shows the (one, remembered) dialog; a written program opens like File ▸ Open.
    GenerateDialog* showGenerateDialog();

Q_SIGNALS:
    void verifyFinished(bool equivalent, const QString& summary);
    void themeChanged();

protected:
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;
    void closeEvent(QCloseEvent* event) override;
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void buildActions();
    void buildDocks();
    void updateStatus();
    void updateRecentMenu();
    void addRecent(const QString& path);
    // Error: about the user's input (stays until closed or another program opens);
    // PlanError: about the plan shown (a failed solve, a Verify difference), closes with the
    // next plan. An action shows as a button beside the text.
    enum class BannerKind { None, Info, Error, PlanError };
    void showError(const QString& message, BannerKind kind = BannerKind::Error, const QString& actionText = {},
                   std::function<void()> action = {});
    void showInfo(const QString& message);
    void hideError();
    void showValueMenu(ValueId v, QPoint globalPos);
    void openDialog();
    void exportDialog();
    void specDialog();
    void applySpecEdit(int fwdEnd, int bwdStart, const QString& inputs, const QString& outputs, const QString& grads, bool save);
    void log(const QString& message);

    Document* doc_;
    QTabWidget* tabs_;
    ProgramView* programView_;
    FlowView* flowView_;
    TextView* textView_;
    MemoryView* memoryView_;
    OutlinePanel* outline_;
    InspectorPanel* inspector_;
    TuningPanel* tuning_;
    SummaryPanel* summary_;
    QPlainTextEdit* log_;
    QWidget* banner_;
    QLabel* bannerText_;
    QPushButton* bannerAction_;
    std::function<void()> bannerCallback_;
    BannerKind bannerKind_ = BannerKind::None;
    QLineEdit* search_;
    QMenu* recentMenu_;
    QLabel* statusFile_;
    QLabel* statusNumbers_;
    QLabel* statusTimes_;
    QAction* verifyAction_;
    // Its own worker thread, not the global pool: painting (Qt's raster engine fills on the
    // global pool) and the document's solve never wait on this verify.
    QThreadPool verifyPool_;
    QFutureWatcher<VerifyRun> verifyWatcher_;
    std::shared_ptr<std::atomic<bool>> verifyCancel_;
    std::shared_ptr<std::atomic<int>> verifyStage_;
    QWidget* verifyBusy_ = nullptr;
    QLabel* verifyLabel_ = nullptr;
    QTimer* verifyTimer_ = nullptr;
    qint64 verifyStartMs_ = 0;
    bool useSettings_ = true;
    Theme theme_ = Theme::System;
    QStringList tabNames_;
    std::vector<std::pair<QString, QDockWidget*>> dockTabs_;
    QString currentDockTab_;  // the dock tab showTab raised last; cleared when a central tab is chosen
    GenerateDialog* generateDialog_ = nullptr;
    QPointer<QDialog> specEditor_;
};

}  // namespace rx
