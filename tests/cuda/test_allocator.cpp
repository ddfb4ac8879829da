// The caching allocator's bookkeeping on a fake backing store (runs without a GPU): best fit,
// splitting, coalescing, statistics, fragmentation, OOM retry, and the lifetime replay of a
// generated program against the CPU executor's peak.
#include <QtTest>

#include <map>
#include <random>

#include "exec/cpu/CpuExecutor.h"
#include "algorithms/zoo/ModelZoo.h"
#include "cuda/CachingAllocator.h"
#include "cuda/LifetimePlan.h"

using namespace rx;
using namespace rx::cuda;

namespace {
constexpr size_t KiB = 1024, MiB = 1024 * 1024;
}

class TestAllocator : public QObject {
    Q_OBJECT
private slots:
    void roundsRequests() {
        QCOMPARE(CachingAllocator::roundRequest(0), size_t(512));
        QCOMPARE(CachingAllocator::roundRequest(1), size_t(512));
        QCOMPARE(CachingAllocator::roundRequest(512), size_t(512));
        QCOMPARE(CachingAllocator::roundRequest(513), size_t(1024));
    }

    void smallRequestsShareOneSegmentAndSplit() {
        HostBackingStore store(64 * MiB);
        CachingAllocator a(store);
        uintptr_t x = a.allocate(1000), y = a.allocate(4000), z = a.allocate(100);
        QCOMPARE(a.stats().segments, int64_t(1));
        QCOMPARE(a.stats().reservedBytes, int64_t(CachingAllocator::kSmallSegment));
        QCOMPARE(a.stats().storeAllocations, int64_t(1));
        QCOMPARE(a.stats().splits, int64_t(3));
        QCOMPARE(y, x + 1024);            // carved in order from the segment
        QCOMPARE(z, y + 4096);
        QCOMPARE(a.stats().allocatedBytes, int64_t(1024 + 4096 + 512));
        QCOMPARE(a.stats().requestedBytes, int64_t(1000 + 4000 + 100));
        QCOMPARE(a.blockSize(y), size_t(4096));
    }

    void bestFitPicksTheSmallestFreeBlock() {
        HostBackingStore store(64 * MiB);
        CachingAllocator a(store);
        uintptr_t big = a.allocate(8 * KiB);
        uintptr_t sep1 = a.allocate(512);
        uintptr_t mid = a.allocate(3 * KiB);
        uintptr_t sep2 = a.allocate(512);
        a.free(big);
        a.free(mid);
        int64_t hitsBefore = a.stats().cacheHits;
        uintptr_t got = a.allocate(3 * KiB);  // fits both holes; best fit is the 3 KiB one
        QCOMPARE(got, mid);
        QCOMPARE(a.stats().cacheHits, hitsBefore + 1);
        uintptr_t got2 = a.allocate(2 * KiB);  // the 8 KiB hole, split
        QCOMPARE(got2, big);
        QCOMPARE(a.blockSize(got2), size_t(2 * KiB));
        Q_UNUSED(sep1); Q_UNUSED(sep2);
    }

    void freeCoalescesNeighboursAndEmptyCacheReleases() {
        HostBackingStore store(64 * MiB);
        CachingAllocator a(store);
        uintptr_t x = a.allocate(1 * KiB), y = a.allocate(1 * KiB), z = a.allocate(1 * KiB);
        a.free(x);
        a.free(z);   // z merges with the segment's free tail
        QCOMPARE(a.stats().merges, int64_t(1));
        QVERIFY(a.fragmentation() > 0.0);  // two holes: x's and z's + tail
        a.free(y);   // joins both sides: one free block spanning the segment
        QCOMPARE(a.stats().merges, int64_t(3));
        QCOMPARE(a.largestFreeBlock(), CachingAllocator::kSmallSegment);
        QCOMPARE(a.fragmentation(), 0.0);
        QCOMPARE(a.stats().allocatedBytes, int64_t(0));
        QCOMPARE(a.cachedBytes(), int64_t(CachingAllocator::kSmallSegment));
        QCOMPARE(a.emptyCache(), CachingAllocator::kSmallSegment);
        QCOMPARE(a.stats().reservedBytes, int64_t(0));
        QCOMPARE(store.held(), size_t(0));
        QCOMPARE(a.stats().storeReleases, int64_t(1));
    }

