#pragma once
// An append-only text buffer for the writers: its appends inline. std::string's members are
// extern templates, so each `+=` of a printer was a call into libstdc++ (with a PLT memcpy);
// for output made of many short pieces those calls were a third of the printing.
#include <charconv>
#include <cstddef>
#include <cstring>
#include <memory>
#include <string_view>

namespace rx {

class TextBuffer {
public:
    TextBuffer() = default;
    TextBuffer(const TextBuffer&) = delete;
    TextBuffer& operator=(const TextBuffer&) = delete;

    // Exactly `bytes` (the streaming writers' chunk: doubling past it would allocate, and on
    // a VM first-touch, twice the pages).
    void reserve(size_t bytes) {
        if (capacity() < bytes) reallocate(bytes);
    }
    void append(const char* bytes, size_t n) {
        if (static_cast<size_t>(cap_ - end_) < n) grow(n);
        if (n) std::memcpy(end_, bytes, n);
        end_ += n;
    }
    void append(std::string_view s) { append(s.data(), s.size()); }
    void appendSpaces(size_t n) {
        if (static_cast<size_t>(cap_ - end_) < n) grow(n);
        std::memset(end_, ' ', n);
        end_ += n;
    }
    template <class Integer>
    void appendDecimal(Integer n) {
        constexpr size_t kMaxDigits = 24;  // any 64-bit integer with its sign
        if (static_cast<size_t>(cap_ - end_) < kMaxDigits) grow(kMaxDigits);
        end_ = std::to_chars(end_, end_ + kMaxDigits, n).ptr;
    }
    TextBuffer& operator+=(std::string_view s) {
        append(s.data(), s.size());
        return *this;
    }
    TextBuffer& operator+=(char c) {
        if (end_ == cap_) grow(1);
        *end_++ = c;
        return *this;
    }

    size_t size() const { return static_cast<size_t>(end_ - begin_); }
    size_t capacity() const { return static_cast<size_t>(cap_ - begin_); }
    bool empty() const { return end_ == begin_; }
    std::string_view view() const { return {begin_, size()}; }
    void clear() { end_ = begin_; }  // keeps the capacity

private:
    // At least `more` bytes free after the end; capacity at least doubles.
    void grow(size_t more) {
        const size_t used = size();
        size_t want = capacity() ? capacity() * 2 : 4096;
        while (want - used < more) want *= 2;
        reallocate(want);
    }
    void reallocate(size_t capacity) {
        const size_t used = size();
        auto fresh = std::make_unique_for_overwrite<char[]>(capacity);
        if (used) std::memcpy(fresh.get(), begin_, used);
        data_ = std::move(fresh);
        begin_ = data_.get();
        end_ = begin_ + used;
        cap_ = begin_ + capacity;
    }

    std::unique_ptr<char[]> data_;
    char* begin_ = nullptr;
    char* end_ = nullptr;
    char* cap_ = nullptr;
};

}  // namespace rx
