// PIR text parser: programs, blocks, operations, types and attributes over the PirLexer.
#include "model/PirParser.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <optional>
#include <unordered_map>
#include <vector>

#include <boost/container/small_vector.hpp>

#include "model/PirLexer.h"
#include "model/PirReader.h"
#include "model/PirValueScope.h"

namespace rx::pir {

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

namespace {

constexpr int kMaxNesting = 200;  // regions, vec[...] and [...] nesting; deeper input is rejected

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

// Untyped printers (G3) write these IntArray attributes as plain lists (Paddle's op definitions).
bool isIntArrayAttributeName(std::string_view key) {
    return key == "shape" || key == "axis" || key == "starts" || key == "ends" || key == "sections" ||
           key == "repeat_times" || key == "num_or_sections";
}

using K = Token::Kind;

// How a list of the grammar is bracketed, and what it allows between elements.
enum class Delimiter { None, Paren, Square, Brace };
struct ListStyle {
    bool crossNewlines = true;   // trivia between elements may span lines
    bool trailingComma = false;  // "(a, )" accepted (operand lists as some printers wrote them)
};

class PirParser {
public:
    PirParser(std::string_view text, const std::string& file) : lex_(text, file), gen_(detectGeneration(text)) {}

    // file   ::= (banner | elision-line | program)*
    // banner ::= '===' line | 'IRPrinting' line       (a pass log's header: the next program's title)
    void parseFile(const std::function<void(int, ParsedProgram&&)>& onProgram) {
        std::string title;
        int index = 0;
        for (;;) {
            lex_.skipTrivia();
            if (lex_.atEnd()) break;
            if (lex_.startsWith("===")) { lex_.skipLine(); continue; }
            if (lex_.startsWith("IRPrinting")) {
                const char* s = lex_.pos();
                lex_.skipLine();
                const char* e = lex_.pos();
                while (e > s && (e[-1] == '\n' || e[-1] == '\r' || e[-1] == ' ')) --e;
                title.assign(s, e);
                continue;
            }
            if (lex_.startsWith("..")) { lex_.skipLine(); continue; }
            if (!lex_.at('{') && !lex_.at('(')) lex_.emitError(lex_.pos(), "'{' or an operation");
            ParsedProgram parsed;
            parsed.line = lex_.lineOf(lex_.pos());
            parsed.title = title.empty() ? "program " + std::to_string(index) : title;
            title.clear();
            parseProgram(parsed.program);
            onProgram(index, std::move(parsed));
            ++index;
        }
        if (index == 0) lex_.emitError(lex_.pos(), "a program ('{' or an operation)");
    }

private:
    // ================= lists =================
    // list ::= open (element (',' element)*)? close      open/close: '(' ')', '[' ']', '{' '}'
    //        | element (',' element)*                     Delimiter::None
    // The one loop behind every list of the grammar, like MLIR's parseCommaSeparatedList.
    // `openExpected` names the opening bracket in its error; `context` ("the operand list")
    // names the list in "expected ',' or ')' in <context>". An undelimited list ends before
    // the first element not preceded by ','.
    template <class ParseElement>
    void parseCommaSeparatedList(Delimiter delimiter, std::string_view openExpected, std::string_view context,
                                 ParseElement&& parseElement, ListStyle style = {}) {
        if (delimiter == Delimiter::None) {
            for (;;) {
                parseElement();
                const char* after = lex_.pos();
                lex_.skipTrivia(style.crossNewlines);
                if (lex_.consumeIf(',')) {
                    lex_.skipTrivia(style.crossNewlines);
                    continue;
                }
                lex_.resetPosition(after);
                return;
            }
        }
        const char open = delimiter == Delimiter::Paren ? '(' : delimiter == Delimiter::Square ? '[' : '{';
        const char close = delimiter == Delimiter::Paren ? ')' : delimiter == Delimiter::Square ? ']' : '}';
        lex_.expect(open, openExpected);
        lex_.skipTrivia(style.crossNewlines);
        if (lex_.consumeIf(close)) return;
        for (;;) {
            lex_.skipTrivia(style.crossNewlines);
            if (style.trailingComma && lex_.consumeIf(close)) return;
            parseElement();
            lex_.skipTrivia(style.crossNewlines);
            if (lex_.consumeIf(',')) continue;
            if (!lex_.at(close))
                lex_.emitError(lex_.pos(), std::string("',' or '") + close + "' in " + std::string(context));
            lex_.advance();
            return;
        }
    }

    void enterNesting(const char* at) {
        if (++nesting_ > kMaxNesting)
            lex_.emitErrorMessage(at, "nesting deeper than " + std::to_string(kMaxNesting) + " levels");
    }
    void leaveNesting() { --nesting_; }

    // ================= programs, regions and blocks =================
    // program ::= '{' block-body '}'      a whole program
    //           | block-body              a fragment: ops without the enclosing braces
    // An excerpt (one with elision lines) may end before its closing '}'.
    void parseProgram(Program& prog) {
        prog_ = &prog;
        prog.setGeneration(gen_);
        scope_.clear();
        scopeLog_.clear();
        sawElision_ = false;
        lenient_ = false;
        undefinedUses_ = 0;
        untypedOps_ = 0;
        regionOps_.clear();
        undefinedUseAt_.clear();
        typeCache_.clear();  // TypeIds and op-name ids belong to one program
        opNameCache_.clear();
        attributeLists_.clear();  // a dict's meaning depends on the program's generation
        lastDict_ = nullptr;
        recentTypes_ = {};
        recentSignatures_ = {};
        // Reserve for about one op per line: growth would copy (and page in) the arrays
        // twice over; unused reserve of these large blocks is never touched.
        const size_t lines = lex_.estimatedLines();
        prog.reserve(lines, lines + lines / 8);
        if (lex_.at('{')) {
            const char* open = lex_.pos();
            lex_.advance();
            parseBlockBody(Program::kGlobalBlock, /*braced=*/true);
            if (lex_.atEnd()) {
                if (!sawElision_)
                    lex_.emitError(lex_.pos(), "'}' closing the program opened at line " + std::to_string(lex_.lineOf(open)));
                prog.addWarning("program has no closing '}' (an excerpt); loaded what is there");
            } else {
                lex_.advance();
            }
        } else {
            lenient_ = true;
            prog.setFragment(true);
            prog.addWarning("program has no enclosing braces (a fragment); loaded its ops as the global block");
            parseBlockBody(Program::kGlobalBlock, /*braced=*/false);
        }
        if (sawElision_) prog.addWarning("program contains elision lines (\"...\"); they were skipped");
        checkYieldCounts();
        // Drop vector growth slack (a third of the arrays' size on average).
        prog.shrinkToFit();
        // The grammar allows an op without a signature, but its results then have no type:
        // every figure counts them as 0 bytes, which the user must know.
        if (untypedOps_ > 0)
            prog.addWarning(std::to_string(untypedOps_) + " op(s) print no type signature for their results (first: line " +
                            std::to_string(lex_.lineOf(firstUntypedAt_)) + ", " + firstUntypedName_ +
                            "): their results have no type and count as 0 bytes");
        if (undefinedUses_ > 0)
            prog.addWarning(std::to_string(undefinedUses_) +
                                    " value(s) used but not defined in the text; loaded as inputs of the global block");
        prog.finish();
    }

