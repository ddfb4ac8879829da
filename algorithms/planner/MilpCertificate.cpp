// Exact mode past enumeration: a MILP over the recompute sets whose liveness rows give every
// set's activation peak at each original op exactly (and a lower bound between them, where
// clones sit), with no-good cuts for sets the simulation rejects; its optimum, or its LP
// relaxation, or its branch-and-bound's bound, bounds the cost of every plan that fits.
//
// GLPK builds the model and solves its relaxations (from a kept basis, within an iteration
// limit: the same bound at any load); the branch-and-bound is GLPK's, then CBC's
// (BranchAndBound.h: they close different points). The model (by original op index i), as
// replayLiveRanges places clones:
//   r_k ∈ {0,1}: candidate k is cloned into the backward.
//   y_{k,t} (t an anchor k can have below its own first backward use fbu(k)): k is cloned
//   and anchored at or before op t; anchor(k) = min(fbu(k), anchor(c) of recomputed
//   consumers c), so y ≤ r_k, y ≤ Σ_c [anchor(c) ≤ t], y ≥ [anchor(c) ≤ t] + r_k − 1: for
//   integral r every y is forced to its true value.
//   A value's live range is split into segments over which its aliveness is one function of
//   the set; each segment's column is bounded below by every way it is alive there: an
//   original to its last use unless its op is recomputed (a ≥ 1 − r_j), and while a clone k
//   reading it is anchored later (a ≥ r_k − [anchor(k) ≤ i] − r_j); a clone result from its
//   anchor to its last redirected use and while a clone reading it is anchored later. Both
//   copies of a buffer together are bounded too: while a clone reading it is anchored later,
//   one copy is alive unless the buffer's own op is cloned and not placed yet (a row the
//   per-copy ones imply only for integral r; it makes the relaxation much tighter).
//   Σ bytes·alive ≤ budget at every op where a range starts. With r integral the least
//   aliveness the rows allow is the replay's, so the model's peak at the original ops is the
//   real one; between ops (clone k anchored at t) a row counts what spans t-1..t, k's results
//   and the operands it reads, a lower bound. So the MILP optimum is a lower bound on the
//   cost of any plan that fits, and an answer whose real peak fits is optimal; one that
//   misses (peaking at a clone) is cut off (no-good cut) and the MILP solved again, until it
//   fits, the cut-off row (cost below the incumbent's) makes it infeasible (the incumbent is
//   optimal), or time runs out (the best bound so far is the gap).
#include "algorithms/planner/BudgetPlanner.h"
#include "algorithms/planner/BranchAndBound.h"
#include "algorithms/planner/PlannerInternal.h"

#include <glpk.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <exception>
#include <filesystem>
#include <limits>
#include <map>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <mutex>
#include <numeric>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <tuple>

#include "algorithms/MemoryModel.h"
#include "algorithms/Rewriter.h"
#include "model/Diagnostic.h"
#include "model/FileIO.h"

