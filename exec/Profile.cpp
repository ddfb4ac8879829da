// Profiling a rewrite: both runs, their comparison, measured vs modelled memory, time per op,
// the recompute overhead; the report as JSON and both runs as a Chrome trace.
#include "exec/Profile.h"
#include "model/FileIO.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <unordered_set>

#include "exec/cpu/CpuExecutor.h"
#include "model/Diagnostic.h"
#include "model/JsonWriter.h"

namespace rx::exec {
namespace {

bool isFetch(std::string_view n) { return n == "pd_op.fetch" || n == "builtin.shadow_output"; }

// The values compared when a program has no fetch: its sinks (what verifyPrograms does).
std::vector<std::string> sinkNames(const Program& p) {
    std::vector<std::string> names;
    for (OpId op : p.globalBlock().ops)
        if (isFetch(p.opName(op))) return {};
    for (OpId op : p.globalBlock().ops) {
        std::string_view n = p.opName(op);
        if (n == "pd_op.data" || n == "builtin.parameter") continue;
        for (ValueId v : p.op(op).results)
            if (p.uses(v).empty() && p.types()[p.value(v).type].kind == Type::Kind::DenseTensor) names.push_back(p.value(v).name);
    }
    return names;
}

double median(std::vector<double> v) {
    if (v.empty()) return 0.0;
    std::sort(v.begin(), v.end());
    const size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

// What the timing keeps of a measured run: its step time and each op's kernel time.
struct RunTimes {
    double totalMs = 0;
    std::vector<double> opMicros;
    explicit RunTimes(const RunResult& r) : totalMs(r.totalMs) {
        opMicros.reserve(r.ops.size());
        for (const OpRecord& rec : r.ops) opMicros.push_back(rec.micros);
    }
};

// Per op and per step: the median and the spread over the measured runs.
void setTimes(RunProfile& out, const std::vector<RunTimes>& runs) {
    std::vector<double> steps;
    for (const RunTimes& r : runs) steps.push_back(r.totalMs);
    out.totalMs = median(steps);
    out.totalMsMin = steps.empty() ? 0.0 : *std::min_element(steps.begin(), steps.end());
    out.totalMsMax = steps.empty() ? 0.0 : *std::max_element(steps.begin(), steps.end());
    for (size_t i = 0; i < out.ops.size(); ++i) {
        std::vector<double> ms;
        for (const RunTimes& r : runs)
            if (i < r.opMicros.size()) ms.push_back(r.opMicros[i] / 1000.0);
        out.ops[i].ms = median(ms);
        out.ops[i].msMin = ms.empty() ? 0.0 : *std::min_element(ms.begin(), ms.end());
        out.ops[i].msMax = ms.empty() ? 0.0 : *std::max_element(ms.begin(), ms.end());
    }
}

RunProfile profileOf(const Program& p, const RunResult& r, const std::vector<int64_t>& model, int64_t modelPeak,
                     const std::unordered_set<OpId>& clones, int64_t backwardStart) {
    RunProfile out;
    out.modelPeakBytes = modelPeak;
    out.totalMs = r.totalMs;
    out.peakBytes = r.peakBytes;
    out.backwardStartIndex = backwardStart;
    int64_t prevLive = 0;
    for (size_t i = 0; i < r.ops.size(); ++i) {
        const OpRecord& rec = r.ops[i];
        OpProfile o;
        o.index = static_cast<int64_t>(i);
        o.op = rec.op;
        o.name = std::string(p.opName(rec.op));
        if (!p.op(rec.op).results.empty()) o.result = p.value(p.op(rec.op).results[0]).name;
        o.ms = rec.micros / 1000.0;
        o.liveBytes = rec.liveBytes;
        o.peakBytes = rec.peakBytes;
        o.resultBytes = rec.peakBytes - prevLive;
        prevLive = rec.liveBytes;
        o.modelLiveBytes = i < model.size() ? model[i] : -1;
        o.recompute = clones.count(rec.op) > 0;
        if (rec.peakBytes == r.peakBytes && out.peakOpIndex == 0) out.peakOpIndex = o.index;
        out.ops.push_back(std::move(o));
    }
    return out;
}

}  // namespace

ProfileReport profilePrograms(const ProfileInputs& in, const ProfileOptions& options, Executor* executor) {
    if (!in.original || !in.rewritten) throw Error("profilePrograms: both programs are needed");
    CpuExecutor cpu;
    Executor& ex = executor ? *executor : cpu;
    const Program& a = *in.original;
    const Program& b = *in.rewritten;
    RunInputs inputs;
    inputs.seed = options.verify.seed;
    RunOptions ro = options.limits;
    ro.recordOpTimes = true;
    ro.keepAllValues = false;
    ro.residentValues = options.verify.residentValues;
    ro.captureValues = sinkNames(a);
    ro.cancel = options.cancel;
    if (options.repeats < 1) throw Error("profile: repeats must be at least 1 (got " + std::to_string(options.repeats) + ")");
    const int warmups = std::max(0, options.warmupRuns);
    const size_t pairOps = a.globalBlock().ops.size() + b.globalBlock().ops.size();
    const size_t total = pairOps * static_cast<size_t>(warmups + options.repeats);

    ProfileReport report;
    report.device = ex.name();
    report.seed = options.verify.seed;
    report.repeats = options.repeats;
    report.warmupRuns = warmups;
    // Equivalence comes from the first measured pair, compared as the rewritten run fetches
    // against the original's fetches in a temporary file (StreamingComparison); every other
    // run hands its fetches to a sink that drops them, so no run's fetches are held.
    const auto dropFetches = [](const FetchView&) {};
    RunResult ra, rb;
    std::vector<RunTimes> timesA, timesB;  // op times of every measured run
    int64_t reservedA = -1, reservedB = -1;
    for (int pass = 0; pass < warmups + options.repeats; ++pass) {
        const bool measured = pass >= warmups;
        const bool compared = pass == warmups;
        const size_t before = pairOps * static_cast<size_t>(pass);
        std::optional<StreamingComparison> comparison;
        if (compared) comparison.emplace(options.verify);
        if (options.progress) ro.progress = [&, before](size_t done, size_t) { options.progress(before + done, total); };
        ro.fetchSink = compared ? comparison->firstRunSink() : dropFetches;
        RunResult x = ex.run(a, inputs, ro);
        if (x.cancelled) { report.cancelled = true; return report; }
        if (compared) {
            reservedA = options.peakReservedOfLastRun ? options.peakReservedOfLastRun() : -1;
            comparison->firstRunDone(x);
            ro.fetchSink = comparison->sink();
        }
        if (options.progress)
            ro.progress = [&, before](size_t done, size_t) { options.progress(before + a.globalBlock().ops.size() + done, total); };
        RunResult y = ex.run(b, inputs, ro);
        ro.fetchSink = nullptr;
        if (y.cancelled) { report.cancelled = true; return report; }
        if (compared) {
            reservedB = options.peakReservedOfLastRun ? options.peakReservedOfLastRun() : -1;
            report.verify = comparison->finish(y);
        }
        if (!measured) continue;
        timesA.emplace_back(x);
        timesB.emplace_back(y);
        if (compared) { ra = std::move(x); rb = std::move(y); }
    }
    report.equivalent = report.verify.equivalent;

    // The boundary of the rewritten program: the first op that is not one of the original's
    // forward ops (clones sit before the backward ops that read them).
    std::unordered_set<OpId> forward;
    const int64_t lastForward = in.backwardOpStartIdx >= 0 ? in.backwardOpStartIdx - 1 : in.fwdOpEndIdx;
    for (int64_t i = 0; i <= lastForward && i < static_cast<int64_t>(a.globalBlock().ops.size()); ++i)
        forward.insert(a.globalBlock().ops[i]);
    int64_t boundaryB = -1;
    if (lastForward >= 0)
        for (size_t i = 0; i < b.globalBlock().ops.size(); ++i)
            if (!forward.count(b.globalBlock().ops[i])) { boundaryB = static_cast<int64_t>(i); break; }
    const std::unordered_set<OpId> clones(in.clones.begin(), in.clones.end());
    const int64_t boundaryA = in.backwardOpStartIdx >= 0 ? in.backwardOpStartIdx : in.fwdOpEndIdx >= 0 ? in.fwdOpEndIdx + 1 : -1;
    // With control flow the model's bytes depend on the branches taken and the iterations
    // run (exec/Liveness.h): it follows the measured run's path.
    std::vector<int64_t> modelLiveA = in.modelLiveOriginal, modelLiveB = in.modelLiveRewritten;
    int64_t modelPeakA = in.modelPeakOriginal, modelPeakB = in.modelPeakRewritten;
    auto followPath = [&](const Program& p, const RunResult& r, std::vector<int64_t>& live, int64_t& peak) {
        if (!hasControlFlow(p)) return;
        LiveBytes model = liveBytesOf(p, analyzeLiveness(p, residentMask(p, ro)), &r.controlPath);
        if (!model.error.empty()) return;
        live = std::move(model.perOp);
        peak = model.peakBytes;
    };
    followPath(a, ra, modelLiveA, modelPeakA);
    followPath(b, rb, modelLiveB, modelPeakB);
    report.original = profileOf(a, ra, modelLiveA, modelPeakA, {}, boundaryA);
    report.rewritten = profileOf(b, rb, modelLiveB, modelPeakB, clones, boundaryB);
    setTimes(report.original, timesA);
    setTimes(report.rewritten, timesB);
    report.original.peakReservedBytes = reservedA;
    report.rewritten.peakReservedBytes = reservedB;
    report.recomputedOps = static_cast<int>(in.clones.size());
    for (const OpProfile& o : report.rewritten.ops)
        if (o.recompute) report.recomputeOverheadMs += o.ms;
    report.recomputeOverheadPct = report.original.totalMs > 0 ? 100.0 * report.recomputeOverheadMs / report.original.totalMs : 0.0;
    report.stepTimeDifferenceMs = report.rewritten.totalMs - report.original.totalMs;
    return report;
}

std::vector<size_t> topOpsByTime(const RunProfile& run, size_t n) {
    std::vector<size_t> idx(run.ops.size());
    std::iota(idx.begin(), idx.end(), size_t{0});
    std::stable_sort(idx.begin(), idx.end(), [&](size_t x, size_t y) { return run.ops[x].ms > run.ops[y].ms; });
    idx.resize(std::min(n, idx.size()));
    return idx;
}

std::vector<size_t> topOpsByBytes(const RunProfile& run, size_t n) {
    std::vector<size_t> idx(run.ops.size());
    std::iota(idx.begin(), idx.end(), size_t{0});
    std::stable_sort(idx.begin(), idx.end(), [&](size_t x, size_t y) { return run.ops[x].resultBytes > run.ops[y].resultBytes; });
    idx.resize(std::min(n, idx.size()));
    return idx;
}

namespace {

// Names come from the program: the checked writer keeps the output valid UTF-8. An unknown
// time (no run) is written as null on purpose, so num() never hands it a non-finite number.
using JsonWriter = CheckedJsonWriter<rapidjson::Writer<rapidjson::StringBuffer>>;

void key(JsonWriter& w, const char* k) { w.Key(k); }
void str(JsonWriter& w, const std::string& s) { w.String(s.c_str(), static_cast<rapidjson::SizeType>(s.size())); }
void num(JsonWriter& w, double v) { if (std::isfinite(v)) w.Double(v); else w.Null(); }

void writeOpRef(JsonWriter& w, const OpProfile& o) {
    w.StartObject();
    key(w, "index"); w.Int64(o.index);
    key(w, "name"); str(w, o.name);
    key(w, "result"); str(w, o.result);
    key(w, "ms"); num(w, o.ms);
    key(w, "result_bytes"); w.Int64(o.resultBytes);
    key(w, "recompute"); w.Bool(o.recompute);
    w.EndObject();
}

void writeRun(JsonWriter& w, const RunProfile& r) {
    w.StartObject();
    key(w, "peak_bytes"); w.Int64(r.peakBytes);
    key(w, "model_peak_bytes"); if (r.modelPeakBytes >= 0) w.Int64(r.modelPeakBytes); else w.Null();
    if (r.peakReservedBytes >= 0) { key(w, "peak_reserved_bytes"); w.Int64(r.peakReservedBytes); }
    key(w, "peak_matches_model"); w.Bool(r.modelPeakBytes == r.peakBytes);
    key(w, "peak_op_index"); w.Int64(r.peakOpIndex);
    key(w, "total_ms"); num(w, r.totalMs);
    key(w, "total_ms_median"); num(w, r.totalMs);
    key(w, "total_ms_min"); num(w, r.totalMsMin);
    key(w, "total_ms_max"); num(w, r.totalMsMax);
    key(w, "backward_start_index"); w.Int64(r.backwardStartIndex);
    key(w, "top_ops_by_time"); w.StartArray();
    for (size_t i : topOpsByTime(r, 10)) writeOpRef(w, r.ops[i]);
    w.EndArray();
    key(w, "top_ops_by_bytes"); w.StartArray();
    for (size_t i : topOpsByBytes(r, 10)) writeOpRef(w, r.ops[i]);
    w.EndArray();
    key(w, "ops"); w.StartArray();
    for (const OpProfile& o : r.ops) {
        w.StartObject();
        key(w, "index"); w.Int64(o.index);
        key(w, "name"); str(w, o.name);
        key(w, "ms"); num(w, o.ms);
        key(w, "ms_median"); num(w, o.ms);
        key(w, "ms_min"); num(w, o.msMin);
        key(w, "ms_max"); num(w, o.msMax);
        key(w, "live_bytes"); w.Int64(o.liveBytes);
        key(w, "peak_bytes"); w.Int64(o.peakBytes);
        key(w, "result_bytes"); w.Int64(o.resultBytes);
        if (o.modelLiveBytes >= 0) { key(w, "model_live_bytes"); w.Int64(o.modelLiveBytes); }
        if (o.recompute) { key(w, "recompute"); w.Bool(true); }
        w.EndObject();
    }
    w.EndArray();
    w.EndObject();
}

}  // namespace

std::string profileReportJson(const ProfileReport& r, const std::string& programPath) {
    rapidjson::StringBuffer buffer;
    JsonWriter w(buffer);
    w.StartObject();
    if (!programPath.empty()) { key(w, "program"); str(w, programPath); }
    key(w, "device"); str(w, r.device);
    key(w, "seed"); w.Uint64(r.seed);
    key(w, "equivalent"); w.Bool(r.equivalent);
    key(w, "first_difference");
    if (r.verify.firstDifference) str(w, r.verify.firstDifference->valueName); else w.Null();
    if (r.verify.firstDifference) {
        const ValueDifference& d = *r.verify.firstDifference;
        key(w, "first_difference_detail");
        w.StartObject();
        key(w, "value"); str(w, d.valueName);
        key(w, "fetch"); str(w, d.fetchName);
        key(w, "index"); w.Int64(d.index);
        key(w, "reason"); str(w, d.reason);
        key(w, "original"); num(w, d.original);
        key(w, "rewritten"); num(w, d.rewritten);
        w.EndObject();
    }
    key(w, "compared"); w.Int(r.verify.compared);
    key(w, "bitwise_equal"); w.Int(r.verify.bitwiseEqual);
    key(w, "max_abs_difference"); num(w, r.verify.maxAbsDifference);
    key(w, "repeats"); w.Int(r.repeats);
    key(w, "warmup_runs"); w.Int(r.warmupRuns);
    key(w, "recomputed_ops"); w.Int(r.recomputedOps);
    key(w, "recompute_overhead_ms"); num(w, r.recomputeOverheadMs);
    key(w, "recompute_overhead_ms_median"); num(w, r.recomputeOverheadMs);
    key(w, "recompute_overhead_pct"); num(w, r.recomputeOverheadPct);
    key(w, "step_time_difference_ms"); num(w, r.stepTimeDifferenceMs);
    key(w, "original"); writeRun(w, r.original);
    key(w, "rewritten"); writeRun(w, r.rewritten);
    w.EndObject();
    return std::string(buffer.GetString(), buffer.GetSize()) + "\n";
}

std::string chromeTraceJson(const ProfileReport& r) {
    rapidjson::StringBuffer buffer;
    JsonWriter w(buffer);
    w.StartObject();
    key(w, "displayTimeUnit"); w.String("ms");
    key(w, "traceEvents");
    w.StartArray();
    auto run = [&](const RunProfile& p, int pid, const char* label) {
        w.StartObject();
        key(w, "name"); w.String("process_name");
        key(w, "ph"); w.String("M");
        key(w, "pid"); w.Int(pid);
        key(w, "args"); w.StartObject(); key(w, "name"); w.String(label); w.EndObject();
        w.EndObject();
        double ts = 0;  // microseconds: ops back to back, in program order
        for (const OpProfile& o : p.ops) {
            if (o.index == p.backwardStartIndex) {
                w.StartObject();
                key(w, "name"); w.String("forward/backward boundary");
                key(w, "ph"); w.String("i");
                key(w, "s"); w.String("p");
                key(w, "ts"); w.Double(ts);
                key(w, "pid"); w.Int(pid);
                key(w, "tid"); w.Int(1);
                w.EndObject();
            }
            const double dur = o.ms * 1000.0;
            w.StartObject();
            key(w, "name"); str(w, o.name);
            key(w, "cat"); w.String(o.recompute ? "recompute" : "op");
            key(w, "ph"); w.String("X");
            key(w, "ts"); w.Double(ts);
            key(w, "dur"); w.Double(dur);
            key(w, "pid"); w.Int(pid);
            key(w, "tid"); w.Int(1);
            key(w, "args");
            w.StartObject();
            key(w, "index"); w.Int64(o.index);
            key(w, "result"); str(w, o.result);
            key(w, "live_bytes"); w.Int64(o.liveBytes);
            key(w, "result_bytes"); w.Int64(o.resultBytes);
            w.EndObject();
            w.EndObject();
            w.StartObject();
            key(w, "name"); w.String("live bytes");
            key(w, "ph"); w.String("C");
            key(w, "ts"); w.Double(ts);
            key(w, "pid"); w.Int(pid);
            key(w, "args"); w.StartObject(); key(w, "bytes"); w.Int64(o.peakBytes); w.EndObject();
            w.EndObject();
            ts += dur;
        }
    };
    run(r.original, 1, "original");
    run(r.rewritten, 2, "rewritten");
    w.EndArray();
    w.EndObject();
    return std::string(buffer.GetString(), buffer.GetSize()) + "\n";
}

void writeFileAtomically(const std::string& path, const std::string& text) {
    writeFileAtomic(path, text);  // the project's one file module: temp, fsync, rename
}

}  // namespace rx::exec
