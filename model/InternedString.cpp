#include "model/InternedString.h"

#include <mutex>
#include <unordered_set>

namespace rx {

const std::string* InternedString::intern(std::string_view s) {
    if (s.empty()) return nullptr;
    static std::mutex mutex;
    static auto* pool = new std::unordered_set<std::string>();  // leaked on purpose: lives as long as any string
    std::lock_guard<std::mutex> lock(mutex);
    return &*pool->emplace(s).first;
}

const std::string& InternedString::emptyString() {
    static const std::string empty;
    return empty;
}

}  // namespace rx
