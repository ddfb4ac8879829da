#pragma once
// The guard every JSON output goes through: a RapidJSON writer (Writer or PrettyWriter) that
// throws rx::Error rather than emit a non-finite number (RapidJSON writes nothing there, leaving
// `"key": ,`) and writes strings that are not UTF-8 with U+FFFD for each bad byte, so that
// what comes out is always valid JSON.
#include <rapidjson/prettywriter.h>
#include <rapidjson/writer.h>

#include <cmath>
#include <string>
#include <string_view>

#include "model/Diagnostic.h"
#include "model/JsonSupport.h"

namespace rx {

template <class Base>
class CheckedJsonWriter : public Base {
public:
    using Ch = typename Base::Ch;
    using Base::Base;

    bool Double(double d) {
        if (!std::isfinite(d))
            throw Error("refusing to write " + std::string(std::isnan(d) ? "NaN" : d > 0 ? "+infinity" : "-infinity") +
                        (lastKey_.empty() ? std::string() : " for key '" + lastKey_ + "'") +
                        " to JSON: the figure does not fit (not a JSON number)");
        return Base::Double(d);
    }
    bool String(const Ch* s, rapidjson::SizeType n, bool copy = false) {
        const std::string_view text(s, n);
        if (!findInvalidUtf8(text)) return Base::String(s, n, copy);
        const std::string valid = toValidUtf8(text);
        return Base::String(valid.data(), rapidjson::SizeType(valid.size()), true);
    }
    bool String(const Ch* s) { return String(s, rapidjson::SizeType(std::char_traits<Ch>::length(s))); }
    bool String(const std::string& s) { return String(s.data(), rapidjson::SizeType(s.size())); }
    bool Key(const Ch* s, rapidjson::SizeType n, bool copy = false) {
        const std::string_view text(s, n);
        lastKey_.assign(text);
        if (!findInvalidUtf8(text)) return Base::Key(s, n, copy);
        const std::string valid = toValidUtf8(text);
        return Base::Key(valid.data(), rapidjson::SizeType(valid.size()), true);
    }
    bool Key(const Ch* s) { return Key(s, rapidjson::SizeType(std::char_traits<Ch>::length(s))); }
    bool Key(const std::string& s) { return Key(s.data(), rapidjson::SizeType(s.size())); }

private:
    std::string lastKey_;  // for the message: which figure did not fit
};

template <class Stream>
using JsonWriter = CheckedJsonWriter<rapidjson::Writer<Stream>>;
template <class Stream>
using PrettyJsonWriter = CheckedJsonWriter<rapidjson::PrettyWriter<Stream>>;

}  // namespace rx
