// Recompute spec: read, write, unknown names, detection per FORMATS.md, PROGRAM.spec.json lookup.
#include <QtTest>
#include <QTemporaryDir>

#include "model/PirReader.h"
#include "model/RecomputeSpec.h"
#include "tests/model/CorpusUtil.h"
#include "tests/support/ProgramBuilder.h"

using namespace rx;
using namespace rx::test;

namespace {
std::vector<std::string> names(const Program& p, const std::vector<ValueId>& vs) {
    std::vector<std::string> out;
    for (ValueId v : vs) out.push_back(p.value(v).name);
    return out;
}
}  // namespace

class RecomputeSpecTest : public QObject {
    Q_OBJECT
private slots:
    void readsTheDocstringSpec() {
        const std::string pir = corpusDir() + "/cases/docstring-before-recompute.pir";
        const Program p = readPirFile(pir);
        const auto path = specPathFor(pir);
        QVERIFY(path);
        QCOMPARE(*path, corpusDir() + "/cases/docstring-before-recompute.spec.json");
        const RecomputeSpec s = readSpecFile(*path, p);
        QCOMPARE(s.fwdOpEndIdx, 2);
        QCOMPARE(s.backwardOpStartIdx, 4);
        QCOMPARE(names(p, s.inputs), (std::vector<std::string>{"%0"}));
        QCOMPARE(names(p, s.outputs), (std::vector<std::string>{"%2"}));
        QCOMPARE(names(p, s.gradOutputs), (std::vector<std::string>{"%3"}));
        QVERIFY(!s.detected);
    }

    void everyCorpusSpecReadsAndRoundTrips() {
        int count = 0;
        for (const std::string& file : corpusFiles({"*.pir"})) {
            const auto specPath = specPathFor(file);
            if (!specPath) continue;
            const Program p = readPirFile(file);
            const RecomputeSpec s = readSpecFile(*specPath, p);
            QVERIFY(s.fwdOpEndIdx < s.backwardOpStartIdx);
            QVERIFY(!s.inputs.empty());
            const RecomputeSpec back = parseSpecJson(specToJson(s, p), p, "json");
            QCOMPARE(back.fwdOpEndIdx, s.fwdOpEndIdx);
            QCOMPARE(back.backwardOpStartIdx, s.backwardOpStartIdx);
            QCOMPARE(back.inputs, s.inputs);
            QCOMPARE(back.outputs, s.outputs);
            QCOMPARE(back.gradOutputs, s.gradOutputs);
            ++count;
        }
        QVERIFY(count >= 5);
        QVERIFY(!specPathFor(corpusDir() + "/pir-real/visualdl-if-op.pir"));
    }

    void writesAFileBeside() {
        QTemporaryDir dir;
        const Program p = readPirFile(corpusDir() + "/cases/docstring-before-recompute.pir");
        const RecomputeSpec s = readSpecFile(corpusDir() + "/cases/docstring-before-recompute.spec.json", p);
        const std::string path = dir.filePath("prog.spec.json").toStdString();
        writeSpecFile(s, p, path);
        QCOMPARE(specPathFor(dir.filePath("prog.pir").toStdString()).value_or(""), path);
        QCOMPARE(readSpecFile(path, p).outputs, s.outputs);
    }

    void unknownNamesAreNamedInTheError() {
        const Program p = readPirFile(corpusDir() + "/cases/docstring-before-recompute.pir");
        const std::string json =
            "{\"fwd_op_end_idx\": 2, \"backward_op_start_idx\": 4,\n \"inputs\": [\"%0\", \"%99\"], \"outputs\": [\"%x\"]}";
        try {
            parseSpecJson(json, p, "s.json");
            QFAIL("accepted unknown names");
        } catch (const Error& e) {
            const std::string what = e.what();
            QVERIFY2(what.find("%99") != std::string::npos && what.find("%x") != std::string::npos, what.c_str());
            QCOMPARE(e.where().line, 2);
            QCOMPARE(e.where().column, 20);  // the '%' of "%99"
        }
        QVERIFY_THROWS_EXCEPTION(Error, parseSpecJson("{\"fwd_op_end_idx\": 5, \"backward_op_start_idx\": 4}", p, "s"));
        QVERIFY_THROWS_EXCEPTION(Error, parseSpecJson("{\"fwd_op_end_idx\": 2, \"backward_op_start_idx\": 400}", p, "s"));
        QVERIFY_THROWS_EXCEPTION(Error, parseSpecJson("{\"fwd_op_end_idx\": 2,", p, "s"));
        QVERIFY_THROWS_EXCEPTION(Error, parseSpecJson("[1]", p, "s"));
    }

