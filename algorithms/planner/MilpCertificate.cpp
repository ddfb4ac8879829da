// Exact mode past enumeration: a MILP over the recompute sets (GLPK) whose liveness rows bound
// every set's activation peak from below, with no-good cuts for sets the simulation rejects;
// its optimum, or its LP relaxation, bounds the cost of every plan that fits a budget.
//
// Why GLPK rather than CBC (both are Debian packages): the models are a few hundred binaries
// and a few thousand rows; GLPK's C API (one library, libglpk-dev) builds, solves and
// re-solves them with a time limit and hands back the LP relaxation's bound directly, while
// CBC needs the CoinUtils/Osi/Clp C++ stack (or its less stable C interface) for speed these
// models do not need. The model (ALGORITHM.md-style, by original op index i):
//   r_k ∈ {0,1}: candidate k is cloned into the backward.
//   A value v defined at d, last used at lu (fixed uses only: lf when its op is recomputed
//   and the backward reads it) is alive on [d, lf]; on (lf, lu] unless its op is recomputed
//   (a ≥ 1 − r_def); and up to L_k − 1 while a recomputed reader k reads it from the forward
//   (a ≥ r_k − r_def), L_k being the earliest backward op any clone downstream of k can sit
//   before. A recomputed needed value's clone is alive from its first redirected backward
//   use to its last (r_k). Σ bytes·alive ≤ budget at every op. Each term is a live range the
//   rewritten program really has (clones and their chains only add), so every set's model
//   peak is at most its real one: the MILP optimum is a lower bound on the cost of any plan
//   that fits. A MILP answer whose real peak fits is therefore optimal; one that misses is cut
//   off (no-good cut) and the MILP solved again, until it fits, the cut-off row (cost below
//   the incumbent's) makes it infeasible (the incumbent is optimal), or time runs out (the
//   last optimum, or the LP relaxation's, is the bound and the gap).
#include "algorithms/planner/BudgetPlanner.h"
#include "algorithms/planner/PlannerInternal.h"

#include <glpk.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <initializer_list>
#include <memory>

#include "model/Diagnostic.h"

