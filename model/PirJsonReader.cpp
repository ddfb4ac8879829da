// Reader for Paddle's PIR JSON (PirJsonReader.h), strict: it checks what the text reader
// checks and names the JSON path and line:column of what is wrong.
#include "model/PirJsonReader.h"

#include <rapidjson/writer.h>
#include <rapidjson/stringbuffer.h>

#include <algorithm>
#include <cctype>
#include <limits>
#include <unordered_map>
#include <unordered_set>

#include "model/Diagnostic.h"
#include "model/FileIO.h"
#include "model/JsonSupport.h"
#include "model/PirReader.h"

namespace rx {
namespace {

using JsonValue = rapidjson::Value;

class JsonProgramBuilder {
public:
    JsonProgramBuilder(Program& prog, std::string_view text, const std::string& file)
        : prog_(prog), text_(text), file_(file) {}

    // ---- the path of what is being read, for messages ----
    struct Step {
        JsonProgramBuilder& b;
        Step(JsonProgramBuilder& builder, const char* key) : b(builder) { b.path_.emplace_back(std::string(key)); }
        Step(JsonProgramBuilder& builder, size_t index) : b(builder) { b.path_.emplace_back(index); }
        ~Step() { b.path_.pop_back(); }
    };
    [[noreturn]] void fail(const std::string& what) const { failAt(text_, file_, JsonPath(path_), "PIR JSON: " + what); }

    const JsonValue* member(const JsonValue& o, const char* key) const {
        if (!o.IsObject()) return nullptr;
        auto it = o.FindMember(key);
        return it == o.MemberEnd() ? nullptr : &it->value;
    }
    const JsonValue& object(const JsonValue& v, const char* what) const {
        if (!v.IsObject()) fail(std::string("expected ") + what + " (an object), found " + jsonTypeName(v));
        return v;
    }
    const JsonValue& array(const JsonValue& v, const char* what) const {
        if (!v.IsArray()) fail(std::string("expected ") + what + " (an array), found " + jsonTypeName(v));
        return v;
    }
    // An optional array member: absent = empty.
    const JsonValue* optionalArray(const JsonValue& o, const char* key, const char* what) {
        const JsonValue* v = member(o, key);
        if (!v || v->IsNull()) return nullptr;
        Step s(*this, key);
        array(*v, what);
        return v;
    }
    std::string string(const JsonValue& v, const char* what) const {
        if (!v.IsString()) fail(std::string("expected ") + what + " (a string), found " + jsonTypeName(v));
        return std::string(v.GetString(), v.GetStringLength());
    }
    int64_t integer(const JsonValue& v, const char* what, int64_t lo, int64_t hi) const {
        if (!v.IsInt64()) {
            if (v.IsNumber())
                fail(std::string("expected ") + what + " (an integer from " + std::to_string(lo) + " to " + std::to_string(hi) +
                     "), found " + (v.IsUint64() ? std::to_string(v.GetUint64()) : numberText(v.GetDouble())));
            fail(std::string("expected ") + what + " (an integer), found " + jsonTypeName(v));
        }
        const int64_t n = v.GetInt64();
        if (n < lo || n > hi)
            fail(std::string("expected ") + what + " from " + std::to_string(lo) + " to " + std::to_string(hi) + ", found " +
                 std::to_string(n));
        return n;
    }
    static std::string numberText(double d) {
        rapidjson::StringBuffer b;
        rapidjson::Writer<rapidjson::StringBuffer> w(b);
        w.Double(d);
        return b.GetString();
    }
    std::string code(const JsonValue& o) {
        const JsonValue* c = member(o, "#");
        if (!c) return {};
        Step s(*this, "#");
        return string(*c, "a type, attribute or op code");
    }

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

