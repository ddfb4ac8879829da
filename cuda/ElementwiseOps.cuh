// Device elementwise formulas, the CPU executor's exactly: load as double, compute in double,
// store rounded to the value's dtype. Compiled into Kernels.cu and given verbatim to NVRTC for
// fused groups (no includes: NVRTC sees only this text), so both paths agree bit for bit.
#pragma once

#ifndef __CUDACC_RTC__
#include "cuda/ElementwiseCodes.h"
#include "exec/ScalarMath.h"
#endif

#define RX_INF __longlong_as_double(0x7ff0000000000000LL)
#define RX_NAN __longlong_as_double(0x7ff8000000000000LL)

__device__ __forceinline__ double rx_half_to_double(unsigned short h) {
    unsigned int sign = ((unsigned int)h & 0x8000u) << 16;
    unsigned int ex = (h >> 10) & 0x1fu;
    unsigned int mant = h & 0x3ffu;
    if (ex == 0) {
        float v = ldexpf((float)mant, -24);
        return sign ? -(double)v : (double)v;
    }
    if (ex == 31) return (double)__uint_as_float(sign | 0x7f800000u | (mant << 13));
    return (double)__uint_as_float(sign | ((ex - 15 + 127) << 23) | (mant << 13));
}

// Tensor.cpp's floatToHalf, step for step.
__device__ __forceinline__ unsigned short rx_float_to_half(float f) {
    unsigned int x = __float_as_uint(f);
    unsigned int sign = (x >> 16) & 0x8000u;
    unsigned int absx = x & 0x7fffffffu;
    if (absx >= 0x7f800000u) return (unsigned short)(sign | (absx > 0x7f800000u ? 0x7e00u : 0x7c00u));
    if (absx >= 0x477ff000u) return (unsigned short)(sign | 0x7c00u);
    if (absx < 0x38800000u) {
        float scaled = __uint_as_float(absx) * 16777216.0f;
        unsigned int m = (unsigned int)rintf(scaled);
        return (unsigned short)(sign | m);
    }
    unsigned int mant = absx & 0x7fffffu;
    unsigned int ex = (absx >> 23) - 127 + 15;
    unsigned int h = (ex << 10) | (mant >> 13);
    unsigned int rest = mant & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;
    return (unsigned short)(sign | h);
}

__device__ __forceinline__ unsigned short rx_float_to_bf16(float f) {
    unsigned int x = __float_as_uint(f);
    if ((x & 0x7fffffffu) > 0x7f800000u) return (unsigned short)((x >> 16) | 0x40u);
    unsigned int rounding = 0x7fffu + ((x >> 16) & 1u);
    return (unsigned short)((x + rounding) >> 16);
}

__device__ __forceinline__ double rx_load(const void* p, int dt, long long i) {
    switch (dt) {
    case RX_DT_BOOL: return ((const unsigned char*)p)[i] ? 1.0 : 0.0;
    case RX_DT_U8: return (double)((const unsigned char*)p)[i];
    case RX_DT_I8: return (double)((const signed char*)p)[i];
    case RX_DT_I16: return (double)((const short*)p)[i];
    case RX_DT_I32: return (double)((const int*)p)[i];
    case RX_DT_I64: return (double)((const long long*)p)[i];
    case RX_DT_F16: return rx_half_to_double(((const unsigned short*)p)[i]);
    case RX_DT_BF16: return (double)__uint_as_float((unsigned int)((const unsigned short*)p)[i] << 16);
    case RX_DT_F32: return (double)((const float*)p)[i];
    default: return ((const double*)p)[i];
    }
}

