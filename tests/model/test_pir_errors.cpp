// Each kind of malformed input gives rx::Error "file:line:col: expected X, found Y" at the
// exact position, and no program. Positions are computed from the input text so each test
// says where the error must point.
#include <QtTest>

#include "model/PirReader.h"

using namespace rx;

namespace {
const char* kTensor = "builtin.tensor<4xf32>";

std::string op(const std::string& results, const std::string& name, const std::string& operands,
               const std::string& inTypes, const std::string& outTypes) {
    return "    (" + results + ") = \"" + name + "\" (" + operands + ") {stop_gradient:[false]} : (" + inTypes +
           ") -> " + outTypes + "\n";
}

std::string dataOp(const std::string& v) {
    return "    (" + v +
           ") = \"pd_op.data\" () {dtype:(pd_op.DataType)float32,name:\"x\",place:(pd_op.Place)Place(cpu),"
           "shape:(pd_op.IntArray)[4],stop_gradient:[false]} : () -> builtin.tensor<4xf32>\n";
}

// Line and column (1-based) of byte offset `at`.
std::pair<int, int> position(const std::string& text, size_t at) {
    int line = 1, col = 1;
    for (size_t i = 0; i < at; ++i) {
        if (text[i] == '\n') { ++line; col = 1; }
        else ++col;
    }
    return {line, col};
}

// Parses `text`, which must fail at the `occurrence`-th `needle` (offset `shift` into it)
// with a message containing `message`.
void expectError(const std::string& text, const std::string& needle, int occurrence, size_t shift,
                 const std::string& message) {
    size_t at = std::string::npos;
    for (int i = 0; i <= occurrence; ++i) at = text.find(needle, at == std::string::npos ? 0 : at + 1);
    QVERIFY2(at != std::string::npos, needle.c_str());
    at += shift;
    const auto [line, col] = position(text, at);
    try {
        const Program p = parsePir(text, "bad.pir");
        QFAIL(("parsed without error: " + text).c_str());
    } catch (const Error& e) {
        const std::string what = e.what();
        QVERIFY2(e.where().file == "bad.pir", what.c_str());
        QVERIFY2(e.where().line == line && e.where().column == col,
                 (what + "  [wanted " + std::to_string(line) + ":" + std::to_string(col) + "]").c_str());
        QVERIFY2(what.rfind("bad.pir:" + std::to_string(line) + ":" + std::to_string(col) + ": ", 0) == 0, what.c_str());
        QVERIFY2(what.find(message) != std::string::npos, (what + "  [wanted: " + message + "]").c_str());
        QVERIFY2(what.find("expected ") != std::string::npos, what.c_str());
    }
}
}  // namespace

