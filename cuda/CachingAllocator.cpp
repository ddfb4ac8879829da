// The caching allocator's bookkeeping: best-fit lookup, splitting, coalescing, statistics.
#include "cuda/CachingAllocator.h"

#include <algorithm>
#include <vector>

namespace rx::cuda {

size_t CachingAllocator::roundRequest(size_t bytes) {
    if (bytes == 0) return kRound;
    return (bytes + kRound - 1) / kRound * kRound;
}

CachingAllocator::~CachingAllocator() {
    // Give every segment back, used or not: the owner is gone, nobody can free the blocks.
    for (auto& [base, first] : segments_) {
        size_t segSize = first->segmentSize;
        for (Block* b = first; b;) {
            Block* next = b->next;
            delete b;
            b = next;
        }
        store_.release(base, segSize);
    }
}

bool CachingAllocator::shouldSplit(const Block& b, size_t size) const {
    size_t rest = b.size - size;
    return b.small ? rest >= kRound : rest > kSmallRequest;
}

CachingAllocator::Block* CachingAllocator::findFree(bool small, size_t size) {
    FreeSet& p = pool(small);
    Block key;
    key.size = size;
    key.address = 0;
    auto it = p.lower_bound(&key);  // smallest block >= size, lowest address among equals
    if (it == p.end()) return nullptr;
    Block* b = *it;
    p.erase(it);
    return b;
}

CachingAllocator::Block* CachingAllocator::newSegment(bool small, size_t size) {
    size_t segSize = small ? kSmallSegment : (size + kLargeRound - 1) / kLargeRound * kLargeRound;
    std::optional<uintptr_t> base = store_.allocate(segSize);
    if (!base) {
        ++stats_.oomRetries;
        emptyCache();
        base = store_.allocate(segSize);
    }
    if (!base) return nullptr;
    auto* b = new Block;
    b->address = *base;
    b->size = segSize;
    b->small = small;
    b->segment = *base;
    b->segmentSize = segSize;
    segments_[*base] = b;
    ++stats_.storeAllocations;
    ++stats_.segments;
    stats_.reservedBytes += static_cast<int64_t>(segSize);
    return b;
}

void CachingAllocator::bumpPeaks() {
    stats_.peakRequestedBytes = std::max(stats_.peakRequestedBytes, stats_.requestedBytes);
    stats_.windowPeakRequestedBytes = std::max(stats_.windowPeakRequestedBytes, stats_.requestedBytes);
    stats_.peakAllocatedBytes = std::max(stats_.peakAllocatedBytes, stats_.allocatedBytes);
    stats_.peakReservedBytes = std::max(stats_.peakReservedBytes, stats_.reservedBytes);
}

uintptr_t CachingAllocator::allocate(size_t bytes) {
    const size_t size = roundRequest(bytes);
    const bool small = size <= kSmallRequest;
    Block* b = findFree(small, size);
    if (b) {
        ++stats_.cacheHits;
    } else {
        b = newSegment(small, size);
        if (!b)
            throw OutOfMemory("out of device memory: cannot allocate " + std::to_string(bytes) + " bytes (" +
                              std::to_string(stats_.allocatedBytes) + " allocated, " +
                              std::to_string(stats_.reservedBytes) + " reserved after emptying the cache)");
    }
    if (shouldSplit(*b, size)) {
        auto* rest = new Block;
        rest->address = b->address + size;
        rest->size = b->size - size;
        rest->small = b->small;
        rest->segment = b->segment;
        rest->segmentSize = b->segmentSize;
        rest->prev = b;
        rest->next = b->next;
        if (b->next) b->next->prev = rest;
        b->next = rest;
        b->size = size;
        pool(rest->small).insert(rest);
        ++stats_.splits;
    }
    b->free = false;
    b->requested = bytes;
    live_[b->address] = b;
    ++stats_.allocations;
    ++stats_.liveBlocks;
    stats_.allocatedBytes += static_cast<int64_t>(b->size);
    stats_.requestedBytes += static_cast<int64_t>(bytes);
    bumpPeaks();
    return b->address;
}

void CachingAllocator::free(uintptr_t address) {
    auto it = live_.find(address);
    if (it == live_.end())
        throw std::invalid_argument("free of address " + std::to_string(address) + ", which is not a live block");
    Block* b = it->second;
    live_.erase(it);
    --stats_.liveBlocks;
    stats_.allocatedBytes -= static_cast<int64_t>(b->size);
    stats_.requestedBytes -= static_cast<int64_t>(b->requested);
    b->free = true;
    b->requested = 0;
    FreeSet& p = pool(b->small);
    if (b->prev && b->prev->free) {  // absorb b into its free predecessor
        Block* prev = b->prev;
        p.erase(prev);
        prev->size += b->size;
        prev->next = b->next;
        if (b->next) b->next->prev = prev;
        delete b;
        b = prev;
        ++stats_.merges;
    }
    if (b->next && b->next->free) {  // absorb the free successor
        Block* next = b->next;
        p.erase(next);
        b->size += next->size;
        b->next = next->next;
        if (next->next) next->next->prev = b;
        delete next;
        ++stats_.merges;
    }
    p.insert(b);
}

size_t CachingAllocator::emptyCache() {
    size_t released = 0;
    std::vector<uintptr_t> whole;
    for (auto& [base, first] : segments_)
        if (first->free && !first->next) whole.push_back(base);
    for (uintptr_t base : whole) {
        Block* b = segments_[base];
        pool(b->small).erase(b);
        size_t segSize = b->segmentSize;
        store_.release(base, segSize);
        segments_.erase(base);
        delete b;
        released += segSize;
        ++stats_.storeReleases;
        --stats_.segments;
        stats_.reservedBytes -= static_cast<int64_t>(segSize);
    }
    return released;
}

void CachingAllocator::resetPeaks() {
    stats_.peakRequestedBytes = stats_.requestedBytes;
    stats_.windowPeakRequestedBytes = stats_.requestedBytes;
    stats_.peakAllocatedBytes = stats_.allocatedBytes;
    stats_.peakReservedBytes = stats_.reservedBytes;
}

size_t CachingAllocator::largestFreeBlock() const {
    size_t best = 0;
    if (!smallFree_.empty()) best = std::max(best, (*smallFree_.rbegin())->size);
    if (!largeFree_.empty()) best = std::max(best, (*largeFree_.rbegin())->size);
    return best;
}

double CachingAllocator::fragmentation() const {
    int64_t cached = cachedBytes();
    if (cached <= 0) return 0.0;
    return 1.0 - static_cast<double>(largestFreeBlock()) / static_cast<double>(cached);
}

size_t CachingAllocator::blockSize(uintptr_t address) const {
    auto it = live_.find(address);
    return it == live_.end() ? 0 : it->second->size;
}

std::optional<uintptr_t> HostBackingStore::allocate(size_t bytes) {
    ++calls_;
    if (held_ + bytes > capacity_) return std::nullopt;
    uintptr_t a = next_;
    next_ += (bytes + 511) / 512 * 512 + 512;  // a gap, so neighbouring segments never touch
    held_ += bytes;
    live_[a] = bytes;
    return a;
}

void HostBackingStore::release(uintptr_t address, size_t bytes) {
    auto it = live_.find(address);
    if (it == live_.end() || it->second != bytes)
        throw std::logic_error("HostBackingStore: release of a segment it did not hand out");
    held_ -= bytes;
    live_.erase(it);
}

}  // namespace rx::cuda
