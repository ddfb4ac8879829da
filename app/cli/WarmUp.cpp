// The CLI's heap settings and warm-up thread (heap pages faulted in ahead of the run,
// replaced files' cache dropped).
#include "app/cli/WarmUp.h"

#include <algorithm>
#include <cstdlib>
#include <thread>

#include <fcntl.h>
#include <malloc.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23  // Linux 5.14; older kernels answer EINVAL and nothing happens
#endif

namespace rx::cli {

namespace {

constexpr uintptr_t kPopulateStep = uintptr_t(2) << 20;  // one madvise call per step

void populate(uintptr_t begin, uintptr_t end) {
    // Faulting in never changes a byte (present pages are left as they are), so the main
    // thread may already be using the range; 2 MiB steps keep just ahead of it. The guest's
    // fault-in is not all of it: on this kind of VM the host backs a page only when it is first
    // accessed, ~1.3 ms/MB (5 us a page) even after MADV_POPULATE_WRITE, 0.2 ms/MB. So each
    // page is also read once here, an atomic load (the main thread may be writing it; a read
    // changes nothing): 1 GB costs this thread ~1.4 s that the run's threads no longer pay.
    const auto page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
    for (uintptr_t at = begin; at < end; at += kPopulateStep) {
        const uintptr_t len = std::min(kPopulateStep, end - at);
        if (::madvise(reinterpret_cast<void*>(at), len, MADV_POPULATE_WRITE) != 0) return;
        for (uintptr_t p = at; p < at + len; p += page)
            (void)__atomic_load_n(reinterpret_cast<const char*>(p), __ATOMIC_RELAXED);
    }
}

void dropCachedPages(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) return;
    struct stat st{};
    if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    ::close(fd);
}

}  // namespace

void configureHeapForLargeRuns() {
    // A solve allocates and frees many mid-sized arrays; glibc's default of returning them to
    // the kernel (mmap/trim) makes page faults dominate the run (bench_solve: ~4x wall time).
    mallopt(M_MMAP_MAX, 0);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
    // Small pages, not transparent huge ones: on this kind of VM (a balloon that hands freed
    // 2 MiB blocks back to the host) a huge page first touched after a pause costs ~2.8 ms/MB
    // against ~0.45 for small pages, which come from blocks the guest still holds. A 56k-op
    // solve after a 3 s pause: 151 ms with glibc.malloc.hugetlb=1, 70 ms without (3% slower
    // back to back, where huge pages are still backed).
    // One arena for every thread: the writer and rewrite threads then reuse the main heap's
    // pages (freed by the parse, or faulted in by the warm-up) instead of first-touching a
    // fresh 64 MiB arena each; they allocate little, so the shared lock costs nothing measurable.
    mallopt(M_ARENA_MAX, 1);
}

uint64_t expectedHeapBytes(uint64_t programBytes) {
    constexpr uint64_t kCap = uint64_t(1) << 30;  // beyond this the run's own faults are a small part
    return std::min(programBytes * 6, kCap);
}

void warmUpAsync(uint64_t heapBytes, std::vector<std::string> replacedFiles) {
    uintptr_t begin = 0, end = 0;
    if (heapBytes >= kPopulateStep) {
        // One allocation the size of the run grows the heap's top by that much
        // (configureHeapForLargeRuns keeps glibc from mmap-ing or trimming it); freed at once,
        // it is the top chunk the next allocations are carved from, lowest addresses first.
        if (void* block = std::malloc(heapBytes)) {
            const auto at = reinterpret_cast<uintptr_t>(block);
            const auto page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));  // madvise wants page-aligned ranges
            begin = (at + page - 1) & ~(page - 1);
            end = at + heapBytes;
            std::free(block);
        }
    }
    if (begin >= end && replacedFiles.empty()) return;
    std::thread([begin, end, files = std::move(replacedFiles)] {
        if (begin < end) populate(begin, end);
        for (const auto& f : files) dropCachedPages(f);
    }).detach();
}

}  // namespace rx::cli
