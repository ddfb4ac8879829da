// The IR's own invariants: construction, use lists (one entry per slot, nested uses counted
// at their ancestor), stable ids across moves, byte sizes, and the seal: queries need a
// finished program, every mutator unseals it, a finished one answers the same from many
// threads, and (at compile time) its storage is reachable only through const accessors.
#include <QtTest>

#include <algorithm>
#include <functional>
#include <stdexcept>
#include <thread>
#include <type_traits>

#include "model/PirReader.h"
#include "model/Program.h"

using namespace rx;

// The seal, at compile time: a reader gets const references and spans of const, whether it
// holds the program const or not, and the storage is out of reach.
static_assert(std::is_same_v<decltype(std::declval<Program&>().ops()), std::span<const Operation>>);
static_assert(std::is_same_v<decltype(std::declval<Program&>().values()), std::span<const Value>>);
static_assert(std::is_same_v<decltype(std::declval<Program&>().blocks()), std::span<const Block>>);
static_assert(std::is_same_v<decltype(std::declval<Program&>().op(0)), const Operation&>);
static_assert(std::is_same_v<decltype(std::declval<Program&>().value(0)), const Value&>);
static_assert(std::is_same_v<decltype(std::declval<Program&>().block(0)), const Block&>);
static_assert(std::is_same_v<decltype(std::declval<Program&>().types()), const TypeTable&>);
static_assert(std::is_same_v<decltype(std::declval<Program&>().operandTypeOverrides()),
                             const std::unordered_map<OpId, std::vector<TypeId>>&>);
template <class P> concept StorageReachable = requires(P& p) { p.ops_; } || requires(P& p) { p.values_; } ||
                                              requires(P& p) { p.blocks_; } || requires(P& p) { p.types_; };
static_assert(!StorageReachable<Program>);
template <class P> concept EditableInPlace = requires(P& p, Operation o) { p.ops().front() = o; } ||
                                             requires(P& p, Value v) { p.values().front() = v; } ||
                                             requires(P& p) { p.block(0).ops.clear(); };
static_assert(!EditableInPlace<Program>);

