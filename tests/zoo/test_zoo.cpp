// The model zoo's programs: structure, parse-back, determinism, true gradients (finite
// differences in f64), and equivalence of original and rewritten programs by execution on
// generated, bundled and torch-joint programs, with the measured peak against the model.
#include "zoo/SolveRewriteRun.h"  // first: Solver.h before Qt (Analysis.h has a member named `slots`)

#include <cmath>
#include <malloc.h>
#include <filesystem>
#include <map>
#include <unordered_set>

#include "exec/cpu/CpuExecutor.h"
#include "exec/Verify.h"
#include "algorithms/Layers.h"
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

// Paddle's LSTMCell / GRUCell stacked over time in plain doubles, from the values a run
// feeds the program's parameters and input; then the head: mean(concat(h_t) @ W + b).
double referenceRecurrentLoss(const GeneratedProgram& g, uint64_t seed) {
    const Program& p = *g.program;
    std::unordered_map<std::string, Tensor> fed;
    for (OpId op : p.globalBlock().ops) {
        const std::string_view n = p.opName(op);
        if (n != "builtin.parameter" && n != "pd_op.data") continue;
        const Attribute* a = p.op(op).attribute(n == "pd_op.data" ? "name" : "parameter_name");
        fed[a->text] = seededInputFor(p, op, seed);
    }
    const Tensor& x = fed.at("x");
    const int64_t B = x.dims[0], T = x.dims[1], H = x.dims[2];
    const bool lstm = fed.count("lstm_cell_0.w_0") > 0;
    const int64_t G = lstm ? 4 : 3;
    auto sigmoid = [](double v) { return 1 / (1 + std::exp(-v)); };
    std::vector<std::vector<double>> in(size_t(T), std::vector<double>(size_t(B * H)));
    for (int64_t t = 0; t < T; ++t)
        for (int64_t b = 0; b < B; ++b)
            for (int64_t k = 0; k < H; ++k) in[size_t(t)][size_t(b * H + k)] = x.get((b * T + t) * H + k);
    for (int l = 0; fed.count((lstm ? "lstm_cell_" : "gru_cell_") + std::to_string(l) + ".w_0"); ++l) {
        const std::string base = (lstm ? "lstm_cell_" : "gru_cell_") + std::to_string(l);
        const Tensor &wIh = fed.at(base + ".w_0"), &wHh = fed.at(base + ".w_1"), &bIh = fed.at(base + ".b_0"), &bHh = fed.at(base + ".b_1");
        std::vector<double> h(size_t(B * H), 0.0), c(size_t(B * H), 0.0);
        for (int64_t t = 0; t < T; ++t) {
            std::vector<double> next = h;
            for (int64_t b = 0; b < B; ++b) {
                std::vector<double> xg(size_t(G * H)), hg(size_t(G * H));  // x W_ih^T + b_ih, h W_hh^T + b_hh
                for (int64_t j = 0; j < G * H; ++j) {
                    double sx = bIh.get(j), sh = bHh.get(j);
                    for (int64_t k = 0; k < H; ++k) {
                        sx += in[size_t(t)][size_t(b * H + k)] * wIh.get(j * H + k);
                        sh += h[size_t(b * H + k)] * wHh.get(j * H + k);
                    }
                    xg[size_t(j)] = sx;
                    hg[size_t(j)] = sh;
                }
                for (int64_t k = 0; k < H; ++k) {
                    const size_t at = size_t(b * H + k);
                    auto gate = [&](int64_t q) { return xg[size_t(q * H + k)] + hg[size_t(q * H + k)]; };
                    if (lstm) {
                        c[at] = sigmoid(gate(1)) * c[at] + sigmoid(gate(0)) * std::tanh(gate(2));
                        next[at] = sigmoid(gate(3)) * std::tanh(c[at]);
                    } else {
                        const double r = sigmoid(gate(0)), z = sigmoid(gate(1));
                        const double n = std::tanh(xg[size_t(2 * H + k)] + r * hg[size_t(2 * H + k)]);
                        next[at] = (1 - z) * n + z * h[at];
                    }
                }
            }
            h = next;
            in[size_t(t)] = h;
        }
    }
    const Tensor &w = fed.at("linear_0.w_0"), &bias = fed.at("linear_0.b_0");
    double total = 0;
    for (int64_t t = 0; t < T; ++t)
        for (int64_t b = 0; b < B; ++b)
            for (int64_t j = 0; j < H; ++j) {
                double v = bias.get(j);
                for (int64_t k = 0; k < H; ++k) v += in[size_t(t)][size_t(b * H + k)] * w.get(k * H + j);
                total += v;
            }
    return total / double(T * B * H);
}

