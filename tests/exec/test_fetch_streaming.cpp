// Verify and profile hold no run's fetches: the first run of a pair writes them to a temporary
// file, the second is compared as it fetches (RunOptions::fetchSink, StreamingComparison),
// other runs drop theirs, and the streamed comparison reports what compareRuns reports.
#include <QtTest>

#include "algorithms/Solver.h"
#include "algorithms/zoo/ModelZoo.h"
#include "exec/Profile.h"
#include "exec/Verify.h"
#include "exec/cpu/CpuExecutor.h"
#include "model/RecomputeConfig.h"

using namespace rx;
using namespace rx::exec;

namespace {

// The CPU backend, recording per run whether a fetch sink was given, how many fetches and
// captured values it was handed, and the bytes of fetched/captured tensors the run returned.
class RecordingExecutor final : public Executor {
public:
    struct Run {
        bool sink = false;
        int sinkCalls = 0;
        int64_t returnedBytes = 0;
        size_t returnedFetches = 0;
    };
    std::vector<Run> runs;

    std::string name() const override { return "cpu"; }
    std::vector<std::string> unsupportedOps(const Program& p) const override { return cpu_.unsupportedOps(p); }

protected:
    RunResult execute(const Program& program, const RunInputs& inputs, const RunOptions& options, const RunControl&) override {
        Run rec;
        rec.sink = bool(options.fetchSink);
        RunOptions counted = options;
        if (options.fetchSink)
            counted.fetchSink = [&rec, &options](const FetchView& f) { ++rec.sinkCalls; options.fetchSink(f); };
        RunResult r = cpu_.run(program, inputs, counted);
        for (const FetchedValue& f : r.fetches) rec.returnedBytes += f.tensor.byteSize();
        for (const auto& [name, t] : r.values) rec.returnedBytes += t.byteSize();
        rec.returnedFetches = r.fetches.size();
        runs.push_back(rec);
        return r;
    }

private:
    CpuExecutor cpu_;
};

struct Pair {
    zoo::GeneratedProgram generated;
    SolveResult solved;
};

Pair transformerPair() {
    zoo::ZooOptions o;
    o.layers = 2;
    Pair p;
    p.generated = zoo::generateModel(o);
    RecomputeSolver solver(p.generated.program, p.generated.spec);
    p.solved = solver.solve(RecomputeConfig::seedDefaults());
    if (!p.solved.ok()) throw Error("solve failed: " + p.solved.error);
    return p;
}

}  // namespace

class TestFetchStreaming : public QObject {
    Q_OBJECT
private slots:
    void verifyHoldsNoRunsFetches() {
        const Pair p = transformerPair();
        QVERIFY(!p.solved.clones.empty());
        VerifyOptions vo;
        vo.residentValues = p.generated.spec.inputs;
        RecordingExecutor rec;
        const VerifyReport streamed = verifyPrograms(*p.generated.program, *p.solved.rewritten, vo, &rec);
        QCOMPARE(rec.runs.size(), size_t(2));
        // Neither run returns its fetches: the original's go to the comparison's file, the
        // rewritten's are compared as they are made.
        for (const RecordingExecutor::Run& run : rec.runs) {
            QVERIFY(run.sink);
            QVERIFY(run.sinkCalls > 2);
            QCOMPARE(run.returnedBytes, int64_t(0));
            QCOMPARE(run.returnedFetches, size_t(0));
        }
        QCOMPARE(rec.runs[1].sinkCalls, rec.runs[0].sinkCalls);

        // The same report as comparing the two whole runs.
        CpuExecutor cpu;
        RunInputs inputs;
        RunOptions ro;
        ro.recordOpTimes = false;
        ro.residentValues = vo.residentValues;
        const RunResult a = cpu.run(*p.generated.program, inputs, ro);
        const RunResult b = cpu.run(*p.solved.rewritten, inputs, ro);
        const VerifyReport whole = compareRuns(a, b, vo);
        QVERIFY(streamed.equivalent);
        QCOMPARE(streamed.equivalent, whole.equivalent);
        QCOMPARE(streamed.compared, whole.compared);
        QCOMPARE(streamed.bitwiseEqual, whole.bitwiseEqual);
        QCOMPARE(streamed.originalPeakBytes, whole.originalPeakBytes);
        QCOMPARE(streamed.rewrittenPeakBytes, whole.rewrittenPeakBytes);
        QCOMPARE(streamed.summary(), whole.summary());
    }

