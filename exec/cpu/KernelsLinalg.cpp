// Linear algebra and attention kernels: matmul, flash_attn, fused rotary embedding and their grads.
#include "exec/cpu/KernelContext.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

namespace rx::exec::cpu {

void registerLinalgKernels(KernelTable& table) {
    auto& k = table.kernels;
    // -- matmul --
    k["pd_op.matmul"] = [](Context& c) {
        c.setOut(0, matmulTensor(c, c.x(0), c.attrBool("transpose_x", false), c.x(1), c.attrBool("transpose_y", false), c.outDType(0)));
    };
    k["pd_op.matmul_grad"] = [](Context& c) {
        // x: [..,M,K] (or transposed), y: [..,K,N]; dOut: [..,M,N]. Rank >= 2 only.
        const Tensor& x = c.x(0);
        const Tensor& y = c.x(1);
        const Tensor& g = c.x(2);
        bool tx = c.attrBool("transpose_x", false), ty = c.attrBool("transpose_y", false);
        if (x.dims.size() < 2 || y.dims.size() < 2) c.fail("matmul_grad supports rank >= 2 only");
        // dX = g * op(y)^T (then transposed back if tx); dY = op(x)^T * g (transposed back if ty).
        if (!c.resultIsNull(0))
            c.setOut(0, tx ? matmulTensor(c, y, ty, g, true, c.outDType(0), &x.dims)
                           : matmulTensor(c, g, false, y, !ty, c.outDType(0), &x.dims));
        if (c.outputs.size() > 1 && !c.resultIsNull(1))
            c.setOut(1, ty ? matmulTensor(c, g, true, x, tx, c.outDType(1), &y.dims)
                           : matmulTensor(c, x, !tx, g, false, c.outDType(1), &y.dims));
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

    // -- flash_attn_grad (q, k, v, out, softmax_lse, seed_offset, attn_mask, out_grad) {dropout,
    //    causal} -> q_grad, k_grad, v_grad. Recomputes P = exp(S - lse) from the forward's lse
    //    (as flash-attention does); dS = P * (dP - rowsum(dO * O)). No dropout, as the forward.
    k["pd_op.flash_attn_grad"] = [](Context& c) {
        const Tensor& q = c.x(0);
        const Tensor& kt = c.x(1);
        const Tensor& vt = c.x(2);
        const Tensor& ot = c.x(3);
        const Tensor& lt = c.x(4);
        const Tensor& gt = c.x(7);
        if (q.dims.size() != 4 || kt.dims.size() != 4 || vt.dims != kt.dims)
            c.fail("flash_attn_grad needs q [b,sq,h,d] and k, v [b,sk,hk,d] of one shape, got " + dimsString(q.dims) + ", " +
                   dimsString(kt.dims) + ", " + dimsString(vt.dims));
        const int64_t b = q.dims[0], sq = q.dims[1], h = q.dims[2], d = q.dims[3], sk = kt.dims[1], hk = kt.dims[2];
        if (kt.dims[0] != b || kt.dims[3] != d || hk <= 0 || h % hk) c.fail("flash_attn_grad: k/v batch, heads or head_dim do not match q");
        if (ot.dims != q.dims || gt.dims != q.dims) c.fail("out " + dimsString(ot.dims) + " and out_grad " + dimsString(gt.dims) + " must have q's shape " + dimsString(q.dims));
        if (lt.numel() != b * h * sq) c.fail("softmax_lse " + dimsString(lt.dims) + " must hold b*h*sq = " + std::to_string(b * h * sq) + " values");
        if (c.attrFloat("dropout", 0.0) != 0.0)
            c.fail("attribute dropout = " + std::to_string(c.attrFloat("dropout", 0.0)) + ": flash_attn dropout cannot be reproduced on the CPU");
        const bool causal = c.attrBool("causal", false);
        const bool hasMask = c.operandCount() > 6 && c.has(6);
        std::vector<double> qv = q.toDoubles(), kv = kt.toDoubles(), vv = vt.toDoubles(), ov = ot.toDoubles(), lse = lt.toDoubles(),
                            gv = gt.toDoubles(), mask;
        if (hasMask) {
            mask = c.x(6).toDoubles();
            if (static_cast<int64_t>(mask.size()) != sq * sk && static_cast<int64_t>(mask.size()) != b * sq * sk && static_cast<int64_t>(mask.size()) != b * h * sq * sk)
                c.fail("attn_mask " + dimsString(c.x(6).dims) + " does not broadcast to [b, h, sq, sk]");
        }
        const double scale = 1.0 / std::sqrt(static_cast<double>(d));
        std::vector<double> dq(qv.size(), 0.0), dk(kv.size(), 0.0), dvv(vv.size(), 0.0), p(static_cast<size_t>(sk));
        auto qa = [&](int64_t bi, int64_t i, int64_t hi) { return static_cast<size_t>(((bi * sq + i) * h + hi) * d); };
        auto ka = [&](int64_t bi, int64_t j, int64_t kh) { return static_cast<size_t>(((bi * sk + j) * hk + kh) * d); };
        for (int64_t bi = 0; bi < b; ++bi)
            for (int64_t hi = 0; hi < h; ++hi) {
                const int64_t kh = hi / (h / hk);
                for (int64_t i = 0; i < sq; ++i) {
                    const double l = lse[(bi * h + hi) * sq + i];
                    const size_t qi = qa(bi, i, hi);
                    double rowDot = 0;  // D_i = dO_i . O_i = sum_j P_ij dP_ij
                    for (int64_t e = 0; e < d; ++e) rowDot += gv[qi + e] * ov[qi + e];
                    for (int64_t j = 0; j < sk; ++j) {
                        double s = 0;
                        for (int64_t e = 0; e < d; ++e) s += qv[qi + e] * kv[ka(bi, j, kh) + e];
                        s *= scale;
                        if (hasMask) {
                            size_t mi = mask.size() == static_cast<size_t>(sq * sk) ? static_cast<size_t>(i * sk + j)
                                      : mask.size() == static_cast<size_t>(b * sq * sk) ? static_cast<size_t>((bi * sq + i) * sk + j)
                                                                                          : static_cast<size_t>(((bi * h + hi) * sq + i) * sk + j);
                            s += mask[mi];
                        }
                        p[j] = (causal && j > i + (sk - sq)) || l == -INFINITY ? 0.0 : std::exp(s - l);
                    }
                    for (int64_t j = 0; j < sk; ++j) {
                        if (p[j] == 0) continue;
                        const size_t kj = ka(bi, j, kh);
                        double dp = 0;
                        for (int64_t e = 0; e < d; ++e) { dp += gv[qi + e] * vv[kj + e]; dvv[kj + e] += p[j] * gv[qi + e]; }
                        const double ds = p[j] * (dp - rowDot) * scale;
                        for (int64_t e = 0; e < d; ++e) { dq[qi + e] += ds * kv[kj + e]; dk[kj + e] += ds * qv[qi + e]; }
                    }
                }
            }
        if (!c.resultIsNull(0)) c.setOutDoubles(0, q.dims, dq);
        if (c.outputs.size() > 1 && !c.resultIsNull(1)) c.setOutDoubles(1, kt.dims, dk);
        if (c.outputs.size() > 2 && !c.resultIsNull(2)) c.setOutDoubles(2, vt.dims, dvv);
    };

    // -- fused_rotary_position_embedding (q, k, v, sin, cos, position_ids) {use_neox_rotary_style,
    //    time_major, rotary_emb_base} -> out_q, out_k, out_v; k, v, sin/cos, position_ids optional.
    //    q/k/v [batch, seq, heads, head_dim] ([seq, batch, ...] when time_major); sin/cos hold
    //    [seq or max_pos, head_dim] values ([1, s, 1, d] as Paddle prints them), rows chosen by
    //    position_ids [batch, seq] when given; absent sin/cos are Paddle's
    //    pos * base^(-2i/d). Neox rotates halves (x1, x2), otherwise interleaved pairs.
    //    The grad (sin, cos, position_ids, out_q_grad, out_k_grad, out_v_grad) applies the
    //    transposed rotation.
    auto rotary = [](bool grad) {
        return [grad](Context& c) {
            const size_t sinAt = grad ? 0 : 3, cosAt = sinAt + 1, posAt = sinAt + 2, firstX = grad ? 3 : 0;
            if (!c.has(firstX)) c.fail(std::string(grad ? "out_q_grad" : "q") + " (operand " + std::to_string(firstX) + ") is required");
            const Dims xd = c.x(firstX).dims;
            if (xd.size() != 4) c.fail("rotary embedding needs 4-d q [batch, seq, heads, head_dim], got " + dimsString(xd));
            const bool timeMajor = c.attrBool("time_major", false), neox = c.attrBool("use_neox_rotary_style", true);
            const int64_t batch = timeMajor ? xd[1] : xd[0], seq = timeMajor ? xd[0] : xd[1], d = xd[3];  // xd[2]: heads
            if (d <= 0 || d % 2) c.fail("head_dim " + std::to_string(d) + " must be even and > 0 for a rotary embedding");
            if (c.has(sinAt) != c.has(cosAt)) c.fail("sin and cos must be given together");
            std::vector<double> sn, cs;
            int64_t rows = seq;
            if (c.has(sinAt)) {
                sn = c.x(sinAt).toDoubles(); cs = c.x(cosAt).toDoubles();
                if (c.x(sinAt).dims != c.x(cosAt).dims) c.fail("sin " + dimsString(c.x(sinAt).dims) + " and cos " + dimsString(c.x(cosAt).dims) + " differ");
                if (sn.empty() || static_cast<int64_t>(sn.size()) % d) c.fail("sin/cos " + dimsString(c.x(sinAt).dims) + " do not hold rows of head_dim " + std::to_string(d));
                rows = static_cast<int64_t>(sn.size()) / d;
            }
            Dims pos;
            if (c.has(posAt)) {
                pos = c.ints(posAt);
                if (static_cast<int64_t>(pos.size()) != batch * seq) c.fail("position_ids " + dimsString(c.x(posAt).dims) + " must hold batch*seq = " + std::to_string(batch * seq) + " values");
                for (int64_t v : pos)
                    if (v < 0 || (!sn.empty() && v >= rows)) c.fail("position id " + std::to_string(v) + " is outside [0, " + std::to_string(rows) + ")");
            } else if (!sn.empty() && rows != seq) {
                c.fail("sin/cos hold " + std::to_string(rows) + " rows, expected seq = " + std::to_string(seq) + " (no position_ids)");
            }
            const double base = c.attrFloat("rotary_emb_base", 10000.0);
            if (sn.empty() && !(base > 0)) c.fail("attribute rotary_emb_base = " + std::to_string(base) + ": must be > 0");
            auto angle = [&](int64_t p, int64_t j, double& s, double& co) {
                if (!sn.empty()) { s = sn[p * d + j]; co = cs[p * d + j]; return; }
                int64_t idx = neox ? j % (d / 2) : j / 2;
                double theta = static_cast<double>(p) * std::pow(base, -2.0 * static_cast<double>(idx) / static_cast<double>(d));
                s = std::sin(theta); co = std::cos(theta);
            };
            for (size_t t = 0; t < 3; ++t) {
                const size_t at = firstX + t;
                if (!c.has(at)) continue;
                if (t >= c.outputs.size()) c.fail("has " + std::to_string(c.outputs.size()) + " results, expected one per given q/k/v");
                const Tensor& x = c.x(at);
                if (x.dims.size() != 4 || x.dims[0] != xd[0] || x.dims[1] != xd[1] || x.dims[3] != d)
                    c.fail("operand " + std::to_string(at) + " " + dimsString(x.dims) + " does not match q " + dimsString(xd) + " (heads may differ)");
                const int64_t hx = x.dims[2];
                std::vector<double> v = x.toDoubles(), out(v.size());
                for (int64_t bi = 0; bi < batch; ++bi)
                    for (int64_t si = 0; si < seq; ++si) {
                        const int64_t p = pos.empty() ? si : pos[bi * seq + si];
                        for (int64_t hi = 0; hi < hx; ++hi) {
                            const int64_t o = ((timeMajor ? si * batch + bi : bi * seq + si) * hx + hi) * d;
                            for (int64_t j = 0; j < d; ++j) {
                                // partner element and the sign of its term in out[j] = x[j] cos_j + sign x[partner] sin_j
                                const int64_t partner = neox ? (j < d / 2 ? j + d / 2 : j - d / 2) : (j % 2 ? j - 1 : j + 1);
                                const double sign = neox ? (j < d / 2 ? -1.0 : 1.0) : (j % 2 ? 1.0 : -1.0);
                                double sj, cj;
                                angle(p, j, sj, cj);
                                if (!grad) { out[o + j] = v[o + j] * cj + sign * v[o + partner] * sj; continue; }
                                // transpose: x[j] feeds out[partner] with -sign * sin_partner
                                double sp, cp;
                                angle(p, partner, sp, cp);
                                out[o + j] = v[o + j] * cj - sign * v[o + partner] * sp;
                            }
                        }
                    }
                if (!c.resultIsNull(t)) c.setOutDoubles(t, x.dims, out);
            }
        };
    };
    k["pd_op.fused_rotary_position_embedding"] = rotary(false);
    k["pd_op.fused_rotary_position_embedding_grad"] = rotary(true);
}

}  // namespace rx::exec::cpu