namespace rx::planner {

namespace {
using Entries = std::vector<std::pair<uint32_t, double>>;
}  // namespace

struct BudgetPlanner::MilpModel {
    // Columns: the candidates' r_k first (binary), then anchor indicators y (continuous 0-1,
    // integral whenever r is) and aliveness variables (continuous 0-1).
    size_t candidates = 0, columns = 0, anchorColumns = 0;
    bool exactAnchors = true;  // every y column exists (false: the relaxed form past kMaxAnchorColumns)
    struct Term {  // column `var` adds `bytes` at every op of [from, to]
        uint32_t var;
        double bytes;
        uint32_t from, to;
    };
    std::vector<Term> terms;
    struct Row {  // lo ≤ Σ coef·column ≤ hi (GLPK's type)
        std::vector<std::pair<uint32_t, double>> entries;
        int type;
        double lo, hi;
    };
    std::vector<Row> rows;               // every row but the peak rows (those depend on the budget)
    std::vector<uint32_t> checkPoints;  // ops where a live range starts (the peak is at one)
    // The peak expressions, by check point, then one per (clone, anchor): the bytes alive
    // there are constant[e] + the expression. In cumulative form: check point i's is a load
    // column L_i (the last columns), defined by a row L_i = L_{i−1} + Σ bytes·column of the
    // ranges starting at it − those ending before it, so that a range takes two entries
    // rather than one per check point it spans; a clone position's is a row over the load of
    // the check point at or before it. (The dense form, each range repeated at every check
    // point: 391k non-zeros on a 285-candidate model, 15k now.)
    std::vector<double> constant;
    uint32_t firstLoadColumn = 0;      // L_i is column firstLoadColumn + i
    size_t firstLoadRow = 0;           // L_i's defining row is rows[firstLoadRow + i]
    std::vector<uint32_t> aliveWithoutRecompute;  // segments a reading keeps alive when r = 0
    std::vector<Entries> cloneRows;     // by clone position: Σ coef·column, load columns included
    size_t peakExpressions() const { return checkPoints.size() + cloneRows.size(); }
    bool isLoadColumn(size_t column) const { return column >= firstLoadColumn; }
    std::vector<double> cost;           // by candidate, scaled by costScale
    double costScale = 1;
    int64_t granule = 1;  // every set's model and real peaks are multiples of it (gcd of the sizes)
    // A peak row's limit at `budget`, in kUnit: peaks are multiples of the granule, and half a
    // granule of slack keeps GLPK's tolerances (relative, a few bytes at tens of MiB) from
    // accepting a set one granule over the budget.
    double peakLimit(int64_t budget) const {
        const int64_t fitting = budget >= 0 ? budget / granule * granule : -granule;
        return (double(fitting) + 0.5 * double(granule)) / kUnit;
    }
    // Whether bytes no plan moves already exceed `limit`: nothing fits.
    bool nothingFits(double limit) const {
        return std::any_of(constant.begin(), constant.end(), [&](double c) { return c > limit + 1e-9; });
    }
    static constexpr double kUnit = 1024.0 * 1024.0;  // rows in MiB (GLPK's tolerances are absolute)
    static constexpr size_t kMaxAnchorColumns = 200000;
    static constexpr size_t kMaxCloneRowEntries = 400000;
};

namespace {

// Sums the coefficients of repeated columns and drops zeros.
Entries merged(Entries e) {
    std::sort(e.begin(), e.end());
    Entries out;
    for (const auto& x : e)
        if (!out.empty() && out.back().first == x.first) out.back().second += x.second;
        else out.push_back(x);
    std::erase_if(out, [](const auto& x) { return x.second == 0; });
    return out;
}

// Rows every set's exact completion meets (r integral; every y, product and aliveness column
// then 0/1 at its true value) that the relaxation's rows imply only for integral columns: what
// CBC's preprocessing finds by probing, derived here from the lower bounds each column has
// (its forms: x ≥ c + Σ coef·column, from every ≥ or ≤ row with coefficient ±1 on x).
//  - A bound by a common upper bound: x ≥ c + Σ p − Σ n with c < 0 and every p ≤ u (rows
//    p − u ≤ 0, chained) holds as x ≥ c·u + Σ p − Σ n: with u = 0 every p is 0 and the row asks
//    for nothing, with u = 1 it is the row. (A product r_k·z's McCormick row with z ≤ r_c and
//    r_k ≤ r_c, k recomputed only for its consumer c: y ≥ z + r_k − r_c.)
//  - Two bounds split on a column b: x ≥ A − b and x ≥ B + b with A ≥ B + 1 over the box hold
//    as x ≥ B + 1 (b = 0 gives A, b = 1 gives B + 1). (An alias's buffer alive unless its op
//    is cloned, and while the clone reads the owner's original: x ≥ 1 − r_owner.)
// An 8-step GRU point's relaxation: 0.082 -> 0.367 of the largest op's cost; CBC's
// preprocessing reaches 0.290 in 8 s.
template <class Row>
struct ImpliedRows {
    std::vector<Row> added;
    std::vector<uint8_t> dominated;  // by row: implied by an added one (dropped: a smaller LP)
};

template <class Row>
ImpliedRows<Row> impliedRows(const std::vector<Row>& rows, size_t rowCount, uint32_t firstExcluded) {
    struct Form {
        double constant;
        Entries entries;  // sorted by column
        int64_t source = -1;  // its row: ≥ 0 in rows, else added[-2 - source]
        bool operator<(const Form& o) const { return std::tie(constant, entries) < std::tie(o.constant, o.entries); }
    };
    std::map<uint32_t, std::set<Form>> forms;  // by the column bounded below
    std::vector<std::vector<uint32_t>> above(firstExcluded);  // x ≤ u from two-column rows
    for (size_t i = 0; i < rowCount; ++i) {
        const Row& row = rows[i];
        if (row.type != GLP_LO && row.type != GLP_UP) continue;
        if (std::any_of(row.entries.begin(), row.entries.end(), [&](const auto& e) { return e.first >= firstExcluded; })) continue;
        const double sign = row.type == GLP_LO ? 1.0 : -1.0;  // as Σ sign·coef·column ≥ sign·bound
        const double bound = row.type == GLP_LO ? row.lo : -row.hi;
        if (row.entries.size() == 2 && bound == 0) {
            const auto& [a, ca] = row.entries[0];
            const auto& [b, cb] = row.entries[1];
            if (sign * ca == 1 && sign * cb == -1) above[b].push_back(a);
            if (sign * cb == 1 && sign * ca == -1) above[a].push_back(b);
        }
        for (const auto& [x, coef] : row.entries) {
            if (sign * coef != 1) continue;
            Form f{bound, {}, int64_t(i)};
            for (const auto& [c, v] : row.entries)
                if (c != x) f.entries.push_back({c, -sign * v});
            forms[x].insert(std::move(f));
        }
    }
    std::map<uint32_t, std::vector<uint32_t>> closures;  // x and every u ≥ x, sorted
    auto upperOf = [&](uint32_t x) -> const std::vector<uint32_t>& {
        auto [it, inserted] = closures.try_emplace(x);
        if (inserted) {
            std::vector<uint32_t> out{x}, stack{x};
            while (!stack.empty()) {
                const uint32_t y = stack.back();
                stack.pop_back();
                for (uint32_t u : above[y])
                    if (std::find(out.begin(), out.end(), u) == out.end()) out.push_back(u), stack.push_back(u);
            }
            std::sort(out.begin(), out.end());
            it->second = std::move(out);
        }
        return it->second;
    };
    auto below = [&](uint32_t v, uint32_t u) { return std::binary_search(upperOf(v).begin(), upperOf(v).end(), u); };
    // The least and the most Σ coef·column takes over the box [0,1].
    auto rangeOverBox = [](const Entries& e) {
        std::pair<double, double> range{0, 0};
        for (const auto& [c, v] : e) (v < 0 ? range.first : range.second) += v;
        return range;
    };
    constexpr size_t kFormsPaired = 24;  // pairs per column: a bound on the work, not on validity
    std::vector<Row> out;
    std::vector<uint8_t> outDominated, dominated(rowCount, 0);
    std::vector<uint32_t> targets;
    for (const auto& [x, fs] : forms) targets.push_back(x);
    for (int round = 0; round < 2 && !targets.empty(); ++round) {
        std::vector<uint32_t> changed;
        for (uint32_t x : targets) {
            std::set<Form>& fs = forms[x];
            const std::vector<Form> known(fs.begin(), fs.end());
            std::vector<std::pair<Form, int64_t>> found;  // (form, the source row it dominates)
            for (const Form& f : known) {  // a common upper bound
                if (f.constant >= 0) continue;
                std::vector<uint32_t> common;
                bool first = true, unit = true;
                for (const auto& [c, v] : f.entries) {
                    if (v < 0) continue;
                    if (v != 1) { unit = false; break; }
                    const std::vector<uint32_t>& up = upperOf(c);
                    if (first) common = up;
                    else {
                        std::vector<uint32_t> both;
                        std::set_intersection(common.begin(), common.end(), up.begin(), up.end(), std::back_inserter(both));
                        common = std::move(both);
                    }
                    first = false;
                }
                if (first || !unit) continue;
                std::erase(common, x);
                // The least of them (equal ones: one), not already in the form.
                std::optional<uint32_t> pick;
                for (uint32_t u : common) {
                    const bool isLeast = std::none_of(common.begin(), common.end(), [&](uint32_t v) { return v != u && below(v, u) && !below(u, v); });
                    if (isLeast && (!pick || !below(*pick, u))) pick = u;
                }
                if (!pick || std::any_of(f.entries.begin(), f.entries.end(), [&](const auto& e) { return e.first == *pick; })) continue;
                Form g{0.0, f.entries};
                g.entries.push_back({*pick, f.constant});
                g.entries = merged(std::move(g.entries));
                found.push_back({std::move(g), f.source});  // c·u ≥ c: the row it came from is implied
            }
            const size_t paired = std::min(known.size(), kFormsPaired);
            for (size_t i = 0; i < paired; ++i)  // split on a column
                for (size_t j = 0; j < paired; ++j) {
                    if (i == j) continue;
                    const Form &f1 = known[i], &f2 = known[j];
                    for (const auto& [b, v1] : f1.entries) {
                        if (v1 != -1) continue;
                        auto it = std::find_if(f2.entries.begin(), f2.entries.end(), [&](const auto& e) { return e.first == b; });
                        if (it == f2.entries.end() || it->second != 1) continue;
                        Entries a, bb, difference;
                        for (const auto& e : f1.entries)
                            if (e.first != b) a.push_back(e), difference.push_back(e);
                        for (const auto& e : f2.entries)
                            if (e.first != b) bb.push_back(e), difference.push_back({e.first, -e.second});
                        difference = merged(std::move(difference));
                        const double gap = f1.constant - f2.constant;  // A − B = gap + Σ difference
                        const auto [least, most] = rangeOverBox(difference);
                        // Each implies the bound it tightens (b ≤ 1, b ≥ 0).
                        if (least + gap >= 1 - 1e-9) found.push_back({Form{f2.constant + 1, bb}, f2.source});
                        else if (most + gap <= 1 + 1e-9) found.push_back({Form{f1.constant, a}, f1.source});
                    }
                }
            bool grew = false;
            for (auto& [g, source] : found) {
                g.source = -2 - int64_t(out.size());
                if (!fs.insert(g).second) continue;
                grew = true;
                Entries row = g.entries;
                for (auto& e : row) e.second = -e.second;
                row.push_back({x, 1.0});
                out.push_back({merged(std::move(row)), GLP_LO, g.constant, 0.0});
                outDominated.push_back(0);
                if (source >= 0) dominated[size_t(source)] = 1;
                else outDominated[size_t(-2 - source)] = 1;
            }
            if (grew) changed.push_back(x);
        }
        targets = std::move(changed);
    }
    ImpliedRows<Row> result;
    for (size_t i = 0; i < out.size(); ++i)
        if (!outDominated[i]) result.added.push_back(std::move(out[i]));
    result.dominated = std::move(dominated);
    return result;
}

}  // namespace

std::pair<std::vector<double>, double> BudgetPlanner::scaledCandidateCosts() const {
    double maxCost = 0;
    for (OpId op : candidates_) maxCost = std::max(maxCost, costs_.cost(op));
    const double scale = maxCost > 0 ? maxCost : 1;
    std::vector<double> cost;
    cost.reserve(candidates_.size());
    for (OpId op : candidates_) cost.push_back(costs_.cost(op) / scale);
    return {std::move(cost), scale};
}

const BudgetPlanner::MilpModel& BudgetPlanner::milpModel(bool withImpliedRows) {
    if (withImpliedRows) {
        if (milpImplied_) return *milpImplied_;
        auto m = std::make_shared<MilpModel>(milpModel(false));
        if (m->exactAnchors) {  // the rows they imply, in place of those they tighten
            ImpliedRows<MilpModel::Row> implied = impliedRows(m->rows, m->firstLoadRow, uint32_t(m->firstLoadColumn));
            std::vector<MilpModel::Row> kept;
            kept.reserve(m->rows.size() + implied.added.size());
            for (size_t i = 0; i < m->firstLoadRow; ++i)
                if (!implied.dominated[i]) kept.push_back(std::move(m->rows[i]));
            kept.insert(kept.end(), std::make_move_iterator(implied.added.begin()), std::make_move_iterator(implied.added.end()));
            const size_t firstLoadRow = kept.size();
            for (size_t i = m->firstLoadRow; i < m->rows.size(); ++i) kept.push_back(std::move(m->rows[i]));
            m->rows = std::move(kept);
            m->firstLoadRow = firstLoadRow;
        }
        milpImplied_ = m;
        return *milpImplied_;
    }
    if (milp_) return *milp_;
    const Program& p = *program_;
    const size_t nc = candidates_.size();
    const size_t nv = p.values().size();
    const uint32_t n = uint32_t(analysis_->globalOps().size());
    const uint32_t kNever = std::numeric_limits<uint32_t>::max();  // no backward use: anchored by consumers only
    auto m = std::make_shared<MilpModel>();
    m->candidates = nc;
    m->columns = nc;

    // The rewriter's placement (replayLiveRanges): clone k sits before op anchor(k) =
    // min(fbu(k), anchor(c) for each recomputed consumer c reading a clone result of k).
    auto producerCandidate = [&](ValueId x) -> uint32_t {  // as replayLiveRanges' producerSlot
        if (x == kNoId || x >= nv || maskValue_[x]) return kNoId;
        const OpId d = p.value(x).definingOp;
        return d == kNoId ? kNoId : candidateIndex_[d];
    };
    std::vector<std::vector<uint32_t>> consumers(nc), readers(nv);
    for (uint32_t c = 0; c < nc; ++c)
        forCloneOperands(c, [&](ValueId x) {
            if (x == kNoId || x >= nv) return;
            if (readers[x].empty() || readers[x].back() != c) readers[x].push_back(c);
            const uint32_t k = producerCandidate(x);
            if (k != kNoId && k != c && (consumers[k].empty() || consumers[k].back() != c)) consumers[k].push_back(c);
        });
    std::vector<uint32_t> fbu(nc);
    for (uint32_t k = 0; k < nc; ++k) fbu[k] = firstBackwardUse_[k] == kNoId ? kNever : firstBackwardUse_[k];
    // Every anchor k can have, ascending (consumers come later in program order).
    std::vector<std::vector<uint32_t>> possible(nc);
    size_t anchorCount = 0;
    for (size_t k = nc; k-- > 0;) {
        std::vector<uint32_t>& s = possible[k];
        if (fbu[k] != kNever) s.push_back(fbu[k]);
        for (uint32_t c : consumers[k])
            for (uint32_t t : possible[c])
                if (t < fbu[k]) s.push_back(t);
        std::sort(s.begin(), s.end());
        s.erase(std::unique(s.begin(), s.end()), s.end());
        anchorCount += s.size();
    }
    m->exactAnchors = anchorCount <= MilpModel::kMaxAnchorColumns;
    // y_{k,t} = 1 iff k is recomputed and anchor(k) ≤ t, for the anchors t < fbu(k).
    std::vector<std::vector<std::pair<uint32_t, uint32_t>>> yCols(nc);  // (t, column)
    if (m->exactAnchors)
        for (uint32_t k = 0; k < nc; ++k)
            for (uint32_t t : possible[k])
                if (t < fbu[k]) yCols[k].push_back({t, uint32_t(m->columns++)});
    m->anchorColumns = m->columns - nc;
    // [anchor(k) ≤ i] as a linear form: exact with the y columns; without them its upper
    // (`upper`: r_k) or lower (0) bound, whichever keeps the model a relaxation.
    auto anchoredBy = [&](uint32_t k, uint32_t i, bool upper) -> Entries {
        if (fbu[k] != kNever && i >= fbu[k]) return {{k, 1.0}};
        if (possible[k].empty() || i < possible[k].front()) return {};
        if (!m->exactAnchors) return upper ? Entries{{k, 1.0}} : Entries{};
        const auto& ys = yCols[k];
        auto it = std::upper_bound(ys.begin(), ys.end(), std::pair<uint32_t, uint32_t>{i, kNever});
        if (it == ys.begin()) return {};
        return {{std::prev(it)->second, 1.0}};
    };
    auto lastAnchor = [&](uint32_t k) { return possible[k].empty() ? 0u : possible[k].back(); };
    auto add = [&](Entries e, int type, double lo, double hi) {
        m->rows.push_back({merged(std::move(e)), type, lo, hi});
    };
    for (uint32_t k = 0; k < nc; ++k) {
        if (possible[k].empty()) add({{k, 1.0}}, GLP_FX, 0.0, 0.0);  // never anchored: never in a plan
        for (const auto& [t, col] : yCols[k]) {
            add({{col, 1.0}, {k, -1.0}}, GLP_UP, 0.0, 0.0);  // y ≤ r_k
            Entries pull{{col, 1.0}};                          // y ≤ Σ [anchor(c) ≤ t]
            for (uint32_t c : consumers[k])
                for (const auto& e : anchoredBy(c, t, true)) pull.push_back({e.first, -e.second});
            add(pull, GLP_UP, 0.0, 0.0);
            for (uint32_t c : consumers[k]) {  // y ≥ [anchor(c) ≤ t] + r_k − 1
                Entries e = anchoredBy(c, t, false);
                if (e.empty()) continue;
                Entries row{{col, 1.0}, {k, -1.0}};
                for (const auto& x : e) row.push_back({x.first, -x.second});
                add(row, GLP_LO, -1.0, 0.0);
            }
        }
    }
    auto atMostConsumers = [&](uint32_t k) {  // r_k ≤ Σ r_c over the consumers c
        Entries e{{k, 1.0}};
        for (uint32_t c : consumers[k]) e.push_back({c, -1.0});
        add(e, GLP_UP, 0.0, 0.0);
    };
    // Recomputed only for the backward or a clone (normalise's closure).
    for (uint32_t k = 0; k < nc; ++k) {
        bool needed = false;
        forCloneResults(k, [&](ValueId r) { needed = needed || neededByBackward_[r]; });
        if (!needed) atMostConsumers(k);
    }
    // Placed, or not recomputed (normalise's placement): an op with no backward use of its
    // first result is placed only before a placed clone of a consumer, so r_k = 1 needs
    // anchor(k) at its last possible anchor at the latest. Without this row a recomputed op
    // that is never placed dropped its originals for nothing in the model (a 4-step GRU's
    // builtin.split whose first result the backward never reads: the MILP's optimum at
    // 221440 B, 101.9 KFLOP, normalised to a set peaking 516 B over the budget, and its LP
    // relaxation recomputed a quarter of another such split).
    for (uint32_t k = 0; k < nc; ++k) {
        if (fbu[k] != kNever || possible[k].empty()) continue;
        if (m->exactAnchors) add({{yCols[k].back().second, 1.0}, {k, -1.0}}, GLP_LO, 0.0, 0.0);  // y_{k,last} ≥ r_k
        else atMostConsumers(k);  // a weaker form of the same
    }

    // Storage buffer by buffer, as replayLiveRanges follows it (exec/Liveness's buffers): each
    // buffer has an original copy (from its owner's op) and, when its owner's op is cloned, a
    // clone copy (from the clone). Every value referring to a buffer (its owner, and aliases
    // through builtin.split/combine/slice and fetch) keeps one of the copies alive while that
    // value (its original, or its clone) is read; which one depends on the set: the clone copy
    // when every producer along the alias chain is cloned (a product, linearised below).
    int64_t granule = 0;
    for (uint32_t b = 0; b < bufferOwner_.size(); ++b)
        if (bufferBytes_[b] > 0 && !bufferResident_[b]) granule = std::gcd(granule, bufferBytes_[b]);
    m->granule = std::max<int64_t>(granule, 1);
    std::vector<double> constDelta(size_t(n) + 2, 0);
    std::vector<uint32_t> starts;
    struct ConstRange {
        uint32_t from, to;
        double bytes;
        ValueId owner;
    };
    std::vector<ConstRange> constRanges;  // the original copies' parts alive whatever the set
    std::vector<ValueId> termValue;       // by term: the owner of the buffer whose copy it is
    std::vector<uint32_t> termClone;      // by term: the candidate whose clone made the copy, or kNoId
    const Analysis& a = *analysis_;
    // Which copy of buffer b value v refers to (the clone's when `clone`), as the replay's
    // refersToClone: false, the original's whatever the set; true, the clone's exactly when
    // every candidate pushed on `chain` is cloned (else the original's: past a producer left
    // in place the chain reads originals, defined in the forward, down to the owner).
    auto refersToClone = [&](auto& self, ValueId v, bool clone, uint32_t b, std::vector<uint32_t>& chain) -> bool {
        if (bufferOwner_[b] == v) return clone;
        const OpId def = p.value(v).definingOp;
        if (def == kNoId) return false;
        for (ValueId x : p.op(def).operands) {
            if (x == kNoId || x >= nv) continue;
            const auto xb = valueBuffers(x);
            if (std::find(xb.begin(), xb.end(), b) == xb.end()) continue;
            const uint32_t k = producerCandidate(x);
            if (k == kNoId || !(clone || a.isBackwardRangeOp(def))) return self(self, x, false, b, chain);
            chain.push_back(k);
            return self(self, x, true, b, chain);
        }
        return false;
    };
    // One reading of a buffer: a value's original or clone, alive where its forms say
    // (alive ≥ constant + Σ coef·column at op s, evaluated at a segment's first op).
    struct Form {
        double constant;
        Entries entries;
    };
    struct Reading {
        ValueId value;
        uint32_t clone;  // the candidate whose clone result it is, or kNoId: the original
        uint32_t from, to;
        std::vector<uint32_t> breaks;
        bool refersToClone;
        std::vector<uint32_t> chain;
    };
    auto negated = [](Entries e) {
        for (auto& x : e) x.second = -x.second;
        return e;
    };
    auto append = [](Entries& to, const Entries& e) { to.insert(to.end(), e.begin(), e.end()); };
    // The original value v: from its op to its last use, to its last fixed use when its op is
    // cloned for the backward, and while a clone reading it (not its producer's) is placed later.
    auto originalEnds = [&](ValueId v, uint32_t& fixedEnd, uint32_t& lu) {
        const uint32_t d = defIndex_[v];
        const uint32_t j = producerCandidate(v);
        lu = std::max(d, valueLastUse_[v]);
        fixedEnd = (j != kNoId && neededByBackward_[v]) ? std::max(d, valueLastFixedUse_[v]) : lu;
    };
    auto originalForms = [&](const Reading& rd, uint32_t s, std::vector<Form>& out) {
        const ValueId v = rd.value;
        const uint32_t d = defIndex_[v];
        if (s < d) return;
        const uint32_t j = producerCandidate(v);
        uint32_t fixedEnd, lu;
        originalEnds(v, fixedEnd, lu);
        if (s <= fixedEnd) out.push_back({1.0, {}});
        else if (s <= lu) out.push_back({1.0, {{j, -1.0}}});  // a ≥ 1 − r_j
        for (uint32_t k : readers[v]) {
            if (k == j || s + 1 > lastAnchor(k)) continue;
            Form f{0.0, {{k, 1.0}}};  // a ≥ r_k − [anchor(k) ≤ s] − r_j: clone k reads the original
            append(f.entries, negated(anchoredBy(k, s, true)));
            if (j != kNoId) f.entries.push_back({j, -1.0});
            out.push_back(std::move(f));
        }
    };
    // A clone result r of j: from the clone (before op anchor(j)) to its last redirected
    // backward use and while a clone reading it is placed later.
    auto cloneForms = [&](const Reading& rd, uint32_t s, std::vector<Form>& out) {
        const ValueId r = rd.value;
        const Entries here = anchoredBy(rd.clone, s, false);
        if (here.empty()) return;  // not cloned yet
        const bool redirected = neededByBackward_[r] && lastRedirectedUse_[r] != kNoId;
        if (redirected && s <= lastRedirectedUse_[r]) out.push_back({0.0, here});  // b ≥ [anchor(j) ≤ s]
        for (uint32_t c : readers[r]) {  // b ≥ [anchor(j) ≤ s] + r_c − [anchor(c) ≤ s] − 1
            if (s + 1 > lastAnchor(c)) continue;
            Form f{-1.0, here};
            f.entries.push_back({c, 1.0});
            append(f.entries, negated(anchoredBy(c, s, true)));
            out.push_back(std::move(f));
        }
    };
    auto formsAt = [&](const Reading& rd, uint32_t s, std::vector<Form>& out) {
        if (rd.clone == kNoId) originalForms(rd, s, out);
        else cloneForms(rd, s, out);
    };
    const BufferReferrers referrers = bufferReferrers();
    // A chain's product Π r_k: r_k itself for one candidate, else a column p ≤ every r_k
    // (the copy rows push p up, so p equals the product whenever r is integral).
    std::map<std::vector<uint32_t>, uint32_t> productColumn;
    auto product = [&](const std::vector<uint32_t>& chain) -> uint32_t {
        if (chain.size() == 1) return chain[0];
        auto [it, inserted] = productColumn.try_emplace(chain, uint32_t(m->columns));
        if (inserted) {
            ++m->columns;
            for (uint32_t k : chain) add({{it->second, 1.0}, {k, -1.0}}, GLP_UP, 0.0, 0.0);
        }
        return it->second;
    };
    // Segments of one copy over [from, to], split where any reading's aliveness changes; each
    // segment's column is bounded below by every reading's forms, transformed by `adjust`.
    // Copies live in one interval, so an alive segment keeps every earlier one of the
    // original copy alive, and of the clone copy from the clone on.
    struct Segment {
        uint32_t from, to, column;
    };
    auto copySegments = [&](uint32_t from, uint32_t to, std::vector<uint32_t> breaks, const std::vector<Reading>& readings,
                            auto&& adjust, double bytes, ValueId owner, uint32_t clone, std::vector<Segment>& segments) {
        breaks.push_back(from);
        std::sort(breaks.begin(), breaks.end());
        breaks.erase(std::unique(breaks.begin(), breaks.end()), breaks.end());
        std::erase_if(breaks, [&](uint32_t s) { return s < from || s > to; });
        std::vector<std::vector<Form>> forms(breaks.size());
        size_t used = 0;  // segments up to the last one some reading keeps alive
        for (size_t i = 0; i < breaks.size(); ++i) {
            for (const Reading& rd : readings) {
                const size_t before = forms[i].size();
                formsAt(rd, breaks[i], forms[i]);
                for (size_t f = before; f < forms[i].size(); ++f) adjust(rd, forms[i][f]);
            }
            if (!forms[i].empty()) used = i + 1;
        }
        uint32_t previous = kNoId;
        for (size_t i = 0; i < used; ++i) {
            const uint32_t s = breaks[i];
            const uint32_t e = i + 1 < breaks.size() ? breaks[i + 1] - 1 : to;
            const uint32_t col = uint32_t(m->columns++);
            if (std::any_of(forms[i].begin(), forms[i].end(), [](const Form& f) { return f.constant > 1e-9; }))
                m->aliveWithoutRecompute.push_back(col);
            for (Form& f : forms[i]) {
                Entries row = negated(std::move(f.entries));
                row.push_back({col, 1.0});
                add(std::move(row), GLP_LO, f.constant, 0.0);
            }
            if (previous != kNoId) {
                if (clone == kNoId) add({{previous, 1.0}, {col, -1.0}}, GLP_LO, 0.0, 0.0);
                else {  // previous ≥ col + [anchor(j) ≤ its first op] − 1
                    Entries row{{previous, 1.0}, {col, -1.0}};
                    append(row, negated(anchoredBy(clone, breaks[i - 1], false)));
                    add(std::move(row), GLP_LO, -1.0, 0.0);
                }
            }
            previous = col;
            segments.push_back({s, e, col});
            m->terms.push_back({col, bytes, s, e});
            termValue.push_back(owner);
            termClone.push_back(clone);
        }
    };
    auto addBreaks = [&](std::vector<uint32_t>& breaks, uint32_t k) {
        for (const auto& [t, col] : yCols[k]) breaks.push_back(t);
        if (fbu[k] != kNever) breaks.push_back(fbu[k]);
        if (!possible[k].empty()) breaks.push_back(possible[k].front());
    };
    // Both copies of buffer b together, a valid row the per-copy ones imply only for integral
    // r: while a clone c reading a value of b (its owner or an alias) is placed later, the
    // clone will read one of the copies, so one is alive, unless b's owner's op w is cloned
    // and its clone not placed yet (then the clone copy comes later):
    //   orig(s) + clone(s) ≥ r_c − [anchor(c) ≤ s] − r_w + [anchor(w) ≤ s].
    // The per-copy rows sum to less (each product linearised with a −1, and an alias chain's
    // ops each subtracted): at r_c = r_w = ½ they ask for nothing where this asks for ½. On a
    // generated LLaMA layer's lowest point the LP bound went from 53% of the optimum to 97%.
    auto segmentAt = [](const std::vector<Segment>& segs, uint32_t s) -> const Segment* {
        auto it = std::upper_bound(segs.begin(), segs.end(), s, [](uint32_t x, const Segment& g) { return x < g.from; });
        return it == segs.begin() || std::prev(it)->to < s ? nullptr : &*std::prev(it);
    };
    auto coupleCopies = [&](uint32_t b, uint32_t constEnd, uint32_t w, const std::vector<Segment>& originalSegments,
                            const std::vector<Segment>& cloneSegments) {
        std::set<std::pair<uint32_t, uint32_t>> done;  // (c, s): one row where c reads b through several values
        for (const ValueId v : referrers.of(b)) {
            const uint32_t j = producerCandidate(v);
            for (uint32_t c : readers[v]) {
                if (c == j || lastAnchor(c) == 0) continue;
                std::vector<uint32_t> at;
                for (const auto* segs : {&originalSegments, &cloneSegments})
                    for (const Segment& g : *segs) at.push_back(g.from);
                addBreaks(at, c);
                if (w != kNoId) addBreaks(at, w);
                std::sort(at.begin(), at.end());
                at.erase(std::unique(at.begin(), at.end()), at.end());
                for (const uint32_t s : at) {
                    if (s <= constEnd || s + 1 > lastAnchor(c)) continue;
                    if (!done.insert({c, s}).second) continue;
                    const Segment* original = segmentAt(originalSegments, s);
                    const Segment* clone = segmentAt(cloneSegments, s);
                    if (!original && !clone) continue;
                    Entries row{{c, -1.0}};
                    if (original) row.push_back({original->column, 1.0});
                    if (clone) row.push_back({clone->column, 1.0});
                    append(row, anchoredBy(c, s, true));
                    if (w != kNoId) {
                        row.push_back({w, 1.0});
                        append(row, negated(anchoredBy(w, s, false)));
                    }
                    add(std::move(row), GLP_LO, 0.0, 0.0);
                }
            }
        }
    };
    for (uint32_t b = 0; b < bufferOwner_.size(); ++b) {
        const ValueId owner = bufferOwner_[b];
        if (bufferBytes_[b] <= 0 || bufferResident_[b] || owner == kNoId || owner >= nv || defIndex_[owner] == kNoId ||
            resident_[owner])
            continue;
        const double bytes = double(bufferBytes_[b]) / MilpModel::kUnit;
        const uint32_t d = defIndex_[owner];
        const uint32_t ownerCandidate = producerCandidate(owner);
        std::vector<Reading> toOriginal, toClone;  // readings that may keep each copy alive
        uint32_t constEnd = d;                      // the original copy, whatever the set
        for (const ValueId v : referrers.of(b)) {
            for (int asClone = 0; asClone < 2; ++asClone) {
                Reading rd{v, kNoId, 0, 0, {}, false, {}};
                if (asClone) {
                    const uint32_t j = producerCandidate(v);
                    if (j == kNoId || possible[j].empty()) continue;
                    rd.clone = j;
                    rd.from = possible[j].front();
                    rd.to = neededByBackward_[v] && lastRedirectedUse_[v] != kNoId ? lastRedirectedUse_[v] : 0;
                    addBreaks(rd.breaks, j);
                    if (rd.to > 0) rd.breaks.push_back(rd.to + 1);
                    for (uint32_t c : readers[v]) {
                        if (lastAnchor(c) > 0) rd.to = std::max(rd.to, lastAnchor(c) - 1);
                        addBreaks(rd.breaks, c);
                    }
                    if (rd.to < rd.from) continue;
                } else {
                    uint32_t fixedEnd, lu;
                    originalEnds(v, fixedEnd, lu);
                    rd.from = defIndex_[v];
                    rd.to = lu;
                    rd.breaks = {defIndex_[v], fixedEnd + 1, lu + 1};
                    const uint32_t j = producerCandidate(v);
                    for (uint32_t k : readers[v]) {
                        if (k == j) continue;
                        if (lastAnchor(k) > 0) rd.to = std::max(rd.to, lastAnchor(k) - 1);
                        addBreaks(rd.breaks, k);
                    }
                }
                rd.refersToClone = refersToClone(refersToClone, v, asClone != 0, b, rd.chain);
                if (!rd.refersToClone) rd.chain.clear();
                if (rd.refersToClone && rd.chain.empty()) {
                    toClone.push_back(std::move(rd));
                    continue;
                }
                if (!rd.refersToClone && !asClone) {  // the original's fixed part is always there
                    uint32_t fixedEnd, lu;
                    originalEnds(v, fixedEnd, lu);
                    constEnd = std::max(constEnd, fixedEnd);
                }
                toOriginal.push_back(rd);
                if (rd.refersToClone) toClone.push_back(std::move(rd));
            }
        }
        constDelta[d] += bytes;
        constDelta[size_t(constEnd) + 1] -= bytes;
        constRanges.push_back({d, constEnd, bytes, owner});
        starts.push_back(d);
        // The original copy past its fixed part: every reading that may refer to it, those
        // through a chain of clones only while the chain is not all cloned (a ≥ form − Π r).
        uint32_t lastEnd = constEnd;
        std::vector<uint32_t> breaks{constEnd + 1};
        for (const Reading& rd : toOriginal) {
            lastEnd = std::max(lastEnd, rd.to);
            breaks.insert(breaks.end(), rd.breaks.begin(), rd.breaks.end());
            breaks.push_back(rd.from);
        }
        std::vector<Segment> originalSegments, cloneSegments;
        if (lastEnd > constEnd)
            copySegments(constEnd + 1, lastEnd, breaks, toOriginal,
                         [&](const Reading& rd, Form& f) {
                             if (rd.refersToClone) f.entries.push_back({product(rd.chain), -1.0});
                         },
                         bytes, owner, kNoId, originalSegments);
        // The clone copy: readings that refer to it when their chain is all cloned
        // (b ≥ form + Σ r_k − |chain|).
        if (ownerCandidate == kNoId || possible[ownerCandidate].empty() || toClone.empty()) continue;
        uint32_t cloneEnd = 0;
        std::vector<uint32_t> cloneBreaks;
        addBreaks(cloneBreaks, ownerCandidate);
        for (const Reading& rd : toClone) {
            cloneEnd = std::max(cloneEnd, rd.to);
            cloneBreaks.insert(cloneBreaks.end(), rd.breaks.begin(), rd.breaks.end());
            cloneBreaks.push_back(rd.from);
        }
        const uint32_t cloneFrom = possible[ownerCandidate].front();
        if (cloneEnd >= cloneFrom)
            copySegments(cloneFrom, cloneEnd, cloneBreaks, toClone,
                         [&](const Reading& rd, Form& f) {
                             for (uint32_t k : rd.chain) f.entries.push_back({k, 1.0});
                             f.constant -= double(rd.chain.size());
                         },
                         bytes, owner, ownerCandidate, cloneSegments);
        coupleCopies(b, constEnd, ownerCandidate, originalSegments, cloneSegments);
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
    // The load columns and the rows defining them. Every range starts at a check point.
    const size_t checkCount = m->checkPoints.size();
    m->firstLoadColumn = uint32_t(m->columns);
    m->columns += checkCount;
    auto loadColumn = [&](size_t i) { return uint32_t(m->firstLoadColumn + i); };
    auto firstCheck = [&](uint32_t op) {  // the first check point at or after op
        return size_t(std::lower_bound(m->checkPoints.begin(), m->checkPoints.end(), op) - m->checkPoints.begin());
    };
    auto pastLastCheck = [&](uint32_t op) {  // one past the last check point at or before op
        return size_t(std::upper_bound(m->checkPoints.begin(), m->checkPoints.end(), op) - m->checkPoints.begin());
    };
    std::vector<Entries> change(checkCount);  // by check point: Σ bytes·column entering − leaving
    for (const auto& t : m->terms) {
        const size_t first = firstCheck(t.from), past = pastLastCheck(t.to);
        if (first >= past) continue;
        change[first].push_back({t.var, t.bytes});
        if (past < checkCount) change[past].push_back({t.var, -t.bytes});
    }
    m->firstLoadRow = m->rows.size();
    for (size_t i = 0; i < checkCount; ++i) {  // L_i − L_{i−1} − change_i = 0
        Entries row = negated(std::move(change[i]));
        row.push_back({loadColumn(i), 1.0});
        if (i > 0) row.push_back({loadColumn(i - 1), -1.0});
        add(std::move(row), GLP_FX, 0.0, 0.0);
    }
    // Clone positions: clone k anchored at t sits between ops t-1 and t (after the clones
    // anchored there before it, in candidate order). Alive there: every range alive at op t
    // that started before the clone — originals defined before t, clone results anchored
    // before t, or of a candidate before k — and k's results, and the operands k reads
    // (counted only when no range of theirs covers t, so that nothing counts twice).
    // Row per (k, t): those ranges + extra(k)·[anchor(k) = t] ≤ budget. The ranges alive at t
    // are those at the check point c at or before it (L_c) but the ones ending between; of
    // them all are started before the clone (an original's variable part starts after its op)
    // but the clone results anchored at t of candidates from k on.
    std::vector<uint32_t> anchorsAll;
    for (uint32_t k = 0; k < nc; ++k) anchorsAll.insert(anchorsAll.end(), possible[k].begin(), possible[k].end());
    std::sort(anchorsAll.begin(), anchorsAll.end());
    anchorsAll.erase(std::unique(anchorsAll.begin(), anchorsAll.end()), anchorsAll.end());
    std::vector<std::vector<uint32_t>> termsByValue(nv);
    for (uint32_t t = 0; t < m->terms.size(); ++t) termsByValue[termValue[t]].push_back(t);
    std::vector<std::vector<uint32_t>> constRangesByValue(nv);
    for (uint32_t c = 0; c < constRanges.size(); ++c) constRangesByValue[constRanges[c].owner].push_back(c);
    auto covered = [&](ValueId x, uint32_t t) {  // some range of x covers op t
        for (uint32_t c : constRangesByValue[x])
            if (constRanges[c].from <= t && constRanges[c].to >= t) return true;
        for (uint32_t i : termsByValue[x])
            if (m->terms[i].from <= t && m->terms[i].to >= t) return true;
        return false;
    };
    // Each row repeats what is alive at t: past a budget of entries the rest are left out
    // (fewer rows, still a relaxation), so that large programs' LP bounds stay cheap.
    size_t cloneRowEntries = 0;
    for (const uint32_t t : anchorsAll) {
        if (t == 0 || cloneRowEntries > MilpModel::kMaxCloneRowEntries) continue;
        const size_t past = pastLastCheck(t);
        Entries alive;                                            // the ranges alive at t
        std::vector<std::pair<uint32_t, uint32_t>> groupResults;  // (candidate, term): anchored at t
        if (past > 0) {
            const uint32_t c = m->checkPoints[past - 1];
            alive.push_back({loadColumn(past - 1), 1.0});
            for (uint32_t i = 0; i < m->terms.size(); ++i) {
                const auto& term = m->terms[i];
                if (term.from > c || term.to < c) continue;
                if (term.to < t) alive.push_back({term.var, -term.bytes});
                else if (termClone[i] != kNoId && term.from == t) groupResults.push_back({termClone[i], i});
            }
        }
        std::sort(groupResults.begin(), groupResults.end());
        double constBefore = 0;
        for (const ConstRange& c : constRanges)
            if (c.from < t && c.to >= t) constBefore += c.bytes;
        for (uint32_t k = 0; k < nc; ++k) {
            if (!std::binary_search(possible[k].begin(), possible[k].end(), t)) continue;
            double extra = 0;
            forCloneResults(k, [&](ValueId r) {
                if (!resident_[r]) extra += double(ownedBytes_[r]) / MilpModel::kUnit;
            });
            std::vector<ValueId> operands;
            forCloneOperands(k, [&](ValueId x) {
                if (x != kNoId && x < nv) operands.push_back(x);
            });
            std::sort(operands.begin(), operands.end());
            operands.erase(std::unique(operands.begin(), operands.end()), operands.end());
            for (ValueId x : operands)
                if (defIndex_[x] != kNoId && !resident_[x] && ownedBytes_[x] > 0 && !covered(x, t))
                    extra += double(ownedBytes_[x]) / MilpModel::kUnit;
            if (extra <= 0) continue;
            Entries row = alive;
            for (const auto& [j, i] : groupResults)
                if (j >= k) row.push_back({m->terms[i].var, -m->terms[i].bytes});
            for (const auto& e : anchoredBy(k, t, false)) row.push_back({e.first, extra * e.second});
            for (const auto& e : anchoredBy(k, t - 1, true)) row.push_back({e.first, -extra * e.second});
            cloneRowEntries += row.size();
            m->cloneRows.push_back(merged(std::move(row)));
            m->constant.push_back(constBefore);
        }
    }
    std::tie(m->cost, m->costScale) = scaledCandidateCosts();
    milp_ = m;
    return *milp_;
}

namespace {

// The threads the exact mode uses (ExactOptions::threads; 0: one per hardware thread).
unsigned threadsOf(const ExactOptions& exact) {
    return std::max(1u, exact.threads ? exact.threads : std::thread::hardware_concurrency());
}

using detail::boundFrom;
using detail::withSearchThreads;

// The MILP's bound on the plan it found (optimal, or the tree's bound when time ran out).
OptimalityBound milpBound(double cost, bool proven, double lower, int solves) {
    OptimalityBound bound = proven ? OptimalityBound{"milp", cost, 0.0, true, 0} : boundFrom(cost, lower);
    bound.method = "milp";
    bound.solves = solves;
    return bound;
}

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

// The model without its peak limits: r binary (cost in the objective), the rest continuous
// (0-1, the loads free).
GlpProblem modelProblem(const auto& m) {
    GlpProblem owned(glp_create_prob());
    glp_prob* lp = owned.get();
    glp_set_obj_dir(lp, GLP_MIN);
    glp_add_cols(lp, int(m.columns));
    for (size_t c = 0; c < m.columns; ++c) {
        const int col = int(c) + 1;
        if (m.isLoadColumn(c)) glp_set_col_bnds(lp, col, GLP_FR, 0.0, 0.0);
        else glp_set_col_bnds(lp, col, GLP_DB, 0.0, 1.0);
        if (c < m.candidates) {
            glp_set_col_kind(lp, col, GLP_BV);
            glp_set_obj_coef(lp, col, m.cost[c]);
        }
    }
    for (const auto& row : m.rows) addRow(lp, row.entries, row.type, row.lo, row.hi);
    return owned;
}

// Where a peak expression's limit goes in an LP: the bound of a check point's load column,
// or of a clone position's row.
struct PeakLimit {
    size_t expression;  // index into m.constant
    bool column;
    int index;          // GLPK's (1-based) column or row
};

// Adds the clone rows to a model's problem; returns where every peak expression's limit goes.
std::vector<PeakLimit> addPeakRows(glp_prob* lp, const auto& m) {
    std::vector<PeakLimit> out;
    const size_t checks = m.checkPoints.size();
    for (size_t i = 0; i < checks; ++i) out.push_back({i, true, int(m.firstLoadColumn + i) + 1});
    for (size_t r = 0; r < m.cloneRows.size(); ++r)
        if (!m.cloneRows[r].empty()) {
            addRow(lp, m.cloneRows[r], GLP_FR, 0.0, 0.0);
            out.push_back({checks + r, false, glp_get_num_rows(lp)});
        }
    return out;
}

// Every peak expression at most `limit` (in the model's unit) less the bytes no set moves.
void setPeakLimits(glp_prob* lp, const auto& m, const std::vector<PeakLimit>& limits, double limit) {
    for (const PeakLimit& l : limits) {
        const double upper = limit - m.constant[l.expression];
        if (l.column) glp_set_col_bnds(lp, l.index, GLP_UP, 0.0, upper);
        else glp_set_row_bnds(lp, l.index, GLP_UP, 0.0, upper);
    }
}

// A problem's basis, kept as statuses: a GLPK problem belongs to the thread that made it
// (deleting it on another aborts), and a planner moves between threads.
std::shared_ptr<const LpBasis> basisOf(glp_prob* lp) {
    auto basis = std::make_shared<LpBasis>();
    basis->rowStat.resize(size_t(glp_get_num_rows(lp)) + 1);
    basis->colStat.resize(size_t(glp_get_num_cols(lp)) + 1);
    for (int r = 1; r <= glp_get_num_rows(lp); ++r) basis->rowStat[size_t(r)] = glp_get_row_stat(lp, r);
    for (int c = 1; c <= glp_get_num_cols(lp); ++c) basis->colStat[size_t(c)] = glp_get_col_stat(lp, c);
    return basis;
}

// Starts the next simplex from `basis` where it is one of this problem's (same rows and
// columns); returns whether it was.
bool restoreBasis(glp_prob* lp, const LpBasis* basis) {
    if (!basis || basis->rowStat.size() != size_t(glp_get_num_rows(lp)) + 1 ||
        basis->colStat.size() != size_t(glp_get_num_cols(lp)) + 1)
        return false;
    for (int r = 1; r <= glp_get_num_rows(lp); ++r) glp_set_row_stat(lp, r, basis->rowStat[size_t(r)]);
    for (int c = 1; c <= glp_get_num_cols(lp); ++c) glp_set_col_stat(lp, c, basis->colStat[size_t(c)]);
    return true;
}

// The simplex settings of every relaxation solve: quiet, the dual simplex (every cost is
// non-negative, so the all-slack basis is dual feasible: on a 58k-row model 0.2 s where the
// primal, with or without presolve, took 12-25 s; it falls back to the primal by itself
// where it is not), and at most `lpIterationsPerRowAndColumn` iterations per row and column,
// so that a bound is the same at any load.
glp_smcp relaxationSimplex(glp_prob* lp, const ExactOptions& limits) {
    glp_smcp smcp;
    glp_init_smcp(&smcp);
    smcp.msg_lev = GLP_MSG_OFF;
    smcp.meth = GLP_DUALP;
    smcp.it_lim = int(std::clamp(limits.lpIterationsPerRowAndColumn * double(glp_get_num_rows(lp) + glp_get_num_cols(lp)),
                                 1.0, 2e9));
    return smcp;
}

// The relaxation's recompute values r_k, by candidate.
std::vector<double> relaxedRecomputeValues(glp_prob* lp, size_t candidates) {
    std::vector<double> x(candidates);
    for (size_t k = 0; k < candidates; ++k) x[k] = glp_get_col_prim(lp, int(k) + 1);
    return x;
}

// The relaxation's recompute values rounded up from a few thresholds, each distinct set once:
// the starts of the guided search and of the exact mode's primal heuristic.
std::vector<std::vector<uint8_t>> relaxationRoundingsOf(const std::vector<double>& relaxed) {
    std::vector<std::vector<uint8_t>> out;
    for (const double threshold : {0.5, 0.25, 0.75, 1e-6}) {
        std::vector<uint8_t> rounded(relaxed.size(), 0);
        for (size_t k = 0; k < relaxed.size(); ++k) rounded[k] = relaxed[k] >= threshold;
        if (std::find(out.begin(), out.end(), rounded) == out.end()) out.push_back(std::move(rounded));
    }
    return out;
}

// A starting basis for a relaxation without one: the set that recomputes nothing (r, y and
// the products at 0, every segment a reading keeps alive without recomputation at 1, the
// rest at 0), the loads basic in their defining rows (a bidiagonal block, so the basis is
// regular) and every other row's slack basic. All costs are non-negative and only the r's
// have any, so it is dual feasible, as the all-slack basis is; at a budget the original
// program fits it is nearly optimal too, where from the all-slack basis the dual simplex
// first pivots in every segment, one at a time: the 2-layer LSTM's first bound of a frontier
// took 3.4-5.4 s from there, 0.3 s from here (at its lowest point, 18 s and 16 s).
void setNothingRecomputedBasis(glp_prob* lp, const auto& m) {
    const int rows = glp_get_num_rows(lp);
    for (int r = 1; r <= rows; ++r) glp_set_row_stat(lp, r, GLP_BS);
    for (size_t i = 0; i < m.checkPoints.size(); ++i) {
        glp_set_row_stat(lp, int(m.firstLoadRow + i) + 1, GLP_NS);
        glp_set_col_stat(lp, int(m.firstLoadColumn + i) + 1, GLP_BS);
    }
    for (size_t c = 0; c < m.firstLoadColumn; ++c) glp_set_col_stat(lp, int(c) + 1, GLP_NL);
    for (uint32_t c : m.aliveWithoutRecompute) glp_set_col_stat(lp, int(c) + 1, GLP_NU);
}

// The model with its peak rows, their limits left for each budget to set.
GlpProblem relaxationProblem(const auto& m, std::vector<PeakLimit>& limits) {
    GlpProblem owned = modelProblem(m);
    limits = addPeakRows(owned.get(), m);
    return owned;
}

// Reduced-cost fixing at the root: with the relaxation's optimum z and r_k non-basic at 0
// with reduced cost d_k, every solution with r_k = 1 costs at least z + d_k (LP duality; the
// other non-basic terms only add), so where that exceeds the cut-off no set the search still
// wants recomputes k (and symmetrically at 1). GLPK fixes by reduced costs only against an
// incumbent of its own, and here the incumbent is the cost row (handing GLPK the incumbent
// instead needs its presolver off, which cost more than it gained: a 149-candidate point
// proven in 10 s went unproven in 54). A 285-candidate transformer point: 129 of 285 r's
// fixed, proven in 4.4 s where 5.8 s left a gap. Valid under the no-good rows added later
// (they only raise z).
void fixByReducedCost(glp_prob* lp, size_t candidates, double cutoff) {
    const double z = glp_get_obj_val(lp);
    const double margin = 1e-6 * std::max(1.0, std::abs(cutoff));  // GLPK's tolerances are ~1e-7
    for (size_t k = 0; k < candidates; ++k) {
        const int col = int(k) + 1;
        const double d = glp_get_col_dual(lp, col);
        const int stat = glp_get_col_stat(lp, col);
        if (stat == GLP_NL && z + d > cutoff + margin) glp_set_col_bnds(lp, col, GLP_FX, 0.0, 0.0);
        else if (stat == GLP_NU && z - d > cutoff + margin) glp_set_col_bnds(lp, col, GLP_FX, 1.0, 1.0);
    }
}

// Cost-level rounding cuts (Chvátal-Gomory cuts on the cut-off's row set): with integer
// weights w_k = ⌊cost_k / u⌋ for a cost level u, every set cheaper than the cut-off has
// Σ w·r ≥ ⌈v⌉, v the relaxation's least Σ w·r under the cut-off (Σ w·r is a whole number on
// sets). The relaxation spreads its recomputation over interchangeable expensive ops (a LLaMA
// point's: 1.59 of its 14 costliest, blended across the layers' twin matmuls, where every
// plan needs two; the branch-and-bound's bound then moves only once all are branched on:
// 97 CBC nodes left it at the root's). Adds each cut that the relaxation's optimum violates
// as a row (valid for every later, lower cut-off) and re-solves the relaxation from its basis;
// levels from the dearest, those above the cut-off or far below the gap skipped, each solve
// within the time given. The relaxation is left solved again (`resolve`, from its basis: its
// optimum's values are what reduced-cost fixing reads next).
struct CostLevelCuts {
    int added = 0;
    int simplexReturn = 0;  // the relaxation's re-solve (0 where it was left as it was)
};
CostLevelCuts addCostLevelCuts(glp_prob* lp, const std::vector<double>& cost, double cutoff, double seconds,
                               const glp_smcp& resolve) {
    using Clock = std::chrono::steady_clock;
    const auto deadline = Clock::now() + std::chrono::duration<double>(std::max(0.0, seconds));
    auto secondsLeft = [&] { return std::chrono::duration<double>(deadline - Clock::now()).count(); };
    if (secondsLeft() <= 0) return {};
    const size_t nc = cost.size();
    const double z = glp_get_obj_val(lp);
    if (!(cutoff > z)) return {};
    std::vector<double> x = relaxedRecomputeValues(lp, nc);
    std::vector<double> levels;
    for (size_t k = 0; k < nc; ++k)
        if (cost[k] <= cutoff && cost[k] >= 0.05 * (cutoff - z) && glp_get_col_type(lp, int(k) + 1) != GLP_FX)
            levels.push_back(cost[k]);
    std::sort(levels.rbegin(), levels.rend());
    levels.erase(std::unique(levels.begin(), levels.end()), levels.end());
    if (levels.size() > 3) levels.resize(3);
    // Each level's cut, where its sum at the optimum has a fraction to round up.
    struct Cut {
        std::vector<int> index{0};  // GLPK's 1-based arrays
        std::vector<double> weight{0.0};
        double atOptimum = 0, atLeast = 0;
    };
    std::vector<Cut> candidates, cuts;
    for (const double u : levels) {
        Cut cut;
        for (size_t k = 0; k < nc; ++k)
            if (const double w = std::floor(cost[k] / u * (1 + 1e-9)); w > 0) {
                cut.index.push_back(int(k) + 1);
                cut.weight.push_back(w);
                cut.atOptimum += w * x[k];
            }
        if (cut.atOptimum - std::floor(cut.atOptimum + 1e-6) >= 0.05) candidates.push_back(std::move(cut));
    }
    if (candidates.empty()) return {};
    // The cost-optimal basis, restored (with the cuts' rows basic) for the re-solve after.
    const std::shared_ptr<const LpBasis> optimal = basisOf(lp);
    const int columns = glp_get_num_cols(lp);
    {
        const CutoffRow underCutoff(lp, cutoff);  // basic: the optimum is below the cut-off
        for (Cut& cut : candidates) {
            if (secondsLeft() <= 0) break;
            for (int c = 1; c <= columns; ++c) glp_set_obj_coef(lp, c, 0.0);
            for (size_t i = 1; i < cut.index.size(); ++i) glp_set_obj_coef(lp, cut.index[i], cut.weight[i]);
            glp_smcp smcp;  // from a primal feasible basis (the last optimum, the cost row basic)
            glp_init_smcp(&smcp);
            smcp.msg_lev = GLP_MSG_OFF;
            smcp.tm_lim = int(std::clamp(secondsLeft(), 0.001, 1e6) * 1000);
            if (glp_simplex(lp, &smcp) != 0 || glp_get_status(lp) != GLP_OPT) continue;
            cut.atLeast = std::ceil(glp_get_obj_val(lp) - 1e-6);
            if (cut.atLeast > cut.atOptimum + 1e-6) cuts.push_back(std::move(cut));
        }
    }
    for (int c = 1; c <= columns; ++c) glp_set_obj_coef(lp, c, c <= int(nc) ? cost[size_t(c - 1)] : 0.0);
    restoreBasis(lp, optimal.get());
    for (const Cut& cut : cuts) {
        const int row = glp_add_rows(lp, 1);  // basic, as a new row is
        glp_set_mat_row(lp, row, int(cut.index.size()) - 1, cut.index.data(), cut.weight.data());
        glp_set_row_bnds(lp, row, GLP_LO, cut.atLeast, 0.0);
    }
    glp_smcp smcp = resolve;
    smcp.tm_lim = int(std::clamp(secondsLeft(), 1.0, 1e6) * 1000);  // from an optimal basis: at most a few pivots
    return {int(cuts.size()), glp_simplex(lp, &smcp)};
}

}  // namespace

BudgetPlanner::MilpOutcome BudgetPlanner::solveMilp(int64_t budget, double incumbentCost, double seconds, bool lpOnly,
                                                    const ExactOptions& limits, size_t maxRejected, const LpBasis* warm,
                                                    const RecomputeSet* incumbent, std::span<const RecomputeSet> starts) {
    using Clock = std::chrono::steady_clock;
    const auto deadline = Clock::now() + std::chrono::duration<double>(std::max(0.0, seconds));
    const MilpModel& m = milpModel(limits.impliedRows);
    const size_t nc = m.candidates;
    MilpOutcome out;

    const double limit = m.peakLimit(budget);
    if (m.nothingFits(limit)) {
        out.proven = true;
        out.lower = std::numeric_limits<double>::infinity();
        return out;
    }
    std::vector<PeakLimit> peakLimits;
    GlpProblem owned = relaxationProblem(m, peakLimits);
    glp_prob* lp = owned.get();
    setPeakLimits(lp, m, peakLimits, limit);

    glp_smcp smcp = relaxationSimplex(lp, limits);
    auto secondsLeft = [&] { return std::chrono::duration<double>(deadline - Clock::now()).count(); };
    // The LP relaxation's bound first (cheap, and the fallback when the MILP runs out of time),
    // within a number of iterations (so the same at any load); the clock a safety net.
    smcp.tm_lim = int(std::clamp(secondsLeft(), 0.001, 1e6) * 1000);
    // From the relaxation's optimal basis at this budget where the caller has one: a
    // 331-candidate LSTM point's LP took 8.8 s of its share from the all-slack basis.
    // Without one, Clp's dual simplex first (as lpRelaxations), whose optimum's basis GLPK's
    // solve then confirms with no pivot: 1-layer GRU at 231680 B, GLPK alone past 5 s (4278
    // pivots, cut short), Clp 2.6 s; 4-layer transformer at 854404 B 0.47 s, 0.11 s.
    if (!restoreBasis(lp, warm)) {
        setNothingRecomputedBasis(lp, m);
        if (ClpRelaxation clp(lp); clp.usable()) clp.solve(lp, smcp.it_lim, std::max(0.001, secondsLeft()));
    }
    ++out.solves;
    const int lpRet = glp_simplex(lp, &smcp);
    out.timedOut = lpRet == GLP_ETMLIM;
    if (lpRet == GLP_ENOPFS || (lpRet == 0 && glp_get_status(lp) == GLP_NOFEAS)) {
        out.proven = true;  // not even the relaxation fits
        out.lower = std::numeric_limits<double>::infinity();
        return out;
    }
    if (lpRet == 0 && glp_get_status(lp) == GLP_OPT) out.lower = roundUpToCostGranule(std::max(0.0, glp_get_obj_val(lp) * m.costScale));
    if (lpOnly) return out;
    // The relaxation alone may prove the incumbent: nothing cheaper by a granule (or at all).
    if (std::isfinite(incumbentCost) && (incumbentCost <= 0 || provesIncumbent(out.lower, incumbentCost))) {
        out.proven = true;
        out.lower = incumbentCost;
        return out;
    }
    // A primal heuristic on the relaxation's optimum (GLPK's own find no plan on these
    // models): its roundings at a few thresholds, then the local search at this budget. A
    // cheaper fitting set becomes the incumbent: the cut-off below is tighter, and it is the
    // answer unless the MILP finds a cheaper one.
    std::optional<RecomputeSet> rounded;
    const bool relaxationOptimal = lpRet == 0 && glp_get_status(lp) == GLP_OPT;
    const std::vector<double> relaxed = relaxationOptimal ? relaxedRecomputeValues(lp, nc) : std::vector<double>{};
    // (Not below the frontier, where no plan is known: the local search there would spend its
    // whole work cap failing to reach the budget.)
    if (limits.roundRelaxation && std::isfinite(incumbentCost) && relaxationOptimal) {
        rounded = roundedRelaxation(relaxed, budget, incumbentCost, starts);
        if (rounded) {
            std::lock_guard memo(*memoMutex_);
            incumbentCost = evaluate(*rounded).cost;
        }
    }
    auto finish = [&]() -> MilpOutcome {
        if (!out.found && rounded) out.found = std::move(rounded);
        return out;
    };
    if (rounded && provesIncumbent(out.lower, incumbentCost)) {  // the relaxation proves the rounded set
        out.proven = true;
        out.lower = incumbentCost;
        return finish();
    }
    // Cut-off: only sets cheaper than the incumbent (a relative margin for rounding); with
    // integral costs, cheaper by a whole granule of cost (half a one's margin). Lowered when a
    // search finds a cheaper fitting set.
    const double granule = costGranule();
    double cutoff = std::numeric_limits<double>::infinity();
    auto setCutoff = [&](double incumbent) {
        cutoff = granule > 0 ? (incumbent - 0.5 * granule) / m.costScale : incumbent / m.costScale * (1 - 1e-9) - 1e-12;
    };
    // A search below the cut-off within `seconds`. With whole-number costs, proven once no set
    // is cheaper by a whole granule: closing the last fraction of one can take most of a
    // point's time (a 285-candidate point: found in 2 s, closed in 45 s).
    // The cheapest fitting set known so far (null: none), the one the cut-off excludes.
    auto knownPlan = [&]() -> const RecomputeSet* { return out.found ? &*out.found : rounded ? &*rounded : incumbent; };
    auto searchWithin = [&](double seconds) {
        SearchLimits search;
        search.seconds = seconds;
        search.cutoff = cutoff;
        search.absoluteGap = granule > 0 ? 0.999 * granule / m.costScale : 0.0;
        search.threads = std::max(1u, limits.searchThreads);
        // The incumbent, for CBC to start from (SearchLimits::start).
        const RecomputeSet* known = knownPlan();
        if (known && known->size() == nc && std::isfinite(cutoff))
            for (size_t k = 0; k < nc; ++k) search.start.emplace_back(int(k), (*known)[k] ? 1.0 : 0.0);
        return search;
    };
    // A cheaper fitting set a search found: the incumbent from here on.
    auto adopt = [&](RecomputeSet better) {
        std::lock_guard memo(*memoMutex_);
        incumbentCost = evaluate(better).cost;
        rounded = std::move(better);
        setCutoff(incumbentCost);
    };
    if (std::isfinite(incumbentCost)) {
        if (std::none_of(m.cost.begin(), m.cost.end(), [](double c) { return c > 0; })) {
            out.proven = true;  // nothing costs anything: nothing is cheaper
            out.lower = incumbentCost;
            return finish();
        }
        setCutoff(incumbentCost);
        // On the relaxation's optimum as solved from its basis (and again after the cuts below:
        // the re-solve after their searches may land on a degenerate optimum that fixes fewer).
        if (relaxationOptimal) fixByReducedCost(lp, nc, cutoff);
    }
    // The dear ops' relaxation: the MILP with only the candidates costing a good part of the
    // gap integral (every other r continuous), searched by branch-and-bound. At an LSTM's low
    // points the relaxation covers the peak with a fifth of a time step's recomputation (its
    // two matmuls at 0.21 each) where the plans recompute whole steps; branching on every
    // candidate leaves the bound at the root's (~3,500 dual pivots a node), but on the 17
    // matmuls alone CBC proves the relaxation's optimum in 30 nodes (85 s): 1-layer LSTM at
    // 292.25 KiB, 42.1 -> 145.5 KFLOP under a 146.82 KFLOP plan. First of all, where the gap
    // is wide and the time left is enough for it (ExactOptions::dearOpsMinSeconds).
    // The least a candidate costs to be dear against the gap (its scaled cost): what the dear
    // ops' relaxation keeps integral and what sends a point to GLPK's search.
    auto leastDearCost = [&] { return limits.dearOpShareOfGap * (incumbentCost - out.lower) / m.costScale; };
    // A bound (scaled cost) every cheaper plan meets: the point's lower bound raised to it
    // (rounded up to a granule, at most the incumbent's cost); true where that proves the
    // incumbent.
    auto raiseLower = [&](double scaledLower) -> bool {
        out.lower = std::max(out.lower, std::min(roundUpToCostGranule(scaledLower * m.costScale), incumbentCost));
        if (!provesIncumbent(out.lower, incumbentCost)) return false;
        out.proven = true;
        out.lower = incumbentCost;
        return true;
    };
    auto provenByDearOps = [&]() -> bool {
        if (limits.dearOpsShare <= 0 || !std::isfinite(cutoff) || secondsLeft() < limits.dearOpsMinSeconds) return false;
        if (!(incumbentCost - out.lower > limits.neighbourhoodGap * incumbentCost)) return false;
        const double least = leastDearCost();
        std::vector<size_t> open, dear;
        for (size_t k = 0; k < nc; ++k)
            if (glp_get_col_type(lp, int(k) + 1) != GLP_FX) open.push_back(k);
        for (size_t k : open)
            if (m.cost[k] >= least) dear.push_back(k);
        std::stable_sort(dear.begin(), dear.end(), [&](size_t a, size_t b) { return m.cost[a] > m.cost[b]; });
        if (dear.size() > limits.dearOpsMax) dear.resize(limits.dearOpsMax);  // fewer integral: still a relaxation
        if (dear.empty() || dear.size() == open.size()) return false;  // nothing dear, or the MILP itself
        std::vector<uint8_t> isDear(nc, 0);
        for (size_t k : dear) isDear[k] = 1;
        std::vector<int> relaxedColumns;
        for (size_t k : open)
            if (!isDear[k]) {
                relaxedColumns.push_back(int(k) + 1);
                glp_set_col_kind(lp, int(k) + 1, GLP_CV);  // keeps its bounds
            }
        const SearchLimits search = searchWithin(limits.dearOpsShare * secondsLeft());
        ++out.solves;
        const MilpSearch s = cbcAvailable() ? searchWithCbc(lp, search) : searchWithGlpk(lp, search);
        for (int column : relaxedColumns) glp_set_col_kind(lp, column, GLP_IV);  // binary again: its bounds are 0-1
        if (s.status == MilpSearch::Status::NoneBelowCutoff) {  // no set cheaper than the incumbent fits
            out.proven = true;
            out.lower = incumbentCost;
            return true;
        }
        // Its best solution, whole in the dear ops, rounded and improved by the local search:
        // the plan it outlines (1-layer LSTM at 290.25 KiB: the matmuls of steps 1 and 2,
        // 282 KFLOP, where the local search from the λ cuts' plans gives 413.95).
        if (s.columns.size() >= nc) {
            const std::vector<double> dearRelaxed(s.columns.begin(), s.columns.begin() + std::ptrdiff_t(nc));
            if (std::optional<RecomputeSet> better = roundedRelaxation(dearRelaxed, budget, incumbentCost, starts))
                adopt(std::move(*better));
        }
        return raiseLower(s.status != MilpSearch::Status::Failed && std::isfinite(s.bound) ? s.bound : 0.0);
    };
    // A set the model admits whose real peak misses the budget (or whose replay differs from
    // its rewrite): cut it, and its normalised form, off for every later search.
    auto cutOffSet = [&](const RecomputeSet& raw, const RecomputeSet& set) {
        for (const RecomputeSet* cut : std::initializer_list<const RecomputeSet*>{&raw, &set}) {
            if (cut == &set && set == raw) continue;
            Entries entries;
            double ones = 0;
            for (uint32_t k = 0; k < nc; ++k) {
                entries.push_back({k, (*cut)[k] ? -1.0 : 1.0});
                ones += (*cut)[k];
            }
            addRow(lp, entries, GLP_LO, 1.0 - ones, 0.0);
        }
    };
    // A search's answer normalised and measured: it fits below the incumbent. The replay's
    // figures are checked on the rewritten program (a guard: the MILP seeks out the sets where
    // a storage rule differs, README "Exact mode"); a set that fails is cut off.
    struct SearchAnswer {
        RecomputeSet raw, set;
        bool fitting = false;
        double cost = 0;
    };
    auto answerOf = [&](const MilpSearch& s) {
        SearchAnswer a;
        a.raw.assign(nc, 0);
        for (uint32_t k = 0; k < nc; ++k) a.raw[k] = s.columns[k] > 0.5;
        a.set = normalise(a.raw);
        std::lock_guard memo(*memoMutex_);
        const Evaluated& e = evaluate(a.set);
        a.cost = e.cost;
        a.fitting = fits(e, budget) && e.cost < incumbentCost && replayMatchesRewrite(a.set);
        return a;
    };
    size_t rejected = 0;
    // The dear ops' subsets, one at a time: where few candidates are dear against the gap and
    // few of their subsets cost less than the cut-off, each such subset D is fixed
    // (r_d = [d ∈ D] for every dear d), the others left free, and refuted (its relaxation
    // below the cut-off infeasible, or GLPK's search finds nothing below it) or searched to
    // its optimum, a cheaper incumbent; least relaxation bound first. Every set lies in one
    // subset, so all refuted proves the incumbent; cut short, the least bound of an open subset
    // (its relaxation's, or its search's) bounds every plan. Where too many cost less than the
    // cut-off or stay open, the levels of few dear ops that fit are refuted and what they prove
    // kept as a row: every cheaper plan recomputes at least that many dear ops.
    // The relaxation blends fractions of an RNN's time steps' matmuls; fixed, the relaxation
    // and GLPK's preprocessor see through them: `generate gru --layers 1 --seq 4` at 220928 B (8 matmuls
    // and one dearer op; a 2-matmul plan), the 38 subsets below the plan's cost refuted in ~1 s
    // each (CBC's CLI on the MPS: the 9 of at most one dear op infeasible at the relaxation,
    // the pairs in 0-2 nodes), where the whole MILP's search leaves 3.7% after 120 s.
    auto provenByDearSubsets = [&]() -> bool {
        if (limits.dearSubsetsMax == 0 || !std::isfinite(cutoff) || secondsLeft() <= 0) return false;
        // Only where the relaxation leaves a wide gap: a 2-layer LLaMA's points (gaps of a few
        // percent, closed by the whole MILP's search) lost 2 of 17 proofs to the subsets' time.
        if (!(incumbentCost - out.lower > limits.neighbourhoodGap * incumbentCost)) return false;
        const double least = leastDearCost();
        std::vector<uint32_t> dear;
        for (uint32_t k = 0; k < nc; ++k)
            if (m.cost[k] >= least && glp_get_col_type(lp, int(k) + 1) == GLP_DB) dear.push_back(k);
        if (dear.empty() || dear.size() > limits.dearOpsMax) return false;
        std::stable_sort(dear.begin(), dear.end(), [&](uint32_t a, uint32_t b) { return m.cost[a] > m.cost[b]; });
        if (dear.size() > 63) return false;
        // Dear op i fixed to bit i of `bits` (1: recomputed).
        auto fixDear = [&](uint64_t bits) {
            for (size_t i = 0; i < dear.size(); ++i) {
                const double v = (bits >> i) & 1 ? 1.0 : 0.0;
                glp_set_col_bnds(lp, int(dear[i]) + 1, GLP_FX, v, v);
            }
        };
        // The subsets below the cut-off, level by level (those of j dear ops, j = 0, 1, ...),
        // each fixed and its relaxation solved under the cut-off (Clp's dual simplex from the
        // last basis, stopped at the cut-off): infeasible refutes it. Levels while the subsets
        // so far number at most dearLevelSubsetsMax and within a part of the time; a level cut
        // short counts for nothing.
        std::vector<std::pair<double, uint64_t>> subsets;  // the open ones: (relaxation's bound, bit i: dear[i])
        size_t levelsDone = 0;
        bool everyLevel = false;
        double counted = 0;  // the dear ops the relaxation's optimum recomputes
        // The relaxation's basis, for the solves after (the cut-off's row, basic or not in the
        // last optimum, is deleted below).
        const std::shared_ptr<const LpBasis> before = basisOf(lp);
        {
            ClpRelaxation clp(lp);
            std::optional<CutoffRow> row;  // GLPK's solves refute by the cut-off's row, Clp's by its objective limit
            if (!clp.usable()) row.emplace(lp, cutoff);
            glp_smcp simplex = relaxationSimplex(lp, limits);
            const auto levelsEnd = Clock::now() + std::chrono::duration<double>(limits.dearSubsetsLevelsShare * secondsLeft());
            auto levelsLeft = [&] { return std::chrono::duration<double>(levelsEnd - Clock::now()).count(); };
            // The relaxation with dear[i] fixed to bit i; nullopt: nothing below the cut-off.
            // Every Clp solve's multipliers bound all the subsets (lagrangianBound): a subset
            // one of them puts at the cut-off is refuted without a solve. The 8-step LSTM at
            // 292.25 KiB: 137 subsets, 25 solved; a 4-step GRU's frontier certified in 18 s (44).
            std::vector<FixedColumnsBound> proofs;
            const double refutes = cutoff + 1e-9 * std::max(1.0, std::abs(cutoff));
            constexpr int kOpenSubsetsRounded = 8;
            int roundings = 0;
            auto relaxationFixed = [&](uint64_t bits) -> std::optional<double> {
                fixDear(bits);
                for (const FixedColumnsBound& p : proofs)
                    if (p.at(bits) >= refutes) return std::nullopt;
                ++out.solves;
                if (clp.usable()) {
                    const ClpRelaxation::Result r = clp.solve(lp, simplex.it_lim, std::max(0.001, levelsLeft()), cutoff);
                    if (!r.rowDuals.empty())
                        if (FixedColumnsBound p = clp.lagrangianBound(lp, r.rowDuals, dear); std::isfinite(p.base)) proofs.push_back(std::move(p));
                    if (r.status == ClpRelaxation::Result::Status::Infeasible) return std::nullopt;
                    // An open subset's optimum rounded and improved by the local search (~0.05 s):
                    // a plan in another time step than the incumbent's (the 8-step LSTM at
                    // 292.25 KiB: 146.56 KFLOP in the first step's matmuls, the incumbent's
                    // 147.07 in the fourth's). The first few only: a 4-step GRU point's ~30
                    // open subsets took 1.5 s more to prove for nothing.
                    if (r.status == ClpRelaxation::Result::Status::Optimal && r.columns.size() >= nc && limits.roundRelaxation &&
                        roundings++ < kOpenSubsetsRounded) {
                        const std::vector<double> subsetRelaxed(r.columns.begin(), r.columns.begin() + std::ptrdiff_t(nc));
                        if (std::optional<RecomputeSet> better = roundedRelaxation(subsetRelaxed, budget, incumbentCost, {})) {
                            out.found = *better;
                            adopt(std::move(*better));
                        }
                    }
                    return r.status == ClpRelaxation::Result::Status::Optimal ? r.objective : 0.0;
                }
                simplex.tm_lim = int(std::clamp(levelsLeft(), 0.001, 1e6) * 1000);
                const int ret = glp_simplex(lp, &simplex);
                if (ret == 0 && glp_get_status(lp) == GLP_NOFEAS) return std::nullopt;
                return ret == 0 && glp_get_status(lp) == GLP_OPT ? glp_get_obj_val(lp) : 0.0;
            };
            // The levels by cost alone first: checked only where they can end in a search of
            // every subset, or in a count the relaxation's optimum breaks (a 2-layer LLaMA point
            // whose optimum recomputes 3.6 of 8 dear ops gains nothing from refuting levels 0-2).
            std::vector<std::vector<std::pair<double, uint64_t>>> levels;  // (cost, bits) by level
            size_t enumerated = 0;
            for (size_t j = 0; j <= dear.size(); ++j) {
                std::vector<std::pair<double, uint64_t>> level;
                bool tooMany = false;
                auto choose = [&](auto&& self, size_t i, size_t left, double cost, uint64_t bits) -> void {
                    if (tooMany) return;
                    if (left == 0) {
                        level.push_back({cost, bits});
                        tooMany = enumerated + level.size() > limits.dearLevelSubsetsMax;
                        return;
                    }
                    for (size_t d = i; d + left <= dear.size(); ++d)
                        if (cost + m.cost[dear[d]] < cutoff) self(self, d + 1, left - 1, cost + m.cost[dear[d]], bits | (uint64_t(1) << d));
                };
                choose(choose, 0, j, 0.0, 0);
                if (level.empty()) {  // nor any larger subset: the j cheapest cost the cut-off already
                    everyLevel = true;
                    break;
                }
                if (tooMany) break;
                enumerated += level.size();
                levels.push_back(std::move(level));
            }
            for (uint32_t k : dear) counted += relaxed.empty() ? 0.0 : relaxed[k];
            if (!everyLevel && double(levels.size()) <= counted + 1e-6) levels.clear();
            // Where the subsets' searches cannot follow (not every level enumerated, or more
            // open subsets than dearSubsetsMax) the count is decided at the first open subset.
            bool decided = false;
            for (size_t j = 0; j < levels.size() && levelsLeft() > 0 && !decided; ++j) {
                // A plan an open subset's rounding found lowers the cut-off: where this level's
                // cheapest subset costs it, so does every subset of this level and above (those
                // past the enumeration too). The 8-step LSTM at 299268 B: levels enumerated under
                // the heuristic's 278.14 KFLOP (1, 17, 136, 680, 1820 subsets), a 146.56 one found
                // in level 2; levels 3-4 took 700 solves and 30 s of the 60 for nothing.
                const double cheapest = std::min_element(levels[j].begin(), levels[j].end())->first;
                if (cheapest >= cutoff) {
                    everyLevel = true;
                    levelsDone = levels.size();
                    break;
                }
                bool cutShort = false;
                for (const auto& [cost, bits] : levels[j]) {
                    if (levelsLeft() <= 0) { cutShort = true; break; }
                    if (cost >= cutoff) continue;  // the dear ops alone cost the cut-off
                    if (const std::optional<double> bound = relaxationFixed(bits)) {
                        subsets.push_back({std::max(cost, *bound), bits});
                        if (!everyLevel || subsets.size() > limits.dearSubsetsMax) { decided = true; break; }
                    }
                }
                if (cutShort || decided) break;
                levelsDone = j + 1;
            }
            if (levelsDone < levels.size()) everyLevel = false;  // cut short: the count below holds
            for (uint32_t k : dear) glp_set_col_bnds(lp, int(k) + 1, GLP_DB, 0.0, 1.0);
        }
        restoreBasis(lp, before.get());
        if (!everyLevel) {
            // The levels below the first with an open subset hold no plan below the cut-off:
            // every such plan recomputes at least that many dear ops, a row for every later
            // search (and every lower cut-off); the relaxation with it is the new bound.
            size_t least = levelsDone;
            for (const auto& [bound, bits] : subsets) least = std::min(least, size_t(std::popcount(bits)));
            if (least == 0) return false;
            // Only where the relaxation's optimum breaks it: a row it already holds changes no
            // bound and slowed the searches after it.
            if (double(least) <= counted + 1e-6) return false;
            Entries count;
            for (uint32_t k : dear) count.push_back({k, 1.0});
            addRow(lp, count, GLP_LO, double(least), 0.0);
            // At once: the `least` cheapest dear ops' cost (dear is dearest first).
            double leastDear = 0;
            for (size_t i = dear.size() - least; i < dear.size(); ++i) leastDear += m.cost[dear[i]];
            if (raiseLower(leastDear)) return true;
            // Clp's dual simplex from the relaxation's basis (the new row basic), then GLPK's
            // from Clp's optimum: no pivot, and the basis reduced-cost fixing reads.
            glp_smcp again = relaxationSimplex(lp, limits);
            if (ClpRelaxation clp(lp); clp.usable()) clp.solve(lp, again.it_lim, std::max(0.001, secondsLeft()));
            again.tm_lim = int(std::clamp(secondsLeft(), 0.001, 1e6) * 1000);
            ++out.solves;
            const int ret = glp_simplex(lp, &again);
            if (ret == GLP_ENOPFS || (ret == 0 && glp_get_status(lp) == GLP_NOFEAS)) {
                out.proven = true;
                out.lower = incumbentCost;
                return true;
            }
            if (!(ret == 0 && glp_get_status(lp) == GLP_OPT)) return false;
            if (raiseLower(std::max(0.0, glp_get_obj_val(lp)))) return true;
            fixByReducedCost(lp, nc, cutoff);
            return false;
        }
        std::stable_sort(subsets.begin(), subsets.end());
        // The first pass within a part of the time; the next ones with all of it where that pass
        // closed at least three quarters of the subsets (a 4-step GRU: 36 of 38), else the other
        // searches get the rest (a 6-step LSTM's low point, where few close).
        auto phaseEnd = Clock::now() + std::chrono::duration<double>(limits.dearSubsetsShare * secondsLeft());
        auto phaseLeft = [&] { return std::chrono::duration<double>(phaseEnd - Clock::now()).count(); };
        // Passes over the open subsets until none is left or time runs out, each its fair share
        // of the time left. A subset's bound: its relaxation's, or its search's where that ran out.
        std::vector<double> lower(subsets.size());
        std::vector<uint8_t> closed(subsets.size(), 0);
        for (size_t i = 0; i < subsets.size(); ++i) lower[i] = subsets[i].first;
        for (int pass = 0; phaseLeft() > 0 && std::count(closed.begin(), closed.end(), 0) > 0; ++pass) {
            if (pass == 1) {
                const auto open = size_t(std::count(closed.begin(), closed.end(), 0));
                if (4 * open > subsets.size()) break;
                phaseEnd = deadline;
            }
            for (size_t i = 0; i < subsets.size() && phaseLeft() > 0; ++i) {
                if (closed[i] || lower[i] >= cutoff) { closed[i] = 1; continue; }
                fixDear(subsets[i].second);
                size_t open = 0;
                for (size_t j = i; j < subsets.size(); ++j) open += !closed[j] && lower[j] < cutoff;
                for (;;) {
                    SearchLimits search = searchWithin(std::min(phaseLeft(), std::max(1.0, phaseLeft() / double(open))));
                    search.start.clear();  // the incumbent lies in one subset only
                    ++out.solves;
                    const MilpSearch s = searchWithGlpk(lp, search);
                    if (s.status == MilpSearch::Status::NoneBelowCutoff) { closed[i] = 1; break; }
                    if (s.status == MilpSearch::Status::TimedOut && std::isfinite(s.bound)) lower[i] = std::max(lower[i], s.bound);
                    if (s.columns.size() < nc) break;  // out of time, or failed: open
                    SearchAnswer a = answerOf(s);
                    if (a.fitting) {
                        out.found = a.set;
                        adopt(std::move(a.set));
                        // Optimal in the subset: nothing in it is cheaper than the new incumbent.
                        closed[i] = s.status == MilpSearch::Status::Optimal;
                        break;
                    }
                    if (++rejected >= maxRejected) break;
                    cutOffSet(a.raw, a.set);  // then the same subset again
                }
            }
        }
        for (uint32_t k : dear) glp_set_col_bnds(lp, int(k) + 1, GLP_DB, 0.0, 1.0);
        // Every plan cheaper than the incumbent has its dear ops in an open subset.
        double openLeast = std::numeric_limits<double>::infinity();
        for (size_t i = 0; i < subsets.size(); ++i)
            if (!closed[i] && lower[i] < cutoff) openLeast = std::min(openLeast, lower[i]);
        if (!std::isfinite(openLeast)) {
            out.proven = true;
            out.lower = incumbentCost;
            return true;
        }
        return raiseLower(openLeast);
    };
    if (limits.branchAndBound && provenByDearSubsets()) return finish();
    if (limits.branchAndBound && provenByDearOps()) return finish();
    // The neighbourhood where the relaxation and the incumbent agree (RINS, Danna, Rothberg
    // and Le Pape 2005): every candidate whose relaxed value is the incumbent's is fixed to it
    // and the small MILP over the others searched, where the relaxation leaves a wide gap (a
    // poor incumbent, or a weak bound that the search will not close anyway). The local search
    // moves an op or two at a time from the sets the λ cuts give; at an LSTM's low points the
    // cheaper plans differ from those in whole gates of a time step (1-layer LSTM at 291.25
    // KiB: 410.75 KFLOP -> 148.61 KFLOP, then proven within 0.4%).
    const bool wideGap = std::isfinite(incumbentCost) && incumbentCost > 0 &&
                         (incumbentCost - out.lower) > limits.neighbourhoodGap * incumbentCost;
    if (limits.neighbourhoodShare > 0 && wideGap && relaxationOptimal && std::isfinite(cutoff) && secondsLeft() > 0) {
        const RecomputeSet* incumbentSet = rounded ? &*rounded : incumbent;
        if (incumbentSet) {
            const SearchLimits search = searchWithin(limits.neighbourhoodShare * secondsLeft());
            if (std::optional<RecomputeSet> better = neighbourhoodSearch(lp, relaxed, *incumbentSet, budget, incumbentCost, search)) {
                ++out.solves;
                adopt(std::move(*better));
                if (provesIncumbent(out.lower, incumbentCost)) {
                    out.proven = true;
                    out.lower = incumbentCost;
                    return finish();
                }
            }
        }
    }
    // Cost-level rounding cuts (a part of the time: the relaxation's blend of twin expensive
    // ops is what holds the branch-and-bound's bound at the root's), then the stronger
    // relaxation's bound, which may prove the incumbent by itself. Tried once, after GLPK's
    // search (before CBC's): points GLPK proves pay nothing for them (on the 2-layer LSTM,
    // cuts first cost ~2 s a point and 2-3 points proven in 60 s).
    bool cutsTried = false;
    auto provenByCuts = [&]() -> bool {
        cutsTried = true;
        if (!limits.costLevelCuts || !std::isfinite(cutoff) || secondsLeft() <= 0) return false;
        glp_smcp again = relaxationSimplex(lp, limits);  // from the kept basis: a check, ~0 pivots
        again.tm_lim = int(std::clamp(secondsLeft(), 0.001, 1e6) * 1000);
        if (glp_simplex(lp, &again) != 0 || glp_get_status(lp) != GLP_OPT) return false;
        bool added = false;
        const auto cutsDeadline = Clock::now() + std::chrono::duration<double>(limits.costLevelCutShare * secondsLeft());
        // A few rounds: each stronger relaxation's optimum may blend ops of another level.
        for (int round = 0; round < 4 && glp_get_status(lp) == GLP_OPT; ++round) {
            const double cutSeconds = std::chrono::duration<double>(cutsDeadline - Clock::now()).count();
            const CostLevelCuts cuts = addCostLevelCuts(lp, m.cost, cutoff, cutSeconds, relaxationSimplex(lp, limits));
            if (cuts.added == 0) break;
            added = true;
            ++out.solves;
            const int ret = cuts.simplexReturn;
            // The cuts hold for sets below the cut-off only: the others cost the incumbent or more.
            if (ret == GLP_ENOPFS || (ret == 0 && glp_get_status(lp) == GLP_NOFEAS)) {
                out.proven = true;
                out.lower = incumbentCost;
                return true;
            }
            if (ret == 0 && glp_get_status(lp) == GLP_OPT) {
                const double withCuts = roundUpToCostGranule(std::max(0.0, glp_get_obj_val(lp) * m.costScale));
                out.lower = std::max(out.lower, std::min(withCuts, incumbentCost));
                if (provesIncumbent(out.lower, incumbentCost)) {
                    out.proven = true;
                    out.lower = incumbentCost;
                    return true;
                }
            }
        }
        if (added && glp_get_status(lp) == GLP_OPT) fixByReducedCost(lp, nc, cutoff);  // on the stronger optimum
        return false;
    };
    if (!limits.branchAndBound) {
        provenByCuts();
        return finish();
    }
    // Without an incumbent, GLPK's search for the first part of the time, CBC's for the rest:
    // they close different points (BranchAndBound.h); what the first finds tightens the
    // cut-off for the second. With one, CBC's alone, started from it (SearchLimits::start):
    // GLPK's part then closed nothing CBC did not close sooner (4-layer transformer at 842244
    // B: GLPK's 17 s, then CBC's 24 s; CBC's alone 20 s; frontiers at 60 s: the same counts
    // within run-to-run noise).
    // But where a few candidates are dear against the gap (at most dearOpsMax costing
    // dearOpShareOfGap of it: the relaxation blends fractions of them, as of an RNN's time
    // steps' matmuls, a knapsack's gap), GLPK's alone, the cuts first: its many cheap nodes
    // close more of those than CBC's few strong ones (`generate gru --layers 1 --seq 4` at 219392 B:
    // proven in 37 s, CBC's gap 0.2% at 66 s; at 219904 B: 55 s, CBC's gap 49% at 60 s; at
    // 220928 B CBC's is quicker, 20 s against 30 s). Frontiers at 60 s: that GRU 6 -> 8 of 12
    // proven, 4-layer transformer 20 of 22 either way (its last two gaps 13.7%, 5.4% -> 1.4%,
    // 0.0%), 1- and 2-layer LSTM, 8-step GRU, 2-layer LLaMA the same counts. CBC's branching
    // on the dear ones first (its "priorityIn") did not help: 422 -> 208 nodes on the first
    // GRU point's MPS, but its frontier's counts as without.
    const bool startKnown = knownPlan() && std::isfinite(cutoff);
    auto fewDearCandidates = [&] {
        if (!limits.glpkWhereFewDear || !std::isfinite(incumbentCost) || !(incumbentCost > out.lower)) return false;
        const double least = leastDearCost();
        const auto dear = size_t(std::count_if(m.cost.begin(), m.cost.end(), [&](double c) { return c >= least; }));
        return dear > 0 && dear <= limits.dearOpsMax;
    };
    // Where the point has the threads for both, both at once (ExactOptions::bothEngines): the
    // search phase is then CBC's, the cuts first as for it.
    const bool bothAtOnce = limits.bothEngines && startKnown && limits.searchThreads >= 2 && cbcAvailable();
    const double glpkShare = bothAtOnce                                            ? 0.0
                             : !cbcAvailable() || (startKnown && fewDearCandidates()) ? 1.0
                             : startKnown                                          ? 0.0
                                                                                   : limits.glpkShare;
    auto glpkDeadline = Clock::now() + std::chrono::duration<double>(std::max(0.0, secondsLeft()) * glpkShare);
    bool cbcPhase = glpkShare <= 0;
    bool glpkSearched = bothAtOnce;
    if (glpkShare >= 1 && provenByCuts()) return finish();  // GLPK's search alone: the cuts first
    // The search ends where the last engine does.
    auto nextPhase = [&] {
        if (cbcPhase) return false;
        cbcPhase = true;
        return true;
    };
    // CBC's search failed (its process died, or it refused the model) before GLPK's searched:
    // GLPK's for the time left.
    auto fallBackToGlpk = [&](const MilpSearch& s) {
        if (!cbcPhase || glpkSearched || s.status != MilpSearch::Status::Failed) return false;
        cbcPhase = false;
        glpkDeadline = deadline;
        return true;
    };
    while (secondsLeft() > 0) {
        const double glpkLeft = std::chrono::duration<double>(glpkDeadline - Clock::now()).count();
        if (glpkLeft <= 0) cbcPhase = true;
        if (cbcPhase && !cutsTried && provenByCuts()) return finish();
        const SearchLimits search = searchWithin(cbcPhase ? secondsLeft() : glpkLeft);
        ++out.solves;
        glpkSearched = glpkSearched || !cbcPhase;
        const MilpSearch s = bothAtOnce ? searchWithEither(lp, search)
                             : cbcPhase ? searchWithCbc(lp, search)
                                        : searchWithGlpk(lp, search);
        if (s.status == MilpSearch::Status::NoneBelowCutoff) {
            out.proven = true;  // no set cheaper than the incumbent fits
            out.lower = std::isfinite(incumbentCost) ? incumbentCost : std::numeric_limits<double>::infinity();
            return finish();
        }
        const bool optimal = s.status == MilpSearch::Status::Optimal;
        if (s.status != MilpSearch::Status::Failed && std::isfinite(s.bound))
            out.lower = std::max(out.lower, roundUpToCostGranule(s.bound * m.costScale));
        if (s.columns.empty()) {  // a failure, or out of time with nothing found
            if (nextPhase() || fallBackToGlpk(s)) continue;
            return finish();
        }
        SearchAnswer a = answerOf(s);
        const double cost = a.cost;
        if (a.fitting) {
            // Optimal: a subset of the MILP's optimum, no dearer than the bound. Out of time: the
            // best set the search had, cheaper than the incumbent, proven when the bound
            // reaches it (to a granule); else the next engine searches below it.
            out.found = std::move(a.set);
            if (optimal || provesIncumbent(out.lower, cost)) {
                out.proven = true;
                out.lower = cost;
                return finish();
            }
            out.lower = std::min(out.lower, cost);
            incumbentCost = cost;
            setCutoff(cost);
            if (nextPhase()) continue;
            return finish();
        }
        if (++rejected >= maxRejected) return finish();
        cutOffSet(a.raw, a.set);  // its real peak misses the budget
        if (!optimal && !nextPhase()) return finish();  // out of time
    }
    return finish();
}

std::string BudgetPlanner::milpAsMps(int64_t budgetBytes, bool withImpliedRows) {
    const MilpModel& m = milpModel(withImpliedRows);
    std::vector<PeakLimit> peakLimits;
    GlpProblem owned = relaxationProblem(m, peakLimits);
    glp_prob* lp = owned.get();
    setPeakLimits(lp, m, peakLimits, m.peakLimit(budgetBytes));
    glp_set_prob_name(lp, "recompute");
    glp_set_obj_name(lp, "cost");
    for (uint32_t k = 0; k < m.candidates; ++k)
        glp_set_col_name(lp, int(k) + 1, ("r" + std::to_string(candidates_[k])).c_str());
    // GLPK writes to a file name only: a private temporary file, read back and removed.
    std::string path = (std::filesystem::temp_directory_path() / "rx-milp-XXXXXX").string();
    const int fd = ::mkstemp(path.data());
    if (fd < 0) throw Error("cannot create a temporary file for the MILP: " + std::string(std::strerror(errno)));
    ::close(fd);
    const struct RemoveFile {
        const std::string& path;
        ~RemoveFile() { ::unlink(path.c_str()); }
    } remove{path};
    const int terminal = glp_term_out(GLP_OFF);  // GLPK reports the write on stdout
    const int written = glp_write_mps(lp, GLP_MPS_DECK, nullptr, path.c_str());
    glp_term_out(terminal);
    if (written != 0) throw Error("GLPK could not write the MILP as MPS");
    return readFile(path);
}

double BudgetPlanner::milpCostScale() { return milpModel().costScale; }

bool BudgetPlanner::relaxationGuides() {
    if (!relaxationGuides_) {
        relaxationGuides_ = false;
        if (!candidates_.empty() && candidates_.size() <= options_.relaxationGuidedUpTo) {
            const MilpModel& m = milpModel();
            size_t cloneRows = 0;
            for (const Entries& row : m.cloneRows) cloneRows += !row.empty();
            relaxationGuides_ = m.columns + m.rows.size() + cloneRows <= options_.relaxationGuideMaxSize;
        }
    }
    return *relaxationGuides_;
}

std::vector<BudgetPlanner::RecomputeSet> BudgetPlanner::relaxationRoundings(int64_t budget) {
    const MilpModel& m = milpModel();
    const double limit = m.peakLimit(budget);
    if (m.nothingFits(limit)) return {};
    glp_smcp smcp;
    glp_init_smcp(&smcp);
    smcp.msg_lev = GLP_MSG_OFF;
    smcp.meth = GLP_DUALP;  // the all-slack basis is dual feasible (costs are non-negative)
    // Limited by work alone (the answer must not depend on the load), and little of it: a
    // budget whose relaxation takes longer goes unguided.
    smcp.it_lim = int(options_.relaxationGuideIterations);
    // Every solve on a problem of its own, from a basis (null: the all-slack one): GLPK keeps
    // a solved problem's factorisation and basis order, and these degenerate relaxations end
    // on a vertex that depends on them, so a rung solved on after another could differ from
    // the same rung solved from its stored basis. Null where it does not reach an optimum.
    auto solveFrom = [&](const LpBasis* from, double rowLimit) -> GlpProblem {
        std::vector<PeakLimit> peakLimits;
        GlpProblem owned = relaxationProblem(m, peakLimits);
        glp_prob* lp = owned.get();
        if (!from || !restoreBasis(lp, from)) glp_std_basis(lp);
        setPeakLimits(lp, m, peakLimits, rowLimit);
        const bool solved = glp_simplex(lp, &smcp) == 0 && glp_get_status(lp) == GLP_OPT;
        return solved ? std::move(owned) : GlpProblem{};
    };
    // The ladder: rung r at mid + r·step, from the floor's rung (-8) less another half range
    // (-16) up to the original activation peak (+8).
    constexpr int kRungsAbove = 8, kRungsBelow = 16;
    const int64_t top = originalActivationPeak();
    const int64_t mid = (guideReferenceFloor_ + top) / 2;
    const int64_t step = std::max<int64_t>(1, (top - guideReferenceFloor_) / (2 * kRungsAbove));
    auto rungBudget = [&](int r) { return r == kRungsAbove ? top : mid + r * step; };
    const double offset = std::round(double(budget - mid) / double(step));
    const int target = int(std::clamp(offset, double(-kRungsBelow), double(kRungsAbove)));
    if (!guideRungs_.count(0)) {
        const double limit0 = m.peakLimit(rungBudget(0));
        GlpProblem solved = m.nothingFits(limit0) ? GlpProblem{} : solveFrom(nullptr, limit0);
        guideRungs_[0] = solved ? basisOf(solved.get()) : std::make_shared<LpBasis>();
    }
    // From the nearest rung built on the way from 0 to the target, the rest of the way.
    int r = 0;
    for (int k = target; k != 0; k -= (k > 0 ? 1 : -1))
        if (guideRungs_.count(k)) {
            r = k;
            break;
        }
    while (r != target) {
        const std::shared_ptr<const LpBasis> from = guideRungs_.at(r);
        r += target > r ? 1 : -1;
        const double rungLimit = m.peakLimit(rungBudget(r));
        GlpProblem solved = from->rowStat.empty() || m.nothingFits(rungLimit) ? GlpProblem{} : solveFrom(from.get(), rungLimit);
        guideRungs_[r] = solved ? basisOf(solved.get()) : from;
    }
    const GlpProblem solved = solveFrom(guideRungs_.at(target).get(), limit);  // empty: all-slack
    if (!solved) return {};
    return relaxationRoundingsOf(relaxedRecomputeValues(solved.get(), m.candidates));
}

double BudgetPlanner::costGranule() {
    if (costGranule_ >= 0) return costGranule_;
    // The gcd of the candidates' costs when every one is a whole number (FLOPs by the types;
    // a profile's milliseconds are not): every set's cost is then a multiple of it.
    int64_t g = 0;
    for (OpId op : candidates_) {
        const double c = costs_.cost(op);
        if (c < 0 || c > 9.0e15 || c != std::floor(c)) {
            g = 0;
            break;
        }
        g = std::gcd(g, int64_t(c));
    }
    costGranule_ = double(g);
    return costGranule_;
}

double BudgetPlanner::roundUpToCostGranule(double lower) {
    const double g = costGranule();
    if (g <= 0 || !std::isfinite(lower) || lower <= 0) return lower;
    // A relative margin: GLPK's bounds are as exact as its tolerances (1e-7).
    return std::ceil(lower / g - 1e-6 * std::max(1.0, lower / g)) * g;
}

bool BudgetPlanner::provesIncumbent(double lower, double incumbent) {
    const double g = costGranule();
    return g > 0 ? lower >= incumbent - 0.5 * g : lower >= incumbent * (1 - 1e-9);
}

bool BudgetPlanner::replayMatchesRewrite(const RecomputeSet& inR) {
    const Evaluated& e = evaluate(inR);
    const RewriteResult rw = partitionJointGraph(*analysis_, rxPlan(inR));
    if (!rw.ok()) return false;
    const MemoryProfile m = profileMemory(*rw.program, spec_.inputs, spec_.fwdOpEndIdx);
    return m.ok() && m.peakBytes == e.peak && m.peakBytes - m.residentBytes == e.activation;
}

int64_t BudgetPlanner::milpModelActivationPeak(const BudgetPlan& plan) {
    const std::optional<RecomputeSet> set = candidateSet(plan);
    return set ? milpModelActivationPeak(*set) : -1;
}

BudgetPlanner::ModelledPeaks BudgetPlanner::milpModelAndReplayedActivationPeak(const std::vector<OpId>& recomputeOps) {
    RecomputeSet inR = setOfCandidateOps(recomputeOps);
    inR = normalise(inR);
    return {milpModelActivationPeak(inR), evaluate(inR).activation, milpModelActivationPeak(inR, true),
            replayedActivationPeakAtOriginalOps(inR)};
}

std::optional<int64_t> BudgetPlanner::milpModelActivationPeakAsGiven(const std::vector<OpId>& recomputeOps) {
    RecomputeSet inR = setOfCandidateOps(recomputeOps);
    return milpModelActivationPeakIfAdmitted(inR, false);
}

int64_t BudgetPlanner::milpModelActivationPeak(const RecomputeSet& set, bool originalOpsOnly) {
    const std::optional<int64_t> peak = milpModelActivationPeakIfAdmitted(set, originalOpsOnly);
    if (!peak) throw Error("the exact mode's model has no solution for a plan's own recompute set");
    return *peak;
}

std::optional<int64_t> BudgetPlanner::milpModelActivationPeakIfAdmitted(const RecomputeSet& set, bool originalOpsOnly) {
    const MilpModel& m = milpModel();
    GlpProblem owned = modelProblem(m);
    glp_prob* lp = owned.get();
    for (uint32_t k = 0; k < m.candidates; ++k) {
        glp_set_col_kind(lp, int(k) + 1, GLP_CV);
        glp_set_col_bnds(lp, int(k) + 1, GLP_FX, set[k], set[k]);
        glp_set_obj_coef(lp, int(k) + 1, 0.0);
    }
    // Minimise P ≥ the bytes at every check point.
    const int peak = glp_add_cols(lp, 1);
    glp_set_col_bnds(lp, peak, GLP_FR, 0.0, 0.0);
    glp_set_obj_coef(lp, peak, 1.0);
    double floor = 0;
    // The check points' expressions (the original ops') first, the clones' after them.
    const size_t checks = m.checkPoints.size();
    const size_t expressions = originalOpsOnly ? checks : m.peakExpressions();
    for (size_t i = 0; i < expressions; ++i) {
        floor = std::max(floor, m.constant[i]);
        Entries e = i < checks ? Entries{{uint32_t(m.firstLoadColumn + i), 1.0}} : m.cloneRows[i - checks];
        e.push_back({uint32_t(peak - 1), -1.0});
        addRow(lp, e, GLP_UP, 0.0, -m.constant[i]);
    }
    glp_smcp smcp;
    glp_init_smcp(&smcp);
    smcp.msg_lev = GLP_MSG_OFF;
    if (glp_simplex(lp, &smcp) != 0 || glp_get_status(lp) != GLP_OPT) return std::nullopt;
    return int64_t(std::llround(std::max(floor, glp_get_obj_val(lp)) * MilpModel::kUnit));
}

std::vector<BudgetPlanner::MilpOutcome> BudgetPlanner::lpRelaxations(const std::vector<int64_t>& budgets, double seconds,
                                                                     const ExactOptions& limits, bool keepBases) {
    using Clock = std::chrono::steady_clock;
    const auto deadline = Clock::now() + std::chrono::duration<double>(std::max(0.0, seconds));
    auto secondsLeft = [&] { return std::chrono::duration<double>(deadline - Clock::now()).count(); };
    const MilpModel& m = milpModel(limits.impliedRows);
    std::vector<MilpOutcome> out(budgets.size());
    std::vector<PeakLimit> peakLimits;
    GlpProblem owned = relaxationProblem(m, peakLimits);
    glp_prob* lp = owned.get();
    glp_smcp smcp = relaxationSimplex(lp, limits);  // after the first budget, from the last optimal basis
    std::vector<size_t> order(budgets.size());
    std::iota(order.begin(), order.end(), size_t(0));
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return budgets[a] > budgets[b]; });
    setNothingRecomputedBasis(lp, m);
    // Clp's dual simplex where it loads, each budget from the last optimum as GLPK's would
    // start (the same optima; 20 frontier bounds, 2 cores: 1-layer GRU 42 s -> 11.5 s, 1-layer
    // LSTM 24 s -> 6.3 s); GLPK's otherwise, and for a budget Clp does not end.
    ClpRelaxation clp(lp);
    for (size_t bi : order) {
        MilpOutcome& o = out[bi];
        const double limit = m.peakLimit(budgets[bi]);
        if (m.nothingFits(limit)) {
            o.proven = true;
            o.lower = std::numeric_limits<double>::infinity();
            continue;
        }
        if (limits.stop && limits.stop()) {  // as the safety net: no bound
            o.timedOut = true;
            continue;
        }
        setPeakLimits(lp, m, peakLimits, limit);
        smcp.tm_lim = int(std::clamp(secondsLeft(), 0.001, 1e6) * 1000);
        ++o.solves;
        if (clp.usable()) {  // Clp first; where it does not end optimal or infeasible, GLPK from the start
            const ClpRelaxation::Result r = clp.solve(lp, smcp.it_lim, std::max(0.001, secondsLeft()));
            if (r.status == ClpRelaxation::Result::Status::Infeasible) {
                o.proven = true;
                o.lower = std::numeric_limits<double>::infinity();
                setNothingRecomputedBasis(lp, m);
                continue;
            }
            if (r.status == ClpRelaxation::Result::Status::Optimal) {
                o.lower = roundUpToCostGranule(std::max(0.0, r.objective * m.costScale));
                if (keepBases) o.basis = basisOf(lp);
                continue;
            }
            setNothingRecomputedBasis(lp, m);
        }
        int ret = glp_simplex(lp, &smcp);
        if (ret == GLP_EFAIL || ret == GLP_ESING || ret == GLP_ECOND || ret == GLP_EBADB) {
            glp_adv_basis(lp, 0);  // a fresh basis, then the primal simplex
            glp_smcp primal = smcp;
            primal.meth = GLP_PRIMAL;
            ++o.solves;
            ret = glp_simplex(lp, &primal);
        }
        o.timedOut = ret == GLP_ETMLIM;
        const int status = glp_get_status(lp);
        if (ret == 0 && status == GLP_NOFEAS) {
            o.proven = true;  // not even the relaxation fits
            o.lower = std::numeric_limits<double>::infinity();
            setNothingRecomputedBasis(lp, m);
            continue;
        }
        const bool optimal = ret == 0 && status == GLP_OPT;
        if (optimal) {
            o.lower = roundUpToCostGranule(std::max(0.0, glp_get_obj_val(lp) * m.costScale));
            if (keepBases) o.basis = basisOf(lp);
        } else {
            setNothingRecomputedBasis(lp, m);  // the next budget starts over, whatever this one left
        }
    }
    return out;
}

