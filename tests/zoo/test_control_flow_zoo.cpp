// The zoo's control-flow programs (generate MODEL --control-flow): structure as Paddle builds
// it, read back in every printer generation, true gradients, and solve + rewrite + run
// equivalent with measured peak = the memory model, on both branches of the if.
#include "zoo/SolveRewriteRun.h"  // first: Solver.h before Qt (Analysis.h has a member named `slots`)

#include <cmath>

#include "algorithms/zoo/ModelZoo.h"
#include "exec/Verify.h"
#include "exec/cpu/CpuExecutor.h"
#include "model/PirReader.h"
#include "model/PirWriter.h"
#include "model/RecomputeConfig.h"

using namespace rx;
using namespace rx::exec;
using namespace rx::zoo;

namespace {

ZooOptions controlFlow(const std::string& model, DType dt = DType::Float32) {
    ZooOptions o;
    o.model = model;
    o.layers = 1;
    o.hidden = model == "conv" ? 4 : 8;
    o.heads = 2;
    o.seq = 4;
    o.batch = 2;
    o.ffn = model == "conv" ? 0 : 12;
    o.dtype = dt;
    o.controlFlow = true;
    return o;
}

// Ops by name anywhere in the program (nested blocks included).
int countOps(const Program& p, std::string_view name) {
    int n = 0;
    for (const Operation& o : p.ops())
        if (!o.dead && o.parentBlock != kNoId && p.opName(OpId(&o - p.ops().data())) == name) ++n;
    return n;
}

// The forward if's condition: sum(h) > threshold; the threshold is the pd_op.full feeding it.
void setGateThreshold(Program& p, double value) {
    for (OpId op : p.globalBlock().ops)
        if (p.opName(op) == "pd_op.if") {
            const OpId gate = p.value(p.op(op).operands[0]).definingOp;
            QCOMPARE(p.opName(gate), std::string_view("pd_op.greater_than"));
            const OpId full = p.value(p.op(gate).operands[1]).definingOp;
            QCOMPARE(p.opName(full), std::string_view("pd_op.full"));
            p.setOpAttribute(full, "value", Attribute::float32(value));
            p.finish();
            return;
        }
    QFAIL("no gate condition");
}

}  // namespace

class TestControlFlowZoo : public QObject {
    Q_OBJECT
private slots:
    void models_data() {
        QTest::addColumn<QString>("model");
        for (const std::string& m : zooModels()) QTest::newRow(m.c_str()) << QString::fromStdString(m);
    }

    // The forward holds an if and a while, each pushing its block's values on a cf stack; the
    // backward holds their grads: an if on the same condition, a while on has_elements.
    void structureAsPaddleBuildsIt_data() { models_data(); }
    void structureAsPaddleBuildsIt() {
        QFETCH(QString, model);
        GeneratedProgram g = generateModel(controlFlow(model.toStdString()));
        const Program& p = *g.program;
        QCOMPARE(countOps(p, "pd_op.if"), 2);
        QCOMPARE(countOps(p, "pd_op.while"), 2);
        QCOMPARE(countOps(p, "cf.stack_create"), 3);   // one per forward block
        QCOMPARE(countOps(p, "cf.tuple_push"), 3);
        QCOMPARE(countOps(p, "cf.tuple_pop"), 3);
        QCOMPARE(countOps(p, "pd_op.has_elements"), 2);  // before the grad loop and in its body
        const auto& ops = p.globalBlock().ops;
        // Stacks first (build_pipe_for_block inserts at the program's start).
        for (int i = 0; i < 3; ++i) QCOMPARE(p.opName(ops[i]), std::string_view("cf.stack_create"));
        std::vector<uint32_t> ifs, whiles;
        for (uint32_t i = 0; i < ops.size(); ++i) {
            if (p.opName(ops[i]) == "pd_op.if") ifs.push_back(i);
            if (p.opName(ops[i]) == "pd_op.while") whiles.push_back(i);
        }
        const uint32_t fwdEnd = uint32_t(g.spec.fwdOpEndIdx), bwdStart = uint32_t(g.spec.backwardOpStartIdx);
        QVERIFY(ifs[0] <= fwdEnd && whiles[0] <= fwdEnd);    // forward
        QVERIFY(ifs[1] >= bwdStart && whiles[1] >= bwdStart);  // backward: grad while before grad if
        QVERIFY(whiles[1] < ifs[1]);
        // The grad if branches on the forward's condition.
        QCOMPARE(p.op(ops[ifs[1]]).operands[0], p.op(ops[ifs[0]]).operands[0]);
        QCOMPARE(p.opName(p.value(p.op(ops[whiles[1]]).operands[0]).definingOp), std::string_view("pd_op.has_elements"));
        // Every grad block starts by popping the forward block's values.
        for (uint32_t at : {ifs[1], whiles[1]})
            for (const auto& region : p.op(ops[at]).regions)
                QCOMPARE(p.opName(p.block(region[0]).ops.front()), std::string_view("cf.tuple_pop"));
    }

