// Normalization kernels: softmax, log_softmax, layer_norm, batch/group/instance/rms norm and their grads.
#include "exec/cpu/KernelContext.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

namespace rx::exec::cpu {

void registerNormKernels(KernelTable& table) {
    auto& k = table.kernels;
    // -- softmax --
    auto softmaxLike = [](bool logSoftmax) {
        return [logSoftmax](Context& c) {
            const Tensor& x = c.x(0);
            int64_t axis = c.normAxis(c.attrInt("axis", -1), x.dims.size());
            int64_t n = x.dims.empty() ? 1 : x.dims[axis], inner = 1, outer = 1;
            for (size_t i = axis + 1; i < x.dims.size(); ++i) inner *= x.dims[i];
            for (int64_t i = 0; i < axis; ++i) outer *= x.dims[i];
            // One lane along the axis at a time in double; storage stays in the dtype.
            Tensor out(c.outDType(0), x.dims);
            std::vector<double> lane(static_cast<size_t>(n));
            for (int64_t o = 0; o < outer; ++o)
                for (int64_t in = 0; in < inner; ++in) {
                    const int64_t base = o * n * inner + in;
                    for (int64_t j = 0; j < n; ++j) lane[j] = x.get(base + j * inner);
                    double m = -INFINITY, s = 0;
                    for (int64_t j = 0; j < n; ++j) m = std::max(m, lane[j]);
                    for (int64_t j = 0; j < n; ++j) s += std::exp(lane[j] - m);
                    for (int64_t j = 0; j < n; ++j)
                        out.set(base + j * inner, logSoftmax ? lane[j] - m - std::log(s) : std::exp(lane[j] - m) / s);
                }
            c.setOut(0, std::move(out));
        };
    };
    k["pd_op.softmax"] = softmaxLike(false);
    k["pd_op.log_softmax"] = softmaxLike(true);
    k["pd_op.softmax_grad"] = [](Context& c) {
        const Tensor& y = c.x(0);
        const Tensor& g = c.x(1);
        int64_t axis = c.normAxis(c.attrInt("axis", -1), y.dims.size());
        int64_t n = y.dims.empty() ? 1 : y.dims[axis], inner = 1, outer = 1;
        for (size_t i = axis + 1; i < y.dims.size(); ++i) inner *= y.dims[i];
        for (int64_t i = 0; i < axis; ++i) outer *= y.dims[i];
        if (g.numel() != y.numel()) c.fail("out_grad " + dimsString(g.dims) + " does not match out " + dimsString(y.dims));
        Tensor out(c.outDType(0), y.dims);
        for (int64_t o = 0; o < outer; ++o)
            for (int64_t in = 0; in < inner; ++in) {
                int64_t b = o * n * inner + in;
                double dot = 0;
                for (int64_t j = 0; j < n; ++j) dot += y.get(b + j * inner) * g.get(b + j * inner);
                for (int64_t j = 0; j < n; ++j) out.set(b + j * inner, y.get(b + j * inner) * (g.get(b + j * inner) - dot));
            }
        c.setOut(0, std::move(out));
    };

    // -- layer norm: out, mean, variance (Paddle's outputs) --
    k["pd_op.layer_norm"] = [](Context& c) {
        const Tensor& x = c.x(0);
        LnShape s = lnShape(c, x.dims);
        double eps = c.attrFloat("epsilon", 1e-5);
        std::vector<double> scale, bias;  // parameter-sized
        if (c.has(1)) scale = c.x(1).toDoubles();
        if (c.has(2)) bias = c.x(2).toDoubles();
        if ((!scale.empty() && static_cast<int64_t>(scale.size()) != s.cols) || (!bias.empty() && static_cast<int64_t>(bias.size()) != s.cols))
            c.fail("layer_norm scale/bias size differs from the normalized size");
        // One row at a time in double; the result is stored in its dtype as it is computed.
        std::vector<double> mean(s.rows), var(s.rows), rowValues(static_cast<size_t>(s.cols));
        Tensor out(c.outDType(0), x.dims);
        for (int64_t r = 0; r < s.rows; ++r) {
            for (int64_t j = 0; j < s.cols; ++j) rowValues[j] = x.get(r * s.cols + j);
            const double* row = rowValues.data();
            double m = 0;
            for (int64_t j = 0; j < s.cols; ++j) m += row[j];
            m /= static_cast<double>(s.cols);
            double q = 0;
            for (int64_t j = 0; j < s.cols; ++j) q += (row[j] - m) * (row[j] - m);
            q /= static_cast<double>(s.cols);
            mean[r] = m; var[r] = q;
            double inv = 1.0 / std::sqrt(q + eps);
            for (int64_t j = 0; j < s.cols; ++j) {
                double y = (row[j] - m) * inv;
                if (!scale.empty()) y *= scale[j];
                if (!bias.empty()) y += bias[j];
                out.set(r * s.cols + j, y);
            }
        }
        c.setOut(0, std::move(out));
        if (c.outputs.size() > 1 && !c.resultIsNull(1)) c.setOutDoubles(1, statDims(c, 1, s.rows), mean);
        if (c.outputs.size() > 2 && !c.resultIsNull(2)) c.setOutDoubles(2, statDims(c, 2, s.rows), var);
    };
    k["pd_op.layer_norm_grad"] = [](Context& c) {
        // (x, scale, bias, mean, variance, out_grad)
        const Tensor& x = c.x(0);
        LnShape s = lnShape(c, x.dims);
        double eps = c.attrFloat("epsilon", 1e-5);
        std::vector<double> v = x.toDoubles(), scale;
        if (c.has(1)) scale = c.x(1).toDoubles();
        std::vector<double> mean = c.x(3).toDoubles(), var = c.x(4).toDoubles(), g = c.x(5).toDoubles();
        if (static_cast<int64_t>(mean.size()) != s.rows || static_cast<int64_t>(var.size()) != s.rows) c.fail("layer_norm_grad statistics size mismatch");
        std::vector<double> dx(v.size()), ds(s.cols, 0.0), db(s.cols, 0.0);
        for (int64_t r = 0; r < s.rows; ++r) {
            double inv = 1.0 / std::sqrt(var[r] + eps);
            double sumG = 0, sumGX = 0;
            for (int64_t j = 0; j < s.cols; ++j) {
                size_t i = r * s.cols + j;
                double xhat = (v[i] - mean[r]) * inv;
                double gy = g[i] * (scale.empty() ? 1.0 : scale[j]);
                sumG += gy; sumGX += gy * xhat;
                ds[j] += g[i] * xhat; db[j] += g[i];
            }
            double n = static_cast<double>(s.cols);
            for (int64_t j = 0; j < s.cols; ++j) {
                size_t i = r * s.cols + j;
                double xhat = (v[i] - mean[r]) * inv;
                double gy = g[i] * (scale.empty() ? 1.0 : scale[j]);
                dx[i] = inv * (gy - sumG / n - xhat * sumGX / n);
            }
        }
        if (!c.resultIsNull(0)) c.setOutDoubles(0, x.dims, dx);
        if (c.outputs.size() > 1 && !c.resultIsNull(1) && c.has(1)) c.setOutDoubles(1, c.x(1).dims, ds);
        if (c.outputs.size() > 2 && !c.resultIsNull(2) && c.has(2)) c.setOutDoubles(2, c.x(2).dims, db);
    };

    // -- batch norm (NCHW or NC): out, mean_out, variance_out, saved_mean, saved_inv_std, reserve --
    auto batchNorm = [](Context& c) {
        const Tensor& x = c.x(0);
        if (x.dims.size() < 2) c.fail("batch_norm needs rank >= 2");
        std::string layout = c.attrString("data_format", c.attrString("data_layout", "NCHW"));
        if (layout != "NCHW" && layout != "NCL" && layout != "NC" && layout != "AnyLayout") c.fail("only channel-first batch_norm is supported");
        int64_t ch = x.dims[1], nb = x.dims[0], sp = x.numel() / std::max<int64_t>(nb * ch, 1);
        double eps = c.attrFloat("epsilon", 1e-5), mom = c.attrFloat("momentum", 0.9);
        bool useGlobal = c.attrBool("is_test", false) || c.attrBool("use_global_stats", false);
        std::vector<double> v = x.toDoubles(), rm = c.x(1).toDoubles(), rv = c.x(2).toDoubles();
        std::vector<double> scale = c.has(3) ? c.x(3).toDoubles() : std::vector<double>(ch, 1.0);
        std::vector<double> bias = c.has(4) ? c.x(4).toDoubles() : std::vector<double>(ch, 0.0);
        if (static_cast<int64_t>(rm.size()) != ch || static_cast<int64_t>(rv.size()) != ch || static_cast<int64_t>(scale.size()) != ch || static_cast<int64_t>(bias.size()) != ch)
            c.fail("batch_norm statistics do not match the channel count");
        std::vector<double> out(v.size()), mean(ch), var(ch), mOut(ch), vOut(ch), inv(ch);
        double cnt = static_cast<double>(nb * sp);
        for (int64_t k2 = 0; k2 < ch; ++k2) {
            if (useGlobal) { mean[k2] = rm[k2]; var[k2] = rv[k2]; }
            else {
                double m = 0, q = 0;
                for (int64_t n = 0; n < nb; ++n) for (int64_t s = 0; s < sp; ++s) m += v[(n * ch + k2) * sp + s];
                m /= cnt;
                for (int64_t n = 0; n < nb; ++n) for (int64_t s = 0; s < sp; ++s) { double d = v[(n * ch + k2) * sp + s] - m; q += d * d; }
                mean[k2] = m; var[k2] = q / cnt;
            }
            inv[k2] = 1.0 / std::sqrt(var[k2] + eps);
            mOut[k2] = useGlobal ? rm[k2] : mom * rm[k2] + (1 - mom) * mean[k2];
            vOut[k2] = useGlobal ? rv[k2] : mom * rv[k2] + (1 - mom) * var[k2];
            for (int64_t n = 0; n < nb; ++n) for (int64_t s = 0; s < sp; ++s) {
                size_t i = (n * ch + k2) * sp + s;
                out[i] = (v[i] - mean[k2]) * inv[k2] * scale[k2] + bias[k2];
            }
        }
        c.setOutDoubles(0, x.dims, out);
        auto setIf = [&](size_t i, const std::vector<double>& d) {
            if (c.outputs.size() > i && !c.resultIsNull(i)) {
                Dims dd = c.staticDims(i).value_or(Dims{ch});
                if (numelOf(dd) == ch) c.setOutDoubles(i, {ch}, d);
                else c.setOut(i, Tensor(c.outDType(i), dd));  // reserve space: no data on CPU
            }
        };
        setIf(1, mOut); setIf(2, vOut); setIf(3, mean); setIf(4, inv);
        if (c.outputs.size() > 5 && !c.resultIsNull(5)) c.setOut(5, Tensor(c.outDType(5), c.staticDims(5).value_or(Dims{0})));
    };
    k["pd_op.batch_norm"] = batchNorm;
    k["pd_op.batch_norm_"] = batchNorm;
    k["pd_op.batch_norm_grad"] = [](Context& c) {
        // (x, scale, bias, mean_out, variance_out, saved_mean, saved_inv_std, reserve_space, out_grad)
        const Tensor& x = c.x(0);
        int64_t ch = x.dims[1], nb = x.dims[0], sp = x.numel() / std::max<int64_t>(nb * ch, 1);
        std::vector<double> v = x.toDoubles(), scale = c.has(1) ? c.x(1).toDoubles() : std::vector<double>(ch, 1.0);
        std::vector<double> mean = c.x(5).toDoubles(), inv = c.x(6).toDoubles();
        const Tensor& gy = c.x(c.operandCount() - 1);
        std::vector<double> g = gy.toDoubles(), dx(v.size()), ds(ch, 0.0), db(ch, 0.0);
        double cnt = static_cast<double>(nb * sp);
        for (int64_t k2 = 0; k2 < ch; ++k2) {
            double sg = 0, sgx = 0;
            for (int64_t n = 0; n < nb; ++n) for (int64_t s = 0; s < sp; ++s) {
                size_t i = (n * ch + k2) * sp + s;
                double xhat = (v[i] - mean[k2]) * inv[k2];
                sg += g[i]; sgx += g[i] * xhat;
            }
            ds[k2] = sgx; db[k2] = sg;
            for (int64_t n = 0; n < nb; ++n) for (int64_t s = 0; s < sp; ++s) {
                size_t i = (n * ch + k2) * sp + s;
                double xhat = (v[i] - mean[k2]) * inv[k2];
                dx[i] = scale[k2] * inv[k2] * (g[i] - sg / cnt - xhat * sgx / cnt);
            }
        }
        if (!c.resultIsNull(0)) c.setOutDoubles(0, x.dims, dx);
        if (c.outputs.size() > 1 && !c.resultIsNull(1)) c.setOutDoubles(1, {ch}, ds);
        if (c.outputs.size() > 2 && !c.resultIsNull(2)) c.setOutDoubles(2, {ch}, db);
    };

    k["pd_op.batchnorm"] = k["pd_op.batch_norm"];  // the seed's spelling in COMPUTE_INTENSIVE_OPS

    // -- cross_entropy_with_softmax (input, label) {soft_label, use_softmax, numeric_stable_mode,
    //    ignore_index, axis} -> softmax, loss (the axis kept with size 1).
    struct CeShape { int64_t outer, n, inner; Dims lossDims; };
    auto ceShape = [](const Context& c, const Dims& d) {
        if (d.empty()) c.fail("cross_entropy_with_softmax of a 0-d input");
        int64_t axis = c.normAxis(c.attrInt("axis", -1), d.size());
        CeShape s{1, d[axis], 1, d};
        for (int64_t i = 0; i < axis; ++i) s.outer *= d[i];
        for (size_t i = axis + 1; i < d.size(); ++i) s.inner *= d[i];
        s.lossDims[axis] = 1;
        return s;
    };
    k["pd_op.cross_entropy_with_softmax"] = [ceShape](Context& c) {
        const Tensor& x = c.x(0);
        const Tensor& label = c.x(1);
        CeShape s = ceShape(c, x.dims);
        bool soft = c.attrBool("soft_label", false), useSoftmax = c.attrBool("use_softmax", true);
        int64_t ignore = c.attrInt("ignore_index", -100);
        if (soft ? label.dims != x.dims : label.numel() != s.outer * s.inner)
            c.fail("label " + dimsString(label.dims) + " does not match input " + dimsString(x.dims) + (soft ? " (soft labels)" : ""));
        std::vector<double> v = x.toDoubles(), sm(v.size()), loss(static_cast<size_t>(s.outer * s.inner), 0.0);
        for (int64_t o = 0; o < s.outer; ++o)
            for (int64_t in = 0; in < s.inner; ++in) {
                auto at = [&](int64_t j) { return static_cast<size_t>((o * s.n + j) * s.inner + in); };
                double m = -INFINITY, sum = 0;
                if (useSoftmax) {
                    for (int64_t j = 0; j < s.n; ++j) m = std::max(m, v[at(j)]);
                    for (int64_t j = 0; j < s.n; ++j) sum += std::exp(v[at(j)] - m);
                    for (int64_t j = 0; j < s.n; ++j) sm[at(j)] = std::exp(v[at(j)] - m) / sum;
                } else {
                    for (int64_t j = 0; j < s.n; ++j) sm[at(j)] = v[at(j)];
                }
                double& l = loss[o * s.inner + in];
                if (soft) {
                    for (int64_t j = 0; j < s.n; ++j) l -= label.get(static_cast<int64_t>(at(j))) * std::log(sm[at(j)]);
                } else {
                    int64_t t = static_cast<int64_t>(label.get(o * s.inner + in));
                    if (t == ignore) continue;
                    if (t < 0 || t >= s.n) c.fail("label " + std::to_string(t) + " is outside [0, " + std::to_string(s.n) + ")");
                    l = useSoftmax ? -(v[at(t)] - m - std::log(sum)) : -std::log(sm[at(t)]);
                }
            }
        c.setOutDoubles(0, x.dims, sm);
        if (c.outputs.size() > 1 && !c.resultIsNull(1)) c.setOutDoubles(1, s.lossDims, loss);
    };
    // (label, softmax, loss_grad) -> input_grad = (softmax - onehot(label)) * loss_grad.
    k["pd_op.cross_entropy_with_softmax_grad"] = [ceShape](Context& c) {
        const Tensor& label = c.x(0);
        const Tensor& sm = c.x(1);
        const Tensor& lg = c.x(2);
        CeShape s = ceShape(c, sm.dims);
        bool soft = c.attrBool("soft_label", false);
        if (!c.attrBool("use_softmax", true)) c.fail("attribute use_softmax = false: the grad is only defined through the softmax here");
        int64_t ignore = c.attrInt("ignore_index", -100);
        if (lg.numel() != s.outer * s.inner) c.fail("loss_grad " + dimsString(lg.dims) + " does not match " + dimsString(s.lossDims));
        std::vector<double> p = sm.toDoubles(), dx(p.size());
        for (int64_t o = 0; o < s.outer; ++o)
            for (int64_t in = 0; in < s.inner; ++in) {
                double g = lg.get(o * s.inner + in);
                int64_t t = soft ? -1 : static_cast<int64_t>(label.get(o * s.inner + in));
                for (int64_t j = 0; j < s.n; ++j) {
                    size_t e = static_cast<size_t>((o * s.n + j) * s.inner + in);
                    if (soft) dx[e] = (p[e] - label.get(static_cast<int64_t>(e))) * g;
                    else dx[e] = t == ignore ? 0.0 : (p[e] - (j == t ? 1.0 : 0.0)) * g;
                }
            }
        c.setOutDoubles(0, sm.dims, dx);
    };
    // -- group_norm (x, scale, bias) {epsilon, groups, data_format NCHW} -> y, mean [N,G], variance [N,G]
    k["pd_op.group_norm"] = [](Context& c) {
        const Tensor& x = c.x(0);
        if (x.dims.size() < 2) c.fail("group_norm needs rank >= 2");
        if (c.attrString("data_format", "NCHW") != "NCHW") c.fail("attribute data_format: only NCHW group_norm is supported");
        int64_t groups = c.attrInt("groups", 1), nb = x.dims[0], ch = x.dims[1];
        if (groups < 1 || ch % groups) c.fail("attribute groups = " + std::to_string(groups) + " does not divide " + std::to_string(ch) + " channels");
        double eps = c.attrFloat("epsilon", 1e-5);
        int64_t sp = x.numel() / std::max<int64_t>(nb * ch, 1), per = ch / groups * sp;
        std::vector<double> v = x.toDoubles(), out(v.size()), mean(static_cast<size_t>(nb * groups)), var(mean.size());
        std::vector<double> scale = c.has(1) ? c.x(1).toDoubles() : std::vector<double>(ch, 1.0);
        std::vector<double> bias = c.has(2) ? c.x(2).toDoubles() : std::vector<double>(ch, 0.0);
        if (static_cast<int64_t>(scale.size()) != ch || static_cast<int64_t>(bias.size()) != ch) c.fail("scale/bias do not match the channels");
        for (int64_t n = 0; n < nb; ++n)
            for (int64_t gi = 0; gi < groups; ++gi) {
                const double* base = v.data() + (n * groups + gi) * per;
                double m = 0, q = 0;
                for (int64_t e = 0; e < per; ++e) m += base[e];
                m /= static_cast<double>(per);
                for (int64_t e = 0; e < per; ++e) q += (base[e] - m) * (base[e] - m);
                q /= static_cast<double>(per);
                mean[n * groups + gi] = m; var[n * groups + gi] = q;
                double inv = 1.0 / std::sqrt(q + eps);
                for (int64_t e = 0; e < per; ++e) {
                    int64_t chan = gi * (ch / groups) + e / sp;
                    out[(n * groups + gi) * per + e] = (base[e] - m) * inv * scale[chan] + bias[chan];
                }
            }
        c.setOutDoubles(0, x.dims, out);
        if (c.outputs.size() > 1 && !c.resultIsNull(1)) c.setOutDoubles(1, {nb, groups}, mean);
        if (c.outputs.size() > 2 && !c.resultIsNull(2)) c.setOutDoubles(2, {nb, groups}, var);
    };
    // -- instance_norm (x, scale, bias) {epsilon} -> y, saved_mean [N*C], saved_variance [N*C]
    //    (Paddle stores 1/sqrt(var + eps) in saved_variance).
    k["pd_op.instance_norm"] = [](Context& c) {
        const Tensor& x = c.x(0);
        if (x.dims.size() < 2) c.fail("instance_norm needs rank >= 2");
        int64_t nb = x.dims[0], ch = x.dims[1], sp = x.numel() / std::max<int64_t>(nb * ch, 1);
        double eps = c.attrFloat("epsilon", 1e-5);
        std::vector<double> v = x.toDoubles(), out(v.size()), mean(static_cast<size_t>(nb * ch)), inv(mean.size());
        std::vector<double> scale = c.has(1) ? c.x(1).toDoubles() : std::vector<double>(ch, 1.0);
        std::vector<double> bias = c.has(2) ? c.x(2).toDoubles() : std::vector<double>(ch, 0.0);
        if (static_cast<int64_t>(scale.size()) != ch || static_cast<int64_t>(bias.size()) != ch) c.fail("scale/bias do not match the channels");
        for (int64_t nc = 0; nc < nb * ch; ++nc) {
            const double* base = v.data() + nc * sp;
            double m = 0, q = 0;
            for (int64_t e = 0; e < sp; ++e) m += base[e];
            m /= static_cast<double>(std::max<int64_t>(sp, 1));
            for (int64_t e = 0; e < sp; ++e) q += (base[e] - m) * (base[e] - m);
            q /= static_cast<double>(std::max<int64_t>(sp, 1));
            mean[nc] = m; inv[nc] = 1.0 / std::sqrt(q + eps);
            for (int64_t e = 0; e < sp; ++e) out[nc * sp + e] = (base[e] - m) * inv[nc] * scale[nc % ch] + bias[nc % ch];
        }
        c.setOutDoubles(0, x.dims, out);
        if (c.outputs.size() > 1 && !c.resultIsNull(1)) c.setOutDoubles(1, {nb * ch}, mean);
        if (c.outputs.size() > 2 && !c.resultIsNull(2)) c.setOutDoubles(2, {nb * ch}, inv);
    };
    // -- rms_norm (x, bias, residual, norm_weight, norm_bias) {epsilon, begin_norm_axis}
    //    -> out, residual_out, inv_var: x' = x + bias + residual; out = x' / rms(x') * w + b.
    k["pd_op.rms_norm"] = [](Context& c) {
        const Tensor& x = c.x(0);
        LnShape s = lnShape(c, x.dims);
        double eps = c.attrFloat("epsilon", 1e-6);
        std::vector<double> v = x.toDoubles();
        if (c.has(1)) { std::vector<double> b = c.x(1).toDoubles(); if (static_cast<int64_t>(b.size()) != s.cols) c.fail("bias size differs from the normalized size"); for (size_t i = 0; i < v.size(); ++i) v[i] += b[i % b.size()]; }
        if (c.has(2)) { if (c.x(2).dims != x.dims) c.fail("residual shape differs from x"); std::vector<double> r = c.x(2).toDoubles(); for (size_t i = 0; i < v.size(); ++i) v[i] += r[i]; }
        std::vector<double> w = c.has(3) ? c.x(3).toDoubles() : std::vector<double>(), nb = c.has(4) ? c.x(4).toDoubles() : std::vector<double>();
        if ((!w.empty() && static_cast<int64_t>(w.size()) != s.cols) || (!nb.empty() && static_cast<int64_t>(nb.size()) != s.cols))
            c.fail("norm_weight/norm_bias size differs from the normalized size");
        std::vector<double> out(v.size()), invVar(static_cast<size_t>(s.rows));
        for (int64_t r = 0; r < s.rows; ++r) {
            double q = 0;
            for (int64_t j = 0; j < s.cols; ++j) q += v[r * s.cols + j] * v[r * s.cols + j];
            invVar[r] = 1.0 / std::sqrt(q / static_cast<double>(s.cols) + eps);
            for (int64_t j = 0; j < s.cols; ++j) {
                double y = v[r * s.cols + j] * invVar[r];
                if (!w.empty()) y *= w[j];
                if (!nb.empty()) y += nb[j];
                out[r * s.cols + j] = y;
            }
        }
        c.setOutDoubles(0, x.dims, out);
        if (c.outputs.size() > 1 && !c.resultIsNull(1)) c.setOutDoubles(1, x.dims, v);
        if (c.outputs.size() > 2 && !c.resultIsNull(2)) c.setOutDoubles(2, statDims(c, 2, s.rows), invVar);
    };

    // -- group_norm_grad (x, scale, bias, y, mean, variance, y_grad) {epsilon, groups, data_format}
    //    -> x_grad, scale_grad, bias_grad. The statistics are the forward's [N, G] outputs.
    k["pd_op.group_norm_grad"] = [](Context& c) {
        const Tensor& x = c.x(0);
        if (x.dims.size() < 2) c.fail("group_norm_grad needs rank >= 2");
        if (c.attrString("data_format", "NCHW") != "NCHW") c.fail("attribute data_format: only NCHW group_norm is supported");
        int64_t groups = c.attrInt("groups", 1), nb = x.dims[0], ch = x.dims[1];
        if (groups < 1 || ch % groups) c.fail("attribute groups = " + std::to_string(groups) + " does not divide " + std::to_string(ch) + " channels");
        double eps = c.attrFloat("epsilon", 1e-5);
        int64_t sp = x.numel() / std::max<int64_t>(nb * ch, 1), cpg = ch / groups, per = cpg * sp;
        std::vector<double> v = x.toDoubles(), mean = c.x(4).toDoubles(), var = c.x(5).toDoubles(), g = c.x(6).toDoubles();
        if (static_cast<int64_t>(mean.size()) != nb * groups || static_cast<int64_t>(var.size()) != nb * groups)
            c.fail("mean/variance hold " + std::to_string(mean.size()) + "/" + std::to_string(var.size()) + " values, expected N*groups = " + std::to_string(nb * groups));
        if (g.size() != v.size()) c.fail("y_grad " + dimsString(c.x(6).dims) + " differs from x " + dimsString(x.dims));
        std::vector<double> scale = c.has(1) ? c.x(1).toDoubles() : std::vector<double>(ch, 1.0);
        if (static_cast<int64_t>(scale.size()) != ch) c.fail("scale does not match the channels");
        std::vector<double> dx(v.size()), ds(ch, 0.0), db(ch, 0.0);
        for (int64_t n = 0; n < nb; ++n)
            for (int64_t gi = 0; gi < groups; ++gi) {
                const int64_t base = (n * groups + gi) * per;
                const double m = mean[n * groups + gi], inv = 1.0 / std::sqrt(var[n * groups + gi] + eps);
                double sumG = 0, sumGX = 0;  // over the group, of dy * scale and dy * scale * xhat
                for (int64_t e = 0; e < per; ++e) {
                    int64_t chan = gi * cpg + e / sp;
                    double xhat = (v[base + e] - m) * inv, gy = g[base + e] * scale[chan];
                    sumG += gy; sumGX += gy * xhat;
                    ds[chan] += g[base + e] * xhat; db[chan] += g[base + e];
                }
                const double cnt = static_cast<double>(per);
                for (int64_t e = 0; e < per; ++e) {
                    int64_t chan = gi * cpg + e / sp;
                    double xhat = (v[base + e] - m) * inv;
                    dx[base + e] = inv * (g[base + e] * scale[chan] - sumG / cnt - xhat * sumGX / cnt);
                }
            }
        if (!c.resultIsNull(0)) c.setOutDoubles(0, x.dims, dx);
        if (c.outputs.size() > 1 && !c.resultIsNull(1)) c.setOutDoubles(1, {ch}, ds);
        if (c.outputs.size() > 2 && !c.resultIsNull(2)) c.setOutDoubles(2, {ch}, db);
    };
    // -- instance_norm_grad (x, scale, saved_mean, saved_variance, y_grad) {epsilon}
    //    -> x_grad, scale_grad, bias_grad; saved_variance is the forward's 1/sqrt(var + eps).
    k["pd_op.instance_norm_grad"] = [](Context& c) {
        const Tensor& x = c.x(0);
        if (x.dims.size() < 2) c.fail("instance_norm_grad needs rank >= 2");
        int64_t nb = x.dims[0], ch = x.dims[1], sp = x.numel() / std::max<int64_t>(nb * ch, 1);
        std::vector<double> v = x.toDoubles(), mean = c.x(2).toDoubles(), inv = c.x(3).toDoubles(), g = c.x(4).toDoubles();
        if (static_cast<int64_t>(mean.size()) != nb * ch || static_cast<int64_t>(inv.size()) != nb * ch)
            c.fail("saved_mean/saved_variance hold " + std::to_string(mean.size()) + "/" + std::to_string(inv.size()) + " values, expected N*C = " + std::to_string(nb * ch));
        if (g.size() != v.size()) c.fail("y_grad " + dimsString(c.x(4).dims) + " differs from x " + dimsString(x.dims));
        std::vector<double> scale = c.has(1) ? c.x(1).toDoubles() : std::vector<double>(ch, 1.0);
        if (static_cast<int64_t>(scale.size()) != ch) c.fail("scale does not match the channels");
        std::vector<double> dx(v.size()), ds(ch, 0.0), db(ch, 0.0);
        const double cnt = static_cast<double>(std::max<int64_t>(sp, 1));
        for (int64_t nc = 0; nc < nb * ch; ++nc) {
            const int64_t chan = nc % ch, base = nc * sp;
            double sumG = 0, sumGX = 0;
            for (int64_t e = 0; e < sp; ++e) {
                double xhat = (v[base + e] - mean[nc]) * inv[nc];
                sumG += g[base + e]; sumGX += g[base + e] * xhat;
            }
            ds[chan] += sumGX; db[chan] += sumG;
            for (int64_t e = 0; e < sp; ++e) {
                double xhat = (v[base + e] - mean[nc]) * inv[nc];
                dx[base + e] = scale[chan] * inv[nc] * (g[base + e] - sumG / cnt - xhat * sumGX / cnt);
            }
        }
        if (!c.resultIsNull(0)) c.setOutDoubles(0, x.dims, dx);
        if (c.outputs.size() > 1 && !c.resultIsNull(1)) c.setOutDoubles(1, {ch}, ds);
        if (c.outputs.size() > 2 && !c.resultIsNull(2)) c.setOutDoubles(2, {ch}, db);
    };
    // -- rms_norm_grad (x, bias, residual, norm_weight, norm_bias, inv_var, out_grad) {epsilon,
    //    begin_norm_axis} -> x_grad, norm_weight_grad, norm_bias_grad. x_grad is also the
    //    gradient of bias (summed) and residual: all three enter through x' = x + bias + residual.
    k["pd_op.rms_norm_grad"] = [](Context& c) {
        const Tensor& x = c.x(0);
        LnShape s = lnShape(c, x.dims);
        std::vector<double> v = x.toDoubles();
        if (c.has(1)) { std::vector<double> b = c.x(1).toDoubles(); if (static_cast<int64_t>(b.size()) != s.cols) c.fail("bias size differs from the normalized size"); for (size_t i = 0; i < v.size(); ++i) v[i] += b[i % b.size()]; }
        if (c.has(2)) { if (c.x(2).dims != x.dims) c.fail("residual shape differs from x"); std::vector<double> r = c.x(2).toDoubles(); for (size_t i = 0; i < v.size(); ++i) v[i] += r[i]; }
        std::vector<double> w = c.has(3) ? c.x(3).toDoubles() : std::vector<double>();
        if (!w.empty() && static_cast<int64_t>(w.size()) != s.cols) c.fail("norm_weight size differs from the normalized size");
        std::vector<double> invVar = c.x(5).toDoubles(), g = c.x(6).toDoubles();
        if (static_cast<int64_t>(invVar.size()) != s.rows) c.fail("inv_var holds " + std::to_string(invVar.size()) + " values, expected " + std::to_string(s.rows) + " rows");
        if (g.size() != v.size()) c.fail("out_grad " + dimsString(c.x(6).dims) + " differs from x " + dimsString(x.dims));
        std::vector<double> dx(v.size()), dw(static_cast<size_t>(s.cols), 0.0), db(static_cast<size_t>(s.cols), 0.0);
        const double n = static_cast<double>(s.cols);
        for (int64_t r = 0; r < s.rows; ++r) {
            const double inv = invVar[r];
            double dot = 0;  // sum_j dy_j * w_j * x'_j
            for (int64_t j = 0; j < s.cols; ++j) {
                size_t i = r * s.cols + j;
                double gy = g[i] * (w.empty() ? 1.0 : w[j]);
                dot += gy * v[i];
                dw[j] += g[i] * v[i] * inv; db[j] += g[i];
            }
            for (int64_t j = 0; j < s.cols; ++j) {
                size_t i = r * s.cols + j;
                double gy = g[i] * (w.empty() ? 1.0 : w[j]);
                dx[i] = inv * gy - v[i] * inv * inv * inv * dot / n;
            }
        }
        if (!c.resultIsNull(0)) c.setOutDoubles(0, x.dims, dx);
        if (c.outputs.size() > 1 && !c.resultIsNull(1) && c.has(3)) c.setOutDoubles(1, c.x(3).dims, dw);
        if (c.outputs.size() > 2 && !c.resultIsNull(2) && c.has(4)) c.setOutDoubles(2, c.x(4).dims, db);
    };
}

}  // namespace rx::exec::cpu
