// Reference plans on the planner's axes: the seed's, PyTorch-style (min-cut partitioner with
// its bans, weights and knapsack), full checkpointing, no recompute; assembled once.
#include "algorithms/planner/BudgetPlanner.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <future>
#include <limits>
#include <optional>

#include "algorithms/MemoryModel.h"
#include "algorithms/Rewriter.h"
#include "algorithms/Solver.h"
#include "algorithms/planner/PlannerInternal.h"
#include "model/Diagnostic.h"

namespace rx::planner {

namespace {
// A PyTorch-style weight's ceiling (1 PiB): the min cut checks that their sum fits.
constexpr int64_t kMaxWeight = int64_t(1) << 50;
}  // namespace

using detail::contains;
using detail::sideEffecting;

BudgetPlan BudgetPlanner::noRecomputePlan() {
    return makePlan(std::vector<uint8_t>(candidates_.size(), 0), "no-recompute");
}

SolveResult BudgetPlanner::solveSeed() const {
    RecomputeSolver solver(analysis_);  // the planner's analysis: same program, spec and table
    SolveOptions cutOnly;
    cutOnly.rewrite = false;
    cutOnly.memory = false;
    SolveResult r = solver.solve(config_, cutOnly);
    if (!r.ok()) throw Error("the seed's auto_recompute failed: " + r.error);
    return r;
}

BudgetPlan BudgetPlanner::seedPlan() { return seedPlanFrom(solveSeed()); }

BudgetPlan BudgetPlanner::seedPlanFrom(const SolveResult& r) {
    // The seed's cut and plan; its rewritten program only when the planner's replay cannot
    // measure it (a plan the planner's own rewrite of the same ops would not reproduce).
    BudgetPlan out;
    out.source = "seed";
    out.plan = r.plan;
    out.recomputeOps = r.plan.recomputeOps;
    out.recomputedValues = r.plan.midHoldValues;
    for (ValueId v : r.plan.savedValues)
        if (!resident_[v]) out.savedValues.push_back(v);
    if (const std::optional<RecomputeSet> inR = replayableSet(r.plan)) {
        const Evaluated& e = evaluate(*inR);
        out.peakBytes = e.peak;
        out.activationPeakBytes = e.activation;
    } else {
        const RewriteResult rw = partitionJointGraph(*analysis_, r.plan);
        if (!rw.ok()) throw Error("the seed's auto_recompute failed: " + rw.error);
        const MemoryProfile m = profileMemory(*rw.program, spec_.inputs, spec_.fwdOpEndIdx);
        out.peakBytes = m.peakBytes;
        out.activationPeakBytes = m.peakBytes - m.residentBytes;
    }
    for (OpId op : out.recomputeOps) {
        out.recomputeFlops += costs_.flops(op);
        out.recomputeCost += costs_.cost(op);
    }
    return out;
}

std::vector<uint8_t> BudgetPlanner::bansForPyTorch(bool allowlist) const {
    // PyTorch bans recomputing compute-intensive ops always and, unless aggressive, every
    // op outside its allowlist (here: the config's recomputable ops).
    const Program& p = *program_;
    const std::vector<std::string> allowed = config_.effectiveRecomputableOps();
    std::vector<uint8_t> banned(candidates_.size(), 0);
    for (uint32_t k = 0; k < candidates_.size(); ++k) {
        const std::string_view name = p.opName(candidates_[k]);
        if (contains(config_.computeIntensiveOps, name)) banned[k] = 1;
        if (hasOpTrait(name, OpTrait::Random)) banned[k] = 1;  // PyTorch never recomputes random ops (--recompute-random lifts only our ban)
        if (allowlist && !contains(allowed, name) && !name.starts_with("builtin.")) banned[k] = 1;
    }
    return banned;
}

std::vector<int64_t> BudgetPlanner::pytorchValueWeights() const {
    // partitioners.py get_node_weight: size × 1.1^clamp(dist_from_bw, 1, 100), doubled when
    // the value is not materialised (every user fuses with its producer: pointwise ops of the
    // allowlist, neither compute-intensive nor random). dist_from_bw: graph distance to the
    // nearest backward op (PyTorch: 0 for nodes outside the forward, else min over users + 1).
    const Program& p = *program_;
    const Analysis& a = *analysis_;
    const auto gops = a.globalOps();
    const std::vector<std::string> allowed = config_.effectiveRecomputableOps();
    auto fusible = [&](OpId op) {
        const std::string_view name = p.opName(op);
        return contains(allowed, name) && !contains(config_.computeIntensiveOps, name) &&
               !contains(config_.randomOps, name);
    };
    constexpr int64_t kFar = 1000000000;
    std::vector<int64_t> dist(p.ops().size(), kFar);
    for (size_t i = gops.size(); i-- > 0;) {
        const OpId op = gops[i];
        if (int64_t(i) > a.fwdEnd()) { dist[op] = 0; continue; }
        for (ValueId r : p.op(op).results)
            for (const Use& use : p.uses(r))
                if (use.ancestor != kNoId && use.ancestor < dist.size())
                    dist[op] = std::min(dist[op], dist[use.ancestor] + 1);
    }
    std::vector<int64_t> weight(p.values().size(), 0);
    for (ValueId v = 0; v < p.values().size(); ++v) {
        const int64_t bytes = p.valueBytes(v);
        const OpId d = p.value(v).definingOp;
        if (d == kNoId || !bytes) { weight[v] = bytes; continue; }
        bool materialized = !fusible(d);
        for (const Use& use : p.uses(v))
            if (use.ancestor == kNoId || !fusible(use.ancestor)) materialized = true;
        const double w = double(bytes) * std::pow(1.1, double(std::clamp<int64_t>(dist[d], 1, 100))) *
                         (materialized ? 1.0 : 2.0);
        weight[v] = w >= double(kMaxWeight) ? kMaxWeight : std::max<int64_t>(1, int64_t(std::llround(w)));
    }
    return weight;
}

BudgetPlan BudgetPlanner::pytorchStylePlan(double f) {
    BudgetPlan plan = makePlan(pytorchStyleSet(f), "pytorch-style");
    plan.budgetFraction = f;
    return plan;
}

BudgetPlanner::RecomputeSet BudgetPlanner::pytorchStyleSet(double f) {
    if (!(f >= 0 && f <= 1)) throw Error("a PyTorch memory budget must lie in 0.0-1.0, found " + std::to_string(f));
    const Program& p = *program_;
    // What every budget's plan starts from, once per planner (three budgets, three equal cuts).
    if (!pytorchCuts_) {
        PyTorchCuts c;
        c.banAggressive = bansForPyTorch(false);
        c.weights = pytorchValueWeights();
        const std::vector<uint8_t> banDefault = bansForPyTorch(true);
        c.runtimeOptimized = cutRecomputeSet(0.0, &banDefault, &c.weights);
        pytorchCuts_ = std::move(c);
    }
    const std::vector<uint8_t>& banAggressive = pytorchCuts_->banAggressive;
    const std::vector<int64_t>& weights = pytorchCuts_->weights;
    const std::vector<uint8_t>& runtimeOptimized = pytorchCuts_->runtimeOptimized;
    if (f >= 1) return runtimeOptimized;
    if (f <= 0) {
        // Budget 0: save only what cannot be recomputed (PyTorch: the inputs, and random ops'
        // results, which it never recomputes).
        std::vector<uint8_t> none(candidates_.size(), 0);
        for (uint32_t k = 0; k < candidates_.size(); ++k) none[k] = hasOpTrait(p.opName(candidates_[k]), OpTrait::Random);
        return cutRecomputeSet(0.0, &none, &weights);
    }
    const double maxAct = double(savedBytes(runtimeOptimized)), minAct = 0;
    if (maxAct <= minAct) return runtimeOptimized;
    auto ratio = [&](const std::vector<uint8_t>& inR) { return (double(savedBytes(inR)) - minAct) / (maxAct - minAct); };
    const std::vector<uint8_t> aggressive = cutRecomputeSet(0.0, &banAggressive, &weights);
    if (ratio(aggressive) < f) return aggressive;
    // Knapsack over the banned compute-intensive ops: keep (ban) the ones with the most
    // runtime per normalised byte while they fit the budget; the rest may be recomputed.
    std::vector<uint32_t> items;
    for (uint32_t k = 0; k < candidates_.size(); ++k)
        if (banAggressive[k] && !hasOpTrait(p.opName(candidates_[k]), OpTrait::Random)) items.push_back(k);
    auto memory = [&](uint32_t k) {
        int64_t b = 0;
        for (ValueId r : p.op(candidates_[k]).results) b += p.valueBytes(r);
        return double(b) / (maxAct - minAct);
    };
    std::stable_sort(items.begin(), items.end(), [&](uint32_t x, uint32_t y) {
        const double mx = memory(x), my = memory(y);
        const double rx = mx > 0 ? costs_.flops(candidates_[x]) / mx : std::numeric_limits<double>::infinity();
        const double ry = my > 0 ? costs_.flops(candidates_[y]) / my : std::numeric_limits<double>::infinity();
        return rx > ry;
    });
    std::vector<uint8_t> banned = banAggressive;
    double used = 0;
    for (uint32_t k : items) {
        if (used + memory(k) <= f) used += memory(k);
        else banned[k] = 0;  // dont_ban
    }
    return cutRecomputeSet(0.0, &banned, &weights);
}

BudgetPlan BudgetPlanner::fullCheckpointPlan() { return makePlan(fullCheckpointSet(), "full-checkpoint"); }

BudgetPlanner::RecomputeSet BudgetPlanner::fullCheckpointSet() {
    // Save the layer inputs, recompute everything else inside layers, and save what the
    // backward needs from outside them (ops there are never recomputed).
    findLayerInputs();
    const Program& p = *program_;
    std::vector<int64_t> caps(p.values().size(), 0);
    for (ValueId v = 0; v < p.values().size(); ++v) {
        // Values of ops no plan recomputes (dropout) are saved at their plain price.
        const OpId d = p.value(v).definingOp;
        const bool fixed = d == kNoId || candidateIndex_[d] == kNoId;
        caps[v] = p.valueBytes(v) + (fixed ? 0 : detail::kAvoid);
    }
    for (ValueId v : layerInputs_) caps[v] = 1;
    std::vector<uint8_t> outside(candidates_.size(), 0);
    for (uint32_t k = 0; k < candidates_.size(); ++k) {
        outside[k] = !inLayer_[k];
        if (outside[k])
            for (ValueId r : p.op(candidates_[k]).results) caps[r] = p.valueBytes(r);
    }
    // A layer input is never recomputed: recompute segments start at layer inputs and never
    // reach across a layer boundary.
    for (ValueId v : layerInputs_) {
        const OpId d = p.value(v).definingOp;
        if (d != kNoId && candidateIndex_[d] != kNoId) outside[candidateIndex_[d]] = 1;
    }
    return cutRecomputeSet(0.0, &outside, &caps);
}

BudgetPlanner::~BudgetPlanner() {
    if (referenceSets_.valid()) referenceSets_.wait();  // it reads members destroyed before it
}

void BudgetPlanner::startReferenceSets() {
    if (references_ || referenceSets_.valid()) return;
    // PyTorch's cuts and full checkpointing's on a second thread: each reads only what the
    // constructor built and writes only its own cache (PyTorch its weights and bans, full
    // checkpointing the layer inputs), which nothing else touches until referencePlans joins.
    referenceSets_ = std::async(std::launch::async, [this] {
        ReferenceSets sets;
        for (double f : kPyTorchBudgets) sets.pytorch.push_back(pytorchStyleSet(f));
        sets.fullCheckpoint = fullCheckpointSet();
        return sets;
    });
}

const BudgetPlanner::ReferencePlans& BudgetPlanner::referencePlans() {
    if (references_) return *references_;
    startReferenceSets();
    // The seed's solve here meanwhile; then the plans, measured here in a fixed order (the
    // memo of measured sets is this thread's).
    std::optional<SolveResult> seed;
    ReferencePlans refs;
    try {
        seed = solveSeed();
    } catch (const Error& e) {
        refs.seedError = e.what();
    }
    const ReferenceSets sets = referenceSets_.get();  // rethrows the cuts' errors
    if (seed) {
        try {
            refs.plans.push_back(seedPlanFrom(*seed));
        } catch (const Error& e) {
            refs.seedError = e.what();
        }
    }
    for (size_t i = 0; i < sets.pytorch.size(); ++i) {
        BudgetPlan ps = makePlan(sets.pytorch[i], "pytorch-style");
        ps.budgetFraction = kPyTorchBudgets[i];
        const bool repeat = std::any_of(refs.plans.begin(), refs.plans.end(), [&](const BudgetPlan& q) {
            return q.source == "pytorch-style" && q.recomputeOps == ps.recomputeOps;
        });
        if (!repeat) refs.plans.push_back(std::move(ps));
    }
    refs.plans.push_back(makePlan(sets.fullCheckpoint, "full-checkpoint"));
    refs.plans.push_back(noRecomputePlan());
    references_ = std::move(refs);
    if (references_->seedError.empty()) references_->seed = &references_->plans.front();
    return *references_;
}

}  // namespace rx::planner