    void readsBackInEveryGeneration() {
        for (Generation gen : {Generation::G1, Generation::G2, Generation::G3}) {
            ZooOptions o = controlFlow("mlp");
            o.generation = gen;
            GeneratedProgram g = generateModel(o);
            const std::string printed = printProgram(*g.program);
            Program back = parsePir(printed, "cf.pir");
            QCOMPARE(printProgram(back), printed);
            QCOMPARE(back.globalBlock().ops.size(), g.program->globalBlock().ops.size());
            // And the text runs. (Not compared with the in-memory program: float attributes
            // print in single precision, so the two differ in low bits.)
            VerifyReport r = verifyPrograms(back, back, {});
            QVERIFY2(r.equivalent, (std::string(generationName(gen)) + ": " + r.summary()).c_str());
        }
    }

    // The backward is the true gradient through both branches and every loop iteration.
    void gradientsMatchFiniteDifferences() {
        for (double threshold : {-1e9, 1e9}) {  // then branch, else branch
            ZooOptions o = controlFlow("mlp", DType::Float64);
            o.dropout = 0;
            GeneratedProgram g = generateModel(o);
            Program& p = *g.program;
            setGateThreshold(p, threshold);
            CpuExecutor ex;
            RunInputs in;
            in.seed = 3;
            RunResult base = ex.run(p, in, {});
            auto lossWith = [&](const std::string& name, const Tensor& value) {
                RunInputs changed = in;
                changed.byName[name] = value;
                return ex.run(p, changed, {}).fetches.at(0).tensor.get(0);
            };
            int checked = 0;
            for (size_t i = 0; i < g.parameters.size(); ++i) {
                const ValueId prm = g.parameters[i];
                const std::string name = p.op(p.value(prm).definingOp).attribute("parameter_name")->text;
                if (name != "gate_0.w_0" && name != "rnn_cell_0.w_0" && name != "linear_0.w_0") continue;
                const Type& t = p.types()[p.value(prm).type];
                const Tensor value = seededInput(name, t.dtype, t.dims, in.seed);
                for (int64_t k : {int64_t(0), value.numel() / 2 + 1}) {
                    Tensor plus = value, minus = value;
                    plus.set(k, value.get(k) + 1e-6);
                    minus.set(k, value.get(k) - 1e-6);
                    const double fd = (lossWith(name, plus) - lossWith(name, minus)) / 2e-6;
                    const double an = base.fetches.at(i + 1).tensor.get(k);
                    QVERIFY2(std::fabs(fd - an) <= 1e-6 + 1e-4 * std::fabs(fd),
                             qPrintable(QString("%1[%2]: backward %3, finite differences %4").arg(QString::fromStdString(name))
                                            .arg(k).arg(an, 0, 'g', 10).arg(fd, 0, 'g', 10)));
                    ++checked;
                }
            }
            QCOMPARE(checked, 6);
            // The else branch gives the gate's weight no gradient: zeros, from the grad if's full_like.
            if (threshold > 0)
                for (size_t i = 0; i < g.parameters.size(); ++i)
                    if (p.op(p.value(g.parameters[i]).definingOp).attribute("parameter_name")->text == "gate_0.w_0")
                        QCOMPARE(base.fetches.at(i + 1).tensor.get(0), 0.0);
        }
    }

    // solve + rewrite + both runs: equivalent bit for bit, and measured = model op by op, on
    // both branches of the if.
    void solveRewriteRunEquivalent_data() { models_data(); }
    void solveRewriteRunEquivalent() {
        QFETCH(QString, model);
        for (double threshold : {-1e9, 1e9}) {
            GeneratedProgram g = generateModel(controlFlow(model.toStdString()));
            setGateThreshold(*g.program, threshold);
            zootest::SolvedAndRun c = zootest::solveAndRun(g.program, g.spec, 5);
            if (QTest::currentTestFailed()) return;
            QVERIFY2(c.report.equivalent, c.report.summary().c_str());
            QCOMPARE(c.report.bitwiseEqual, c.report.compared);
            QCOMPARE(c.report.compared, int(g.parameters.size()) + 1);
            // solve's own figures (no run: the counted loop evaluated, the then branch
            // assumed) are the measured ones when the then branch runs.
            if (threshold < 0) {
                QCOMPARE(c.solved.originalMemory.peakBytes, c.original.peakBytes);
                QCOMPARE(c.solved.rewrittenMemory.peakBytes, c.rewritten.peakBytes);
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestControlFlowZoo)
#include "test_control_flow_zoo.moc"
