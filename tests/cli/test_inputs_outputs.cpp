// Issue 24, inputs and outputs that never lie: every JSON reader refuses deep nesting with a
// positioned error, --costs goes through the bounded reader, non-finite and unknown figures
// never reach an output as a number, names that are not UTF-8 are refused (or replaced on
// output), PIR JSON that the text grammar cannot carry is refused by the writer, the smaller
// items (duplicate keys, integral floats, -1 in a spec, huge budgets, pins on inputs) and
// one command's outputs committed together.
#include <QtTest>

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <sys/stat.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>

#include "algorithms/Analysis.h"
#include "algorithms/MemoryModel.h"
#include "algorithms/SolveReport.h"
#include "algorithms/Solver.h"
#include "algorithms/planner/Budget.h"
#include "algorithms/planner/CostModel.h"
#include "model/FileIO.h"
#include "model/JsonSupport.h"
#include "model/JsonWriter.h"
#include "model/PirJsonReader.h"
#include "model/PirReader.h"
#include "model/PirWriter.h"
#include "model/RecomputeConfig.h"
#include "model/RecomputeSpec.h"

using namespace rx;

namespace {

// data -> relu -> exp (forward), multiply (backward) over f32 tensors of `dims`.
std::string smallProgram(const std::string& dims = "4x8", const std::string& reluName = "pd_op.relu") {
    const std::string t = "builtin.tensor<" + dims + "xf32>";
    return "{\n"
           "    (%0) = \"pd_op.data\" () {name:\"x\",stop_gradient:[false]} : () -> " + t + "\n"
           "    (%1) = \"" + reluName + "\" (%0) {stop_gradient:[false]} : (" + t + ") -> " + t + "\n"
           "    (%2) = \"pd_op.exp\" (%1) {stop_gradient:[false]} : (" + t + ") -> " + t + "\n"
           "    (%3) = \"pd_op.multiply\" (%2, %1) {stop_gradient:[false]} : (" + t + ", " + t + ") -> " + t + "\n"
           "    (%4) = \"pd_op.multiply\" (%3, %1) {stop_gradient:[false]} : (" + t + ", " + t + ") -> " + t + "\n"
           "}\n";
}

// A small forward chain and, in the backward part, two values of 2^60 f32 elements (4 EiB
// each) alive at once: past int64's 8 EiB, so the memory figures cannot be counted, while the
// flow network (forward values only) is small.
std::string hugeBackwardProgram() {
    const std::string huge = "builtin.tensor<1073741824x1073741824xf32>", t = "builtin.tensor<4x8xf32>";
    return "{\n"
           "    (%0) = \"pd_op.data\" () {name:\"x\",stop_gradient:[false]} : () -> " + t + "\n"
           "    (%1) = \"pd_op.relu\" (%0) {stop_gradient:[false]} : (" + t + ") -> " + t + "\n"
           "    (%2) = \"pd_op.exp\" (%1) {stop_gradient:[false]} : (" + t + ") -> " + t + "\n"
           "    (%3) = \"pd_op.full\" () {stop_gradient:[true]} : () -> " + huge + "\n"
           "    (%4) = \"pd_op.full\" () {stop_gradient:[true]} : () -> " + huge + "\n"
           "    (%5) = \"pd_op.add\" (%3, %4) {stop_gradient:[false]} : (" + huge + ", " + huge + ") -> " + t + "\n"
           "    (%6) = \"pd_op.multiply\" (%5, %1) {stop_gradient:[false]} : (" + t + ", " + t + ") -> " + t + "\n"
           "}\n";
}

// 130k levels in about 256 KB: what crashed every reader with a recursive parse.
std::string deeplyNested() { return "{\"a\": " + std::string(130000, '[') + std::string(130000, ']') + "}"; }

// A PIR JSON program of one pd_op.data whose attribute list is `attribute` (one AT/N entry).
std::string pirJsonWithAttribute(const std::string& attribute) {
    return "{\"base_code\":{\"magic\":\"pir\",\"trainable\":true,\"version\":1},\"program\":{\"regions\":[{\"#\":\"region_0\",\"blocks\":[{\"#\":\"block_0\",\"args\":[],\"ops\":["
           "{\"#\":\"1.data\",\"A\":[" + attribute +
           "],\"I\":[],\"O\":[{\"%\":1,\"TT\":{\"#\":\"0.t_dtensor\",\"D\":[{\"#\":\"0.t_f32\"},[2],\"NCHW\",[],0]}}],\"OA\":[]}]}]}]}}";
}

std::string errorOf(const std::function<void()>& f) {
    try {
        f();
    } catch (const Error& e) {
        return e.what();
    }
    return "(no error)";
}

bool contains(const std::string& text, const std::string& piece) { return text.find(piece) != std::string::npos; }

std::string readAll(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

bool isValidJson(const std::string& text) {
    rapidjson::Document d;
    d.Parse<rapidjson::kParseValidateEncodingFlag>(text.data(), text.size());
    return !d.HasParseError();
}

}  // namespace

class InputsOutputsTest : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;
    std::string path(const std::string& name) const { return (tmp_.path() + "/").toStdString() + name; }

private Q_SLOTS:
    // ---- 1. deep nesting: a positioned error naming the limit, in every JSON reader ----
    void deepNestingIsAPositionedErrorInEveryReader() {
        const std::string text = deeplyNested();
        const Program program = parsePir(smallProgram(), "p.pir");
        const std::vector<std::pair<const char*, std::function<void()>>> readers = {
            {"config", [&] { parseConfigJson(text, "deep.json"); }},
            {"spec", [&] { parseSpecJson(text, program, "deep.json"); }},
            {"PIR", [&] { parsePirJson(text, "deep.json"); }},
            {"profile report", [&] {
                 planner::CostModel costs = planner::CostModel::fromTypes(program);
                 costs.loadProfileJson(text, "deep.json", program);
             }},
        };
        for (const auto& [what, read] : readers) {
            const std::string message = errorOf(read);
            // The bracket past the limit: `{` is level 1, so the 512th `[` (column 6 + 512) is level 513.
            QVERIFY2(contains(message, "deep.json:1:518: invalid " + std::string(what) +
                                           " JSON: arrays and objects nested deeper than the limit of 512 levels"),
                     message.c_str());
        }
        // At the limit it still reads (the readers' own checks speak then).
        const std::string atLimit = std::string(kMaxJsonDepth, '[') + std::string(kMaxJsonDepth, ']');
        QVERIFY(!findJsonDepthExcess(atLimit));
        QVERIFY(findJsonDepthExcess("[" + atLimit + "]"));
        // Brackets inside strings do not count.
        QVERIFY(!findJsonDepthExcess("[\"" + std::string(5000, '[') + "\\\"[\"]", 4));
    }

