// Linear algebra kernels: matmul and matmul_grad.
#include "algorithms/exec/KernelContext.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

namespace rx::exec::cpu {

void registerLinalgKernels(KernelTable& table) {
    auto& k = table.kernels;
    // -- matmul --
    k["pd_op.matmul"] = [](Context& c) {
        Dims od;
        std::vector<double> out = matmulCore(c, c.x(0).toDoubles(), c.x(0).dims, c.attrBool("transpose_x", false),
                                             c.x(1).toDoubles(), c.x(1).dims, c.attrBool("transpose_y", false), od);
        c.setOutDoubles(0, od, out);
    };
    k["pd_op.matmul_grad"] = [](Context& c) {
        // x: [..,M,K] (or transposed), y: [..,K,N]; dOut: [..,M,N]. Rank >= 2 only.
        const Tensor& x = c.x(0);
        const Tensor& y = c.x(1);
        const Tensor& g = c.x(2);
        bool tx = c.attrBool("transpose_x", false), ty = c.attrBool("transpose_y", false);
        if (x.dims.size() < 2 || y.dims.size() < 2) c.fail("matmul_grad supports rank >= 2 only");
        std::vector<double> xv = x.toDoubles(), yv = y.toDoubles(), gv = g.toDoubles();
        Dims dxd, dyd;
        // dX = g * op(y)^T (then transposed back if tx); dY = op(x)^T * g (transposed back if ty).
        std::vector<double> dx = tx ? matmulCore(c, yv, y.dims, ty, gv, g.dims, true, dxd)
                                    : matmulCore(c, gv, g.dims, false, yv, y.dims, !ty, dxd);
        std::vector<double> dy = ty ? matmulCore(c, gv, g.dims, true, xv, x.dims, tx, dyd)
                                    : matmulCore(c, xv, x.dims, !tx, gv, g.dims, false, dyd);
        if (!c.resultIsNull(0)) c.setOutDoubles(0, x.dims, reduceToShape(dx, dxd, x.dims));
        if (c.outputs.size() > 1 && !c.resultIsNull(1)) c.setOutDoubles(1, y.dims, reduceToShape(dy, dyd, y.dims));
    };

    // -- flash_attn (q, k, v, fixed_seed_offset, attn_mask) {dropout, causal, return_softmax, is_test}
    //    -> out, softmax, softmax_lse, seed_offset. Layout [batch, seq, heads, head_dim]; grouped
    //    heads when k/v have fewer; causal is bottom-right aligned (flash-attention 2). Dropout
    //    is refused: the GPU's random stream cannot be reproduced here.
    k["pd_op.flash_attn"] = [](Context& c) {
        const Tensor& q = c.x(0);
        const Tensor& kt = c.x(1);
        const Tensor& vt = c.x(2);
        if (q.dims.size() != 4 || kt.dims.size() != 4 || vt.dims != kt.dims)
            c.fail("flash_attn needs q [b,sq,h,d] and k, v [b,sk,hk,d] of one shape, got " + dimsString(q.dims) + ", " +
                   dimsString(kt.dims) + ", " + dimsString(vt.dims));
        const int64_t b = q.dims[0], sq = q.dims[1], h = q.dims[2], d = q.dims[3], sk = kt.dims[1], hk = kt.dims[2];
        if (kt.dims[0] != b || kt.dims[3] != d || hk <= 0 || h % hk) c.fail("flash_attn: k/v batch, heads or head_dim do not match q");
        if (c.attrFloat("dropout", 0.0) != 0.0 && !c.attrBool("is_test", false))
            c.fail("attribute dropout = " + std::to_string(c.attrFloat("dropout", 0.0)) + ": flash_attn dropout cannot be reproduced on the CPU");
        const bool causal = c.attrBool("causal", false);
        const bool hasMask = c.operandCount() > 4 && c.has(4);
        std::vector<double> qv = q.toDoubles(), kv = kt.toDoubles(), vv = vt.toDoubles(), mask;
        if (hasMask) {
            mask = c.x(4).toDoubles();
            if (static_cast<int64_t>(mask.size()) != sq * sk && static_cast<int64_t>(mask.size()) != b * sq * sk && static_cast<int64_t>(mask.size()) != b * h * sq * sk)
                c.fail("attn_mask " + dimsString(c.x(4).dims) + " does not broadcast to [b, h, sq, sk]");
        }
        const double scale = 1.0 / std::sqrt(static_cast<double>(d));
        std::vector<double> out(qv.size(), 0.0), lse(static_cast<size_t>(b * h * sq)), p(static_cast<size_t>(sk));
        for (int64_t bi = 0; bi < b; ++bi)
            for (int64_t hi = 0; hi < h; ++hi) {
                const int64_t kh = hi / (h / hk);
                for (int64_t i = 0; i < sq; ++i) {
                    double m = -INFINITY;
                    for (int64_t j = 0; j < sk; ++j) {
                        double s = 0;
                        for (int64_t e = 0; e < d; ++e) s += qv[((bi * sq + i) * h + hi) * d + e] * kv[((bi * sk + j) * hk + kh) * d + e];
                        s *= scale;
                        if (hasMask) {
                            size_t mi = mask.size() == static_cast<size_t>(sq * sk) ? static_cast<size_t>(i * sk + j)
                                      : mask.size() == static_cast<size_t>(b * sq * sk) ? static_cast<size_t>((bi * sq + i) * sk + j)
                                                                                          : static_cast<size_t>(((bi * h + hi) * sq + i) * sk + j);
                            s += mask[mi];
                        }
                        if (causal && j > i + (sk - sq)) s = -INFINITY;
                        p[j] = s;
                        m = std::max(m, s);
                    }
                    double sum = 0;
                    for (int64_t j = 0; j < sk; ++j) { p[j] = m == -INFINITY ? 0.0 : std::exp(p[j] - m); sum += p[j]; }
                    lse[(bi * h + hi) * sq + i] = sum > 0 ? m + std::log(sum) : -INFINITY;
                    for (int64_t j = 0; j < sk; ++j) {
                        double wgt = sum > 0 ? p[j] / sum : 0.0;
                        if (wgt == 0) continue;
                        for (int64_t e = 0; e < d; ++e) out[((bi * sq + i) * h + hi) * d + e] += wgt * vv[((bi * sk + j) * hk + kh) * d + e];
                    }
                }
            }
        c.setOutDoubles(0, q.dims, out);
        // softmax is only materialized with return_softmax (Paddle leaves it empty otherwise)
        if (c.outputs.size() > 1 && !c.resultIsNull(1)) c.setOut(1, Tensor(c.outDType(1), c.staticDims(1).value_or(Dims{0})));
        if (c.outputs.size() > 2 && !c.resultIsNull(2)) c.setOutDoubles(2, {b, h, sq}, lse);
        if (c.outputs.size() > 3 && !c.resultIsNull(3)) c.setOutDoubles(3, {2}, {0.0, 0.0});
    };
}

}  // namespace rx::exec::cpu