std::vector<double> BudgetPlanner::lpRelaxationLowerBounds(const std::vector<int64_t>& budgets, bool warmStart,
                                                          const ExactOptions& limits) {
    std::vector<MilpOutcome> outcomes;
    if (warmStart) {
        outcomes = lpRelaxations(budgets, limits.boundSafetySeconds, limits);
    } else {
        for (int64_t b : budgets)
            outcomes.push_back(solveMilp(b, std::numeric_limits<double>::infinity(), limits.boundSafetySeconds, true, limits));
    }
    std::vector<double> lower;
    for (const MilpOutcome& o : outcomes)
        lower.push_back(o.timedOut ? std::numeric_limits<double>::quiet_NaN() : o.lower);
    return lower;
}

std::optional<BudgetPlanner::RecomputeSet> BudgetPlanner::neighbourhoodSearch(glp_prob* lp, const std::vector<double>& relaxed,
                                                                            const RecomputeSet& incumbent, int64_t budget,
                                                                            double cheaperThan, const SearchLimits& search) {
    GlpProblem sub(glp_create_prob());
    glp_copy_prob(sub.get(), lp, GLP_OFF);
    size_t free = 0;
    for (size_t k = 0; k < incumbent.size(); ++k) {
        const double value = incumbent[k] ? 1.0 : 0.0;
        if (std::abs(relaxed[k] - value) < 1e-6) glp_set_col_bnds(sub.get(), int(k) + 1, GLP_FX, value, value);
        else ++free;
    }
    if (free == 0) return std::nullopt;  // the relaxation's optimum is the incumbent
    const MilpSearch s = searchWithGlpk(sub.get(), search);
    if (s.columns.empty()) return std::nullopt;
    RecomputeSet raw(incumbent.size(), 0);
    for (size_t k = 0; k < raw.size(); ++k) raw[k] = s.columns[k] > 0.5;
    RecomputeSet set = normalise(raw);
    std::lock_guard memo(*memoMutex_);
    const Evaluated& e = evaluate(set);
    if (!fits(e, budget) || !(e.cost < cheaperThan) || !replayMatchesRewrite(set)) return std::nullopt;
    return set;
}

