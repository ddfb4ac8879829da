// The PIR text reader on the real corpus: every construct FORMATS.md lists, read into the
// right structure (not just "it parses").
#include <algorithm>
#include <QtTest>

#include <array>
#include <string>
#include <vector>

#include "model/PirJsonReader.h"
#include "model/PirReader.h"
#include "model/PirWriter.h"
#include "tests/model/CorpusUtil.h"

using namespace rx;
using namespace rx::test;

namespace {
Program load(const std::string& rel, int index = -1) {
    ReadOptions o;
    o.programIndex = index;
    return readPirFile(corpusDir() + "/" + rel, o);
}
const Operation& globalOp(const Program& p, size_t i) { return p.op(p.globalBlock().ops[i]); }
}  // namespace

class PirReaderTest : public QObject {
    Q_OBJECT
private slots:
    void g1DocstringStructure() {
        const Program p = load("pir-real/recompute-docstring-sin-cos.pir");
        QCOMPARE(p.generation(), Generation::G1);
        QCOMPARE(p.globalBlock().ops.size(), size_t(12));
        QCOMPARE(p.values().size(), size_t(12));
        QVERIFY(p.warnings().empty());
        const Operation& full = globalOp(p, 3);
        QCOMPARE(p.opName(p.globalBlock().ops[3]), std::string_view("pd_op.full"));
        const Attribute* value = full.attribute("value");
        QVERIFY(value);
        QCOMPARE(value->kind, Attribute::Kind::Float);
        QCOMPARE(value->floatValue, 3.0);
        QCOMPARE(value->spelling.str(), std::string("3"));
        QVERIFY(value->typed);
        QCOMPARE(full.attribute("shape")->kind, Attribute::Kind::IntArray);
        QCOMPARE(full.attribute("shape")->toIntVector(), (std::vector<int64_t>{4096, 4096}));
        QCOMPARE(full.attribute("dtype")->kind, Attribute::Kind::DataType);
        QCOMPARE(full.attribute("dtype")->text, std::string("float32"));
        QCOMPARE(full.attribute("place")->text, std::string("Place(undefined:0)"));
        QCOMPARE(full.attribute("stop_gradient")->elements.size(), size_t(1));
        QCOMPARE(full.attribute("stop_gradient")->elements[0].kind, Attribute::Kind::Bool);
        const ValueId x = globalOp(p, 0).results[0];
        QCOMPARE(p.value(x).name, std::string("%0"));
        QCOMPARE(p.valueBytes(x), int64_t(4096) * 4096 * 4);
        QCOMPARE(p.uses(x).size(), size_t(3));  // sin, sin, cos
        const Operation& scale = globalOp(p, 7);
        QCOMPARE(scale.operands.size(), size_t(2));
        QCOMPARE(p.value(scale.operands[1]).name, std::string("%6"));
        QCOMPARE(scale.attribute("bias_after_scale")->boolValue, true);
    }

    void g2MultiResultNullTypeNullValue() {
        const Program p = load("pir-real/simple-llama-infer-250ops.pir");
        QCOMPARE(p.generation(), Generation::G2);
        QCOMPARE(p.globalBlock().ops.size(), size_t(250));
        bool sawNullValue = false, sawNullType = false, sawVec = false, sawDynamic = false;
        for (const Operation& op : p.ops()) {
            for (ValueId v : op.operands) sawNullValue |= v == kNoId;
            for (ValueId r : op.results) {
                const Type& t = p.types()[p.value(r).type];
                sawNullType |= t.kind == Type::Kind::Null;
                sawVec |= t.kind == Type::Kind::Vector;
                for (int64_t d : t.dims) sawDynamic |= d == -1;
            }
        }
        QVERIFY(sawNullValue && sawNullType && sawVec && sawDynamic);
        const Program bn = load("pir-real/auto-layout-pass-resnet-stem.pir");
        const Operation& batchNorm = globalOp(bn, 9);
        QCOMPARE(batchNorm.results.size(), size_t(6));
        QCOMPARE(bn.value(batchNorm.results[5]).name, std::string("%14"));
        QCOMPARE(batchNorm.attribute("epsilon")->spelling.str(), std::string("1e-05"));
    }