    // region-list ::= region ('else' region)*
    // At the '{' of the first region of op `id`, which may open on the op's line or the next.
    void parseRegionList(OpId id) {
        for (;;) {
            parseRegion(id);
            const char* afterRegion = lex_.pos();
            lex_.skipTrivia(false);
            if (lex_.startsWith("else") && (lex_.pos() + 4 >= lex_.bufferEnd() || !isIdentChar(lex_.pos()[4]))) {
                lex_.advance(4);
                lex_.skipTrivia();
                if (!lex_.at('{')) lex_.emitError(lex_.pos(), "'{' after 'else'");
                continue;
            }
            lex_.resetPosition(afterRegion);
            return;
        }
    }

    // After the text parsed (its syntax errors first): a structured op whose blocks yield
    // other counts than its results (model/Program.h yieldCountProblem) is an error at the
    // op, a warning in a fragment or an excerpt with elisions (whose blocks may be cut short):
    // such a program loaded and planned, and a run failed only on the branch it took.
    void checkYieldCounts() {
        for (const auto& [id, opStart] : regionOps_) {
            const std::string problem = yieldCountProblem(*prog_, id);
            if (problem.empty()) continue;
            const std::string what = std::string(prog_->opName(id)) + ": " + problem;
            if (!lenient_ && !sawElision_) lex_.emitErrorMessage(opStart, what);
            prog_->addWarning("line " + std::to_string(lex_.lineOf(opStart)) + ", " + what);
        }
    }

    // region ::= '{' block-body '}'          a new block of op `id`'s next region
    void parseRegion(OpId id) {
        Program& prog = *prog_;
        enterNesting(lex_.pos());
        lex_.advance();  // '{'
        const BlockId nb = prog.addBlock(id);
        prog.addRegion(id, {nb});
        parseBlockBody(nb, /*braced=*/true);
        if (lex_.atEnd()) lex_.emitError(lex_.pos(), "'}' closing the region");
        lex_.advance();  // '}'
        leaveNesting();
    }

    // block-body ::= block-arguments? (operation | elision-line)*
    // Ends at '}' (left for the caller) or, unbraced, at the end or the next program.
    void parseBlockBody(BlockId block, bool braced) {
        const size_t scopeMark = scopeLog_.size();
        for (;;) {
            lex_.skipTrivia();
            const K kind = lex_.peekKind();
            const char* at = lex_.pos();
            if (kind == K::Eof) {
                if (braced && !sawElision_) lex_.emitError(at, "'}'");
                break;
            }
            if (kind == K::RBrace) {
                if (!braced) lex_.emitError(at, "an operation");
                break;
            }
            if (kind == K::LParen) {
                parseOperation(block);
            } else if (kind == K::Caret && block != Program::kGlobalBlock && prog_->block(block).ops.empty() &&
                       !prog_->block(block).argsPrinted) {
                parseBlockArguments(block);
            } else if (kind == K::Elision) {
                sawElision_ = true;
                lex_.skipLine();
            } else if (!braced && (kind == K::LBrace || lex_.startsWith("===") || lex_.startsWith("IRPrinting"))) {
                break;  // the next program of the file
            } else {
                lex_.emitError(at, braced ? "an operation or '}'" : "an operation");
            }
        }
        // Values of a nested block go out of scope with it.
        for (size_t i = scopeMark; i < scopeLog_.size(); ++i) unbind(scopeLog_[i]);
        scopeLog_.resize(scopeMark);
    }

    // block-arguments ::= '^' block-argument (',' block-argument)*        on one line
    // block-argument  ::= (bare-id '=')? value-name (':' type)?
    void parseBlockArguments(BlockId block) {
        lex_.advance();  // '^'
        prog_->setBlockArgsPrinted(block, true);
        const OpId parent = prog_->block(block).parentOp;
        lex_.skipTrivia(false);
        parseCommaSeparatedList(Delimiter::None, {}, {}, [&] {
            std::string keyword;
            if (lex_.atToken(K::BareIdentifier)) {
                keyword = std::string(lex_.lexIdentifier());
                lex_.skipTrivia(false);
                lex_.expect('=', "'=' after a keyword argument name");
                lex_.skipTrivia(false);
            }
            const char* at = lex_.pos();
            const std::string_view name = lex_.lexValueName();
            lex_.skipTrivia(false);
            TypeId type = kNullType;
            if (lex_.consumeIf(':')) {
                lex_.skipTrivia(false);
                type = parseType();
                prog_->setBlockArgTypesPrinted(block, true);
            } else if (parent != kNoId && keyword.empty()) {
                // Printers that leave block-argument types out (early `pd_op.while`): the i-th
                // argument carries the loop input after the condition.
                const Operation& op = prog_->op(parent);
                const size_t i = prog_->block(block).args.size() + 1;
                if (i < op.operands.size() && op.operands[i] != kNoId) type = prog_->value(op.operands[i]).type;
            }
            const ValueId v = prog_->addBlockArgument(block, type, std::string(name), std::move(keyword));
            define(name, v, at);
        }, ListStyle{.crossNewlines = false});
    }