std::optional<BudgetPlanner::RecomputeSet> BudgetPlanner::roundedRelaxation(const std::vector<double>& relaxed,
                                                                           int64_t budget, double cheaperThan,
                                                                           std::span<const RecomputeSet> starts) {
    std::lock_guard memo(*memoMutex_);
    // The roundings as they are (the local search from the lowest), and apart from them each
    // one over the budget repaired to it (the local search from the cheapest fitting): the
    // local search reaches the budget by the largest drop in peak first, and from roundings a
    // few KiB over it took a time step's matmuls where cheap ops suffice (8-step LSTM at
    // 299268 B: 278.14 KFLOP from the first subset's optimum with the implied rows, 146.56
    // from its repair).
    Pool pool, repaired;
    for (const RecomputeSet& rounded : relaxationRoundingsOf(relaxed)) {
        const Evaluated& e = evaluate(normalise(rounded));
        pool.add(e);
        if (!fits(e, budget))
            if (const Evaluated* fitting = repairedToBudget(e, relaxed, budget)) repaired.add(*fitting);
    }
    improveGreedy(budget, pool);
    std::vector<const Evaluated*> found{bestFitting(pool, budget)};
    if (!repaired.order.empty()) {
        improveGreedy(budget, repaired);
        found.push_back(bestFitting(repaired, budget));
    }
    for (const Evaluated* e : descentsFrom(starts, budget, cheaperThan)) found.push_back(e);
    std::erase(found, nullptr);
    std::sort(found.begin(), found.end(), [](const Evaluated* a, const Evaluated* b) {
        return a->cost != b->cost ? a->cost < b->cost : a->inR < b->inR;
    });
    for (const Evaluated* e : found)
        if (e->cost < cheaperThan && replayMatchesRewrite(e->inR)) return e->inR;
    return std::nullopt;
}

