// The primal simplex on an LP of far more columns than rows, its columns priced in.
#include "algorithms/planner/PricedSimplex.h"

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdint>
#include <utility>
#include <vector>

namespace rx::planner {

int solvePricingColumnsIn(glp_prob* lp, glp_smcp parm, size_t keep, PricingStats* stats) {
    PricingStats local;
    PricingStats& st = stats ? *stats : local;
    st = {};
    const int rows = glp_get_num_rows(lp), cols = glp_get_num_cols(lp);
    st.columns = cols;
    if (keep == 0) keep = std::max<size_t>(256, 8 * size_t(rows));
    if (size_t(cols) <= 2 * keep) {
        st.startedWith = cols;
        st.solves = 1;
        const int before = glp_get_it_cnt(lp);
        const int ret = glp_simplex(lp, &parm);
        st.lastIterations = glp_get_it_cnt(lp) - before;
        return ret;
    }
    // Each column's entries, cost and bounds; how much it relieves a ≤ row per unit of cost.
    std::vector<int> offset(size_t(cols) + 2, 0), entryRow;
    std::vector<double> entryValue, cost(size_t(cols) + 1, 0.0), lower(size_t(cols) + 1), upper(size_t(cols) + 1);
    std::vector<int> type(size_t(cols) + 1);
    std::vector<int> ind(size_t(rows) + 1);
    std::vector<double> val(size_t(rows) + 1);
    std::vector<std::pair<double, int>> byRelief;
    std::vector<uint8_t> in(size_t(cols) + 1, 0);
    auto restoreBounds = [&](int j) { glp_set_col_bnds(lp, j, type[size_t(j)], lower[size_t(j)], upper[size_t(j)]); };
    auto letIn = [&](int j) {
        in[size_t(j)] = 1;
        restoreBounds(j);
    };
    for (int j = 1; j <= cols; ++j) {
        const int len = glp_get_mat_col(lp, j, ind.data(), val.data());
        double relief = 0;
        for (int e = 1; e <= len; ++e) {
            entryRow.push_back(ind[size_t(e)]);
            entryValue.push_back(val[size_t(e)]);
            const int rowType = glp_get_row_type(lp, ind[size_t(e)]);
            if (rowType == GLP_UP || rowType == GLP_DB) relief = std::max(relief, -val[size_t(e)]);
        }
        offset[size_t(j) + 1] = int(entryRow.size());
        cost[size_t(j)] = glp_get_obj_coef(lp, j);
        type[size_t(j)] = glp_get_col_type(lp, j);
        lower[size_t(j)] = glp_get_col_lb(lp, j);
        upper[size_t(j)] = glp_get_col_ub(lp, j);
        if (relief <= 0) continue;  // priced in if it matters
        if (cost[size_t(j)] <= 0) in[size_t(j)] = 1;
        else byRelief.push_back({relief / cost[size_t(j)], j});
    }
    std::sort(byRelief.begin(), byRelief.end(),
              [](const auto& a, const auto& b) { return a.first > b.first || (a.first == b.first && a.second < b.second); });
    size_t taken = std::min(keep, byRelief.size());
    for (size_t x = 0; x < taken; ++x) in[size_t(byRelief[x].second)] = 1;
    for (int j = 1; j <= cols; ++j) {
        if (in[size_t(j)]) ++st.startedWith;
        else glp_set_col_bnds(lp, j, GLP_FX, 0.0, 0.0);
    }
    const int itLimit = parm.it_lim, itStart = glp_get_it_cnt(lp), tmLimit = parm.tm_lim;
    const auto started = std::chrono::steady_clock::now();
    auto limitsLeft = [&] {  // of the iterations and the milliseconds, what the calls so far left
        parm.it_lim = itLimit == INT_MAX ? INT_MAX : std::max(1, itLimit - (glp_get_it_cnt(lp) - itStart));
        const auto spent = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started);
        parm.tm_lim = tmLimit == INT_MAX ? INT_MAX : std::max(1, tmLimit - int(spent.count()));
    };
    std::vector<double> dual(size_t(rows) + 1);
    int ret = 0;
    for (;;) {
        limitsLeft();
        ret = glp_simplex(lp, &parm);
        ++st.solves;
        if (ret == 0 && glp_get_status(lp) == GLP_NOFEAS && taken < byRelief.size()) {
            // Too little relief in: the next `keep` columns by relief per cost.
            const size_t until = std::min(byRelief.size(), taken + keep);
            for (; taken < until; ++taken) {
                const int j = byRelief[taken].second;
                if (in[size_t(j)]) continue;
                letIn(j);
                ++st.pricedIn;
            }
            continue;
        }
        if (ret != 0 || glp_get_status(lp) != GLP_OPT) break;  // infeasible with every relief: the whole LP decides
        for (int i = 1; i <= rows; ++i) dual[size_t(i)] = glp_get_row_dual(lp, i);
        int added = 0;
        for (int j = 1; j <= cols; ++j) {
            if (in[size_t(j)]) continue;
            double d = cost[size_t(j)];
            for (int e = offset[size_t(j)]; e < offset[size_t(j) + 1]; ++e)
                d -= entryValue[size_t(e)] * dual[size_t(entryRow[size_t(e)])];
            if (d < -1e-9) {
                letIn(j);
                ++added;
            }
        }
        st.pricedIn += added;
        if (!added) break;
    }
    for (int j = 1; j <= cols; ++j)
        if (!in[size_t(j)]) restoreBounds(j);
    if (ret != 0) return ret;  // a limit: as a plain solve cut short
    limitsLeft();
    ++st.solves;
    const int before = glp_get_it_cnt(lp);
    ret = glp_simplex(lp, &parm);
    st.lastIterations = glp_get_it_cnt(lp) - before;
    return ret;
}

}  // namespace rx::planner
