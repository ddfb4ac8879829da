#pragma once
// Op and dtype codes shared by the host launchers, the CUDA kernels and NVRTC-fused sources
// (plain macros: NVRTC sees this text too, without any includes).

// Storage dtypes (cuda/Kernels.h maps rx::DType onto these).
#define RX_DT_BOOL 0
#define RX_DT_U8 1
#define RX_DT_I8 2
#define RX_DT_I16 3
#define RX_DT_I32 4
#define RX_DT_I64 5
#define RX_DT_F16 6
#define RX_DT_BF16 7
#define RX_DT_F32 8
#define RX_DT_F64 9

// Unary op codes (one operand; p0, p1 are the op's scalar attributes).
#define RX_U_EXP 0
#define RX_U_EXPM1 1
#define RX_U_LOG 2
#define RX_U_LOG1P 3
#define RX_U_LOG2 4
#define RX_U_LOG10 5
#define RX_U_SIN 6
#define RX_U_COS 7
#define RX_U_TAN 8
#define RX_U_TANH 9
#define RX_U_SINH 10
#define RX_U_COSH 11
#define RX_U_ASIN 12
#define RX_U_ACOS 13
#define RX_U_ATAN 14
#define RX_U_ASINH 15
#define RX_U_ACOSH 16
#define RX_U_ATANH 17
#define RX_U_SQRT 18
#define RX_U_RSQRT 19
#define RX_U_SQUARE 20
#define RX_U_RECIPROCAL 21
#define RX_U_ABS 22
#define RX_U_SIGN 23
#define RX_U_ERF 24
#define RX_U_SIGMOID 25
#define RX_U_RELU 26
#define RX_U_RELU6 27
#define RX_U_SILU 28
#define RX_U_FLOOR 29
#define RX_U_CEIL 30
#define RX_U_ROUND 31
#define RX_U_TRUNC 32
#define RX_U_FRAC 33
#define RX_U_LOGICAL_NOT 34
#define RX_U_BITWISE_NOT 35
#define RX_U_ISINF 36
#define RX_U_ISNAN 37
#define RX_U_ISFINITE 38
#define RX_U_LOGSIGMOID 39
#define RX_U_GELU 40          // p0: approximate (0/1)
#define RX_U_POW 41           // p0: exponent
#define RX_U_SCALE_AFTER 42   // x*p0 + p1
#define RX_U_SCALE_BEFORE 43  // (x + p1)*p0
#define RX_U_CLIP 44          // [p0, p1]
#define RX_U_CAST 45          // identity (the store converts)
#define RX_U_CAST_BOOL 46     // x != 0
#define RX_U_FILL 47          // p0 (no operand read)
#define RX_U_MUL_CONST 48     // x*p0 (scale_grad, dropout in test mode)
#define RX_U_ERFINV 49
#define RX_U_COUNT 50

// Binary op codes: 0..20 are CpuExecutor's binaryApply cases; 32.. are unary grads (a, g).
#define RX_B_ADD 0
#define RX_B_SUB 1
#define RX_B_MUL 2
#define RX_B_DIV 3
#define RX_B_FLOOR_DIV 4
#define RX_B_REM 5
#define RX_B_MAX 6
#define RX_B_MIN 7
#define RX_B_POW 8
#define RX_B_EQ 9
#define RX_B_NE 10
#define RX_B_LT 11
#define RX_B_LE 12
#define RX_B_GT 13
#define RX_B_GE 14
#define RX_B_AND 15
#define RX_B_OR 16
#define RX_B_XOR 17
#define RX_B_BAND 18
#define RX_B_BOR 19
#define RX_B_BXOR 20
#define RX_G_RELU 32
#define RX_G_SIGMOID 33
#define RX_G_TANH 34
#define RX_G_EXP 35
#define RX_G_RSQRT 36
#define RX_G_SQRT 37
#define RX_G_SILU 38
#define RX_G_SIN 39
#define RX_G_COS 40
#define RX_G_GELU 41        // p0: approximate
#define RX_G_SQUARE 42
#define RX_G_LOG 43
#define RX_G_ABS 44
#define RX_G_ERF 45
#define RX_G_POW 46         // p0: exponent
#define RX_G_DROPOUT 47     // (mask, g): g / p0 where the mask is set; p0 = 1-p when upscaling, else 1
#define RX_B_NEG_MUL_DIV_SQ 48  // ternary (a, b, g): -g*a/(b*b), divide's dy
#define RX_T_WHERE 49           // ternary (c, x, y): c != 0 ? x : y
#define RX_T_POW_GRAD_X 50      // ternary (x, y, g): g*y*pow(x, y-1), elementwise_pow dx
#define RX_T_POW_GRAD_Y 51      // ternary (x, y, g): x > 0 ? g*pow(x, y)*log(x) : 0, its dy

