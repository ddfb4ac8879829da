// The streamed PIR printer: chunks to a TextSink concatenate to the string printer's bytes,
// leave in pieces near kPrintChunkBytes ending at line ends, and writeProgramFile (through
// AtomicFile) writes exactly those bytes, or nothing when the target cannot be written.
#include <QtTest>

#include <filesystem>

#include "model/Diagnostic.h"
#include "model/PirReader.h"
#include "model/PirWriter.h"
#include "support/ProgramBuilder.h"
#include "support/FileContents.h"

using namespace rx;

namespace {

// data -> sin -> cos -> ... : `ops` ops, about 110 bytes a line once printed.
std::shared_ptr<Program> chain(int ops) {
    test::ProgramBuilder b;
    const TypeId t = b.f32({4096, 4096});
    ValueId v = b.op("pd_op.data", {}, t);
    for (int i = 1; i < ops; ++i) v = b.op(i % 2 ? "pd_op.sin" : "pd_op.cos", {v}, t);
    return b.program;
}

}  // namespace

class TestStreamedWriter : public QObject {
    Q_OBJECT
private slots:
    void chunksConcatenateToTheString() {
        const auto program = chain(40000);
        WriteOptions o;
        o.renumber = true;
        const std::string whole = printProgram(*program, o);
        QVERIFY(whole.size() > 3 * kPrintChunkBytes);  // several chunks, else this tests nothing
        std::vector<std::string> chunks;
        printProgram(*program, [&](std::string_view c) { chunks.emplace_back(c); }, o);
        QVERIFY2(chunks.size() >= 3, qPrintable(QString::number(chunks.size())));
        std::string joined;
        for (size_t i = 0; i < chunks.size(); ++i) {
            QVERIFY(!chunks[i].empty());
            QVERIFY2(chunks[i].back() == '\n', "a chunk split inside a line");
            if (i + 1 < chunks.size())  // whole ops: at least a chunk, at most a chunk and one line
                QVERIFY(chunks[i].size() >= kPrintChunkBytes && chunks[i].size() < kPrintChunkBytes + 4096);
            joined += chunks[i];
        }
        QCOMPARE(joined.size(), whole.size());
        QVERIFY(joined == whole);
    }

    void smallProgramIsOneChunk() {
        const auto program = chain(3);
        std::vector<std::string> chunks;
        printProgram(*program, [&](std::string_view c) { chunks.emplace_back(c); });
        QCOMPARE(chunks.size(), size_t(1));
        QVERIFY(chunks[0] == printProgram(*program));
    }

    void fileHoldsTheStringsBytesAndReadsBack() {
        const auto program = chain(20000);
        const std::string path = (std::filesystem::temp_directory_path() / "rx_streamed_writer.pir").string();
        WriteOptions o;
        o.renumber = true;
        writeProgramFile(*program, path, o);
        const std::string text = rx::testing::fileContents(path);
        QVERIFY(text == printProgram(*program, o));
        const Program back = loadProgram(path);
        QCOMPARE(back.globalBlock().ops.size(), size_t(20000));
        std::filesystem::remove(path);
    }

    void unwritableTargetLeavesNothing() {
        const auto program = chain(10);
        const auto folder = std::filesystem::temp_directory_path() / "rx_streamed_writer_missing_folder";
        std::filesystem::remove_all(folder);
        try {
            writeProgramFile(*program, (folder / "p.pir").string());
            QFAIL("wrote into a folder that does not exist");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("p.pir") != std::string::npos, e.what());
        }
        QVERIFY(!std::filesystem::exists(folder));
    }
};

QTEST_GUILESS_MAIN(TestStreamedWriter)
#include "test_streamed_writer.moc"
