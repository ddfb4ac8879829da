// Control flow on the CPU backend (issue 21 item 5): pd_op.if, pd_op.while, cf.yield and the
// cf stacks run; the corpus control-flow programs verify as equivalent with their figures.
#include <QtTest>

#include <thread>

#include "exec/Liveness.h"
#include "exec/Verify.h"
#include "exec/cpu/CpuExecutor.h"
#include "model/Diagnostic.h"
#include "model/PirReader.h"
#include "model/PirWriter.h"

using namespace rx;
using namespace rx::exec;

namespace {

std::string corpus(const char* name) { return std::string(RX_SHARED_DIR) + "/corpus/pir-real/" + name; }

RunResult runCapturing(const Program& p, const std::vector<std::string>& values, const RunInputs& in = {}) {
    RunOptions o;
    o.captureValues = values;
    CpuExecutor cpu;
    return cpu.run(p, in, o);
}

LiveBytes model(const Program& p, const RunResult& run) {
    return liveBytesOf(p, analyzeLiveness(p, residentMask(p, RunOptions{})), &run.controlPath);
}

// The memory model along the run's path against the bytes the run held, op by op.
void checkMeasuredEqualsModel(const Program& p, const RunResult& run) {
    const LiveBytes model = ::model(p, run);
    QVERIFY2(model.error.empty(), model.error.c_str());
    QCOMPARE(run.ops.size(), model.perOp.size());
    for (size_t i = 0; i < run.ops.size(); ++i) QCOMPARE(run.ops[i].peakBytes, model.perOp[i]);
    QCOMPARE(run.peakBytes, model.peakBytes);
}

Tensor scalarTensor(DType t, std::vector<int64_t> dims, double v) {
    Tensor x(t, std::move(dims));
    for (int64_t i = 0; i < x.numel(); ++i) x.set(i, v);
    return x;
}

}  // namespace

