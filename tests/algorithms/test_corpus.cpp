// The seed's docstring example end to end, the torch-joint corpus, the embedded
// no-need-buffer table and the config file format.
#include <QtTest>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <filesystem>

#include "algorithms/Solver.h"
#include "model/PirReader.h"
#include "model/PirWriter.h"
#include "model/RecomputeConfig.h"
#include "model/RecomputeSpec.h"
#include "model/Diagnostic.h"

using namespace rx;

namespace {
std::string shared(const std::string& rel) { return std::string(RX_SHARED_DIR) + "/" + rel; }
std::vector<std::string> names(const Program& p, const std::vector<ValueId>& vs) {
    std::vector<std::string> out;
    for (ValueId v : vs) out.push_back(p.value(v).name);
    return out;
}
void stripRecomputeMarks(Program& p) {
    for (OpId id = 0; id < p.ops().size(); ++id) {
        std::vector<NamedAttribute> attributes = p.op(id).attributes.toVector();
        std::erase_if(attributes, [](const NamedAttribute& a) {
            return a.name == "is_recompute_op" || a.name == "is_recompute_bw_op";
        });
        p.setOpAttributes(id, std::move(attributes));
    }
}
}  // namespace

class CorpusTest : public QObject {
    Q_OBJECT
private slots:
    void docstringExample() {
        auto program = std::make_shared<Program>(readPirFile(shared("corpus/cases/docstring-before-recompute.pir")));
        const RecomputeSpec spec = readSpecFile(shared("corpus/cases/docstring-before-recompute.spec.json"), *program);
        RecomputeSolver solver(program, spec);
        const SolveResult r = solver.solve(RecomputeConfig::seedDefaults());
        QVERIFY2(r.ok(), r.error.c_str());
        QCOMPARE(names(*program, r.plan.savedValues), std::vector<std::string>{"%0"});
        QCOMPARE(r.plan.cutValueText(), std::string("73819750"));
        QCOMPARE(r.plan.cutValueUnits, int64_t(73819750) * r.plan.scale);
        QCOMPARE(names(*program, r.plan.midHoldValues), std::vector<std::string>{"%1"});
        QCOMPARE(r.plan.recomputeOps.size(), size_t(1));
        QCOMPARE(solver.analysis().opIndex(r.plan.recomputeOps[0]), 1u);
        QCOMPARE(r.plan.memorySavedBytes, int64_t(64) << 20);
        // weight of %1: not materialized, so 2 x int(64 MiB x 1.1)
        QCOMPARE(r.plan.weightText(solver.analysis().findValue("%1")), std::string("147639500"));

        // The rewritten program, renumbered, is the docstring's output minus its fetch and marks.
        Program rewritten = *r.rewritten;
        QVERIFY(rewritten.op(r.plan.recomputeOps[0]).attribute("is_recompute_op"));
        QCOMPARE(r.clones.size(), size_t(1));
        QVERIFY(rewritten.op(r.clones[0]).attribute("is_recompute_bw_op"));
        stripRecomputeMarks(rewritten);
        Program expected = readPirFile(shared("corpus/pir-real/recompute-docstring-sin-cos.pir"));
        const OpId fetch = expected.globalBlock().ops.back();
        QCOMPARE(std::string(expected.opName(fetch)), std::string("pd_op.fetch"));
        expected.eraseOp(fetch);
        WriteOptions wo;
        wo.generation = program->generation();
        wo.renumber = true;
        QCOMPARE(printProgram(rewritten, wo), printProgram(expected, wo));
        // The original is untouched (passes are functions).
        QVERIFY(!program->op(r.plan.recomputeOps[0]).attribute("is_recompute_op"));
        // Memory: %1 no longer crosses the boundary.
        QCOMPARE(r.originalMemory.boundaryActivationBytes - r.rewrittenMemory.boundaryActivationBytes, int64_t(64) << 20);
    }