const BudgetPlanner::Evaluated* BudgetPlanner::repairedToBudget(const Evaluated& start, const std::vector<double>& relaxed,
                                                                int64_t budget) {
    const Evaluated* current = &start;
    auto fractional = [&](size_t k) { return relaxed[k] > 1e-6 && relaxed[k] < 1 - 1e-6; };
    bool any = false;  // every candidate flipped, not only the fractional ones
    // Roundings are a few KiB over: a few steps reach the budget (a step is a replay per
    // candidate, ~10 µs each on a 285-candidate transformer).
    constexpr size_t kStepsMax = 64;
    for (size_t step = 0; step < kStepsMax && !fits(*current, budget);) {
        const Evaluated* best = nullptr;
        double bestPerByte = std::numeric_limits<double>::infinity();
        for (size_t k = 0; k < candidates_.size() && k < relaxed.size(); ++k) {
            if (!any && !fractional(k)) continue;
            RecomputeSet flipped = current->inR;
            flipped[k] = !flipped[k];
            const Evaluated& e = evaluate(normalise(flipped));
            if (e.activation >= current->activation || e.peak > original_.peakBytes) continue;
            const double perByte = (e.cost - current->cost) / double(current->activation - e.activation);
            if (perByte < bestPerByte || (perByte == bestPerByte && e.inR < best->inR)) {
                bestPerByte = perByte;
                best = &e;
            }
        }
        if (!best) {
            if (any) return nullptr;
            any = true;
            continue;
        }
        current = best;
        ++step;
    }
    return fits(*current, budget) ? current : nullptr;
}

