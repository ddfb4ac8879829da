// Convolution, pooling and interpolation kernels (NCHW): conv2d, pool2d, interp and their grads.
#include "exec/cpu/KernelContext.h"
#include "exec/cpu/Blas.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <numeric>

namespace rx::exec::cpu {
namespace {

// col[(ic, a, b), (i, j)] = x[ic, i*sh - ph0 + a*dh, j*sw - pw0 + b*dw], zero outside.
void im2col(const Conv2dGeom& g, const double* x, int64_t channels, double* col) {
    const int64_t cols = g.oh * g.ow;
    for (int64_t ic = 0; ic < channels; ++ic)
        for (int64_t a = 0; a < g.kh; ++a)
            for (int64_t b = 0; b < g.kw; ++b) {
                double* row = col + ((ic * g.kh + a) * g.kw + b) * cols;
                for (int64_t i = 0; i < g.oh; ++i) {
                    const int64_t h = i * g.sh - g.ph0 + a * g.dh;
                    for (int64_t j = 0; j < g.ow; ++j) {
                        const int64_t w = j * g.sw - g.pw0 + b * g.dw;
                        row[i * g.ow + j] = (h >= 0 && h < g.h && w >= 0 && w < g.w) ? x[(ic * g.h + h) * g.w + w] : 0.0;
                    }
                }
            }
}

// The adjoint of im2col: dx[ic, h, w] += dcol[(ic, a, b), (i, j)], in a fixed order.
void col2im(const Conv2dGeom& g, const double* dcol, int64_t channels, double* dx) {
    const int64_t cols = g.oh * g.ow;
    for (int64_t ic = 0; ic < channels; ++ic)
        for (int64_t a = 0; a < g.kh; ++a)
            for (int64_t b = 0; b < g.kw; ++b) {
                const double* row = dcol + ((ic * g.kh + a) * g.kw + b) * cols;
                for (int64_t i = 0; i < g.oh; ++i) {
                    const int64_t h = i * g.sh - g.ph0 + a * g.dh;
                    if (h < 0 || h >= g.h) continue;
                    for (int64_t j = 0; j < g.ow; ++j) {
                        const int64_t w = j * g.sw - g.pw0 + b * g.dw;
                        if (w >= 0 && w < g.w) dx[(ic * g.h + h) * g.w + w] += row[i * g.ow + j];
                    }
                }
            }
}

}  // namespace

void registerConvPoolKernels(KernelTable& table) {
    auto& k = table.kernels;
    // -- conv2d: im2col + GEMM per image and group --
    k["pd_op.conv2d"] = [](Context& c) {
        const Tensor& x = c.x(0);
        const Tensor& f = c.x(1);
        Conv2dGeom g = conv2dGeometry(c, x.dims, f.dims);
        std::vector<double> xv = x.toDoubles(), fv = f.toDoubles();
        std::vector<double> out(static_cast<size_t>(g.n * g.cout * g.oh * g.ow), 0.0);
        const int64_t cpg = g.cin / g.groups, opg = g.cout / g.groups, rows = cpg * g.kh * g.kw, cols = g.oh * g.ow;
        std::vector<double> col(static_cast<size_t>(rows * cols));
        for (int64_t n = 0; n < g.n; ++n)
            for (int64_t grp = 0; grp < g.groups; ++grp) {
                im2col(g, xv.data() + (n * g.cin + grp * cpg) * g.h * g.w, cpg, col.data());
                gemm(false, false, opg, cols, rows, fv.data() + grp * opg * rows, rows, col.data(), cols,
                     out.data() + (n * g.cout + grp * opg) * cols, cols);
            }
        c.setOutDoubles(0, {g.n, g.cout, g.oh, g.ow}, out);
    };
    // (input, filter, out_grad) -> input_grad, filter_grad: dcol = W^T * dy, col2im; dW += dy * col^T.
    k["pd_op.conv2d_grad"] = [](Context& c) {
        const Tensor& x = c.x(0);
        const Tensor& f = c.x(1);
        const Tensor& gy = c.x(2);
        Conv2dGeom g = conv2dGeometry(c, x.dims, f.dims);
        if (gy.dims != Dims{g.n, g.cout, g.oh, g.ow}) c.fail("conv2d_grad output gradient has the wrong shape");
        std::vector<double> xv = x.toDoubles(), fv = f.toDoubles(), gv = gy.toDoubles();
        std::vector<double> dx(xv.size(), 0.0), df(fv.size(), 0.0);
        const int64_t cpg = g.cin / g.groups, opg = g.cout / g.groups, rows = cpg * g.kh * g.kw, cols = g.oh * g.ow;
        std::vector<double> col(static_cast<size_t>(rows * cols)), dcol(col.size());
        for (int64_t n = 0; n < g.n; ++n)
            for (int64_t grp = 0; grp < g.groups; ++grp) {
                const double* dy = gv.data() + (n * g.cout + grp * opg) * cols;
                im2col(g, xv.data() + (n * g.cin + grp * cpg) * g.h * g.w, cpg, col.data());
                gemm(false, true, opg, rows, cols, dy, cols, col.data(), cols, df.data() + grp * opg * rows, rows, true);
                gemm(true, false, rows, cols, opg, fv.data() + grp * opg * rows, rows, dy, cols, dcol.data(), cols);
                col2im(g, dcol.data(), cpg, dx.data() + (n * g.cin + grp * cpg) * g.h * g.w);
            }
        if (!c.resultIsNull(0)) c.setOutDoubles(0, x.dims, dx);
        if (c.outputs.size() > 1 && !c.resultIsNull(1)) c.setOutDoubles(1, f.dims, df);
    };
    k["pd_op.depthwise_conv2d"] = k["pd_op.conv2d"];
    k["pd_op.depthwise_conv2d_grad"] = k["pd_op.conv2d_grad"];

    // -- pool2d --
    k["pd_op.pool2d"] = [](Context& c) {
        const Tensor& x = c.x(0);
        PoolGeom g = pool2dGeometry(c, x.dims, 1);
        std::vector<double> v = x.toDoubles(), out(static_cast<size_t>(g.n * g.ch * g.oh * g.ow));
        for (int64_t nc = 0; nc < g.n * g.ch; ++nc)
            for (int64_t i = 0; i < g.oh; ++i)
                for (int64_t j = 0; j < g.ow; ++j) {
                    int64_t h0, h1, w0, w1, cnt;
                    poolWindow(g, i, j, h0, h1, w0, w1, cnt);
                    double acc = g.avg ? 0.0 : -INFINITY;
                    for (int64_t h = h0; h < h1; ++h)
                        for (int64_t w = w0; w < w1; ++w) {
                            double e = v[(nc * g.h + h) * g.w + w];
                            acc = g.avg ? acc + e : std::max(acc, e);
                        }
                    out[(nc * g.oh + i) * g.ow + j] = g.avg ? (cnt > 0 ? acc / static_cast<double>(cnt) : 0.0) : acc;
                }
        c.setOutDoubles(0, {g.n, g.ch, g.oh, g.ow}, out);
    };
    k["pd_op.pool2d_grad"] = [](Context& c) {
        // (x, out, out_grad, kernel_size)
        const Tensor& x = c.x(0);
        PoolGeom g = pool2dGeometry(c, x.dims, 3);
        std::vector<double> v = x.toDoubles(), y = c.x(1).toDoubles(), gy = c.x(2).toDoubles(), dx(v.size(), 0.0);
        for (int64_t nc = 0; nc < g.n * g.ch; ++nc)
            for (int64_t i = 0; i < g.oh; ++i)
                for (int64_t j = 0; j < g.ow; ++j) {
                    int64_t h0, h1, w0, w1, cnt;
                    poolWindow(g, i, j, h0, h1, w0, w1, cnt);
                    size_t oi = (nc * g.oh + i) * g.ow + j;
                    bool done = false;
                    for (int64_t h = h0; h < h1 && !done; ++h)
                        for (int64_t w = w0; w < w1 && !done; ++w) {
                            size_t xi = (nc * g.h + h) * g.w + w;
                            if (g.avg) dx[xi] += gy[oi] / static_cast<double>(cnt);
                            else if (v[xi] == y[oi]) { dx[xi] += gy[oi]; done = true; }  // first max wins
                        }
                }
        c.setOutDoubles(0, x.dims, dx);
    };

    // -- max_pool2d_with_index (x) {kernel_size, strides, paddings, global_pooling, adaptive, ceil_mode}
    //    -> out, mask: mask holds the flat h*W+w index of each window's first maximum.
    k["pd_op.max_pool2d_with_index"] = [](Context& c) {
        const Tensor& x = c.x(0);
        PoolGeom g = pool2dGeometry(c.o, x.dims, c.attrInts("kernel_size"), c.failFn());
        if (g.avg) c.fail("attribute pooling_type: max_pool2d_with_index is a max pool");
        std::vector<double> v = x.toDoubles(), out(static_cast<size_t>(g.n * g.ch * g.oh * g.ow)), mask(out.size());
        for (int64_t nc = 0; nc < g.n * g.ch; ++nc)
            for (int64_t i = 0; i < g.oh; ++i)
                for (int64_t j = 0; j < g.ow; ++j) {
                    int64_t h0, h1, w0, w1, cnt;
                    poolWindow(g, i, j, h0, h1, w0, w1, cnt);
                    double best = -INFINITY;
                    int64_t at = h0 * g.w + w0;
                    for (int64_t h = h0; h < h1; ++h)
                        for (int64_t w = w0; w < w1; ++w) {
                            double e = v[(nc * g.h + h) * g.w + w];
                            if (e > best) { best = e; at = h * g.w + w; }
                        }
                    out[(nc * g.oh + i) * g.ow + j] = best;
                    mask[(nc * g.oh + i) * g.ow + j] = static_cast<double>(at);
                }
        c.setOutDoubles(0, {g.n, g.ch, g.oh, g.ow}, out);
        if (c.outputs.size() > 1 && !c.resultIsNull(1)) c.setOutDoubles(1, {g.n, g.ch, g.oh, g.ow}, mask);
    };
    // (x, mask, out_grad) -> x_grad: each gradient to the input element its mask names.
    k["pd_op.max_pool2d_with_index_grad"] = [](Context& c) {
        const Tensor& x = c.x(0);
        const Tensor& mask = c.x(1);
        const Tensor& gy = c.x(2);
        if (x.dims.size() != 4 || mask.dims != gy.dims || gy.dims.size() != 4 || gy.dims[0] != x.dims[0] || gy.dims[1] != x.dims[1])
            c.fail("max_pool2d_with_index_grad needs x [N,C,H,W] and mask, out_grad [N,C,OH,OW]");
        const int64_t plane = x.dims[2] * x.dims[3], oplane = gy.dims[2] * gy.dims[3];
        std::vector<double> dx(static_cast<size_t>(x.numel()), 0.0), gv = gy.toDoubles();
        for (int64_t nc = 0; nc < x.dims[0] * x.dims[1]; ++nc)
            for (int64_t o = 0; o < oplane; ++o) {
                int64_t at = static_cast<int64_t>(mask.get(nc * oplane + o));
                if (at < 0 || at >= plane) c.fail("mask index " + std::to_string(at) + " is outside the input plane");
                dx[nc * plane + at] += gv[nc * oplane + o];
            }
        c.setOutDoubles(0, x.dims, dx);
    };

    // -- bilinear_interp / nearest_interp (x, out_size, size_tensor, scale_tensor) {data_format NCHW,
    //    out_h, out_w, scale, interp_method, align_corners, align_mode}: Paddle's coordinate rules.
    //    Both directions share one plan: each output pixel's input taps and weights, so the
    //    grads (x, out_size, size_tensor, scale_tensor, output_grad) -> x_grad scatter exactly
    //    what the forward gathered.
    struct Tap { int64_t at; double weight; };
    struct InterpPlan { int64_t n, ch, h, w, oh, ow; std::vector<std::array<Tap, 4>> taps; };  // taps per output pixel of a plane
    auto planInterp = [](const Context& c, const Dims& xd, bool bilinear) {
        if (xd.size() != 4) c.fail("interpolate needs a 4-d NCHW input, got " + dimsString(xd));
        if (c.attrString("data_format", "NCHW") != "NCHW") c.fail("attribute data_format: only NCHW interpolation is supported");
        InterpPlan pl{xd[0], xd[1], xd[2], xd[3], 0, 0, {}};
        const int64_t h = pl.h, w = pl.w;
        if (h <= 0 || w <= 0) c.fail("interpolate of an empty input " + dimsString(xd));
        std::vector<double> scales;
        if (const Attribute* a = c.attr("scale"); a && a->kind == Attribute::Kind::Array)
            for (const Attribute& e : a->elements) scales.push_back(e.kind == Attribute::Kind::Float || e.kind == Attribute::Kind::Double ? e.floatValue : static_cast<double>(e.intValue));
        int64_t oh = c.attrInt("out_h", 0), ow = c.attrInt("out_w", 0);
        if (c.has(1)) { Dims s = c.ints(1); if (s.size() != 2) c.fail("out_size must hold 2 values"); oh = s[0]; ow = s[1]; }
        else if (c.operandCount() > 2 && c.has(2)) { Dims s = c.ints(2); if (s.size() != 2) c.fail("size_tensor must hold 2 values"); oh = s[0]; ow = s[1]; }
        else if ((oh <= 0 || ow <= 0) && !scales.empty()) {
            double sh = scales[0], sw = scales.size() > 1 ? scales[1] : scales[0];
            if (!(sh > 0) || !(sw > 0)) c.fail("attribute scale must be > 0");
            oh = static_cast<int64_t>(static_cast<double>(h) * sh);
            ow = static_cast<int64_t>(static_cast<double>(w) * sw);
        }
        if (oh <= 0 || ow <= 0) c.fail("output size " + std::to_string(oh) + "x" + std::to_string(ow) + " must be > 0 (out_h/out_w, out_size or scale)");
        c.requireElements({pl.n, pl.ch, oh, ow});
        pl.oh = oh; pl.ow = ow;
        const bool align = c.attrBool("align_corners", true);
        const int64_t mode = c.attrInt("align_mode", 1);
        auto ratio = [&](int64_t in, int64_t out, size_t axis) {
            if (align) return out > 1 ? static_cast<double>(in - 1) / static_cast<double>(out - 1) : 0.0;
            if (axis < scales.size() && scales[axis] > 0) return 1.0 / scales[axis];
            return static_cast<double>(in) / static_cast<double>(out);
        };
        const double rh = ratio(h, oh, 0), rw = ratio(w, ow, scales.size() > 1 ? 1 : 0);
        auto source = [&](double r, int64_t dst) {
            return (!align && mode == 0) ? std::max(r * (static_cast<double>(dst) + 0.5) - 0.5, 0.0) : r * static_cast<double>(dst);
        };
        pl.taps.resize(static_cast<size_t>(oh * ow));
        for (int64_t i = 0; i < oh; ++i)
            for (int64_t j = 0; j < ow; ++j) {
                auto& t = pl.taps[i * ow + j];
                if (!bilinear) {
                    int64_t si = static_cast<int64_t>(align ? rh * static_cast<double>(i) + 0.5 : rh * static_cast<double>(i));
                    int64_t sj = static_cast<int64_t>(align ? rw * static_cast<double>(j) + 0.5 : rw * static_cast<double>(j));
                    t = {Tap{std::min(si, h - 1) * w + std::min(sj, w - 1), 1.0}, Tap{0, 0.0}, Tap{0, 0.0}, Tap{0, 0.0}};
                    continue;
                }
                double sh = source(rh, i), sw = source(rw, j);
                int64_t h0 = std::min(static_cast<int64_t>(sh), h - 1), w0 = std::min(static_cast<int64_t>(sw), w - 1);
                int64_t h1 = std::min(h0 + 1, h - 1), w1 = std::min(w0 + 1, w - 1);
                double lh = sh - static_cast<double>(h0), lw = sw - static_cast<double>(w0);
                t = {Tap{h0 * w + w0, (1 - lh) * (1 - lw)}, Tap{h0 * w + w1, (1 - lh) * lw},
                     Tap{h1 * w + w0, lh * (1 - lw)}, Tap{h1 * w + w1, lh * lw}};
            }
        return pl;
    };
    auto interp = [planInterp](bool bilinear) {
        return [bilinear, planInterp](Context& c) {
            const Tensor& x = c.x(0);
            InterpPlan pl = planInterp(c, x.dims, bilinear);
            const int64_t plane = pl.h * pl.w, oplane = pl.oh * pl.ow;
            std::vector<double> v = x.toDoubles(), out(static_cast<size_t>(pl.n * pl.ch * oplane));
            for (int64_t nc = 0; nc < pl.n * pl.ch; ++nc)
                for (int64_t e = 0; e < oplane; ++e) {
                    double o = 0;
                    for (const Tap& t : pl.taps[e]) if (t.weight != 0) o += t.weight * v[nc * plane + t.at];  // unused taps never turn inf into NaN
                    out[nc * oplane + e] = o;
                }
            c.setOutDoubles(0, {pl.n, pl.ch, pl.oh, pl.ow}, out);
        };
    };
    auto interpGrad = [planInterp](bool bilinear) {
        return [bilinear, planInterp](Context& c) {
            const Tensor& x = c.x(0);
            InterpPlan pl = planInterp(c, x.dims, bilinear);
            const Tensor& gy = c.x(4);
            if (gy.dims != Dims{pl.n, pl.ch, pl.oh, pl.ow})
                c.fail("output_grad " + dimsString(gy.dims) + " differs from the output " + dimsString({pl.n, pl.ch, pl.oh, pl.ow}));
            const int64_t plane = pl.h * pl.w, oplane = pl.oh * pl.ow;
            std::vector<double> g = gy.toDoubles(), dx(static_cast<size_t>(x.numel()), 0.0);
            for (int64_t nc = 0; nc < pl.n * pl.ch; ++nc)
                for (int64_t e = 0; e < oplane; ++e)
                    for (const Tap& t : pl.taps[e]) dx[nc * plane + t.at] += t.weight * g[nc * oplane + e];
            c.setOutDoubles(0, x.dims, dx);
        };
    };
    k["pd_op.bilinear_interp"] = interp(true);
    k["pd_op.nearest_interp"] = interp(false);
    k["pd_op.bilinear_interp_grad"] = interpGrad(true);
    k["pd_op.nearest_interp_grad"] = interpGrad(false);
}

}  // namespace rx::exec::cpu
