// Normalization kernels: softmax, log_softmax, layer_norm, batch/group/instance/rms norm and their grads.
#include "exec/cpu/KernelContext.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <optional>

namespace rx::exec::cpu {

namespace {
// A parameter-sized operand (scale, bias, statistics: one value per channel or column) as
// doubles, `count` of them; `fill` when the operand is absent. Fails when its size differs.
std::vector<double> paramValues(const Context& c, size_t i, int64_t count, double fill, const char* what) {
    if (!c.has(i)) return std::vector<double>(static_cast<size_t>(count), fill);
    const Tensor& t = c.x(i);
    if (t.numel() != count) c.fail(std::string(what) + " holds " + std::to_string(t.numel()) + " values, expected " + std::to_string(count));
    return t.toDoubles();
}
// Whether result i is declared and wanted.
bool wants(const Context& c, size_t i) { return c.outputs.size() > i && !c.resultIsNull(i); }

// Elements [begin, begin + n) of t as doubles, and doubles stored into them (as Tensor::set
// rounds them): the dtype resolved once a call, not once an element.
void loadDoubles(const Tensor& t, int64_t begin, int64_t n, double* out) {
    visitRealDType(t.dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        const T* p = t.data<T>() + begin;
        for (int64_t i = 0; i < n; ++i) out[i] = static_cast<double>(loadElement(p[i]));
    }, [&] { for (int64_t i = 0; i < n; ++i) out[i] = t.get(begin + i); });
}
void storeDoubles(Tensor& t, int64_t begin, int64_t n, const double* in) {
    visitRealDType(t.dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        T* p = t.data<T>() + begin;
        for (int64_t i = 0; i < n; ++i) p[i] = storeElement<T>(in[i]);
    }, [&] { for (int64_t i = 0; i < n; ++i) t.set(begin + i, in[i]); });
}
// A run of `n` contiguous elements walked in blocks: fn(first, len) for each block, in order,
// so sums over a run add in the order one sweep would.
constexpr int64_t kBlock = 1024;
template <class Fn>
void forBlocks(int64_t n, Fn&& fn) {
    for (int64_t first = 0; first < n; first += kBlock) fn(first, std::min(kBlock, n - first));
}

// A norm over groups of consecutive channels of NCHW-like x (group_norm; instance_norm: a
// channel a group) with scale and bias (operands 1, 2): stores y as result 0 and returns each
// (batch, group)'s mean and variance.
std::pair<std::vector<double>, std::vector<double>> groupedNorm(Context& c, const Tensor& x, const ChannelNormParams& p, int64_t groups) {
    const int64_t nb = p.batch, ch = p.channels, sp = p.spatial, cpg = ch / groups, per = cpg * sp;
    if ((c.has(1) && c.x(1).numel() != ch) || (c.has(2) && c.x(2).numel() != ch)) c.fail("scale/bias do not match the channels");
    const std::vector<double> scale = paramValues(c, 1, ch, 1.0, "scale"), bias = paramValues(c, 2, ch, 0.0, "bias");
    std::vector<double> mean(static_cast<size_t>(nb * groups)), var(mean.size()), xb(kBlock), yb(kBlock);
    Tensor out(c.outDType(0), x.dims);
    const double cnt = static_cast<double>(std::max<int64_t>(per, 1));
    for (int64_t n = 0; n < nb; ++n)
        for (int64_t gi = 0; gi < groups; ++gi) {
            const int64_t base = (n * groups + gi) * per;
            double m = 0, q = 0;
            forBlocks(per, [&](int64_t f, int64_t len) {
                loadDoubles(x, base + f, len, xb.data());
                for (int64_t j = 0; j < len; ++j) m += xb[j];
            });
            m /= cnt;
            forBlocks(per, [&](int64_t f, int64_t len) {
                loadDoubles(x, base + f, len, xb.data());
                for (int64_t j = 0; j < len; ++j) { const double d = xb[j] - m; q += d * d; }
            });
            q /= cnt;
            mean[n * groups + gi] = m; var[n * groups + gi] = q;
            const double inv = 1.0 / std::sqrt(q + p.epsilon);
            for (int64_t cc = 0; cc < cpg; ++cc) {  // channel by channel: its scale and bias
                const int64_t chan = gi * cpg + cc, start = base + cc * sp;
                forBlocks(sp, [&](int64_t f, int64_t len) {
                    loadDoubles(x, start + f, len, xb.data());
                    for (int64_t j = 0; j < len; ++j) yb[j] = (xb[j] - m) * inv * scale[chan] + bias[chan];
                    storeDoubles(out, start + f, len, yb.data());
                });
            }
        }
    c.setOut(0, std::move(out));
    return {std::move(mean), std::move(var)};
}

