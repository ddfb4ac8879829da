// Fused mode without a device: the planner's groups (maximal, connected, same shape, of ops
// with the Fusible trait, inner values not stored), the generated source compiling with NVRTC for sm_90, and
// the factory's "no CUDA device" error where there is none.
#include <QtTest>

#include <set>

#include "algorithms/zoo/ModelZoo.h"
#include "cuda/CudaExecutor.h"
#include "cuda/ElementwiseCodes.h"
#include "cuda/Fusion.h"
#include "cuda/LifetimePlan.h"
#include "cuda/OpCodes.h"
#include "model/Diagnostic.h"
#include "model/OpTraits.h"
#include "model/PirReader.h"
#include "model/RecomputeConfig.h"

using namespace rx;
using namespace rx::cuda;

namespace {

struct P {
    Program p;
    TypeId t(std::vector<int64_t> dims) { return p.tensorType(DType::Float32, dims); }
    ValueId data(const std::string& name, std::vector<int64_t> dims) {
        OpId op = p.appendOp(0, "pd_op.data", std::vector<ValueId>{}, std::vector<TypeId>{t(dims)}, {{"name", Attribute::string(name)}});
        return p.op(op).results[0];
    }
    ValueId op(const std::string& name, std::vector<ValueId> operands, std::vector<int64_t> dims, std::vector<NamedAttribute> a = {}) {
        OpId id = p.appendOp(0, name, operands, std::vector<TypeId>{t(dims)}, std::move(a));
        return p.op(id).results[0];
    }
    void fetch(ValueId v) { p.appendOp(0, "pd_op.fetch", std::vector<ValueId>{v}, std::vector<TypeId>{p.value(v).type}, {{"name", Attribute::string("out")}}); }
};

bool formula(const Program& p, OpId op) {
    std::string n(p.opName(op));
    for (const auto& [name, code] : unaryOpCodes()) if (name == n) return true;
    for (const auto& [name, code] : binaryOpCodes()) if (name == n) return true;
    return n == "pd_op.scale" || n == "pd_op.cast" || n == "pd_op.where" || n == "pd_op.pow";
}

FusionPlan planOf(const Program& p) {
    LifetimePlan lp = planLifetimes(p, std::nullopt, true);
    return planFusion(p, lp, [&](OpId op) { return formula(p, op); }, [](ValueId) { return false; });
}

}  // namespace

class TestFusion : public QObject {
    Q_OBJECT
private slots:
    void groupsAConnectedChainAndStoresOnlyWhatIsUsedLater() {
        P b;
        ValueId x = b.data("x", {4, 8});
        ValueId y = b.data("y", {8});
        ValueId s = b.op("pd_op.full", {}, {1}, {{"value", Attribute::float32(2.0)}});
        ValueId a = b.op("pd_op.add", {x, y}, {4, 8});
        ValueId e = b.op("pd_op.exp", {a}, {4, 8});
        ValueId c = b.op("pd_op.scale", {e, s}, {4, 8});
        ValueId m = b.op("pd_op.matmul", {c, b.data("w", {8, 8})}, {4, 8});  // not fusible: ends the group
        ValueId d = b.op("pd_op.multiply", {m, a}, {4, 8});                   // reads a: a must be stored
        b.fetch(d);
        FusionPlan plan = planOf(b.p);
        QCOMPARE(plan.groups.size(), size_t(1));
        const FusionGroup& g = plan.groups[0];
        QCOMPARE(g.positions.size(), size_t(3));
        QCOMPARE(g.positions[0], size_t(3));   // data, data, full, [add, exp, scale]
        QCOMPARE(g.dims, (std::vector<int64_t>{4, 8}));
        QCOMPARE(g.numel, int64_t(32));
        QCOMPARE(g.materialize, (std::vector<uint8_t>{1, 0, 1}));  // a (read by multiply), e inner, c (read by matmul)
        Q_UNUSED(c); Q_UNUSED(e);
    }

    // A member read only inside an if's block is still read after the group: it is stored
    // (the block runs its ops one by one on the device, from memory).
    void membersReadInsideABlockAreStored() {
        const std::string t = "pd_op.tensor<4x8xf32>";
        const std::string text =
            "(%0) = \"pd_op.data\" () {dtype:(pd_op.DataType)float32,name:\"x\",place:(pd_op.Place)Place(cpu),"
            "shape:(pd_op.IntArray)[4,8],stop_gradient:[true]} : () -> " + t + "\n"
            "(%1) = \"pd_op.data\" () {dtype:(pd_op.DataType)bool,name:\"c\",place:(pd_op.Place)Place(cpu),"
            "shape:(pd_op.IntArray)[1],stop_gradient:[true]} : () -> pd_op.tensor<1xb>\n"
            "(%2) = \"pd_op.add\" (%0, %0) {stop_gradient:[true]} : (" + t + ", " + t + ") -> " + t + "\n"
            "(%3) = \"pd_op.exp\" (%2) {stop_gradient:[true]} : (" + t + ") -> " + t + "\n"
            "(%4) = \"pd_op.sin\" (%3) {stop_gradient:[true]} : (" + t + ") -> " + t + "\n"
            "(%5) = pd_op.if (%1) {stop_gradient:[true]} -> " + t + "\n"
            "{\n"
            "    () = \"cf.yield\" (%3) {} : (" + t + ") ->\n"
            "} else {\n"
            "    () = \"cf.yield\" (%4) {} : (" + t + ") ->\n"
            "}\n";
        const Program p = parsePir(text, "if-after-group.pir");
        FusionPlan plan = planOf(p);
        QCOMPARE(plan.groups.size(), size_t(1));
        QCOMPARE(plan.groups[0].positions, (std::vector<size_t>{2, 3, 4}));
        QCOMPARE(plan.groups[0].materialize, (std::vector<uint8_t>{0, 1, 1}));  // add inner; exp and sin read in the blocks
    }

