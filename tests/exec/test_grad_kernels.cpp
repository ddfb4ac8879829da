// Every `_grad` kernel against central differences of its forward kernel, in f64:
// for L(x) = sum(forward(x)[0] * G) with a random G, the grad op fed with G must return dL/dx.
#include <QtTest>

#include <cmath>
#include <map>
#include <set>

#include "exec/cpu/CpuExecutor.h"
#include "model/Diagnostic.h"

using namespace rx;
using namespace rx::exec;

namespace {

using Dims = std::vector<int64_t>;

struct Input {
    std::string name;
    DType dtype = DType::Float64;
    Dims dims;
    std::vector<double> values;   // empty: seeded random in [-1, 1) (+ offset)
    double offset = 0;            // added to random values (keep away from 0, kinks)
    bool differentiable = true;
};

struct GradCase {
    std::string name;
    std::string forward, grad;
    std::vector<Input> inputs;
    // Operand tokens: "x<i>" input, "o<j>" forward result, "g" out_grad, "-" absent,
    // "i:1,2" an int64 full_int_array, "f:0.5" an f64 [1] full.
    std::vector<std::string> forwardOperands;
    std::vector<std::pair<DType, Dims>> forwardResults;
    std::vector<NamedAttribute> attrs;
    std::vector<std::string> gradOperands;
    std::vector<int> gradResultFor;   // per grad result: the input it is the gradient of
    size_t objectiveResult = 0;       // the forward result L is taken over (its out_grad is "g")
};

struct Built {
    Program p;
    RunInputs in;
};

Built build(const GradCase& gc, const std::map<std::string, Tensor>& inputs, const Tensor& g, bool withGrad) {
    Built b;
    Program& p = b.p;
    std::vector<ValueId> xs;
    for (const Input& i : gc.inputs) {
        OpId op = p.appendOp(0, "pd_op.data", {}, std::vector<TypeId>{p.tensorType(i.dtype, i.dims)}, {{"name", Attribute::string(i.name)}});
        xs.push_back(p.op(op).results[0]);
        b.in.byName[i.name] = inputs.at(i.name);
    }
    std::vector<ValueId> outs;
    ValueId gv = kNoId;
    auto operand = [&](const std::string& t) -> ValueId {
        if (t[0] == 'x') return xs.at(std::stoi(t.substr(1)));
        if (t[0] == 'o') return outs.at(std::stoi(t.substr(1)));
        if (t == "g") return gv;
        if (t == "-") return kNoId;  // an absent optional operand
        std::vector<int64_t> v;
        std::string rest = t.substr(2);
        for (size_t at = 0; at < rest.size();) {
            size_t comma = rest.find(',', at);
            if (comma == std::string::npos) comma = rest.size();
            if (comma > at) v.push_back(std::stoll(rest.substr(at, comma - at)));
            at = comma + 1;
        }
        if (t[0] == 'i') {
            OpId op = p.appendOp(0, "pd_op.full_int_array", {}, std::vector<TypeId>{p.tensorType(DType::Int64, {int64_t(v.size())})},
                                 {{"value", Attribute::intArray(v)}});
            return p.op(op).results[0];
        }
        OpId op = p.appendOp(0, "pd_op.full", {}, std::vector<TypeId>{p.tensorType(DType::Float64, {1})},
                             {{"shape", Attribute::intArray({1})}, {"value", Attribute::float64(std::stod(rest))}});
        return p.op(op).results[0];
    };
    std::vector<ValueId> fo;
    for (const std::string& t : gc.forwardOperands) fo.push_back(operand(t));
    std::vector<TypeId> frt;
    for (const auto& [dt, d] : gc.forwardResults) frt.push_back(p.tensorType(dt, d));
    OpId f = p.appendOp(0, gc.forward, fo, frt, gc.attrs);
    outs.assign(p.op(f).results.begin(), p.op(f).results.end());
    const ValueId objective = outs.at(gc.objectiveResult);
    p.appendOp(0, "pd_op.fetch", std::vector<ValueId>{objective}, std::vector<TypeId>{p.value(objective).type}, {});
    if (withGrad) {
        OpId gop = p.appendOp(0, "pd_op.data", {}, std::vector<TypeId>{p.tensorType(DType::Float64, gc.forwardResults[gc.objectiveResult].second)},
                              {{"name", Attribute::string("G")}});
        gv = p.op(gop).results[0];
        b.in.byName["G"] = g;
        std::vector<ValueId> go;
        for (const std::string& t : gc.gradOperands) go.push_back(operand(t));
        std::vector<TypeId> grt;
        for (int i : gc.gradResultFor) grt.push_back(p.value(xs.at(i)).type);
        OpId gop2 = p.appendOp(0, gc.grad, go, grt, gc.attrs);
        for (ValueId r : p.op(gop2).results) p.appendOp(0, "pd_op.fetch", std::vector<ValueId>{r}, std::vector<TypeId>{p.value(r).type}, {});
    }
    return b;
}

double objective(const GradCase& gc, const std::map<std::string, Tensor>& inputs, const Tensor& g) {
    Built b = build(gc, inputs, g, false);
    CpuExecutor ex;
    RunResult r = ex.run(b.p, b.in, {});
    const Tensor& out = r.fetches.at(0).tensor;
    double l = 0;
    for (int64_t i = 0; i < out.numel(); ++i) l += out.get(i) * g.get(i);
    return l;
}

void check(const GradCase& gc) {
    std::map<std::string, Tensor> inputs;
    for (const Input& i : gc.inputs) {
        Tensor t = i.values.empty() ? seededInput(i.name, i.dtype, i.dims, 5) : Tensor::fromDoubles(i.dtype, i.dims, i.values);
        if (i.values.empty() && i.offset != 0)
            for (int64_t k = 0; k < t.numel(); ++k) t.set(k, t.get(k) + i.offset);
        inputs[i.name] = t;
    }
    Tensor g = seededInput("G", DType::Float64, gc.forwardResults[gc.objectiveResult].second, 9);
    Built b = build(gc, inputs, g, true);
    CpuExecutor ex;
    RunResult r = ex.run(b.p, b.in, {});
    QCOMPARE(r.fetches.size(), gc.gradResultFor.size() + 1);
    const double eps = 1e-6;
    for (size_t k = 0; k < gc.gradResultFor.size(); ++k) {
        const Input& in = gc.inputs[gc.gradResultFor[k]];
        if (!in.differentiable) continue;
        const Tensor& grad = r.fetches[k + 1].tensor;
        const Tensor& x = inputs.at(in.name);
        QCOMPARE(grad.dims, x.dims);
        for (int64_t e = 0; e < x.numel(); ++e) {
            auto plus = inputs, minus = inputs;
            plus[in.name].set(e, x.get(e) + eps);
            minus[in.name].set(e, x.get(e) - eps);
            double fd = (objective(gc, plus, g) - objective(gc, minus, g)) / (2 * eps);
            double an = grad.get(e);
            if (std::fabs(fd - an) > 1e-6 + 1e-5 * std::fabs(fd))
                QFAIL(qPrintable(QString("%1: d/d%2[%3] = %4 by %5, %6 by finite differences")
                                     .arg(QString::fromStdString(gc.name)).arg(QString::fromStdString(in.name)).arg(e)
                                     .arg(an, 0, 'g', 10).arg(QString::fromStdString(gc.grad)).arg(fd, 0, 'g', 10)));
        }
    }
}

const DType F = DType::Float64;

Input in(const std::string& n, Dims d, double offset = 0) { Input i; i.name = n; i.dims = std::move(d); i.offset = offset; return i; }
Input fixed(const std::string& n, DType t, Dims d, std::vector<double> v) {
    Input i; i.name = n; i.dtype = t; i.dims = std::move(d); i.values = std::move(v); i.differentiable = false; return i;
}
GradCase unary(const std::string& op, std::vector<std::string> gradOperands, double offset = 0, std::vector<NamedAttribute> attrs = {}) {
    return {op, "pd_op." + op, "pd_op." + op + "_grad", {in("x", {2, 3}, offset)}, {"x0"}, {{F, {2, 3}}}, std::move(attrs),
            std::move(gradOperands), {0}};
}
GradCase binary(const std::string& op, double offset = 0) {
    return {op, "pd_op." + op, "pd_op." + op + "_grad", {in("x", {2, 3}, offset), in("y", {3}, offset)}, {"x0", "x1"}, {{F, {2, 3}}}, {},
            {"x0", "x1", "g"}, {0, 1}};
}

std::vector<GradCase> cases() {
    std::vector<GradCase> c;
    for (const char* op : {"add", "subtract", "multiply"}) c.push_back(binary(op));
    c.push_back(binary("divide", 2.0));
    c.push_back(binary("maximum"));
    c.push_back(binary("minimum"));
    c.push_back(binary("elementwise_pow", 2.0));
    c.push_back(unary("relu", {"o0", "g"}));
    c.push_back(unary("sigmoid", {"o0", "g"}));
    c.push_back(unary("tanh", {"o0", "g"}));
    c.push_back(unary("exp", {"o0", "g"}));
    c.push_back(unary("rsqrt", {"o0", "g"}, 2.0));
    c.push_back(unary("sqrt", {"o0", "g"}, 2.0));
    c.push_back(unary("silu", {"x0", "g"}));
    c.push_back(unary("sin", {"x0", "g"}));
    c.push_back(unary("cos", {"x0", "g"}));
    c.push_back(unary("square", {"x0", "g"}));
    c.push_back(unary("log", {"x0", "g"}, 2.0));
    c.push_back(unary("abs", {"x0", "g"}));
    c.push_back(unary("angle", {"x0", "g"}));  // real x: flat (0 or pi), grad 0
    c.push_back(unary("erf", {"x0", "g"}));
    c.push_back(unary("pow", {"x0", "g"}, 2.0, {{"y", Attribute::float64(3.0)}}));
    GradCase gelu = unary("gelu", {"x0", "g"}, 0, {{"approximate", Attribute::boolean(false)}});
    c.push_back(gelu);
    gelu.name = "gelu tanh";
    gelu.attrs = {{"approximate", Attribute::boolean(true)}};
    c.push_back(gelu);
    for (auto [tx, ty] : {std::pair{false, false}, {true, false}, {false, true}, {true, true}}) {
        Dims a = tx ? Dims{2, 3, 2} : Dims{2, 2, 3}, b = ty ? Dims{4, 3} : Dims{3, 4};
        c.push_back({"matmul", "pd_op.matmul", "pd_op.matmul_grad", {in("x", a), in("y", b)}, {"x0", "x1"}, {{F, {2, 2, 4}}},
                     {{"transpose_x", Attribute::boolean(tx)}, {"transpose_y", Attribute::boolean(ty)}}, {"x0", "x1", "g"}, {0, 1}});
    }
    c.push_back({"softmax", "pd_op.softmax", "pd_op.softmax_grad", {in("x", {2, 3})}, {"x0"}, {{F, {2, 3}}},
                 {{"axis", Attribute::int32(-1)}}, {"o0", "g"}, {0}});
    c.push_back({"softmax axis 0", "pd_op.softmax", "pd_op.softmax_grad", {in("x", {2, 3})}, {"x0"}, {{F, {2, 3}}},
                 {{"axis", Attribute::int32(0)}}, {"o0", "g"}, {0}});
    c.push_back({"log_softmax", "pd_op.log_softmax", "pd_op.log_softmax_grad", {in("x", {2, 3})}, {"x0"}, {{F, {2, 3}}},
                 {{"axis", Attribute::int32(-1)}}, {"o0", "g"}, {0}});
    c.push_back({"layer_norm", "pd_op.layer_norm", "pd_op.layer_norm_grad", {in("x", {2, 2, 3}), in("w", {3}), in("b", {3})},
                 {"x0", "x1", "x2"}, {{F, {2, 2, 3}}, {F, {4}}, {F, {4}}},
                 {{"begin_norm_axis", Attribute::int32(2)}, {"epsilon", Attribute::float64(1e-5)}},
                 {"x0", "x1", "x2", "o1", "o2", "g"}, {0, 1, 2}});
    c.push_back({"sum", "pd_op.sum", "pd_op.sum_grad", {in("x", {2, 3})}, {"x0", "i:1"}, {{F, {2}}},
                 {{"keepdim", Attribute::boolean(false)}}, {"x0", "g", "i:1"}, {0}});
    c.push_back({"mean", "pd_op.mean", "pd_op.mean_grad", {in("x", {2, 3})}, {"x0"}, {{F, {1, 3}}},
                 {{"axis", Attribute::intArray({0})}, {"keepdim", Attribute::boolean(true)}}, {"x0", "g"}, {0}});
    c.push_back({"max", "pd_op.max", "pd_op.max_grad", {in("x", {2, 3})}, {"x0", "i:-1"}, {{F, {2, 1}}},
                 {{"keepdim", Attribute::boolean(true)}}, {"x0", "o0", "g", "i:-1"}, {0}});
    c.push_back({"min", "pd_op.min", "pd_op.min_grad", {in("x", {2, 3})}, {"x0", "i:0"}, {{F, {3}}},
                 {{"keepdim", Attribute::boolean(false)}}, {"x0", "o0", "g", "i:0"}, {0}});
    c.push_back({"transpose", "pd_op.transpose", "pd_op.transpose_grad", {in("x", {2, 3, 4})}, {"x0"}, {{F, {4, 2, 3}}},
                 {{"perm", Attribute::intArray({2, 0, 1})}}, {"g"}, {0}});
    c.push_back({"reshape", "pd_op.reshape", "pd_op.reshape_grad", {in("x", {2, 3})}, {"x0", "i:3,2"}, {{F, {3, 2}}, {F, {0, 2, 3}}},
                 {}, {"o1", "g"}, {0}});
    c.push_back({"expand", "pd_op.expand", "pd_op.expand_grad", {in("x", {3, 1})}, {"x0", "i:2,3,4"}, {{F, {2, 3, 4}}},
                 {}, {"x0", "g", "i:2,3,4"}, {0}});
    c.push_back({"slice", "pd_op.slice", "pd_op.slice_grad", {in("x", {3, 4})}, {"x0", "i:1", "i:3"}, {{F, {3, 2}}},
                 {{"axes", Attribute::intArray({1})}}, {"x0", "g", "i:1", "i:3"}, {0}});
    c.push_back({"gather_nd", "pd_op.gather_nd", "pd_op.gather_nd_grad", {in("x", {3, 2}), fixed("index", DType::Int64, {3, 1}, {2, 0, 2})},
                 {"x0", "x1"}, {{F, {3, 2}}}, {}, {"x0", "x1", "g"}, {0}});
    c.push_back({"where", "pd_op.where", "pd_op.where_grad",
                 {fixed("cond", DType::Bool, {2, 3}, {1, 0, 0, 1, 1, 0}), in("x", {2, 3}), in("y", {3})},
                 {"x0", "x1", "x2"}, {{F, {2, 3}}}, {}, {"x0", "x1", "x2", "g"}, {1, 2}});
    c.push_back({"embedding", "pd_op.embedding", "pd_op.embedding_grad", {fixed("ids", DType::Int64, {2, 2}, {1, 3, 1, 0}), in("w", {4, 3})},
                 {"x0", "x1"}, {{F, {2, 2, 3}}}, {{"padding_idx", Attribute::int64(-1)}}, {"x0", "x1", "g"}, {1}});
    for (auto [stride, pad, groups] : {std::tuple{1, 1, 1}, {2, 0, 1}, {1, 1, 2}}) {
        Dims xd{2, 2, 5, 5}, wd{4, 2 / groups, 3, 3};
        int64_t o = (5 + 2 * pad - 3) / stride + 1;
        c.push_back({"conv2d", "pd_op.conv2d", "pd_op.conv2d_grad", {in("x", xd), in("w", wd)}, {"x0", "x1"}, {{F, {2, 4, o, o}}},
                     {{"strides", Attribute::intArray({stride, stride})}, {"paddings", Attribute::intArray({pad, pad})},
                      {"dilations", Attribute::intArray({1, 1})}, {"groups", Attribute::int32(groups)},
                      {"padding_algorithm", Attribute::string("EXPLICIT")}, {"data_format", Attribute::string("NCHW")}},
                     {"x0", "x1", "g"}, {0, 1}});
    }
    // -- training-program kernels (names, operands and attributes as Paddle's ops.yaml / backward.yaml)
    c.push_back({"max_pool2d_with_index", "pd_op.max_pool2d_with_index", "pd_op.max_pool2d_with_index_grad", {in("x", {1, 2, 5, 5})},
                 {"x0"}, {{F, {1, 2, 2, 2}}, {DType::Int32, {1, 2, 2, 2}}},
                 {{"kernel_size", Attribute::intArray({3, 3})}, {"strides", Attribute::intArray({2, 2})},
                  {"paddings", Attribute::intArray({0, 0})}, {"global_pooling", Attribute::boolean(false)},
                  {"adaptive", Attribute::boolean(false)}, {"ceil_mode", Attribute::boolean(false)}},
                 {"x0", "o1", "g"}, {0}});
    c.push_back({"index_select", "pd_op.index_select", "pd_op.index_select_grad", {in("x", {4, 3}), fixed("i", DType::Int64, {3}, {2, 0, 2})},
                 {"x0", "x1"}, {{F, {3, 3}}}, {{"axis", Attribute::int32(0)}}, {"x0", "x1", "g"}, {0}});
    c.push_back({"gather axis 1", "pd_op.gather", "pd_op.gather_grad", {in("x", {2, 4}), fixed("i", DType::Int64, {3}, {3, 1, 3})},
                 {"x0", "x1"}, {{F, {2, 3}}}, {{"axis", Attribute::int32(1)}}, {"x0", "x1", "g"}, {0}});
    for (bool overwrite : {true, false})
        c.push_back({overwrite ? "scatter overwrite" : "scatter add", "pd_op.scatter", "pd_op.scatter_grad",
                     {in("x", {4, 2}), fixed("i", DType::Int64, {2}, {3, 1}), in("u", {2, 2})}, {"x0", "x1", "x2"}, {{F, {4, 2}}},
                     {{"overwrite", Attribute::boolean(overwrite)}}, {"x1", "x2", "g"}, {0, 2}});
    c.push_back({"pad", "pd_op.pad", "pd_op.pad_grad", {in("x", {2, 3})}, {"x0"}, {{F, {3, 5}}},
                 {{"paddings", Attribute::intArray({1, 0, 0, 2})}, {"pad_value", Attribute::float32(0.5)}}, {"x0", "g"}, {0}});
    for (auto [exclusive, reverse] : {std::pair{false, false}, {true, false}, {false, true}})
        c.push_back({"cumsum", "pd_op.cumsum", "pd_op.cumsum_grad", {in("x", {2, 3})}, {"x0", "i:1"}, {{F, {2, 3}}},
                     {{"flatten", Attribute::boolean(false)}, {"exclusive", Attribute::boolean(exclusive)}, {"reverse", Attribute::boolean(reverse)}},
                     {"x0", "g", "i:1"}, {0}});
    std::vector<NamedAttribute> ce = {{"soft_label", Attribute::boolean(false)}, {"use_softmax", Attribute::boolean(true)},
                                      {"numeric_stable_mode", Attribute::boolean(true)}, {"ignore_index", Attribute::int64(-100)},
                                      {"axis", Attribute::int32(-1)}};
    GradCase hard{"cross_entropy_with_softmax", "pd_op.cross_entropy_with_softmax", "pd_op.cross_entropy_with_softmax_grad",
                  {in("x", {3, 4}), fixed("label", DType::Int64, {3, 1}, {1, 3, 0})}, {"x0", "x1"}, {{F, {3, 4}}, {F, {3, 1}}}, ce,
                  {"x1", "o0", "g"}, {0}, 1};
    c.push_back(hard);
    hard.name = "cross_entropy_with_softmax soft";
    hard.inputs[1] = fixed("label", F, {3, 4}, {0.25, 0.25, 0.5, 0, 1, 0, 0, 0, 0.1, 0.2, 0.3, 0.4});
    hard.attrs[0] = {"soft_label", Attribute::boolean(true)};
    c.push_back(hard);
    c.push_back({"swiglu", "pd_op.swiglu", "pd_op.swiglu_grad", {in("x", {2, 3}), in("y", {2, 3})}, {"x0", "x1"}, {{F, {2, 3}}}, {},
                 {"x0", "x1", "g"}, {0, 1}});
    c.push_back({"swiglu fused", "pd_op.swiglu", "pd_op.swiglu_grad", {in("x", {2, 4})}, {"x0"}, {{F, {2, 2}}}, {}, {"x0", "g"}, {0}});
    // depthwise: groups = input channels, one filter channel each, stride 2, dilation 2
    c.push_back({"depthwise_conv2d", "pd_op.depthwise_conv2d", "pd_op.depthwise_conv2d_grad", {in("x", {2, 3, 6, 6}), in("w", {6, 1, 3, 3})},
                 {"x0", "x1"}, {{F, {2, 6, 2, 2}}},
                 {{"strides", Attribute::intArray({2, 2})}, {"paddings", Attribute::intArray({1, 1})},
                  {"dilations", Attribute::intArray({2, 2})}, {"groups", Attribute::int32(3)},
                  {"padding_algorithm", Attribute::string("EXPLICIT")}, {"data_format", Attribute::string("NCHW")}},
                 {"x0", "x1", "g"}, {0, 1}});
    for (const char* type : {"max", "avg"}) {
        std::vector<NamedAttribute> a = {{"strides", Attribute::intArray({2, 2})}, {"paddings", Attribute::intArray({1, 1})},
                                         {"pooling_type", Attribute::string(type)}, {"exclusive", Attribute::boolean(true)}};
        c.push_back({std::string("pool2d ") + type, "pd_op.pool2d", "pd_op.pool2d_grad", {in("x", {1, 2, 4, 4})}, {"x0", "i:3,3"},
                     {{F, {1, 2, 2, 2}}}, a, {"x0", "o0", "g", "i:3,3"}, {0}});
    }
    Input mean = fixed("mean", F, {2}, {0, 0}), var = fixed("var", F, {2}, {1, 1});
    c.push_back({"batch_norm", "pd_op.batch_norm_", "pd_op.batch_norm_grad", {in("x", {3, 2, 2, 2}), mean, var, in("w", {2}), in("b", {2})},
                 {"x0", "x1", "x2", "x3", "x4"}, {{F, {3, 2, 2, 2}}, {F, {2}}, {F, {2}}, {F, {2}}, {F, {2}}, {DType::UInt8, {0}}},
                 {{"epsilon", Attribute::float64(1e-5)}, {"momentum", Attribute::float64(0.9)}, {"is_test", Attribute::boolean(false)}},
                 {"x0", "x3", "x4", "o1", "o2", "o3", "o4", "o5", "g"}, {0, 3, 4}});
    c.push_back({"dropout", "pd_op.dropout", "pd_op.dropout_grad", {in("x", {4, 5})}, {"x0"}, {{F, {4, 5}}, {DType::UInt8, {4, 5}}},
                 {{"p", Attribute::float64(0.3)}, {"is_test", Attribute::boolean(false)}, {"mode", Attribute::string("upscale_in_train")}},
                 {"o1", "g"}, {0}});
    // -- grads of group/instance/rms norm, interpolation, flash attention, rotary embedding
    c.push_back({"group_norm", "pd_op.group_norm", "pd_op.group_norm_grad", {in("x", {2, 4, 1, 3}), in("w", {4}), in("b", {4})},
                 {"x0", "x1", "x2"}, {{F, {2, 4, 1, 3}}, {F, {2, 2}}, {F, {2, 2}}},
                 {{"epsilon", Attribute::float64(1e-5)}, {"groups", Attribute::int32(2)}, {"data_format", Attribute::string("NCHW")}},
                 {"x0", "x1", "x2", "o0", "o1", "o2", "g"}, {0, 1, 2}});
    c.push_back({"instance_norm", "pd_op.instance_norm", "pd_op.instance_norm_grad", {in("x", {2, 2, 1, 3}), in("w", {2}), in("b", {2})},
                 {"x0", "x1", "x2"}, {{F, {2, 2, 1, 3}}, {F, {4}}, {F, {4}}}, {{"epsilon", Attribute::float64(1e-5)}},
                 {"x0", "x1", "o1", "o2", "g"}, {0, 1, 2}});
    std::vector<NamedAttribute> rmsAttrs = {{"epsilon", Attribute::float64(1e-6)}, {"begin_norm_axis", Attribute::int32(1)}};
    c.push_back({"rms_norm", "pd_op.rms_norm", "pd_op.rms_norm_grad", {in("x", {2, 3}), in("w", {3})},
                 {"x0", "-", "-", "x1", "-"}, {{F, {2, 3}}, {F, {2, 3}}, {F, {2}}}, rmsAttrs,
                 {"x0", "-", "-", "x1", "-", "o2", "g"}, {0, 1}});
    // bias and residual enter through x' = x + bias + residual; norm_bias is added after
    c.push_back({"rms_norm residual", "pd_op.rms_norm", "pd_op.rms_norm_grad",
                 {in("x", {2, 3}), in("bias", {3}), in("res", {2, 3}), in("w", {3}), in("nb", {3})},
                 {"x0", "x1", "x2", "x3", "x4"}, {{F, {2, 3}}, {F, {2, 3}}, {F, {2}}}, rmsAttrs,
                 {"x0", "x1", "x2", "x3", "x4", "o2", "g"}, {0, 3, 4}});
    for (auto [method, align, mode] : {std::tuple{"bilinear", false, 0}, {"bilinear", true, 1}, {"bilinear", false, 1},
                                       {"nearest", false, 1}, {"nearest", true, 1}}) {
        std::string op = std::string("pd_op.") + method + "_interp";
        c.push_back({std::string(method) + "_interp" + (align ? " align_corners" : "") + " mode " + std::to_string(mode), op, op + "_grad",
                     {in("x", {1, 2, 3, 3})}, {"x0", "-", "-", "-"}, {{F, {1, 2, 5, 4}}},
                     {{"data_format", Attribute::string("NCHW")}, {"out_h", Attribute::int32(5)}, {"out_w", Attribute::int32(4)},
                      {"interp_method", Attribute::string(method)}, {"align_corners", Attribute::boolean(align)},
                      {"align_mode", Attribute::int32(mode)}},
                     {"x0", "-", "-", "-", "g"}, {0}});
    }
    for (bool causal : {false, true}) {
        // grouped heads (2 query heads share one k/v head), sq != sk
        c.push_back({std::string("flash_attn") + (causal ? " causal" : ""), "pd_op.flash_attn", "pd_op.flash_attn_grad",
                     {in("q", {2, 3, 2, 2}), in("k", {2, 4, 1, 2}), in("v", {2, 4, 1, 2})}, {"x0", "x1", "x2", "-", "-"},
                     {{F, {2, 3, 2, 2}}, {F, {0}}, {F, {2, 2, 3}}, {DType::Int64, {2}}},
                     {{"dropout", Attribute::float64(0)}, {"causal", Attribute::boolean(causal)}},
                     {"x0", "x1", "x2", "o0", "o2", "o3", "-", "g"}, {0, 1, 2}});
    }
    Input mask = in("mask", {3, 4}); mask.differentiable = false;
    c.push_back({"flash_attn mask", "pd_op.flash_attn", "pd_op.flash_attn_grad",
                 {in("q", {1, 3, 1, 2}), in("k", {1, 4, 1, 2}), in("v", {1, 4, 1, 2}), mask}, {"x0", "x1", "x2", "-", "x3"},
                 {{F, {1, 3, 1, 2}}, {F, {0}}, {F, {1, 1, 3}}, {DType::Int64, {2}}},
                 {{"dropout", Attribute::float64(0)}, {"causal", Attribute::boolean(false)}},
                 {"x0", "x1", "x2", "o0", "o2", "o3", "x3", "g"}, {0, 1, 2}});
    for (bool neox : {true, false}) {
        // independent random sin/cos (not a true rotation): the grad must be the exact transpose
        Input sn = in("sin", {1, 3, 1, 4}), cs = in("cos", {1, 3, 1, 4});
        sn.differentiable = cs.differentiable = false;
        c.push_back({std::string("fused_rotary_position_embedding") + (neox ? " neox" : " interleaved"),
                     "pd_op.fused_rotary_position_embedding", "pd_op.fused_rotary_position_embedding_grad",
                     {in("q", {2, 3, 2, 4}), sn, cs}, {"x0", "-", "-", "x1", "x2", "-"}, {{F, {2, 3, 2, 4}}},
                     {{"use_neox_rotary_style", Attribute::boolean(neox)}, {"time_major", Attribute::boolean(false)},
                      {"rotary_emb_base", Attribute::float64(10000.0)}},
                     {"x1", "x2", "-", "g", "-", "-"}, {0}});
    }
    // generated sin/cos, rows picked by position_ids, time-major layout [seq, batch, heads, dim]
    c.push_back({"fused_rotary_position_embedding position_ids", "pd_op.fused_rotary_position_embedding",
                 "pd_op.fused_rotary_position_embedding_grad",
                 {in("q", {3, 2, 1, 4}), fixed("pos", DType::Int64, {2, 3}, {5, 0, 2, 1, 7, 3})}, {"x0", "-", "-", "-", "-", "x1"},
                 {{F, {3, 2, 1, 4}}},
                 {{"use_neox_rotary_style", Attribute::boolean(true)}, {"time_major", Attribute::boolean(true)},
                  {"rotary_emb_base", Attribute::float64(100.0)}},
                 {"-", "-", "x1", "g", "-", "-"}, {0}});
    for (const char* tri : {"tril", "triu"})
        c.push_back({tri, std::string("pd_op.") + tri, std::string("pd_op.") + tri + "_grad", {in("x", {2, 3, 4})}, {"x0"}, {{F, {2, 3, 4}}},
                     {{"diagonal", Attribute::int32(1)}}, {"g"}, {0}});
    for (int axis : {-1, 0})
        c.push_back({"topk axis " + std::to_string(axis), "pd_op.topk", "pd_op.topk_grad", {in("x", {3, 4})}, {"x0", "i:2"},
                     {{F, axis == 0 ? Dims{2, 4} : Dims{3, 2}}, {DType::Int64, axis == 0 ? Dims{2, 4} : Dims{3, 2}}},
                     {{"axis", Attribute::int32(axis)}, {"largest", Attribute::boolean(axis != 0)}, {"sorted", Attribute::boolean(true)}},
                     {"x0", "o1", "g", "i:2"}, {0}});
    return c;
}

}  // namespace

