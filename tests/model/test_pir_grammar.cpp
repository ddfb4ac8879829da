// The PIR lexer's tokens and positions, and each list of the grammar (all read by the one
// comma-separated-list helper): its elements, empty form, and "expected ',' or X in <list>"
// at the exact position.
#include <QtTest>

#include "model/PirLexer.h"
#include "model/PirReader.h"

using namespace rx;
using rx::pir::PirLexer;
using rx::pir::Token;
using K = Token::Kind;

namespace {
const std::string kT = "builtin.tensor<4xf32>";

std::string dataOp(const std::string& v) {
    return "    (" + v + ") = \"pd_op.data\" () {name:\"x\"} : () -> " + kT + "\n";
}

// Parses `text`, which must fail at the first occurrence of `needle` (plus `shift` bytes)
// with a message containing `message`.
void expectErrorAt(const std::string& text, const std::string& needle, size_t shift, const std::string& message) {
    size_t at = text.find(needle);
    QVERIFY2(at != std::string::npos, needle.c_str());
    at += shift;
    int line = 1, col = 1;
    for (size_t i = 0; i < at; ++i) {
        if (text[i] == '\n') { ++line; col = 1; }
        else ++col;
    }
    try {
        parsePir(text, "g.pir");
        QFAIL(("parsed without error: " + text).c_str());
    } catch (const Error& e) {
        const std::string what = e.what();
        QVERIFY2(e.where().line == line && e.where().column == col,
                 (what + "  [wanted " + std::to_string(line) + ":" + std::to_string(col) + "]").c_str());
        QVERIFY2(what.find(message) != std::string::npos, (what + "  [wanted: " + message + "]").c_str());
    }
}

std::vector<std::pair<K, std::string>> lexAll(std::string_view text) {
    const std::string file = "t.pir";
    PirLexer lex(text, file);
    std::vector<std::pair<K, std::string>> out;
    for (;;) {
        lex.skipTrivia();
        const Token t = lex.lexToken();
        if (t.is(K::Eof)) break;
        out.emplace_back(t.kind, std::string(t.spelling));
    }
    return out;
}
}  // namespace

class PirGrammarTest : public QObject {
    Q_OBJECT
private slots:
    void lexerTokens() {
        const auto tokens = lexAll("(%0, %arg_1) = \"pd_op.add\" (x=%0, <<NULL VALUE>>) {a:-1e-05,b:[+3]} "
                                   ": (<<NULL TYPE>>) -> vec<f32> ^ .. // comment\n\xE2\x80\x8B} \"open\n?");
        const std::vector<std::pair<K, std::string>> expected = {
            {K::LParen, "("}, {K::ValueName, "%0"}, {K::Comma, ","}, {K::ValueName, "%arg_1"}, {K::RParen, ")"},
            {K::Equal, "="}, {K::StringLiteral, "\"pd_op.add\""}, {K::LParen, "("}, {K::BareIdentifier, "x"},
            {K::Equal, "="}, {K::ValueName, "%0"}, {K::Comma, ","}, {K::NullValue, "<<NULL VALUE>>"},
            {K::RParen, ")"}, {K::LBrace, "{"}, {K::BareIdentifier, "a"}, {K::Colon, ":"}, {K::Number, "-1e-05"},
            {K::Comma, ","}, {K::BareIdentifier, "b"}, {K::Colon, ":"}, {K::LSquare, "["}, {K::Number, "+3"},
            {K::RSquare, "]"}, {K::RBrace, "}"}, {K::Colon, ":"}, {K::LParen, "("}, {K::NullType, "<<NULL TYPE>>"},
            {K::RParen, ")"}, {K::Arrow, "->"}, {K::BareIdentifier, "vec"}, {K::Less, "<"},
            {K::BareIdentifier, "f32"}, {K::Greater, ">"}, {K::Caret, "^"}, {K::Elision, ".."}, {K::RBrace, "}"},
            {K::StringLiteral, "\"open"}, {K::Unknown, "?"}};
        QCOMPARE(tokens.size(), expected.size());
        for (size_t i = 0; i < tokens.size(); ++i) {
            QVERIFY2(tokens[i] == expected[i], (std::to_string(i) + ": " + tokens[i].second).c_str());
        }
    }

    void tokenPositionsCountCodePoints() {
        const std::string text = "{\n  \"é\" %x\n\t%y";
        const std::string file = "pos.pir";
        PirLexer lex(text, file);
        lex.skipTrivia();
        QCOMPARE(lex.lexToken().kind, K::LBrace);
        lex.skipTrivia();
        const Token s = lex.lexToken();
        QCOMPARE(s.kind, K::StringLiteral);
        QCOMPARE(lex.locate(s).line, 2);
        QCOMPARE(lex.locate(s).column, 3);
        lex.skipTrivia();
        const Token x = lex.lexToken();
        QCOMPARE(x.spelling, std::string_view("%x"));
        QCOMPARE(lex.locate(x).column, 7);  // "é" is one column
        QCOMPARE(lex.locate(x).file, file);
        // Trivia that must not cross lines stops at the newline and says so.
        lex.clearSawNewline();
        lex.skipTrivia(/*crossNewlines=*/false);
        QVERIFY(lex.at('\n'));
        QVERIFY(!lex.sawNewline());
        lex.skipTrivia();
        QVERIFY(lex.sawNewline());
        const Token y = lex.lexToken();
        QCOMPARE(lex.locate(y).line, 3);
        QCOMPARE(lex.locate(y).column, 2);
        QCOMPARE(lex.lineOf(y.pos()), 3);
        QCOMPARE(lex.lexToken().kind, K::Eof);
    }