    void fragmentationIsOneMinusLargestOverCached() {
        HostBackingStore store(64 * MiB);
        CachingAllocator a(store);
        std::vector<uintptr_t> blocks;
        for (int i = 0; i < 4096; ++i) blocks.push_back(a.allocate(512));  // fills the 2 MiB segment
        QCOMPARE(a.stats().segments, int64_t(1));
        QCOMPARE(a.cachedBytes(), int64_t(0));
        for (size_t i = 0; i < blocks.size(); i += 2) a.free(blocks[i]);   // every other block
        QCOMPARE(a.cachedBytes(), int64_t(2048 * 512));
        QCOMPARE(a.largestFreeBlock(), size_t(512));
        QCOMPARE(a.fragmentation(), 1.0 - 1.0 / 2048.0);
    }

    void largeRequestsGetTheirOwnSegments() {
        HostBackingStore store(1024 * MiB);
        CachingAllocator a(store);
        uintptr_t x = a.allocate(3 * MiB);   // 4 MiB segment; a 1 MiB rest is not split off
        QCOMPARE(a.stats().reservedBytes, int64_t(4 * MiB));
        QCOMPARE(a.blockSize(x), size_t(4 * MiB));
        uintptr_t y = a.allocate(5 * MiB);   // 6 MiB segment
        QCOMPARE(a.stats().segments, int64_t(2));
        a.free(x);
        uintptr_t z = a.allocate(1 * MiB + 1);  // large pool: reuses x's segment, splits (rest 2.5 MiB > 1 MiB)
        QCOMPARE(z, x);
        QCOMPARE(a.stats().segments, int64_t(2));
        QCOMPARE(a.blockSize(z), CachingAllocator::roundRequest(MiB + 1));
        uintptr_t s = a.allocate(100);        // small requests never come from large segments
        QCOMPARE(a.stats().segments, int64_t(3));
        Q_UNUSED(y); Q_UNUSED(s);
    }

    void peaksTrackTheMaximumAndReset() {
        HostBackingStore store(1024 * MiB);
        CachingAllocator a(store);
        uintptr_t x = a.allocate(10 * MiB);
        uintptr_t y = a.allocate(20 * MiB);
        a.free(x);
        a.free(y);
        QCOMPARE(a.stats().peakAllocatedBytes, int64_t(30 * MiB));
        QCOMPARE(a.stats().peakRequestedBytes, int64_t(30 * MiB));
        QCOMPARE(a.stats().peakReservedBytes, int64_t(30 * MiB));
        QCOMPARE(a.stats().allocatedBytes, int64_t(0));
        QCOMPARE(a.stats().reservedBytes, int64_t(30 * MiB));  // cached, not returned
        a.resetPeaks();
        QCOMPARE(a.stats().peakAllocatedBytes, int64_t(0));
        QCOMPARE(a.stats().peakReservedBytes, int64_t(30 * MiB));
    }

    // An op's peak (what the CUDA executor measures per op): the most requested bytes since
    // the window started, while the run's peak keeps its maximum.
    void aPeakWindowStartsAtTheBytesHeldNow() {
        HostBackingStore store(1024 * MiB);
        CachingAllocator a(store);
        uintptr_t x = a.allocate(10 * MiB);
        uintptr_t y = a.allocate(20 * MiB + 3);
        a.free(y);
        a.startPeakWindow();
        QCOMPARE(a.stats().windowPeakRequestedBytes, int64_t(10 * MiB));
        uintptr_t z = a.allocate(5 * MiB);
        a.free(z);
        QCOMPARE(a.stats().windowPeakRequestedBytes, int64_t(15 * MiB));
        QCOMPARE(a.stats().peakRequestedBytes, int64_t(30 * MiB + 3));
        a.free(x);
        a.startPeakWindow();
        QCOMPARE(a.stats().windowPeakRequestedBytes, int64_t(0));
    }

    void outOfMemoryEmptiesTheCacheAndRetries() {
        HostBackingStore store(10 * MiB);
        CachingAllocator a(store);
        uintptr_t x = a.allocate(3 * MiB);   // 4 MiB segment
        a.free(x);                           // cached
        uintptr_t y = a.allocate(7 * MiB);   // needs 8 MiB: 4 + 8 > 10, so the cache is emptied
        QCOMPARE(a.stats().oomRetries, int64_t(1));
        QCOMPARE(a.stats().storeReleases, int64_t(1));
        QCOMPARE(a.stats().reservedBytes, int64_t(8 * MiB));
        QVERIFY_THROWS_EXCEPTION(OutOfMemory, a.allocate(4 * MiB));  // 8 + 4 > 10 even after emptying
        QCOMPARE(a.stats().allocatedBytes, int64_t(8 * MiB));        // the failure changed nothing
        a.free(y);
        QCOMPARE(a.stats().allocatedBytes, int64_t(0));
    }

