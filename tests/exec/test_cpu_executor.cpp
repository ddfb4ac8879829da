// Each CPU kernel against hand-computed results, plus the executor's contract: unsupported
// ops named before anything runs, values freed after their last use, peak bytes recorded.
#include <QtTest>

#include <cmath>

#include "exec/cpu/CpuExecutor.h"
#include "exec/Verify.h"
#include "model/Diagnostic.h"

using namespace rx;
using namespace rx::exec;

namespace {

// A one-block program under construction: inputs by name, ops, every result fetched.
struct P {
    Program p;
    RunInputs in;
    ValueId data(const std::string& name, DType t, std::vector<int64_t> dims, std::vector<double> values) {
        OpId op = p.appendOp(0, "pd_op.data", {}, std::vector<TypeId>{p.tensorType(t, dims)}, {{"name", Attribute::string(name)}});
        in.byName[name] = Tensor::fromDoubles(t, dims, values);
        return p.op(op).results[0];
    }
    std::vector<ValueId> op(const std::string& name, std::vector<ValueId> operands, std::vector<TypeId> results,
                            std::vector<NamedAttribute> attrs = {}) {
        OpId id = p.appendOp(0, name, operands, results, std::move(attrs));
        const auto& r = p.op(id).results;
        return {r.begin(), r.end()};
    }
    TypeId t(DType d, std::vector<int64_t> dims) { return p.tensorType(d, dims); }
    ValueId ints(std::vector<int64_t> v) {
        return op("pd_op.full_int_array", {}, {t(DType::Int64, {static_cast<int64_t>(v.size())})},
                  {{"value", Attribute::intArray(v)}})[0];
    }
    void fetch(ValueId v) { op("pd_op.fetch", {v}, {p.value(v).type}, {{"name", Attribute::string(p.value(v).name)}}); }
    RunResult run() { CpuExecutor ex; return ex.run(p, in, {}); }
};

std::vector<double> values(const RunResult& r, size_t i) { return r.fetches.at(i).tensor.toDoubles(); }

void expectNear(const std::vector<double>& got, const std::vector<double>& want, double tol = 1e-6) {
    QCOMPARE(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i)
        if (std::fabs(got[i] - want[i]) > tol)
            QFAIL(qPrintable(QString("element %1: got %2, want %3").arg(i).arg(got[i]).arg(want[i])));
}

}  // namespace

