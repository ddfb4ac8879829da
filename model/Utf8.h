#pragma once
// UTF-8 validity, shared by the readers (positioned errors for bytes that are not UTF-8) and
// the JSON writers (every output valid UTF-8).
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace rx {

// Length of the valid UTF-8 sequence at text[i] (a lead byte >= 0x80), or 0 when it is not one
// (stray continuation bytes, overlong forms, surrogates and code points above U+10FFFF).
inline size_t utf8SequenceLength(std::string_view text, size_t i) {
    const auto byte = [&](size_t k) { return k < text.size() ? static_cast<unsigned char>(text[k]) : 0u; };
    const unsigned b0 = byte(i);
    size_t n;
    unsigned lo = 0x80, hi = 0xBF;  // bounds of the second byte (overlongs, surrogates, > U+10FFFF)
    if (b0 >= 0xC2 && b0 <= 0xDF) n = 2;
    else if (b0 >= 0xE0 && b0 <= 0xEF) {
        n = 3;
        if (b0 == 0xE0) lo = 0xA0;
        if (b0 == 0xED) hi = 0x9F;
    } else if (b0 >= 0xF0 && b0 <= 0xF4) {
        n = 4;
        if (b0 == 0xF0) lo = 0x90;
        if (b0 == 0xF4) hi = 0x8F;
    } else {
        return 0;
    }
    if (i + n > text.size()) return 0;
    if (byte(i + 1) < lo || byte(i + 1) > hi) return 0;
    for (size_t k = 2; k < n; ++k)
        if ((byte(i + k) & 0xC0) != 0x80) return 0;
    return n;
}

// The offset of the first byte that does not start a valid UTF-8 sequence, or nullopt.
inline std::optional<size_t> findInvalidUtf8(std::string_view text) {
    for (size_t i = 0; i < text.size();) {
        if (static_cast<unsigned char>(text[i]) < 0x80) {
            ++i;
            continue;
        }
        const size_t n = utf8SequenceLength(text, i);
        if (n == 0) return i;
        i += n;
    }
    return std::nullopt;
}

// `text` with every byte that is not valid UTF-8 replaced by U+FFFD.
inline std::string toValidUtf8(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (size_t i = 0; i < text.size();) {
        if (static_cast<unsigned char>(text[i]) < 0x80) {
            out += text[i++];
            continue;
        }
        const size_t n = utf8SequenceLength(text, i);
        if (n == 0) {
            out += "\xEF\xBF\xBD";  // U+FFFD REPLACEMENT CHARACTER
            ++i;
        } else {
            out.append(text.substr(i, n));
            i += n;
        }
    }
    return out;
}

}  // namespace rx