    TypeId type(const JsonValue& v) {
        if (v.IsNull()) return kNullType;
        object(v, "a type");
        const std::string c = code(v);
        const JsonValue* d = member(v, "D");
        if (c == "0.t_dtensor" || c == "0.t_selected_rows") {
            if (!d) fail("dense tensor type needs \"D\": [dtype, dims, layout, lod, offset]");
            Step sd(*this, "D");
            array(*d, "[dtype, dims, ...]");
            if (d->Size() < 2) fail("dense tensor type needs [dtype, dims, ...], found " + std::to_string(d->Size()) + " element(s)");
            Type t;
            t.kind = c == "0.t_dtensor" ? Type::Kind::DenseTensor : Type::Kind::SelectedRows;
            {
                Step s0(*this, size_t(0));
                t.dtype = dtype((*d)[0]);
            }
            Step s1(*this, size_t(1));
            const JsonValue& dims = array((*d)[1], "the dims");
            for (rapidjson::SizeType i = 0; i < dims.Size(); ++i) {
                Step si(*this, size_t(i));
                // As the text reader: whole numbers, -1 for a dynamic dim.
                t.dims.push_back(integer(dims[i], "a dim", -1, std::numeric_limits<int64_t>::max()));
            }
            if (t.kind == Type::Kind::SelectedRows) t.dialect = "builtin.selected_rows";
            return prog_.internType(t);
        }
        if (c == "0.t_vec") {
            std::vector<TypeId> elements;
            if (d) {
                Step sd(*this, "D");
                array(*d, "the vector's element types");
                for (rapidjson::SizeType i = 0; i < d->Size(); ++i) {
                    Step si(*this, size_t(i));
                    elements.push_back(type((*d)[i]));
                }
            }
            return prog_.internType(Type::vector(std::move(elements)));
        }
        if (c.empty() || c == "NULL") return kNullType;
        // Unknown type codes stay visible and print as text the PIR reader reads back.
        Type t;
        t.kind = Type::Kind::Opaque;
        std::string safe;
        for (char ch : c) safe += (std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '.') ? ch : '_';
        t.text = "json_type<" + safe + ">";
        return prog_.internType(t);
    }

    DType dtype(const JsonValue& v) {
        object(v, "an element type such as {\"#\": \"0.t_f32\"}");
        const std::string c = code(v);
        const auto pos = c.find("t_");
        if (pos != std::string::npos)
            if (auto d = parseDTypeShort(c.substr(pos + 2))) return *d;
        if (c.find("bool") != std::string::npos) return DType::Bool;
        fail("unknown element type '" + c + "'");
    }

    std::string placeText(const JsonValue& a) {
        array(a, "a place [kind, device, ...]");
        auto at = [&](rapidjson::SizeType i) -> int64_t {
            if (a.Size() <= i) return 0;
            Step s(*this, size_t(i));
            return integer(a[i], "a place number", 0, std::numeric_limits<int32_t>::max());
        };
        const int64_t kind = at(0), device = at(1);
        switch (kind) {
        case 1: return "Place(cpu)";
        case 2: return "Place(gpu:" + std::to_string(device) + ")";
        case 3: return "Place(gpu_pinned)";
        case 4: return "Place(xpu:" + std::to_string(device) + ")";
        default: return "Place(undefined:" + std::to_string(device) + ")";
        }
    }

    Attribute attribute(const JsonValue& v) {
        object(v, "an attribute");
        const std::string c = code(v);
        const JsonValue* d = member(v, "D");
        static const JsonValue kNull;
        const JsonValue& data = d ? *d : kNull;
        Step sd(*this, "D");
        Attribute a;
        if (const JsonValue* special = member(v, "VD"); special && (c == "0.a_f32" || c == "0.a_f64")) {  // nan, inf
            const std::string s = string(*special, "nan, inf or -inf");
            const double value = s == "nan" ? std::numeric_limits<double>::quiet_NaN()
                                 : s == "-inf" ? -std::numeric_limits<double>::infinity()
                                               : std::numeric_limits<double>::infinity();
            a = c == "0.a_f32" ? Attribute::float32(value) : Attribute::float64(value);
            a.spelling = s;
            return a;
        }
        auto number = [&]() {
            if (!data.IsNumber()) fail("expected a number, found " + jsonTypeName(data));
            return data.GetDouble();
        };
        constexpr int64_t i32min = std::numeric_limits<int32_t>::min(), i32max = std::numeric_limits<int32_t>::max();
        constexpr int64_t i64min = std::numeric_limits<int64_t>::min(), i64max = std::numeric_limits<int64_t>::max();
        if (c == "0.a_bool") {
            if (!data.IsBool()) fail("expected true or false, found " + jsonTypeName(data));
            return Attribute::boolean(data.GetBool());
        }
        if (c == "0.a_i32") return Attribute::int32(integer(data, "an int32", i32min, i32max));
        if (c == "0.a_i64") return Attribute::int64(integer(data, "an int64", i64min, i64max));
        if (c == "0.a_index") {
            a = Attribute::int64(integer(data, "an index", i64min, i64max));
            a.kind = Attribute::Kind::Index;
            return a;
        }
        if (c == "0.a_f32") return Attribute::float32(number());
        if (c == "0.a_f64") return Attribute::float64(number());
        if (c == "0.a_str") return Attribute::string(string(data, "a string attribute"));
        if (c == "0.a_array") {
            array(data, "the array's elements");
            std::vector<Attribute> elements;
            for (rapidjson::SizeType i = 0; i < data.Size(); ++i) {
                Step si(*this, size_t(i));
                elements.push_back(attribute(data[i]));
            }
            return Attribute::array(std::move(elements));
        }
        if (c == "1.a_intarray") {
            array(data, "the int array's elements");
            std::vector<int64_t> ints;
            for (rapidjson::SizeType i = 0; i < data.Size(); ++i) {
                Step si(*this, size_t(i));
                ints.push_back(integer(data[i], "an integer", i64min, i64max));
            }
            return Attribute::intArray(ints);
        }
        if (c == "1.a_dtype") return Attribute::dataType(string(data, "a data type name"));
        if (c == "1.a_place") return Attribute::place(placeText(data));
        if (c == "1.a_datalayout") { a.kind = Attribute::Kind::DataLayout; a.text = string(data, "a data layout"); return a; }
        if (c == "0.a_pointer") { a.kind = Attribute::Kind::Pointer; a.text = string(data, "a pointer"); return a; }
        a.kind = Attribute::Kind::Opaque;
        rapidjson::StringBuffer buffer;
        rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
        v.Accept(w);
        a.text.assign(buffer.GetString(), buffer.GetSize());
        return a;
    }

