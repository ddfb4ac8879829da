// Attribute lists' entry sharing (AttributeInterner) and the attribute hash it keys on.
#include "model/AttributeList.h"

#include <bit>
#include <functional>

namespace rx {

namespace {

size_t mix(size_t seed, size_t h) { return seed ^ (h + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2)); }

}  // namespace

size_t hashAttribute(const Attribute& a) noexcept {
    size_t h = size_t(a.kind) | size_t(a.boolValue) << 8 | size_t(a.typed) << 9;
    h = mix(h, std::hash<int64_t>{}(a.intValue));
    h = mix(h, std::hash<uint64_t>{}(std::bit_cast<uint64_t>(a.floatValue == 0 ? 0.0 : a.floatValue)));  // -0 == 0
    h = mix(h, std::hash<std::string>{}(a.text));
    h = mix(h, std::hash<const void*>{}(a.spelling.empty() ? nullptr : a.spelling.c_str()));  // interned
    for (const Attribute& e : a.elements) h = mix(h, hashAttribute(e));
    return h;
}

size_t AttributeInterner::EntryHash::operator()(const NamedAttribute& a) const noexcept {
    return mix(std::hash<std::string>{}(a.name), hashAttribute(a.value));
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
