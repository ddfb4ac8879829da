// The check pass (exec/OpSemantics.h): malformed ops are refused before any op
// runs with an error naming the op index, op name and attribute; shapes from attributes and
// constant operands count against the size limits; randomized mutations never crash.
#include <QtTest>

#include <random>

#include "exec/cpu/CpuExecutor.h"
#include "exec/OpSemantics.h"
#include "algorithms/zoo/ModelZoo.h"
#include "model/Diagnostic.h"
#include "model/PirReader.h"
#include "support/ProgramBuilder.h"

using namespace rx;
using namespace rx::exec;

namespace {

// The error text of running `text` (empty when it ran).
std::string runError(const std::string& text, RunOptions options = {}) {
    try {
        Program p = parsePir(text, "case.pir");
        CpuExecutor ex;
        ex.run(p, {}, options);
    } catch (const Error& e) {
        return e.what();
    }
    return {};
}

void expectError(const std::string& text, std::initializer_list<const char*> parts, RunOptions options = {}) {
    std::string e = runError(text, options);
    if (e.empty()) QFAIL("the program ran, expected an error");
    for (const char* part : parts)
        if (e.find(part) == std::string::npos) QFAIL(qPrintable(QString("error \"%1\" lacks \"%2\"").arg(e.c_str(), part)));
}

const char* kConvHead = R"({
    (%0) = "pd_op.data" () {dtype:(pd_op.DataType)float32,name:"x",shape:(pd_op.IntArray)[1,2,6,6]} : () -> pd_op.tensor<1x2x6x6xf32>
    (%1) = "pd_op.data" () {dtype:(pd_op.DataType)float32,name:"w",shape:(pd_op.IntArray)[2,2,3,3]} : () -> pd_op.tensor<2x2x3x3xf32>
)";

using rx::test::ProgramBuilder;  // a program built in code: inputs, ops, fetches

// A small CNN and a small attention block whose attributes the mutation test perturbs.
Program cnnProgram() {
    ProgramBuilder b;
    const DType f = DType::Float32;
    ValueId x = b.data("x", f, {2, 3, 8, 8}), w = b.data("w", f, {4, 3, 3, 3}), w2 = b.data("w2", f, {64, 5});
    ValueId c = b.op("pd_op.conv2d", {x, w}, f, {2, 4, 8, 8},
                     {{"strides", Attribute::intArray({1, 1})}, {"paddings", Attribute::intArray({1, 1})},
                      {"dilations", Attribute::intArray({1, 1})}, {"groups", Attribute::int32(1)},
                      {"padding_algorithm", Attribute::string("EXPLICIT")}, {"data_format", Attribute::string("NCHW")}});
    ValueId r = b.op("pd_op.relu", {c}, f, {2, 4, 8, 8});
    ValueId pool = b.op("pd_op.pool2d", {r, b.ints({2, 2})}, f, {2, 4, 4, 4},
                        {{"strides", Attribute::intArray({2, 2})}, {"paddings", Attribute::intArray({0, 0})},
                         {"pooling_type", Attribute::string("max")}});
    ValueId fl = b.op("pd_op.flatten", {pool}, f, {2, 64}, {{"start_axis", Attribute::int32(1)}, {"stop_axis", Attribute::int32(3)}});
    ValueId m = b.op("pd_op.matmul", {fl, w2}, f, {2, 5}, {{"transpose_x", Attribute::boolean(false)}, {"transpose_y", Attribute::boolean(false)}});
    ValueId s = b.op("pd_op.softmax", {m}, f, {2, 5}, {{"axis", Attribute::int32(-1)}});
    ValueId t = b.op("pd_op.transpose", {s}, f, {5, 2}, {{"perm", Attribute::intArray({1, 0})}});
    ValueId sum = b.op("pd_op.sum", {t, b.ints({0})}, f, {2}, {{"keepdim", Attribute::boolean(false)}});
    b.fetch(sum);
    return std::move(b.p);
}

