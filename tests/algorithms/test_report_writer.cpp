// The solve report's block writer gives exactly rapidjson's bytes: the report is read back and
// written again, PrettyWriter for all but the `values` rows, which rapidjson::Writer writes
// one per line, and the two texts compared.
#include <QtTest>

#include <future>
#include <thread>
#include <tuple>

#include <rapidjson/document.h>
#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "algorithms/FlowNetwork.h"
#include "algorithms/SolveReport.h"
#include "algorithms/zoo/ModelZoo.h"
#include "support/FileContents.h"

using namespace rx;

namespace {

std::string prettyWriterText(const std::string& json) {
    rapidjson::Document d;
    d.Parse<rapidjson::kParseFullPrecisionFlag>(json.c_str());
    if (d.HasParseError()) return "parse error at " + std::to_string(d.GetErrorOffset());
    if (!d.IsObject()) return "not an object";
    rapidjson::StringBuffer buffer;
    rapidjson::PrettyWriter<rapidjson::StringBuffer> writer(buffer);
    writer.StartObject();
    for (auto& member : d.GetObject()) {
        writer.Key(member.name.GetString(), member.name.GetStringLength());
        if (std::string_view(member.name.GetString()) != "values" || !member.value.IsArray()) {
            member.value.Accept(writer);
            continue;
        }
        writer.StartArray();
        for (auto& row : member.value.GetArray()) {  // each row on its own line, compact
            rapidjson::StringBuffer rowText;
            rapidjson::Writer<rapidjson::StringBuffer> rowWriter(rowText);
            row.Accept(rowWriter);
            writer.RawValue(rowText.GetString(), rowText.GetSize(), rapidjson::kObjectType);
        }
        writer.EndArray();
    }
    writer.EndObject();
    return std::string(buffer.GetString(), buffer.GetSize()) + "\n";
}

}  // namespace

class ReportWriter : public QObject {
    Q_OBJECT
private slots:
    void samePrettyBytesAsRapidJson() {
        zoo::ZooOptions o;
        o.layers = 2;
        const zoo::GeneratedProgram g = zoo::generateModel(o);
        const RecomputeSolver solver(g.program, g.spec);
        RecomputeConfig config = RecomputeConfig::seedDefaults();
        config.pinnedSaved = {"%no_such_value"};  // a warning with the name in it
        const SolveResult r = solver.solve(config);
        QVERIFY2(r.ok(), r.error.c_str());
        QVERIFY(!r.plan.savedValues.empty());
        // Escapes of every kind in a string: quote, backslash, tab, newline, a control byte, UTF-8.
        const std::string path = "dir/a\"b\\c\td\ne\x01" "f\xc3\xa9.pir";
        const SolveReportInput input{*g.program, solver.analysis(), r, path, "detected", 1.25, true, &config};
        const std::string text = solveReportJson(input);
        QVERIFY(text.size() > 10000);
        QVERIFY(text.find("\"program\": \"dir/a\\\"b\\\\c\\td\\ne\\u0001f\xc3\xa9.pir\"") != std::string::npos);
        QVERIFY(text.find("\"distance_base\": 1.1,") != std::string::npos);
        QVERIFY(text.find("\"pinned_recomputed\": [],") != std::string::npos);
        QVERIFY(text.find("\n        {\"ban_rule\":") != std::string::npos);  // rows one per line
        QCOMPARE(text, prettyWriterText(text));
    }

    // The CLI's way: the report begun at the solve's planReady stage on another thread, its
    // closing figures written once the solve returned. Same bytes as the report written after
    // the solve; each stage announced once, in order, with what it promises already set.
    void reportBegunAtThePlanStageIsTheSameReport() {
        zoo::ZooOptions o;
        o.layers = 2;
        const zoo::GeneratedProgram g = zoo::generateModel(o);
        const RecomputeSolver solver(g.program, g.spec);
        const RecomputeConfig config = RecomputeConfig::seedDefaults();
        SolveResult r;
        const SolveReportInput input{*g.program, solver.analysis(), r, "p.pir", "detected", 2.5, true, &config};
        const QTemporaryDir dir;
        const std::string path = dir.filePath("r.json").toStdString();
        std::promise<void> solved;
        std::shared_future<void> solvedFuture = solved.get_future().share();
        std::future<void> writer;
        std::vector<std::string> stages;
        std::vector<ValueId> savedAtPlan;
        SolveStages hooks;
        hooks.planReady = [&] {
            stages.push_back("plan");
            savedAtPlan = r.plan.savedValues;
            QVERIFY(r.network && r.cut.ok() && !r.rewritten);
            writer = std::async(std::launch::async, [&] { writeSolveReportFile(path, input, [&] { solvedFuture.wait(); }); });
        };
        hooks.rewritten = [&] {
            stages.push_back("rewritten");
            QVERIFY(r.rewritten && !r.clones.empty());
        };
        solver.solveInto(r, config, {}, hooks);
        solved.set_value();
        writer.get();
        QVERIFY2(r.ok(), r.error.c_str());
        QCOMPARE(stages, (std::vector<std::string>{"plan", "rewritten"}));
        QCOMPARE(savedAtPlan, r.plan.savedValues);
        QVERIFY(r.rewrittenMemory.ok() && r.rewrittenMemory.peakBytes > 0);
        const std::string text = rx::testing::fileContents(path);
        QCOMPARE(text, solveReportJson(input));
        QVERIFY(text.find("\"timings_ms\": {") > text.find("\"values\": ["));

        // A program the seed returns unchanged announces no stage.
        SolveResult unchanged;
        RecomputeSpec noBackward = g.spec;
        noBackward.backwardOpStartIdx = int64_t(g.program->globalBlock().ops.size());
        const RecomputeSolver whole(g.program, noBackward);
        SolveStages counted;
        int calls = 0;
        counted.planReady = counted.rewritten = [&] { ++calls; };
        whole.solveInto(unchanged, config, {}, counted);
        QVERIFY(unchanged.ok() && unchanged.unchanged);
        QCOMPARE(calls, 0);
    }

    // Exact decimals of capacities and weights (units of 1/scale), as the report and exports
    // print them: no exponent, no trailing zeros, the fraction's leading zeros kept.
    void exactDecimals() {
        const std::vector<std::tuple<int64_t, int64_t, std::string>> cases = {
            {0, 1, "0"}, {15, 10, "1.5"}, {-15, 10, "-1.5"}, {100, 10, "10"}, {1, 1000, "0.001"},
            {1010, 1000, "1.01"}, {-5, 1000000, "-0.000005"}, {123456789012, 1000000, "123456.789012"},
            {INT64_MIN, 1, "-9223372036854775808"}, {INT64_MIN, 1000000, "-9223372036854.775808"},
            {INT64_MAX, 10, "922337203685477580.7"}};
        for (const auto& [units, scale, text] : cases) {
            FlowNetwork::UnitsBuffer buf;
            QCOMPARE(std::string(FlowNetwork::formatUnits(buf, units, scale)), text);
            QCOMPARE(FlowNetwork::unitsText(units, scale), text);
        }
    }
};

QTEST_GUILESS_MAIN(ReportWriter)
#include "test_report_writer.moc"