    void namedAttributes(const JsonValue& o, const char* key, std::vector<NamedAttribute>& out) {
        const JsonValue* list = optionalArray(o, key, "a list of attributes");
        if (!list) return;
        Step sk(*this, key);
        for (rapidjson::SizeType i = 0; i < list->Size(); ++i) {
            Step si(*this, size_t(i));
            const JsonValue& e = object((*list)[i], "a named attribute {\"N\": name, \"AT\": attribute}");
            const JsonValue* n = member(e, "N");
            const JsonValue* at = member(e, "AT");
            if (!n || !at) fail("a named attribute needs \"N\" and \"AT\"");
            std::string name;
            {
                Step sn(*this, "N");
                name = string(*n, "an attribute name");
            }
            Step sa(*this, "AT");
            out.push_back({std::move(name), attribute(*at)});
        }
    }

    // A value id in scope: defined earlier in this block or an enclosing one.
    ValueId lookup(const JsonValue& v) {
        object(v, "a value reference {\"%\": id}");
        const JsonValue* idv = member(v, "%");
        if (!idv) fail("a value reference needs \"%\"");
        Step s(*this, "%");
        const int64_t id = integer(*idv, "a value id", 0, std::numeric_limits<int64_t>::max());
        if (id == 0) return kNoId;  // null value
        auto it = ids_.find(id);
        if (it == ids_.end()) {
            if (defined_.count(id))
                fail("value id " + std::to_string(id) + " is not in scope here (it is defined inside another region)");
            fail("value id " + std::to_string(id) + " used before it is defined");
        }
        return it->second;
    }

    void define(int64_t id, ValueId v) {
        if (!defined_.insert(id).second) fail("value id " + std::to_string(id) + " defined twice");
        ids_.emplace(id, v);
        scope_.back().push_back(id);
    }

    void block(const JsonValue& b, BlockId blockId, int depth) {
        if (depth > 100) fail("regions nested too deeply (more than 100 levels)");
        object(b, "a block");
        scope_.emplace_back();
        for (const char* key : {"args", "kwargs"}) {
            const JsonValue* args = optionalArray(b, key, "the block's arguments");
            if (!args) continue;
            Step sk(*this, key);
            for (rapidjson::SizeType i = 0; i < args->Size(); ++i) {
                Step si(*this, size_t(i));
                const JsonValue& a = object((*args)[i], "a block argument");
                const JsonValue* tt = member(a, "TT");
                TypeId t = kNullType;
                if (tt) {
                    Step st(*this, "TT");
                    t = type(*tt);
                }
                std::string keyword;
                if (std::string_view(key) == "kwargs") {
                    const JsonValue* k = member(a, "key");
                    if (!k) fail("a keyword argument needs \"key\"");
                    Step sk2(*this, "key");
                    keyword = string(*k, "the argument's keyword");
                }
                const JsonValue* idv = member(a, "%");
                if (!idv) fail("a block argument needs \"%\"");
                Step sid(*this, "%");
                const int64_t id = integer(*idv, "a value id", 1, std::numeric_limits<int64_t>::max());
                define(id, prog_.addBlockArgument(blockId, t, "%arg_" + std::to_string(argCount_++), keyword));
            }
        }
        if (const JsonValue* ops = optionalArray(b, "ops", "the block's ops")) {
            Step so(*this, "ops");
            for (rapidjson::SizeType i = 0; i < ops->Size(); ++i) {
                Step si(*this, size_t(i));
                op(object((*ops)[i], "an op"), blockId, depth);
            }
        }
        for (int64_t id : scope_.back()) ids_.erase(id);  // out of scope past the block
        scope_.pop_back();
    }

