// Round trip over every program of every corpus file: read then write gives the same text
// (line by line, ignoring whitespace at line ends) for complete programs; fragments and
// wrapped files come back with the same tokens; printing is a fixed point; conversions
// between generations read back.
#include <QtTest>

#include "model/PirReader.h"
#include "model/PirWriter.h"
#include "tests/model/CorpusUtil.h"

using namespace rx;
using namespace rx::test;

namespace {
std::string programSpan(const std::string& text, const std::vector<ProgramListing>& listing, size_t i) {
    std::vector<std::string> lines;
    size_t start = 0;
    int line = 1;
    std::string out;
    const int first = listing[i].line;
    const int last = i + 1 < listing.size() ? listing[i + 1].line : INT32_MAX;
    while (start < text.size()) {
        size_t end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        if (line >= first && line < last) {
            const std::string t = trim(std::string_view(text).substr(start, end - start));
            if (t.rfind("===", 0) != 0 && t.rfind("IRPrinting", 0) != 0) out += text.substr(start, end - start) + "\n";
        }
        start = end + 1;
        ++line;
    }
    return out;
}

bool hasWarning(const Program& p, const char* word) {
    for (const auto& w : p.warnings())
        if (w.find(word) != std::string::npos) return true;
    return false;
}

std::string joined(const std::vector<std::string>& lines) {
    std::string s;
    for (const auto& l : lines) s += l + "\n";
    return s;
}
}  // namespace

class RoundTripTest : public QObject {
    Q_OBJECT
private slots:
    void everyCorpusProgramRoundTrips() {
        const auto files = corpusFiles({"*.pir"});
        QVERIFY(files.size() >= 20);
        int exact = 0, normalised = 0;
        for (const std::string& file : files) {
            const std::string text = readTextFile(file);
            const auto listing = listPrograms(text, file);
            QVERIFY2(!listing.empty(), file.c_str());
            for (size_t i = 0; i < listing.size(); ++i) {
                ReadOptions o;
                o.programIndex = static_cast<int>(i);
                const Program p = parsePir(text, file, o);
                const std::string printed = printProgram(p);
                const std::string span = programSpan(text, listing, i);
                const std::string where = file + " program " + std::to_string(i);
                if (hasWarning(p, "elision")) {
                    // Excerpts lose their "..." lines; the rest must survive as tokens.
                } else if (hasWarning(p, "fragment")) {
                    const std::string src = withoutWhitespace(span);
                    const std::string out = withoutWhitespace(printed);
                    QVERIFY2(out == src, where.c_str());
                    ++normalised;
                } else {
                    const std::string a = joined(normalisedLines(span)), b = joined(normalisedLines(printed));
                    if (a != b) qWarning("%s\n--- source\n%s\n--- printed\n%s", where.c_str(), a.c_str(), b.c_str());
                    QVERIFY2(a == b, where.c_str());
                    ++exact;
                }
                // Printing is a fixed point, renumbered too.
                const Program again = parsePir(printed, "printed");
                QCOMPARE(printProgram(again), printed);
                QCOMPARE(again.ops().size(), p.ops().size());
                WriteOptions renumber;
                renumber.renumber = true;
                const std::string r1 = printProgram(p, renumber);
                QCOMPARE(printProgram(parsePir(r1, "renumbered"), renumber), r1);
            }
        }
        QVERIFY(exact >= 20);
        QVERIFY(normalised >= 4);
    }

    void generationConversionsReadBack() {
        for (const std::string& file : corpusFiles({"*.pir"})) {
            const Program p = readPirFile(file);
            for (Generation g : {Generation::G0, Generation::G1, Generation::G2, Generation::G3}) {
                WriteOptions o;
                o.generation = g;
                const std::string text = printProgram(p, o);
                Program back;
                try {
                    back = parsePir(text, file + " as " + std::string(generationName(g)));
                } catch (const Error& e) {
                    QFAIL(e.what());
                }
                const std::string where = file + " via " + std::string(generationName(g));
                if (g != Generation::G0 && text.find(std::string(defaultTensorSpelling(g)) + "<") != std::string::npos)
                    QVERIFY2(back.generation() == g, where.c_str());
                QCOMPARE(back.globalBlock().ops.size(), p.globalBlock().ops.size());
                QCOMPARE(back.values().size(), p.values().size());
                // Types survive every conversion (sizes are what the algorithms use).
                for (ValueId v = 0; v < p.values().size(); ++v)
                    QVERIFY2(back.valueBytes(v) == p.valueBytes(v), where.c_str());
                // The converted text is itself stable.
                QCOMPARE(joined(normalisedLines(printProgram(back))), joined(normalisedLines(text)));
                // G1 <-> G2 loses nothing: back to the source generation gives the source print.
                if ((g == Generation::G1 || g == Generation::G2) &&
                    (p.generation() == Generation::G1 || p.generation() == Generation::G2)) {
                    WriteOptions src;
                    src.generation = p.generation();
                    QCOMPARE(printProgram(back, src), printProgram(p));
                }
            }
        }
    }

    void convertedG3HasNoTypePrefixes() {
        const Program p = readPirFile(corpusDir() + "/pir-real/recompute-docstring-sin-cos.pir");
        WriteOptions o;
        o.generation = Generation::G3;
        const std::string text = printProgram(p, o);
        QVERIFY(text.find("(Float)") == std::string::npos);
        QVERIFY(text.find("pd_op.tensor") == std::string::npos);
        QVERIFY(text.find("value:3,") != std::string::npos || text.find("value:3}") != std::string::npos);
        QVERIFY(text.find("dtype:float32") != std::string::npos);
        QVERIFY(text.find("-> tensor<4096x4096xf32>") != std::string::npos);
        const Program back = parsePir(text, "g3");
        const Attribute* v = back.op(back.globalBlock().ops[3]).attribute("value");
        QVERIFY(v);
        QCOMPARE(v->floatValue, 3.0);
        WriteOptions g2;
        g2.generation = Generation::G2;
        QVERIFY(printProgram(back, g2).find("shape:(pd_op.IntArray)[4096,4096]") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(RoundTripTest)
#include "test_pir_roundtrip.moc"
