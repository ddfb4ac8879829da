#pragma once
// Lexer for Paddle PIR text: a cursor over the bytes, trivia (blanks, // comments, zero-width
// characters), tokens with their source position, and "expected X, found Y" errors.
//
// Like MLIR's Lexer, it lexes one token at the parser's request; the few context-dependent
// pieces of the grammar (dimension lists, verbatim attribute spans) are lexed by the parser
// through the byte-level primitives below.
#include <array>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "model/Diagnostic.h"

namespace rx::pir {

// Character classes by one table lookup (the lexer asks them for nearly every byte).
namespace charclass {
enum : uint8_t { kAlpha = 1, kDigit = 2, kIdentStart = 4, kIdent = 8 };
inline constexpr auto kTable = [] {
    std::array<uint8_t, 256> t{};
    for (int c = 'a'; c <= 'z'; ++c) t[size_t(c)] = kAlpha | kIdentStart | kIdent;
    for (int c = 'A'; c <= 'Z'; ++c) t[size_t(c)] = kAlpha | kIdentStart | kIdent;
    for (int c = '0'; c <= '9'; ++c) t[size_t(c)] = kDigit | kIdent;
    t['_'] = kIdentStart | kIdent;
    t['.'] = kIdent;
    return t;
}();
inline bool is(char c, uint8_t classes) { return kTable[static_cast<unsigned char>(c)] & classes; }
}  // namespace charclass

inline bool isAlpha(char c) { return charclass::is(c, charclass::kAlpha); }
inline bool isDigit(char c) { return charclass::is(c, charclass::kDigit); }
inline bool isIdentStart(char c) { return charclass::is(c, charclass::kIdentStart); }
inline bool isIdentChar(char c) { return charclass::is(c, charclass::kIdent); }

struct Token {
    enum class Kind : uint8_t {
        Eof,
        LParen, RParen, LBrace, RBrace, LSquare, RSquare, Less, Greater,
        Comma, Colon, Equal, Caret, Arrow,
        ValueName,       // %0, %arg_1 ("%" alone when no name follows)
        BareIdentifier,  // pd_op.relu, true, float32, builtin.tensor
        StringLiteral,   // "..." on one line, escapes kept (spelling with the quotes; without the
                         // closing one when the line ends first)
        Number,          // 12, -1, 1e-05, +3, .5 (spelling as written)
        NullValue,       // <<NULL VALUE>>
        NullType,        // <<NULL TYPE>>
        Elision,         // ".." or "..." (an excerpt left lines out)
        Unknown,         // any other byte
    };
    Kind kind = Kind::Eof;
    std::string_view spelling;  // the token's bytes in the text

    bool is(Kind k) const { return kind == k; }
    const char* pos() const { return spelling.data(); }
    const char* end() const { return spelling.data() + spelling.size(); }
};

class PirLexer {
public:
    PirLexer(std::string_view text, const std::string& file)
        : begin_(text.data()), p_(text.data()), end_(text.data() + text.size()), file_(file) {}

    // ---------------- cursor ----------------
    const char* pos() const { return p_; }
    const char* bufferBegin() const { return begin_; }
    const char* bufferEnd() const { return end_; }
    void resetPosition(const char* at) { p_ = at; }
    bool atEnd() const { return p_ >= end_; }
    bool at(char c) const { return p_ < end_ && *p_ == c; }
    char current() const { return *p_; }  // only when !atEnd()
    void advance(size_t n = 1) { p_ += n; }
    bool startsWith(std::string_view s) const { return startsWith(p_, s); }
    bool startsWith(const char* q, std::string_view s) const {
        return static_cast<size_t>(end_ - q) >= s.size() && std::memcmp(q, s.data(), s.size()) == 0;
    }
    bool consumeIf(char c) {
        if (!at(c)) return false;
        ++p_;
        return true;
    }
    // Consumes `c` or fails with "expected <what>".
    void expect(char c, std::string_view what) {
        if (!at(c)) emitError(p_, what);
        ++p_;
    }