    void freeOfAnUnknownAddressThrows() {
        HostBackingStore store(64 * MiB);
        CachingAllocator a(store);
        uintptr_t x = a.allocate(100);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, a.free(x + 512));
        a.free(x);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, a.free(x));  // double free
    }

    void randomWorkloadKeepsInvariants() {
        HostBackingStore store(4096 * MiB);
        std::mt19937_64 rng(7);
        {
            CachingAllocator a(store);
            std::map<uintptr_t, size_t> live;  // address -> requested
            for (int step = 0; step < 20000; ++step) {
                bool doAlloc = live.empty() || rng() % 100 < 55;
                if (doAlloc) {
                    size_t bytes = rng() % 4 == 0 ? rng() % (8 * MiB) : rng() % (64 * KiB);
                    uintptr_t p = a.allocate(bytes);
                    QVERIFY(!live.count(p));
                    live[p] = bytes;
                } else {
                    auto it = live.begin();
                    std::advance(it, static_cast<long>(rng() % live.size()));
                    a.free(it->first);
                    live.erase(it);
                }
            }
            // live blocks never overlap; stats agree with the live set
            int64_t allocated = 0, requested = 0;
            uintptr_t end = 0;
            for (auto& [p, bytes] : live) {
                QVERIFY(p >= end);
                size_t size = a.blockSize(p);
                QVERIFY(size >= bytes);
                end = p + size;
                allocated += static_cast<int64_t>(size);
                requested += static_cast<int64_t>(bytes);
            }
            QCOMPARE(a.stats().allocatedBytes, allocated);
            QCOMPARE(a.stats().requestedBytes, requested);
            QCOMPARE(a.stats().liveBlocks, int64_t(live.size()));
            QVERIFY(a.stats().reservedBytes >= a.stats().allocatedBytes);
            QCOMPARE(static_cast<int64_t>(store.held()), a.stats().reservedBytes);
            for (auto& [p, bytes] : live) a.free(p);
            QCOMPARE(a.stats().allocatedBytes, int64_t(0));
            a.emptyCache();  // releases only whole free segments: all must have coalesced
            QCOMPARE(a.stats().reservedBytes, int64_t(0));
            QCOMPARE(store.held(), size_t(0));
        }
        QCOMPARE(store.held(), size_t(0));
    }

    void destructorReturnsEverySegment() {
        HostBackingStore store(64 * MiB);
        {
            CachingAllocator a(store);
            a.allocate(100);
            a.allocate(3 * MiB);
            QVERIFY(store.held() > 0);
        }
        QCOMPARE(store.held(), size_t(0));
    }

    // The executor frees each value after its last use as the CPU executor does: replaying
    // those lifetimes through the allocator peaks at exactly the CPU executor's peak.
    void lifetimeReplayMatchesTheCpuExecutorsPeak() {
        for (const char* model : {"transformer", "llama"}) {
            zoo::ZooOptions zo;
            zo.model = model;
            zo.layers = 2;
            zo.hidden = 32;
            zo.heads = 2;
            zo.seq = 8;
            zo.batch = 2;
            zoo::GeneratedProgram g = zoo::generateModel(zo);
            exec::CpuExecutor cpu;
            exec::RunOptions ro;
            ro.residentValues = g.spec.inputs;
            exec::RunResult r = cpu.run(*g.program, {}, ro);
            LifetimePlan plan = planLifetimes(*g.program, g.spec.inputs, true);
            ReplayStats s = replayAllocations(*g.program, plan);
            QCOMPARE(s.peakRequestedBytes, r.peakBytes);
            QVERIFY(s.peakAllocatedBytes >= s.peakRequestedBytes);
            QVERIFY(s.peakReservedBytes >= s.peakAllocatedBytes);
            // and a plan where nothing is freed peaks higher
            LifetimePlan keepAll = plan;
            keepAll.liveness.freedAfter.clearAll();  // storage is freed where the liveness says
            QVERIFY(replayAllocations(*g.program, keepAll).peakRequestedBytes > s.peakRequestedBytes);
        }
    }
};

QTEST_GUILESS_MAIN(TestAllocator)
#include "test_allocator.moc"
