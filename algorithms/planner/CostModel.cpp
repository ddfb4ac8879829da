// Type-based op costs and measured per-op times from a profile report.
#include "algorithms/planner/CostModel.h"

#include <rapidjson/document.h>

#include <algorithm>
#include <cstdio>
#include <unordered_map>

#include "model/Diagnostic.h"
#include "model/FileIO.h"
#include "model/JsonSupport.h"

namespace rx::planner {

namespace {

int64_t elements(const Program& p, ValueId v) {
    if (v == kNoId || v >= p.values().size()) return 0;
    return p.types().elementCount(p.value(v).type);
}

const std::vector<int64_t>* dims(const Program& p, ValueId v) {
    if (v == kNoId || v >= p.values().size()) return nullptr;
    const Type& t = p.types()[p.value(v).type];
    return t.kind == Type::Kind::DenseTensor ? &t.dims : nullptr;
}

int64_t dimAt(const std::vector<int64_t>& d, size_t fromEnd) {
    if (d.size() < fromEnd) return 1;
    const int64_t x = d[d.size() - fromEnd];
    return x < 0 ? 1 : x;
}

bool flag(const Operation& o, std::string_view key) {
    const Attribute* a = o.attribute(key);
    return a && a->boolValue;
}

// The op name without its dialect ("pd_op.matmul" -> "matmul").
std::string_view shortName(std::string_view name) {
    const size_t dot = name.find('.');
    return dot == std::string_view::npos ? name : name.substr(dot + 1);
}

// Per-element FLOPs of elementwise and normalising ops (rough: transcendental functions and
// normalisations do several operations per element).
double perElement(std::string_view n) {
    static const std::unordered_map<std::string_view, double> table = {
        {"exp", 4}, {"log", 4}, {"erf", 6}, {"tanh", 6}, {"sigmoid", 4}, {"gelu", 8}, {"silu", 5},
        {"sin", 4}, {"cos", 4}, {"rsqrt", 2}, {"sqrt", 2}, {"pow", 4}, {"softmax", 5},
        {"layer_norm", 8}, {"rms_norm", 6}, {"batch_norm", 8}, {"batch_norm_", 8}, {"dropout", 2},
        {"gelu_grad", 12}, {"softmax_grad", 4}, {"layer_norm_grad", 16}, {"batch_norm_grad", 16},
        {"silu_grad", 8}, {"tanh_grad", 3}, {"sigmoid_grad", 3}, {"dropout_grad", 1}, {"divide", 1},
    };
    auto it = table.find(n);
    return it == table.end() ? 1.0 : it->second;
}

bool isFree(std::string_view full, std::string_view n) {
    if (full.starts_with("builtin.") || full.starts_with("cf.")) return true;
    static const std::string_view kFree[] = {"reshape", "squeeze", "unsqueeze", "flatten", "full",
                                             "full_int_array", "data", "fetch", "feed", "shape",
                                             "assign_value", "assign_value_", "full_like", "view_shape"};
    return std::find(std::begin(kFree), std::end(kFree), n) != std::end(kFree);
}

double matmulFlops(const Program& p, const Operation& o) {
    if (o.operands.size() < 2 || o.results.empty()) return 0;
    const auto* x = dims(p, o.operands[0]);
    if (!x || x->empty()) return 0;
    // out = batch·M·N; K = the contracted dim of x.
    const int64_t k = flag(o, "transpose_x") ? dimAt(*x, 2) : dimAt(*x, 1);
    return 2.0 * double(elements(p, o.results[0])) * double(k);
}

double convFlops(const Program& p, const Operation& o) {
    if (o.operands.size() < 2 || o.results.empty()) return 0;
    const auto* w = dims(p, o.operands[1]);
    if (!w || w->empty()) return 0;
    const int64_t cout = std::max<int64_t>(1, (*w)[0] < 0 ? 1 : (*w)[0]);
    const double perOutput = double(elements(p, o.operands[1])) / double(cout);
    return 2.0 * double(elements(p, o.results[0])) * perOutput;
}

}  // namespace

OpCost estimateOpCost(const Program& p, OpId op) {
    OpCost c;
    const Operation& o = p.op(op);
    int64_t inElems = 0, outElems = 0;
    for (ValueId x : o.operands)
        if (x != kNoId) { c.bytesMoved += p.valueBytes(x); inElems = std::max(inElems, elements(p, x)); }
    for (ValueId r : o.results) { c.bytesMoved += p.valueBytes(r); outElems += elements(p, r); }
    const std::string_view full = p.opName(op);
    const std::string_view n = shortName(full);
    if (isFree(full, n)) { c.flops = 0; return c; }
    if (n == "matmul" || n == "mm" || n == "bmm" || n == "fc" || n == "linear") c.flops = matmulFlops(p, o);
    else if (n == "matmul_grad") {
        // dX = dOut·Yᵀ and dY = Xᵀ·dOut: twice the forward matmul (out = operand 2's shape).
        if (o.operands.size() >= 3 && !o.results.empty()) {
            const auto* x = dims(p, o.operands[0]);
            const int64_t k = x ? (flag(o, "transpose_x") ? dimAt(*x, 2) : dimAt(*x, 1)) : 1;
            c.flops = 4.0 * double(elements(p, o.operands[2])) * double(k);
        }
    } else if (n == "conv2d" || n == "depthwise_conv2d" || n == "conv3d") c.flops = convFlops(p, o);
    else if (n == "conv2d_grad" || n == "depthwise_conv2d_grad") {
        if (o.operands.size() >= 3) {
            const auto* w = dims(p, o.operands[1]);
            const int64_t cout = w && !w->empty() && (*w)[0] > 0 ? (*w)[0] : 1;
            c.flops = 4.0 * double(elements(p, o.operands[2])) * double(elements(p, o.operands[1])) / double(cout);
        }
    } else {
        // Elementwise ops touch every output element; reductions every input element.
        c.flops = perElement(n) * double(std::max(inElems, outElems));
    }
    return c;
}

CostModel CostModel::fromTypes(const Program& program) {
    CostModel m;
    m.ops_.resize(program.ops().size());
    for (OpId op = 0; op < program.ops().size(); ++op) m.ops_[op] = estimateOpCost(program, op);
    return m;
}

double CostModel::cost(OpId op) const {
    if (!ms_.empty()) return op < ms_.size() ? ms_[op] : 0;
    return flops(op);
}

void CostModel::loadProfile(const std::string& path, const Program& program) {
    // The one bounded reader (model/FileIO): regular files only, so a FIFO or /dev/zero is refused.
    loadProfileJson(readFile(path), path, program);
}

void CostModel::loadProfileJson(std::string_view json, const std::string& fileName, const Program& program) {
    if (ops_.size() != program.ops().size()) *this = fromTypes(program);
    // The shared JSON reader: depth limit, UTF-8 check, positioned errors.
    const rapidjson::Document doc = parseJson(json, fileName, "profile report");
    // "$.original.ops[3].ms: ..." at the value's line and column.
    auto fail = [&](const JsonPath& path, const std::string& what) {
        throw Error(locateJsonPath(json, fileName, path),
                    (path.steps().empty() ? std::string("$") : "$." + path.str()) + ": " + what);
    };
    if (!doc.IsObject()) fail(JsonPath(), "expected an object");
    const JsonPath originalPath("original");
    if (!doc.HasMember("original") || !doc["original"].IsObject()) fail(originalPath, "expected an object");
    const auto& original = doc["original"];
    const JsonPath opsPath = originalPath.key("ops");
    if (!original.HasMember("ops") || !original["ops"].IsArray()) fail(opsPath, "expected an array");
    const auto& gops = program.globalBlock().ops;
    std::vector<double> ms(program.ops().size(), -1.0);
    const auto& list = original["ops"];
    for (rapidjson::SizeType i = 0; i < list.Size(); ++i) {
        const JsonPath at = opsPath.index(i);
        const auto& e = list[i];
        if (!e.IsObject()) fail(at, "expected an object with index, name, ms");
        if (!e.HasMember("index") || !e["index"].IsInt64()) fail(at.key("index"), "expected an integer op index");
        const int64_t index = e["index"].GetInt64();
        if (index < 0 || size_t(index) >= gops.size())
            fail(at.key("index"), "op index " + std::to_string(index) + " is outside the program's " +
                                      std::to_string(gops.size()) + " global ops");
        const OpId op = gops[size_t(index)];
        if (e.HasMember("name")) {
            if (!e["name"].IsString()) fail(at.key("name"), "expected a string");
            const std::string_view name(e["name"].GetString(), e["name"].GetStringLength());
            if (name != program.opName(op))
                fail(at.key("name"), "op " + std::to_string(index) + " is " + std::string(program.opName(op)) +
                                         " in the program, the profile says " + std::string(name));
        }
        if (!e.HasMember("ms") || !e["ms"].IsNumber()) fail(at.key("ms"), "expected a number of milliseconds");
        const double v = e["ms"].GetDouble();
        // Finite and in range, so that sums over every op stay finite (1e308 ms summed to inf
        // and left "recompute_ms": , in the report).
        if (!(v >= 0) || !(v <= kMaxProfileMs)) {
            char text[64];
            std::snprintf(text, sizeof text, "%g", v);
            fail(at.key("ms"), std::string("expected milliseconds from 0 to ") + kMaxProfileMsText + ", found " + text);
        }
        ms[op] = ms[op] < 0 ? v : ms[op] + v;  // an op listed twice: both runs count
    }
    // Unlisted ops: FLOPs at the profile's own rate. A profile that lists none of the program's
    // ops, or only ops without FLOPs, has no rate: every cost came out 0 ms, "measured".
    double sumMs = 0, sumFlops = 0, unlistedFlops = 0;
    size_t listed = 0, unlisted = 0;
    for (OpId op : gops) {
        if (ms[op] >= 0) ++listed;
        else ++unlisted, unlistedFlops += ops_[op].flops;
    }
    if (listed == 0 && !gops.empty()) fail(opsPath, "lists none of the program's " + std::to_string(gops.size()) + " ops: nothing measured to plan with");
    for (OpId op = 0; op < ms.size(); ++op)
        if (ms[op] >= 0 && ops_[op].flops > 0) { sumMs += ms[op]; sumFlops += ops_[op].flops; }
    if (sumFlops == 0 && unlistedFlops > 0)
        fail(opsPath, "lists only ops without FLOPs, so the times of the " + std::to_string(unlisted) +
                          " ops it leaves out cannot be estimated; profile the whole program");
    const double msPerFlop = sumFlops > 0 ? sumMs / sumFlops : 0;
    for (OpId op = 0; op < ms.size(); ++op)
        if (ms[op] < 0) ms[op] = ops_[op].flops * msPerFlop;
    ms_ = std::move(ms);
    source_ = fileName;
    estimatedOps_ = unlisted;
}

}  // namespace rx::planner
