#pragma once
// A vector one pointer wide for members that are empty on nearly every element of a big
// array: an Operation's regions and operand keywords (control flow and a few builtins only).
// A std::vector there is 24 bytes per op, times 2, times every op of the program and of its
// rewritten copy (56k-op chain: 5 MB of the run's memory). Empty allocates nothing; copies are
// deep. Reads like a std::vector.
#include <algorithm>
#include <cstddef>
#include <iterator>
#include <memory>
#include <utility>
#include <vector>

namespace rx {

template <class T>
class RareVector {
public:
    using value_type = T;
    using const_iterator = const T*;
    using const_reverse_iterator = std::reverse_iterator<const T*>;

    RareVector() = default;
    RareVector(std::vector<T> items) { *this = std::move(items); }  // NOLINT: drop-in for the vector
    RareVector(const RareVector& o) : items_(o.items_ ? std::make_unique<std::vector<T>>(*o.items_) : nullptr) {}
    RareVector(RareVector&&) noexcept = default;
    RareVector& operator=(const RareVector& o) {
        if (this != &o) items_ = o.items_ ? std::make_unique<std::vector<T>>(*o.items_) : nullptr;
        return *this;
    }
    RareVector& operator=(RareVector&&) noexcept = default;
    RareVector& operator=(std::vector<T> items) {
        if (items.empty()) items_.reset();
        else items_ = std::make_unique<std::vector<T>>(std::move(items));
        return *this;
    }

    size_t size() const { return items_ ? items_->size() : 0; }
    bool empty() const { return size() == 0; }
    const T* begin() const { return items_ ? items_->data() : nullptr; }
    const T* end() const { return begin() + size(); }
    const_reverse_iterator rbegin() const { return const_reverse_iterator(end()); }
    const_reverse_iterator rend() const { return const_reverse_iterator(begin()); }
    const T& operator[](size_t i) const { return (*items_)[i]; }

    void push_back(T item) { edit().push_back(std::move(item)); }
    template <class... Args>
    T& emplace_back(Args&&... args) {
        return edit().emplace_back(std::forward<Args>(args)...);
    }
    std::vector<T> toVector() const { return items_ ? *items_ : std::vector<T>(); }

    friend bool operator==(const RareVector& a, const RareVector& b) {
        return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin());
    }

private:
    std::vector<T>& edit() {
        if (!items_) items_ = std::make_unique<std::vector<T>>();
        return *items_;
    }

    std::unique_ptr<std::vector<T>> items_;
};

}  // namespace rx
