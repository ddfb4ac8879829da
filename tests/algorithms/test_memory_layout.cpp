// Memory layout of issue 8 part 5: ops with the same attribute dict share one list, copies
// share until written (copy on write), the rewriter shares the ops it does not change, and
// renumbered names print as before; equal entries of different dicts are shared and id lists
// stay inline (issue 21 item 4).
#include <QtTest>

#include <set>

#include "algorithms/Solver.h"
#include "algorithms/zoo/ModelZoo.h"
#include "model/PirReader.h"
#include "model/PirWriter.h"

using namespace rx;

namespace {

const char* kFourOps =
    "{\n"
    "    (%0) = \"pd_op.data\" () {name:\"x\",stop_gradient:[false]} : () -> builtin.tensor<4xf32>\n"
    "    (%1) = \"pd_op.sin\" (%0) {stop_gradient:[false]} : (builtin.tensor<4xf32>) -> builtin.tensor<4xf32>\n"
    "    (%2) = \"pd_op.cos\" (%1) {stop_gradient:[false]} : (builtin.tensor<4xf32>) -> builtin.tensor<4xf32>\n"
    "    (%3) = \"pd_op.exp\" (%2) {stop_gradient:[true]} : (builtin.tensor<4xf32>) -> builtin.tensor<4xf32>\n"
    "}\n";

// The generated transformer as a user's file would hold it: printed, then read back.
Program readGenerated(int layers, RecomputeSpec* spec = nullptr) {
    zoo::ZooOptions o;
    o.layers = layers;
    const zoo::GeneratedProgram g = zoo::generateModel(o);
    if (spec) *spec = g.spec;  // value ids survive the round trip (names are kept)
    return parsePir(printProgram(*g.program), "generated.pir");
}

}  // namespace

class MemoryLayout : public QObject {
    Q_OBJECT
private slots:
    void sameDictSharesOneList() {
        Program p = parsePir(kFourOps, "four.pir");
        const auto& ops = p.globalBlock().ops;
        QCOMPARE(ops.size(), size_t(4));
        const Operation &data = p.op(ops[0]), &sin = p.op(ops[1]), &cos = p.op(ops[2]), &exp = p.op(ops[3]);
        QVERIFY(sin.attributes.sharesStorageWith(cos.attributes));
        QVERIFY(!sin.attributes.sharesStorageWith(exp.attributes));
        QVERIFY(!sin.attributes.sharesStorageWith(data.attributes));
        QCOMPARE(exp.attribute("stop_gradient")->elements.at(0).boolValue, true);
        QCOMPARE(cos.attribute("stop_gradient")->elements.at(0).boolValue, false);

        // Writing one op's attribute copies its list: the other op keeps its own value.
        p.setOpAttribute(ops[2], "stop_gradient", Attribute::array({Attribute::boolean(true)}));
        QVERIFY(!p.op(ops[1]).attributes.sharesStorageWith(p.op(ops[2]).attributes));
        QCOMPARE(p.op(ops[1]).attribute("stop_gradient")->elements.at(0).boolValue, false);
        QCOMPARE(p.op(ops[2]).attribute("stop_gradient")->elements.at(0).boolValue, true);
        p.finish();
        const std::string text = printProgram(p);
        QVERIFY(text.find("\"pd_op.sin\" (%0) {stop_gradient:[false]}") != std::string::npos);
        QVERIFY(text.find("\"pd_op.cos\" (%1) {stop_gradient:[true]}") != std::string::npos);
    }

