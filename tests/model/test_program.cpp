// The IR's own invariants: construction, use lists (one entry per slot, nested uses counted
// at their ancestor), stable ids across moves, byte sizes, and the seal: queries need a
// finished program, and a finished one answers the same from many threads.
#include <QtTest>

#include <stdexcept>
#include <thread>

#include "model/PirReader.h"
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
        p.finish();
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
        p.finish();
        QCOMPARE(p.indexInBlock(c), 1u);
        QCOMPARE(p.indexInBlock(b), 2u);
        QCOMPARE(p.uses(p.ops[a].results[0]).size(), size_t(2));
        QCOMPARE(p.uses(p.ops[a].results[0])[0].user, c);
        QCOMPARE(p.valueBytes(p.ops[a].results[0]), int64_t(16));  // -1 left out
        QCOMPARE(p.values[p.ops[c].results[0]].name, std::string("%2"));
    }
    void unfinishedQueriesThrow() {
        Program p;
        const TypeId t = p.types.tensor(DType::Float32, {4});
        const OpId a = p.appendOp(Program::kGlobalBlock, "pd_op.data", {}, std::vector<TypeId>{t});
        const ValueId x = p.ops[a].results[0];
        QVERIFY(!p.isFinished());
        QVERIFY_THROWS_EXCEPTION(std::logic_error, p.uses(x));
        QVERIFY_THROWS_EXCEPTION(std::logic_error, p.indexInBlock(a));
        try {
            (void)p.uses(x);
        } catch (const std::logic_error& e) {
            QVERIFY(std::string(e.what()).find("uses()") != std::string::npos);
            QVERIFY(std::string(e.what()).find("finish()") != std::string::npos);
        }
        p.finish();
        QVERIFY(p.isFinished());
        QCOMPARE(p.uses(x).size(), size_t(0));
        // Every mutator unseals it again.
        const OpId r = p.appendOp(Program::kGlobalBlock, "pd_op.relu", std::vector<ValueId>{x}, std::vector<TypeId>{t});
        QVERIFY(!p.isFinished());
        QVERIFY_THROWS_EXCEPTION(std::logic_error, p.uses(x));
        p.finish();
        p.setOperand(r, 0, x);
        QVERIFY(!p.isFinished());
        p.finish();
        p.eraseOp(r);
        QVERIFY(!p.isFinished());
        p.finish();
        (void)p.addBlockArgument(Program::kGlobalBlock, t, "%arg_0");
        QVERIFY(!p.isFinished());
        p.finish();
        (void)p.createOp("pd_op.relu", std::vector<ValueId>{x}, std::vector<TypeId>{t});
        QVERIFY(!p.isFinished());
        // An op appended to the public storage behind the API's back is caught too.
        p.finish();
        p.ops.push_back(p.ops[a]);
        QVERIFY_THROWS_EXCEPTION(std::logic_error, p.indexInBlock(a));
    }
    void finishAfterMutationGivesCorrectUses() {
        Program p;
        const TypeId t = p.types.tensor(DType::Float32, {4});
        const OpId a = p.appendOp(Program::kGlobalBlock, "pd_op.data", {}, std::vector<TypeId>{t});
        const OpId b = p.appendOp(Program::kGlobalBlock, "pd_op.data", {}, std::vector<TypeId>{t});
        const ValueId x = p.ops[a].results[0], y = p.ops[b].results[0];
        const OpId add = p.appendOp(Program::kGlobalBlock, "pd_op.add", std::vector<ValueId>{x, x}, std::vector<TypeId>{t});
        p.finish();
        QCOMPARE(p.uses(x).size(), size_t(2));
        QCOMPARE(p.uses(y).size(), size_t(0));
        p.setOperand(add, 1, y);
        p.finish();
        QCOMPARE(p.uses(x).size(), size_t(1));
        QCOMPARE(p.uses(y).size(), size_t(1));
        QCOMPARE(p.uses(y)[0].operandIndex, 1u);
        const OpId relu = p.createOp("pd_op.relu", std::vector<ValueId>{y}, std::vector<TypeId>{t});
        p.insertOpBefore(relu, add);
        p.finish();
        QCOMPARE(p.indexInBlock(relu), 2u);
        QCOMPARE(p.indexInBlock(add), 3u);
        QCOMPARE(p.uses(y)[0].user, relu);
        p.eraseOp(relu);
        p.finish();
        QCOMPARE(p.indexInBlock(add), 2u);
        QCOMPARE(p.indexInBlock(relu), kNoId);  // unplaced
        QCOMPARE(p.uses(y).size(), size_t(1));
        QCOMPARE(p.uses(y)[0].user, add);
        QVERIFY_THROWS_EXCEPTION(std::out_of_range, p.uses(ValueId(p.values.size())));
        QVERIFY_THROWS_EXCEPTION(std::out_of_range, p.indexInBlock(OpId(p.ops.size())));
    }
    void emptyProgramsAreValid() {
        Program p;
        p.finish();
        QVERIFY(p.isFinished());
        QCOMPARE(p.liveOpCount(), size_t(0));
        QVERIFY_THROWS_EXCEPTION(std::out_of_range, p.uses(0));
        QVERIFY_THROWS_EXCEPTION(std::out_of_range, p.indexInBlock(0));
        QCOMPARE(p.ancestorInBlock(0, Program::kGlobalBlock), kNoId);
        // "{ }" read from text is finished by the reader and as safe.
        for (const char* text : {"{\n}\n", "{ }"}) {
            Program q = parsePir(text, "empty.pir");
            QVERIFY(q.isFinished());
            QCOMPARE(q.liveOpCount(), size_t(0));
            QVERIFY_THROWS_EXCEPTION(std::out_of_range, q.uses(0));
        }
    }
    void finishedProgramIsSafeFromManyThreads() {
        // A chain with a nested region: every value used in the global block and inside.
        Program p;
        const TypeId t = p.types.tensor(DType::Float32, {8});
        const OpId d = p.appendOp(Program::kGlobalBlock, "pd_op.data", {}, std::vector<TypeId>{t});
        ValueId last = p.ops[d].results[0];
        for (int i = 0; i < 400; ++i) {
            const OpId op = p.appendOp(Program::kGlobalBlock, "pd_op.add", std::vector<ValueId>{last, p.ops[d].results[0]},
                                       std::vector<TypeId>{t});
            if (i % 50 == 0) {
                const BlockId inner = p.addBlock(op);
                p.ops[op].regions.push_back({inner});
                p.appendOp(inner, "pd_op.relu", std::vector<ValueId>{last}, std::vector<TypeId>{t});
            }
            last = p.ops[op].results[0];
        }
        p.finish();
        const auto answer = [&p] {
            std::vector<uint64_t> out;
            for (ValueId v = 0; v < p.values.size(); ++v)
                for (const Use& u : p.uses(v)) out.push_back(uint64_t(u.user) << 32 | u.ancestor);
            for (OpId op = 0; op < p.ops.size(); ++op) {
                out.push_back(p.indexInBlock(op));
                out.push_back(p.ancestorInBlock(op, Program::kGlobalBlock));
            }
            return out;
        };
        const std::vector<uint64_t> expected = answer();
        QVERIFY(expected.size() > 1000);
        std::vector<std::vector<uint64_t>> got(8);
        std::vector<std::thread> threads;
        for (size_t k = 0; k < got.size(); ++k)
            threads.emplace_back([&, k] {
                for (int rep = 0; rep < 20; ++rep) got[k] = answer();
            });
        for (auto& th : threads) th.join();
        for (const auto& g : got) QVERIFY(g == expected);
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
