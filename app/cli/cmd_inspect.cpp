// recompute-cli inspect PROGRAM [--json] [--program N] [--spec FILE]
// What is in a program: op and value counts, op histogram, dtypes and bytes, the printer
// generation, the recompute spec (loaded or detected) and reader warnings.
#include <limits>
#include <rapidjson/ostreamwrapper.h>
#include <rapidjson/prettywriter.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <map>

#include "app/cli/Command.h"
#include "model/CheckedMath.h"
#include "model/Diagnostic.h"
#include "model/JsonWriter.h"
#include "model/PirReader.h"
#include "model/RecomputeSpec.h"

namespace {

using namespace rx;

struct InspectArgs {
    std::string program, spec;
    bool json = false;
    int programIndex = -1;
};

// Totals are 128-bit: the exact figure even where a value's size saturates int64 (a type of
// exabytes) or a sum of sizes passes it.
std::string humanBytes(WideInt b) {
    const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB", "ZiB", "YiB"};
    long double v = static_cast<long double>(b);
    int u = 0;
    while (v >= 1024 && u < 8) { v /= 1024; ++u; }
    char buf[64];
    std::snprintf(buf, sizeof buf, u == 0 ? "%.0Lf %s" : "%.1Lf %s", v, units[u]);
    return buf;
}

// A type's exact size in bytes: TypeTable saturates at INT64_MAX, so recompute those wide.
WideInt exactTypeBytes(const Program& program, TypeId id) {
    if (!program.types().bytesOverflow(id)) return program.types().bytes(id);
    const Type& t = program.types()[id];
    if (t.kind == Type::Kind::Vector) {
        WideInt sum = 0;
        for (TypeId e : t.elements) {
            auto s = checkedAdd(sum, exactTypeBytes(program, e));
            if (!s) throw Error("inspect: the size of a vector type does not fit in 128 bits");
            sum = *s;
        }
        return sum;
    }
    WideInt n = dtypeBytes(t.dtype);
    for (int64_t d : t.dims) {
        if (d == -1) continue;
        auto m = checkedMul(n, WideInt(d));
        if (!m) throw Error("inspect: a tensor type's size does not fit in 128 bits (dims multiply past 2^127)");
        n = *m;
    }
    return n;
}

template <class W>
void wideNumber(W& w, WideInt n) {
    if (n >= WideInt(INT64_MIN) && n <= WideInt(INT64_MAX)) {
        w.Int64(static_cast<int64_t>(n));
    } else {
        const std::string text = decimal(n);
        w.RawValue(text.data(), text.size(), rapidjson::kNumberType);
    }
}

int runInspect(const InspectArgs& a) {
    const std::string& path = a.program;
    ReadOptions read;
    read.programIndex = a.programIndex;
    const auto start = std::chrono::steady_clock::now();
    const Program& program = cli::keepUntilExit(std::make_shared<Program>(loadProgram(path, read)));
    const double readMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();

    // The file's program list, when it holds several (a second parse; skipped otherwise).
    std::vector<ProgramListing> listing;
    bool several = read.programIndex >= 0;
    for (const auto& w : program.warnings()) several |= w.rfind("file holds", 0) == 0;
    if (several) {
        const std::string text = readTextFile(path);
        if (text.find("\"base_code\"") == std::string::npos) listing = listPrograms(text, path);
    }

    // Spec: --spec FILE, else PROGRAM.spec.json beside it, else detected.
    ResolvedSpec resolved = resolveSpec(program, path, a.spec.empty() ? std::nullopt : std::optional(a.spec));
    const RecomputeSpec& spec = resolved.spec;
    const std::string specSource = resolved.source.empty() ? "detected" : resolved.source;

    // Counted per interned name / type id first: no string work per op.
    std::vector<size_t> perName(program.opNameCount(), 0);
    size_t liveOps = 0;
    for (OpId op = 0; op < program.ops().size(); ++op) {
        if (program.op(op).dead || program.op(op).parentBlock == kNoId) continue;
        ++liveOps;
        ++perName[program.op(op).nameId];
    }
    std::map<std::string, size_t> histogram;
    for (uint32_t n = 0; n < perName.size(); ++n)
        if (perName[n]) histogram[std::string(program.opNameById(n))] += perName[n];
    std::vector<size_t> perType(program.types().size(), 0);
    for (const Value& v : program.values()) ++perType[v.type];
    struct DTypeTotal { size_t values = 0; WideInt bytes = 0; };
    std::map<std::string, DTypeTotal> dtypes;
    WideInt totalBytes = 0;
    auto add = [](WideInt& sum, WideInt x) {
        auto s = checkedAdd(sum, x);
        if (!s) throw Error("inspect: the byte total does not fit in 128 bits");
        sum = *s;
    };
    for (TypeId id = 0; id < perType.size(); ++id) {
        if (!perType[id]) continue;
        const Type& t = program.types()[id];
        const std::string key = t.kind == Type::Kind::Null ? "null"
                                : t.kind == Type::Kind::Vector ? "vec"
                                : t.kind == Type::Kind::Opaque ? "other"
                                                               : std::string(dtypeLongName(t.dtype));
        auto& d = dtypes[key];
        d.values += perType[id];
        auto bytes = checkedMul(exactTypeBytes(program, id), WideInt(perType[id]));
        if (!bytes) throw Error("inspect: the byte total does not fit in 128 bits");
        add(d.bytes, *bytes);
        if (t.kind != Type::Kind::Vector) add(totalBytes, *bytes);  // a vec holds its elements again
    }

    if (a.json) {
        // Keys in alphabetical order (what scripts have read so far).
        rapidjson::OStreamWrapper os(std::cout);
        PrettyJsonWriter<rapidjson::OStreamWrapper> w(os);
        auto key = [&](std::string_view k) { w.Key(k.data(), rapidjson::SizeType(k.size())); };
        auto string = [&](std::string_view s) { w.String(s.data(), rapidjson::SizeType(s.size())); };
        auto names = [&](const std::vector<ValueId>& vs) {
            w.StartArray();
            for (ValueId v : vs) string(program.value(v).name);
            w.EndArray();
        };
        w.StartObject();
        key("blocks"), w.Uint64(program.blocks().size());
        key("dtypes");
        w.StartObject();
        for (const auto& [name, total] : dtypes) {
            key(name);
            w.StartObject();
            key("bytes"), wideNumber(w, total.bytes);
            key("values"), w.Uint64(total.values);
            w.EndObject();
        }
        w.EndObject();
        key("file"), string(path);
        key("generation"), string(generationName(program.generation()));
        key("op_histogram");
        w.StartObject();
        for (const auto& [name, count] : histogram) key(name), w.Uint64(count);
        w.EndObject();
        key("ops"), w.Uint64(program.globalBlock().ops.size());
        key("ops_total"), w.Uint64(liveOps);
        key("programs");
        w.StartArray();
        for (const auto& l : listing) {
            w.StartObject();
            key("index"), w.Int(l.index);
            key("line"), w.Int(l.line);
            key("ops"), w.Uint64(l.opCount);
            key("title"), string(l.title);
            w.EndObject();
        }
        w.EndArray();
        key("spec");
        w.StartObject();
        key("backward_op_start_idx"), w.Int(spec.backwardOpStartIdx);
        key("detected"), w.Bool(spec.detected);
        key("fwd_op_end_idx"), w.Int(spec.fwdOpEndIdx);
        key("grad_outputs"), names(spec.gradOutputs);
        key("inputs"), names(spec.inputs);
        key("notes");
        w.StartArray();
        for (const auto& n : spec.notes) string(n);
        w.EndArray();
        key("outputs"), names(spec.outputs);
        key("source"), string(specSource);
        w.EndObject();
        key("timings_ms");
        w.StartObject();
        key("read"), w.Double(readMs);
        w.EndObject();
        key("total_bytes"), wideNumber(w, totalBytes);
        key("values"), w.Uint64(program.values().size());
        key("warnings");
        w.StartArray();
        for (const auto& warning : program.warnings()) string(warning);
        w.EndArray();
        w.EndObject();
        std::cout << "\n";
        return 0;
    }

    std::cout << path << "\n";
    if (listing.size() > 1) {
        std::cout << "programs in file: " << listing.size() << "\n";
        for (const auto& l : listing)
            std::cout << "  [" << l.index << "] line " << l.line << ": " << l.title << " (" << l.opCount << " ops)\n";
    }
    std::cout << "generation: " << generationName(program.generation()) << "\n"
              << "ops: " << program.globalBlock().ops.size() << " in the global block, " << liveOps << " in all "
              << program.blocks().size() << " block(s)\n"
              << "values: " << program.values().size() << ", " << humanBytes(totalBytes) << " in all"
              << (totalBytes > WideInt(INT64_MAX) ? " (" + decimal(totalBytes) + " bytes)" : std::string()) << "\n"
              << "read in " << static_cast<int64_t>(readMs) << " ms\n";
    std::vector<std::pair<std::string, size_t>> sorted(histogram.begin(), histogram.end());
    std::stable_sort(sorted.begin(), sorted.end(), [](auto& x, auto& y) { return x.second > y.second; });
    std::cout << "op histogram:\n";
    for (const auto& [name, count] : sorted) std::cout << "  " << count << "\t" << name << "\n";
    std::cout << "dtypes:\n";
    for (const auto& [name, total] : dtypes)
        std::cout << "  " << name << "\t" << total.values << " value(s)\t" << humanBytes(total.bytes) << "\n";
    std::cout << "spec (" << specSource << "): fwd_op_end_idx " << spec.fwdOpEndIdx << ", backward_op_start_idx "
              << spec.backwardOpStartIdx << ", " << spec.inputs.size() << " input(s), " << spec.outputs.size()
              << " output(s), " << spec.gradOutputs.size() << " grad output(s)\n";
    for (const auto& n : spec.notes) std::cout << "  note: " << n << "\n";
    for (const auto& warning : program.warnings()) std::cout << "warning: " << warning << "\n";
    return 0;
}

cli::RegisterCommand reg("inspect", "What is in a program: ops, values, dtypes and bytes, generation, spec, warnings",
                         [](CLI::App& app) {
                             auto a = std::make_shared<InspectArgs>();
                             app.add_option("PROGRAM", a->program, "program to read (PIR text or JSON)")->required();
                             app.add_flag("--json", a->json, "one JSON object on stdout (FORMATS.md)");
                             app.add_option("--program", a->programIndex, "which program of a multi-program file (0-based)")
                                 ->check(CLI::Range(0, std::numeric_limits<int>::max()));
                             app.add_option("--spec", a->spec, "recompute spec (default: PROGRAM.spec.json, else detected)")->check(cli::kNonEmpty);
                             return [a] { return runInspect(*a); };
                         });

}  // namespace