    // ---- 2. --costs through the one bounded reader ----
    void profileReportsAreReadThroughTheBoundedReader() {
        const Program program = parsePir(smallProgram(), "p.pir");
        planner::CostModel costs = planner::CostModel::fromTypes(program);
        const std::string fifo = path("costs.fifo");
        QCOMPARE(::mkfifo(fifo.c_str(), 0600), 0);
        // A FIFO would block the read forever: refused at once.
        QVERIFY(contains(errorOf([&] { costs.loadProfile(fifo, program); }), "FIFO"));
        // /dev/zero never ends: refused as a device, not read until memory runs out.
        QVERIFY(contains(errorOf([&] { costs.loadProfile("/dev/zero", program); }), "character device"));
        QVERIFY(contains(errorOf([&] { NoNeedBufferTable::readFile(fifo); }), "FIFO"));
        QVERIFY(contains(errorOf([&] { costs.loadProfile(path("missing.json"), program); }), "missing.json"));
    }

    // ---- 3. non-finite numbers: refused at the input, and by the JSON writer ----
    void profileTimesMustBeFiniteAndInRange() {
        const Program program = parsePir(smallProgram(), "p.pir");
        for (const char* ms : {"1e308", "-1", "3.3e10"}) {
            planner::CostModel costs = planner::CostModel::fromTypes(program);
            const std::string json = std::string("{\"original\": {\"ops\": [{\"index\": 1,") + "\n \"ms\": " + ms + "}]}}";
            const std::string message = errorOf([&] { costs.loadProfileJson(json, "p.json", program); });
            QVERIFY2(contains(message, "p.json:2:8: $.original.ops[0].ms: expected milliseconds from 0 to 3.2e10"),
                     message.c_str());
        }
        planner::CostModel costs = planner::CostModel::fromTypes(program);
        costs.loadProfileJson("{\"original\": {\"ops\": [{\"index\": 1, \"ms\": 3.2e10}, {\"index\": 2, \"ms\": 3.2e10}]}}",
                              "p.json", program);
        for (OpId op = 0; op < program.ops().size(); ++op) QVERIFY(std::isfinite(costs.cost(op)));
    }