    // The grammar allows an op without a signature, but its results have no type and count
    // as 0 bytes: loaded, with a warning naming the first such op (an op without results, such
    // as a yield, needs none and is not counted).
    void opsWithoutASignatureAreAWarning() {
        const Program p = parsePir("{\n"
                                   "    (%0) = \"pd_op.data\" () {} : () -> pd_op.tensor<4xf32>\n"
                                   "    (%1) = \"pd_op.sin\" (%0) {}\n"
                                   "    (%2) = \"pd_op.cos\" (%1)\n"
                                   "    () = \"cf.yield\" (%2) {}\n"
                                   "}\n",
                                   "unsigned.pir");
        QCOMPARE(p.globalBlock().ops.size(), size_t(4));
        QCOMPARE(p.warnings().size(), size_t(1));
        QCOMPARE(p.warnings()[0], std::string("2 op(s) print no type signature for their results (first: line 3, pd_op.sin): "
                                              "their results have no type and count as 0 bytes"));
        QVERIFY(load("cases/docstring-before-recompute.pir").warnings().empty());
        // A while printed without a signature: its results take the carried inputs' types.
        const Program loop = parsePir("{\n"
                                      "    (%0) = \"pd_op.data\" () {} : () -> pd_op.tensor<b>\n"
                                      "    (%1) = \"pd_op.data\" () {} : () -> pd_op.tensor<4xf32>\n"
                                      "    (%2) = \"pd_op.while\"(cond=%0, inputs=%1) {\n"
                                      "    ^%arg_0\n"
                                      "        () = \"cf.yield\" (%0, %arg_0) {}\n"
                                      "    }\n"
                                      "}\n",
                                      "loop.pir");
        QVERIFY2(loop.warnings().empty(), loop.warnings().empty() ? "" : loop.warnings()[0].c_str());
    }

    // A structured op whose blocks yield other counts than its results (the executor's rule)
    // is an error at the op: it loaded and planned, and a run failed only on the branch it took.
    void yieldCountsMatchTheResults() {
        const std::string head = "{\n"
                                 "    (%0) = \"pd_op.data\" () {} : () -> pd_op.tensor<b>\n"
                                 "    (%1) = \"pd_op.data\" () {} : () -> pd_op.tensor<4xf32>\n";
        auto ifWith = [&](const std::string& thenYield) {
            return head + "    (%2) = \"pd_op.if\" (%0) {} : (pd_op.tensor<b>) -> pd_op.tensor<4xf32> {\n" + thenYield +
                   "\n    } else {\n        () = \"cf.yield\" (%1) {} : (pd_op.tensor<4xf32>) ->\n    }\n}\n";
        };
        QVERIFY(parsePir(ifWith("        () = \"cf.yield\" (%1) {} : (pd_op.tensor<4xf32>) ->"), "if.pir").warnings().empty());
        auto errorOf = [](const std::string& text) -> std::string {
            try {
                parsePir(text, "if.pir");
            } catch (const Error& e) {
                return e.what();
            }
            return "";
        };
        QCOMPARE(errorOf(ifWith("        () = \"cf.yield\" () {} : () ->")),
                 std::string("if.pir:4:5: pd_op.if: the then block yields 0 value(s) for the op's 1 result(s)"));
        const std::string loop = head + "    (%2, %3) = \"pd_op.while\"(cond=%0, inputs=%1) {\n    ^%arg_0\n"
                                        "        () = \"cf.yield\" (%0, %arg_0) {}\n    }\n}\n";
        QCOMPARE(errorOf(loop), std::string("if.pir:4:5: pd_op.while: 2 result(s) for 1 carried input(s)"));
        // In a fragment (blocks may be cut short) it is a warning.
        const std::string braced = ifWith("        () = \"cf.yield\" () {} : () ->");
        const Program fragment = parsePir(braced.substr(2, braced.size() - 4), "if.pir");  // without "{\n" and "}\n"
        QVERIFY(std::find(fragment.warnings().begin(), fragment.warnings().end(),
                          "line 3, pd_op.if: the then block yields 0 value(s) for the op's 1 result(s)") != fragment.warnings().end());
    }