__device__ __forceinline__ void rx_store(void* p, int dt, long long i, double v) {
    switch (dt) {
    case RX_DT_BOOL: ((unsigned char*)p)[i] = v != 0.0; break;
    case RX_DT_U8: ((unsigned char*)p)[i] = (unsigned char)(long long)v; break;
    case RX_DT_I8: ((signed char*)p)[i] = (signed char)(long long)v; break;
    case RX_DT_I16: ((short*)p)[i] = (short)(long long)v; break;
    case RX_DT_I32: ((int*)p)[i] = isfinite(v) ? (int)v : 0; break;
    case RX_DT_I64: ((long long*)p)[i] = isfinite(v) ? (long long)v : 0; break;
    case RX_DT_F16: ((unsigned short*)p)[i] = rx_float_to_half((float)v); break;
    case RX_DT_BF16: ((unsigned short*)p)[i] = rx_float_to_bf16((float)v); break;
    case RX_DT_F32: ((float*)p)[i] = (float)v; break;
    default: ((double*)p)[i] = v; break;
    }
}

// A value as it reads back after a store in dtype `dt`: what the next unfused kernel would
// load, so fused chains round exactly where unfused ones do.
__device__ __forceinline__ double rx_quantize(int dt, double v) {
    unsigned long long tmp = 0;
    rx_store(&tmp, dt, 0, v);
    return rx_load(&tmp, dt, 0);
}

// rx_sigmoid, rx_gelu, rx_gelu_grad, rx_erfinv: exec/ScalarMath.h (the CPU kernels' formulas;
// NVRTC receives that file's text just before this one).

// fmin/fmax differ from std::min/std::max on NaN; spelled as the CPU's comparisons.
__device__ __forceinline__ double rx_max(double a, double b) { return (a < b) ? b : a; }
__device__ __forceinline__ double rx_min(double a, double b) { return (b < a) ? b : a; }

__device__ __forceinline__ double rx_unary(int op, double x, double p0, double p1) {
    switch (op) {
    case RX_U_EXP: return exp(x);
    case RX_U_EXPM1: return expm1(x);
    case RX_U_LOG: return log(x);
    case RX_U_LOG1P: return log1p(x);
    case RX_U_LOG2: return log2(x);
    case RX_U_LOG10: return log10(x);
    case RX_U_SIN: return sin(x);
    case RX_U_COS: return cos(x);
    case RX_U_TAN: return tan(x);
    case RX_U_TANH: return tanh(x);
    case RX_U_SINH: return sinh(x);
    case RX_U_COSH: return cosh(x);
    case RX_U_ASIN: return asin(x);
    case RX_U_ACOS: return acos(x);
    case RX_U_ATAN: return atan(x);
    case RX_U_ASINH: return asinh(x);
    case RX_U_ACOSH: return acosh(x);
    case RX_U_ATANH: return atanh(x);
    case RX_U_SQRT: return sqrt(x);
    case RX_U_RSQRT: return 1.0 / sqrt(x);
    case RX_U_SQUARE: return x * x;
    case RX_U_RECIPROCAL: return 1.0 / x;
    case RX_U_ABS: return fabs(x);
    case RX_U_SIGN: return (double)((x > 0) - (x < 0));
    case RX_U_ERF: return erf(x);
    case RX_U_SIGMOID: return rx_sigmoid(x);
    case RX_U_RELU: return x > 0 ? x : 0.0;
    case RX_U_RELU6: return rx_min(rx_max(x, 0.0), 6.0);
    case RX_U_SILU: return x * rx_sigmoid(x);
    case RX_U_FLOOR: return floor(x);
    case RX_U_CEIL: return ceil(x);
    case RX_U_ROUND: return round(x);
    case RX_U_TRUNC: return trunc(x);
    case RX_U_FRAC: return x - trunc(x);
    case RX_U_LOGICAL_NOT: return x == 0 ? 1.0 : 0.0;
    case RX_U_BITWISE_NOT: return (double)(~(long long)x);
    case RX_U_ISINF: return isinf(x) ? 1.0 : 0.0;
    case RX_U_ISNAN: return isnan(x) ? 1.0 : 0.0;
    case RX_U_ISFINITE: return isfinite(x) ? 1.0 : 0.0;
    case RX_U_LOGSIGMOID: return -log1p(exp(-x));
    case RX_U_GELU: return rx_gelu(x, p0 != 0);
    case RX_U_POW: return (p0 == 2.0) ? x * x : pow(x, p0);
    case RX_U_SCALE_AFTER: return x * p0 + p1;
    case RX_U_SCALE_BEFORE: return (x + p1) * p0;
    case RX_U_CLIP: return rx_min(rx_max(x, p0), p1);
    case RX_U_CAST: return x;
    case RX_U_CAST_BOOL: return x != 0.0 ? 1.0 : 0.0;
    case RX_U_FILL: return p0;
    case RX_U_MUL_CONST: return x * p0;
    case RX_U_ERFINV: return rx_erfinv(x);
    default: return RX_NAN;
    }
}

