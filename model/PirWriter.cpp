// PIR text writer: programs, blocks, operations, types and attributes, each printed by the
// inverse of the PirParser function of the same name (parseOperation / printOperation ...).
#include "model/PirWriter.h"

#include "model/FileIO.h"

#include <charconv>
#include <cstdio>
#include <unordered_map>

#include "model/Diagnostic.h"
#include "model/PirLexer.h"
#include "model/PirReader.h"
#include "model/TextBuffer.h"

namespace rx {
namespace {

bool isTypedGeneration(Generation g) { return g == Generation::G1 || g == Generation::G2; }

bool isPlainWord(const std::string& s) {
    if (s.empty()) return false;
    for (char c : s)
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.'))
            return false;
    return !(s[0] >= '0' && s[0] <= '9') && s != "true" && s != "false";
}

// What PirParser reads as an attribute name, data type or layout word: [A-Za-z_][A-Za-z0-9_.]*.
bool isBareId(std::string_view s) {
    if (s.empty() || !pir::isIdentStart(s[0])) return false;
    for (char c : s)
        if (!pir::isIdentChar(c)) return false;
    return true;
}

// `s` for a message: printable ASCII as is, other bytes as \xNN, in quotes.
std::string quotedForMessage(std::string_view s) {
    static const char kHex[] = "0123456789ABCDEF";
    std::string out = "'";
    for (char c : s) {
        const auto u = static_cast<unsigned char>(c);
        if (u >= 0x20 && u < 0x7F) out += c;
        else out += std::string("\\x") + kHex[u >> 4] + kHex[u & 15];
    }
    return out + "'";
}

// Why printAttribute's text for `a` would not read back (its kinds carry their text verbatim
// where the grammar takes a bare word or a balanced span), or empty when it reads back.
// Text read from PIR always passes; text from PIR JSON may not (a data type "floa/t32").
std::string unprintableReason(const Attribute& a) {
    using K = Attribute::Kind;
    const std::string_view t = a.text;
    const bool oneLine = t.find('\n') == std::string_view::npos;
    switch (a.kind) {
    case K::DataType:
        if (!isBareId(t)) return "data type " + quotedForMessage(t) + " is not a bare word ([A-Za-z_][A-Za-z0-9_.]*)";
        break;
    case K::DataLayout: {
        size_t word = 0;
        while (word < t.size() && pir::isIdentChar(t[word])) ++word;
        const std::string_view rest = t.substr(word);
        if (!isBareId(t.substr(0, word)) || !oneLine || t.find('"') != std::string_view::npos ||
            (!rest.empty() && (rest.front() != '(' || rest.back() != ')')))
            return "data layout " + quotedForMessage(t) + " is not a bare word (with an optional (...))";
        break;
    }
    case K::Place:
        if (!t.starts_with("Place(") || !t.ends_with(")") || !oneLine || t.find('"') != std::string_view::npos)
            return "place " + quotedForMessage(t) + " is not Place(...) on one line";
        break;
    case K::Pointer:
        if (!t.starts_with("0x") || !oneLine || t.find(')') != std::string_view::npos)
            return "pointer " + quotedForMessage(t) + " is not 0x... (without ')' or a line break)";
        break;
    case K::Opaque:
        if (t.empty() || !oneLine) return "opaque value " + quotedForMessage(t) + " is empty or spans lines";
        break;
    case K::Array:
        for (const Attribute& e : a.elements)
            if (std::string why = unprintableReason(e); !why.empty()) return why;
        break;
    default: break;
    }
    return {};
}

// Paddle prints floats through std::ostream (6 significant digits): 3, 1e-05, 0.9.
void appendFloat(std::string& out, double v) {
    char buf[64];
    const int n = std::snprintf(buf, sizeof buf, "%g", v);
    out.append(buf, static_cast<size_t>(n));
}

// attribute (inverse of PirParser's parseAttribute).
// `sameGeneration`: printing in the generation the attribute was read in, so an attribute
// that carries its spelling keeps its own prefix choice (`typed`); otherwise G1/G2 print
// every prefix Paddle prints.
void printAttribute(std::string& out, const Attribute& a, Generation g, bool sameGeneration) {
    const bool typed = isTypedGeneration(g) && (sameGeneration && !a.spelling.empty() ? a.typed : true);
    using K = Attribute::Kind;
    const auto number = [&](const char* prefix) {
        if (typed) out += prefix;
        if (!a.spelling.empty()) out += a.spelling.str();
        else if (a.kind == K::Float || a.kind == K::Double) appendFloat(out, a.floatValue);
        else out += std::to_string(a.intValue);
    };
    switch (a.kind) {
    case K::Bool:
        if (isTypedGeneration(g) && sameGeneration && a.typed) out += "(Bool)";
        out += a.boolValue ? "true" : "false";
        break;
    case K::Int32: number("(Int32)"); break;
    case K::Int64: number("(Int64)"); break;
    case K::Index: number("(Index)"); break;
    case K::Float: number("(Float)"); break;
    case K::Double: number("(Double)"); break;
    case K::String:
        if (g == Generation::G0 && isPlainWord(a.text)) {
            out += a.text;
        } else {
            out += '"';
            // Text read from PIR keeps its escapes; quotes and newlines from elsewhere
            // (JSON, passes) are escaped so the output reads back.
            for (size_t i = 0; i < a.text.size(); ++i) {
                const char ch = a.text[i];
                if (ch == '\\' && i + 1 < a.text.size() && a.text[i + 1] != '\n') {
                    out += ch;
                    out += a.text[++i];
                } else if (ch == '"' || ch == '\\') {
                    out += '\\';
                    out += ch;
                } else if (ch == '\n') {
                    out += "\\n";
                } else {
                    out += ch;
                }
            }
            out += '"';
        }
        break;
    case K::Array:
        out += g == Generation::G0 ? "array[" : "[";
        for (size_t i = 0; i < a.elements.size(); ++i) {
            if (i) out += ',';
            printAttribute(out, a.elements[i], g, sameGeneration);
        }
        out += ']';
        break;
    case K::IntArray:
        out += typed ? "(pd_op.IntArray)[" : g == Generation::G0 ? "IntArray[" : "[";
        for (size_t i = 0; i < a.elements.size(); ++i) {
            if (i) out += ',';
            const Attribute& e = a.elements[i];
            if (!e.spelling.empty()) out += e.spelling.str();
            else out += std::to_string(e.intValue);
        }
        out += ']';
        break;
    case K::DataType:
        if (typed) out += "(pd_op.DataType)";
        out += a.text;
        break;
    case K::Place:
        if (typed) out += "(pd_op.Place)";
        out += a.text;
        break;
    case K::DataLayout:
        if (typed) out += "(pd_op.DataLayout)";
        out += a.text;
        break;
    case K::Pointer:
        out += '(';
        out += a.text;
        out += ')';
        break;
    case K::Opaque: out += a.text; break;
    }
}

class Writer {
public:
    Writer(const Program& p, const WriteOptions& o)
        : prog_(p), gen_(o.generation.value_or(p.generation())), sameGeneration_(gen_ == p.generation()),
          renumber_(o.renumber) {
        typeText_.resize(p.types().size());
        typeDone_.assign(p.types().size(), false);
        if (renumber_) computeNames();
    }

