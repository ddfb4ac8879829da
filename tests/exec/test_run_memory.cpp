// What a run holds beside its tensors (issue 21 item 4): the program read from text, compact liveness lists, 32-byte slots, per-op records only when wanted.
#include <QtTest>

#include <malloc.h>

#include "algorithms/zoo/ModelZoo.h"
#include "exec/CompactLists.h"
#include "exec/Executor.h"
#include "exec/Liveness.h"
#include "exec/OperandSlots.h"
#include "exec/cpu/CpuExecutor.h"
#include "model/PirReader.h"
#include "model/PirWriter.h"

using namespace rx;

namespace {

// Bytes the heap has handed out, mmap-ed blocks included (glibc).
int64_t heapBytesInUse() {
#if defined(__GLIBC__)
    const struct mallinfo2 m = mallinfo2();
    return int64_t(m.uordblks + m.hblkhd);
#else
    return -1;
#endif
}

}  // namespace

class RunMemory : public QObject {
    Q_OBJECT
private slots:
    void compactListsReadLikeVectors() {
        exec::CompactLists<uint32_t> lists(4);
        const std::vector<uint32_t> two{7, 8};
        lists.set(2, two);
        lists.appendToLast(0, 5);
        lists.appendToLast(0, 6);
        QCOMPARE(lists.size(), size_t(4));
        QVERIFY(lists[1].empty() && lists[3].empty());
        QCOMPARE(std::vector<uint32_t>(lists[2].begin(), lists[2].end()), two);
        QCOMPARE(std::vector<uint32_t>(lists[0].begin(), lists[0].end()), (std::vector<uint32_t>{5, 6}));
        // Grouped by key, each list in the order of the items; kSkip leaves an item out.
        const std::vector<size_t> keys{1, 0, 1, exec::CompactLists<uint32_t>::kSkip, 1};
        const auto grouped = exec::CompactLists<uint32_t>::grouped(
            3, keys.size(), [&](size_t k) { return keys[k]; }, [](size_t k) { return uint32_t(10 + k); });
        QCOMPARE(std::vector<uint32_t>(grouped[1].begin(), grouped[1].end()), (std::vector<uint32_t>{10, 12, 14}));
        QCOMPARE(std::vector<uint32_t>(grouped[0].begin(), grouped[0].end()), (std::vector<uint32_t>{11}));
        QVERIFY(grouped[2].empty());
        lists.clearAll();
        QCOMPARE(lists.size(), size_t(4));
        QVERIFY(lists[0].empty() && lists[2].empty());
    }

    // The liveness of a ~10k-op transformer within 128 bytes per op: a run holds it beside
    // its tensors (as vectors of vectors it took ~250 bytes per op: 220 MB at 1M ops).
    void livenessTablesTakeUnder128BytesPerOp() {
        if (heapBytesInUse() < 0) QSKIP("heap statistics are glibc's");
        zoo::ZooOptions o;
        o.layers = 36;
        const zoo::GeneratedProgram g = zoo::generateModel(o);
        const Program& p = *g.program;
        const std::vector<uint8_t> resident = exec::residentValuesOf(p, g.spec.inputs);
        const size_t ops = p.globalBlock().ops.size();
        QVERIFY2(ops > 9000, std::to_string(ops).c_str());
        const int64_t before = heapBytesInUse();
        const exec::Liveness liveness = exec::analyzeLiveness(p, resident);
        const int64_t held = heapBytesInUse() - before;
        const double perOp = double(held) / double(ops);
        QVERIFY2(perOp < 128, (std::to_string(perOp) + " bytes per op").c_str());
        QVERIFY(liveness.buffers.size() >= ops / 2);  // it did analyze the program
    }

    // A program read from text within 230 bytes per op (~10k-op transformer, as verify reads
    // it; 210 now): at 1M ops the program sits under the original run's tensors (issue 21
    // item 4). It took 342 with 120-byte ops (boost small_vectors for operands and results)
    // and the parameters' and fetches' dicts unshared, 250 with only the dicts shared.
    void programReadFromTextTakesUnder230BytesPerOp() {
        if (heapBytesInUse() < 0) QSKIP("heap statistics are glibc's");
        zoo::ZooOptions o;
        o.layers = 36;
        const std::string text = printProgram(*zoo::generateModel(o).program);
        const int64_t before = heapBytesInUse();
        const Program p = parsePir(text, "transformer.pir");
        const int64_t held = heapBytesInUse() - before;
        const size_t ops = p.globalBlock().ops.size();
        QVERIFY2(ops > 9000, std::to_string(ops).c_str());
        const double perOp = double(held) / double(ops);
        qInfo("program read from text: %.1f bytes per op (%zu ops)", perOp, ops);
        QVERIFY2(perOp < 230, (std::to_string(perOp) + " bytes per op").c_str());
    }

    // A run holds one slot per value of the program: 32 bytes (48 with a std::vector for the
    // rare vector values).
    void slotsTake32Bytes() { QVERIFY(sizeof(exec::SlotOf<std::shared_ptr<const exec::Tensor>>) <= 32); }

    // A run's per-op records are allocated once, at their final size, or not at all when
    // the caller reads none (verify).
    void opRecordsSizedToTheOps() {
        zoo::ZooOptions o;
        o.layers = 2;
        const zoo::GeneratedProgram g = zoo::generateModel(o);
        exec::CpuExecutor cpu;
        exec::RunOptions ro;
        ro.residentValues = g.spec.inputs;
        ro.fetchSink = [](const exec::FetchView&) {};
        const exec::RunResult r = cpu.run(*g.program, {}, ro);
        QCOMPARE(r.ops.size(), g.program->globalBlock().ops.size());
        QCOMPARE(r.ops.capacity(), r.ops.size());
        ro.keepOpRecords = false;
        const exec::RunResult bare = cpu.run(*g.program, {}, ro);
        QCOMPARE(bare.ops.capacity(), size_t(0));
        QCOMPARE(bare.peakBytes, r.peakBytes);
        QVERIFY(!bare.cancelled);
    }
};

QTEST_GUILESS_MAIN(RunMemory)
#include "test_run_memory.moc"
