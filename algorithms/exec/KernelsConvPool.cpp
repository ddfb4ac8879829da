// Convolution and pooling kernels (NCHW): conv2d, pool2d and their grads.
#include "algorithms/exec/KernelContext.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

namespace rx::exec::cpu {

void registerConvPoolKernels(KernelTable& table) {
    auto& k = table.kernels;
    // -- conv2d --
    k["pd_op.conv2d"] = [](Context& c) {
        const Tensor& x = c.x(0);
        const Tensor& f = c.x(1);
        Conv2dGeom g = convGeom(c, x.dims, f.dims);
        std::vector<double> xv = x.toDoubles(), fv = f.toDoubles();
        std::vector<double> out(static_cast<size_t>(g.n * g.cout * g.oh * g.ow), 0.0);
        int64_t cpg = g.cin / g.groups, opg = g.cout / g.groups;
        for (int64_t n = 0; n < g.n; ++n)
            for (int64_t oc = 0; oc < g.cout; ++oc) {
                int64_t grp = oc / opg;
                for (int64_t i = 0; i < g.oh; ++i)
                    for (int64_t j = 0; j < g.ow; ++j) {
                        double acc = 0;
                        for (int64_t ic = 0; ic < cpg; ++ic)
                            for (int64_t a = 0; a < g.kh; ++a) {
                                int64_t h = i * g.sh - g.ph0 + a * g.dh;
                                if (h < 0 || h >= g.h) continue;
                                for (int64_t b = 0; b < g.kw; ++b) {
                                    int64_t w = j * g.sw - g.pw0 + b * g.dw;
                                    if (w < 0 || w >= g.w) continue;
                                    acc += xv[((n * g.cin + grp * cpg + ic) * g.h + h) * g.w + w] * fv[((oc * cpg + ic) * g.kh + a) * g.kw + b];
                                }
                            }
                        out[((n * g.cout + oc) * g.oh + i) * g.ow + j] = acc;
                    }
            }
        c.setOutDoubles(0, {g.n, g.cout, g.oh, g.ow}, out);
    };
    k["pd_op.conv2d_grad"] = [](Context& c) {
        const Tensor& x = c.x(0);
        const Tensor& f = c.x(1);
        const Tensor& gy = c.x(2);
        Conv2dGeom g = convGeom(c, x.dims, f.dims);
        if (gy.dims != Dims{g.n, g.cout, g.oh, g.ow}) c.fail("conv2d_grad output gradient has the wrong shape");
        std::vector<double> xv = x.toDoubles(), fv = f.toDoubles(), gv = gy.toDoubles();
        std::vector<double> dx(xv.size(), 0.0), df(fv.size(), 0.0);
        int64_t cpg = g.cin / g.groups, opg = g.cout / g.groups;
        for (int64_t n = 0; n < g.n; ++n)
            for (int64_t oc = 0; oc < g.cout; ++oc) {
                int64_t grp = oc / opg;
                for (int64_t i = 0; i < g.oh; ++i)
                    for (int64_t j = 0; j < g.ow; ++j) {
                        double go = gv[((n * g.cout + oc) * g.oh + i) * g.ow + j];
                        for (int64_t ic = 0; ic < cpg; ++ic)
                            for (int64_t a = 0; a < g.kh; ++a) {
                                int64_t h = i * g.sh - g.ph0 + a * g.dh;
                                if (h < 0 || h >= g.h) continue;
                                for (int64_t b = 0; b < g.kw; ++b) {
                                    int64_t w = j * g.sw - g.pw0 + b * g.dw;
                                    if (w < 0 || w >= g.w) continue;
                                    size_t xi = ((n * g.cin + grp * cpg + ic) * g.h + h) * g.w + w;
                                    size_t fi = ((oc * cpg + ic) * g.kh + a) * g.kw + b;
                                    dx[xi] += go * fv[fi];
                                    df[fi] += go * xv[xi];
                                }
                            }
                    }
            }
        if (!c.resultIsNull(0)) c.setOutDoubles(0, x.dims, dx);
        if (c.outputs.size() > 1 && !c.resultIsNull(1)) c.setOutDoubles(1, f.dims, df);
    };

    // -- pool2d --
    k["pd_op.pool2d"] = [](Context& c) {
        const Tensor& x = c.x(0);
        PoolGeom g = poolGeom(c, x.dims, c.has(1) ? c.ints(1) : c.attrInts("kernel_size"));
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
        PoolGeom g = poolGeom(c, x.dims, c.has(3) ? c.ints(3) : c.attrInts("kernel_size"));
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
}

}  // namespace rx::exec::cpu
