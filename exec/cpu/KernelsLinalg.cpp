// Linear algebra and attention kernels: matmul, flash_attn, fused rotary embedding and their grads.
#include "exec/cpu/KernelContext.h"
#include "exec/cpu/TypedCompute.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

namespace rx::exec::cpu {
namespace {
// The element of attn_mask that scores (bi, hi, i, j) add, by the layout flashAttnParams found.
int64_t flashMaskIndex(const FlashAttnParams& p, int64_t bi, int64_t hi, int64_t i, int64_t j) {
    if (p.maskLayout == 1) return i * p.sk + j;
    if (p.maskLayout == 2) return (bi * p.sq + i) * p.sk + j;
    return ((bi * p.h + hi) * p.sq + i) * p.sk + j;
}
}  // namespace

void registerLinalgKernels(KernelTable& table) {
    auto& k = table.kernels;
    // -- matmul --
    k["pd_op.matmul"] = [](Context& c) {
        const MatmulParams p = matmulParams(c);
        c.setOut(0, matmulTensor(c, c.x(0), p.transposeX, c.x(1), p.transposeY, c.outDType(0)));
    };
    k["pd_op.matmul_grad"] = [](Context& c) {
        // x: [..,M,K] (or transposed), y: [..,K,N]; dOut: [..,M,N]. Rank >= 2 only.
        const Tensor& x = c.x(0);
        const Tensor& y = c.x(1);
        const Tensor& g = c.x(2);
        const MatmulParams p = matmulParams(c);
        const bool tx = p.transposeX, ty = p.transposeY;
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
    //    is refused: the GPU's random stream cannot be reproduced here. q, k, v are read in
    //    place; each query row's scores and output accumulate in double (sk + d values).
    k["pd_op.flash_attn"] = [](Context& c) {
        const FlashAttnParams p = flashAttnParams(c, false);
        const DType t = c.outDType(0);
        std::optional<Tensor> qh, kh_, vh;
        const Tensor& q = inDType(c.x(0), t, qh);
        const Tensor& kt = inDType(c.x(1), t, kh_);
        const Tensor& vt = inDType(c.x(2), t, vh);
        const Tensor* mask = p.maskLayout ? &c.x(p.maskOperand) : nullptr;
        const int64_t b = p.b, sq = p.sq, h = p.h, d = p.d, sk = p.sk, hk = p.hk;
        const bool wantLse = c.outputs.size() > 2 && !c.resultIsNull(2);
        Tensor out(t, q.dims), lse = wantLse ? Tensor(c.outDType(2), p.lseDims) : Tensor();
        std::vector<double> pr(static_cast<size_t>(sk)), row(static_cast<size_t>(d));
        visitKernelDType(c, t, [&](auto tag) {
            using T = typename decltype(tag)::type;
            const T* qv = q.data<T>();
            const T* kv = kt.data<T>();
            const T* vv = vt.data<T>();
            T* ov = out.data<T>();
            for (int64_t bi = 0; bi < b; ++bi)
                for (int64_t hi = 0; hi < h; ++hi) {
                    const int64_t kh = hi / (h / hk);
                    for (int64_t i = 0; i < sq; ++i) {
                        const int64_t qi = ((bi * sq + i) * h + hi) * d;
                        double m = -INFINITY;
                        for (int64_t j = 0; j < sk; ++j) {
                            const int64_t kj = ((bi * sk + j) * hk + kh) * d;
                            double s = 0;
                            for (int64_t e = 0; e < d; ++e) s += valueAt(qv, qi + e) * valueAt(kv, kj + e);
                            s *= p.scale;
                            if (mask) s += mask->get(flashMaskIndex(p, bi, hi, i, j));
                            if (p.causal && j > i + (sk - sq)) s = -INFINITY;
                            pr[j] = s;
                            m = std::max(m, s);
                        }
                        double sum = 0;
                        for (int64_t j = 0; j < sk; ++j) { pr[j] = m == -INFINITY ? 0.0 : std::exp(pr[j] - m); sum += pr[j]; }
                        if (wantLse) lse.set((bi * h + hi) * sq + i, sum > 0 ? m + std::log(sum) : -INFINITY);
                        std::fill(row.begin(), row.end(), 0.0);
                        for (int64_t j = 0; j < sk; ++j) {
                            const double wgt = sum > 0 ? pr[j] / sum : 0.0;
                            if (wgt == 0) continue;
                            const int64_t kj = ((bi * sk + j) * hk + kh) * d;
                            for (int64_t e = 0; e < d; ++e) row[e] += wgt * valueAt(vv, kj + e);
                        }
                        for (int64_t e = 0; e < d; ++e) ov[qi + e] = storeElement<T>(row[e]);
                    }
                }
        });
        c.setOut(0, std::move(out));
        // softmax is only materialized with return_softmax (Paddle leaves it empty otherwise)
        if (c.outputs.size() > 1 && !c.resultIsNull(1)) c.setOut(1, Tensor(c.outDType(1), c.staticDims(1).value_or(Dims{0})));
        if (wantLse) c.setOut(2, std::move(lse));
        if (c.outputs.size() > 3 && !c.resultIsNull(3)) c.setOut(3, Tensor(c.outDType(3), {2}));
    };

    // -- flash_attn_grad (q, k, v, out, softmax_lse, seed_offset, attn_mask, out_grad) {dropout,
    //    causal} -> q_grad, k_grad, v_grad. Recomputes P = exp(S - lse) from the forward's lse
    //    (as flash-attention does); dS = P * (dP - rowsum(dO * O)). No dropout, as the forward.
    //    Per (batch, kv head): dq one query row at a time, dk and dv of that head's sk rows in
    //    double (2 * sk * d values), summed over the query heads sharing it in a fixed order.
    k["pd_op.flash_attn_grad"] = [](Context& c) {
        const FlashAttnParams p = flashAttnParams(c, true);
        const DType t = c.outDType(0);
        std::optional<Tensor> qh, kh_, vh, oh, gh;
        const Tensor& q = inDType(c.x(0), t, qh);
        const Tensor& kt = inDType(c.x(1), t, kh_);
        const Tensor& vt = inDType(c.x(2), t, vh);
        const Tensor& ot = inDType(c.x(3), t, oh);
        const Tensor& lt = c.x(4);
        const Tensor& gt = inDType(c.x(7), t, gh);
        const Tensor* mask = p.maskLayout ? &c.x(p.maskOperand) : nullptr;
        const int64_t b = p.b, sq = p.sq, h = p.h, d = p.d, sk = p.sk, hk = p.hk;
        const bool wantDq = !c.resultIsNull(0), wantDk = c.outputs.size() > 1 && !c.resultIsNull(1),
                   wantDv = c.outputs.size() > 2 && !c.resultIsNull(2);
        for (size_t r = 1; r < 3; ++r)
            if (c.outputs.size() > r && !c.resultIsNull(r) && c.outDType(r) != t) c.fail("q_grad, k_grad and v_grad are declared of different dtypes");
        Tensor dq = wantDq ? Tensor(t, q.dims) : Tensor(), dk = wantDk ? Tensor(t, kt.dims) : Tensor(), dv = wantDv ? Tensor(t, vt.dims) : Tensor();
        std::vector<double> pr(static_cast<size_t>(sk)), dqRow(static_cast<size_t>(d)), dkAcc(static_cast<size_t>(sk * d)), dvAcc(dkAcc.size());
        visitKernelDType(c, t, [&](auto tag) {
            using T = typename decltype(tag)::type;
            const T* qv = q.data<T>();
            const T* kv = kt.data<T>();
            const T* vv = vt.data<T>();
            const T* ov = ot.data<T>();
            const T* gv = gt.data<T>();
            T* dqv = wantDq ? dq.data<T>() : nullptr;
            const int64_t group = h / hk;
            for (int64_t bi = 0; bi < b; ++bi)
                for (int64_t kh = 0; kh < hk; ++kh) {
                    std::fill(dkAcc.begin(), dkAcc.end(), 0.0);
                    std::fill(dvAcc.begin(), dvAcc.end(), 0.0);
                    auto ka = [&](int64_t j) { return ((bi * sk + j) * hk + kh) * d; };
                    for (int64_t hi = kh * group; hi < (kh + 1) * group; ++hi)
                        for (int64_t i = 0; i < sq; ++i) {
                            const double l = lt.get((bi * h + hi) * sq + i);
                            const int64_t qi = ((bi * sq + i) * h + hi) * d;
                            double rowDot = 0;  // D_i = dO_i . O_i = sum_j P_ij dP_ij
                            for (int64_t e = 0; e < d; ++e) rowDot += valueAt(gv, qi + e) * valueAt(ov, qi + e);
                            for (int64_t j = 0; j < sk; ++j) {
                                double s = 0;
                                for (int64_t e = 0; e < d; ++e) s += valueAt(qv, qi + e) * valueAt(kv, ka(j) + e);
                                s *= p.scale;
                                if (mask) s += mask->get(flashMaskIndex(p, bi, hi, i, j));
                                pr[j] = (p.causal && j > i + (sk - sq)) || l == -INFINITY ? 0.0 : std::exp(s - l);
                            }
                            std::fill(dqRow.begin(), dqRow.end(), 0.0);
                            for (int64_t j = 0; j < sk; ++j) {
                                if (pr[j] == 0) continue;
                                const int64_t kj = ka(j);
                                double* dkj = dkAcc.data() + j * d;
                                double* dvj = dvAcc.data() + j * d;
                                double dp = 0;
                                for (int64_t e = 0; e < d; ++e) { dp += valueAt(gv, qi + e) * valueAt(vv, kj + e); dvj[e] += pr[j] * valueAt(gv, qi + e); }
                                const double ds = pr[j] * (dp - rowDot) * p.scale;
                                for (int64_t e = 0; e < d; ++e) { dqRow[e] += ds * valueAt(kv, kj + e); dkj[e] += ds * valueAt(qv, qi + e); }
                            }
                            if (dqv) for (int64_t e = 0; e < d; ++e) dqv[qi + e] = storeElement<T>(dqRow[e]);
                        }
                    for (int64_t j = 0; j < sk; ++j)
                        for (int64_t e = 0; e < d; ++e) {
                            if (wantDk) dk.data<T>()[ka(j) + e] = storeElement<T>(dkAcc[j * d + e]);
                            if (wantDv) dv.data<T>()[ka(j) + e] = storeElement<T>(dvAcc[j * d + e]);
                        }
                }
        });
        if (wantDq) c.setOut(0, std::move(dq));
        if (wantDk) c.setOut(1, std::move(dk));
        if (wantDv) c.setOut(2, std::move(dv));
    };

    // -- fused_rotary_position_embedding (q, k, v, sin, cos, position_ids) {use_neox_rotary_style,
    //    time_major, rotary_emb_base} -> out_q, out_k, out_v; k, v, sin/cos, position_ids optional.
    //    q/k/v [batch, seq, heads, head_dim] ([seq, batch, ...] when time_major); sin/cos hold
    //    [seq or max_pos, head_dim] values ([1, s, 1, d] as Paddle prints them), rows chosen by
    //    position_ids [batch, seq] when given; absent sin/cos are Paddle's
    //    pos * base^(-2i/d). Neox rotates halves (x1, x2), otherwise interleaved pairs.
    //    The grad (sin, cos, position_ids, out_q_grad, out_k_grad, out_v_grad) applies the
    //    transposed rotation. Each element is read and stored in place (OpSemantics' rotaryParams).
    auto rotary = [](bool grad) {
        return [grad](Context& c) {
            const RotaryParams p = rotaryParams(c, grad);
            const int64_t batch = p.batch, seq = p.seq, d = p.d;
            const Tensor* sn = p.hasSinCos ? &c.x(p.sinAt) : nullptr;
            const Tensor* cs = p.hasSinCos ? &c.x(p.cosAt) : nullptr;
            std::optional<IndexView> pos;
            if (p.hasPositions) {
                pos.emplace(c.x(p.posAt));
                for (int64_t e = 0; e < batch * seq; ++e)
                    if (const int64_t v = (*pos)[e]; v < 0 || (sn && v >= p.rows))
                        c.fail("position id " + std::to_string(v) + " is outside [0, " + std::to_string(p.rows) + ")");
            }
            auto angle = [&](int64_t at, int64_t j, double& s, double& co) {
                if (sn) { s = sn->get(at * d + j); co = cs->get(at * d + j); return; }
                int64_t idx = p.neox ? j % (d / 2) : j / 2;
                double theta = static_cast<double>(at) * std::pow(p.base, -2.0 * static_cast<double>(idx) / static_cast<double>(d));
                s = std::sin(theta); co = std::cos(theta);
            };
            for (size_t r = 0; r < 3; ++r) {
                const size_t at = p.firstX + r;
                if (!c.has(at) || c.resultIsNull(r)) continue;  // each given one checked by rotaryParams
                const Tensor& x0 = c.x(at);
                const DType t = c.outDType(r);
                std::optional<Tensor> xh;
                const Tensor& x = inDType(x0, t, xh);
                const int64_t hx = x.dims[2];
                Tensor out(t, x.dims);
                visitKernelDType(c, t, [&](auto tag) {
                    using T = typename decltype(tag)::type;
                    const T* v = x.data<T>();
                    T* o = out.data<T>();
                    for (int64_t bi = 0; bi < batch; ++bi)
                        for (int64_t si = 0; si < seq; ++si) {
                            const int64_t pp = pos ? (*pos)[bi * seq + si] : si;
                            for (int64_t hi = 0; hi < hx; ++hi) {
                                const int64_t base = ((p.timeMajor ? si * batch + bi : bi * seq + si) * hx + hi) * d;
                                for (int64_t j = 0; j < d; ++j) {
                                    // partner element and the sign of its term in out[j] = x[j] cos_j + sign x[partner] sin_j
                                    const int64_t partner = p.neox ? (j < d / 2 ? j + d / 2 : j - d / 2) : (j % 2 ? j - 1 : j + 1);
                                    const double sign = p.neox ? (j < d / 2 ? -1.0 : 1.0) : (j % 2 ? 1.0 : -1.0);
                                    double sj, cj;
                                    angle(pp, j, sj, cj);
                                    if (!grad) { o[base + j] = storeElement<T>(valueAt(v, base + j) * cj + sign * valueAt(v, base + partner) * sj); continue; }
                                    // transpose: x[j] feeds out[partner] with -sign * sin_partner
                                    double sp, cp;
                                    angle(pp, partner, sp, cp);
                                    o[base + j] = storeElement<T>(valueAt(v, base + j) * cj - sign * valueAt(v, base + partner) * sp);
                                }
                            }
                        }
                });
                c.setOut(r, std::move(out));
            }
        };
    };
    k["pd_op.fused_rotary_position_embedding"] = rotary(false);
    k["pd_op.fused_rotary_position_embedding_grad"] = rotary(true);
}

}  // namespace rx::exec::cpu
