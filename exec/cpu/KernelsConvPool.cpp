// Convolution, pooling and interpolation kernels (NCHW): conv2d, pool2d, interp and their grads.
// Each computes in the value's dtype on its storage: conv2d by GEMM in f32 (sgemm) or f64
// (dgemm) over a bounded im2col window; pools and interpolation per output element in double.
#include "exec/cpu/KernelContext.h"
#include "exec/cpu/Blas.h"
#include "exec/cpu/TypedCompute.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <numeric>

namespace rx::exec::cpu {
namespace {

// The output columns one im2col window holds: the whole image when its window is small,
// else a slice of columns, so the scratch stays far below the tensors (256 KiB of f32, at
// least 64 columns).
int64_t colChunk(int64_t rows, int64_t cols) {
    constexpr int64_t kScratchElements = int64_t(1) << 16;
    return std::max<int64_t>(1, std::min(cols, std::max<int64_t>(64, kScratchElements / std::max<int64_t>(rows, 1))));
}

// col[(ic, a, b), e - c0] = x[ic, i*sh - ph0 + a*dh, j*sw - pw0 + b*dw] for output columns
// e = i*ow + j in [c0, c0 + nc), zero outside the input.
template <class W>
void im2col(const Conv2dGeom& g, const W* x, int64_t channels, int64_t c0, int64_t nc, W* col) {
    for (int64_t ic = 0; ic < channels; ++ic)
        for (int64_t a = 0; a < g.kh; ++a)
            for (int64_t b = 0; b < g.kw; ++b) {
                W* row = col + ((ic * g.kh + a) * g.kw + b) * nc;
                int64_t i = c0 / g.ow, j = c0 % g.ow;  // output pixel of column e, stepped along
                for (int64_t e = 0; e < nc; ++e) {
                    const int64_t h = i * g.sh - g.ph0 + a * g.dh, w = j * g.sw - g.pw0 + b * g.dw;
                    row[e] = (h >= 0 && h < g.h && w >= 0 && w < g.w) ? x[(ic * g.h + h) * g.w + w] : W(0);
                    if (++j == g.ow) { j = 0; ++i; }
                }
            }
}

// The adjoint of im2col: dx[ic, h, w] += dcol[(ic, a, b), e - c0], in a fixed order.
template <class W>
void col2im(const Conv2dGeom& g, const W* dcol, int64_t channels, int64_t c0, int64_t nc, W* dx) {
    for (int64_t ic = 0; ic < channels; ++ic)
        for (int64_t a = 0; a < g.kh; ++a)
            for (int64_t b = 0; b < g.kw; ++b) {
                const W* row = dcol + ((ic * g.kh + a) * g.kw + b) * nc;
                int64_t i = c0 / g.ow, j = c0 % g.ow;
                for (int64_t e = 0; e < nc; ++e) {
                    const int64_t h = i * g.sh - g.ph0 + a * g.dh, w = j * g.sw - g.pw0 + b * g.dw;
                    if (h >= 0 && h < g.h && w >= 0 && w < g.w) dx[(ic * g.h + h) * g.w + w] += row[e];
                    if (++j == g.ow) { j = 0; ++i; }
                }
            }
}

// `n` elements of T as the GEMM type W: the storage itself when T is W, else converted into `scratch`.
template <class W, class T>
const W* gemmView(const T* p, int64_t n, std::vector<W>& scratch) {
    if constexpr (std::is_same_v<T, W>) { (void)n; (void)scratch; return p; }
    else {
        scratch.resize(static_cast<size_t>(n));
        for (int64_t i = 0; i < n; ++i) scratch[i] = static_cast<W>(loadElement(p[i]));
        return scratch.data();
    }
}
template <class W, class T>
void storeFromGemm(const W* w, int64_t n, T* out) {
    if constexpr (!std::is_same_v<T, W>)
        for (int64_t i = 0; i < n; ++i) out[i] = storeElement<T>(static_cast<double>(w[i]));
}

// conv2d: im2col + GEMM per image, group and column window, in GemmType<T>.
template <class T>
void conv2dForward(const Conv2dGeom& g, const T* x, const T* f, T* out) {
    using W = GemmType<T>;
    const int64_t cpg = g.cin / g.groups, opg = g.cout / g.groups, rows = cpg * g.kh * g.kw, cols = g.oh * g.ow;
    const int64_t chunk = colChunk(rows, cols);
    std::vector<W> fs, xs, os, col(static_cast<size_t>(rows * chunk));
    const W* F = gemmView<W>(f, g.cout * rows, fs);
    if constexpr (!std::is_same_v<T, W>) os.resize(static_cast<size_t>(opg * cols));
    for (int64_t n = 0; n < g.n; ++n)
        for (int64_t grp = 0; grp < g.groups; ++grp) {
            const W* X = gemmView<W>(x + (n * g.cin + grp * cpg) * g.h * g.w, cpg * g.h * g.w, xs);
            T* O = out + (n * g.cout + grp * opg) * cols;
            W* OW;
            if constexpr (std::is_same_v<T, W>) OW = O; else OW = os.data();
            for (int64_t c0 = 0; c0 < cols; c0 += chunk) {
                const int64_t nc = std::min(chunk, cols - c0);
                im2col(g, X, cpg, c0, nc, col.data());
                gemm(false, false, opg, nc, rows, F + grp * opg * rows, rows, col.data(), nc, OW + c0, cols);
            }
            storeFromGemm(OW, opg * cols, O);
        }
}

// conv2d_grad: dW += dy * col^T, dcol = W^T * dy then col2im, per image, group and window.
// dx and df (when wanted) accumulate in GemmType<T>: in their storage for f32 / f64.
template <class T>
void conv2dBackward(const Conv2dGeom& g, const T* x, const T* f, const T* dy, T* dx, T* df) {
    using W = GemmType<T>;
    const int64_t cpg = g.cin / g.groups, opg = g.cout / g.groups, rows = cpg * g.kh * g.kw, cols = g.oh * g.ow;
    const int64_t chunk = colChunk(rows, cols), plane = cpg * g.h * g.w;
    std::vector<W> fs, xs, ys, dxs, dfs, col(static_cast<size_t>(rows * chunk)), dcol(col.size());
    const W* F = gemmView<W>(f, g.cout * rows, fs);
    W* DF = nullptr;
    if (df) {
        if constexpr (std::is_same_v<T, W>) DF = df;
        else { dfs.assign(static_cast<size_t>(g.cout * rows), W(0)); DF = dfs.data(); }
    }
    if constexpr (!std::is_same_v<T, W>) dxs.resize(static_cast<size_t>(plane));
    for (int64_t n = 0; n < g.n; ++n)
        for (int64_t grp = 0; grp < g.groups; ++grp) {
            const W* X = df ? gemmView<W>(x + (n * g.cin + grp * cpg) * g.h * g.w, plane, xs) : nullptr;
            const W* DY = gemmView<W>(dy + (n * g.cout + grp * opg) * cols, opg * cols, ys);
            W* DX = nullptr;
            if (dx) {
                if constexpr (std::is_same_v<T, W>) DX = dx + (n * g.cin + grp * cpg) * g.h * g.w;
                else { std::fill(dxs.begin(), dxs.end(), W(0)); DX = dxs.data(); }
            }
            for (int64_t c0 = 0; c0 < cols; c0 += chunk) {
                const int64_t nc = std::min(chunk, cols - c0);
                if (DF) {
                    im2col(g, X, cpg, c0, nc, col.data());
                    gemm(false, true, opg, rows, nc, DY + c0, cols, col.data(), nc, DF + grp * opg * rows, rows, true);
                }
                if (DX) {
                    gemm(true, false, rows, nc, opg, F + grp * opg * rows, rows, DY + c0, cols, dcol.data(), nc);
                    col2im(g, dcol.data(), cpg, c0, nc, DX);
                }
            }
            if (DX) storeFromGemm(DX, plane, dx + (n * g.cin + grp * cpg) * g.h * g.w);
        }
    if (DF) storeFromGemm(DF, g.cout * rows, df);
}

// One pooling window: the (batch*channel) plane, the flat output index, the input rows
// [h0,h1) and columns [w0,w1) it covers and how many elements it averages over.
struct PoolWindow {
    int64_t plane, out, h0, h1, w0, w1, count;
    int64_t inputIndex(int64_t h, int64_t w, const PoolGeom& g) const { return (plane * g.h + h) * g.w + w; }
};
// Every output element's window, in output order: the walk pool2d, its grad and
// max_pool2d_with_index share.
template <class Visit>
void forEachPoolWindow(const PoolGeom& g, Visit&& visit) {
    for (int64_t nc = 0; nc < g.n * g.ch; ++nc)
        for (int64_t i = 0; i < g.oh; ++i)
            for (int64_t j = 0; j < g.ow; ++j) {
                PoolWindow win{nc, (nc * g.oh + i) * g.ow + j, 0, 0, 0, 0, 0};
                poolWindow(g, i, j, win.h0, win.h1, win.w0, win.w1, win.count);
                visit(win);
            }
}

}  // namespace

void registerConvPoolKernels(KernelTable& table) {
    auto& k = table.kernels;
    // -- conv2d: im2col + GEMM per image and group --
    k["pd_op.conv2d"] = [](Context& c) {
        const DType t = c.outDType(0);
        std::optional<Tensor> xh, fh;
        const Tensor& x = inDType(c.x(0), t, xh);
        const Tensor& f = inDType(c.x(1), t, fh);
        const Conv2dGeom g = conv2dGeometry(c, x.dims, f.dims);
        Tensor out(t, {g.n, g.cout, g.oh, g.ow});
        visitKernelDType(c, t, [&](auto tag) {
            using T = typename decltype(tag)::type;
            conv2dForward<T>(g, x.data<T>(), f.data<T>(), out.data<T>());
        });
        c.setOut(0, std::move(out));
    };
    // (input, filter, out_grad) -> input_grad, filter_grad: dcol = W^T * dy, col2im; dW += dy * col^T.
    k["pd_op.conv2d_grad"] = [](Context& c) {
        const bool wantDx = !c.resultIsNull(0), wantDf = c.outputs.size() > 1 && !c.resultIsNull(1);
        const DType t = wantDx ? c.outDType(0) : wantDf ? c.outDType(1) : c.x(0).dtype;
        std::optional<Tensor> xh, fh, gh;
        const Tensor& x = inDType(c.x(0), t, xh);
        const Tensor& f = inDType(c.x(1), t, fh);
        const Tensor& gy = inDType(c.x(2), t, gh);
        const Conv2dGeom g = conv2dGeometry(c, x.dims, f.dims);
        if (gy.dims != Dims{g.n, g.cout, g.oh, g.ow}) c.fail("conv2d_grad output gradient has the wrong shape");
        if (wantDx && wantDf && c.outDType(1) != t) c.fail("input_grad and filter_grad are declared of different dtypes");
        Tensor dx = wantDx ? Tensor(t, x.dims) : Tensor(), df = wantDf ? Tensor(t, f.dims) : Tensor();
        visitKernelDType(c, t, [&](auto tag) {
            using T = typename decltype(tag)::type;
            conv2dBackward<T>(g, x.data<T>(), f.data<T>(), gy.data<T>(), wantDx ? dx.data<T>() : nullptr, wantDf ? df.data<T>() : nullptr);
        });
        if (wantDx) c.setOut(0, std::move(dx));
        if (wantDf) c.setOut(1, std::move(df));
    };
    k["pd_op.depthwise_conv2d"] = k["pd_op.conv2d"];
    k["pd_op.depthwise_conv2d_grad"] = k["pd_op.conv2d_grad"];

    // -- pool2d: each output element from its window, accumulated in double --
    k["pd_op.pool2d"] = [](Context& c) {
        const DType t = c.outDType(0);
        std::optional<Tensor> xh;
        const Tensor& x = inDType(c.x(0), t, xh);
        const PoolGeom g = pool2dGeometry(c, x.dims, 1);
        Tensor out(t, {g.n, g.ch, g.oh, g.ow});
        visitKernelDType(c, t, [&](auto tag) {
            using T = typename decltype(tag)::type;
            const T* v = x.data<T>();
            T* o = out.data<T>();
            forEachPoolWindow(g, [&](const PoolWindow& win) {
                double acc = g.avg ? 0.0 : -INFINITY;
                for (int64_t h = win.h0; h < win.h1; ++h)
                    for (int64_t w = win.w0; w < win.w1; ++w) {
                        const double e = valueAt(v, win.inputIndex(h, w, g));
                        acc = g.avg ? acc + e : std::max(acc, e);
                    }
                o[win.out] = storeElement<T>(g.avg ? (win.count > 0 ? acc / static_cast<double>(win.count) : 0.0) : acc);
            });
        });
        c.setOut(0, std::move(out));
    };
    k["pd_op.pool2d_grad"] = [](Context& c) {
        // (x, out, out_grad, kernel_size)
        const DType t = c.outDType(0);
        std::optional<Tensor> xh, yh, gh;
        const Tensor& x = inDType(c.x(0), t, xh);
        const Tensor& y = inDType(c.x(1), t, yh);
        const Tensor& gy = inDType(c.x(2), t, gh);
        const PoolGeom g = pool2dGeometry(c, x.dims, 3);
        const int64_t on = g.n * g.ch * g.oh * g.ow;
        if (y.numel() != on || gy.numel() != on)
            c.fail("out " + dimsString(y.dims) + " and out_grad " + dimsString(gy.dims) + " must hold the pool's " +
                   dimsString({g.n, g.ch, g.oh, g.ow}) + " values");
        Tensor dx(t, x.dims);
        visitKernelDType(c, t, [&](auto tag) {
            using T = typename decltype(tag)::type;
            const T* v = x.data<T>();
            const T* yv = y.data<T>();
            const T* gv = gy.data<T>();
            AddInto<T> acc(dx);
            forEachPoolWindow(g, [&](const PoolWindow& win) {
                const double go = valueAt(gv, win.out), yo = valueAt(yv, win.out);
                bool done = false;
                for (int64_t h = win.h0; h < win.h1 && !done; ++h)
                    for (int64_t w = win.w0; w < win.w1 && !done; ++w) {
                        const int64_t xi = win.inputIndex(h, w, g);
                        if (g.avg) acc.add(xi, go / static_cast<double>(win.count));
                        else if (valueAt(v, xi) == yo) { acc.add(xi, go); done = true; }  // first max wins
                    }
            });
            acc.finish();
        });
        c.setOut(0, std::move(dx));
    };

    // -- max_pool2d_with_index (x) {kernel_size, strides, paddings, global_pooling, adaptive, ceil_mode}
    //    -> out, mask: mask holds the flat h*W+w index of each window's first maximum.
    k["pd_op.max_pool2d_with_index"] = [](Context& c) {
        const DType t = c.outDType(0);
        std::optional<Tensor> xh;
        const Tensor& x = inDType(c.x(0), t, xh);
        const PoolGeom g = maxPoolWithIndexGeometry(c, x.dims);
        const Dims od{g.n, g.ch, g.oh, g.ow};
        const bool wantMask = c.outputs.size() > 1 && !c.resultIsNull(1);
        Tensor out(t, od), mask = wantMask ? Tensor(c.outDType(1), od) : Tensor();
        std::optional<IndexWriter> maskAt;
        if (wantMask) maskAt.emplace(mask);
        visitKernelDType(c, t, [&](auto tag) {
            using T = typename decltype(tag)::type;
            const T* v = x.data<T>();
            T* o = out.data<T>();
            forEachPoolWindow(g, [&](const PoolWindow& win) {
                double best = -INFINITY;
                int64_t at = win.h0 * g.w + win.w0;
                for (int64_t h = win.h0; h < win.h1; ++h)
                    for (int64_t w = win.w0; w < win.w1; ++w) {
                        const double e = valueAt(v, win.inputIndex(h, w, g));
                        if (e > best) { best = e; at = h * g.w + w; }
                    }
                o[win.out] = storeElement<T>(best);
                if (maskAt) maskAt->set(win.out, at);
            });
        });
        c.setOut(0, std::move(out));
        if (wantMask) c.setOut(1, std::move(mask));
    };
    // (x, mask, out_grad) -> x_grad: each gradient to the input element its mask names.
    k["pd_op.max_pool2d_with_index_grad"] = [](Context& c) {
        const DType t = c.outDType(0);
        const Tensor& x = c.x(0);
        const Tensor& mask = c.x(1);
        std::optional<Tensor> gh;
        const Tensor& gy = inDType(c.x(2), t, gh);
        const PoolPlanes pp = maxPoolWithIndexGradPlanes(c, x.dims, mask.dims, gy.dims);
        const int64_t plane = pp.plane, oplane = pp.outPlane;
        const IndexView maskAt(mask);
        Tensor dx(t, x.dims);
        visitKernelDType(c, t, [&](auto tag) {
            using T = typename decltype(tag)::type;
            const T* gv = gy.data<T>();
            AddInto<T> acc(dx);
            for (int64_t nc = 0; nc < pp.planes; ++nc)
                for (int64_t o = 0; o < oplane; ++o) {
                    const int64_t at = maskAt[nc * oplane + o];
                    if (at < 0 || at >= plane) c.fail("mask index " + std::to_string(at) + " is outside the input plane");
                    acc.add(nc * plane + at, valueAt(gv, nc * oplane + o));
                }
            acc.finish();
        });
        c.setOut(0, std::move(dx));
    };

    // -- bilinear_interp / nearest_interp (x, out_size, size_tensor, scale_tensor) {data_format NCHW,
    //    out_h, out_w, scale, interp_method, align_corners, align_mode}: Paddle's coordinate rules
    //    (OpSemantics' interpParams). Both directions share one plan: each output pixel's input
    //    taps and weights, so the grads (x, out_size, size_tensor, scale_tensor, output_grad) ->
    //    x_grad scatter exactly what the forward gathered.
    struct Tap { int64_t at; double weight; };
    struct InterpPlan { InterpParams p; std::vector<std::array<Tap, 4>> taps; };  // taps per output pixel of a plane
    auto planInterp = [](const Context& c, const Dims& xd, bool bilinear) {
        InterpPlan pl{interpParams(c, xd), {}};
        const InterpParams& p = pl.p;
        c.requireElements({p.n, p.ch, p.oh, p.ow});
        const int64_t h = p.h, w = p.w, oh = p.oh, ow = p.ow;
        auto ratio = [&](int64_t in, int64_t out, size_t axis) {
            if (p.alignCorners) return out > 1 ? static_cast<double>(in - 1) / static_cast<double>(out - 1) : 0.0;
            if (axis < p.scales.size() && p.scales[axis] > 0) return 1.0 / p.scales[axis];
            return static_cast<double>(in) / static_cast<double>(out);
        };
        const double rh = ratio(h, oh, 0), rw = ratio(w, ow, p.scales.size() > 1 ? 1 : 0);
        auto source = [&](double r, int64_t dst) {
            return (!p.alignCorners && p.alignMode == 0) ? std::max(r * (static_cast<double>(dst) + 0.5) - 0.5, 0.0) : r * static_cast<double>(dst);
        };
        pl.taps.resize(static_cast<size_t>(oh * ow));
        for (int64_t i = 0; i < oh; ++i)
            for (int64_t j = 0; j < ow; ++j) {
                auto& t = pl.taps[i * ow + j];
                if (!bilinear) {
                    int64_t si = static_cast<int64_t>(p.alignCorners ? rh * static_cast<double>(i) + 0.5 : rh * static_cast<double>(i));
                    int64_t sj = static_cast<int64_t>(p.alignCorners ? rw * static_cast<double>(j) + 0.5 : rw * static_cast<double>(j));
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
            const DType t = c.outDType(0);
            std::optional<Tensor> xh;
            const Tensor& x = inDType(c.x(0), t, xh);
            const InterpPlan pl = planInterp(c, x.dims, bilinear);
            const InterpParams& p = pl.p;
            const int64_t plane = p.h * p.w, oplane = p.oh * p.ow;
            Tensor out(t, {p.n, p.ch, p.oh, p.ow});
            visitKernelDType(c, t, [&](auto tag) {
                using T = typename decltype(tag)::type;
                const T* v = x.data<T>();
                T* o = out.data<T>();
                for (int64_t nc = 0; nc < p.n * p.ch; ++nc)
                    for (int64_t e = 0; e < oplane; ++e) {
                        double acc = 0;
                        for (const Tap& tp : pl.taps[e]) if (tp.weight != 0) acc += tp.weight * valueAt(v, nc * plane + tp.at);  // unused taps never turn inf into NaN
                        o[nc * oplane + e] = storeElement<T>(acc);
                    }
            });
            c.setOut(0, std::move(out));
        };
    };
    auto interpGrad = [planInterp](bool bilinear) {
        return [bilinear, planInterp](Context& c) {
            const DType t = c.outDType(0);
            const Tensor& x = c.x(0);
            const InterpPlan pl = planInterp(c, x.dims, bilinear);
            const InterpParams& p = pl.p;
            std::optional<Tensor> gh;
            const Tensor& gy = inDType(c.x(4), t, gh);
            if (gy.dims != Dims{p.n, p.ch, p.oh, p.ow})
                c.fail("output_grad " + dimsString(gy.dims) + " differs from the output " + dimsString({p.n, p.ch, p.oh, p.ow}));
            const int64_t plane = p.h * p.w, oplane = p.oh * p.ow;
            Tensor dx(t, x.dims);
            visitKernelDType(c, t, [&](auto tag) {
                using T = typename decltype(tag)::type;
                const T* g = gy.data<T>();
                AddInto<T> acc(dx);
                for (int64_t nc = 0; nc < p.n * p.ch; ++nc)
                    for (int64_t e = 0; e < oplane; ++e)
                        for (const Tap& tp : pl.taps[e]) acc.add(nc * plane + tp.at, tp.weight * valueAt(g, nc * oplane + e));
                acc.finish();
            });
            c.setOut(0, std::move(dx));
        };
    };
    k["pd_op.bilinear_interp"] = interp(true);
    k["pd_op.nearest_interp"] = interp(false);
    k["pd_op.bilinear_interp_grad"] = interpGrad(true);
    k["pd_op.nearest_interp_grad"] = interpGrad(false);
}

}  // namespace rx::exec::cpu
