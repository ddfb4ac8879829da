// Deterministic seeded mutations of every corpus file (byte flips, deletions, insertions of
// structural characters and binary bytes, truncation, duplicated spans): the reader must
// either parse or throw rx::Error, never crash or hang; what parses must print, and the
// print must read back.
#include <QtTest>

#include <random>

#include "model/PirJsonReader.h"
#include "model/PirReader.h"
#include "model/PirWriter.h"
#include "tests/model/CorpusUtil.h"

using namespace rx;
using namespace rx::test;

class PirRobustnessTest : public QObject {
    Q_OBJECT
private slots:
    void seededMutationsNeverCrash() {
        std::mt19937 rng(20261129);
        const char* structural = "{}()[]<>%\",:=-^x\n 0";
        int parsed = 0, rejected = 0;
        for (const std::string& file : corpusFiles({"*.pir", "*.json"})) {
            const std::string original = readTextFile(file);
            if (original.empty()) continue;
            for (int round = 0; round < 150; ++round) {
                std::string text = original;
                const int edits = 1 + static_cast<int>(rng() % 4);
                for (int e = 0; e < edits && !text.empty(); ++e) {
                    const size_t at = rng() % text.size();
                    switch (rng() % 6) {
                    case 0: text[at] = static_cast<char>(rng() % 256); break;
                    case 1: text.erase(at, 1 + rng() % 12); break;
                    case 2: text.insert(at, 1, structural[rng() % std::strlen(structural)]); break;
                    case 3: text.resize(at); break;
                    case 4: text.insert(at, text.substr(rng() % text.size(), 1 + rng() % 40)); break;
                    case 5: text[at] = structural[rng() % std::strlen(structural)]; break;
                    }
                }
                try {
                    const Program p = loadFromText(text, file);
                    ++parsed;
                    const std::string printed = printProgram(p);
                    try {
                        (void)parsePir(printed, "printed");
                    } catch (const Error& e) {
                        // A program that reads must print to text that reads.
                        QFAIL((file + " round " + std::to_string(round) + ": printed text does not read back: " +
                               e.what() + "\n" + printed.substr(0, 2000))
                                  .c_str());
                    }
                } catch (const Error&) {
                    ++rejected;
                }
            }
        }
        qInfo("mutations: %d parsed, %d rejected with rx::Error", parsed, rejected);
        QVERIFY(rejected > 0);
    }

    void randomBytesNeverCrash() {
        std::mt19937 rng(7);
        for (int round = 0; round < 300; ++round) {
            std::string text(rng() % 300, '\0');
            for (char& c : text) c = static_cast<char>(rng() % 256);
            if (round % 2) text = "{\n (%0) = \"" + text;
            try {
                (void)parsePir(text, "random");
            } catch (const Error&) {
            }
        }
    }

private:
    static Program loadFromText(const std::string& text, const std::string& file) {
        // JSON goes through Qt's parser; our builder must still reject bad structure cleanly.
        if (file.size() > 5 && file.substr(file.size() - 5) == ".json") return parsePirJson(text, file);
        return parsePir(text, file);
    }
};

QTEST_GUILESS_MAIN(PirRobustnessTest)
#include "test_pir_robustness.moc"