    // ================= operations =================
    // operation ::= value-list '=' op-name op-id? operand-list attr-dict? function-type? region-list?
    // value-list ::= '(' (value-name (',' value-name)*)? ')'
    // op-name    ::= string-literal | bare-id
    // op-id      ::= '[id:' integer ']'                                  (kernel dialect dumps)
    // The results enter scope after the op's regions; the op's syntax variants are noted so
    // the writer prints it back as it was.
    void parseOperation(BlockId block) {
        Program& prog = *prog_;
        const size_t nameBase = resultNames_.size();
        const char* opStart = lex_.pos();
        parseResultList();
        lex_.skipTrivia();
        lex_.expect('=', "'=' after the result list");
        lex_.skipTrivia();
        // Built in place: nothing below appends another op before the regions, which come last.
        const auto id = static_cast<OpId>(prog.ops().size());
        Operation& op = prog.appendOperation(block);
        std::string_view opName;
        if (lex_.consumeIf('"')) {
            const char* s = lex_.pos();
            opName = lex_.lexQuotedBody(/*escapes=*/false);
            if (!lex_.at('"')) lex_.emitError(lex_.pos(), "'\"' closing the operation name");
            if (opName.empty()) lex_.emitError(s, "an operation name");
            lex_.advance();
        } else {
            opName = lex_.lexIdentifier();
            if (opName.empty()) lex_.emitError(lex_.pos(), "an operation name");
            op.syntax |= OpSyntax::kBareName;
        }
        op.nameId = internOpName(opName);
        if (lex_.at('(')) op.syntax |= OpSyntax::kNoSpaceBeforeOperands;
        lex_.skipTrivia(false);
        if (lex_.startsWith("[id:")) {
            lex_.advance(4);
            uint32_t printedId = 0;
            auto [ptr, ec] = std::from_chars(lex_.pos(), lex_.bufferEnd(), printedId);
            if (ec != std::errc() || ptr == lex_.pos()) lex_.emitError(lex_.pos(), "an op id number");
            lex_.resetPosition(ptr);
            lex_.expect(']', "']' after the op id");
            op.printedId = printedId;
        }
        lex_.skipTrivia();
        const size_t undefinedBefore = undefinedUses_;
        parseOperandList(op);
        // Attributes.
        lex_.skipTrivia();
        if (lex_.at('{') && looksLikeAttributeDict(lex_.pos())) {
            // Parsed into a reused buffer. Ops whose dict reads the same text share one
            // list (AttributeList is copy-on-write): attributes are most of a program's
            // memory and most dicts repeat ({stop_gradient:[false]}). Parsing is a pure
            // function of the text, so the shared list is what parsing again would give.
            // A dict already seen is looked up by its text before parsing (most are).
            // The same bytes as the previous op's dict are the same dict (its span is a function
            // of those bytes): one memcmp instead of a scan and a hash for runs of equal dicts.
            const char* dictStart = lex_.pos();
            const char* spanEnd = nullptr;
            const decltype(attributeLists_)::value_type* seen = nullptr;
            if (lastDict_ && lex_.startsWith(dictStart, lastDict_->first)) {
                seen = lastDict_;
                spanEnd = dictStart + lastDict_->first.size();
            } else if ((spanEnd = attributeDictSpanEnd(dictStart))) {
                const auto it = attributeLists_.find(std::string_view(dictStart, size_t(spanEnd - dictStart)));
                if (it != attributeLists_.end()) seen = &*it;
            }
            if (seen) {
                op.attributes = seen->second;
                lastDict_ = seen;
                lex_.resetPosition(spanEnd);
            } else {
                attributeScratch_.clear();
                parseAttributeDict(attributeScratch_);
                const std::string_view dictText(dictStart, static_cast<size_t>(lex_.pos() - dictStart));
                auto [it, fresh] = attributeLists_.try_emplace(dictText);
                // Entries equal to one of an earlier dict are shared with it (the parameters'
                // dicts differ in parameter_name only).
                if (fresh) it->second = attributeInterner_.share(attributeScratch_);
                op.attributes = it->second;
                if (spanEnd && lex_.pos() == spanEnd) lastDict_ = &*it;
            }
            lex_.skipTrivia();
        } else {
            op.syntax |= OpSyntax::kNoAttributeDict;
        }
        const char* outputsAt = parseFunctionType(op);
        const size_t resultCount = resultNames_.size() - nameBase;
        const bool haveSignature = !(op.syntax & OpSyntax::kNoSignature);
        if (haveSignature && outputTypes_.size() != resultCount) {
            const char* at = outputsAt;
            while (at < lex_.bufferEnd() && (*at == ' ' || *at == '\t')) ++at;
            lex_.emitErrorMessage(at, "expected " + std::to_string(resultCount) + " result type(s), one per result, found " +
                                          std::to_string(outputTypes_.size()));
        }
        // Values used before their (missing) definition take the type the op prints for them.
        if (undefinedUses_ != undefinedBefore && !inputTypes_.empty())
            for (size_t i = 0; i < op.operands.size(); ++i) {
                const ValueId v = op.operands[i];
                if (v != kNoId && prog.value(v).definingOp == kNoId && prog.value(v).block == Program::kGlobalBlock &&
                    prog.value(v).type == kNullType)
                    prog.setValueType(v, inputTypes_[i]);
            }
        // Operand types that disagree with the operands' own types (hand-edited fixtures)
        // are kept so the writer prints them back.
        bool typesDiffer = false;
        for (size_t i = 0; i < inputTypes_.size(); ++i) {
            const ValueId v = op.operands[i];
            const TypeId own = v == kNoId ? kNullType : prog.value(v).type;
            if (own != inputTypes_[i]) typesDiffer = true;
        }
        // The op's results (names enter scope after its regions).
        op.results.reserve(resultCount);
        bool untyped = false;  // a result without a type (no signature to give it one)
        for (size_t i = 0; i < resultCount; ++i) {
            Value v;
            if (haveSignature) {
                v.type = outputTypes_[i];
            } else if (i + 1 < op.operands.size() && op.operands[i + 1] != kNoId) {
                v.type = prog.value(op.operands[i + 1]).type;  // `pd_op.while` printed without types
            }
            v.definingOp = id;
            v.block = block;
            v.index = static_cast<uint32_t>(i);
            v.name = std::string(resultNames_[nameBase + i].name);
            if (resultNames_[nameBase + i].number != kNoId) prog.noteValueNumber(resultNames_[nameBase + i].number);
            else prog.noteValueName(v.name);
            untyped |= !haveSignature && v.type == kNullType;
            op.results.push_back(prog.addValue(std::move(v)));
        }
        // Once per op (a while printed without one takes its carried inputs' types).
        if (untyped && untypedOps_++ == 0) {
            firstUntypedAt_ = opStart;
            firstUntypedName_ = std::string(opName);
        }
        if (typesDiffer) prog.setOperandTypeOverride(id, inputTypes_);
        // Regions.
        const char* save = lex_.pos();
        lex_.clearSawNewline();
        lex_.skipTrivia();
        if (lex_.at('{')) {
            if (lex_.sawNewline()) prog.setOpSyntax(id, prog.op(id).syntax | OpSyntax::kRegionOnNewLine);
            parseRegionList(id);
            regionOps_.push_back({id, opStart});
        } else {
            lex_.resetPosition(save);
        }
        for (size_t i = 0; i < resultCount; ++i)
            define(resultNames_[nameBase + i].number, resultNames_[nameBase + i].name, prog.op(id).results[i],
                   resultNames_[nameBase + i].at);
        resultNames_.resize(nameBase);
    }

