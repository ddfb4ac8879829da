// PIR lexer: source positions (line and code-point column), error text, balanced spans.
#include "model/PirLexer.h"

#include <algorithm>

#include "model/Utf8.h"

namespace rx::pir {

void PirLexer::skipLine() {
    while (p_ < end_ && *p_ != '\n') ++p_;
    if (p_ < end_) ++p_;
}

size_t PirLexer::utf8LengthOrFail(const char* at) const {
    const size_t n = utf8SequenceLength(std::string_view(at, static_cast<size_t>(end_ - at)), 0);
    if (n == 0) {
        static const char kHex[] = "0123456789ABCDEF";
        const auto byte = static_cast<unsigned char>(*at);
        emitErrorMessage(at, std::string("expected UTF-8 text in a quoted name or string, found byte 0x") +
                                 kHex[byte >> 4] + kHex[byte & 15] + " (not valid UTF-8)");
    }
    return n;
}

void PirLexer::skipBalanced(char open, char close) {
    int depth = 0;
    while (p_ < end_ && *p_ != '\n') {
        if (*p_ == '"') {
            ++p_;
            lexQuotedBody(/*escapes=*/true);
            if (p_ >= end_ || *p_ != '"') break;
            ++p_;
            continue;
        }
        if (*p_ == open) ++depth;
        else if (*p_ == close && --depth == 0) { ++p_; return; }
        ++p_;
    }
    emitError(p_, std::string("'") + close + "'");
}

// Counted on from the previous call when `at` lies after it: a pass log asks once per
// program, in order, which stays linear in the file.
int PirLexer::lineOf(const char* at) const {
    if (at < lineCountedTo_) {
        lineCountedTo_ = begin_;
        linesBefore_ = 1;
    }
    for (const char* q = lineCountedTo_; q < at && q < end_; ++q) linesBefore_ += (*q == '\n');
    lineCountedTo_ = std::max(lineCountedTo_, std::min(at, end_));
    return linesBefore_;
}

SourceLocation PirLexer::locate(const char* at) const {
    SourceLocation loc;
    loc.file = file_;
    loc.line = 1;
    const char* lineStart = begin_;
    for (const char* q = begin_; q < at && q < end_; ++q)
        if (*q == '\n') { ++loc.line; lineStart = q + 1; }
    int col = 1;
    for (const char* q = lineStart; q < at && q < end_; ++q)
        if ((static_cast<unsigned char>(*q) & 0xC0) != 0x80) ++col;  // count code points
    loc.column = col;
    return loc;
}

std::string PirLexer::describe(const char* at) const {
    if (at >= end_) return "end of file";
    const char c = *at;
    if (c == '\n' || c == '\r') return "end of line";
    if (isIdentChar(c) || c == '%') {
        const char* e = at + 1;
        while (e < end_ && (isIdentChar(*e)) && e - at < 32) ++e;
        return "'" + std::string(at, e) + "'";
    }
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x21 && u < 0x7f) return "'" + std::string(1, c) + "'";
    if (c == ' ' || c == '\t') return "whitespace";
    if (u >= 0xC2 && u < 0xF5) {  // one well-formed UTF-8 character, shown as itself
        const int len = u < 0xE0 ? 2 : u < 0xF0 ? 3 : 4;
        bool ok = end_ - at >= len;
        for (int i = 1; ok && i < len; ++i) ok = (static_cast<unsigned char>(at[i]) & 0xC0) == 0x80;
        if (ok) return "'" + std::string(at, at + len) + "'";
    }
    static const char* hex = "0123456789abcdef";
    return std::string("byte 0x") + hex[u >> 4] + hex[u & 15];
}

void PirLexer::emitError(const char* at, std::string_view expected) const {
    throw Error(locate(at), "expected " + std::string(expected) + ", found " + describe(at));
}

void PirLexer::emitErrorMessage(const char* at, const std::string& message) const {
    throw Error(locate(at), message);
}

size_t PirLexer::estimatedLines() const {
    size_t lines = 1;
    const char* q = p_;
    while (q < end_) {
        const void* nl = std::memchr(q, '\n', static_cast<size_t>(end_ - q));
        if (!nl) break;
        q = static_cast<const char*>(nl) + 1;
        ++lines;
        // The next program of a pass log: a banner, or a '{' at the start of a line (nested
        // regions are indented). Only a capacity hint, so stopping early is harmless; not
        // stopping would make many small programs quadratic.
        if (q < end_ && (*q == '{' || startsWith(q, "===") || startsWith(q, "IRPrinting"))) break;
    }
    return lines;
}

}  // namespace rx::pir