    void nonContiguousIdsAndFreshNames() {
        Program p = load("pir-real/fuse-allreduce-split-bf16.pir");
        QCOMPARE(p.globalBlock().ops.size(), size_t(10));
        QCOMPARE(p.value(globalOp(p, 1).results[0]).name, std::string("%38"));
        QCOMPARE(p.nextValueName(), std::string("%68"));
        QCOMPARE(p.types()[p.value(globalOp(p, 0).results[0]).type].dtype, DType::BFloat16);
    }

    void ifRegionsAndNestedUses() {
        const Program p = load("pir-real/visualdl-if-op.pir");
        const OpId ifOp = p.globalBlock().ops[5];
        QCOMPARE(p.opName(ifOp), std::string_view("pd_op.if"));
        QCOMPARE(p.op(ifOp).regions.size(), size_t(2));
        const BlockId thenBlock = p.op(ifOp).regions[0][0];
        QCOMPARE(p.block(thenBlock).ops.size(), size_t(2));
        QCOMPARE(p.block(thenBlock).parentOp, ifOp);
        const ValueId v2 = globalOp(p, 2).results[0];
        const auto uses = p.uses(v2);
        QCOMPARE(uses.size(), size_t(4));  // add(%2,%2) and subtract(%2,%2) inside the regions
        for (const Use& u : uses) QCOMPARE(u.ancestor, ifOp);
        QCOMPARE(p.types()[p.value(globalOp(p, 3).results[0]).type].dims.size(), size_t(0));  // 0-d
        // G1 spelling: bare name, "{" on its own line.
        const Program g1 = load("pir-real/save-load-doc-if-op-early.pir");
        const Operation& if1 = globalOp(g1, 4);
        QVERIFY(if1.syntax & OpSyntax::kBareName);
        QVERIFY(if1.syntax & OpSyntax::kRegionOnNewLine);
        QCOMPARE(if1.regions.size(), size_t(2));
    }

    void whileKeywordOperandsAndBlockArguments() {
        const Program p = load("pir-real/save-load-doc-while-op-early-fragment.pir");
        QVERIFY(p.isFragment());
        QVERIFY(!p.warnings().empty());
        const Operation& loop = globalOp(p, 4);
        QCOMPARE(loop.operandKeywords.toVector(), (std::vector<std::string>{"cond", "inputs"}));
        QCOMPARE(loop.regions.size(), size_t(1));
        const Block& body = p.block(loop.regions[0][0]);
        QCOMPARE(body.args.size(), size_t(1));
        QCOMPARE(p.value(body.args[0]).name, std::string("%arg_0"));
        QCOMPARE(p.types()[p.value(body.args[0]).type].dtype, DType::Int64);  // from the loop input
        QCOMPARE(p.types()[p.value(loop.results[0]).type].dtype, DType::Int64);
        QCOMPARE(p.op(body.ops[0]).operands[0], body.args[0]);
        QCOMPARE(body.ops.size(), size_t(3));
    }

