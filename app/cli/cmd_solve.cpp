// recompute-cli solve PROGRAM [--spec F] [--config F] [--report F] [--rewritten F]
//                             [--network F.dot|.json|.dimacs] [--unreduced]
// Runs the seed's auto_recompute (ALGORITHM.md) and writes what FORMATS.md promises.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>

#include "algorithms/Solver.h"
#include "app/cli/Command.h"
#include "model/Diagnostic.h"
#include "model/PirReader.h"
#include "model/PirWriter.h"
#include "model/RecomputeConfig.h"
#include "model/RecomputeSpec.h"

namespace rx::cli {
int runBudgetSolve(const Arguments& args);  // app/cli/cmd_pareto.cpp (the budget planner)
}

namespace {

using namespace rx;

QJsonValue exactNumber(int64_t units, int64_t scale) {
    if (scale <= 1 || units % scale == 0) return QJsonValue(qint64(units / std::max<int64_t>(scale, 1)));
    return QJsonValue(std::stod(FlowNetwork::unitsText(units, scale)));
}

QJsonArray names(const Program& p, const std::vector<ValueId>& values) {
    QJsonArray a;
    for (ValueId v : values) a.append(QString::fromStdString(p.values[v].name));
    return a;
}

QJsonObject memoryJson(const MemoryProfile& m) {
    QJsonObject o;
    o["peak_bytes"] = qint64(m.peakBytes);
    o["peak_op_index"] = qint64(m.peakOpIndex);
    o["resident_bytes"] = qint64(m.residentBytes);
    o["boundary_bytes"] = qint64(m.boundaryBytes);
    o["boundary_activation_bytes"] = qint64(m.boundaryActivationBytes);
    return o;
}

void writeText(const std::string& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary);
    if (!out) throw Error(SourceLocation{path, 0, 0}, "cannot write file");
    out << text;
    if (!out) throw Error(SourceLocation{path, 0, 0}, "error writing file");
}

std::string mib(int64_t bytes) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.2f MiB", double(bytes) / (1024.0 * 1024.0));
    return buf;
}

