#pragma once
// The CLI's memory policy for big runs: glibc's heap kept and grown in large steps, and a
// warm-up on the core the parse leaves idle (heap pages faulted in ahead of the run, files
// about to be replaced dropping their page cache).
#include <cstdint>
#include <string>
#include <vector>

namespace rx::cli {

// Sets glibc's malloc for runs that allocate and free many large arrays; call first in main
// (the thread arenas it limits are created on a thread's first allocation).
void configureHeapForLargeRuns();

// Starts the warm-up on a detached thread and returns at once (recompute-cli ends by _exit,
// which stops the thread wherever it is). `heapBytes` of the heap's free top are faulted in
// writable and then read once a page, low addresses first, as the allocator hands them out:
// the first touch of fresh memory is costly on this kind of VM and paid by the run's threads
// otherwise (a 56k-op solve after a pause: 84 ms with the warm-up, 109 ms without, medians of
// 10 pairs). Measured 2026-12-06: a demand fault 2.75 ms/MB; MADV_POPULATE_WRITE 0.2 ms/MB,
// but the host backs each page only on its first access, 1.3 ms/MB more, hence the read (1M-op
// `solve --budget 0.5`: 4.53 s with the fault-in alone, 3.56 s with the read, medians of 5). Each of
// `replacedFiles` that exists as a regular file has its clean cached pages dropped, ahead of
// the rename that replaces it. (Most of the ~9 ms that rename took for an 11 MB file was the
// disk trimming the blocks, which AtomicFile now leaves to a detached process; with that, the
// drop measures within noise on the 56k-op chain: 135 vs 134 ms, 30 runs.) Neither changes
// any content; both are advice a kernel may refuse.
void warmUpAsync(uint64_t heapBytes, std::vector<std::string> replacedFiles);

// The heap a run of a program file of `programBytes` will at least use: reading, analysis
// and solve take 5.5-7x the text's size (56k-op chain: 8 MB -> 55 MB of heap; 99k-op
// transformer: 17.6 MB -> 98 MB), so 6x is faulted in (chain: 55.6 -> 56.5 MiB peak RSS against
// 5x, 3-5% less time; 7x raises the transformer's RSS by a fifth).
uint64_t expectedHeapBytes(uint64_t programBytes);

}  // namespace rx::cli
