#include "model/RecomputeSpec.h"

#include <QByteArray>
#include <QFile>
#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <unordered_map>

#include "model/Diagnostic.h"
#include "model/PirReader.h"

namespace rx {
namespace {

SourceLocation locationOf(std::string_view text, size_t offset, const std::string& file) {
    SourceLocation loc{file, 1, 1};
    for (size_t i = 0; i < offset && i < text.size(); ++i) {
        if (text[i] == '\n') { ++loc.line; loc.column = 1; }
        else if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) ++loc.column;
    }
    return loc;
}

// Where `"name"` first appears in the JSON text, for error positions.
SourceLocation locationOfString(std::string_view text, const std::string& name, const std::string& file) {
    const size_t at = text.find("\"" + name + "\"");
    if (at == std::string_view::npos) return SourceLocation{file, 0, 0};
    return locationOf(text, at + 1, file);
}

}  // namespace

RecomputeSpec parseSpecJson(std::string_view json, const Program& program, const std::string& fileName) {
    QJsonParseError error{};
    const QJsonDocument doc = QJsonDocument::fromJson(QByteArray(json.data(), static_cast<qsizetype>(json.size())), &error);
    if (doc.isNull())
        throw Error(locationOf(json, static_cast<size_t>(std::max(0, error.offset)), fileName),
                    "invalid spec JSON: " + error.errorString().toStdString());
    if (!doc.isObject()) throw Error(SourceLocation{fileName, 1, 1}, "expected a JSON object with fwd_op_end_idx etc., found another JSON value");
    const QJsonObject o = doc.object();

    RecomputeSpec spec;
    const int opCount = static_cast<int>(program.globalBlock().ops.size());
    const auto index = [&](const char* key) {
        const QJsonValue v = o.value(key);
        if (!v.isDouble() || v.toDouble() != static_cast<double>(static_cast<int64_t>(v.toDouble())))
            throw Error(locationOfString(json, key, fileName),
                        std::string("expected an integer \"") + key + "\" (an op index of the global block)");
        const auto n = static_cast<int64_t>(v.toDouble());
        if (n < -1 || n > opCount)
            throw Error(locationOfString(json, key, fileName),
                        std::string("\"") + key + "\" = " + std::to_string(n) + " is outside the program's " +
                            std::to_string(opCount) + " ops");
        return static_cast<int>(n);
    };
    spec.fwdOpEndIdx = index("fwd_op_end_idx");
    spec.backwardOpStartIdx = index("backward_op_start_idx");
    if (spec.backwardOpStartIdx <= spec.fwdOpEndIdx)
        throw Error(locationOfString(json, "backward_op_start_idx", fileName),
                    "expected backward_op_start_idx > fwd_op_end_idx, found " + std::to_string(spec.backwardOpStartIdx) +
                        " <= " + std::to_string(spec.fwdOpEndIdx));

    // Names: first binding wins, global block first (values are created in that order).
    std::unordered_map<std::string_view, ValueId> byName;
    byName.reserve(program.values.size());
    for (ValueId v = 0; v < program.values.size(); ++v) byName.emplace(program.values[v].name, v);

    std::vector<std::string> unknown;
    std::string firstUnknown;
    const auto names = [&](const char* key, std::vector<ValueId>& out) {
        const QJsonValue v = o.value(key);
        if (v.isUndefined() || v.isNull()) return;
        if (!v.isArray())
            throw Error(locationOfString(json, key, fileName), std::string("expected \"") + key + "\" to be a list of value names");
        for (const QJsonValue& e : v.toArray()) {
            if (!e.isString())
                throw Error(locationOfString(json, key, fileName), std::string("expected value names (strings) in \"") + key + "\"");
            const std::string name = e.toString().toStdString();
            auto it = byName.find(name);
            if (it == byName.end()) {
                if (unknown.empty()) firstUnknown = name;
                unknown.push_back(name);
            } else {
                out.push_back(it->second);
            }
        }
    };
    names("inputs", spec.inputs);
    names("outputs", spec.outputs);
    names("grad_outputs", spec.gradOutputs);
    if (!unknown.empty()) {
        std::string list;
        for (const auto& n : unknown) list += (list.empty() ? "" : ", ") + n;
        throw Error(locationOfString(json, firstUnknown, fileName),
                    "expected value names of the program, found unknown name(s): " + list);
    }
    spec.notes.push_back("spec read from " + fileName);
    return spec;
}

RecomputeSpec readSpecFile(const std::string& path, const Program& program) {
    return parseSpecJson(readTextFile(path), program, path);
}