class TestGradKernels : public QObject {
    Q_OBJECT
private slots:
    void gradMatchesFiniteDifferences_data() {
        QTest::addColumn<int>("index");
        std::vector<GradCase> all = cases();
        std::map<std::string, int> seen;
        for (size_t i = 0; i < all.size(); ++i) {
            std::string row = all[i].name + (seen[all[i].name]++ ? " #" + std::to_string(seen[all[i].name]) : "");
            QTest::newRow(row.c_str()) << static_cast<int>(i);
        }
    }
    void gradMatchesFiniteDifferences() {
        QFETCH(int, index);
        check(cases().at(static_cast<size_t>(index)));
    }
    void everyGradKernelIsCovered() {
        // Grad kernels not exercised above must be checked elsewhere (hand-computed tests).
        std::set<std::string> covered;
        for (const GradCase& c : cases()) covered.insert(c.grad);
        for (const char* elsewhere : {"pd_op.scale_grad", "pd_op.cast_grad", "pd_op.assign_grad", "pd_op.squeeze_grad",
                                      "pd_op.unsqueeze_grad", "pd_op.flatten_grad", "pd_op.expand_as_grad", "pd_op.concat_grad",
                                      "pd_op.split_grad", "pd_op.sin_grad", "pd_op.cos_grad",
                                      "pd_op.stack_grad",  // vector result: test_training_kernels.cpp
                                      // complex grads: finite differences in test_complex_kernels.cpp
                                      "pd_op.as_complex_grad", "pd_op.as_real_grad", "pd_op.complex_grad",
                                      "pd_op.real_grad", "pd_op.imag_grad"})
            covered.insert(elsewhere);
        for (const std::string& op : CpuExecutor::supportedOps())
            if (op.size() > 5 && op.compare(op.size() - 5, 5, "_grad") == 0)
                QVERIFY2(covered.count(op), qPrintable(QString::fromStdString(op) + " has no finite-difference case"));
    }
};

QTEST_GUILESS_MAIN(TestGradKernels)
#include "test_grad_kernels.moc"