Program attentionProgram() {
    ProgramBuilder b;
    const DType f = DType::Float32;
    ValueId x = b.data("x", f, {2, 4, 8}), wq = b.data("wq", f, {8, 8}), scale = b.data("ln_w", f, {8});
    ValueId ln = b.op("pd_op.layer_norm", {x, scale, kNoId}, f, {2, 4, 8},
                      {{"epsilon", Attribute::float32(1e-5)}, {"begin_norm_axis", Attribute::int32(2)}});
    ValueId q = b.op("pd_op.matmul", {ln, wq}, f, {2, 4, 8});
    ValueId rs = b.op("pd_op.reshape", {q, b.ints({2, 4, 2, 4})}, f, {2, 4, 2, 4});
    ValueId tr = b.op("pd_op.transpose", {rs}, f, {2, 2, 4, 4}, {{"perm", Attribute::intArray({0, 2, 1, 3})}});
    ValueId sc = b.op("pd_op.matmul", {tr, tr}, f, {2, 2, 4, 4}, {{"transpose_y", Attribute::boolean(true)}});
    ValueId sm = b.op("pd_op.softmax", {sc}, f, {2, 2, 4, 4}, {{"axis", Attribute::int32(-1)}});
    ValueId sl = b.op("pd_op.slice", {sm, b.ints({0}), b.ints({2})}, f, {2, 2, 2, 4},
                      {{"axes", Attribute::intArray({2})}, {"decrease_axis", Attribute::intArray({})}});
    ValueId ar = b.op("pd_op.arange", {b.op("pd_op.full", {}, f, {1}, {{"shape", Attribute::intArray({1})}, {"value", Attribute::float32(0)}}),
                                       b.op("pd_op.full", {}, f, {1}, {{"shape", Attribute::intArray({1})}, {"value", Attribute::float32(4)}}),
                                       b.op("pd_op.full", {}, f, {1}, {{"shape", Attribute::intArray({1})}, {"value", Attribute::float32(1)}})},
                      f, {4});
    ValueId add = b.op("pd_op.add", {sl, ar}, f, {2, 2, 2, 4});
    ValueId full = b.op("pd_op.full", {}, f, {2, 2}, {{"shape", Attribute::intArray({2, 2})}, {"value", Attribute::float32(0.5)}});
    ValueId us = b.op("pd_op.unsqueeze", {full, b.ints({2, 3})}, f, {2, 2, 1, 1});
    ValueId ex = b.op("pd_op.expand", {us, b.ints({2, 2, 2, 4})}, f, {2, 2, 2, 4});
    ValueId mul = b.op("pd_op.multiply", {add, ex}, f, {2, 2, 2, 4});
    ValueId mean = b.op("pd_op.mean", {mul, b.ints({1, 3})}, f, {2, 2}, {{"keepdim", Attribute::boolean(false)}});
    b.fetch(mean);
    return std::move(b.p);
}

