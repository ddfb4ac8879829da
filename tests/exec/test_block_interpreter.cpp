// The shared block interpreter (exec/BlockInterpreter.h) driven by a recording test backend, no
// CPU kernels: the branch an if takes, a while's iterations, cf stacks, cancel between
// iterations and when values are freed are the interpreter's, whatever backend runs the ops.
#include <QtTest>

#include <algorithm>
#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "exec/BlockInterpreter.h"
#include "exec/Liveness.h"
#include "model/Diagnostic.h"
#include "model/PirReader.h"

using namespace rx;
using namespace rx::exec;

namespace {

// A one-number "tensor": its value, the value that made it, and a log entry when it goes.
struct FakeTensor {
    DType dtype = DType::Float32;
    std::vector<int64_t> dims;
    double value = 0;
    std::string madeAs;
    int64_t bytes = 0;
    std::vector<std::string>* log = nullptr;
    int64_t* held = nullptr;
    ~FakeTensor() {
        log->push_back("free " + madeAs);
        *held -= bytes;
    }
};

// Runs data/full/add/subtract/greater_equal/less_than/mean on FakeTensors, logging every op
// it runs, every condition it reads and every free; holds the declared bytes of live tensors.
class RecordingBackend {
public:
    using Handle = std::shared_ptr<const FakeTensor>;
    using Slot = SlotOf<Handle>;

    RecordingBackend(const Program& p, std::map<std::string, double> inputs) : program_(p), inputs_(std::move(inputs)) {}
    std::vector<std::string> log;
    std::map<std::string, double> topLevelValues;  // each top-level result's value, by name
    std::vector<OpRecord> records;
    int conditionsRead = 0;
    std::function<void()> onConditionRead;

    void attach(std::vector<Slot>& values) { slots_ = &values; }

    void runKernel(OpId op, size_t, std::vector<const Slot*> in, std::vector<Slot>& out) {
        const Operation& o = program_.op(op);
        const std::string name(program_.opName(op));
        auto operand = [&](size_t i) { return in.at(i)->tensor->value; };
        double v = 0;
        if (name == "pd_op.data") v = inputs_.at(attrString(o, "name", ""));
        else if (name == "pd_op.full") v = attrFloat(o, "value", 0);
        else if (name == "pd_op.add") v = operand(0) + operand(1);
        else if (name == "pd_op.subtract") v = operand(0) - operand(1);
        else if (name == "pd_op.greater_equal") v = operand(0) >= operand(1);
        else if (name == "pd_op.less_than") v = operand(0) < operand(1);
        else if (name == "pd_op.mean") v = operand(0);
        else failAt(program_, op, "the recording backend has no " + name);
        const ValueId r = o.results.at(0);
        log.push_back("run " + program_.value(r).name);
        out.at(0).tensor = make(r, v);
        out.at(0).set = true;
    }
    bool truthOf(OpId, const Handle& t) {
        ++conditionsRead;
        if (onConditionRead) onConditionRead();
        return t->value != 0;
    }
    Handle boolFlag(OpId op, bool value) { return make(program_.op(op).results.at(0), value ? 1 : 0); }

    void beginOp(size_t, OpId) { peak_ = held_; }
    int64_t opPeakBytes() const { return peak_; }
    void endOp(size_t, OpId op) {
        for (ValueId r : program_.op(op).results)
            if ((*slots_)[r].set && (*slots_)[r].tensor) topLevelValues[program_.value(r).name] = (*slots_)[r].tensor->value;
    }
    int64_t heldBytes() const { return held_; }
    void opFinished(size_t position, const OpRecord& rec) {
        log.push_back("done " + std::to_string(position));
        records.push_back(rec);
    }

private:
    const Program& program_;
    std::map<std::string, double> inputs_;
    std::vector<Slot>* slots_ = nullptr;
    int64_t held_ = 0, peak_ = 0;

