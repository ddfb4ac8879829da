// The heuristic search: the λ grid, refinement and local search around one budget, each
// answer chosen from a pool built for that call alone; the frontier as one answer per budget.
#include "algorithms/planner/BudgetPlanner.h"
#include "algorithms/planner/PlannerInternal.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <tuple>

#include "algorithms/planner/Budget.h"
#include "model/Diagnostic.h"

namespace rx::planner {


const BudgetPlanner::Evaluated& BudgetPlanner::evaluateLambda(double lambda) {
    if (auto it = lambdaPlans_.find(lambda); it != lambdaPlans_.end()) return *it->second;
    const Evaluated& e = evaluate(cutRecomputeSet(lambda, nullptr, nullptr));
    lambdaPlans_[lambda] = &e;
    return e;
}

const BudgetPlanner::Pool& BudgetPlanner::basePool() {
    if (basePool_) return *basePool_;
    startReferenceSets();  // the reference plans' cuts on a second thread while the grid runs
    Pool pool;
    pool.add(evaluate(RecomputeSet(candidates_.size(), 0)));  // no recompute
    if (!candidates_.empty()) {
        // Every second power of two; refineAround bisects between the neighbours of a budget.
        // Large programs take every fourth power: each cut costs a Preflow over the whole cone,
        // and refineAround's geometric bisection recovers the resolution around a budget.
        gridLambdas_.push_back(0.0);
        const int step = candidates_.size() > options_.coarseGridAbove ? 4 : 2;
        for (int k = -options_.gridSteps; k <= options_.gridSteps; k += step)
            gridLambdas_.push_back(lambdaScale_ * std::ldexp(1.0, k));
        for (double lambda : gridLambdas_) pool.add(evaluateLambda(lambda));
        // --recompute-random: the default mode's whole base pool too (its grid, descent and
        // relaxation-guided floor; every set of it is in this family), so the option never
        // answers worse than the default where recomputing random ops does not pay, nor
        // stops above the default's floor (the grid alone did not ensure that once the
        // relaxation guided the default's descent lower). Without random candidates the two
        // modes are one planner.
        const bool randomCandidates = std::any_of(candidates_.begin(), candidates_.end(), [&](OpId op) {
            return hasOpTrait(program_->opName(op), OpTrait::Random);
        });
        if (options_.randomRecompute != RandomRecompute::Off && randomCandidates) {
            PlannerOptions defaultMode = options_;
            defaultMode.randomRecompute = RandomRecompute::Off;
            BudgetPlanner off(program_, spec_, config_, costs_, defaultMode);
            for (const Evaluated* e : off.basePool().order) {
                RecomputeSet inR(candidates_.size(), 0);
                for (uint32_t k = 0; k < off.candidates_.size(); ++k)
                    if (e->inR[k]) inR[candidateIndex_[off.candidates_[k]]] = 1;
                pool.add(evaluate(normalise(inR)));
            }
        }
    }
    // The reference plans: the search is never above them at equal or lower cost.
    for (const BudgetPlan& r : referencePlans().plans)
        if (auto inR = candidateSet(r)) pool.add(evaluate(*inR));
    // The floor: the local search towards the lowest peak (a budget no plan meets), so that
    // the frontier's budgets start where the search can reach, not where the λ grid stops.
    if (!candidates_.empty() && candidates_.size() <= options_.thoroughSearchUpTo) improveGreedy(-1, pool);
    // Below that floor, where the LP relaxation still fits: a descent from its roundings at a
    // budget just under the lowest plan so far, again while that finds a lower one (the
    // lowest plan of a small program can need several clones at once, which no single move
    // of the descent above reaches).
    if (relaxationGuides()) {
        auto lowest = [&] { return lowestActivation(pool); };
        guideReferenceFloor_ = lowest();
        for (int round = 0; round < 4; ++round) {
            const int64_t lo = lowest();
            bool fitsLower = false;
            for (const double f : {1.0, 0.95, 0.85, 0.7}) {
                Pool guided = roundingsPool(std::min(lo - 1, int64_t(double(lo) * f)));
                if (guided.order.empty()) break;  // the relaxation fits no lower (or gave up)
                fitsLower = true;
                improveGreedy(-1, guided);
                for (const Evaluated* e : guided.order) pool.add(*e);
                if (lowest() < lo) break;
            }
            if (!fitsLower || lowest() >= lo) break;
        }
    }
    // Shared budgets: the refinement and local search of evenly spaced budgets, in a fixed
    // order, so that every later search starts from what any of them found (a plan one
    // budget's local search finds often answers its neighbours). Still a function of the
    // problem and options alone.
    searchSharedBudgets(pool, false);
    basePool_ = std::move(pool);
    return *basePool_;
}

void BudgetPlanner::searchSharedBudgets(Pool& pool, bool fans) {
    if (candidates_.empty() || candidates_.size() > options_.sharedBudgetsUpTo || options_.sharedBudgets < 2) return;
    const int64_t lo = lowestActivation(pool);
    const int64_t hi = originalActivationPeak();
    const int k = options_.sharedBudgets;
    for (int i = k - 1; i >= 0; --i) {
        const int64_t b = lo + int64_t(std::llround(double(hi - lo) * i / (k - 1)));
        refineAround(b, pool);
        improveGreedy(b, pool, fans);
    }
}

const BudgetPlanner::Pool& BudgetPlanner::fannedBasePool() {
    if (fannedBasePool_) return *fannedBasePool_;
    Pool pool = basePool();
    if (!candidates_.empty() && candidates_.size() <= options_.thoroughSearchUpTo) {
        improveGreedy(-1, pool, true);
        searchSharedBudgets(pool, true);
    }
    fannedBasePool_ = std::move(pool);
    return *fannedBasePool_;
}

int64_t BudgetPlanner::lowestActivation(const Pool& pool) const {
    int64_t lo = originalActivationPeak();
    for (const Evaluated* e : pool.order)
        if (e->peak <= original_.peakBytes) lo = std::min(lo, e->activation);
    return lo;
}

BudgetPlanner::Pool BudgetPlanner::roundingsPool(int64_t budget) {
    Pool pool;
    for (const RecomputeSet& rounded : relaxationRoundings(budget)) pool.add(evaluate(normalise(rounded)));
    return pool;
}

const BudgetPlanner::Evaluated* BudgetPlanner::bestFitting(const Pool& pool, int64_t budget) const {
    const Evaluated* best = nullptr;
    for (const Evaluated* e : pool.order) {
        if (!fits(*e, budget)) continue;
        if (!best || e->cost < best->cost || (e->cost == best->cost && e->activation < best->activation) ||
            (e->cost == best->cost && e->activation == best->activation && e->inR < best->inR))
            best = e;
    }
    return best;
}

void BudgetPlanner::refineAround(int64_t budget, Pool& pool) {
    if (candidates_.empty()) return;
    // Grid λ's ascending: small λ recomputes more. lo: largest grid λ whose plan fits.
    double lo = -1, hi = -1;
    for (double lambda : gridLambdas_) {
        if (fits(*lambdaPlans_.at(lambda), budget)) lo = lambda;
        else if (lo >= 0 && hi < 0) hi = lambda;
    }
    if (lo < 0) return;
    if (hi < 0) hi = lo * 4 + lambdaScale_;
    for (int s = 0; s < options_.refineSteps; ++s) {
        const double mid = lo > 0 ? std::sqrt(lo * hi) : hi / 16;
        const Evaluated& e = evaluateLambda(mid);
        pool.add(e);
        if (fits(e, budget)) lo = mid;
        else hi = mid;
    }
}

void BudgetPlanner::improveGreedy(int64_t budget, Pool& pool, bool fans, bool repair) {
    // Local search from the cheapest fitting plan or, when none fits, the lowest one: first
    // reach the budget, then cut cost while it still fits. Moves: single flips (recompute one
    // op more or one less) and cones (an op with its producers), with `fans` fans (an op with
    // its readers) where neither helps; where none helps, pairs of
    // flips (drop a recomputed op and flip another: a cheaper op recomputed instead of a
    // dearer one, or two dropped at once), which the min cut's proxy (saved bytes, not the
    // peak) often leaves on the table, then swaps (a recomputed op the backward reads dropped,
    // a cone cloned instead); at a local optimum, on from a cheaper fitting plan the pool
    // holds. Programs up to options.thoroughSearchUpTo candidates
    // try every move each round within a work cap; bigger ones only the costliest recomputed
    // ops, once.
    const Evaluated* start = bestFitting(pool, budget);
    if (repair) {
        // The cheapest plan missing the budget by at most 1% and cheaper than any that fits
        // (ties: the lower, then the set); none: nothing to repair. (The one nearest above
        // the budget, tried first, already held the matmuls the repair was to avoid.)
        const Evaluated* cheapestMissing = nullptr;
        for (const Evaluated* e : pool.order) {
            if (fits(*e, budget) || e->peak > original_.peakBytes || (start && e->cost >= start->cost)) continue;
            if (double(e->activation) > double(budget) * 1.01) continue;
            if (!cheapestMissing || std::tie(e->cost, e->activation, e->inR) <
                                        std::tie(cheapestMissing->cost, cheapestMissing->activation, cheapestMissing->inR))
                cheapestMissing = e;
        }
        if (!cheapestMissing) return;
        start = cheapestMissing;
    }
    if (!start) {
        for (const Evaluated* e : pool.order)
            if (e->peak <= original_.peakBytes &&
                (!start || e->activation < start->activation ||
                 (e->activation == start->activation && (e->cost < start->cost ||
                                                         (e->cost == start->cost && e->inR < start->inR)))))
                start = e;
        if (!start) return;
    }
    const size_t nc = candidates_.size();
    const bool thorough = nc <= options_.thoroughSearchUpTo;
    // The cap counts every evaluation, memoised or not, so the search is the same
    // whatever was measured before (planning stays a function of problem, budget, options).
    const size_t opsCount = std::max<size_t>(1, analysis_->globalOps().size() + nc);
    size_t evaluationsLeft = thorough ? size_t(options_.localSearchWork / double(opsCount)) : nc;
    const Evaluated* current = start;
    // Whether e improves on `than`: while the current plan fits, a cheaper plan that fits;
    // before, a lower one.
    auto improves = [&](const Evaluated& e, const Evaluated& than) {
        if (e.peak > original_.peakBytes) return false;
        if (fits(*current, budget)) return fits(e, budget) && e.cost < than.cost;
        if (repair) {
            // The cost per byte of peak lowered from the current plan (a plateau move, fewer
            // positions at the peak, as a byte's thousandth); the least wins.
            auto perByte = [&](const Evaluated& x) {
                double lowered = double(current->activation - x.activation);
                if (lowered == 0 && x.peakPositions < current->peakPositions) lowered = 1e-3;
                return lowered > 0 ? (x.cost - current->cost) / lowered : std::numeric_limits<double>::infinity();
            };
            const double ours = perByte(e);
            if (!std::isfinite(ours)) return false;
            if (&than == current) return true;
            const double theirs = perByte(than);
            return ours < theirs || (ours == theirs && e.activation < than.activation);
        }
        // Fewer positions at the peak is progress towards a lower one across a plateau (the
        // thorough search only: bigger programs keep their one cheap pass).
        if (e.activation != than.activation) return e.activation < than.activation;
        if (thorough && e.peakPositions != than.peakPositions) return e.peakPositions < than.peakPositions;
        return e.cost < than.cost;
    };
    auto measure = [&](const RecomputeSet& wanted) -> const Evaluated& {
        if (evaluationsLeft > 0) --evaluationsLeft;
        const Evaluated& e = evaluate(normalise(wanted));
        pool.add(e);
        return e;
    };
    auto flip = [&](std::initializer_list<uint32_t> ks) -> const Evaluated& {
        RecomputeSet wanted = current->inR;
        for (uint32_t k : ks) wanted[k] = !wanted[k];
        return measure(wanted);
    };
    // Calls visit(base with op k and its producers not in base up to 1, 2, 3, then any
    // steps back), each distinct set once and never k alone (the single flip), while visit
    // returns true. (One step back is an LSTM cell's c = f·c' + i·g recomputed from its
    // saved gates: without it the plans stood up to 30% above the optimum.)
    std::vector<uint32_t> depthOf(nc, kNoId), ring;
    auto forEachCone = [&](const RecomputeSet& base, uint32_t k, auto&& visit) {
        RecomputeSet wanted = base;
        std::fill(depthOf.begin(), depthOf.end(), kNoId);
        depthOf[k] = 0;
        wanted[k] = 1;
        ring.assign(1, k);
        bool unvisited = false;  // wanted grew since the last visit
        for (uint32_t depth = 1; !ring.empty(); ++depth) {
            std::vector<uint32_t> next;
            for (uint32_t f : ring)
                for (uint32_t i = operandCandidateOff_[f]; i < operandCandidateOff_[f + 1]; ++i) {
                    const uint32_t d = operandCandidates_[i];
                    if (depthOf[d] != kNoId || base[d]) continue;
                    depthOf[d] = depth;
                    wanted[d] = 1;
                    next.push_back(d);
                }
            ring = std::move(next);
            unvisited = unvisited || !ring.empty();
            if (!unvisited || (depth > 3 && !ring.empty())) continue;  // deeper: the whole cone only
            unvisited = false;
            if (!visit(wanted)) return;
        }
    };
    // By candidate: the candidates reading its results (operandCandidates_ reversed).
    std::vector<std::vector<uint32_t>> readersOf(thorough ? nc : 0);
    for (uint32_t f = 0; f < readersOf.size(); ++f)
        for (uint32_t i = operandCandidateOff_[f]; i < operandCandidateOff_[f + 1]; ++i)
            if (operandCandidates_[i] != f) readersOf[operandCandidates_[i]].push_back(f);
    // Calls visit(base with op k and its first 1, 2, ... readers not in base, by their first
    // backward use, latest first), from two readers on, while visit returns true.
    auto forEachFan = [&](const RecomputeSet& base, uint32_t k, auto&& visit) {
        std::vector<uint32_t> readers;
        for (uint32_t f : readersOf[k])
            if (!base[f]) readers.push_back(f);
        if (readers.size() < 2) return;  // the single flip, or a cone of f
        auto lastUsed = [&](uint32_t f) { return firstBackwardUse_[f] == kNoId ? 0u : firstBackwardUse_[f] + 1; };
        std::stable_sort(readers.begin(), readers.end(), [&](uint32_t x, uint32_t y) { return lastUsed(x) > lastUsed(y); });
        RecomputeSet wanted = base;
        wanted[k] = 1;
        for (size_t j = 0; j < readers.size(); ++j) {
            wanted[readers[j]] = 1;
            if (j >= 1 && !visit(wanted)) return;
        }
    };
    for (int round = 0; round < (thorough ? int(4 * nc + 64) : 1); ++round) {
        std::vector<uint32_t> order;
        for (uint32_t k = 0; k < nc; ++k)
            if (thorough || current->inR[k]) order.push_back(k);
        if (!thorough) {
            std::stable_sort(order.begin(), order.end(), [&](uint32_t x, uint32_t y) {
                return costs_.cost(candidates_[x]) > costs_.cost(candidates_[y]);
            });
            order.resize(std::min<size_t>(order.size(), 6));
        }
        const Evaluated* bestMove = nullptr;
        // While the plan fits, only dropping a recomputed op can make it cheaper by one flip
        // (adding recomputes, a cone too, only adds cost): those first, the rest of the scan
        // only where none helps. A descent of many drops otherwise spent its work cap on
        // scans that could not help (a 4-layer transformer's plan kept five ops that each
        // fitted without, 4.7% above the optimum).
        const bool dropsFirst = thorough && fits(*current, budget);
        if (dropsFirst) {
            for (uint32_t k : order) {
                if (evaluationsLeft == 0) break;
                if (!current->inR[k]) continue;
                const Evaluated& e = flip({k});
                if (improves(e, bestMove ? *bestMove : *current)) bestMove = &e;
            }
            if (bestMove) {
                current = bestMove;
                continue;
            }
        }
        for (uint32_t k : order) {
            if (thorough && evaluationsLeft == 0) break;
            if (dropsFirst && current->inR[k]) continue;  // measured above
            const Evaluated& e = flip({k});
            if (improves(e, bestMove ? *bestMove : *current)) {
                bestMove = &e;
                if (!thorough) break;
            }
        }
        if (thorough) {
            // Cone moves: recompute op k with its producers up to 1, 2, 3 or any steps back, so
            // that a chain is cloned from values already held (no single flip frees memory
            // when each link alone only trades one saved value for another).
            for (uint32_t k = 0; k < nc && evaluationsLeft > 0; ++k) {
                if (current->inR[k]) continue;
                forEachCone(current->inR, k, [&](const RecomputeSet& wanted) {
                    const Evaluated& e = measure(wanted);
                    if (improves(e, bestMove ? *bestMove : *current)) bestMove = &e;
                    return true;
                });
            }
        }
        if (!bestMove && thorough && fans) {
            // Fan moves, where no flip or cone helps: recompute op k with the ops reading its
            // results, the last read in the backward first (2, 3, ... of them), so that values
            // computed from one held value are cloned from it together. An RNN's input slices
            // (one per time step, from one transpose of the input) pay only together: a slice
            // alone clones the whole transposed input into the backward, and the steps the
            // backward reads first, cloned too, put it at the peak. (Tried with the flips
            // instead, and in every descent: the descents then took fans that lowered the peak
            // most, not the cheap flips, and some points came out dearer.)
            for (uint32_t k = 0; k < nc && evaluationsLeft > 0; ++k)
                if (!current->inR[k])
                    forEachFan(current->inR, k, [&](const RecomputeSet& wanted) {
                        const Evaluated& e = measure(wanted);
                        if (improves(e, bestMove ? *bestMove : *current)) bestMove = &e;
                        return evaluationsLeft > 0;
                    });
        }
        if (!bestMove && thorough && evaluationsLeft > 0) {
            // Pairs, first improvement: dearest recomputed op dropped first, its partner by
            // rising cost; while the plan misses the budget, any two flips.
            std::vector<uint32_t> byCost(nc);
            for (uint32_t k = 0; k < nc; ++k) byCost[k] = k;
            std::stable_sort(byCost.begin(), byCost.end(), [&](uint32_t x, uint32_t y) {
                return costs_.cost(candidates_[x]) > costs_.cost(candidates_[y]);
            });
            const bool fitting = fits(*current, budget);
            for (size_t i = 0; i < nc && !bestMove && evaluationsLeft > 0; ++i) {
                const uint32_t a = byCost[i];
                if (fitting && !current->inR[a]) continue;
                for (size_t j = nc; j-- > 0 && evaluationsLeft > 0;) {
                    const uint32_t b = byCost[j];
                    if (b == a || (!fitting && j <= i)) continue;
                    // Fitting: only pairs whose flips lower the cost before normalising.
                    if (fitting && !current->inR[b] && costs_.cost(candidates_[b]) >= costs_.cost(candidates_[a])) continue;
                    const Evaluated& e = flip({a, b});
                    if (improves(e, *current)) { bestMove = &e; break; }
                }
            }
        }
        if (!bestMove && thorough && evaluationsLeft > 0 && fits(*current, budget)) {
            // Swaps, first improvement: drop a recomputed op the backward reads (normalising
            // drops the producers only it needed) and clone a cone in its place, one that is
            // cheaper before it is measured. Parallel branches (an attention's key and value
            // projections) trade places only so: a LLaMA layer's plan stood 1.6% above the
            // optimum, 16 ops recomputed where 4 others did.
            std::vector<uint32_t> roots;
            for (uint32_t k = 0; k < nc; ++k)
                if (current->inR[k] && cloneNeeded_[k]) roots.push_back(k);
            std::stable_sort(roots.begin(), roots.end(), [&](uint32_t x, uint32_t y) {
                return costs_.cost(candidates_[x]) > costs_.cost(candidates_[y]);
            });
            for (size_t i = 0; i < roots.size() && !bestMove && evaluationsLeft > 0; ++i) {
                RecomputeSet base = current->inR;
                base[roots[i]] = 0;
                base = normalise(base);
                for (uint32_t k = 0; k < nc && !bestMove && evaluationsLeft > 0; ++k) {
                    if (base[k] || k == roots[i] || !cloneNeeded_[k]) continue;
                    forEachCone(base, k, [&](const RecomputeSet& wanted) {
                        if (recomputeCostOf(normalise(wanted)) >= current->cost) return true;
                        const Evaluated& e = measure(wanted);
                        if (improves(e, *current)) bestMove = &e;
                        return !bestMove && evaluationsLeft > 0;
                    });
                }
            }
        }
        if (!bestMove) {
            // A local optimum. The pool may hold a cheaper fitting plan than it, measured on the
            // way (while the descent still reached for the budget, it followed the lowest peak,
            // not the cheapest plan): go on from there, as no move from it was tried.
            const Evaluated* cheapest = thorough && fits(*current, budget) ? bestFitting(pool, budget) : nullptr;
            if (!cheapest || cheapest->cost >= current->cost) break;
            bestMove = cheapest;
        }
        current = bestMove;
    }
}

int64_t BudgetPlanner::minimumActivationPeak() {
    if (candidates_.size() <= std::min(options_.exactBelow, options_.maxExactOps)) {
        int64_t best = originalActivationPeak();
        for (const Evaluated* e : runExact().order)
            if (e->peak <= original_.peakBytes) best = std::min(best, e->activation);
        return best;
    }
    int64_t best = originalActivationPeak();
    for (const Evaluated* e : basePool().order)
        if (e->peak <= original_.peakBytes) best = std::min(best, e->activation);
    return best;
}

int64_t BudgetPlanner::budgetFromFraction(double fraction) {
    if (!(fraction >= 0 && fraction <= 1))
        throw Error("a budget fraction must lie in 0.0-1.0, found " + std::to_string(fraction));
    const int64_t lo = minimumActivationPeak(), hi = originalActivationPeak();
    return lo + int64_t(std::llround(fraction * double(hi - lo)));
}

const BudgetPlanner::Evaluated* BudgetPlanner::searchBudget(int64_t budgetBytes) {
    // A pure function of the budget: searched once (the frontier's budgets and the answer
    // grid's are the same ones).
    if (auto it = searched_.find(budgetBytes); it != searched_.end()) return it->second;
    const Evaluated* best = searchBudgetFromScratch(budgetBytes);
    searched_.emplace(budgetBytes, best);
    return best;
}

const BudgetPlanner::Evaluated* BudgetPlanner::searchBudgetFromScratch(int64_t budgetBytes) {
    // This call's pool: the shared start (a pure function of the problem) and what this
    // budget's own refinement and local search measure; nothing from earlier calls.
    Pool pool = basePool();
    refineAround(budgetBytes, pool);
    const bool repairs = options_.repairDescent && candidates_.size() <= options_.thoroughSearchUpTo;
    std::optional<Pool> repaired;  // the repair descent's start: the refined pool, before any descent
    if (repairs) repaired = pool;
    improveGreedy(budgetBytes, pool);
    const Evaluated* best = bestFitting(pool, budgetBytes);
    // The same search again with fan moves too (up to thoroughSearchUpTo candidates), from a
    // shared pool searched with them: the descents take other paths (so some end dearer, some
    // far cheaper), and the cheaper answer of the two is kept. 1-layer GRU frontier: 227.34
    // KiB at 8.96 KFLOP, where the plan at 227.25 KiB cost 156.93 (at 228.25 KiB, 106.50).
    if (options_.fanMoves && candidates_.size() <= options_.thoroughSearchUpTo) {
        Pool fanned = fannedBasePool();
        refineAround(budgetBytes, fanned);
        improveGreedy(budgetBytes, fanned, true);
        if (const Evaluated* f = bestFitting(fanned, budgetBytes)) {
            pool.add(*f);
            best = bestFitting(pool, budgetBytes);  // the same order as any other tie
        }
    }
    // Another descent, from the cheapest plan just above the budget, repaired by the cheapest
    // moves per byte (PlannerOptions::repairDescent). From the first descent's pool after it
    // instead: slower (it starts elsewhere) and cheaper at fewer GRU points.
    if (repairs) {
        improveGreedy(budgetBytes, *repaired, false, true);
        if (const Evaluated* r = bestFitting(*repaired, budgetBytes)) {
            pool.add(*r);
            best = bestFitting(pool, budgetBytes);  // the same order as any other tie
        }
    }
    if (!relaxationGuides()) return best;
    // A second descent from the relaxation's roundings alone (in one pool with the cuts'
    // plans the search would start from their cheapest and never see these).
    Pool guided = roundingsPool(budgetBytes);
    if (guided.order.empty()) return best;
    improveGreedy(budgetBytes, guided);
    if (const Evaluated* g = bestFitting(guided, budgetBytes)) {
        pool.add(*g);
        best = bestFitting(pool, budgetBytes);  // the same order as any other tie
    }
    return best;
}

const std::vector<BudgetPlanner::FrontierAnswer>& BudgetPlanner::answerGrid() {
    if (!answerGrid_) {
        const int points = options_.answerGridPoints;
        answerGrid_ = points < 1 ? std::vector<FrontierAnswer>{}
                                 : searchFrontier(frontierBudgets(points), points,
                                                  [this](int64_t b) { return searchBudget(b); });
    }
    return *answerGrid_;
}

const BudgetPlanner::Evaluated* BudgetPlanner::answerBudget(int64_t budgetBytes) {
    const Evaluated* own = searchBudget(budgetBytes);
    if (candidates_.size() > options_.thoroughSearchUpTo || options_.answerGridPoints < 1) return own;
    // A local search is not monotone in its budget (it descends from the plans around that
    // budget): the grid's answers that fit compete, so that no budget is answered dearer than
    // a frontier point below it.
    Pool pool;
    if (own) pool.add(*own);
    for (const FrontierAnswer& g : answerGrid()) pool.add(*g.set);
    return bestFitting(pool, budgetBytes);
}

BudgetPlan BudgetPlanner::planForBudget(int64_t budgetBytes) {
    if (candidates_.size() <= std::min(options_.exactBelow, options_.maxExactOps)) {
        BudgetPlan plan = exactPlanForBudget(budgetBytes);  // small: the optimum, cheaply
        plan.source = "budget";
        return plan;
    }
    const Evaluated* best = answerBudget(budgetBytes);
    if (!best) {
        const int64_t lo = minimumActivationPeak();
        detail::throwBudgetUnmet(budgetBytes, lo);
    }
    BudgetPlan plan = makePlan(best->inR, "budget");
    plan.budgetBytes = budgetBytes;
    return plan;
}

std::vector<int64_t> BudgetPlanner::frontierBudgets(int points) {
    const int64_t lo = minimumActivationPeak(), hi = originalActivationPeak();
    std::vector<int64_t> budgets;
    for (int i = points - 1; i >= 0; --i)
        budgets.push_back(points == 1 ? hi : lo + int64_t(std::llround(double(hi - lo) * i / (points - 1))));
    for (const BudgetPlan& r : referencePlans().plans)
        if (r.activationPeakBytes >= lo && r.activationPeakBytes <= hi) budgets.push_back(r.activationPeakBytes);
    std::sort(budgets.rbegin(), budgets.rend());
    budgets.erase(std::unique(budgets.begin(), budgets.end()), budgets.end());
    return budgets;
}

std::vector<BudgetPlanner::FrontierAnswer> BudgetPlanner::searchFrontier(
    const std::vector<int64_t>& budgets, int points, const std::function<const Evaluated*(int64_t)>& answerOf) {
    std::vector<FrontierAnswer> answers;
    for (int64_t b : budgets)
        if (const Evaluated* best = answerOf(b)) answers.push_back({best, b});
    if (options_.frontierResolution > 0 && candidates_.size() <= options_.thoroughSearchUpTo) {
        // Between two budgets whose answers differ, the cheapest plan can step anywhere: bisect
        // such intervals until each spans at most `frontierResolution` of its lower end, so
        // that every budget b has a frontier point that much above it as cheap as b's own
        // answer (up to 3 × points more budgets, in a fixed order: a function of the problem,
        // the options and `points`).
        std::sort(answers.begin(), answers.end(),
                  [](const FrontierAnswer& x, const FrontierAnswer& y) { return x.budget < y.budget; });
        size_t extra = 3 * size_t(points);
        for (bool split = true; split && extra > 0;) {
            split = false;
            std::vector<FrontierAnswer> refined;
            for (size_t i = 0; i < answers.size(); ++i) {
                refined.push_back(answers[i]);
                if (i + 1 == answers.size() || extra == 0) continue;
                const FrontierAnswer& lo = answers[i];
                const FrontierAnswer& hi = answers[i + 1];
                if (lo.set == hi.set || double(hi.budget - lo.budget) <= options_.frontierResolution * double(lo.budget))
                    continue;
                const int64_t mid = lo.budget + (hi.budget - lo.budget) / 2;
                const Evaluated* best = answerOf(mid);
                if (!best) continue;  // cannot happen above a budget that fits; keep the ends
                refined.push_back({best, mid});
                --extra;
                split = true;
            }
            answers = std::move(refined);
        }
    }
    return answers;
}

std::vector<BudgetPlan> BudgetPlanner::frontier(int points) {
    if (points < 1) throw Error("--points expects at least 1, found " + std::to_string(points));
    const std::vector<int64_t> budgets = frontierBudgets(points);
    // One answer per budget, each planForBudget's own: the frontier and a budget solve (or
    // the dock's slider) never disagree at the same budget.
    if (candidates_.size() <= std::min(options_.exactBelow, options_.maxExactOps)) {
        std::vector<BudgetPlan> answers;
        for (int64_t b : budgets) answers.push_back(planForBudget(b));
        return detail::paretoFront(std::move(answers));
    }
    // The same filter as detail::paretoFront on the searches' figures (a plan's figures are
    // its set's, makePlan), so only the plans kept are assembled (names sorted, sets listed).
    std::vector<FrontierAnswer> answers = searchFrontier(budgets, points, [this](int64_t b) {
        const Evaluated* best = answerBudget(b);
        if (!best) detail::throwBudgetUnmet(b, minimumActivationPeak());
        return best;
    });
    // Keep plans whose peak strictly falls as cost rises; equal plans once (the largest budget).
    std::stable_sort(answers.begin(), answers.end(), [](const FrontierAnswer& x, const FrontierAnswer& y) {
        return x.set->cost != y.set->cost ? x.set->cost < y.set->cost : x.set->activation < y.set->activation;
    });
    std::vector<BudgetPlan> out;
    int64_t last = std::numeric_limits<int64_t>::max();
    for (const FrontierAnswer& a : answers) {
        if (!out.empty() && a.set->activation >= last) continue;
        last = a.set->activation;
        BudgetPlan plan = makePlan(a.set->inR, "budget");
        plan.budgetBytes = a.budget;
        out.push_back(std::move(plan));
    }
    return out;
}

}  // namespace rx::planner
