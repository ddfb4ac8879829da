// Every CUDA kernel against the CPU executor on seeded random inputs: bitwise for elementwise,
// shape, index and random ops (both compute in double and round once to the value's dtype),
// |gpu - cpu| <= 1e-5 + 1e-5|cpu| for transcendental formulas, reductions, softmax and norms
// (device math and summation order differ), and <= 1e-4 + 1e-4|cpu| for cuBLAS matmul (f32
// FMA, not the CPU's f64). Fused mode must equal unfused bit for bit. Exits 77 without a device.
#include <QtTest>

#include <cstdio>
#include <functional>

#include "exec/cpu/CpuExecutor.h"
#include "exec/Verify.h"
#include "cuda/CudaExecutor.h"
#include "model/Diagnostic.h"

using namespace rx;
using namespace rx::exec;

namespace {

enum class Cmp { Bitwise, Close, Matmul };

struct P {
    Program p;
    ValueId data(const std::string& name, DType t, std::vector<int64_t> dims) {
        OpId op = p.appendOp(0, "pd_op.data", std::vector<ValueId>{}, std::vector<TypeId>{p.tensorType(t, dims)},
                             {{"name", Attribute::string(name)}});
        return p.op(op).results[0];
    }
    ValueId f(const std::string& name, std::vector<int64_t> dims) { return data(name, DType::Float32, std::move(dims)); }
    std::vector<ValueId> op(const std::string& name, std::vector<ValueId> operands, std::vector<TypeId> results,
                            std::vector<NamedAttribute> attrs = {}) {
        OpId id = p.appendOp(0, name, operands, results, std::move(attrs));
        const auto& r = p.op(id).results;
        return {r.begin(), r.end()};
    }
    ValueId op1(const std::string& name, std::vector<ValueId> operands, DType t, std::vector<int64_t> dims,
                std::vector<NamedAttribute> attrs = {}) {
        return op(name, std::move(operands), {p.tensorType(t, dims)}, std::move(attrs))[0];
    }
    TypeId t(DType d, std::vector<int64_t> dims) { return p.tensorType(d, dims); }
    ValueId ints(std::vector<int64_t> v) {
        return op1("pd_op.full_int_array", {}, DType::Int64, {static_cast<int64_t>(v.size())}, {{"value", Attribute::intArray(v)}});
    }
    ValueId scalar(double v) {
        return op1("pd_op.full", {}, DType::Float32, {1}, {{"shape", Attribute::intArray({1})}, {"value", Attribute::float32(v)}});
    }
    void fetch(ValueId v) {
        p.appendOp(0, "pd_op.fetch", std::vector<ValueId>{v}, std::vector<TypeId>{p.value(v).type},
                   {{"name", Attribute::string(p.value(v).name)}});
    }
};

std::unique_ptr<cuda::CudaExecutor> gpu, gpuFused;

void expectMatch(const char* what, P& b, Cmp cmp) {
    CpuExecutor cpu;
    RunInputs in;
    in.seed = 11;
    RunResult c = cpu.run(b.p, in, {});
    RunResult g = gpu->run(b.p, in, {});
    RunResult gf = gpuFused->run(b.p, in, {});
    VerifyOptions vo;
    if (cmp == Cmp::Close) { vo.rtol = 1e-5; vo.atol = 1e-5; }
    if (cmp == Cmp::Matmul) { vo.rtol = 1e-4; vo.atol = 1e-4; }
    VerifyReport r = compareRuns(c, g, vo);
    if (!r.equivalent || r.compared == 0) QFAIL(qPrintable(QString("%1 (cpu vs cuda): %2").arg(what, QString::fromStdString(r.summary()))));
    VerifyReport f = compareRuns(g, gf, VerifyOptions{});
    if (!f.equivalent) QFAIL(qPrintable(QString("%1 (cuda vs fused): %2").arg(what, QString::fromStdString(f.summary()))));
    // Measured: the bytes the device's caching allocator held (a kernel's workspace included).
    QCOMPARE(g.peakBytes, gpu->lastReport().peakRequestedBytes);
    QCOMPARE(gf.peakBytes, gpuFused->lastReport().peakRequestedBytes);
}

}  // namespace