    void passLogListsProgramsAndLoadsTheChosenOne() {
        const std::string file = corpusDir() + "/pir-real/cinn-softmax-pass-pipeline-zwsp-stripped.pir";
        const auto listing = listPrograms(readTextFile(file), file);
        QCOMPARE(listing.size(), size_t(5));
        QCOMPARE(listing[0].title, std::string("IRPrinting on builtin.module original program"));
        QCOMPARE(listing[3].title, std::string("IRPrinting on builtin.module after build_cinn_pass pass"));
        QCOMPARE(listing[0].opCount, size_t(9));
        QCOMPARE(listing[4].opCount, size_t(3));
        QCOMPARE(listing[0].line, 4);
        const Program last = load("pir-real/cinn-softmax-pass-pipeline-zwsp-stripped.pir");
        QCOMPARE(last.globalBlock().ops.size(), size_t(3));
        QCOMPARE(globalOp(last, 1).attribute("kernel_info")->kind, Attribute::Kind::Pointer);
        const Program group = load("pir-real/cinn-softmax-pass-pipeline-zwsp-stripped.pir", 3);
        const Operation& g = globalOp(group, 1);
        QCOMPARE(group.opName(group.globalBlock().ops[1]), std::string_view("cinn_op.group"));
        QVERIFY(g.syntax & OpSyntax::kArrowOnlySignature);
        QCOMPARE(group.block(g.regions[0][0]).ops.size(), size_t(8));
        QVERIFY_THROWS_EXCEPTION(Error, load("pir-real/cinn-softmax-pass-pipeline-zwsp-stripped.pir", 5));
    }

    void kernelDialect() {
        const Program p = load("pir-real/docs-add-relu-op-and-kernel-dialect.pir");  // the last: kernel
        QCOMPARE(p.opName(p.globalBlock().ops[4]), std::string_view("add(phi_kernel)"));
        const Type& t = p.types()[p.value(globalOp(p, 4).results[0]).type];
        QCOMPARE(t.kind, Type::Kind::DenseTensor);
        QCOMPARE(t.dialect, std::string("gpu_tensor"));
        QCOMPARE(globalOp(p, 4).attribute("kernel_key")->kind, Attribute::Kind::Opaque);
        QCOMPARE(globalOp(p, 6).results.size(), size_t(0));
        const Program opDialect = load("pir-real/docs-add-relu-op-and-kernel-dialect.pir", 0);
        QCOMPARE(opDialect.globalBlock().ops.size(), size_t(5));
    }

    void g3WrappedFragment() {
        const Program p = load("pir-real/g3-dit-adaptive-layernorm-fragment-wrapped.pir");
        QCOMPARE(p.generation(), Generation::G3);
        QCOMPARE(p.globalBlock().ops.size(), size_t(9));  // SOURCES.md says 8; the text holds 9
        QCOMPARE(p.globalBlock().args.size(), size_t(5));  // used, not defined in the fragment
        QCOMPARE(p.types()[p.value(p.globalBlock().args[0]).type].dims, (std::vector<int64_t>{2, 4096, 2560}));
        const Operation& ln = globalOp(p, 0);
        QCOMPARE(ln.results.size(), size_t(3));
        QCOMPARE(ln.attribute("epsilon")->kind, Attribute::Kind::Float);
        QCOMPARE(ln.attribute("epsilon")->spelling.str(), std::string("1e-06"));
        QCOMPARE(ln.attribute("begin_norm_axis")->kind, Attribute::Kind::Int32);
        QCOMPARE(globalOp(p, 1).attribute("dtype")->kind, Attribute::Kind::DataType);
        QCOMPARE(globalOp(p, 1).attribute("place")->kind, Attribute::Kind::Place);
        QCOMPARE(globalOp(p, 3).attribute("shape")->kind, Attribute::Kind::IntArray);
        QVERIFY(p.warnings().size() >= 2);
    }

    void g0ExcerptWithElisions() {
        const Program p = load("pir-real/qa-learning-resnet50-train-excerpt-prerelease.pir");
        QCOMPARE(p.generation(), Generation::G0);
        QCOMPARE(p.globalBlock().ops.size(), size_t(27));
        const Operation& conv = globalOp(p, 9);
        QCOMPARE(conv.attribute("strides")->toIntVector(), (std::vector<int64_t>{2, 2}));
        QCOMPARE(conv.attribute("data_format")->kind, Attribute::Kind::String);
        QCOMPARE(conv.attribute("data_format")->text, std::string("NCHW"));
        const Operation& constant = globalOp(p, 12);
        QCOMPARE(constant.attribute("value")->kind, Attribute::Kind::IntArray);
        QCOMPARE(p.types()[p.value(constant.results[0]).type].kind, Type::Kind::Opaque);
        QVERIFY(p.warnings().size() >= 2);
    }