    void unconnectedOrReshapedOpsStartNewGroups() {
        P b;
        ValueId x = b.data("x", {4, 8});
        ValueId u = b.op("pd_op.exp", {x}, {4, 8});
        ValueId v = b.op("pd_op.sin", {x}, {4, 8});    // reads no group value: a new group
        ValueId w = b.op("pd_op.cos", {v}, {4, 8});
        ValueId r = b.op("pd_op.sum", {w}, {4});        // a reduction ends it
        ValueId z = b.op("pd_op.exp", {r}, {4});
        b.fetch(u); b.fetch(z);
        FusionPlan plan = planOf(b.p);
        QCOMPARE(plan.groups.size(), size_t(1));        // {sin, cos}; lone exps are not groups
        QCOMPARE(plan.groups[0].positions, (std::vector<size_t>{2, 3}));
        QCOMPARE(plan.groupOf(1), -1);
        QCOMPARE(plan.groupOf(2), 0);
    }

    // The Fusible trait is what decides: relu has a formula but is not fusible (the seed does
    // not fuse it), so it splits a chain that formulas alone would make one group.
    void anOpWithAFormulaButNotTheTraitEndsAGroup() {
        P b;
        ValueId x = b.data("x", {4, 8});
        ValueId e = b.op("pd_op.exp", {x}, {4, 8});
        ValueId s = b.op("pd_op.sin", {e}, {4, 8});
        ValueId r = b.op("pd_op.relu", {s}, {4, 8});
        ValueId c = b.op("pd_op.cos", {r}, {4, 8});
        ValueId t = b.op("pd_op.tanh", {c}, {4, 8});
        b.fetch(t);
        QVERIFY(formula(b.p, b.p.value(r).definingOp));
        QVERIFY(!hasOpTrait("pd_op.relu", OpTrait::Fusible));
        FusionPlan plan = planOf(b.p);
        QCOMPARE(plan.groups.size(), size_t(2));
        QCOMPARE(plan.groups[0].positions, (std::vector<size_t>{1, 2}));   // exp, sin
        QCOMPARE(plan.groups[1].positions, (std::vector<size_t>{4, 5}));   // cos, tanh
        QCOMPARE(plan.groupOf(3), -1);
    }

    // The trait lists exactly the seed's fusible ops that are elementwise: every trait op is
    // seed-fusible, and every seed-fusible op the backend has a one-term formula for has it.
    void fusibleTraitIsTheSeedsElementwiseFusibleOps() {
        const std::vector<std::string> names = RecomputeConfig::seedDefaults().fusibleOps();
        const std::set<std::string> seed(names.begin(), names.end());
        for (std::string_view n : opsWithTrait(OpTrait::Fusible)) QVERIFY2(seed.count(std::string(n)), std::string(n).c_str());
        std::set<std::string> withFormula = {"pd_op.scale", "pd_op.cast", "pd_op.where", "pd_op.pow", "pd_op.gelu", "pd_op.clip"};
        for (const auto& [n, code] : unaryOpCodes()) withFormula.insert(n);
        for (const auto& [n, code] : binaryOpCodes()) withFormula.insert(n);
        for (const std::string& n : seed)
            if (withFormula.count(n)) QVERIFY2(hasOpTrait(n, OpTrait::Fusible), n.c_str());
    }

    void membersHaveTheFusibleTrait() {
        for (const char* model : {"transformer", "llama"}) {
            zoo::ZooOptions zo;
            zo.model = model;
            zo.layers = 2;
            zo.hidden = 32;
            zo.heads = 2;
            zo.seq = 8;
            zoo::GeneratedProgram g = zoo::generateModel(zo);
            FusionPlan plan = planOf(*g.program);
            QVERIFY2(!plan.groups.empty(), model);
            LifetimePlan lp = planLifetimes(*g.program, std::nullopt, true);
            for (const FusionGroup& fg : plan.groups) {
                QVERIFY(fg.positions.size() >= 2);
                for (size_t i = 0; i < fg.positions.size(); ++i) {
                    if (i) QCOMPARE(fg.positions[i], fg.positions[i - 1] + 1);
                    QVERIFY(hasOpTrait(g.program->opName(lp.order[fg.positions[i]]), OpTrait::Fusible));
                }
            }
        }
    }