ZooOptions recurrent(const std::string& model, int layers, int64_t seq) {
    ZooOptions o = small(model, false);
    o.layers = layers;
    o.seq = seq;
    return o;
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
            zootest::SolvedAndRun c = zootest::solveAndRun(g.program, g.spec, 11);
            if (QTest::currentTestFailed()) return;
            QVERIFY2(c.report.equivalent, c.report.summary().c_str());
            QCOMPARE(c.report.bitwiseEqual, c.report.compared);
            QCOMPARE(c.original.peakBytes, c.solved.originalMemory.peakBytes);
            QCOMPARE(c.rewritten.peakBytes, c.solved.rewrittenMemory.peakBytes);
        }
    }
    void recomputeHappensOnPrimPrograms() {
        GeneratedProgram g = generateModel(small("transformer", false));
        zootest::SolvedAndRun c = zootest::solveAndRun(g.program, g.spec, 11);
        if (QTest::currentTestFailed()) return;
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
        zootest::SolvedAndRun c = zootest::solveAndRun(program, spec, 11);
        if (QTest::currentTestFailed()) return;
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
    void recurrent_data() {
        QTest::addColumn<QString>("model");
        QTest::newRow("lstm") << QString("lstm");
        QTest::newRow("gru") << QString("gru");
    }
    // The unrolled cells compute Paddle's LSTMCell / GRUCell equations (checked against a
    // plain-double reference), in the op vocabulary after decomposition: two matmuls per
    // cell, the gates split by pd_op.split + builtin.split, sigmoid and tanh.
    void recurrentCellsArePaddles_data() { recurrent_data(); }
    void recurrentCellsArePaddles() {
        QFETCH(QString, model);
        const bool lstm = model == "lstm";
        const int layers = 2;
        const int64_t T = 3;
        for (bool composite : {false, true}) {
            ZooOptions o = recurrent(model.toStdString(), layers, T);
            o.dtype = DType::Float64;
            o.dropout = 0;
            o.composite = composite;
            const GeneratedProgram g = generateModel(o);
            const Program& p = *g.program;
            std::map<std::string, int> forward;
            for (int32_t i = 0; i <= g.spec.fwdOpEndIdx; ++i) ++forward[std::string(p.opName(p.globalBlock().ops[size_t(i)]))];
            const int cells = layers * int(T);
            QCOMPARE(forward["pd_op.matmul"], 2 * cells + 1);  // + the head
            QCOMPARE(forward["pd_op.split"], (lstm ? 1 : 2) * cells);
            QCOMPARE(forward["builtin.split"], forward["pd_op.split"]);
            QCOMPARE(forward["pd_op.sigmoid"], (lstm ? 3 : 2) * cells);
            QCOMPARE(forward["pd_op.tanh"], (lstm ? 2 : 1) * cells);
            QCOMPARE(forward["pd_op.slice"], int(T));
            QCOMPARE(g.parameters.size(), size_t(4 * layers + 2));
            CpuExecutor ex;
            RunInputs in;
            in.seed = 9;
            const double loss = ex.run(p, in, {}).fetches.at(0).tensor.get(0);
            const double want = referenceRecurrentLoss(g, 9);
            QVERIFY2(std::fabs(loss - want) <= 1e-12 * std::max(1.0, std::fabs(want)),
                     qPrintable(QString("%1: program %2, reference %3").arg(model).arg(loss, 0, 'g', 17).arg(want, 0, 'g', 17)));
        }
    }
    // Through two stacked layers and three time steps, dropout between the layers, every
    // parameter (weights, both biases, the head): the backward against finite differences.
    void recurrentGradientsThroughLayersAndTime_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<bool>("composite");
        for (const char* m : {"lstm", "gru"}) {
            QTest::newRow((std::string(m) + " prim").c_str()) << QString(m) << false;
            QTest::newRow((std::string(m) + " composite").c_str()) << QString(m) << true;
        }
    }
    void recurrentGradientsThroughLayersAndTime() {
        QFETCH(QString, model);
        QFETCH(bool, composite);
        ZooOptions o = recurrent(model.toStdString(), 2, 3);
        o.dtype = DType::Float64;
        o.composite = composite;
        checkGradients(o);
    }
    // The layer overview: one row per stacked layer (struct_name "/LSTM/RNN_k/LSTMCell_k/"),
    // whatever the sequence length; each row's backward a contiguous range, the last layer's
    // first (facing its forward); the same rows after printing and reading back.
    void recurrentLayerOverviewOneRowPerLayer_data() { recurrent_data(); }
    void recurrentLayerOverviewOneRowPerLayer() {
        QFETCH(QString, model);
        for (const auto& [layers, seq] : {std::pair<int, int64_t>{32, 3}, {3, 17}}) {
            const GeneratedProgram g = generateModel(recurrent(model.toStdString(), layers, seq));
            const LayerPartition part = detectLayers(*g.program, g.spec.fwdOpEndIdx, g.spec.backwardOpStartIdx);
            QCOMPARE(part.source, std::string("name scope"));
            QCOMPARE(part.layerCount(), size_t(layers));
            std::vector<const LayerGroup*> rows;
            for (const LayerGroup& lg : part.groups)
                if (lg.kind == LayerGroup::Kind::Layer) rows.push_back(&lg);
            QVERIFY(part.groups.front().kind == LayerGroup::Kind::Embedding);
            QVERIFY(std::any_of(part.groups.begin(), part.groups.end(), [](const LayerGroup& lg) { return lg.kind == LayerGroup::Kind::Head; }));
            for (size_t k = 1; k < rows.size(); ++k) QCOMPARE(rows[k]->forwardOps, rows[1]->forwardOps);  // layer 0 also slices x
            // Backward positions per layer row: contiguous, and in reverse layer order (the
            // trailing gradient fetches aside: the overview joins them to their row).
            const auto& where = part.groupOfPos;
            const auto& ops = g.program->globalBlock().ops;
            std::vector<std::pair<uint32_t, uint32_t>> span(part.groups.size(), {UINT32_MAX, 0});
            std::vector<uint32_t> count(part.groups.size(), 0);
            for (uint32_t i = uint32_t(g.spec.backwardOpStartIdx); i < where.size(); ++i) {
                if (g.program->opName(ops[i]) == "pd_op.fetch") continue;
                auto& sp = span[size_t(where[i])];
                sp.first = std::min(sp.first, i);
                sp.second = i + 1;
                ++count[size_t(where[i])];
            }
            uint32_t previousBegin = UINT32_MAX;
            for (const LayerGroup* lg : rows) {
                const size_t gi = size_t(lg - part.groups.data());
                QVERIFY(lg->backwardOps > lg->forwardOps);
                QVERIFY2(span[gi].second - span[gi].first == count[gi],
                         qPrintable(QString("%1 %2: backward not contiguous").arg(model).arg(QString::fromStdString(lg->name))));
                QVERIFY(span[gi].second <= previousBegin);
                previousBegin = span[gi].first;
            }
            const std::string text = printProgram(*g.program);
            QVERIFY(text.find("struct_name:\"/" + std::string(model == "lstm" ? "LSTM/RNN_1/LSTMCell_1/" : "GRU/RNN_1/GRUCell_1/") + "\"") != std::string::npos);
            const Program back = parsePir(text, "rnn.pir");
            const LayerPartition again = detectLayers(back, g.spec.fwdOpEndIdx, g.spec.backwardOpStartIdx);
            QCOMPARE(again.groupOfPos, part.groupOfPos);
        }
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