    // ---------------- trivia ----------------
    // Skips blanks, // comments and zero-width characters (docs pasted from the web carry
    // them); newlines too unless `crossNewlines` is false. Notes a newline it crossed.
    void skipTrivia(bool crossNewlines = true) {
        if (p_ < end_ && startsToken(*p_)) return;  // inline for the common case: no trivia
        skipTriviaFrom(crossNewlines);
    }
    void skipLine();
    bool sawNewline() const { return sawNewline_; }
    void clearSawNewline() { sawNewline_ = false; }

    // ---------------- tokens ----------------
    // The kind of the token at the cursor (trivia not skipped), from its first bytes: what
    // the parser dispatches on, without lexing the token to its end.
    Token::Kind peekKind() const;
    // The token at the cursor (trivia not skipped), without moving.
    Token peekToken() const;
    // The token at the cursor, moved past.
    Token lexToken() {
        const Token t = peekToken();
        p_ = t.end() > p_ ? t.end() : p_ + (p_ < end_);
        return t;
    }
    bool atToken(Token::Kind k) const { return peekKind() == k; }

    // ---------------- context-dependent pieces ----------------
    std::string_view lexIdentifier();       // bare-id at the cursor, or empty
    std::string_view lexValueName();        // "%name", or fails
    std::string_view lexScalar();           // letters, digits, '.', '+', '-', '_'
    // After a '"' already consumed: to the closing quote on the line; escapes skipped when
    // `escapes`. Returns the text between the quotes; the cursor stops on the closing quote,
    // or where the line or text ended (the caller reports it).
    std::string_view lexQuotedBody(bool escapes);
    // At `open`: past the matching `close` on the same line, "strings" skipped; fails with
    // "expected '<close>'" when the line ends first.
    void skipBalanced(char open, char close);

