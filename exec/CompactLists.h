#pragma once
// Many short lists (per value, per op position) in two flat arrays: list i is
// items_[start_[i] .. start_[i] + count_[i]). A std::vector<std::vector<T>> costs 24 bytes
// per list plus a heap block (32 bytes or more) per non-empty one; here a list costs 8 bytes
// plus its items. The liveness tables are four such tables (issue 21: a transformer's took
// 243 bytes per op as vectors of vectors, 79 so; a run holds them beside its tensors).
// Reads like a vector of spans.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace rx::exec {

template <class T>
class CompactLists {
public:
    CompactLists() = default;
    explicit CompactLists(size_t lists) : start_(lists, 0), count_(lists, 0) {}

    size_t size() const { return count_.size(); }
    std::span<const T> operator[](size_t i) const { return {items_.data() + start_[i], count_[i]}; }
    size_t itemCount() const { return items_.size(); }

    // Sets list `i` (empty until now) to `items`; they are appended to the storage, so
    // setting a list twice leaves its first items unreachable (the builders set each once).
    // `items` must not be a list of this object: appending may move the storage it reads.
    void set(size_t i, std::span<const T> items) {
        start_[i] = uint32_t(items_.size());
        count_[i] = uint32_t(items.size());
        items_.insert(items_.end(), items.begin(), items.end());
    }
    // Appends `item` to list `i`, which must be the list set or appended to last (lists are
    // built one after another, in any order of i).
    void appendToLast(size_t i, const T& item) {
        if (count_[i] == 0) start_[i] = uint32_t(items_.size());
        items_.push_back(item);
        ++count_[i];
    }
    // Empties every list (their number stays).
    void clearAll() {
        items_.clear();
        std::fill(start_.begin(), start_.end(), 0);
        std::fill(count_.begin(), count_.end(), 0);
    }
    // `lists` lists holding, for each k in [0, n) in order, item(k) in list key(k) (none
    // where key(k) is kSkip): a counting sort, so each list keeps the order of k.
    static constexpr size_t kSkip = SIZE_MAX;
    template <class KeyOf, class ItemOf>
    static CompactLists grouped(size_t lists, size_t n, KeyOf key, ItemOf item) {
        CompactLists out(lists);
        for (size_t k = 0; k < n; ++k)
            if (const size_t i = key(k); i != kSkip) ++out.count_[i];
        uint32_t at = 0;
        for (size_t i = 0; i < lists; ++i) {
            out.start_[i] = at;
            at += out.count_[i];
        }
        out.items_.resize(at);
        std::vector<uint32_t> filled(lists, 0);
        for (size_t k = 0; k < n; ++k) {
            const size_t i = key(k);
            if (i == kSkip) continue;
            out.items_[out.start_[i] + filled[i]++] = item(k);
        }
        return out;
    }
    void shrinkToFit() { items_.shrink_to_fit(); }

private:
    std::vector<uint32_t> start_, count_;
    std::vector<T> items_;
};

}  // namespace rx::exec
