// Generated integer inputs respect the table they index (OpSemantics' inputIndexBound):
// an embedding table of 3 rows, a gather over an axis of 2, ids reaching the table through a
// reshape and a cast; inputs that index nothing keep the usual [0, 4) draw.
#include <QtTest>

#include "exec/OpSemantics.h"
#include "exec/Verify.h"
#include "exec/cpu/CpuExecutor.h"
#include "model/Diagnostic.h"

using namespace rx;
using namespace rx::exec;

namespace {

struct B {
    Program p;
    ValueId data(const std::string& name, DType t, Dims dims) {
        OpId op = p.appendOp(0, "pd_op.data", {}, std::vector<TypeId>{p.tensorType(t, dims)}, {{"name", Attribute::string(name)}});
        return p.op(op).results[0];
    }
    ValueId op(const std::string& name, std::vector<ValueId> operands, DType t, Dims dims, std::vector<NamedAttribute> attrs = {}) {
        OpId id = p.appendOp(0, name, operands, std::vector<TypeId>{p.tensorType(t, dims)}, std::move(attrs));
        return p.op(id).results[0];
    }
    ValueId ints(Dims v) { return op("pd_op.full_int_array", {}, DType::Int64, {static_cast<int64_t>(v.size())}, {{"value", Attribute::intArray(v)}}); }
    void fetch(ValueId v) {
        p.appendOp(0, "pd_op.fetch", std::vector<ValueId>{v}, std::vector<TypeId>{p.value(v).type}, {{"name", Attribute::string(p.value(v).name)}});
    }
};

// ids [64] (int64, generated) -> reshape [8,8] -> cast int32 -> embedding into a 3-row table;
// idx [64] (generated) -> gather over axis 1 (size 2) of t [5,2].
Program smallTables() {
    B b;
    ValueId ids = b.data("ids", DType::Int64, {64});
    ValueId w = b.data("w", DType::Float32, {3, 4});
    ValueId r = b.p.op(b.p.appendOp(0, "pd_op.reshape", std::vector<ValueId>{ids, b.ints({8, 8})},
                                    std::vector<TypeId>{b.p.tensorType(DType::Int64, {8, 8}), b.p.tensorType(DType::Int64, {0, 64})}, {}))
                   .results[0];
    ValueId c = b.op("pd_op.cast", {r}, DType::Int32, {8, 8}, {{"dtype", Attribute::string("int32")}});
    b.fetch(b.op("pd_op.embedding", {c, w}, DType::Float32, {8, 8, 4}, {{"padding_idx", Attribute::int64(-1)}}));
    ValueId idx = b.data("idx", DType::Int64, {64});
    ValueId t = b.data("t", DType::Float32, {5, 2});
    b.fetch(b.op("pd_op.gather", {t, idx}, DType::Float32, {5, 64}, {{"axis", Attribute::int32(1)}}));
    ValueId free = b.data("free", DType::Int64, {64});
    b.fetch(b.op("pd_op.scale", {free}, DType::Int64, {64}, {{"scale", Attribute::float32(1)}}));
    b.p.finish();
    return std::move(b.p);
}

OpId inputOp(const Program& p, const std::string& name) {
    for (OpId op : p.globalBlock().ops)
        if (isInputOp(p.opName(op)) && inputName(p, op) == name) return op;
    throw Error("no input " + name);
}

}  // namespace

class TestIndexInputs : public QObject {
    Q_OBJECT
private slots:
    void boundsFollowViewsAndCasts() {
        Program p = smallTables();
        QCOMPARE(inputIndexBound(p, inputOp(p, "ids")).value_or(-1), int64_t(3));
        QCOMPARE(inputIndexBound(p, inputOp(p, "idx")).value_or(-1), int64_t(2));
        QVERIFY(!inputIndexBound(p, inputOp(p, "free")).has_value());
        QVERIFY(!inputIndexBound(p, inputOp(p, "w")).has_value());
    }
    void generatedValuesStayInTheTable() {
        Program p = smallTables();
        Tensor ids = seededInputFor(p, inputOp(p, "ids"), 7), idx = seededInputFor(p, inputOp(p, "idx"), 7);
        bool sawTop = false;
        for (int64_t i = 0; i < ids.numel(); ++i) {
            QVERIFY(ids.get(i) >= 0 && ids.get(i) < 3);
            sawTop |= ids.get(i) == 2;
        }
        QVERIFY(sawTop);  // the whole table is used, not only row 0
        for (int64_t i = 0; i < idx.numel(); ++i) QVERIFY(idx.get(i) >= 0 && idx.get(i) < 2);
        // An input that indexes nothing draws exactly as before.
        Tensor free = seededInputFor(p, inputOp(p, "free"), 7);
        QVERIFY(free.bytes == seededInput("free", DType::Int64, {64}, 7).bytes);
    }
    // verify generates every input itself: with a 3-row table it must run and agree.
    void verifyRunsOnASmallTable() {
        Program p = smallTables();
        VerifyReport r;
        try {
            r = verifyPrograms(p, p, VerifyOptions{});
        } catch (const Error& e) {
            QFAIL(e.what());
        }
        QVERIFY2(r.equivalent, r.summary().c_str());
        QCOMPARE(r.compared, 3);
    }
};

QTEST_GUILESS_MAIN(TestIndexInputs)
#include "test_index_inputs.moc"
