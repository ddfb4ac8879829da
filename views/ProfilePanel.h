#pragma once
// The explorer's profile panel: runs the original and the rewritten program on the CPU
// executor off the UI thread (progress, Cancel) and shows memory over time of both runs
// (forward/backward boundary and both peaks marked), per-op time bars (top 20, original
// against rewritten) and a summary table (peaks measured and modelled, step time, overhead).
#include <QFutureWatcher>
#include <QThreadPool>
#include <QWidget>

#include <atomic>
#include <memory>
#include <optional>

#include "exec/Profile.h"
#include "views/Document.h"

class QChart;
class QChartView;
class QLabel;
class QProgressBar;
class QPushButton;
class QTableWidget;
class QTimer;

namespace rx {

class ProfilePanel : public QWidget {
    Q_OBJECT
public:
    ProfilePanel(Document* doc, QWidget* parent = nullptr);
    ~ProfilePanel() override;

    // Profiles the document's current original and rewritten program; false (and a message
    // in status()) when there is nothing to profile or a run is in progress.
    bool start();
    void cancel();
    bool isRunning() const;
    const std::optional<exec::ProfileReport>& report() const { return report_; }
    QString status() const;

    QChart* memoryChart() const;
    QChart* timeChart() const;
    QTableWidget* summaryTable() const { return summary_; }
    QPushButton* profileButton() const { return startButton_; }
    QPushButton* cancelButton() const { return cancelButton_; }

    // Top-op rows the time chart shows: as many as fit its height (refitted on resize).
    int topOpRows() const { return topOpRows_; }

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;  // the time chart resized: refit its rows

Q_SIGNALS:
    // ok: the runs finished (equivalent or not); message: the summary or the error.
    void finished(bool ok, const QString& message);

private:
    struct Outcome {
        std::optional<exec::ProfileReport> report;
        std::string error;
    };
    void onFinished();
    void showReport(const exec::ProfileReport& r);
    void drawMemory(const exec::ProfileReport& r);
    void drawTimes(const exec::ProfileReport& r);
    void fillSummary(const exec::ProfileReport& r);
    int topOpRowsThatFit() const;

    Document* doc_;
    QPushButton* startButton_;
    QPushButton* cancelButton_;
    QProgressBar* progress_;
    QLabel* status_;
    QChartView* memoryView_;
    QChartView* timeView_;
    QTableWidget* summary_;
    QTimer* poll_;
    // Its own worker thread, not the global pool: painting (Qt's raster engine fills on the
    // global pool) and the document's solve never wait on this long run.
    QThreadPool pool_;
    QFutureWatcher<Outcome> watcher_;
    std::shared_ptr<std::atomic<bool>> cancel_;
    std::shared_ptr<std::atomic<size_t>> done_, total_;
    std::optional<exec::ProfileReport> report_;
    int topOpRows_ = 0;
};

}  // namespace rx
