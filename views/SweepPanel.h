#pragma once
// The knob sweep: peak and recompute FLOPs against the values of one knob of the config
// (max_dist_from_bw, minimum_weight, the size-ratio ban), as a Qt Charts plot. Each point is
// one solve of the document's solver with that knob value, run off the UI thread (QtConcurrent
// with a QPromise: points arrive one by one, Cancel stops between points). Clicking a point
// applies that knob value to the document as one undo step.
#include <QFutureWatcher>
#include <QThreadPool>
#include <QWidget>
#include <memory>
#include <vector>

#include "views/Document.h"

QT_BEGIN_NAMESPACE
class QChartView;
class QComboBox;
class QLabel;
class QLineSeries;
class QPushButton;
class QScatterSeries;
class QValueAxis;
QT_END_NAMESPACE

namespace rx {

enum class SweepKnob : uint8_t { MaxDistFromBw, MinimumWeight, SizeRatioBan };

// One solved point of a sweep.
struct SweepPoint {
    double knobValue = 0;
    bool ok = false;
    QString error;
    int64_t peakBytes = 0, activationPeakBytes = 0;
    double recomputeFlops = 0;
    size_t savedValues = 0, recomputedOps = 0;
    bool solvedOffUiThread = false;  // where the solve ran (the UI thread must never solve)
};

QString sweepKnobName(SweepKnob knob);                  // "max_dist_from_bw", as in the config file
std::vector<double> sweepValues(SweepKnob knob);        // the values a sweep solves
RecomputeConfig withKnob(RecomputeConfig config, SweepKnob knob, double value);

class SweepPanel : public QWidget {
    Q_OBJECT
public:
    SweepPanel(Document* doc, QWidget* parent = nullptr);
    ~SweepPanel() override;
    QComboBox* knobChoice() const { return knob_; }
    QPushButton* runButton() const { return run_; }
    QPushButton* cancelButton() const { return cancel_; }
    QChartView* chartView() const { return chartView_; }
    QScatterSeries* peakPoints() const { return peakPoints_; }
    const std::vector<SweepPoint>& points() const { return points_; }  // in knob-value order
    bool running() const { return sweeping_; }  // until every point is in points()
    bool canceled() const { return canceled_; }
    SweepKnob knob() const;
    void start();   // sweeps the chosen knob of the document's config
    void cancel();  // stops after the point being solved
    // What a click on point `index` does: the document's config gets that knob value (undoable).
    void applyPoint(size_t index);
    // The one worker thread the sweep runs on. Tests occupy it to hold a sweep before its first
    // value, so that a cancel lands while the sweep is certainly unfinished.
    QThreadPool& workerPool() { return pool_; }

Q_SIGNALS:
    void finished();

private:
    void pointReady(int resultIndex);
    void redraw();
    void pointClicked(const QPointF& point);

    Document* doc_;
    QComboBox* knob_;
    QPushButton* run_;
    QPushButton* cancel_;
    QLabel* status_;
    QChartView* chartView_;
    QLineSeries* peakLine_ = nullptr;
    QLineSeries* flopsLine_ = nullptr;
    QScatterSeries* peakPoints_ = nullptr;
    QScatterSeries* flopsPoints_ = nullptr;
    QValueAxis* xAxis_ = nullptr;
    QValueAxis* peakAxis_ = nullptr;
    QValueAxis* flopsAxis_ = nullptr;
    // Its own worker thread, not the global pool: painting (Qt's raster engine fills on the
    // global pool) and the document's solve never wait on this long run.
    QThreadPool pool_;
    QFutureWatcher<SweepPoint> watcher_;
    std::vector<SweepPoint> points_;
    SweepKnob sweptKnob_ = SweepKnob::MaxDistFromBw;
    RecomputeConfig sweptConfig_;
    bool canceled_ = false;
    bool sweeping_ = false;
    double flopScale_ = 1;  // FLOPs per unit of the recompute axis
};

}  // namespace rx
