// The one solve report writer (SolveReport.h), streamed through rapidjson::PrettyWriter.
#include "algorithms/SolveReport.h"

#include <rapidjson/prettywriter.h>

#include <string_view>

#include "model/FileIO.h"

namespace rx {
namespace {

struct StringOut {
    std::string& text;
    using Ch = char;
    void Put(char c) { text.push_back(c); }
    void Flush() {}
};

template <class Out>
class ReportWriter {
public:
    explicit ReportWriter(Out& out) : w_(out) {}

    void key(std::string_view k) { w_.Key(k.data(), rapidjson::SizeType(k.size())); }
    void string(std::string_view s) { w_.String(s.data(), rapidjson::SizeType(s.size())); }
    void integer(int64_t n) { w_.Int64(n); }
    // An exact decimal (cut values and weights are exact in units of 1/scale).
    void exact(int64_t units, int64_t scale) {
        const std::string text = FlowNetwork::unitsText(units, scale);
        w_.RawValue(text.data(), text.size(), rapidjson::kNumberType);
    }
    void names(const Program& p, const std::vector<ValueId>& values) {
        w_.StartArray();
        for (ValueId v : values) string(p.value(v).name);
        w_.EndArray();
    }
    void strings(const std::vector<std::string>& list) {
        w_.StartArray();
        for (const auto& s : list) string(s);
        w_.EndArray();
    }
    void memory(const MemoryProfile& m) {
        w_.StartObject();
        key("boundary_activation_bytes"), integer(m.boundaryActivationBytes);
        key("boundary_bytes"), integer(m.boundaryBytes);
        if (!m.error.empty()) key("error"), string(m.error);
        key("peak_bytes"), integer(m.peakBytes);
        key("peak_op_index"), integer(m.peakOpIndex);
        key("resident_bytes"), integer(m.residentBytes);
        w_.EndObject();
    }
    void config(const RecomputeConfig& c) {
        w_.StartObject();
        key("aggressive_recomputation"), w_.Bool(c.aggressiveRecomputation);
        key("compute_intensive_ops"), strings(c.computeIntensiveOps);
        key("distance_base"), w_.Double(c.distanceBase);
        key("distance_cap"), integer(c.distanceCap);
        key("ignore_ops"), strings(c.ignoreOps);
        key("max_dist_from_bw"), integer(c.maxDistFromBw);
        key("minimum_weight"), w_.Double(c.minimumWeight);
        key("non_materialized_factor"), integer(c.nonMaterializedFactor);
        key("pinned_recomputed"), strings(c.pinnedRecomputed);
        key("pinned_saved"), strings(c.pinnedSaved);
        key("random_ops"), strings(c.randomOps);
        key("recomputable_ops"), strings(c.recomputableOps);
        key("size_ratio_ban"), w_.Double(c.sizeRatioBan);
        key("tending_to_recompute_ops"), strings(c.tendingToRecomputeOps);
        key("view_ops"), strings(c.viewOps);
        w_.EndObject();
    }

