#pragma once
// File ▸ Generate Model…: the model zoo (recompute-cli generate) as a dialog. OK generates on
// a worker thread (300k ops take seconds), writes PROGRAM.pir and PROGRAM.spec.json
// atomically, and emits `generated` so the window opens the file like File ▸ Open. Errors
// stay in the dialog; the dialog stays open until a program is written.
#include <QDialog>
#include <QFutureWatcher>
#include <QThreadPool>

#include "algorithms/zoo/ModelZoo.h"

class QComboBox;
class QDialogButtonBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QSpinBox;

namespace rx {

// Outcome of one generate-and-write on the worker.
struct GenerateOutcome {
    QString programPath;
    QString summary;  // "transformer: 1234 ops, ... (generate 12 ms, write 3 ms)"
    QString error;    // empty on success
};

// Generates the model and writes PROGRAM.pir plus PROGRAM.spec.json through QSaveFile (a
// failure leaves no half-written file). Never throws; safe to call on any thread.
GenerateOutcome generateAndWrite(const zoo::ZooOptions& options, const QString& programPath);

class GenerateDialog : public QDialog {
    Q_OBJECT
public:
    explicit GenerateDialog(QWidget* parent = nullptr);
    ~GenerateDialog() override;

    zoo::ZooOptions options() const;
    void setOptions(const zoo::ZooOptions& options);
    QString outputPath() const;
    void setOutputPath(const QString& path);  // also stops following the model/layers default
    // AppLocalDataLocation/generated/<model>-<layers>l.pir
    static QString defaultOutputPath(const zoo::ZooOptions& options);

    bool isBusy() const { return watcher_.isRunning(); }
    QString errorText() const;

    void accept() override;  // starts the generation; the dialog closes when it succeeded
    void reject() override;  // ignored while generating (the files would still be written)

Q_SIGNALS:
    void generated(const QString& programPath, const QString& summary);

private:
    void setBusy(bool busy);
    void showError(const QString& message);
    void updateDefaultPath();
    void browse();
    void onFinished();

    QComboBox* model_;
    QSpinBox* layers_;
    QSpinBox* hidden_;
    QSpinBox* heads_;
    QSpinBox* seq_;
    QSpinBox* batch_;
    QSpinBox* ffn_;
    QComboBox* dtype_;
    QComboBox* mode_;
    QDoubleSpinBox* dropout_;
    QComboBox* generation_;
    QLineEdit* output_;
    QLabel* error_;
    QLabel* busyText_;
    QProgressBar* busy_;
    QDialogButtonBox* buttons_;
    QWidget* form_;
    bool followDefaultPath_ = true;
    // Its own worker thread, not the global pool: painting (Qt's raster engine fills on the
    // global pool) never waits on this work (MainWindow.h's verifyPool_ says the same).
    QThreadPool pool_;
    QFutureWatcher<GenerateOutcome> watcher_;
};

}  // namespace rx
