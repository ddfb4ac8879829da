// A lower bound on the recompute cost at a budget that scales to programs of 100k ops: an LP
// over the candidates with one row per original op, the rows added lazily (most violated first).
//
// The relaxation keeps, of the exact mode's model (MilpCertificate.cpp), only what every set
// must hold at an original op i: each buffer's original copy from its owner's op to the owner's
// last fixed use, then to its last use while the owner's op j is not cloned (bytes·(1 − r_j));
// its clone copy from j's first backward use to the owner's last redirected use while j is
// cloned (bytes·r_j); everything else (aliases, clones' readers, clones between ops) is left
// out, which only lowers each row. So every row holds for every plan that fits, and any subset
// of the rows is still a relaxation: each LP optimum on the way, not only the last, bounds the
// cost of every plan that fits from below. Rows are added at the ops the current LP solution
// overshoots most and the LP re-solved (dual simplex from the last basis), until none is
// violated or the work limits (ExactOptions: rounds per budget, simplex iterations) end it, so
// the bound is the same at any load; the frontier's budgets share the rows (a row's bound
// follows the budget), the largest budget first. The wall clock is a safety net only: a budget
// it cuts short gets NaN, not the partial bound.
#include "algorithms/planner/BudgetPlanner.h"
#include "algorithms/planner/PlannerInternal.h"
#include "algorithms/planner/PricedSimplex.h"

#include <glpk.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <memory>
#include <numeric>
#include <tuple>

