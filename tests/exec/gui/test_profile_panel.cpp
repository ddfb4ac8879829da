// The explorer's profile panel on a small real program: runs off the UI thread, fills the
// memory chart (both runs, peaks, boundaries), the top-20 time bars and the summary table;
// Cancel stops a run; nothing to profile is reported.
#include <QtTest>

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QPushButton>
#include <QChart>
#include <QHorizontalBarSeries>
#include <QTableWidget>

#include "views/Document.h"
#include "views/ProfilePanel.h"

using namespace rx;

class TestProfilePanel : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void nothingToProfile() {
        Document doc;
        ProfilePanel panel(&doc);
        QVERIFY(!panel.start());
        QVERIFY(panel.status().contains("Nothing to profile"));
    }
    void profilesARealProgram() {
        Document doc;
        QString error;
        QVERIFY2(doc.open(RX_SHARED_DIR "/corpus/torch-joint/transformer_layer.aten.pir", &error), qPrintable(error));
        QVERIFY(doc.waitForSolve(120000));
        ProfilePanel panel(&doc);
        // Tall enough for the chart's 20 rows: the panel shows as many top ops as fit its height.
        panel.resize(1200, 1400);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        QSignalSpy done(&panel, &ProfilePanel::finished);
        QVERIFY(panel.start());
        QVERIFY(panel.isRunning());
        QVERIFY(!panel.profileButton()->isEnabled());
        QVERIFY(panel.cancelButton()->isEnabled());
        QVERIFY(done.wait(300000));
        QCOMPARE(done.takeFirst().at(0).toBool(), true);
        QVERIFY(panel.report().has_value());
        const exec::ProfileReport& r = *panel.report();
        QVERIFY(r.equivalent);
        QCOMPARE(r.original.peakBytes, r.original.modelPeakBytes);
        QCOMPARE(r.rewritten.peakBytes, r.rewritten.modelPeakBytes);
        // two memory lines, two peak markers, two boundaries
        QCOMPARE(panel.memoryChart()->series().size(), 6);
        QCOMPARE(panel.timeChart()->series().size(), 1);
        auto* bars = qobject_cast<QHorizontalBarSeries*>(panel.timeChart()->series().at(0));
        QVERIFY(bars);
        QCOMPARE(bars->count(), 2);  // original, rewritten
        QCOMPARE(bars->barSets().at(0)->count(), 20);
        QTableWidget* t = panel.summaryTable();
        QCOMPARE(t->rowCount(), 7);
        QCOMPARE(t->item(2, 0)->text(), QString("yes"));
        QCOMPARE(t->item(2, 1)->text(), QString("yes"));
        QVERIFY(panel.status().contains("equivalent"));
        QVERIFY(panel.profileButton()->isEnabled());

        // The rows follow the panel's height: shrunk, fewer ops, each row still a text line
        // tall; grown back, the 20 again.
        auto topBars = [&] {
            auto* s = qobject_cast<QHorizontalBarSeries*>(panel.timeChart()->series().value(0));
            return s && !s->barSets().isEmpty() ? s->barSets().at(0)->count() : -1;
        };
        panel.resize(1200, 520);
        QTRY_VERIFY2(topBars() >= 4 && topBars() < 20, qPrintable(QString::number(topBars())));
        QBarCategoryAxis* names = nullptr;
        for (QAbstractAxis* a : panel.timeChart()->axes(Qt::Vertical)) names = qobject_cast<QBarCategoryAxis*>(a);
        QVERIFY(names);
        QCOMPARE(names->count(), topBars());
        const QFontMetricsF fm(names->labelsFont());
        QTRY_VERIFY2(panel.timeChart()->plotArea().height() / names->count() >= fm.height(),
                     qPrintable(QStringLiteral("%1 px a row for %2 px text").arg(panel.timeChart()->plotArea().height() / names->count()).arg(fm.height())));
        panel.resize(1200, 1400);
        QTRY_COMPARE(topBars(), 20);
    }
    void cancelStopsTheRun() {
        Document doc;
        QVERIFY(doc.open(RX_SHARED_DIR "/corpus/torch-joint/mlp.aten.pir"));
        QVERIFY(doc.waitForSolve(120000));
        ProfilePanel panel(&doc);
        QSignalSpy done(&panel, &ProfilePanel::finished);
        QVERIFY(panel.start());
        panel.cancel();
        QVERIFY(done.wait(300000));
        QCOMPARE(done.takeFirst().at(0).toBool(), false);
        QVERIFY(panel.status().contains("cancelled"));
        QVERIFY(!panel.report().has_value());
    }
};

QTEST_MAIN(TestProfilePanel)
#include "test_profile_panel.moc"
