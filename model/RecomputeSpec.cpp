// The recompute spec file (FORMATS.md "Recompute spec"): strict reading, detection, writing.
#include "model/RecomputeSpec.h"

#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

#include <algorithm>
#include <charconv>
#include <optional>
#include <filesystem>

#include "model/Diagnostic.h"
#include "model/FileIO.h"
#include "model/JsonSupport.h"
#include "model/JsonWriter.h"
#include "model/PirReader.h"

namespace rx {

namespace {

// The value names a spec mentions, each resolved to the first value of that name. Flat arrays:
// "%N" names by N (a dense table when the numbers are small, as printed programs' are),
// others sorted by text.
class RequestedNames {
public:
    void add(std::string_view name) {
        if (auto n = numberOf(name)) numbered_.push_back({*n, kNoId});
        else named_.push_back({name, kNoId});
    }

    // One pass over the program's values, stopping once every name is found.
    void resolve(const Program& program) {
        std::sort(numbered_.begin(), numbered_.end());
        numbered_.erase(std::unique(numbered_.begin(), numbered_.end()), numbered_.end());
        std::sort(named_.begin(), named_.end());
        named_.erase(std::unique(named_.begin(), named_.end()), named_.end());
        const uint64_t largest = numbered_.empty() ? 0 : numbered_.back().first;
        if (!numbered_.empty() && largest < 8 * uint64_t(program.values().size()) + 4096) {
            dense_.assign(size_t(largest) + 1, kNoId);
            for (uint32_t i = 0; i < numbered_.size(); ++i) dense_[numbered_[i].first] = i;
        }
        size_t left = numbered_.size() + named_.size();
        for (ValueId v = 0; v < program.values().size() && left > 0; ++v) {
            ValueId* slot = slotOf(program.value(v).name);
            if (slot && *slot == kNoId) {
                *slot = v;
                --left;
            }
        }
    }

    ValueId valueOf(std::string_view name) {
        const ValueId* slot = slotOf(name);
        return slot ? *slot : kNoId;
    }

private:
    static std::optional<uint32_t> numberOf(std::string_view name) {
        if (name.size() < 2 || name[0] != '%' || (name[1] == '0' && name.size() > 2)) return std::nullopt;
        uint32_t n = 0;
        auto [ptr, ec] = std::from_chars(name.data() + 1, name.data() + name.size(), n);
        if (ec != std::errc() || ptr != name.data() + name.size()) return std::nullopt;
        return n;
    }

    ValueId* slotOf(std::string_view name) {
        if (auto n = numberOf(name)) {
            if (!dense_.empty()) {
                if (*n >= dense_.size() || dense_[*n] == kNoId) return nullptr;
                return &numbered_[dense_[*n]].second;
            }
            auto it = std::lower_bound(numbered_.begin(), numbered_.end(), std::pair<uint32_t, ValueId>{*n, 0});
            return it != numbered_.end() && it->first == *n ? &it->second : nullptr;
        }
        if (named_.empty()) return nullptr;
        auto it = std::lower_bound(named_.begin(), named_.end(), std::pair<std::string_view, ValueId>{name, 0});
        return it != named_.end() && it->first == name ? &it->second : nullptr;
    }

