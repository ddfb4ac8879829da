#pragma once
// Conformance value cases for the network families: log_softmax, the norms (layer, batch,
// group, instance, rms), cross entropy, attention (flash_attn), rotary embedding, convolution
// (strided, padded, dilated, grouped, depthwise), max pool with index, interpolation. The
// expectations come from the small reference formulas below, written from the definitions.
#include "exec/conformance/Cases.h"

namespace rx::conformance {

namespace ref {

// Normalises rows of `cols` values: (x - mean) / sqrt(var + eps) * scale + bias; mean and var per row.
inline std::vector<double> normalizeRows(const std::vector<double>& x, int64_t cols, double eps, const std::vector<double>& scale,
                                         const std::vector<double>& bias, std::vector<double>* means = nullptr, std::vector<double>* vars = nullptr,
                                         const std::function<int64_t(int64_t row, int64_t col)>& channel = {}) {
    std::vector<double> out(x.size());
    for (size_t r = 0; r * cols < x.size(); ++r) {
        double m = 0, q = 0;
        for (int64_t j = 0; j < cols; ++j) m += x[r * cols + j];
        m /= static_cast<double>(cols);
        for (int64_t j = 0; j < cols; ++j) q += (x[r * cols + j] - m) * (x[r * cols + j] - m);
        q /= static_cast<double>(cols);
        if (means) means->push_back(m);
        if (vars) vars->push_back(q);
        for (int64_t j = 0; j < cols; ++j) {
            const int64_t ch = channel ? channel(static_cast<int64_t>(r), j) : j;
            out[r * cols + j] = (x[r * cols + j] - m) / std::sqrt(q + eps) * (scale.empty() ? 1.0 : scale[ch]) + (bias.empty() ? 0.0 : bias[ch]);
        }
    }
    return out;
}

// NCHW convolution from the definition: out[n, o, i, j] = sum over the group's channels and
// the window of x (zero outside) * w.
inline std::vector<double> conv2d(const std::vector<double>& x, Dims xd, const std::vector<double>& w, Dims wd, Dims stride, Dims pad,
                                  Dims dil, int64_t groups, Dims& od) {
    const int64_t n = xd[0], cin = xd[1], h = xd[2], wi = xd[3], cout = wd[0], cpg = wd[1], kh = wd[2], kw = wd[3];
    const int64_t oh = (h + 2 * pad[0] - dil[0] * (kh - 1) - 1) / stride[0] + 1, ow = (wi + 2 * pad[1] - dil[1] * (kw - 1) - 1) / stride[1] + 1;
    od = {n, cout, oh, ow};
    std::vector<double> out(static_cast<size_t>(n * cout * oh * ow), 0.0);
    for (int64_t b = 0; b < n; ++b)
        for (int64_t o = 0; o < cout; ++o) {
            const int64_t g = o / (cout / groups);
            for (int64_t i = 0; i < oh; ++i)
                for (int64_t j = 0; j < ow; ++j) {
                    double s = 0;
                    for (int64_t c = 0; c < cpg; ++c)
                        for (int64_t a = 0; a < kh; ++a)
                            for (int64_t e = 0; e < kw; ++e) {
                                const int64_t y = i * stride[0] - pad[0] + a * dil[0], z = j * stride[1] - pad[1] + e * dil[1];
                                if (y < 0 || y >= h || z < 0 || z >= wi) continue;
                                s += x[((b * cin + g * cpg + c) * h + y) * wi + z] * w[((o * cpg + c) * kh + a) * kw + e];
                            }
                    out[((b * cout + o) * oh + i) * ow + j] = s;
                }
        }
    return out;
}

// Scaled dot-product attention, [b, s, h, d] layout, one head group per k/v head.
inline std::vector<double> attention(const std::vector<double>& q, const std::vector<double>& k, const std::vector<double>& v, int64_t sq,
                                     int64_t sk, int64_t d, bool causal, std::vector<double>* lse) {
    std::vector<double> out(static_cast<size_t>(sq * d), 0.0);
    for (int64_t i = 0; i < sq; ++i) {
        std::vector<double> s(static_cast<size_t>(sk));
        double sum = 0;
        for (int64_t j = 0; j < sk; ++j) {
            double dot = 0;
            for (int64_t e = 0; e < d; ++e) dot += q[i * d + e] * k[j * d + e];
            const bool masked = causal && j > i + (sk - sq);  // bottom-right aligned
            s[j] = masked ? 0.0 : std::exp(dot / std::sqrt(static_cast<double>(d)));
            sum += s[j];
        }
        if (lse) lse->push_back(std::log(sum));
        for (int64_t j = 0; j < sk; ++j)
            for (int64_t e = 0; e < d; ++e) out[i * d + e] += s[j] / sum * v[j * d + e];
    }
    return out;
}

}  // namespace ref

inline std::vector<ValueCase> networkValueCases() {
    std::vector<ValueCase> c;
    const std::vector<double> x23 = {1, 2, 3, 4, 5, 6};
    {
        std::vector<double> out;
        for (int r = 0; r < 2; ++r) {
            double s = 0;
            for (int j = 0; j < 3; ++j) s += std::exp(x23[r * 3 + j]);
            for (int j = 0; j < 3; ++j) out.push_back(x23[r * 3 + j] - std::log(s));
        }
        c.push_back({"pd_op.log_softmax", [x23](CaseBuilder& b) {
                         b.fetch(b.op("pd_op.log_softmax", {b.f64("x", {2, 3}, x23)}, F, {2, 3}, {{"axis", Attribute::int32(-1)}}));
                     },
                     {{{2, 3}, out}}, 1e-12});
        std::vector<double> out0;  // along axis 0 of [2, 3]
        for (int j = 0; j < 3; ++j) out0.push_back(0);
        out0.insert(out0.end(), 3, 0);
        for (int j = 0; j < 3; ++j) {
            const double l = std::log(std::exp(x23[j]) + std::exp(x23[3 + j]));
            out0[j] = x23[j] - l;
            out0[3 + j] = x23[3 + j] - l;
        }
        c.push_back({"pd_op.log_softmax", [x23](CaseBuilder& b) {
                         b.fetch(b.op("pd_op.log_softmax", {b.f64("x", {2, 3}, x23)}, F, {2, 3}, {{"axis", Attribute::int32(0)}}));
                     },
                     {{{2, 3}, out0}}, 1e-12});
    }
    {  // layer_norm over the last axis, with scale and bias
        const std::vector<double> x = {1, 2, 4, -1, 0, 7}, scale = {1, 2, 0.5}, bias = {0, 1, -1};
        std::vector<double> means, vars;
        std::vector<double> out = ref::normalizeRows(x, 3, 1e-5, scale, bias, &means, &vars);
        c.push_back({"pd_op.layer_norm", [=](CaseBuilder& b) {
                         b.fetchAll(b.ops("pd_op.layer_norm", {b.f64("x", {2, 3}, x), b.f64("s", {3}, scale), b.f64("b", {3}, bias)},
                                          {{F, {2, 3}}, {F, {2}}, {F, {2}}}, {{"epsilon", Attribute::float32(1e-5f)}, {"begin_norm_axis", Attribute::int32(1)}}));
                     },
                     {{{2, 3}, out}, {{2}, means}, {{2}, vars}}, 1e-9});
        std::vector<double> whole = ref::normalizeRows(x, 6, 1e-5, {}, {});
        c.push_back({"pd_op.layer_norm", [=](CaseBuilder& b) {  // begin_norm_axis 0, no scale or bias
                         b.fetch(b.ops("pd_op.layer_norm", {b.f64("x", {2, 3}, x)}, {{F, {2, 3}}, {F, {1}}, {F, {1}}},
                                       {{"epsilon", Attribute::float32(1e-5f)}, {"begin_norm_axis", Attribute::int32(0)}})[0]);
                     },
                     {{{2, 3}, whole}}, 1e-9});
    }
    {  // batch_norm [N=2, C=2, 1, 2]: training statistics per channel, running averages with momentum
        const std::vector<double> x = {1, 3, 10, 20, 5, 7, 30, 0}, rm = {0.5, -1}, rv = {2, 3}, scale = {2, 0.5}, bias = {1, -1};
        const double eps = 1e-5f, mom = 0.9f;  // the attributes are float32
        std::vector<double> out(8), mean(2), var(2), mOut(2), vOut(2), inv(2);
        for (int ch = 0; ch < 2; ++ch) {
            std::vector<double> e = {x[ch * 2], x[ch * 2 + 1], x[4 + ch * 2], x[4 + ch * 2 + 1]};
            double m = (e[0] + e[1] + e[2] + e[3]) / 4, q = 0;
            for (double v : e) q += (v - m) * (v - m) / 4;
            mean[ch] = m; var[ch] = q; inv[ch] = 1 / std::sqrt(q + eps);
            mOut[ch] = mom * rm[ch] + (1 - mom) * m;
            vOut[ch] = mom * rv[ch] + (1 - mom) * q;
            for (int n = 0; n < 2; ++n)
                for (int s = 0; s < 2; ++s) out[n * 4 + ch * 2 + s] = (x[n * 4 + ch * 2 + s] - m) * inv[ch] * scale[ch] + bias[ch];
        }
        std::vector<double> test(8);  // is_test: the running statistics
        for (int i = 0; i < 8; ++i) {
            const int ch = (i / 2) % 2;
            test[i] = (x[i] - rm[ch]) / std::sqrt(rv[ch] + eps) * scale[ch] + bias[ch];
        }
        for (const char* op : {"pd_op.batch_norm", "pd_op.batch_norm_", "pd_op.batchnorm"}) {
            c.push_back({op, [=](CaseBuilder& b) {
                             std::vector<ValueId> r = b.ops(op, {b.f64("x", {2, 2, 1, 2}, x), b.f64("m", {2}, rm), b.f64("v", {2}, rv), b.f64("s", {2}, scale), b.f64("b", {2}, bias)},
                                                            {{F, {2, 2, 1, 2}}, {F, {2}}, {F, {2}}, {F, {2}}, {F, {2}}, {F, {0}}},
                                                            {{"epsilon", Attribute::float32(1e-5f)}, {"momentum", Attribute::float32(0.9f)},
                                                             {"is_test", Attribute::boolean(false)}, {"data_format", Attribute::string("NCHW")}});
                             r.pop_back();  // reserve space: no data on the CPU
                             b.fetchAll(r);
                         },
                         {{{2, 2, 1, 2}, out}, {{2}, mOut}, {{2}, vOut}, {{2}, mean}, {{2}, inv}}, 1e-6});
        }
        c.push_back({"pd_op.batch_norm", [=](CaseBuilder& b) {
                         b.fetch(b.ops("pd_op.batch_norm", {b.f64("x", {2, 2, 1, 2}, x), b.f64("m", {2}, rm), b.f64("v", {2}, rv), b.f64("s", {2}, scale), b.f64("b", {2}, bias)},
                                       {{F, {2, 2, 1, 2}}, {F, {2}}, {F, {2}}, {F, {2}}, {F, {2}}, {F, {0}}},
                                       {{"epsilon", Attribute::float32(1e-5f)}, {"is_test", Attribute::boolean(true)}, {"data_format", Attribute::string("NCHW")}})[0]);
                     },
                     {{{2, 2, 1, 2}, test}}, 1e-6});
    }
    {  // group_norm [1, 4, 1, 2], 2 groups of 2 channels
        const std::vector<double> x = {1, 2, 3, 8, -1, 0, 5, 2}, scale = {1, 2, 3, 4}, bias = {0, 0, 1, 1};
        std::vector<double> means, vars;
        std::vector<double> out = ref::normalizeRows(x, 4, 1e-5, scale, bias, &means, &vars, [](int64_t r, int64_t j) { return r * 2 + j / 2; });
        c.push_back({"pd_op.group_norm", [=](CaseBuilder& b) {
                         b.fetchAll(b.ops("pd_op.group_norm", {b.f64("x", {1, 4, 1, 2}, x), b.f64("s", {4}, scale), b.f64("b", {4}, bias)},
                                          {{F, {1, 4, 1, 2}}, {F, {1, 2}}, {F, {1, 2}}},
                                          {{"epsilon", Attribute::float32(1e-5f)}, {"groups", Attribute::int32(2)}, {"data_format", Attribute::string("NCHW")}}));
                     },
                     {{{1, 4, 1, 2}, out}, {{1, 2}, means}, {{1, 2}, vars}}, 1e-6});
    }
    {  // instance_norm [1, 2, 1, 3]: per (n, c); saved_variance is 1/sqrt(var + eps)
        const std::vector<double> x = {1, 2, 6, 0, -3, 3}, scale = {2, 1}, bias = {0.5, 0};
        std::vector<double> means, vars;
        std::vector<double> out = ref::normalizeRows(x, 3, 1e-5, {}, {}, &means, &vars);
        for (int i = 0; i < 6; ++i) out[i] = out[i] * scale[i / 3] + bias[i / 3];
        std::vector<double> inv = mapped(vars, [](double v) { return 1 / std::sqrt(v + 1e-5); });
        c.push_back({"pd_op.instance_norm", [=](CaseBuilder& b) {
                         b.fetchAll(b.ops("pd_op.instance_norm", {b.f64("x", {1, 2, 1, 3}, x), b.f64("s", {2}, scale), b.f64("b", {2}, bias)},
                                          {{F, {1, 2, 1, 3}}, {F, {2}}, {F, {2}}}, {{"epsilon", Attribute::float32(1e-5f)}}));
                     },
                     {{{1, 2, 1, 3}, out}, {{2}, means}, {{2}, inv}}, 1e-6});
    }
    {  // rms_norm: x' = x + bias + residual; out = x' / rms(x') * w + b
        const std::vector<double> x = {1, -2, 3, 0.5, 0, 2}, bias = {0.5, 0, -0.5}, res = {0, 1, 0, 1, 0, 1}, w = {1, 2, 3}, nb = {0, 0.1, 0.2};
        std::vector<double> xs(6), out(6), inv(2);
        for (int i = 0; i < 6; ++i) xs[i] = x[i] + bias[i % 3] + res[i];
        for (int r = 0; r < 2; ++r) {
            double q = 0;
            for (int j = 0; j < 3; ++j) q += xs[r * 3 + j] * xs[r * 3 + j] / 3;
            inv[r] = 1 / std::sqrt(q + 1e-6);
            for (int j = 0; j < 3; ++j) out[r * 3 + j] = xs[r * 3 + j] * inv[r] * w[j] + nb[j];
        }
        c.push_back({"pd_op.rms_norm", [=](CaseBuilder& b) {
                         b.fetchAll(b.ops("pd_op.rms_norm", {b.f64("x", {2, 3}, x), b.f64("bias", {3}, bias), b.f64("r", {2, 3}, res), b.f64("w", {3}, w), b.f64("nb", {3}, nb)},
                                          {{F, {2, 3}}, {F, {2, 3}}, {F, {2}}}, {{"epsilon", Attribute::float32(1e-6f)}, {"begin_norm_axis", Attribute::int32(1)}}));
                     },
                     {{{2, 3}, out}, {{2, 3}, xs}, {{2}, inv}}, 1e-6});
    }
    {  // cross_entropy_with_softmax: hard labels (one ignored) and soft labels
        const std::vector<double> x = {1, 2, 3, 0, 0, 0, 2, -1, 0.5};
        std::vector<double> sm(9), hard(3, 0.0), soft(3, 0.0);
        const std::vector<double> labels = {2, -100, 0}, q = {0.2, 0.3, 0.5, 1, 0, 0, 0, 0.5, 0.5};
        for (int r = 0; r < 3; ++r) {
            double s = 0;
            for (int j = 0; j < 3; ++j) s += std::exp(x[r * 3 + j]);
            for (int j = 0; j < 3; ++j) sm[r * 3 + j] = std::exp(x[r * 3 + j]) / s;
            if (labels[r] >= 0) hard[r] = -std::log(sm[r * 3 + static_cast<int>(labels[r])]);
            for (int j = 0; j < 3; ++j) soft[r] -= q[r * 3 + j] * std::log(sm[r * 3 + j]);
        }
        c.push_back({"pd_op.cross_entropy_with_softmax", [=](CaseBuilder& b) {
                         b.fetchAll(b.ops("pd_op.cross_entropy_with_softmax", {b.f64("x", {3, 3}, x), b.i64("l", {3, 1}, labels)}, {{F, {3, 3}}, {F, {3, 1}}},
                                          {{"soft_label", Attribute::boolean(false)}, {"use_softmax", Attribute::boolean(true)},
                                           {"ignore_index", Attribute::int64(-100)}, {"axis", Attribute::int32(-1)}}));
                     },
                     {{{3, 3}, sm}, {{3, 1}, hard}}, 1e-12});
        c.push_back({"pd_op.cross_entropy_with_softmax", [=](CaseBuilder& b) {
                         b.fetch(b.ops("pd_op.cross_entropy_with_softmax", {b.f64("x", {3, 3}, x), b.f64("l", {3, 3}, q)}, {{F, {3, 3}}, {F, {3, 1}}},
                                       {{"soft_label", Attribute::boolean(true)}, {"axis", Attribute::int32(-1)}})[1]);
                     },
                     {{{3, 1}, soft}}, 1e-12});
    }
    {  // flash_attn: one batch and head, sq 2, sk 3, d 2; plain and causal (bottom-right aligned)
        const std::vector<double> q = {0.1, 0.2, -0.3, 0.5}, k = {1, 0, 0, 1, -1, 1}, v = {1, 2, 3, 4, 5, 6};
        for (bool causal : {false, true}) {
            std::vector<double> lse;
            std::vector<double> out = ref::attention(q, k, v, 2, 3, 2, causal, &lse);
            c.push_back({"pd_op.flash_attn", [=](CaseBuilder& b) {
                             std::vector<ValueId> r = b.ops("pd_op.flash_attn", {b.f64("q", {1, 2, 1, 2}, q), b.f64("k", {1, 3, 1, 2}, k), b.f64("v", {1, 3, 1, 2}, v)},
                                                            {{F, {1, 2, 1, 2}}, {F, {0}}, {F, {1, 1, 2}}, {I64, {2}}},
                                                            {{"dropout", Attribute::float32(0)}, {"causal", Attribute::boolean(causal)},
                                                             {"return_softmax", Attribute::boolean(false)}, {"is_test", Attribute::boolean(true)}});
                             b.fetch(r[0]);
                             b.fetch(r[2]);
                         },
                         {{{1, 2, 1, 2}, out}, {{1, 1, 2}, lse}}, 1e-12});
        }
    }
    {  // rotary embedding without sin/cos: theta = pos * 10000^(-2i/d); neox halves and interleaved pairs
        const std::vector<double> q = {1, 2, 3, 4, 5, 6, 7, 8};  // [1, 2, 1, 4]: positions 0 and 1
        for (bool neox : {true, false}) {
            std::vector<double> out(8);
            for (int p = 0; p < 2; ++p)
                for (int j = 0; j < 4; ++j) {
                    const int idx = neox ? j % 2 : j / 2;
                    const double th = p * std::pow(10000.0, -2.0 * idx / 4.0);
                    const int partner = neox ? (j < 2 ? j + 2 : j - 2) : (j % 2 ? j - 1 : j + 1);
                    const double sign = neox ? (j < 2 ? -1 : 1) : (j % 2 ? 1 : -1);  // rotate (a, b) to (a cos - b sin, b cos + a sin)
                    out[p * 4 + j] = q[p * 4 + j] * std::cos(th) + sign * q[p * 4 + partner] * std::sin(th);
                }
            c.push_back({"pd_op.fused_rotary_position_embedding", [=](CaseBuilder& b) {
                             b.fetch(b.op("pd_op.fused_rotary_position_embedding", {b.f64("q", {1, 2, 1, 4}, q)}, F, {1, 2, 1, 4},
                                          {{"use_neox_rotary_style", Attribute::boolean(neox)}, {"time_major", Attribute::boolean(false)},
                                           {"rotary_emb_base", Attribute::float32(10000)}}));
                         },
                         {{{1, 2, 1, 4}, out}}, 1e-12});
        }
    }
    auto convAttrs = [](Dims stride, Dims pad, Dims dil, int64_t groups) {
        return std::vector<NamedAttribute>{{"strides", Attribute::intArray(stride)}, {"paddings", Attribute::intArray(pad)},
                                           {"dilations", Attribute::intArray(dil)}, {"groups", Attribute::int32(static_cast<int32_t>(groups))},
                                           {"padding_algorithm", Attribute::string("EXPLICIT")}, {"data_format", Attribute::string("NCHW")}};
    };
    {  // conv2d: stride 2, padding 1, two output channels; dilation 2; depthwise (groups = channels)
        const std::vector<double> x = iota(2 * 5 * 5, -10, 0.5), w = iota(2 * 2 * 3 * 3, 1, -0.25);
        Dims od;
        std::vector<double> strided = ref::conv2d(x, {1, 2, 5, 5}, w, {2, 2, 3, 3}, {2, 2}, {1, 1}, {1, 1}, 1, od);
        c.push_back({"pd_op.conv2d", [=](CaseBuilder& b) {
                         b.fetch(b.op("pd_op.conv2d", {b.f64("x", {1, 2, 5, 5}, x), b.f64("w", {2, 2, 3, 3}, w)}, F, od, convAttrs({2, 2}, {1, 1}, {1, 1}, 1)));
                     },
                     {{od, strided}}, 1e-9});
        Dims od2;
        std::vector<double> dilated = ref::conv2d(x, {1, 2, 5, 5}, w, {2, 2, 3, 3}, {1, 1}, {0, 0}, {2, 2}, 1, od2);
        c.push_back({"pd_op.conv2d", [=](CaseBuilder& b) {
                         b.fetch(b.op("pd_op.conv2d", {b.f64("x", {1, 2, 5, 5}, x), b.f64("w", {2, 2, 3, 3}, w)}, F, od2, convAttrs({1, 1}, {0, 0}, {2, 2}, 1)));
                     },
                     {{od2, dilated}}, 1e-9});
        const std::vector<double> wd = iota(2 * 1 * 2 * 2, 0.5, 0.5);
        Dims od3;
        std::vector<double> depthwise = ref::conv2d(x, {1, 2, 5, 5}, wd, {2, 1, 2, 2}, {1, 2}, {0, 1}, {1, 1}, 2, od3);
        c.push_back({"pd_op.depthwise_conv2d", [=](CaseBuilder& b) {
                         b.fetch(b.op("pd_op.depthwise_conv2d", {b.f64("x", {1, 2, 5, 5}, x), b.f64("w", {2, 1, 2, 2}, wd)}, F, od3, convAttrs({1, 2}, {0, 1}, {1, 1}, 2)));
                     },
                     {{od3, depthwise}}, 1e-9});
    }
    {  // pool2d avg with padding, exclusive: the count leaves the padding out
        c.push_back({"pd_op.pool2d", [](CaseBuilder& b) {
                         b.fetch(b.op("pd_op.pool2d", {b.f64("x", {1, 1, 3, 3}, iota(9, 1)), b.ints({2, 2})}, F, {1, 1, 2, 2},
                                      {{"strides", Attribute::intArray({2, 2})}, {"paddings", Attribute::intArray({1, 1})},
                                       {"pooling_type", Attribute::string("avg")}, {"exclusive", Attribute::boolean(true)}}));
                     },
                     {{{1, 1, 2, 2}, {1, 2.5, 5.5, 7}}}});
    }
    {  // pool2d's other modes: padding counted (exclusive false), adaptive windows, global, ceil_mode
        auto pool = [&](const char* /*what*/, Dims xd, std::vector<double> x, Dims k, Dims od, std::vector<NamedAttribute> a, std::vector<double> out) {
            c.push_back({"pd_op.pool2d", [=](CaseBuilder& b) { b.fetch(b.op("pd_op.pool2d", {b.f64("x", xd, x), b.ints(k)}, F, od, a)); },
                         {{od, std::move(out)}}});
        };
        pool("avg, padding counted", {1, 1, 3, 3}, iota(9, 1), {2, 2}, {1, 1, 2, 2},
             {{"strides", Attribute::intArray({2, 2})}, {"paddings", Attribute::intArray({1, 1})}, {"pooling_type", Attribute::string("avg")},
              {"exclusive", Attribute::boolean(false)}},
             {1.0 / 4, 5.0 / 4, 11.0 / 4, 28.0 / 4});
        // adaptive: window i of n over 4 is [floor(4i/n), ceil(4(i+1)/n))
        pool("adaptive avg", {1, 1, 1, 4}, {1, 2, 3, 4}, {1, 3}, {1, 1, 1, 3},
             {{"strides", Attribute::intArray({1, 1})}, {"paddings", Attribute::intArray({0, 0})}, {"pooling_type", Attribute::string("avg")},
              {"adaptive", Attribute::boolean(true)}},
             {1.5, 2.5, 3.5});
        pool("global max", {1, 2, 2, 2}, {1, 7, 3, 2, -1, -5, -2, -3}, {1, 1}, {1, 2, 1, 1},
             {{"strides", Attribute::intArray({1, 1})}, {"paddings", Attribute::intArray({0, 0})}, {"pooling_type", Attribute::string("max")},
              {"global_pooling", Attribute::boolean(true)}},
             {7, -1});
        pool("ceil_mode max", {1, 1, 1, 5}, {1, 5, 2, 4, 3}, {1, 2}, {1, 1, 1, 3},
             {{"strides", Attribute::intArray({1, 2})}, {"paddings", Attribute::intArray({0, 0})}, {"pooling_type", Attribute::string("max")},
              {"ceil_mode", Attribute::boolean(true)}},
             {5, 4, 3});
        pool("ceil_mode avg", {1, 1, 1, 5}, {1, 5, 2, 4, 3}, {1, 2}, {1, 1, 1, 3},
             {{"strides", Attribute::intArray({1, 2})}, {"paddings", Attribute::intArray({0, 0})}, {"pooling_type", Attribute::string("avg")},
              {"ceil_mode", Attribute::boolean(true)}, {"exclusive", Attribute::boolean(true)}},
             {3, 3, 3});
    }
    {  // conv2d with padding_algorithm SAME: output = ceil(in / stride), padding split low-first
        const std::vector<double> x = iota(16, 1), w = {1, 0, 0, 1, 1, 0, 0, 0, -1};
        // in 4, kernel 3, stride 2: out 2, total padding max((2-1)*2+3-4, 0) = 1 -> 0 before, 1 after
        c.push_back({"pd_op.conv2d", [=](CaseBuilder& b) {
                         b.fetch(b.op("pd_op.conv2d", {b.f64("x", {1, 1, 4, 4}, x), b.f64("w", {1, 1, 3, 3}, w)}, F, {1, 1, 2, 2},
                                      {{"strides", Attribute::intArray({2, 2})}, {"paddings", Attribute::intArray({0, 0})},
                                       {"dilations", Attribute::intArray({1, 1})}, {"groups", Attribute::int32(1)},
                                       {"padding_algorithm", Attribute::string("SAME")}, {"data_format", Attribute::string("NCHW")}}));
                     },
                     {{{1, 1, 2, 2}, {}}}, 0, [x, w](const std::vector<Tensor>& got) -> std::string {
                         // with one row/column of zeros appended after, windows start at 0 and 2
                         std::vector<double> padded(25, 0.0);
                         for (int i = 0; i < 4; ++i) for (int j = 0; j < 4; ++j) padded[i * 5 + j] = x[i * 4 + j];
                         Dims od2;
                         std::vector<double> want = ref::conv2d(padded, {1, 1, 5, 5}, w, {1, 1, 3, 3}, {2, 2}, {0, 0}, {1, 1}, 1, od2);
                         std::vector<double> v = got[0].toDoubles();
                         for (size_t i = 0; i < want.size(); ++i)
                             if (std::fabs(v[i] - want[i]) > 1e-12) return "SAME conv gave " + std::to_string(v[i]) + " at " + std::to_string(i) + ", expected " + std::to_string(want[i]);
                         return {};
                     }});
    }
    {  // max_pool2d_with_index: the mask is the flat h*W+w of each window's maximum
        const std::vector<double> x = {1, 9, 2, 3, 4, 0, 8, 8, 5, 6, 7, 1, 2, 3, 0, 4};
        c.push_back({"pd_op.max_pool2d_with_index", [x](CaseBuilder& b) {
                         b.fetchAll(b.ops("pd_op.max_pool2d_with_index", {b.f64("x", {1, 1, 4, 4}, x)}, {{F, {1, 1, 2, 2}}, {I32, {1, 1, 2, 2}}},
                                          {{"kernel_size", Attribute::intArray({2, 2})}, {"strides", Attribute::intArray({2, 2})},
                                           {"paddings", Attribute::intArray({0, 0})}, {"global_pooling", Attribute::boolean(false)},
                                           {"adaptive", Attribute::boolean(false)}}));
                     },
                     {{{1, 1, 2, 2}, {9, 8, 6, 7}}, {{1, 1, 2, 2}, {1, 6, 9, 10}}}});
    }
    {  // interpolation of x = 1 + 2h + w (bilinear is exact on it): align_corners, then half-pixel (align_mode 0)
        const std::vector<double> x = {1, 2, 3, 4};
        auto attrs = [](int64_t oh, int64_t ow, bool align, int64_t mode, const char* method) {
            return std::vector<NamedAttribute>{{"data_format", Attribute::string("NCHW")}, {"out_h", Attribute::int32(static_cast<int32_t>(oh))},
                                               {"out_w", Attribute::int32(static_cast<int32_t>(ow))}, {"interp_method", Attribute::string(method)},
                                               {"align_corners", Attribute::boolean(align)}, {"align_mode", Attribute::int32(static_cast<int32_t>(mode))}};
        };
        c.push_back({"pd_op.bilinear_interp", [=](CaseBuilder& b) {
                         b.fetch(b.op("pd_op.bilinear_interp", {b.f64("x", {1, 1, 2, 2}, x)}, F, {1, 1, 3, 3}, attrs(3, 3, true, 1, "bilinear")));
                     },
                     {{{1, 1, 3, 3}, {1, 1.5, 2, 2, 2.5, 3, 3, 3.5, 4}}}});
        std::vector<double> half;
        const double s[4] = {0, 0.25, 0.75, 1};  // source coordinates max((dst + 0.5) / 2 - 0.5, 0), clamped at the edge
        for (int i = 0; i < 4; ++i)
            for (int j = 0; j < 4; ++j) half.push_back(1 + 2 * s[i] + s[j]);
        c.push_back({"pd_op.bilinear_interp", [=](CaseBuilder& b) {
                         b.fetch(b.op("pd_op.bilinear_interp", {b.f64("x", {1, 1, 2, 2}, x)}, F, {1, 1, 4, 4}, attrs(4, 4, false, 0, "bilinear")));
                     },
                     {{{1, 1, 4, 4}, half}}});
        c.push_back({"pd_op.nearest_interp", [=](CaseBuilder& b) {
                         b.fetch(b.op("pd_op.nearest_interp", {b.f64("x", {1, 1, 2, 2}, x)}, F, {1, 1, 4, 4}, attrs(4, 4, false, 1, "nearest")));
                     },
                     {{{1, 1, 4, 4}, {1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4}}}});
        c.push_back({"pd_op.nearest_interp", [=](CaseBuilder& b) {  // align_corners: round to the nearer source
                         b.fetch(b.op("pd_op.nearest_interp", {b.f64("x", {1, 1, 2, 2}, x)}, F, {1, 1, 3, 3}, attrs(3, 3, true, 1, "nearest")));
                     },
                     {{{1, 1, 3, 3}, {1, 2, 2, 3, 4, 4, 3, 4, 4}}}});
    }
    return c;
}

}  // namespace rx::conformance