    void copyOnWrite() {
        AttributeList empty;
        QVERIFY(empty.empty());
        QCOMPARE(empty.begin(), empty.end());
        empty = std::vector<NamedAttribute>{};
        QVERIFY(empty.empty());

        AttributeList a = std::vector<NamedAttribute>{{"k", Attribute::int32(1)}};
        AttributeList b = a;
        QVERIFY(a.sharesStorageWith(b));
        const AttributeList& readOnly = b;
        QCOMPARE(readOnly[0].value.intValue, int64_t(1));  // a const read keeps the sharing
        QVERIFY(a.sharesStorageWith(b));
        QVERIFY(a == b);
        b.push_back({"j", Attribute::int32(2)});
        QVERIFY(!a.sharesStorageWith(b));
        QCOMPARE(a.size(), size_t(1));
        QCOMPARE(b.size(), size_t(2));
        QVERIFY(!(a == b));
        AttributeList c = a;
        c[0].value.intValue = 7;  // mutable element access unshares too
        QCOMPARE(a[0].value.intValue, int64_t(1));
        QCOMPARE(c[0].value.intValue, int64_t(7));
        QCOMPARE(c.eraseIf([](const NamedAttribute& x) { return x.name == "k"; }), size_t(1));
        QVERIFY(c.empty());
        QCOMPARE(a.size(), size_t(1));
    }

    // Dicts that differ in one entry share the others (the parameters' differ in
    // parameter_name only); writing a shared entry copies it for this list alone.
    void equalEntriesOfDifferentDictsAreShared() {
        Program p = parsePir("{\n"
                             "    (%0) = \"builtin.parameter\" () {is_parameter:[true],parameter_name:\"w_0\",persistable:[true]} : () -> builtin.tensor<4xf32>\n"
                             "    (%1) = \"builtin.parameter\" () {is_parameter:[true],parameter_name:\"w_1\",persistable:[true]} : () -> builtin.tensor<4xf32>\n"
                             "}\n",
                             "params.pir");
        const OpId w0 = p.globalBlock().ops[0], w1 = p.globalBlock().ops[1];
        const AttributeList& a = p.op(w0).attributes;
        const AttributeList& b = p.op(w1).attributes;
        QVERIFY(!a.sharesStorageWith(b));
        QVERIFY(a.sharesEntryWith(0, b, 0));
        QVERIFY(!a.sharesEntryWith(1, b, 1));
        QVERIFY(a.sharesEntryWith(2, b, 2));
        QCOMPARE(a[1].value.text, std::string("w_0"));
        QCOMPARE(b[1].value.text, std::string("w_1"));

        p.setOpAttribute(w1, "persistable", Attribute::array({Attribute::boolean(false)}));
        QVERIFY(!p.op(w0).attributes.sharesEntryWith(2, p.op(w1).attributes, 2));
        QVERIFY(p.op(w0).attributes.sharesEntryWith(0, p.op(w1).attributes, 0));
        QCOMPARE(p.op(w0).attribute("persistable")->elements.at(0).boolValue, true);
        QCOMPARE(p.op(w1).attribute("persistable")->elements.at(0).boolValue, false);
        // Mutable iteration makes every entry this list's own.
        AttributeList c = p.op(w0).attributes;
        for (NamedAttribute& x : c) x.value.typed = true;
        QVERIFY(!c.sharesEntryWith(0, p.op(w0).attributes, 0));
        QVERIFY(!p.op(w0).attributes[0].value.typed);
        p.finish();
        const std::string text = printProgram(p);
        QVERIFY(text.find("{is_parameter:[true],parameter_name:\"w_0\",persistable:[true]}") != std::string::npos);
        QVERIFY(text.find("{is_parameter:[true],parameter_name:\"w_1\",persistable:[false]}") != std::string::npos);
    }

