// recompute-explorer: the desktop app.
//   recompute-explorer [PROGRAM] [--config FILE] [--select %N] [--tab program|flow|text]
//                      [--overlay size|weight|distance] [--rewritten] [--diff]
//                      [--screenshot PNG] [--measure-first-picture N]
// Without a program the last file opens, or the bundled example on first start.
#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QScreen>
#include <QSettings>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTimer>
#include <cstdio>
#include <malloc.h>
#include <fstream>

#include "algorithms/zoo/ModelZoo.h"
#include "model/FileIO.h"
#include "model/PirWriter.h"
#include "views/GraphViews.h"
#include "views/MainWindow.h"
#include "views/TextView.h"

namespace {

long rssKiB() {
    std::ifstream f("/proc/self/status");
    std::string line;
    while (std::getline(f, line))
        if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
    return 0;
}

// Writes a generated transformer of about `ops` ops (+ spec) to a temp folder; returns its path.
QString generateProgram(int ops) {
    rx::zoo::ZooOptions o;
    o.model = "transformer";
    o.layers = 1;
    const size_t one = rx::zoo::generateModel(o).program->globalBlock().ops.size();
    o.layers = 2;
    const size_t two = rx::zoo::generateModel(o).program->globalBlock().ops.size();
    const size_t perLayer = std::max<size_t>(1, two - one);
    o.layers = std::max(1, int((double(ops) - double(one - perLayer)) / double(perLayer) + 0.5));
    const rx::zoo::GeneratedProgram g = rx::zoo::generateModel(o);
    const QString dir = QDir::tempPath() + "/rx-measure";
    QDir().mkpath(dir);
    const QString path = dir + QStringLiteral("/transformer-%1.pir").arg(ops);
    rx::writeProgramFile(*g.program, path.toStdString());
    rx::writeFileAtomic((dir + QStringLiteral("/transformer-%1.spec.json").arg(ops)).toStdString(), rx::zoo::specJson(g));
    return path;
}

}  // namespace

int main(int argc, char** argv) {
    // Keep freed arrays in-process: page faults from glibc returning them to the kernel dominated solve time (as app/cli/main.cpp).
    mallopt(M_MMAP_MAX, 0);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
    QApplication app(argc, argv);
    QApplication::setApplicationName("recompute-explorer");
    QApplication::setOrganizationName("recompute-explorer");
    QApplication::setApplicationVersion("0.1");
    QApplication::setStyle("Fusion");

    QCommandLineParser parser;
    parser.setApplicationDescription("Recompute Explorer: see and tune Paddle's auto_recompute min cut");
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument("program", "PIR program (.pir text or PIR JSON)");
    QCommandLineOption configOpt("config", "Heuristics config JSON", "file");
    QCommandLineOption selectOpt("select", "Select a value (e.g. %12) after opening", "value");
    QCommandLineOption tabOpt("tab", "Start on tab: program, flow or text", "tab");
    QCommandLineOption overlayOpt("overlay", "Colour nodes by size, weight or distance", "what");
    QCommandLineOption rewrittenOpt("rewritten", "Show the rewritten program in the graph");
    QCommandLineOption diffOpt("diff", "Show the text diff");
    QCommandLineOption shotOpt("screenshot", "Save a screenshot of the window and quit", "png");
    QCommandLineOption measureOpt("measure-first-picture", "Generate a program of N ops, report time to first picture and memory, quit", "N");
    QCommandLineOption wholeOpt("whole", "Lay out the whole program graph (no overview)");
    parser.addOptions({configOpt, selectOpt, tabOpt, overlayOpt, rewrittenOpt, diffOpt, shotOpt, measureOpt, wholeOpt});
    parser.process(app);

    rx::MainWindow window;
    rx::Document* doc = window.document();
    const bool scripted = parser.isSet(shotOpt) || parser.isSet(measureOpt);
    if (scripted) window.resize(1600, 1000);
    window.show();

    if (parser.isSet(measureOpt)) {
        const int n = parser.value(measureOpt).toInt();
        const long rssBefore = rssKiB();
        const QString path = generateProgram(n);
        auto* timer = new QElapsedTimer;
        bool done = false;
        QObject::connect(window.programView()->canvas(), &rx::GraphCanvas::layoutFinished, &window,
                         [&, timer](double layoutMs, int nodes) {
                             if (done) return;
                             done = true;
                             window.repaint();  // the first picture is on screen after this paint
                             const double ms = timer->nsecsElapsed() / 1e6;
                             std::printf("ops %zu  first picture %.0f ms (parse %.0f ms, layout %.0f ms, %d nodes)  RSS %.1f MiB (+%.1f MiB)\n",
                                         doc->program().globalBlock().ops.size(), ms, doc->lastParseMs(), layoutMs, nodes,
                                         rssKiB() / 1024.0, (rssKiB() - rssBefore) / 1024.0);
                             std::fflush(stdout);
                             doc->waitForSolve(120000);
                             if (auto r = doc->result())
                                 std::printf("  solve %.0f ms, RSS after solve %.1f MiB\n", r->timings.totalMs, rssKiB() / 1024.0);
                             QTimer::singleShot(0, &app, &QApplication::quit);
                         });
        timer->start();
        if (!window.openFile(path)) return 1;
        return app.exec();
    }

    const QStringList args = parser.positionalArguments();
    QSettings settings;
    if (!args.isEmpty()) {
        window.openFile(args.first());
    } else if (!settings.value("firstRunDone").toBool() || !QFileInfo::exists(settings.value("lastFile").toString())) {
        window.openExample(rx::MainWindow::exampleNames().first());
    } else {
        window.openFile(settings.value("lastFile").toString());
    }
    settings.setValue("firstRunDone", true);
    if (parser.isSet(configOpt)) {
        const QString e = window.loadConfig(parser.value(configOpt));
        if (!e.isEmpty()) std::fprintf(stderr, "%s\n", qPrintable(e));
    }
    if (parser.isSet(wholeOpt)) window.programView()->showWholeGraph();
    const QString overlay = parser.value(overlayOpt);
    if (overlay == "size") window.programView()->setOverlay(rx::Overlay::Size);
    if (overlay == "weight") window.programView()->setOverlay(rx::Overlay::Weight);
    if (overlay == "distance") window.programView()->setOverlay(rx::Overlay::Distance);
    const QString tab = parser.value(tabOpt);
    if (tab == "flow") window.tabs()->setCurrentIndex(1);
    if (tab == "text") window.tabs()->setCurrentIndex(2);
    if (parser.isSet(diffOpt)) window.textView()->setDiff(true);
    if (parser.isSet(selectOpt)) {
        QTimer::singleShot(300, &window, [&] {
            doc->waitForSolve(30000);
            if (parser.isSet(rewrittenOpt)) window.programView()->setShowRewritten(true);
            const rx::ValueId v = doc->hasProgram() ? doc->findValue(parser.value(selectOpt)) : rx::kNoId;
            if (v != rx::kNoId) doc->select(rx::ModelKey{rx::ModelKey::Kind::Value, v});
        });
    } else if (parser.isSet(rewrittenOpt)) {
        QTimer::singleShot(300, &window, [&] {
            doc->waitForSolve(30000);
            window.programView()->setShowRewritten(true);
        });
    }
    if (parser.isSet(shotOpt)) {
        const QString out = parser.value(shotOpt);
        QTimer::singleShot(4000, &window, [&, out] {
            window.grab().save(out);
            std::printf("screenshot %s\n", qPrintable(out));
            app.quit();
        });
    }
    return app.exec();
}
