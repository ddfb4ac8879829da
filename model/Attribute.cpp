#include "model/Attribute.h"

namespace rx {

Attribute Attribute::intArray(const std::vector<int64_t>& v) {
    Attribute a;
    a.kind = Kind::IntArray;
    for (int64_t x : v) a.elements.push_back(int64(x));
    return a;
}

std::vector<int64_t> Attribute::toIntVector() const {
    std::vector<int64_t> out;
    if (kind != Kind::Array && kind != Kind::IntArray) return out;
    for (const Attribute& e : elements) {
        if (e.kind != Kind::Int32 && e.kind != Kind::Int64 && e.kind != Kind::Index) return {};
        out.push_back(e.intValue);
    }
    return out;
}

}  // namespace rx
