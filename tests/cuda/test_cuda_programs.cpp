// Whole programs on the GPU: generated transformer (with dropout) and LLaMA training steps,
// original and rewritten by the seed's recompute, are equivalent bit for bit on the device
// (unfused and fused), agree with the CPU executor within matmul tolerance; the corpus
// control-flow programs run as on the CPU; the measured peak is the caching allocator's.
// Exits 77 without a device.
#include <QtTest>

#include <cstdio>

#include "algorithms/Solver.h"
#include "exec/cpu/CpuExecutor.h"
#include "exec/Verify.h"
#include "algorithms/zoo/ModelZoo.h"
#include "cuda/CudaExecutor.h"
#include "exec/Liveness.h"
#include "model/PirReader.h"
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
        // Measured on the device: the bytes its caching allocator held (kernel workspaces and
        // storage a kernel shares with its operand included), not the model's walk.
        QCOMPARE(d.peakBytes, unfusedReport.peakRequestedBytes);
        QCOMPARE(f.peakBytes, fusedReport.peakRequestedBytes);
        qInfo("%s: device peak %lld B measured, CPU (= model) %lld B", qPrintable(model), static_cast<long long>(d.peakBytes),
              static_cast<long long>(c.peakBytes));
        QVERIFY(unfusedReport.peakAllocatedBytes > 0);
        QVERIFY(unfusedReport.peakReservedBytes >= unfusedReport.peakAllocatedBytes);
        QVERIFY(!fusedReport.groups.empty());
        QVERIFY(fusedReport.kernelLaunches < unfusedReport.kernelLaunches);
        QVERIFY(fusedReport.peakRequestedBytes <= unfusedReport.peakRequestedBytes);
        QCOMPARE(unfusedReport.ops.size(), g.program->globalBlock().ops.size());
    }

    // The corpus control-flow programs through the shared block interpreter on the device:
    // the CPU's branches and iterations, its values, and measured bytes = the memory model
    // (these ops allocate nothing but their results).
    void controlFlowRunsOnTheGpu() {
        for (const char* name : {"save-load-doc-if-op-early.pir", "visualdl-if-op.pir", "save-load-doc-while-op-early-fragment.pir"})
            for (double i : {5.0, 1.0}) {
                Program p = loadProgram(std::string(RX_SHARED_DIR) + "/corpus/pir-real/" + name);
                RunInputs in;
                in.byName["i"] = Tensor::fromDoubles(DType::Float32, {1}, {i});
                in.byName["a"] = Tensor::fromDoubles(DType::Float32, {1}, {1.5});
                RunOptions o;
                o.keepAllValues = true;
                CpuExecutor cpu;
                const RunResult c = cpu.run(p, in, o);
                cuda::CudaOptions fo;
                fo.fused = true;
                std::vector<std::unique_ptr<cuda::CudaExecutor>> gpus;
                gpus.push_back(cuda::makeCudaExecutor());
                gpus.push_back(cuda::makeCudaExecutor(fo));
                for (const auto& gpu : gpus) {
                    QVERIFY2(gpu->unsupportedOps(p).empty(), name);
                    const RunResult d = gpu->run(p, in, o);
                    VerifyOptions close;
                    close.rtol = 1e-5;
                    close.atol = 1e-5;
                    const VerifyReport r = compareRuns(c, d, close);
                    QVERIFY2(r.equivalent && r.compared > 0, qPrintable(QString(name) + ": " + QString::fromStdString(r.summary())));
                    QVERIFY(d.controlPath.decisions == c.controlPath.decisions);
                    QCOMPARE(d.peakBytes, gpu->lastReport().peakRequestedBytes);
                    const LiveBytes model = liveBytesOf(p, analyzeLiveness(p, residentMask(p, o)), &d.controlPath);
                    QCOMPARE(d.peakBytes, model.peakBytes);
                    QCOMPARE(d.ops.size(), p.globalBlock().ops.size());  // an if or while is one top-level op
                }
            }
    }

    // The zoo's control-flow programs (an if and a while in the forward, their backward through
    // the cf stacks): original and rewritten equal bit for bit on the device, close to the CPU.
    void zooControlFlowProgramsRunOnTheGpu() {
        for (const char* model : {"mlp", "transformer"}) {
            zoo::ZooOptions zo;
            zo.model = model;
            zo.layers = 1;
            zo.controlFlow = true;
            zoo::GeneratedProgram g = zoo::generateModel(zo);
            RecomputeSolver solver(g.program, g.spec);
            SolveResult solved = solver.solve(RecomputeConfig::seedDefaults());
            QVERIFY2(solved.ok(), solved.error.c_str());
            auto gpu = cuda::makeCudaExecutor();
            QVERIFY2(gpu->unsupportedOps(*g.program).empty(), model);
            VerifyOptions bitwise;
            bitwise.residentValues = g.spec.inputs;
            VerifyReport r = verifyPrograms(*g.program, *solved.rewritten, bitwise, gpu.get());
            QVERIFY2(r.equivalent && r.compared > 0, r.summary().c_str());
            RunOptions ro;
            ro.residentValues = g.spec.inputs;
            CpuExecutor cpu;
            const RunResult c = cpu.run(*g.program, {}, ro);
            const RunResult d = gpu->run(*g.program, {}, ro);
            QVERIFY(d.controlPath.decisions == c.controlPath.decisions);
            VerifyOptions close;
            close.rtol = 1e-3;
            close.atol = 1e-4;
            VerifyReport vc = compareRuns(c, d, close);
            QVERIFY2(vc.equivalent, vc.summary().c_str());
        }
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
