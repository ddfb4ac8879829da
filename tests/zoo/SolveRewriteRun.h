#pragma once
// The zoo tests' one solve + rewrite + run check: solve with the seed's config, run the original and the rewritten program, compare them, and hold each run's bytes to the memory model op by op.
#include "algorithms/Solver.h"  // before Qt: Analysis.h has a member named `slots`

#include <QtTest>

#include <memory>

#include "exec/Executor.h"
#include "exec/Liveness.h"
#include "exec/Verify.h"
#include "exec/cpu/CpuExecutor.h"
#include "model/Diagnostic.h"
#include "model/RecomputeConfig.h"
#include "model/RecomputeSpec.h"

namespace rx::zootest {

// The memory model along the run's path (exec/Liveness.h) against the bytes the run held,
// op by op. Fails the current test (QFAIL) at the first op that differs.
inline void checkMeasuredEqualsModel(const Program& p, const exec::RunResult& run, const exec::RunOptions& options) {
    const exec::LiveBytes model = exec::liveBytesOf(p, exec::analyzeLiveness(p, exec::residentMask(p, options)), &run.controlPath);
    QVERIFY2(model.error.empty(), model.error.c_str());
    QCOMPARE(run.ops.size(), model.perOp.size());
    for (size_t i = 0; i < run.ops.size(); ++i)
        if (run.ops[i].peakBytes != model.perOp[i])
            QFAIL(qPrintable(QString("op %1 (%2): measured %3 bytes, model %4").arg(i)
                                 .arg(QString::fromStdString(std::string(p.opName(run.ops[i].op))))
                                 .arg(run.ops[i].peakBytes).arg(model.perOp[i])));
    QCOMPARE(run.peakBytes, model.peakBytes);
}

struct SolvedAndRun {
    exec::VerifyReport report;  // original against rewritten, bit for bit
    SolveResult solved;
    exec::RunResult original, rewritten;
};

// Spec inputs stay resident, as the memory model counts them. Callers check report and
// peaks; a measured-vs-model mismatch has already failed the test (QTest::currentTestFailed()).
inline SolvedAndRun solveAndRun(std::shared_ptr<const Program> program, const RecomputeSpec& spec, uint64_t seed) {
    SolvedAndRun c;
    RecomputeSolver solver(program, spec);
    c.solved = solver.solve(RecomputeConfig::seedDefaults());
    if (!c.solved.ok()) throw Error("solver failed: " + c.solved.error);
    exec::CpuExecutor ex;
    exec::RunInputs in;
    in.seed = seed;
    exec::RunOptions ro;
    ro.residentValues = spec.inputs;
    c.original = ex.run(*program, in, ro);
    c.rewritten = ex.run(*c.solved.rewritten, in, ro);
    c.report = exec::compareRuns(c.original, c.rewritten, {});
    checkMeasuredEqualsModel(*program, c.original, ro);
    checkMeasuredEqualsModel(*c.solved.rewritten, c.rewritten, ro);
    return c;
}

}  // namespace rx::zootest