    void everyListReportsItsClosingBracket() {
        const std::string head = "{\n" + dataOp("%0");
        expectErrorAt(head + "    (%1 %2) = \"a\" (%0) {} : (" + kT + ") -> " + kT + "\n}\n", "%2", 0,
                      "expected ',' or ')' in the result list, found '%2'");
        expectErrorAt(head + "    (%1) = \"a\" (%0 %0) {} : (" + kT + ") -> " + kT + "\n}\n", "%0 %0", 3,
                      "expected ',' or ')' in the operand list, found '%0'");
        expectErrorAt(head + "    (%1) = \"a\" (%0) {} : (" + kT + " " + kT + ") -> " + kT + "\n}\n",
                      "f32> builtin", 5, "expected ',' or ')' in the operand types, found 'builtin.tensor'");
        expectErrorAt(head + "    (%1) = \"a\" (%0) {} : (" + kT + ") -> vec[" + kT + " " + kT + "]\n}\n",
                      "f32> builtin", 5, "expected ',' or ']' in a vec[...] type, found 'builtin.tensor'");
        expectErrorAt(head + "    (%1) = \"a\" (%0) {x:true y:false} : (" + kT + ") -> " + kT + "\n}\n", "y:", 0,
                      "expected ',' or '}' in the attribute list, found 'y'");
        expectErrorAt(head + "    (%1) = \"a\" (%0) {x:(pd_op.IntArray)[1 2]} : (" + kT + ") -> " + kT + "\n}\n",
                      "2]", 0, "expected ',' or ']' in the integer list, found '2'");
        expectErrorAt(head + "    (%1) = \"a\" (%0) {x:[true false]} : (" + kT + ") -> " + kT + "\n}\n", "false", 0,
                      "expected ',' or ']' in the array, found 'false'");
        expectErrorAt(head + "    (%1) = \"a\" %0) {} : (" + kT + ") -> " + kT + "\n}\n", "\"a\" %0", 4,
                      "expected '(' before the operand list, found '%0'");
        expectErrorAt(head + "    (%1) = \"a\" (%0) {} : " + kT + " -> " + kT + "\n}\n", ": builtin", 2,
                      "expected '(' before the operand types, found 'builtin.tensor'");
    }

    void listsEmptyAndTrailingComma() {
        // Empty lists of every kind, and the operand list's trailing comma some printers wrote.
        const std::string text = "{\n" + dataOp("%0") + "    () = \"a\" (%0, ) {x:[],y:(pd_op.IntArray)[]} : (" + kT +
                                 ") -> \n    (%2) = \"b\" () {} : () -> vec[]\n}\n";
        const Program p = parsePir(text, "g.pir");
        const Operation& a = p.op(p.globalBlock().ops[1]);
        QCOMPARE(a.results.size(), size_t(0));
        QCOMPARE(a.operands.size(), size_t(1));
        QCOMPARE(a.attributes.size(), size_t(2));
        QVERIFY(a.attributes[0].value.elements.empty());
        QCOMPARE(a.attributes[1].value.kind, Attribute::Kind::IntArray);
        const Operation& b = p.op(p.globalBlock().ops[2]);
        QCOMPARE(p.types()[p.value(b.results[0]).type].kind, Type::Kind::Vector);
        QVERIFY(p.types()[p.value(b.results[0]).type].elements.empty());
    }

    void blockArgumentListStaysOnItsLine() {
        const std::string text = "{\n" + dataOp("%0") + "    (%1) = \"pd_op.while\" (%0, %0) {} : (" + kT + ", " + kT +
                                 ") -> " + kT + " {\n    ^%a: " + kT + ", k=%b: " + kT + "\n" +
                                 "        (%2) = \"pd_op.add\" (%a, %b) {} : (" + kT + ", " + kT + ") -> " + kT + "\n" +
                                 "        () = \"cf.yield\" (%0, %2) {} : (" + kT + ", " + kT + ") -> \n" +
                                 "    }\n}\n";
        const Program p = parsePir(text, "g.pir");
        const Block& body = p.block(p.op(p.globalBlock().ops[1]).regions[0][0]);
        QCOMPARE(body.args.size() + body.kwargs.size(), size_t(2));
        QCOMPARE(body.ops.size(), size_t(2));
        // A comma that ends the line does not continue the list onto the next.
        const std::string broken = "{\n" + dataOp("%0") + "    (%1) = \"pd_op.while\" (%0) {} : (" + kT + ") -> " + kT +
                                   " {\n    ^%a: " + kT + ",\n    %b: " + kT + "\n    }\n}\n";
        expectErrorAt(broken, ",\n", 1, "expected a value name such as %0, found end of line");
    }
};

QTEST_GUILESS_MAIN(PirGrammarTest)
#include "test_pir_grammar.moc"
