// The IR's own invariants: construction, use lists (one entry per slot, nested uses counted
// at their ancestor), stable ids across moves, byte sizes.
#include <QtTest>

#include "model/Program.h"

using namespace rx;

class ProgramTest : public QObject {
    Q_OBJECT
private slots:
    void usesCountSlotsAndAncestors() {
        Program p;
        const TypeId t = p.types.tensor(DType::Float32, {4, 4});
        const OpId a = p.appendOp(Program::kGlobalBlock, "pd_op.data", {}, std::vector<TypeId>{t});
        const ValueId x = p.ops[a].results[0];
        const std::vector<ValueId> xx{x, x};
        const OpId m = p.appendOp(Program::kGlobalBlock, "pd_op.multiply", xx, std::vector<TypeId>{t});
        const OpId ifOp = p.appendOp(Program::kGlobalBlock, "pd_op.if", std::vector<ValueId>{x}, std::vector<TypeId>{t});
        const BlockId inner = p.addBlock(ifOp);
        p.ops[ifOp].regions.push_back({inner});
        const OpId nested = p.appendOp(inner, "pd_op.add", xx, std::vector<TypeId>{t});
        auto uses = p.uses(x);
        QCOMPARE(uses.size(), size_t(5));
        QCOMPARE(uses[0].user, m);
        QCOMPARE(uses[1].operandIndex, 1u);
        QCOMPARE(uses[2].user, ifOp);
        QCOMPARE(uses[3].user, nested);
        QCOMPARE(uses[3].ancestor, ifOp);
        QCOMPARE(p.indexInBlock(ifOp), 2u);
    }
    void moveKeepsIds() {
        Program p;
        const TypeId t = p.types.tensor(DType::Float16, {-1, 8});
        const OpId a = p.appendOp(Program::kGlobalBlock, "pd_op.data", {}, std::vector<TypeId>{t});
        const OpId b = p.appendOp(Program::kGlobalBlock, "pd_op.relu", std::vector<ValueId>{p.ops[a].results[0]}, std::vector<TypeId>{t});
        const OpId c = p.createOp("pd_op.relu", std::vector<ValueId>{p.ops[a].results[0]}, std::vector<TypeId>{t});
        p.insertOpBefore(c, b);
        QCOMPARE(p.indexInBlock(c), 1u);
        QCOMPARE(p.indexInBlock(b), 2u);
        QCOMPARE(p.uses(p.ops[a].results[0]).size(), size_t(2));
        QCOMPARE(p.uses(p.ops[a].results[0])[0].user, c);
        QCOMPARE(p.valueBytes(p.ops[a].results[0]), int64_t(16));  // -1 left out
        QCOMPARE(p.values[p.ops[c].results[0]].name, std::string("%2"));
    }
    void vectorBytesSum() {
        TypeTable types;
        const TypeId a = types.tensor(DType::BFloat16, {2, 3});
        const TypeId b = types.tensor(DType::Int64, {});
        const TypeId v = types.intern(Type::vector({a, b}));
        QCOMPARE(types.bytes(v), int64_t(12 + 8));
        QCOMPARE(types.intern(Type::vector({a, b})), v);
        QCOMPARE(types.bytes(kNullType), int64_t(0));
    }
};

QTEST_GUILESS_MAIN(ProgramTest)
#include "test_program.moc"
