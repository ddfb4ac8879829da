#include "model/PirReader.h"


#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <unordered_map>

#include "model/FileIO.h"
#include "model/PirJsonReader.h"

namespace rx {

std::string_view defaultTensorSpelling(Generation g) {
    switch (g) {
    case Generation::G1: return "pd_op.tensor";
    case Generation::G2: return "builtin.tensor";
    default: return "tensor";
    }
}

std::string readTextFile(const std::string& path) {
    return readFile(path);  // model/FileIO: regular files only, bounded size
}

namespace {

constexpr int kMaxNesting = 200;  // regions, vec[...] and [...] nesting; deeper input is rejected

inline bool isAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
inline bool isDigit(char c) { return c >= '0' && c <= '9'; }
inline bool isIdentStart(char c) { return isAlpha(c) || c == '_'; }
inline bool isIdentChar(char c) { return isAlpha(c) || isDigit(c) || c == '_' || c == '.'; }

// Printers left no marker of their generation; these are the cheapest tells (FORMATS.md).
Generation detectGeneration(std::string_view t) {
    if (t.find("builtin.tensor<") != std::string_view::npos) return Generation::G2;
    if (t.find("pd_op.tensor<") != std::string_view::npos) return Generation::G1;
    if (t.find("array[") != std::string_view::npos) return Generation::G0;  // "array[", "IntArray["
    if (t.find("(pd_op.") != std::string_view::npos || t.find("(Int32)") != std::string_view::npos ||
        t.find("(Int64)") != std::string_view::npos || t.find("(Float)") != std::string_view::npos ||
        t.find("(Double)") != std::string_view::npos)
        return Generation::G2;
    return Generation::G3;
}

// Attribute names whose untyped (G0/G3) numbers are floating point.
bool isFloatAttributeName(std::string_view key) {
    static constexpr std::string_view kNames[] = {
        "value", "bias", "scale", "epsilon", "momentum", "alpha", "beta", "min", "max", "p",
        "dropout_prob", "threshold", "eps", "delta", "factor", "slope", "negative_slope", "lambd",
        "t_min", "t_max", "beta1", "beta2", "learning_rate", "rtol", "atol", "std", "mean",
        "temperature", "scale_w", "scale_x", "scale_y", "lambda", "offset", "step"};
    for (auto n : kNames)
        if (n == key) return true;
    return false;
}

bool isLayoutName(std::string_view w) {
    return w == "NCHW" || w == "NHWC" || w == "NCDHW" || w == "NDHWC" || w == "ANY" || w == "AnyLayout" ||
           w == "Undefined" || w == "ONEDNN" || w == "SPARSE_COO" || w == "SPARSE_CSR" || w == "STRIDED";
}

struct ParsedProgram {
    Program program;
    int line = 1;
    std::string title;
};

class Parser {
public:
    Parser(std::string_view text, const std::string& file)
        : begin_(text.data()), p_(text.data()), end_(text.data() + text.size()), file_(file),
          gen_(detectGeneration(text)) {}

