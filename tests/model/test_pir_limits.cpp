// The PIR text reader at its limits: ops with tens of thousands of results read in linear
// time, huge "%N" names cost memory by the names used (not by N), empty programs are valid.
#include <QtTest>

#include <malloc.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <new>

#include "model/PirReader.h"
#include "model/PirWriter.h"

// Heap counting for this executable: what parsePir holds at its peak.
namespace {
std::atomic<int64_t> gLive{0};
std::atomic<int64_t> gPeak{0};
void noteAlloc(void* p) {
    if (!p) return;
    const auto n = static_cast<int64_t>(malloc_usable_size(p));
    const int64_t live = gLive.fetch_add(n) + n;
    int64_t peak = gPeak.load();
    while (live > peak && !gPeak.compare_exchange_weak(peak, live)) {}
}
void noteFree(void* p) {
    if (p) gLive.fetch_sub(static_cast<int64_t>(malloc_usable_size(p)));
}
}  // namespace

void* operator new(size_t n) {
    void* p = std::malloc(n ? n : 1);
    if (!p) throw std::bad_alloc();
    noteAlloc(p);
    return p;
}
void* operator new[](size_t n) { return operator new(n); }
void operator delete(void* p) noexcept {
    noteFree(p);
    std::free(p);
}
void operator delete[](void* p) noexcept { operator delete(p); }
void operator delete(void* p, size_t) noexcept { operator delete(p); }
void operator delete[](void* p, size_t) noexcept { operator delete(p); }

using namespace rx;

namespace {
// One op with `count` results %0..%count-1 (or the names `name(i)` gives), then a user of the last.
template <class NameOf>
std::string wideOp(size_t count, NameOf&& name) {
    std::string results, types;
    for (size_t i = 0; i < count; ++i) {
        if (i) {
            results += ", ";
            types += ", ";
        }
        results += name(i);
        types += "builtin.tensor<4xf32>";
    }
    return "    (" + results + ") = \"pd_op.split\" () {} : () -> " + types + "\n";
}
std::string numbered(size_t i) { return "%" + std::to_string(i); }

// Peak heap bytes while parsing `text` (the returned program included).
int64_t parsePeak(const std::string& text) {
    const int64_t before = gLive.load();
    gPeak.store(before);
    { const Program p = parsePir(text, "mem.pir"); }
    return gPeak.load() - before;
}
}  // namespace

class PirLimitsTest : public QObject {
    Q_OBJECT
private slots:
    void manyResultsReadInLinearTime() {
        // 200k results: the old pairwise duplicate check took minutes here (4.5 s at 50k).
        constexpr size_t kCount = 200000;
        const std::string text = "{\n" + wideOp(kCount, numbered) + "    (%r) = \"pd_op.relu\" (%" +
                                 std::to_string(kCount - 1) + ") {} : (builtin.tensor<4xf32>) -> builtin.tensor<4xf32>\n}\n";
        const auto start = std::chrono::steady_clock::now();
        const Program p = parsePir(text, "wide.pir");
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        QCOMPARE(p.globalBlock().ops.size(), size_t(2));
        QCOMPARE(p.op(p.globalBlock().ops[0]).results.size(), kCount);
        const Operation& relu = p.op(p.globalBlock().ops[1]);
        QCOMPARE(relu.operands[0], p.op(p.globalBlock().ops[0]).results[kCount - 1]);
        QVERIFY2(seconds < 10.0, std::to_string(seconds).c_str());
        QCOMPARE(printProgram(p), text);
    }

    void manyOperandsAndVectorElementsReadInLinearTime() {
        // builtin.combine of 200k values into one vec[...] type of 200k elements.
        constexpr size_t kCount = 200000;
        std::string text = "{\n" + wideOp(kCount, numbered);
        std::string operands, types, vec;
        for (size_t i = 0; i < kCount; ++i) {
            operands += (i ? ", " : "") + numbered(i);
            types += (i ? ", " : "") + std::string("builtin.tensor<4xf32>");
            vec += (i ? "," : "") + std::string("builtin.tensor<4xf32>");
        }
        text += "    (%c) = \"builtin.combine\" (" + operands + ") {} : (" + types + ") -> vec[" + vec + "]\n}\n";
        const auto start = std::chrono::steady_clock::now();
        const Program p = parsePir(text, "combine.pir");
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        const Operation& combine = p.op(p.globalBlock().ops[1]);
        QCOMPARE(combine.operands.size(), kCount);
        QCOMPARE(combine.operands[kCount - 1], p.op(p.globalBlock().ops[0]).results[kCount - 1]);
        QCOMPARE(p.types()[p.value(combine.results[0]).type].elements.size(), kCount);
        QVERIFY2(seconds < 10.0, std::to_string(seconds).c_str());
        QCOMPARE(printProgram(p), text);
    }