    // program ::= '{' block-body '}' | block-body
    // The text leaves through the sink in chunks (drained after whole ops).
    void printProgram(const TextSink& sink) {
        sink_ = &sink;
        out_.reserve(kPrintChunkBytes + 64 * 1024);
        // Fragments (and programs that use values nobody defines) print without the outer
        // braces, so that reading them back is as lenient as it was the first time.
        const bool fragment = prog_.isFragment() || !prog_.globalBlock().args.empty();
        if (!fragment) out_ += "{\n";
        printBlock(Program::kGlobalBlock, fragment ? 0 : 1);
        if (!fragment) out_ += "}\n";
        drain();
    }

    // type, spelled once per TypeId.
    const std::string& printType(TypeId t) {
        if (t >= typeText_.size()) {
            static const std::string kNull = "<<NULL TYPE>>";
            return kNull;
        }
        if (!typeDone_[t]) {
            typeText_[t] = printTypeUncached(t);
            typeDone_[t] = true;
        }
        return typeText_[t];
    }

private:
    // type ::= '<<NULL TYPE>>' | vector-type | tensor-type | opaque-type
    std::string printTypeUncached(TypeId id) {
        const Type& t = prog_.types()[id];
        std::string s;
        switch (t.kind) {
        case Type::Kind::Null: return "<<NULL TYPE>>";
        case Type::Kind::Opaque: return t.text;
        case Type::Kind::Vector:
            s = "vec[";
            for (size_t i = 0; i < t.elements.size(); ++i) {
                if (i) s += ',';
                s += printType(t.elements[i]);
            }
            return s + "]";
        case Type::Kind::DenseTensor:
        case Type::Kind::SelectedRows:
        case Type::Kind::TensorArray:
            if (!t.dialect.empty()) s = t.dialect;
            else if (t.kind == Type::Kind::DenseTensor) s = std::string(defaultTensorSpelling(gen_));
            else if (t.kind == Type::Kind::SelectedRows) s = gen_ == Generation::G1 ? "pd_op.selected_rows" : "builtin.selected_rows";
            else s = gen_ == Generation::G1 ? "pd_op.tensor_array" : "builtin.tensor_array";
            s += '<';
            for (int64_t d : t.dims) {
                s += std::to_string(d);
                s += 'x';
            }
            s += dtypeShortName(t.dtype);
            s += '>';
            return s;
        }
        return s;
    }