    void idSuffixCommentsAndZeroWidthCharacters() {
        const std::string text =
            "\xEF\xBB\xBF// a comment line\n{ // the program\n"
            "    (%0) = \"pd_op.data\" [id:7] () {dtype:float32,name:\"x\",place:Place(cpu),shape:[2,3],stop_gradient:[true]} : () -> tensor<2x3xf32>\n"
            "    (%1) = \"pd_op.relu\"\xE2\x80\x8B [id:8] (%0) {stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf32>  // relu\n"
            "}\n";
        const Program p = parsePir(text, "mem");
        QCOMPARE(p.generation(), Generation::G3);
        QCOMPARE(globalOp(p, 0).printedId, 7u);
        QCOMPARE(globalOp(p, 1).printedId, 8u);
        const std::string printed = printProgram(p);
        QVERIFY(printed.find("\"pd_op.relu\" [id:8] (%0)") != std::string::npos);
        QCOMPARE(printProgram(parsePir(printed, "again")), printed);
    }

    void unknownOpsAndAttributesSurviveRoundTrip() {
        const std::string text =
            "{\n"
            "    (%0) = \"my_dialect.thing\" () {a:(pd_op.Weird)abc,b:{x:1,y:\"}\"},c:<k:v|w>,d:(0x7f00),e:NHWC,f:(Index)3,g:(Bool)true,h:(pd_op.DataLayout)NCHW,i:\"q\\\"uote\"} : () -> builtin.tensor<2xf32>\n"
            "    (%1, %2) = \"my_dialect.pair\" (%0, <<NULL VALUE>>) {} : (builtin.tensor<2xf32>, <<NULL TYPE>>) -> my.type<abc<1>>, builtin.selected_rows<4x2xf32>\n"
            "    (%3) = \"my_dialect.region\" (%1) {k:[]} : (my.type<abc<1>>) -> builtin.tensor<f32> {\n"
            "        ^%arg_0: builtin.tensor<2xf32>, %arg_1: builtin.tensor<2xf32>\n"
            "        () = \"cf.yield\" (%arg_0, %2) {} : (builtin.tensor<2xf32>, builtin.selected_rows<4x2xf32>) ->\n"
            "    } else {\n"
            "        () = \"cf.yield\" () {} : () ->\n"
            "    }\n"
            "}\n";
        const Program p = parsePir(text, "unknown.pir");
        QCOMPARE(printProgram(p), text);
        const Operation& thing = globalOp(p, 0);
        QCOMPARE(thing.attribute("a")->kind, Attribute::Kind::Opaque);
        QCOMPARE(thing.attribute("d")->kind, Attribute::Kind::Pointer);
        QCOMPARE(thing.attribute("f")->kind, Attribute::Kind::Index);
        QCOMPARE(thing.attribute("g")->boolValue, true);
        QCOMPARE(thing.attribute("h")->kind, Attribute::Kind::DataLayout);
        const Operation& region = globalOp(p, 2);
        const Block& body = p.block(region.regions[0][0]);
        QVERIFY(body.argTypesPrinted);
        QCOMPARE(body.args.size(), size_t(2));
        QCOMPARE(p.types()[p.value(globalOp(p, 1).results[1]).type].kind, Type::Kind::SelectedRows);
        QCOMPARE(p.types()[p.value(globalOp(p, 1).results[0]).type].kind, Type::Kind::Opaque);
    }

    void zeroWidthCharactersAnywhere() {
        // Like the CINN doc before its 1334 U+FEFF were stripped: inside names and numbers too.
        const std::string clean = readTextFile(corpusDir() + "/pir-real/recompute-docstring-sin-cos.pir");
        std::string dirty;
        for (size_t i = 0; i < clean.size(); ++i) {
            dirty += clean[i];
            if (i % 7 == 3) dirty += (i % 2) ? "\xEF\xBB\xBF" : "\xE2\x80\x8B";
        }
        const Program p = parsePir(dirty, "dirty.pir");
        QCOMPARE(printProgram(p), printProgram(parsePir(clean, "clean.pir")));
        QVERIFY(!p.warnings().empty());
        QCOMPARE(listPrograms(dirty, "dirty.pir").size(), size_t(1));
    }