namespace rx::planner {

struct BudgetPlanner::OpRowRelaxation {
    struct Term {  // coef·r_candidate (candidate kNoId: a constant) at every op of [from, to]
        uint32_t from, to, candidate;
        double coef;
    };
    std::vector<Term> terms;     // in MiB
    std::vector<double> fixed;   // by op: the constant bytes (MiB), terms' included
    std::vector<double> cost;    // by candidate, scaled by costScale
    double costScale = 1;
    double slack = 0;            // half a granule (MiB): GLPK's tolerances, as solveMilp's
    static constexpr double kUnit = 1024.0 * 1024.0;
};

const BudgetPlanner::OpRowRelaxation& BudgetPlanner::opRowRelaxation() {
    if (opRows_) return *opRows_;
    const Program& p = *program_;
    const size_t nv = p.values().size();
    const uint32_t n = uint32_t(analysis_->globalOps().size());
    auto r = std::make_shared<OpRowRelaxation>();
    std::vector<double> delta(size_t(n) + 1, 0);
    auto constant = [&](uint32_t from, uint32_t to, double bytes) {
        delta[from] += bytes;
        delta[size_t(to) + 1] -= bytes;
    };
    int64_t granule = 0;
    for (uint32_t b = 0; b < bufferOwner_.size(); ++b) {
        const ValueId o = bufferOwner_[b];
        if (bufferBytes_[b] <= 0 || bufferResident_[b] || o == kNoId || o >= nv || defIndex_[o] == kNoId || resident_[o])
            continue;
        granule = std::gcd(granule, bufferBytes_[b]);
        const double bytes = double(bufferBytes_[b]) / OpRowRelaxation::kUnit;
        const uint32_t d = defIndex_[o];
        const OpId def = p.value(o).definingOp;
        const uint32_t j = maskValue_[o] || def == kNoId ? kNoId : candidateIndex_[def];
        const uint32_t lu = std::max(d, valueLastUse_[o]);
        const uint32_t fixedEnd = (j != kNoId && neededByBackward_[o]) ? std::max(d, valueLastFixedUse_[o]) : lu;
        constant(d, fixedEnd, bytes);
        if (fixedEnd < lu) {  // bytes·(1 − r_j)
            constant(fixedEnd + 1, lu, bytes);
            r->terms.push_back({fixedEnd + 1, lu, j, -bytes});
        }
        if (j != kNoId && neededByBackward_[o] && lastRedirectedUse_[o] != kNoId && firstBackwardUse_[j] != kNoId &&
            firstBackwardUse_[j] <= lastRedirectedUse_[o])  // anchored at or before its first backward use
            r->terms.push_back({firstBackwardUse_[j], lastRedirectedUse_[o], j, bytes});
    }
    r->fixed.resize(n);
    double live = 0;
    for (uint32_t i = 0; i < n; ++i) r->fixed[i] = live += delta[i];
    r->slack = 0.5 * double(std::max<int64_t>(granule, 1)) / OpRowRelaxation::kUnit;
    std::tie(r->cost, r->costScale) = scaledCandidateCosts();
    opRows_ = r;
    return *opRows_;
}

std::vector<double> BudgetPlanner::lazyLpLowerBounds(const std::vector<int64_t>& budgets, double seconds,
                                                     const ExactOptions& limits) {
    using Clock = std::chrono::steady_clock;
    const auto deadline = Clock::now() + std::chrono::duration<double>(std::max(0.0, seconds));
    auto secondsLeft = [&] { return std::chrono::duration<double>(deadline - Clock::now()).count(); };
    const OpRowRelaxation& m = opRowRelaxation();
    const size_t nc = m.cost.size();
    const size_t n = m.fixed.size();
    std::vector<double> lower(budgets.size(), std::numeric_limits<double>::quiet_NaN());
    if (nc == 0 || n == 0) return std::vector<double>(budgets.size(), 0.0);

    struct Deleter {
        void operator()(glp_prob* p) const { glp_delete_prob(p); }
    };
    std::unique_ptr<glp_prob, Deleter> owned(glp_create_prob());
    glp_prob* lp = owned.get();
    glp_set_obj_dir(lp, GLP_MIN);
    // Columns only for the candidates the rows so far name: with a non-negative cost, one that
    // no row names is 0 at the optimum, so the LP is the same and its size follows the rows
    // (a 1M-op program's 244k candidates made each dual simplex step price 244k columns: one
    // 32-row solve ran 10.8 s into the work limit).
    std::vector<int> column(nc, 0);  // by candidate: its LP column, 0 while it has none
    std::vector<uint32_t> columnCandidate;  // by LP column - 1
    auto columnOf = [&](uint32_t k) {
        if (!column[k]) {
            column[k] = glp_add_cols(lp, 1);
            glp_set_col_bnds(lp, column[k], GLP_DB, 0.0, 1.0);
            glp_set_obj_coef(lp, column[k], m.cost[k]);
            columnCandidate.push_back(k);
        }
        return column[k];
    };
    for (uint32_t k = 0; k < nc; ++k)
        if (m.cost[k] < 0) columnOf(k);  // (none: costs are FLOPs or times) 1 at the optimum
    std::vector<uint32_t> rowOp;  // by LP row: its op
    std::vector<uint8_t> hasRow(n, 0);
    std::vector<double> value(nc, 0.0), load(n + 1);
    glp_smcp smcp;
    glp_init_smcp(&smcp);
    smcp.msg_lev = GLP_MSG_OFF;
    smcp.meth = GLP_DUALP;  // rows added to an optimal basis keep it dual feasible
    bool solvedOnce = false;
    const size_t perRound = 32;

    // Largest budget first: it needs the fewest rows, and its rows hold for the smaller budgets
    // too (their bounds follow the budget); a budget the safety net cuts short stays NaN.
    std::vector<size_t> order(budgets.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return budgets[a] > budgets[b]; });
    for (size_t at = 0; at < order.size() && secondsLeft() > 0 && !(limits.stop && limits.stop()); ++at) {
        const size_t bi = order[at];
        bool cutShort = false;
        const double limit = double(budgets[bi]) / OpRowRelaxation::kUnit + m.slack;
        // The row of op i: Σ coef·r ≤ limit − fixed(i).
        for (size_t row = 0; row < rowOp.size(); ++row)
            glp_set_row_bnds(lp, int(row) + 1, GLP_UP, 0.0, limit - m.fixed[rowOp[row]]);
        double best = std::numeric_limits<double>::quiet_NaN();
        for (int round = 0;; ++round) {
            if (rowOp.empty()) {
                std::fill(value.begin(), value.end(), 0.0);  // no row yet: r = 0 is the optimum
                best = 0;
            } else {
                smcp.tm_lim = int(std::clamp(secondsLeft(), 0.001, 1e6) * 1000);
                smcp.it_lim = int(std::clamp(limits.lpIterationsPerRowAndColumn * double(rowOp.size() + columnCandidate.size()),
                                             1.0, 2e9));
                // The first solve has no basis to keep: the primal simplex gets there in fewer
                // steps (1M ops: 3.8 s where the dual took 5.5 s), with its columns priced in
                // (its first rows name 68k candidates there, few of which matter: 1M `pareto`
                // 10.8 -> 7.4 s); every later one the dual.
                glp_smcp first = smcp;
                first.meth = GLP_PRIMAL;
                int ret = solvedOnce ? glp_simplex(lp, &smcp) : solvePricingColumnsIn(lp, first);
                solvedOnce = true;
                if (ret == GLP_EFAIL || ret == GLP_ESING || ret == GLP_ECOND || ret == GLP_EBADB) {
                    glp_adv_basis(lp, 0);  // a fresh basis, then the primal simplex
                    glp_smcp primal = smcp;
                    primal.meth = GLP_PRIMAL;
                    ret = glp_simplex(lp, &primal);
                }
                const int status = glp_get_status(lp);
                if (ret == 0 && status == GLP_NOFEAS) {
                    best = std::numeric_limits<double>::infinity();  // not even the relaxation fits
                    break;
                }
                cutShort = ret == GLP_ETMLIM;
                if (ret != 0 || status != GLP_OPT) break;  // the work limit: the last optimum stands
                best = std::max(std::isnan(best) ? 0.0 : best, glp_get_obj_val(lp) * m.costScale);
                for (size_t c = 0; c < columnCandidate.size(); ++c) value[columnCandidate[c]] = glp_get_col_prim(lp, int(c) + 1);
            }
            if (round >= limits.lazyLpRounds) break;  // the last optimum stands
            // The loads of the current solution: rows at the most overshot ops.
            std::fill(load.begin(), load.end(), 0.0);
            for (const auto& t : m.terms) {
                const double v = t.coef * value[t.candidate];
                load[t.from] += v;
                load[size_t(t.to) + 1] -= v;
            }
            std::vector<std::pair<double, uint32_t>> violated;
            double running = 0;
            for (uint32_t i = 0; i < n; ++i) {
                running += load[i];
                const double over = m.fixed[i] + running - limit;
                if (over > 1e-9 * std::max(1.0, limit) && !hasRow[i]) violated.push_back({over, i});
            }
            if (violated.empty()) break;  // every op's row holds: the relaxation's optimum
            const size_t take = std::min(perRound, violated.size());
            std::partial_sort(violated.begin(), violated.begin() + ptrdiff_t(take), violated.end(),
                              [](const auto& a, const auto& b) { return a.first > b.first; });
            std::vector<uint32_t> ops;
            for (size_t v = 0; v < take; ++v) ops.push_back(violated[v].second);
            std::sort(ops.begin(), ops.end());
            std::vector<std::vector<std::pair<uint32_t, double>>> entries(ops.size());
            for (const auto& t : m.terms)
                for (auto it = std::lower_bound(ops.begin(), ops.end(), t.from); it != ops.end() && *it <= t.to; ++it)
                    entries[size_t(it - ops.begin())].push_back({t.candidate, t.coef});
            for (size_t e = 0; e < ops.size(); ++e) {
                auto& row = entries[e];
                std::sort(row.begin(), row.end());
                std::vector<int> idx{0};
                std::vector<double> val{0};
                for (const auto& [k, c] : row) {
                    if (c == 0) continue;
                    if (idx.size() > 1 && idx.back() == columnOf(k)) val.back() += c;
                    else {
                        idx.push_back(columnOf(k));
                        val.push_back(c);
                    }
                }
                for (size_t x = val.size(); x-- > 1;)  // a clone and an original of one op cancel
                    if (std::abs(val[x]) < 1e-12) {
                        val.erase(val.begin() + ptrdiff_t(x));
                        idx.erase(idx.begin() + ptrdiff_t(x));
                    }
                const int id = glp_add_rows(lp, 1);
                glp_set_mat_row(lp, id, int(idx.size()) - 1, idx.data(), val.data());
                glp_set_row_bnds(lp, id, GLP_UP, 0.0, limit - m.fixed[ops[e]]);
                rowOp.push_back(ops[e]);
                hasRow[ops[e]] = 1;
            }
        }
        if (cutShort) break;  // the safety net: this budget and the rest stay NaN
        lower[bi] = roundUpToCostGranule(std::isnan(best) ? 0.0 : best);  // 0: the work limit hit the first LP
    }
    return lower;
}

}  // namespace rx::planner
