#pragma once
// An op's attributes as a copy-on-write list of shared entries. Copies of a program (the
// rewriter's result) and ops with the same printed dict (the reader) share one list, and
// lists that differ in one entry share the others (AttributeInterner: the parameters' dicts
// differ only in parameter_name, the fetches' in name and col), which is most of a program's
// memory (issue 8: 1M-op solves within 1.5 KB/op; issue 21 item 4: verify at 1M within 2 GB).
// Reads through a const list never copy; the first mutation of a shared list or entry gives
// this op its own copy of it. An empty list allocates nothing. Reads the same as a
// std::vector<NamedAttribute>.
#include <atomic>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <span>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include "model/Attribute.h"

namespace rx {

class AttributeList {
    // One attribute with its reference count; immutable while more than one list holds it.
    struct Entry {
        explicit Entry(NamedAttribute a) : attribute(std::move(a)) {}
        std::atomic<uint32_t> refs{1};
        NamedAttribute attribute;
    };

public:
    // A counted reference to one entry (8 bytes: a list of 7 attributes holds 56).
    class EntryRef {
    public:
        EntryRef() = default;
        explicit EntryRef(NamedAttribute a) : e_(new Entry(std::move(a))) {}
        EntryRef(const EntryRef& o) noexcept : e_(o.e_) {
            if (e_) e_->refs.fetch_add(1, std::memory_order_relaxed);
        }
        EntryRef(EntryRef&& o) noexcept : e_(std::exchange(o.e_, nullptr)) {}
        EntryRef& operator=(EntryRef o) noexcept {
            std::swap(e_, o.e_);
            return *this;
        }
        ~EntryRef() {
            if (e_ && e_->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) delete e_;
        }
        const NamedAttribute& get() const { return e_->attribute; }
        // This reference's own entry (copied if shared), to change.
        NamedAttribute& own() {
            if (e_->refs.load(std::memory_order_acquire) > 1) *this = EntryRef(e_->attribute);
            return e_->attribute;
        }
        const void* identity() const { return e_; }

    private:
        Entry* e_ = nullptr;
    };

    // Random access over the entries, reading NamedAttribute (const or, after the mutable
    // begin() made every entry this list's own, mutable).
    template <class Ref, class Slot>
    class Iterator {
    public:
        using iterator_category = std::random_access_iterator_tag;
        using value_type = NamedAttribute;
        using difference_type = std::ptrdiff_t;
        using pointer = Ref*;
        using reference = Ref&;
        Iterator() = default;
        explicit Iterator(Slot* p) : p_(p) {}
        reference operator*() const { return const_cast<reference>(p_->get()); }
        pointer operator->() const { return &**this; }
        reference operator[](difference_type n) const { return *(*this + n); }
        Iterator& operator++() { ++p_; return *this; }
        Iterator operator++(int) { Iterator t = *this; ++p_; return t; }
        Iterator& operator--() { --p_; return *this; }
        Iterator operator--(int) { Iterator t = *this; --p_; return t; }
        Iterator& operator+=(difference_type n) { p_ += n; return *this; }
        Iterator& operator-=(difference_type n) { p_ -= n; return *this; }
        friend Iterator operator+(Iterator i, difference_type n) { return i += n; }
        friend Iterator operator+(difference_type n, Iterator i) { return i += n; }
        friend Iterator operator-(Iterator i, difference_type n) { return i -= n; }
        friend difference_type operator-(Iterator a, Iterator b) { return a.p_ - b.p_; }
        friend bool operator==(Iterator a, Iterator b) { return a.p_ == b.p_; }
        friend auto operator<=>(Iterator a, Iterator b) { return a.p_ <=> b.p_; }

    private:
        Slot* p_ = nullptr;
    };

    using value_type = NamedAttribute;
    using const_iterator = Iterator<const NamedAttribute, const EntryRef>;
    using iterator = Iterator<NamedAttribute, EntryRef>;

    AttributeList() = default;
    AttributeList(std::vector<NamedAttribute> list) { *this = std::move(list); }  // NOLINT: drop-in for the vector
    AttributeList& operator=(std::vector<NamedAttribute> list) {
        if (list.empty()) {
            list_.reset();
            return *this;
        }
        auto entries = std::make_shared<std::vector<EntryRef>>();
        entries->reserve(list.size());
        for (NamedAttribute& a : list) entries->emplace_back(std::move(a));
        list_ = std::move(entries);
        return *this;
    }

