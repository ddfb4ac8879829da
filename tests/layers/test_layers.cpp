// Layer detection (algorithms/Layers.h) on generated transformer and LLaMA programs of 2 to
// 12 layers (the motif count equals the generator's layers; every backward op lands in a
// group, layer k's backward reading layer k's forward), on name scopes (struct_name,
// PyTorch-style parameter names) and op_role, and on the torch-joint corpus.
#include <QtTest>
#include <map>
#include <set>

#include "algorithms/Layers.h"
#include "algorithms/Solver.h"
#include "algorithms/zoo/ModelZoo.h"
#include "model/PirReader.h"
#include "model/RecomputeSpec.h"

using namespace rx;

class LayersTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void generatedModels_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<int>("layers");
        for (const char* m : {"transformer", "llama"})
            for (int l : {2, 3, 12}) QTest::newRow(qPrintable(QStringLiteral("%1-%2").arg(m).arg(l))) << QString(m) << l;
    }
    void generatedModels() {
        QFETCH(QString, model);
        QFETCH(int, layers);
        zoo::ZooOptions o;
        o.model = model.toStdString();
        o.layers = layers;
        const zoo::GeneratedProgram g = zoo::generateModel(o);
        const Program& p = *g.program;
        const LayerPartition part = detectLayers(p, g.spec.fwdOpEndIdx, g.spec.backwardOpStartIdx);
        QCOMPARE(part.source, std::string("motif"));
        QCOMPARE(part.layerCount(), size_t(layers));
        // Every op has a group; layers have the motif's length.
        for (int32_t gi : part.groupOfPos) QVERIFY(gi >= 0 && size_t(gi) < part.groups.size());
        for (const LayerGroup& lg : part.groups)
            if (lg.kind == LayerGroup::Kind::Layer) {
                QCOMPARE(lg.forwardOps, part.period);
                QVERIFY(lg.backwardOps > 0);  // each layer's backward is found
            }
        // A backward op that reads forward values reads its group's more than any other's.
        const auto& ops = p.globalBlock().ops;
        int checked = 0;
        for (size_t i = size_t(g.spec.backwardOpStartIdx); i < ops.size(); ++i) {
            std::map<int32_t, int64_t> bytes;
            for (ValueId x : p.op(ops[i]).operands) {
                if (x == kNoId || p.value(x).definingOp == kNoId) continue;
                const std::string_view defName = p.opName(p.value(x).definingOp);
                if (defName == "builtin.parameter" || defName == "pd_op.data") continue;
                const uint32_t pos = p.indexInBlock(p.value(x).definingOp);
                if (int64_t(pos) <= g.spec.fwdOpEndIdx) bytes[part.groupOfPos[pos]] += std::max<int64_t>(1, p.valueBytes(x));
            }
            if (bytes.empty()) continue;
            ++checked;
            const int32_t mine = part.groupOfPos[i];
            for (auto [gi, b] : bytes) QVERIFY(b <= bytes[mine]);
        }
        QVERIFY(checked > 0);
        // Under the seed's plan, bytes per layer: what it recomputes is part of what the backward holds.
        RecomputeSolver solver(g.program, g.spec);
        const SolveResult r = solver.solve(RecomputeConfig::seedDefaults());
        QVERIFY(r.ok());
        const std::vector<LayerBytes> lb = layerBytes(p, part, r.plan, g.spec.backwardOpStartIdx);
        QCOMPARE(lb.size(), part.groups.size());
        int64_t held = 0, saved = 0;
        for (const LayerBytes& b : lb) {
            QVERIFY(b.recomputed <= b.heldForBackward);
            held += b.heldForBackward;
            saved += b.saved;
        }
        QVERIFY(held > 0);
        QVERIFY(saved > 0);
        // Layers repeat: every layer holds the same bytes for the backward.
        std::vector<int64_t> perLayer;
        for (size_t k = 0; k < part.groups.size(); ++k)
            if (part.groups[k].kind == LayerGroup::Kind::Layer) perLayer.push_back(lb[k].heldForBackward);
        qInfo("held for backward per layer: first %lld, last %lld", (long long)perLayer.front(), (long long)perLayer.back());
        QVERIFY(perLayer.size() < 3 || perLayer[1] == perLayer[perLayer.size() - 2]);  // inner layers alike

        // The same layers on the rewritten program: originals keep their group, each clone is in
        // the group of the first non-clone op that reads it (the backward it serves).
        QVERIFY(r.rewritten && !r.clones.empty());
        const Program& rp = *r.rewritten;
        const LayerPartition rpart = layersOfRewritten(part, p, rp);
        const auto& rops = rp.globalBlock().ops;
        QCOMPARE(rpart.groupOfPos.size(), rops.size());
        QCOMPARE(rpart.groups.size(), part.groups.size());
        std::set<OpId> clones(r.clones.begin(), r.clones.end());
        std::map<OpId, uint32_t> rpos;
        for (uint32_t i = 0; i < rops.size(); ++i) rpos[rops[i]] = i;
        for (uint32_t i = 0; i < ops.size(); ++i) QCOMPARE(rpart.groupOfPos[rpos.at(ops[i])], part.groupOfPos[i]);
        size_t readByTheirGroup = 0;
        for (OpId c : r.clones) {
            OpId reader = kNoId;  // the earliest non-clone reader of the clone's results, through clones
            std::vector<OpId> todo{c};
            std::set<OpId> seen;
            while (!todo.empty()) {
                const OpId op = todo.back();
                todo.pop_back();
                if (!seen.insert(op).second) continue;
                for (ValueId v : rp.op(op).results)
                    for (const Use& u : rp.uses(v)) {
                        if (u.ancestor == kNoId || rp.op(u.ancestor).parentBlock != Program::kGlobalBlock) continue;
                        if (clones.count(u.ancestor)) todo.push_back(u.ancestor);
                        else if (reader == kNoId || rpos.at(u.ancestor) < rpos.at(reader)) reader = u.ancestor;
                    }
            }
            QVERIFY(reader != kNoId);
            QVERIFY(rpart.groupOfPos[rpos.at(c)] >= 0);
            readByTheirGroup += rpart.groupOfPos[rpos.at(c)] == rpart.groupOfPos[rpos.at(reader)];
        }
        QCOMPARE(readByTheirGroup, r.clones.size());
        uint32_t bwdBefore = 0, bwdAfter = 0;
        for (size_t k = 0; k < part.groups.size(); ++k) {
            bwdBefore += part.groups[k].backwardOps;
            bwdAfter += rpart.groups[k].backwardOps;
            QCOMPARE(rpart.groups[k].fwdBegin, part.groups[k].fwdBegin);
        }
        QCOMPARE(size_t(bwdAfter), size_t(bwdBefore) + r.clones.size());
    }

    void torchJointCorpus() {
        for (const char* f : {"transformer_layer.prim", "transformer_layer.aten", "mlp.prim", "mlp.aten"}) {
            const std::string path = std::string(RX_SHARED_DIR "/corpus/torch-joint/") + f + ".pir";
            auto program = std::make_shared<Program>(loadProgram(path));
            const RecomputeSpec spec = readSpecFile(std::string(RX_SHARED_DIR "/corpus/torch-joint/") + f + ".spec.json", *program);
            const LayerPartition part = detectLayers(*program, spec.fwdOpEndIdx, spec.backwardOpStartIdx);
            QVERIFY2(!part.groups.empty(), f);
            for (int32_t gi : part.groupOfPos) QVERIFY(gi >= 0);
            uint32_t fwd = 0, bwd = 0;
            for (const LayerGroup& g : part.groups) {
                fwd += g.forwardOps;
                bwd += g.backwardOps;
            }
            QCOMPARE(size_t(fwd + bwd), program->globalBlock().ops.size() - size_t(spec.backwardOpStartIdx - spec.fwdOpEndIdx - 1));
            if (std::string(f).starts_with("transformer")) QCOMPARE(part.layerCount(), size_t(0));  // one layer: no repeat
            qInfo("%s: %zu groups, %zu layers (%s, period %u)", f, part.groups.size(), part.layerCount(), part.source.c_str(), part.period);
        }
    }

    void nameScopesWinOverMotifs() {
        // Scopes that disagree with the motif (every layer shifted by 3 ops): the scopes decide.
        zoo::ZooOptions o;
        o.layers = 4;
        const zoo::GeneratedProgram g = zoo::generateModel(o);
        Program& p = *g.program;
        const LayerPartition motif = detectLayers(p, g.spec.fwdOpEndIdx, g.spec.backwardOpStartIdx);
        QCOMPARE(motif.source, std::string("motif"));
        const auto& ops = p.globalBlock().ops;
        std::vector<std::pair<uint32_t, uint32_t>> want;
        for (const LayerGroup& lg : motif.groups)
            if (lg.kind == LayerGroup::Kind::Layer) want.emplace_back(lg.fwdBegin + 3, lg.fwdEnd + 3);
        for (size_t k = 0; k < want.size(); ++k)
            for (uint32_t i = want[k].first; i < want[k].second; ++i)
                p.setOpAttribute(ops[i], "struct_name", Attribute::string("/Model/TransformerLayer_" + std::to_string(k) + "/Linear_" + std::to_string(i) + "/"));
        p.finish();  // edits unseal the program
        const LayerPartition scoped = detectLayers(p, g.spec.fwdOpEndIdx, g.spec.backwardOpStartIdx);
        QCOMPARE(scoped.source, std::string("name scope"));
        QCOMPARE(scoped.layerCount(), size_t(4));
        size_t k = 0;
        for (const LayerGroup& lg : scoped.groups)
            if (lg.kind == LayerGroup::Kind::Layer) {
                QCOMPARE(lg.fwdBegin, want[k].first);
                // The last layer ends at its last scoped op; the others where the next begins.
                QCOMPARE(lg.fwdEnd, k + 1 < want.size() ? want[k + 1].first : want[k].second);
                QVERIFY(lg.backwardOps > 0);
                ++k;
            }
        for (int32_t gi : scoped.groupOfPos) QVERIFY(gi >= 0);
    }

    void parameterNamesAsScopes() {
        // PyTorch-style parameter names ("layers.2.linear_5.w_0") name the layers; Paddle's
        // own counters ("linear_5.w_0", every generated program) do not (generatedModels: motif).
        zoo::ZooOptions o;
        o.model = "llama";
        o.layers = 3;
        const zoo::GeneratedProgram g = zoo::generateModel(o);
        Program& p = *g.program;
        const LayerPartition motif = detectLayers(p, g.spec.fwdOpEndIdx, g.spec.backwardOpStartIdx);
        QCOMPARE(motif.layerCount(), size_t(3));
        const auto& ops = p.globalBlock().ops;
        const uint32_t parameterName = p.findOpName("builtin.parameter");
        int renamed = 0;
        for (uint32_t i = 0; i <= uint32_t(g.spec.fwdOpEndIdx); ++i) {
            const int32_t gi = motif.groupOfPos[i];
            if (gi < 0 || motif.groups[size_t(gi)].kind != LayerGroup::Kind::Layer) continue;
            const int layer = std::stoi(motif.groups[size_t(gi)].name.substr(6));  // "layer 2"
            for (ValueId x : p.op(ops[i]).operands) {
                const OpId def = x == kNoId ? kNoId : p.value(x).definingOp;
                if (def == kNoId || p.op(def).nameId != parameterName) continue;
                const Attribute* a = p.op(def).attribute("parameter_name");
                if (!a || a->text.starts_with("layers.")) continue;
                p.setOpAttribute(def, "parameter_name", Attribute::string("layers." + std::to_string(layer) + "." + a->text));
                ++renamed;
            }
        }
        QVERIFY(renamed > 3);
        p.finish();
        const LayerPartition scoped = detectLayers(p, g.spec.fwdOpEndIdx, g.spec.backwardOpStartIdx);
        QCOMPARE(scoped.source, std::string("name scope"));
        QCOMPARE(scoped.layerCount(), size_t(3));
        for (int32_t gi : scoped.groupOfPos) QVERIFY(gi >= 0);
    }

    void optimizerOpsHaveTheirOwnGroup() {
        zoo::ZooOptions o;
        o.layers = 2;
        const zoo::GeneratedProgram g = zoo::generateModel(o);
        Program& p = *g.program;
        const auto& ops = p.globalBlock().ops;
        const size_t n = ops.size();
        for (size_t i = n - 5; i < n; ++i) p.setOpAttribute(ops[i], "op_role", Attribute::int32(2));
        p.finish();
        const LayerPartition part = detectLayers(p, g.spec.fwdOpEndIdx, g.spec.backwardOpStartIdx);
        for (size_t i = size_t(g.spec.backwardOpStartIdx); i < n; ++i) {
            const std::string& name = part.groups[size_t(part.groupOfPos[i])].name;
            QCOMPARE(name == "optimizer", i >= n - 5);
        }
    }

    void noSplitKnown() {
        zoo::ZooOptions o;
        o.layers = 8;
        const zoo::GeneratedProgram g = zoo::generateModel(o);
        const LayerPartition part = detectLayers(*g.program, -1, -1);
        for (int32_t gi : part.groupOfPos) QVERIFY(gi >= 0);
        QVERIFY(part.layerCount() >= 2);  // the whole program read as forward still repeats
    }
};

QTEST_MAIN(LayersTest)
#include "test_layers.moc"