    void jsonMatchesTheTextProgram() {
        const Program json = readPirJsonFile(corpusDir() + "/pir-json/save-load-doc-fc-relu-scale.json");
        const Program text = load("pir-real/save-load-doc-fc-relu-scale.pir");
        QCOMPARE(json.globalBlock().ops.size(), text.globalBlock().ops.size());
        for (size_t i = 0; i < text.globalBlock().ops.size(); ++i) {
            const Operation& a = globalOp(json, i);
            const Operation& b = globalOp(text, i);
            QCOMPARE(json.opName(json.globalBlock().ops[i]), text.opName(text.globalBlock().ops[i]));
            QCOMPARE(a.operands.size(), b.operands.size());
            for (size_t k = 0; k < a.operands.size(); ++k)
                QCOMPARE(json.value(a.operands[k]).name, text.value(b.operands[k]).name);
            QCOMPARE(a.results.size(), b.results.size());
            for (size_t k = 0; k < a.results.size(); ++k) {
                QCOMPARE(json.value(a.results[k]).name, text.value(b.results[k]).name);
                QCOMPARE(json.valueBytes(a.results[k]), text.valueBytes(b.results[k]));
            }
            QCOMPARE(a.attributes.size(), b.attributes.size());
            for (size_t k = 0; k < a.attributes.size(); ++k) QCOMPARE(a.attributes[k].name, b.attributes[k].name);
        }
        // loadProgram picks the reader by content.
        const Program viaLoad = loadProgram(corpusDir() + "/pir-json/save-load-doc-fc-relu-scale.json");
        QCOMPARE(viaLoad.globalBlock().ops.size(), size_t(9));
        QCOMPARE(globalOp(viaLoad, 0).attribute("parameter_name")->text, std::string("fc_0.b_0"));
        QVERIFY_THROWS_EXCEPTION(Error, parsePirJson("{\"base_code\": 1", "bad.json"));
        QVERIFY_THROWS_EXCEPTION(Error, parsePirJson("{\"base_code\": {\"magic\": \"x\"}}", "bad.json"));
    }

    void passCreatedAttributesPrintInEveryGeneration() {
        QCOMPARE(printAttribute(Attribute::boolean(true), Generation::G2), std::string("true"));
        QCOMPARE(printAttribute(Attribute::int32(5), Generation::G2), std::string("(Int32)5"));
        QCOMPARE(printAttribute(Attribute::int32(5), Generation::G1), std::string("(Int32)5"));
        QCOMPARE(printAttribute(Attribute::int32(5), Generation::G3), std::string("5"));
        QCOMPARE(printAttribute(Attribute::float32(1e-5), Generation::G2), std::string("(Float)1e-05"));
        QCOMPARE(printAttribute(Attribute::float64(0.5), Generation::G3), std::string("0.5"));
        QCOMPARE(printAttribute(Attribute::string("x"), Generation::G3), std::string("\"x\""));
        QCOMPARE(printAttribute(Attribute::dataType("float32"), Generation::G2), std::string("(pd_op.DataType)float32"));
        QCOMPARE(printAttribute(Attribute::intArray({1, -1}), Generation::G2), std::string("(pd_op.IntArray)[1,-1]"));
        QCOMPARE(printAttribute(Attribute::intArray({1, -1}), Generation::G3), std::string("[1,-1]"));
        QCOMPARE(printAttribute(Attribute::array({Attribute::boolean(false)}), Generation::G2), std::string("[false]"));
        // An op appended by a pass prints and reads back in every generation.
        for (Generation g : {Generation::G1, Generation::G2, Generation::G3}) {
            Program p = load("pir-real/translate-to-pir-docstring.pir");
            const ValueId x = globalOp(p, 0).results[0];
            const std::vector<ValueId> operands{x, x};
            const std::vector<TypeId> types{p.value(x).type};
            p.appendOp(Program::kGlobalBlock, "pd_op.add", operands, types,
                       {{"is_recompute_op", Attribute::boolean(true)}, {"ring_id", Attribute::int32(5)},
                        {"scale", Attribute::float32(0.5)}});
            WriteOptions o;
            o.generation = g;
            const std::string text = printProgram(p, o);
            const Program back = parsePir(text, "appended");
            const Operation& added = globalOp(back, 4);
            QCOMPARE(added.attribute("is_recompute_op")->boolValue, true);
            QCOMPARE(added.attribute("ring_id")->intValue, int64_t(5));
            QCOMPARE(added.attribute("scale")->floatValue, 0.5);
            QCOMPARE(back.value(added.results[0]).name, std::string("%4"));
        }
    }

