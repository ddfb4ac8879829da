// The exact mode's two branch-and-bound engines (BranchAndBound.h) against brute force on
// small covering MILPs: the optimum, the cut-off's proof, the bound never above the optimum, a
// start's (CBC's with one thread and with two, both engines at once); a search stopped from
// another thread; Clp's relaxation chain against GLPK's simplex; the Lagrangian bound of its
// multipliers against each subset's relaxation.
#include <QtTest>

#include <glpk.h>

#include <atomic>
#include <chrono>
#include <signal.h>

#include <cmath>
#include <limits>
#include <memory>
#include <random>
#include <thread>
#include <vector>

#include "algorithms/planner/BranchAndBound.h"

using namespace rx::planner;

namespace {

struct ProblemDeleter {
    void operator()(glp_prob* p) const { glp_delete_prob(p); }
};
using Problem = std::unique_ptr<glp_prob, ProblemDeleter>;

// min Σ cost·x + 0·z s.t. each row Σ a·x + z ≥ need, x binary, z ∈ [0, slack] continuous
// (the planner's models mix binaries with continuous columns the same way).
struct Covering {
    std::vector<double> cost;
    std::vector<std::vector<double>> a;  // by row, by column
    std::vector<double> need;
    double slack = 0;
};

Covering randomCovering(std::mt19937& rng, int columns, int rows) {
    Covering c;
    std::uniform_int_distribution<int> cost(1, 20), coef(0, 6);
    for (int j = 0; j < columns; ++j) c.cost.push_back(cost(rng));
    for (int i = 0; i < rows; ++i) {
        std::vector<double> row;
        double total = 0;
        for (int j = 0; j < columns; ++j) {
            row.push_back(coef(rng));
            total += row.back();
        }
        c.a.push_back(row);
        c.need.push_back(std::floor(total * std::uniform_real_distribution<double>(0.2, 0.7)(rng)));
    }
    c.slack = std::uniform_int_distribution<int>(0, 2)(rng);
    return c;
}

Problem build(const Covering& c) {
    Problem lp(glp_create_prob());
    const int n = int(c.cost.size());
    glp_set_obj_dir(lp.get(), GLP_MIN);
    glp_add_cols(lp.get(), n + 1);
    for (int j = 1; j <= n; ++j) {
        glp_set_col_kind(lp.get(), j, GLP_BV);
        glp_set_obj_coef(lp.get(), j, c.cost[size_t(j - 1)]);
    }
    glp_set_col_bnds(lp.get(), n + 1, c.slack > 0 ? GLP_DB : GLP_FX, 0.0, c.slack);
    for (size_t i = 0; i < c.a.size(); ++i) {
        const int row = glp_add_rows(lp.get(), 1);
        std::vector<int> ind{0};
        std::vector<double> val{0};
        for (int j = 1; j <= n; ++j)
            if (c.a[i][size_t(j - 1)] != 0) {
                ind.push_back(j);
                val.push_back(c.a[i][size_t(j - 1)]);
            }
        ind.push_back(n + 1);
        val.push_back(1.0);
        glp_set_mat_row(lp.get(), row, int(ind.size()) - 1, ind.data(), val.data());
        glp_set_row_bnds(lp.get(), row, GLP_LO, c.need[i], 0.0);
    }
    return lp;
}

// The cheapest x (infinity: none fits), by enumeration.
double bruteForce(const Covering& c) {
    const size_t n = c.cost.size();
    double best = std::numeric_limits<double>::infinity();
    for (uint32_t mask = 0; mask < (1u << n); ++mask) {
        double cost = 0;
        bool fits = true;
        for (size_t i = 0; i < c.a.size() && fits; ++i) {
            double lhs = c.slack;
            for (size_t j = 0; j < n; ++j)
                if (mask >> j & 1) lhs += c.a[i][j];
            fits = lhs >= c.need[i];
        }
        if (!fits) continue;
        for (size_t j = 0; j < n; ++j)
            if (mask >> j & 1) cost += c.cost[j];
        best = std::min(best, cost);
    }
    return best;
}

// Whether `x` (by column) is binary where it must be and satisfies every row.
bool satisfies(const Covering& c, const std::vector<double>& x) {
    const size_t n = c.cost.size();
    if (x.size() != n + 1 || x[n] < -1e-6 || x[n] > c.slack + 1e-6) return false;
    for (size_t j = 0; j < n; ++j)
        if (std::abs(x[j] - std::round(x[j])) > 1e-6) return false;
    for (size_t i = 0; i < c.a.size(); ++i) {
        double lhs = x[n];
        for (size_t j = 0; j < n; ++j) lhs += c.a[i][j] * std::round(x[j]);
        if (lhs < c.need[i] - 1e-6) return false;
    }
    return true;
}

using Engine = MilpSearch (*)(glp_prob*, const SearchLimits&);

// Engine rows: 0 GLPK's, 1 CBC's, 2 CBC's on two threads, 3 both at once (GLPK's and CBC's).
Engine engineOf(int engine) { return engine == 0 ? &searchWithGlpk : engine == 3 ? &searchWithEither : &searchWithCbc; }
unsigned threadsOf(int engine) { return engine >= 2 ? 2 : 1; }

}  // namespace