// group/instance/rms norm, interpolation, flash attention and rotary embedding, forward and
// grad; `bad` names one op and attribute to break (empty: a valid program).
Program trainingKernelsProgram(const std::string& badOp = {}, NamedAttribute bad = {}) {
    ProgramBuilder b;
    const DType f = DType::Float32, i64 = DType::Int64;
    auto attrs = [&](const std::string& op, std::vector<NamedAttribute> a) {
        if (op != badOp) return a;
        for (NamedAttribute& e : a) if (e.name == bad.name) { e.value = bad.value; return a; }
        a.push_back(bad);
        return a;
    };
    ValueId x = b.data("x", f, {2, 4, 3, 3}), w = b.data("w", f, {4}), bias = b.data("b", f, {4});
    auto gnA = attrs("pd_op.group_norm", {{"epsilon", Attribute::float32(1e-5)}, {"groups", Attribute::int32(2)}, {"data_format", Attribute::string("NCHW")}});
    auto gn = b.tensorOps("pd_op.group_norm", {x, w, bias}, {{f, {2, 4, 3, 3}}, {f, {2, 2}}, {f, {2, 2}}}, gnA);
    auto gng = b.tensorOps("pd_op.group_norm_grad", {x, w, bias, gn[0], gn[1], gn[2], gn[0]}, {{f, {2, 4, 3, 3}}, {f, {4}}, {f, {4}}}, gnA);
    auto inA = attrs("pd_op.instance_norm", {{"epsilon", Attribute::float32(1e-5)}});
    auto in = b.tensorOps("pd_op.instance_norm", {gng[0], w, bias}, {{f, {2, 4, 3, 3}}, {f, {8}}, {f, {8}}}, inA);
    auto ing = b.tensorOps("pd_op.instance_norm_grad", {gng[0], w, in[1], in[2], in[0]}, {{f, {2, 4, 3, 3}}, {f, {4}}, {f, {4}}}, inA);
    auto itA = attrs("pd_op.bilinear_interp", {{"data_format", Attribute::string("NCHW")}, {"out_h", Attribute::int32(4)}, {"out_w", Attribute::int32(5)},
                                               {"interp_method", Attribute::string("bilinear")}, {"align_corners", Attribute::boolean(false)},
                                               {"align_mode", Attribute::int32(0)}});
    ValueId up = b.op("pd_op.bilinear_interp", {ing[0], kNoId, kNoId, kNoId}, f, {2, 4, 4, 5}, itA);
    ValueId upg = b.op("pd_op.bilinear_interp_grad", {ing[0], kNoId, kNoId, kNoId, up}, f, {2, 4, 3, 3}, itA);
    auto nA = attrs("pd_op.nearest_interp", {{"out_h", Attribute::int32(6)}, {"out_w", Attribute::int32(6)}, {"interp_method", Attribute::string("nearest")},
                                             {"align_corners", Attribute::boolean(false)}});
    ValueId nn = b.op("pd_op.nearest_interp", {upg, kNoId, kNoId, kNoId}, f, {2, 4, 6, 6}, nA);
    ValueId nng = b.op("pd_op.nearest_interp_grad", {upg, kNoId, kNoId, kNoId, nn}, f, {2, 4, 3, 3}, nA);
    // [2, 4, 9] -> q [2, 4, 3, 3] ... attention over 4 tokens, 3 heads of 3; rms_norm over the last axis
    ValueId rs = b.op("pd_op.reshape", {nng, b.ints({2, 4, 3, 3})}, f, {2, 4, 3, 3});
    ValueId rw = b.data("rw", f, {3});
    auto rA = attrs("pd_op.rms_norm", {{"epsilon", Attribute::float32(1e-6)}, {"begin_norm_axis", Attribute::int32(3)}});
    auto rn = b.tensorOps("pd_op.rms_norm", {rs, kNoId, kNoId, rw, kNoId}, {{f, {2, 4, 3, 3}}, {f, {2, 4, 3, 3}}, {f, {24}}}, rA);
    auto rng = b.tensorOps("pd_op.rms_norm_grad", {rs, kNoId, kNoId, rw, kNoId, rn[2], rn[0]}, {{f, {2, 4, 3, 3}}, {f, {3}}}, rA);
    ValueId q = b.data("q", f, {2, 4, 3, 4}), sn = b.data("sin", f, {1, 4, 1, 4}), cs = b.data("cos", f, {1, 4, 1, 4});
    ValueId pos = b.op("pd_op.full", {}, i64, {2, 4}, {{"shape", Attribute::intArray({2, 4})}, {"value", Attribute::float32(1)}});
    auto roA = attrs("pd_op.fused_rotary_position_embedding", {{"use_neox_rotary_style", Attribute::boolean(true)}, {"time_major", Attribute::boolean(false)},
                                                               {"rotary_emb_base", Attribute::float32(10000)}});
    ValueId rq = b.tensorOps("pd_op.fused_rotary_position_embedding", {q, kNoId, kNoId, sn, cs, pos}, {{f, {2, 4, 3, 4}}}, roA)[0];
    ValueId rqg = b.tensorOps("pd_op.fused_rotary_position_embedding_grad", {sn, cs, pos, rq, kNoId, kNoId}, {{f, {2, 4, 3, 4}}}, roA)[0];
    auto faA = attrs("pd_op.flash_attn_grad", {{"dropout", Attribute::float32(0)}, {"causal", Attribute::boolean(true)}});
    auto fa = b.tensorOps("pd_op.flash_attn", {rqg, rq, rq, kNoId, kNoId}, {{f, {2, 4, 3, 4}}, {f, {0}}, {f, {2, 3, 4}}, {i64, {2}}},
                    {{"dropout", Attribute::float32(0)}, {"causal", Attribute::boolean(true)}, {"return_softmax", Attribute::boolean(false)},
                     {"is_test", Attribute::boolean(false)}});
    auto fag = b.tensorOps("pd_op.flash_attn_grad", {rqg, rq, rq, fa[0], fa[2], fa[3], kNoId, fa[0]}, {{f, {2, 4, 3, 4}}, {f, {2, 4, 3, 4}}, {f, {2, 4, 3, 4}}}, faA);
    b.fetch(rng[0]);
    b.fetch(rng[1]);
    b.fetch(fag[0]);
    return std::move(b.p);
}

// The check pass's error for `p` (empty when it passed); nothing runs.
std::string checkError(const Program& p) {
    try {
        checkProgram(p, RunLimits{});
    } catch (const Error& e) {
        return e.what();
    }
    return {};
}