class TestCpuExecutor : public QObject {
    Q_OBJECT
private slots:
    void broadcastingAddAndCompare() {
        P b;
        ValueId x = b.data("x", DType::Float32, {2, 3}, {1, 2, 3, 4, 5, 6});
        ValueId y = b.data("y", DType::Float32, {3}, {10, 20, 30});
        b.fetch(b.op("pd_op.add", {x, y}, {b.t(DType::Float32, {2, 3})})[0]);
        b.fetch(b.op("pd_op.less_equal", {x, y}, {b.t(DType::Bool, {2, 3})})[0]);
        b.fetch(b.op("pd_op.maximum", {x, b.data("z", DType::Float32, {2, 1}, {2, 5})}, {b.t(DType::Float32, {2, 3})})[0]);
        RunResult r = b.run();
        expectNear(values(r, 0), {11, 22, 33, 14, 25, 36});
        expectNear(values(r, 1), {1, 1, 1, 1, 1, 1});
        expectNear(values(r, 2), {2, 2, 3, 5, 5, 6});
        QCOMPARE(r.fetches[1].tensor.dtype, DType::Bool);
    }
    void unaryScaleCastAndHalfRounding() {
        P b;
        ValueId x = b.data("x", DType::Float32, {3}, {-1, 0, 4});
        ValueId s = b.op("pd_op.full", {}, {b.t(DType::Float32, {1})}, {{"shape", Attribute::intArray({1})}, {"value", Attribute::float32(2)}})[0];
        b.fetch(b.op("pd_op.scale", {x, s}, {b.t(DType::Float32, {3})}, {{"bias", Attribute::float32(1)}, {"bias_after_scale", Attribute::boolean(true)}})[0]);
        b.fetch(b.op("pd_op.relu", {x}, {b.t(DType::Float32, {3})})[0]);
        b.fetch(b.op("pd_op.rsqrt", {x}, {b.t(DType::Float32, {3})})[0]);
        ValueId third = b.data("third", DType::Float32, {1}, {1.0 / 3.0});
        b.fetch(b.op("pd_op.cast", {third}, {b.t(DType::Float16, {1})}, {{"dtype", Attribute::dataType("float16")}})[0]);
        b.fetch(b.op("pd_op.cast", {third}, {b.t(DType::BFloat16, {1})}, {{"dtype", Attribute::dataType("bfloat16")}})[0]);
        RunResult r = b.run();
        expectNear(values(r, 0), {-1, 1, 9});
        expectNear(values(r, 1), {0, 0, 4});
        QVERIFY(std::isnan(values(r, 2)[0]));
        QCOMPARE(values(r, 2)[2], 0.5);
        QCOMPARE(values(r, 3)[0], 0.333251953125);   // nearest half to 1/3
        QCOMPARE(values(r, 4)[0], 0.333984375);      // nearest bfloat16 to 1/3
    }
    void matmulWithTransposeAndBatch() {
        P b;
        ValueId a = b.data("a", DType::Float64, {2, 3}, {1, 2, 3, 4, 5, 6});
        ValueId c = b.data("c", DType::Float64, {2, 3}, {1, 0, 1, 0, 1, 0});
        b.fetch(b.op("pd_op.matmul", {a, c}, {b.t(DType::Float64, {2, 2})}, {{"transpose_x", Attribute::boolean(false)}, {"transpose_y", Attribute::boolean(true)}})[0]);
        ValueId bat = b.data("bat", DType::Float64, {2, 1, 2}, {1, 1, 2, 2});
        ValueId m = b.data("m", DType::Float64, {2, 2}, {1, 2, 3, 4});
        b.fetch(b.op("pd_op.matmul", {bat, m}, {b.t(DType::Float64, {2, 1, 2})})[0]);
        RunResult r = b.run();
        expectNear(values(r, 0), {4, 2, 10, 5});
        expectNear(values(r, 1), {4, 6, 8, 12});
    }
    void matmulGrad() {
        P b;
        ValueId x = b.data("x", DType::Float64, {1, 2}, {1, 2});
        ValueId y = b.data("y", DType::Float64, {2, 1}, {3, 4});
        ValueId g = b.data("g", DType::Float64, {1, 1}, {2});
        auto r0 = b.op("pd_op.matmul_grad", {x, y, g}, {b.t(DType::Float64, {1, 2}), b.t(DType::Float64, {2, 1})});
        b.fetch(r0[0]); b.fetch(r0[1]);
        RunResult r = b.run();
        expectNear(values(r, 0), {6, 8});   // g * y^T
        expectNear(values(r, 1), {2, 4});   // x^T * g
    }
    void reductions() {
        P b;
        ValueId x = b.data("x", DType::Float32, {2, 3}, {1, 5, 3, 4, 2, 6});
        b.fetch(b.op("pd_op.sum", {x, b.ints({1})}, {b.t(DType::Float32, {2, 1})}, {{"keepdim", Attribute::boolean(true)}})[0]);
        b.fetch(b.op("pd_op.mean", {x}, {b.t(DType::Float32, {3})}, {{"axis", Attribute::intArray({0})}, {"keepdim", Attribute::boolean(false)}})[0]);
        b.fetch(b.op("pd_op.max", {x, b.ints({-1})}, {b.t(DType::Float32, {2})}, {{"keepdim", Attribute::boolean(false)}})[0]);
        b.fetch(b.op("pd_op.min", {x, b.ints({})}, {b.t(DType::Float32, {})}, {{"keepdim", Attribute::boolean(false)}})[0]);
        RunResult r = b.run();
        expectNear(values(r, 0), {9, 12});
        expectNear(values(r, 1), {2.5, 3.5, 4.5});
        expectNear(values(r, 2), {5, 6});
        expectNear(values(r, 3), {1});
    }
    void shapeOps() {
        P b;
        ValueId x = b.data("x", DType::Int64, {2, 3}, {0, 1, 2, 3, 4, 5});
        b.fetch(b.op("pd_op.transpose", {x}, {b.t(DType::Int64, {3, 2})}, {{"perm", Attribute::intArray({1, 0})}})[0]);
        b.fetch(b.op("pd_op.reshape", {x, b.ints({3, -1})}, {b.t(DType::Int64, {3, 2})})[0]);
        b.fetch(b.op("pd_op.slice", {x, b.ints({1}), b.ints({3})}, {b.t(DType::Int64, {2, 2})},
                     {{"axes", Attribute::intArray({1})}, {"decrease_axis", Attribute::intArray({})}})[0]);
        b.fetch(b.op("pd_op.expand", {b.data("e", DType::Int64, {1, 2}, {7, 8}), b.ints({3, 2})}, {b.t(DType::Int64, {3, 2})})[0]);
        b.fetch(b.op("pd_op.unsqueeze", {x, b.ints({0})}, {b.t(DType::Int64, {1, 2, 3})})[0]);
        ValueId vec = b.op("builtin.combine", {x, x}, {b.p.internType(Type::vector({b.t(DType::Int64, {2, 3}), b.t(DType::Int64, {2, 3})}))})[0];
        ValueId axis = b.op("pd_op.full", {}, {b.t(DType::Int32, {1})}, {{"shape", Attribute::intArray({1})}, {"value", Attribute::float32(1)}})[0];
        ValueId cat = b.op("pd_op.concat", {vec, axis}, {b.t(DType::Int64, {2, 6})})[0];
        b.fetch(cat);
        TypeId half = b.t(DType::Int64, {2, 3});
        ValueId parts = b.op("pd_op.split", {cat, b.ints({2, 4}), axis}, {b.p.internType(Type::vector({b.t(DType::Int64, {2, 2}), b.t(DType::Int64, {2, 4})}))})[0];
        auto two = b.op("builtin.split", {parts}, {b.t(DType::Int64, {2, 2}), b.t(DType::Int64, {2, 4})});
        b.fetch(two[1]);
        (void)half;
        ValueId idx = b.data("idx", DType::Int64, {2, 2}, {1, 2, 0, 0});
        b.fetch(b.op("pd_op.gather_nd", {x, idx}, {b.t(DType::Int64, {2})})[0]);
        ValueId cond = b.data("cond", DType::Bool, {2, 3}, {1, 0, 1, 0, 1, 0});
        b.fetch(b.op("pd_op.where", {cond, x, b.data("zero", DType::Int64, {}, {-1})}, {b.t(DType::Int64, {2, 3})})[0]);
        RunResult r = b.run();
        expectNear(values(r, 0), {0, 3, 1, 4, 2, 5});
        expectNear(values(r, 1), {0, 1, 2, 3, 4, 5});
        expectNear(values(r, 2), {1, 2, 4, 5});
        expectNear(values(r, 3), {7, 8, 7, 8, 7, 8});
        QCOMPARE(r.fetches[4].tensor.dims, (std::vector<int64_t>{1, 2, 3}));
        expectNear(values(r, 5), {0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5});
        expectNear(values(r, 6), {2, 0, 1, 2, 5, 3, 4, 5});
        expectNear(values(r, 7), {5, 0});
        expectNear(values(r, 8), {0, -1, 2, -1, 4, -1});
    }
    void constantsAndArange() {
        P b;
        TypeId f = b.t(DType::Float32, {4});
        ValueId s = b.op("pd_op.full", {}, {b.t(DType::Float32, {1})}, {{"shape", Attribute::intArray({1})}, {"value", Attribute::float32(1)}})[0];
        ValueId e = b.op("pd_op.full", {}, {b.t(DType::Float32, {1})}, {{"shape", Attribute::intArray({1})}, {"value", Attribute::float32(3)}})[0];
        ValueId st = b.op("pd_op.full", {}, {b.t(DType::Float32, {1})}, {{"shape", Attribute::intArray({1})}, {"value", Attribute::float32(0.5)}})[0];
        b.fetch(b.op("pd_op.arange", {s, e, st}, {f})[0]);
        b.fetch(b.op("pd_op.full_like", {b.data("x", DType::Float32, {2}, {5, 6})}, {b.t(DType::Float32, {2})}, {{"value", Attribute::float32(7)}})[0]);
        RunResult r = b.run();
        expectNear(values(r, 0), {1, 1.5, 2, 2.5});
        expectNear(values(r, 1), {7, 7});
    }
    void softmaxAndGrad() {
        P b;
        ValueId x = b.data("x", DType::Float64, {1, 3}, {0, std::log(2.0), std::log(3.0)});
        ValueId y = b.op("pd_op.softmax", {x}, {b.t(DType::Float64, {1, 3})}, {{"axis", Attribute::int32(-1)}})[0];
        b.fetch(y);
        ValueId g = b.data("g", DType::Float64, {1, 3}, {1, 0, 0});
        b.fetch(b.op("pd_op.softmax_grad", {y, g}, {b.t(DType::Float64, {1, 3})}, {{"axis", Attribute::int32(-1)}})[0]);
        RunResult r = b.run();
        expectNear(values(r, 0), {1.0 / 6, 2.0 / 6, 3.0 / 6}, 1e-12);
        // dy0/dx = y0*(delta - y)
        expectNear(values(r, 1), {1.0 / 6 * (1 - 1.0 / 6), -1.0 / 6 * 2.0 / 6, -1.0 / 6 * 3.0 / 6}, 1e-12);
    }
    void layerNorm() {
        P b;
        ValueId x = b.data("x", DType::Float64, {1, 4}, {1, 2, 3, 4});
        ValueId w = b.data("w", DType::Float64, {4}, {1, 1, 2, 2});
        ValueId bias = b.data("b", DType::Float64, {4}, {0, 0, 0, 1});
        auto r0 = b.op("pd_op.layer_norm", {x, w, bias}, {b.t(DType::Float64, {1, 4}), b.t(DType::Float32, {1}), b.t(DType::Float32, {1})},
                       {{"begin_norm_axis", Attribute::int32(1)}, {"epsilon", Attribute::float32(0.0)}});
        for (ValueId v : r0) b.fetch(v);
        RunResult r = b.run();
        double inv = 1 / std::sqrt(1.25);
        expectNear(values(r, 0), {-1.5 * inv, -0.5 * inv, 2 * 0.5 * inv, 2 * 1.5 * inv + 1}, 1e-12);
        expectNear(values(r, 1), {2.5});
        expectNear(values(r, 2), {1.25});
    }
    void conv2dAndPool() {
        P b;
        ValueId x = b.data("x", DType::Float32, {1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
        ValueId w = b.data("w", DType::Float32, {1, 1, 2, 2}, {1, 1, 1, 1});
        b.fetch(b.op("pd_op.conv2d", {x, w}, {b.t(DType::Float32, {1, 1, 2, 2})},
                     {{"strides", Attribute::intArray({1, 1})}, {"paddings", Attribute::intArray({0, 0})}, {"dilations", Attribute::intArray({1, 1})}})[0]);
        b.fetch(b.op("pd_op.conv2d", {x, w}, {b.t(DType::Float32, {1, 1, 2, 2})},
                     {{"strides", Attribute::intArray({2, 2})}, {"paddings", Attribute::intArray({1, 1})}})[0]);
        ValueId ks = b.ints({2, 2});
        ValueId pooled = b.op("pd_op.pool2d", {x, ks}, {b.t(DType::Float32, {1, 1, 1, 1})},
                              {{"strides", Attribute::intArray({2, 2})}, {"paddings", Attribute::intArray({0, 0})}, {"pooling_type", Attribute::string("max")}})[0];
        b.fetch(pooled);
        ValueId g = b.data("g", DType::Float32, {1, 1, 1, 1}, {3});
        b.fetch(b.op("pd_op.pool2d_grad", {x, pooled, g, ks}, {b.t(DType::Float32, {1, 1, 3, 3})},
                     {{"strides", Attribute::intArray({2, 2})}, {"paddings", Attribute::intArray({0, 0})}, {"pooling_type", Attribute::string("max")}})[0]);
        b.fetch(b.op("pd_op.pool2d", {x, ks}, {b.t(DType::Float32, {1, 1, 2, 2})},
                     {{"strides", Attribute::intArray({1, 1})}, {"paddings", Attribute::intArray({0, 0})}, {"pooling_type", Attribute::string("avg")}})[0]);
        RunResult r = b.run();
        expectNear(values(r, 0), {12, 16, 24, 28});
        expectNear(values(r, 1), {1, 5, 11, 28});   // padded by one, stride 2
        expectNear(values(r, 2), {5});
        expectNear(values(r, 3), {0, 0, 0, 0, 3, 0, 0, 0, 0});
        expectNear(values(r, 4), {3, 4, 6, 7});
    }
    void batchNormTraining() {
        P b;
        ValueId x = b.data("x", DType::Float64, {2, 1, 1, 1}, {1, 3});
        ValueId m = b.data("m", DType::Float64, {1}, {0});
        ValueId v = b.data("v", DType::Float64, {1}, {1});
        ValueId w = b.data("w", DType::Float64, {1}, {2});
        ValueId bias = b.data("bias", DType::Float64, {1}, {1});
        TypeId c = b.t(DType::Float64, {1});
        auto r0 = b.op("pd_op.batch_norm_", {x, m, v, w, bias}, {b.t(DType::Float64, {2, 1, 1, 1}), c, c, c, c},
                       {{"epsilon", Attribute::float32(0)}, {"momentum", Attribute::float32(0.5)}, {"is_test", Attribute::boolean(false)}});
        for (ValueId r : r0) b.fetch(r);
        RunResult r = b.run();
        expectNear(values(r, 0), {-1, 3});       // (x-2)/1 * 2 + 1
        expectNear(values(r, 1), {1});           // 0.5*0 + 0.5*2
        expectNear(values(r, 2), {1});           // 0.5*1 + 0.5*1
        expectNear(values(r, 3), {2});
        expectNear(values(r, 4), {1});           // saved inverse std
    }
    void dropoutIsSeededAndConsistent() {
        P b;
        std::vector<double> ones(1000, 1.0);
        ValueId x = b.data("x", DType::Float32, {1000}, ones);
        auto d = b.op("pd_op.dropout", {x}, {b.t(DType::Float32, {1000}), b.t(DType::UInt8, {1000})},
                      {{"p", Attribute::float32(0.25)}, {"is_test", Attribute::boolean(false)}, {"mode", Attribute::string("upscale_in_train")}});
        b.fetch(d[0]); b.fetch(d[1]);
        ValueId g = b.op("pd_op.dropout_grad", {d[1], x}, {b.t(DType::Float32, {1000})},
                         {{"p", Attribute::float32(0.25)}, {"mode", Attribute::string("upscale_in_train")}})[0];
        b.fetch(g);
        RunResult r1 = b.run(), r2 = b.run();
        QVERIFY(r1.fetches[0].tensor.bitwiseEqual(r2.fetches[0].tensor));
        std::vector<double> out = values(r1, 0), mask = values(r1, 1), grad = values(r1, 2);
        int kept = 0;
        for (size_t i = 0; i < out.size(); ++i) {
            QCOMPARE(out[i], mask[i] ? double(float(1.0 / 0.75)) : 0.0);
            QCOMPARE(grad[i], out[i]);
            kept += mask[i] != 0;
        }
        QVERIFY(kept > 680 && kept < 820);
        b.in.seed = 7;
        QVERIFY(!b.run().fetches[0].tensor.bitwiseEqual(r1.fetches[0].tensor));
    }
    void seedListAndCorpusOps() {
        P b;
        ValueId p = b.data("p", DType::Float64, {2}, {0.5, 0.75});
        b.fetch(b.op("pd_op.logit", {p}, {b.t(DType::Float64, {2})})[0]);
        ValueId arr = b.data("arr", DType::Float32, {2, 3}, {0, 0, 0, 0, 0, 0});
        ValueId idx = b.data("idx", DType::Int64, {2, 1}, {2, 0});
        ValueId val = b.data("val", DType::Float32, {1}, {9});
        b.fetch(b.op("pd_op.put_along_axis", {arr, idx, val}, {b.t(DType::Float32, {2, 3})}, {{"axis", Attribute::int32(1)}})[0]);
        ValueId w = b.data("w", DType::Float32, {3, 2}, {1, 2, 3, 4, 5, 6});
        ValueId ids = b.data("ids", DType::Int64, {2}, {2, 0});
        b.fetch(b.op("pd_op.embedding", {ids, w}, {b.t(DType::Float32, {2, 2})}, {{"padding_idx", Attribute::int64(-1)}})[0]);
        ValueId x = b.data("x", DType::Float64, {1, 2}, {1, -2});
        ValueId y = b.data("y", DType::Float64, {1, 2}, {3, 0.5});
        b.fetch(b.op("pd_op.swiglu", {x, y}, {b.t(DType::Float64, {1, 2})})[0]);
        ValueId flags = b.data("flags", DType::Bool, {2, 2}, {0, 1, 0, 0});
        b.fetch(b.op("pd_op.any", {flags}, {b.t(DType::Bool, {2})}, {{"axis", Attribute::intArray({1})}, {"keepdim", Attribute::boolean(false)}})[0]);
        b.fetch(b.op("pd_op.index_sample", {w, b.data("col", DType::Int64, {3, 1}, {1, 0, 1})}, {b.t(DType::Float32, {3, 1})})[0]);
        RunResult r = b.run();
        expectNear(values(r, 0), {0, std::log(3.0)}, 1e-12);
        expectNear(values(r, 1), {0, 0, 9, 9, 0, 0});
        expectNear(values(r, 2), {5, 6, 1, 2});
        expectNear(values(r, 3), {1 / (1 + std::exp(-1.0)) * 3, -2 / (1 + std::exp(2.0)) * 0.5}, 1e-12);
        expectNear(values(r, 4), {1, 0});
        expectNear(values(r, 5), {2, 3, 6});
        CpuExecutor ex;
        for (const char* op : {"pd_op.uniform", "pd_op.randint", "pd_op.dropout", "pd_op.gather_nd", "pd_op.put_along_axis",
                               "pd_op.batch_norm_grad", "pd_op.pool2d_grad", "builtin.combine", "builtin.slice"}) {
            auto all = CpuExecutor::supportedOps();
            QVERIFY2(std::find(all.begin(), all.end(), op) != all.end(), op);
        }
    }
    void unsupportedOpsAreNamedBeforeRunning() {
        P b;
        ValueId x = b.data("x", DType::Float32, {2}, {1, 2});
        b.fetch(b.op("pd_op.frobnicate", {x}, {b.t(DType::Float32, {2})})[0]);
        CpuExecutor ex;
        QCOMPARE(ex.unsupportedOps(b.p), std::vector<std::string>{"pd_op.frobnicate"});
        try {
            ex.run(b.p, b.in, {});
            QFAIL("expected an error");
        } catch (const Error& e) {
            QVERIFY(std::string(e.what()).find("pd_op.frobnicate") != std::string::npos);
        }
    }
    void unsupportedDTypesAreNamedBeforeRunning() {
        P b;
        b.op("pd_op.full", {}, {b.t(DType::Float8E4M3FN, {2})}, {{"shape", Attribute::intArray({2})}, {"value", Attribute::float32(1)}});
        CpuExecutor ex;
        try {
            ex.run(b.p, b.in, {});
            QFAIL("expected an error");
        } catch (const Error& e) {
            QVERIFY(std::string(e.what()).find("f8") != std::string::npos);
        }
    }
    void declaredTypesAreChecked() {
        P b;
        ValueId x = b.data("x", DType::Float32, {2, 3}, {1, 2, 3, 4, 5, 6});
        b.fetch(b.op("pd_op.transpose", {x}, {b.t(DType::Float32, {2, 3})}, {{"perm", Attribute::intArray({1, 0})}})[0]);
        CpuExecutor ex;
        QVERIFY_THROWS_EXCEPTION(Error, ex.run(b.p, b.in, {}));
    }
    void memoryIsFreedAfterLastUse() {
        // x (resident, 16 B) -> a = exp(x) -> b = exp(a) -> c = exp(b) -> fetch c.
        P b;
        ValueId x = b.data("x", DType::Float32, {4}, {0, 0, 0, 0});
        ValueId a = b.op("pd_op.exp", {x}, {b.t(DType::Float32, {4})})[0];
        ValueId c1 = b.op("pd_op.exp", {a}, {b.t(DType::Float32, {4})})[0];
        ValueId c2 = b.op("pd_op.exp", {c1}, {b.t(DType::Float32, {4})})[0];
        b.fetch(c2);
        RunResult r = b.run();
        QCOMPARE(r.ops.size(), size_t(5));
        // while exp(a) runs: x, a, c1 are alive = 48; afterwards a is freed.
        QCOMPARE(r.ops[2].peakBytes, int64_t(48));
        QCOMPARE(r.ops[2].liveBytes, int64_t(32));
        QCOMPARE(r.peakBytes, int64_t(48));
        QCOMPARE(r.ops.back().liveBytes, int64_t(16));  // only the resident input is left
        RunOptions noResident;
        noResident.inputsResident = false;
        CpuExecutor ex;
        RunResult r2 = ex.run(b.p, b.in, noResident);
        QCOMPARE(r2.ops[1].liveBytes, int64_t(16));     // x freed after its last use
    }
    void cancelStopsARun() {
        P b;
        ValueId x = b.data("x", DType::Float32, {2}, {1, 2});
        b.fetch(b.op("pd_op.exp", {x}, {b.t(DType::Float32, {2})})[0]);
        std::atomic<bool> stop{true};
        RunOptions o;
        o.cancel = &stop;
        CpuExecutor ex;
        RunResult r = ex.run(b.p, b.in, o);
        QVERIFY(r.cancelled);
        QVERIFY(r.fetches.empty());
    }
    void captureValuesByName() {
        P b;
        ValueId x = b.data("x", DType::Float32, {2}, {0, 1});
        ValueId e = b.op("pd_op.exp", {x}, {b.t(DType::Float32, {2})})[0];
        b.op("pd_op.exp", {e}, {b.t(DType::Float32, {2})});
        RunOptions o;
        o.captureValues = {b.p.value(e).name};
        CpuExecutor ex;
        RunResult r = ex.run(b.p, b.in, o);
        QCOMPARE(r.values.size(), size_t(1));
        expectNear(r.values.at(b.p.value(e).name).toDoubles(), {1, std::exp(1.0)}, 1e-6);
    }
    void oversizedWorkIsRefusedBeforeRunning() {
        P b;
        ValueId x = b.data("x", DType::Float32, {2, 3}, {1, 2, 3, 4, 5, 6});
        ValueId y = b.data("y", DType::Float32, {3, 2}, {1, 2, 3, 4, 5, 6});
        b.fetch(b.op("pd_op.matmul", {x, y}, {b.t(DType::Float32, {2, 2})})[0]);
        CpuExecutor::Cost cost = CpuExecutor::estimateCost(b.p);
        QCOMPARE(cost.multiplyAdds, int64_t(12));
        QCOMPARE(cost.largestElements, int64_t(6));
        RunOptions o;
        o.maxMultiplyAdds = 11;
        CpuExecutor ex;
        QVERIFY_THROWS_EXCEPTION(Error, ex.run(b.p, b.in, o));
        o.maxMultiplyAdds = 0;
        o.maxElementsPerValue = 5;
        QVERIFY_THROWS_EXCEPTION(Error, ex.run(b.p, b.in, o));
        o.maxElementsPerValue = 6;
        QCOMPARE(ex.run(b.p, b.in, o).fetches.size(), size_t(1));
    }
    void shapeGradKernels() {
        P b;
        ValueId x = b.data("x", DType::Float32, {2, 1, 3}, {1, 2, 3, 4, 5, 6});
        auto sq = b.op("pd_op.squeeze", {x, b.ints({1})}, {b.t(DType::Float32, {2, 3}), b.t(DType::Float32, {0, 2, 1, 3})});
        b.fetch(b.op("pd_op.squeeze_grad", {sq[1], sq[0]}, {b.t(DType::Float32, {2, 1, 3})})[0]);
        ValueId s = b.op("pd_op.full", {}, {b.t(DType::Float32, {1})}, {{"shape", Attribute::intArray({1})}, {"value", Attribute::float32(3)}})[0];
        b.fetch(b.op("pd_op.scale_grad", {sq[0], s}, {b.t(DType::Float32, {2, 3})})[0]);
        b.fetch(b.op("pd_op.cast_grad", {x, b.data("g16", DType::Float16, {2}, {0.5, 1.5})}, {b.t(DType::Float32, {2})})[0]);
        // concat_grad splits the gradient back; split_grad concatenates it.
        TypeId a = b.t(DType::Float32, {2, 1}), c = b.t(DType::Float32, {2, 2});
        ValueId pa = b.data("pa", DType::Float32, {2, 1}, {0, 0}), pc = b.data("pc", DType::Float32, {2, 2}, {0, 0, 0, 0});
        ValueId vec = b.op("builtin.combine", {pa, pc}, {b.p.internType(Type::vector({a, c}))})[0];
        ValueId axis = b.op("pd_op.full", {}, {b.t(DType::Int32, {1})}, {{"shape", Attribute::intArray({1})}, {"value", Attribute::float32(1)}})[0];
        ValueId g = b.data("g", DType::Float32, {2, 3}, {1, 2, 3, 4, 5, 6});
        ValueId grads = b.op("pd_op.concat_grad", {vec, g, axis}, {b.p.internType(Type::vector({a, c}))})[0];
        auto parts = b.op("builtin.split", {grads}, {a, c});
        b.fetch(parts[0]); b.fetch(parts[1]);
        ValueId back = b.op("builtin.combine", {parts[0], parts[1]}, {b.p.internType(Type::vector({a, c}))})[0];
        b.fetch(b.op("pd_op.split_grad", {back, axis}, {b.t(DType::Float32, {2, 3})})[0]);
        RunResult r = b.run();
        expectNear(values(r, 0), {1, 2, 3, 4, 5, 6});
        QCOMPARE(r.fetches[0].tensor.dims, (std::vector<int64_t>{2, 1, 3}));
        expectNear(values(r, 1), {3, 6, 9, 12, 15, 18});
        expectNear(values(r, 2), {0.5, 1.5});
        QCOMPARE(r.fetches[2].tensor.dtype, DType::Float32);
        expectNear(values(r, 3), {1, 4});
        expectNear(values(r, 4), {2, 3, 5, 6});
        expectNear(values(r, 5), {1, 2, 3, 4, 5, 6});
    }
    void verifyReportsFirstDifference() {
        RunResult a, c;
        a.fetches.push_back({"fetch0", "%3", Tensor::fromDoubles(DType::Float32, {2}, {1, 2})});
        c.fetches.push_back({"fetch0", "%3", Tensor::fromDoubles(DType::Float32, {2}, {1, 2.5})});
        VerifyReport r = compareRuns(a, c, {});
        QVERIFY(!r.equivalent);
        QCOMPARE(r.firstDifference->valueName, std::string("%3"));
        QCOMPARE(r.firstDifference->index, int64_t(1));
        VerifyOptions tol;
        tol.atol = 0.6;
        QVERIFY(compareRuns(a, c, tol).equivalent);
        QVERIFY(compareRuns(a, a, {}).equivalent);
    }
};

QTEST_GUILESS_MAIN(TestCpuExecutor)
#include "test_cpu_executor.moc"