    void renumberFollowsPrintOrder() {
        const Program p = load("pir-real/fuse-allreduce-split-bf16.pir");
        WriteOptions o;
        o.renumber = true;
        const Program back = parsePir(printProgram(p, o), "renumbered");
        for (size_t i = 0; i < back.globalBlock().ops.size(); ++i)
            QCOMPARE(back.value(globalOp(back, i).results[0]).name, "%" + std::to_string(i));
        const Program ifp = load("pir-real/visualdl-if-op.pir");
        const std::string text = printProgram(ifp, o);
        QVERIFY(text.find("(%8) = \"pd_op.mean\" (%5)") != std::string::npos);
    }

    // The reader reuses the previous dict, the last four types and the last four signatures by
    // their bytes: a program cycling through more of each than that, with operand types in
    // changing orders, gives every op its own types and prints back byte for byte.
    void byteCachesKeepEveryOpsOwnTypes() {
        const std::vector<std::string> types = {"builtin.tensor<2xf32>", "builtin.tensor<2x3xf32>",
                                                "builtin.tensor<3xf32>", "builtin.tensor<2x3x4xf32>",
                                                "builtin.tensor<4xbf16>", "builtin.tensor<-1xf32>"};
        const std::vector<std::string> dicts = {"{stop_gradient:[false]}", "{stop_gradient:[true]}",
                                                "{axis:(Int32)1,stop_gradient:[false]}"};
        std::string text = "{\n";
        std::vector<std::array<size_t, 3>> expected;  // per op: operand 1, operand 2, result type
        for (size_t i = 0; i < types.size(); ++i)
            text += "    (%" + std::to_string(i) + ") = \"pd_op.data\" () " + dicts[0] + " : () -> " + types[i] + "\n";
        for (size_t k = 0; k < 40; ++k) {
            const size_t a = (k * 7) % types.size(), b = (k * 5 + 1) % types.size(), r = (k * 3 + 2) % types.size();
            const size_t id = types.size() + k;
            text += "    (%" + std::to_string(id) + ") = \"pd_op.add\" (%" + std::to_string(a) + ", %" +
                    std::to_string(b) + ") " + dicts[k % dicts.size()] + " : (" + types[a] + ", " + types[b] +
                    ") -> " + types[r] + "\n";
            expected.push_back({a, b, r});
        }
        text += "}\n";
        const Program p = parsePir(text, "cycling");
        QCOMPARE(printProgram(p), text);
        for (size_t k = 0; k < expected.size(); ++k) {
            const Operation& op = globalOp(p, types.size() + k);
            QCOMPARE(printType(p, p.value(op.operands[0]).type, p.generation()), types[expected[k][0]]);
            QCOMPARE(printType(p, p.value(op.operands[1]).type, p.generation()), types[expected[k][1]]);
            QCOMPARE(printType(p, p.value(op.results[0]).type, p.generation()), types[expected[k][2]]);
            QCOMPARE(op.attributes.size(), k % dicts.size() == 2 ? size_t(2) : size_t(1));
        }
    }
};

QTEST_GUILESS_MAIN(PirReaderTest)
#include "test_pir_reader.moc"
