#pragma once
// A host tensor: dtype, dims, and the raw bytes in that dtype's storage format. Every
// executor backend (CPU reference, GPU) exchanges inputs and fetched results in this form,
// so results of two backends or two programs can be compared bit for bit. Storage is counted
// by a StorageMeter when allocated and released: the CPU backend's measured memory.
#include <atomic>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "model/Type.h"

namespace rx::exec {

// Half and bfloat16 conversions (round to nearest even), used to store computed doubles.
uint16_t floatToHalf(float f);
float halfToFloat(uint16_t h);
uint16_t floatToBFloat16(float f);
float bfloat16ToFloat(uint16_t b);

// Bytes held by tensor storage: added when storage is allocated, taken off when it is
// released. What a run measures (the CPU backend's peak), not a walk of the liveness rules.
class StorageMeter {
public:
    int64_t currentBytes() const { return current_.load(std::memory_order_relaxed); }
    int64_t peakBytes() const { return peak_.load(std::memory_order_relaxed); }
    // Starts a new high-water mark at the bytes held now.
    void resetPeak() { peak_.store(currentBytes(), std::memory_order_relaxed); }
    void allocated(int64_t n) {
        const int64_t now = current_.fetch_add(n, std::memory_order_relaxed) + n;
        int64_t seen = peak_.load(std::memory_order_relaxed);
        while (now > seen && !peak_.compare_exchange_weak(seen, now, std::memory_order_relaxed)) {}
    }
    void released(int64_t n) { current_.fetch_sub(n, std::memory_order_relaxed); }

private:
    std::atomic<int64_t> current_{0}, peak_{0};
};

// The meter storage allocated on this thread counts against (none unless a scope sets one).
const std::shared_ptr<StorageMeter>& activeStorageMeter();
// Sets the thread's meter for its lifetime (nullptr: storage allocated meanwhile is not counted,
// e.g. the copies a run returns), then restores the previous one.
class ScopedStorageMeter {
public:
    explicit ScopedStorageMeter(std::shared_ptr<StorageMeter> meter);
    ~ScopedStorageMeter();
    ScopedStorageMeter(const ScopedStorageMeter&) = delete;
    ScopedStorageMeter& operator=(const ScopedStorageMeter&) = delete;

private:
    std::shared_ptr<StorageMeter> previous_;
};

// std::allocator that reports to the meter active when the container was made (copies take
// the meter active at the copy). The meter is shared, so storage outliving its run is safe.
template <class T>
class MeteredAllocator {
public:
    using value_type = T;
    using propagate_on_container_move_assignment = std::true_type;
    using propagate_on_container_swap = std::true_type;
    using propagate_on_container_copy_assignment = std::false_type;
    using is_always_equal = std::false_type;

    MeteredAllocator() : meter_(activeStorageMeter()) {}
    template <class U>
    MeteredAllocator(const MeteredAllocator<U>& other) : meter_(other.meter()) {}

    T* allocate(size_t n) {
        T* p = std::allocator<T>().allocate(n);
        if (meter_) meter_->allocated(static_cast<int64_t>(n * sizeof(T)));
        return p;
    }
    void deallocate(T* p, size_t n) {
        if (meter_) meter_->released(static_cast<int64_t>(n * sizeof(T)));
        std::allocator<T>().deallocate(p, n);
    }
    MeteredAllocator select_on_container_copy_construction() const { return MeteredAllocator(); }
    const std::shared_ptr<StorageMeter>& meter() const { return meter_; }
    friend bool operator==(const MeteredAllocator& a, const MeteredAllocator& b) { return a.meter_ == b.meter_; }

private:
    std::shared_ptr<StorageMeter> meter_;
};

using TensorStorage = std::vector<uint8_t, MeteredAllocator<uint8_t>>;

struct Tensor {
    DType dtype = DType::Float32;
    std::vector<int64_t> dims;      // empty = 0-d (one element)
    TensorStorage bytes;            // numel() * dtypeBytes(dtype)

    Tensor() = default;
    Tensor(DType t, std::vector<int64_t> d);   // zero-filled

    int64_t numel() const;
    int64_t byteSize() const { return static_cast<int64_t>(bytes.size()); }

