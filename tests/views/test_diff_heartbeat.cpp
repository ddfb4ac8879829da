// The Text/Diff tab at 100k ops: ticking Diff and an edit with the diff shown print, map and
// align on a worker, so a heartbeat timer on the UI thread never stops for more than 250 ms
// and the UI thread never works more than 100 ms at a stretch; the aligned rows are a model
// (no filled text document), so the diff keeps RSS under 1.5x the program view's.
#include <QElapsedTimer>
#include <QFile>
#include <QListView>
#include <QProgressBar>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>
#include <ctime>

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

// Measures the longest gap between ticks of a 10 ms timer on the UI thread (wall clock), and
// the most CPU time the UI thread spent inside one gap. The wall gap is what the user sees, but
// on a loaded 2-core CI machine it also counts time the thread sat runnable while others ran;
// the busy time is the UI thread's own work, so it can be held to the 100 ms target reliably.
class Heartbeat : public QObject {
public:
    Heartbeat() {
        timer_.setInterval(10);
        connect(&timer_, &QTimer::timeout, this, [this] {
            worst_ = std::max(worst_, clock_.restart());
            const qint64 busy = threadCpuMs();
            worstBusy_ = std::max(worstBusy_, busy - busyMark_);
            busyMark_ = busy;
        });
    }
    void start() {
        worst_ = worstBusy_ = 0;
        clock_.start();
        busyMark_ = threadCpuMs();
        timer_.start();
    }
    qint64 stop() {
        timer_.stop();
        worstBusy_ = std::max(worstBusy_, threadCpuMs() - busyMark_);
        return std::max(worst_, clock_.elapsed());
    }
    qint64 worstBusy() const { return worstBusy_; }

private:
    static qint64 threadCpuMs() {
        timespec t{};
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
        return qint64(t.tv_sec) * 1000 + t.tv_nsec / 1000000;
    }
    QTimer timer_;
    QElapsedTimer clock_;
    qint64 worst_ = 0;
    qint64 worstBusy_ = 0;
    qint64 busyMark_ = 0;
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
        const qint64 openBusy = beat.worstBusy();
        const long rssPlain = rssKiB();

        // Ticking Diff: progress shows while the worker aligns.
        beat.start();
        view.setDiff(true);
        QVERIFY(view.isBuilding());
        QVERIFY(view.findChild<QProgressBar*>("textProgress")->isVisible());
        QTRY_VERIFY_WITH_TIMEOUT(built.count() >= 2, 180000);
        const qint64 diffStall = beat.stop();
        const qint64 diffBusy = beat.worstBusy();
        QVERIFY(!view.diffRows().empty());
        QCOMPARE(view.original()->model()->rowCount(), int(view.diffRows().size()));
        const long rssDiff = rssKiB();

        // Scrolling through the middle paints rows made on demand.
        beat.start();
        view.setCurrentRow(int(view.diffRows().size() / 2));
        view.nextChangeAction()->trigger();
        QTest::qWait(100);
        const qint64 scrollStall = beat.stop();
        const qint64 scrollBusy = beat.worstBusy();

        // An edit with the diff shown: re-solve and re-align, the UI thread stays free.
        const int before = built.count();
        beat.start();
        RecomputeConfig c = doc.config();
        c.maxDistFromBw = c.maxDistFromBw + 2;
        doc.setConfig(c, "max_dist_from_bw");
        QTRY_VERIFY_WITH_TIMEOUT(built.count() > before && !view.isBuilding() && !doc.isSolving(), 240000);
        const qint64 editStall = beat.stop();
        const qint64 editBusy = beat.worstBusy();

        qInfo("ops %zu rows %zu: worst UI-thread stall open %lld ms, diff %lld ms, scroll %lld ms, edit %lld ms; "
              "UI-thread busy in one stall: open %lld ms, diff %lld ms, scroll %lld ms, edit %lld ms; "
              "RSS plain %.0f MiB, with diff %.0f MiB (x%.2f)",
              g.program->globalBlock().ops.size(), view.diffRows().size(), (long long)openStall, (long long)diffStall,
              (long long)scrollStall, (long long)editStall, (long long)openBusy, (long long)diffBusy, (long long)scrollBusy,
              (long long)editBusy, rssPlain / 1024.0, rssDiff / 1024.0, double(rssDiff) / double(rssPlain));
        // Wall-clock stalls: what the user sees, with room for a loaded 2-core CI machine.
        QVERIFY2(diffStall < 250, qPrintable(QString("ticking Diff stalled the UI thread %1 ms").arg(diffStall)));
        QVERIFY2(scrollStall < 250, qPrintable(QString("scrolling stalled the UI thread %1 ms").arg(scrollStall)));
        // The edit's solve finishes on the UI thread with Document's own bookkeeping; the
        // diff's part must not add a stall on top.
        QVERIFY2(editStall < 250, qPrintable(QString("an edit with the diff shown stalled the UI thread %1 ms").arg(editStall)));
        QVERIFY2(openStall < 250, qPrintable(QString("opening the tab stalled the UI thread %1 ms").arg(openStall)));
        // The UI thread's own work in any one stall: the 100 ms target, which load
        // does not inflate.
        QVERIFY2(openBusy < 100, qPrintable(QString("opening the tab kept the UI thread busy %1 ms at a stretch").arg(openBusy)));
        QVERIFY2(diffBusy < 100, qPrintable(QString("ticking Diff kept the UI thread busy %1 ms at a stretch").arg(diffBusy)));
        QVERIFY2(scrollBusy < 100, qPrintable(QString("scrolling kept the UI thread busy %1 ms at a stretch").arg(scrollBusy)));
        QVERIFY2(editBusy < 100, qPrintable(QString("an edit with the diff shown kept the UI thread busy %1 ms at a stretch").arg(editBusy)));
        // The aligned rows are a model over the printed text, not a filled document.
        QVERIFY2(double(rssDiff) < 1.5 * double(rssPlain), qPrintable(QString("RSS with the diff x%1 of the program view's").arg(double(rssDiff) / double(rssPlain))));
    }
};

QTEST_MAIN(DiffHeartbeatTest)
#include "test_diff_heartbeat.moc"
