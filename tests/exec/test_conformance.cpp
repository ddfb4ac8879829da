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
        for (const InvalidCase& ic : rx::conformance::invalidCases())
            if (std::string got = refusal(cpu, ic); got != ic.message)
                failures += ic.what + ": refused with \"" + got + "\", expected \"" + ic.message + "\"\n";
        if (!failures.empty()) QFAIL(qPrintable(QString::fromStdString(failures)));
    }
    // Every op a case names is one the backend runs (a renamed kernel cannot silently drop
    // out of the suite); the coverage is printed for the report.
    void coverage() {
        std::vector<std::string> supported = exec::CpuExecutor::supportedOps();
        std::set<std::string> all(supported.begin(), supported.end()), covered;
        for (const ValueCase& vc : rx::conformance::valueCases()) covered.insert(vc.op);
        for (const GradCase& gc : rx::conformance::gradCases()) { covered.insert(gc.forward); covered.insert(gc.grad); }
        for (const std::string& op : covered)
            if (!all.count(op)) QFAIL(qPrintable(QString::fromStdString("the suite names " + op + ", which the CPU backend does not run")));
        for (const std::string& op : all) if (!covered.count(op)) qInfo("uncovered: %s", op.c_str());
        qInfo("conformance: %zu of the CPU backend's %zu ops have cases", covered.size(), all.size());
    }
};

QTEST_GUILESS_MAIN(TestConformance)
#include "test_conformance.moc"