    // Element access through double (exact for every supported dtype except i64 > 2^53).
    // Complex tensors: get() is the real part, set() stores (v, 0) -- what Paddle's cast
    // does; kernels that must see the imaginary part use getComplex/setComplex. The CPU
    // executor only lets complex-aware kernels near complex tensors (unsupportedOps).
    double get(int64_t i) const;
    void set(int64_t i, double v);
    // Any dtype; real dtypes read as (get(i), 0), and store the real part.
    std::complex<double> getComplex(int64_t i) const;
    void setComplex(int64_t i, std::complex<double> v);
    // Typed storage (T must be the dtype's element type, see visitRealDType).
    template <class T> const T* data() const { return reinterpret_cast<const T*>(bytes.data()); }
    template <class T> T* data() { return reinterpret_cast<T*>(bytes.data()); }
    // Whole-tensor double copies: for the few kernels that still compute through them
    // (complex, conv/pool, norms, grads); the hot kernels read storage in place.
    std::vector<double> toDoubles() const;
    static Tensor fromDoubles(DType t, std::vector<int64_t> d, const std::vector<double>& values);

    bool bitwiseEqual(const Tensor& o) const { return dtype == o.dtype && dims == o.dims && bytes == o.bytes; }
    std::string shapeString() const;  // "2x3xf32"
};

// ---------- typed element access ----------
// Kernels compute in the value's dtype: they read and write storage as its C++ element type
// (no whole-tensor copy in another type). The half formats are stored as their bits and
// computed per element through float.
struct Half { uint16_t bits; };
struct BFloat16 { uint16_t bits; };

template <class T> inline constexpr bool isHalfLike = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

// One stored element as the scalar type a kernel computes with: double for the floating
// dtypes (what every earlier kernel computed in, so results are unchanged), the value itself
// for integers and bool.
template <class T>
inline auto loadElement(T v) {
    if constexpr (std::is_same_v<T, Half>) return static_cast<double>(halfToFloat(v.bits));
    else if constexpr (std::is_same_v<T, BFloat16>) return static_cast<double>(bfloat16ToFloat(v.bits));
    else if constexpr (std::is_floating_point_v<T>) return static_cast<double>(v);
    else if constexpr (std::is_same_v<T, bool>) return static_cast<int64_t>(v);
    else return static_cast<int64_t>(v);
}

// A computed double stored as T, rounded and clamped as Tensor::set does.
template <class T>
inline T storeElement(double v) {
    if constexpr (std::is_same_v<T, Half>) return Half{floatToHalf(static_cast<float>(v))};
    else if constexpr (std::is_same_v<T, BFloat16>) return BFloat16{floatToBFloat16(static_cast<float>(v))};
    else if constexpr (std::is_floating_point_v<T>) return static_cast<T>(v);
    else if constexpr (std::is_same_v<T, bool>) return v != 0.0;
    else if constexpr (sizeof(T) >= 4) return std::isfinite(v) ? static_cast<T>(v) : T{0};
    else return static_cast<T>(static_cast<int64_t>(v));
}
// A computed integer stored as T (wraps as a cast does; bool: nonzero).
template <class T>
inline T storeElement(int64_t v) {
    if constexpr (std::is_same_v<T, bool>) return v != 0;
    else if constexpr (std::is_integral_v<T>) return static_cast<T>(v);
    else return storeElement<T>(static_cast<double>(v));
}

// Calls f(std::type_identity<T>{}) with T the element type of real dtype t; complex and
// unsupported dtypes call fallback() instead.
template <class F, class G>
decltype(auto) visitRealDType(DType t, F&& f, G&& fallback) {
    switch (t) {
    case DType::Bool: return f(std::type_identity<bool>{});
    case DType::UInt8: return f(std::type_identity<uint8_t>{});
    case DType::Int8: return f(std::type_identity<int8_t>{});
    case DType::Int16: return f(std::type_identity<int16_t>{});
    case DType::Int32: return f(std::type_identity<int32_t>{});
    case DType::Int64: return f(std::type_identity<int64_t>{});
    case DType::Float16: return f(std::type_identity<Half>{});
    case DType::BFloat16: return f(std::type_identity<BFloat16>{});
    case DType::Float32: return f(std::type_identity<float>{});
    case DType::Float64: return f(std::type_identity<double>{});
    default: return fallback();
    }
}

// True for the dtypes the CPU executor computes with.
bool isSupportedDType(DType t);

// Complex dtypes are stored as interleaved (real, imag) pairs of their component dtype,
// the layout of Paddle's phi::dtype::complex<T> (and std::complex<T>).
inline bool isComplexDType(DType t) { return t == DType::Complex64 || t == DType::Complex128; }
// Complex64 -> Float32, Complex128 -> Float64; Invalid for real dtypes.
DType complexComponentDType(DType t);
// Float32 -> Complex64, Float64 -> Complex128; Invalid for others.
DType complexOfDType(DType t);

}  // namespace rx::exec