    // Renumbered names are kept as numbers (4 bytes a value, not a string each) and spelled
    // as they are printed: %N, or %arg_N for block arguments.
    static constexpr uint32_t kArgName = 0x80000000u, kUnnamed = 0xffffffffu;
    void appendName(ValueId v) {
        if (!renumber_) {
            out_ += prog_.value(v).name;
            return;
        }
        const uint32_t n = numbers_[v];
        if (n == kUnnamed) return;
        out_ += (n & kArgName) ? std::string_view("%arg_") : std::string_view("%");
        out_.appendDecimal(n & ~kArgName);
    }

    void computeNames() {
        numbers_.assign(prog_.values().size(), kUnnamed);
        size_t next = 0, nextArg = 0;
        // Pre-order, results before the op's regions: the order the printer meets names.
        std::vector<std::pair<BlockId, size_t>> stack{{Program::kGlobalBlock, 0}};
        std::vector<bool> argsNamed(prog_.blocks().size(), false);
        while (!stack.empty()) {
            auto& [b, i] = stack.back();
            if (!argsNamed[b] && b != Program::kGlobalBlock) {
                argsNamed[b] = true;
                for (ValueId a : prog_.block(b).args) numbers_[a] = kArgName | uint32_t(nextArg++);
                for (ValueId a : prog_.block(b).kwargs) numbers_[a] = kArgName | uint32_t(nextArg++);
            }
            if (i >= prog_.block(b).ops.size()) {
                stack.pop_back();
                continue;
            }
            const Operation& op = prog_.op(prog_.block(b).ops[i++]);
            for (ValueId r : op.results) numbers_[r] = uint32_t(next++);
            for (auto r = op.regions.rbegin(); r != op.regions.rend(); ++r)
                for (auto blk = r->rbegin(); blk != r->rend(); ++blk) stack.push_back({*blk, 0});
        }
        // Values a fragment uses without defining: numbered after everything else so they
        // cannot collide with the renumbered results.
        for (ValueId a : prog_.block(Program::kGlobalBlock).args) numbers_[a] = uint32_t(next++);
    }

    void indent(int depth) { out_.appendSpaces(static_cast<size_t>(depth) * (gen_ == Generation::G1 ? 1 : 4)); }

    // block-body ::= block-arguments? operation*
    void printBlock(BlockId b, int depth) {
        const Block& blk = prog_.block(b);
        if (b != Program::kGlobalBlock && (blk.argsPrinted || !blk.args.empty() || !blk.kwargs.empty()))
            printBlockArguments(blk, depth);
        for (OpId op : blk.ops) printOperation(op, depth);
    }