    std::vector<std::pair<uint32_t, ValueId>> numbered_;
    std::vector<std::pair<std::string_view, ValueId>> named_;
    std::vector<uint32_t> dense_;  // N -> index into numbered_, when used
};

}  // namespace

RecomputeSpec parseSpecJson(std::string_view json, const Program& program, const std::string& fileName) {
    const rapidjson::Document doc = parseJson(json, fileName, "spec");
    if (!doc.IsObject())
        throw Error(SourceLocation{fileName, 1, 1},
                    "expected a JSON object with fwd_op_end_idx etc., found " + jsonTypeName(doc));
    static const std::vector<std::string_view> keys = {"fwd_op_end_idx", "backward_op_start_idx", "inputs", "outputs",
                                                       "grad_outputs"};
    for (auto m = doc.MemberBegin(); m != doc.MemberEnd(); ++m) {
        const std::string_view key(m->name.GetString(), m->name.GetStringLength());
        if (std::find(keys.begin(), keys.end(), key) != keys.end()) continue;
        std::string message = "unknown spec key '" + std::string(key) + "'";
        if (auto near = nearestName(key, keys)) message += "; did you mean '" + *near + "'?";
        else message += "; the spec keys are fwd_op_end_idx, backward_op_start_idx, inputs, outputs, grad_outputs";
        failAt(json, fileName, JsonPath(std::string(key)), message);
    }

    RecomputeSpec spec;
    const int64_t opCount = static_cast<int64_t>(program.globalBlock().ops.size());
    const auto index = [&](const char* key) {
        auto it = doc.FindMember(key);
        if (it == doc.MemberEnd())
            throw Error(SourceLocation{fileName, 1, 1},
                        std::string("expected an integer \"") + key + "\" (an op index of the global block), found none");
        const rapidjson::Value& v = it->value;
        if (!v.IsInt64())
            failAt(json, fileName, JsonPath(key),
                   std::string("expected an integer (an op index of the global block, -1 to ") + std::to_string(opCount) +
                       "), found " + jsonTypeName(v));
        const int64_t n = v.GetInt64();
        if (n < -1 || n > opCount)
            failAt(json, fileName, JsonPath(key),
                   std::to_string(n) + " is outside the program's ops (allowed -1 to " + std::to_string(opCount) + ")");
        return static_cast<int>(n);
    };
    spec.fwdOpEndIdx = index("fwd_op_end_idx");
    // -1 is what detection reports when it finds no split; in a spec file it would leave the
    // solver nothing to split, and its error would blame a missing --spec.
    if (spec.fwdOpEndIdx < 0)
        failAt(json, fileName, JsonPath("fwd_op_end_idx"),
               "-1 gives no forward part; expected the index of the last forward op (0 to " +
                   std::to_string(std::max<int64_t>(opCount - 1, 0)) + ")");
    spec.backwardOpStartIdx = index("backward_op_start_idx");
    if (spec.backwardOpStartIdx <= spec.fwdOpEndIdx)
        failAt(json, fileName, JsonPath("backward_op_start_idx"),
               "expected backward_op_start_idx > fwd_op_end_idx, found " + std::to_string(spec.backwardOpStartIdx) +
                   " <= " + std::to_string(spec.fwdOpEndIdx));

    // Names: first binding wins, global block first (values are created in that order). Only the
    // names the spec mentions are looked up, in one pass over the values (1M-op programs' specs
    // name 57k parameters; node-based maps of them cost 0.3 s, mostly freeing their nodes).
    RequestedNames requested;
    for (const char* key : {"inputs", "outputs", "grad_outputs"}) {
        auto it = doc.FindMember(key);
        if (it == doc.MemberEnd() || !it->value.IsArray()) continue;
        for (const rapidjson::Value& e : it->value.GetArray())
            if (e.IsString()) requested.add(std::string_view(e.GetString(), e.GetStringLength()));
    }
    requested.resolve(program);

    std::vector<std::string> unknown;
    std::optional<JsonPath> firstUnknown;
    const auto names = [&](const char* key, std::vector<ValueId>& out) {
        auto it = doc.FindMember(key);
        if (it == doc.MemberEnd() || it->value.IsNull()) return;
        const rapidjson::Value& v = it->value;
        if (!v.IsArray())
            failAt(json, fileName, JsonPath(key), "expected a list of value names, found " + jsonTypeName(v));
        for (rapidjson::SizeType i = 0; i < v.Size(); ++i) {
            const rapidjson::Value& e = v[i];
            if (!e.IsString())
                failAt(json, fileName, JsonPath(key).index(i), "expected a value name (a string), found " + jsonTypeName(e));
            const std::string_view name(e.GetString(), e.GetStringLength());
            const ValueId found = requested.valueOf(name);
            if (found == kNoId) {
                if (unknown.empty()) firstUnknown = JsonPath(key).index(i);
                unknown.emplace_back(name);
            } else {
                out.push_back(found);
            }
        }
    };
    names("inputs", spec.inputs);
    names("outputs", spec.outputs);
    names("grad_outputs", spec.gradOutputs);
    if (!unknown.empty()) {
        std::string list;
        for (const auto& n : unknown) list += (list.empty() ? "" : ", ") + n;
        SourceLocation at = locateJsonPath(json, fileName, *firstUnknown);
        if (at.line > 0) ++at.column;  // the name itself, past its opening quote
        throw Error(at, "expected value names of the program, found unknown name(s): " + list);
    }
    spec.notes.push_back("spec read from " + fileName);
    return spec;
}

RecomputeSpec readSpecFile(const std::string& path, const Program& program) {
    return parseSpecJson(readFile(path), program, path);
}

std::string specToJson(const RecomputeSpec& spec, const Program& program) {
    // Keys in alphabetical order and 4-space indentation: the bytes earlier versions wrote.
    rapidjson::StringBuffer buffer;
    PrettyJsonWriter<rapidjson::StringBuffer> w(buffer);
    const auto list = [&](const char* key, const std::vector<ValueId>& values) {
        w.Key(key);
        w.StartArray();
        for (ValueId v : values) w.String(program.value(v).name.data(), rapidjson::SizeType(program.value(v).name.size()));
        w.EndArray();
    };
    w.StartObject();
    w.Key("backward_op_start_idx");
    w.Int(spec.backwardOpStartIdx);
    w.Key("fwd_op_end_idx");
    w.Int(spec.fwdOpEndIdx);
    list("grad_outputs", spec.gradOutputs);
    list("inputs", spec.inputs);
    list("outputs", spec.outputs);
    w.EndObject();
    return std::string(buffer.GetString(), buffer.GetSize()) + "\n";
}

void writeSpecFile(const RecomputeSpec& spec, const Program& program, const std::string& path) {
    writeFileAtomic(path, specToJson(spec, program));
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
        const Operation& op = program.op(ops[i]);
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
            const OpId def = program.value(v).definingOp;
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
    const std::filesystem::path p(programPath);
    std::string base = p.filename().string();
    const size_t dot = base.rfind('.');
    if (dot != std::string::npos && dot > 0) base.resize(dot);
    return (p.parent_path() / (base + ".spec.json")).string();
}

std::optional<std::string> specPathFor(const std::string& programPath) {
    if (programPath.empty()) return std::nullopt;
    const std::string candidate = specPathBeside(programPath);
    std::error_code ec;
    if (!std::filesystem::exists(candidate, ec) || candidate == programPath) return std::nullopt;
    return candidate;
}

ResolvedSpec resolveSpec(const Program& program, const std::string& programPath,
                         const std::optional<std::string>& specFile) {
    if (specFile) return {readSpecFile(*specFile, program), *specFile};
    if (auto beside = specPathFor(programPath)) return {readSpecFile(*beside, program), *beside};
    return {detectSpec(program), {}};
}

}  // namespace rx