    void theJsonWriterRefusesNonFiniteNumbers() {
        for (double bad : {std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
                           std::numeric_limits<double>::quiet_NaN()}) {
            rapidjson::StringBuffer buffer;
            PrettyJsonWriter<rapidjson::StringBuffer> w(buffer);
            w.StartObject();
            w.Key("recompute_ms");
            const std::string message = errorOf([&] { w.Double(bad); });
            QVERIFY2(contains(message, "refusing to write") && contains(message, "for key 'recompute_ms'"),
                     message.c_str());
        }
        rapidjson::StringBuffer buffer;
        JsonWriter<rapidjson::StringBuffer> w(buffer);
        w.StartArray();
        w.Double(1.5);
        w.EndArray();
        QCOMPARE(std::string(buffer.GetString()), std::string("[1.5]"));
    }

    // ---- 4. figures that do not fit: null with a top-level note, never 0 ----
    void figuresThatDoNotFitAreNullInTheSolveReport() {
        auto program = std::make_shared<Program>(parsePir(hugeBackwardProgram(), "huge.pir"));
        RecomputeSpec spec;
        spec.fwdOpEndIdx = 2;
        spec.backwardOpStartIdx = 3;
        spec.inputs = {program->op(program->globalBlock().ops[0]).results[0]};
        RecomputeSolver solver(program, spec);
        const SolveResult r = solver.solve(RecomputeConfig::seedDefaults());
        QVERIFY2(r.ok(), r.error.c_str());
        QVERIFY(!r.originalMemory.ok());
        const SolveReportInput in{*program, solver.analysis(), r, "huge.pir", "spec", 0, true, nullptr};
        const std::string text = solveReportJson(in);
        rapidjson::Document d;
        d.Parse(text.c_str());
        QVERIFY(!d.HasParseError());
        QVERIFY(d["peak_bytes_before"].IsNull());
        QVERIFY(d["peak_bytes_after"].IsNull());
        QVERIFY(d["memory"]["original"]["peak_bytes"].IsNull());
        QVERIFY(d["memory"]["original"]["resident_bytes"].IsNull());
        QVERIFY(d["memory"]["original"]["error"].IsString());
        QVERIFY(d.HasMember("unknown_figures") && d["unknown_figures"].IsArray() && d["unknown_figures"].Size() == 2);
        QVERIFY(contains(d["unknown_figures"][0].GetString(), "peak_bytes_before and memory.original are null"));
    }

    // ---- 5. UTF-8: refused at the reader with a position, replaced on output ----
    void namesThatAreNotUtf8AreAPositionedError() {
        const std::string message = errorOf([&] { parsePir(smallProgram("4x8", "pd_op.re\xFFlu"), "bad.pir"); });
        QVERIFY2(contains(message, "bad.pir:3:21: expected UTF-8 text in a quoted name or string, found byte 0xFF"),
                 message.c_str());
        // Overlong forms and lone continuation bytes too; valid multi-byte names pass.
        QVERIFY(contains(errorOf([&] { parsePir(smallProgram("4x8", "a\xC0\xAF"), "bad.pir"); }), "found byte 0xC0"));
        QVERIFY(contains(errorOf([&] { parsePir(smallProgram("4x8", "a\x80"), "bad.pir"); }), "found byte 0x80"));
        QCOMPARE(errorOf([&] { parsePir(smallProgram("4x8", "pd_op.r\xC3\xA9lu"), "ok.pir"); }), std::string("(no error)"));
        QVERIFY(contains(errorOf([&] { parseConfigJson("{\"view_ops\": [\"\xFF\"]}", "c.json"); }), "c.json:1:"));
    }