    void duplicateResultInAWideListIsRejectedWhereItIs() {
        // The repeat is the last name of 50k: found by the hash set, reported at its column.
        constexpr size_t kCount = 50000;
        const std::string line = wideOp(kCount, [](size_t i) { return i + 1 == kCount ? numbered(123) : numbered(i); });
        const std::string text = "{\n" + line + "}\n";
        const size_t at = line.find("%123) =");
        try {
            parsePir(text, "dup.pir");
            QFAIL("parsed");
        } catch (const Error& e) {
            QCOMPARE(e.where().line, 2);
            QCOMPARE(e.where().column, static_cast<int>(at) + 1);
            QVERIFY2(std::string(e.what()).find("found '%123' defined twice") != std::string::npos, e.what());
        }
        // Named (non-numeric) results take the same path.
        const std::string named = "{\n" + wideOp(40, [](size_t i) { return i == 39 ? std::string("%a7") : "%a" + std::to_string(i); }) + "}\n";
        QVERIFY_THROWS_EXCEPTION(Error, parsePir(named, "dup.pir"));
        // And a short list still scans.
        QVERIFY_THROWS_EXCEPTION(Error, parsePir("{\n" + wideOp(3, [](size_t) { return std::string("%5"); }) + "}\n", "dup.pir"));
    }

    void hugeValueNumbersCostNoMemory() {
        // A 160-byte file naming %67108863 once took 265 MB (a table indexed by the number).
        const std::string text =
            "{\n    (%67108863) = \"pd_op.data\" () {} : () -> builtin.tensor<4xf32>\n"
            "    (%4294967294) = \"pd_op.relu\" (%67108863) {} : (builtin.tensor<4xf32>) -> builtin.tensor<4xf32>\n}\n";
        const int64_t peak = parsePeak(text);
        QVERIFY2(peak < 1 << 20, std::to_string(peak).c_str());
        const Program p = parsePir(text, "mem.pir");
        QCOMPARE(p.op(p.globalBlock().ops[1]).operands[0], p.op(p.globalBlock().ops[0]).results[0]);
        QCOMPARE(printProgram(p), text);
        // Sparse numbers mixed with dense ones resolve, and a repeat far out is still caught.
        std::string mixed = "{\n";
        for (int i = 0; i < 100; ++i)
            mixed += "    (%" + std::to_string(i * 1000003) + ") = \"pd_op.data\" () {} : () -> builtin.tensor<4xf32>\n";
        mixed += "    (%r) = \"pd_op.add\" (%0, %99000297) {} : (builtin.tensor<4xf32>, builtin.tensor<4xf32>) -> builtin.tensor<4xf32>\n}\n";
        const Program m = parsePir(mixed, "mem.pir");
        QCOMPARE(m.op(m.globalBlock().ops[100]).operands[1], m.op(m.globalBlock().ops[99]).results[0]);
        QVERIFY(parsePeak(mixed) < 1 << 20);
        QVERIFY_THROWS_EXCEPTION(Error, parsePir("{\n    (%67108863) = \"a\" () {} : () -> builtin.tensor<4xf32>\n"
                                                 "    (%67108863) = \"b\" () {} : () -> builtin.tensor<4xf32>\n}\n",
                                                 "mem.pir"));
    }

    void manyProgramsInOneFileReadInLinearTime() {
        // A pass log of 30k small programs without banners: the capacity estimate of each
        // program once scanned to the end of the file (quadratic).
        constexpr int kPrograms = 30000;
        std::string text;
        for (int i = 0; i < kPrograms; ++i)
            text += "{\n    (%" + std::to_string(i) + ") = \"pd_op.data\" () {} : () -> builtin.tensor<4xf32>\n}\n";
        const auto start = std::chrono::steady_clock::now();
        const auto listing = listPrograms(text, "log.pir");
        const Program last = parsePir(text, "log.pir");
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        QCOMPARE(listing.size(), size_t(kPrograms));
        QCOMPARE(listing.back().line, 3 * (kPrograms - 1) + 1);
        QCOMPARE(last.value(0).name, "%" + std::to_string(kPrograms - 1));
        QVERIFY2(seconds < 5.0, std::to_string(seconds).c_str());
    }

    void emptyProgramsAreValid() {
        for (const std::string text : {"{}", "{\n}\n", "  {  }  \n", "{\n\n}"}) {
            const Program p = parsePir(text, "empty.pir");
            QVERIFY(p.globalBlock().ops.empty());
            QVERIFY(p.values().empty());
            QVERIFY2(p.warnings().empty(), text.c_str());
            QCOMPARE(p.liveOpCount(), size_t(0));
            QCOMPARE(printProgram(p), std::string("{\n}\n"));
            QCOMPARE(listPrograms(text, "empty.pir").size(), size_t(1));
        }
        // Two empty programs in a pass log: both listed, the last loaded.
        const auto listing = listPrograms("{\n}\n{\n}\n", "log.pir");
        QCOMPARE(listing.size(), size_t(2));
        QCOMPARE(listing[1].line, 3);
        QCOMPARE(listing[1].opCount, size_t(0));
    }
};

QTEST_GUILESS_MAIN(PirLimitsTest)
#include "test_pir_limits.moc"