std::vector<const BudgetPlanner::Evaluated*> BudgetPlanner::descentsFrom(std::span<const RecomputeSet> starts,
                                                                         int64_t budget, double cheaperThan) {
    // Each start on its own (in one pool the search would begin from the lowest set alone):
    // a cheap plan found at a nearby larger budget, taken down to this one, can beat
    // everything the relaxation's roundings reach (1-layer LSTM at 290.25 KiB: 413.95 KFLOP
    // from the roundings and the heuristic, 283.01 KFLOP from the 291.25 KiB point's 148.61).
    std::vector<const Evaluated*> cheaper;
    for (const RecomputeSet& start : starts) {
        const Evaluated& e = evaluate(normalise(start));
        if (e.cost < cheaperThan && !fits(e, budget)) cheaper.push_back(&e);
    }
    std::sort(cheaper.begin(), cheaper.end(), [](const Evaluated* a, const Evaluated* b) {
        return a->activation != b->activation ? a->activation < b->activation : a->inR < b->inR;
    });
    cheaper.erase(std::unique(cheaper.begin(), cheaper.end()), cheaper.end());
    std::vector<const Evaluated*> out;
    for (size_t n = 0; n < std::min<size_t>(2, cheaper.size()); ++n) {
        Pool own;
        own.add(*cheaper[n]);
        improveGreedy(budget, own);
        if (const Evaluated* e = bestFitting(own, budget); e && e->cost < cheaperThan) out.push_back(e);
    }
    return out;
}

