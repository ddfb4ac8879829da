// Attribute lists' entry sharing (AttributeInterner) and the attribute hash it keys on.
#include "model/AttributeList.h"

#include <bit>
#include <cstdint>
#include <string_view>

namespace rx {

namespace {

// FNV-1a, inline: the entries are short (names, "[true]", a parameter's name) and a reader
// hashes every entry of every distinct dict (with std::hash over every field the interner
// took 12% of the instructions reading a 298k-op transformer).
constexpr uint64_t kFnvPrime = 0x100000001b3ULL;
uint64_t mixWord(uint64_t h, uint64_t word) { return (h ^ word) * kFnvPrime; }
uint64_t mixBytes(uint64_t h, std::string_view s) {
    for (unsigned char c : s) h = (h ^ c) * kFnvPrime;
    return h;
}

}  // namespace

size_t hashAttribute(const Attribute& a) noexcept {
    uint64_t h = mixWord(0xcbf29ce484222325ULL, uint64_t(a.kind) | uint64_t(a.boolValue) << 8 | uint64_t(a.typed) << 9);
    if (a.intValue) h = mixWord(h, uint64_t(a.intValue));
    if (a.floatValue != 0) h = mixWord(h, std::bit_cast<uint64_t>(a.floatValue));  // -0 == 0: neither mixed
    if (!a.text.empty()) h = mixBytes(h, a.text);
    if (!a.spelling.empty()) h = mixWord(h, uint64_t(reinterpret_cast<uintptr_t>(a.spelling.c_str())));  // interned
    for (const Attribute& e : a.elements) h = mixWord(h, hashAttribute(e));
    return h;
}

size_t AttributeInterner::EntryHash::operator()(const NamedAttribute& a) const noexcept {
    return mixBytes(hashAttribute(a.value), a.name);
}

AttributeList AttributeInterner::share(std::span<NamedAttribute> attributes) {
    AttributeList list;
    if (attributes.empty()) return list;
    auto entries = std::make_shared<std::vector<AttributeList::EntryRef>>();
    entries->reserve(attributes.size());
    for (NamedAttribute& a : attributes) {
        auto it = entries_.find(a);
        if (it == entries_.end()) it = entries_.insert(AttributeList::EntryRef(std::move(a))).first;
        entries->push_back(*it);
    }
    list.list_ = std::move(entries);
    return list;
}

}  // namespace rx
