// Profiling a rewrite (exec/Profile.h): both runs equivalent and the measured peak
// equal to the memory model's on every generated and corpus program; the report's keys as
// FORMATS.md "Profile report" lists them; the Chrome trace; atomic file writes.
#include <QtTest>

#include <rapidjson/document.h>

#include <filesystem>

#include "algorithms/Solver.h"
#include "exec/Profile.h"
#include "algorithms/zoo/ModelZoo.h"
#include "model/Diagnostic.h"
#include "model/PirReader.h"
#include "model/RecomputeConfig.h"

using namespace rx;
using namespace rx::exec;

namespace {

struct Profiled {
    SolveResult solved;
    ProfileReport report;
};

Profiled profile(std::shared_ptr<Program> program, const RecomputeSpec& spec) {
    RecomputeSolver solver(program, spec);
    Profiled p;
    p.solved = solver.solve(RecomputeConfig::seedDefaults());
    if (!p.solved.ok()) throw Error("solve failed: " + p.solved.error);
    ProfileInputs in;
    in.original = program.get();
    in.rewritten = p.solved.rewritten.get();
    in.clones = p.solved.clones;
    in.fwdOpEndIdx = spec.fwdOpEndIdx;
    in.backwardOpStartIdx = spec.backwardOpStartIdx;
    in.modelLiveOriginal = p.solved.originalMemory.liveBytes;
    in.modelLiveRewritten = p.solved.rewrittenMemory.liveBytes;
    in.modelPeakOriginal = p.solved.originalMemory.peakBytes;
    in.modelPeakRewritten = p.solved.rewrittenMemory.peakBytes;
    ProfileOptions o;
    o.verify.residentValues = spec.inputs;
    p.report = profilePrograms(in, o);
    return p;
}

void expectExact(const Profiled& p, const QString& what) {
    const ProfileReport& r = p.report;
    QVERIFY2(r.equivalent, qPrintable(what + ": " + QString::fromStdString(r.verify.summary())));
    QVERIFY2(r.original.peakBytes == r.original.modelPeakBytes,
             qPrintable(what + QString(": original peak %1 measured, %2 modelled").arg(r.original.peakBytes).arg(r.original.modelPeakBytes)));
    QVERIFY2(r.rewritten.peakBytes == r.rewritten.modelPeakBytes,
             qPrintable(what + QString(": rewritten peak %1 measured, %2 modelled").arg(r.rewritten.peakBytes).arg(r.rewritten.modelPeakBytes)));
    int flagged = 0;
    for (const OpProfile& o : r.rewritten.ops) flagged += o.recompute;
    QCOMPARE(flagged, static_cast<int>(p.solved.clones.size()));
    QCOMPARE(r.rewritten.ops.size(), p.solved.rewritten->globalBlock().ops.size());
}

}  // namespace