    // ---------------- positions and errors ----------------
    SourceLocation locate(const char* at) const;  // file, line and column (code points)
    SourceLocation locate(const Token& t) const { return locate(t.pos()); }
    int lineOf(const char* at) const;  // 1-based; linear over ascending calls
    std::string describe(const char* at) const;
    [[noreturn]] void emitError(const char* at, std::string_view expected) const;
    [[noreturn]] void emitErrorMessage(const char* at, const std::string& message) const;
    // Lines from the cursor to the end of the text or the next program (a pass banner, or a
    // '{' opening a line).
    size_t estimatedLines() const;

private:
    // Printable ASCII other than '/' (a comment may start there) begins a token, not trivia.
    static bool startsToken(char c) {
        const auto u = static_cast<unsigned char>(c);
        return u > ' ' && u != '/' && u < 0x80;
    }
    void skipTriviaFrom(bool crossNewlines);
    // The length of the UTF-8 sequence at `at` (a byte >= 0x80); fails there when it is not one.
    size_t utf8LengthOrFail(const char* at) const;
    const char* begin_;
    const char* p_;
    const char* end_;
    const std::string& file_;
    bool sawNewline_ = false;
    mutable const char* lineCountedTo_ = begin_;
    mutable int linesBefore_ = 1;
};

inline Token::Kind PirLexer::peekKind() const {
    using K = Token::Kind;
    if (p_ >= end_) return K::Eof;
    const char c = *p_;
    switch (c) {
    case '(': return K::LParen;
    case ')': return K::RParen;
    case '{': return K::LBrace;
    case '}': return K::RBrace;
    case '[': return K::LSquare;
    case ']': return K::RSquare;
    case '>': return K::Greater;
    case ',': return K::Comma;
    case ':': return K::Colon;
    case '=': return K::Equal;
    case '^': return K::Caret;
    case '%': return K::ValueName;
    case '"': return K::StringLiteral;
    case '+': return K::Number;
    case '<':
        if (startsWith("<<NULL VALUE>>")) return K::NullValue;
        if (startsWith("<<NULL TYPE>>")) return K::NullType;
        return K::Less;
    case '.': return p_ + 1 < end_ && p_[1] == '.' ? K::Elision : K::Number;
    case '-': return p_ + 1 < end_ && p_[1] == '>' ? K::Arrow : K::Number;
    default: break;
    }
    if (isDigit(c)) return K::Number;
    if (isIdentStart(c)) return K::BareIdentifier;
    return K::Unknown;
}

inline Token PirLexer::peekToken() const {
    using K = Token::Kind;
    const K kind = peekKind();
    const char* e = p_;
    switch (kind) {
    case K::Eof: return Token{K::Eof, std::string_view(end_, 0)};
    case K::Arrow:
    case K::Elision: e = p_ + 2; break;
    case K::NullValue: e = p_ + 14; break;
    case K::NullType: e = p_ + 13; break;
    case K::ValueName:
        ++e;
        while (e < end_ && isIdentChar(*e)) ++e;
        break;
    case K::StringLiteral:  // to the closing quote, or (unterminated) to the end of the line
        ++e;
        while (e < end_ && *e != '"' && *e != '\n') e += (*e == '\\' && e + 1 < end_ && e[1] != '\n') ? 2 : 1;
        if (e < end_ && *e == '"') ++e;
        break;
    case K::Number:
        while (e < end_ && (isAlpha(*e) || isDigit(*e) || *e == '.' || *e == '+' || *e == '-' || *e == '_')) ++e;
        break;
    case K::BareIdentifier:
        while (e < end_ && isIdentChar(*e)) ++e;
        break;
    default: e = p_ + 1; break;
    }
    return Token{kind, std::string_view(p_, static_cast<size_t>(e - p_))};
}

inline void PirLexer::skipTriviaFrom(bool crossNewlines) {
    // A local cursor (the member would be stored back on every byte) and a tight loop for the
    // blanks that make up most trivia (indentation, the space between tokens).
    const char* p = p_;
    while (p < end_) {
        const char c = *p;
        if (c == ' ' || c == '\t' || c == '\r') {
            ++p;
            continue;
        }
        if (startsToken(c)) break;
        if (c == '\n') {
            if (!crossNewlines) break;
            sawNewline_ = true;
            ++p;
            continue;
        }
        if (c == '/' && p + 1 < end_ && p[1] == '/') {
            while (p < end_ && *p != '\n') ++p;
            continue;
        }
        const auto u = static_cast<unsigned char>(c);
        if (u == 0xE2 && end_ - p >= 3) {
            const auto b1 = static_cast<unsigned char>(p[1]), b2 = static_cast<unsigned char>(p[2]);
            if ((b1 == 0x80 && (b2 == 0x8B || b2 == 0x8C || b2 == 0x8D)) || (b1 == 0x81 && b2 == 0xA0)) {
                p += 3;
                continue;
            }
        }
        if (u == 0xEF && end_ - p >= 3 && static_cast<unsigned char>(p[1]) == 0xBB &&
            static_cast<unsigned char>(p[2]) == 0xBF) {
            p += 3;
            continue;
        }
        break;
    }
    p_ = p;
}

inline std::string_view PirLexer::lexIdentifier() {
    const char* s = p_;
    if (p_ < end_ && isIdentStart(*p_))
        while (p_ < end_ && isIdentChar(*p_)) ++p_;
    return {s, static_cast<size_t>(p_ - s)};
}

inline std::string_view PirLexer::lexValueName() {
    if (p_ >= end_ || *p_ != '%') emitError(p_, "a value name such as %0");
    const char* s = p_++;
    while (p_ < end_ && isIdentChar(*p_)) ++p_;
    if (p_ - s == 1) emitError(p_, "a value name after '%'");
    return {s, static_cast<size_t>(p_ - s)};
}

inline std::string_view PirLexer::lexScalar() {
    const char* s = p_;
    while (p_ < end_ && (isAlpha(*p_) || isDigit(*p_) || *p_ == '.' || *p_ == '+' || *p_ == '-' || *p_ == '_')) ++p_;
    return {s, static_cast<size_t>(p_ - s)};
}

inline std::string_view PirLexer::lexQuotedBody(bool escapes) {
    const char* s = p_;
    while (p_ < end_ && *p_ != '"' && *p_ != '\n') {
        if (static_cast<unsigned char>(*p_) >= 0x80) {
            p_ += utf8LengthOrFail(p_);  // names and strings reach JSON outputs: UTF-8 only
            continue;
        }
        p_ += (escapes && *p_ == '\\' && p_ + 1 < end_ && p_[1] != '\n') ? 2 : 1;
    }
    return {s, static_cast<size_t>(p_ - s)};
}

}  // namespace rx::pir
