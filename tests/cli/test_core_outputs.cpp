// The library's output writers and figures: the memory model's sums are exact or an error
// (never wrapped), the solve report streamed to a file is the string writer's bytes with
// FORMATS.md keys and original-op indices, the network exports stream the same bytes as
// their string forms.
#include <QtTest>

#include <rapidjson/document.h>

#include <filesystem>

#include "algorithms/MemoryModel.h"
#include "algorithms/SolveReport.h"
#include "algorithms/Solver.h"
#include "model/FileIO.h"
#include "model/PirReader.h"
#include "model/RecomputeSpec.h"
#include "support/FileContents.h"

using namespace rx;

namespace {

std::string shared(const std::string& rel) { return std::string(RX_SHARED_DIR) + "/" + rel; }

// data -> exp -> exp with the given element counts (f32).
Program chain(int64_t dataElems, int64_t midElems) {
    Program p;
    const TypeId a = p.tensorType(DType::Float32, {dataElems});
    const TypeId b = p.tensorType(DType::Float32, {midElems});
    const OpId d = p.appendOp(0, "pd_op.data", {}, std::vector<TypeId>{a});
    const OpId e = p.appendOp(0, "pd_op.exp", std::vector<ValueId>{p.op(d).results[0]}, std::vector<TypeId>{b});
    p.appendOp(0, "pd_op.exp", std::vector<ValueId>{p.op(e).results[0]}, std::vector<TypeId>{b});
    p.finish();
    return p;
}

}  // namespace

class CoreOutputsTest : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;

private Q_SLOTS:
    void memoryModelIsExact() {
        const Program p = chain(1 << 20, 1 << 10);
        const ValueId data = p.op(p.globalBlock().ops[0]).results[0];
        const MemoryProfile m = profileMemory(p, std::vector<ValueId>{data}, 1);
        QVERIFY(m.ok());
        QCOMPARE(m.residentBytes, int64_t(4) << 20);
        QCOMPARE(m.peakBytes, (int64_t(4) << 20) + 2 * 4096);
    }

    void memoryModelOverflowIsAnErrorNotAWrappedFigure() {
        // Two values of 2^61 elements * 4 bytes = 2^63 bytes each: past int64 on their own.
        const Program p = chain(1, int64_t(1) << 61);
        const MemoryProfile m = profileMemory(p, {}, 1);
        QVERIFY(!m.ok());
        QVERIFY2(m.error.find("does not fit in 64-bit byte counts") != std::string::npos, m.error.c_str());
        QCOMPARE(m.peakBytes, int64_t(0));  // empty, not a wrapped "32 bytes"
        // 2^60 elements * 4 = 2^62 bytes each fit; both alive at once (2^63) do not.
        const Program q = chain(1, int64_t(1) << 60);
        const MemoryProfile n = profileMemory(q, {}, 1);
        QVERIFY(!n.ok());
        QVERIFY2(n.error.find("live bytes at op") != std::string::npos || n.error.find("bytes allocated") != std::string::npos,
                 n.error.c_str());
    }

    void solveReportStreamsTheSameBytesWithTheContractKeys() {
        auto program = std::make_shared<Program>(readPirFile(shared("corpus/cases/docstring-before-recompute.pir")));
        const RecomputeSpec spec = readSpecFile(shared("corpus/cases/docstring-before-recompute.spec.json"), *program);
        RecomputeSolver solver(program, spec);
        const RecomputeConfig config = RecomputeConfig::seedDefaults();
        const SolveResult r = solver.solve(config);
        QVERIFY(r.ok());
        const SolveReportInput in{*program, solver.analysis(), r, "p.pir", "p.spec.json", 1.5, true, &config};
        const std::string text = solveReportJson(in);
        const std::string path = tmp_.filePath("report.json").toStdString();
        writeSolveReportFile(path, in);
        QCOMPARE(rx::testing::fileContents(path), text);

        rapidjson::Document d;
        d.Parse(text.c_str());
        QVERIFY(!d.HasParseError() && d.IsObject());
        for (const char* key : {"cut_value", "saved_values", "mid_hold_values", "recompute_ops", "memory_saved_bytes",
                                "network", "timings_ms", "config", "values", "memory"})
            QVERIFY2(d.HasMember(key), key);
        QCOMPARE(d["cut_value"].GetInt64(), int64_t(73819750));
        QCOMPARE(d["memory_saved_bytes"].GetInt64(), int64_t(67108864));
        QCOMPARE(std::string(d["saved_values"][0].GetString()), std::string("%0"));
        QCOMPARE(d["timings_ms"]["parse"].GetDouble(), 1.5);
        // recompute_ops are indices of original global-block ops.
        QCOMPARE(d["recompute_ops"].Size(), rapidjson::SizeType(r.plan.recomputeOps.size()));
        for (rapidjson::SizeType i = 0; i < d["recompute_ops"].Size(); ++i)
            QCOMPARE(uint32_t(d["recompute_ops"][i].GetInt64()), program->indexInBlock(r.plan.recomputeOps[i]));
        QCOMPARE(d["network"]["nodes"].GetInt64(), int64_t(r.network->nodeCount()));
    }

    void networkExportsStreamTheirStringForms() {
        auto program = std::make_shared<Program>(readPirFile(shared("corpus/cases/docstring-before-recompute.pir")));
        const RecomputeSpec spec = readSpecFile(shared("corpus/cases/docstring-before-recompute.spec.json"), *program);
        RecomputeSolver solver(program, spec);
        const SolveResult r = solver.solve(RecomputeConfig::seedDefaults());
        QVERIFY(r.ok());
        const FlowNetwork& net = *r.network;
        const std::string dir = tmp_.path().toStdString();
        net.writeFile(dir + "/n.dot", *program, &r.cut.sinkSide);
        net.writeFile(dir + "/n.json", *program, &r.cut.sinkSide);
        net.writeFile(dir + "/n.dimacs", *program);
        QCOMPARE(rx::testing::fileContents(dir + "/n.dot"), net.toDot(*program, &r.cut.sinkSide));
        QCOMPARE(rx::testing::fileContents(dir + "/n.json"), net.toJson(*program, &r.cut.sinkSide));
        QCOMPARE(rx::testing::fileContents(dir + "/n.dimacs"), net.toDimacs(*program));
        rapidjson::Document d;
        d.Parse(rx::testing::fileContents(dir + "/n.json").c_str());
        QVERIFY(!d.HasParseError());
        QCOMPARE(d["edges"].Size(), rapidjson::SizeType(net.arcs.size()));
        QVERIFY_THROWS_EXCEPTION(Error, net.writeFile(dir + "/n.txt", *program));
        QVERIFY(!std::filesystem::exists(dir + "/n.txt"));
    }
};

QTEST_GUILESS_MAIN(CoreOutputsTest)
#include "test_core_outputs.moc"
