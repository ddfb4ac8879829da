// JSON parsing, paths, positions and "did you mean" shared by the model's readers.
#include "model/JsonSupport.h"

#include <rapidjson/error/en.h>
#include <rapidjson/reader.h>

#include <algorithm>
#include <cctype>

namespace rx {

SourceLocation locateOffset(std::string_view text, size_t offset, const std::string& fileName) {
    SourceLocation where{fileName, 1, 1};
    for (size_t i = 0; i < offset && i < text.size(); ++i) {
        if (text[i] == '\n') {
            ++where.line;
            where.column = 1;
        } else if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) {
            ++where.column;
        }
    }
    return where;
}

std::optional<size_t> findJsonDepthExcess(std::string_view text, size_t limit) {
    size_t depth = 0;
    bool inString = false;
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (inString) {
            if (c == '\\') ++i;
            else if (c == '"') inString = false;
            continue;
        }
        if (c == '"') inString = true;
        else if (c == '[' || c == '{') {
            if (++depth > limit) return i;
        } else if ((c == ']' || c == '}') && depth > 0) {
            --depth;
        }
    }
    return std::nullopt;
}

void rejectDuplicateKeys(std::string_view text, const std::string& fileName, const char* what);

namespace {

// Whether some object of `root` has two members of one name (RapidJSON keeps both; a reader
// would see only the first). On the parsed document, without recursion: a pass over the
// text's keys (rejectDuplicateKeys) is dearer, so it only locates one found here.
bool hasDuplicateKey(const rapidjson::Value& root) {
    std::vector<const rapidjson::Value*> pending{&root};
    std::vector<std::string_view> names;
    while (!pending.empty()) {
        const rapidjson::Value& v = *pending.back();
        pending.pop_back();
        if (v.IsArray()) {
            for (const rapidjson::Value& e : v.GetArray()) pending.push_back(&e);
        } else if (v.IsObject()) {
            names.clear();
            for (const auto& m : v.GetObject()) {
                names.emplace_back(m.name.GetString(), m.name.GetStringLength());
                pending.push_back(&m.value);
            }
            std::sort(names.begin(), names.end());
            if (std::adjacent_find(names.begin(), names.end()) != names.end()) return true;
        }
    }
    return false;
}

}  // namespace

rapidjson::Document parseJson(std::string_view text, const std::string& fileName, const char* what) {
    if (const auto at = findJsonDepthExcess(text))
        throw Error(locateOffset(text, *at, fileName),
                    std::string("invalid ") + what + " JSON: arrays and objects nested deeper than the limit of " +
                        std::to_string(kMaxJsonDepth) + " levels");
    rapidjson::Document doc;
    doc.Parse<rapidjson::kParseValidateEncodingFlag>(text.data(), text.size());
    if (doc.HasParseError())
        throw Error(locateOffset(text, doc.GetErrorOffset(), fileName),
                    std::string("invalid ") + what + " JSON: " + rapidjson::GetParseError_En(doc.GetParseError()));
    if (hasDuplicateKey(doc)) rejectDuplicateKeys(text, fileName, what);  // names both places
    return doc;
}

std::string JsonPath::str() const {
    if (steps_.empty()) return "(top level)";
    std::string out;
    for (const Step& s : steps_) {
        if (const auto* k = std::get_if<std::string>(&s)) {
            if (!out.empty()) out += '.';
            out += *k;
        } else {
            out += "[" + std::to_string(std::get<size_t>(s)) + "]";
        }
    }
    return out;
}

namespace {

// SAX pass that follows the document until it reaches `target`; remembers where the deepest
// value on the target path started.
struct PathFinder : rapidjson::BaseReaderHandler<rapidjson::UTF8<>, PathFinder> {
    struct Frame {
        bool object;
        size_t index = 0;   // arrays: index of the next value
        std::string key;    // objects: key of the next value
    };
    std::string_view text;
    const rapidjson::StringStream* stream = nullptr;
    std::vector<JsonPath::Step> target;
    std::vector<Frame> frames;
    size_t bestDepth = 0;
    std::optional<size_t> bestOffset;
    bool done = false;

    // Where the value starts. RapidJSON reads strings and numbers through a local copy of
    // the stream, so at their callback Tell() is still at their first byte; true/false/null
    // are consumed in place (Tell() is past them); containers have consumed their bracket.
    size_t startOf(size_t at, bool container) const {
        if (container) return at ? at - 1 : 0;
        if (at < text.size() && (text[at] == '"' || text[at] == '-' || (text[at] >= '0' && text[at] <= '9'))) return at;
        while (at > 0 && std::isalpha(static_cast<unsigned char>(text[at - 1]))) --at;
        return at;
    }