    // block-arguments ::= '^' block-argument (',' block-argument)*
    // block-argument  ::= (bare-id '=')? value-name (':' type)?
    void printBlockArguments(const Block& blk, int depth) {
        indent(depth);
        out_ += '^';
        bool first = true;
        const auto arg = [&](ValueId a) {
            if (!first) out_ += ", ";
            first = false;
            if (!prog_.value(a).keyword.empty()) {
                out_ += prog_.value(a).keyword.str();
                out_ += '=';
            }
            appendName(a);
            if (blk.argTypesPrinted || !blk.argsPrinted) {
                out_ += ": ";
                out_ += printType(prog_.value(a).type);
            }
        };
        for (ValueId a : blk.args) arg(a);
        for (ValueId a : blk.kwargs) arg(a);
        out_ += '\n';
    }

    // operation ::= value-list '=' op-name op-id? operand-list attr-dict? function-type? region-list?
    void printOperation(OpId id, int depth) {
        const Operation& op = prog_.op(id);
        indent(depth);
        printResultList(op);
        out_ += " = ";
        const std::string_view opName = prog_.opName(id);
        if (op.syntax & OpSyntax::kBareName) {
            out_ += opName;
        } else {
            // The reader takes a quoted name up to the next '"' on the line (JSON names can hold either).
            if (opName.empty() || opName.find_first_of("\"\n") != std::string_view::npos)
                throw Error("cannot write op " + std::to_string(id) + " as PIR text: its name " +
                            quotedForMessage(opName) + " is empty or holds '\"' or a line break");
            out_ += '"';
            out_ += opName;
            out_ += '"';
        }
        if (op.printedId != kNoId) {
            out_ += " [id:";
            out_.appendDecimal(op.printedId);
            out_ += ']';
        }
        if (!(op.syntax & OpSyntax::kNoSpaceBeforeOperands) || op.printedId != kNoId) out_ += ' ';
        printOperandList(op);
        if (!((op.syntax & OpSyntax::kNoAttributeDict) && op.attributes.empty())) printAttributeDict(id, op);
        if (!(op.syntax & OpSyntax::kNoSignature)) printFunctionType(id, op);
        printRegionList(op, depth);
        out_ += '\n';
        if (out_.size() >= kPrintChunkBytes) drain();
    }

    void drain() {
        if (!out_.empty()) (*sink_)(out_.view());
        out_.clear();  // keeps the capacity: the next chunk reuses it
    }

    // value-list ::= '(' (value-name (',' value-name)*)? ')'
    void printResultList(const Operation& op) {
        out_ += '(';
        for (size_t i = 0; i < op.results.size(); ++i) {
            if (i) out_ += ", ";
            appendName(op.results[i]);
        }
        out_ += ')';
    }

    // operand-list ::= '(' (operand (',' operand)*)? ')'
    // operand      ::= (bare-id '=')? (value-name | '<<NULL VALUE>>')
    void printOperandList(const Operation& op) {
        out_ += '(';
        for (size_t i = 0; i < op.operands.size(); ++i) {
            if (i) out_ += ", ";
            if (i < op.operandKeywords.size() && !op.operandKeywords[i].empty()) {
                out_ += op.operandKeywords[i];
                out_ += '=';
            }
            if (op.operands[i] == kNoId) out_ += "<<NULL VALUE>>";
            else appendName(op.operands[i]);
        }
        out_ += ')';
    }

    // attr-dict ::= '{' (bare-id ':' attribute (',' bare-id ':' attribute)*)? '}'
    // Spelled once per distinct list: ops that share a list (the reader shares equal dicts, the
    // rewriter its marked lists) print the same text.
    void printAttributeDict(OpId id, const Operation& op) {
        const void* identity = op.attributes.identity();
        if (identity) {
            if (identity != lastDict_) {  // neighbours mostly share a list: one lookup per change
                auto [it, fresh] = dictText_.try_emplace(identity);
                if (fresh) it->second = attributeDictText(op.attributes, id);
                lastDict_ = identity;
                lastDictText_ = &it->second;
            }
            out_ += *lastDictText_;
        } else {
            out_ += " {}";
        }
    }
    // Throws rx::Error naming the op and the attribute when the text would not read back
    // (names and words from PIR JSON can hold any string): no output rather than a wrong one.
    std::string attributeDictText(const AttributeList& attributes, OpId op) const {
        std::string text = " {";
        for (size_t i = 0; i < attributes.size(); ++i) {
            const std::string_view name = attributes[i].name;
            std::string why;
            if (!isBareId(name)) why = "the name is not a bare word ([A-Za-z_][A-Za-z0-9_.]*)";
            else why = unprintableReason(attributes[i].value);
            if (!why.empty())
                throw Error("cannot write attribute " + quotedForMessage(name) + " of op " +
                            std::to_string(op) + " (" + quotedForMessage(prog_.opName(op)) +
                            ") as PIR text: " + why);
            if (i) text += ',';
            text += attributes[i].name;
            text += ':';
            printAttribute(text, attributes[i].value, gen_, sameGeneration_);
        }
        text += '}';
        return text;
    }

