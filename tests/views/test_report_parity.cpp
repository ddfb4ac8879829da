// One report writer: for the same program, spec and config the explorer's "Export report"
// and `recompute-cli solve --report` give the same bytes, timings aside (they are measured).
#include <QApplication>
#include <QFile>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include "views/MainWindow.h"

using namespace rx;

namespace {

QByteArray withoutTimings(QByteArray report) {
    // timings_ms is one object of scalars: from its key to the closing brace.
    const qsizetype at = report.indexOf("\"timings_ms\": {");
    if (at < 0) return report;
    const qsizetype end = report.indexOf('}', at);
    return report.remove(at, end - at + 1);
}

}  // namespace

class ReportParityTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void explorerAndCliWriteTheSameReport_data() {
        QTest::addColumn<QString>("name");
        QTest::newRow("docstring") << "cases/docstring-before-recompute";
        QTest::newRow("transformer") << "torch-joint/transformer_layer.prim";
    }
    void explorerAndCliWriteTheSameReport() {
        QFETCH(QString, name);
        QStandardPaths::setTestModeEnabled(true);
        QTemporaryDir tmp;
        const QString shared = QStringLiteral(RX_SHARED_DIR "/corpus/") + name;
        const QString program = tmp.filePath("p.pir"), spec = tmp.filePath("p.spec.json");
        QVERIFY(QFile::copy(shared + ".pir", program));
        QVERIFY(QFile::copy(shared + ".spec.json", spec));

        MainWindow window;
        QVERIFY(window.openFile(program));
        QVERIFY(window.document()->waitForSolve(30000));
        QVERIFY(window.exportReport(tmp.filePath("explorer.json")).isEmpty());

        QProcess cli;
        cli.start(QStringLiteral(RX_CLI_PATH), {"solve", program, "--report", tmp.filePath("cli.json")});
        QVERIFY(cli.waitForFinished(60000));
        QCOMPARE(cli.exitCode(), 0);

        QFile a(tmp.filePath("explorer.json")), b(tmp.filePath("cli.json"));
        QVERIFY(a.open(QIODevice::ReadOnly) && b.open(QIODevice::ReadOnly));
        const QByteArray explorer = a.readAll(), fromCli = b.readAll();
        QVERIFY(explorer.contains("\"timings_ms\": {") && explorer.contains("\"recompute_ops\""));
        QCOMPARE(withoutTimings(explorer), withoutTimings(fromCli));
    }
};

QTEST_MAIN(ReportParityTest)
#include "test_report_parity.moc"
