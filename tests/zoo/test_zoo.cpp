// The model zoo's programs: structure, parse-back, determinism, true gradients (finite
// differences in f64), and equivalence of original and rewritten programs by execution on
// generated, bundled and torch-joint programs, with the measured peak against the model.
#include "algorithms/Solver.h"  // before Qt: Analysis.h has a member named `slots`

#include <QtTest>

#include <cmath>
#include <malloc.h>
#include <filesystem>
#include <unordered_set>

#include "exec/cpu/CpuExecutor.h"
#include "exec/Verify.h"
#include "algorithms/zoo/ModelZoo.h"
#include "model/Diagnostic.h"
#include "model/PirReader.h"
#include "model/PirWriter.h"
#include "model/RecomputeConfig.h"
#include "model/RecomputeSpec.h"

using namespace rx;
using namespace rx::exec;
using namespace rx::zoo;

namespace {

ZooOptions small(const std::string& model, bool composite, DType dt = DType::Float32) {
    ZooOptions o;
    o.model = model;
    o.layers = 2;
    o.hidden = model == "conv" ? 4 : 8;
    o.heads = 2;
    o.seq = model == "conv" ? 4 : 4;
    o.batch = 2;
    o.ffn = model == "conv" ? 0 : 12;
    o.dtype = dt;
    o.composite = composite;
    return o;
}

// Define-before-use, no dead ops, spec layout as documented.
void checkStructure(const GeneratedProgram& g) {
    const Program& p = *g.program;
    const Block& b = p.globalBlock();
    std::vector<uint8_t> defined(p.values().size(), 0);
    for (size_t i = 0; i < b.ops.size(); ++i) {
        const Operation& o = p.op(b.ops[i]);
        QVERIFY(!o.dead);
        for (ValueId v : o.operands) {
            QVERIFY2(v != kNoId, "null operand");
            QVERIFY2(defined[v], qPrintable(QString("op %1 (%2) uses %3 before its definition")
                                                .arg(i).arg(QString::fromStdString(std::string(p.opName(b.ops[i]))))
                                                .arg(QString::fromStdString(p.value(v).name))));
        }
        for (ValueId r : o.results) defined[r] = 1;
        QVERIFY(o.attribute("stop_gradient") != nullptr);
    }
    const RecomputeSpec& s = g.spec;
    QCOMPARE(p.value(g.loss).definingOp, b.ops[s.fwdOpEndIdx]);
    QCOMPARE(p.opName(b.ops[s.fwdOpEndIdx + 1]), std::string_view("pd_op.full"));  // the gradient seed
    QCOMPARE(s.backwardOpStartIdx, s.fwdOpEndIdx + 2);
    QCOMPARE(s.gradOutputs.size(), size_t(1));
    QCOMPARE(p.types()[p.value(s.gradOutputs[0]).type], p.types()[p.value(g.loss).type]);
    for (ValueId v : s.inputs) {
        std::string_view n = p.opName(p.value(v).definingOp);
        QVERIFY(n == "pd_op.data" || n == "builtin.parameter");
    }
    for (size_t i = 0; i < g.parameters.size(); ++i) {
        QCOMPARE(p.opName(p.value(g.parameters[i]).definingOp), std::string_view("builtin.parameter"));
        QCOMPARE(p.types()[p.value(g.parameterGrads[i]).type], p.types()[p.value(g.parameters[i]).type]);
        // gradients are computed in the backward range
        QVERIFY(p.indexInBlock(p.value(g.parameterGrads[i]).definingOp) >= uint32_t(s.backwardOpStartIdx));
    }
    QCOMPARE(p.opName(b.ops.back()), std::string_view("pd_op.fetch"));
}

std::string paramName(const Program& p, ValueId v) {
    return p.op(p.value(v).definingOp).attribute("parameter_name")->text;
}

double lossOf(const Program& p, const RunInputs& in) {
    CpuExecutor ex;
    RunOptions ro;
    ro.recordOpTimes = false;
    return ex.run(p, in, ro).fetches.at(0).tensor.get(0);
}

// Gradients of the generated program against central differences of its own loss.
void checkGradients(const ZooOptions& o) {
    GeneratedProgram g = generateModel(o);
    const Program& p = *g.program;
    CpuExecutor ex;
    RunInputs in;
    in.seed = 3;
    RunResult base = ex.run(p, in, {});
    QCOMPARE(base.fetches.size(), g.parameters.size() + 1);
    const double eps = 1e-6;
    int checked = 0;
    for (size_t i = 0; i < g.parameters.size(); ++i) {
        ValueId prm = g.parameters[i];
        const Type& t = p.types()[p.value(prm).type];
        std::string name = paramName(p, prm);
        Tensor value = seededInput(name, t.dtype, t.dims, in.seed);
        const Tensor& grad = base.fetches[i + 1].tensor;
        QCOMPARE(grad.dims, t.dims);
        // two elements per parameter: the first and one in the middle
        for (int64_t k : {int64_t(0), value.numel() / 2 + 1}) {
            if (k >= value.numel()) continue;
            RunInputs plus = in, minus = in;
            Tensor vp = value, vm = value;
            vp.set(k, value.get(k) + eps);
            vm.set(k, value.get(k) - eps);
            plus.byName[name] = vp;
            minus.byName[name] = vm;
            double fd = (lossOf(p, plus) - lossOf(p, minus)) / (2 * eps);
            double an = grad.get(k);
            if (std::fabs(fd - an) > 1e-6 + 1e-4 * std::fabs(fd))
                QFAIL(qPrintable(QString("%1 %2: d loss / d %3[%4] = %5 by the backward, %6 by finite differences")
                                     .arg(QString::fromStdString(o.model)).arg(o.composite ? "composite" : "prim")
                                     .arg(QString::fromStdString(name)).arg(k).arg(an, 0, 'g', 10).arg(fd, 0, 'g', 10)));
            ++checked;
        }
    }
    QVERIFY(checked >= 2 * static_cast<int>(g.parameters.size()) - 2);
}

struct Checked {
    VerifyReport report;
    SolveResult solved;
    RunResult original, rewritten;
};

// Solve with the seed's config, run both programs, compare bit for bit; measured peaks
// (spec inputs resident, as the memory model counts) against the model's.
Checked solveAndVerify(std::shared_ptr<const Program> program, const RecomputeSpec& spec) {
    Checked c;
    RecomputeSolver solver(program, spec);
    c.solved = solver.solve(RecomputeConfig::seedDefaults());
    if (!c.solved.ok()) throw Error("solver failed: " + c.solved.error);
    CpuExecutor ex;
    RunInputs in;
    in.seed = 11;
    RunOptions ro;
    ro.residentValues = spec.inputs;
    c.original = ex.run(*program, in, ro);
    c.rewritten = ex.run(*c.solved.rewritten, in, ro);
    c.report = compareRuns(c.original, c.rewritten, {});
    return c;
}

}  // namespace