    Handle make(ValueId r, double v) {
        auto t = std::make_shared<FakeTensor>();
        const Type& type = program_.types()[program_.value(r).type];
        t->dtype = type.dtype;
        t->dims = type.dims;
        t->value = v;
        t->madeAs = program_.value(r).name;
        t->bytes = program_.valueBytes(r);
        t->log = &log;
        t->held = &held_;
        held_ += t->bytes;
        peak_ = std::max(peak_, held_);
        return t;
    }
};

// Takes the decisions of a recorded ControlPath instead of reading conditions (the mode the
// memory model runs the interpreter in).
class ReplayingBackend : public RecordingBackend {
public:
    ReplayingBackend(const Program& p, std::map<std::string, double> inputs, ControlPath path)
        : RecordingBackend(p, std::move(inputs)), path_(std::move(path)) {}
    std::optional<uint32_t> recordedDecision(OpId op) {
        auto it = path_.decisions.find(op);
        if (it == path_.decisions.end() || next_[op] >= it->second.size()) return std::nullopt;
        return it->second[next_[op]++];
    }

private:
    ControlPath path_;
    std::map<OpId, size_t> next_;
};

struct Outcome {
    RunResult result;
    std::vector<std::string> log;
    std::map<std::string, double> values;
    std::vector<OpRecord> records;
    int conditionsRead = 0;
};

template <class Backend>
Outcome interpretWith(const Program& p, Backend& backend, const std::atomic<bool>* cancel, RunOptions options = {}) {
    options.cancel = cancel;
    const std::vector<uint8_t> resident = residentMask(p, options);
    const RunControl control(options, ProgramCheck{}, resident, p.globalBlock().ops.size());
    const Liveness liveness = analyzeLiveness(p, resident);
    Outcome out;
    {
        BlockInterpreter<Backend> interpreter(p, backend, options, control, out.result);
        backend.attach(interpreter.valueSlots());
        interpreter.runGlobalBlock(liveness.valuesDeadAfter);
    }
    out.log = backend.log;
    out.values = backend.topLevelValues;
    out.records = backend.records;
    out.conditionsRead = backend.conditionsRead;
    return out;
}

Outcome interpret(const Program& p, std::map<std::string, double> inputs, const std::atomic<bool>* cancel = nullptr,
                  std::function<void(RecordingBackend&)> setUp = {}) {
    RecordingBackend backend(p, std::move(inputs));
    if (setUp) setUp(backend);
    return interpretWith(p, backend, cancel);
}

Outcome replay(const Program& p, std::map<std::string, double> inputs, ControlPath path) {
    ReplayingBackend backend(p, std::move(inputs), std::move(path));
    return interpretWith(p, backend, nullptr);
}

OpId firstOpNamed(const Program& p, std::string_view name) {
    for (OpId id = 0; id < p.ops().size(); ++id)
        if (p.opName(id) == name) return id;
    return kNoId;
}

std::string corpus(const char* name) { return std::string(RX_SHARED_DIR) + "/corpus/pir-real/" + name; }

qsizetype nthIndexOf(const std::vector<std::string>& log, const std::string& entry, int n) {
    for (size_t i = 0; i < log.size(); ++i)
        if (log[i] == entry && --n == 0) return qsizetype(i);
    return -1;
}
qsizetype indexOf(const std::vector<std::string>& log, const std::string& entry) { return nthIndexOf(log, entry, 1); }
int countOf(const std::vector<std::string>& log, const std::string& entry) { return int(std::count(log.begin(), log.end(), entry)); }

// The backend's bytes, op by op, against the memory model along the run's path.
void checkHeldBytesEqualTheModel(const Program& p, const Outcome& o) {
    const LiveBytes model = liveBytesOf(p, analyzeLiveness(p, residentMask(p, RunOptions{})), &o.result.controlPath);
    QVERIFY2(model.error.empty(), model.error.c_str());
    QCOMPARE(o.records.size(), model.perOp.size());
    for (size_t i = 0; i < o.records.size(); ++i) QCOMPARE(o.records[i].peakBytes, model.perOp[i]);
    QCOMPARE(o.result.peakBytes, model.peakBytes);
}

const char* kStackProgram =
    "(%0) = \"pd_op.full\" () {dtype:(pd_op.DataType)float32,place:(pd_op.Place)Place(cpu),shape:(pd_op.IntArray)[2],"
    "stop_gradient:[true],value:(Double)1} : () -> builtin.tensor<2xf32>\n"
    "(%1) = \"pd_op.full\" () {dtype:(pd_op.DataType)float32,place:(pd_op.Place)Place(cpu),shape:(pd_op.IntArray)[2],"
    "stop_gradient:[true],value:(Double)5} : () -> builtin.tensor<2xf32>\n"
    "(%2, %3, %4) = \"cf.stack_create\" () {} : () -> cf.stack, cf.inlet, cf.outlet\n"
    "() = \"cf.tuple_push\" (%3, %0) {} : (cf.inlet, builtin.tensor<2xf32>) -> \n"
    "() = \"cf.tuple_push\" (%3, %1) {} : (cf.inlet, builtin.tensor<2xf32>) -> \n"
    "(%5) = \"pd_op.has_elements\" (%2) {} : (cf.stack) -> builtin.tensor<1xb>\n"
    "(%6) = \"cf.tuple_pop\" (%4) {} : (cf.outlet) -> builtin.tensor<2xf32>\n"
    "(%7) = \"cf.tuple_pop\" (%4) {} : (cf.outlet) -> builtin.tensor<2xf32>\n"
    "(%8) = \"pd_op.has_elements\" (%2) {} : (cf.stack) -> builtin.tensor<1xb>\n"
    "(%9) = \"pd_op.subtract\" (%6, %7) {stop_gradient:[true]} : (builtin.tensor<2xf32>, builtin.tensor<2xf32>) -> "
    "builtin.tensor<2xf32>\n";

}  // namespace

