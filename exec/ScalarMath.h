// Scalar formulas both backends compute: the CPU kernels (host), the CUDA kernels and the
// NVRTC-fused groups (device; cuda/CMakeLists.txt hands this file's text to NVRTC, so it has
// no includes there). One definition, so the backends agree bit for bit.
#ifndef RX_EXEC_SCALAR_MATH_H
#define RX_EXEC_SCALAR_MATH_H

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define RX_SCALAR __host__ __device__ inline
#else
#include <cmath>
#define RX_SCALAR inline
#endif
#if defined(__CUDA_ARCH__) || defined(__CUDACC_RTC__)
#define RX_SCALAR_INF __longlong_as_double(0x7ff0000000000000LL)
#else
#define RX_SCALAR_INF __builtin_huge_val()
#endif

RX_SCALAR double rx_sigmoid(double x) { return 1.0 / (1.0 + exp(-x)); }

RX_SCALAR double rx_gelu(double x, bool approx) {
    if (approx) return 0.5 * x * (1.0 + tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
    return 0.5 * x * (1.0 + erf(x * 0.7071067811865476));
}

RX_SCALAR double rx_gelu_grad(double x, bool approx) {
    if (approx) {
        double k = 0.7978845608028654, u = k * (x + 0.044715 * x * x * x);
        double t = tanh(u);
        return 0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * k * (1.0 + 3 * 0.044715 * x * x);
    }
    return 0.5 * (1.0 + erf(x * 0.7071067811865476)) + x * 0.3989422804014327 * exp(-0.5 * x * x);
}

// Giles' single-precision polynomial, then two Newton steps on erf to double accuracy.
RX_SCALAR double rx_erfinv(double y) {
    if (y <= -1) return -RX_SCALAR_INF;
    if (y >= 1) return RX_SCALAR_INF;
    double w = -log((1.0 - y) * (1.0 + y)), x;
    if (w < 5.0) {
        w -= 2.5;
        x = 2.81022636e-08; x = 3.43273939e-07 + x * w; x = -3.5233877e-06 + x * w;
        x = -4.39150654e-06 + x * w; x = 0.00021858087 + x * w; x = -0.00125372503 + x * w;
        x = -0.00417768164 + x * w; x = 0.246640727 + x * w; x = 1.50140941 + x * w;
    } else {
        w = sqrt(w) - 3.0;
        x = -0.000200214257; x = 0.000100950558 + x * w; x = 0.00134934322 + x * w;
        x = -0.00367342844 + x * w; x = 0.00573950773 + x * w; x = -0.0076224613 + x * w;
        x = 0.00943887047 + x * w; x = 1.00167406 + x * w; x = 2.83297682 + x * w;
    }
    x *= y;
    for (int i = 0; i < 2; ++i) x -= (erf(x) - y) / (1.1283791670955126 * exp(-x * x));
    return x;
}

#endif  // RX_EXEC_SCALAR_MATH_H