class TestControlFlow : public QObject {
    Q_OBJECT
private slots:
    void corpusProgramsVerify() {
        for (const char* name : {"save-load-doc-if-op-early.pir", "visualdl-if-op.pir", "save-load-doc-while-op-early-fragment.pir"}) {
            Program p = loadProgram(corpus(name));
            CpuExecutor cpu;
            QVERIFY2(cpu.unsupportedOps(p).empty(), name);
            VerifyReport r = verifyPrograms(p, p, {});
            QVERIFY2(r.equivalent, qPrintable(QString(name) + ": " + QString::fromStdString(r.summary())));
            QVERIFY2(r.compared > 0, name);
        }
    }
    // Both branches of an if: i >= 3 takes then (a + a), else a - a.
    void ifTakesTheBranchOfItsCondition() {
        Program p = loadProgram(corpus("save-load-doc-if-op-early.pir"));
        for (double i : {5.0, 1.0}) {
            RunInputs in;
            in.byName["i"] = scalarTensor(DType::Float32, {1}, i);
            in.byName["a"] = scalarTensor(DType::Float32, {1}, 1.5);
            RunResult r = runCapturing(p, {"%4", "%7"}, in);
            QCOMPARE(r.values.at("%4").get(0), i >= 3 ? 3.0 : 0.0);
            QCOMPARE(r.values.at("%7").get(0), i >= 3 ? 3.0 : 0.0);
        }
    }
    // Measured = model on the corpus programs, both branches of the ifs: a block's values
    // are held until it ends, a while's iteration holds the previous one's values.
    void corpusPeaksEqualTheModel() {
        for (const char* name : {"save-load-doc-if-op-early.pir", "visualdl-if-op.pir"})
            for (double i : {5.0, 1.0}) {
                Program p = loadProgram(corpus(name));
                RunInputs in;
                in.byName["i"] = scalarTensor(DType::Float32, {1}, i);
                CpuExecutor cpu;
                RunResult r = cpu.run(p, in, {});
                QCOMPARE(r.controlPath.decisions.size(), size_t(1));
                const bool then = name[0] == 's' ? i >= 3 : i < 5;  // i >= 3 and i < 5 are the conditions
                QCOMPARE(r.controlPath.decisions.begin()->second, std::vector<uint32_t>{then ? 0u : 1u});
                checkMeasuredEqualsModel(p, r);
            }
        Program p = loadProgram(corpus("save-load-doc-while-op-early-fragment.pir"));
        CpuExecutor cpu;
        RunResult r = cpu.run(p, {}, {});
        QCOMPARE(r.controlPath.decisions.begin()->second, std::vector<uint32_t>{10});
        // 3 constants (24 B) and the condition (1 B); in the loop the previous x (8 B), the
        // next x (8 B) and its condition (1 B).
        QCOMPARE(r.peakBytes, int64_t(42));
        checkMeasuredEqualsModel(p, r);
        // Without a run's path the model evaluates the counted loop (constants 0, 1, 10) and
        // finds the same 10 iterations.
        const LiveBytes assumed = liveBytesOf(p, analyzeLiveness(p, residentMask(p, RunOptions{})));
        QCOMPARE(assumed.peakBytes, int64_t(42));
        QCOMPARE(assumed.perOp, model(p, r).perOp);
        // A loop whose condition it cannot evaluate (a float counter) it assumes to run once:
        // the previous x is then the input itself.
        const std::string floatLoop =
            "(%0) = \"pd_op.data\" () {dtype:(pd_op.DataType)float32,name:\"x\",place:(pd_op.Place)Place(cpu),"
            "shape:(pd_op.IntArray)[1],stop_gradient:[true]} : () -> pd_op.tensor<1xf32>\n"
            "(%1) = \"pd_op.full\" () {dtype:(pd_op.DataType)float32,place:(pd_op.Place)Place(cpu),shape:(pd_op.IntArray)[1],"
            "stop_gradient:[true],value:(Float)4} : () -> pd_op.tensor<1xf32>\n"
            "(%2) = \"pd_op.less_than\" (%0, %1) {stop_gradient:[true]} : (pd_op.tensor<1xf32>, pd_op.tensor<1xf32>) -> pd_op.tensor<1xb>\n"
            "(%3) = \"pd_op.while\"(cond=%2, inputs=%0) {\n"
            "^%arg_0\n"
            "    (%4) = \"pd_op.add\" (%arg_0, %1) {stop_gradient:[true]} : (pd_op.tensor<1xf32>, pd_op.tensor<1xf32>) -> pd_op.tensor<1xf32>\n"
            "    (%5) = \"pd_op.less_than\" (%4, %1) {stop_gradient:[true]} : (pd_op.tensor<1xf32>, pd_op.tensor<1xf32>) -> pd_op.tensor<1xb>\n"
            "    () = \"cf.yield\" (%5, %4) {} : (pd_op.tensor<1xb>, pd_op.tensor<1xf32>) ->\n"
            "}\n";
        Program q = parsePir(floatLoop, "float-loop.pir");
        QCOMPARE(liveBytesOf(q, analyzeLiveness(q, residentMask(q, RunOptions{}))).peakBytes, int64_t(4 + 4 + 1 + 4 + 1));
        RunInputs in;
        in.byName["x"] = scalarTensor(DType::Float32, {1}, -10.0);  // runs 4 times: x, then 2 x's and a condition
        RunResult many = cpu.run(q, in, {});
        QCOMPARE(many.controlPath.decisions.begin()->second, std::vector<uint32_t>{4});
        checkMeasuredEqualsModel(q, many);
        QCOMPARE(many.peakBytes, int64_t(4 + 4 + 1 + 4 + 4 + 1));
    }
    // while (x < 10) x = x + 1, from 0: 10 iterations.
    void whileCarriesItsValues() {
        Program p = loadProgram(corpus("save-load-doc-while-op-early-fragment.pir"));
        RunResult r = runCapturing(p, {"%4"});
        QCOMPARE(r.values.at("%4").get(0), 10.0);
        QCOMPARE(r.ops.size(), p.globalBlock().ops.size());  // the while is one top-level op
    }
    void stacksPopInReverse() {
        const std::string text =
            "(%0) = \"pd_op.full\" () {dtype:(pd_op.DataType)float32,place:(pd_op.Place)Place(cpu),shape:(pd_op.IntArray)[2],"
            "stop_gradient:[true],value:(Double)1} : () -> builtin.tensor<2xf32>\n"
            "(%1) = \"pd_op.full\" () {dtype:(pd_op.DataType)float32,place:(pd_op.Place)Place(cpu),shape:(pd_op.IntArray)[2],"
            "stop_gradient:[true],value:(Double)5} : () -> builtin.tensor<2xf32>\n"
            // Paddle prints the control-flow types bare; the reader also takes them with "<>".
            "(%2, %3, %4) = \"cf.stack_create\" () {} : () -> cf.stack, cf.inlet, cf.outlet\n"
            "() = \"cf.tuple_push\" (%3, %0) {} : (cf.inlet, builtin.tensor<2xf32>) -> \n"
            "() = \"cf.tuple_push\" (%3, %1) {} : (cf.inlet<>, builtin.tensor<2xf32>) -> \n"
            "(%5) = \"cf.tuple_pop\" (%4) {} : (cf.outlet<>) -> builtin.tensor<2xf32>\n"
            "(%6) = \"cf.tuple_pop\" (%4) {} : (cf.outlet<>) -> builtin.tensor<2xf32>\n"
            "(%7) = \"pd_op.subtract\" (%5, %6) {stop_gradient:[true]} : (builtin.tensor<2xf32>, builtin.tensor<2xf32>) -> "
            "builtin.tensor<2xf32>\n";
        Program p = parsePir(text, "stack.pir");
        // The bare types print as they came and read back.
        const std::string printed = printProgram(p);
        QVERIFY2(printed.find("-> cf.stack, cf.inlet, cf.outlet") != std::string::npos, printed.c_str());
        QCOMPARE(printProgram(parsePir(printed, "printed.pir")), printed);
        RunResult r = runCapturing(p, {"%7"});
        QCOMPARE(r.values.at("%7").get(0), 4.0);  // 5 (pushed last, popped first) - 1
        // A third pop finds the stack empty: a positioned error, not a crash.
        Program q = parsePir(text + "(%8) = \"cf.tuple_pop\" (%4) {} : (cf.outlet<>) -> builtin.tensor<2xf32>\n", "stack.pir");
        try {
            runCapturing(q, {});
            QFAIL("popping an empty stack ran");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("pops an empty stack") != std::string::npos, e.what());
        }
    }
    // A loop whose condition never turns false stops when cancelled.
    void cancelStopsALoop() {
        const std::string text =
            "(%0) = \"pd_op.full\" () {dtype:(pd_op.DataType)int64,place:(pd_op.Place)Place(cpu),shape:(pd_op.IntArray)[1],"
            "stop_gradient:[true],value:(Float)0} : () -> pd_op.tensor<1xi64>\n"
            "(%1) = \"pd_op.full\" () {dtype:(pd_op.DataType)int64,place:(pd_op.Place)Place(cpu),shape:(pd_op.IntArray)[1],"
            "stop_gradient:[true],value:(Float)1} : () -> pd_op.tensor<1xi64>\n"
            "(%2) = \"pd_op.less_than\" (%0, %1) {stop_gradient:[true]} : (pd_op.tensor<1xi64>, pd_op.tensor<1xi64>) -> pd_op.tensor<1xb>\n"
            "(%3) = \"pd_op.while\"(cond=%2, inputs=%0) {\n"
            "^%arg_0\n"
            "    (%4) = \"pd_op.less_than\" (%arg_0, %1) {stop_gradient:[true]} : (pd_op.tensor<1xi64>, pd_op.tensor<1xi64>) -> pd_op.tensor<1xb>\n"
            "    () = \"cf.yield\" (%4, %arg_0) {} : (pd_op.tensor<1xb>, pd_op.tensor<1xi64>) ->\n"
            "}\n";
        Program p = parsePir(text, "forever.pir");
        std::atomic<bool> cancel{false};
        RunOptions o;
        o.cancel = &cancel;
        std::thread canceller([&] {
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
            cancel = true;  // while the loop spins: the loop itself must look
        });
        CpuExecutor cpu;
        RunResult r = cpu.run(p, {}, o);
        canceller.join();
        QVERIFY(r.cancelled);
        QCOMPARE(r.ops.size(), size_t(3));  // the ops before the while
    }
};

QTEST_MAIN(TestControlFlow)
#include "test_control_flow.moc"