    // function-type ::= ':' '(' (type (',' type)*)? ')' '->' result-types | '->' result-types
    void printFunctionType(OpId id, const Operation& op) {
        if (!(op.syntax & OpSyntax::kArrowOnlySignature)) {
            out_ += " : (";
            const auto overrideIt = prog_.operandTypeOverrides().empty() ? prog_.operandTypeOverrides().end()
                                                                       : prog_.operandTypeOverrides().find(id);
            const bool useOverride =
                overrideIt != prog_.operandTypeOverrides().end() && overrideIt->second.size() == op.operands.size();
            for (size_t i = 0; i < op.operands.size(); ++i) {
                if (i) out_ += ", ";
                const TypeId t = useOverride ? overrideIt->second[i]
                                 : op.operands[i] == kNoId ? kNullType
                                                           : prog_.value(op.operands[i]).type;
                out_ += printType(t);
            }
            out_ += ")";
        }
        out_ += " ->";
        for (size_t i = 0; i < op.results.size(); ++i) {
            out_ += i ? ", " : " ";
            out_ += printType(prog_.value(op.results[i]).type);
        }
    }

    // region-list ::= region ('else' region)*          the first on the op's line or the next
    void printRegionList(const Operation& op, int depth) {
        for (size_t r = 0; r < op.regions.size(); ++r) {
            if (r == 0) {
                if (op.syntax & OpSyntax::kRegionOnNewLine) {
                    out_ += '\n';
                    indent(depth);
                    out_ += '{';
                } else {
                    out_ += " {";
                }
            } else {
                out_ += " else {";
            }
            printRegion(op.regions[r], depth);
        }
    }

    // region ::= '{' block-body '}'          (the '{' printed by the caller)
    void printRegion(const std::vector<BlockId>& region, int depth) {
        out_ += '\n';
        for (BlockId b : region) printBlock(b, depth + 1);
        indent(depth);
        out_ += '}';
    }

    const Program& prog_;
    Generation gen_;
    bool sameGeneration_ = true;
    bool renumber_;
    const TextSink* sink_ = nullptr;
    TextBuffer out_;
    std::vector<std::string> typeText_;
    std::vector<bool> typeDone_;
    std::unordered_map<const void*, std::string> dictText_;  // by AttributeList::identity()
    const void* lastDict_ = nullptr;                          // the last printed list and its text
    const std::string* lastDictText_ = nullptr;
    std::vector<uint32_t> numbers_;  // renumbered names, see appendName()
};

}  // namespace

std::string printProgram(const Program& program, const WriteOptions& options) {
    // Printed in chunks into the one string: no second copy of the whole text.
    std::string text;
    text.reserve(program.ops().size() * 256 + 16);
    Writer(program, options).printProgram([&text](std::string_view chunk) { text.append(chunk); });
    return text;
}

void printProgram(const Program& program, const TextSink& sink, const WriteOptions& options) {
    Writer(program, options).printProgram(sink);
}

void writeProgramFile(const Program& program, const std::string& path, const WriteOptions& options) {
    AtomicFile file(path);  // model/FileIO: all or nothing; the temporary goes on any throw
    printProgram(program, [&file](std::string_view chunk) { file.write(chunk); }, options);
    file.commit();
}

std::string printType(const Program& program, TypeId type, Generation g) {
    WriteOptions o;
    o.generation = g;
    Writer w(program, o);
    return w.printType(type);
}

std::string printAttribute(const Attribute& a, Generation g) {
    std::string out;
    printAttribute(out, a, g, false);
    return out;
}

}  // namespace rx