    // The names a spec mentions resolve in one pass: "%N" by number (no "%01" for "%1"), other
    // names by text, the first value of a name wins, a name listed twice resolves twice, and a
    // huge "%N" is unknown without a table sized by it.
    void namesResolveByNumberAndText() {
        ProgramBuilder b;
        const TypeId t = b.p.tensorType(DType::Float32, {4});
        const ValueId v0 = b.op("pd_op.data", {}, t);
        const ValueId v1 = b.op("pd_op.relu", {v0}, t);
        const ValueId v2 = b.op("pd_op.relu", {v1}, t);
        const ValueId v3 = b.op("pd_op.relu", {v2}, t);
        b.p.setValueName(v0, "%0");
        b.p.setValueName(v1, "%1");
        b.p.setValueName(v2, "%x");
        b.p.setValueName(v3, "%1");  // a second value of that name (nested scopes print so)
        b.p.finish();
        const RecomputeSpec s = parseSpecJson(
            R"({"fwd_op_end_idx": 1, "backward_op_start_idx": 2, "inputs": ["%x", "%1", "%1"], "outputs": ["%0"]})", b.p,
            "s.json");
        QCOMPARE(s.inputs, (std::vector<ValueId>{v2, v1, v1}));
        QCOMPARE(s.outputs, (std::vector<ValueId>{v0}));
        for (const char* name : {"%01", "%4000000000", "%y", "1"}) {
            const std::string json =
                "{\"fwd_op_end_idx\": 1, \"backward_op_start_idx\": 2, \"inputs\": [\"" + std::string(name) + "\"]}";
            try {
                parseSpecJson(json, b.p, "s.json");
                QFAIL(name);
            } catch (const Error& e) {
                QVERIFY2(std::string(e.what()).find(std::string("unknown name(s): ") + name) != std::string::npos, e.what());
            }
        }
    }

    void detectsLikePaddlesEntryPoint() {
        const Program p = readPirFile(corpusDir() + "/pir-real/recompute-docstring-sin-cos.pir");
        const RecomputeSpec s = detectSpec(p);
        QVERIFY(s.detected);
        QCOMPARE(names(p, s.inputs), (std::vector<std::string>{"%0"}));
        QCOMPARE(names(p, s.outputs), (std::vector<std::string>{"%10"}));
        QCOMPARE(s.fwdOpEndIdx, 10);
        QCOMPARE(s.backwardOpStartIdx, 11);
        QVERIFY(s.gradOutputs.empty());
        QVERIFY(!s.notes.empty());
        // Parameters count as inputs.
        const Program fc = readPirFile(corpusDir() + "/pir-real/save-load-doc-fc-relu-scale.pir");
        QCOMPARE(names(fc, detectSpec(fc).inputs), (std::vector<std::string>{"%0", "%1", "%2"}));
        // op_role attributes win where they exist.
        Program roles = readPirFile(corpusDir() + "/cases/docstring-before-recompute.pir");
        for (size_t i = 0; i < roles.globalBlock().ops.size(); ++i)
            roles.setOpAttribute(roles.globalBlock().ops[i], "op_role", Attribute::int32(i <= 3 ? 0 : 1));
        roles.finish();
        QCOMPARE(detectSpec(roles).fwdOpEndIdx, 3);
        // No fetch, no roles: nothing detected, and it says so.
        const Program plain = readPirFile(corpusDir() + "/pir-real/translate-to-pir-docstring.pir");
        QCOMPARE(detectSpec(plain).fwdOpEndIdx, -1);
        QCOMPARE(detectSpec(plain).backwardOpStartIdx, 0);
    }
};

QTEST_GUILESS_MAIN(RecomputeSpecTest)
#include "test_recompute_spec.moc"
