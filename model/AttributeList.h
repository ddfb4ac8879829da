#pragma once
// An op's attributes as a copy-on-write list: copies of a program (the rewriter's result) and
// ops with the same printed dict (the reader) share one list, which is most of a program's
// memory (issue 8: 1M-op solves within 1.5 KB/op). Reads through a const list never copy;
// the first mutation of a shared list gives this op its own copy. An empty list allocates
// nothing. Reads the same as a std::vector<NamedAttribute>.
#include <cstddef>
#include <memory>
#include <string_view>
#include <vector>

#include "model/Attribute.h"

namespace rx {

class AttributeList {
public:
    using value_type = NamedAttribute;
    using iterator = NamedAttribute*;
    using const_iterator = const NamedAttribute*;

    AttributeList() = default;
    AttributeList(std::vector<NamedAttribute> list) { *this = std::move(list); }  // NOLINT: drop-in for the vector
    AttributeList& operator=(std::vector<NamedAttribute> list) {
        if (list.empty()) list_.reset();
        else list_ = std::make_shared<std::vector<NamedAttribute>>(std::move(list));
        return *this;
    }

    size_t size() const { return list_ ? list_->size() : 0; }
    bool empty() const { return size() == 0; }
    const NamedAttribute* begin() const { return list_ ? list_->data() : nullptr; }
    const NamedAttribute* end() const { return begin() + size(); }
    const NamedAttribute& operator[](size_t i) const { return (*list_)[i]; }

    // Mutable access unshares first (copy on write).
    NamedAttribute* begin() { return list_ ? edit().data() : nullptr; }
    NamedAttribute* end() { return begin() + size(); }
    NamedAttribute& operator[](size_t i) { return edit()[i]; }
    void push_back(NamedAttribute a) { edit().push_back(std::move(a)); }
    void reserve(size_t n) { edit().reserve(n); }
    // This op's own vector (copied if shared), for edits beyond the above (std::erase_if ...).
    std::vector<NamedAttribute>& edit() {
        if (!list_) list_ = std::make_shared<std::vector<NamedAttribute>>();
        else if (list_.use_count() > 1) list_ = std::make_shared<std::vector<NamedAttribute>>(*list_);
        return *list_;
    }
    // The elements as a vector (a fresh copy; for APIs that take one).
    std::vector<NamedAttribute> toVector() const { return list_ ? *list_ : std::vector<NamedAttribute>(); }
    // Whether both read the same storage (tests of the sharing).
    bool sharesStorageWith(const AttributeList& other) const { return list_ && list_ == other.list_; }
    // The storage's identity (nullptr when empty): lists with the same identity are equal, so
    // passes can memoize per distinct list instead of per op.
    const void* identity() const { return list_.get(); }

    // Sets `key` (replaced where it is, else appended). A shared list is copied once at its
    // final size, not copied and then grown.
    void set(std::string_view key, Attribute value) {
        for (size_t i = 0; i < size(); ++i)
            if ((*list_)[i].name == key) {
                edit()[i].value = std::move(value);
                return;
            }
        if (list_ && list_.use_count() > 1) {
            auto grown = std::make_shared<std::vector<NamedAttribute>>();
            grown->reserve(list_->size() + 1);
            grown->assign(list_->begin(), list_->end());
            list_ = std::move(grown);
        }
        edit().push_back({std::string(key), std::move(value)});
    }

    friend bool operator==(const AttributeList& a, const AttributeList& b) {
        if (a.list_ == b.list_) return true;
        if (a.size() != b.size()) return false;
        for (size_t i = 0; i < a.size(); ++i)
            if (!(a[i] == b[i])) return false;
        return true;
    }

private:
    std::shared_ptr<std::vector<NamedAttribute>> list_;
};

}  // namespace rx