class TestBlockInterpreter : public QObject {
    Q_OBJECT
private slots:
    // i >= 3 runs the then block (%5 = a + a) and never the else block (%6 = a - a), and back.
    void ifRunsOnlyTheBranchItsConditionTakes() {
        const Program p = loadProgram(corpus("save-load-doc-if-op-early.pir"));
        for (double i : {5.0, 1.0}) {
            const bool then = i >= 3;
            const Outcome o = interpret(p, {{"i", i}, {"a", 1.5}});
            QCOMPARE(countOf(o.log, "run %5"), then ? 1 : 0);
            QCOMPARE(countOf(o.log, "run %6"), then ? 0 : 1);
            QCOMPARE(o.conditionsRead, 1);
            QCOMPARE(o.values.at("%4"), then ? 3.0 : 0.0);
            QCOMPARE(o.values.at("%7"), then ? 3.0 : 0.0);
            QCOMPARE(o.result.controlPath.decisions.size(), size_t(1));
            QCOMPARE(o.result.controlPath.decisions.begin()->second, std::vector<uint32_t>{then ? 0u : 1u});
            // The condition goes after the if, its last reader (position 4), before the mean runs;
            // the yielded value lives on as %4 until the mean (position 5) has read it.
            const qsizetype condFreed = indexOf(o.log, "free %3");
            QVERIFY(condFreed > indexOf(o.log, then ? "run %5" : "run %6"));
            QVERIFY(condFreed < indexOf(o.log, "done 4"));
            const qsizetype branchFreed = indexOf(o.log, then ? "free %5" : "free %6");
            QVERIFY(branchFreed > indexOf(o.log, "run %7"));
            QVERIFY(branchFreed < indexOf(o.log, "done 5"));
            checkHeldBytesEqualTheModel(p, o);
        }
    }
    // while (x < 10) x = x + 1 from 0: ten bodies, eleven conditions read, each iteration's
    // previous value freed inside the loop.
    void whileRunsItsBodyUntilTheConditionTurnsFalse() {
        const Program p = loadProgram(corpus("save-load-doc-while-op-early-fragment.pir"));
        const Outcome o = interpret(p, {});
        QCOMPARE(countOf(o.log, "run %5"), 10);
        QCOMPARE(o.conditionsRead, 11);
        QCOMPARE(o.values.at("%4"), 10.0);
        QCOMPARE(o.result.controlPath.decisions.begin()->second, std::vector<uint32_t>{10});
        // Nine carried values die in the loop, the tenth (%4, read by nobody) after the while.
        QCOMPARE(countOf(o.log, "free %5"), 10);
        // The first body's value is held while the second body makes the next one, then goes.
        const qsizetype firstFreed = indexOf(o.log, "free %5");
        QVERIFY(firstFreed > nthIndexOf(o.log, "run %5", 2));
        QVERIFY(firstFreed < nthIndexOf(o.log, "run %5", 3));
        QVERIFY(nthIndexOf(o.log, "free %5", 10) < indexOf(o.log, "done 4"));
        QVERIFY(indexOf(o.log, "free %0") > nthIndexOf(o.log, "run %5", 10));  // the while's operand: until it ends
        checkHeldBytesEqualTheModel(p, o);
    }
    void stacksPopLastPushedFirst() {
        const Program p = parsePir(kStackProgram, "stack.pir");
        const Outcome o = interpret(p, {});
        QCOMPARE(o.values.at("%9"), 4.0);  // 5 (pushed last, popped first) - 1
        QCOMPARE(o.values.at("%5"), 1.0);  // elements before the pops, none after
        QCOMPARE(o.values.at("%8"), 0.0);
        checkHeldBytesEqualTheModel(p, o);
        try {
            interpret(parsePir(std::string(kStackProgram) + "(%10) = \"cf.tuple_pop\" (%4) {} : (cf.outlet) -> builtin.tensor<2xf32>\n",
                               "stack.pir"),
                      {});
            QFAIL("popping an empty stack ran");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("op 10 (cf.tuple_pop -> %10): pops an empty stack") != std::string::npos, e.what());
        }
        // The stacks are bounded (a loop that never ended, pushing, grew until the allocator failed).
        RunOptions bounded;
        bounded.maxStackedValues = 1;
        RecordingBackend backend(p, {});
        try {
            interpretWith(p, backend, nullptr, bounded);
            QFAIL("a second value pushed past a limit of one ran");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("op 4 (cf.tuple_push): the cf stacks hold 2 pushed values (limit 1, "
                                                "RunOptions::maxStackedValues)") != std::string::npos,
                     e.what());
        }
        bounded.maxStackedValues = 2;  // both pushes fit, and the pops give their places back
        RecordingBackend fits(p, {});
        QCOMPARE(interpretWith(p, fits, nullptr, bounded).values.at("%9"), 4.0);
    }
    // A backend following a recorded path runs the recorded branch and iterations without
    // reading a condition: i = 5 would take the then block, the path says else; the loop
    // would run ten times, the path says three.
    void aRecordedPathDecidesInsteadOfTheConditions() {
        const Program ifProgram = loadProgram(corpus("save-load-doc-if-op-early.pir"));
        ControlPath elseBranch;
        elseBranch.decisions[firstOpNamed(ifProgram, "pd_op.if")] = {1};
        const Outcome i = replay(ifProgram, {{"i", 5.0}, {"a", 1.5}}, elseBranch);
        QCOMPARE(countOf(i.log, "run %5"), 0);
        QCOMPARE(countOf(i.log, "run %6"), 1);
        QCOMPARE(i.conditionsRead, 0);
        QCOMPARE(i.values.at("%4"), 0.0);
        QCOMPARE(i.result.controlPath.decisions, elseBranch.decisions);
        checkHeldBytesEqualTheModel(ifProgram, i);

        const Program whileProgram = loadProgram(corpus("save-load-doc-while-op-early-fragment.pir"));
        ControlPath threeIterations;
        threeIterations.decisions[firstOpNamed(whileProgram, "pd_op.while")] = {3};
        const Outcome w = replay(whileProgram, {}, threeIterations);
        QCOMPARE(countOf(w.log, "run %5"), 3);
        QCOMPARE(w.conditionsRead, 0);
        QCOMPARE(w.values.at("%4"), 3.0);
        QCOMPARE(w.result.controlPath.decisions, threeIterations.decisions);
        checkHeldBytesEqualTheModel(whileProgram, w);
    }
    // The memory model runs the interpreter tolerant: a pop of an empty stack, which a run
    // fails at (above), leaves its result unset and the model still counts every op.
    void theModelStepsOverWhatARunFailsAt() {
        const Program p =
            parsePir(std::string(kStackProgram) + "(%10) = \"cf.tuple_pop\" (%4) {} : (cf.outlet) -> builtin.tensor<2xf32>\n", "stack.pir");
        const LiveBytes model = liveBytesOf(p, analyzeLiveness(p, residentMask(p, RunOptions{})));
        QVERIFY2(model.error.empty(), model.error.c_str());
        QCOMPARE(model.perOp.size(), size_t(11));
        QCOMPARE(model.perOp[9], int64_t(3 * 8));  // the subtract: its operands and its result
        QCOMPARE(model.perOp[10], int64_t(0));     // every value gone; the pop made nothing
    }
    // Cancel set while the loop runs stops it before its next iteration: the run is cancelled,
    // the while records no decision and no later op runs.
    void cancelStopsALoopBetweenIterations() {
        const Program p = loadProgram(corpus("save-load-doc-while-op-early-fragment.pir"));
        std::atomic<bool> cancel{false};
        const Outcome o = interpret(p, {}, &cancel, [&](RecordingBackend& b) {
            b.onConditionRead = [&b, &cancel] {
                if (b.conditionsRead == 3) cancel = true;  // the entry condition and two bodies' conditions
            };
        });
        QVERIFY(o.result.cancelled);
        QCOMPARE(countOf(o.log, "run %5"), 2);
        QVERIFY(o.result.controlPath.decisions.empty());
        QCOMPARE(o.records.size(), size_t(4));  // the ops before the while
    }
    // A backend that cannot run an op fails positioned; so does a condition of two elements.
    void errorsNameTheOp() {
        const std::string text =
            "(%0) = \"pd_op.full\" () {dtype:(pd_op.DataType)bool,place:(pd_op.Place)Place(cpu),shape:(pd_op.IntArray)[2],"
            "stop_gradient:[true],value:(Float)1} : () -> pd_op.tensor<2xb>\n"
            "(%1) = pd_op.if (%0) {stop_gradient:[true]} -> pd_op.tensor<2xb>\n"
            "{\n"
            "    () = \"cf.yield\" (%0) {} : (pd_op.tensor<2xb>) ->\n"
            "} else {\n"
            "    () = \"cf.yield\" (%0) {} : (pd_op.tensor<2xb>) ->\n"
            "}\n";
        try {
            interpret(parsePir(text, "two.pir"), {});
            QFAIL("a two-element condition ran");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("op 1 (pd_op.if -> %1): the condition has 2 elements, expected 1") != std::string::npos,
                     e.what());
        }
    }
};

QTEST_MAIN(TestBlockInterpreter)
#include "test_block_interpreter.moc"