class ProgramTest : public QObject {
    Q_OBJECT
private slots:
    void usesCountSlotsAndAncestors() {
        Program p;
        const TypeId t = p.tensorType(DType::Float32, {4, 4});
        const OpId a = p.appendOp(Program::kGlobalBlock, "pd_op.data", {}, std::vector<TypeId>{t});
        const ValueId x = p.op(a).results[0];
        const std::vector<ValueId> xx{x, x};
        const OpId m = p.appendOp(Program::kGlobalBlock, "pd_op.multiply", xx, std::vector<TypeId>{t});
        const OpId ifOp = p.appendOp(Program::kGlobalBlock, "pd_op.if", std::vector<ValueId>{x}, std::vector<TypeId>{t});
        const BlockId inner = p.addBlock(ifOp);
        p.addRegion(ifOp, {inner});
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
        const TypeId t = p.tensorType(DType::Float16, {-1, 8});
        const OpId a = p.appendOp(Program::kGlobalBlock, "pd_op.data", {}, std::vector<TypeId>{t});
        const OpId b = p.appendOp(Program::kGlobalBlock, "pd_op.relu", std::vector<ValueId>{p.op(a).results[0]}, std::vector<TypeId>{t});
        const OpId c = p.createOp("pd_op.relu", std::vector<ValueId>{p.op(a).results[0]}, std::vector<TypeId>{t});
        p.insertOpBefore(c, b);
        p.finish();
        QCOMPARE(p.indexInBlock(c), 1u);
        QCOMPARE(p.indexInBlock(b), 2u);
        QCOMPARE(p.uses(p.op(a).results[0]).size(), size_t(2));
        QCOMPARE(p.uses(p.op(a).results[0])[0].user, c);
        QCOMPARE(p.valueBytes(p.op(a).results[0]), int64_t(16));  // -1 left out
        QCOMPARE(p.value(p.op(c).results[0]).name, std::string("%2"));
    }
    void unfinishedQueriesThrow() {
        Program p;
        const TypeId t = p.tensorType(DType::Float32, {4});
        const OpId a = p.appendOp(Program::kGlobalBlock, "pd_op.data", {}, std::vector<TypeId>{t});
        const ValueId x = p.op(a).results[0];
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
    }
    void everyMutatorUnseals() {
        // A finished program with a nested region: data -> relu -> if { exp } -> add.
        Program base;
        const TypeId t = base.tensorType(DType::Float32, {4});
        const TypeId wide = base.tensorType(DType::Float32, {8});
        const OpId data = base.appendOp(Program::kGlobalBlock, "pd_op.data", {}, std::vector<TypeId>{t});
        const ValueId x = base.op(data).results[0];
        const OpId relu = base.appendOp(Program::kGlobalBlock, "pd_op.relu", std::vector<ValueId>{x}, std::vector<TypeId>{t});
        const ValueId y = base.op(relu).results[0];
        const OpId ifOp = base.appendOp(Program::kGlobalBlock, "pd_op.if", std::vector<ValueId>{y}, std::vector<TypeId>{t});
        const BlockId inner = base.addBlock(ifOp);
        base.addRegion(ifOp, {inner});
        const OpId exp = base.appendOp(inner, "pd_op.exp", std::vector<ValueId>{x}, std::vector<TypeId>{t});
        const OpId add = base.appendOp(Program::kGlobalBlock, "pd_op.add", std::vector<ValueId>{x, y}, std::vector<TypeId>{t});
        base.finish();
        QVERIFY(base.isFinished());

        using Edit = std::function<void(Program&)>;
        const std::vector<std::pair<const char*, Edit>> structural = {
            {"appendOp", [&](Program& p) { p.appendOp(Program::kGlobalBlock, "pd_op.relu", std::vector<ValueId>{y}, std::vector<TypeId>{t}); }},
            {"createOp", [&](Program& p) { (void)p.createOp("pd_op.relu", std::vector<ValueId>{y}, std::vector<TypeId>{t}); }},
            {"addBlock", [&](Program& p) { (void)p.addBlock(add); }},
            {"addBlockArgument", [&](Program& p) { (void)p.addBlockArgument(inner, t, "%arg_0"); }},
            {"insertOpBefore", [&](Program& p) { p.insertOpBefore(add, relu); }},
            {"appendExistingOp", [&](Program& p) { p.appendExistingOp(relu, Program::kGlobalBlock); }},
            {"insertOpBefore (a move)", [&](Program& p) { p.insertOpBefore(add, ifOp); }},
            {"setOperand", [&](Program& p) { p.setOperand(add, 1, x); }},
            {"eraseOp", [&](Program& p) { p.eraseOp(add); }},
            {"setBlockOps", [&](Program& p) { p.setBlockOps(Program::kGlobalBlock, {data, relu, add, ifOp}); }},
            {"addRegion", [&](Program& p) { p.addRegion(ifOp, {p.addBlock(ifOp)}); }},
            {"setOpAttribute", [&](Program& p) { p.setOpAttribute(relu, "stop_gradient", Attribute::boolean(true)); }},
            {"setOpAttributes", [&](Program& p) { p.setOpAttributes(relu, {}); }},
            {"setOpOperands", [&](Program& p) { p.setOpOperands(add, {y, x}); }},
            {"truncateResults", [&](Program& p) { p.truncateResults(relu, 1); }},
            {"setOpSyntax", [&](Program& p) { p.setOpSyntax(relu, OpSyntax::kBareName); }},
            {"setPrintedId", [&](Program& p) { p.setPrintedId(relu, 7); }},
            {"setOperandKeywords", [&](Program& p) { p.setOperandKeywords(add, {"x", "y"}); }},
            {"setOperandTypeOverride", [&](Program& p) { p.setOperandTypeOverride(add, {wide, wide}); }},
            {"setValueName", [&](Program& p) { p.setValueName(y, "%99"); }},
            {"setValueType", [&](Program& p) { p.setValueType(y, wide); }},
            {"setBlockArgsPrinted", [&](Program& p) { p.setBlockArgsPrinted(inner, true); }},
            {"setBlockArgTypesPrinted", [&](Program& p) { p.setBlockArgTypesPrinted(inner, true); }},
            {"reserve", [&](Program& p) { p.reserve(16, 16); }},
            {"addValue", [&](Program& p) { (void)p.addValue(Value{t, kNoId, Program::kGlobalBlock, 0, "%50", {}}); }},
            {"addOperation", [&](Program& p) { Operation o = p.op(relu); o.results.clear(); (void)p.addOperation(std::move(o)); }},
            {"shrinkToFit", [&](Program& p) { p.shrinkToFit(); }},
        };
        for (const auto& [name, edit] : structural) {
            Program p = base;
            QVERIFY2(p.isFinished(), name);
            edit(p);
            QVERIFY2(!p.isFinished(), name);
            QVERIFY_THROWS_EXCEPTION(std::logic_error, p.uses(x));
            QVERIFY_THROWS_EXCEPTION(std::logic_error, p.indexInBlock(relu));
            p.finish();
            QVERIFY2(p.isFinished(), name);
            (void)p.uses(x);
        }
        // Metadata that finish() derives nothing from keeps the seal.
        const std::vector<std::pair<const char*, Edit>> metadata = {
            {"internType", [&](Program& p) { (void)p.internType(Type::vector({t, wide})); }},
            {"tensorType", [&](Program& p) { (void)p.tensorType(DType::Int8, {3}); }},
            {"setGeneration", [&](Program& p) { p.setGeneration(Generation::G1); }},
            {"addWarning", [&](Program& p) { p.addWarning("a warning"); }},
            {"setFragment", [&](Program& p) { p.setFragment(true); }},
        };
        for (const auto& [name, edit] : metadata) {
            Program p = base;
            edit(p);
            QVERIFY2(p.isFinished(), name);
            QCOMPARE(p.uses(x).size(), base.uses(x).size());
        }
        QCOMPARE(structural.size(), size_t(27));  // one per mutator in Program.h, and insertOpBefore as a move
        (void)exp;
    }
    void mutatorsKeepTheIrConsistent() {
        Program p;
        const TypeId t = p.tensorType(DType::Float32, {4});
        const TypeId wide = p.tensorType(DType::Float32, {8});
        const OpId a = p.appendOp(Program::kGlobalBlock, "pd_op.data", {}, std::vector<TypeId>{t});
        const OpId b = p.appendOp(Program::kGlobalBlock, "pd_op.relu", std::vector<ValueId>{p.op(a).results[0]}, std::vector<TypeId>{t});
        const OpId c = p.appendOp(Program::kGlobalBlock, "pd_op.exp", std::vector<ValueId>{p.op(a).results[0]}, std::vector<TypeId>{t});
        const ValueId other = p.op(p.appendOp(Program::kGlobalBlock, "pd_op.data", {}, std::vector<TypeId>{wide})).results[0];
        const BlockId inner = p.addBlock(b);
        p.addRegion(b, {inner});
        // setBlockOps moves a listed op (and its results) into the block, unplaces one left out.
        p.setBlockOps(inner, {c});
        QCOMPARE(p.op(c).parentBlock, inner);
        QCOMPARE(p.value(p.op(c).results[0]).block, inner);
        QVERIFY(std::find(p.globalBlock().ops.begin(), p.globalBlock().ops.end(), c) == p.globalBlock().ops.end());
        p.setBlockOps(Program::kGlobalBlock, {b, a});
        QCOMPARE(p.op(p.value(other).definingOp).parentBlock, kNoId);
        p.finish();
        QCOMPARE(p.indexInBlock(a), 1u);
        QCOMPARE(p.indexInBlock(c), 0u);
        QCOMPARE(p.uses(p.op(a).results[0]).size(), size_t(2));
        QCOMPARE(p.uses(p.op(a).results[0])[1].ancestor, b);  // c now sits inside b's region
        // Printed operand types survive an operand of the same type, not one of another.
        p.setOperandTypeOverride(b, {wide});
        p.setOperand(b, 0, p.op(a).results[0]);
        QCOMPARE(p.operandTypeOverrides().count(b), size_t(1));
        p.setOperand(b, 0, other);
        QCOMPARE(p.operandTypeOverrides().count(b), size_t(0));
        // Names set through the API keep nextValueName() fresh.
        p.setValueName(other, "%41");
        QCOMPARE(p.nextValueName(), std::string("%42"));
    }
    void finishAfterMutationGivesCorrectUses() {
        Program p;
        const TypeId t = p.tensorType(DType::Float32, {4});
        const OpId a = p.appendOp(Program::kGlobalBlock, "pd_op.data", {}, std::vector<TypeId>{t});
        const OpId b = p.appendOp(Program::kGlobalBlock, "pd_op.data", {}, std::vector<TypeId>{t});
        const ValueId x = p.op(a).results[0], y = p.op(b).results[0];
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
        QVERIFY_THROWS_EXCEPTION(std::out_of_range, p.uses(ValueId(p.values().size())));
        QVERIFY_THROWS_EXCEPTION(std::out_of_range, p.indexInBlock(OpId(p.ops().size())));
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
        const TypeId t = p.tensorType(DType::Float32, {8});
        const OpId d = p.appendOp(Program::kGlobalBlock, "pd_op.data", {}, std::vector<TypeId>{t});
        ValueId last = p.op(d).results[0];
        for (int i = 0; i < 400; ++i) {
            const OpId op = p.appendOp(Program::kGlobalBlock, "pd_op.add", std::vector<ValueId>{last, p.op(d).results[0]},
                                       std::vector<TypeId>{t});
            if (i % 50 == 0) {
                const BlockId inner = p.addBlock(op);
                p.addRegion(op, {inner});
                p.appendOp(inner, "pd_op.relu", std::vector<ValueId>{last}, std::vector<TypeId>{t});
            }
            last = p.op(op).results[0];
        }
        p.finish();
        const auto answer = [&p] {
            std::vector<uint64_t> out;
            for (ValueId v = 0; v < p.values().size(); ++v)
                for (const Use& u : p.uses(v)) out.push_back(uint64_t(u.user) << 32 | u.ancestor);
            for (OpId op = 0; op < p.ops().size(); ++op) {
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