    // value-list ::= '(' (value-name (',' value-name)*)? ')'
    // Names go to resultNames_; each must be new in scope and in the list.
    void parseResultList() {
        const size_t nameBase = resultNames_.size();
        parseCommaSeparatedList(Delimiter::Paren, "'('", "the result list", [&] {
            const char* at = lex_.pos();
            const std::string_view name = lex_.lexValueName();
            // A file cut mid-name ("(%7") ends here: say so, not that "%7" is defined twice.
            const char* after = lex_.pos();
            lex_.skipTrivia();
            if (lex_.atEnd()) lex_.emitError(lex_.pos(), "',' or ')' after the result name " + std::string(name));
            lex_.resetPosition(after);
            // A name in scope, or earlier in this list (bound as pending just below), is
            // defined twice: one lookup per name keeps wide ops linear.
            const uint32_t number = numericName(name);
            if (lookup(number, name) != kNoId) define(number, name, 0, at);  // reports "defined twice"
            bind(number, name, kPendingResult);
            resultNames_.push_back({name, at, number});
        });
        // Results enter scope only after the op's regions.
        for (size_t i = nameBase; i < resultNames_.size(); ++i) unbind(resultNames_[i].number, resultNames_[i].name);
    }

    // operand-list ::= '(' (operand (',' operand)*)? ','? ')'
    // operand      ::= (bare-id '=')? (value-name | '<<NULL VALUE>>')
    void parseOperandList(Operation& op) {
        bool anyKeyword = false;
        pendingKeywords_.clear();
        parseCommaSeparatedList(Delimiter::Paren, "'(' before the operand list", "the operand list", [&] {
            std::string_view keyword;
            if (lex_.atToken(K::BareIdentifier)) {
                keyword = lex_.lexIdentifier();
                lex_.skipTrivia();
                lex_.expect('=', "'=' after an operand keyword");
                lex_.skipTrivia();
                anyKeyword = true;
            }
            const char* at = lex_.pos();
            const K kind = lex_.peekKind();
            if (kind == K::ValueName) {
                op.operands.push_back(resolve(lex_.lexValueName(), at));
            } else if (kind == K::NullValue) {
                lex_.advance(14);
                op.operands.push_back(kNoId);
            } else {
                lex_.emitError(at, "an operand (%name or <<NULL VALUE>>)");
            }
            pendingKeywords_.push_back(keyword);
        }, ListStyle{.trailingComma = true});
        if (anyKeyword)
            for (auto k : pendingKeywords_) op.operandKeywords.emplace_back(k);
        op.operands.shrink_to_fit();  // a long list's growth room (inline lists have none)
    }

    // function-type ::= ':' '(' (type (',' type)*)? ')' '->' result-types
    //                 | '->' result-types                       (no operand types printed)
    //                 | (nothing)                               (no signature at all)
    // result-types  ::= (type (',' type)*)?
    // Types go to inputTypes_ / outputTypes_. Returns where the result types start (for the
    // count error).
    // A recent signature's bytes again, before a line end, are the same types (ops in a run
    // mostly share one of a few signatures): taken from recentSignatures_ without parsing.
    const char* parseFunctionType(Operation& op) {
        const char* start = lex_.pos();
        for (size_t i = 0; i < recentSignatures_.size(); ++i) {
            const RecentSignature& r = recentSignatures_[i];
            const size_t n = r.text.size();
            if (!n || r.inputs.size() != op.operands.size() || !lex_.startsWith(start, r.text) ||
                start + n >= lex_.bufferEnd() || start[n] != '\n')
                continue;
            inputTypes_.assign(r.inputs.begin(), r.inputs.end());
            outputTypes_.assign(r.outputs.begin(), r.outputs.end());
            op.syntax |= r.syntax;
            lex_.resetPosition(start + n);
            return start + r.outputsOffset;
        }
        const char* outputsAt = parseFunctionTypeText(op);
        if (!(op.syntax & OpSyntax::kNoSignature) && !lex_.atEnd() && lex_.current() == '\n') {
            RecentSignature& r = recentSignatures_[nextSignatureSlot_++ % recentSignatures_.size()];
            r.text = std::string_view(start, static_cast<size_t>(lex_.pos() - start));
            r.outputsOffset = static_cast<size_t>(outputsAt - start);
            r.syntax = op.syntax & OpSyntax::kArrowOnlySignature;
            r.inputs.assign(inputTypes_.begin(), inputTypes_.end());
            r.outputs.assign(outputTypes_.begin(), outputTypes_.end());
        }
        return outputsAt;
    }

    const char* parseFunctionTypeText(Operation& op) {
        inputTypes_.clear();
        outputTypes_.clear();
        const char* outputsAt = lex_.pos();
        if (lex_.consumeIf(':')) {
            lex_.skipTrivia();
            const char* inputsAt = lex_.pos();
            parseCommaSeparatedList(Delimiter::Paren, "'(' before the operand types", "the operand types",
                                    [&] { inputTypes_.push_back(parseType()); });
            if (inputTypes_.size() != op.operands.size())
                lex_.emitErrorMessage(inputsAt, "expected " + std::to_string(op.operands.size()) +
                                                    " operand type(s), one per operand, found " +
                                                    std::to_string(inputTypes_.size()));
            lex_.skipTrivia();
            if (!lex_.atToken(K::Arrow)) lex_.emitError(lex_.pos(), "'->' after the operand types");
            lex_.advance(2);
            outputsAt = lex_.pos();
            parseResultTypes();
        } else if (lex_.atToken(K::Arrow)) {
            op.syntax |= OpSyntax::kArrowOnlySignature;
            lex_.advance(2);
            outputsAt = lex_.pos();
            parseResultTypes();
        } else {
            op.syntax |= OpSyntax::kNoSignature;
        }
        return outputsAt;
    }

    // result-types ::= (type (',' type)*)?          ends before the first non-type
    void parseResultTypes() {
        const char* save = lex_.pos();
        lex_.skipTrivia();
        if (!atTypeStart()) {
            lex_.resetPosition(save);
            return;
        }
        parseCommaSeparatedList(Delimiter::None, {}, {}, [&] { outputTypes_.push_back(parseType()); });
    }

    // ================= value names =================
    // Bound to the names of a result list while it is read, so a repeat in the list is found.
    static constexpr ValueId kPendingResult = kNoId - 1;