class TestCudaKernels : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        gpu = cuda::makeCudaExecutor();
        cuda::CudaOptions fo;
        fo.fused = true;
        gpuFused = cuda::makeCudaExecutor(fo);
    }
    void cleanupTestCase() { gpu.reset(); gpuFused.reset(); }

    void binaryBroadcastIsBitwise() {
        for (const char* name : {"pd_op.add", "pd_op.subtract", "pd_op.multiply", "pd_op.divide", "pd_op.maximum",
                                 "pd_op.minimum", "pd_op.remainder", "pd_op.floor_divide"}) {
            P b;
            ValueId x = b.f("x", {3, 4, 5}), y = b.f("y", {4, 1});
            b.fetch(b.op1(name, {x, y}, DType::Float32, {3, 4, 5}));
            expectMatch(name, b, Cmp::Bitwise);
        }
        for (const char* name : {"pd_op.equal", "pd_op.less_than", "pd_op.greater_equal", "pd_op.logical_and"}) {
            P b;
            ValueId x = b.f("x", {6, 7}), y = b.f("y", {7});
            b.fetch(b.op1(name, {x, y}, DType::Bool, {6, 7}));
            expectMatch(name, b, Cmp::Bitwise);
        }
        P b;  // integer division semantics and f16/bf16 stores
        ValueId xi = b.data("xi", DType::Int32, {64}), yi = b.data("yi", DType::Int32, {64});
        b.fetch(b.op1("pd_op.divide", {xi, yi}, DType::Int32, {64}));
        ValueId h = b.data("h", DType::Float16, {33}), bf = b.data("bf", DType::BFloat16, {33});
        b.fetch(b.op1("pd_op.multiply", {h, h}, DType::Float16, {33}));
        b.fetch(b.op1("pd_op.add", {bf, bf}, DType::BFloat16, {33}));
        expectMatch("int/f16/bf16 binary", b, Cmp::Bitwise);
    }

    void unaryExactFormulasAreBitwise() {
        for (const char* name : {"pd_op.relu", "pd_op.abs", "pd_op.square", "pd_op.reciprocal", "pd_op.floor", "pd_op.ceil",
                                 "pd_op.round", "pd_op.trunc", "pd_op.sign", "pd_op.relu6"}) {
            P b;
            // |x| for all: NaNs would compare by their bits, and the CPU's and the device's differ
            ValueId x = b.op1("pd_op.abs", {b.f("x", {1000})}, DType::Float32, {1000});
            b.fetch(b.op1(name, {x}, DType::Float32, {1000}));
            b.fetch(b.op1(name, {b.op1("pd_op.scale", {x, b.scalar(-1.0)}, DType::Float32, {1000})}, DType::Float32, {1000}));
            expectMatch(name, b, Cmp::Bitwise);
        }
        for (const char* name : {"pd_op.sqrt", "pd_op.rsqrt"}) {  // on |x| only (see above)
            P b;
            b.fetch(b.op1(name, {b.op1("pd_op.abs", {b.f("x", {1000})}, DType::Float32, {1000})}, DType::Float32, {1000}));
            expectMatch(name, b, Cmp::Bitwise);
        }
        P b;
        ValueId x = b.f("x", {257});
        b.fetch(b.op1("pd_op.scale", {x, b.scalar(3.0)}, DType::Float32, {257}, {{"bias", Attribute::float32(0.5)}}));
        b.fetch(b.op1("pd_op.pow", {x}, DType::Float32, {257}, {{"y", Attribute::float32(2.0)}}));
        b.fetch(b.op1("pd_op.clip", {x}, DType::Float32, {257}, {{"min", Attribute::float32(-0.5)}, {"max", Attribute::float32(0.25)}}));
        b.fetch(b.op1("pd_op.cast", {x}, DType::Float16, {257}));
        b.fetch(b.op1("pd_op.cast", {x}, DType::BFloat16, {257}));
        b.fetch(b.op1("pd_op.cast", {x}, DType::Bool, {257}));
        b.fetch(b.op1("pd_op.cast", {b.op1("pd_op.scale", {x, b.scalar(100.0)}, DType::Float32, {257})}, DType::Int32, {257}));
        expectMatch("scale/pow/clip/cast", b, Cmp::Bitwise);
    }

    void transcendentalFormulasAreClose() {
        for (const char* name : {"pd_op.exp", "pd_op.log", "pd_op.tanh", "pd_op.sigmoid", "pd_op.silu", "pd_op.erf", "pd_op.sin",
                                 "pd_op.cos", "pd_op.gelu", "pd_op.logsigmoid", "pd_op.expm1", "pd_op.atan"}) {
            P b;
            b.fetch(b.op1(name, {b.f("x", {4096})}, DType::Float32, {4096}));
            expectMatch(name, b, Cmp::Close);
        }
        P b;
        ValueId x = b.f("x", {100}), g = b.f("g", {100});
        for (const char* name : {"pd_op.tanh_grad", "pd_op.sigmoid_grad", "pd_op.silu_grad", "pd_op.exp_grad",
                                 "pd_op.rsqrt_grad", "pd_op.sin_grad", "pd_op.erf_grad"})
            b.fetch(b.op1(name, {x, g}, DType::Float32, {100}));
        b.fetch(b.op1("pd_op.gelu_grad", {x, g}, DType::Float32, {100}, {{"approximate", Attribute::boolean(true)}}));
        b.fetch(b.op1("pd_op.pow", {x}, DType::Float32, {100}, {{"y", Attribute::float32(3.0)}}));
        expectMatch("unary grads", b, Cmp::Close);
    }

    void shapeOpsAreBitwise() {
        P b;
        ValueId x = b.f("x", {2, 3, 4});
        b.fetch(b.op1("pd_op.transpose", {x}, DType::Float32, {4, 2, 3}, {{"perm", Attribute::intArray({2, 0, 1})}}));
        b.fetch(b.op1("pd_op.expand", {b.f("e", {3, 1}), b.ints({2, 3, 5})}, DType::Float32, {2, 3, 5}));
        b.fetch(b.op1("pd_op.slice", {x, b.ints({1}), b.ints({3})}, DType::Float32, {2, 2, 4}, {{"axes", Attribute::intArray({1})}}));
        b.fetch(b.op(("pd_op.reshape"), {x, b.ints({6, -1})}, {b.t(DType::Float32, {6, 4}), b.t(DType::Float32, {0, 2, 3, 4})})[0]);
        ValueId y = b.f("y", {2, 5, 4});
        TypeId tx = b.t(DType::Float32, {2, 3, 4}), ty = b.t(DType::Float32, {2, 5, 4});
        ValueId l = b.op("builtin.combine", {x, y}, {b.p.internType(Type::vector({tx, ty}))})[0];
        ValueId cat = b.op1("pd_op.concat", {l, b.ints({1})}, DType::Float32, {2, 8, 4});
        b.fetch(cat);
        TypeId part = b.t(DType::Float32, {2, 4, 4});
        ValueId parts = b.op("pd_op.split_with_num", {cat}, {b.p.internType(Type::vector({part, part}))}, {{"num", Attribute::int32(2)}, {"axis", Attribute::int32(1)}})[0];
        std::vector<ValueId> ps = b.op("builtin.split", {parts}, {part, part});
        b.fetch(ps[1]);
        b.fetch(b.op1("pd_op.slice_grad", {x, b.f("sg", {2, 2, 4}), b.ints({1}), b.ints({3})}, DType::Float32, {2, 3, 4},
                      {{"axes", Attribute::intArray({1})}}));
        TypeId half = b.t(DType::Float32, {2, 4, 4});
        ValueId gl = b.op("builtin.combine", {b.f("s1", {2, 4, 4}), b.f("s2", {2, 4, 4})}, {b.p.internType(Type::vector({half, half}))})[0];
        b.fetch(b.op1("pd_op.split_grad", {gl, b.ints({1})}, DType::Float32, {2, 8, 4}));
        b.fetch(b.op1("pd_op.tril", {x}, DType::Float32, {2, 3, 4}, {{"diagonal", Attribute::int32(1)}}));
        b.fetch(b.op1("pd_op.transpose_grad", {b.f("tg", {4, 2, 3})}, DType::Float32, {2, 3, 4}, {{"perm", Attribute::intArray({2, 0, 1})}}));
        b.fetch(b.op1("pd_op.full", {}, DType::Float32, {300}, {{"shape", Attribute::intArray({300})}, {"value", Attribute::float32(0.1)}}));
        b.fetch(b.op1("pd_op.full_like", {x}, DType::Float16, {2, 3, 4}, {{"value", Attribute::float32(0.3)}}));
        b.fetch(b.op1("pd_op.arange", {b.scalar(0.5), b.scalar(7.0), b.scalar(0.25)}, DType::Float32, {26}));
        ValueId cond = b.op1("pd_op.greater_than", {x, b.f("z", {4})}, DType::Bool, {2, 3, 4});
        b.fetch(b.op1("pd_op.where", {cond, x, b.f("w", {3, 1})}, DType::Float32, {2, 3, 4}));
        expectMatch("shape ops", b, Cmp::Bitwise);
    }

    void indexAndRandomOpsAreBitwise() {
        P b;
        ValueId w = b.f("w", {10, 6});
        ValueId ids = b.data("ids", DType::Int64, {3, 5});  // seeded ints in [0, 4)
        b.fetch(b.op1("pd_op.embedding", {ids, w}, DType::Float32, {3, 5, 6}, {{"padding_idx", Attribute::int64(2)}}));
        b.fetch(b.op1("pd_op.gather", {w, b.data("gi", DType::Int32, {7})}, DType::Float32, {7, 6}, {{"axis", Attribute::int32(0)}}));
        ValueId x = b.f("x", {8, 129});
        std::vector<ValueId> d = b.op("pd_op.dropout", {x, b.scalar(0.3)},
                                      {b.t(DType::Float32, {8, 129}), b.t(DType::UInt8, {8, 129})},
                                      {{"is_test", Attribute::boolean(false)}, {"mode", Attribute::string("upscale_in_train")}});
        b.fetch(d[0]);
        b.fetch(d[1]);
        b.fetch(b.op1("pd_op.dropout_grad", {d[1], b.f("g", {8, 129}), b.scalar(0.3)}, DType::Float32, {8, 129},
                      {{"is_test", Attribute::boolean(false)}, {"mode", Attribute::string("upscale_in_train")}}));
        b.fetch(b.op1("pd_op.uniform", {b.ints({40}), b.scalar(-2), b.scalar(3)}, DType::Float32, {40}));
        b.fetch(b.op1("pd_op.randint", {b.ints({40})}, DType::Int64, {40}, {{"low", Attribute::int64(0)}, {"high", Attribute::int64(9)}}));
        expectMatch("embedding/gather/dropout/uniform/randint", b, Cmp::Bitwise);
    }

    void reductionsAreClose() {
        for (const char* name : {"pd_op.sum", "pd_op.mean", "pd_op.max", "pd_op.min", "pd_op.prod"}) {
            P b;
            ValueId x = b.f("x", {3, 50, 7});
            b.fetch(b.op1(name, {x, b.ints({1})}, DType::Float32, {3, 7}));
            b.fetch(b.op1(name, {x, b.ints({0, 2})}, DType::Float32, {1, 50, 1}, {{"keepdim", Attribute::boolean(true)}}));
            b.fetch(b.op1(name, {x, b.ints({})}, DType::Float32, {}));
            expectMatch(name, b, Cmp::Close);
        }
        P b;
        ValueId x = b.f("x", {4, 6});
        b.fetch(b.op1("pd_op.mean_grad", {x, b.f("g", {4}), b.ints({1})}, DType::Float32, {4, 6}));
        b.fetch(b.op1("pd_op.sum_grad", {x, b.f("g2", {6}), b.ints({0})}, DType::Float32, {4, 6}));
        expectMatch("sum/mean grads", b, Cmp::Bitwise);
    }

    void softmaxAndLayerNormAreClose() {
        P b;
        ValueId x = b.f("x", {4, 3, 37});
        ValueId s = b.op1("pd_op.softmax", {x}, DType::Float32, {4, 3, 37}, {{"axis", Attribute::int32(-1)}});
        b.fetch(s);
        b.fetch(b.op1("pd_op.softmax", {x}, DType::Float32, {4, 3, 37}, {{"axis", Attribute::int32(1)}}));
        b.fetch(b.op1("pd_op.log_softmax", {x}, DType::Float32, {4, 3, 37}, {{"axis", Attribute::int32(-1)}}));
        b.fetch(b.op1("pd_op.softmax_grad", {s, b.f("g", {4, 3, 37})}, DType::Float32, {4, 3, 37}, {{"axis", Attribute::int32(-1)}}));
        ValueId h = b.f("h", {6, 64}), sc = b.f("scale", {64}), bi = b.f("bias", {64});
        std::vector<ValueId> ln = b.op("pd_op.layer_norm", {h, sc, bi},
                                       {b.t(DType::Float32, {6, 64}), b.t(DType::Float32, {6}), b.t(DType::Float32, {6})},
                                       {{"epsilon", Attribute::float32(1e-5)}, {"begin_norm_axis", Attribute::int32(1)}});
        for (ValueId v : ln) b.fetch(v);
        std::vector<ValueId> lg = b.op("pd_op.layer_norm_grad", {h, sc, bi, ln[1], ln[2], b.f("lg", {6, 64})},
                                       {b.t(DType::Float32, {6, 64}), b.t(DType::Float32, {64}), b.t(DType::Float32, {64})},
                                       {{"epsilon", Attribute::float32(1e-5)}, {"begin_norm_axis", Attribute::int32(1)}});
        for (ValueId v : lg) b.fetch(v);
        expectMatch("softmax/layer_norm", b, Cmp::Close);
    }

    void matmulAndGradsAreClose() {
        P b;
        ValueId a = b.f("a", {2, 3, 8, 16}), w = b.f("w", {16, 12}), wt = b.f("wt", {12, 16});
        b.fetch(b.op1("pd_op.matmul", {a, w}, DType::Float32, {2, 3, 8, 12}));
        b.fetch(b.op1("pd_op.matmul", {a, wt}, DType::Float32, {2, 3, 8, 12}, {{"transpose_y", Attribute::boolean(true)}}));
        ValueId q = b.f("q", {2, 1, 8, 16}), k = b.f("k", {1, 3, 8, 16});
        b.fetch(b.op1("pd_op.matmul", {q, k}, DType::Float32, {2, 3, 8, 8}, {{"transpose_y", Attribute::boolean(true)}}));
        b.fetch(b.op1("pd_op.matmul", {b.f("v", {16}), w}, DType::Float32, {12}));
        ValueId g = b.f("g", {2, 3, 8, 12});
        std::vector<ValueId> mg = b.op("pd_op.matmul_grad", {a, w, g}, {b.t(DType::Float32, {2, 3, 8, 16}), b.t(DType::Float32, {16, 12})});
        b.fetch(mg[0]);
        b.fetch(mg[1]);
        ValueId x = b.f("x", {5, 7}), y = b.f("y", {7}), gg = b.f("gg", {5, 7});
        for (const char* name : {"pd_op.add_grad", "pd_op.subtract_grad", "pd_op.multiply_grad", "pd_op.divide_grad"}) {
            std::vector<ValueId> r = b.op(name, {x, y, gg}, {b.t(DType::Float32, {5, 7}), b.t(DType::Float32, {7})});
            b.fetch(r[0]);
            b.fetch(r[1]);
        }
        b.fetch(b.op1("pd_op.expand_grad", {y, gg, b.ints({5, 7})}, DType::Float32, {7}));
        expectMatch("matmul and broadcast grads", b, Cmp::Matmul);
        P h;  // half precision through cuBLAS
        ValueId ha = h.data("ha", DType::BFloat16, {8, 32}), hb = h.data("hb", DType::BFloat16, {32, 8});
        h.fetch(h.op1("pd_op.matmul", {ha, hb}, DType::BFloat16, {8, 8}));
        CpuExecutor cpu;
        RunResult c = cpu.run(h.p, {}, {}), d = gpu->run(h.p, {}, {});
        VerifyOptions vo;
        vo.rtol = 1e-2;  // one bf16 rounding of the f32 accumulator
        vo.atol = 1e-2;
        QVERIFY2(compareRuns(c, d, vo).equivalent, compareRuns(c, d, vo).summary().c_str());
    }

    void convPoolBatchNormMatchTheCpu() {
        P b;
        ValueId x = b.f("x", {2, 4, 9, 9}), w = b.f("w", {6, 2, 3, 3});
        std::vector<NamedAttribute> conv = {{"strides", Attribute::intArray({2, 2})}, {"paddings", Attribute::intArray({1, 1})},
                                            {"dilations", Attribute::intArray({1, 1})}, {"groups", Attribute::int32(2)},
                                            {"data_format", Attribute::string("NCHW")}};
        ValueId y = b.op1("pd_op.conv2d", {x, w}, DType::Float32, {2, 6, 5, 5}, conv);
        b.fetch(y);
        std::vector<ValueId> cg = b.op("pd_op.conv2d_grad", {x, w, b.f("gy", {2, 6, 5, 5})},
                                       {b.t(DType::Float32, {2, 4, 9, 9}), b.t(DType::Float32, {6, 2, 3, 3})}, conv);
        b.fetch(cg[0]);
        b.fetch(cg[1]);
        TypeId ch = b.t(DType::Float32, {4});
        std::vector<ValueId> bn = b.op("pd_op.batch_norm", {x, b.f("rm", {4}), b.f("rv", {4}), b.f("sc", {4}), b.f("bi", {4})},
                                       {b.t(DType::Float32, {2, 4, 9, 9}), ch, ch, ch, ch},
                                       {{"epsilon", Attribute::float32(1e-5)}, {"momentum", Attribute::float32(0.9)},
                                        {"is_test", Attribute::boolean(false)}, {"data_format", Attribute::string("NCHW")}});
        for (ValueId v : bn) b.fetch(v);
        std::vector<ValueId> bg = b.op("pd_op.batch_norm_grad", {x, b.f("sc2", {4}), b.f("bi2", {4}), bn[1], bn[2], bn[3], bn[4], b.f("bg", {2, 4, 9, 9})},
                                       {b.t(DType::Float32, {2, 4, 9, 9}), ch, ch});
        for (ValueId v : bg) b.fetch(v);
        expectMatch("conv2d/batch_norm", b, Cmp::Matmul);
        P q;
        ValueId px = q.f("px", {2, 3, 7, 7});
        for (const char* type : {"max", "avg"}) {
            std::vector<NamedAttribute> pool = {{"pooling_type", Attribute::string(type)}, {"strides", Attribute::intArray({2, 2})},
                                                {"paddings", Attribute::intArray({1, 1})}, {"exclusive", Attribute::boolean(true)},
                                                {"data_format", Attribute::string("NCHW")}};
            ValueId py = q.op1("pd_op.pool2d", {px, q.ints({3, 3})}, DType::Float32, {2, 3, 4, 4}, pool);
            q.fetch(py);
            q.fetch(q.op1("pd_op.pool2d_grad", {px, py, q.f(std::string("pg") + type, {2, 3, 4, 4}), q.ints({3, 3})}, DType::Float32,
                          {2, 3, 7, 7}, pool));
        }
        expectMatch("pool2d", q, Cmp::Bitwise);
    }

    void composedOpsMatchTheCpu() {
        P b;
        ValueId x = b.f("x", {5, 7}), y = b.f("y", {7}), g = b.f("g", {5, 7});
        ValueId cond = b.op1("pd_op.greater_than", {x, b.f("z", {5, 1})}, DType::Bool, {5, 7});
        TypeId tx = b.t(DType::Float32, {5, 7}), ty = b.t(DType::Float32, {7});
        for (ValueId v : b.op("pd_op.where_grad", {cond, x, y, g}, {tx, ty})) b.fetch(v);
        for (ValueId v : b.op("pd_op.maximum_grad", {x, y, g}, {tx, ty})) b.fetch(v);
        for (ValueId v : b.op("pd_op.minimum_grad", {x, y, g}, {tx, ty})) b.fetch(v);
        for (const char* name : {"pd_op.real", "pd_op.imag", "pd_op.conj", "pd_op.angle"}) b.fetch(b.op1(name, {x}, DType::Float32, {5, 7}));
        b.fetch(b.op1("pd_op.any", {cond, b.ints({1})}, DType::Bool, {5}));
        b.fetch(b.op1("pd_op.all", {cond, b.ints({0})}, DType::Bool, {1, 7}, {{"keepdim", Attribute::boolean(true)}}));
        b.fetch(b.op1("pd_op.logit", {b.op1("pd_op.abs", {x}, DType::Float32, {5, 7})}, DType::Float32, {5, 7},
                      {{"eps", Attribute::float32(1e-3)}}));
        b.fetch(b.op1("pd_op.swiglu", {x, g}, DType::Float32, {5, 7}));
        b.fetch(b.op1("pd_op.swiglu", {b.f("xy", {3, 8})}, DType::Float32, {3, 4}));
        ValueId ax = b.op1("pd_op.abs", {x}, DType::Float32, {5, 7});
        for (ValueId v : b.op("pd_op.elementwise_pow_grad", {ax, y, g}, {tx, ty})) b.fetch(v);
        ValueId w = b.f("w", {10, 6});
        b.fetch(b.op1("pd_op.embedding_grad", {b.data("ids", DType::Int64, {3, 5}), w, b.f("eg", {3, 5, 6})}, DType::Float32, {10, 6},
                      {{"padding_idx", Attribute::int64(1)}}));
        ValueId mx = b.op1("pd_op.max", {x, b.ints({1})}, DType::Float32, {5});
        b.fetch(b.op1("pd_op.max_grad", {x, mx, b.f("mg", {5}), b.ints({1})}, DType::Float32, {5, 7}));
        ValueId mn = b.op1("pd_op.min", {x, b.ints({0})}, DType::Float32, {7});
        b.fetch(b.op1("pd_op.min_grad", {x, mn, b.f("ng", {7}), b.ints({0})}, DType::Float32, {5, 7}));
        expectMatch("where/maximum/minimum/pow/embedding/max/min grads, real/imag/angle, any/all, logit, swiglu", b, Cmp::Close);
    }

    void addNAccumulatesInDouble() {
        P b;
        ValueId x = b.f("x", {50}), y = b.f("y", {50}), z = b.f("z", {50});
        TypeId t = b.t(DType::Float32, {50});
        ValueId l = b.op("builtin.combine", {x, y, z}, {b.p.internType(Type::vector({t, t, t}))})[0];
        b.fetch(b.op1("pd_op.add_n", {l}, DType::Float32, {50}));
        expectMatch("add_n", b, Cmp::Bitwise);
    }

    void indexErrorsAreReported() {
        P b;
        ValueId w = b.f("w", {2, 3});
        ValueId ids = b.data("ids", DType::Int64, {4});  // seeded ints reach 3 > 1
        b.fetch(b.op1("pd_op.embedding", {ids, w}, DType::Float32, {4, 3}));
        RunInputs in;
        in.byName["ids"] = Tensor::fromDoubles(DType::Int64, {4}, {0, 1, 5, 1});
        QVERIFY_THROWS_EXCEPTION(Error, gpu->run(b.p, in, {}));
        in.byName["ids"] = Tensor::fromDoubles(DType::Int64, {4}, {0, 1, 1, 1});
        QCOMPARE(gpu->run(b.p, in, {}).fetches.size(), size_t(1));  // the error flag was cleared
    }

    void unsupportedOpsAreNamedBeforeRunning() {
        P b;
        b.fetch(b.op1("pd_op.gather_nd", {b.f("x", {4, 4}), b.data("i", DType::Int64, {2, 1})}, DType::Float32, {2, 4}));
        QVERIFY(!gpu->unsupportedOps(b.p).empty());
        QVERIFY_THROWS_EXCEPTION(Error, gpu->run(b.p, {}, {}));
    }
};

int main(int argc, char** argv) {
    std::string why;
    if (cuda::cudaDeviceCount(&why) <= 0) {
        std::printf("SKIP: no CUDA device (%s)\n", why.c_str());
        return 77;
    }
    TestCudaKernels t;
    return QTest::qExec(&t, argc, argv);
}
#include "test_cuda_kernels.moc"
