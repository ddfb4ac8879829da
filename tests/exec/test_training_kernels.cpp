// Kernels of real training programs (CNN, RNN, transformer/LLM) against hand-computed values,
// with names, operands and attributes as Paddle's ops.yaml defines them; and the list of ops
// the CPU executor must cover. Grads: finite differences in test_grad_kernels.cpp.
#include <QtTest>

#include <cmath>
#include <set>

#include "exec/cpu/CpuExecutor.h"
#include "model/Diagnostic.h"

using namespace rx;
using namespace rx::exec;

namespace {

const DType F = DType::Float32;
const DType I64 = DType::Int64;

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
    TypeId vec(std::vector<TypeId> e) { return p.internType(Type::vector(std::move(e))); }
    ValueId ints(std::vector<int64_t> v) {
        return op("pd_op.full_int_array", {}, {t(I64, {static_cast<int64_t>(v.size())})}, {{"value", Attribute::intArray(v)}})[0];
    }
    void fetch(ValueId v) { op("pd_op.fetch", {v}, {p.value(v).type}, {{"name", Attribute::string(p.value(v).name)}}); }
    // builtin.split of a vector value into its tensors, each fetched.
    void fetchAll(ValueId vector) {
        const Type& vt = p.types()[p.value(vector).type];
        for (ValueId e : op("builtin.split", {vector}, vt.elements)) fetch(e);
    }
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

class TestTrainingKernels : public QObject {
    Q_OBJECT
private slots:
    // conv2d and conv2d_grad against a direct convolution, in f64 and f32 (sgemm), on images
    // whose im2col spans several column windows (1600 output pixels, windows of 910) and two
    // groups: every window and group lands where the direct sums put it.
    void conv2dWindowsMatchTheDirectSums() {
        const int64_t N = 2, C = 16, H = 40, W = 40, O = 8, G = 2, K = 3, cpg = C / G, opg = O / G;
        std::vector<double> xv(N * C * H * W), fv(O * cpg * K * K), gv(N * O * H * W);
        uint64_t state = 7;
        auto next = [&] { state = state * 6364136223846793005ULL + 1442695040888963407ULL; return static_cast<double>(state >> 40) / double(1 << 24) - 0.5; };
        for (double& v : xv) v = next();
        for (double& v : fv) v = next();
        for (double& v : gv) v = next();
        // direct sums (stride 1, padding 1)
        std::vector<double> out(gv.size(), 0.0), dx(xv.size(), 0.0), df(fv.size(), 0.0);
        for (int64_t n = 0; n < N; ++n)
            for (int64_t o = 0; o < O; ++o)
                for (int64_t c = 0; c < cpg; ++c)
                    for (int64_t a = 0; a < K; ++a)
                        for (int64_t bb = 0; bb < K; ++bb)
                            for (int64_t i = 0; i < H; ++i)
                                for (int64_t j = 0; j < W; ++j) {
                                    const int64_t h = i + a - 1, w = j + bb - 1, ic = (o / opg) * cpg + c;
                                    if (h < 0 || h >= H || w < 0 || w >= W) continue;
                                    const int64_t xi = ((n * C + ic) * H + h) * W + w, oi = ((n * O + o) * H + i) * W + j,
                                                  fi = ((o * cpg + c) * K + a) * K + bb;
                                    out[oi] += fv[fi] * xv[xi];
                                    dx[xi] += fv[fi] * gv[oi];
                                    df[fi] += gv[oi] * xv[xi];
                                }
        const std::vector<NamedAttribute> attrs = {{"strides", Attribute::intArray({1, 1})}, {"paddings", Attribute::intArray({1, 1})},
                                                   {"dilations", Attribute::intArray({1, 1})}, {"groups", Attribute::int32(G)},
                                                   {"data_format", Attribute::string("NCHW")}, {"padding_algorithm", Attribute::string("EXPLICIT")}};
        for (const auto& [dt, tol] : {std::pair{DType::Float64, 1e-9}, std::pair{DType::Float32, 2e-4}}) {
            P b;
            ValueId x = b.data("x", dt, {N, C, H, W}, xv), f = b.data("f", dt, {O, cpg, K, K}, fv), g = b.data("g", dt, {N, O, H, W}, gv);
            b.fetch(b.op("pd_op.conv2d", {x, f}, {b.t(dt, {N, O, H, W})}, attrs)[0]);
            auto gr = b.op("pd_op.conv2d_grad", {x, f, g}, {b.t(dt, {N, C, H, W}), b.t(dt, {O, cpg, K, K})}, attrs);
            b.fetch(gr[0]);
            b.fetch(gr[1]);
            RunResult r = b.run();
            expectNear(values(r, 0), out, tol);
            expectNear(values(r, 1), dx, tol);
            expectNear(values(r, 2), df, tol * 100);  // each filter element sums 2 x 1600 products
        }
    }
    void maxPoolWithIndex() {
        P b;
        ValueId x = b.data("x", F, {1, 1, 3, 3}, {1, 2, 3, 4, 9, 6, 7, 8, 5});
        auto r = b.op("pd_op.max_pool2d_with_index", {x}, {b.t(F, {1, 1, 2, 2}), b.t(DType::Int32, {1, 1, 2, 2})},
                      {{"kernel_size", Attribute::intArray({2, 2})}, {"strides", Attribute::intArray({1, 1})},
                       {"paddings", Attribute::intArray({0, 0})}, {"global_pooling", Attribute::boolean(false)},
                       {"adaptive", Attribute::boolean(false)}, {"ceil_mode", Attribute::boolean(false)}});
        b.fetch(r[0]);
        b.fetch(r[1]);
        ValueId g = b.data("g", F, {1, 1, 2, 2}, {1, 2, 3, 4});
        b.fetch(b.op("pd_op.max_pool2d_with_index_grad", {x, r[1], g}, {b.t(F, {1, 1, 3, 3})},
                     {{"kernel_size", Attribute::intArray({2, 2})}, {"strides", Attribute::intArray({1, 1})},
                      {"paddings", Attribute::intArray({0, 0})}})[0]);
        RunResult res = b.run();
        expectNear(values(res, 0), {9, 9, 9, 9});
        expectNear(values(res, 1), {4, 4, 4, 4});
        expectNear(values(res, 2), {0, 0, 0, 0, 10, 0, 0, 0, 0});
        // adaptive: output size is kernel_size, windows cover the input
        P a;
        ValueId y = a.data("x", F, {1, 1, 2, 4}, {1, 5, 2, 0, 3, 4, 8, 6});
        auto ar = a.op("pd_op.max_pool2d_with_index", {y}, {a.t(F, {1, 1, 1, 2}), a.t(DType::Int32, {1, 1, 1, 2})},
                       {{"kernel_size", Attribute::intArray({1, 2})}, {"adaptive", Attribute::boolean(true)}});
        a.fetch(ar[0]);
        a.fetch(ar[1]);
        RunResult r2 = a.run();
        expectNear(values(r2, 0), {5, 8});
        expectNear(values(r2, 1), {1, 6});
    }
    void unbindAndStackGrad() {
        P b;
        ValueId x = b.data("x", F, {2, 3}, {1, 2, 3, 4, 5, 6});
        ValueId parts = b.op("pd_op.unbind", {x}, {b.vec({b.t(F, {2}), b.t(F, {2}), b.t(F, {2})})}, {{"axis", Attribute::int32(1)}})[0];
        b.fetchAll(parts);
        ValueId a0 = b.data("a", F, {3}, {0, 0, 0}), a1 = b.data("c", F, {3}, {0, 0, 0});
        ValueId xs = b.op("builtin.combine", {a0, a1}, {b.vec({b.t(F, {3}), b.t(F, {3})})})[0];
        ValueId grads = b.op("pd_op.stack_grad", {xs, x}, {b.vec({b.t(F, {3}), b.t(F, {3})})}, {{"axis", Attribute::int32(0)}})[0];
        b.fetchAll(grads);
        RunResult r = b.run();
        expectNear(values(r, 0), {1, 4});
        expectNear(values(r, 1), {2, 5});
        expectNear(values(r, 2), {3, 6});
        expectNear(values(r, 3), {1, 2, 3});
        expectNear(values(r, 4), {4, 5, 6});
    }
    void argmaxTopkCumsum() {
        P b;
        ValueId x = b.data("x", F, {2, 3}, {1, 5, 5, 7, 2, 7});
        b.fetch(b.op("pd_op.argmax", {x, b.ints({1})}, {b.t(I64, {2})},
                     {{"keepdims", Attribute::boolean(false)}, {"flatten", Attribute::boolean(false)}, {"dtype", Attribute::dataType("int64")}})[0]);
        b.fetch(b.op("pd_op.argmin", {x, b.ints({0})}, {b.t(I64, {1, 3})},
                     {{"keepdims", Attribute::boolean(true)}, {"flatten", Attribute::boolean(false)}})[0]);
        auto tk = b.op("pd_op.topk", {x, b.ints({2})}, {b.t(F, {2, 2}), b.t(I64, {2, 2})},
                       {{"axis", Attribute::int32(-1)}, {"largest", Attribute::boolean(true)}, {"sorted", Attribute::boolean(true)}});
        b.fetch(tk[0]);
        b.fetch(tk[1]);
        ValueId v = b.data("v", F, {3}, {1, 2, 3});
        for (auto [excl, rev] : {std::pair{false, false}, {true, false}, {false, true}})
            b.fetch(b.op("pd_op.cumsum", {v, b.ints({0})}, {b.t(F, {3})},
                         {{"flatten", Attribute::boolean(false)}, {"exclusive", Attribute::boolean(excl)}, {"reverse", Attribute::boolean(rev)}})[0]);
        RunResult r = b.run();
        expectNear(values(r, 0), {1, 0});
        expectNear(values(r, 1), {0, 1, 0});
        expectNear(values(r, 2), {5, 5, 7, 7});
        expectNear(values(r, 3), {1, 2, 0, 2});
        expectNear(values(r, 4), {1, 3, 6});
        expectNear(values(r, 5), {0, 1, 3});
        expectNear(values(r, 6), {6, 5, 3});
    }
    void indexSelectScatterPad() {
        P b;
        ValueId x = b.data("x", F, {3, 2}, {1, 2, 3, 4, 5, 6});
        ValueId idx = b.data("i", I64, {2}, {2, 0});
        b.fetch(b.op("pd_op.index_select", {x, idx}, {b.t(F, {2, 2})}, {{"axis", Attribute::int32(0)}})[0]);
        ValueId ones = b.data("o", F, {3, 2}, {1, 1, 1, 1, 1, 1});
        ValueId up = b.data("u", F, {2, 2}, {7, 8, 9, 10});
        b.fetch(b.op("pd_op.scatter", {ones, idx, up}, {b.t(F, {3, 2})}, {{"overwrite", Attribute::boolean(true)}})[0]);
        ValueId rep = b.data("r", I64, {2}, {1, 1});
        ValueId up2 = b.data("u2", F, {2, 2}, {1, 2, 3, 4});
        b.fetch(b.op("pd_op.scatter", {ones, rep, up2}, {b.t(F, {3, 2})}, {{"overwrite", Attribute::boolean(false)}})[0]);
        ValueId sq = b.data("s", F, {2, 2}, {1, 2, 3, 4});
        b.fetch(b.op("pd_op.pad", {sq}, {b.t(F, {3, 3})}, {{"paddings", Attribute::intArray({1, 0, 0, 1})}, {"pad_value", Attribute::float32(0)}})[0]);
        RunResult r = b.run();
        expectNear(values(r, 0), {5, 6, 1, 2});
        expectNear(values(r, 1), {9, 10, 1, 1, 7, 8});
        expectNear(values(r, 2), {1, 1, 4, 6, 1, 1});
        expectNear(values(r, 3), {0, 0, 0, 1, 2, 0, 3, 4, 0});
    }
    void crossEntropyWithSoftmax() {
        P b;
        ValueId x = b.data("x", F, {2, 3}, {0, 0, 0, 1, 2, 3});
        ValueId label = b.data("l", I64, {2, 1}, {2, -100});
        auto r = b.op("pd_op.cross_entropy_with_softmax", {x, label}, {b.t(F, {2, 3}), b.t(F, {2, 1})},
                      {{"soft_label", Attribute::boolean(false)}, {"use_softmax", Attribute::boolean(true)},
                       {"numeric_stable_mode", Attribute::boolean(true)}, {"ignore_index", Attribute::int64(-100)},
                       {"axis", Attribute::int32(-1)}});
        b.fetch(r[0]);
        b.fetch(r[1]);
        RunResult res = b.run();
        double s = std::exp(1) + std::exp(2) + std::exp(3);
        expectNear(values(res, 0), {1.0 / 3, 1.0 / 3, 1.0 / 3, std::exp(1) / s, std::exp(2) / s, std::exp(3) / s});
        expectNear(values(res, 1), {std::log(3.0), 0.0});  // the second row's label is ignored
    }
    void groupInstanceRmsNorm() {
        P b;
        ValueId x = b.data("x", F, {1, 2, 1, 2}, {1, 3, 5, 9});
        auto g1 = b.op("pd_op.group_norm", {x, kNoId, kNoId}, {b.t(F, {1, 2, 1, 2}), b.t(F, {1, 1}), b.t(F, {1, 1})},
                       {{"epsilon", Attribute::float32(0)}, {"groups", Attribute::int32(1)}, {"data_format", Attribute::string("NCHW")}});
        b.fetch(g1[1]);
        b.fetch(g1[2]);
        auto g2 = b.op("pd_op.group_norm", {x, kNoId, kNoId}, {b.t(F, {1, 2, 1, 2}), b.t(F, {1, 2}), b.t(F, {1, 2})},
                       {{"epsilon", Attribute::float32(0)}, {"groups", Attribute::int32(2)}, {"data_format", Attribute::string("NCHW")}});
        b.fetch(g2[0]);
        b.fetch(g2[2]);
        ValueId y = b.data("y", F, {1, 1, 1, 4}, {1, 2, 3, 4});
        auto in = b.op("pd_op.instance_norm", {y, kNoId, kNoId}, {b.t(F, {1, 1, 1, 4}), b.t(F, {1}), b.t(F, {1})},
                       {{"epsilon", Attribute::float32(0)}});
        b.fetch(in[0]);
        b.fetch(in[2]);
        ValueId z = b.data("z", F, {1, 2}, {3, 4});
        ValueId w = b.data("w", F, {2}, {2, 1});
        auto rms = b.op("pd_op.rms_norm", {z, kNoId, kNoId, w, kNoId}, {b.t(F, {1, 2}), b.t(F, {1, 2}), b.t(F, {1})},
                        {{"epsilon", Attribute::float32(0)}, {"begin_norm_axis", Attribute::int32(1)}});
        b.fetch(rms[0]);
        b.fetch(rms[2]);
        RunResult r = b.run();
        expectNear(values(r, 0), {4.5});
        expectNear(values(r, 1), {8.75});
        expectNear(values(r, 2), {-1, 1, -1, 1});
        expectNear(values(r, 3), {1, 4});
        double inv = 1 / std::sqrt(1.25);
        expectNear(values(r, 4), {-1.5 * inv, -0.5 * inv, 0.5 * inv, 1.5 * inv}, 1e-5);
        expectNear(values(r, 5), {inv}, 1e-6);
        double rinv = 1 / std::sqrt(12.5);
        expectNear(values(r, 6), {6 * rinv, 4 * rinv}, 1e-6);
        expectNear(values(r, 7), {rinv}, 1e-6);
    }
    void interpolate() {
        P b;
        ValueId x = b.data("x", F, {1, 1, 2, 2}, {1, 2, 3, 4});
        b.fetch(b.op("pd_op.nearest_interp", {x, kNoId, kNoId, kNoId}, {b.t(F, {1, 1, 4, 4})},
                     {{"data_format", Attribute::string("NCHW")}, {"out_h", Attribute::int32(4)}, {"out_w", Attribute::int32(4)},
                      {"interp_method", Attribute::string("nearest")}, {"align_corners", Attribute::boolean(false)},
                      {"align_mode", Attribute::int32(1)}})[0]);
        ValueId y = b.data("y", F, {1, 1, 2, 2}, {0, 1, 2, 3});
        b.fetch(b.op("pd_op.bilinear_interp", {y, kNoId, kNoId, kNoId}, {b.t(F, {1, 1, 3, 3})},
                     {{"out_h", Attribute::int32(3)}, {"out_w", Attribute::int32(3)}, {"align_corners", Attribute::boolean(true)}})[0]);
        ValueId z = b.data("z", F, {1, 1, 1, 2}, {0, 1});
        b.fetch(b.op("pd_op.bilinear_interp", {z, kNoId, kNoId, kNoId}, {b.t(F, {1, 1, 1, 4})},
                     {{"out_h", Attribute::int32(1)}, {"out_w", Attribute::int32(4)}, {"align_corners", Attribute::boolean(false)},
                      {"align_mode", Attribute::int32(0)}})[0]);
        RunResult r = b.run();
        expectNear(values(r, 0), {1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4});
        expectNear(values(r, 1), {0, 0.5, 1, 1, 1.5, 2, 2, 2.5, 3});
        expectNear(values(r, 2), {0, 0.25, 0.75, 1});
    }
    void flashAttention() {
        P b;
        ValueId q = b.data("q", F, {1, 2, 1, 1}, {1, 1});
        ValueId k = b.data("k", F, {1, 2, 1, 1}, {0, 0});
        ValueId v = b.data("v", F, {1, 2, 1, 1}, {2, 4});
        for (bool causal : {false, true}) {
            auto r = b.op("pd_op.flash_attn", {q, k, v, kNoId, kNoId},
                          {b.t(F, {1, 2, 1, 1}), b.t(F, {0}), b.t(F, {1, 1, 2}), b.t(I64, {2})},
                          {{"dropout", Attribute::float32(0)}, {"causal", Attribute::boolean(causal)},
                           {"return_softmax", Attribute::boolean(false)}, {"is_test", Attribute::boolean(false)}});
            b.fetch(r[0]);
            b.fetch(r[2]);
        }
        RunResult r = b.run();
        expectNear(values(r, 0), {3, 3});
        expectNear(values(r, 1), {std::log(2.0), std::log(2.0)});
        expectNear(values(r, 2), {2, 3});
        expectNear(values(r, 3), {0, std::log(2.0)});
    }
    void normGrads() {
        // x = {0, 1, 5}: mean 2, var 14/3, xhat = {-2, -1, 3} * inv; with y_grad = {1, 0, 0}:
        // dx = inv * (e0 - 1/3 - xhat * xhat0 / 3) = inv * {8, -10, 2} / 21.
        const double inv = std::sqrt(3.0 / 14.0);
        P b;
        ValueId x = b.data("x", F, {1, 1, 1, 3}, {0, 1, 5});
        ValueId w = b.data("w", F, {1}, {1});
        ValueId bias = b.data("b", F, {1}, {0});
        ValueId g = b.data("g", F, {1, 1, 1, 3}, {1, 0, 0});
        std::vector<NamedAttribute> ga = {{"epsilon", Attribute::float32(0)}, {"groups", Attribute::int32(1)}, {"data_format", Attribute::string("NCHW")}};
        auto gn = b.op("pd_op.group_norm", {x, w, bias}, {b.t(F, {1, 1, 1, 3}), b.t(F, {1, 1}), b.t(F, {1, 1})}, ga);
        auto gg = b.op("pd_op.group_norm_grad", {x, w, bias, gn[0], gn[1], gn[2], g}, {b.t(F, {1, 1, 1, 3}), b.t(F, {1}), b.t(F, {1})}, ga);
        for (ValueId r : gg) b.fetch(r);
        auto in = b.op("pd_op.instance_norm", {x, w, bias}, {b.t(F, {1, 1, 1, 3}), b.t(F, {1}), b.t(F, {1})}, {{"epsilon", Attribute::float32(0)}});
        auto ig = b.op("pd_op.instance_norm_grad", {x, w, in[1], in[2], g}, {b.t(F, {1, 1, 1, 3}), b.t(F, {1}), b.t(F, {1})},
                       {{"epsilon", Attribute::float32(0)}});
        for (ValueId r : ig) b.fetch(r);
        // rms: x = {3, 4}, w = {2, 1}, inv = 1/sqrt(12.5); out_grad {1, 0}:
        // dx = inv * g * w - x * inv^3 * (g.w.x) / 2 = inv * {1.28, -0.96}; dw = g * x * inv.
        ValueId z = b.data("z", F, {1, 2}, {3, 4});
        ValueId zw = b.data("zw", F, {2}, {2, 1});
        ValueId zg = b.data("zg", F, {1, 2}, {1, 0});
        std::vector<NamedAttribute> ra = {{"epsilon", Attribute::float32(0)}, {"begin_norm_axis", Attribute::int32(1)}};
        auto rms = b.op("pd_op.rms_norm", {z, kNoId, kNoId, zw, kNoId}, {b.t(F, {1, 2}), b.t(F, {1, 2}), b.t(F, {1})}, ra);
        auto rg = b.op("pd_op.rms_norm_grad", {z, kNoId, kNoId, zw, kNoId, rms[2], zg}, {b.t(F, {1, 2}), b.t(F, {2})}, ra);
        for (ValueId r : rg) b.fetch(r);
        RunResult r = b.run();
        for (size_t base : {size_t(0), size_t(3)}) {
            expectNear(values(r, base), {inv * 8 / 21, -inv * 10 / 21, inv * 2 / 21}, 1e-6);
            expectNear(values(r, base + 1), {-2 * inv}, 1e-6);
            expectNear(values(r, base + 2), {1});
        }
        const double rinv = 1 / std::sqrt(12.5);
        expectNear(values(r, 6), {1.28 * rinv, -0.96 * rinv}, 1e-6);
        expectNear(values(r, 7), {3 * rinv, 0}, 1e-6);
    }
    void interpolateGrads() {
        P b;
        ValueId x = b.data("x", F, {1, 1, 2, 2}, {1, 2, 3, 4});
        std::vector<double> ones(16, 1.0);
        ValueId g = b.data("g", F, {1, 1, 4, 4}, ones);
        // nearest 2x2 -> 4x4: every input pixel feeds 4 outputs
        b.fetch(b.op("pd_op.nearest_interp_grad", {x, kNoId, kNoId, kNoId, g}, {b.t(F, {1, 1, 2, 2})},
                     {{"out_h", Attribute::int32(4)}, {"out_w", Attribute::int32(4)}, {"interp_method", Attribute::string("nearest")},
                      {"align_corners", Attribute::boolean(false)}})[0]);
        // bilinear 1x2 -> 1x4 (half-pixel): out = {x0, .75 x0 + .25 x1, .25 x0 + .75 x1, x1}
        ValueId z = b.data("z", F, {1, 1, 1, 2}, {0, 1});
        ValueId zg = b.data("zg", F, {1, 1, 1, 4}, {1, 2, 3, 4});
        b.fetch(b.op("pd_op.bilinear_interp_grad", {z, kNoId, kNoId, kNoId, zg}, {b.t(F, {1, 1, 1, 2})},
                     {{"out_h", Attribute::int32(1)}, {"out_w", Attribute::int32(4)}, {"align_corners", Attribute::boolean(false)},
                      {"align_mode", Attribute::int32(0)}})[0]);
        RunResult r = b.run();
        expectNear(values(r, 0), {4, 4, 4, 4});
        expectNear(values(r, 1), {1 + 2 * 0.75 + 3 * 0.25, 2 * 0.25 + 3 * 0.75 + 4});
    }
    void flashAttentionGrad() {
        // q = {1, 1}, k = {0, 0}: P = 1/2 everywhere, out = {3, 3}; out_grad = {1, 0}:
        // dV = P^T dO = {.5, .5}; dS_0 = P (dO.V - dO.O) = .5 * ({2, 4} - 3); dK = dS^T q; dQ = dS k = 0.
        P b;
        ValueId q = b.data("q", F, {1, 2, 1, 1}, {1, 1});
        ValueId k = b.data("k", F, {1, 2, 1, 1}, {0, 0});
        ValueId v = b.data("v", F, {1, 2, 1, 1}, {2, 4});
        ValueId g = b.data("g", F, {1, 2, 1, 1}, {1, 0});
        std::vector<NamedAttribute> a = {{"dropout", Attribute::float32(0)}, {"causal", Attribute::boolean(false)},
                                         {"return_softmax", Attribute::boolean(false)}, {"is_test", Attribute::boolean(false)}};
        auto f = b.op("pd_op.flash_attn", {q, k, v, kNoId, kNoId}, {b.t(F, {1, 2, 1, 1}), b.t(F, {0}), b.t(F, {1, 1, 2}), b.t(I64, {2})}, a);
        auto gr = b.op("pd_op.flash_attn_grad", {q, k, v, f[0], f[2], f[3], kNoId, g},
                       {b.t(F, {1, 2, 1, 1}), b.t(F, {1, 2, 1, 1}), b.t(F, {1, 2, 1, 1})},
                       {{"dropout", Attribute::float32(0)}, {"causal", Attribute::boolean(false)}});
        for (ValueId r : gr) b.fetch(r);
        RunResult r = b.run();
        expectNear(values(r, 0), {0, 0});
        expectNear(values(r, 1), {-0.5, 0.5});
        expectNear(values(r, 2), {0.5, 0.5});
    }
    void rotaryEmbedding() {
        // cos = 0, sin = 1: neox out = {-x2, -x3, x0, x1}; interleaved out = {-x1, x0, -x3, x2};
        // the grad applies the transpose: neox {g2, g3, -g0, -g1}.
        P b;
        ValueId q = b.data("q", F, {1, 1, 1, 4}, {1, 2, 3, 4});
        ValueId kk = b.data("k", F, {1, 1, 2, 4}, {1, 0, 0, 0, 0, 0, 0, 1});
        ValueId sn = b.data("sin", F, {1, 1, 1, 4}, {1, 1, 1, 1});
        ValueId cs = b.data("cos", F, {1, 1, 1, 4}, {0, 0, 0, 0});
        auto attrs = [](bool neox) {
            return std::vector<NamedAttribute>{{"use_neox_rotary_style", Attribute::boolean(neox)}, {"time_major", Attribute::boolean(false)},
                                               {"rotary_emb_base", Attribute::float32(10000)}};
        };
        auto neox = b.op("pd_op.fused_rotary_position_embedding", {q, kk, kNoId, sn, cs, kNoId},
                         {b.t(F, {1, 1, 1, 4}), b.t(F, {1, 1, 2, 4}), kNullType}, attrs(true));
        b.fetch(neox[0]);
        b.fetch(neox[1]);
        b.fetch(b.op("pd_op.fused_rotary_position_embedding", {q, kNoId, kNoId, sn, cs, kNoId}, {b.t(F, {1, 1, 1, 4})}, attrs(false))[0]);
        b.fetch(b.op("pd_op.fused_rotary_position_embedding_grad", {sn, cs, kNoId, q, kNoId, kNoId}, {b.t(F, {1, 1, 1, 4})}, attrs(true))[0]);
        // generated sin/cos: head_dim 2, position 1 -> theta = 1 rad
        ValueId p = b.data("p", F, {1, 1, 1, 2}, {1, 0});
        ValueId pos = b.data("pos", I64, {1, 1}, {1});
        b.fetch(b.op("pd_op.fused_rotary_position_embedding", {p, kNoId, kNoId, kNoId, kNoId, pos}, {b.t(F, {1, 1, 1, 2})}, attrs(true))[0]);
        RunResult r = b.run();
        expectNear(values(r, 0), {-3, -4, 1, 2});
        expectNear(values(r, 1), {0, 0, 1, 0, 0, -1, 0, 0});
        expectNear(values(r, 2), {-2, 1, -4, 3});
        expectNear(values(r, 3), {3, 4, -1, -2});
        expectNear(values(r, 4), {std::cos(1.0), std::sin(1.0)}, 1e-6);
    }
    void triTopkGrads() {
        P b;
        ValueId g = b.data("g", F, {2, 2}, {1, 2, 3, 4});
        b.fetch(b.op("pd_op.tril_grad", {g}, {b.t(F, {2, 2})}, {{"diagonal", Attribute::int32(0)}})[0]);
        b.fetch(b.op("pd_op.triu_grad", {g}, {b.t(F, {2, 2})}, {{"diagonal", Attribute::int32(1)}})[0]);
        // topk k=2 of {5, 1, 7, 3} picks indices {2, 0}: their grads land there
        ValueId x = b.data("x", F, {1, 4}, {5, 1, 7, 3});
        auto tk = b.op("pd_op.topk", {x, b.ints({2})}, {b.t(F, {1, 2}), b.t(I64, {1, 2})},
                       {{"axis", Attribute::int32(-1)}, {"largest", Attribute::boolean(true)}, {"sorted", Attribute::boolean(true)}});
        ValueId og = b.data("og", F, {1, 2}, {10, 20});
        b.fetch(b.op("pd_op.topk_grad", {x, tk[1], og, b.ints({2})}, {b.t(F, {1, 4})},
                     {{"axis", Attribute::int32(-1)}, {"largest", Attribute::boolean(true)}, {"sorted", Attribute::boolean(true)}})[0]);
        RunResult r = b.run();
        expectNear(values(r, 0), {1, 0, 3, 4});
        expectNear(values(r, 1), {0, 2, 0, 0});
        expectNear(values(r, 2), {20, 0, 10, 0});
    }
    void requiredOpsAreCovered() {
        // Ops of CNN, RNN and transformer/LLM training programs (forward and grad) that the
        // CPU executor must run; Paddle's names.
        const std::set<std::string> supported = [] {
            auto v = CpuExecutor::supportedOps();
            return std::set<std::string>(v.begin(), v.end());
        }();
        for (const char* op : {
                 "pd_op.conv2d", "pd_op.conv2d_grad", "pd_op.depthwise_conv2d", "pd_op.depthwise_conv2d_grad",
                 "pd_op.pool2d", "pd_op.pool2d_grad", "pd_op.max_pool2d_with_index", "pd_op.max_pool2d_with_index_grad",
                 "pd_op.batch_norm", "pd_op.batch_norm_", "pd_op.batch_norm_grad", "pd_op.group_norm", "pd_op.instance_norm",
                 "pd_op.pad", "pd_op.pad_grad", "pd_op.unbind", "pd_op.stack", "pd_op.stack_grad", "pd_op.split",
                 "pd_op.split_with_num", "pd_op.concat", "pd_op.concat_grad", "pd_op.sigmoid", "pd_op.sigmoid_grad",
                 "pd_op.tanh", "pd_op.tanh_grad", "pd_op.softmax", "pd_op.softmax_grad", "pd_op.layer_norm",
                 "pd_op.layer_norm_grad", "pd_op.rms_norm", "pd_op.gelu", "pd_op.gelu_grad", "pd_op.silu", "pd_op.silu_grad",
                 "pd_op.swiglu", "pd_op.swiglu_grad", "pd_op.embedding", "pd_op.embedding_grad",
                 "pd_op.cross_entropy_with_softmax", "pd_op.cross_entropy_with_softmax_grad", "pd_op.argmax", "pd_op.argmin",
                 "pd_op.topk", "pd_op.cumsum", "pd_op.cumsum_grad", "pd_op.tril", "pd_op.triu", "pd_op.index_select",
                 "pd_op.index_select_grad", "pd_op.gather", "pd_op.gather_grad", "pd_op.gather_nd", "pd_op.gather_nd_grad",
                 "pd_op.scatter", "pd_op.scatter_grad", "pd_op.matmul", "pd_op.matmul_grad", "pd_op.dropout",
                 "pd_op.dropout_grad", "pd_op.transpose", "pd_op.transpose_grad", "pd_op.reshape", "pd_op.reshape_grad",
                 "pd_op.slice", "pd_op.slice_grad", "pd_op.expand", "pd_op.expand_grad", "pd_op.where", "pd_op.where_grad",
                 "pd_op.bilinear_interp", "pd_op.nearest_interp", "pd_op.flash_attn", "pd_op.group_norm_grad",
                 "pd_op.instance_norm_grad", "pd_op.rms_norm_grad", "pd_op.bilinear_interp_grad", "pd_op.nearest_interp_grad",
                 "pd_op.flash_attn_grad", "pd_op.fused_rotary_position_embedding", "pd_op.fused_rotary_position_embedding_grad",
                 "pd_op.tril_grad", "pd_op.triu_grad", "pd_op.topk_grad"})
            QVERIFY2(supported.count(op), op);
    }
};

QTEST_GUILESS_MAIN(TestTrainingKernels)
#include "test_training_kernels.moc"
