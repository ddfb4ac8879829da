#pragma once
// Conformance gradient cases: every differentiable op's _grad against central differences of
// its forward, with Paddle's operand order (forward inputs, forward outputs, out_grad, then
// the forward's int-array operands). Inputs that are indices, labels or masks are held fixed.
#include "exec/conformance/Cases.h"

namespace rx::conformance {

inline std::vector<NamedAttribute> maxPoolAttrs() {
    return {{"kernel_size", Attribute::intArray({2, 2})}, {"strides", Attribute::intArray({1, 1})}, {"paddings", Attribute::intArray({0, 0})}};
}

inline std::vector<GradCase> familyGradCases() {
    std::vector<GradCase> c;
    using Xs = const std::vector<ValueId>&;
    using Fwd = std::function<std::vector<ValueId>(CaseBuilder&, Xs)>;
    using Bwd = std::function<std::vector<ValueId>(CaseBuilder&, Xs, Xs, ValueId)>;
    auto add = [&](const std::string& fwd, const std::string& grad, std::vector<GradInput> in, Fwd f, Bwd g, double tol = 1e-6) {
        c.push_back(GradCase{fwd, grad, std::move(in), std::move(f), std::move(g), tol});
    };
    const std::vector<double> positive = {0.3, 0.8, 1.3, 1.7, 2.2, 2.9};
    auto x23 = [&](std::vector<double> v = {}) { return std::vector<GradInput>{{"x", {2, 3}, std::move(v)}}; };

    // -- elementwise: (x, out_grad) or (out, out_grad) --
    c.push_back(simpleGrad("pd_op.cos", "pd_op.cos_grad", x23(), {2, 3}, {}, {"x0", "g"}));
    c.push_back(simpleGrad("pd_op.erf", "pd_op.erf_grad", x23(), {2, 3}, {}, {"x0", "g"}));
    c.push_back(simpleGrad("pd_op.abs", "pd_op.abs_grad", x23(), {2, 3}, {}, {"x0", "g"}));
    c.push_back(simpleGrad("pd_op.log", "pd_op.log_grad", x23(positive), {2, 3}, {}, {"x0", "g"}));
    c.push_back(simpleGrad("pd_op.pow", "pd_op.pow_grad", x23(), {2, 3}, {{"y", Attribute::float32(3)}}, {"x0", "g"}));
    c.push_back(simpleGrad("pd_op.pow", "pd_op.pow_grad", x23(positive), {2, 3}, {{"y", Attribute::float32(-1.5)}}, {"x0", "g"}));
    c.push_back(simpleGrad("pd_op.relu", "pd_op.relu_grad", x23(), {2, 3}, {}, {"o", "g"}));
    c.push_back(simpleGrad("pd_op.sqrt", "pd_op.sqrt_grad", x23(positive), {2, 3}, {}, {"o", "g"}));
    c.push_back(simpleGrad("pd_op.rsqrt", "pd_op.rsqrt_grad", x23(positive), {2, 3}, {}, {"o", "g"}));
    c.push_back(simpleGrad("pd_op.scale", "pd_op.scale_grad", x23(), {2, 3},
                           {{"scale", Attribute::float32(2.5)}, {"bias", Attribute::float32(1)}, {"bias_after_scale", Attribute::boolean(true)}}, {"g"}));
    c.push_back(simpleGrad("pd_op.cast", "pd_op.cast_grad", x23(), {2, 3}, {{"dtype", Attribute::string("float64")}}, {"x0", "g"}));
    c.push_back(simpleGrad("pd_op.assign", "pd_op.assign_grad", x23(), {2, 3}, {}, {"g"}));
    c.push_back(simpleGrad("pd_op.tril", "pd_op.tril_grad", f64Inputs({{"x", {3, 3}}}), {3, 3}, {{"diagonal", Attribute::int32(0)}}, {"g"}));
    c.push_back(simpleGrad("pd_op.triu", "pd_op.triu_grad", f64Inputs({{"x", {3, 3}}}), {3, 3}, {{"diagonal", Attribute::int32(-1)}}, {"g"}));
    c.push_back(simpleGrad("pd_op.log_softmax", "pd_op.log_softmax_grad", x23(), {2, 3}, {{"axis", Attribute::int32(-1)}}, {"o", "g"}));
    c.push_back(simpleGrad("pd_op.log_softmax", "pd_op.log_softmax_grad", x23(), {2, 3}, {{"axis", Attribute::int32(0)}}, {"o", "g"}));
    c.push_back(simpleGrad("pd_op.softmax", "pd_op.softmax_grad", f64Inputs({{"x", {2, 3, 2}}}), {2, 3, 2}, {{"axis", Attribute::int32(1)}}, {"o", "g"}));
    // -- binary, y broadcast over rows: (x, y, out_grad) --
    const auto xy = f64Inputs({{"x", {2, 3}}, {"y", {3}}});
    c.push_back(simpleGrad("pd_op.add", "pd_op.add_grad", xy, {2, 3}, {}, {"x0", "x1", "g"}));
    c.push_back(simpleGrad("pd_op.subtract", "pd_op.subtract_grad", xy, {2, 3}, {}, {"x0", "x1", "g"}));
    c.push_back(simpleGrad("pd_op.subtract", "pd_op.subtract_grad", f64Inputs({{"x", {3}}, {"y", {2, 3}}}), {2, 3}, {}, {"x0", "x1", "g"}));
    c.push_back(simpleGrad("pd_op.maximum", "pd_op.maximum_grad", xy, {2, 3}, {}, {"x0", "x1", "g"}));
    c.push_back(simpleGrad("pd_op.minimum", "pd_op.minimum_grad", xy, {2, 3}, {}, {"x0", "x1", "g"}));
    c.push_back(simpleGrad("pd_op.elementwise_pow", "pd_op.elementwise_pow_grad", {{"x", {2, 3}, positive}, {"y", {3}}}, {2, 3}, {}, {"x0", "x1", "g"}));
    c.push_back(simpleGrad("pd_op.swiglu", "pd_op.swiglu_grad", f64Inputs({{"x", {2, 3}}, {"y", {2, 3}}}), {2, 3}, {}, {"x0", "x1", "g"}));
    c.push_back(simpleGrad("pd_op.swiglu", "pd_op.swiglu_grad", f64Inputs({{"x", {2, 4}}}), {2, 2}, {}, {"x0", "g"}));
    add("pd_op.where", "pd_op.where_grad", {{"c", {2, 3}, {1, 0, 0, 1, 1, 0}, B, false}, {"x", {2, 3}}, {"y", {3}}},
        [](CaseBuilder& b, Xs xs) { return std::vector<ValueId>{b.op("pd_op.where", xs, F, {2, 3})}; },
        [](CaseBuilder& b, Xs xs, Xs, ValueId g) { return b.ops("pd_op.where_grad", {xs[0], xs[1], xs[2], g}, {{F, {2, 3}}, {F, {3}}}); });

    // -- reductions: (x, out_grad, axis) and (x, out, out_grad, axis) --
    auto reduction = [&](const std::string& op, Dims axes, bool keep, Dims od, bool withOut) {
        std::vector<NamedAttribute> a = {{"keepdim", Attribute::boolean(keep)}};
        add(op, op + "_grad", x23(),
            [=](CaseBuilder& b, Xs xs) { return std::vector<ValueId>{b.op(op, {xs[0], b.ints(axes)}, F, od, a)}; },
            [=](CaseBuilder& b, Xs xs, Xs outs, ValueId g) {
                std::vector<ValueId> operands = withOut ? std::vector<ValueId>{xs[0], outs[0], g, b.ints(axes)} : std::vector<ValueId>{xs[0], g, b.ints(axes)};
                return b.ops(op + "_grad", operands, {{F, {2, 3}}}, a);
            });
    };
    reduction("pd_op.sum", {1}, false, {2}, false);
    reduction("pd_op.sum", {}, false, {}, false);
    reduction("pd_op.mean", {0}, true, {1, 3}, false);
    reduction("pd_op.max", {1}, false, {2}, true);
    reduction("pd_op.min", {0}, true, {1, 3}, true);
    for (bool exclusive : {false, true}) {
        const std::vector<NamedAttribute> a = {{"exclusive", Attribute::boolean(exclusive)}, {"reverse", Attribute::boolean(exclusive)}};
        add("pd_op.cumsum", "pd_op.cumsum_grad", x23(),
            [=](CaseBuilder& b, Xs xs) { return std::vector<ValueId>{b.op("pd_op.cumsum", {xs[0], b.ints({1})}, F, {2, 3}, a)}; },
            [=](CaseBuilder& b, Xs xs, Xs, ValueId g) { return b.ops("pd_op.cumsum_grad", {xs[0], g, b.ints({1})}, {{F, {2, 3}}}, a); });
    }
    add("pd_op.topk", "pd_op.topk_grad", f64Inputs({{"x", {2, 4}}}),
        [](CaseBuilder& b, Xs xs) { return b.ops("pd_op.topk", {xs[0]}, {{F, {2, 2}}, {I64, {2, 2}}}, {{"k", Attribute::int32(2)}, {"axis", Attribute::int32(-1)}}); },
        [](CaseBuilder& b, Xs xs, Xs outs, ValueId g) {
            return b.ops("pd_op.topk_grad", {xs[0], outs[1], g, b.ints({2})}, {{F, {2, 4}}}, {{"k", Attribute::int32(2)}, {"axis", Attribute::int32(-1)}});
        });

    // -- shapes: views through xshape, transpose, expand, slice, pad, concat/split/stack --
    auto viewGrad = [&](const std::string& op, Dims in, std::vector<ValueId> (*extra)(CaseBuilder&), Dims od, std::vector<NamedAttribute> a) {
        Dims xshape = in;
        xshape.insert(xshape.begin(), 0);
        add(op, op + "_grad", f64Inputs({{"x", in}}),
            [=](CaseBuilder& b, Xs xs) {
                std::vector<ValueId> operands = {xs[0]};
                for (ValueId v : extra(b)) operands.push_back(v);
                return b.ops(op, operands, {{F, od}, {F, xshape}}, a);
            },
            [=](CaseBuilder& b, Xs, Xs outs, ValueId g) { return b.ops(op + "_grad", {outs[1], g}, {{F, in}}, a); });
    };
    viewGrad("pd_op.reshape", {2, 3}, [](CaseBuilder& b) { return std::vector<ValueId>{b.ints({3, 2})}; }, {3, 2}, {});
    viewGrad("pd_op.squeeze", {2, 1, 3}, [](CaseBuilder& b) { return std::vector<ValueId>{b.ints({1})}; }, {2, 3}, {});
    viewGrad("pd_op.unsqueeze", {2, 3}, [](CaseBuilder& b) { return std::vector<ValueId>{b.ints({0})}; }, {1, 2, 3}, {});
    viewGrad("pd_op.flatten", {2, 3, 2}, [](CaseBuilder&) { return std::vector<ValueId>{}; }, {2, 6},
             {{"start_axis", Attribute::int32(1)}, {"stop_axis", Attribute::int32(2)}});
    c.push_back(simpleGrad("pd_op.transpose", "pd_op.transpose_grad", f64Inputs({{"x", {2, 3, 2}}}), {3, 2, 2}, {{"perm", Attribute::intArray({1, 2, 0})}}, {"g"}));
    add("pd_op.expand", "pd_op.expand_grad", f64Inputs({{"x", {1, 3}}}),
        [](CaseBuilder& b, Xs xs) { return std::vector<ValueId>{b.op("pd_op.expand", {xs[0], b.ints({2, 2, 3})}, F, {2, 2, 3})}; },
        [](CaseBuilder& b, Xs xs, Xs, ValueId g) { return b.ops("pd_op.expand_grad", {xs[0], g, b.ints({2, 2, 3})}, {{F, {1, 3}}}); });
    add("pd_op.expand_as", "pd_op.expand_as_grad", {{"x", {2, 1}}, {"y", {2, 3}, {}, F, false}},
        [](CaseBuilder& b, Xs xs) { return std::vector<ValueId>{b.op("pd_op.expand_as", xs, F, {2, 3})}; },
        [](CaseBuilder& b, Xs xs, Xs, ValueId g) { return b.ops("pd_op.expand_as_grad", {xs[0], g}, {{F, {2, 1}}}, {{"target_shape", Attribute::intArray({2, 3})}}); });
    {
        const std::vector<NamedAttribute> a = {{"axes", Attribute::intArray({0, 1})}, {"decrease_axis", Attribute::intArray({0})}};
        add("pd_op.slice", "pd_op.slice_grad", f64Inputs({{"x", {3, 4}}}),
            [=](CaseBuilder& b, Xs xs) { return std::vector<ValueId>{b.op("pd_op.slice", {xs[0], b.ints({1, 1}), b.ints({2, -1})}, F, {2}, a)}; },
            [=](CaseBuilder& b, Xs xs, Xs, ValueId g) { return b.ops("pd_op.slice_grad", {xs[0], g, b.ints({1, 1}), b.ints({2, -1})}, {{F, {3, 4}}}, a); });
    }
    c.push_back(simpleGrad("pd_op.pad", "pd_op.pad_grad", x23(), {4, 4}, {{"paddings", Attribute::intArray({1, 1, 0, 1})}, {"pad_value", Attribute::float32(0)}},
                           {"x0", "g"}));
    add("pd_op.concat", "pd_op.concat_grad", f64Inputs({{"x", {2, 1}}, {"y", {2, 2}}}),
        [](CaseBuilder& b, Xs xs) { return std::vector<ValueId>{b.op("pd_op.concat", {b.combine({xs[0], xs[1]}), b.ints({1})}, F, {2, 3})}; },
        [](CaseBuilder& b, Xs xs, Xs, ValueId g) {
            return b.vectorOp("pd_op.concat_grad", {b.combine({xs[0], xs[1]}), g, b.ints({1})}, {{F, {2, 1}}, {F, {2, 2}}});
        });
    add("pd_op.stack", "pd_op.stack_grad", f64Inputs({{"x", {2}}, {"y", {2}}}),
        [](CaseBuilder& b, Xs xs) { return std::vector<ValueId>{b.op("pd_op.stack", {b.combine({xs[0], xs[1]})}, F, {2, 2}, {{"axis", Attribute::int32(1)}})}; },
        [](CaseBuilder& b, Xs xs, Xs, ValueId g) {
            return b.vectorOp("pd_op.stack_grad", {b.combine({xs[0], xs[1]}), g}, {{F, {2}}, {F, {2}}}, {{"axis", Attribute::int32(1)}});
        });
    add("pd_op.split", "pd_op.split_grad", f64Inputs({{"x", {2, 5}}}),
        [](CaseBuilder& b, Xs xs) { return b.vectorOp("pd_op.split", {xs[0], b.ints({2, 3}), b.ints({1})}, {{F, {2, 2}}, {F, {2, 3}}}); },
        [](CaseBuilder& b, Xs, Xs, ValueId g) {  // L reads the first part only: the second's gradient is zero
            ValueId zero = b.op("pd_op.full", {}, F, {2, 3}, {{"shape", Attribute::intArray({2, 3})}, {"value", Attribute::float32(0)}});
            return b.ops("pd_op.split_grad", {b.combine({g, zero}), b.ints({1})}, {{F, {2, 5}}});
        });

    // -- indexing: indices fixed, repeated so the gradient accumulates --
    auto gatherLike = [&](const std::string& op, Dims xd, Dims idxd, std::vector<double> idx, Dims od, int axis) {
        const std::vector<NamedAttribute> a = {{"axis", Attribute::int32(axis)}};
        add(op, op + "_grad", {{"x", xd}, {"i", idxd, idx, I64, false}},
            [=](CaseBuilder& b, Xs xs) { return std::vector<ValueId>{b.op(op, xs, F, od, a)}; },
            [=](CaseBuilder& b, Xs xs, Xs, ValueId g) { return b.ops(op + "_grad", {xs[0], xs[1], g}, {{F, xd}}, a); });
    };
    gatherLike("pd_op.gather", {3, 2}, {4}, {2, 0, 2, 1}, {4, 2}, 0);
    gatherLike("pd_op.index_select", {2, 3}, {3}, {1, 1, 0}, {2, 3}, 1);
    add("pd_op.gather_nd", "pd_op.gather_nd_grad", {{"x", {2, 3}}, {"i", {3, 2}, {1, 2, 0, 0, 1, -1}, I64, false}},
        [](CaseBuilder& b, Xs xs) { return std::vector<ValueId>{b.op("pd_op.gather_nd", xs, F, {3})}; },
        [](CaseBuilder& b, Xs xs, Xs, ValueId g) { return b.ops("pd_op.gather_nd_grad", {xs[0], xs[1], g}, {{F, {2, 3}}}); });
    add("pd_op.embedding", "pd_op.embedding_grad", {{"ids", {2, 2}, {0, 2, 1, 2}, I64, false}, {"w", {3, 2}}},
        [](CaseBuilder& b, Xs xs) { return std::vector<ValueId>{b.op("pd_op.embedding", xs, F, {2, 2, 2}, {{"padding_idx", Attribute::int64(1)}})}; },
        [](CaseBuilder& b, Xs xs, Xs, ValueId g) { return b.ops("pd_op.embedding_grad", {xs[0], xs[1], g}, {{F, {3, 2}}}, {{"padding_idx", Attribute::int64(1)}}); });
    for (bool overwrite : {true, false}) {
        const std::vector<NamedAttribute> a = {{"overwrite", Attribute::boolean(overwrite)}};
        add("pd_op.scatter", "pd_op.scatter_grad", {{"x", {3, 2}}, {"i", {3}, {2, 0, 2}, I64, false}, {"u", {3, 2}}},
            [=](CaseBuilder& b, Xs xs) { return std::vector<ValueId>{b.op("pd_op.scatter", xs, F, {3, 2}, a)}; },
            [=](CaseBuilder& b, Xs xs, Xs, ValueId g) { return b.ops("pd_op.scatter_grad", {xs[1], xs[2], g}, {{F, {3, 2}}, {F, {3, 2}}}, a); });
    }

    {  // training dropout: the seeded mask is the same in every run of the forward (one result name)
        const std::vector<NamedAttribute> a = {{"p", Attribute::float32(0.5)}, {"is_test", Attribute::boolean(false)}, {"mode", Attribute::string("upscale_in_train")}};
        add("pd_op.dropout", "pd_op.dropout_grad", f64Inputs({{"x", {4, 5}}}),
            [=](CaseBuilder& b, Xs xs) { return b.ops("pd_op.dropout", {xs[0]}, {{F, {4, 5}}, {DType::UInt8, {4, 5}}}, a); },
            [=](CaseBuilder& b, Xs, Xs outs, ValueId g) { return b.ops("pd_op.dropout_grad", {outs[1], g}, {{F, {4, 5}}}, a); });
    }

    // -- networks --
    auto convAttrs = [](Dims stride, Dims pad, int64_t groups) {
        return std::vector<NamedAttribute>{{"strides", Attribute::intArray(stride)}, {"paddings", Attribute::intArray(pad)},
                                           {"dilations", Attribute::intArray({1, 1})}, {"groups", Attribute::int32(static_cast<int32_t>(groups))},
                                           {"padding_algorithm", Attribute::string("EXPLICIT")}, {"data_format", Attribute::string("NCHW")}};
    };
    c.push_back(simpleGrad("pd_op.conv2d", "pd_op.conv2d_grad", f64Inputs({{"x", {1, 2, 4, 4}}, {"w", {3, 2, 3, 3}}}), {1, 3, 2, 2},
                           convAttrs({2, 2}, {1, 1}, 1), {"x0", "x1", "g"}));
    c.push_back(simpleGrad("pd_op.depthwise_conv2d", "pd_op.depthwise_conv2d_grad", f64Inputs({{"x", {2, 2, 3, 3}}, {"w", {2, 1, 2, 2}}}), {2, 2, 2, 2},
                           convAttrs({1, 1}, {0, 0}, 2), {"x0", "x1", "g"}));
    for (const char* type : {"max", "avg"}) {
        const std::vector<NamedAttribute> a = {{"strides", Attribute::intArray({1, 1})}, {"paddings", Attribute::intArray({0, 0})},
                                               {"pooling_type", Attribute::string(type)}, {"exclusive", Attribute::boolean(true)}};
        add("pd_op.pool2d", "pd_op.pool2d_grad", f64Inputs({{"x", {1, 2, 3, 3}}}),
            [=](CaseBuilder& b, Xs xs) { return std::vector<ValueId>{b.op("pd_op.pool2d", {xs[0], b.ints({2, 2})}, F, {1, 2, 2, 2}, a)}; },
            [=](CaseBuilder& b, Xs xs, Xs outs, ValueId g) { return b.ops("pd_op.pool2d_grad", {xs[0], outs[0], g, b.ints({2, 2})}, {{F, {1, 2, 3, 3}}}, a); });
    }
    add("pd_op.max_pool2d_with_index", "pd_op.max_pool2d_with_index_grad", f64Inputs({{"x", {1, 1, 4, 4}}}),
        [](CaseBuilder& b, Xs xs) { return b.ops("pd_op.max_pool2d_with_index", {xs[0]}, {{F, {1, 1, 3, 3}}, {I32, {1, 1, 3, 3}}}, maxPoolAttrs()); },
        [](CaseBuilder& b, Xs xs, Xs outs, ValueId g) { return b.ops("pd_op.max_pool2d_with_index_grad", {xs[0], outs[1], g}, {{F, {1, 1, 4, 4}}}, maxPoolAttrs()); });
    for (const char* method : {"bilinear", "nearest"}) {
        const std::string op = std::string("pd_op.") + method + "_interp";
        for (bool align : {true, false}) {
            const std::vector<NamedAttribute> a = {{"data_format", Attribute::string("NCHW")}, {"out_h", Attribute::int32(3)}, {"out_w", Attribute::int32(5)},
                                                   {"interp_method", Attribute::string(method)}, {"align_corners", Attribute::boolean(align)},
                                                   {"align_mode", Attribute::int32(0)}};
            add(op, op + "_grad", f64Inputs({{"x", {1, 2, 2, 3}}}),
                [=](CaseBuilder& b, Xs xs) { return std::vector<ValueId>{b.op(op, {xs[0]}, F, {1, 2, 3, 5}, a)}; },
                [=](CaseBuilder& b, Xs xs, Xs, ValueId g) { return b.ops(op + "_grad", {xs[0], kNoId, kNoId, kNoId, g}, {{F, {1, 2, 2, 3}}}, a); });
        }
    }
    {
        const std::vector<NamedAttribute> a = {{"epsilon", Attribute::float32(1e-5f)}, {"begin_norm_axis", Attribute::int32(1)}};
        add("pd_op.layer_norm", "pd_op.layer_norm_grad", f64Inputs({{"x", {2, 3}}, {"s", {3}}, {"b", {3}}}),
            [=](CaseBuilder& b, Xs xs) { return b.ops("pd_op.layer_norm", xs, {{F, {2, 3}}, {F, {2}}, {F, {2}}}, a); },
            [=](CaseBuilder& b, Xs xs, Xs outs, ValueId g) {
                return b.ops("pd_op.layer_norm_grad", {xs[0], xs[1], xs[2], outs[1], outs[2], g}, {{F, {2, 3}}, {F, {3}}, {F, {3}}}, a);
            });
    }
    {
        const std::vector<NamedAttribute> a = {{"epsilon", Attribute::float32(1e-5f)}, {"momentum", Attribute::float32(0.9f)},
                                               {"is_test", Attribute::boolean(false)}, {"data_format", Attribute::string("NCHW")}};
        add("pd_op.batch_norm", "pd_op.batch_norm_grad",
            {{"x", {2, 2, 1, 2}}, {"m", {2}, {0, 0}, F, false}, {"v", {2}, {1, 1}, F, false}, {"s", {2}}, {"b", {2}}},
            [=](CaseBuilder& b, Xs xs) { return b.ops("pd_op.batch_norm", xs, {{F, {2, 2, 1, 2}}, {F, {2}}, {F, {2}}, {F, {2}}, {F, {2}}, {F, {0}}}, a); },
            [=](CaseBuilder& b, Xs xs, Xs outs, ValueId g) {
                return b.ops("pd_op.batch_norm_grad", {xs[0], xs[3], xs[4], outs[1], outs[2], outs[3], outs[4], outs[5], g},
                             {{F, {2, 2, 1, 2}}, {F, {2}}, {F, {2}}}, a);
            }, 1e-5);
    }
    {
        const std::vector<NamedAttribute> a = {{"epsilon", Attribute::float32(1e-5f)}, {"groups", Attribute::int32(2)}, {"data_format", Attribute::string("NCHW")}};
        add("pd_op.group_norm", "pd_op.group_norm_grad", f64Inputs({{"x", {1, 4, 1, 2}}, {"s", {4}}, {"b", {4}}}),
            [=](CaseBuilder& b, Xs xs) { return b.ops("pd_op.group_norm", xs, {{F, {1, 4, 1, 2}}, {F, {1, 2}}, {F, {1, 2}}}, a); },
            [=](CaseBuilder& b, Xs xs, Xs outs, ValueId g) {
                return b.ops("pd_op.group_norm_grad", {xs[0], xs[1], xs[2], outs[0], outs[1], outs[2], g}, {{F, {1, 4, 1, 2}}, {F, {4}}, {F, {4}}}, a);
            }, 1e-5);
    }
    {
        const std::vector<NamedAttribute> a = {{"epsilon", Attribute::float32(1e-5f)}};
        add("pd_op.instance_norm", "pd_op.instance_norm_grad", f64Inputs({{"x", {2, 2, 1, 3}}, {"s", {2}}, {"b", {2}}}),
            [=](CaseBuilder& b, Xs xs) { return b.ops("pd_op.instance_norm", xs, {{F, {2, 2, 1, 3}}, {F, {4}}, {F, {4}}}, a); },
            [=](CaseBuilder& b, Xs xs, Xs outs, ValueId g) {
                return b.ops("pd_op.instance_norm_grad", {xs[0], xs[1], outs[1], outs[2], g}, {{F, {2, 2, 1, 3}}, {F, {2}}, {F, {2}}}, a);
            }, 1e-5);
    }
    {
        const std::vector<NamedAttribute> a = {{"epsilon", Attribute::float32(1e-6f)}, {"begin_norm_axis", Attribute::int32(1)}};
        add("pd_op.rms_norm", "pd_op.rms_norm_grad",
            {{"x", {2, 3}}, {"bias", {3}, {0.1, -0.2, 0.3}, F, false}, {"r", {2, 3}, {0, 1, 0, 1, 0, 1}, F, false}, {"w", {3}}, {"nb", {3}}},
            [=](CaseBuilder& b, Xs xs) { return b.ops("pd_op.rms_norm", xs, {{F, {2, 3}}, {F, {2, 3}}, {F, {2}}}, a); },
            [=](CaseBuilder& b, Xs xs, Xs outs, ValueId g) {
                return b.ops("pd_op.rms_norm_grad", {xs[0], xs[1], xs[2], xs[3], xs[4], outs[2], g}, {{F, {2, 3}}, {F, {3}}, {F, {3}}}, a);
            });
    }
    for (bool soft : {false, true}) {
        const std::vector<NamedAttribute> a = {{"soft_label", Attribute::boolean(soft)}, {"use_softmax", Attribute::boolean(true)},
                                               {"ignore_index", Attribute::int64(-100)}, {"axis", Attribute::int32(-1)}};
        GradInput label = soft ? GradInput{"l", {3, 3}, {0.2, 0.3, 0.5, 1, 0, 0, 0, 0.5, 0.5}, F, false} : GradInput{"l", {3, 1}, {2, -100, 0}, I64, false};
        add("pd_op.cross_entropy_with_softmax", "pd_op.cross_entropy_with_softmax_grad", {{"x", {3, 3}}, label},
            [=](CaseBuilder& b, Xs xs) {  // L reads the loss
                std::vector<ValueId> r = b.ops("pd_op.cross_entropy_with_softmax", xs, {{F, {3, 3}}, {F, {3, 1}}}, a);
                return std::vector<ValueId>{r[1], r[0]};
            },
            [=](CaseBuilder& b, Xs xs, Xs outs, ValueId g) { return b.ops("pd_op.cross_entropy_with_softmax_grad", {xs[1], outs[1], g}, {{F, {3, 3}}}, a); });
    }
    for (bool causal : {false, true}) {  // two query heads share one k/v head
        const std::vector<NamedAttribute> a = {{"dropout", Attribute::float32(0)}, {"causal", Attribute::boolean(causal)}, {"is_test", Attribute::boolean(false)}};
        add("pd_op.flash_attn", "pd_op.flash_attn_grad", f64Inputs({{"q", {1, 2, 2, 2}}, {"k", {1, 3, 1, 2}}, {"v", {1, 3, 1, 2}}}),
            [=](CaseBuilder& b, Xs xs) { return b.ops("pd_op.flash_attn", xs, {{F, {1, 2, 2, 2}}, {F, {0}}, {F, {1, 2, 2}}, {I64, {2}}}, a); },
            [=](CaseBuilder& b, Xs xs, Xs outs, ValueId g) {
                return b.ops("pd_op.flash_attn_grad", {xs[0], xs[1], xs[2], outs[0], outs[2], outs[3], kNoId, g},
                             {{F, {1, 2, 2, 2}}, {F, {1, 3, 1, 2}}, {F, {1, 3, 1, 2}}}, a);
            });
    }
    add("pd_op.fused_rotary_position_embedding", "pd_op.fused_rotary_position_embedding_grad", f64Inputs({{"q", {1, 3, 2, 4}}}),
        [](CaseBuilder& b, Xs xs) {
            return std::vector<ValueId>{b.op("pd_op.fused_rotary_position_embedding", {xs[0]}, F, {1, 3, 2, 4}, {{"use_neox_rotary_style", Attribute::boolean(true)}})};
        },
        [](CaseBuilder& b, Xs, Xs, ValueId g) {
            return b.ops("pd_op.fused_rotary_position_embedding_grad", {kNoId, kNoId, kNoId, g}, {{F, {1, 3, 2, 4}}}, {{"use_neox_rotary_style", Attribute::boolean(true)}});
        });
    {  // interleaved pairs, sin/cos given (rows picked by position ids)
        std::vector<double> sn, cs;
        for (int p = 0; p < 4; ++p)
            for (int j = 0; j < 4; ++j) { sn.push_back(std::sin(0.3 * p + 0.1 * j)); cs.push_back(std::cos(0.3 * p + 0.1 * j)); }
        const std::vector<NamedAttribute> a = {{"use_neox_rotary_style", Attribute::boolean(false)}};
        add("pd_op.fused_rotary_position_embedding", "pd_op.fused_rotary_position_embedding_grad",
            {{"q", {1, 3, 1, 4}}, {"sin", {1, 4, 1, 4}, sn, F, false}, {"cos", {1, 4, 1, 4}, cs, F, false}, {"pos", {1, 3}, {3, 0, 2}, I64, false}},
            [=](CaseBuilder& b, Xs xs) {
                return std::vector<ValueId>{b.op("pd_op.fused_rotary_position_embedding", {xs[0], kNoId, kNoId, xs[1], xs[2], xs[3]}, F, {1, 3, 1, 4}, a)};
            },
            [=](CaseBuilder& b, Xs xs, Xs, ValueId g) {
                return b.ops("pd_op.fused_rotary_position_embedding_grad", {xs[1], xs[2], xs[3], g}, {{F, {1, 3, 1, 4}}}, a);
            });
    }
    return c;
}

}  // namespace rx::conformance