namespace rx::planner {

struct BudgetPlanner::MilpModel {
    // Columns: the candidates' r_k first (binary), then aliveness variables (continuous 0-1).
    size_t candidates = 0, columns = 0;
    struct Term {  // column `var` adds `bytes` at every op of [from, to]
        uint32_t var;
        double bytes;
        uint32_t from, to;
    };
    std::vector<Term> terms;
    struct AliveRow {  // column a + Σ coef·r ≥ rhs
        uint32_t a;
        std::vector<std::pair<uint32_t, double>> r;
        double rhs;
    };
    std::vector<AliveRow> alive;
    std::vector<std::pair<uint32_t, std::vector<uint32_t>>> closure;  // r_k ≤ Σ r_consumer
    std::vector<uint32_t> checkPoints;  // ops where a live range starts (the peak is at one)
    std::vector<double> constant;       // by check point: bytes alive whatever the set
    std::vector<double> cost;           // by candidate, scaled by costScale
    double costScale = 1;
    static constexpr double kUnit = 1024.0 * 1024.0;  // rows in MiB (GLPK's tolerances are absolute)
};

const BudgetPlanner::MilpModel& BudgetPlanner::milpModel() {
    if (milp_) return *milp_;
    const Program& p = *program_;
    const Analysis& a = *analysis_;
    const size_t nc = candidates_.size();
    const size_t n = a.globalOps().size();
    auto m = std::make_shared<MilpModel>();
    m->candidates = nc;
    m->columns = nc;
    // L_k: the earliest anchor a clone of k can have (its own first backward use, or an
    // anchor of a clone that reads it), in reverse program order.
    std::vector<uint32_t> earliest(nc, kNoId);
    std::vector<std::vector<uint32_t>> consumers(nc);
    for (uint32_t k = 0; k < nc; ++k)
        for (ValueId x : p.op(candidates_[k]).operands) {
            if (x == kNoId || x >= p.values().size()) continue;
            const OpId d = p.value(x).definingOp;
            if (d != kNoId && candidateIndex_[d] != kNoId && candidateIndex_[d] != k) {
                auto& list = consumers[candidateIndex_[d]];
                if (list.empty() || list.back() != k) list.push_back(k);
            }
        }
    for (size_t k = nc; k-- > 0;) {
        earliest[k] = firstBackwardUse_[k];
        for (uint32_t c : consumers[k]) earliest[k] = std::min(earliest[k], earliest[c]);
    }
    std::vector<uint8_t> needs(nc, 0);
    for (uint32_t k = 0; k < nc; ++k)
        for (ValueId r : p.op(candidates_[k]).results)
            if (neededByBackward_[r]) needs[k] = 1;
    for (uint32_t k = 0; k < nc; ++k)
        if (!needs[k]) m->closure.push_back({k, consumers[k]});
    // Readers of each value among the candidates.
    std::vector<std::vector<uint32_t>> readers(p.values().size());
    for (uint32_t k = 0; k < nc; ++k)
        for (ValueId x : p.op(candidates_[k]).operands)
            if (x != kNoId && x < readers.size() && (readers[x].empty() || readers[x].back() != k))
                readers[x].push_back(k);
    std::vector<double> constDelta(n + 2, 0);
    std::vector<uint32_t> starts;
    for (ValueId v = 0; v < p.values().size(); ++v) {
        const uint32_t d = defIndex_[v];
        if (d == kNoId || resident_[v]) continue;
        const double bytes = double(ownedBytes_[v]) / MilpModel::kUnit;  // aliases own nothing (exec/Liveness.h)
        if (bytes <= 0) continue;
        const OpId def = p.value(v).definingOp;
        const uint32_t j = candidateIndex_[def];
        const uint32_t lu = std::max(d, lastUse_[v]);
        const uint32_t constEnd = (j != kNoId && neededByBackward_[v]) ? std::max(d, lastFixedUse_[v]) : lu;
        constDelta[d] += bytes;
        constDelta[size_t(constEnd) + 1] -= bytes;
        starts.push_back(d);
        // Past constEnd: alive unless recomputed (to lu), and while a recomputed reader reads it.
        // A reader's clone sits before its anchor: at or after `earliest` always, and at or
        // after its own first backward use unless a recomputed consumer anchored earlier pulls it.
        auto pulling = [&](uint32_t k) {
            std::vector<uint32_t> out;
            for (uint32_t c : consumers[k])
                if (earliest[c] < firstBackwardUse_[k]) out.push_back(c);
            return out;
        };
        std::vector<uint32_t> ends;
        if (j != kNoId && lu > constEnd) ends.push_back(lu);
        for (uint32_t k : readers[v]) {
            if (earliest[k] != kNoId && earliest[k] > 0 && earliest[k] - 1 > constEnd) ends.push_back(earliest[k] - 1);
            const uint32_t own = firstBackwardUse_[k];
            if (own != kNoId && own > 0 && own - 1 > constEnd && own != earliest[k]) ends.push_back(own - 1);
        }
        std::sort(ends.begin(), ends.end());
        ends.erase(std::unique(ends.begin(), ends.end()), ends.end());
        uint32_t from = constEnd + 1;
        for (uint32_t end : ends) {
            MilpModel::AliveRow own{uint32_t(m->columns), {}, 1.0};
            std::vector<MilpModel::AliveRow> rows;
            if (j != kNoId && end <= lu) rows.push_back({uint32_t(m->columns), {{j, 1.0}}, 1.0});  // a ≥ 1 − r_j
            for (uint32_t k : readers[v]) {
                if (k == j || earliest[k] == kNoId || earliest[k] == 0) continue;
                std::vector<std::pair<uint32_t, double>> r{{k, -1.0}};  // a ≥ r_k [− r_j]
                if (j != kNoId) r.push_back({j, 1.0});
                if (earliest[k] - 1 >= end) {
                    rows.push_back({uint32_t(m->columns), r, 0.0});
                } else if (firstBackwardUse_[k] != kNoId && firstBackwardUse_[k] > 0 && firstBackwardUse_[k] - 1 >= end) {
                    // a ≥ r_k [− r_j] − Σ r_c over consumers c that could anchor k earlier.
                    for (uint32_t c : pulling(k))
                        if (c != j) r.push_back({c, 1.0});
                    std::sort(r.begin(), r.end());
                    std::vector<std::pair<uint32_t, double>> merged;
                    for (const auto& e : r)
                        if (!merged.empty() && merged.back().first == e.first) merged.back().second += e.second;
                        else merged.push_back(e);
                    rows.push_back({uint32_t(m->columns), merged, 0.0});
                }
            }
            if (!rows.empty()) {
                m->terms.push_back({uint32_t(m->columns), bytes, from, end});
                for (auto& r : rows) m->alive.push_back(std::move(r));
                ++m->columns;
            }
            from = end + 1;
        }
        // The clone of a recomputed needed value: first redirected backward use to the last.
        if (j != kNoId && neededByBackward_[v] && lastRedirectedUse_[v] != kNoId) {
            uint32_t first = lastRedirectedUse_[v];
            for (const Use& use : p.uses(v))
                if (use.user == use.ancestor && a.isBackwardRangeOp(use.user))
                    first = std::min(first, a.opIndex(use.user));
            // The clone sits before its anchor, which is at or before its first backward use.
            if (firstBackwardUse_[j] != kNoId) first = std::min(first, firstBackwardUse_[j]);
            m->terms.push_back({j, bytes, first, lastRedirectedUse_[v]});
            starts.push_back(first);
        }
    }
    for (const auto& t : m->terms) starts.push_back(t.from);
    std::sort(starts.begin(), starts.end());
    starts.erase(std::unique(starts.begin(), starts.end()), starts.end());
    m->checkPoints = starts;
    double live = 0;
    size_t next = 0;
    for (uint32_t i = 0; i < n && next < starts.size(); ++i) {
        live += constDelta[i];
        if (starts[next] == i) {
            m->constant.push_back(live);
            ++next;
        }
    }
    m->constant.resize(m->checkPoints.size(), live);
    double maxCost = 0;
    for (OpId op : candidates_) maxCost = std::max(maxCost, costs_.cost(op));
    m->costScale = maxCost > 0 ? maxCost : 1;
    for (OpId op : candidates_) m->cost.push_back(costs_.cost(op) / m->costScale);
    milp_ = m;
    return *milp_;
}

namespace {

struct GlpDeleter {
    void operator()(glp_prob* p) const { glp_delete_prob(p); }
};
using GlpProblem = std::unique_ptr<glp_prob, GlpDeleter>;

// One row: Σ coef·column (1-based GLPK indices built here) with bounds.
void addRow(glp_prob* lp, const std::vector<std::pair<uint32_t, double>>& entries, int type, double lo, double hi) {
    const int row = glp_add_rows(lp, 1);
    std::vector<int> idx(entries.size() + 1);
    std::vector<double> val(entries.size() + 1);
    for (size_t e = 0; e < entries.size(); ++e) {
        idx[e + 1] = int(entries[e].first) + 1;
        val[e + 1] = entries[e].second;
    }
    glp_set_mat_row(lp, row, int(entries.size()), idx.data(), val.data());
    glp_set_row_bnds(lp, row, type, lo, hi);
}

}  // namespace

BudgetPlanner::MilpOutcome BudgetPlanner::solveMilp(int64_t budget, double incumbentCost, double seconds, bool lpOnly) {
    using Clock = std::chrono::steady_clock;
    const auto deadline = Clock::now() + std::chrono::duration<double>(std::max(0.0, seconds));
    const MilpModel& m = milpModel();
    const size_t nc = m.candidates;
    MilpOutcome out;

    GlpProblem owned(glp_create_prob());
    glp_prob* lp = owned.get();
    glp_set_obj_dir(lp, GLP_MIN);
    glp_add_cols(lp, int(m.columns));
    for (size_t c = 0; c < m.columns; ++c) {
        const int col = int(c) + 1;
        glp_set_col_bnds(lp, col, GLP_DB, 0.0, 1.0);
        if (c < nc) {
            glp_set_col_kind(lp, col, GLP_BV);
            glp_set_obj_coef(lp, col, m.cost[c]);
        }
    }
    for (const auto& [k, cons] : m.closure) {  // recomputed only for the backward or a clone
        std::vector<std::pair<uint32_t, double>> e{{k, 1.0}};
        for (uint32_t c : cons) e.push_back({c, -1.0});
        addRow(lp, e, GLP_UP, 0.0, 0.0);
    }
    for (const auto& row : m.alive) {
        std::vector<std::pair<uint32_t, double>> e{{row.a, 1.0}};
        e.insert(e.end(), row.r.begin(), row.r.end());
        addRow(lp, e, GLP_LO, row.rhs, 0.0);
    }
    // Peak rows: at each check point, the variable ranges covering it.
    const double limit = double(budget) / MilpModel::kUnit;
    std::vector<std::vector<std::pair<uint32_t, double>>> rows(m.checkPoints.size());
    for (const auto& t : m.terms) {
        auto it = std::lower_bound(m.checkPoints.begin(), m.checkPoints.end(), t.from);
        for (; it != m.checkPoints.end() && *it <= t.to; ++it) rows[size_t(it - m.checkPoints.begin())].push_back({t.var, t.bytes});
    }
    bool impossible = false;
    for (size_t i = 0; i < rows.size(); ++i) {
        if (m.constant[i] > limit + 1e-9) impossible = true;
        if (rows[i].empty()) continue;
        // Same column twice (a value read by two ranges of one column): sum the coefficients.
        std::sort(rows[i].begin(), rows[i].end());
        std::vector<std::pair<uint32_t, double>> merged;
        for (const auto& e : rows[i])
            if (!merged.empty() && merged.back().first == e.first) merged.back().second += e.second;
            else merged.push_back(e);
        addRow(lp, merged, GLP_UP, 0.0, limit - m.constant[i]);
    }
    if (impossible) {  // bytes no plan moves exceed the budget: nothing fits
        out.proven = true;
        out.lower = std::numeric_limits<double>::infinity();
        return out;
    }

    glp_smcp smcp;
    glp_init_smcp(&smcp);
    smcp.msg_lev = GLP_MSG_OFF;
    smcp.presolve = GLP_ON;
    auto secondsLeft = [&] { return std::chrono::duration<double>(deadline - Clock::now()).count(); };
    // The LP relaxation's bound first (cheap, and the fallback when the MILP runs out of time).
    smcp.tm_lim = int(std::clamp(secondsLeft(), 0.001, 1e6) * 1000);
    ++out.solves;
    const int lpRet = glp_simplex(lp, &smcp);
    if (lpRet == GLP_ENOPFS || (lpRet == 0 && glp_get_status(lp) == GLP_NOFEAS)) {
        out.proven = true;  // not even the relaxation fits
        out.lower = std::numeric_limits<double>::infinity();
        return out;
    }
    if (lpRet == 0 && glp_get_status(lp) == GLP_OPT) out.lower = std::max(0.0, glp_get_obj_val(lp) * m.costScale);
    if (lpOnly) return out;
    // Cut-off: only sets cheaper than the incumbent (a relative margin for rounding).
    if (std::isfinite(incumbentCost)) {
        std::vector<std::pair<uint32_t, double>> costRow;
        for (uint32_t k = 0; k < nc; ++k)
            if (m.cost[k] > 0) costRow.push_back({k, m.cost[k]});
        if (costRow.empty()) {  // nothing costs anything: nothing is cheaper
            out.proven = true;
            out.lower = incumbentCost;
            return out;
        }
        addRow(lp, costRow, GLP_UP, 0.0, incumbentCost / m.costScale * (1 - 1e-9) - 1e-12);
    }
    while (secondsLeft() > 0) {
        glp_iocp iocp;
        glp_init_iocp(&iocp);
        iocp.msg_lev = GLP_MSG_OFF;
        iocp.presolve = GLP_ON;
        iocp.tm_lim = int(std::clamp(secondsLeft(), 0.001, 1e6) * 1000);
        ++out.solves;
        const int ret = glp_intopt(lp, &iocp);
        const int status = glp_mip_status(lp);
        if (ret == GLP_ENOPFS || ret == GLP_ENODFS || (ret == 0 && status == GLP_NOFEAS)) {
            out.proven = true;  // no set cheaper than the incumbent fits
            out.lower = std::isfinite(incumbentCost) ? incumbentCost : std::numeric_limits<double>::infinity();
            return out;
        }
        if (ret != 0 || status != GLP_OPT) return out;  // time limit or a solver failure: keep the bound
        out.lower = std::max(out.lower, glp_mip_obj_val(lp) * m.costScale);
        RecomputeSet raw(nc, 0);
        for (uint32_t k = 0; k < nc; ++k) raw[k] = glp_mip_col_val(lp, int(k) + 1) > 0.5;
        RecomputeSet set = normalise(raw);
        const Evaluated& e = evaluate(set);
        if (fits(e, budget) && e.cost < incumbentCost) {
            // A subset of the MILP's optimum: no dearer than the bound, so optimal.
            out.lower = std::min(out.lower, e.cost);
            out.found = std::move(set);
            return out;
        }
        // Its real peak misses the budget: cut the set (and its normalised form) off.
        for (const RecomputeSet* cut : std::initializer_list<const RecomputeSet*>{&raw, &set}) {
            if (cut == &set && set == raw) continue;
            std::vector<std::pair<uint32_t, double>> e2;
            double ones = 0;
            for (uint32_t k = 0; k < nc; ++k) {
                e2.push_back({k, (*cut)[k] ? -1.0 : 1.0});
                ones += (*cut)[k];
            }
            addRow(lp, e2, GLP_LO, 1.0 - ones, 0.0);
        }
    }
    return out;
}

BudgetPlan BudgetPlanner::certify(BudgetPlan plan, int64_t budget, double seconds, bool lpOnly) {
    const MilpOutcome o = solveMilp(budget, plan.recomputeCost, seconds, lpOnly);
    OptimalityBound bound;
    bound.method = lpOnly ? "lp" : "milp";
    bound.solves = o.solves;
    if (o.found) {
        const std::optional<int64_t> keepBudget = plan.budgetBytes;
        plan = makePlan(*o.found, plan.source);
        plan.budgetBytes = keepBudget;
    }
    bound.optimal = o.found.has_value() || o.proven;
    bound.costLowerBound = bound.optimal ? plan.recomputeCost : std::min(o.lower, plan.recomputeCost);
    bound.gap = plan.recomputeCost > 0 ? (plan.recomputeCost - bound.costLowerBound) / plan.recomputeCost : 0.0;
    if (bound.gap <= 1e-9) {
        bound.gap = 0;
        bound.optimal = true;
    }
    plan.bound = bound;
    return plan;
}

BudgetPlan BudgetPlanner::certifiedPlanForBudget(int64_t budgetBytes, const ExactOptions& exact) {
    if (candidates_.size() <= options_.maxExactOps) {
        BudgetPlan plan = exactPlanForBudget(budgetBytes);
        plan.bound = OptimalityBound{"enumeration", plan.recomputeCost, 0.0, true, 0};
        return plan;
    }
    if (candidates_.size() > exact.lpMaxCandidates) return planForBudget(budgetBytes);  // too big to model
    const bool lpOnly = candidates_.size() > exact.milpMaxCandidates;
    std::optional<BudgetPlan> heuristic;
    std::string heuristicError;
    try {
        heuristic = planForBudget(budgetBytes);
    } catch (const Error& e) {
        heuristicError = e.what();
    }
    if (!heuristic) {
        // Below the heuristic's reach: the MILP alone, for any plan that fits.
        if (lpOnly) throw Error(heuristicError);
        const MilpOutcome o = solveMilp(budgetBytes, std::numeric_limits<double>::infinity(), exact.timeLimitSeconds, false);
        if (!o.found)
            throw Error(heuristicError + (o.proven ? "; the exact mode proves no plan of the family fits"
                                                   : "; the exact mode found none within its time limit"));
        BudgetPlan plan = makePlan(*o.found, "exact");
        plan.budgetBytes = budgetBytes;
        plan.bound = OptimalityBound{"milp", plan.recomputeCost, 0.0, true, o.solves};
        return plan;
    }
    BudgetPlan plan = certify(std::move(*heuristic), budgetBytes, exact.timeLimitSeconds, lpOnly);
    plan.source = "exact";
    return plan;
}

std::vector<BudgetPlan> BudgetPlanner::certifiedFrontier(int points, const ExactOptions& exact) {
    if (candidates_.size() <= options_.maxExactOps) {
        std::vector<BudgetPlan> plans = exactFrontier();
        for (BudgetPlan& p : plans) p.bound = OptimalityBound{"enumeration", p.recomputeCost, 0.0, true, 0};
        if (!plans.empty()) plans.back().bound->lowestPeak = true;  // every set was measured
        return plans;
    }
    using Clock = std::chrono::steady_clock;
    const auto deadline = Clock::now() + std::chrono::duration<double>(exact.timeLimitSeconds);
    const bool lpOnly = candidates_.size() > exact.milpMaxCandidates;
    std::vector<BudgetPlan> plans = frontier(points);
    if (candidates_.size() > exact.lpMaxCandidates) return plans;  // too big to model: no bounds
    // Cheapest first: each point proven the cheapest plan at its own activation peak.
    for (size_t i = 0; i < plans.size(); ++i) {
        const double left = std::chrono::duration<double>(deadline - Clock::now()).count();
        const double share = left / double(plans.size() - i);
        const int64_t peak = plans[i].activationPeakBytes;
        plans[i] = certify(std::move(plans[i]), peak, share, lpOnly);
        plans[i].source = "exact";
    }
    // Below the lowest point: any plan of the family with a smaller peak (the heuristic can
    // stop short of the floor), each the cheapest at its peak, until none is proven to exist.
    if (!lpOnly && !plans.empty()) {
        for (;;) {
            const BudgetPlan* lowest = &plans.front();
            for (const BudgetPlan& p : plans)
                if (p.activationPeakBytes < lowest->activationPeakBytes) lowest = &p;
            const double left = std::chrono::duration<double>(deadline - Clock::now()).count();
            if (left <= 0) break;
            const int64_t below = lowest->activationPeakBytes - 1;
            const MilpOutcome o = solveMilp(below, std::numeric_limits<double>::infinity(), left, false);
            if (o.proven) {
                for (BudgetPlan& p : plans)
                    if (p.activationPeakBytes == lowest->activationPeakBytes && p.bound) p.bound->lowestPeak = true;
                break;
            }
            if (!o.found) break;
            BudgetPlan plan = makePlan(*o.found, "exact");
            plan.budgetBytes = below;
            plan.bound = OptimalityBound{"milp", plan.recomputeCost, 0.0, true, o.solves};
            plans.push_back(std::move(plan));
        }
    }
    // A point the MILP made cheaper may dominate its neighbours.
    return detail::paretoFront(std::move(plans));
}

void BudgetPlanner::boundFrontier(std::vector<BudgetPlan>& plans, const ExactOptions& exact) {
    // The model grows with candidates × live ranges: above the limit, no bound at all.
    if (candidates_.size() > exact.lpMaxCandidates) return;
    using Clock = std::chrono::steady_clock;
    const auto deadline = Clock::now() + std::chrono::duration<double>(exact.timeLimitSeconds);
    for (size_t i = 0; i < plans.size(); ++i) {
        BudgetPlan& plan = plans[i];
        if (plan.bound) continue;
        if (candidates_.size() <= std::min(options_.exactBelow, options_.maxExactOps)) {
            // planForBudget enumerated: the frontier point is the optimum at its peak.
            plan.bound = OptimalityBound{"enumeration", plan.recomputeCost, 0.0, true, 0};
            continue;
        }
        const int64_t peak = plan.activationPeakBytes;
        const double share = std::chrono::duration<double>(deadline - Clock::now()).count() / double(plans.size() - i);
        if (share <= 0) break;  // out of time: the rest carry no bound
        plan.bound = certify(plan, peak, share, /*lpOnly=*/true).bound;
    }
}

}  // namespace rx::planner