class TestProfile : public QObject {
    Q_OBJECT
private slots:
    void generatedProgramsAreExact() {
        int withClones = 0;  // the overhead branch below must run at least once
        for (const std::string& model : zoo::zooModels())
            for (bool composite : {false, true}) {
                zoo::ZooOptions o;
                o.model = model;
                o.layers = 2;
                o.hidden = 32;
                o.seq = 8;
                o.composite = composite;
                zoo::GeneratedProgram g = zoo::generateModel(o);
                Profiled p = profile(g.program, g.spec);
                expectExact(p, QString::fromStdString(model + (composite ? " composite" : " prim")));
                QVERIFY(p.report.original.backwardStartIndex > 0);
                QVERIFY(p.report.rewritten.backwardStartIndex > 0);
                if (!p.solved.clones.empty()) {
                    ++withClones;
                    QVERIFY(p.report.recomputeOverheadMs > 0);
                }
            }
        QVERIFY(withClones > 0);
    }
    void corpusProgramsAreExact() {
        namespace fs = std::filesystem;
        int profiled = 0;
        // corpus/cases' 4096x4096 docstring program takes ~15 s and 1 GB here; `recompute-cli
        // profile` covers it (README figures).
        for (const char* dir : {"/corpus/torch-joint"})
            for (const auto& e : fs::directory_iterator(std::string(RX_SHARED_DIR) + dir)) {
                if (e.path().extension() != ".pir") continue;
                auto program = std::make_shared<Program>(loadProgram(e.path().string()));
                ResolvedSpec spec = resolveSpec(*program, e.path().string(), std::nullopt);
                expectExact(profile(program, spec.spec), QString::fromStdString(e.path().filename().string()));
                ++profiled;
            }
        QVERIFY(profiled >= 4);
    }
    void reportHasTheDocumentedKeys() {
        zoo::ZooOptions o;
        o.layers = 1;
        o.hidden = 16;
        o.seq = 4;
        zoo::GeneratedProgram g = zoo::generateModel(o);
        Profiled p = profile(g.program, g.spec);
        rapidjson::Document d;
        d.Parse(profileReportJson(p.report, "x.pir").c_str());
        QVERIFY(!d.HasParseError());
        for (const char* k : {"device", "equivalent", "first_difference", "original", "rewritten", "recompute_overhead_ms",
                              "recompute_overhead_pct"})
            QVERIFY2(d.HasMember(k), k);
        QCOMPARE(std::string(d["device"].GetString()), std::string("cpu"));
        QVERIFY(d["equivalent"].GetBool());
        QVERIFY(d["first_difference"].IsNull());
        for (const char* run : {"original", "rewritten"}) {
            const rapidjson::Value& r = d[run];
            for (const char* k : {"peak_bytes", "model_peak_bytes", "total_ms", "ops", "top_ops_by_time", "top_ops_by_bytes"})
                QVERIFY2(r.HasMember(k), k);
            QCOMPARE(r["peak_bytes"].GetInt64(), r["model_peak_bytes"].GetInt64());
            const rapidjson::Value& op = r["ops"][0];
            for (const char* k : {"index", "name", "ms", "live_bytes"}) QVERIFY2(op.HasMember(k), k);
        }
        QCOMPARE(static_cast<size_t>(d["rewritten"]["ops"].Size()), p.report.rewritten.ops.size());

        rapidjson::Document t;
        t.Parse(chromeTraceJson(p.report).c_str());
        QVERIFY(!t.HasParseError());
        size_t complete = 0, boundaries = 0;
        for (const auto& e : t["traceEvents"].GetArray()) {
            std::string ph = e["ph"].GetString();
            complete += ph == "X";
            boundaries += ph == "i";
        }
        QCOMPARE(complete, p.report.original.ops.size() + p.report.rewritten.ops.size());
        QCOMPARE(boundaries, size_t(2));
    }
    void firstDifferenceIsNamed() {
        zoo::ZooOptions o;
        o.layers = 1;
        o.hidden = 16;
        o.seq = 4;
        zoo::GeneratedProgram g = zoo::generateModel(o);
        auto broken = std::make_shared<Program>(*g.program);
        for (OpId op : broken->globalBlock().ops)  // change the gradient seed's value
            if (broken->opName(op) == "pd_op.full" && broken->op(op).attribute("value")) {
                broken->setOpAttribute(op, "value", Attribute::float32(7.0));
            }
        broken->finish();  // an edited program is sealed again before it is shared
        ProfileInputs in;
        in.original = g.program.get();
        in.rewritten = broken.get();
        ProfileReport r = profilePrograms(in, {});
        QVERIFY(!r.equivalent);
        QVERIFY(r.verify.firstDifference.has_value());
        rapidjson::Document d;
        d.Parse(profileReportJson(r).c_str());
        QVERIFY(d["first_difference"].IsString());
    }
    void filesAreWrittenAtomically() {
        namespace fs = std::filesystem;
        QTemporaryDir dir;
        const std::string path = dir.path().toStdString() + "/r.json";
        writeFileAtomically(path, "{\"a\":1}\n");
        writeFileAtomically(path, "{\"a\":2}\n");
        QCOMPARE(readTextFile(path), std::string("{\"a\":2}\n"));
        int entries = 0;
        for (const auto& e : fs::directory_iterator(dir.path().toStdString())) { (void)e; ++entries; }
        QCOMPARE(entries, 1);  // no temporary left behind
        QVERIFY_THROWS_EXCEPTION(Error, writeFileAtomically(dir.path().toStdString() + "/missing/r.json", "x"));
    }
    void cancelStopsProfiling() {
        zoo::ZooOptions o;
        o.layers = 1;
        o.hidden = 16;
        o.seq = 4;
        zoo::GeneratedProgram g = zoo::generateModel(o);
        std::atomic<bool> cancel{false};
        size_t calls = 0;
        ProfileInputs in;
        in.original = g.program.get();
        in.rewritten = g.program.get();
        ProfileOptions po;
        po.cancel = &cancel;
        po.progress = [&](size_t done, size_t total) {
            ++calls;
            QVERIFY(done <= total);
            if (done == 10) cancel = true;
        };
        ProfileReport r = profilePrograms(in, po);
        QVERIFY(r.cancelled);
        QCOMPARE(calls, size_t(10));
    }
};

QTEST_MAIN(TestProfile)
#include "test_profile.moc"
