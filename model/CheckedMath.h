#pragma once
// Overflow-checked 64-bit arithmetic for byte figures and capacities: an exact result or a
// clear error, never a wrapped one. Every size, total and capacity goes through these.
#include <cstdint>
#include <limits>
#include <optional>
#include <string>

#include "model/Diagnostic.h"

namespace rx {

inline constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

inline std::optional<int64_t> checkedAdd(int64_t a, int64_t b) {
    int64_t r;
    if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
    return r;
}
inline std::optional<int64_t> checkedSub(int64_t a, int64_t b) {
    int64_t r;
    if (__builtin_sub_overflow(a, b, &r)) return std::nullopt;
    return r;
}
inline std::optional<int64_t> checkedMul(int64_t a, int64_t b) {
    int64_t r;
    if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
    return r;
}

// The same, throwing rx::Error "<what> overflows 64-bit arithmetic (a op b)".
inline int64_t addOrThrow(int64_t a, int64_t b, const std::string& what) {
    if (auto r = checkedAdd(a, b)) return *r;
    throw Error(what + " overflows 64-bit arithmetic (" + std::to_string(a) + " + " + std::to_string(b) +
                " is above 9223372036854775807)");
}
inline int64_t mulOrThrow(int64_t a, int64_t b, const std::string& what) {
    if (auto r = checkedMul(a, b)) return *r;
    throw Error(what + " overflows 64-bit arithmetic (" + std::to_string(a) + " * " + std::to_string(b) +
                " is beyond ±9223372036854775807)");
}

// Exact totals of many int64 figures (bytes of a whole program): 128-bit, so a sum of
// saturated sizes still reads as the true figure; decimal() prints it.
using WideInt = __int128;
inline std::string decimal(WideInt v) {
    if (v == 0) return "0";
    const bool negative = v < 0;
    unsigned __int128 u = negative ? -(unsigned __int128)v : (unsigned __int128)v;
    std::string s;
    while (u) {
        s.insert(s.begin(), char('0' + int(u % 10)));
        u /= 10;
    }
    return negative ? "-" + s : s;
}
inline std::optional<WideInt> checkedAdd(WideInt a, WideInt b) {
    WideInt r;
    if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
    return r;
}
inline std::optional<WideInt> checkedMul(WideInt a, WideInt b) {
    WideInt r;
    if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
    return r;
}

}  // namespace rx