    // "%123" -> 123; kNoId for other names ("%arg_0", "%007", ten digits or more).
    static uint32_t numericName(std::string_view name) {
        if (name.size() < 2 || name.size() > 10 || (name[1] == '0' && name.size() > 2)) return kNoId;
        uint64_t n = 0;
        for (size_t i = 1; i < name.size(); ++i) {
            if (!isDigit(name[i])) return kNoId;
            n = n * 10 + static_cast<uint64_t>(name[i] - '0');
        }
        return n < kNoId ? static_cast<uint32_t>(n) : kNoId;
    }
    // Each takes the name with its numericName() (`n`), computed once by the caller.
    ValueId lookup(uint32_t n, std::string_view name) const {
        return n != kNoId ? scope_.lookup(n) : scope_.lookup(name);
    }
    void bind(uint32_t n, std::string_view name, ValueId v) {
        if (n != kNoId) scope_.bind(n, v);
        else scope_.bind(name, v);
    }
    void unbind(uint32_t n, std::string_view name) {
        if (n != kNoId) scope_.unbind(n);
        else scope_.unbind(name);
    }
    ValueId lookup(std::string_view name) const { return lookup(numericName(name), name); }
    void bind(std::string_view name, ValueId v) { bind(numericName(name), name, v); }
    void unbind(std::string_view name) { unbind(numericName(name), name); }

    void define(uint32_t n, std::string_view name, ValueId v, const char* at) {
        if (const ValueId earlier = lookup(n, name); earlier != kNoId) {
            // In a fragment a use before any definition made the name an input: the definition
            // after it is out of order, not a second one.
            if (const auto use = undefinedUseAt_.find(earlier); use != undefinedUseAt_.end())
                lex_.emitErrorMessage(at, "expected '" + std::string(name) + "' defined before its use at line " +
                                              std::to_string(lex_.lineOf(use->second)) + ", found its definition after it");
            lex_.emitErrorMessage(at, "expected a value name not defined before, found '" + std::string(name) +
                                          "' defined twice");
        }
        bind(n, name, v);
        if (nesting_ > 0) scopeLog_.push_back(name);
    }
    void define(std::string_view name, ValueId v, const char* at) { define(numericName(name), name, v, at); }

    ValueId resolve(std::string_view name, const char* at) {
        if (const ValueId v = lookup(name); v != kNoId) return v;
        if (!lenient_ && !sawElision_)
            lex_.emitErrorMessage(at, "expected a value defined before this use, found undefined value '" +
                                          std::string(name) + "'");
        // Fragments and excerpts use values defined in text that is not there: they become
        // inputs (arguments) of the global block, typed from the op's type list.
        ++undefinedUses_;
        const ValueId v = prog_->addBlockArgument(Program::kGlobalBlock, kNullType, std::string(name));
        undefinedUseAt_.emplace(v, at);
        bind(name, v);
        if (nesting_ > 0) scopeLog_.push_back(name);
        return v;
    }

    uint32_t internOpName(std::string_view name) {
        auto it = opNameCache_.find(name);
        if (it != opNameCache_.end()) return it->second;
        const uint32_t id = prog_->internOpName(name);
        opNameCache_.emplace(name, id);
        return id;
    }

    // ================= types =================
    bool atTypeStart() const {
        const K kind = lex_.peekKind();
        return kind == K::BareIdentifier || kind == K::NullType;
    }

    // Span of the type at `q`: "name<...>" (nested <>), "vec[...]" (nested []), on one line.
    // Where the attribute dict starting at '{' ends (past its '}'), found by brackets and
    // quotes alone, if it ends on this line; nullptr otherwise (then it is parsed, not looked up).
    const char* attributeDictSpanEnd(const char* q) const {
        // The bytes that matter here; every other byte is skipped with one table lookup.
        static constexpr auto kStop = [] {
            std::array<bool, 256> t{};
            for (unsigned char c : std::string_view("\"{}[]()\n")) t[c] = true;
            return t;
        }();
        const char* end = lex_.bufferEnd();
        int depth = 0;
        for (; q < end; ++q) {
            while (q < end && !kStop[static_cast<unsigned char>(*q)]) ++q;
            if (q >= end || *q == '\n') return nullptr;
            const char c = *q;
            if (c == '"') {  // a string literal: brackets inside do not count
                for (++q; q < end && *q != '"' && *q != '\n'; ++q)
                    if (*q == '\\' && q + 1 < end) ++q;
                if (q >= end || *q != '"') return nullptr;
            } else if (c == '{' || c == '[' || c == '(') {
                ++depth;
            } else {  // '}' ']' ')'
                if (--depth == 0) return c == '}' ? q + 1 : nullptr;
                if (depth < 0) return nullptr;
            }
        }
        return nullptr;
    }

    const char* typeSpanEnd(const char* q) const {
        const char* end = lex_.bufferEnd();
        if (lex_.startsWith(q, "<<NULL TYPE>>")) return q + 13;
        const char* s = q;
        while (q < end && isIdentChar(*q)) ++q;
        if (q == s || q >= end) return nullptr;
        const char open = *q;
        if (open != '<' && open != '[') return nullptr;
        const char close = open == '<' ? '>' : ']';
        int depth = 0;
        for (; q < end && *q != '\n'; ++q) {
            if (*q == open) ++depth;
            else if (*q == close && --depth == 0) return q + 1;
        }
        return nullptr;
    }

    // type ::= '<<NULL TYPE>>' | vector-type | tensor-type | opaque-type
    // The same spelling is the same TypeId: looked up by its text before parsing it.
    TypeId parseType() {
        if (!atTypeStart()) lex_.emitError(lex_.pos(), "a type");
        const char* start = lex_.pos();
        // The few types met last are compared byte for byte first (a type's span is a function
        // of its bytes): most types repeat those of the op before.
        for (size_t i = 0; i < recentTypes_.size(); ++i) {
            const auto [text, id] = recentTypes_[i];  // a copy: the rotation below moves the entry
            if (!text.empty() && lex_.startsWith(start, text)) {
                lex_.resetPosition(start + text.size());
                if (i) std::rotate(recentTypes_.begin(), recentTypes_.begin() + i, recentTypes_.begin() + i + 1);
                return id;
            }
        }
        const char* spanEnd = typeSpanEnd(start);
        if (spanEnd) {
            const std::string_view text(start, static_cast<size_t>(spanEnd - start));
            auto it = typeCache_.find(text);
            if (it != typeCache_.end()) {
                lex_.resetPosition(spanEnd);
                rememberType(text, it->second);
                return it->second;
            }
        }
        const TypeId t = parseTypeUncached();
        if (spanEnd && lex_.pos() == spanEnd) {
            const std::string_view text(start, static_cast<size_t>(spanEnd - start));
            typeCache_.emplace(text, t);
            rememberType(text, t);
        }
        return t;
    }
    void rememberType(std::string_view text, TypeId t) {
        std::rotate(recentTypes_.begin(), recentTypes_.end() - 1, recentTypes_.end());
        recentTypes_[0] = {text, t};
    }

