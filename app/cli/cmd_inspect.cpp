// recompute-cli inspect PROGRAM [--json] [--program N] [--spec FILE]
// What is in a program: op and value counts, op histogram, dtypes and bytes, the printer
// generation, the recompute spec (loaded or detected) and reader warnings.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <map>

#include "app/cli/Command.h"
#include "model/Diagnostic.h"
#include "model/PirReader.h"
#include "model/RecomputeSpec.h"

namespace {

using namespace rx;

std::string humanBytes(int64_t b) {
    const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = static_cast<double>(b);
    int u = 0;
    while (v >= 1024 && u < 4) { v /= 1024; ++u; }
    char buf[64];
    std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.1f %s", v, units[u]);
    return buf;
}

int runInspect(const cli::Arguments& args) {
    if (args.positional.size() != 1) throw Error("usage: recompute-cli inspect PROGRAM [--json] [--program N] [--spec FILE]");
    const std::string& path = args.positional[0];
    ReadOptions read;
    read.programIndex = static_cast<int>(args.integer("--program", -1, 0));
    const auto start = std::chrono::steady_clock::now();
    const Program program = loadProgram(path, read);
    const double readMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();

    // The file's program list, when it holds several (a second parse; skipped otherwise).
    std::vector<ProgramListing> listing;
    bool several = read.programIndex >= 0;
    for (const auto& w : program.warnings) several |= w.rfind("file holds", 0) == 0;
    if (several) {
        const std::string text = readTextFile(path);
        if (text.find("\"base_code\"") == std::string::npos) listing = listPrograms(text, path);
    }

    // Spec: --spec FILE, else PROGRAM.spec.json beside it, else detected.
    ResolvedSpec resolved = resolveSpec(program, path, args.option("--spec"));
    RecomputeSpec spec = std::move(resolved.spec);
    const std::string specSource = resolved.source.empty() ? "detected" : resolved.source;

    // Counted per interned name / type id first: no string work per op.
    std::vector<size_t> perName(program.opNameCount(), 0);
    size_t liveOps = 0;
    for (OpId op = 0; op < program.ops.size(); ++op) {
        if (program.ops[op].dead || program.ops[op].parentBlock == kNoId) continue;
        ++liveOps;
        ++perName[program.ops[op].nameId];
    }
    std::map<std::string, size_t> histogram;
    for (uint32_t n = 0; n < perName.size(); ++n)
        if (perName[n]) histogram[std::string(program.opNameById(n))] += perName[n];
    std::vector<size_t> perType(program.types.size(), 0);
    for (const Value& v : program.values) ++perType[v.type];
    struct DTypeTotal { size_t values = 0; int64_t bytes = 0; };
    std::map<std::string, DTypeTotal> dtypes;
    int64_t totalBytes = 0;
    for (TypeId id = 0; id < perType.size(); ++id) {
        if (!perType[id]) continue;
        const Type& t = program.types[id];
        const std::string key = t.kind == Type::Kind::Null ? "null"
                                : t.kind == Type::Kind::Vector ? "vec"
                                : t.kind == Type::Kind::Opaque ? "other"
                                                               : std::string(dtypeLongName(t.dtype));
        auto& d = dtypes[key];
        d.values += perType[id];
        const int64_t bytes = program.types.bytes(id) * static_cast<int64_t>(perType[id]);
        d.bytes += bytes;
        if (t.kind != Type::Kind::Vector) totalBytes += bytes;  // a vec holds its elements again
    }

    if (args.has("--json")) {
        QJsonObject o;
        o.insert("file", QString::fromStdString(path));
        o.insert("ops", static_cast<qint64>(program.globalBlock().ops.size()));
        o.insert("ops_total", static_cast<qint64>(liveOps));
        o.insert("values", static_cast<qint64>(program.values.size()));
        o.insert("blocks", static_cast<qint64>(program.blocks.size()));
        QJsonObject h;
        for (const auto& [name, count] : histogram) h.insert(QString::fromStdString(name), static_cast<qint64>(count));
        o.insert("op_histogram", h);
        QJsonObject d;
        for (const auto& [name, total] : dtypes)
            d.insert(QString::fromStdString(name), QJsonObject{{"values", static_cast<qint64>(total.values)},
                                                               {"bytes", static_cast<qint64>(total.bytes)}});
        o.insert("dtypes", d);
        o.insert("total_bytes", static_cast<qint64>(totalBytes));
        o.insert("timings_ms", QJsonObject{{"read", readMs}});
        o.insert("generation", QString::fromUtf8(generationName(program.generation).data(),
                                                 static_cast<qsizetype>(generationName(program.generation).size())));
        QJsonObject s = QJsonDocument::fromJson(QByteArray::fromStdString(specToJson(spec, program))).object();
        s.insert("source", QString::fromStdString(specSource));
        s.insert("detected", spec.detected);
        QJsonArray notes;
        for (const auto& n : spec.notes) notes.append(QString::fromStdString(n));
        s.insert("notes", notes);
        o.insert("spec", s);
        QJsonArray warnings;
        for (const auto& w : program.warnings) warnings.append(QString::fromStdString(w));
        o.insert("warnings", warnings);
        QJsonArray programs;
        for (const auto& l : listing)
            programs.append(QJsonObject{{"index", l.index}, {"line", l.line}, {"title", QString::fromStdString(l.title)},
                                        {"ops", static_cast<qint64>(l.opCount)}});
        o.insert("programs", programs);
        std::cout << QJsonDocument(o).toJson(QJsonDocument::Indented).toStdString();
        return 0;
    }

    std::cout << path << "\n";
    if (listing.size() > 1) {
        std::cout << "programs in file: " << listing.size() << "\n";
        for (const auto& l : listing)
            std::cout << "  [" << l.index << "] line " << l.line << ": " << l.title << " (" << l.opCount << " ops)\n";
    }
    std::cout << "generation: " << generationName(program.generation) << "\n"
              << "ops: " << program.globalBlock().ops.size() << " in the global block, " << liveOps << " in all "
              << program.blocks.size() << " block(s)\n"
              << "values: " << program.values.size() << ", " << humanBytes(totalBytes) << " in all\n"
              << "read in " << static_cast<int64_t>(readMs) << " ms\n";
    std::vector<std::pair<std::string, size_t>> sorted(histogram.begin(), histogram.end());
    std::stable_sort(sorted.begin(), sorted.end(), [](auto& a, auto& b) { return a.second > b.second; });
    std::cout << "op histogram:\n";
    for (const auto& [name, count] : sorted) std::cout << "  " << count << "\t" << name << "\n";
    std::cout << "dtypes:\n";
    for (const auto& [name, total] : dtypes)
        std::cout << "  " << name << "\t" << total.values << " value(s)\t" << humanBytes(total.bytes) << "\n";
    std::cout << "spec (" << specSource << "): fwd_op_end_idx " << spec.fwdOpEndIdx << ", backward_op_start_idx "
              << spec.backwardOpStartIdx << ", " << spec.inputs.size() << " input(s), " << spec.outputs.size()
              << " output(s), " << spec.gradOutputs.size() << " grad output(s)\n";
    for (const auto& n : spec.notes) std::cout << "  note: " << n << "\n";
    for (const auto& w : program.warnings) std::cout << "warning: " << w << "\n";
    return 0;
}

cli::RegisterCommand reg({"inspect", "inspect PROGRAM [--json] [--program N] [--spec FILE]", {"--program", "--spec"},
                          &runInspect});

}  // namespace