__device__ __forceinline__ double rx_binary(int op, double a, double b, bool integer, double p0) {
    switch (op) {
    case RX_B_ADD: return a + b;
    case RX_B_SUB: return a - b;
    case RX_B_MUL: return a * b;
    case RX_B_DIV: return integer ? (b == 0 ? 0.0 : trunc(a / b)) : a / b;
    case RX_B_FLOOR_DIV: return b == 0 ? 0.0 : floor(a / b);
    case RX_B_REM: { if (b == 0) return 0.0; double r = fmod(a, b); return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r; }
    case RX_B_MAX: return rx_max(a, b);
    case RX_B_MIN: return rx_min(a, b);
    case RX_B_POW: return pow(a, b);
    case RX_B_EQ: return a == b;
    case RX_B_NE: return a != b;
    case RX_B_LT: return a < b;
    case RX_B_LE: return a <= b;
    case RX_B_GT: return a > b;
    case RX_B_GE: return a >= b;
    case RX_B_AND: return (a != 0) && (b != 0);
    case RX_B_OR: return (a != 0) || (b != 0);
    case RX_B_XOR: return (a != 0) != (b != 0);
    case RX_B_BAND: return (double)((long long)a & (long long)b);
    case RX_B_BOR: return (double)((long long)a | (long long)b);
    case RX_B_BXOR: return (double)((long long)a ^ (long long)b);
    case RX_G_RELU: return a > 0 ? b : 0.0;
    case RX_G_SIGMOID: return b * a * (1 - a);
    case RX_G_TANH: return b * (1 - a * a);
    case RX_G_EXP: return b * a;
    case RX_G_RSQRT: return -0.5 * b * a * a * a;
    case RX_G_SQRT: return 0.5 * b / a;
    case RX_G_SILU: { double s = rx_sigmoid(a); return b * s * (1 + a * (1 - s)); }
    case RX_G_SIN: return b * cos(a);
    case RX_G_COS: return -b * sin(a);
    case RX_G_GELU: return b * rx_gelu_grad(a, p0 != 0);
    case RX_G_SQUARE: return 2 * a * b;
    case RX_G_LOG: return b / a;
    case RX_G_ABS: return a > 0 ? b : a < 0 ? -b : 0.0;
    case RX_G_ERF: return b * 1.1283791670955126 * exp(-a * a);
    case RX_G_POW: return b * (p0 * pow(a, p0 - 1));
    case RX_G_DROPOUT: return a != 0 ? b / p0 : 0.0;
    default: return RX_NAN;
    }
}

__device__ __forceinline__ double rx_ternary(int op, double a, double b, double c) {
    switch (op) {
    case RX_B_NEG_MUL_DIV_SQ: return -c * a / (b * b);
    case RX_T_WHERE: return a != 0 ? b : c;
    case RX_T_POW_GRAD_X: return c * b * pow(a, b - 1);
    case RX_T_POW_GRAD_Y: return a > 0 ? c * pow(a, b) * log(a) : 0.0;
    default: return RX_NAN;
    }
}
