// The exact mode's branch-and-bound engines (GLPK's, CBC's, or both at once) and Clp's relaxation, on one GLPK-built MILP.
#pragma once

#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

struct glp_prob;

namespace rx::planner {

struct SearchLimits {
    double seconds = 60;  // wall clock
    // Only solutions costing less than this are wanted (infinity: any): the engine adds the
    // objective as a row bounded by it (both prune on it, and it proves "none cheaper").
    double cutoff = std::numeric_limits<double>::infinity();
    // The search may stop once its best solution is within this of its bound (absolute, the
    // objective's units): with whole-number costs, just under one granule of cost.
    double absoluteGap = 0;
    // CBC's threads (its tree's nodes in parallel); GLPK's search has one.
    unsigned threads = 1;
    // A known solution at or above the cut-off (the incumbent it excludes): its integer
    // columns' values, by GLPK column − 1 (empty: none). CBC's search starts from it: without
    // a solution CBC picks nodes to find one and its bound stays at the root's (a 4-layer
    // transformer point: 1.10 after 600 nodes, not closed in 150 s); with one it takes the
    // nodes by bound (1.57 after 100 nodes, closed in 87 s). Only solutions below the
    // cut-off are reported; GLPK's search does not use it.
    std::vector<std::pair<int, double>> start;
    // Set by another thread: the search ends within 20 ms, its child process killed (as one
    // past its time): GLPK's out of time with the bound and solution it had reported, CBC's
    // (which reports nothing on the way) failed. searchWithEither stops the engine that has
    // not decided.
    const std::atomic<bool>* stop = nullptr;
};

struct MilpSearch {
    enum class Status {
        Optimal,          // `columns` is optimal (to absoluteGap)
        NoneBelowCutoff,  // proven: no solution costs less than the cut-off
        TimedOut,         // `columns` the best found, if any; `bound` the search's
        Failed,           // numerical trouble, or the engine refused the model
    };
    Status status = Status::Failed;
    std::vector<double> columns;  // the best solution, by GLPK column − 1 (empty: none)
    double objective = std::numeric_limits<double>::infinity();
    // Every solution below the cut-off costs at least this (Optimal: the objective less the gap).
    double bound = -std::numeric_limits<double>::infinity();
};

// The objective as a row at most `cutoff` (none where it is infinite), for one search (either
// engine) or one relaxation: added on construction, removed on destruction (the caller's
// problem is left as it was). Read the objective before changing it.
class CutoffRow {
public:
    CutoffRow(glp_prob* lp, double cutoff);
    ~CutoffRow();
    CutoffRow(const CutoffRow&) = delete;
    CutoffRow& operator=(const CutoffRow&) = delete;

private:
    glp_prob* lp_;
    int row_;
};

// GLPK's branch-and-bound (pseudocost branching): many cheap nodes. It finds plans where
// CBC's root work takes a point's whole share (a LLaMA layer's floor point). It searches `lp`
// reduced by GLPK's preprocessor, from the root Clp's dual simplex solves within the time
// limit, in a child process that runs the thread's searches one after another (killed a
// little past a limit, it keeps the bound and the last solution it had reported, and the next
// search forks a fresh one); `lp` is left as it was.
MilpSearch searchWithGlpk(glp_prob* lp, const SearchLimits& limits);
// The process this thread's GLPK searches run in, one after another (0: none yet, or the last
// one was stopped): started at the first search, forked afresh after one killed past its time.
int glpkSearchProcessId();

// CBC's (COIN-OR): its cuts and strong branching, without its primal heuristics (the planner
// brings the incumbent as the cut-off) and its preprocessor (stopped on time it reports the
// model infeasible; a proof that ends past the limit is not taken): few, well-chosen nodes. It
// closes points GLPK's search leaves a granule of cost short (a 331-candidate LSTM point: 2
// nodes). `lp` is left as it was (the cut-off's row is added for the copy CBC gets); each
// search in a process of its own, so calls on several threads share nothing of CBC's.
// Failed at once where libCbcSolver cannot be loaded (it is opened on the first call).
MilpSearch searchWithCbc(glp_prob* lp, const SearchLimits& limits);
bool cbcAvailable();

// Both engines at once from the same cut-off and start, each in its child process: GLPK's on
// one thread, CBC's on the others (`limits.threads` − 1). The first to decide (optimal, or
// none below the cut-off) stops the other and is the answer; where neither does, the
// cheaper solution with the higher of their bounds. They close different points and which
// one will is not known beforehand: the 4-layer transformer's 842244 B point, GLPK's at
// 0.04% after 40 s, CBC's proven in 26 s; a 2-layer LLaMA's last frontier point, GLPK's
// proven in 11.7 s, CBC's in 25.6 s. GLPK's alone where fewer than two threads are given or
// CBC cannot be loaded.
MilpSearch searchWithEither(glp_prob* lp, const SearchLimits& limits);

// The bound any row multipliers y give on the objective over a problem's rows and column
// bounds (ClpRelaxation::lagrangianBound; Lagrangian duality: cᵀx = yᵀAx + (c − Aᵀy)ᵀx, each
// term at its least over the row's and the column's bounds; an entry of y whose row has no
// bound on its side is zeroed first, so every y is a proof, an optimum's or not), for `fixed`
// columns fixed to 1 or 0 in turn: the bound with fixed[i] = bit i of `bits` is base + Σ of
// perFixed over the bits set. One relaxation's multipliers so bound every other subset of
// the fixed columns at once.
struct FixedColumnsBound {
    double base = -std::numeric_limits<double>::infinity();
    std::vector<double> perFixed;  // the fixed columns' reduced costs
    double at(uint64_t bits) const {
        double bound = base;
        for (; bits; bits &= bits - 1) bound += perFixed[size_t(std::countr_zero(bits))];
        return bound;
    }
};

// Clp's dual simplex (COIN-OR, loaded with CBC) on a copy of a GLPK problem's LP relaxation,
// for a chain of solves that differ in their bounds: each from the last optimum. On the 1-layer
// GRU's 20 frontier bounds (50k rows) 3.7x GLPK's dual simplex from the same starts (11.5 s, 42 s).
class ClpRelaxation {
public:
    explicit ClpRelaxation(glp_prob* lp);  // its matrix and objective; not usable where Clp is not loaded
    ~ClpRelaxation();
    ClpRelaxation(const ClpRelaxation&) = delete;
    ClpRelaxation& operator=(const ClpRelaxation&) = delete;
    bool usable() const { return model_ != nullptr; }
    struct Result {
        enum class Status { Optimal, Infeasible, Stopped, Failed } status = Status::Failed;
        double objective = 0;  // Optimal: the relaxation's optimum
        // Optimal, or Infeasible at the objective limit: the dual simplex's row multipliers
        // (dual feasible there), for a Lagrangian bound under other bounds (lagrangianBound).
        std::vector<double> rowDuals;
        std::vector<double> columns;  // Optimal: the optimum's column values
    };
    // Solves with `lp`'s bounds as they are now (the first solve, or the one after a solve
    // that did not end optimal, from `lp`'s basis; the others from the last optimum), at most
    // `iterationLimit` dual pivots and `seconds`. Optimal: `lp`'s basis is set to the optimum's.
    // The dual simplex stops (Infeasible) once its objective passes `objectiveLimit`.
    Result solve(glp_prob* lp, int iterationLimit, double seconds,
                 double objectiveLimit = std::numeric_limits<double>::max());
    // The bound row multipliers y (a solve's rowDuals, or any) give under `lp`'s bounds, the
    // `fixed` columns' left to FixedColumnsBound::at.
    FixedColumnsBound lagrangianBound(glp_prob* lp, std::vector<double> y, const std::vector<uint32_t>& fixed) const;

private:
    struct Bounds {
        std::vector<double> rowLower, rowUpper, columnLower, columnUpper;
    };
    static Bounds boundsOfProblem(glp_prob* lp);
    bool matches(glp_prob* lp) const;
    void* model_ = nullptr;
    int rows_ = 0, columns_ = 0;
    std::vector<int> start_, index_;  // the matrix by column, as loaded
    std::vector<double> value_, cost_;
    bool warm_ = false;
};
bool clpAvailable();

}  // namespace rx::planner