    // type ::= '<<NULL TYPE>>' | vector-type | tensor-type | opaque-type      (not in the cache)
    TypeId parseTypeUncached() {
        if (lex_.atToken(K::NullType)) {
            lex_.advance(13);
            return kNullType;
        }
        if (lex_.startsWith("vec[")) return parseVectorType();
        return parseTensorOrOpaqueType();
    }

    // vector-type ::= 'vec' '[' (type (',' type)*)? ']'          on one line
    TypeId parseVectorType() {
        enterNesting(lex_.pos());
        lex_.advance(3);  // "vec"
        std::vector<TypeId> elements;
        parseCommaSeparatedList(Delimiter::Square, "'['", "a vec[...] type", [&] { elements.push_back(parseType()); },
                                ListStyle{.crossNewlines = false});
        leaveNesting();
        return prog_->internType(Type::vector(std::move(elements)));
    }

    // tensor-type ::= dialect-name '<' (dim 'x')* element-type '>'       dim ::= '-1' | integer
    //   dialect-name ending in tensor, selected_rows or tensor_array
    // opaque-type ::= bare-id '<' balanced-text '>'                       kept verbatim
    //              | 'cf.stack' | 'cf.inlet' | 'cf.outlet'    Paddle's control-flow types, printed bare
    TypeId parseTensorOrOpaqueType() {
        Program& prog = *prog_;
        const char* start = lex_.pos();
        const char* end = lex_.bufferEnd();
        enterNesting(start);
        const std::string_view name = lex_.lexIdentifier();
        if (name.empty()) lex_.emitError(lex_.pos(), "a type");
        if (!lex_.at('<') && (name == "cf.stack" || name == "cf.inlet" || name == "cf.outlet")) {
            Type bare;
            bare.kind = Type::Kind::Opaque;
            bare.text = std::string(name);
            leaveNesting();
            return prog.internType(bare);
        }
        if (!lex_.at('<')) lex_.emitError(lex_.pos(), "'<' after the type name '" + std::string(name) + "'");
        lex_.advance();
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
            while (!lex_.atEnd() && (isDigit(lex_.current()) || lex_.current() == '-')) {
                int64_t d = 0;
                auto [ptr, ec] = std::from_chars(lex_.pos(), end, d);
                if (ec != std::errc() || ptr == lex_.pos()) { ok = false; break; }
                if (d < -1) lex_.emitError(lex_.pos(), "a dimension (-1 for dynamic, or a size >= 0)");
                lex_.resetPosition(ptr);
                t.dims.push_back(d);
                if (!lex_.consumeIf('x')) { ok = false; break; }
            }
            const char* dtypeStart = lex_.pos();
            while (ok && !lex_.atEnd() && (isAlpha(lex_.current()) || isDigit(lex_.current()) || lex_.current() == '_'))
                lex_.advance();
            std::optional<DType> dt;
            if (ok) dt = parseDTypeShort(std::string_view(dtypeStart, static_cast<size_t>(lex_.pos() - dtypeStart)));
            if (ok && dt && lex_.at('>')) {
                lex_.advance();
                t.dtype = *dt;
                if (t.kind != Type::Kind::DenseTensor || name != defaultTensorSpelling(gen_)) t.dialect = std::string(name);
                leaveNesting();
                return prog.internType(t);
            }
            // G0 printed tensor<0x<<NULL TYPE>>>: kept verbatim; anything else is an error.
            if (lex_.startsWith(dtypeStart, "<<NULL TYPE>>>")) {
                lex_.resetPosition(dtypeStart + 14);
                t = Type{};
                t.kind = Type::Kind::Opaque;
                t.text.assign(start, lex_.pos());
                leaveNesting();
                return prog.internType(t);
            }
            if (ok && !dt) lex_.emitError(dtypeStart, "an element type such as f32");
            lex_.emitError(lex_.pos(), "'>' closing the type");
        }
        int depth = 1;
        while (!lex_.atEnd() && lex_.current() != '\n') {
            if (lex_.current() == '<') ++depth;
            else if (lex_.current() == '>' && --depth == 0) break;
            lex_.advance();
        }
        if (!lex_.at('>')) lex_.emitError(lex_.pos(), "'>' closing the type");
        lex_.advance();
        t.text.assign(start, lex_.pos());
        leaveNesting();
        return prog.internType(t);
    }

    // ================= attributes =================
    // "{key:" or "{}" on the same line is an attribute dict; "{" then a newline, "(", "^"
    // or a comment opens a region.
    bool looksLikeAttributeDict(const char* q) const {
        const char* end = lex_.bufferEnd();
        ++q;
        while (q < end && (*q == ' ' || *q == '\t')) ++q;
        if (q < end && *q == '}') return true;
        if (q >= end || !isIdentStart(*q)) return false;
        while (q < end && isIdentChar(*q)) ++q;
        while (q < end && (*q == ' ' || *q == '\t')) ++q;
        return q < end && *q == ':';
    }

    // attr-dict  ::= '{' (attr-entry (',' attr-entry)*)? '}'
    // attr-entry ::= bare-id ':' attribute
    void parseAttributeDict(std::vector<NamedAttribute>& out) {
        parseCommaSeparatedList(Delimiter::Brace, "'{'", "the attribute list", [&] {
            const std::string_view key = lex_.lexIdentifier();
            if (key.empty()) lex_.emitError(lex_.pos(), "an attribute name");
            lex_.skipTrivia();
            lex_.expect(':', "':' after the attribute name");
            lex_.skipTrivia();
            out.emplace_back();
            out.back().name = std::string(key);
            parseAttribute(out.back().value, key, false);
        });
    }

    // number ::= [+-]? digits ('.' digits)? ([eE] [+-]? digits)? | inf | nan      per `kind`
    void parseNumber(Attribute& a, Attribute::Kind kind) {
        const char* at = lex_.pos();
        const std::string_view tok = lex_.lexScalar();
        if (tok.empty()) lex_.emitError(at, "a number");
        a.kind = kind;
        if (kind == Attribute::Kind::Float || kind == Attribute::Kind::Double) {
            double v = 0;
            const char* first = tok.data();
            if (*first == '+') ++first;
            auto [ptr, ec] = std::from_chars(first, tok.data() + tok.size(), v);
            if (ec != std::errc() || ptr != tok.data() + tok.size()) lex_.emitError(at, "a number");
            a.floatValue = v;
            a.spelling = tok;
        } else {
            int64_t v = 0;
            auto [ptr, ec] = std::from_chars(tok.data(), tok.data() + tok.size(), v);
            if (ec != std::errc() || ptr != tok.data() + tok.size()) lex_.emitError(at, "an integer");
            a.intValue = v;
            if (tok.size() > 20 || std::to_string(v) != tok) a.spelling = tok;
        }
    }

