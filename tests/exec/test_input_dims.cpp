// Binding dynamic input dims (exec/InputDims.h): the NAME=DIMS grammar, which inputs are
// dynamic, binding that keeps the declared rank and fixed dims, and a bound program that runs
// (a matmul reading the bound input, its own result still declared [-1,3]).
#include <QtTest>

#include <functional>

#include "exec/InputDims.h"
#include "exec/OpSemantics.h"
#include "exec/cpu/CpuExecutor.h"
#include "model/Diagnostic.h"
#include "support/ErrorOf.h"

using namespace rx;
using rx::testing::errorOf;
using namespace rx::exec;

namespace {

// x [-1,4] (dynamic) @ w [4,3] -> y [-1,3], fetched.
Program dynamicMatmul() {
    Program p;
    const ValueId x = p.op(p.appendOp(0, "pd_op.data", {}, std::vector<TypeId>{p.tensorType(DType::Float32, {-1, 4})},
                                      {{"name", Attribute::string("x")}}))
                          .results[0];
    const ValueId w = p.op(p.appendOp(0, "pd_op.data", {}, std::vector<TypeId>{p.tensorType(DType::Float32, {4, 3})},
                                      {{"name", Attribute::string("w")}}))
                          .results[0];
    const ValueId y = p.op(p.appendOp(0, "pd_op.matmul", std::vector<ValueId>{x, w},
                                      std::vector<TypeId>{p.tensorType(DType::Float32, {-1, 3})},
                                      {{"transpose_x", Attribute::boolean(false)}, {"transpose_y", Attribute::boolean(false)}}))
                          .results[0];
    p.appendOp(0, "pd_op.fetch", std::vector<ValueId>{y}, std::vector<TypeId>{p.value(y).type}, {{"name", Attribute::string("y")}});
    p.finish();
    return p;
}

}  // namespace

class TestInputDims : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void parsesNameEqualsDims() {
        const InputDims d = parseInputDims("x=8x4");
        QCOMPARE(d.name, std::string("x"));
        QCOMPARE(d.dims, (std::vector<int64_t>{8, 4}));
        QVERIFY(parseInputDims("s=").dims.empty());  // a scalar
        QCOMPARE(parseInputDims("a=b=2").name, std::string("a=b"));  // the last '=' splits
        for (const char* bad : {"x", "=4", "x=4x", "x=0x4", "x=-1x4", "x=4y", "x=99999999999999999999"})
            QVERIFY2(errorOf([&] { parseInputDims(bad); }).find("--input-dims expects NAME=DIMS") == 0, bad);
    }

    void bindsTheDynamicDimsOnly() {
        Program p = dynamicMatmul();
        const std::vector<InputDims> dynamic = dynamicInputs(p);
        QCOMPARE(dynamic.size(), size_t(1));
        QCOMPARE(dynamic[0].name, std::string("x"));
        QCOMPARE(dynamic[0].dims, (std::vector<int64_t>{-1, 4}));
        QVERIFY(errorOf([&] { bindInputDims(p, {{"x", {8, 5}}}); }).find("input x is declared [-1,4]: dims [8,5] do not fit") == 0);
        QVERIFY(errorOf([&] { bindInputDims(p, {{"x", {8}}}); }).find("do not fit") != std::string::npos);
        QVERIFY(errorOf([&] { bindInputDims(p, {{"z", {8, 4}}}); }) == "no input is named z (the inputs: x, w)");
        // The failures changed nothing: the program still runs only once bound.
        QVERIFY(errorOf([&] { CpuExecutor().run(p, RunInputs{}, RunOptions{}); }).find("dynamic shape [-1,4]") != std::string::npos);
        bindInputDims(p, {{"x", {8, 4}}, {"w", {4, 3}}});
        QVERIFY(dynamicInputs(p).empty());
        const RunResult r = CpuExecutor().run(p, RunInputs{}, RunOptions{});
        QCOMPARE(r.fetches.size(), size_t(1));
        QCOMPARE(r.fetches[0].tensor.dims, (std::vector<int64_t>{8, 3}));
    }
};

QTEST_GUILESS_MAIN(TestInputDims)
#include "test_input_dims.moc"