    size_t size() const { return list_ ? list_->size() : 0; }
    bool empty() const { return size() == 0; }
    const_iterator begin() const { return const_iterator(list_ ? list_->data() : nullptr); }
    const_iterator end() const { return begin() + std::ptrdiff_t(size()); }
    const NamedAttribute& operator[](size_t i) const { return (*list_)[i].get(); }

    // Mutable access makes the list and the entries reached this op's own (copy on write).
    iterator begin() {
        if (!list_) return iterator();
        for (EntryRef& e : editList()) e.own();
        return iterator(list_->data());
    }
    iterator end() { return begin() + std::ptrdiff_t(size()); }
    NamedAttribute& operator[](size_t i) { return editList()[i].own(); }
    void push_back(NamedAttribute a) { editList().emplace_back(std::move(a)); }
    void reserve(size_t n) { editList().reserve(n); }
    // Drops the attributes `pred` selects; returns how many.
    template <class Pred>
    size_t eraseIf(Pred pred) {
        if (!list_) return 0;
        const size_t n = std::erase_if(editList(), [&](const EntryRef& e) { return pred(e.get()); });
        if (list_->empty()) list_.reset();
        return n;
    }
    // The elements as a vector (a fresh copy; for APIs that take one).
    std::vector<NamedAttribute> toVector() const {
        std::vector<NamedAttribute> out;
        out.reserve(size());
        for (const NamedAttribute& a : *this) out.push_back(a);
        return out;
    }
    // Whether both read the same list (tests of the sharing).
    bool sharesStorageWith(const AttributeList& other) const { return list_ && list_ == other.list_; }
    // Whether entry i of this list and entry j of `other` are one shared entry.
    bool sharesEntryWith(size_t i, const AttributeList& other, size_t j) const {
        return (*list_)[i].identity() == (*other.list_)[j].identity();
    }
    // The list's identity (nullptr when empty): lists with the same identity are equal, so
    // passes can memoize per distinct list instead of per op.
    const void* identity() const { return list_.get(); }

    // Sets `key` (replaced where it is, else appended).
    void set(std::string_view key, Attribute value) {
        for (size_t i = 0; i < size(); ++i)
            if ((*list_)[i].get().name == key) {
                editList()[i].own().value = std::move(value);
                return;
            }
        if (list_ && list_.use_count() > 1) {  // copied once at its final size
            auto grown = std::make_shared<std::vector<EntryRef>>();
            grown->reserve(list_->size() + 1);
            grown->assign(list_->begin(), list_->end());
            list_ = std::move(grown);
        }
        editList().emplace_back(NamedAttribute{std::string(key), std::move(value)});
    }

    friend bool operator==(const AttributeList& a, const AttributeList& b) {
        if (a.list_ == b.list_) return true;
        if (a.size() != b.size()) return false;
        for (size_t i = 0; i < a.size(); ++i)
            if ((*a.list_)[i].identity() != (*b.list_)[i].identity() && !(a[i] == b[i])) return false;
        return true;
    }

private:
    friend class AttributeInterner;
    std::vector<EntryRef>& editList() {
        if (!list_) list_ = std::make_shared<std::vector<EntryRef>>();
        else if (list_.use_count() > 1) list_ = std::make_shared<std::vector<EntryRef>>(*list_);
        return *list_;
    }

    std::shared_ptr<std::vector<EntryRef>> list_;
};

// Hands out attribute lists whose entries are shared with every equal entry it has seen: a
// reader passes each distinct dict through one interner, so a program holds one copy of
// `persistable:[true]` however many parameters print it. Keeps its entries alive until it is
// destroyed (readers hold one for the read only).
class AttributeInterner {
public:
    // A list of `attributes` (moved out of the span; the caller may reuse its buffer).
    AttributeList share(std::span<NamedAttribute> attributes);

private:
    // Looked up by the attribute itself: an entry already seen costs no allocation.
    struct EntryHash {
        using is_transparent = void;
        size_t operator()(const NamedAttribute& a) const noexcept;
        size_t operator()(const AttributeList::EntryRef& e) const noexcept { return (*this)(e.get()); }
    };
    struct EntryEqual {
        using is_transparent = void;
        static const NamedAttribute& of(const NamedAttribute& a) { return a; }
        static const NamedAttribute& of(const AttributeList::EntryRef& e) { return e.get(); }
        template <class A, class B>
        bool operator()(const A& a, const B& b) const noexcept { return of(a) == of(b); }
    };
    std::unordered_set<AttributeList::EntryRef, EntryHash, EntryEqual> entries_;
};

// A hash of the attribute's every field (equal attributes hash equal).
size_t hashAttribute(const Attribute& a) noexcept;

}  // namespace rx