int runSolve(const cli::Arguments& args) {
    if (args.option("--budget")) return cli::runBudgetSolve(args);  // budget planner, not the seed's mode
    using Clock = std::chrono::steady_clock;
    if (args.positional.size() != 1) throw Error("usage: recompute-cli solve PROGRAM [--spec F] [--config F] [--report F] [--rewritten F] [--network F] [--unreduced]");
    const std::string path = args.positional[0];
    const auto t0 = Clock::now();
    auto program = std::make_shared<Program>(loadProgram(path));
    const double parseMs = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();

    ResolvedSpec resolved = resolveSpec(*program, path, args.option("--spec"));
    RecomputeSpec spec = std::move(resolved.spec);
    const std::string specSource = resolved.source.empty() ? "detected" : resolved.source;
    RecomputeConfig config = RecomputeConfig::seedDefaults();
    if (auto c = args.option("--config")) config = readConfigFile(*c);

    RecomputeSolver solver(program, spec);
    SolveOptions options;
    options.reduced = !args.has("--unreduced");
    const SolveResult r = solver.solve(config, options);
    const Program& p = *program;

    if (!r.ok()) {
        std::cerr << path << ": auto_recompute failed: " << r.error << "\n";
        if (auto n = args.option("--network"); n && r.network) {
            // The network is what the user needs to see an ∞ path: write it anyway.
            r.network->writeFile(*n, p);
            std::cerr << "network written to " << *n << "\n";
        }
        return 1;
    }

    const Plan& plan = r.plan;
    if (auto n = args.option("--network")) {
        if (r.network) r.network->writeFile(*n, p, &r.cut.sinkSide);
        else throw Error("no flow network: the seed returns the program unchanged");
    }
    if (auto w = args.option("--rewritten")) {
        WriteOptions wo;
        wo.generation = p.generation;
        wo.renumber = true;
        writeText(*w, printProgram(*r.rewritten, wo));
    }
    if (auto rep = args.option("--report")) {
        QJsonObject o;
        o["program"] = QString::fromStdString(path);
        o["spec"] = QString::fromStdString(specSource);
        o["unchanged"] = r.unchanged;
        o["cut_value"] = exactNumber(plan.cutValueUnits, plan.scale);
        o["cut_value_text"] = QString::fromStdString(plan.cutValueText());
        o["saved_values"] = names(p, plan.savedValues);
        o["mid_hold_values"] = names(p, plan.midHoldValues);
        QJsonArray ops;
        for (OpId op : plan.recomputeOps) ops.append(qint64(solver.analysis().opIndex(op)));
        o["recompute_ops"] = ops;
        o["memory_saved_bytes"] = qint64(plan.memorySavedBytes);
        QJsonObject net;
        net["nodes"] = qint64(r.network ? r.network->nodeCount() : 0);
        net["edges"] = qint64(r.network ? r.network->arcs.size() : 0);
        net["solved_nodes"] = qint64(r.cut.solvedNodes);
        net["solved_edges"] = qint64(r.cut.solvedArcs);
        net["reduced"] = options.reduced;
        o["network"] = net;
        QJsonObject tm;
        tm["parse"] = parseMs;
        tm["build"] = r.timings.buildMs;
        tm["solve"] = r.timings.solveMs;
        tm["plan"] = r.timings.planMs;
        tm["rewrite"] = r.timings.rewriteMs;
        tm["memory"] = r.timings.memoryMs;
        tm["total"] = parseMs + r.timings.totalMs;
        o["timings_ms"] = tm;
        o["memory"] = QJsonObject{{"original", memoryJson(r.originalMemory)}, {"rewritten", memoryJson(r.rewrittenMemory)}};
        QJsonArray warnings, hazards;
        for (const auto& w : plan.warnings) warnings.append(QString::fromStdString(w));
        for (const auto& h : plan.hazards) hazards.append(QString::fromStdString(h));
        o["warnings"] = warnings;
        o["hazards"] = hazards;
        // Why, per value in the network (forward values with their weights and bans).
        QJsonArray values;
        if (!plan.reasons.empty()) {
            std::vector<ValueId> vs;
            for (ValueId v = 0; v < p.values.size(); ++v)
                if (plan.reasons[v].valueClass == ValueClass::Forward) vs.push_back(v);
            sortValuesByName(p, vs);
            for (ValueId v : vs) {
                const ValueReason& why = plan.reasons[v];
                QJsonObject e;
                e["name"] = QString::fromStdString(p.values[v].name);
                e["in_network"] = why.inNetwork;
                e["skip"] = QString::fromStdString(std::string(skipReasonName(why.skip)));
                e["distance"] = qint64(why.distance);
                e["size"] = qint64(why.size);
                e["weight"] = exactNumber(why.weightUnits, plan.scale);
                e["materialized"] = why.materialized;
                e["materialized_backwards"] = why.materializedBackwards;
                e["fusion_loop"] = why.fusionLoop;
                e["banned"] = why.banned;
                e["ban_rule"] = QString::fromStdString(std::string(banRuleName(why.banRule)));
                e["ban_text"] = QString::fromStdString(why.banText);
                e["side"] = QString::fromStdString(std::string(valueSideName(why.side)));
                e["mid_hold"] = why.midHold;
                e["pin"] = why.pin == ValueFacts::Pin::Saved ? "saved" : why.pin == ValueFacts::Pin::Recomputed ? "recomputed" : "none";
                values.append(e);
            }
        }
        o["values"] = values;
        writeText(*rep, QJsonDocument(o).toJson(QJsonDocument::Indented).toStdString());
    }

    // Short human summary.
    std::cout << path << ": " << p.globalBlock().ops.size() << " ops, spec " << specSource << " (fwd end "
              << spec.fwdOpEndIdx << ", bwd start " << spec.backwardOpStartIdx << ")\n";
    if (r.unchanged) {
        std::cout << "  the seed returns the program unchanged (no backward values or bwd start past the end)\n";
        return 0;
    }
    auto list = [&](const std::vector<ValueId>& vs) {
        std::string s;
        for (size_t i = 0; i < vs.size() && i < 12; ++i) s += (i ? ", " : "") + p.values[vs[i]].name;
        if (vs.size() > 12) s += ", ... (" + std::to_string(vs.size()) + ")";
        return "{" + s + "}";
    };
    std::cout << "  network: " << r.network->nodeCount() << " nodes, " << r.network->arcs.size() << " edges"
              << (options.reduced ? " (Preflow on " + std::to_string(r.cut.solvedNodes) + " nodes after contraction)" : "")
              << "\n";
    std::cout << "  cut value: " << plan.cutValueText() << "\n";
    std::cout << "  saved: " << list(plan.savedValues) << "\n";
    std::cout << "  mid-hold: " << list(plan.midHoldValues) << ", " << plan.memorySavedBytes << " bytes ("
              << mib(plan.memorySavedBytes) << ") saved\n";
    std::cout << "  recomputed ops: " << plan.recomputeOps.size() << "\n";
    if (!r.originalMemory.liveBytes.empty())
        std::cout << "  peak memory: " << mib(r.originalMemory.peakBytes) << " -> " << mib(r.rewrittenMemory.peakBytes)
                  << "\n";
    for (const auto& w : plan.warnings) std::cout << "  warning: " << w << "\n";
    for (const auto& h : plan.hazards) std::cout << "  hazard: " << h << "\n";
    std::cout << "  time: " << (parseMs + r.timings.totalMs) << " ms\n";
    return 0;
}

cli::RegisterCommand reg({"solve",
                          "solve PROGRAM [--spec F] [--config F] [--report F] [--rewritten F] "
                          "[--network F.dot|.json|.dimacs] [--unreduced] [--budget B [--exact] [--costs PROFILE.json]]",
                          {"--spec", "--config", "--report", "--rewritten", "--network", "--budget", "--costs"},
                          &runSolve});

}  // namespace
