// The conformance suite (tests/exec/ConformanceSuite.h) on the CPU backend: every value case,
// every gradient against central differences, every invalid op refused with its exact
// positioned message; and which of the backend's ops the table covers.
#include <QtTest>

#include <set>

#include "exec/ConformanceSuite.h"
#include "exec/cpu/CpuExecutor.h"

using namespace rx;
using namespace rx::conformance;

class TestConformance : public QObject {
    Q_OBJECT
private slots:
    void valueCases() {
        exec::CpuExecutor cpu;
        std::string failures;
        for (const ValueCase& vc : rx::conformance::valueCases())
            if (std::string why = runValueCase(cpu, vc); !why.empty()) failures += vc.op + ": " + why + "\n";
        if (!failures.empty()) QFAIL(qPrintable(QString::fromStdString(failures)));
    }
    void gradCases() {
        exec::CpuExecutor cpu;
        std::string failures;
        for (const GradCase& gc : rx::conformance::gradCases())
            if (std::string why = runGradCase(cpu, gc); !why.empty()) failures += gc.grad + ": " + why + "\n";
        if (!failures.empty()) QFAIL(qPrintable(QString::fromStdString(failures)));
    }
    void invalidCases() {
        exec::CpuExecutor cpu;
        std::string failures;
        size_t twins = 0;
        for (const InvalidCase& ic : rx::conformance::invalidCases()) {
            if (std::string got = refusal(cpu, ic); got != ic.message)
                failures += ic.what + ": refused with \"" + got + "\", expected \"" + ic.message + "\"\n";
            if (!ic.kernelTwin) continue;
            ++twins;
            if (std::string got = refusal(cpu, ic, true); got != ic.message)
                failures += ic.what + " (dynamic inputs: the kernel refuses): refused with \"" + got + "\", expected \"" + ic.message + "\"\n";
        }
        if (!failures.empty()) QFAIL(qPrintable(QString::fromStdString(failures)));
        QVERIFY(twins > 0);
    }
    // Every op the CPU backend runs has a case (a new kernel must come with one): a value case
    // naming it, or for a _grad op a gradient case checked against central differences; the
    // complex-only grads, which central differences of a real loss cannot reach, have value
    // cases instead. And every op a case names is one the backend runs (a renamed kernel cannot
    // silently drop out of the suite).
    void coverage() {
        const std::set<std::string> complexGrads = {"pd_op.as_complex_grad", "pd_op.as_real_grad", "pd_op.complex_grad",
                                                    "pd_op.real_grad", "pd_op.imag_grad", "pd_op.angle_grad"};
        std::vector<std::string> supported = exec::CpuExecutor::supportedOps();
        std::set<std::string> all(supported.begin(), supported.end()), withValues, withGrads;
        for (const ValueCase& vc : rx::conformance::valueCases()) withValues.insert(vc.op);
        for (const GradCase& gc : rx::conformance::gradCases()) { withGrads.insert(gc.grad); withValues.insert(gc.forward); }
        std::string missing;
        for (const std::string& op : all) {
            const bool isGrad = op.size() > 5 && op.compare(op.size() - 5, 5, "_grad") == 0;
            const bool covered = isGrad && !complexGrads.count(op) ? withGrads.count(op) > 0 : withValues.count(op) > 0;
            if (!covered) missing += " " + op;
        }
        QVERIFY2(missing.empty(), qPrintable(QString::fromStdString("ops of the CPU backend without a conformance case" +
                                                                   std::string(missing.empty() ? "" : ":") + missing)));
        for (const std::set<std::string>* named : {&withValues, &withGrads})
            for (const std::string& op : *named)
                if (!all.count(op)) QFAIL(qPrintable(QString::fromStdString("the suite names " + op + ", which the CPU backend does not run")));
        qInfo("conformance: all %zu of the CPU backend's ops have cases (%zu value, %zu gradient, %zu invalid cases)", all.size(),
              rx::conformance::valueCases().size(), rx::conformance::gradCases().size(), rx::conformance::invalidCases().size());
    }
};

QTEST_GUILESS_MAIN(TestConformance)
#include "test_conformance.moc"
