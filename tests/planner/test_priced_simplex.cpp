// The primal simplex with its columns priced in (PricedSimplex.h) against GLPK's on the whole
// LP: the lazy relaxation's shape (a few ≤ rows over thousands of 0-1 columns), the same
// status and optimum, fewer columns in the first solve, every column's bounds given back.
#include <QtTest>

#include <glpk.h>

#include <climits>
#include <cmath>
#include <memory>
#include <random>
#include <vector>

#include "algorithms/planner/PricedSimplex.h"

using namespace rx::planner;

namespace {

struct ProblemDeleter {
    void operator()(glp_prob* p) const { glp_delete_prob(p); }
};
using Problem = std::unique_ptr<glp_prob, ProblemDeleter>;

// min Σ cost·r, r ∈ [0, 1], each row Σ coef·r ≤ room: most columns relieve a few rows
// (negative coefficients: the bytes a recomputed op frees), some add to others (its clone),
// a few relieve nothing; some cost nothing. `tight` scales how much relief the rows ask for.
Problem randomRelaxation(uint32_t seed, int rows, int cols, double tight) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    Problem lp(glp_create_prob());
    glp_set_obj_dir(lp.get(), GLP_MIN);
    glp_add_rows(lp.get(), rows);
    glp_add_cols(lp.get(), cols);
    std::vector<double> relief(size_t(rows) + 1, 0.0);
    for (int j = 1; j <= cols; ++j) {
        glp_set_col_bnds(lp.get(), j, GLP_DB, 0.0, 1.0);
        glp_set_obj_coef(lp.get(), j, unit(rng) < 0.05 ? 0.0 : 0.1 + unit(rng) * (unit(rng) < 0.1 ? 50.0 : 1.0));
        std::vector<int> ind{0};
        std::vector<double> val{0.0};
        const int first = 1 + int(unit(rng) * rows);
        const int span = 1 + int(unit(rng) * 4);
        for (int i = first; i <= std::min(rows, first + span); ++i) {
            const bool adds = unit(rng) < 0.15;
            const bool none = unit(rng) < 0.05;
            const double v = none ? 0.0 : (adds ? 1.0 : -1.0) * (0.5 + unit(rng) * 4);
            if (v == 0) continue;
            ind.push_back(i);
            val.push_back(v);
            if (v < 0) relief[size_t(i)] -= v;
        }
        glp_set_mat_col(lp.get(), j, int(ind.size()) - 1, ind.data(), val.data());
    }
    for (int i = 1; i <= rows; ++i) glp_set_row_bnds(lp.get(), i, GLP_UP, 0.0, -tight * relief[size_t(i)]);
    return lp;
}

Problem copyOf(glp_prob* lp) {
    Problem out(glp_create_prob());
    glp_copy_prob(out.get(), lp, GLP_OFF);
    return out;
}

glp_smcp primal(int itLimit = INT_MAX) {
    glp_smcp parm;
    glp_init_smcp(&parm);
    parm.msg_lev = GLP_MSG_OFF;
    parm.meth = GLP_PRIMAL;
    parm.it_lim = itLimit;
    return parm;
}

bool boundsAsBuilt(glp_prob* lp) {
    for (int j = 1; j <= glp_get_num_cols(lp); ++j)
        if (glp_get_col_type(lp, j) != GLP_DB || glp_get_col_lb(lp, j) != 0.0 || glp_get_col_ub(lp, j) != 1.0) return false;
    return true;
}

}  // namespace

class TestPricedSimplex : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void sameStatusAndOptimumAsTheWholeLp() {
        int optimal = 0, infeasible = 0, pricedIn = 0, positive = 0;
        // keep 0: the default start (8 columns a row); 16: so few that most are priced in.
        for (uint32_t seed = 1; seed <= 24; ++seed) {
            const double tight = seed % 8 == 0 ? 1.5 : 0.02 + 0.04 * (seed % 7);  // 1.5: more than all relief
            const size_t keep = seed % 2 ? 0 : 16;
            Problem priced = randomRelaxation(seed, 32, 3000, tight);
            Problem whole = copyOf(priced.get());
            PricingStats stats;
            QCOMPARE(solvePricingColumnsIn(priced.get(), primal(), keep, &stats), 0);
            const glp_smcp parm = primal();
            QCOMPARE(glp_simplex(whole.get(), &parm), 0);
            QCOMPARE(glp_get_status(priced.get()), glp_get_status(whole.get()));
            QVERIFY(boundsAsBuilt(priced.get()));
            QCOMPARE(stats.columns, 3000);
            QVERIFY2(stats.startedWith < 1000, qPrintable(QString::number(stats.startedWith)));
            pricedIn += stats.pricedIn;
            if (glp_get_status(whole.get()) == GLP_NOFEAS) {
                ++infeasible;
                continue;
            }
            QCOMPARE(glp_get_status(whole.get()), GLP_OPT);
            ++optimal;
            const double a = glp_get_obj_val(priced.get()), b = glp_get_obj_val(whole.get());
            QVERIFY2(std::abs(a - b) <= 1e-7 * std::max(1.0, std::abs(b)),
                     qPrintable(QString("seed %1: %2 priced, %3 whole").arg(seed).arg(a, 0, 'g', 12).arg(b, 0, 'g', 12)));
            positive += b > 0;
            // The priced LP's optimum was the whole one's: its last solve only confirmed it.
            QCOMPARE(stats.lastIterations, 0);
        }
        qInfo("%d optimal (%d above 0), %d infeasible, %d columns priced in", optimal, positive, infeasible, pricedIn);
        QVERIFY(optimal >= 18);
        QVERIFY(positive >= 12);  // not all met by the columns that cost nothing
        QVERIFY(infeasible >= 3);
        QVERIFY(pricedIn > 0);  // the first LP's columns were not all it needed
    }

    void smallLpsAreSolvedWhole() {
        Problem lp = randomRelaxation(7, 32, 400, 0.1);
        PricingStats stats;
        QCOMPARE(solvePricingColumnsIn(lp.get(), primal(), 0, &stats), 0);
        QCOMPARE(stats.startedWith, 400);
        QCOMPARE(stats.solves, 1);
    }

    void anIterationLimitCoversEverySolveAndGivesTheBoundsBack() {
        Problem lp = randomRelaxation(3, 32, 3000, 0.2);
        PricingStats stats;
        const int before = glp_get_it_cnt(lp.get());
        QCOMPARE(solvePricingColumnsIn(lp.get(), primal(5), 0, &stats), GLP_EITLIM);
        QVERIFY(glp_get_it_cnt(lp.get()) - before <= 5);
        QVERIFY(boundsAsBuilt(lp.get()));
    }
};

QTEST_GUILESS_MAIN(TestPricedSimplex)
#include "test_priced_simplex.moc"
