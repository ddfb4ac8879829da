#include "model/Type.h"

#include "model/CheckedMath.h"

#include <array>
#include <cstdint>

namespace rx {
namespace {
struct DTypeInfo { DType type; int bytes; std::string_view shortName; std::string_view longName; };
constexpr std::array<DTypeInfo, 16> kDTypes = {{
    {DType::Invalid, 0, "?", "undefined"},
    {DType::Bool, 1, "b", "bool"},
    {DType::Float16, 2, "f16", "float16"},
    {DType::BFloat16, 2, "bf16", "bfloat16"},
    {DType::Float32, 4, "f32", "float32"},
    {DType::Float64, 8, "f64", "float64"},
    {DType::Float8E4M3FN, 1, "f8e4m3fn", "float8_e4m3fn"},
    {DType::Float8E5M2, 1, "f8e5m2", "float8_e5m2"},
    {DType::Int8, 1, "i8", "int8"},
    {DType::UInt8, 1, "u8", "uint8"},
    {DType::Int16, 2, "i16", "int16"},
    {DType::Int32, 4, "i32", "int32"},
    {DType::Int64, 8, "i64", "int64"},
    {DType::Complex64, 8, "c64", "complex64"},
    {DType::Complex128, 16, "c128", "complex128"},
    {DType::Index, 8, "index", "index"},
}};
const DTypeInfo& info(DType t) { return kDTypes[static_cast<size_t>(t)]; }
}  // namespace

int dtypeBytes(DType t) { return info(t).bytes; }
std::string_view dtypeShortName(DType t) { return info(t).shortName; }
std::string_view dtypeLongName(DType t) { return info(t).longName; }

std::optional<DType> parseDTypeShort(std::string_view s) {
    for (const auto& d : kDTypes)
        if (d.type != DType::Invalid && d.shortName == s) return d.type;
    if (s == "i1") return DType::Bool;
    return std::nullopt;
}

std::optional<DType> parseDTypeLong(std::string_view s) {
    for (const auto& d : kDTypes)
        if (d.type != DType::Invalid && d.longName == s) return d.type;
    return std::nullopt;
}

size_t TypeTable::Hash::operator()(const Type& t) const {
    size_t h = static_cast<size_t>(t.kind) * 1315423911u ^ static_cast<size_t>(t.dtype);
    for (int64_t d : t.dims) h = h * 1000003u ^ static_cast<size_t>(d);
    for (TypeId e : t.elements) h = h * 998244353u ^ e;
    h ^= std::hash<std::string>()(t.dialect) ^ (std::hash<std::string>()(t.text) << 1);
    return h;
}

TypeTable::TypeTable() { intern(Type{}); }

TypeId TypeTable::intern(const Type& type) {
    auto it = ids_.find(type);
    if (it != ids_.end()) return it->second;
    const auto id = static_cast<TypeId>(types_.size());
    int64_t bytes = 0;
    switch (type.kind) {
    case Type::Kind::DenseTensor:
    case Type::Kind::SelectedRows:
    case Type::Kind::TensorArray: {
        // Exact or saturated at kInt64Max ("does not fit"), never wrapped: absurd dims from
        // hand-written text must not turn exabytes into a small figure. A 0 dim wins.
        int64_t n = 1;
        bool overflow = false, empty = false;
        for (int64_t d : type.dims) {
            if (d == -1) continue;
            if (d == 0) empty = true;
            if (auto m = checkedMul(n, d)) n = *m;
            else overflow = true;
        }
        const auto total = checkedMul(n, static_cast<int64_t>(dtypeBytes(type.dtype)));
        bytes = empty ? 0 : (overflow || !total || *total == kInt64Max) ? kInt64Max : *total;
        break;
    }
    case Type::Kind::Vector:
        for (TypeId e : type.elements) {
            const auto sum = checkedAdd(bytes, bytes_[e]);
            bytes = (!sum || bytes_[e] == kInt64Max) ? kInt64Max : *sum;
            if (bytes == kInt64Max) break;
        }
        break;
    default: break;
    }
    types_.push_back(type);
    bytes_.push_back(bytes);
    ids_.emplace(type, id);
    return id;
}

int64_t TypeTable::elementCount(TypeId id) const {
    const Type& t = types_[id];
    if (t.kind != Type::Kind::DenseTensor && t.kind != Type::Kind::SelectedRows) return 0;
    int64_t n = 1;
    bool overflow = false;
    for (int64_t d : t.dims) {
        if (d == -1) continue;
        if (d == 0) return 0;
        if (auto m = checkedMul(n, d)) n = *m;
        else overflow = true;
    }
    return overflow ? kInt64Max : n;
}

}  // namespace rx