std::optional<BudgetPlan> BudgetPlanner::relaxationRoundedPlan(int64_t budget, const ExactOptions& limits,
                                                                std::span<const BudgetPlan> from) {
    const MilpModel& m = milpModel(limits.impliedRows);
    const double limit = m.peakLimit(budget);
    if (m.nothingFits(limit)) return std::nullopt;
    std::vector<PeakLimit> peakLimits;
    GlpProblem owned = relaxationProblem(m, peakLimits);
    glp_prob* lp = owned.get();
    setPeakLimits(lp, m, peakLimits, limit);
    glp_smcp smcp = relaxationSimplex(lp, limits);
    setNothingRecomputedBasis(lp, m);  // as solveMilp without a kept basis: Clp's dual simplex,
    if (ClpRelaxation clp(lp); clp.usable()) clp.solve(lp, smcp.it_lim, 1e6);  // GLPK's confirms its optimum
    if (glp_simplex(lp, &smcp) != 0 || glp_get_status(lp) != GLP_OPT) return std::nullopt;
    std::vector<RecomputeSet> starts;
    for (const BudgetPlan& plan : from)
        if (std::optional<RecomputeSet> set = candidateSet(plan)) starts.push_back(std::move(*set));
    const auto set = roundedRelaxation(relaxedRecomputeValues(lp, m.candidates), budget,
                                       std::numeric_limits<double>::infinity(), starts);
    if (!set) return std::nullopt;
    std::lock_guard memo(*memoMutex_);
    return makePlan(*set, "exact");
}