// Replaces one integer of an int attribute, a constant's value, a declared dim, or drops
// an operand or result.
// Edits `o`, a copy of a random op of `p` that mutate() writes back through the mutators.
void mutateCopy(Program& p, Operation& o, std::mt19937_64& rng) {
    static const int64_t kValues[] = {-100, -3, -2, -1, 0, 0, 1, 2, 3, 5, 64, int64_t(1) << 20, int64_t(1) << 40};
    auto pick = [&](size_t n) { return static_cast<size_t>(rng() % std::max<size_t>(n, 1)); };
    switch (rng() % 6) {
    case 0: case 1: {  // an integer attribute
        std::vector<Attribute*> ints;
        for (NamedAttribute& a : o.attributes)
            if (a.value.kind == Attribute::Kind::Int32 || a.value.kind == Attribute::Kind::Int64 ||
                a.value.kind == Attribute::Kind::IntArray || a.value.kind == Attribute::Kind::Array)
                ints.push_back(&a.value);
        if (ints.empty()) return;
        Attribute* a = ints[pick(ints.size())];
        int64_t v = kValues[pick(std::size(kValues))];
        if (a->kind == Attribute::Kind::Int32 || a->kind == Attribute::Kind::Int64) { a->intValue = v; return; }
        std::vector<int64_t> e = a->toIntVector();
        if (e.empty() || rng() % 4 == 0) e.push_back(v);
        else e[pick(e.size())] = v;
        if (rng() % 5 == 0 && !e.empty()) e.pop_back();
        *a = Attribute::intArray(e);
        return;
    }
    case 2: {  // a declared dim
        if (o.results.empty()) return;
        ValueId r = o.results[pick(o.results.size())];
        const Type& t = p.types()[p.value(r).type];
        if (t.kind != Type::Kind::DenseTensor) return;
        std::vector<int64_t> d = t.dims;
        if (d.empty() || rng() % 4 == 0) d.push_back(kValues[pick(5) + 3]);
        else d[pick(d.size())] = kValues[pick(std::size(kValues))] < -1 ? -1 : kValues[pick(std::size(kValues))];
        p.setValueType(r, p.tensorType(t.dtype, d));
        return;
    }
    case 3:  // an operand
        if (!o.operands.empty()) { if (rng() % 2) o.operands.pop_back(); else o.operands[pick(o.operands.size())] = kNoId; }
        return;
    case 4:  // a result
        if (!o.results.empty()) o.results.pop_back();
        return;
    default:  // a float attribute
        for (NamedAttribute& a : o.attributes)
            if (a.value.kind == Attribute::Kind::Float || a.value.kind == Attribute::Kind::Double) {
                a.value.floatValue = static_cast<double>(kValues[pick(std::size(kValues))]);
                return;
            }
        return;
    }
}
void mutate(Program& p, std::mt19937_64& rng) {
    const std::vector<OpId>& ops = p.globalBlock().ops;
    const OpId op = ops[static_cast<size_t>(rng() % std::max<size_t>(ops.size(), 1))];
    Operation o = p.op(op);
    mutateCopy(p, o, rng);
    p.setOpAttributes(op, std::move(o.attributes));
    p.setOpOperands(op, {o.operands.begin(), o.operands.end()});
    p.truncateResults(op, o.results.size());
}

}  // namespace