    // Operand and result lists keep 3 ids inline and move to the heap and back.
    void idListsSpillToTheHeapAndBack() {
        static_assert(sizeof(IdList) == 16 && sizeof(Operation) <= 80);
        IdList l{1, 2, 3};
        QCOMPARE(l.capacity(), size_t(3));
        for (uint32_t i = 4; i <= 10; ++i) l.push_back(i);
        QCOMPARE(l.size(), size_t(10));
        QVERIFY(l.capacity() >= 10);
        for (uint32_t i = 0; i < 10; ++i) QCOMPARE(l[i], i + 1);
        IdList copy = l;
        IdList moved = std::move(copy);
        QVERIFY(moved == l);
        QVERIFY(copy.empty());
        l.resize(2);
        QCOMPARE(l.capacity(), size_t(3));  // back inline
        QVERIFY(l == (IdList{1, 2}));
        l.resize(5, 9);
        QVERIFY(l == (IdList{1, 2, 9, 9, 9}));
        l.pop_back();
        l.pop_back();
        QVERIFY(l == (IdList{1, 2, 9}));
        QCOMPARE(moved.back(), 10u);
        moved = l;
        QVERIFY(moved == l);
        QVERIFY_THROWS_EXCEPTION(std::out_of_range, (void)l.at(3));
    }

    // A 12-layer transformer has a few hundred distinct dicts among thousands of ops.
    void generatedProgramSharesMostLists() {
        const Program p = readGenerated(12);
        std::set<const void*> storages;
        size_t withAttributes = 0;
        for (OpId op : p.globalBlock().ops)
            if (!p.op(op).attributes.empty()) {
                ++withAttributes;
                storages.insert(p.op(op).attributes.identity());
            }
        QVERIFY2(withAttributes > 3000, std::to_string(withAttributes).c_str());
        QVERIFY2(storages.size() * 4 < withAttributes,
                 (std::to_string(storages.size()) + " lists for " + std::to_string(withAttributes) + " ops").c_str());
    }

    // The rewritten program shares every list the rewrite does not touch; the marks land
    // on the rewritten program only.
    void rewriterSharesUntouchedOps() {
        RecomputeSpec spec;
        auto program = std::make_shared<Program>(readGenerated(2, &spec));
        const RecomputeSolver solver(program, spec);
        const SolveResult r = solver.solve(RecomputeConfig::seedDefaults());
        QVERIFY2(r.ok(), r.error.c_str());
        QVERIFY(!r.plan.recomputeOps.empty());
        QVERIFY(!r.clones.empty());
        const Program& rw = *r.rewritten;
        std::vector<uint8_t> recomputed(program->ops().size(), 0);
        for (OpId op : r.plan.recomputeOps) recomputed[op] = 1;
        size_t shared = 0;
        for (OpId op = 0; op < program->ops().size(); ++op) {
            const Operation& before = program->op(op);
            const Operation& after = rw.op(op);
            QVERIFY(!before.attribute("is_recompute_op"));
            if (recomputed[op]) {
                QVERIFY(after.attribute("is_recompute_op"));
                QVERIFY(!after.attributes.sharesStorageWith(before.attributes));
                QCOMPARE(after.attributes.size(), before.attributes.size() + 1);
            } else if (!before.attributes.empty()) {
                QVERIFY(after.attributes.sharesStorageWith(before.attributes));
                ++shared;
            }
        }
        QVERIFY(shared > program->ops().size() / 2);
        for (OpId c : r.clones) QVERIFY(rw.op(c).attribute("is_recompute_bw_op"));
    }

    // Renumbered names (kept as numbers by the writer): %N in print order, %arg_N for
    // block arguments, and reading the text back gives the same text.
    void renumberedNames() {
        const std::string path = std::string(RX_SHARED_DIR) + "/corpus/pir-real/save-load-doc-while-op-early-fragment.pir";
        const Program p = loadProgram(path);
        WriteOptions wo;
        wo.renumber = true;
        const std::string once = printProgram(p, wo);
        QVERIFY(once.find("(%0) = \"pd_op.full\"") != std::string::npos);
        QVERIFY(once.find("^%arg_0") != std::string::npos);
        QVERIFY(once.find("\"pd_op.add\" (%arg_0, %1)") != std::string::npos);
        QVERIFY(once.find("\"cf.yield\" (%6, %5)") != std::string::npos);
        const std::string twice = printProgram(parsePir(once, "renumbered.pir"), wo);
        QCOMPARE(twice, once);
    }
};

QTEST_GUILESS_MAIN(MemoryLayout)
#include "test_memory_layout.moc"
