// The Text/Diff tab at 100k ops: ticking Diff and an edit with the diff shown print, map and
// align on a worker, so a heartbeat timer on the UI thread never stops for more than 250 ms;
// the aligned rows are a model (no filled text document), and the RSS it adds is reported.
#include <QElapsedTimer>
#include <QFile>
#include <QListView>
#include <QProgressBar>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>

#include "algorithms/zoo/ModelZoo.h"
#include "model/FileIO.h"
#include "model/PirWriter.h"
#include "views/Document.h"
#include "views/TextView.h"

using namespace rx;

namespace {
long rssKiB() {
    QFile f("/proc/self/status");
    if (!f.open(QIODevice::ReadOnly)) return 0;
    for (const QByteArray& line : f.readAll().split('\n'))
        if (line.startsWith("VmRSS:")) return line.mid(6).trimmed().split(' ').first().toLong();
    return 0;
}

// Measures the longest gap between ticks of a 10 ms timer on the UI thread.
class Heartbeat : public QObject {
public:
    Heartbeat() {
        timer_.setInterval(10);
        connect(&timer_, &QTimer::timeout, this, [this] {
            worst_ = std::max(worst_, clock_.restart());
        });
    }
    void start() {
        worst_ = 0;
        clock_.start();
        timer_.start();
    }
    qint64 stop() {
        timer_.stop();
        return std::max(worst_, clock_.elapsed());
    }

private:
    QTimer timer_;
    QElapsedTimer clock_;
    qint64 worst_ = 0;
};
}  // namespace

class DiffHeartbeatTest : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;

private Q_SLOTS:
    void diffOf100kOpsNeverStallsTheUiThread() {
        // A transformer stack of about 100k ops, as `rx generate` writes it.
        zoo::ZooOptions o;
        o.model = "transformer";
        o.layers = 1;
        const size_t one = zoo::generateModel(o).program->globalBlock().ops.size();
        o.layers = 2;
        const size_t perLayer = zoo::generateModel(o).program->globalBlock().ops.size() - one;
        o.layers = int(100000 / perLayer) + 1;
        const zoo::GeneratedProgram g = zoo::generateModel(o);
        QVERIFY(g.program->globalBlock().ops.size() >= 100000);
        const QString path = tmp_.path() + "/big.pir";
        writeProgramFile(*g.program, path.toStdString());
        writeFileAtomic((tmp_.path() + "/big.spec.json").toStdString(), zoo::specJson(g));

        Document doc;
        QString error;
        QVERIFY2(doc.open(path, &error), qPrintable(error));
        QVERIFY(doc.waitForSolve(240000));
        QVERIFY(doc.result() && doc.result()->ok());

        TextView view(&doc);
        view.resize(1400, 800);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        Heartbeat beat;
        QSignalSpy built(&view, &TextView::built);

        // The plain text: opening the tab.
        beat.start();
        QTRY_VERIFY_WITH_TIMEOUT(built.count() >= 1, 120000);
        const qint64 openStall = beat.stop();
        const long rssPlain = rssKiB();

        // Ticking Diff: progress shows while the worker aligns.
        beat.start();
        view.setDiff(true);
        QVERIFY(view.isBuilding());
        QVERIFY(view.findChild<QProgressBar*>("textProgress")->isVisible());
        QTRY_VERIFY_WITH_TIMEOUT(built.count() >= 2, 180000);
        const qint64 diffStall = beat.stop();
        QVERIFY(!view.diffRows().empty());
        QCOMPARE(view.original()->model()->rowCount(), int(view.diffRows().size()));
        const long rssDiff = rssKiB();

        // Scrolling through the middle paints rows made on demand.
        beat.start();
        view.setCurrentRow(int(view.diffRows().size() / 2));
        view.nextChangeAction()->trigger();
        QTest::qWait(100);
        const qint64 scrollStall = beat.stop();

        // An edit with the diff shown: re-solve and re-align, the UI thread stays free.
        const int before = built.count();
        beat.start();
        RecomputeConfig c = doc.config();
        c.maxDistFromBw = c.maxDistFromBw + 2;
        doc.setConfig(c, "max_dist_from_bw");
        QTRY_VERIFY_WITH_TIMEOUT(built.count() > before && !view.isBuilding() && !doc.isSolving(), 240000);
        const qint64 editStall = beat.stop();

        qInfo("ops %zu rows %zu: worst UI-thread stall open %lld ms, diff %lld ms, scroll %lld ms, edit %lld ms; "
              "RSS plain %.0f MiB, with diff %.0f MiB (x%.2f)",
              g.program->globalBlock().ops.size(), view.diffRows().size(), (long long)openStall, (long long)diffStall,
              (long long)scrollStall, (long long)editStall, rssPlain / 1024.0, rssDiff / 1024.0, double(rssDiff) / double(rssPlain));
        QVERIFY2(diffStall < 250, qPrintable(QString("ticking Diff stalled the UI thread %1 ms").arg(diffStall)));
        QVERIFY2(scrollStall < 250, qPrintable(QString("scrolling stalled the UI thread %1 ms").arg(scrollStall)));
        // The edit's solve finishes on the UI thread with Document's own bookkeeping; the
        // diff's part must not add a stall on top.
        QVERIFY2(editStall < 250, qPrintable(QString("an edit with the diff shown stalled the UI thread %1 ms").arg(editStall)));
        QVERIFY2(openStall < 250, qPrintable(QString("opening the tab stalled the UI thread %1 ms").arg(openStall)));
    }
};

QTEST_MAIN(DiffHeartbeatTest)
#include "test_diff_heartbeat.moc"
