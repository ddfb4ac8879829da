#include "views/SpecSupport.h"

#include <QFile>
#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include "model/Diagnostic.h"

namespace rx::ui {

ValueId findValueByName(const Program& program, std::string_view name) {
    for (ValueId v = 0; v < program.values.size(); ++v)
        if (program.values[v].name == name) return v;
    return kNoId;
}

std::string specFileFor(const std::string& programPath) {
    QFileInfo fi(QString::fromStdString(programPath));
    return (fi.dir().filePath(fi.completeBaseName() + ".spec.json")).toStdString();
}

RecomputeSpec detectProgramSpec(const Program& program) {
#if __has_include("model/RecomputeSpec.h")
    return detectSpec(program);
#else
    RecomputeSpec s;
    const Block& g = program.globalBlock();
    int64_t fwdEnd = -1;
    for (uint32_t i = 0; i < g.ops.size(); ++i) {
        const OpId op = g.ops[i];
        const std::string_view name = program.opName(op);
        if (name == "pd_op.data" || name == "builtin.parameter")
            for (ValueId r : program.ops[op].results) s.inputs.push_back(r);
        if (name == "pd_op.fetch")
            for (ValueId v : program.ops[op].operands) {
                if (v == kNoId) continue;
                s.outputs.push_back(v);
                const OpId def = program.values[v].definingOp;
                if (def != kNoId && program.ops[def].parentBlock == Program::kGlobalBlock)
                    fwdEnd = std::max<int64_t>(fwdEnd, program.indexInBlock(def));
            }
    }
    if (fwdEnd < 0) fwdEnd = int64_t(g.ops.size()) - 1;
    s.fwdOpEndIdx = fwdEnd;
    s.backwardOpStartIdx = fwdEnd + 1;
    return s;
#endif
}

RecomputeSpec readProgramSpec(const std::string& path, const Program& program) {
#if __has_include("model/RecomputeSpec.h")
    return readSpecFile(path, program);
#else
    QFile f(QString::fromStdString(path));
    if (!f.open(QIODevice::ReadOnly)) throw Error(SourceLocation{path, 0, 0}, "cannot read spec file");
    QJsonParseError err;
    const QByteArray bytes = f.readAll();
    const QJsonDocument doc = QJsonDocument::fromJson(bytes, &err);
    if (err.error != QJsonParseError::NoError || !doc.isObject()) {
        int line = 1, col = 1;
        for (int i = 0; i < err.offset && i < bytes.size(); ++i) {
            if (bytes[i] == '\n') { ++line; col = 1; } else ++col;
        }
        throw Error(SourceLocation{path, line, col}, "malformed spec JSON: " + err.errorString().toStdString());
    }
    const QJsonObject o = doc.object();
    RecomputeSpec s;
    s.fwdOpEndIdx = o.value("fwd_op_end_idx").toInteger(-1);
    s.backwardOpStartIdx = o.value("backward_op_start_idx").toInteger(-1);
    auto names = [&](const char* key, std::vector<ValueId>& out) {
        for (const auto& v : o.value(key).toArray()) {
            const ValueId id = findValueByName(program, v.toString().toStdString());
            if (id == kNoId) throw Error(SourceLocation{path, 0, 0}, std::string(key) + ": unknown value " + v.toString().toStdString());
            out.push_back(id);
        }
    };
    names("inputs", s.inputs);
    names("outputs", s.outputs);
    names("grad_outputs", s.gradOutputs);
    return s;
#endif
}

std::string programSpecToJson(const RecomputeSpec& spec, const Program& program) {
#if __has_include("model/RecomputeSpec.h")
    return specToJson(spec, program);
#else
    QJsonObject o;
    o["fwd_op_end_idx"] = qint64(spec.fwdOpEndIdx);
    o["backward_op_start_idx"] = qint64(spec.backwardOpStartIdx);
    auto names = [&](const std::vector<ValueId>& vs) {
        QJsonArray a;
        for (ValueId v : vs) a.append(QString::fromStdString(program.values[v].name));
        return a;
    };
    o["inputs"] = names(spec.inputs);
    o["outputs"] = names(spec.outputs);
    o["grad_outputs"] = names(spec.gradOutputs);
    return QJsonDocument(o).toJson(QJsonDocument::Indented).toStdString();
#endif
}

LoadedSpec loadOrDetectSpec(const Program& program, const std::string& programPath) {
    LoadedSpec out;
    const std::string specPath = specFileFor(programPath);
    if (!programPath.empty() && QFileInfo::exists(QString::fromStdString(specPath))) {
        out.spec = readProgramSpec(specPath, program);
        out.detected = false;
        out.specFile = specPath;
    } else {
        out.spec = detectProgramSpec(program);
    }
    return out;
}

}  // namespace rx::ui