    void everyJsonOutputIsValidUtf8() {
        rapidjson::StringBuffer buffer;
        JsonWriter<rapidjson::StringBuffer> w(buffer);
        w.StartObject();
        w.Key("na\xFFme");
        w.String("op\xFF\xFE");
        w.EndObject();
        const std::string text = buffer.GetString();
        QVERIFY2(isValidJson(text), text.c_str());
        QCOMPARE(text, std::string("{\"na\xEF\xBF\xBDme\":\"op\xEF\xBF\xBD\xEF\xBF\xBD\"}"));

        // The solve report (its own writer) with a program path that is not UTF-8.
        auto program = std::make_shared<Program>(parsePir(smallProgram(), "p.pir"));
        RecomputeSpec spec;
        spec.fwdOpEndIdx = 2;
        spec.backwardOpStartIdx = 3;
        RecomputeSolver solver(program, spec);
        const SolveResult r = solver.solve(RecomputeConfig::seedDefaults());
        QVERIFY2(r.ok(), r.error.c_str());
        const SolveReportInput in{*program, solver.analysis(), r, "dir\xFF/p.pir", "spec", 0, true, nullptr};
        QVERIFY(isValidJson(solveReportJson(in)));
    }

    // ---- 6. PIR JSON -> text: refused by name, or read back ----
    void theTextWriterRefusesWhatTheGrammarCannotCarry() {
        const std::vector<std::pair<std::string, std::string>> cases = {
            {"{\"AT\":{\"#\":\"0.a_str\",\"D\":\"A\"},\"N\":\"\"}", "attribute ''"},
            {"{\"AT\":{\"#\":\"0.a_str\",\"D\":\"A\"},\"N\":\"{x\"}", "attribute '{x'"},
            {"{\"AT\":{\"#\":\"0.a_str\",\"D\":\"A\"},\"N\":\"a\\u0000b\"}", "attribute 'a\\x00b'"},
            {"{\"AT\":{\"#\":\"1.a_dtype\",\"D\":\"floa/t32\"},\"N\":\"dtype\"}", "data type 'floa/t32' is not a bare word"},
        };
        for (const auto& [attribute, expected] : cases) {
            const Program p = parsePirJson(pirJsonWithAttribute(attribute), "in.json");
            const std::string message = errorOf([&] { printProgram(p); });
            QVERIFY2(contains(message, "cannot write attribute") && contains(message, expected), message.c_str());
            // The file is not written either (no half-written output).
            const std::string out = path("refused.pir");
            QVERIFY(contains(errorOf([&] { writeProgramFile(p, out); }), "cannot write attribute"));
            QVERIFY(!std::filesystem::exists(out));
        }
        // What the grammar carries reads back: strings with quotes, backslashes, line breaks.
        const Program ok = parsePirJson(
            pirJsonWithAttribute("{\"AT\":{\"#\":\"0.a_str\",\"D\":\"a\\\"b\\\\c\\nd\"},\"N\":\"name\"},{\"AT\":{\"#\":\"1.a_dtype\",\"D\":\"float32\"},\"N\":\"dtype\"}"),
            "in.json");
        const Program back = parsePir(printProgram(ok), "printed.pir");
        QCOMPARE(printProgram(back), printProgram(ok));
    }

    void sharedPirJsonConvertsAndReadsBack() {
        const Program p = readPirJsonFile(std::string(RX_SHARED_DIR) + "/corpus/pir-json/save-load-doc-fc-relu-scale.json");
        const Program back = parsePir(printProgram(p), "printed.pir");
        QCOMPARE(back.globalBlock().ops.size(), p.globalBlock().ops.size());
    }

    // ---- 7. smaller items ----
    void duplicateConfigKeysNameBothLines() {
        const std::string message =
            errorOf([] { parseConfigJson("{\n  \"distance_cap\": 3,\n  \"random_ops\": [],\n  \"distance_cap\": 4\n}", "c.json"); });
        QVERIFY2(contains(message, "c.json:4:3: invalid config JSON: key 'distance_cap' appears twice in one object "
                                   "(first at line 2, column 3)"),
                 message.c_str());
        const Program program = parsePir(smallProgram(), "p.pir");
        QVERIFY(contains(errorOf([&] {
                             parseSpecJson("{\"fwd_op_end_idx\": 1, \"backward_op_start_idx\": 3, \"fwd_op_end_idx\": 2}",
                                           program, "s.json");
                         }),
                         "key 'fwd_op_end_idx' appears twice"));
    }