    void report(const SolveReportInput& in) {
        const Program& p = in.program;
        const SolveResult& r = in.result;
        const Plan& plan = r.plan;
        w_.StartObject();
        if (in.config) key("config"), config(*in.config);
        key("cut_value"), exact(plan.cutValueUnits, plan.scale);
        key("cut_value_text"), string(plan.cutValueText());
        // Where the seed raises under this config the plan is this project's own (issue 8).
        key("extension"), w_.Bool(r.extension);
        key("hazards"), strings(plan.hazards);
        key("memory");
        w_.StartObject();
        key("original"), memory(r.originalMemory);
        key("rewritten"), memory(r.rewrittenMemory);
        w_.EndObject();
        key("memory_saved_bytes"), integer(plan.memorySavedBytes);
        key("mid_hold_values"), names(p, plan.midHoldValues);
        key("network");
        w_.StartObject();
        key("edges"), integer(r.network ? int64_t(r.network->arcs.size()) : 0);
        key("nodes"), integer(r.network ? int64_t(r.network->nodeCount()) : 0);
        key("reduced"), w_.Bool(in.reduced);
        key("solved_edges"), integer(int64_t(r.cut.solvedArcs));
        key("solved_nodes"), integer(int64_t(r.cut.solvedNodes));
        w_.EndObject();
        key("peak_bytes_after"), integer(r.rewrittenMemory.peakBytes);
        key("peak_bytes_before"), integer(r.originalMemory.peakBytes);
        key("program"), string(in.programPath);
        key("recompute_ops");
        w_.StartArray();
        for (OpId op : plan.recomputeOps) integer(int64_t(in.analysis.opIndex(op)));
        w_.EndArray();
        key("saved_values"), names(p, plan.savedValues);
        if (!r.seedError.empty()) {
            key("seed_error");
            w_.StartObject();
            key("detail"), string(r.seedError.detail);
            key("message"), string(r.seedError.message);
            key("op_index"), integer(int64_t(r.seedError.opIndex));
            key("op_name"), string(r.seedError.opName);
            key("rule"), string(r.seedError.rule);
            key("value"), string(r.seedError.value);
            w_.EndObject();
        }
        key("spec"), string(in.specSource);
        key("timings_ms");
        w_.StartObject();
        key("build"), w_.Double(r.timings.buildMs);
        key("memory"), w_.Double(r.timings.memoryMs);
        key("parse"), w_.Double(in.parseMs);
        key("plan"), w_.Double(r.timings.planMs);
        key("rewrite"), w_.Double(r.timings.rewriteMs);
        key("solve"), w_.Double(r.timings.solveMs);
        key("total"), w_.Double(in.parseMs + r.timings.totalMs);
        w_.EndObject();
        key("unchanged"), w_.Bool(r.unchanged);
        // Why, per forward value (weights, bans, sides), sorted by name.
        key("values");
        w_.StartArray();
        if (!plan.reasons.empty()) {
            std::vector<ValueId> vs;
            for (ValueId v = 0; v < p.values().size() && v < plan.reasons.size(); ++v)
                if (plan.reasons[v].valueClass == ValueClass::Forward) vs.push_back(v);
            sortValuesByName(p, vs);
            for (ValueId v : vs) value(p, plan, v);
        }
        w_.EndArray();
        key("warnings"), strings(plan.warnings);
        w_.EndObject();
    }

    void value(const Program& p, const Plan& plan, ValueId v) {
        const ValueReason& why = plan.reasons[v];
        w_.StartObject();
        key("ban_rule"), string(banRuleName(why.banRule));
        key("ban_text"), string(why.banText);
        key("banned"), w_.Bool(why.banned);
        key("distance"), integer(why.distance);
        key("fusion_loop"), w_.Bool(why.fusionLoop);
        key("in_network"), w_.Bool(why.inNetwork);
        key("materialized"), w_.Bool(why.materialized);
        key("materialized_backwards"), w_.Bool(why.materializedBackwards);
        key("mid_hold"), w_.Bool(why.midHold);
        key("name"), string(p.value(v).name);
        key("pin"), string(why.pin == ValueFacts::Pin::Saved ? "saved" : why.pin == ValueFacts::Pin::Recomputed ? "recomputed" : "none");
        key("side"), string(valueSideName(why.side));
        key("size"), integer(why.size);
        key("skip"), string(skipReasonName(why.skip));
        key("weight"), exact(why.weightUnits, plan.scale);
        w_.EndObject();
    }

private:
    rapidjson::PrettyWriter<Out> w_;
};

}  // namespace

std::string solveReportJson(const SolveReportInput& input) {
    std::string text;
    StringOut out{text};
    ReportWriter<StringOut>(out).report(input);
    text.push_back('\n');
    return text;
}

void writeSolveReportFile(const std::string& path, const SolveReportInput& input) {
    AtomicFile file(path);
    ReportWriter<AtomicFile>(file).report(input);
    file.put('\n');
    file.commit();
}

}  // namespace rx
