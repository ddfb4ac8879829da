#pragma once
// The primal simplex on an LP of far more columns than rows, its columns priced in.
#include <glpk.h>

#include <cstddef>

namespace rx::planner {

struct PricingStats {
    int columns = 0;      // the LP's
    int startedWith = 0;  // free in the first solve (the rest fixed at 0)
    int pricedIn = 0;     // let in later (a negative reduced cost, or relief an infeasible LP lacked)
    int solves = 0;       // simplex calls, the last on the whole LP included
    int lastIterations = 0;  // the last call's (0 where the priced LP's optimum was the whole one's)
};

// Solves `lp` (a minimisation whose every column admits 0; rows of any type) as
// glp_simplex(lp, &parm) would, through smaller LPs first: where it has more than 2·keep
// columns (keep 0: max(256, 8 per row)), all but the `keep` that relieve some ≤ row the most
// per unit of cost (and those that relieve one at no cost) are fixed at 0; while that LP is
// infeasible the next `keep` by relief come in; each time it is optimal, every column left out
// with a negative reduced cost d_j = c_j − Σ a_ij·π_i comes in and the simplex goes on from
// its basis, until none does; then every column gets its bounds back and GLPK solves the whole
// LP from there, so the status and optimum are its own on the full LP. parm.it_lim and
// parm.tm_lim cover all the calls together. Returns glp_simplex's code.
int solvePricingColumnsIn(glp_prob* lp, glp_smcp parm, size_t keep = 0, PricingStats* stats = nullptr);

}  // namespace rx::planner