class TestZoo : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        // The torch-joint programs allocate 16-32 MiB tensors; glibc would mmap and unmap
        // (and the kernel zero) each one. Keeping them in the heap halves the test's time.
        mallopt(M_MMAP_THRESHOLD, 256 << 20);
        mallopt(M_TRIM_THRESHOLD, 512 << 20);
    }
    void structureAndExecution_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<bool>("composite");
        for (const std::string& m : zooModels()) {
            QTest::newRow((m + " prim").c_str()) << QString::fromStdString(m) << false;
            QTest::newRow((m + " composite").c_str()) << QString::fromStdString(m) << true;
        }
    }
    void structureAndExecution() {
        QFETCH(QString, model);
        QFETCH(bool, composite);
        for (DType dt : {DType::Float32, DType::Float16, DType::BFloat16}) {
            GeneratedProgram g = generateModel(small(model.toStdString(), composite, dt));
            checkStructure(g);
            // Running checks every result's declared type against what the kernel computes.
            CpuExecutor ex;
            QVERIFY(ex.unsupportedOps(*g.program).empty());
            RunResult r = ex.run(*g.program, {}, {});
            QCOMPARE(r.fetches.size(), g.parameters.size() + 1);
            QVERIFY(std::isfinite(r.fetches[0].tensor.get(0)));
        }
    }
    void compositeAndPrimAgree_data() {
        QTest::addColumn<QString>("model");
        for (const std::string& m : zooModels()) QTest::newRow(m.c_str()) << QString::fromStdString(m);
    }
    void compositeAndPrimAgree() {
        // Same parameters and inputs, two op vocabularies: losses and gradients agree.
        QFETCH(QString, model);
        ZooOptions oa = small(model.toStdString(), false, DType::Float64);
        oa.dropout = 0;  // dropout masks are keyed by value name, which differ between the two
        ZooOptions ob = oa;
        ob.composite = true;
        GeneratedProgram a = generateModel(oa);
        GeneratedProgram b = generateModel(ob);
        QCOMPARE(a.parameters.size(), b.parameters.size());
        CpuExecutor ex;
        RunResult ra = ex.run(*a.program, {}, {}), rb = ex.run(*b.program, {}, {});
        // Not bitwise: scalar constants of pd_op.scale are f32 tensors (as in Paddle), so the
        // decomposed GELU / attention scale round 1/sqrt(2), 1/sqrt(d) to float.
        VerifyOptions tol;
        tol.rtol = 1e-6;
        tol.atol = 1e-7;  // batch-norm gradients cancel: 1e-8 relative becomes ~3e-9 absolute
        VerifyReport rep = compareRuns(ra, rb, tol);
        QVERIFY2(rep.equivalent, rep.summary().c_str());
    }
    void parsesBackInEveryGeneration() {
        for (const std::string& m : zooModels())
            for (Generation gen : {Generation::G1, Generation::G2, Generation::G3}) {
                ZooOptions o = small(m, m == "llama");
                o.generation = gen;
                GeneratedProgram g = generateModel(o);
                std::string text = printProgram(*g.program);
                Program back = parsePir(text, m + ".pir");
                QCOMPARE(back.generation(), gen);
                QCOMPARE(back.globalBlock().ops.size(), g.program->globalBlock().ops.size());
                for (size_t i = 0; i < back.globalBlock().ops.size(); ++i) {
                    OpId x = back.globalBlock().ops[i], y = g.program->globalBlock().ops[i];
                    QCOMPARE(back.opName(x), g.program->opName(y));
                    QCOMPARE(back.op(x).results.size(), g.program->op(y).results.size());
                    for (size_t k = 0; k < back.op(x).results.size(); ++k) {
                        TypeId bt = back.value(back.op(x).results[k]).type;
                        TypeId gt = g.program->value(g.program->op(y).results[k]).type;
                        // vector types hold element ids of their own table: compare printed forms
                        QVERIFY2(printType(back, bt, gen) == printType(*g.program, gt, gen),
                                 qPrintable(QString("%1 op %2 (%3) result %4: %5 read back, %6 generated")
                                                .arg(QString::fromStdString(m)).arg(i)
                                                .arg(QString::fromStdString(std::string(back.opName(x)))).arg(k)
                                                .arg(QString::fromStdString(printType(back, bt, gen)))
                                                .arg(QString::fromStdString(printType(*g.program, gt, gen)))));
                    }
                }
                // The spec survives the trip through JSON by value name.
                RecomputeSpec spec = parseSpecJson(specJson(g), back, "spec.json");
                QCOMPARE(spec.fwdOpEndIdx, g.spec.fwdOpEndIdx);
                QCOMPARE(spec.inputs.size(), g.spec.inputs.size());
                QCOMPARE(printProgram(back), text);
                // The parsed program runs (constants are printed with 6 digits, as Paddle does).
                CpuExecutor ex;
                QVERIFY(std::isfinite(ex.run(back, {}, {}).fetches.at(0).tensor.get(0)));
            }
    }
    void deterministic() {
        ZooOptions o = small("llama", false);
        QCOMPARE(printProgram(*generateModel(o).program), printProgram(*generateModel(o).program));
    }
    void badOptionsAreErrors() {
        ZooOptions o = small("transformer", false);
        o.hidden = 10;
        o.heads = 4;
        QVERIFY_THROWS_EXCEPTION(Error, generateModel(o));
        o = small("resnet", false);
        QVERIFY_THROWS_EXCEPTION(Error, generateModel(o));
        o = small("mlp", false);
        o.layers = 0;
        QVERIFY_THROWS_EXCEPTION(Error, generateModel(o));
    }
    void gradientsMatchFiniteDifferences_data() { structureAndExecution_data(); }
    void gradientsMatchFiniteDifferences() {
        QFETCH(QString, model);
        QFETCH(bool, composite);
        ZooOptions o = small(model.toStdString(), composite, DType::Float64);
        o.layers = 1;
        checkGradients(o);
    }
    void generatedProgramsSurviveRecompute_data() { structureAndExecution_data(); }
    void generatedProgramsSurviveRecompute() {
        QFETCH(QString, model);
        QFETCH(bool, composite);
        for (DType dt : {DType::Float32, DType::BFloat16}) {
            GeneratedProgram g = generateModel(small(model.toStdString(), composite, dt));
            Checked c = solveAndVerify(g.program, g.spec);
            QVERIFY2(c.report.equivalent, c.report.summary().c_str());
            QCOMPARE(c.report.bitwiseEqual, c.report.compared);
            QCOMPARE(c.original.peakBytes, c.solved.originalMemory.peakBytes);
            QCOMPARE(c.rewritten.peakBytes, c.solved.rewrittenMemory.peakBytes);
        }
    }
    void recomputeHappensOnPrimPrograms() {
        GeneratedProgram g = generateModel(small("transformer", false));
        Checked c = solveAndVerify(g.program, g.spec);
        QVERIFY(!c.solved.clones.empty());
        QVERIFY(c.report.equivalent);
        QVERIFY(c.rewritten.peakBytes < c.original.peakBytes);
    }
    void torchJointProgramsSurviveRecompute_data() {
        QTest::addColumn<QString>("file");
        for (const char* f : {"mlp.aten", "mlp.prim", "transformer_layer.aten", "transformer_layer.prim"})
            QTest::newRow(f) << QString(f);
    }
    void torchJointProgramsSurviveRecompute() {
        QFETCH(QString, file);
        std::string base = std::string(RX_SHARED_DIR) + "/corpus/torch-joint/" + file.toStdString();
        auto program = std::make_shared<Program>(readPirFile(base + ".pir"));
        RecomputeSpec spec = readSpecFile(base + ".spec.json", *program);
        Checked c = solveAndVerify(program, spec);
        QVERIFY2(c.report.equivalent, c.report.summary().c_str());
        QVERIFY(c.report.compared > 0);
        QCOMPARE(c.report.bitwiseEqual, c.report.compared);
        QCOMPARE(c.original.peakBytes, c.solved.originalMemory.peakBytes);
        QCOMPARE(c.rewritten.peakBytes, c.solved.rewrittenMemory.peakBytes);
    }
    void bundledCaseSurvivesRecompute() {
        // The seed's docstring example, scaled from 4096x4096 to 64x64 so the test is quick;
        // it has no fetch, so its sinks are compared by name.
        std::string dir = std::string(RX_SHARED_DIR) + "/corpus/cases/";
        std::string text = readTextFile(dir + "docstring-before-recompute.pir");
        for (auto [from, to] : {std::pair<std::string, std::string>{"4096x4096", "64x64"}, {"[4096,4096]", "[64,64]"}})
            for (size_t at; (at = text.find(from)) != std::string::npos;) text.replace(at, from.size(), to);
        auto program = std::make_shared<Program>(parsePir(text, "docstring-64.pir"));
        RecomputeSpec spec = readSpecFile(dir + "docstring-before-recompute.spec.json", *program);
        RecomputeSolver solver(program, spec);
        SolveResult solved = solver.solve(RecomputeConfig::seedDefaults());
        QVERIFY2(solved.ok(), solved.error.c_str());
        QCOMPARE(solved.clones.size(), size_t(1));
        VerifyOptions vo;
        vo.residentValues = spec.inputs;
        VerifyReport r = verifyPrograms(*program, *solved.rewritten, vo);
        QVERIFY2(r.equivalent, r.summary().c_str());
        QVERIFY(r.compared >= 1);
        QCOMPARE(r.originalPeakBytes, solved.originalMemory.peakBytes);
        QCOMPARE(r.rewrittenPeakBytes, solved.rewrittenMemory.peakBytes);
    }
    void rewrittenProgramThatComputesSomethingElseIsCaught() {
        // Negative control: change one constant in a copy; the verifier names the value.
        GeneratedProgram g = generateModel(small("mlp", false));
        Program changed = *g.program;
        for (OpId op : changed.globalBlock().ops)
            if (changed.opName(op) == "pd_op.scale" && changed.indexInBlock(op) > uint32_t(g.spec.backwardOpStartIdx)) {
                Attribute bias = *changed.op(op).attribute("bias");
                bias.floatValue = 0.5;
                changed.setOpAttribute(op, "bias", std::move(bias));
                break;
            }
        QVERIFY(!changed.isFinished());  // found and edited a backward scale
        changed.finish();
        VerifyReport r = verifyPrograms(*g.program, changed, {});
        QVERIFY(!r.equivalent);
        QVERIFY(r.firstDifference.has_value());
        QVERIFY(!r.firstDifference->valueName.empty());
    }
};

QTEST_GUILESS_MAIN(TestZoo)
#include "test_zoo.moc"
