#pragma once
// A host tensor: dtype, dims, and the raw bytes in that dtype's storage format. Every
// executor backend (CPU reference, GPU) exchanges inputs and fetched results in this form,
// so results of two backends or two programs can be compared bit for bit.
#include <complex>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "model/Type.h"

namespace rx::exec {

// Half and bfloat16 conversions (round to nearest even), used to store computed doubles.
uint16_t floatToHalf(float f);
float halfToFloat(uint16_t h);
uint16_t floatToBFloat16(float f);
float bfloat16ToFloat(uint16_t b);

struct Tensor {
    DType dtype = DType::Float32;
    std::vector<int64_t> dims;      // empty = 0-d (one element)
    std::vector<uint8_t> bytes;     // numel() * dtypeBytes(dtype)

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
    std::vector<double> toDoubles() const;
    static Tensor fromDoubles(DType t, std::vector<int64_t> d, const std::vector<double>& values);

    bool bitwiseEqual(const Tensor& o) const { return dtype == o.dtype && dims == o.dims && bytes == o.bytes; }
    std::string shapeString() const;  // "2x3xf32"
};

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