    void docstringUnreducedSameCut() {
        auto program = std::make_shared<Program>(readPirFile(shared("corpus/cases/docstring-before-recompute.pir")));
        const RecomputeSpec spec = readSpecFile(shared("corpus/cases/docstring-before-recompute.spec.json"), *program);
        RecomputeSolver solver(program, spec);
        SolveOptions o;
        o.reduced = false;
        const SolveResult u = solver.solve(RecomputeConfig::seedDefaults(), o);
        const SolveResult r = solver.solve(RecomputeConfig::seedDefaults());
        QVERIFY(u.ok() && r.ok());
        QCOMPARE(u.cut.sinkSide, r.cut.sinkSide);
        QCOMPARE(u.cut.valueUnits, r.cut.valueUnits);
        QVERIFY(r.cut.solvedNodes < u.cut.solvedNodes);
    }

    void networkExports() {
        auto program = std::make_shared<Program>(readPirFile(shared("corpus/cases/docstring-before-recompute.pir")));
        const RecomputeSpec spec = readSpecFile(shared("corpus/cases/docstring-before-recompute.spec.json"), *program);
        RecomputeSolver solver(program, spec);
        const SolveResult r = solver.solve(RecomputeConfig::seedDefaults());
        QVERIFY(r.ok());
        const FlowNetwork& net = *r.network;
        QCOMPARE(net.nodeCount(), size_t(14));
        const std::string json = net.toJson(*program, &r.cut.sinkSide);
        QJsonParseError err;
        const QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(json), &err);
        QCOMPARE(err.error, QJsonParseError::NoError);
        QCOMPARE(doc.object()["nodes"].toArray().size(), qsizetype(14));
        const QJsonArray edges = doc.object()["edges"].toArray();
        QCOMPARE(edges.size(), qsizetype(net.arcs.size()));
        int cut = 0, inf = 0;
        for (const auto& e : edges) {
            const QJsonObject o = e.toObject();
            if (o["cut"].toBool()) {
                ++cut;
                QCOMPARE(o["from"].toString(), QString("%0_in"));
                QCOMPARE(o["capacity"].toDouble(), 73819750.0);
            }
            if (o["capacity"].toString() == "inf") ++inf;
        }
        QCOMPARE(cut, 1);
        QVERIFY(inf > 0);
        const std::string dot = net.toDot(*program, &r.cut.sinkSide);
        QVERIFY(dot.rfind("digraph", 0) == 0);
        QVERIFY(dot.find("\"%0_in\" -> \"%0_out\" [label=\"73819750\", color=red") != std::string::npos);
        const std::string dimacs = net.toDimacs(*program);
        QVERIFY(dimacs.find("p max " + std::to_string(net.nodes.size()) + " " + std::to_string(net.arcs.size())) != std::string::npos);
        QVERIFY(dimacs.find("\nn 1 s\nn 2 t\n") != std::string::npos);
        QVERIFY_THROWS_EXCEPTION(rx::Error, net.writeFile("/tmp/network.txt", *program));
    }

    // Every program of the corpus that comes with a spec; an empty or missing corpus fails.
    static std::vector<std::string> corpusPrograms() {
        std::vector<std::string> out;
        for (const char* dir : {"corpus/torch-joint", "corpus/cases"}) {
            std::error_code ec;
            for (const auto& e : std::filesystem::directory_iterator(shared(dir), ec)) {
                const std::string path = e.path().string();
                const std::string suffix = ".spec.json";
                if (path.size() > suffix.size() && path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0)
                    out.push_back(path.substr(0, path.size() - suffix.size()));
            }
        }
        std::sort(out.begin(), out.end());
        return out;
    }
    void corpusIsPresent() {
        const std::vector<std::string> programs = corpusPrograms();
        QVERIFY2(programs.size() >= 5, ("corpus with specs missing or empty under " + shared("corpus")).c_str());
        for (const char* f : {"mlp.aten", "mlp.prim", "transformer_layer.aten", "transformer_layer.prim"})
            QVERIFY(std::find(programs.begin(), programs.end(), shared(std::string("corpus/torch-joint/") + f)) != programs.end());
        for (const auto& prog : programs) QVERIFY2(std::filesystem::is_regular_file(prog + ".pir"), prog.c_str());
    }
    void torchJointCorpusSolves_data() {
        QTest::addColumn<QString>("file");
        for (const std::string& f : corpusPrograms())
            if (f.find("docstring") == std::string::npos)  // the docstring case has its own tests above
                QTest::newRow(f.c_str()) << QString::fromStdString(f);
    }
    void torchJointCorpusSolves() {
        QFETCH(QString, file);
        auto program = std::make_shared<Program>(readPirFile(file.toStdString() + ".pir"));
        const RecomputeSpec spec = readSpecFile(file.toStdString() + ".spec.json", *program);
        RecomputeSolver solver(program, spec);
        const SolveResult r = solver.solve(RecomputeConfig::seedDefaults());
        QVERIFY2(r.ok(), r.error.c_str());
        QVERIFY(!r.plan.savedValues.empty());
        SolveOptions o;
        o.reduced = false;
        const SolveResult u = solver.solve(RecomputeConfig::seedDefaults(), o);
        QVERIFY2(u.ok(), u.error.c_str());
        QCOMPARE(u.cut.sinkSide, r.cut.sinkSide);
        QCOMPARE(u.plan.savedValues, r.plan.savedValues);
        // The rewritten program prints in the input's generation and parses back.
        WriteOptions wo;
        wo.renumber = true;
        const std::string text = printProgram(*r.rewritten, wo);
        const Program back = parsePir(text, "rewritten");
        QCOMPARE(back.globalBlock().ops.size(), r.rewritten->globalBlock().ops.size());
        QCOMPARE(printProgram(back, wo), text);
        QVERIFY(r.rewrittenMemory.peakBytes > 0);
    }

    void embeddedNoNeedBufferTableIsCurrent() {
        const NoNeedBufferTable fromFile = NoNeedBufferTable::readFile(shared("data/no_need_buffer.tsv"));
        const NoNeedBufferTable& builtin = NoNeedBufferTable::builtin();
        QCOMPARE(builtin.size(), fromFile.size());
        QVERIFY(builtin.size() > 50);
        QCOMPARE(*builtin.operandSlots("pd_op.layer_norm_grad"), std::vector<uint32_t>{2});
        QCOMPARE(*builtin.operandSlots("pd_op.add_grad_"), (std::vector<uint32_t>{0, 1}));  // inplace variant
        QVERIFY(!builtin.operandSlots("pd_op.exp"));
        QVERIFY_THROWS_EXCEPTION(rx::Error, NoNeedBufferTable::parse("op\tx\ty\tz\npd_op.a\tx\tx\tq\n", "t.tsv"));
    }

    void configJsonRoundTripAndErrors() {
        const RecomputeConfig d = RecomputeConfig::seedDefaults();
        QCOMPARE(parseConfigJson("{}", "c.json"), d);
        QCOMPARE(parseConfigJson(configToJson(d), "c.json"), d);
        RecomputeConfig c = d;
        c.aggressiveRecomputation = true;
        c.minimumWeight = 0.25;
        c.maxDistFromBw = 7;
        c.pinnedSaved = {"%3"};
        c.viewOps = {"pd_op.reshape"};
        QCOMPARE(parseConfigJson(configToJson(c), "c.json"), c);
        QVERIFY(configToJson(d).find("\"minimum_weight\": 0.1,") != std::string::npos);
        try {
            parseConfigJson("{\n  \"max_dist_from_bw\": \"x\"\n}", "c.json");
            QFAIL("expected an error");
        } catch (const rx::Error& e) {
            QCOMPARE(std::string(e.what()).rfind("c.json:2:23:", 0), size_t(0));
        }
        try {
            parseConfigJson("{\n  \"random_ops\": [1,\n", "c.json");
            QFAIL("expected an error");
        } catch (const rx::Error& e) {
            QVERIFY(std::string(e.what()).rfind("c.json:", 0) == 0);
        }
        QVERIFY_THROWS_EXCEPTION(rx::Error, parseConfigJson("{\"max_dist_from_bw\": 2.5}", "c.json"));
        QVERIFY_THROWS_EXCEPTION(rx::Error, parseConfigJson("[]", "c.json"));
    }
};

QTEST_GUILESS_MAIN(CorpusTest)
#include "test_corpus.moc"
