// Whole programs on the GPU: generated transformer (with dropout) and LLaMA training steps,
// original and rewritten by the seed's recompute, are equivalent bit for bit on the device
// (unfused and fused), agree with the CPU executor within matmul tolerance, and account memory
// as the CPU executor does; the caching allocator's peaks are reported. Exits 77 without a device.
#include <QtTest>

#include <cstdio>

#include "algorithms/Solver.h"
#include "exec/cpu/CpuExecutor.h"
#include "exec/Verify.h"
#include "algorithms/zoo/ModelZoo.h"
#include "cuda/CudaExecutor.h"
#include "model/RecomputeConfig.h"

using namespace rx;
using namespace rx::exec;

class TestCudaPrograms : public QObject {
    Q_OBJECT
private slots:
    void originalAndRewrittenAgreeOnTheGpu_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<bool>("composite");
        QTest::newRow("transformer prim") << "transformer" << false;
        QTest::newRow("llama prim") << "llama" << false;
        QTest::newRow("transformer composite") << "transformer" << true;
        QTest::newRow("llama composite") << "llama" << true;
    }
    void originalAndRewrittenAgreeOnTheGpu() {
        QFETCH(QString, model);
        QFETCH(bool, composite);
        zoo::ZooOptions zo;
        zo.model = model.toStdString();
        zo.layers = 2;
        zo.hidden = 64;
        zo.heads = 4;
        zo.seq = 16;
        zo.batch = 2;
        zo.composite = composite;
        zoo::GeneratedProgram g = zoo::generateModel(zo);
        RecomputeSolver solver(g.program, g.spec);
        SolveResult solved = solver.solve(RecomputeConfig::seedDefaults());
        QVERIFY2(solved.ok(), solved.error.c_str());

        auto gpu = cuda::makeCudaExecutor();
        cuda::CudaOptions fo;
        fo.fused = true;
        auto fused = cuda::makeCudaExecutor(fo);
        VerifyOptions bitwise;
        bitwise.residentValues = g.spec.inputs;
        for (cuda::CudaExecutor* ex : {gpu.get(), fused.get()}) {
            VerifyReport r = verifyPrograms(*g.program, *solved.rewritten, bitwise, ex);
            QVERIFY2(r.equivalent, r.summary().c_str());
            QVERIFY(r.compared > 0);
            QCOMPARE(r.bitwiseEqual, r.compared);
        }

        RunOptions ro;
        ro.residentValues = g.spec.inputs;
        CpuExecutor cpu;
        RunResult c = cpu.run(*g.program, {}, ro);
        RunResult d = gpu->run(*g.program, {}, ro);
        cuda::CudaRunReport unfusedReport = gpu->lastReport();
        RunResult f = fused->run(*g.program, {}, ro);
        cuda::CudaRunReport fusedReport = fused->lastReport();
        VerifyOptions close;
        close.rtol = 1e-3;
        close.atol = 1e-4;
        VerifyReport vc = compareRuns(c, d, close);
        QVERIFY2(vc.equivalent, vc.summary().c_str());
        QVERIFY2(compareRuns(d, f, VerifyOptions{}).equivalent, "fused differs from unfused");
        QCOMPARE(d.peakBytes, c.peakBytes);   // the memory model's accounting, value by value
        QVERIFY(unfusedReport.peakAllocatedBytes > 0);
        QVERIFY(unfusedReport.peakReservedBytes >= unfusedReport.peakAllocatedBytes);
        QVERIFY(!fusedReport.groups.empty());
        QVERIFY(fusedReport.kernelLaunches < unfusedReport.kernelLaunches);
        QVERIFY(fusedReport.peakRequestedBytes <= unfusedReport.peakRequestedBytes);
        QCOMPARE(unfusedReport.ops.size(), g.program->globalBlock().ops.size());
    }

    void timingTakesMediansOverSteps() {
        zoo::ZooOptions zo;
        zo.model = "llama";
        zo.layers = 1;
        zoo::GeneratedProgram g = zoo::generateModel(zo);
        cuda::CudaOptions o;
        o.warmup = 1;
        o.steps = 5;
        auto gpu = cuda::makeCudaExecutor(o);
        RunResult r = gpu->run(*g.program, {}, {});
        const cuda::CudaRunReport& rep = gpu->lastReport();
        QCOMPARE(rep.steps, 5);
        QCOMPARE(rep.stepMs.size(), size_t(5));
        QVERIFY(rep.stepMsMedian > 0);
        QCOMPARE(r.totalMs, rep.stepMsMedian);
        double sum = 0;
        for (const auto& op : rep.ops) sum += op.medianMicros;
        QVERIFY(sum > 0);
        QVERIFY(sum / 1000.0 <= rep.stepMsMedian * 5);  // medians of parts, not an unrelated figure
    }
};

int main(int argc, char** argv) {
    std::string why;
    if (cuda::cudaDeviceCount(&why) <= 0) {
        std::printf("SKIP: no CUDA device (%s)\n", why.c_str());
        return 77;
    }
    TestCudaPrograms t;
    return QTest::qExec(&t, argc, argv);
}
#include "test_cuda_programs.moc"