// x_grad, scale_grad, bias_grad of a norm over groups of consecutive channels of NCHW-like x
// (group_norm; instance_norm: a channel a group), from out_grad g, scale (operand 1) and each
// (batch, group)'s mean and 1/sqrt(var + eps), which stats(index) returns as a pair.
template <class Stats>
void groupedNormGrad(Context& c, const Tensor& x, const Tensor& g, const ChannelNormParams& p, int64_t groups, Stats&& stats) {
    const int64_t nb = p.batch, ch = p.channels, sp = p.spatial, cpg = ch / groups, per = cpg * sp;
    if (g.numel() != x.numel()) c.fail("y_grad " + dimsString(g.dims) + " differs from x " + dimsString(x.dims));
    if (c.has(1) && c.x(1).numel() != ch) c.fail("scale does not match the channels");
    const std::vector<double> scale = paramValues(c, 1, ch, 1.0, "scale");
    std::optional<Tensor> dx;
    if (!c.resultIsNull(0)) dx.emplace(c.outDType(0), x.dims);
    std::vector<double> ds(ch, 0.0), db(ch, 0.0), xb(kBlock), gb(kBlock);
    const double cnt = static_cast<double>(std::max<int64_t>(per, 1));
    for (int64_t n = 0; n < nb; ++n)
        for (int64_t gi = 0; gi < groups; ++gi) {
            const int64_t base = (n * groups + gi) * per;
            const auto [m, inv] = stats(n * groups + gi);
            // Channel by channel (its scale), each a run of sp elements, in order.
            auto forChannels = [&](auto&& fn) {
                for (int64_t cc = 0; cc < cpg; ++cc) {
                    const int64_t chan = gi * cpg + cc, start = base + cc * sp;
                    forBlocks(sp, [&](int64_t f, int64_t len) {
                        loadDoubles(x, start + f, len, xb.data());
                        loadDoubles(g, start + f, len, gb.data());
                        fn(chan, start + f, len);
                    });
                }
            };
            double sumG = 0, sumGX = 0;  // over the group, of dy * scale and dy * scale * xhat
            forChannels([&](int64_t chan, int64_t, int64_t len) {
                for (int64_t j = 0; j < len; ++j) {
                    const double ge = gb[j], xhat = (xb[j] - m) * inv, gy = ge * scale[chan];
                    sumG += gy; sumGX += gy * xhat;
                    ds[chan] += ge * xhat; db[chan] += ge;
                }
            });
            if (!dx) continue;
            forChannels([&](int64_t chan, int64_t first, int64_t len) {
                for (int64_t j = 0; j < len; ++j) {
                    const double xhat = (xb[j] - m) * inv;
                    xb[j] = inv * (gb[j] * scale[chan] - sumG / cnt - xhat * sumGX / cnt);
                }
                storeDoubles(*dx, first, len, xb.data());
            });
        }
    if (dx) c.setOut(0, std::move(*dx));
    if (wants(c, 1)) c.setOutDoubles(1, {ch}, ds);
    if (wants(c, 2)) c.setOutDoubles(2, {ch}, db);
}
}  // namespace