    void integralFloatsAreIntegers() {
        QCOMPARE(parseConfigJson("{\"max_dist_from_bw\": 3.0}", "c.json").maxDistFromBw, int64_t(3));
        QCOMPARE(parseConfigJson("{\"distance_cap\": 1e3}", "c.json").distanceCap, int64_t(1000));
        QVERIFY(contains(errorOf([] { parseConfigJson("{\"max_dist_from_bw\": 3.5}", "c.json"); }),
                         "expected an integer, found 3.5"));
        QVERIFY(contains(errorOf([] { parseConfigJson("{\"distance_cap\": 1e30}", "c.json"); }),
                         "is outside the allowed range"));
    }

    void aSpecWithNoForwardPartNamesTheField() {
        const Program program = parsePir(smallProgram(), "p.pir");
        const std::string message = errorOf([&] {
            parseSpecJson("{\"fwd_op_end_idx\": -1,\n \"backward_op_start_idx\": 3}", program, "s.json");
        });
        QVERIFY2(contains(message, "s.json:1:20: fwd_op_end_idx: -1 gives no forward part; expected the index of the last forward op (0 to 4)"),
                 message.c_str());
    }

    void budgetsBeyondMemoryAreUnbounded() {
        const planner::BudgetSpec max = planner::parseBudget("9223372036854775807");
        QVERIFY(!max.isFraction);
        QCOMPARE(max.bytes, std::numeric_limits<int64_t>::max() / 2);
        QCOMPARE(planner::parseBudget("100TiB").bytes, int64_t(100) << 40);
        QCOMPARE(planner::parseBudget("1e30B").bytes, std::numeric_limits<int64_t>::max() / 2);
        QVERIFY(contains(errorOf([] { planner::parseBudget(""); }), "expects bytes"));
        QVERIFY(contains(errorOf([] { planner::parseBudget("  "); }), "expects bytes"));
        // Spaces around the figure, either end, are not part of it.
        QCOMPARE(planner::parseBudget(" 0.5").fraction, 0.5);
        QCOMPARE(planner::parseBudget("0.5 ").fraction, 0.5);
        QCOMPARE(planner::parseBudget("\t512 MiB ").bytes, int64_t(512) << 20);
    }

    void aPinOnAnInputIsAWarning() {
        auto program = std::make_shared<Program>(parsePir(smallProgram(), "p.pir"));
        RecomputeSpec spec;
        spec.fwdOpEndIdx = 2;
        spec.backwardOpStartIdx = 3;
        spec.inputs = {program->op(program->globalBlock().ops[0]).results[0]};
        RecomputeConfig config = RecomputeConfig::seedDefaults();
        config.pinnedSaved = {"%0"};
        config.pinnedRecomputed = {"%0"};
        RecomputeSolver solver(program, spec);
        const SolveResult r = solver.solve(config);
        QVERIFY2(r.ok(), r.error.c_str());
        int warnings = 0;
        for (const auto& w : r.plan.warnings) warnings += contains(w, "pinned value %0 is an input of the program");
        QCOMPARE(warnings, 2);
    }

    void outputsOfOneCommandCommitTogether() {
        // The second output fails (/dev/full: no space); the first must keep its old content.
        const std::string report = path("r.json");
        writeFileAtomic(report, "old report\n");
        {
            AtomicFile first(report), second("/dev/full");
            first.write("new report\n");
            second.write(std::string(1 << 16, 'x'));
            QVERIFY(contains(errorOf([&] { commitAll({&first, &second}); }), "/dev/full"));
        }
        QCOMPARE(readAll(report), std::string("old report\n"));
        for (const auto& entry : std::filesystem::directory_iterator(tmp_.path().toStdString()))
            QVERIFY2(!contains(entry.path().filename().string(), ".tmp-"), entry.path().c_str());
        // Both succeed: both replaced.
        const std::string other = path("w.pir");
        {
            AtomicFile first(report), second(other);
            first.write("new report\n");
            second.write("new program\n");
            commitAll({&first, nullptr, &second});
        }
        QCOMPARE(readAll(report), std::string("new report\n"));
        QCOMPARE(readAll(other), std::string("new program\n"));
    }
};

QTEST_GUILESS_MAIN(InputsOutputsTest)
#include "test_inputs_outputs.moc"
