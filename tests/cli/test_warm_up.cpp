// The CLI's warm-up thread (app/cli/WarmUp): faulting heap pages in while the run already
// writes to them changes no byte, dropping a replaced file's cache keeps its content, and
// odd paths (missing, a folder) are ignored.
#include <QtTest>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#include <sys/mman.h>
#include <unistd.h>

#include "app/cli/WarmUp.h"
#include "support/FileContents.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

namespace {

uint64_t residentBytes() {
    std::ifstream statm("/proc/self/statm");
    uint64_t size = 0, resident = 0;
    statm >> size >> resident;
    return resident * uint64_t(::sysconf(_SC_PAGESIZE));
}

}  // namespace

class WarmUp : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { rx::cli::configureHeapForLargeRuns(); }  // as main() does

    void heapEstimateIsBoundedAndProportional() {
        QCOMPARE(rx::cli::expectedHeapBytes(0), uint64_t(0));
        QCOMPARE(rx::cli::expectedHeapBytes(8 << 20), uint64_t(48) << 20);
        QCOMPARE(rx::cli::expectedHeapBytes(uint64_t(1) << 40), uint64_t(1) << 30);  // capped
    }

    // The heap's next pages are resident after the warm-up, before anything touched them.
    void faultsInTheHeapAhead() {
        void* probe = ::mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        const bool supported = ::madvise(probe, 4096, MADV_POPULATE_WRITE) == 0;
        ::munmap(probe, 4096);
        if (!supported) QSKIP("this kernel has no MADV_POPULATE_WRITE (Linux < 5.14)");
        const uint64_t before = residentBytes();
        rx::cli::warmUpAsync(uint64_t(32) << 20, {});
        for (int i = 0; i < 100 && residentBytes() < before + (uint64_t(24) << 20); ++i)
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        QVERIFY2(residentBytes() >= before + (uint64_t(24) << 20), "32 MiB of heap not faulted in within 2 s");
    }

    // The allocations the warm-up races with keep what the program writes into them.
    void faultingInChangesNoByte() {
        const std::string folder = QDir::tempPath().toStdString() + "/rx-warm-up-test";
        std::filesystem::create_directories(folder);
        const std::string replaced = folder + "/old-report.json";
        const std::string content(3 << 20, 'r');
        std::ofstream(replaced, std::ios::binary) << content;

        rx::cli::warmUpAsync(uint64_t(64) << 20, {replaced, folder + "/missing.json", folder});
        // Allocate and fill while the warm-up walks the same heap, then check every byte.
        std::vector<unsigned char*> blocks;
        for (int i = 0; i < 24; ++i) {
            auto* p = static_cast<unsigned char*>(std::malloc(size_t(2) << 20));
            QVERIFY(p);
            std::memset(p, 0x5a ^ i, size_t(2) << 20);
            blocks.push_back(p);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(200));  // let the warm-up finish
        for (int i = 0; i < int(blocks.size()); ++i) {
            const unsigned char want = static_cast<unsigned char>(0x5a ^ i);
            for (size_t at = 0; at < (size_t(2) << 20); at += 4093)
                if (blocks[size_t(i)][at] != want) QFAIL(qPrintable(QString("block %1 changed at %2").arg(i).arg(at)));
        }
        for (auto* p : blocks) std::free(p);
        QCOMPARE(rx::testing::fileContents(replaced), content);  // dropping cached pages loses nothing
        std::filesystem::remove_all(folder);
    }
};

QTEST_GUILESS_MAIN(WarmUp)
#include "test_warm_up.moc"
