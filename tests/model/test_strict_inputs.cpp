// Strict inputs: the PIR JSON reader checks what the text reader checks (dims, scopes,
// counts) and names the JSON path and line:column; the config and spec readers reject unknown
// keys with the nearest valid one, numbers outside their range with the range, wrong types
// with the expected type; byte sizes are exact or marked as not fitting, never wrapped.
#include <QtTest>

#include <functional>
#include <string>

#include "model/CheckedMath.h"
#include "model/Diagnostic.h"
#include "model/JsonSupport.h"
#include "model/PirJsonReader.h"
#include "model/RecomputeConfig.h"
#include "model/RecomputeSpec.h"
#include "support/ErrorOf.h"

using namespace rx;
using rx::testing::errorOf;

namespace {

// A PIR JSON program of a data op and a relu; `dims` and the relu's operand are spliced in.
std::string pirJson(const std::string& dims, const std::string& reluOperand = "{\"%\":1}") {
    return "{\"base_code\":{\"magic\":\"pir\",\"version\":1},\n"
           "\"program\":{\"regions\":[{\"#\":\"region_0\",\"blocks\":[{\"#\":\"block_0\",\"args\":[],\"ops\":[\n"
           "{\"#\":\"1.data\",\"A\":[],\"I\":[],\"O\":[{\"%\":1,\"TT\":{\"#\":\"0.t_dtensor\",\"D\":[{\"#\":\"0.t_f32\"},[2,3],\"NCHW\",[],0]}}]},\n"
           "{\"#\":\"1.relu\",\"A\":[],\"I\":[" + reluOperand + "],\"O\":[{\"%\":2,\"TT\":{\"#\":\"0.t_dtensor\",\"D\":[{\"#\":\"0.t_f32\"}," +
           dims + ",\"NCHW\",[],0]}}]}\n]}]}]}}\n";
}

}  // namespace

class StrictInputsTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void pirJsonReadsAGoodProgram() {
        const Program p = parsePirJson(pirJson("[2,-1]"), "ok.json");
        QCOMPARE(p.globalBlock().ops.size(), size_t(2));
        QCOMPARE(p.types()[p.value(1).type].dims, (std::vector<int64_t>{2, -1}));
    }

    void pirJsonDimsMustBeIntegersFromMinusOne_data() {
        QTest::addColumn<QString>("dims");
        QTest::addColumn<QString>("found");
        QTest::newRow("string") << "[2,\"3\"]" << "found a string";
        QTest::newRow("fraction") << "[2,1.5]" << "found 1.5";
        QTest::newRow("below -1") << "[2,-2]" << "found -2";
        QTest::newRow("1e300") << "[2,1e300]" << "found 1e300";
        QTest::newRow("past int64") << "[2,18446744073709551615]" << "found 18446744073709551615";
        QTest::newRow("not a list") << "7" << "expected the dims (an array), found an integer";
    }
    void pirJsonDimsMustBeIntegersFromMinusOne() {
        QFETCH(QString, dims);
        QFETCH(QString, found);
        const std::string e = errorOf([&] { parsePirJson(pirJson(dims.toStdString()), "dims.json"); });
        QVERIFY2(e.find(found.toStdString()) != std::string::npos, e.c_str());
        // The path of the offending value and its line (the relu is on line 4).
        QVERIFY2(e.rfind("dims.json:4:", 0) == 0, e.c_str());
        QVERIFY2(e.find("program.regions[0].blocks[0].ops[1].O[0].TT.D[1]") != std::string::npos, e.c_str());
    }

    void pirJsonColumnPointsAtTheValue() {
        const std::string text = pirJson("[2,-2]");
        const std::string e = errorOf([&] { parsePirJson(text, "col.json"); });
        // Column of "-2" on line 4.
        const size_t line4 = text.find("{\"#\":\"1.relu\"");
        const size_t at = text.find("-2", line4);
        QVERIFY2(e.rfind("col.json:4:" + std::to_string(at - line4 + 1) + ":", 0) == 0, e.c_str());
    }

    void pirJsonOperandsMustBeDefinedInScope() {
        const std::string undefined = errorOf([&] { parsePirJson(pirJson("[2,3]", "{\"%\":9}"), "scope.json"); });
        QVERIFY2(undefined.find("ops[1].I[0].%: PIR JSON: value id 9 used before it is defined") != std::string::npos,
                 undefined.c_str());
        // A value defined inside a region is out of scope after it.
        const std::string nested =
            "{\"base_code\":{\"magic\":\"pir\"},\"program\":{\"regions\":[{\"blocks\":[{\"ops\":[\n"
            "{\"#\":\"1.data\",\"O\":[{\"%\":1,\"TT\":{\"#\":\"0.t_dtensor\",\"D\":[{\"#\":\"0.t_b\"},[],\"NCHW\",[],0]}}]},\n"
            "{\"#\":\"1.if\",\"I\":[{\"%\":1}],\"O\":[],\"regions\":[{\"blocks\":[{\"ops\":[\n"
            "{\"#\":\"1.full\",\"O\":[{\"%\":5,\"TT\":{\"#\":\"0.t_dtensor\",\"D\":[{\"#\":\"0.t_f32\"},[1],\"NCHW\",[],0]}}]}]}]}]},\n"
            "{\"#\":\"1.relu\",\"I\":[{\"%\":5}],\"O\":[]}]}]}]}}";
        const std::string e = errorOf([&] { parsePirJson(nested, "nested.json"); });
        QVERIFY2(e.find("value id 5 is not in scope here") != std::string::npos, e.c_str());
        QVERIFY2(e.find("ops[2].I[0]") != std::string::npos, e.c_str());
    }

    void pirJsonDuplicateIdsAndCountsAreErrors() {
        const std::string twice = pirJson("[2,3]");
        std::string dup = twice;
        dup.replace(dup.find("{\"%\":2,"), 7, "{\"%\":1,");
        QVERIFY(errorOf([&] { parsePirJson(dup, "dup.json"); }).find("value id 1 defined twice") != std::string::npos);
        std::string shortType = twice;
        const std::string full = "[{\"#\":\"0.t_f32\"},[2,3],\"NCHW\",[],0]";
        shortType.replace(shortType.find(full), full.size(), "[{\"#\":\"0.t_f32\"}]");
        const std::string e = errorOf([&] { parsePirJson(shortType, "short.json"); });
        QVERIFY2(e.find("dense tensor type needs [dtype, dims, ...], found 1 element(s)") != std::string::npos, e.c_str());
    }

    // RapidJSON keeps both members of a name; the reader would see the first only. Every JSON
    // reader (PIR, spec, config, profile report) refuses it, naming both places.
    void pirJsonDuplicateKeysAreErrors() {
        std::string text = pirJson("[2,3]");
        const size_t line3 = text.find("{\"#\":\"1.data\"");
        text.insert(text.find("\"I\":[]", line3), "\"A\":[1],");
        const std::string e = errorOf([&] { parsePirJson(text, "twice.json"); });
        const size_t second = text.find("\"A\":[1]", line3);
        const std::string expected = "twice.json:3:" + std::to_string(second - line3 + 1) +
                                     ": invalid PIR JSON: key 'A' appears twice in one object (first at line 3, column " +
                                     std::to_string(text.find("\"A\"", line3) - line3 + 1) + ")";
        QVERIFY2(e == expected, (e + " | expected: " + expected).c_str());
        // Equal keys in different objects are fine.
        QVERIFY(errorOf([&] { parsePirJson(pirJson("[2,3]"), "ok.json"); }).empty());
    }

    void configRejectsUnknownKeysNamingTheNearest() {
        const std::string e = errorOf([&] { parseConfigJson("{\n  \"max_dist_from_bwd\": 4\n}", "c.json"); });
        QVERIFY2(e.find("c.json:2:24: ") == 0, e.c_str());
        QVERIFY2(e.find("unknown key 'max_dist_from_bwd'; did you mean 'max_dist_from_bw'?") != std::string::npos, e.c_str());
        const std::string far = errorOf([&] { parseConfigJson("{\"colour\": 1}", "c.json"); });
        QVERIFY2(far.find("the config keys are recomputable_ops") != std::string::npos, far.c_str());
    }

    void configNumbersOutsideTheirRangeNameTheRange() {
        const std::string e = errorOf([&] { parseConfigJson("{\"minimum_weight\": 1e300}", "c.json"); });
        QVERIFY2(e.find("config key 'minimum_weight': 1e+300 is outside the allowed range [0, 1000000000]") != std::string::npos,
                 e.c_str());
        const std::string i = errorOf([&] { parseConfigJson("{\"max_dist_from_bw\": 1e300}", "c.json"); });
        QVERIFY2(i.find("is outside the allowed range [0, 1000000000]") != std::string::npos, i.c_str());
        const std::string f = errorOf([&] { parseConfigJson("{\"distance_cap\": 2.5}", "c.json"); });
        QVERIFY2(f.find("expected an integer, found 2.5") != std::string::npos, f.c_str());
        const std::string z = errorOf([&] { parseConfigJson("{\"distance_base\": 0}", "c.json"); });
        QVERIFY2(z.find("0 is outside the allowed range (0, 1000]") != std::string::npos, z.c_str());
    }

    void configWrongTypesNameTheExpectedType() {
        const std::string b = errorOf([&] { parseConfigJson("{\"aggressive_recomputation\": \"yes\"}", "c.json"); });
        QVERIFY2(b.find("expected true or false, found a string") != std::string::npos, b.c_str());
        const std::string l = errorOf([&] { parseConfigJson("{\"random_ops\": [\"pd_op.dropout\", 3]}", "c.json"); });
        QVERIFY2(l.find("c.json:1:34: random_ops[1]: config key 'random_ops': expected a name (a string), found an integer") == 0,
                 l.c_str());
        QVERIFY(errorOf([&] { parseConfigJson("[]", "c.json"); }).find("must be an object, found an array") != std::string::npos);
        QVERIFY(errorOf([&] { parseConfigJson("{\"a\": }", "c.json"); }).find("c.json:1:7: invalid config JSON") == 0);
    }

    void configRoundTripsEveryKey() {
        RecomputeConfig c = RecomputeConfig::seedDefaults();
        c.maxDistFromBw = 5;
        c.minimumWeight = 0.25;
        c.pinnedSaved = {"%3"};
        c.viewOps = {"pd_op.view \"quoted\""};
        QCOMPARE(parseConfigJson(configToJson(c), "c.json"), c);
    }

    void specRejectsUnknownKeysAndBadIndices() {
        Program p;
        const TypeId t = p.tensorType(DType::Float32, {2});
        for (int i = 0; i < 3; ++i) p.appendOp(0, "pd_op.full", {}, std::vector<TypeId>{t});
        p.finish();
        const std::string typo = errorOf([&] {
            parseSpecJson("{\"fwd_op_end_idx\": 0, \"backward_op_start_idx\": 1, \"grad_output\": []}", p, "s.json");
        });
        QVERIFY2(typo.find("unknown spec key 'grad_output'; did you mean 'grad_outputs'?") != std::string::npos, typo.c_str());
        const std::string big = errorOf([&] { parseSpecJson("{\"fwd_op_end_idx\": 1e300, \"backward_op_start_idx\": 1}", p, "s.json"); });
        QVERIFY2(big.find("s.json:1:20: fwd_op_end_idx: expected an integer") == 0, big.c_str());
        const std::string range = errorOf([&] { parseSpecJson("{\"fwd_op_end_idx\": 0, \"backward_op_start_idx\": 9}", p, "s.json"); });
        QVERIFY2(range.find("9 is outside the program's ops (allowed -1 to 3)") != std::string::npos, range.c_str());
        const std::string name = errorOf([&] {
            parseSpecJson("{\"fwd_op_end_idx\": 0, \"backward_op_start_idx\": 1, \"inputs\": [\"%0\", \"%7\"]}", p, "s.json");
        });
        QVERIFY2(name.find("s.json:1:69: expected value names of the program, found unknown name(s): %7") == 0, name.c_str());
    }

    void byteSizesAreExactOrMarkedNeverWrapped() {
        TypeTable types;
        const TypeId ok = types.tensor(DType::Float32, {1 << 20, 1 << 20});  // 4 TiB, exact
        QCOMPARE(types.bytes(ok), int64_t(4) << 40);
        QVERIFY(!types.bytesOverflow(ok));
        // 2^62 elements * 4 bytes: past int64, and a later dim must not bring it back.
        const TypeId exa = types.tensor(DType::Float32, {int64_t(1) << 62, 1, 2});
        QVERIFY(types.bytesOverflow(exa));
        QCOMPARE(types.bytes(exa), kInt64Max);
        const TypeId sixteen = types.tensor(DType::Float64, {int64_t(1) << 61, 2, 2, 2, 2});  // 2^65 elems wraps to 0 mod 2^64
        QVERIFY(types.bytesOverflow(sixteen));
        QCOMPARE(types.bytes(types.tensor(DType::Float32, {int64_t(1) << 62, 0})), int64_t(0));  // a 0 dim: empty
        const TypeId vec = types.intern(Type::vector({ok, exa}));
        QVERIFY(types.bytesOverflow(vec));
        QCOMPARE(types.elementCount(exa), kInt64Max);
    }

    void checkedMathIsExactOrAnError() {
        QCOMPARE(checkedAdd(kInt64Max - 1, int64_t(1)).value(), kInt64Max);
        QVERIFY(!checkedAdd(kInt64Max, int64_t(1)));
        QVERIFY(!checkedMul(int64_t(1) << 32, int64_t(1) << 31));
        QVERIFY(errorOf([] { addOrThrow(kInt64Max, 2, "the total"); }).find("the total overflows 64-bit arithmetic") == 0);
        QCOMPARE(decimal(WideInt(kInt64Max) * 4), std::string("36893488147419103228"));
        QCOMPARE(decimal(-WideInt(12)), std::string("-12"));
    }

    void nearestNameFindsTyposOnly() {
        const std::vector<std::string_view> keys{"max_dist_from_bw", "minimum_weight"};
        QCOMPARE(nearestName("minimum_wieght", keys).value_or(""), std::string("minimum_weight"));
        QVERIFY(!nearestName("colour", keys));
    }
};

QTEST_GUILESS_MAIN(StrictInputsTest)
#include "test_strict_inputs.moc"
