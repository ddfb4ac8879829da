// The conformance suite (tests/exec/ConformanceSuite.h) on the CUDA backend: the same value
// cases, gradients against central differences, and invalid ops refused with the very
// message the CPU backend gives. Ops the CUDA backend has no kernel for are listed, not
// failed (its unsupportedOps says so before running). Exits 77 without a device.
#include <QtTest>

#include <cstdio>

#include "cuda/CudaExecutor.h"
#include "exec/ConformanceSuite.h"
#include "exec/cpu/CpuExecutor.h"

using namespace rx;
using namespace rx::conformance;

class TestCudaConformance : public QObject {
    Q_OBJECT
    std::unique_ptr<cuda::CudaExecutor> gpu;

    bool runs(const std::string& op) {
        std::vector<std::string> ops = cuda::CudaExecutor::supportedOps();
        return std::find(ops.begin(), ops.end(), op) != ops.end();
    }

private slots:
    void initTestCase() { gpu = std::make_unique<cuda::CudaExecutor>(cuda::CudaOptions{}); }
    void valueCases() {
        for (const ValueCase& vc : rx::conformance::valueCases()) {
            if (!runs(vc.op)) { qInfo("cuda: no kernel for %s", vc.op.c_str()); continue; }
            ValueCase loose = vc;
            loose.tol = std::max(vc.tol, 1e-9);  // device transcendental functions differ in the last bits
            std::string why = runValueCase(*gpu, loose);
            if (!why.empty()) QFAIL(qPrintable(QString::fromStdString(vc.op + " (cuda): " + why)));
        }
    }
    void gradCases() {
        for (const GradCase& gc : rx::conformance::gradCases()) {
            if (!runs(gc.forward) || !runs(gc.grad)) { qInfo("cuda: no kernel for %s", gc.grad.c_str()); continue; }
            std::string why = runGradCase(*gpu, gc);
            if (!why.empty()) QFAIL(qPrintable(QString::fromStdString(gc.grad + " (cuda): " + why)));
        }
    }
    void invalidCases() {
        exec::CpuExecutor cpu;
        for (const InvalidCase& ic : rx::conformance::invalidCases()) {
            std::string onCpu = refusal(cpu, ic), onGpu = refusal(*gpu, ic);
            if (onGpu != onCpu)
                QFAIL(qPrintable(QString::fromStdString(ic.what + ": cuda refused with \"" + onGpu + "\", the cpu with \"" + onCpu + "\"")));
        }
    }
};

int main(int argc, char** argv) {
    std::string why;
    if (cuda::cudaDeviceCount(&why) <= 0) {
        std::printf("SKIP: no CUDA device (%s)\n", why.c_str());
        return 77;
    }
    TestCudaConformance t;
    return QTest::qExec(&t, argc, argv);
}
#include "test_cuda_conformance.moc"
