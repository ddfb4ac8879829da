#pragma once
// The explorer's main window: tabs (program graph, flow network, text/diff), dock panels
// (outline, inspector, tuning, summary, log), toolbar, menus, status bar numbers, error
// banner, drag and drop, recent files, export and verify.
#include <QFutureWatcher>
#include <QMainWindow>
#include <optional>

#include "algorithms/exec/Verify.h"
#include "views/Document.h"

class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QTabWidget;
class QMenu;
class QAction;

namespace rx {

// Outcome of a verify run on a worker thread.
struct VerifyRun {
    std::optional<exec::VerifyReport> report;
    std::string error;
};

class ProgramView;
class FlowView;
class TextView;
class OutlinePanel;
class InspectorPanel;
class TuningPanel;
class SummaryPanel;
class GenerateDialog;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    Document* document() const { return doc_; }
    ProgramView* programView() const { return programView_; }
    FlowView* flowView() const { return flowView_; }
    TextView* textView() const { return textView_; }
    OutlinePanel* outline() const { return outline_; }
    InspectorPanel* inspector() const { return inspector_; }
    TuningPanel* tuning() const { return tuning_; }
    SummaryPanel* summary() const { return summary_; }
    QTabWidget* tabs() const { return tabs_; }
    QString errorBannerText() const;
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
    QString loadConfig(const QString& path);
    QString saveSpec();
    // Runs original and rewritten on the CPU executor off the UI thread; `verifyFinished`
    // reports the summary (also logged, and shown as an error when they differ).
    void verify();
    // File ▸ Generate Model…: shows the (one, remembered) dialog; a written program opens like File ▸ Open.
    GenerateDialog* showGenerateDialog();

Q_SIGNALS:
    void verifyFinished(bool equivalent, const QString& summary);

protected:
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;
    void closeEvent(QCloseEvent* event) override;

private:
    void buildActions();
    void buildDocks();
    void updateStatus();
    void updateRecentMenu();
    void addRecent(const QString& path);
    void showError(const QString& message);
    void hideError();
    void showValueMenu(ValueId v, QPoint globalPos);
    void openDialog();
    void exportDialog();
    void specDialog();
    void log(const QString& message);

    Document* doc_;
    QTabWidget* tabs_;
    ProgramView* programView_;
    FlowView* flowView_;
    TextView* textView_;
    OutlinePanel* outline_;
    InspectorPanel* inspector_;
    TuningPanel* tuning_;
    SummaryPanel* summary_;
    QPlainTextEdit* log_;
    QWidget* banner_;
    QLabel* bannerText_;
    QLineEdit* search_;
    QMenu* recentMenu_;
    QLabel* statusFile_;
    QLabel* statusNumbers_;
    QLabel* statusTimes_;
    QAction* verifyAction_;
    QFutureWatcher<VerifyRun> verifyWatcher_;
    GenerateDialog* generateDialog_ = nullptr;
};

}  // namespace rx
