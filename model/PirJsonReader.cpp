#include "model/PirJsonReader.h"

#include <QByteArray>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <cctype>
#include <limits>

#include "model/Diagnostic.h"
#include "model/PirReader.h"

namespace rx {
namespace {

class JsonProgramBuilder {
public:
    JsonProgramBuilder(Program& prog, const std::string& file) : prog_(prog), file_(file) {}

    [[noreturn]] void fail(const std::string& what) const { throw Error(file_ + ": PIR JSON: " + what); }

    // "1.data" -> "pd_op.data": the number names the dialect (Paddle's serializer ids).
    static std::string opName(const std::string& code) {
        if (code == "p") return "builtin.parameter";
        const auto dot = code.find('.');
        if (dot == std::string::npos) return code;
        const std::string dialect = code.substr(0, dot), rest = code.substr(dot + 1);
        if (dialect == "0") return "builtin." + rest;
        if (dialect == "1") return "pd_op." + rest;
        if (dialect == "2") return "cf." + rest;
        if (dialect == "3") return "custom_op." + rest;
        if (dialect == "4") return "pd_dist." + rest;
        return code;
    }

    TypeId type(const QJsonValue& v) {
        if (!v.isObject()) return kNullType;
        const QJsonObject o = v.toObject();
        const std::string code = o.value("#").toString().toStdString();
        const QJsonValue d = o.value("D");
        if (code == "0.t_dtensor" || code == "0.t_selected_rows") {
            const QJsonArray a = d.toArray();
            if (a.size() < 2) fail("dense tensor type needs [dtype, dims, ...]");
            Type t;
            t.kind = code == "0.t_dtensor" ? Type::Kind::DenseTensor : Type::Kind::SelectedRows;
            t.dtype = dtype(a[0]);
            for (const QJsonValue& dim : a[1].toArray()) t.dims.push_back(static_cast<int64_t>(dim.toDouble()));
            if (t.kind == Type::Kind::SelectedRows) t.dialect = "builtin.selected_rows";
            return prog_.types.intern(t);
        }
        if (code == "0.t_vec") {
            std::vector<TypeId> elements;
            for (const QJsonValue& e : d.toArray()) elements.push_back(type(e));
            return prog_.types.intern(Type::vector(std::move(elements)));
        }
        if (code.empty() || code == "NULL") return kNullType;
        // Unknown type codes stay visible and print as text the PIR reader reads back.
        Type t;
        t.kind = Type::Kind::Opaque;
        std::string safe;
        for (char c : code) safe += (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.') ? c : '_';
        t.text = "json_type<" + safe + ">";
        return prog_.types.intern(t);
    }

    DType dtype(const QJsonValue& v) {
        const std::string code = v.toObject().value("#").toString().toStdString();
        const auto pos = code.find("t_");
        if (pos != std::string::npos)
            if (auto d = parseDTypeShort(code.substr(pos + 2))) return *d;
        if (code.find("bool") != std::string::npos) return DType::Bool;
        fail("unknown element type '" + code + "'");
    }

    static std::string placeText(const QJsonArray& a) {
        const int kind = a.size() > 0 ? a[0].toInt() : 0;
        const int device = a.size() > 1 ? a[1].toInt() : 0;
        switch (kind) {
        case 1: return "Place(cpu)";
        case 2: return "Place(gpu:" + std::to_string(device) + ")";
        case 3: return "Place(gpu_pinned)";
        case 4: return "Place(xpu:" + std::to_string(device) + ")";
        default: return "Place(undefined:" + std::to_string(device) + ")";
        }
    }

    Attribute attribute(const QJsonValue& v) {
        const QJsonObject o = v.toObject();
        const std::string code = o.value("#").toString().toStdString();
        const QJsonValue d = o.value("D");
        Attribute a;
        if (o.contains("VD") && (code == "0.a_f32" || code == "0.a_f64")) {  // nan, inf, -inf
            const std::string special = o.value("VD").toString().toStdString();
            const double value = special == "nan" ? std::numeric_limits<double>::quiet_NaN()
                                 : special == "-inf" ? -std::numeric_limits<double>::infinity()
                                                     : std::numeric_limits<double>::infinity();
            a = code == "0.a_f32" ? Attribute::float32(value) : Attribute::float64(value);
            a.spelling = special;
            return a;
        }
        if (code == "0.a_bool") return Attribute::boolean(d.toBool());
        if (code == "0.a_i32") return Attribute::int32(static_cast<int64_t>(d.toDouble()));
        if (code == "0.a_i64") return Attribute::int64(static_cast<int64_t>(d.toDouble()));
        if (code == "0.a_index") { a = Attribute::int64(static_cast<int64_t>(d.toDouble())); a.kind = Attribute::Kind::Index; return a; }
        if (code == "0.a_f32") return Attribute::float32(d.toDouble());
        if (code == "0.a_f64") return Attribute::float64(d.toDouble());
        if (code == "0.a_str") return Attribute::string(d.toString().toStdString());
        if (code == "0.a_array") {
            std::vector<Attribute> elements;
            for (const QJsonValue& e : d.toArray()) elements.push_back(attribute(e));
            return Attribute::array(std::move(elements));
        }
        if (code == "1.a_intarray") {
            std::vector<int64_t> ints;
            for (const QJsonValue& e : d.toArray()) ints.push_back(static_cast<int64_t>(e.toDouble()));
            return Attribute::intArray(ints);
        }
        if (code == "1.a_dtype") return Attribute::dataType(d.toString().toStdString());
        if (code == "1.a_place") return Attribute::place(placeText(d.toArray()));
        if (code == "1.a_datalayout") { a.kind = Attribute::Kind::DataLayout; a.text = d.toString().toStdString(); return a; }
        if (code == "0.a_pointer") { a.kind = Attribute::Kind::Pointer; a.text = d.toString().toStdString(); return a; }
        a.kind = Attribute::Kind::Opaque;
        a.text = QJsonDocument(o).toJson(QJsonDocument::Compact).toStdString();
        return a;
    }

    void namedAttributes(const QJsonValue& list, std::vector<NamedAttribute>& out) {
        for (const QJsonValue& e : list.toArray()) {
            const QJsonObject o = e.toObject();
            out.push_back({o.value("N").toString().toStdString(), attribute(o.value("AT"))});
        }
    }

    ValueId lookup(const QJsonValue& v) {
        const int id = v.toObject().value("%").toInt(0);
        if (id == 0) return kNoId;  // null value
        auto it = ids_.find(id);
        if (it == ids_.end()) fail("value id " + std::to_string(id) + " used before it is defined");
        return it->second;
    }

    void block(const QJsonObject& b, BlockId blockId, int depth) {
        if (depth > 100) fail("regions nested too deeply");
        for (const QJsonValue& arg : b.value("args").toArray()) {
            const QJsonObject a = arg.toObject();
            const ValueId v = prog_.addBlockArgument(blockId, type(a.value("TT")), "%arg_" + std::to_string(argCount_++));
            ids_[a.value("%").toInt()] = v;
        }
        for (const QJsonValue& arg : b.value("kwargs").toArray()) {
            const QJsonObject a = arg.toObject();
            const ValueId v = prog_.addBlockArgument(blockId, type(a.value("TT")), "%arg_" + std::to_string(argCount_++),
                                                     a.value("key").toString().toStdString());
            ids_[a.value("%").toInt()] = v;
        }
        for (const QJsonValue& opValue : b.value("ops").toArray()) op(opValue.toObject(), blockId, depth);
    }

    void op(const QJsonObject& o, BlockId blockId, int depth) {
        const std::string code = o.value("#").toString().toStdString();
        if (code.empty()) fail("op without a \"#\" name");
        std::vector<NamedAttribute> attrs;
        std::vector<ValueId> operands;
        std::vector<TypeId> resultTypes;
        std::vector<int> resultIds;
        if (code == "p") {
            // Parameters are written positionally: A = [is_distributed, is_parameter,
            // need_clip, name], OA = [persistable, stop_gradient, trainable].
            const QJsonArray a = o.value("A").toArray();
            const QJsonArray oa = o.value("OA").toArray();
            const auto flag = [](const QJsonValue& v) { return Attribute::array({Attribute::boolean(v.toInt() != 0 || v.toBool())}); };
            if (a.size() >= 4) {
                attrs.push_back({"is_distributed", flag(a[0])});
                attrs.push_back({"is_parameter", flag(a[1])});
                attrs.push_back({"need_clip", flag(a[2])});
                attrs.push_back({"parameter_name", Attribute::string(a[3].toString().toStdString())});
            }
            if (oa.size() >= 3) {
                attrs.push_back({"persistable", flag(oa[0])});
                attrs.push_back({"stop_gradient", flag(oa[1])});
                attrs.push_back({"trainable", flag(oa[2])});
            }
        } else {
            namedAttributes(o.value("A"), attrs);
            namedAttributes(o.value("OA"), attrs);
            for (const QJsonValue& in : o.value("I").toArray()) operands.push_back(lookup(in));
        }
        QJsonArray outs;
        if (o.value("O").isArray()) outs = o.value("O").toArray();
        else if (o.value("O").isObject()) outs.append(o.value("O"));
        for (const QJsonValue& out : outs) {
            resultTypes.push_back(type(out.toObject().value("TT")));
            resultIds.push_back(out.toObject().value("%").toInt());
        }
        std::sort(attrs.begin(), attrs.end(), [](const NamedAttribute& x, const NamedAttribute& y) { return x.name < y.name; });
        std::vector<std::string> names;
        for (size_t i = 0; i < resultTypes.size(); ++i) names.push_back("%" + std::to_string(valueCount_++));
        const OpId id = prog_.appendOp(blockId, opName(code), operands, resultTypes, std::move(attrs), names);
        for (size_t i = 0; i < resultIds.size(); ++i) {
            if (resultIds[i] == 0) continue;
            if (!ids_.emplace(resultIds[i], prog_.ops[id].results[i]).second)
                fail("value id " + std::to_string(resultIds[i]) + " defined twice");
        }
        for (const QJsonValue& region : o.value("regions").toArray()) {
            std::vector<BlockId> blocks;
            for (const QJsonValue& b : region.toObject().value("blocks").toArray()) {
                const BlockId nb = prog_.addBlock(id);
                blocks.push_back(nb);
                block(b.toObject(), nb, depth + 1);
            }
            prog_.ops[id].regions.push_back(std::move(blocks));
        }
    }

private:
    Program& prog_;
    const std::string& file_;
    std::unordered_map<int, ValueId> ids_;
    int valueCount_ = 0;
    int argCount_ = 0;
};

}  // namespace

Program parsePirJson(std::string_view json, const std::string& fileName) {
    QJsonParseError error{};
    const QJsonDocument doc =
        QJsonDocument::fromJson(QByteArray(json.data(), static_cast<qsizetype>(json.size())), &error);
    if (doc.isNull()) {
        // Report the offset as line:column for a consistent error format.
        int line = 1, column = 1;
        for (int i = 0; i < error.offset && i < static_cast<int>(json.size()); ++i) {
            if (json[static_cast<size_t>(i)] == '\n') { ++line; column = 1; }
            else ++column;
        }
        throw Error(SourceLocation{fileName, line, column}, "invalid JSON: " + error.errorString().toStdString());
    }
    const QJsonObject root = doc.object();
    const QJsonObject base = root.value("base_code").toObject();
    if (base.value("magic").toString() != "pir")
        throw Error(fileName + ": not a PIR JSON program (\"base_code\": {\"magic\": \"pir\"} missing)");
    const QJsonArray regions = root.value("program").toObject().value("regions").toArray();
    if (regions.isEmpty()) throw Error(fileName + ": PIR JSON: program has no regions");
    const QJsonArray blocks = regions[0].toObject().value("blocks").toArray();
    if (blocks.isEmpty()) throw Error(fileName + ": PIR JSON: program has no blocks");
    Program prog;
    prog.generation = Generation::G2;
    JsonProgramBuilder builder(prog, fileName);
    builder.block(blocks[0].toObject(), Program::kGlobalBlock, 0);
    prog.invalidateCaches();
    return prog;
}

Program readPirJsonFile(const std::string& path) { return parsePirJson(readTextFile(path), path); }

}  // namespace rx