    void op(const JsonValue& o, BlockId blockId, int depth) {
        const std::string c = code(o);
        if (c.empty()) fail("op without a \"#\" name");
        std::vector<NamedAttribute> attrs;
        std::vector<ValueId> operands;
        std::vector<TypeId> resultTypes;
        std::vector<int64_t> resultIds;
        if (c == "p") {
            // Parameters are written positionally: A = [is_distributed, is_parameter,
            // need_clip, name], OA = [persistable, stop_gradient, trainable].
            const auto flag = [&](const JsonValue& v) {
                if (!v.IsBool() && !v.IsInt64()) fail("expected a flag (0, 1, true or false), found " + jsonTypeName(v));
                return Attribute::array({Attribute::boolean(v.IsBool() ? v.GetBool() : v.GetInt64() != 0)});
            };
            if (const JsonValue* a = optionalArray(o, "A", "[is_distributed, is_parameter, need_clip, name]")) {
                Step sa(*this, "A");
                if (a->Size() < 4) fail("a parameter's \"A\" needs 4 elements, found " + std::to_string(a->Size()));
                const char* names[] = {"is_distributed", "is_parameter", "need_clip"};
                for (rapidjson::SizeType i = 0; i < 3; ++i) {
                    Step si(*this, size_t(i));
                    attrs.push_back({names[i], flag((*a)[i])});
                }
                Step s3(*this, size_t(3));
                attrs.push_back({"parameter_name", Attribute::string(string((*a)[3], "the parameter's name"))});
            }
            if (const JsonValue* oa = optionalArray(o, "OA", "[persistable, stop_gradient, trainable]")) {
                Step sa(*this, "OA");
                if (oa->Size() < 3) fail("a parameter's \"OA\" needs 3 elements, found " + std::to_string(oa->Size()));
                const char* names[] = {"persistable", "stop_gradient", "trainable"};
                for (rapidjson::SizeType i = 0; i < 3; ++i) {
                    Step si(*this, size_t(i));
                    attrs.push_back({names[i], flag((*oa)[i])});
                }
            }
        } else {
            namedAttributes(o, "A", attrs);
            namedAttributes(o, "OA", attrs);
            if (const JsonValue* ins = optionalArray(o, "I", "the op's operands")) {
                Step si(*this, "I");
                for (rapidjson::SizeType i = 0; i < ins->Size(); ++i) {
                    Step sk(*this, size_t(i));
                    operands.push_back(lookup((*ins)[i]));
                }
            }
        }
        // "O" is a list of results, or one result object.
        if (const JsonValue* outs = member(o, "O"); outs && !outs->IsNull()) {
            Step so(*this, "O");
            auto result = [&](const JsonValue& r) {
                object(r, "a result {\"%\": id, \"TT\": type}");
                const JsonValue* tt = member(r, "TT");
                TypeId t = kNullType;
                if (tt) {
                    Step st(*this, "TT");
                    t = type(*tt);
                }
                resultTypes.push_back(t);
                const JsonValue* idv = member(r, "%");
                if (!idv) fail("a result needs \"%\" (its value id, 0 for none)");
                Step sid(*this, "%");
                resultIds.push_back(integer(*idv, "a value id", 0, std::numeric_limits<int64_t>::max()));
            };
            if (outs->IsObject()) {
                result(*outs);
            } else {
                array(*outs, "the op's results");
                for (rapidjson::SizeType i = 0; i < outs->Size(); ++i) {
                    Step si(*this, size_t(i));
                    result((*outs)[i]);
                }
            }
            // Ids checked before the op exists, so a failure names the result's path.
            for (size_t i = 0; i < resultIds.size(); ++i) {
                Step si(*this, outs->IsObject() ? size_t(0) : i);
                if (resultIds[i] != 0 && defined_.count(resultIds[i]))
                    fail("value id " + std::to_string(resultIds[i]) + " defined twice");
                for (size_t k = 0; k < i; ++k)
                    if (resultIds[i] != 0 && resultIds[k] == resultIds[i])
                        fail("value id " + std::to_string(resultIds[i]) + " defined twice");
            }
        }
        std::sort(attrs.begin(), attrs.end(), [](const NamedAttribute& x, const NamedAttribute& y) { return x.name < y.name; });
        std::vector<std::string> names;
        for (size_t i = 0; i < resultTypes.size(); ++i) names.push_back("%" + std::to_string(valueCount_++));
        const OpId id = prog_.appendOp(blockId, opName(c), operands, resultTypes, {}, names);
        // Equal attributes of different ops are one shared entry (a program's memory is mostly these).
        prog_.setOpAttributes(id, attributeInterner_.share(attrs));
        for (size_t i = 0; i < resultIds.size(); ++i)
            if (resultIds[i] != 0) define(resultIds[i], prog_.op(id).results[i]);
        if (const JsonValue* regions = optionalArray(o, "regions", "the op's regions")) {
            Step sr(*this, "regions");
            for (rapidjson::SizeType r = 0; r < regions->Size(); ++r) {
                Step sri(*this, size_t(r));
                const JsonValue& region = object((*regions)[r], "a region");
                std::vector<BlockId> blocks;
                if (const JsonValue* bs = optionalArray(region, "blocks", "the region's blocks")) {
                    Step sb(*this, "blocks");
                    for (rapidjson::SizeType b = 0; b < bs->Size(); ++b) {
                        Step sbi(*this, size_t(b));
                        const BlockId nb = prog_.addBlock(id);
                        blocks.push_back(nb);
                        block((*bs)[b], nb, depth + 1);
                    }
                }
                prog_.addRegion(id, std::move(blocks));
            }
        }
    }