    // int-list ::= '[' (integer (',' integer)*)? ']'          IntArray elements
    void parseIntList(Attribute& a) {
        parseCommaSeparatedList(Delimiter::Square, "'['", "the integer list", [&] {
            Attribute e;
            parseNumber(e, Attribute::Kind::Int64);
            a.elements.push_back(std::move(e));
        });
    }

    // array-attr ::= '[' (attribute (',' attribute)*)? ']'
    void parseArrayAttribute(Attribute& a, std::string_view key) {
        a.kind = Attribute::Kind::Array;
        enterNesting(lex_.pos());
        parseCommaSeparatedList(Delimiter::Square, "'['", "the array", [&] {
            a.elements.emplace_back();
            parseAttribute(a.elements.back(), key, true);
        });
        if (a.elements.capacity() != a.elements.size()) a.elements.shrink_to_fit();
        leaveNesting();
    }

    // attribute ::= attribute-value
    // Typed printers (G1/G2) that print a value without its usual prefix, or with an
    // unusual one such as (Bool): the spelling is kept so the writer reproduces it.
    void parseAttribute(Attribute& a, std::string_view key, bool inArray) {
        const char* start = lex_.pos();
        parseAttributeValue(a, key, inArray);
        using AK = Attribute::Kind;
        if ((gen_ == Generation::G1 || gen_ == Generation::G2) && a.spelling.empty() &&
            (a.typed ? a.kind == AK::Bool
                     : (a.kind == AK::Int32 || a.kind == AK::Int64 || a.kind == AK::Index || a.kind == AK::Float ||
                        a.kind == AK::Double || a.kind == AK::DataType || a.kind == AK::Place ||
                        a.kind == AK::DataLayout)))
            a.spelling = std::string_view(start, static_cast<size_t>(lex_.pos() - start));
    }

    // attribute-value ::= string-literal
    //                   | '[' ... ']'                        int-list (G3 IntArray names) or array-attr
    //                   | '(' type-name ')' typed-value      typed-attribute (G1/G2)
    //                   | '<' balanced '>' | '{' balanced '}' kept verbatim (kernel_key, nested dicts)
    //                   | number
    //                   | 'Place(' balanced ')'
    //                   | 'array' array-attr | 'IntArray' int-list      (G0)
    //                   | bare-id ('(' balanced ')')?        bool, data type, layout, G0 string, opaque
    void parseAttributeValue(Attribute& a, std::string_view key, bool inArray) {
        const char* at = lex_.pos();
        switch (lex_.peekKind()) {
        case K::Eof: lex_.emitError(at, "an attribute value");
        case K::StringLiteral: {
            lex_.advance();
            const std::string_view body = lex_.lexQuotedBody(/*escapes=*/true);
            if (!lex_.at('"')) lex_.emitError(lex_.pos(), "'\"' closing the string");
            a.kind = Attribute::Kind::String;
            a.text.assign(body.data(), body.size());
            lex_.advance();
            return;
        }
        case K::LSquare:
            // Untyped printers (G3) write IntArray attributes as plain lists.
            if (!inArray && gen_ == Generation::G3 && isIntArrayAttributeName(key)) {
                const char* save = lex_.pos();
                Attribute ints;
                ints.kind = Attribute::Kind::IntArray;
                try {
                    parseIntList(ints);
                    a = std::move(ints);
                    return;
                } catch (const Error&) {
                    lex_.resetPosition(save);  // not a list of integers after all
                }
            }
            parseArrayAttribute(a, key);
            return;
        case K::LParen: return parseTypedAttribute(a);
        case K::Less:
        case K::NullValue:
        case K::NullType:
        case K::LBrace: {  // kernel_key:<...>; {...} = attributes kept verbatim
            const char c = lex_.current();
            lex_.skipBalanced(c, c == '<' ? '>' : '}');
            a.kind = Attribute::Kind::Opaque;
            a.text.assign(at, lex_.pos());
            return;
        }
        case K::Number:
        case K::Arrow:  // "->" would be "-" then ">": not a number; parseNumber reports it
            return parseUntypedNumber(a, key, inArray);
        case K::Elision: return parseUntypedNumber(a, key, inArray);
        case K::BareIdentifier:
            if (lex_.startsWith("inf") || lex_.startsWith("nan")) return parseUntypedNumber(a, key, inArray);
            return parseKeywordAttribute(a, key);
        default: break;
        }
        lex_.emitError(at, "an attribute value");
    }

    // untyped-number ::= number            (G0/G3, and G1/G2 values printed without a prefix)
    // Floating point if it looks so or the attribute's name says so.
    void parseUntypedNumber(Attribute& a, std::string_view key, bool inArray) {
        const char* q = lex_.pos();
        const char* end = lex_.bufferEnd();
        bool floating = false;
        while (q < end && (isAlpha(*q) || isDigit(*q) || *q == '.' || *q == '+' || *q == '-')) {
            if (*q == '.' || *q == 'e' || *q == 'E' || *q == 'i' || *q == 'n') floating = true;
            ++q;
        }
        if (floating || (!inArray && isFloatAttributeName(key)))
            return parseNumber(a, key == "value" && gen_ == Generation::G3 ? Attribute::Kind::Double
                                                                            : Attribute::Kind::Float);
        return parseNumber(a, inArray ? Attribute::Kind::Int64 : Attribute::Kind::Int32);
    }

    // keyword-attribute ::= 'Place(' balanced ')' | 'array' array-attr | 'IntArray' int-list
    //                     | bare-id ('(' balanced ')')?
    void parseKeywordAttribute(Attribute& a, std::string_view key) {
        if (lex_.startsWith("Place(")) {
            const char* at = lex_.pos();
            lex_.advance(5);
            lex_.skipBalanced('(', ')');
            a.kind = Attribute::Kind::Place;
            a.text.assign(at, lex_.pos());
            return;
        }
        if (lex_.startsWith("array[")) {  // G0
            lex_.advance(5);
            parseArrayAttribute(a, key);
            return;
        }
        if (lex_.startsWith("IntArray[")) {  // G0
            lex_.advance(8);
            a.kind = Attribute::Kind::IntArray;
            parseIntList(a);
            return;
        }
        const char* at = lex_.pos();
        const std::string_view w = lex_.lexIdentifier();
        if (w == "true" || w == "false") {
            a.kind = Attribute::Kind::Bool;
            a.boolValue = w == "true";
            return;
        }
        if (lex_.at('(')) lex_.skipBalanced('(', ')');  // Undefined(AnyLayout)
        const std::string_view word(at, static_cast<size_t>(lex_.pos() - at));
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
    }

