// Elementwise and shape _grad kernels (Paddle argument order: forward inputs, forward outputs, out_grad).
#include "exec/cpu/KernelContext.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

namespace rx::exec::cpu {

void registerGradsKernels(KernelTable& table) {
    auto& k = table.kernels;
    // -- elementwise grads --
    // Each grad is computed over out_grad's dims in the result's dtype, then summed down to
    // the operand's dims where it was broadcast (that temporary is not tensor storage).
    auto binaryGrad = [](int kind) {  // 0 add, 1 subtract, 2 multiply, 3 divide
        return [kind](Context& c) {
            const Tensor& x = c.x(0);
            const Tensor& y = c.x(1);
            const Tensor& g = c.x(c.operandCount() - 1);
            const Dims od = g.dims;
            const std::array<const Tensor*, 3> ins{&g, &x, &y};
            auto grad = [&](size_t result, const Dims& target, auto f) {
                if (result >= c.outputs.size() || c.resultIsNull(result)) return;
                checkReducible(od, target, c.failFn());
                if (target == od) { c.setOut(result, broadcastMap(c.outDType(result), od, ins, f)); return; }
                std::optional<Tensor> full;
                {
                    ScopedStorageMeter off(nullptr);
                    full.emplace(broadcastMap(c.outDType(result), od, ins, f));
                }
                c.setOut(result, sumToShape(*full, target));
            };
            using V = std::array<double, 3>;  // out_grad, x, y
            switch (kind) {
            case 0: grad(0, x.dims, [](const V& v) { return v[0]; }); grad(1, y.dims, [](const V& v) { return v[0]; }); break;
            case 1: grad(0, x.dims, [](const V& v) { return v[0]; }); grad(1, y.dims, [](const V& v) { return -v[0]; }); break;
            case 2: grad(0, x.dims, [](const V& v) { return v[0] * v[2]; }); grad(1, y.dims, [](const V& v) { return v[0] * v[1]; }); break;
            default:
                grad(0, x.dims, [](const V& v) { return v[0] / v[2]; });
                grad(1, y.dims, [](const V& v) { return -v[0] * v[1] / (v[2] * v[2]); });
                break;
            }
        };
    };
    k["pd_op.add_grad"] = binaryGrad(0);
    k["pd_op.subtract_grad"] = binaryGrad(1);
    k["pd_op.multiply_grad"] = binaryGrad(2);
    k["pd_op.divide_grad"] = binaryGrad(3);
    // unary grads: (input-or-output, out_grad) -> x_grad
    auto unaryGrad = [](double (*f)(double, double)) {
        return [f](Context& c) {
            const Tensor& a = c.x(0);
            const Tensor& g = c.x(c.operandCount() - 1);
            if (a.dims != g.dims) c.fail("gradient shape differs from the input");
            c.setOut(0, broadcastMap(c.outDType(0), a.dims, std::array<const Tensor*, 2>{&a, &g},
                                     [f](const std::array<double, 2>& v) { return f(v[0], v[1]); }));
        };
    };
    k["pd_op.relu_grad"] = unaryGrad([](double out, double g) { return out > 0 ? g : 0.0; });
    k["pd_op.sigmoid_grad"] = unaryGrad([](double out, double g) { return g * out * (1 - out); });
    k["pd_op.tanh_grad"] = unaryGrad([](double out, double g) { return g * (1 - out * out); });
    k["pd_op.exp_grad"] = unaryGrad([](double out, double g) { return g * out; });
    k["pd_op.rsqrt_grad"] = unaryGrad([](double out, double g) { return -0.5 * g * out * out * out; });
    k["pd_op.sqrt_grad"] = unaryGrad([](double out, double g) { return 0.5 * g / out; });
    k["pd_op.silu_grad"] = unaryGrad([](double x, double g) { double s = sigmoid(x); return g * s * (1 + x * (1 - s)); });
    k["pd_op.sin_grad"] = unaryGrad([](double x, double g) { return g * std::cos(x); });
    k["pd_op.cos_grad"] = unaryGrad([](double x, double g) { return -g * std::sin(x); });
    k["pd_op.gelu_grad"] = [](Context& c) {
        const bool approx = geluParams(c).approximate;
        const Tensor& x = c.x(0);
        const Tensor& g = c.x(1);
        if (x.dims != g.dims) c.fail("gradient shape differs from the input");
        c.setOut(0, broadcastMap(c.outDType(0), x.dims, std::array<const Tensor*, 2>{&x, &g},
                                 [approx](const std::array<double, 2>& v) { return v[1] * geluGrad(v[0], approx); }));
    };
    k["pd_op.scale_grad"] = [](Context& c) {  // d(x*s + b) = g*s
        const double s = scaleParams(c).scale;
        c.setOut(0, generatedTensorFrom(c.x(0), c.outDType(0), [s](int64_t, double e) { return e * s; }));
    };
    k["pd_op.reshape_grad"] = [](Context& c) {
        // (xshape, out_grad): x's dims are xshape's dims without the leading 0.
        const Tensor& g = c.x(1);
        c.setOut(0, reshaped(g, reshapeGradDims(c, c.x(0).dims, g.numel())));
    };
    k["pd_op.transpose_grad"] = [](Context& c) {
        c.setOut(0, transposeTensor(c.x(0), transposePerm(c, c.x(0).dims.size(), true)));
    };

    // -- more _grad ops (Paddle's argument order: forward inputs, forward outputs, out_grad) --
    // squeeze/unsqueeze/flatten_grad(xshape, out_grad): reshape back to x's dims.
    for (const char* name : {"pd_op.squeeze_grad", "pd_op.unsqueeze_grad", "pd_op.flatten_grad"})
        k[name] = k["pd_op.reshape_grad"];
    k["pd_op.expand_grad"] = [](Context& c) {  // (x, out_grad, shape)
        const Tensor& x = c.x(0);
        const Tensor& g = c.x(1);
        checkReducible(g.dims, x.dims, c.failFn());
        if (g.dtype == c.outDType(0)) { c.setOut(0, sumToShape(g, x.dims)); return; }
        std::optional<Tensor> sum;
        {
            ScopedStorageMeter off(nullptr);  // a temporary, not the result's storage
            sum.emplace(sumToShape(g, x.dims));
        }
        c.setOut(0, mapElements(*sum, c.outDType(0), [](auto e) { return static_cast<double>(e); }));
    };
    k["pd_op.expand_as_grad"] = k["pd_op.expand_grad"];
    k["pd_op.slice_grad"] = [](Context& c) {  // (input, out_grad, starts, ends) {axes, decrease_axis}
        const Tensor& x = c.x(0);
        const Tensor& g = c.x(1);
        const SliceGeom sg = sliceGeometry(c, x.dims, 2);
        const Dims& begin = sg.begin;
        const Dims& size = sg.size;
        size_t r = x.dims.size();
        if (numelOf(size) != g.numel()) c.fail("out_grad " + dimsString(g.dims) + " does not match the slice " + dimsString(sg.outDims));
        std::vector<double> out(static_cast<size_t>(x.numel()), 0.0), gv = g.toDoubles();
        Dims inStr = stridesOf(x.dims), outStr = stridesOf(size);
        for (int64_t k2 = 0; k2 < g.numel(); ++k2) {
            int64_t rem = k2, pos = 0;
            for (size_t i = 0; i < r; ++i) { int64_t idx = rem / outStr[i]; rem %= outStr[i]; pos += (idx + begin[i]) * inStr[i]; }
            out[pos] = gv[k2];
        }
        c.setOutDoubles(0, x.dims, out);
    };
    k["pd_op.concat_grad"] = [](Context& c) {  // (x vec, out_grad, axis) -> vec of grads
        std::vector<Dims> xs;
        for (const TensorPtr& t : c.list(0)) xs.push_back(t->dims);
        splitInto(c, c.x(1), concatGradGeometry(c, c.x(1).dims, xs));
    };
    k["pd_op.split_grad"] = [](Context& c) {  // (out_grad vec, axis) -> x_grad
        const auto& l = c.list(0);
        if (l.empty()) c.fail("split_grad of an empty vector");
        c.setOut(0, concatTensors(c, l, concatAxis(c, 1, l[0]->dims.size())));
    };
    k["pd_op.gather_nd_grad"] = [](Context& c) {  // (x, index, out_grad): scatter-add
        const Tensor& x = c.x(0);
        const Tensor& index = c.x(1);
        const Tensor& g = c.x(2);
        const GatherNdGeom geom = gatherNdGeometry(c, x.dims, index.dims);
        const int64_t depth = geom.depth, inner = geom.inner, rows = geom.rows;
        if (g.numel() != numelOf(geom.outDims)) c.fail("out_grad " + dimsString(g.dims) + " is not the gathered shape " + dimsString(geom.outDims));
        Dims str = stridesOf(x.dims);
        std::vector<double> out(static_cast<size_t>(x.numel()), 0.0), gv = g.toDoubles();
        for (int64_t r = 0; r < rows; ++r) {
            int64_t pos = 0;
            for (int64_t j = 0; j < depth; ++j) {
                int64_t v = static_cast<int64_t>(index.get(r * depth + j));
                if (v < 0) v += x.dims[j];
                if (v < 0 || v >= x.dims[j]) c.fail("gather_nd_grad index out of range");
                pos += v * str[j];
            }
            for (int64_t e = 0; e < inner; ++e) out[pos + e] += gv[r * inner + e];
        }
        c.setOutDoubles(0, x.dims, out);
    };
    k["pd_op.where_grad"] = [](Context& c) {  // (cond, x, y, out_grad) -> x_grad, y_grad
        const Tensor& cond = c.x(0);
        const Tensor& x = c.x(1);
        const Tensor& y = c.x(2);
        const Tensor& g = c.x(3);
        for (const Dims* d : {&cond.dims, &x.dims, &y.dims}) checkReducible(g.dims, *d, c.failFn());
        auto ic = broadcastIndex(cond.dims, g.dims);
        std::vector<double> gv = g.toDoubles(), gx(gv.size()), gy(gv.size());
        for (size_t i = 0; i < gv.size(); ++i) {
            bool t = cond.get(ic[i]) != 0;
            gx[i] = t ? gv[i] : 0.0;
            gy[i] = t ? 0.0 : gv[i];
        }
        if (!c.resultIsNull(0)) c.setOutDoubles(0, x.dims, reduceToShape(gx, g.dims, x.dims));
        if (c.outputs.size() > 1 && !c.resultIsNull(1)) c.setOutDoubles(1, y.dims, reduceToShape(gy, g.dims, y.dims));
    };
    auto extremumGrad = [](Context& c) {  // (x, out, out_grad, axis) {keepdim, reduce_all}: to the first extremum
        const Tensor& x = c.x(0);
        const Tensor& out = c.x(1);
        const Tensor& g = c.x(2);
        ReducePlan p = planReduce(c, x.dims, 3);
        if (numelOf(p.outDims) != g.numel() || out.numel() != g.numel()) c.fail("gradient does not match the reduced shape");
        std::vector<double> xv = x.toDoubles(), ov = out.toDoubles(), gv = g.toDoubles(), dx(xv.size(), 0.0);
        std::vector<uint8_t> taken(gv.size(), 0);
        for (size_t i = 0; i < xv.size(); ++i) {
            int64_t t = p.target[i];
            if (!taken[t] && xv[i] == ov[t]) { dx[i] = gv[t]; taken[t] = 1; }
        }
        c.setOutDoubles(0, x.dims, dx);
    };
    k["pd_op.max_grad"] = extremumGrad;
    k["pd_op.min_grad"] = extremumGrad;
    auto pairGrad = [](bool isMax) {  // maximum_grad / minimum_grad (x, y, out_grad)
        return [isMax](Context& c) {
            const Tensor& x = c.x(0);
            const Tensor& y = c.x(1);
            const Tensor& g = c.x(2);
            checkReducible(g.dims, x.dims, c.failFn());
            checkReducible(g.dims, y.dims, c.failFn());
            auto ix = broadcastIndex(x.dims, g.dims), iy = broadcastIndex(y.dims, g.dims);
            std::vector<double> xv = x.toDoubles(), yv = y.toDoubles(), gv = g.toDoubles(), gx(gv.size()), gy(gv.size());
            for (size_t i = 0; i < gv.size(); ++i) {
                bool toX = isMax ? xv[ix[i]] > yv[iy[i]] : xv[ix[i]] < yv[iy[i]];
                gx[i] = toX ? gv[i] : 0.0;
                gy[i] = toX ? 0.0 : gv[i];
            }
            if (!c.resultIsNull(0)) c.setOutDoubles(0, x.dims, reduceToShape(gx, g.dims, x.dims));
            if (c.outputs.size() > 1 && !c.resultIsNull(1)) c.setOutDoubles(1, y.dims, reduceToShape(gy, g.dims, y.dims));
        };
    };
    k["pd_op.maximum_grad"] = pairGrad(true);
    k["pd_op.minimum_grad"] = pairGrad(false);
    k["pd_op.elementwise_pow_grad"] = [](Context& c) {  // (x, y, out_grad)
        const Tensor& x = c.x(0);
        const Tensor& y = c.x(1);
        const Tensor& g = c.x(2);
        checkReducible(g.dims, x.dims, c.failFn());
        checkReducible(g.dims, y.dims, c.failFn());
        auto ix = broadcastIndex(x.dims, g.dims), iy = broadcastIndex(y.dims, g.dims);
        std::vector<double> xv = x.toDoubles(), yv = y.toDoubles(), gv = g.toDoubles(), gx(gv.size()), gy(gv.size());
        for (size_t i = 0; i < gv.size(); ++i) {
            double a = xv[ix[i]], b = yv[iy[i]];
            gx[i] = gv[i] * b * std::pow(a, b - 1);
            gy[i] = a > 0 ? gv[i] * std::pow(a, b) * std::log(a) : 0.0;
        }
        if (!c.resultIsNull(0)) c.setOutDoubles(0, x.dims, reduceToShape(gx, g.dims, x.dims));
        if (c.outputs.size() > 1 && !c.resultIsNull(1)) c.setOutDoubles(1, y.dims, reduceToShape(gy, g.dims, y.dims));
    };
    k["pd_op.pow_grad"] = [](Context& c) {  // (x, out_grad) {y}
        const Tensor& x = c.x(0);
        const Tensor& g = c.x(1);
        const double y = powParams(c).exponent;
        std::vector<double> xv = x.toDoubles(), gv = g.toDoubles();
        for (size_t i = 0; i < gv.size(); ++i) gv[i] *= y * std::pow(xv[i], y - 1);
        c.setOutDoubles(0, x.dims, gv);
    };
    k["pd_op.square_grad"] = unaryGrad([](double x, double g) { return 2 * x * g; });
    k["pd_op.log_grad"] = unaryGrad([](double x, double g) { return g / x; });
    k["pd_op.abs_grad"] = unaryGrad([](double x, double g) { return x > 0 ? g : x < 0 ? -g : 0.0; });
    k["pd_op.erf_grad"] = unaryGrad([](double x, double g) { return g * 1.1283791670955126 * std::exp(-x * x); });
    k["pd_op.cast_grad"] = [](Context& c) {  // (x, out_grad): back to x's dtype
        c.setOutDoubles(0, c.x(1).dims, c.x(1).toDoubles());
    };
    k["pd_op.assign_grad"] = [](Context& c) { c.setOut(0, c.x(0)); };  // a copy, as the memory model counts
    k["pd_op.embedding_grad"] = [](Context& c) {  // (x ids, weight, out_grad) {padding_idx}
        const Tensor& ids = c.x(0);
        const Tensor& w = c.x(1);
        const Tensor& g = c.x(2);
        const Dims od = embeddingDims(c, ids.dims, w.dims);
        const int64_t pad = embeddingParams(c).paddingIdx, width = w.dims[1];
        if (g.numel() != numelOf(od)) c.fail("out_grad " + dimsString(g.dims) + " is not the embedding's " + dimsString(od));
        std::vector<double> out(static_cast<size_t>(w.numel()), 0.0), gv = g.toDoubles();
        for (int64_t i = 0; i < ids.numel(); ++i) {
            int64_t id = static_cast<int64_t>(ids.get(i));
            if (id < 0 || id >= w.dims[0]) c.fail("embedding id out of range");
            if (pad >= 0 && id == pad) continue;
            for (int64_t j = 0; j < width; ++j) out[id * width + j] += gv[i * width + j];
        }
        c.setOutDoubles(0, w.dims, out);
    };
    k["pd_op.log_softmax_grad"] = [](Context& c) {  // (out, out_grad) {axis}: g - exp(out) * sum(g)
        const Tensor& y = c.x(0);
        const Tensor& g = c.x(1);
        const AxisLanes lanes = softmaxLanes(c, y.dims);
        const int64_t n = lanes.n, inner = lanes.inner, outer = lanes.outer;
        std::vector<double> yv = y.toDoubles(), gv = g.toDoubles(), out(yv.size());
        for (int64_t o = 0; o < outer; ++o)
            for (int64_t in = 0; in < inner; ++in) {
                int64_t b = o * n * inner + in;
                double s = 0;
                for (int64_t j = 0; j < n; ++j) s += gv[b + j * inner];
                for (int64_t j = 0; j < n; ++j) out[b + j * inner] = gv[b + j * inner] - std::exp(yv[b + j * inner]) * s;
            }
        c.setOutDoubles(0, y.dims, out);
    };

    // swiglu_grad (x, y, out_grad) -> x_grad, y_grad for out = silu(x) * y; without y, x holds [x | y].
    k["pd_op.swiglu_grad"] = [](Context& c) {
        const Tensor& x = c.x(0);
        const Tensor& g = c.x(c.operandCount() - 1);
        const SwigluGeom geom = swigluGeometry(c, x.dims, true);
        std::vector<double> xv = x.toDoubles(), gv = g.toDoubles();
        auto dsilu = [](double a) { double s = sigmoid(a); return s * (1 + a * (1 - s)); };
        if (geom.hasY) {
            std::vector<double> yv = c.x(1).toDoubles();
            std::vector<double> dx(xv.size()), dy(xv.size());
            for (size_t i = 0; i < xv.size(); ++i) { dx[i] = gv[i] * yv[i] * dsilu(xv[i]); dy[i] = gv[i] * xv[i] * sigmoid(xv[i]); }
            if (!c.resultIsNull(0)) c.setOutDoubles(0, x.dims, dx);
            if (c.outputs.size() > 1 && !c.resultIsNull(1)) c.setOutDoubles(1, c.x(1).dims, dy);
            return;
        }
        const int64_t h = geom.half, rows = geom.rows;
        std::vector<double> dx(xv.size());
        for (int64_t r = 0; r < rows; ++r)
            for (int64_t j = 0; j < h; ++j) {
                double a = xv[r * 2 * h + j], b = xv[r * 2 * h + h + j], gg = gv[r * h + j];
                dx[r * 2 * h + j] = gg * b * dsilu(a);
                dx[r * 2 * h + h + j] = gg * a * sigmoid(a);
            }
        c.setOutDoubles(0, x.dims, dx);
    };
}

}  // namespace rx::exec::cpu