    // A value starts here: is it on the target path?
    bool value(bool container) {
        const size_t end = stream->Tell();
        size_t depth = 0;
        bool onPath = frames.size() <= target.size();
        for (size_t f = 0; f < frames.size() && onPath; ++f) {
            const Frame& fr = frames[f];
            if (fr.object) {
                const auto* k = std::get_if<std::string>(&target[f]);
                onPath = k && *k == fr.key;
            } else {
                const auto* i = std::get_if<size_t>(&target[f]);
                onPath = i && *i == fr.index;
            }
            depth = f + 1;
        }
        if (onPath && (depth >= bestDepth || !bestOffset)) {
            bestDepth = depth;
            bestOffset = startOf(end, container);
            if (depth == target.size()) done = true;
        }
        return !done;
    }
    bool after() {  // a value ended
        if (!frames.empty() && !frames.back().object) ++frames.back().index;
        return true;
    }
    bool scalar() { return value(false) && after(); }
    bool Null() { return scalar(); }
    bool Bool(bool) { return scalar(); }
    bool Int(int) { return scalar(); }
    bool Uint(unsigned) { return scalar(); }
    bool Int64(int64_t) { return scalar(); }
    bool Uint64(uint64_t) { return scalar(); }
    bool Double(double) { return scalar(); }
    bool String(const char*, rapidjson::SizeType, bool) { return scalar(); }
    bool Key(const char* s, rapidjson::SizeType n, bool) {
        frames.back().key.assign(s, n);
        return true;
    }
    bool StartObject() {
        if (!value(true)) return false;
        frames.push_back({true, 0, {}});
        return true;
    }
    bool EndObject(rapidjson::SizeType) {
        frames.pop_back();
        return after();
    }
    bool StartArray() {
        if (!value(true)) return false;
        frames.push_back({false, 0, {}});
        return true;
    }
    bool EndArray(rapidjson::SizeType) {
        frames.pop_back();
        return after();
    }
};

// SAX pass: the keys of every open object with the offset of their opening quote.
struct DuplicateKeyFinder : rapidjson::BaseReaderHandler<rapidjson::UTF8<>, DuplicateKeyFinder> {
    const rapidjson::StringStream* stream = nullptr;
    std::vector<std::vector<std::pair<std::string, size_t>>> objects;
    std::optional<std::pair<size_t, size_t>> duplicate;  // offsets of the first and second
    std::string key;
    bool StartObject() { objects.emplace_back(); return true; }
    bool EndObject(rapidjson::SizeType) { objects.pop_back(); return true; }
    bool Key(const char* s, rapidjson::SizeType n, bool) {
        const size_t at = stream->Tell();  // at the key's opening quote (read through a copy)
        auto& keys = objects.back();
        for (const auto& [k, offset] : keys)
            if (k.size() == n && k.compare(0, n, s, n) == 0) {
                duplicate = {offset, at};
                key.assign(s, n);
                return false;
            }
        keys.emplace_back(std::string(s, n), at);
        return true;
    }
};

}  // namespace

// Throws at the second of two equal keys in one object, naming the first's line and column:
// one more pass over the text, only where parseJson found one.
void rejectDuplicateKeys(std::string_view text, const std::string& fileName, const char* what) {
    const std::string copy(text);  // RapidJSON's StringStream wants NUL-terminated text
    DuplicateKeyFinder finder;
    rapidjson::StringStream stream(copy.c_str());
    finder.stream = &stream;
    rapidjson::Reader reader;
    reader.Parse<rapidjson::kParseIterativeFlag>(stream, finder);
    if (!finder.duplicate) return;
    const SourceLocation first = locateOffset(text, finder.duplicate->first, fileName);
    throw Error(locateOffset(text, finder.duplicate->second, fileName),
                std::string("invalid ") + what + " JSON: key '" + finder.key + "' appears twice in one object (first at line " +
                    std::to_string(first.line) + ", column " + std::to_string(first.column) + ")");
}

SourceLocation locateJsonPath(std::string_view text, const std::string& fileName, const JsonPath& path) {
    // The text may not be NUL-terminated: parse a copy.
    const std::string copy(text);
    PathFinder finder;
    finder.text = copy;
    for (const auto& s : path.steps()) finder.target.push_back(s);
    rapidjson::StringStream stream(copy.c_str());
    finder.stream = &stream;
    rapidjson::Reader reader;
    reader.Parse<rapidjson::kParseIterativeFlag>(stream, finder);  // no recursion, whatever the depth
    if (!finder.bestOffset) return {fileName, 0, 0};
    return locateOffset(text, *finder.bestOffset, fileName);
}

void failAt(std::string_view text, const std::string& fileName, const JsonPath& path, const std::string& message) {
    throw Error(locateJsonPath(text, fileName, path), path.str() + ": " + message);
}

std::string jsonTypeName(const rapidjson::Value& v) {
    switch (v.GetType()) {
    case rapidjson::kNullType: return "null";
    case rapidjson::kFalseType:
    case rapidjson::kTrueType: return "a boolean";
    case rapidjson::kObjectType: return "an object";
    case rapidjson::kArrayType: return "an array";
    case rapidjson::kStringType: return "a string";
    case rapidjson::kNumberType: return v.IsInt64() || v.IsUint64() ? "an integer" : "a number";
    }
    return "a value";
}

std::optional<std::string> nearestName(std::string_view key, const std::vector<std::string_view>& candidates) {
    auto distance = [](std::string_view a, std::string_view b) {
        std::vector<size_t> row(b.size() + 1);
        for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
        for (size_t i = 1; i <= a.size(); ++i) {
            size_t diagonal = row[0];
            row[0] = i;
            for (size_t j = 1; j <= b.size(); ++j) {
                const size_t up = row[j];
                row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
                diagonal = up;
            }
        }
        return row[b.size()];
    };
    std::optional<std::string> best;
    size_t bestDistance = SIZE_MAX;
    for (std::string_view c : candidates) {
        const size_t d = distance(key, c);
        if (d < bestDistance) {
            bestDistance = d;
            best = std::string(c);
        }
    }
    // A typo, not an unrelated word: at most a third of the key's letters differ.
    if (!best || bestDistance > std::max<size_t>(2, key.size() / 3)) return std::nullopt;
    return best;
}

}  // namespace rx