    // typed-attribute ::= '(' type-name ')' typed-value
    //   (Float|Double|Int32|Int64|Index) number | (Bool) bool | (pd_op.DataType) bare-id
    //   | (pd_op.Place) 'Place(' balanced ')' | (pd_op.IntArray) int-list
    //   | (pd_op.DataLayout) bare-id ('(' balanced ')')? | (0x...) pointer | (Other) verbatim
    void parseTypedAttribute(Attribute& a) {
        const char* s = lex_.pos() + 1;
        const char* q = s;
        const char* end = lex_.bufferEnd();
        while (q < end && *q != ')' && *q != '\n') ++q;
        if (q >= end || *q != ')') lex_.emitError(q, "')' closing the attribute type");
        const std::string_view prefix(s, static_cast<size_t>(q - s));
        a.typed = true;
        lex_.resetPosition(q + 1);
        if (prefix.substr(0, 2) == "0x") {
            a.kind = Attribute::Kind::Pointer;
            a.text = std::string(prefix);
            return;
        }
        if (prefix == "Float") return parseNumber(a, Attribute::Kind::Float);
        if (prefix == "Double") return parseNumber(a, Attribute::Kind::Double);
        if (prefix == "Int32") return parseNumber(a, Attribute::Kind::Int32);
        if (prefix == "Int64") return parseNumber(a, Attribute::Kind::Int64);
        if (prefix == "Index") return parseNumber(a, Attribute::Kind::Index);
        if (prefix == "Bool") {
            const char* at = lex_.pos();
            const std::string_view w = lex_.lexIdentifier();
            if (w != "true" && w != "false") lex_.emitError(at, "true or false");
            a.kind = Attribute::Kind::Bool;
            a.boolValue = w == "true";
            return;
        }
        if (prefix == "pd_op.DataType") {
            const char* at = lex_.pos();
            const std::string_view w = lex_.lexIdentifier();
            if (w.empty()) lex_.emitError(at, "a data type name");
            a.kind = Attribute::Kind::DataType;
            a.text = std::string(w);
            return;
        }
        if (prefix == "pd_op.Place") {
            const char* at = lex_.pos();
            if (!lex_.startsWith("Place(")) lex_.emitError(at, "Place(...)");
            lex_.advance(5);
            lex_.skipBalanced('(', ')');
            a.kind = Attribute::Kind::Place;
            a.text.assign(at, lex_.pos());
            return;
        }
        if (prefix == "pd_op.IntArray") {
            a.kind = Attribute::Kind::IntArray;
            parseIntList(a);
            return;
        }
        if (prefix == "pd_op.DataLayout") {
            const char* at = lex_.pos();
            lex_.lexIdentifier();
            if (lex_.at('(')) lex_.skipBalanced('(', ')');
            if (lex_.pos() == at) lex_.emitError(at, "a data layout");
            a.kind = Attribute::Kind::DataLayout;
            a.text.assign(at, lex_.pos());
            return;
        }
        // Unknown "(Type)value": kept verbatim up to the next ',', '}' or ']' at depth 0;
        // brackets and strings inside must balance on the line.
        const char* at = s - 1;
        int depth = 0;
        while (!lex_.atEnd() && lex_.current() != '\n') {
            const char d = lex_.current();
            if (d == '"') {
                lex_.advance();
                lex_.lexQuotedBody(/*escapes=*/true);
                if (!lex_.at('"')) lex_.emitError(lex_.pos(), "'\"' closing the string");
            } else if (d == '[' || d == '(' || d == '<' || d == '{') {
                ++depth;
            } else if (d == ']' || d == ')' || d == '>' || d == '}') {
                if (depth == 0) break;
                --depth;
            } else if (d == ',' && depth == 0) {
                break;
            }
            lex_.advance();
        }
        if (depth != 0) lex_.emitError(lex_.pos(), "balanced brackets in the attribute value");
        a.kind = Attribute::Kind::Opaque;
        a.text.assign(at, lex_.pos());
    }

    PirLexer lex_;
    Generation gen_;
    Program* prog_ = nullptr;
    int nesting_ = 0;
    bool sawElision_ = false;
    bool lenient_ = false;
    size_t undefinedUses_ = 0;
    size_t untypedOps_ = 0;  // ops without a signature and with a result of no type
    const char* firstUntypedAt_ = nullptr;
    std::vector<std::pair<OpId, const char*>> regionOps_;  // ops with regions, where each starts
    std::unordered_map<ValueId, const char*> undefinedUseAt_;  // inputs made by a use: where it was
    std::string firstUntypedName_;
    ValueScope scope_;
    std::vector<std::string_view> scopeLog_;
    struct ResultName {
        std::string_view name;
        const char* at;    // where it is written (messages)
        uint32_t number;   // numericName(name), parsed once
    };
    std::vector<ResultName> resultNames_;
    std::vector<std::string_view> pendingKeywords_;
    std::vector<TypeId> inputTypes_, outputTypes_;
    // Signatures parsed lately (see parseFunctionType), replaced in turn: the text in the
    // source, where its result types begin, its syntax bit and its types.
    struct RecentSignature {
        std::string_view text;
        size_t outputsOffset = 0;
        uint8_t syntax = 0;
        boost::container::small_vector<TypeId, 4> inputs, outputs;
    };
    std::array<RecentSignature, 4> recentSignatures_{};
    size_t nextSignatureSlot_ = 0;
    std::vector<NamedAttribute> attributeScratch_;
    std::unordered_map<std::string_view, AttributeList> attributeLists_;  // by the dict's text
    AttributeInterner attributeInterner_;
    // The previous op's dict: a pointer, which (unlike an iterator) survives a rehash.
    const decltype(attributeLists_)::value_type* lastDict_ = nullptr;
    std::array<std::pair<std::string_view, TypeId>, 4> recentTypes_{};     // most recent first
    std::unordered_map<std::string_view, TypeId> typeCache_;
    std::unordered_map<std::string_view, uint32_t> opNameCache_;
};

}  // namespace

void parsePrograms(std::string_view text, const std::string& file,
                   const std::function<void(int, ParsedProgram&&)>& onProgram) {
    PirParser(text, file).parseFile(onProgram);
}

}  // namespace rx::pir
