// The conformance suite (tests/exec/ConformanceSuite.h) on the CUDA backend: the same value
// cases, gradients against central differences, and invalid ops refused with the very
// message the CPU backend gives. Cases holding an op the CUDA backend has no kernel for are
// listed, not failed (its unsupportedOps says so before running). Exits 77 without a device.
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

    // Cases whose programs hold an op the device cannot run are listed, not failed.
    template <class Case>
    bool runs(const Case& c, const std::string& name) {
        std::vector<std::string> missing = unsupportedIn(*gpu, c);
        if (missing.empty()) return true;
        std::string list;
        for (const std::string& op : missing) list += " " + op;
        qInfo("cuda: %s skipped, no kernel for:%s", name.c_str(), list.c_str());
        return false;
    }

private slots:
    void initTestCase() { gpu = std::make_unique<cuda::CudaExecutor>(cuda::CudaOptions{}); }
    void valueCases() {
        for (const ValueCase& vc : rx::conformance::valueCases()) {
            if (!runs(vc, vc.op)) continue;
            ValueCase loose = vc;
            loose.tol = std::max(vc.tol, 1e-9);  // device transcendental functions differ in the last bits
            std::string why = runValueCase(*gpu, loose);
            if (!why.empty()) QFAIL(qPrintable(QString::fromStdString(vc.op + " (cuda): " + why)));
        }
    }
    void gradCases() {
        for (const GradCase& gc : rx::conformance::gradCases()) {
            if (!runs(gc, gc.grad)) continue;
            std::string why = runGradCase(*gpu, gc);
            if (!why.empty()) QFAIL(qPrintable(QString::fromStdString(gc.grad + " (cuda): " + why)));
        }
    }
    void invalidCases() {
        exec::CpuExecutor cpu;
        for (const InvalidCase& ic : rx::conformance::invalidCases()) {
            if (!runs(ic, ic.what)) continue;  // refused for the missing kernel, not for the fault
            for (bool dynamicInputs : {false, true}) {
                if (dynamicInputs && !ic.kernelTwin) continue;
                std::string onCpu = refusal(cpu, ic, dynamicInputs), onGpu = refusal(*gpu, ic, dynamicInputs);
                if (onGpu != onCpu)
                    QFAIL(qPrintable(QString::fromStdString(ic.what + (dynamicInputs ? " (dynamic inputs)" : "") + ": cuda refused with \"" +
                                                            onGpu + "\", the cpu with \"" + onCpu + "\"")));
            }
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