    std::vector<JsonPath::Step> path_;

private:
    Program& prog_;
    AttributeInterner attributeInterner_;
    std::string_view text_;
    const std::string& file_;
    std::unordered_map<int64_t, ValueId> ids_;        // in scope
    std::unordered_set<int64_t> defined_;             // ever defined (ids are unique per file)
    std::vector<std::vector<int64_t>> scope_;         // ids defined per open block
    int valueCount_ = 0;
    int argCount_ = 0;
};

}  // namespace

Program parsePirJson(std::string_view json, const std::string& fileName) {
    const rapidjson::Document doc = parseJson(json, fileName, "PIR");
    auto member = [](const JsonValue& o, const char* key) -> const JsonValue* {
        if (!o.IsObject()) return nullptr;
        auto it = o.FindMember(key);
        return it == o.MemberEnd() ? nullptr : &it->value;
    };
    const JsonValue* base = member(doc, "base_code");
    const JsonValue* magic = base ? member(*base, "magic") : nullptr;
    if (!magic || !magic->IsString() || std::string_view(magic->GetString()) != "pir")
        throw Error(fileName + ": not a PIR JSON program (\"base_code\": {\"magic\": \"pir\"} missing)");
    Program prog;
    prog.setGeneration(Generation::G2);
    JsonProgramBuilder builder(prog, json, fileName);
    const JsonValue* program = member(doc, "program");
    builder.path_.emplace_back(std::string("program"));
    if (!program) builder.fail("the file has no \"program\"");
    builder.object(*program, "the program");
    const JsonValue* regions = member(*program, "regions");
    builder.path_.emplace_back(std::string("regions"));
    if (!regions || !regions->IsArray() || regions->Empty()) builder.fail("program has no regions");
    builder.path_.emplace_back(size_t(0));
    builder.object((*regions)[0], "a region");
    const JsonValue* blocks = member((*regions)[0], "blocks");
    builder.path_.emplace_back(std::string("blocks"));
    if (!blocks || !blocks->IsArray() || blocks->Empty()) builder.fail("program has no blocks");
    builder.path_.emplace_back(size_t(0));
    builder.block((*blocks)[0], Program::kGlobalBlock, 0);
    prog.finish();
    return prog;
}

Program readPirJsonFile(const std::string& path) { return parsePirJson(readFile(path), path); }

}  // namespace rx
