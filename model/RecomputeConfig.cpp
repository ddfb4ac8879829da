#include "model/RecomputeConfig.h"

#include <QByteArray>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonParseError>
#include <QJsonValue>
#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>

#include "model/Diagnostic.h"

namespace rx {

namespace {

std::vector<std::string> sortedUnion(std::initializer_list<const std::vector<std::string>*> lists) {
    std::vector<std::string> out;
    for (const auto* l : lists) out.insert(out.end(), l->begin(), l->end());
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

// 1-based line/column of a byte offset.
SourceLocation locate(std::string_view text, size_t offset, const std::string& fileName) {
    SourceLocation where{fileName, 1, 1};
    for (size_t i = 0; i < offset && i < text.size(); ++i) {
        if (text[i] == '\n') {
            ++where.line;
            where.column = 1;
        } else {
            ++where.column;
        }
    }
    return where;
}

// Position of the value of `"key"` in the text (for errors after QJsonDocument parsed it).
SourceLocation keyLocation(std::string_view text, std::string_view key, const std::string& fileName) {
    const std::string quoted = "\"" + std::string(key) + "\"";
    size_t at = text.find(quoted);
    if (at == std::string_view::npos) return {fileName, 0, 0};
    size_t colon = text.find(':', at + quoted.size());
    size_t value = colon == std::string_view::npos ? at : colon + 1;
    while (value < text.size() && (text[value] == ' ' || text[value] == '\t' || text[value] == '\n' || text[value] == '\r'))
        ++value;
    return locate(text, value, fileName);
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

RecomputeConfig parseConfigJson(std::string_view text, const std::string& fileName) {
    QJsonParseError err;
    const QByteArray bytes(text.data(), static_cast<qsizetype>(text.size()));
    const QJsonDocument doc = QJsonDocument::fromJson(bytes, &err);
    if (err.error != QJsonParseError::NoError)
        throw Error(locate(text, static_cast<size_t>(err.offset), fileName),
                    "invalid config JSON: " + err.errorString().toStdString());
    if (!doc.isObject()) throw Error(locate(text, 0, fileName), "config JSON must be an object");
    const QJsonObject obj = doc.object();
    RecomputeConfig c = RecomputeConfig::seedDefaults();

    auto fail = [&](std::string_view key, const std::string& msg) -> Error {
        return Error(keyLocation(text, key, fileName), "config key '" + std::string(key) + "': " + msg);
    };
    auto readList = [&](const char* key, std::vector<std::string>& out) {
        if (!obj.contains(key)) return;
        const QJsonValue v = obj.value(key);
        if (!v.isArray()) throw fail(key, "expected a list of op names");
        out.clear();
        for (const QJsonValue& e : v.toArray()) {
            if (!e.isString()) throw fail(key, "every element must be a string");
            out.push_back(e.toString().toStdString());
        }
    };
    auto readNumber = [&](const char* key, double& out) {
        if (!obj.contains(key)) return;
        const QJsonValue v = obj.value(key);
        if (!v.isDouble()) throw fail(key, "expected a number");
        out = v.toDouble();
        if (!std::isfinite(out)) throw fail(key, "expected a finite number");
    };
    auto readInt = [&](const char* key, int64_t& out) {
        if (!obj.contains(key)) return;
        double d = 0;
        readNumber(key, d);
        if (d != std::floor(d) || std::fabs(d) > 9.0e15) throw fail(key, "expected an integer");
        out = static_cast<int64_t>(d);
    };

    readList("recomputable_ops", c.recomputableOps);
    readList("tending_to_recompute_ops", c.tendingToRecomputeOps);
    readList("random_ops", c.randomOps);
    readList("compute_intensive_ops", c.computeIntensiveOps);
    readList("view_ops", c.viewOps);
    readList("ignore_ops", c.ignoreOps);
    readList("pinned_saved", c.pinnedSaved);
    readList("pinned_recomputed", c.pinnedRecomputed);
    if (obj.contains("aggressive_recomputation")) {
        const QJsonValue v = obj.value("aggressive_recomputation");
        if (!v.isBool()) throw fail("aggressive_recomputation", "expected true or false");
        c.aggressiveRecomputation = v.toBool();
    }
    readInt("max_dist_from_bw", c.maxDistFromBw);
    readNumber("minimum_weight", c.minimumWeight);
    readNumber("distance_base", c.distanceBase);
    readInt("distance_cap", c.distanceCap);
    readInt("non_materialized_factor", c.nonMaterializedFactor);
    readNumber("size_ratio_ban", c.sizeRatioBan);
    if (c.minimumWeight < 0) throw fail("minimum_weight", "must not be negative");
    if (c.distanceBase <= 0) throw fail("distance_base", "must be positive");
    if (c.nonMaterializedFactor < 0) throw fail("non_materialized_factor", "must not be negative");
    if (c.sizeRatioBan < 0) throw fail("size_ratio_ban", "must not be negative");
    return c;
}

RecomputeConfig readConfigFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error(SourceLocation{path, 0, 0}, "cannot open config file");
    std::stringstream ss;
    ss << in.rdbuf();
    return parseConfigJson(ss.str(), path);
}

std::string configToJson(const RecomputeConfig& c) {
    // Written by hand (not QJsonObject) to keep the seed's key order, which users read.
    auto list = [](const std::vector<std::string>& v) {
        QJsonArray a;
        for (const auto& s : v) a.append(QString::fromStdString(s));
        return QJsonDocument(a).toJson(QJsonDocument::Compact).toStdString();
    };
    auto number = [](double d) {  // shortest text that reads back to the same double
        char buf[64];
        auto r = std::to_chars(buf, buf + sizeof buf, d);
        return std::string(buf, r.ptr);
    };
    std::ostringstream out;
    out << "{\n";
    out << "  \"recomputable_ops\": " << list(c.recomputableOps) << ",\n";
    out << "  \"tending_to_recompute_ops\": " << list(c.tendingToRecomputeOps) << ",\n";
    out << "  \"random_ops\": " << list(c.randomOps) << ",\n";
    out << "  \"compute_intensive_ops\": " << list(c.computeIntensiveOps) << ",\n";
    out << "  \"view_ops\": " << list(c.viewOps) << ",\n";
    out << "  \"ignore_ops\": " << list(c.ignoreOps) << ",\n";
    out << "  \"aggressive_recomputation\": " << (c.aggressiveRecomputation ? "true" : "false") << ",\n";
    out << "  \"max_dist_from_bw\": " << c.maxDistFromBw << ",\n";
    out << "  \"minimum_weight\": " << number(c.minimumWeight) << ",\n";
    out << "  \"distance_base\": " << number(c.distanceBase) << ",\n";
    out << "  \"distance_cap\": " << c.distanceCap << ",\n";
    out << "  \"non_materialized_factor\": " << c.nonMaterializedFactor << ",\n";
    out << "  \"size_ratio_ban\": " << number(c.sizeRatioBan) << ",\n";
    out << "  \"pinned_saved\": " << list(c.pinnedSaved) << ",\n";
    out << "  \"pinned_recomputed\": " << list(c.pinnedRecomputed) << "\n";
    out << "}\n";
    return out.str();
}

}  // namespace rx
