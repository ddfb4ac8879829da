#pragma once
// A list of 32-bit ids in 16 bytes, up to 3 inline: an Operation's operands and results
// (nearly every op has at most 3 of each). A program of 1M ops holds two per op; as
// boost small_vectors they took 72 bytes of the op's 120 (issue 21 item 4). Longer lists
// live on the heap at their exact size plus growth room. Reads like a std::vector.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <iterator>
#include <span>
#include <stdexcept>

namespace rx {

class IdList {
public:
    using value_type = uint32_t;
    using size_type = size_t;
    using iterator = uint32_t*;
    using const_iterator = const uint32_t*;
    static constexpr uint32_t kInline = 3;

    IdList() = default;
    IdList(std::initializer_list<uint32_t> ids) { assign(ids.begin(), ids.end()); }
    IdList(const IdList& o) { assign(o.begin(), o.end()); }
    IdList(IdList&& o) noexcept : size_(o.size_) {
        std::memcpy(slots_, o.slots_, sizeof slots_);
        o.size_ = 0;  // the heap block, if any, is ours now
    }
    IdList& operator=(const IdList& o) {
        if (this != &o) assign(o.begin(), o.end());
        return *this;
    }
    IdList& operator=(IdList&& o) noexcept {
        if (this != &o) {
            release();
            size_ = o.size_;
            std::memcpy(slots_, o.slots_, sizeof slots_);
            o.size_ = 0;
        }
        return *this;
    }
    ~IdList() { release(); }

    size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    size_t capacity() const { return onHeap() ? slots_[0] : kInline; }
    uint32_t* data() { return onHeap() ? heap() : slots_; }
    const uint32_t* data() const { return onHeap() ? heap() : slots_; }
    uint32_t* begin() { return data(); }
    uint32_t* end() { return data() + size_; }
    const uint32_t* begin() const { return data(); }
    const uint32_t* end() const { return data() + size_; }
    std::reverse_iterator<const uint32_t*> rbegin() const { return std::reverse_iterator<const uint32_t*>(end()); }
    std::reverse_iterator<const uint32_t*> rend() const { return std::reverse_iterator<const uint32_t*>(begin()); }
    uint32_t& operator[](size_t i) { return data()[i]; }
    const uint32_t& operator[](size_t i) const { return data()[i]; }
    const uint32_t& at(size_t i) const {
        if (i >= size_) throw std::out_of_range("IdList::at");
        return data()[i];
    }
    uint32_t& front() { return data()[0]; }
    const uint32_t& front() const { return data()[0]; }
    uint32_t& back() { return data()[size_ - 1]; }
    const uint32_t& back() const { return data()[size_ - 1]; }

    template <class It>
    void assign(It first, It last) {
        const auto n = static_cast<uint32_t>(std::distance(first, last));
        resizeUninitialized(n);
        std::copy(first, last, data());
    }
    void push_back(uint32_t id) {
        const uint32_t n = size_;
        resizeUninitialized(n + 1);
        data()[n] = id;
    }
    void pop_back() { resizeUninitialized(size_ - 1); }
    void clear() { resizeUninitialized(0); }
    void resize(size_t n, uint32_t fill = 0) {
        const uint32_t old = size_;
        resizeUninitialized(static_cast<uint32_t>(n));
        if (n > old) std::fill(data() + old, data() + n, fill);
    }
    // Room for n ids without moving again (a heap list only; the inline one has its 3).
    void reserve(size_t n) {
        if (onHeap() && n > slots_[0]) grow(static_cast<uint32_t>(n));
    }
    void shrink_to_fit() {
        if (onHeap() && slots_[0] > size_) grow(size_);
    }

    friend bool operator==(const IdList& a, const IdList& b) { return std::equal(a.begin(), a.end(), b.begin(), b.end()); }

private:
    // Inline: slots_ hold the ids. On the heap (size_ > kInline): slots_[0] is the capacity,
    // slots_[1..2] the block's address (copied bytewise: slots_ is only 4-byte aligned).
    bool onHeap() const { return size_ > kInline; }
    uint32_t* heap() const {
        uint32_t* p;
        std::memcpy(&p, &slots_[1], sizeof p);
        return p;
    }
    void setHeap(uint32_t* p, uint32_t capacity) {
        slots_[0] = capacity;
        std::memcpy(&slots_[1], &p, sizeof p);
    }
    void release() {
        if (onHeap()) delete[] heap();
        size_ = 0;
    }
    // Moves a heap list to a block of `capacity` (>= size_, > kInline).
    void grow(uint32_t capacity) {
        uint32_t* block = new uint32_t[capacity];
        std::copy(begin(), end(), block);
        if (onHeap()) delete[] heap();
        setHeap(block, capacity);
    }
    // Sets the size to n, keeping the first min(n, size_) ids; new ids are unset.
    void resizeUninitialized(uint32_t n) {
        if (n <= kInline) {
            if (onHeap()) {  // back inline
                uint32_t* old = heap();
                std::copy(old, old + n, slots_);
                delete[] old;
            }
            size_ = n;
            return;
        }
        if (!onHeap()) {
            uint32_t* block = new uint32_t[n];
            std::copy(slots_, slots_ + size_, block);
            setHeap(block, n);
        } else if (n > slots_[0]) {
            grow(std::max(n, slots_[0] + slots_[0] / 2));
        }
        size_ = n;
    }

    uint32_t size_ = 0;
    uint32_t slots_[kInline] = {};
};
static_assert(sizeof(IdList) == 16);

}  // namespace rx