    void profileHoldsNoRunsFetches() {
        const Pair p = transformerPair();
        ProfileInputs in;
        in.original = p.generated.program.get();
        in.rewritten = p.solved.rewritten.get();
        in.clones = p.solved.clones;
        in.fwdOpEndIdx = p.generated.spec.fwdOpEndIdx;
        ProfileOptions o;
        o.verify.residentValues = p.generated.spec.inputs;
        o.warmupRuns = 1;
        o.repeats = 3;
        RecordingExecutor rec;
        const ProfileReport report = profilePrograms(in, o, &rec);
        QVERIFY(report.equivalent);
        QVERIFY(report.verify.compared > 2);
        QCOMPARE(rec.runs.size(), size_t(8));
        for (size_t i = 0; i < rec.runs.size(); ++i) {
            // Every run, warm-up and repeats, hands its fetches to a sink and returns none.
            QVERIFY2(rec.runs[i].sink, qPrintable(QString("run %1").arg(i)));
            QVERIFY2(rec.runs[i].returnedBytes == 0, qPrintable(QString("run %1: %2 bytes returned").arg(i).arg(rec.runs[i].returnedBytes)));
            QCOMPARE(rec.runs[i].sinkCalls, rec.runs[0].sinkCalls);
        }
    }

    void streamingSpillsTheFirstRunAndMatchesCompareRuns() {
        RunResult a, b;
        a.fetches.push_back({"f0", "%1", Tensor::fromDoubles(DType::Float32, {2}, {1, 2})});
        a.fetches.push_back({"f1", "%2", Tensor::fromDoubles(DType::Float32, {3}, {1, 2, 3})});
        a.fetches.push_back({"f2", "%3", Tensor::fromDoubles(DType::Float32, {1}, {7})});
        b.fetches.push_back({"f0", "%1", Tensor::fromDoubles(DType::Float32, {2}, {1, 2})});
        b.fetches.push_back({"f1", "%2", Tensor::fromDoubles(DType::Float32, {3}, {1, 2.5, 4})});
        a.values["%9"] = Tensor::fromDoubles(DType::Float32, {1}, {5});
        b.values["%9"] = Tensor::fromDoubles(DType::Float64, {1}, {5});
        const VerifyReport whole = compareRuns(a, b, {});

        StreamingComparison streaming{VerifyOptions{}};
        auto record = streaming.firstRunSink();
        for (const FetchedValue& f : a.fetches) record(FetchView{false, f.fetchName, f.valueName, f.tensor});
        record(FetchView{true, {}, "%9", a.values["%9"]});
        streaming.firstRunDone(a);
        QCOMPARE(streaming.heldFirstRunBytes(), int64_t(0));  // all in the temporary file
        QCOMPARE(streaming.spilledFirstRunBytes(), int64_t(2 * 4 + 3 * 4 + 4 + 4));
        auto sink = streaming.sink();
        sink(FetchView{false, "f0", "%1", b.fetches[0].tensor});
        sink(FetchView{false, "f1", "%2", b.fetches[1].tensor});
        sink(FetchView{true, {}, "%9", b.values["%9"]});
        const VerifyReport streamed = streaming.finish(b);
        QVERIFY(!streamed.equivalent);
        QCOMPARE(streamed.compared, whole.compared);
        QCOMPARE(streamed.compared, 3);
        QCOMPARE(streamed.bitwiseEqual, 1);
        QCOMPARE(streamed.maxAbsDifference, whole.maxAbsDifference);
        QCOMPARE(streamed.maxAbsDifference, 1.0);
        QCOMPARE(streamed.firstDifference->valueName, std::string("%2"));
        QCOMPARE(streamed.firstDifference->index, int64_t(1));
        QCOMPARE(streamed.summary(), whole.summary());
        // A run that fetched nothing: each of the other's fetches and values is missing.
        const VerifyReport missing = compareRuns(a, RunResult{}, {});
        QCOMPARE(missing.firstDifference->reason, std::string("missing"));
        QCOMPARE(missing.firstDifference->valueName, std::string("%1"));
        QCOMPARE(missing.compared, 0);
    }
};

QTEST_GUILESS_MAIN(TestFetchStreaming)
#include "test_fetch_streaming.moc"