void registerNormKernels(KernelTable& table) {
    auto& k = table.kernels;
    // -- softmax --
    auto softmaxLike = [](bool logSoftmax) {
        return [logSoftmax](Context& c) {
            const Tensor& x = c.x(0);
            const AxisLanes lanes = softmaxLanes(c, x.dims);
            const int64_t n = lanes.n, inner = lanes.inner, outer = lanes.outer;
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
        const AxisLanes lanes = softmaxLanes(c, y.dims);
        const int64_t n = lanes.n, inner = lanes.inner, outer = lanes.outer;
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
    // Every norm below reads its tensors element by element in their dtype and stores results
    // as it computes them; only parameter-sized values (a row's or channel's statistics,
    // scale and bias) are held as doubles.
    k["pd_op.layer_norm"] = [](Context& c) {
        const Tensor& x = c.x(0);
        const RowNormParams s = rowNormParams(c, x.dims);
        std::vector<double> scale, bias;  // parameter-sized
        if (c.has(1)) scale = c.x(1).toDoubles();
        if (c.has(2)) bias = c.x(2).toDoubles();
        if ((!scale.empty() && static_cast<int64_t>(scale.size()) != s.cols) || (!bias.empty() && static_cast<int64_t>(bias.size()) != s.cols))
            c.fail("layer_norm scale/bias size differs from the normalized size");
        // One row at a time in double; the result is stored in its dtype as it is computed.
        std::vector<double> mean(s.rows), var(s.rows), rowValues(static_cast<size_t>(s.cols)), outRow(rowValues.size());
        Tensor out(c.outDType(0), x.dims);
        for (int64_t r = 0; r < s.rows; ++r) {
            loadDoubles(x, r * s.cols, s.cols, rowValues.data());
            const double* row = rowValues.data();
            double m = 0;
            for (int64_t j = 0; j < s.cols; ++j) m += row[j];
            m /= static_cast<double>(s.cols);
            double q = 0;
            for (int64_t j = 0; j < s.cols; ++j) q += (row[j] - m) * (row[j] - m);
            q /= static_cast<double>(s.cols);
            mean[r] = m; var[r] = q;
            double inv = 1.0 / std::sqrt(q + s.epsilon);
            for (int64_t j = 0; j < s.cols; ++j) {
                double y = (row[j] - m) * inv;
                if (!scale.empty()) y *= scale[j];
                if (!bias.empty()) y += bias[j];
                outRow[j] = y;
            }
            storeDoubles(out, r * s.cols, s.cols, outRow.data());
        }
        c.setOut(0, std::move(out));
        if (wants(c, 1)) c.setOutDoubles(1, rowStatDims(c, 1, s.rows), mean);
        if (wants(c, 2)) c.setOutDoubles(2, rowStatDims(c, 2, s.rows), var);
    };
    k["pd_op.layer_norm_grad"] = [](Context& c) {
        // (x, scale, bias, mean, variance, out_grad)
        const Tensor& x = c.x(0);
        const Tensor& g = c.x(5);
        const RowNormParams s = rowNormParams(c, x.dims);
        std::vector<double> scale;
        if (c.has(1)) scale = c.x(1).toDoubles();
        const Tensor& meanT = c.x(3);
        const Tensor& varT = c.x(4);
        if (meanT.numel() != s.rows || varT.numel() != s.rows) c.fail("layer_norm_grad statistics size mismatch");
        if (g.numel() != x.numel()) c.fail("out_grad " + dimsString(g.dims) + " differs from x " + dimsString(x.dims));
        std::optional<Tensor> dx;
        if (!c.resultIsNull(0)) dx.emplace(c.outDType(0), x.dims);
        // One row of x and out_grad at a time, as the forward holds one.
        std::vector<double> ds(s.cols, 0.0), db(s.cols, 0.0), xr(static_cast<size_t>(s.cols)), gr(xr.size());
        const double n = static_cast<double>(s.cols);
        for (int64_t r = 0; r < s.rows; ++r) {
            const double m = meanT.get(r), inv = 1.0 / std::sqrt(varT.get(r) + s.epsilon);
            loadDoubles(x, r * s.cols, s.cols, xr.data());
            loadDoubles(g, r * s.cols, s.cols, gr.data());
            double sumG = 0, sumGX = 0;
            for (int64_t j = 0; j < s.cols; ++j) {
                const double gi = gr[j], xhat = (xr[j] - m) * inv, gy = gi * (scale.empty() ? 1.0 : scale[j]);
                sumG += gy; sumGX += gy * xhat;
                ds[j] += gi * xhat; db[j] += gi;
            }
            if (!dx) continue;
            for (int64_t j = 0; j < s.cols; ++j) {
                const double xhat = (xr[j] - m) * inv, gy = gr[j] * (scale.empty() ? 1.0 : scale[j]);
                xr[j] = inv * (gy - sumG / n - xhat * sumGX / n);
            }
            storeDoubles(*dx, r * s.cols, s.cols, xr.data());
        }
        if (dx) c.setOut(0, std::move(*dx));
        if (wants(c, 1) && c.has(1)) c.setOutDoubles(1, c.x(1).dims, ds);
        if (wants(c, 2) && c.has(2)) c.setOutDoubles(2, c.x(2).dims, db);
    };

    // -- batch norm (NCHW or NC): out, mean_out, variance_out, saved_mean, saved_inv_std, reserve --
    auto batchNorm = [](Context& c) {
        const Tensor& x = c.x(0);
        const ChannelNormParams p = batchNormParams(c, x.dims);
        const int64_t ch = p.channels, nb = p.batch, sp = p.spatial;
        const Tensor& rmT = c.x(1);
        const Tensor& rvT = c.x(2);
        if (rmT.numel() != ch || rvT.numel() != ch || (c.has(3) && c.x(3).numel() != ch) || (c.has(4) && c.x(4).numel() != ch))
            c.fail("batch_norm statistics do not match the channel count");
        const std::vector<double> rm = rmT.toDoubles(), rv = rvT.toDoubles();
        const std::vector<double> scale = paramValues(c, 3, ch, 1.0, "scale"), bias = paramValues(c, 4, ch, 0.0, "bias");
        std::vector<double> mean(ch), var(ch), mOut(ch), vOut(ch), inv(ch), xb(kBlock);
        const double cnt = static_cast<double>(nb * sp);
        Tensor out(c.outDType(0), x.dims);
        // Channel k2's elements: a run of sp at (n * ch + k2) * sp for each n.
        auto forChannel = [&](int64_t k2, auto&& fn) {
            for (int64_t n = 0; n < nb; ++n) {
                const int64_t base = (n * ch + k2) * sp;
                forBlocks(sp, [&](int64_t f, int64_t len) { loadDoubles(x, base + f, len, xb.data()); fn(base + f, len); });
            }
        };
        for (int64_t k2 = 0; k2 < ch; ++k2) {
            if (p.useGlobalStats) { mean[k2] = rm[k2]; var[k2] = rv[k2]; }
            else {
                double m = 0, q = 0;
                forChannel(k2, [&](int64_t, int64_t len) { for (int64_t j = 0; j < len; ++j) m += xb[j]; });
                m /= cnt;
                forChannel(k2, [&](int64_t, int64_t len) { for (int64_t j = 0; j < len; ++j) { const double d = xb[j] - m; q += d * d; } });
                mean[k2] = m; var[k2] = q / cnt;
            }
            inv[k2] = 1.0 / std::sqrt(var[k2] + p.epsilon);
            mOut[k2] = p.useGlobalStats ? rm[k2] : p.momentum * rm[k2] + (1 - p.momentum) * mean[k2];
            vOut[k2] = p.useGlobalStats ? rv[k2] : p.momentum * rv[k2] + (1 - p.momentum) * var[k2];
            forChannel(k2, [&](int64_t first, int64_t len) {
                for (int64_t j = 0; j < len; ++j) xb[j] = (xb[j] - mean[k2]) * inv[k2] * scale[k2] + bias[k2];
                storeDoubles(out, first, len, xb.data());
            });
        }
        c.setOut(0, std::move(out));
        auto setIf = [&](size_t i, const std::vector<double>& d) {
            if (wants(c, i)) {
                Dims dd = c.staticDims(i).value_or(Dims{ch});
                if (numelOf(dd) == ch) c.setOutDoubles(i, {ch}, d);
                else c.setOut(i, Tensor(c.outDType(i), dd));  // reserve space: no data on CPU
            }
        };
        setIf(1, mOut); setIf(2, vOut); setIf(3, mean); setIf(4, inv);
        if (wants(c, 5)) c.setOut(5, Tensor(c.outDType(5), c.staticDims(5).value_or(Dims{0})));
    };
    k["pd_op.batch_norm"] = batchNorm;
    k["pd_op.batch_norm_"] = batchNorm;
    k["pd_op.batch_norm_grad"] = [](Context& c) {
        // (x, scale, bias, mean_out, variance_out, saved_mean, saved_inv_std, reserve_space, out_grad)
        const Tensor& x = c.x(0);
        const ChannelNormParams p = batchNormParams(c, x.dims);
        const int64_t ch = p.channels, nb = p.batch, sp = p.spatial;
        const std::vector<double> scale = paramValues(c, 1, ch, 1.0, "scale");
        const std::vector<double> mean = paramValues(c, 5, ch, 0.0, "saved_mean"), inv = paramValues(c, 6, ch, 1.0, "saved_inv_std");
        const Tensor& g = c.x(c.operandCount() - 1);
        if (g.numel() != x.numel()) c.fail("out_grad " + dimsString(g.dims) + " differs from x " + dimsString(x.dims));
        std::optional<Tensor> dx;
        if (!c.resultIsNull(0)) dx.emplace(c.outDType(0), x.dims);
        std::vector<double> ds(ch, 0.0), db(ch, 0.0), xb(kBlock), gb(kBlock);
        const double cnt = static_cast<double>(nb * sp);
        // Channel k2's elements of x and out_grad: a run of sp at (n * ch + k2) * sp for each n.
        auto forChannel = [&](int64_t k2, auto&& fn) {
            for (int64_t n = 0; n < nb; ++n) {
                const int64_t base = (n * ch + k2) * sp;
                forBlocks(sp, [&](int64_t f, int64_t len) {
                    loadDoubles(x, base + f, len, xb.data());
                    loadDoubles(g, base + f, len, gb.data());
                    fn(base + f, len);
                });
            }
        };
        for (int64_t k2 = 0; k2 < ch; ++k2) {
            double sg = 0, sgx = 0;
            forChannel(k2, [&](int64_t, int64_t len) {
                for (int64_t j = 0; j < len; ++j) {
                    const double xhat = (xb[j] - mean[k2]) * inv[k2];
                    sg += gb[j]; sgx += gb[j] * xhat;
                }
            });
            ds[k2] = sgx; db[k2] = sg;
            if (!dx) continue;
            forChannel(k2, [&](int64_t first, int64_t len) {
                for (int64_t j = 0; j < len; ++j) {
                    const double xhat = (xb[j] - mean[k2]) * inv[k2];
                    xb[j] = scale[k2] * inv[k2] * (gb[j] - sg / cnt - xhat * sgx / cnt);
                }
                storeDoubles(*dx, first, len, xb.data());
            });
        }
        if (dx) c.setOut(0, std::move(*dx));
        if (wants(c, 1)) c.setOutDoubles(1, {ch}, ds);
        if (wants(c, 2)) c.setOutDoubles(2, {ch}, db);
    };

    k["pd_op.batchnorm"] = k["pd_op.batch_norm"];  // the seed's spelling in COMPUTE_INTENSIVE_OPS

    // -- cross_entropy_with_softmax (input, label) {soft_label, use_softmax, numeric_stable_mode,
    //    ignore_index, axis} -> softmax, loss (the axis kept with size 1).
    k["pd_op.cross_entropy_with_softmax"] = [](Context& c) {
        const Tensor& x = c.x(0);
        const Tensor& label = c.x(1);
        const CrossEntropyParams p = crossEntropyParams(c, x.dims);
        const AxisLanes& s = p.lanes;
        if (p.softLabel ? label.dims != x.dims : label.numel() != s.outer * s.inner)
            c.fail("label " + dimsString(label.dims) + " does not match input " + dimsString(x.dims) + (p.softLabel ? " (soft labels)" : ""));
        Tensor sm(c.outDType(0), x.dims);
        std::vector<double> lane(static_cast<size_t>(s.n)), loss(static_cast<size_t>(s.outer * s.inner), 0.0);
        for (int64_t o = 0; o < s.outer; ++o)
            for (int64_t in = 0; in < s.inner; ++in) {
                auto at = [&](int64_t j) { return (o * s.n + j) * s.inner + in; };
                for (int64_t j = 0; j < s.n; ++j) lane[j] = x.get(at(j));
                double m = -INFINITY, sum = 0;
                if (p.useSoftmax) {
                    for (int64_t j = 0; j < s.n; ++j) m = std::max(m, lane[j]);
                    for (int64_t j = 0; j < s.n; ++j) sum += std::exp(lane[j] - m);
                }
                auto prob = [&](int64_t j) { return p.useSoftmax ? std::exp(lane[j] - m) / sum : lane[j]; };
                for (int64_t j = 0; j < s.n; ++j) sm.set(at(j), prob(j));
                double& l = loss[o * s.inner + in];
                if (p.softLabel) {
                    for (int64_t j = 0; j < s.n; ++j) l -= label.get(at(j)) * std::log(prob(j));
                } else {
                    int64_t t = static_cast<int64_t>(label.get(o * s.inner + in));
                    if (t == p.ignoreIndex) continue;
                    if (t < 0 || t >= s.n) c.fail("label " + std::to_string(t) + " is outside [0, " + std::to_string(s.n) + ")");
                    l = p.useSoftmax ? -(lane[t] - m - std::log(sum)) : -std::log(prob(t));
                }
            }
        c.setOut(0, std::move(sm));
        if (wants(c, 1)) c.setOutDoubles(1, p.lossDims, loss);
    };
    // (label, softmax, loss_grad) -> input_grad = (softmax - onehot(label)) * loss_grad.
    k["pd_op.cross_entropy_with_softmax_grad"] = [](Context& c) {
        const Tensor& label = c.x(0);
        const Tensor& sm = c.x(1);
        const Tensor& lg = c.x(2);
        const CrossEntropyParams p = crossEntropyParams(c, sm.dims);
        const AxisLanes& s = p.lanes;
        if (lg.numel() != s.outer * s.inner) c.fail("loss_grad " + dimsString(lg.dims) + " does not match " + dimsString(p.lossDims));
        Tensor dx(c.outDType(0), sm.dims);
        for (int64_t o = 0; o < s.outer; ++o)
            for (int64_t in = 0; in < s.inner; ++in) {
                const double g = lg.get(o * s.inner + in);
                const int64_t t = p.softLabel ? -1 : static_cast<int64_t>(label.get(o * s.inner + in));
                for (int64_t j = 0; j < s.n; ++j) {
                    const int64_t e = (o * s.n + j) * s.inner + in;
                    if (p.softLabel) dx.set(e, (sm.get(e) - label.get(e)) * g);
                    else dx.set(e, t == p.ignoreIndex ? 0.0 : (sm.get(e) - (j == t ? 1.0 : 0.0)) * g);
                }
            }
        c.setOut(0, std::move(dx));
    };
    // -- group_norm (x, scale, bias) {epsilon, groups, data_format NCHW} -> y, mean [N,G], variance [N,G]
    k["pd_op.group_norm"] = [](Context& c) {
        const Tensor& x = c.x(0);
        const ChannelNormParams p = groupNormParams(c, x.dims);
        const auto [mean, var] = groupedNorm(c, x, p, p.groups);
        if (wants(c, 1)) c.setOutDoubles(1, {p.batch, p.groups}, mean);
        if (wants(c, 2)) c.setOutDoubles(2, {p.batch, p.groups}, var);
    };
    // -- instance_norm (x, scale, bias) {epsilon} -> y, saved_mean [N*C], saved_variance [N*C]
    //    (Paddle stores 1/sqrt(var + eps) in saved_variance).
    k["pd_op.instance_norm"] = [](Context& c) {
        const Tensor& x = c.x(0);
        const ChannelNormParams p = instanceNormParams(c, x.dims);
        auto [mean, inv] = groupedNorm(c, x, p, p.channels);
        for (double& v : inv) v = 1.0 / std::sqrt(v + p.epsilon);
        if (wants(c, 1)) c.setOutDoubles(1, {p.batch * p.channels}, mean);
        if (wants(c, 2)) c.setOutDoubles(2, {p.batch * p.channels}, inv);
    };
    // rms_norm's normalised input x' = x + bias + residual (bias per column, residual like x),
    // a row at a time: operands checked once, nothing copied whole.
    struct RmsInput {
        const Tensor& x;
        std::vector<double> bias;   // per column, empty when absent
        const Tensor* residual = nullptr;
        int64_t cols = 1;
        // Row r of x' into row; `scratch` holds cols doubles (the residual's row).
        void loadRow(int64_t r, double* row, double* scratch) const {
            loadDoubles(x, r * cols, cols, row);
            if (!bias.empty()) for (int64_t j = 0; j < cols; ++j) row[j] += bias[static_cast<size_t>(j)];
            if (residual) {
                loadDoubles(*residual, r * cols, cols, scratch);
                for (int64_t j = 0; j < cols; ++j) row[j] += scratch[j];
            }
        }
    };
    auto rmsInput = [](const Context& c, const RowNormParams& s) {
        const Tensor& x = c.x(0);
        RmsInput in{x, {}, nullptr, s.cols};
        if (c.has(1)) { in.bias = c.x(1).toDoubles(); if (static_cast<int64_t>(in.bias.size()) != s.cols) c.fail("bias size differs from the normalized size"); }
        if (c.has(2)) { if (c.x(2).dims != x.dims) c.fail("residual shape differs from x"); in.residual = &c.x(2); }
        return in;
    };
    // -- rms_norm (x, bias, residual, norm_weight, norm_bias) {epsilon, begin_norm_axis}
    //    -> out, residual_out, inv_var: x' = x + bias + residual; out = x' / rms(x') * w + b.
    k["pd_op.rms_norm"] = [rmsInput](Context& c) {
        const Tensor& x = c.x(0);
        const RowNormParams s = rowNormParams(c, x.dims);
        const RmsInput in = rmsInput(c, s);
        std::vector<double> w = c.has(3) ? c.x(3).toDoubles() : std::vector<double>(), nb = c.has(4) ? c.x(4).toDoubles() : std::vector<double>();
        if ((!w.empty() && static_cast<int64_t>(w.size()) != s.cols) || (!nb.empty() && static_cast<int64_t>(nb.size()) != s.cols))
            c.fail("norm_weight/norm_bias size differs from the normalized size");
        Tensor out(c.outDType(0), x.dims);
        std::optional<Tensor> residualOut;
        if (wants(c, 1)) residualOut.emplace(c.outDType(1), x.dims);
        std::vector<double> invVar(static_cast<size_t>(s.rows)), row(static_cast<size_t>(s.cols)), scratch(row.size());
        for (int64_t r = 0; r < s.rows; ++r) {
            in.loadRow(r, row.data(), scratch.data());
            double q = 0;
            for (int64_t j = 0; j < s.cols; ++j) q += row[j] * row[j];
            invVar[r] = 1.0 / std::sqrt(q / static_cast<double>(s.cols) + s.epsilon);
            if (residualOut) storeDoubles(*residualOut, r * s.cols, s.cols, row.data());
            for (int64_t j = 0; j < s.cols; ++j) {
                double y = row[j] * invVar[r];
                if (!w.empty()) y *= w[j];
                if (!nb.empty()) y += nb[j];
                scratch[j] = y;
            }
            storeDoubles(out, r * s.cols, s.cols, scratch.data());
        }
        c.setOut(0, std::move(out));
        if (residualOut) c.setOut(1, std::move(*residualOut));
        if (wants(c, 2)) c.setOutDoubles(2, rowStatDims(c, 2, s.rows), invVar);
    };

    // -- group_norm_grad (x, scale, bias, y, mean, variance, y_grad) {epsilon, groups, data_format}
    //    -> x_grad, scale_grad, bias_grad. The statistics are the forward's [N, G] outputs.
    k["pd_op.group_norm_grad"] = [](Context& c) {
        const Tensor& x = c.x(0);
        const ChannelNormParams p = groupNormParams(c, x.dims);
        const Tensor& meanT = c.x(4);
        const Tensor& varT = c.x(5);
        const int64_t count = p.batch * p.groups;
        if (meanT.numel() != count || varT.numel() != count)
            c.fail("mean/variance hold " + std::to_string(meanT.numel()) + "/" + std::to_string(varT.numel()) + " values, expected N*groups = " + std::to_string(count));
        groupedNormGrad(c, x, c.x(6), p, p.groups,
                        [&](int64_t i) { return std::pair<double, double>(meanT.get(i), 1.0 / std::sqrt(varT.get(i) + p.epsilon)); });
    };
    // -- instance_norm_grad (x, scale, saved_mean, saved_variance, y_grad) {epsilon}
    //    -> x_grad, scale_grad, bias_grad; saved_variance is the forward's 1/sqrt(var + eps).
    k["pd_op.instance_norm_grad"] = [](Context& c) {
        const Tensor& x = c.x(0);
        const ChannelNormParams p = instanceNormParams(c, x.dims);
        const Tensor& meanT = c.x(2);
        const Tensor& invT = c.x(3);
        const int64_t count = p.batch * p.channels;
        if (meanT.numel() != count || invT.numel() != count)
            c.fail("saved_mean/saved_variance hold " + std::to_string(meanT.numel()) + "/" + std::to_string(invT.numel()) + " values, expected N*C = " + std::to_string(count));
        groupedNormGrad(c, x, c.x(4), p, p.channels, [&](int64_t i) { return std::pair<double, double>(meanT.get(i), invT.get(i)); });
    };
    // -- rms_norm_grad (x, bias, residual, norm_weight, norm_bias, inv_var, out_grad) {epsilon,
    //    begin_norm_axis} -> x_grad, norm_weight_grad, norm_bias_grad. x_grad is also the
    //    gradient of bias (summed) and residual: all three enter through x' = x + bias + residual.
    k["pd_op.rms_norm_grad"] = [rmsInput](Context& c) {
        const Tensor& x = c.x(0);
        const RowNormParams s = rowNormParams(c, x.dims);
        const RmsInput in = rmsInput(c, s);
        std::vector<double> w = c.has(3) ? c.x(3).toDoubles() : std::vector<double>();
        if (!w.empty() && static_cast<int64_t>(w.size()) != s.cols) c.fail("norm_weight size differs from the normalized size");
        const Tensor& invT = c.x(5);
        const Tensor& g = c.x(6);
        if (invT.numel() != s.rows) c.fail("inv_var holds " + std::to_string(invT.numel()) + " values, expected " + std::to_string(s.rows) + " rows");
        if (g.numel() != x.numel()) c.fail("out_grad " + dimsString(g.dims) + " differs from x " + dimsString(x.dims));
        std::optional<Tensor> dx;
        if (!c.resultIsNull(0)) dx.emplace(c.outDType(0), x.dims);
        const size_t cols = static_cast<size_t>(s.cols);
        std::vector<double> dw(cols, 0.0), db(cols, 0.0), row(cols), gr(cols), scratch(cols);
        const double n = static_cast<double>(s.cols);
        for (int64_t r = 0; r < s.rows; ++r) {
            const double inv = invT.get(r);
            in.loadRow(r, row.data(), scratch.data());
            loadDoubles(g, r * s.cols, s.cols, gr.data());
            double dot = 0;  // sum_j dy_j * w_j * x'_j
            for (int64_t j = 0; j < s.cols; ++j) {
                const double gi = gr[j], gy = gi * (w.empty() ? 1.0 : w[j]);
                dot += gy * row[j];
                dw[j] += gi * row[j] * inv; db[j] += gi;
            }
            if (!dx) continue;
            for (int64_t j = 0; j < s.cols; ++j) {
                const double gy = gr[j] * (w.empty() ? 1.0 : w[j]);
                scratch[j] = inv * gy - row[j] * inv * inv * inv * dot / n;
            }
            storeDoubles(*dx, r * s.cols, s.cols, scratch.data());
        }
        if (dx) c.setOut(0, std::move(*dx));
        if (wants(c, 1) && c.has(3)) c.setOutDoubles(1, c.x(3).dims, dw);
        if (wants(c, 2) && c.has(4)) c.setOutDoubles(2, c.x(4).dims, db);
    };
}

}  // namespace rx::exec::cpu