class PirErrorTest : public QObject {
    Q_OBJECT
private slots:
    void undefinedValue() {
        const std::string text = "{\n" + dataOp("%0") + op("%1", "pd_op.relu", "%7", kTensor, kTensor) + "}\n";
        expectError(text, "%7", 0, 0, "found undefined value '%7'");
    }
    void useBeforeDefinition() {
        const std::string text = "{\n" + op("%1", "pd_op.relu", "%0", kTensor, kTensor) + dataOp("%0") + "}\n";
        expectError(text, "%0", 0, 0, "undefined value '%0'");
    }
    // In a fragment the use makes the name an input; its definition after it is out of order.
    void useBeforeDefinitionInAFragment() {
        const std::string text = op("%1", "pd_op.relu", "%0", kTensor, kTensor) + dataOp("%0");
        expectError(text, "(%0) = ", 0, 1, "expected '%0' defined before its use at line 1, found its definition after it");
    }
    void valueDefinedTwice() {
        const std::string text = "{\n" + dataOp("%0") + dataOp("%1") + op("%1", "pd_op.relu", "%0", kTensor, kTensor) + "}\n";
        expectError(text, "(%1) = \"pd_op.relu", 0, 1, "'%1' defined twice");
    }
    void valueDefinedTwiceInOneResultList() {
        const std::string text = "{\n" + dataOp("%0") +
                                 op("%1, %1", "pd_op.split", "%0", kTensor, std::string(kTensor) + ", " + kTensor) + "}\n";
        expectError(text, "%1", 1, 0, "'%1' defined twice");
    }
    void operandCountDisagreesWithTypes() {
        const std::string text = "{\n" + dataOp("%0") +
                                 op("%1", "pd_op.add", "%0, %0", kTensor, kTensor) + "}\n";
        expectError(text, ": (builtin", 0, 2, "expected 2 operand type(s), one per operand, found 1");
    }
    void resultCountDisagreesWithTypes() {
        const std::string text = "{\n" + dataOp("%0") +
                                 op("%1, %2", "pd_op.relu", "%0", kTensor, kTensor) + "}\n";
        expectError(text, "-> builtin", 1, 3, "expected 2 result type(s), one per result, found 1");
    }
    void unbalancedBraceMissingClose() {
        const std::string text = "{\n" + dataOp("%0") + op("%1", "pd_op.relu", "%0", kTensor, kTensor);
        expectError(text, "\n", 2, 1, "expected '}', found end of file");
    }
    void unbalancedBraceExtraClose() {
        const std::string text = "{\n" + dataOp("%0") + "}\n}\n";
        expectError(text, "}", 2, 0, "expected '{' or an operation, found '}'");
    }
    void unclosedRegion() {
        const std::string text = "{\n" + dataOp("%0") +
                                 "    (%1) = \"pd_op.if\" (%0) {} -> builtin.tensor<4xf32> {\n" +
                                 op("%2", "pd_op.relu", "%0", kTensor, kTensor) + "}\n";
        expectError(text, "\n", 4, 1, "expected '}', found end of file");
    }
    void badElementType() {
        const std::string text = "{\n" + dataOp("%0") + op("%1", "pd_op.relu", "%0", kTensor, "builtin.tensor<4xq9>") + "}\n";
        expectError(text, "q9", 0, 0, "expected an element type such as f32, found 'q9'");
    }
    void badTypeSyntax() {
        const std::string text = "{\n" + dataOp("%0") + op("%1", "pd_op.relu", "%0", kTensor, "builtin.tensor[4xf32]") + "}\n";
        expectError(text, "[4xf32]", 0, 0, "expected '<' after the type name 'builtin.tensor', found '['");
    }
    void negativeDimension() {
        const std::string text = "{\n" + dataOp("%0") + op("%1", "pd_op.relu", "%0", kTensor, "builtin.tensor<4x-2xf32>") + "}\n";
        expectError(text, "-2xf32", 0, 0, "expected a dimension (-1 for dynamic, or a size >= 0), found '-'");
    }
    void hugeDimensionsSaturateInsteadOfOverflowing() {
        const std::string text = "{\n    (%0) = \"x\" () {} : () -> builtin.tensor<4611686018427387904x4611686018427387904xf32>\n}\n";
        const Program p = parsePir(text, "huge.pir");
        QCOMPARE(p.valueBytes(0), INT64_MAX);
    }
    void truncatedInsideAnOp() {
        const std::string full = "{\n" + dataOp("%0") + op("%1", "pd_op.relu", "%0", kTensor, kTensor) + "}\n";
        const std::string text = full.substr(0, full.find("{stop_gradient:[false]} : (builtin") + 16);
        expectError(text, "{stop_gradient:[", 0, 16, "expected an attribute value, found end of file");
    }
    void truncatedString() {
        const std::string text = "{\n    (%0) = \"pd_op.data\" () {name:\"x} : () -> builtin.tensor<4xf32>\n}\n";
        expectError(text, "\n", 1, 0, "expected '\"' closing the string, found end of line");
    }
    void binaryGarbage() {
        const std::string text = std::string("\x01\x02\x7f\xff garbage", 12);
        expectError(text, "\x01", 0, 0, "expected '{' or an operation, found byte 0x01");
        const std::string inside = "{\n    (%0) = \"pd_op.data\" () {name:\x02} : () -> builtin.tensor<4xf32>\n}\n";
        expectError(inside, "\x02", 0, 0, "expected an attribute value, found byte 0x02");
    }
    void emptyInput() {
        expectError("  \n", "\n", 0, 1, "expected a program ('{' or an operation), found end of file");
    }
    void missingEquals() {
        const std::string text = "{\n    (%0) \"pd_op.data\" () {} : () -> builtin.tensor<4xf32>\n}\n";
        expectError(text, "\"pd_op", 0, 0, "expected '=' after the result list, found '\"'");
    }
    void deepNestingIsRejectedNotCrashing() {
        std::string nested = "vec[";
        for (int i = 0; i < 5000; ++i) nested += "vec[";
        const std::string text = "{\n    (%0) = \"x\" () {} : () -> " + nested + "\n}\n";
        try {
            parsePir(text, "deep.pir");
            QFAIL("parsed");
        } catch (const Error& e) {
            QVERIFY(std::string(e.what()).find("nesting deeper than") != std::string::npos);
        }
        std::string attrs = "{\n    (%0) = \"x\" () {a:";
        for (int i = 0; i < 100000; ++i) attrs += "[";
        QVERIFY_THROWS_EXCEPTION(Error, parsePir(attrs, "deep.pir"));
    }
    void noPartialProgramAcrossPrograms() {
        // The chosen program is fine, but the file is malformed: nothing is returned.
        const std::string text = "{\n" + dataOp("%0") + "}\n{\n" + op("%1", "pd_op.relu", "%9", kTensor, kTensor) + "}\n";
        ReadOptions o;
        o.programIndex = 0;
        QVERIFY_THROWS_EXCEPTION(Error, parsePir(text, "bad.pir", o));
    }
};

QTEST_GUILESS_MAIN(PirErrorTest)
#include "test_pir_errors.moc"