BudgetPlan BudgetPlanner::certify(BudgetPlan plan, int64_t budget, double seconds, bool lpOnly, const ExactOptions& limits,
                                  const LpBasis* warm, std::span<const RecomputeSet> starts) {
    const std::optional<RecomputeSet> incumbent = candidateSet(plan);
    const MilpOutcome o = solveMilp(budget, plan.recomputeCost, seconds, lpOnly, limits,
                                    std::numeric_limits<size_t>::max(), warm, incumbent ? &*incumbent : nullptr, starts);
    std::lock_guard memo(*memoMutex_);
    return withBound(std::move(plan), o, lpOnly);
}

BudgetPlan BudgetPlanner::withBound(BudgetPlan plan, const MilpOutcome& o, bool lpOnly) {
    if (lpOnly && o.timedOut) {  // the safety net, not the work limit: no bound rather than 0
        plan.bound.reset();
        return plan;
    }
    OptimalityBound bound;
    bound.method = lpOnly ? "lp" : "milp";
    bound.solves = o.solves;
    if (o.found) {
        const std::optional<int64_t> keepBudget = plan.budgetBytes;
        plan = makePlan(*o.found, plan.source);
        plan.budgetBytes = keepBudget;
    }
    bound.optimal = o.proven;
    bound.costLowerBound = bound.optimal ? plan.recomputeCost : std::min(o.lower, plan.recomputeCost);
    bound.gap = plan.recomputeCost > 0 ? (plan.recomputeCost - bound.costLowerBound) / plan.recomputeCost : 0.0;
    if (bound.gap <= 1e-9) {
        bound.gap = 0;
        bound.optimal = true;
    }
    plan.bound = bound;
    return plan;
}

BudgetPlan BudgetPlanner::certifiedPlanForBudget(int64_t budgetBytes, const ExactOptions& options) {
    // One point: its searches take every thread (both engines at once, ExactOptions::bothEngines).
    const ExactOptions exact = withSearchThreads(options, threadsOf(options));
    if (candidates_.size() <= options_.maxExactOps) {
        BudgetPlan plan = exactPlanForBudget(budgetBytes);
        plan.bound = OptimalityBound{"enumeration", plan.recomputeCost, 0.0, true, 0};
        return plan;
    }
    if (candidates_.size() > exact.lpMaxCandidates) {  // too big to model: the lazy relaxation's bound
        BudgetPlan plan = planForBudget(budgetBytes);
        const double lower = lazyLpLowerBounds({plan.activationPeakBytes}, exact.timeLimitSeconds, exact)[0];
        if (!std::isnan(lower)) plan.bound = boundFrom(plan.recomputeCost, lower);
        return plan;
    }
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
        const MilpOutcome o = solveMilp(budgetBytes, std::numeric_limits<double>::infinity(), exact.timeLimitSeconds, false, exact);
        if (!o.found)
            throw Error(heuristicError + (o.proven ? "; the exact mode proves no plan of the family fits"
                                                   : "; the exact mode found none within its time limit"));
        BudgetPlan plan = makePlan(*o.found, "exact");
        plan.budgetBytes = budgetBytes;
        plan.bound = milpBound(plan.recomputeCost, o.proven, o.lower, o.solves);
        return plan;
    }
    BudgetPlan plan = certify(std::move(*heuristic), budgetBytes, exact.timeLimitSeconds, lpOnly, exact);
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
    if (candidates_.size() > exact.lpMaxCandidates) {  // too big to model: the lazy relaxation's bounds
        boundFrontier(plans, exact);
        return plans;
    }
    // The full model's LP relaxation at every point first (one problem, warm-started, limited
    // by work): a point whose MILP the time limit starves (the last ones, after dear earlier
    // points) still has this bound, not 0.
    std::vector<MilpOutcome> relaxed;
    if (!lpOnly) {
        std::vector<int64_t> peaks;
        for (const BudgetPlan& p : plans) peaks.push_back(p.activationPeakBytes);
        relaxed = lpRelaxations(peaks, exact.boundSafetySeconds, exact, true);
    }
    // Cheapest first: each point proven the cheapest plan at its own activation peak, in even
    // shares of the time; then the time the easy points left over goes to the points still
    // open, in rounds (a point's bound only ever rises: each round bounds the cheapest plan at
    // a peak no larger than the last round's).
    // A point whose relaxation already reaches its cost (to a granule) is proven by it: no
    // second solve of the same LP (0.2-0.3 s each on the 285-candidate transformer, 13 of its
    // 23 points), and the time shares go to the points that need a search.
    std::vector<size_t> open;
    for (size_t i = 0; i < plans.size(); ++i) {
        const double cost = plans[i].recomputeCost;
        if (i < relaxed.size() && !relaxed[i].timedOut && (cost <= 0 || provesIncumbent(relaxed[i].lower, cost))) {
            plans[i].bound = milpBound(cost, true, cost, relaxed[i].solves);
            plans[i].source = "exact";
        } else {
            open.push_back(i);
        }
    }
    // The points are independent searches: `threads` of them run at once, each taking the next
    // open point with its share of the time left (as many shares as threads run in it).
    milpModel();
    costGranule();  // the lazy members the threads read, built first
    const unsigned threads = threadsOf(exact);
    // The plans the exact mode finds cheaper than the heuristic's, each a start for the local
    // search at the points certified after it (roundedRelaxation).
    std::vector<RecomputeSet> found;
    std::mutex foundMutex;
    for (int round = 0; !open.empty(); ++round) {
        std::vector<std::optional<OptimalityBound>> before(open.size());
        for (size_t n = 0; n < open.size(); ++n) before[n] = plans[open[n]].bound;
        std::vector<uint8_t> searched(open.size(), 0);
        std::atomic<size_t> next{0};
        std::exception_ptr failure;
        std::mutex failureMutex;
        auto certifyOpenPoints = [&] {
            try {
                for (size_t n; (n = next++) < open.size();) {
                    const double left = std::chrono::duration<double>(deadline - Clock::now()).count();
                    if (round > 0 && left <= 0) break;
                    const double unstarted = double(open.size() - n);
                    const double share = std::max(0.0, left) * std::min(1.0, double(threads) / unstarted);
                    const size_t i = open[n];
                    const int64_t peak = plans[i].activationPeakBytes;
                    const LpBasis* warm = i < relaxed.size() ? relaxed[i].basis.get() : nullptr;
                    std::vector<RecomputeSet> starts;
                    {
                        std::lock_guard lock(foundMutex);
                        starts = found;
                    }
                    const double before = plans[i].recomputeCost;
                    const ExactOptions options = detail::roundPointOptions(exact, threads, open.size(), n + 1 == open.size());
                    plans[i] = certify(std::move(plans[i]), peak, share, lpOnly, options, warm, starts);
                    if (plans[i].recomputeCost < before)
                        if (std::optional<RecomputeSet> set = candidateSet(plans[i])) {
                            std::lock_guard lock(foundMutex);
                            found.push_back(std::move(*set));
                        }
                    searched[n] = 1;
                }
            } catch (...) {
                next = open.size();  // the other threads stop after their point
                std::lock_guard lock(failureMutex);
                if (!failure) failure = std::current_exception();
            }
        };
        if (threads == 1 || open.size() == 1) {
            certifyOpenPoints();
        } else {
            std::vector<std::thread> pool;
            for (unsigned t = 0; t < std::min<size_t>(threads, open.size()); ++t)
                pool.emplace_back([&] {
                    certifyOpenPoints();
                    glp_free_env();  // this thread's GLPK environment (its problems are gone)
                });
            for (std::thread& t : pool) t.join();
        }
        if (failure) std::rethrow_exception(failure);
        std::vector<size_t> stillOpen;
        for (size_t n = 0; n < open.size(); ++n) {
            if (!searched[n]) continue;  // out of time before its turn: as it was
            const size_t i = open[n];
            plans[i].source = "exact";
            std::optional<OptimalityBound>& bound = plans[i].bound;
            // The relaxation (and an earlier round) bounds every plan that fits this peak, so
            // the MILP's (cheaper) plan too.
            double lower = 0;
            std::string lowerMethod;
            if (round > 0 && before[n] && !before[n]->optimal)
                std::tie(lower, lowerMethod) = std::pair{before[n]->costLowerBound, before[n]->method};
            if (i < relaxed.size() && !relaxed[i].timedOut && std::isfinite(relaxed[i].lower) && relaxed[i].lower > lower)
                std::tie(lower, lowerMethod) = std::pair{relaxed[i].lower, std::string("lp")};
            const int solves = (bound ? bound->solves : 0) + (round > 0 && before[n] ? before[n]->solves : 0);
            if (bound && !bound->optimal && lower > bound->costLowerBound) {
                bound = boundFrom(plans[i].recomputeCost, lower);
                bound->method = lowerMethod;
            }
            if (bound) bound->solves = solves;
            if (!lpOnly && bound && !bound->optimal) stillOpen.push_back(i);
        }
        if (lpOnly || stillOpen.empty() || std::chrono::duration<double>(deadline - Clock::now()).count() <= 0.05) break;
        open = std::move(stillOpen);
    }
    // The plans found cheaper, taken down to the budgets below them, largest first: two
    // neighbouring points are certified at once, so the lower one started without the plan
    // the upper one found (1-layer LSTM, 60 s: 291.25 KiB 410.75 -> 281.22 KFLOP). A point's
    // bound holds for any plan that fits its budget. Past the time limit (the rounds take it
    // all), within a tenth of it more.
    if (!found.empty()) {
        const auto descentDeadline = Clock::now() + std::chrono::duration<double>(0.1 * exact.timeLimitSeconds);
        std::vector<size_t> order(plans.size());
        std::iota(order.begin(), order.end(), size_t(0));
        std::sort(order.begin(), order.end(),
                  [&](size_t a, size_t b) { return plans[a].activationPeakBytes > plans[b].activationPeakBytes; });
        std::lock_guard memo(*memoMutex_);
        for (size_t i : order) {
            if (Clock::now() > descentDeadline) break;
            BudgetPlan& plan = plans[i];
            if (!plan.bound || plan.bound->optimal) continue;
            const int64_t budget = plan.activationPeakBytes;
            const Evaluated* best = nullptr;
            for (const Evaluated* e : descentsFrom(found, budget, plan.recomputeCost))
                if ((!best || e->cost < best->cost) && replayMatchesRewrite(e->inR)) best = e;
            if (!best) continue;
            const OptimalityBound kept = *plan.bound;
            const std::optional<int64_t> keepBudget = plan.budgetBytes;
            plan = makePlan(best->inR, "exact");
            plan.budgetBytes = keepBudget;
            plan.bound = boundFrom(plan.recomputeCost, kept.costLowerBound);
            plan.bound->method = kept.method;
            plan.bound->solves = kept.solves;
            plan.bound->lowestPeak = kept.lowestPeak;
            found.push_back(best->inR);
        }
    }
    // Below the lowest point: any plan of the family with a smaller peak (the heuristic can
    // stop short of the floor), each the cheapest at its peak, until none is proven to exist.
    // One search at a time: CBC's takes every thread.
    const ExactOptions alone = withSearchThreads(exact, threads);
    if (!lpOnly && !plans.empty()) {
        for (;;) {
            const BudgetPlan* lowest = &plans.front();
            for (const BudgetPlan& p : plans)
                if (p.activationPeakBytes < lowest->activationPeakBytes) lowest = &p;
            const double left = std::chrono::duration<double>(deadline - Clock::now()).count();
            if (left <= 0) break;
            // GLPK's tolerances are relative (1e-7): a set a few bytes over the budget can pass
            // its rows, so the proof is for peaks a millionth below the lowest point.
            const int64_t below = lowest->activationPeakBytes - std::max<int64_t>(1, lowest->activationPeakBytes / 1000000);
            const MilpOutcome o =
                solveMilp(below, std::numeric_limits<double>::infinity(), left, false, alone, exact.floorRejectedSets);
            if (o.proven && !o.found) {
                for (BudgetPlan& p : plans)
                    if (p.activationPeakBytes == lowest->activationPeakBytes && p.bound) p.bound->lowestPeak = true;
                break;
            }
            if (!o.found) break;
            BudgetPlan plan = makePlan(*o.found, "exact");
            plan.budgetBytes = below;
            plan.bound = milpBound(plan.recomputeCost, o.proven, o.lower, o.solves);
            plans.push_back(std::move(plan));
        }
    }
    // Bounds at larger peaks bound the smaller (8-step LSTM with the implied rows, 291.25 KiB:
    // 119.55 -> 145.66 KFLOP from the point above).
    detail::raiseBoundsFromLargerPeaks(plans, [](size_t) { return true; },
                                       [&](double lower, double cost) { return provesIncumbent(lower, cost); });
    // A point the MILP made cheaper may dominate its neighbours.
    return detail::paretoFront(std::move(plans));
}

size_t BudgetPlanner::boundFrontier(std::vector<BudgetPlan>& plans, const ExactOptions& exact) {
    // Work limits (ExactOptions) end every LP here; the wall clock is only a safety net, and a
    // point it cuts short gets no bound (counted, for the caller to say so) rather than a
    // smaller one: the bounds are the same at any load and any exact.timeLimitSeconds.
    using Clock = std::chrono::steady_clock;
    const auto deadline = Clock::now() + std::chrono::duration<double>(exact.boundSafetySeconds);
    std::vector<uint8_t> cutShort(plans.size(), 0);
    const bool enumerated = candidates_.size() <= std::min(options_.exactBelow, options_.maxExactOps);
    const bool fullModel = candidates_.size() <= exact.lpMaxCandidates;
    // The relaxation with one row per original op, generated lazily (LazyLpBound.cpp), on every
    // point first: cheap, all there is past lpMaxCandidates (the full model grows with
    // candidates × live ranges), and below it a floor for the points the full LP misses.
    // The points still without a bound (both relaxations are solved for them alone).
    std::vector<int64_t> budgets;
    std::vector<size_t> which;
    for (size_t i = 0; i < plans.size(); ++i)
        if (!plans[i].bound) {
            budgets.push_back(plans[i].activationPeakBytes);
            which.push_back(i);
        }
    std::vector<double> lazy(plans.size(), std::numeric_limits<double>::quiet_NaN());
    if (!enumerated) {
        const std::vector<double> lower = lazyLpLowerBounds(budgets, exact.boundSafetySeconds, exact);
        for (size_t w = 0; w < which.size(); ++w) {
            lazy[which[w]] = lower[w];
            cutShort[which[w]] = std::isnan(lower[w]);  // only the safety net leaves NaN
        }
    }
    // The full model's relaxation at every point at once (one problem, warm-started).
    std::vector<MilpOutcome> relaxed(plans.size());
    if (!enumerated && fullModel) {
        const double left = std::chrono::duration<double>(deadline - Clock::now()).count();
        std::vector<MilpOutcome> outcomes = lpRelaxations(budgets, std::max(0.0, left), exact);
        for (size_t w = 0; w < which.size(); ++w) relaxed[which[w]] = std::move(outcomes[w]);
    }
    for (size_t i = 0; i < plans.size(); ++i) {
        BudgetPlan& plan = plans[i];
        if (plan.bound) continue;
        if (enumerated) {
            // planForBudget enumerated: the frontier point is the optimum at its peak.
            plan.bound = OptimalityBound{"enumeration", plan.recomputeCost, 0.0, true, 0};
            continue;
        }
        if (fullModel) {
            plan.bound = withBound(plan, relaxed[i], /*lpOnly=*/true).bound;
            cutShort[i] |= !plan.bound;
        }
        if (cutShort[i]) {  // a partial bound would differ from run to run: none
            plan.bound.reset();
            continue;
        }
        if (!std::isnan(lazy[i]) && (!plan.bound || lazy[i] > plan.bound->costLowerBound))
            plan.bound = boundFrom(plan.recomputeCost, lazy[i]);
    }
    // Bounds at larger peaks bound the smaller: for the points with the relaxation's bound or
    // none (not those the safety net cut short).
    detail::raiseBoundsFromLargerPeaks(
        plans, [&](size_t i) { return !cutShort[i] && (!plans[i].bound || plans[i].bound->method == "lp"); },
        [](double, double) { return false; });
    return size_t(std::count(cutShort.begin(), cutShort.end(), uint8_t(1)));
}

}  // namespace rx::planner