class TestOpChecks : public QObject {
    Q_OBJECT
private slots:
    void conv2dWithZeroStridesIsRefused() {
        expectError(std::string(kConvHead) + R"(    (%2) = "pd_op.conv2d" (%0, %1) {strides:[0,1],paddings:[0,0],dilations:[1,1],groups:(Int32)1,padding_algorithm:"EXPLICIT",data_format:"NCHW"} : (pd_op.tensor<1x2x6x6xf32>, pd_op.tensor<2x2x3x3xf32>) -> pd_op.tensor<-1x2x-1x-1xf32>
})",
                    {"op 2", "pd_op.conv2d", "strides", "> 0"});
        expectError(std::string(kConvHead) + R"(    (%2) = "pd_op.conv2d" (%0, %1) {strides:[1,1],paddings:[0,0],dilations:[0,1],groups:(Int32)1,padding_algorithm:"EXPLICIT",data_format:"NCHW"} : (pd_op.tensor<1x2x6x6xf32>, pd_op.tensor<2x2x3x3xf32>) -> pd_op.tensor<1x2x4x4xf32>
})",
                    {"op 2", "dilations"});
        expectError(std::string(kConvHead) + R"(    (%2) = "pd_op.conv2d" (%0, %1) {strides:[1,1],paddings:[0,0],dilations:[1,1],groups:(Int32)0,padding_algorithm:"EXPLICIT",data_format:"NCHW"} : (pd_op.tensor<1x2x6x6xf32>, pd_op.tensor<2x2x3x3xf32>) -> pd_op.tensor<1x2x4x4xf32>
})",
                    {"op 2", "groups"});
    }
    void sliceDroppingAnAxisNotOfLengthOneIsRefused() {
        // An empty slice (start past the end) with its axis dropped would claim [2, 6, 6]
        // with no elements; found by the mutation test on the zoo's lstm.
        const std::string head = R"({
    (%0) = "pd_op.data" () {dtype:(pd_op.DataType)float32,name:"x",shape:(pd_op.IntArray)[1,2,6,6]} : () -> pd_op.tensor<1x2x6x6xf32>
    (%1) = "pd_op.full_int_array" () {dtype:(pd_op.DataType)int64,value:[(Int64)5]} : () -> pd_op.tensor<1xi64>
    (%2) = "pd_op.full_int_array" () {dtype:(pd_op.DataType)int64,value:[(Int64)6]} : () -> pd_op.tensor<1xi64>
)";
        expectError(head + R"(    (%3) = "pd_op.slice" (%0, %1, %2) {axes:[(Int64)0],decrease_axis:[(Int64)0],infer_flags:[(Int64)1]} : (pd_op.tensor<1x2x6x6xf32>, pd_op.tensor<1xi64>, pd_op.tensor<1xi64>) -> pd_op.tensor<2x6x6xf32>
    (%4) = "pd_op.relu" (%3) {} : (pd_op.tensor<2x6x6xf32>) -> pd_op.tensor<2x6x6xf32>
})",
                    {"op 3", "pd_op.slice", "decrease_axis", "length 0"});
        expectError(head + R"(    (%3) = "pd_op.slice" (%0, %1, %2) {axes:[(Int64)0],decrease_axis:[(Int64)1],infer_flags:[(Int64)1]} : (pd_op.tensor<1x2x6x6xf32>, pd_op.tensor<1xi64>, pd_op.tensor<1xi64>) -> pd_op.tensor<0x6x6xf32>
})",
                    {"op 3", "decrease_axis", "length 2"});
    }
    void pool2dWithZeroStridesIsRefused() {
        expectError(std::string(kConvHead) + R"(    (%2) = "pd_op.pool2d" (%0) {kernel_size:[2,2],strides:[0,0],paddings:[0,0],pooling_type:"max"} : (pd_op.tensor<1x2x6x6xf32>) -> pd_op.tensor<-1x-1x-1x-1xf32>
})",
                    {"op 2", "pd_op.pool2d", "strides"});
        expectError(std::string(kConvHead) + R"(    (%2) = "pd_op.pool2d" (%0) {kernel_size:[0,2],strides:[1,1],paddings:[0,0],pooling_type:"avg"} : (pd_op.tensor<1x2x6x6xf32>) -> pd_op.tensor<-1x-1x-1x-1xf32>
})",
                    {"op 2", "kernel_size"});
    }
    void opWithoutResultsIsRefused() {
        expectError(std::string(kConvHead) + R"(    () = "pd_op.relu" (%0) {} : (pd_op.tensor<1x2x6x6xf32>) -> 
})",
                    {"op 2", "pd_op.relu", "results"});
        expectError(R"({
    () = "pd_op.full" () {shape:[2,2],value:(Float)1,dtype:(pd_op.DataType)float32} : () -> 
})",
                    {"op 0", "pd_op.full", "results"});
    }
    // The check pass computes reshape, expand, transpose and transpose_grad shapes with the
    // rules the kernels use (OpSemantics), so dynamic declared dims are known before a run.
    void checkPassPropagatesViewShapes() {
        const Program p = parsePir(std::string(kConvHead) + R"(    (%2) = "pd_op.full_int_array" () {value:[2,-1]} : () -> pd_op.tensor<2xi64>
    (%3) = "pd_op.reshape" (%0, %2) {} : (pd_op.tensor<1x2x6x6xf32>, pd_op.tensor<2xi64>) -> pd_op.tensor<-1x-1xf32>
    (%4) = "pd_op.transpose" (%3) {perm:[1,0]} : (pd_op.tensor<-1x-1xf32>) -> pd_op.tensor<-1x-1xf32>
    (%5) = "pd_op.transpose_grad" (%0) {perm:[0,2,3,1]} : (pd_op.tensor<1x2x6x6xf32>) -> pd_op.tensor<-1x-1x-1x-1xf32>
    (%6) = "pd_op.full_int_array" () {value:[3,-1,-1]} : () -> pd_op.tensor<3xi64>
    (%7) = "pd_op.expand" (%4, %6) {} : (pd_op.tensor<-1x-1xf32>, pd_op.tensor<3xi64>) -> pd_op.tensor<-1x-1x-1xf32>
})", "views.pir");
        const ProgramCheck check = checkProgram(p, RunLimits{});
        auto shapeOf = [&](const char* name) -> Dims {
            for (ValueId v = 0; v < p.values().size(); ++v)
                if (p.value(v).name == name) return check.shapes[v].value_or(Dims{-7});
            return {-9};
        };
        QCOMPARE(shapeOf("%3"), (Dims{2, 36}));
        QCOMPARE(shapeOf("%4"), (Dims{36, 2}));
        QCOMPARE(shapeOf("%5"), (Dims{1, 6, 2, 6}));   // the inverse of perm [0,2,3,1]
        QCOMPARE(shapeOf("%7"), (Dims{3, 36, 2}));
        // A declared dim that contradicts the rule is refused before the run.
        expectError(std::string(kConvHead) + R"(    (%2) = "pd_op.full_int_array" () {value:[2,-1]} : () -> pd_op.tensor<2xi64>
    (%3) = "pd_op.reshape" (%0, %2) {} : (pd_op.tensor<1x2x6x6xf32>, pd_op.tensor<2xi64>) -> pd_op.tensor<4x18xf32>
})",
                    {"op 3", "pd_op.reshape", "declared [4,18]", "computes [2,36]"});
    }
    void transposeWithRepeatedAxisIsRefused() {
        expectError(std::string(kConvHead) + R"(    (%2) = "pd_op.transpose" (%0) {perm:[0,1,1,3]} : (pd_op.tensor<1x2x6x6xf32>) -> pd_op.tensor<1x2x2x6xf32>
})",
                    {"op 2", "pd_op.transpose", "perm", "repeated"});
        expectError(std::string(kConvHead) + R"(    (%2) = "pd_op.transpose" (%0) {perm:[0,1,2]} : (pd_op.tensor<1x2x6x6xf32>) -> pd_op.tensor<1x2x6xf32>
})",
                    {"perm", "rank"});
        expectError(std::string(kConvHead) + R"(    (%2) = "pd_op.transpose" (%0) {perm:[0,1,2,4]} : (pd_op.tensor<1x2x6x6xf32>) -> pd_op.tensor<-1x-1x-1x-1xf32>
})",
                    {"perm", "out of range"});
    }
    void axesAreCheckedBeforeRunning() {
        expectError(std::string(kConvHead) + R"(    (%2) = "pd_op.full_int_array" () {value:[1,1]} : () -> pd_op.tensor<2xi64>
    (%3) = "pd_op.sum" (%0, %2) {keepdim:false} : (pd_op.tensor<1x2x6x6xf32>, pd_op.tensor<2xi64>) -> pd_op.tensor<-1xf32>
})",
                    {"op 3", "pd_op.sum", "repeated"});
        expectError(std::string(kConvHead) + R"(    (%2) = "pd_op.softmax" (%0) {axis:(Int32)4} : (pd_op.tensor<1x2x6x6xf32>) -> pd_op.tensor<1x2x6x6xf32>
})",
                    {"op 2", "axis", "out of range"});
        expectError(std::string(kConvHead) + R"(    (%2) = "pd_op.matmul" (%0, %1) {transpose_x:false,transpose_y:false} : (pd_op.tensor<1x2x6x6xf32>, pd_op.tensor<2x2x3x3xf32>) -> pd_op.tensor<-1x-1x-1x-1xf32>
})",
                    {"op 2", "inner dims"});
    }
    void shapesFromAttributesCountAgainstLimits() {
        // declared 1 element, the attribute asks for 10^10
        expectError(R"({
    (%0) = "pd_op.full" () {shape:[100000,100000],value:(Float)1,dtype:(pd_op.DataType)float32} : () -> pd_op.tensor<-1x-1xf32>
    (%1) = "pd_op.fetch" (%0) {name:"out"} : (pd_op.tensor<-1x-1xf32>) -> pd_op.tensor<-1x-1xf32>
})",
                    {"op 0", "pd_op.full", "elements"});
        expectError(R"({
    (%0) = "pd_op.full" () {shape:[1],value:(Float)0,dtype:(pd_op.DataType)float32} : () -> pd_op.tensor<1xf32>
    (%1) = "pd_op.full" () {shape:[1],value:(Float)1e12,dtype:(pd_op.DataType)float32} : () -> pd_op.tensor<1xf32>
    (%2) = "pd_op.full" () {shape:[1],value:(Float)1,dtype:(pd_op.DataType)float32} : () -> pd_op.tensor<1xf32>
    (%3) = "pd_op.arange" (%0, %1, %2) {dtype:(pd_op.DataType)float32} : (pd_op.tensor<1xf32>, pd_op.tensor<1xf32>, pd_op.tensor<1xf32>) -> pd_op.tensor<-1xf32>
    (%4) = "pd_op.fetch" (%3) {name:"out"} : (pd_op.tensor<-1xf32>) -> pd_op.tensor<-1xf32>
})",
                    {"op 3", "pd_op.arange", "elements"});
        // a shape operand from full_int_array
        expectError(R"({
    (%0) = "pd_op.full_int_array" () {value:[200000,200000]} : () -> pd_op.tensor<2xi64>
    (%1) = "pd_op.full" (%0) {value:(Float)1,dtype:(pd_op.DataType)float32} : (pd_op.tensor<2xi64>) -> pd_op.tensor<-1x-1xf32>
    (%2) = "pd_op.fetch" (%1) {name:"out"} : (pd_op.tensor<-1x-1xf32>) -> pd_op.tensor<-1x-1xf32>
})",
                    {"op 1", "elements"});
    }
    void totalBytesAreLimited() {
        const std::string text = R"({
    (%0) = "pd_op.data" () {dtype:(pd_op.DataType)float32,name:"x",shape:[256,256]} : () -> pd_op.tensor<256x256xf32>
    (%1) = "pd_op.exp" (%0) {} : (pd_op.tensor<256x256xf32>) -> pd_op.tensor<256x256xf32>
    (%2) = "pd_op.sin" (%0) {} : (pd_op.tensor<256x256xf32>) -> pd_op.tensor<256x256xf32>
    (%3) = "pd_op.add" (%1, %2) {} : (pd_op.tensor<256x256xf32>, pd_op.tensor<256x256xf32>) -> pd_op.tensor<256x256xf32>
    (%4) = "pd_op.fetch" (%3) {name:"out"} : (pd_op.tensor<256x256xf32>) -> pd_op.tensor<256x256xf32>
})";
        RunOptions tight;
        tight.maxTotalBytes = 3 * 256 * 256 * 4;  // x, exp, sin and the sum are live at op 3: 4 values
        expectError(text, {"op 3", "maxTotalBytes"}, tight);
        RunOptions enough;
        enough.maxTotalBytes = 4 * 256 * 256 * 4 + 256 * 256 * 4;
        QCOMPARE(runError(text, enough), std::string());
        RunOptions perValue;
        perValue.maxBytesPerValue = 1000;
        expectError(text, {"op 0", "maxBytesPerValue"}, perValue);
        // the propagated peak is what checkProgram reports
        Program p = parsePir(text, "t.pir");
        ProgramCheck check = checkProgram(p, RunLimits{});  // x not resident: it dies after op 2
        QCOMPARE(check.peakBytes, int64_t(3 * 256 * 256 * 4));
        QCOMPARE(check.largestBytes, int64_t(256 * 256 * 4));
    }
    void trainingKernelAttributesAreChecked() {
        QCOMPARE(checkError(trainingKernelsProgram()), std::string());
        struct Bad { const char* op; NamedAttribute attr; std::vector<const char*> parts; };
        const std::vector<Bad> cases = {
            {"pd_op.group_norm", {"groups", Attribute::int32(3)}, {"pd_op.group_norm ", "attribute groups = 3", "4 channels"}},
            {"pd_op.group_norm", {"groups", Attribute::int32(0)}, {"pd_op.group_norm ", "attribute groups = 0"}},
            {"pd_op.group_norm", {"data_format", Attribute::string("NHWC")}, {"pd_op.group_norm", "attribute data_format"}},
            {"pd_op.instance_norm", {"epsilon", Attribute::float32(-1)}, {"pd_op.instance_norm", "attribute epsilon"}},
            {"pd_op.rms_norm", {"begin_norm_axis", Attribute::int32(7)}, {"pd_op.rms_norm", "attribute begin_norm_axis = 7"}},
            {"pd_op.bilinear_interp", {"align_mode", Attribute::int32(2)}, {"pd_op.bilinear_interp", "attribute align_mode = 2"}},
            {"pd_op.bilinear_interp", {"interp_method", Attribute::string("nearest")}, {"pd_op.bilinear_interp", "attribute interp_method"}},
            {"pd_op.nearest_interp", {"out_h", Attribute::int32(-5)}, {"pd_op.nearest_interp", "attribute out_h = -5"}},
            {"pd_op.flash_attn_grad", {"dropout", Attribute::float32(0.25)}, {"pd_op.flash_attn_grad", "attribute dropout"}},
            {"pd_op.fused_rotary_position_embedding", {"rotary_emb_base", Attribute::float32(0)}, {}},  // sin/cos given: unused
        };
        for (const Bad& c : cases) {
            std::string e = checkError(trainingKernelsProgram(c.op, c.attr));
            if (c.parts.empty()) { QCOMPARE(e, std::string()); continue; }
            if (e.empty()) QFAIL(qPrintable(QString("%1 with a bad %2 passed the check").arg(c.op, c.attr.name.c_str())));
            QVERIFY2(e.rfind("op ", 0) == 0, e.c_str());  // names the op index first
            for (const char* part : c.parts)
                QVERIFY2(e.find(part) != std::string::npos, qPrintable(QString("error \"%1\" lacks \"%2\"").arg(e.c_str(), part)));
        }
        // operand-level checks: an odd head_dim, sin without cos
        ProgramBuilder b;
        ValueId q = b.data("q", DType::Float32, {1, 2, 1, 3}), sn = b.data("sin", DType::Float32, {1, 2, 1, 3});
        b.op("pd_op.fused_rotary_position_embedding", {q, kNoId, kNoId, sn, sn, kNoId}, DType::Float32, {1, 2, 1, 3});
        std::string e = checkError(b.p);
        QVERIFY2(e.find("pd_op.fused_rotary_position_embedding") != std::string::npos && e.find("head_dim 3") != std::string::npos, e.c_str());
        ProgramBuilder b2;
        ValueId q2 = b2.data("q", DType::Float32, {1, 2, 1, 4}), s2 = b2.data("sin", DType::Float32, {1, 2, 1, 4});
        b2.op("pd_op.fused_rotary_position_embedding", {q2, kNoId, kNoId, s2, kNoId, kNoId}, DType::Float32, {1, 2, 1, 4});
        e = checkError(b2.p);
        QVERIFY2(e.find("(sin, cos) must be given together") != std::string::npos, e.c_str());
    }
    void trainingKernelsRunAndMutationsNeverCrash() {
        CpuExecutor ex;
        RunResult r = ex.run(trainingKernelsProgram(), {}, {});
        QCOMPARE(r.fetches.size(), size_t(3));
        std::mt19937_64 rng(99);
        RunOptions limits;
        limits.maxElementsPerValue = 1 << 20;
        limits.maxTotalBytes = 64 << 20;
        int ran = 0, refused = 0;
        for (int trial = 0; trial < 1500; ++trial) {
            Program p = trainingKernelsProgram();
            int n = 1 + static_cast<int>(rng() % 3);
            for (int m = 0; m < n; ++m) mutate(p, rng);
            try {
                ex.run(p, {}, limits);
                ++ran;
            } catch (const Error& e) {
                ++refused;
                QVERIFY(std::string(e.what()).size() > 5);
            }
        }
        qInfo() << "mutated training-kernel programs: ran" << ran << "refused" << refused;
        QVERIFY(ran > 20);
        QVERIFY(refused > 100);
    }
    void unmutatedTemplatesRun() {
        CpuExecutor ex;
        RunResult a = ex.run(cnnProgram(), {}, {});
        QCOMPARE(a.fetches.size(), size_t(1));
        RunResult b = ex.run(attentionProgram(), {}, {});
        QCOMPARE(b.fetches.size(), size_t(1));
    }
    void randomMutationsNeverCrash() {
        std::mt19937_64 rng(20261201);
        RunOptions limits;
        limits.maxElementsPerValue = 1 << 20;
        limits.maxTotalBytes = 64 << 20;
        limits.maxMultiplyAdds = 100'000'000;
        int ran = 0, refused = 0;
        CpuExecutor ex;
        for (int trial = 0; trial < 2000; ++trial) {
            Program p = trial % 2 ? cnnProgram() : attentionProgram();
            int n = 1 + static_cast<int>(rng() % 3);
            for (int m = 0; m < n; ++m) mutate(p, rng);
            try {
                ex.run(p, {}, limits);
                ++ran;
            } catch (const Error& e) {
                ++refused;
                QVERIFY(std::string(e.what()).size() > 5);
            }
        }
        qInfo() << "mutated programs: ran" << ran << "refused" << refused;
        QVERIFY(ran > 20);
        QVERIFY(refused > 100);
    }
    void randomMutationsOfGeneratedProgramsNeverCrash() {
        // Whole training programs of the model zoo (forward + backward), each mutated a few times.
        std::vector<Program> bases;
        for (const std::string& model : zoo::zooModels()) {
            zoo::ZooOptions o;
            o.model = model;
            o.layers = 1;
            o.hidden = 16;
            o.seq = 4;
            bases.push_back(*zoo::generateModel(o).program);
        }
        std::mt19937_64 rng(7);
        RunOptions limits;
        limits.maxElementsPerValue = 1 << 20;
        limits.maxTotalBytes = 64 << 20;
        limits.maxMultiplyAdds = 100'000'000;
        CpuExecutor ex;
        int ran = 0, refused = 0;
        for (int trial = 0; trial < 1200; ++trial) {
            Program p = bases[static_cast<size_t>(trial) % bases.size()];
            int n = 1 + static_cast<int>(rng() % 4);
            for (int m = 0; m < n; ++m) mutate(p, rng);
            try {
                ex.run(p, {}, limits);
                ++ran;
            } catch (const Error&) {
                ++refused;
            }
        }
        qInfo() << "mutated zoo programs: ran" << ran << "refused" << refused;
        QVERIFY(ran + refused == 1200);
        QVERIFY(refused > 50);
    }
};

QTEST_MAIN(TestOpChecks)
#include "test_op_checks.moc"
