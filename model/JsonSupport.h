#pragma once
// What every JSON reader of the model shares (RapidJSON underneath): parsing with errors at
// line:column, JSON paths such as program.regions[0].blocks[0].ops[3].O[1], the position of
// a path in the text (found by a second, SAX pass only when there is an error to report),
// and the nearest valid key for "did you mean" messages.
#include <rapidjson/document.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "model/Diagnostic.h"
#include "model/Utf8.h"  // findInvalidUtf8, toValidUtf8

namespace rx {

// 1-based line and column (in characters, not UTF-8 bytes) of a byte offset.
SourceLocation locateOffset(std::string_view text, size_t offset, const std::string& fileName);

// Arrays and objects nested deeper than this are refused before parsing: RapidJSON's DOM
// parse and the readers' walks recurse once per level (a 256 KB file of 130k '[' overflowed
// the stack). Real documents nest a few dozen levels (PIR JSON regions in regions).
inline constexpr size_t kMaxJsonDepth = 512;

// Parses `text` (kept alive by the caller: strings are not copied where RapidJSON allows).
// Throws rx::Error "file:line:col: invalid <what> JSON: <reason>", also for nesting beyond
// kMaxJsonDepth (at the bracket that goes past it), for text that is not UTF-8, and at the
// second of two equal keys in one object, naming the first's line and column (RapidJSON keeps
// both; a reader would see only the first).
rapidjson::Document parseJson(std::string_view text, const std::string& fileName, const char* what);

// The byte offset of the first array or object bracket nested deeper than `limit`, if any
// (strings skipped). Linear, no recursion.
std::optional<size_t> findJsonDepthExcess(std::string_view text, size_t limit = kMaxJsonDepth);


// A path into a JSON document: keys and array indices.
class JsonPath {
public:
    using Step = std::variant<std::string, size_t>;
    JsonPath() = default;
    explicit JsonPath(std::string root) { steps_.emplace_back(std::move(root)); }
    explicit JsonPath(std::vector<Step> steps) : steps_(std::move(steps)) {}
    JsonPath key(std::string k) const { JsonPath p = *this; p.steps_.emplace_back(std::move(k)); return p; }
    JsonPath index(size_t i) const { JsonPath p = *this; p.steps_.emplace_back(i); return p; }
    const std::vector<Step>& steps() const { return steps_; }
    std::string str() const;  // "program.regions[0].blocks[0]"; "(top level)" when empty

private:
    std::vector<Step> steps_;
};

// Where the value at `path` starts in `text` (or, when the path goes past what is there, the
// deepest value on it that exists). Line 0 when even the top level cannot be found.
SourceLocation locateJsonPath(std::string_view text, const std::string& fileName, const JsonPath& path);

// Throws rx::Error at the value's position: "file:line:col: <path>: <message>".
[[noreturn]] void failAt(std::string_view text, const std::string& fileName, const JsonPath& path,
                         const std::string& message);

// The JSON type of a value in words ("a string", "an array", "a number", ...).
std::string jsonTypeName(const rapidjson::Value& v);

// The candidate closest to `key` by edit distance, if close enough to be a likely typo.
std::optional<std::string> nearestName(std::string_view key, const std::vector<std::string_view>& candidates);

}  // namespace rx
