#pragma once
// A caching device allocator (best fit with block splitting and coalescing, after PyTorch's
// CUDACachingAllocator and Paddle's auto-growth allocator). The bookkeeping is plain C++ over
// an abstract BackingStore, so it is tested on the host with a fake store; CudaBackingStore
// (cuda/CudaRuntime.h) supplies cudaMalloc/cudaFree.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <unordered_map>

namespace rx::cuda {

// Where segments come from. allocate returns nullopt when the store is out of memory.
class BackingStore {
public:
    virtual ~BackingStore() = default;
    virtual std::optional<uintptr_t> allocate(size_t bytes) = 0;
    virtual void release(uintptr_t address, size_t bytes) = 0;
};

// Thrown when a request cannot be met even after the cache was emptied.
class OutOfMemory : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct AllocatorStats {
    int64_t requestedBytes = 0;      // sum of live requests as asked (before rounding)
    int64_t allocatedBytes = 0;      // sum of live blocks (rounded sizes)
    int64_t reservedBytes = 0;       // sum of segments held from the store
    int64_t peakRequestedBytes = 0;
    int64_t peakAllocatedBytes = 0;
    int64_t peakReservedBytes = 0;
    // Most requested bytes live at once since startPeakWindow() (an op's peak, say), while the
    // peaks above span everything since resetPeaks().
    int64_t windowPeakRequestedBytes = 0;
    int64_t segments = 0;            // segments held now
    int64_t liveBlocks = 0;
    int64_t allocations = 0;         // allocate() calls served
    int64_t cacheHits = 0;           // served from a cached free block (no store call)
    int64_t storeAllocations = 0;    // segments obtained from the store
    int64_t storeReleases = 0;       // segments given back
    int64_t splits = 0;              // a free block cut into a used part and a free rest
    int64_t merges = 0;              // a freed block joined with a free neighbour
    int64_t oomRetries = 0;          // store refused; cache emptied and retried
};

class CachingAllocator {
public:
    // Requests are rounded up to kRound bytes. Requests up to kSmallRequest come from
    // kSmallSegment segments (small pool); larger ones from their own segments rounded to
    // kLargeRound (large pool). A free rest is split off when it is at least kRound bytes
    // (small pool) or more than kSmallRequest bytes (large pool), as PyTorch does, so large
    // segments do not fill up with slivers.
    static constexpr size_t kRound = 512;
    static constexpr size_t kSmallRequest = size_t(1) << 20;
    static constexpr size_t kSmallSegment = size_t(2) << 20;
    static constexpr size_t kLargeRound = size_t(2) << 20;

    explicit CachingAllocator(BackingStore& store) : store_(store) {}
    ~CachingAllocator();
    CachingAllocator(const CachingAllocator&) = delete;
    CachingAllocator& operator=(const CachingAllocator&) = delete;

    // Address of a block of at least `bytes` (0 is served as kRound). Throws OutOfMemory.
    uintptr_t allocate(size_t bytes);
    // Frees a block from allocate(); it stays cached. Throws std::invalid_argument for an
    // address that is not a live block.
    void free(uintptr_t address);
    // Gives every entirely free segment back to the store; returns the bytes released.
    size_t emptyCache();
    void resetPeaks();
    // Starts a new windowPeakRequestedBytes at the requested bytes live now.
    void startPeakWindow() { stats_.windowPeakRequestedBytes = stats_.requestedBytes; }

    const AllocatorStats& stats() const { return stats_; }
    // Bytes reserved but not allocated (cached in free blocks).
    int64_t cachedBytes() const { return stats_.reservedBytes - stats_.allocatedBytes; }
    // External fragmentation of the cache: 1 - largest free block / all free bytes (0 when
    // nothing is cached, or all of it is one block).
    double fragmentation() const;
    size_t largestFreeBlock() const;
    // Size of the live block at `address` (its rounded size), 0 if none.
    size_t blockSize(uintptr_t address) const;

    static size_t roundRequest(size_t bytes);

private:
    struct Block {
        uintptr_t address = 0;
        size_t size = 0;
        size_t requested = 0;
        bool free = true;
        bool small = false;
        Block* prev = nullptr;   // neighbours inside the same segment
        Block* next = nullptr;
        uintptr_t segment = 0;   // segment base address
        size_t segmentSize = 0;
    };
    struct BySizeThenAddress {
        bool operator()(const Block* a, const Block* b) const {
            return a->size != b->size ? a->size < b->size : a->address < b->address;
        }
    };
    using FreeSet = std::set<Block*, BySizeThenAddress>;

    FreeSet& pool(bool small) { return small ? smallFree_ : largeFree_; }
    Block* findFree(bool small, size_t size);
    Block* newSegment(bool small, size_t size);
    bool shouldSplit(const Block& b, size_t size) const;
    void bumpPeaks();

    BackingStore& store_;
    FreeSet smallFree_, largeFree_;
    std::unordered_map<uintptr_t, Block*> live_;      // address -> used block
    std::unordered_map<uintptr_t, Block*> segments_;  // segment base -> its first block
    AllocatorStats stats_;
};

// A fake store for tests and dry runs: hands out increasing addresses from a virtual
// space of `capacity` bytes (aligned to 512) and counts what is held.
class HostBackingStore final : public BackingStore {
public:
    explicit HostBackingStore(size_t capacity) : capacity_(capacity) {}
    std::optional<uintptr_t> allocate(size_t bytes) override;
    void release(uintptr_t address, size_t bytes) override;
    size_t held() const { return held_; }
    int64_t calls() const { return calls_; }
    void setCapacity(size_t c) { capacity_ = c; }

private:
    size_t capacity_;
    size_t held_ = 0;
    uintptr_t next_ = 0x10000;
    int64_t calls_ = 0;
    std::unordered_map<uintptr_t, size_t> live_;
};

}  // namespace rx::cuda
