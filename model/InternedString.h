#pragma once
// A pointer-sized, immutable string interned in a process-wide pool. For rarely varying
// text stored per op or value (attribute spellings, keyword names) where a std::string
// would cost 32 bytes each in programs of 100k+ ops. Thread-safe; the pool is never freed.
#include <string>
#include <string_view>

namespace rx {

class InternedString {
public:
    InternedString() = default;
    explicit InternedString(std::string_view s) : p_(intern(s)) {}

    InternedString& operator=(std::string_view s) { p_ = intern(s); return *this; }
    InternedString& operator=(const std::string& s) { p_ = intern(s); return *this; }
    InternedString& operator=(const char* s) { p_ = intern(s); return *this; }

    bool empty() const { return p_ == nullptr; }
    size_t size() const { return p_ ? p_->size() : 0; }
    const std::string& str() const { return p_ ? *p_ : emptyString(); }
    const char* c_str() const { return str().c_str(); }
    operator const std::string&() const { return str(); }
    operator std::string_view() const { return str(); }

    // Interned: equal text <=> equal pointer.
    bool operator==(const InternedString& other) const { return p_ == other.p_; }
    friend bool operator==(const InternedString& a, std::string_view b) { return a.str() == b; }

private:
    static const std::string* intern(std::string_view s);  // nullptr for ""
    static const std::string& emptyString();
    const std::string* p_ = nullptr;
};

}  // namespace rx
