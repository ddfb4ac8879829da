// The heuristics config file (FORMATS.md "Heuristics config"): strict reading, stable writing.
#include "model/RecomputeConfig.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <charconv>
#include <cmath>

#include "model/Diagnostic.h"
#include "model/FileIO.h"
#include "model/JsonSupport.h"
#include "model/JsonWriter.h"

namespace rx {

namespace {

std::vector<std::string> sortedUnion(std::initializer_list<const std::vector<std::string>*> lists) {
    std::vector<std::string> out;
    for (const auto* l : lists) out.insert(out.end(), l->begin(), l->end());
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

}  // namespace

RecomputeConfig RecomputeConfig::seedDefaults() {
    RecomputeConfig c;
    c.recomputableOps = {
        "pd_op.full_int_array", "pd_op.full", "pd_op.divide", "pd_op.subtract", "pd_op.add",
        "pd_op.multiply", "pd_op.elementwise_pow", "pd_op.rsqrt", "pd_op.reshape", "pd_op.full_like",
        "pd_op.assign", "pd_op.expand", "pd_op.scale", "pd_op.exp", "pd_op.sin", "pd_op.cos",
        "pd_op.add_n", "pd_op.cast", "pd_op.concat", "pd_op.full_with_tensor", "pd_op.gather_nd",
        "pd_op.logical_and", "pd_op.logical_not", "pd_op.where", "pd_op.pow", "pd_op.shape",
        "pd_op.shape64", "pd_op.slice", "pd_op.squeeze", "pd_op.unsqueeze", "pd_op.transpose",
        "pd_op.log", "pd_op.log1p", "pd_op.logit", "pd_op.expand_as", "pd_op.split", "pd_op.arange",
        "pd_op.put_along_axis", "pd_op.tanh", "pd_op.atan", "pd_op.atanh", "pd_op.sinh", "pd_op.asin",
        "pd_op.asinh", "pd_op.cosh", "pd_op.acos", "pd_op.acosh", "pd_op.abs", "pd_op.sign",
        "pd_op.expm1", "pd_op.erf", "pd_op.erfinv", "pd_op.ceil", "pd_op.floor", "pd_op.frac",
        "pd_op.round", "pd_op.trunc", "pd_op.angle", "pd_op.as_complex", "pd_op.as_real",
        "pd_op.complex", "pd_op.real", "pd_op.imag", "pd_op.conj", "pd_op.greater_equal",
        "pd_op.greater_than", "pd_op.not_equal", "pd_op.equal", "pd_op.less_equal", "pd_op.less_than",
        "pd_op.bitwise_and", "pd_op.bitwise_or", "pd_op.bitwise_xor", "pd_op.bitwise_not",
        "pd_op.isinf", "pd_op.isnan", "pd_op.sigmoid"};
    c.tendingToRecomputeOps = {"pd_op.full_int_array", "pd_op.full"};
    c.randomOps = {"pd_op.randint", "pd_op.uniform", "pd_op.dropout"};
    c.computeIntensiveOps = {"pd_op.matmul", "pd_op.conv2d", "pd_op.layer_norm", "pd_op.batchnorm",
                             "pd_op.softmax", "pd_op.all_reduce_", "pd_op.c_broadcast_", "pd_op.reduce_"};
    c.viewOps = {};
    c.ignoreOps = {"cf.stack_create"};
    return c;
}

std::vector<std::string> RecomputeConfig::effectiveRecomputableOps() const {
    return sortedUnion({&recomputableOps, &viewOps});
}
std::vector<std::string> RecomputeConfig::unrecomputableOps() const {
    return sortedUnion({&randomOps, &computeIntensiveOps});
}
std::vector<std::string> RecomputeConfig::fusibleOps() const {
    return sortedUnion({&recomputableOps, &viewOps, &randomOps});
}

namespace {

// Every key the config knows, in the order configToJson writes them.
const std::vector<std::string_view>& configKeys() {
    static const std::vector<std::string_view> keys = {
        "recomputable_ops", "tending_to_recompute_ops", "random_ops", "compute_intensive_ops", "view_ops",
        "ignore_ops", "aggressive_recomputation", "max_dist_from_bw", "minimum_weight", "distance_base",
        "distance_cap", "non_materialized_factor", "size_ratio_ban", "pinned_saved", "pinned_recomputed"};
    return keys;
}

std::string numberText(double d) {  // shortest text that reads back to the same double
    if (d == std::floor(d) && std::fabs(d) < 1e15) return std::to_string(static_cast<int64_t>(d));
    char buf[64];
    auto r = std::to_chars(buf, buf + sizeof buf, d);
    return std::string(buf, r.ptr);
}

}  // namespace

RecomputeConfig parseConfigJson(std::string_view text, const std::string& fileName) {
    const rapidjson::Document doc = parseJson(text, fileName, "config");
    if (!doc.IsObject())
        throw Error(locateOffset(text, 0, fileName), "config JSON must be an object, found " + jsonTypeName(doc));
    RecomputeConfig c = RecomputeConfig::seedDefaults();
    auto fail = [&](std::string_view key, const std::string& msg) {
        failAt(text, fileName, JsonPath(std::string(key)), "config key '" + std::string(key) + "': " + msg);
    };
    for (auto m = doc.MemberBegin(); m != doc.MemberEnd(); ++m) {
        const std::string_view key(m->name.GetString(), m->name.GetStringLength());
        const auto& keys = configKeys();
        if (std::find(keys.begin(), keys.end(), key) != keys.end()) continue;
        std::string message = "unknown key '" + std::string(key) + "'";
        if (auto near = nearestName(key, keys)) message += "; did you mean '" + *near + "'?";
        else {
            message += "; the config keys are";
            for (size_t i = 0; i < keys.size(); ++i) message += (i ? ", " : " ") + std::string(keys[i]);
        }
        failAt(text, fileName, JsonPath(std::string(key)), message);
    }
    auto member = [&](const char* key) -> const rapidjson::Value* {
        auto it = doc.FindMember(key);
        return it == doc.MemberEnd() ? nullptr : &it->value;
    };
    auto readList = [&](const char* key, std::vector<std::string>& out) {
        const rapidjson::Value* v = member(key);
        if (!v) return;
        if (!v->IsArray()) fail(key, "expected a list of names (strings), found " + jsonTypeName(*v));
        out.clear();
        for (rapidjson::SizeType i = 0; i < v->Size(); ++i) {
            const rapidjson::Value& e = (*v)[i];
            if (!e.IsString())
                failAt(text, fileName, JsonPath(key).index(i),
                       "config key '" + std::string(key) + "': expected a name (a string), found " + jsonTypeName(e));
            out.emplace_back(e.GetString(), e.GetStringLength());
        }
    };
    // Ranges: wide enough for any real tuning, narrow enough that the network's exact
    // arithmetic holds (FlowNetwork scales weights by up to 10^6 into int64 capacities).
    auto readNumber = [&](const char* key, double& out, double lo, double hi, bool openLow = false) {
        const rapidjson::Value* v = member(key);
        if (!v) return;
        if (!v->IsNumber()) fail(key, "expected a number, found " + jsonTypeName(*v));
        const double d = v->GetDouble();
        if (!std::isfinite(d) || d > hi || (openLow ? d <= lo : d < lo))
            fail(key, numberText(d) + " is outside the allowed range " + (openLow ? "(" : "[") + numberText(lo) + ", " +
                          numberText(hi) + "]");
        out = d;
    };
    auto readInt = [&](const char* key, int64_t& out, int64_t lo, int64_t hi) {
        const rapidjson::Value* v = member(key);
        if (!v) return;
        if (!v->IsNumber()) fail(key, "expected an integer, found " + jsonTypeName(*v));
        int64_t n;
        if (v->IsInt64()) {
            n = v->GetInt64();
        } else {
            // An integral float (3.0, 1e3) is the integer it spells; 3.5 is not an integer.
            const double d = v->GetDouble();
            if (!std::isfinite(d) || d != std::floor(d)) fail(key, "expected an integer, found " + numberText(d));
            if (d < double(lo) || d > double(hi))
                fail(key, numberText(d) + " is outside the allowed range [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
            n = static_cast<int64_t>(d);
        }
        if (n < lo || n > hi)
            fail(key, std::to_string(n) + " is outside the allowed range [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
        out = n;
    };

    readList("recomputable_ops", c.recomputableOps);
    readList("tending_to_recompute_ops", c.tendingToRecomputeOps);
    readList("random_ops", c.randomOps);
    readList("compute_intensive_ops", c.computeIntensiveOps);
    readList("view_ops", c.viewOps);
    readList("ignore_ops", c.ignoreOps);
    readList("pinned_saved", c.pinnedSaved);
    readList("pinned_recomputed", c.pinnedRecomputed);
    if (const rapidjson::Value* v = member("aggressive_recomputation")) {
        if (!v->IsBool()) fail("aggressive_recomputation", "expected true or false, found " + jsonTypeName(*v));
        c.aggressiveRecomputation = v->GetBool();
    }
    readInt("max_dist_from_bw", c.maxDistFromBw, 0, 1000000000);
    readNumber("minimum_weight", c.minimumWeight, 0, 1e9);
    readNumber("distance_base", c.distanceBase, 0, 1000, /*openLow=*/true);
    readInt("distance_cap", c.distanceCap, 0, 100000);
    readInt("non_materialized_factor", c.nonMaterializedFactor, 0, 1000000);
    readNumber("size_ratio_ban", c.sizeRatioBan, 0, 1e12);
    return c;
}

RecomputeConfig readConfigFile(const std::string& path) { return parseConfigJson(readFile(path), path); }

void writeConfigFile(const RecomputeConfig& config, const std::string& path) {
    writeFileAtomic(path, configToJson(config));
}

std::string configToJson(const RecomputeConfig& c) {
    // Written by hand (not QJsonObject) to keep the seed's key order, which users read.
    auto list = [](const std::vector<std::string>& v) {
        rapidjson::StringBuffer buffer;
        JsonWriter<rapidjson::StringBuffer> w(buffer);
        w.StartArray();
        for (const auto& s : v) w.String(s.data(), rapidjson::SizeType(s.size()));
        w.EndArray();
        return std::string(buffer.GetString(), buffer.GetSize());
    };
    auto number = numberText;
    std::string out;
    auto line = [&](const char* key, const std::string& value, bool last = false) {
        out += std::string("  \"") + key + "\": " + value + (last ? "\n" : ",\n");
    };
    out += "{\n";
    line("recomputable_ops", list(c.recomputableOps));
    line("tending_to_recompute_ops", list(c.tendingToRecomputeOps));
    line("random_ops", list(c.randomOps));
    line("compute_intensive_ops", list(c.computeIntensiveOps));
    line("view_ops", list(c.viewOps));
    line("ignore_ops", list(c.ignoreOps));
    line("aggressive_recomputation", c.aggressiveRecomputation ? "true" : "false");
    line("max_dist_from_bw", std::to_string(c.maxDistFromBw));
    line("minimum_weight", number(c.minimumWeight));
    line("distance_base", number(c.distanceBase));
    line("distance_cap", std::to_string(c.distanceCap));
    line("non_materialized_factor", std::to_string(c.nonMaterializedFactor));
    line("size_ratio_ban", number(c.sizeRatioBan));
    line("pinned_saved", list(c.pinnedSaved));
    line("pinned_recomputed", list(c.pinnedRecomputed), true);
    out += "}\n";
    return out;
}

}  // namespace rx