class TestBranchAndBound : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void engines_data() {
        QTest::addColumn<int>("engine");
        QTest::newRow("glpk") << 0;
        QTest::newRow("cbc") << 1;
        QTest::newRow("cbc, two threads") << 2;  // its tree's nodes in parallel: the same answers
        QTest::newRow("both at once") << 3;       // the first to decide, or the better of the two
    }

    // Each engine's optimum is brute force's; with a cut-off just below it, proven that none
    // is cheaper; with one above, the optimum again; the bound never above the optimum; an
    // infeasible model proven so; the model itself untouched.
    void engines() {
        QFETCH(int, engine);
        const Engine search = engineOf(engine);
        std::mt19937 rng(20261205);
        int feasible = 0;
        for (int trial = 0; trial < 40; ++trial) {
            const Covering c = randomCovering(rng, 6 + trial % 8, 2 + trial % 5);
            const double optimum = bruteForce(c);
            Problem lp = build(c);
            const int rowsBefore = glp_get_num_rows(lp.get());
            SearchLimits limits;
            limits.seconds = 30;
            limits.absoluteGap = 0.999;  // whole-number costs
            limits.threads = threadsOf(engine);
            const MilpSearch free = search(lp.get(), limits);
            QCOMPARE(glp_get_num_rows(lp.get()), rowsBefore);
            if (!std::isfinite(optimum)) {
                QVERIFY2(free.status == MilpSearch::Status::NoneBelowCutoff, qPrintable(QString::number(trial)));
                continue;
            }
            ++feasible;
            QVERIFY2(free.status == MilpSearch::Status::Optimal, qPrintable(QString::number(trial)));
            QCOMPARE(free.objective, optimum);
            QVERIFY(satisfies(c, free.columns));
            QVERIFY(free.bound <= optimum + 1e-6);
            // A cut-off half a unit below the optimum: nothing below it.
            limits.cutoff = optimum - 0.5;
            const MilpSearch below = search(lp.get(), limits);
            QVERIFY2(below.status == MilpSearch::Status::NoneBelowCutoff, qPrintable(QString::number(trial)));
            QVERIFY(below.columns.empty());
            // Half a unit above: the optimum.
            limits.cutoff = optimum + 0.5;
            const MilpSearch above = search(lp.get(), limits);
            QVERIFY(above.status == MilpSearch::Status::Optimal);
            QCOMPARE(above.objective, optimum);
            QVERIFY(above.bound <= optimum + 1e-6);
            // From a start with the cut-off half a unit below it: from every column chosen
            // (dearer, or as dear), the optimum where it is cheaper, else the proof that none is;
            // from the optimum, the proof that none is cheaper (the start never reported).
            double allCost = 0;
            limits.start.clear();
            for (size_t j = 0; j < c.cost.size(); ++j) {
                limits.start.emplace_back(int(j), 1.0);
                allCost += c.cost[j];
            }
            limits.cutoff = allCost - 0.5;
            const MilpSearch fromAll = search(lp.get(), limits);
            if (optimum < allCost) {
                QVERIFY2(fromAll.status == MilpSearch::Status::Optimal, qPrintable(QString::number(trial)));
                QCOMPARE(fromAll.objective, optimum);
                QVERIFY(satisfies(c, fromAll.columns));
            } else {
                QVERIFY2(fromAll.status == MilpSearch::Status::NoneBelowCutoff, qPrintable(QString::number(trial)));
                QVERIFY(fromAll.columns.empty());
            }
            limits.start.clear();
            for (size_t j = 0; j < c.cost.size(); ++j) limits.start.emplace_back(int(j), std::round(free.columns[j]));
            limits.cutoff = optimum - 0.5;
            const MilpSearch fromOptimum = search(lp.get(), limits);
            QVERIFY2(fromOptimum.status == MilpSearch::Status::NoneBelowCutoff, qPrintable(QString::number(trial)));
            QVERIFY(fromOptimum.columns.empty());
            QVERIFY(fromOptimum.bound <= optimum + 1e-6);
            QCOMPARE(glp_get_num_rows(lp.get()), rowsBefore);
            limits.start.clear();
        }
        QVERIFY(feasible >= 20);
        // A row no choice meets: proven, with no solution.
        Covering none = randomCovering(rng, 8, 3);
        double total = none.slack;
        for (double a : none.a[0]) total += a;
        none.need[0] = total + 1;
        QVERIFY(!std::isfinite(bruteForce(none)));
        Problem lp = build(none);
        SearchLimits limits;
        limits.seconds = 30;
        limits.threads = threadsOf(engine);
        const MilpSearch s = search(lp.get(), limits);
        QVERIFY(s.status == MilpSearch::Status::NoneBelowCutoff);
        QVERIFY(s.columns.empty());
    }

    // GLPK's searches run one after another in one process of the thread's (a fork per search
    // cost a third of a point's time): the same process for each, each search brute force's
    // optimum; one that died (killed here, as one past its limit is) is replaced at the next
    // search, which still finds the optimum; a thread of its own gets a process of its own.
    void glpkSearchesShareOneProcess() {
        std::mt19937 rng(20261208);
        int first = 0;
        for (int trial = 0; trial < 12; ++trial) {
            const Covering c = randomCovering(rng, 8 + trial % 7, 3 + trial % 5);
            const double optimum = bruteForce(c);
            Problem lp = build(c);
            SearchLimits limits;
            limits.seconds = 30;
            limits.absoluteGap = 0.999;
            if (trial == 6) QCOMPARE(::kill(first, SIGKILL), 0);
            const MilpSearch s = searchWithGlpk(lp.get(), limits);
            if (!std::isfinite(optimum)) {
                QVERIFY2(s.status == MilpSearch::Status::NoneBelowCutoff, qPrintable(QString::number(trial)));
            } else {
                QVERIFY2(s.status == MilpSearch::Status::Optimal, qPrintable(QString::number(trial)));
                QCOMPARE(s.objective, optimum);
                QVERIFY(satisfies(c, s.columns));
            }
            const int id = glpkSearchProcessId();
            QVERIFY(id > 0);
            if (trial == 0) first = id;
            else if (trial < 6) QCOMPARE(id, first);
            else QVERIFY(id != first);
        }
        int other = 0;
        std::thread([&] {
            Problem lp = build(randomCovering(rng, 8, 3));
            searchWithGlpk(lp.get(), SearchLimits{});
            other = glpkSearchProcessId();
        }).join();
        QVERIFY(other > 0 && other != glpkSearchProcessId());
        QVERIFY2(::kill(other, 0) != 0, "the thread's search process outlived its thread");
    }

    // On a covering too large to prove within its limit, each engine returns a little past it
    // (GLPK's and CBC's searches run in child processes, killed past a grace), with a bound
    // never above its solution's cost and, where it found one, a solution that satisfies
    // every row: what a search out of time reports is usable as it stands.
    void searchesOutOfTimeEndOnTime_data() { engines_data(); }
    void searchesOutOfTimeEndOnTime() {
        QFETCH(int, engine);
        const Engine search = engineOf(engine);
        std::mt19937 rng(20261207);
        const Covering c = randomCovering(rng, 150, 100);
        Problem lp = build(c);
        SearchLimits limits;
        limits.seconds = 3;
        limits.absoluteGap = 0.999;
        limits.threads = threadsOf(engine);
        QElapsedTimer clock;
        clock.start();
        const MilpSearch s = search(lp.get(), limits);
        const double seconds = double(clock.elapsed()) / 1000;
        qInfo("%.2f s, status %d, objective %g, bound %g", seconds, int(s.status), s.objective, s.bound);
        QVERIFY2(seconds < limits.seconds + 3.5, qPrintable(QString::number(seconds)));  // CBC's grace 2.5 s
        QVERIFY(s.status == MilpSearch::Status::TimedOut || s.status == MilpSearch::Status::Optimal);
        if (!s.columns.empty()) {
            QVERIFY(satisfies(c, s.columns));
            QVERIFY(s.bound <= s.objective + 1e-6);
        }
    }

    // A search another thread stops (SearchLimits::stop) ends at once, with what it had: a
    // covering its 60 s would not prove, stopped after 1 s, back within 2 s, out of time,
    // its bound never above its solution's cost; the next search in the thread runs as ever.
    void searchStoppedFromAnotherThread_data() {
        QTest::addColumn<int>("engine");
        QTest::newRow("glpk") << 0;
        QTest::newRow("cbc") << 1;
    }
    void searchStoppedFromAnotherThread() {
        QFETCH(int, engine);
        if (engine == 1 && !cbcAvailable()) QSKIP("libCbcSolver cannot be loaded here");
        std::mt19937 rng(20261207);
        const Covering c = randomCovering(rng, 150, 100);
        Problem lp = build(c);
        std::atomic<bool> stop{false};
        SearchLimits limits;
        limits.seconds = 60;
        limits.absoluteGap = 0.999;
        limits.stop = &stop;
        std::thread stopper([&] {
            std::this_thread::sleep_for(std::chrono::seconds(1));
            stop = true;
        });
        QElapsedTimer clock;
        clock.start();
        const MilpSearch s = engineOf(engine)(lp.get(), limits);
        const double seconds = double(clock.elapsed()) / 1000;
        stopper.join();
        qInfo("%.2f s, status %d, objective %g, bound %g", seconds, int(s.status), s.objective, s.bound);
        QVERIFY2(seconds < 2, qPrintable(QString::number(seconds)));
        QVERIFY(s.status == MilpSearch::Status::TimedOut || s.status == MilpSearch::Status::Failed);
        if (!s.columns.empty()) {
            QVERIFY(satisfies(c, s.columns));
            QVERIFY(s.bound <= s.objective + 1e-6);
        }
        const Covering small = randomCovering(rng, 8, 3);
        Problem next = build(small);
        SearchLimits free;
        free.absoluteGap = 0.999;
        const MilpSearch after = engineOf(engine)(next.get(), free);
        if (std::isfinite(bruteForce(small))) {
            QVERIFY(after.status == MilpSearch::Status::Optimal);
            QCOMPARE(after.objective, bruteForce(small));
        } else {
            QVERIFY(after.status == MilpSearch::Status::NoneBelowCutoff);
        }
    }

    // Clp's relaxation (ClpRelaxation) on a chain of tightening needs: GLPK's optimum at each,
    // the basis it leaves GLPK's optimal one (no pivot from it), an unmeetable need infeasible.
    void clpRelaxationChain() {
        if (!clpAvailable()) QSKIP("libCbcSolver (and Clp with it) cannot be loaded here");
        std::mt19937 rng(20261206);
        int solves = 0;
        for (int trial = 0; trial < 20; ++trial) {
            Covering c = randomCovering(rng, 8 + trial % 9, 3 + trial % 6);
            Problem lp = build(c);
            Problem reference = build(c);
            ClpRelaxation clp(lp.get());
            QVERIFY(clp.usable());
            glp_smcp quiet;
            glp_init_smcp(&quiet);
            quiet.msg_lev = GLP_MSG_OFF;
            for (double scale : {0.6, 0.8, 1.0, 1.2}) {
                for (size_t i = 0; i < c.need.size(); ++i) {
                    glp_set_row_bnds(lp.get(), int(i) + 1, GLP_LO, std::floor(c.need[i] * scale), 0.0);
                    glp_set_row_bnds(reference.get(), int(i) + 1, GLP_LO, std::floor(c.need[i] * scale), 0.0);
                }
                const ClpRelaxation::Result r = clp.solve(lp.get(), 100000, 30);
                glp_adv_basis(reference.get(), 0);
                QCOMPARE(glp_simplex(reference.get(), &quiet), 0);
                if (glp_get_status(reference.get()) == GLP_NOFEAS) {
                    QVERIFY2(r.status == ClpRelaxation::Result::Status::Infeasible, qPrintable(QString::number(trial)));
                    continue;
                }
                QCOMPARE(glp_get_status(reference.get()), GLP_OPT);
                QVERIFY2(r.status == ClpRelaxation::Result::Status::Optimal, qPrintable(QString::number(trial)));
                QVERIFY(std::abs(r.objective - glp_get_obj_val(reference.get())) <= 1e-6 * (1 + std::abs(r.objective)));
                ++solves;
                const int before = glp_get_it_cnt(lp.get());
                QCOMPARE(glp_simplex(lp.get(), &quiet), 0);
                QCOMPARE(glp_get_status(lp.get()), GLP_OPT);
                QCOMPARE(glp_get_it_cnt(lp.get()) - before, 0);
            }
        }
        QVERIFY(solves >= 40);
    }

    // The Lagrangian bound of one relaxation's multipliers (ClpRelaxation::lagrangianBound) over every subset
    // of five fixed columns: the relaxation's optimum where it was solved, never above any
    // other subset's relaxation (GLPK's simplex on each), and, where the dual simplex stopped
    // at an objective limit, at or above that limit where it stopped.
    void lagrangianBoundOfEverySubset() {
        if (!clpAvailable()) QSKIP("libCbcSolver (and Clp with it) cannot be loaded here");
        std::mt19937 rng(20261207);
        glp_smcp quiet;
        glp_init_smcp(&quiet);
        quiet.msg_lev = GLP_MSG_OFF;
        const std::vector<uint32_t> fixed{0, 1, 2, 3, 4};
        auto fix = [&](glp_prob* lp, uint64_t bits) {
            for (size_t i = 0; i < fixed.size(); ++i) {
                const double v = double((bits >> i) & 1);
                glp_set_col_bnds(lp, int(fixed[i]) + 1, GLP_FX, v, v);
            }
        };
        int compared = 0, stopped = 0;
        for (int trial = 0; trial < 40; ++trial) {
            const Covering c = randomCovering(rng, 8 + trial % 5, 3 + trial % 4);
            Problem lp = build(c);
            const uint64_t solvedAt = std::uniform_int_distribution<uint64_t>(0, 31)(rng);
            fix(lp.get(), solvedAt);
            ClpRelaxation clp(lp.get());
            const ClpRelaxation::Result r = clp.solve(lp.get(), 100000, 30);
            if (r.status != ClpRelaxation::Result::Status::Optimal) continue;
            const FixedColumnsBound bound = clp.lagrangianBound(lp.get(), r.rowDuals, fixed);
            QVERIFY2(std::isfinite(bound.base), qPrintable(QString::number(trial)));
            QVERIFY(std::abs(bound.at(solvedAt) - r.objective) <= 1e-6 * (1 + std::abs(r.objective)));
            for (uint64_t bits = 0; bits < 32; ++bits) {
                Problem reference = build(c);
                fix(reference.get(), bits);
                QCOMPARE(glp_simplex(reference.get(), &quiet), 0);
                if (glp_get_status(reference.get()) != GLP_OPT) continue;
                QVERIFY2(bound.at(bits) <= glp_get_obj_val(reference.get()) + 1e-6, qPrintable(QString::number(trial)));
                ++compared;
            }
            // From a cold start with a limit below the optimum: stopped there, and the bound of
            // its multipliers past the limit.
            if (r.objective <= 1) continue;
            Problem again = build(c);
            fix(again.get(), solvedAt);
            ClpRelaxation limited(again.get());
            const double limit = 0.5 * r.objective;
            const ClpRelaxation::Result s = limited.solve(again.get(), 100000, 30, limit);
            if (s.status == ClpRelaxation::Result::Status::Optimal) continue;  // no pivot past the limit needed
            QCOMPARE(int(s.status), int(ClpRelaxation::Result::Status::Infeasible));
            const FixedColumnsBound atLimit = limited.lagrangianBound(again.get(), s.rowDuals, fixed);
            QVERIFY2(atLimit.at(solvedAt) >= limit - 1e-6, qPrintable(QString("%1: %2 < %3").arg(trial).arg(atLimit.at(solvedAt)).arg(limit)));
            ++stopped;
        }
        qInfo("%d subsets compared, %d stopped at the limit", compared, stopped);
        QVERIFY(compared >= 400);
        QVERIFY(stopped >= 5);
    }
};

QTEST_GUILESS_MAIN(TestBranchAndBound)
#include "test_branch_and_bound.moc"
