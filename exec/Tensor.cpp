#include "exec/Tensor.h"

#include <bit>
#include <cmath>

#include "model/Diagnostic.h"

namespace rx::exec {

uint16_t floatToHalf(float f) {
    uint32_t x = std::bit_cast<uint32_t>(f);
    uint32_t sign = (x >> 16) & 0x8000u;
    uint32_t absx = x & 0x7fffffffu;
    if (absx >= 0x7f800000u) return static_cast<uint16_t>(sign | (absx > 0x7f800000u ? 0x7e00u : 0x7c00u));
    if (absx >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // overflow -> inf
    if (absx < 0x38800000u) {  // subnormal half (or zero)
        float a = std::bit_cast<float>(absx);
        // scale so that the half subnormal unit (2^-24) becomes 1, round to nearest even
        float scaled = a * 16777216.0f;
        uint32_t m = static_cast<uint32_t>(std::nearbyint(scaled));
        return static_cast<uint16_t>(sign | m);
    }
    uint32_t mant = absx & 0x7fffffu;
    uint32_t exp = (absx >> 23) - 127 + 15;
    uint32_t h = (exp << 10) | (mant >> 13);
    uint32_t rest = mant & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;
    return static_cast<uint16_t>(sign | h);
}

float halfToFloat(uint16_t h) {
    uint32_t sign = (static_cast<uint32_t>(h) & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu;
    uint32_t mant = h & 0x3ffu;
    if (exp == 0) {
        float v = std::ldexp(static_cast<float>(mant), -24);
        return sign ? -v : v;
    }
    if (exp == 31) return std::bit_cast<float>(sign | 0x7f800000u | (mant << 13));
    return std::bit_cast<float>(sign | ((exp - 15 + 127) << 23) | (mant << 13));
}

uint16_t floatToBFloat16(float f) {
    uint32_t x = std::bit_cast<uint32_t>(f);
    if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);  // NaN
    uint32_t rounding = 0x7fffu + ((x >> 16) & 1u);
    return static_cast<uint16_t>((x + rounding) >> 16);
}

float bfloat16ToFloat(uint16_t b) { return std::bit_cast<float>(static_cast<uint32_t>(b) << 16); }

namespace {
std::shared_ptr<StorageMeter>& threadMeter() {
    thread_local std::shared_ptr<StorageMeter> meter;
    return meter;
}
}  // namespace

const std::shared_ptr<StorageMeter>& activeStorageMeter() { return threadMeter(); }

ScopedStorageMeter::ScopedStorageMeter(std::shared_ptr<StorageMeter> meter) : previous_(std::move(threadMeter())) {
    threadMeter() = std::move(meter);
}

ScopedStorageMeter::~ScopedStorageMeter() { threadMeter() = std::move(previous_); }

bool isSupportedDType(DType t) {
    switch (t) {
    case DType::Bool: case DType::Float16: case DType::BFloat16: case DType::Float32:
    case DType::Float64: case DType::Int32: case DType::Int64: case DType::Int8:
    case DType::UInt8: case DType::Int16: case DType::Complex64: case DType::Complex128:
        return true;
    default:
        return false;
    }
}

DType complexComponentDType(DType t) {
    return t == DType::Complex64 ? DType::Float32 : t == DType::Complex128 ? DType::Float64 : DType::Invalid;
}

DType complexOfDType(DType t) {
    return t == DType::Float32 ? DType::Complex64 : t == DType::Float64 ? DType::Complex128 : DType::Invalid;
}

Tensor::Tensor(DType t, std::vector<int64_t> d) : dtype(t), dims(std::move(d)) {
    if (!isSupportedDType(t))
        throw Error("tensor of unsupported dtype " + std::string(dtypeShortName(t)));
    bytes.assign(static_cast<size_t>(numel() * dtypeBytes(t)), 0);
}

int64_t Tensor::numel() const {
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    return n;
}

double Tensor::get(int64_t i) const {
    const uint8_t* p = bytes.data();
    switch (dtype) {
    case DType::Bool: return p[i] ? 1.0 : 0.0;
    case DType::UInt8: return p[i];
    case DType::Int8: return static_cast<int8_t>(p[i]);
    case DType::Int16: { int16_t v; std::memcpy(&v, p + 2 * i, 2); return v; }
    case DType::Float16: { uint16_t v; std::memcpy(&v, p + 2 * i, 2); return halfToFloat(v); }
    case DType::BFloat16: { uint16_t v; std::memcpy(&v, p + 2 * i, 2); return bfloat16ToFloat(v); }
    case DType::Float32: { float v; std::memcpy(&v, p + 4 * i, 4); return v; }
    case DType::Int32: { int32_t v; std::memcpy(&v, p + 4 * i, 4); return v; }
    case DType::Float64: { double v; std::memcpy(&v, p + 8 * i, 8); return v; }
    case DType::Int64: { int64_t v; std::memcpy(&v, p + 8 * i, 8); return static_cast<double>(v); }
    case DType::Complex64: { float v; std::memcpy(&v, p + 8 * i, 4); return v; }
    case DType::Complex128: { double v; std::memcpy(&v, p + 16 * i, 8); return v; }
    default: return 0.0;
    }
}

void Tensor::set(int64_t i, double v) {
    uint8_t* p = bytes.data();
    switch (dtype) {
    case DType::Bool: p[i] = v != 0.0; break;
    case DType::UInt8: p[i] = static_cast<uint8_t>(static_cast<int64_t>(v)); break;
    case DType::Int8: p[i] = static_cast<uint8_t>(static_cast<int8_t>(static_cast<int64_t>(v))); break;
    case DType::Int16: { int16_t x = static_cast<int16_t>(static_cast<int64_t>(v)); std::memcpy(p + 2 * i, &x, 2); break; }
    case DType::Float16: { uint16_t x = floatToHalf(static_cast<float>(v)); std::memcpy(p + 2 * i, &x, 2); break; }
    case DType::BFloat16: { uint16_t x = floatToBFloat16(static_cast<float>(v)); std::memcpy(p + 2 * i, &x, 2); break; }
    case DType::Float32: { float x = static_cast<float>(v); std::memcpy(p + 4 * i, &x, 4); break; }
    case DType::Int32: { int32_t x = std::isfinite(v) ? static_cast<int32_t>(v) : 0; std::memcpy(p + 4 * i, &x, 4); break; }
    case DType::Float64: std::memcpy(p + 8 * i, &v, 8); break;
    case DType::Int64: { int64_t x = std::isfinite(v) ? static_cast<int64_t>(v) : 0; std::memcpy(p + 8 * i, &x, 8); break; }
    case DType::Complex64: case DType::Complex128: setComplex(i, {v, 0.0}); break;
    default: break;
    }
}

std::complex<double> Tensor::getComplex(int64_t i) const {
    const uint8_t* p = bytes.data();
    if (dtype == DType::Complex64) { float v[2]; std::memcpy(v, p + 8 * i, 8); return {v[0], v[1]}; }
    if (dtype == DType::Complex128) { double v[2]; std::memcpy(v, p + 16 * i, 16); return {v[0], v[1]}; }
    return {get(i), 0.0};
}

void Tensor::setComplex(int64_t i, std::complex<double> v) {
    uint8_t* p = bytes.data();
    if (dtype == DType::Complex64) {
        float x[2] = {static_cast<float>(v.real()), static_cast<float>(v.imag())};
        std::memcpy(p + 8 * i, x, 8);
    } else if (dtype == DType::Complex128) {
        double x[2] = {v.real(), v.imag()};
        std::memcpy(p + 16 * i, x, 16);
    } else {
        set(i, v.real());
    }
}

std::vector<double> Tensor::toDoubles() const {
    int64_t n = numel();
    std::vector<double> out(static_cast<size_t>(n));
    if (dtype == DType::Float32) {
        const float* f = reinterpret_cast<const float*>(bytes.data());
        for (int64_t i = 0; i < n; ++i) out[i] = f[i];
    } else {
        for (int64_t i = 0; i < n; ++i) out[i] = get(i);
    }
    return out;
}

Tensor Tensor::fromDoubles(DType t, std::vector<int64_t> d, const std::vector<double>& values) {
    Tensor out(t, std::move(d));
    int64_t n = out.numel();
    if (static_cast<int64_t>(values.size()) != n)
        throw Error("internal: tensor of " + std::to_string(n) + " elements built from " +
                    std::to_string(values.size()) + " values");
    if (t == DType::Float32) {
        float* f = reinterpret_cast<float*>(out.bytes.data());
        for (int64_t i = 0; i < n; ++i) f[i] = static_cast<float>(values[i]);
    } else {
        for (int64_t i = 0; i < n; ++i) out.set(i, values[i]);
    }
    return out;
}

std::string Tensor::shapeString() const {
    std::string s;
    for (int64_t d : dims) s += std::to_string(d) + "x";
    return s + std::string(dtypeShortName(dtype));
}

}  // namespace rx::exec
