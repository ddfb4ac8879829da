// recompute-explorer: the desktop app.
//   recompute-explorer [PROGRAM] [--config FILE] [--select %N] [--tab program|flow|text|memory|profile|pareto|layers|sweep]
//                      [--overlay size|weight|distance] [--rewritten] [--diff] [--theme light|dark] [--layer N]
//                      [--screenshot PNG] [--measure-first-picture N] [--expand-layer N] [--verify]
// --screenshot renders the settled window offscreen (no display needed) and exits; it and
// --measure-first-picture leave the user's settings untouched.
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
#include "views/ProfilePanel.h"
#include "views/TextView.h"

namespace {

long rssKiB() {
    std::ifstream f("/proc/self/status");
    std::string line;
    while (std::getline(f, line))
        if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
    return 0;
}

// Peak resident set of the process so far (VmHWM), in KiB.
long peakRssKiB() {
    std::ifstream f("/proc/self/status");
    std::string line;
    while (std::getline(f, line))
        if (line.rfind("VmHWM:", 0) == 0) return std::stol(line.substr(6));
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
    // A screenshot needs no display: render offscreen unless a platform was chosen.
    for (int i = 1; i < argc; ++i)
        if (std::string_view(argv[i]).starts_with("--screenshot") && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
            qputenv("QT_QPA_PLATFORM", "offscreen");
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
    QCommandLineOption tabOpt("tab", "Start on tab: program, flow, text, memory, profile (runs the profile first with --screenshot), pareto, layers (the per-layer table), sweep (the knob sweep)", "tab");
    QCommandLineOption themeOpt("theme", "Palette: light or dark", "theme");
    QCommandLineOption overlayOpt("overlay", "Colour nodes by size, weight or distance", "what");
    QCommandLineOption rewrittenOpt("rewritten", "Show the rewritten program in the graph");
    QCommandLineOption diffOpt("diff", "Show the text diff");
    QCommandLineOption shotOpt("screenshot", "Render the settled window offscreen to a PNG and quit", "png");
    QCommandLineOption measureOpt("measure-first-picture", "Generate a program of N ops, report time to first picture and memory, quit", "N");
    QCommandLineOption wholeOpt("whole", "Lay out the whole program graph (no overview)");
    QCommandLineOption expandOpt("expand-layer",
                                 "Expand layer N's forward group in the program overview as a double-click does, print "
                                 "the time to the overview's picture and to the expanded one (with --screenshot: before it)",
                                 "N");
    QCommandLineOption verifyOpt("verify", "Run Verify once solved, print its result, time and the peak memory (with "
                                           "--screenshot: before it)");
    QCommandLineOption layerOpt("layer", "Open the layer view of detected layer N (0-based)", "N");
    QCommandLineOption sizeOpt("size", "Window size, WIDTHxHEIGHT (scripted runs default to 1600x1000)", "WxH");
    parser.addOptions({configOpt, selectOpt, tabOpt, overlayOpt, rewrittenOpt, diffOpt, shotOpt, measureOpt, wholeOpt, themeOpt,
                       expandOpt, verifyOpt, layerOpt, sizeOpt});
    parser.process(app);  // unknown options: an error and exit code 1
    auto fail = [](const QString& message) {
        std::fprintf(stderr, "recompute-explorer: %s\n", qPrintable(message));
        return 2;
    };
    if (parser.positionalArguments().size() > 1)
        return fail(QStringLiteral("one program at most, got %1").arg(parser.positionalArguments().join(' ')));
    const QString overlay = parser.value(overlayOpt);
    if (parser.isSet(overlayOpt) && overlay != "size" && overlay != "weight" && overlay != "distance" && overlay != "role")
        return fail(QStringLiteral("--overlay: unknown '%1' (expected size, weight, distance or role)").arg(overlay));
    const QString theme = parser.value(themeOpt);
    if (parser.isSet(themeOpt) && theme != "light" && theme != "dark")
        return fail(QStringLiteral("--theme: unknown '%1' (expected light or dark)").arg(theme));
    const QString shotPath = parser.value(shotOpt);
    if (parser.isSet(shotOpt) && !shotPath.toLower().endsWith(".png"))
        return fail(QStringLiteral("--screenshot: '%1' must end in .png").arg(shotPath));
    if (parser.isSet(measureOpt) && parser.value(measureOpt).toInt() <= 0)
        return fail(QStringLiteral("--measure-first-picture: '%1' is not a positive op count").arg(parser.value(measureOpt)));

    bool layerOk = false;
    const int expandLayer = parser.value(expandOpt).toInt(&layerOk);
    if (parser.isSet(expandOpt) && (!layerOk || expandLayer < 0))
        return fail(QStringLiteral("--expand-layer: '%1' is not a layer number").arg(parser.value(expandOpt)));
    QElapsedTimer sinceStart;
    sinceStart.start();

    const bool scripted = parser.isSet(shotOpt) || parser.isSet(measureOpt);
    rx::MainWindow window(nullptr, !scripted);
    rx::Document* doc = window.document();
    if (parser.isSet(tabOpt) && !window.tabNames().contains(parser.value(tabOpt))) {
        const QString t = parser.value(tabOpt);
        const bool planned = t == "profile" || t == "pareto";
        return fail(planned ? QStringLiteral("--tab %1: this build has no %1 tab (it has: %2)").arg(t, window.tabNames().join(", "))
                            : QStringLiteral("--tab: unknown tab '%1' (expected one of: %2)").arg(t, window.tabNames().join(", ")));
    }
    if (theme == "dark") window.setTheme(rx::Theme::Dark);
    if (theme == "light") window.setTheme(rx::Theme::Light);
    if (scripted) window.resize(1600, 1000);
    if (parser.isSet(sizeOpt)) {
        const QStringList wh = parser.value(sizeOpt).split('x');
        const int w = wh.value(0).toInt(), h = wh.size() == 2 ? wh[1].toInt() : 0;
        if (w < 320 || h < 240) return fail(QStringLiteral("--size: '%1' is not WIDTHxHEIGHT (at least 320x240)").arg(parser.value(sizeOpt)));
        window.resize(w, h);
    }
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
        if (!window.openFile(args.first()) && scripted) return fail(doc->lastError());
    } else if (scripted || !settings.value("firstRunDone").toBool() || !QFileInfo::exists(settings.value("lastFile").toString())) {
        window.openExample(rx::MainWindow::exampleNames().first());
    } else {
        window.openFile(settings.value("lastFile").toString());
    }
    if (!scripted) settings.setValue("firstRunDone", true);
    if (parser.isSet(configOpt)) {
        if (scripted) {
            const QString e = window.loadConfig(parser.value(configOpt));
            if (!e.isEmpty()) return fail(QStringLiteral("--config: %1").arg(e));
        } else if (const QString e = window.loadConfigOption(parser.value(configOpt)); !e.isEmpty()) {
            // Said in the window (an explorer started from a launcher has no terminal) and here.
            std::fprintf(stderr, "recompute-explorer: --config: %s\n", qPrintable(e));
        }
    }
    if (parser.isSet(wholeOpt) && doc->hasProgram() && !window.programView()->showWholeGraph())
        return fail(QStringLiteral("--whole: the whole graph is laid out up to %1 ops; this program has %2 (use the "
                                   "overview, --layer N or --expand-layer N)")
                        .arg(rx::ProgramView::kWholeGraphMaxOps)
                        .arg(doc->program().liveOpCount()));
    if (parser.isSet(expandOpt)) {
        // The overview's first picture, then the layer's group double-clicked, as a user would.
        auto* phase = new int(0);
        auto* clock = new QElapsedTimer;
        rx::GraphCanvas* canvas = window.programView()->canvas();
        QObject::connect(canvas, &rx::GraphCanvas::layoutFinished, &window, [&, phase, clock, canvas, expandLayer](double, int nodes) {
            if (*phase == 0) {
                *phase = 1;
                std::printf("overview picture %.0f ms after start (%d nodes)\n", sinceStart.nsecsElapsed() / 1e6, nodes);
                const std::string wanted = "layer " + std::to_string(expandLayer);
                const rx::LayerPartition& layers = window.programView()->layers();
                for (const auto& seg : window.programView()->overview().segments()) {
                    if (seg.expanded || seg.group < 0 || size_t(seg.group) >= layers.groups.size() ||
                        layers.groups[seg.group].name != wanted)
                        continue;
                    *phase = 2;
                    clock->start();
                    Q_EMIT canvas->keyDoubleClicked(rx::ModelKey{rx::ModelKey::Kind::Group, seg.begin});
                    break;
                }
                if (*phase == 1) {
                    std::fprintf(stderr, "recompute-explorer: --expand-layer: no collapsed group of %s in the overview\n", wanted.c_str());
                    app.exit(2);
                }
            } else if (*phase == 2) {
                *phase = 3;
                std::printf("layer %d expanded in %.0f ms (%d nodes)\n", expandLayer, clock->nsecsElapsed() / 1e6, nodes);
            }
            std::fflush(stdout);
        });
    }
    if (parser.isSet(verifyOpt)) {
        auto* clock = new QElapsedTimer;
        QObject::connect(&window, &rx::MainWindow::verifyFinished, &window, [clock](bool, const QString& summary) {
            std::printf("verify %.1f s: %s; peak RSS %.0f MiB\n", clock->nsecsElapsed() / 1e9, qPrintable(summary),
                        peakRssKiB() / 1024.0);
            std::fflush(stdout);
        });
        QTimer::singleShot(0, &window, [&, clock] {
            doc->waitForSolve(300000);
            clock->start();
            window.verify();
        });
    }
    if (overlay == "size") window.programView()->setOverlay(rx::Overlay::Size);
    if (overlay == "weight") window.programView()->setOverlay(rx::Overlay::Weight);
    if (overlay == "distance") window.programView()->setOverlay(rx::Overlay::Distance);
    if (parser.isSet(tabOpt)) window.showTab(parser.value(tabOpt));
    if (parser.isSet(shotOpt) && parser.value(tabOpt) == "flow")
        QObject::connect(window.flowView()->canvas(), &rx::GraphCanvas::layoutFinished, &window, [&](double ms, int nodes) {
            std::printf("flow picture %.0f ms after start (%d nodes, layout %.0f ms)\n", sinceStart.nsecsElapsed() / 1e6, nodes, ms);
            std::fflush(stdout);
        });
    if (parser.isSet(diffOpt)) window.textView()->setDiff(true);
    if (parser.isSet(selectOpt)) {
        QTimer::singleShot(300, &window, [&] {
            doc->waitForSolve(30000);
            if (parser.isSet(rewrittenOpt)) window.programView()->setShowRewritten(true);
            const rx::ValueId v = doc->hasProgram() ? doc->findValue(parser.value(selectOpt)) : rx::kNoId;
            if (v != rx::kNoId) doc->select(rx::ModelKey{rx::ModelKey::Kind::Value, v});
            else {
                std::fprintf(stderr, "recompute-explorer: --select: no value named '%s'\n", qPrintable(parser.value(selectOpt)));
                if (scripted) app.exit(2);
            }
        });
    } else if (parser.isSet(rewrittenOpt)) {
        QTimer::singleShot(300, &window, [&] {
            doc->waitForSolve(30000);
            window.programView()->setShowRewritten(true);
        });
    }
    if (parser.isSet(layerOpt)) {
        bool numeric = false;
        const int layer = parser.value(layerOpt).toInt(&numeric);
        if (!numeric || layer < 0) return fail(QStringLiteral("--layer: '%1' is not a layer number").arg(parser.value(layerOpt)));
        QTimer::singleShot(400, &window, [&, layer] {  // after --rewritten's
            doc->waitForSolve(30000);
            if (!window.programView()->openLayerNumber(size_t(layer))) {
                std::fprintf(stderr, "recompute-explorer: --layer: no layer %d (detected %zu)\n", layer, window.programView()->layers().layerCount());
                app.exit(2);
            }
        });
    }
    if (parser.isSet(shotOpt)) {
        // Settled: solved, no layout running, the selection applied; then one more paint.
        auto* clock = new QElapsedTimer;
        clock->start();
        auto* poll = new QTimer(&window);
        poll->setInterval(100);
        int quietTicks = 0;
        // The profile tab pictures a finished profile: run it once the solve is in.
        rx::ProfilePanel* profile = window.currentTabName() == "profile" ? window.findChild<rx::ProfilePanel*>() : nullptr;
        bool profileStarted = false;
        const qint64 settleLimitMs = profile ? 300000 : 120000;  // a profile runs both programs on the CPU
        QObject::connect(poll, &QTimer::timeout, &window, [&, poll, clock, shotPath, profile, settleLimitMs]() mutable {
            if (profile && !profileStarted && !doc->isSolving() && doc->result() && doc->result()->ok()) {
                profileStarted = true;
                if (!profile->start()) {
                    poll->stop();
                    std::fprintf(stderr, "recompute-explorer: --screenshot: profile: %s\n", qPrintable(profile->status()));
                    app.exit(3);
                    return;
                }
            }
            const bool busy = doc->isSolving() || window.isBusy() || clock->elapsed() < 600 || (profile && !profileStarted);
            quietTicks = busy ? 0 : quietTicks + 1;
            if (clock->elapsed() > settleLimitMs) {
                poll->stop();
                std::fprintf(stderr, "recompute-explorer: --screenshot: the window did not settle within %lld s\n", (long long)(settleLimitMs / 1000));
                app.exit(3);
                return;
            }
            if (quietTicks < 3) return;
            if (profile && !profile->report()) {
                poll->stop();
                std::fprintf(stderr, "recompute-explorer: --screenshot: profile failed: %s\n", qPrintable(profile->status()));
                app.exit(3);
                return;
            }
            if (profile) std::printf("profile: %s\n", qPrintable(profile->status()));
            poll->stop();
            const QString e = window.saveScreenshot(shotPath);
            if (!e.isEmpty()) {
                std::fprintf(stderr, "recompute-explorer: --screenshot: %s\n", qPrintable(e));
                app.exit(3);
                return;
            }
            std::printf("screenshot %s (%s tab)\n", qPrintable(shotPath), qPrintable(window.currentTabName()));
            app.quit();
        });
        poll->start();
    }
    return app.exec();
}
