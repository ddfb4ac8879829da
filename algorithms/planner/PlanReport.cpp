// JSON (RapidJSON) and CSV forms of budget plans and the Pareto frontier.
#include "algorithms/planner/PlanReport.h"
#include "model/FileIO.h"
#include "model/JsonWriter.h"

#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>

#include "model/Diagnostic.h"

namespace rx::planner {

namespace {

using Writer = PrettyJsonWriter<rapidjson::StringBuffer>;

void key(Writer& w, const char* k) { w.Key(k); }
void str(Writer& w, std::string_view s) { w.String(s.data(), rapidjson::SizeType(s.size())); }

void names(Writer& w, const Program& p, const std::vector<ValueId>& values) {
    w.StartArray();
    for (ValueId v : values) str(w, p.value(v).name);
    w.EndArray();
}

// `values`: each changed value's row too (else the totals alone).
void changes(Writer& w, const BudgetPlanner& planner, const BudgetPlan& plan, const BudgetPlan& seed,
             bool values = true) {
    const Program& p = planner.program();
    const auto list = planner.explain(plan, seed);
    int64_t bytes = 0;
    double flops = 0;
    for (const auto& c : list) { bytes += c.bytes; flops += c.flops; }
    key(w, "changes_vs_seed");
    w.StartObject();
    key(w, "count"); w.Uint64(list.size());
    key(w, "bytes"); w.Int64(bytes);
    key(w, "flops"); w.Double(flops);
    if (!values) {
        w.EndObject();
        return;
    }
    key(w, "values");
    w.StartArray();
    for (const auto& c : list) {
        w.StartObject();
        key(w, "value"); str(w, p.value(c.value).name);
        key(w, "seed_side"); str(w, valueSideName(c.referenceSide));
        key(w, "side"); str(w, valueSideName(c.side));
        key(w, "bytes"); w.Int64(c.bytes);
        key(w, "flops"); w.Double(c.flops);
        w.EndObject();
    }
    w.EndArray();
    w.EndObject();
}

// `sets`: the plan's value and op lists too (else their sizes alone).
void planFields(Writer& w, const BudgetPlanner& planner, const BudgetPlan& plan, bool sets = true) {
    const Program& p = planner.program();
    key(w, "source"); str(w, plan.source);
    key(w, "budget_bytes");
    if (plan.budgetBytes) w.Int64(*plan.budgetBytes); else w.Null();
    if (plan.budgetFraction) { key(w, "budget_fraction"); w.Double(*plan.budgetFraction); }
    key(w, "peak_bytes"); w.Int64(plan.peakBytes);
    key(w, "activation_peak_bytes"); w.Int64(plan.activationPeakBytes);
    key(w, "recompute_flops"); w.Double(plan.recomputeFlops);
    if (planner.costs().measured()) { key(w, "recompute_ms"); w.Double(plan.recomputeCost); }
    key(w, "saved_count"); w.Uint64(plan.savedValues.size());
    key(w, "recomputed_count"); w.Uint64(plan.recomputedValues.size());
    key(w, "recompute_op_count"); w.Uint64(plan.recomputeOps.size());
    if (sets) {
        key(w, "saved_values"); names(w, p, plan.savedValues);
        key(w, "recomputed_values"); names(w, p, plan.recomputedValues);
        key(w, "recompute_ops");
        w.StartArray();
        for (OpId op : plan.recomputeOps) w.Uint(planner.analysis().opIndex(op));
        w.EndArray();
    }
    if (plan.bound) {  // exact mode: the proof (or the gap) against the saved-set family
        key(w, "optimality");
        w.StartObject();
        key(w, "method"); str(w, plan.bound->method);
        key(w, "optimal"); w.Bool(plan.bound->optimal);
        key(w, "cost_lower_bound"); w.Double(plan.bound->costLowerBound);
        key(w, "gap"); w.Double(plan.bound->gap);
        key(w, "solves"); w.Int(plan.bound->solves);
        key(w, "lowest_peak_proven"); w.Bool(plan.bound->lowestPeak);
        w.EndObject();
    }
}

void original(Writer& w, const BudgetPlanner& planner) {
    key(w, "original");
    w.StartObject();
    key(w, "peak_bytes"); w.Int64(planner.originalMemory().peakBytes);
    key(w, "activation_peak_bytes"); w.Int64(planner.originalActivationPeak());
    key(w, "resident_bytes"); w.Int64(planner.originalMemory().residentBytes);
    key(w, "flops"); w.Double(planner.totalFlops());
    // No plan of the candidate ops goes below this (BudgetPlanner::activationLowerBound).
    key(w, "activation_lower_bound_bytes"); w.Int64(planner.activationLowerBound());
    w.EndObject();
}

void contextFields(Writer& w, const ReportContext& c) {
    key(w, "program"); str(w, c.programPath);
    key(w, "spec"); str(w, c.specSource);
    key(w, "costs"); str(w, c.costsSource.empty() ? "types" : c.costsSource);
}

// --recompute-random, where it is on (a report without it is the default's, byte for byte).
void randomRecomputeField(Writer& w, const BudgetPlanner& planner) {
    if (planner.randomRecompute() == RandomRecompute::Off) return;
    key(w, "recompute_random"); str(w, std::string(randomRecomputeName(planner.randomRecompute())));
}

}  // namespace

std::string paretoJson(const BudgetPlanner& planner, const std::vector<BudgetPlan>& plans, const BudgetPlan* seed,
                       const ReportContext& context, bool sets) {
    rapidjson::StringBuffer buf;
    Writer w(buf);
    w.StartObject();
    contextFields(w, context);
    randomRecomputeField(w, planner);
    key(w, "sets"); w.Bool(sets);
    original(w, planner);
    key(w, "plans");
    w.StartArray();
    for (const auto& plan : plans) {
        w.StartObject();
        planFields(w, planner, plan, sets);
        if (seed) changes(w, planner, plan, *seed, sets);
        w.EndObject();
    }
    w.EndArray();
    w.EndObject();
    return std::string(buf.GetString(), buf.GetSize()) + "\n";
}

std::string paretoCsv(const BudgetPlanner& planner, const std::vector<BudgetPlan>& plans, bool sets) {
    const Program& p = planner.program();
    std::string out = sets ? "source,budget_bytes,peak_bytes,activation_peak_bytes,recompute_flops,saved_values,saved_count\n"
                           : "source,budget_bytes,peak_bytes,activation_peak_bytes,recompute_flops,saved_count\n";
    char num[64];
    for (const auto& plan : plans) {
        out += plan.source + ",";
        if (plan.budgetBytes) out += std::to_string(*plan.budgetBytes);
        out += "," + std::to_string(plan.peakBytes) + "," + std::to_string(plan.activationPeakBytes) + ",";
        std::snprintf(num, sizeof num, "%.17g", plan.recomputeFlops);
        out += num;
        if (sets) {
            out += ",\"";
            for (size_t i = 0; i < plan.savedValues.size(); ++i)
                out += (i ? " " : "") + p.value(plan.savedValues[i]).name;
            out += "\"";
        }
        out += "," + std::to_string(plan.savedValues.size()) + "\n";
    }
    return out;
}

std::string budgetSolveJson(const BudgetPlanner& planner, const BudgetPlan& plan, const BudgetPlan* seed,
                            const ReportContext& context) {
    rapidjson::StringBuffer buf;
    Writer w(buf);
    w.StartObject();
    contextFields(w, context);
    randomRecomputeField(w, planner);
    key(w, "mode"); str(w, plan.source == "exact" ? "budget-exact" : "budget");
    planFields(w, planner, plan);
    key(w, "mid_hold_values"); names(w, planner.program(), plan.recomputedValues);
    key(w, "memory");
    w.StartObject();
    key(w, "original");
    w.StartObject();
    key(w, "peak_bytes"); w.Int64(planner.originalMemory().peakBytes);
    key(w, "activation_peak_bytes"); w.Int64(planner.originalActivationPeak());
    key(w, "resident_bytes"); w.Int64(planner.originalMemory().residentBytes);
    w.EndObject();
    key(w, "rewritten");
    w.StartObject();
    key(w, "peak_bytes"); w.Int64(plan.peakBytes);
    key(w, "activation_peak_bytes"); w.Int64(plan.activationPeakBytes);
    w.EndObject();
    w.EndObject();
    key(w, "original_flops"); w.Double(planner.totalFlops());
    if (seed) changes(w, planner, plan, *seed);
    w.EndObject();
    return std::string(buf.GetString(), buf.GetSize()) + "\n";
}

void writeFileReplacing(const std::string& path, const std::string& text) {
    writeFileAtomic(path, text);  // the project's one file module: temp, fsync, rename
}

}  // namespace rx::planner