    void generatedSourceCompilesWithNvrtc() {
        FusedKernelSpec spec;
        spec.dims = {4, 8};
        spec.externalDtypes = {RX_DT_F32, RX_DT_BF16};
        spec.externalStrides = {{8, 1}, {0, 1}};
        spec.externalContiguous = {1, 0};
        FusedTerm add;
        add.arity = 2; add.op = RX_B_ADD; add.refs[0] = 0; add.refs[1] = 1; add.outDtype = RX_DT_F32;
        FusedTerm ex;
        ex.arity = 1; ex.op = RX_U_EXP; ex.refs[0] = -1; ex.outDtype = RX_DT_F16;
        FusedTerm wh;
        wh.arity = 3; wh.op = RX_T_WHERE; wh.refs[0] = -1; wh.refs[1] = -2; wh.refs[2] = 0; wh.outDtype = RX_DT_F32;
        spec.terms = {add, ex, wh};
        spec.outputs = {2};
        std::string src = fusedSource(spec);
        QVERIFY(src.find("rx_fused") != std::string::npos);
        QVERIFY(src.find("d1 * 1LL") != std::string::npos);          // the broadcast operand's index
        QVERIFY(src.find("rx_quantize(6, ") != std::string::npos);   // the f16 member rounds as its store would
        std::string cubin = compileWithNvrtc(src, 90);
        QVERIFY(cubin.size() > 1000);
    }

    void everyFormulaCompilesWithNvrtc() {
        // one term per unary and binary code: NVRTC must accept every formula of the .cuh
        FusedKernelSpec spec;
        spec.dims = {16};
        spec.externalDtypes = {RX_DT_F64, RX_DT_I64};
        spec.externalStrides = {{1}, {1}};
        spec.externalContiguous = {1, 1};
        for (int op = 0; op < RX_U_COUNT; ++op) {
            FusedTerm t;
            t.arity = 1; t.op = op; t.refs[0] = 0; t.outDtype = RX_DT_F64;
            spec.terms.push_back(t);
        }
        for (int op : {RX_B_ADD, RX_B_REM, RX_B_POW, RX_B_BXOR, RX_G_GELU, RX_G_SILU, RX_G_POW, RX_G_DROPOUT}) {
            FusedTerm t;
            t.arity = 2; t.op = op; t.refs[0] = 0; t.refs[1] = 1; t.outDtype = RX_DT_F32; t.integer = op == RX_B_BXOR;
            spec.terms.push_back(t);
        }
        for (int op : {RX_B_NEG_MUL_DIV_SQ, RX_T_WHERE, RX_T_POW_GRAD_X, RX_T_POW_GRAD_Y}) {
            FusedTerm t;
            t.arity = 3; t.op = op; t.refs[0] = 0; t.refs[1] = 1; t.refs[2] = -1; t.outDtype = RX_DT_BF16;
            spec.terms.push_back(t);
        }
        for (size_t i = 0; i < spec.terms.size(); ++i) spec.outputs.push_back(static_cast<int>(i));
        QVERIFY(!compileWithNvrtc(fusedSource(spec), 90).empty());
    }

    void nvrtcErrorsAreReported() {
        try {
            compileWithNvrtc("extern \"C\" __global__ void rx_fused() { undefined_symbol(); }", 90);
            QFAIL("expected an error");
        } catch (const Error& e) {
            QVERIFY(std::string(e.what()).find("NVRTC") != std::string::npos);
        }
    }

    // Generated transformer and LLaMA programs (prim and composite, with dropout) use only
    // ops the CUDA backend has kernels for, so they run end to end on a device.
    void generatedProgramsUseOnlySupportedOps() {
        std::vector<std::string> names = CudaExecutor::supportedOps();
        std::set<std::string> supported(names.begin(), names.end());
        for (const char* model : {"transformer", "llama", "mlp", "conv"})
            for (bool composite : {false, true}) {
                zoo::ZooOptions zo;
                zo.model = model;
                zo.layers = 1;
                zo.composite = composite;
                zo.dropout = 0.1;
                zoo::GeneratedProgram g = zoo::generateModel(zo);
                for (OpId op : g.program->globalBlock().ops) {
                    std::string n(g.program->opName(op));
                    QVERIFY2(supported.count(n), (std::string(model) + (composite ? " composite: " : " prim: ") + n).c_str());
                }
            }
    }

    void factoryNamesAMissingDevice() {
        std::string why;
        if (cudaDeviceCount(&why) > 0) {
            QVERIFY(makeCudaExecutor() != nullptr);
            return;
        }
        try {
            makeCudaExecutor();
            QFAIL("expected an error");
        } catch (const Error& e) {
            QVERIFY(std::string(e.what()).rfind("no CUDA device", 0) == 0);
        }
    }
};

QTEST_GUILESS_MAIN(TestFusion)
#include "test_fusion.moc"
