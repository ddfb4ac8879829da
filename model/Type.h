#pragma once
// Types of values: dense tensors (dims may hold -1; no dims = 0-d), vectors of types,
// tensor arrays, selected rows, the null type, and opaque types kept verbatim.
// Types are interned in a TypeTable; a TypeId names one. Id 0 is always <<NULL TYPE>>.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace rx {

enum class DType : uint8_t {
    Invalid, Bool, Float16, BFloat16, Float32, Float64, Float8E4M3FN, Float8E5M2,
    Int8, UInt8, Int16, Int32, Int64, Complex64, Complex128, Index
};

int dtypeBytes(DType t);                          // docs/ALGORITHM.md §5; Index = 8, Invalid = 0
std::string_view dtypeShortName(DType t);         // as in types: "f32", "b", "i64", "bf16"
std::string_view dtypeLongName(DType t);          // as in attributes: "float32", "bool", "int64"
std::optional<DType> parseDTypeShort(std::string_view s);
std::optional<DType> parseDTypeLong(std::string_view s);

using TypeId = uint32_t;
inline constexpr TypeId kNullType = 0;

struct Type {
    enum class Kind : uint8_t { Null, DenseTensor, Vector, TensorArray, SelectedRows, Opaque };
    Kind kind = Kind::Null;
    DType dtype = DType::Invalid;
    std::vector<int64_t> dims;       // DenseTensor / SelectedRows / TensorArray(element dims)
    std::vector<TypeId> elements;    // Vector
    // Printed dialect prefix where it is not the generation's default tensor spelling, e.g.
    // "gpu_tensor", "undefined_tensor" (kernel dialect). Empty = default for the generation.
    std::string dialect;
    std::string text;                // Opaque: the verbatim type text

    bool operator==(const Type&) const = default;

    static Type tensor(DType dtype, std::vector<int64_t> dims) {
        Type t; t.kind = Kind::DenseTensor; t.dtype = dtype; t.dims = std::move(dims); return t;
    }
    static Type vector(std::vector<TypeId> elements) {
        Type t; t.kind = Kind::Vector; t.elements = std::move(elements); return t;
    }
};

class TypeTable {
public:
    TypeTable();
    TypeId intern(const Type& type);
    const Type& operator[](TypeId id) const { return types_[id]; }
    size_t size() const { return types_.size(); }
    // Bytes per docs/ALGORITHM.md §5: product of dims without -1, times dtype bytes;
    // vectors sum their elements; null/opaque = 0. Exact, or INT64_MAX when the figure does
    // not fit in int64 (bytesOverflow): callers report that rather than compute with it.
    int64_t bytes(TypeId id) const { return bytes_[id]; }
    bool bytesOverflow(TypeId id) const { return bytes_[id] == INT64_MAX; }
    // Number of elements (product of dims, -1 dims left out); 0 for non-tensors; INT64_MAX
    // when it does not fit.
    int64_t elementCount(TypeId id) const;
    // Convenience: intern a dense tensor type.
    TypeId tensor(DType dtype, std::vector<int64_t> dims) { return intern(Type::tensor(dtype, std::move(dims))); }

private:
    struct Hash { size_t operator()(const Type& t) const; };
    std::vector<Type> types_;
    std::vector<int64_t> bytes_;
    std::unordered_map<Type, TypeId, Hash> ids_;
};

}  // namespace rx
