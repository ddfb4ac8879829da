#pragma once
// The value names in scope while reading PIR text: name -> ValueId, memory in proportion to
// the names bound (never to the largest "%N"), constant time per lookup.
#include <algorithm>
#include <cstdint>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "model/Program.h"

namespace rx {

// "%N" names (nearly all) index a dense table, kept within a fixed multiple of the names
// bound so far: no hashing on the common path. Numbers far beyond that ("%67108863" in a
// tiny file) and other names ("%arg_0") go to hash maps.
class ValueScope {
public:
    void clear() {
        dense_.clear();
        sparse_.clear();
        named_.clear();
        bound_ = 0;
    }

    ValueId lookup(uint32_t n) const {
        if (n < dense_.size() && dense_[n] != kNoId) return dense_[n];
        if (sparse_.empty()) return kNoId;
        const auto it = sparse_.find(n);
        return it == sparse_.end() ? kNoId : it->second;
    }
    ValueId lookup(std::string_view name) const {
        const auto it = named_.find(name);
        return it == named_.end() ? kNoId : it->second;
    }

    void bind(uint32_t n, ValueId v) {
        ++bound_;
        if (n >= dense_.size()) {
            const size_t limit = 8 * bound_ + 4096;  // at most 32 bytes per name bound
            if (n < limit) {
                dense_.resize(std::min(limit, std::max<size_t>(size_t(n) + 1, dense_.size() * 2)), kNoId);
            } else {
                sparse_[n] = v;
                return;
            }
        }
        dense_[n] = v;
    }
    void bind(std::string_view name, ValueId v) {
        ++bound_;
        named_[name] = v;
    }

    void unbind(uint32_t n) {
        if (n < dense_.size()) dense_[n] = kNoId;
        if (!sparse_.empty()) sparse_.erase(n);
    }
    void unbind(std::string_view name) { named_.erase(name); }

private:
    std::vector<ValueId> dense_;
    std::unordered_map<uint32_t, ValueId> sparse_;
    std::unordered_map<std::string_view, ValueId> named_;
    size_t bound_ = 0;
};

}  // namespace rx