    // Parses programs one after another. `keep(index)` says whether program `index` is
    // built for the caller; the others are parsed (validated) and dropped.
    template <class OnProgram>
    void parseAll(OnProgram&& onProgram) {
        std::string title;
        int index = 0;
        for (;;) {
            skipWs();
            if (p_ >= end_) break;
            if (startsWith("===")) { skipLine(); continue; }
            if (startsWith("IRPrinting")) {
                const char* s = p_;
                skipLine();
                const char* e = p_;
                while (e > s && (e[-1] == '\n' || e[-1] == '\r' || e[-1] == ' ')) --e;
                title.assign(s, e);
                continue;
            }
            if (startsWith("..")) { skipLine(); continue; }
            if (*p_ != '{' && *p_ != '(') fail(p_, "'{' or an operation");
            ParsedProgram parsed;
            parsed.line = lineOf(p_);
            parsed.title = title.empty() ? "program " + std::to_string(index) : title;
            title.clear();
            parseProgram(parsed.program);
            onProgram(index, std::move(parsed));
            ++index;
        }
        if (index == 0) fail(p_, "a program ('{' or an operation)");
    }

private:
    // ---------------- positions and errors ----------------
    int lineOf(const char* at) const {
        int line = 1;
        for (const char* q = begin_; q < at && q < end_; ++q) line += (*q == '\n');
        return line;
    }
    SourceLocation locate(const char* at) const {
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
    std::string describe(const char* at) const {
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
    [[noreturn]] void fail(const char* at, std::string_view expected) const {
        throw Error(locate(at), "expected " + std::string(expected) + ", found " + describe(at));
    }
    [[noreturn]] void failMessage(const char* at, const std::string& message) const {
        throw Error(locate(at), message);
    }

    // ---------------- lexing ----------------
    bool startsWith(std::string_view s) const {
        return static_cast<size_t>(end_ - p_) >= s.size() && std::memcmp(p_, s.data(), s.size()) == 0;
    }
    // Skips blanks, comments and zero-width characters (docs pasted from the web carry them).
    void skipWs(bool newlines = true) {
        while (p_ < end_) {
            const char c = *p_;
            if (c == ' ' || c == '\t' || c == '\r') { ++p_; continue; }
            if (c == '\n') {
                if (!newlines) return;
                sawNewline_ = true;
                ++p_;
                continue;
            }
            if (c == '/' && p_ + 1 < end_ && p_[1] == '/') {
                while (p_ < end_ && *p_ != '\n') ++p_;
                continue;
            }
            const auto u = static_cast<unsigned char>(c);
            if (u == 0xE2 && end_ - p_ >= 3) {
                const auto b1 = static_cast<unsigned char>(p_[1]), b2 = static_cast<unsigned char>(p_[2]);
                if ((b1 == 0x80 && (b2 == 0x8B || b2 == 0x8C || b2 == 0x8D)) || (b1 == 0x81 && b2 == 0xA0)) {
                    p_ += 3;
                    continue;
                }
            }
            if (u == 0xEF && end_ - p_ >= 3 && static_cast<unsigned char>(p_[1]) == 0xBB &&
                static_cast<unsigned char>(p_[2]) == 0xBF) {
                p_ += 3;
                continue;
            }
            return;
        }
    }
    void skipLine() {
        while (p_ < end_ && *p_ != '\n') ++p_;
        if (p_ < end_) ++p_;
    }
    void expect(char c, const char* what) {
        if (p_ >= end_ || *p_ != c) fail(p_, what);
        ++p_;
    }
    std::string_view identifier() {
        const char* s = p_;
        if (p_ < end_ && isIdentStart(*p_))
            while (p_ < end_ && isIdentChar(*p_)) ++p_;
        return {s, static_cast<size_t>(p_ - s)};
    }
    // "%name": returns the name including '%'.
    std::string_view valueName() {
        if (p_ >= end_ || *p_ != '%') fail(p_, "a value name such as %0");
        const char* s = p_++;
        while (p_ < end_ && isIdentChar(*p_)) ++p_;
        if (p_ - s == 1) fail(p_, "a value name after '%'");
        return {s, static_cast<size_t>(p_ - s)};
    }
    void enter(const char* at) {
        if (++nesting_ > kMaxNesting) failMessage(at, "nesting deeper than " + std::to_string(kMaxNesting) + " levels");
    }
    void leave() { --nesting_; }

    // Lines from here to the end of the text (or to the next pass banner).
    size_t estimatedLines() const {
        size_t lines = 1;
        const char* q = p_;
        while (q < end_) {
            const void* nl = std::memchr(q, '\n', static_cast<size_t>(end_ - q));
            if (!nl) break;
            q = static_cast<const char*>(nl) + 1;
            ++lines;
            if (end_ - q >= 3 && q[0] == '=' && q[1] == '=' && q[2] == '=') break;
        }
        return lines;
    }

    // ---------------- programs and blocks ----------------
    void parseProgram(Program& prog) {
        prog_ = &prog;
        prog.generation = gen_;
        scope_.clear();
        numericScope_.clear();
        scopeLog_.clear();
        sawElision_ = false;
        lenient_ = false;
        undefinedUses_ = 0;
        typeCache_.clear();    // TypeIds and op-name ids belong to one program
        opNameCache_.clear();
        // Reserve for about one op per line: growth would copy (and page in) the arrays
        // twice over; unused reserve of these large blocks is never touched.
        const size_t lines = estimatedLines();
        prog.ops.reserve(lines);
        prog.values.reserve(lines + lines / 8);
        prog.blocks[Program::kGlobalBlock].ops.reserve(lines);
        if (*p_ == '{') {
            const char* open = p_++;
            parseBlockBody(Program::kGlobalBlock, /*braced=*/true);
            if (p_ >= end_) {
                if (!sawElision_) fail(p_, "'}' closing the program opened at line " + std::to_string(lineOf(open)));
                prog.warnings.push_back("program has no closing '}' (an excerpt); loaded what is there");
            } else {
                ++p_;
            }
        } else {
            lenient_ = true;
            prog.fragment = true;
            prog.warnings.push_back(
                "program has no enclosing braces (a fragment); loaded its ops as the global block");
            parseBlockBody(Program::kGlobalBlock, /*braced=*/false);
        }
        if (sawElision_) prog.warnings.push_back("program contains elision lines (\"...\"); they were skipped");
        // Drop vector growth slack (a third of the arrays' size on average).
        const auto fit = [](auto& v) {
            if (v.capacity() > v.size() + v.size() / 8 + 16) v.shrink_to_fit();
        };
        fit(prog.ops);
        fit(prog.values);
        for (Block& b : prog.blocks) fit(b.ops);
        if (undefinedUses_ > 0)
            prog.warnings.push_back(std::to_string(undefinedUses_) +
                                    " value(s) used but not defined in the text; loaded as inputs of the global block");
        prog.invalidateCaches();
    }

    void parseBlockBody(BlockId block, bool braced) {
        const size_t scopeMark = scopeLog_.size();
        for (;;) {
            skipWs();
            if (p_ >= end_) {
                if (braced && !sawElision_) fail(p_, "'}'");
                break;
            }
            const char c = *p_;
            if (c == '}') {
                if (!braced) fail(p_, "an operation");
                break;
            }
            if (c == '(') {
                parseOp(block);
            } else if (c == '^' && block != Program::kGlobalBlock && prog_->blocks[block].ops.empty() &&
                       !prog_->blocks[block].argsPrinted) {
                parseBlockArguments(block);
            } else if (c == '.' && p_ + 1 < end_ && p_[1] == '.') {
                sawElision_ = true;
                skipLine();
            } else if (!braced && (c == '{' || startsWith("===") || startsWith("IRPrinting"))) {
                break;  // the next program of the file
            } else {
                fail(p_, braced ? "an operation or '}'" : "an operation");
            }
        }
        // Values of a nested block go out of scope with it.
        for (size_t i = scopeMark; i < scopeLog_.size(); ++i) unbind(scopeLog_[i]);
        scopeLog_.resize(scopeMark);
    }

    static constexpr uint32_t kMaxNumericName = 1u << 26;
    // "%123" -> 123; kNoId for other names ("%arg_0", "%007").
    static uint32_t numericName(std::string_view name) {
        if (name.size() < 2 || name.size() > 9 || (name[1] == '0' && name.size() > 2)) return kNoId;
        uint32_t n = 0;
        for (size_t i = 1; i < name.size(); ++i) {
            if (!isDigit(name[i])) return kNoId;
            n = n * 10 + static_cast<uint32_t>(name[i] - '0');
        }
        return n < kMaxNumericName ? n : kNoId;
    }
    ValueId lookup(std::string_view name) const {
        const uint32_t n = numericName(name);
        if (n != kNoId) return n < numericScope_.size() ? numericScope_[n] : kNoId;
        auto it = scope_.find(name);
        return it == scope_.end() ? kNoId : it->second;
    }
    void bind(std::string_view name, ValueId v) {
        const uint32_t n = numericName(name);
        if (n == kNoId) {
            scope_[name] = v;
            return;
        }
        if (n >= numericScope_.size()) numericScope_.resize(std::max<size_t>(n + 1, numericScope_.size() * 2), kNoId);
        numericScope_[n] = v;
    }
    void unbind(std::string_view name) {
        const uint32_t n = numericName(name);
        if (n == kNoId) scope_.erase(name);
        else if (n < numericScope_.size()) numericScope_[n] = kNoId;
    }

    void define(std::string_view name, ValueId v, const char* at) {
        const ValueId existing = lookup(name);
        if (existing == kNoId) {
            bind(name, v);
        } else {
            failMessage(at, "expected a value name not defined before, found '" + std::string(name) + "' defined twice");
        }
        if (nesting_ > 0) scopeLog_.push_back(name);
    }

    ValueId resolve(std::string_view name, const char* at) {
        if (const ValueId v = lookup(name); v != kNoId) return v;
        if (!lenient_ && !sawElision_)
            failMessage(at, "expected a value defined before this use, found undefined value '" + std::string(name) + "'");
        // Fragments and excerpts use values defined in text that is not there: they become
        // inputs (arguments) of the global block, typed from the op's type list below.
        ++undefinedUses_;
        const ValueId v = prog_->addBlockArgument(Program::kGlobalBlock, kNullType, std::string(name));
        bind(name, v);
        if (nesting_ > 0) scopeLog_.push_back(name);
        return v;
    }

    void parseBlockArguments(BlockId block) {
        ++p_;  // '^'
        Block& b = prog_->blocks[block];
        b.argsPrinted = true;
        const OpId parent = b.parentOp;
        for (;;) {
            skipWs(false);
            std::string keyword;
            if (p_ < end_ && isIdentStart(*p_)) {
                keyword = std::string(identifier());
                skipWs(false);
                expect('=', "'=' after a keyword argument name");
                skipWs(false);
            }
            const char* at = p_;
            const std::string_view name = valueName();
            skipWs(false);
            TypeId type = kNullType;
            if (p_ < end_ && *p_ == ':') {
                ++p_;
                skipWs(false);
                type = parseType();
                prog_->blocks[block].argTypesPrinted = true;
            } else if (parent != kNoId && keyword.empty()) {
                // Printers that leave block-argument types out (early `pd_op.while`): the i-th
                // argument carries the loop input after the condition.
                const Operation& op = prog_->ops[parent];
                const size_t i = prog_->blocks[block].args.size() + 1;
                if (i < op.operands.size() && op.operands[i] != kNoId) type = prog_->values[op.operands[i]].type;
            }
            const ValueId v = prog_->addBlockArgument(block, type, std::string(name), std::move(keyword));
            define(name, v, at);
            skipWs(false);
            if (p_ < end_ && *p_ == ',') { ++p_; continue; }
            break;
        }
    }

    uint32_t internOpName(std::string_view name) {
        auto it = opNameCache_.find(name);
        if (it != opNameCache_.end()) return it->second;
        const uint32_t id = prog_->internOpName(name);
        opNameCache_.emplace(name, id);
        return id;
    }

    void parseOp(BlockId block) {
        Program& prog = *prog_;
        ++p_;  // '('
        const size_t nameBase = resultNames_.size();
        skipWs();
        if (p_ < end_ && *p_ == ')') {
            ++p_;
        } else {
            for (;;) {
                skipWs();
                const char* at = p_;
                const std::string_view name = valueName();
                for (size_t i = nameBase; i < resultNames_.size(); ++i)
                    if (resultNames_[i].first == name)
                        failMessage(at, "expected a value name not defined before, found '" + std::string(name) +
                                            "' defined twice");
                if (lookup(name) != kNoId) define(name, 0, at);  // reports "defined twice"
                resultNames_.emplace_back(name, at);
                skipWs();
                if (p_ < end_ && *p_ == ',') { ++p_; continue; }
                expect(')', "',' or ')' in the result list");
                break;
            }
        }
        skipWs();
        expect('=', "'=' after the result list");
        skipWs();
        Operation op;
        std::string_view opName;
        if (p_ < end_ && *p_ == '"') {
            const char* s = ++p_;
            while (p_ < end_ && *p_ != '"' && *p_ != '\n') ++p_;
            if (p_ >= end_ || *p_ != '"') fail(p_, "'\"' closing the operation name");
            opName = {s, static_cast<size_t>(p_ - s)};
            if (opName.empty()) fail(s, "an operation name");
            ++p_;
        } else {
            opName = identifier();
            if (opName.empty()) fail(p_, "an operation name");
            op.syntax |= OpSyntax::kBareName;
        }
        op.nameId = internOpName(opName);
        if (p_ < end_ && *p_ == '(') op.syntax |= OpSyntax::kNoSpaceBeforeOperands;
        skipWs(false);
        if (startsWith("[id:")) {
            p_ += 4;
            uint32_t id = 0;
            auto [ptr, ec] = std::from_chars(p_, end_, id);
            if (ec != std::errc() || ptr == p_) fail(p_, "an op id number");
            p_ = ptr;
            expect(']', "']' after the op id");
            op.printedId = id;
        }
        skipWs();
        expect('(', "'(' before the operand list");
        // Operands.
        size_t undefinedBefore = undefinedUses_;
        bool anyKeyword = false;
        pendingKeywords_.clear();
        for (;;) {
            skipWs();
            if (p_ < end_ && *p_ == ')') { ++p_; break; }
            std::string_view keyword;
            if (p_ < end_ && isIdentStart(*p_)) {
                keyword = identifier();
                skipWs();
                expect('=', "'=' after an operand keyword");
                skipWs();
                anyKeyword = true;
            }
            if (p_ < end_ && *p_ == '%') {
                const char* at = p_;
                op.operands.push_back(resolve(valueName(), at));
            } else if (startsWith("<<NULL VALUE>>")) {
                p_ += 14;
                op.operands.push_back(kNoId);
            } else {
                fail(p_, "an operand (%name or <<NULL VALUE>>)");
            }
            pendingKeywords_.push_back(keyword);
            skipWs();
            if (p_ < end_ && *p_ == ',') { ++p_; continue; }
            expect(')', "',' or ')' in the operand list");
            break;
        }
        if (anyKeyword)
            for (auto k : pendingKeywords_) op.operandKeywords.emplace_back(k);
        if (op.operands.capacity() != op.operands.size()) op.operands.shrink_to_fit();
        // Attributes.
        skipWs();
        if (p_ < end_ && *p_ == '{' && looksLikeAttributeDict(p_)) {
            // Parsed into a reused buffer, then moved into an exactly sized vector: growth
            // slack would cost more than the attributes themselves in large programs.
            attributeScratch_.clear();
            parseAttributeDict(attributeScratch_);
            op.attributes.reserve(attributeScratch_.size());
            for (auto& a : attributeScratch_) op.attributes.push_back(std::move(a));
            skipWs();
        } else {
            op.syntax |= OpSyntax::kNoAttributeDict;
        }
        // Signature.
        inputTypes_.clear();
        outputTypes_.clear();
        const char* outputsAt = p_;
        if (p_ < end_ && *p_ == ':') {
            ++p_;
            skipWs();
            const char* inputsAt = p_;
            expect('(', "'(' before the operand types");
            skipWs();
            if (p_ < end_ && *p_ == ')') {
                ++p_;
            } else {
                for (;;) {
                    skipWs();
                    inputTypes_.push_back(parseType());
                    skipWs();
                    if (p_ < end_ && *p_ == ',') { ++p_; continue; }
                    expect(')', "',' or ')' in the operand types");
                    break;
                }
            }
            if (inputTypes_.size() != op.operands.size())
                failMessage(inputsAt, "expected " + std::to_string(op.operands.size()) +
                                          " operand type(s), one per operand, found " +
                                          std::to_string(inputTypes_.size()));
            skipWs();
            if (!startsWith("->")) fail(p_, "'->' after the operand types");
            p_ += 2;
            outputsAt = p_;
            parseOutputTypes();
        } else if (startsWith("->")) {
            op.syntax |= OpSyntax::kArrowOnlySignature;
            p_ += 2;
            outputsAt = p_;
            parseOutputTypes();
        } else {
            op.syntax |= OpSyntax::kNoSignature;
        }
        const size_t resultCount = resultNames_.size() - nameBase;
        const bool haveSignature = !(op.syntax & OpSyntax::kNoSignature);
        if (haveSignature && outputTypes_.size() != resultCount) {
            const char* at = outputsAt;
            while (at < end_ && (*at == ' ' || *at == '\t')) ++at;
            failMessage(at, "expected " + std::to_string(resultCount) + " result type(s), one per result, found " +
                                std::to_string(outputTypes_.size()));
        }
        // Values used before their (missing) definition take the type the op prints for them.
        if (undefinedUses_ != undefinedBefore && !inputTypes_.empty())
            for (size_t i = 0; i < op.operands.size(); ++i) {
                const ValueId v = op.operands[i];
                if (v != kNoId && prog.values[v].definingOp == kNoId && prog.values[v].block == Program::kGlobalBlock &&
                    prog.values[v].type == kNullType)
                    prog.values[v].type = inputTypes_[i];
            }
        // Operand types that disagree with the operands' own types (hand-edited fixtures)
        // are kept so the writer prints them back.
        bool typesDiffer = false;
        for (size_t i = 0; i < inputTypes_.size(); ++i) {
            const ValueId v = op.operands[i];
            const TypeId own = v == kNoId ? kNullType : prog.values[v].type;
            if (own != inputTypes_[i]) typesDiffer = true;
        }
        // Create the op and its results (names enter scope after its regions).
        const auto id = static_cast<OpId>(prog.ops.size());
        op.parentBlock = block;
        op.results.reserve(resultCount);
        for (size_t i = 0; i < resultCount; ++i) {
            Value v;
            if (haveSignature) {
                v.type = outputTypes_[i];
            } else if (i + 1 < op.operands.size() && op.operands[i + 1] != kNoId) {
                v.type = prog.values[op.operands[i + 1]].type;  // `pd_op.while` printed without types
            }
            v.definingOp = id;
            v.block = block;
            v.index = static_cast<uint32_t>(i);
            v.name = std::string(resultNames_[nameBase + i].first);
            prog.noteValueName(v.name);
            op.results.push_back(static_cast<ValueId>(prog.values.size()));
            prog.values.push_back(std::move(v));
        }
        prog.ops.push_back(std::move(op));
        prog.blocks[block].ops.push_back(id);
        if (typesDiffer) prog.operandTypeOverrides[id] = inputTypes_;
        // Regions.
        const char* save = p_;
        sawNewline_ = false;
        skipWs();
        if (p_ < end_ && *p_ == '{') {
            if (sawNewline_) prog.ops[id].syntax |= OpSyntax::kRegionOnNewLine;
            for (;;) {
                enter(p_);
                ++p_;  // '{'
                const BlockId nb = prog.addBlock(id);
                prog.ops[id].regions.push_back({nb});
                parseBlockBody(nb, true);
                if (p_ >= end_) fail(p_, "'}' closing the region");
                ++p_;
                leave();
                const char* afterRegion = p_;
                skipWs(false);
                if (startsWith("else") && (p_ + 4 >= end_ || !isIdentChar(p_[4]))) {
                    p_ += 4;
                    skipWs();
                    if (p_ >= end_ || *p_ != '{') fail(p_, "'{' after 'else'");
                    continue;
                }
                p_ = afterRegion;
                break;
            }
        } else {
            p_ = save;
        }
        for (size_t i = 0; i < resultCount; ++i)
            define(resultNames_[nameBase + i].first, prog.ops[id].results[i], resultNames_[nameBase + i].second);
        resultNames_.resize(nameBase);
    }

    void parseOutputTypes() {
        const char* save = p_;
        skipWs();
        if (!atTypeStart()) {
            p_ = save;
            return;
        }
        for (;;) {
            outputTypes_.push_back(parseType());
            const char* after = p_;
            skipWs();
            if (p_ < end_ && *p_ == ',') {
                ++p_;
                skipWs();
                if (!atTypeStart()) fail(p_, "a type");
                continue;
            }
            p_ = after;
            return;
        }
    }

    bool atTypeStart() const { return p_ < end_ && (isIdentStart(*p_) || (*p_ == '<' && startsWith("<<NULL TYPE>>"))); }

    // "{key:" or "{}" on the same line is an attribute dict; "{" then a newline, "(", "^"
    // or a comment opens a region.
    bool looksLikeAttributeDict(const char* q) const {
        ++q;
        while (q < end_ && (*q == ' ' || *q == '\t')) ++q;
        if (q < end_ && *q == '}') return true;
        if (q >= end_ || !isIdentStart(*q)) return false;
        while (q < end_ && isIdentChar(*q)) ++q;
        while (q < end_ && (*q == ' ' || *q == '\t')) ++q;
        return q < end_ && *q == ':';
    }

    // ---------------- types ----------------
    // Span of a type starting at p_: "name<...>" (nested <>), "vec[...]" (nested []).
    const char* typeSpanEnd(const char* q) const {
        if (static_cast<size_t>(end_ - q) >= 13 && std::memcmp(q, "<<NULL TYPE>>", 13) == 0) return q + 13;
        const char* s = q;
        while (q < end_ && isIdentChar(*q)) ++q;
        if (q == s || q >= end_) return nullptr;
        const char open = *q;
        if (open != '<' && open != '[') return nullptr;
        const char close = open == '<' ? '>' : ']';
        int depth = 0;
        for (; q < end_ && *q != '\n'; ++q) {
            if (*q == open) ++depth;
            else if (*q == close && --depth == 0) return q + 1;
            else if (open == '<' && *q == '>' ) { /* nested <<NULL TYPE>> closes handled by depth */ }
        }
        return nullptr;
    }

    TypeId parseType() {
        if (p_ >= end_ || !atTypeStart()) fail(p_, "a type");
        const char* start = p_;
        const char* spanEnd = typeSpanEnd(p_);
        if (spanEnd) {
            auto it = typeCache_.find(std::string_view(start, static_cast<size_t>(spanEnd - start)));
            if (it != typeCache_.end()) {
                p_ = spanEnd;
                return it->second;
            }
        }
        const TypeId t = parseTypeUncached();
        if (spanEnd && p_ == spanEnd) typeCache_.emplace(std::string_view(start, static_cast<size_t>(spanEnd - start)), t);
        return t;
    }

    TypeId parseTypeUncached() {
        Program& prog = *prog_;
        if (startsWith("<<NULL TYPE>>")) {
            p_ += 13;
            return kNullType;
        }
        const char* start = p_;
        enter(p_);
        if (startsWith("vec[")) {
            p_ += 4;
            std::vector<TypeId> elements;
            skipWs(false);
            if (p_ < end_ && *p_ == ']') {
                ++p_;
            } else {
                for (;;) {
                    skipWs(false);
                    elements.push_back(parseType());
                    skipWs(false);
                    if (p_ < end_ && *p_ == ',') { ++p_; continue; }
                    expect(']', "',' or ']' in a vec[...] type");
                    break;
                }
            }
            leave();
            return prog.types.intern(Type::vector(std::move(elements)));
        }
        const std::string_view name = identifier();
        if (name.empty()) fail(p_, "a type");
        if (p_ >= end_ || *p_ != '<') fail(p_, "'<' after the type name '" + std::string(name) + "'");
        ++p_;
        const auto endsWith = [&](std::string_view s) {
            return name.size() >= s.size() && name.substr(name.size() - s.size()) == s;
        };
        Type t;
        if (endsWith("tensor_array")) t.kind = Type::Kind::TensorArray;
        else if (endsWith("selected_rows")) t.kind = Type::Kind::SelectedRows;
        else if (endsWith("tensor")) t.kind = Type::Kind::DenseTensor;
        else t.kind = Type::Kind::Opaque;
        if (t.kind != Type::Kind::Opaque) {
            bool ok = true;
            while (p_ < end_ && (isDigit(*p_) || *p_ == '-')) {
                int64_t d = 0;
                auto [ptr, ec] = std::from_chars(p_, end_, d);
                if (ec != std::errc() || ptr == p_) { ok = false; break; }
                if (d < -1) fail(p_, "a dimension (-1 for dynamic, or a size >= 0)");
                p_ = ptr;
                t.dims.push_back(d);
                if (p_ < end_ && *p_ == 'x') ++p_;
                else { ok = false; break; }
            }
            const char* dtypeStart = p_;
            while (ok && p_ < end_ && (isAlpha(*p_) || isDigit(*p_) || *p_ == '_')) ++p_;
            std::optional<DType> dt;
            if (ok) dt = parseDTypeShort(std::string_view(dtypeStart, static_cast<size_t>(p_ - dtypeStart)));
            if (ok && dt && p_ < end_ && *p_ == '>') {
                ++p_;
                t.dtype = *dt;
                if (t.kind != Type::Kind::DenseTensor || name != defaultTensorSpelling(gen_)) t.dialect = std::string(name);
                leave();
                return prog.types.intern(t);
            }
            // G0 printed tensor<0x<<NULL TYPE>>>: kept verbatim; anything else is an error.
            const std::string_view rest(dtypeStart, static_cast<size_t>(end_ - dtypeStart));
            if (rest.size() >= 14 && rest.substr(0, 14) == "<<NULL TYPE>>>") {
                p_ = dtypeStart + 14;
                t = Type{};
                t.kind = Type::Kind::Opaque;
                t.text.assign(start, p_);
                leave();
                return prog.types.intern(t);
            }
            if (ok && !dt) fail(dtypeStart, "an element type such as f32");
            fail(p_, "'>' closing the type");
        }
        int depth = 1;
        while (p_ < end_ && *p_ != '\n') {
            if (*p_ == '<') ++depth;
            else if (*p_ == '>' && --depth == 0) break;
            ++p_;
        }
        if (p_ >= end_ || *p_ != '>') fail(p_, "'>' closing the type");
        ++p_;
        t.text.assign(start, p_);
        leave();
        return prog.types.intern(t);
    }

    // ---------------- attributes ----------------
    void parseAttributeDict(std::vector<NamedAttribute>& out) {
        ++p_;  // '{'
        skipWs();
        if (p_ < end_ && *p_ == '}') {
            ++p_;
            return;
        }
        for (;;) {
            skipWs();
            const std::string_view key = identifier();
            if (key.empty()) fail(p_, "an attribute name");
            skipWs();
            expect(':', "':' after the attribute name");
            skipWs();
            out.emplace_back();
            out.back().name = std::string(key);
            parseAttribute(out.back().value, key, false);
            skipWs();
            if (p_ < end_ && *p_ == ',') { ++p_; continue; }
            expect('}', "',' or '}' in the attribute list");
            return;
        }
    }

    // Token of a bare scalar: digits, letters, '.', '+', '-'.
    std::string_view scalarToken() {
        const char* s = p_;
        while (p_ < end_ && (isAlpha(*p_) || isDigit(*p_) || *p_ == '.' || *p_ == '+' || *p_ == '-' || *p_ == '_')) ++p_;
        return {s, static_cast<size_t>(p_ - s)};
    }

    void parseNumber(Attribute& a, Attribute::Kind kind) {
        const char* at = p_;
        const std::string_view tok = scalarToken();
        if (tok.empty()) fail(at, "a number");
        a.kind = kind;
        if (kind == Attribute::Kind::Float || kind == Attribute::Kind::Double) {
            double v = 0;
            const char* first = tok.data();
            if (*first == '+') ++first;
            auto [ptr, ec] = std::from_chars(first, tok.data() + tok.size(), v);
            if (ec != std::errc() || ptr != tok.data() + tok.size()) fail(at, "a number");
            a.floatValue = v;
            a.spelling = tok;
        } else {
            int64_t v = 0;
            auto [ptr, ec] = std::from_chars(tok.data(), tok.data() + tok.size(), v);
            if (ec != std::errc() || ptr != tok.data() + tok.size()) fail(at, "an integer");
            a.intValue = v;
            if (tok.size() > 20 || std::to_string(v) != tok) a.spelling = tok;
        }
    }

    // p_ at `open`; stops after the matching close, on the same line; skips "strings".
    void parseBalanced(char open, char close) {
        int depth = 0;
        while (p_ < end_ && *p_ != '\n') {
            if (*p_ == '"') {
                ++p_;
                while (p_ < end_ && *p_ != '"' && *p_ != '\n') p_ += (*p_ == '\\' && p_ + 1 < end_ && p_[1] != '\n') ? 2 : 1;
                if (p_ >= end_ || *p_ != '"') break;
                ++p_;
                continue;
            }
            if (*p_ == open) ++depth;
            else if (*p_ == close && --depth == 0) { ++p_; return; }
            ++p_;
        }
        fail(p_, std::string("'") + close + "'");
    }

    void parseIntList(Attribute& a) {  // "[1,2,-1]" into IntArray elements
        expect('[', "'['");
        skipWs();
        if (p_ < end_ && *p_ == ']') { ++p_; return; }
        for (;;) {
            skipWs();
            Attribute e;
            parseNumber(e, Attribute::Kind::Int64);
            a.elements.push_back(std::move(e));
            skipWs();
            if (p_ < end_ && *p_ == ',') { ++p_; continue; }
            expect(']', "',' or ']' in the integer list");
            return;
        }
    }

    void parseArray(Attribute& a, std::string_view key) {
        a.kind = Attribute::Kind::Array;
        enter(p_);
        ++p_;  // '['
        skipWs();
        if (p_ < end_ && *p_ == ']') {
            ++p_;
            leave();
            return;
        }
        for (;;) {
            skipWs();
            a.elements.emplace_back();
            parseAttribute(a.elements.back(), key, true);
            skipWs();
            if (p_ < end_ && *p_ == ',') { ++p_; continue; }
            expect(']', "',' or ']' in the array");
            break;
        }
        if (a.elements.capacity() != a.elements.size()) a.elements.shrink_to_fit();
        leave();
    }

    // Typed printers (G1/G2) that print a value without its usual prefix, or with an
    // unusual one such as (Bool): the spelling is kept so the writer reproduces it.
    void parseAttribute(Attribute& a, std::string_view key, bool inArray) {
        const char* start = p_;
        parseAttributeValue(a, key, inArray);
        using K = Attribute::Kind;
        if ((gen_ == Generation::G1 || gen_ == Generation::G2) && a.spelling.empty() &&
            (a.typed ? a.kind == K::Bool
                     : (a.kind == K::Int32 || a.kind == K::Int64 || a.kind == K::Index || a.kind == K::Float ||
                        a.kind == K::Double || a.kind == K::DataType || a.kind == K::Place || a.kind == K::DataLayout)))
            a.spelling = std::string_view(start, static_cast<size_t>(p_ - start));
    }

    void parseAttributeValue(Attribute& a, std::string_view key, bool inArray) {
        if (p_ >= end_) fail(p_, "an attribute value");
        const char c = *p_;
        if (c == '"') {
            const char* s = ++p_;
            while (p_ < end_ && *p_ != '"' && *p_ != '\n') {
                if (*p_ == '\\' && p_ + 1 < end_ && p_[1] != '\n') ++p_;
                ++p_;
            }
            if (p_ >= end_ || *p_ != '"') fail(p_, "'\"' closing the string");
            a.kind = Attribute::Kind::String;
            a.text.assign(s, p_);
            ++p_;
            return;
        }
        if (c == '[') {
            // Untyped printers (G3) write IntArray attributes as plain lists; these names
            // are IntArrays in Paddle's op definitions.
            if (!inArray && gen_ == Generation::G3 &&
                (key == "shape" || key == "axis" || key == "starts" || key == "ends" || key == "sections" ||
                 key == "repeat_times" || key == "num_or_sections")) {
                const char* save = p_;
                Attribute ints;
                ints.kind = Attribute::Kind::IntArray;
                try {
                    parseIntList(ints);
                    a = std::move(ints);
                    return;
                } catch (const Error&) {
                    p_ = save;  // not a list of integers after all
                }
            }
            parseArray(a, key);
            return;
        }
        if (c == '(') {
            const char* s = p_ + 1;
            const char* q = s;
            while (q < end_ && *q != ')' && *q != '\n') ++q;
            if (q >= end_ || *q != ')') fail(q, "')' closing the attribute type");
            const std::string_view prefix(s, static_cast<size_t>(q - s));
            a.typed = true;
            if (prefix.substr(0, 2) == "0x") {
                a.kind = Attribute::Kind::Pointer;
                a.text = std::string(prefix);
                p_ = q + 1;
                return;
            }
            p_ = q + 1;
            if (prefix == "Float") return parseNumber(a, Attribute::Kind::Float);
            if (prefix == "Double") return parseNumber(a, Attribute::Kind::Double);
            if (prefix == "Int32") return parseNumber(a, Attribute::Kind::Int32);
            if (prefix == "Int64") return parseNumber(a, Attribute::Kind::Int64);
            if (prefix == "Index") return parseNumber(a, Attribute::Kind::Index);
            if (prefix == "Bool") {
                const char* at = p_;
                const std::string_view w = identifier();
                if (w != "true" && w != "false") fail(at, "true or false");
                a.kind = Attribute::Kind::Bool;
                a.boolValue = w == "true";
                return;
            }
            if (prefix == "pd_op.DataType") {
                const char* at = p_;
                const std::string_view w = identifier();
                if (w.empty()) fail(at, "a data type name");
                a.kind = Attribute::Kind::DataType;
                a.text = std::string(w);
                return;
            }
            if (prefix == "pd_op.Place") {
                const char* at = p_;
                if (!startsWith("Place(")) fail(at, "Place(...)");
                p_ += 5;
                parseBalanced('(', ')');
                a.kind = Attribute::Kind::Place;
                a.text.assign(at, p_);
                return;
            }
            if (prefix == "pd_op.IntArray") {
                a.kind = Attribute::Kind::IntArray;
                parseIntList(a);
                return;
            }
            if (prefix == "pd_op.DataLayout") {
                const char* at = p_;
                identifier();
                if (p_ < end_ && *p_ == '(') parseBalanced('(', ')');
                if (p_ == at) fail(at, "a data layout");
                a.kind = Attribute::Kind::DataLayout;
                a.text.assign(at, p_);
                return;
            }
            // Unknown "(Type)value": kept verbatim up to the next ',', '}' or ']' at depth 0;
            // brackets and strings inside must balance on the line.
            const char* at = s - 1;
            int depth = 0;
            while (p_ < end_ && *p_ != '\n') {
                const char d = *p_;
                if (d == '"') {
                    ++p_;
                    while (p_ < end_ && *p_ != '"' && *p_ != '\n') p_ += (*p_ == '\\' && p_ + 1 < end_ && p_[1] != '\n') ? 2 : 1;
                    if (p_ >= end_ || *p_ != '"') fail(p_, "'\"' closing the string");
                } else if (d == '[' || d == '(' || d == '<' || d == '{') {
                    ++depth;
                } else if (d == ']' || d == ')' || d == '>' || d == '}') {
                    if (depth == 0) break;
                    --depth;
                } else if (d == ',' && depth == 0) {
                    break;
                }
                ++p_;
            }
            if (depth != 0) fail(p_, "balanced brackets in the attribute value");
            a.kind = Attribute::Kind::Opaque;
            a.text.assign(at, p_);
            return;
        }
        if (c == '<' || c == '{') {  // kernel_key:<...>; {...} = attributes kept verbatim
            const char* at = p_;
            parseBalanced(c, c == '<' ? '>' : '}');
            a.kind = Attribute::Kind::Opaque;
            a.text.assign(at, p_);
            return;
        }
        if (isDigit(c) || c == '-' || c == '+' || c == '.' || startsWith("inf") || startsWith("nan")) {
            const char* q = p_;
            bool floating = false;
            while (q < end_ && (isAlpha(*q) || isDigit(*q) || *q == '.' || *q == '+' || *q == '-')) {
                if (*q == '.' || *q == 'e' || *q == 'E' || *q == 'i' || *q == 'n') floating = true;
                ++q;
            }
            if (floating || (!inArray && isFloatAttributeName(key)))
                return parseNumber(a, key == "value" && gen_ == Generation::G3 ? Attribute::Kind::Double
                                                                                : Attribute::Kind::Float);
            return parseNumber(a, inArray ? Attribute::Kind::Int64 : Attribute::Kind::Int32);
        }
        if (startsWith("Place(")) {
            const char* at = p_;
            p_ += 5;
            parseBalanced('(', ')');
            a.kind = Attribute::Kind::Place;
            a.text.assign(at, p_);
            return;
        }
        if (startsWith("array[")) {  // G0
            p_ += 5;
            parseArray(a, key);
            return;
        }
        if (startsWith("IntArray[")) {  // G0
            p_ += 8;
            a.kind = Attribute::Kind::IntArray;
            parseIntList(a);
            return;
        }
        if (isIdentStart(c)) {
            const char* at = p_;
            const std::string_view w = identifier();
            if (w == "true" || w == "false") {
                a.kind = Attribute::Kind::Bool;
                a.boolValue = w == "true";
                return;
            }
            if (p_ < end_ && *p_ == '(') parseBalanced('(', ')');  // Undefined(AnyLayout)
            const std::string_view word(at, static_cast<size_t>(p_ - at));
            if (word.size() == w.size() && parseDTypeLong(w)) {
                a.kind = Attribute::Kind::DataType;
            } else if (gen_ == Generation::G0 && word.size() == w.size()) {
                a.kind = Attribute::Kind::String;  // G0 printed strings without quotes
            } else if (isLayoutName(w)) {
                a.kind = Attribute::Kind::DataLayout;
            } else {
                a.kind = Attribute::Kind::Opaque;
            }
            a.text = std::string(word);
            return;
        }
        fail(p_, "an attribute value");
    }

    const char* begin_;
    const char* p_;
    const char* end_;
    const std::string& file_;
    Generation gen_;
    Program* prog_ = nullptr;
    int nesting_ = 0;
    bool sawNewline_ = false;
    bool sawElision_ = false;
    bool lenient_ = false;
    size_t undefinedUses_ = 0;
    // Names in scope. "%N" (nearly all) index a flat vector: no hashing, no node per value.
    std::unordered_map<std::string_view, ValueId> scope_;
    std::vector<ValueId> numericScope_;
    std::vector<std::string_view> scopeLog_;
    std::vector<std::pair<std::string_view, const char*>> resultNames_;
    std::vector<std::string_view> pendingKeywords_;
    std::vector<TypeId> inputTypes_, outputTypes_;
    std::vector<NamedAttribute> attributeScratch_;
    std::unordered_map<std::string_view, TypeId> typeCache_;
    std::unordered_map<std::string_view, uint32_t> opNameCache_;
};

// Zero-width characters (U+200B..U+200D, U+2060, U+FEFF) that web pages sprinkle into
// pasted text, even inside names. Returns how many were removed into `out` (0: untouched).
size_t stripZeroWidth(std::string_view text, std::string& out) {
    size_t removed = 0;
    size_t copiedTo = 0;  // text[copiedTo, i) is not yet in `out`
    for (size_t i = 0; i + 2 < text.size(); ++i) {
        // Skip plain ASCII eight bytes at a time (the zero-width characters start with a byte >= 0x80).
        while (i + 8 <= text.size()) {
            uint64_t word;
            std::memcpy(&word, text.data() + i, sizeof word);
            if (word & 0x8080808080808080ull) break;
            i += 8;
        }
        if (i + 2 >= text.size()) break;
        const auto b0 = static_cast<unsigned char>(text[i]);
        if (b0 != 0xE2 && b0 != 0xEF) continue;
        const auto b1 = static_cast<unsigned char>(text[i + 1]), b2 = static_cast<unsigned char>(text[i + 2]);
        const bool zeroWidth = (b0 == 0xE2 && b1 == 0x80 && (b2 == 0x8B || b2 == 0x8C || b2 == 0x8D)) ||
                               (b0 == 0xE2 && b1 == 0x81 && b2 == 0xA0) || (b0 == 0xEF && b1 == 0xBB && b2 == 0xBF);
        if (!zeroWidth) continue;
        if (removed == 0) out.reserve(text.size());
        out.append(text.substr(copiedTo, i - copiedTo));
        copiedTo = i + 3;
        ++removed;
        i += 2;
    }
    if (removed) out.append(text.substr(copiedTo));
    return removed;
}

}  // namespace

std::vector<ProgramListing> listPrograms(std::string_view original, const std::string& fileName) {
    std::string cleaned;
    const std::string_view text = stripZeroWidth(original, cleaned) ? std::string_view(cleaned) : original;
    std::vector<ProgramListing> out;
    Parser parser(text, fileName);
    parser.parseAll([&](int index, ParsedProgram&& parsed) {
        out.push_back({index, parsed.line, parsed.title, parsed.program.globalBlock().ops.size()});
    });
    return out;
}

Program parsePir(std::string_view original, const std::string& fileName, const ReadOptions& options) {
    std::string cleaned;
    const size_t zeroWidth = stripZeroWidth(original, cleaned);
    const std::string_view text = zeroWidth ? std::string_view(cleaned) : original;
    std::optional<Program> chosen;
    int count = 0;
    {
        Parser parser(text, fileName);
        parser.parseAll([&](int index, ParsedProgram&& parsed) {
            count = index + 1;
            if (options.programIndex < 0 || options.programIndex == index) {
                chosen.reset();
                chosen.emplace(std::move(parsed.program));
            }
        });
    }
    if (options.programIndex >= count || !chosen)
        throw Error(SourceLocation{fileName, 0, 0},
                    "program " + std::to_string(options.programIndex) + " requested, but the file holds " +
                        std::to_string(count) + " program(s) (0.." + std::to_string(count - 1) + ")");
    if (zeroWidth)
        chosen->warnings.push_back(std::to_string(zeroWidth) +
                                   " zero-width character(s) removed (columns in messages count without them)");
    if (count > 1 && options.programIndex < 0)
        chosen->warnings.push_back("file holds " + std::to_string(count) + " programs; loaded the last (program " +
                                   std::to_string(count - 1) + ")");
    return std::move(*chosen);
}

Program readPirFile(const std::string& path, const ReadOptions& options) {
    const std::string text = readTextFile(path);
    return parsePir(text, path, options);
}

Program loadProgram(const std::string& path, const ReadOptions& options) {
    const std::string text = readTextFile(path);
    size_t i = 0;
    while (i < text.size() && (text[i] == ' ' || text[i] == '\n' || text[i] == '\r' || text[i] == '\t')) ++i;
    if (i < text.size() && text[i] == '{') {
        size_t j = i + 1;
        while (j < text.size() && (text[j] == ' ' || text[j] == '\n' || text[j] == '\r' || text[j] == '\t')) ++j;
        if (j < text.size() && text[j] == '"') return parsePirJson(text, path);
    }
    return parsePir(text, path, options);
}

}  // namespace rx