std::string specToJson(const RecomputeSpec& spec, const Program& program) {
    QJsonObject o;
    o.insert("fwd_op_end_idx", spec.fwdOpEndIdx);
    o.insert("backward_op_start_idx", spec.backwardOpStartIdx);
    const auto list = [&](const std::vector<ValueId>& values) {
        QJsonArray a;
        for (ValueId v : values) a.append(QString::fromStdString(program.values[v].name));
        return a;
    };
    o.insert("inputs", list(spec.inputs));
    o.insert("outputs", list(spec.outputs));
    o.insert("grad_outputs", list(spec.gradOutputs));
    return QJsonDocument(o).toJson(QJsonDocument::Indented).toStdString();
}

void writeSpecFile(const RecomputeSpec& spec, const Program& program, const std::string& path) {
    const std::string text = specToJson(spec, program);
    QFile f(QString::fromStdString(path));
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate) ||
        f.write(text.data(), static_cast<qint64>(text.size())) != static_cast<qint64>(text.size()))
        throw Error(path + ": cannot write file: " + f.errorString().toStdString());
}

RecomputeSpec detectSpec(const Program& program) {
    RecomputeSpec spec;
    spec.detected = true;
    const auto& ops = program.globalBlock().ops;
    const uint32_t data = program.findOpName("pd_op.data");
    const uint32_t parameter = program.findOpName("builtin.parameter");
    const uint32_t fetch = program.findOpName("pd_op.fetch");
    int lastForwardRole = -1;
    bool haveRoles = false;
    for (size_t i = 0; i < ops.size(); ++i) {
        const Operation& op = program.ops[ops[i]];
        if (op.nameId == data || op.nameId == parameter)
            for (ValueId r : op.results) spec.inputs.push_back(r);
        if (op.nameId == fetch)
            for (ValueId v : op.operands)
                if (v != kNoId && std::find(spec.outputs.begin(), spec.outputs.end(), v) == spec.outputs.end())
                    spec.outputs.push_back(v);
        if (const Attribute* role = op.attribute("op_role")) {
            haveRoles = true;
            if (role->intValue == 0 && role->kind != Attribute::Kind::Bool) lastForwardRole = static_cast<int>(i);
        }
    }
    if (haveRoles && lastForwardRole >= 0) {
        spec.fwdOpEndIdx = lastForwardRole;
        spec.notes.push_back("forward ends at op " + std::to_string(lastForwardRole) + ", the last op with op_role 0");
    } else {
        int end = -1;
        for (ValueId v : spec.outputs) {
            const OpId def = program.values[v].definingOp;
            if (def == kNoId) continue;
            const OpId top = program.ancestorInBlock(def, Program::kGlobalBlock);
            if (top != kNoId) end = std::max(end, static_cast<int>(program.indexInBlock(top)));
        }
        spec.fwdOpEndIdx = end;
        if (end >= 0)
            spec.notes.push_back("forward ends at op " + std::to_string(end) +
                                 ", the last op defining a fetched value");
        else
            spec.notes.push_back("no pd_op.fetch and no op_role attributes: no forward/backward split detected");
    }
    spec.backwardOpStartIdx = spec.fwdOpEndIdx + 1;
    spec.notes.push_back(std::to_string(spec.inputs.size()) + " input(s) from pd_op.data/builtin.parameter, " +
                         std::to_string(spec.outputs.size()) + " output(s) from pd_op.fetch, no grad_outputs");
    return spec;
}

std::string specPathBeside(const std::string& programPath) {
    const QFileInfo info(QString::fromStdString(programPath));
    QString base = info.fileName();
    const int dot = base.lastIndexOf('.');
    if (dot > 0) base = base.left(dot);
    return info.dir().filePath(base + ".spec.json").toStdString();
}

std::optional<std::string> specPathFor(const std::string& programPath) {
    if (programPath.empty()) return std::nullopt;
    const QString candidate = QString::fromStdString(specPathBeside(programPath));
    if (!QFileInfo::exists(candidate) || candidate == QFileInfo(QString::fromStdString(programPath)).filePath())
        return std::nullopt;
    return candidate.toStdString();
}

ResolvedSpec resolveSpec(const Program& program, const std::string& programPath,
                         const std::optional<std::string>& specFile) {
    if (specFile) return {readSpecFile(*specFile, program), *specFile};
    if (auto beside = specPathFor(programPath)) return {readSpecFile(*beside, program), *beside};
    return {detectSpec(program), {}};
}

}  // namespace rx
