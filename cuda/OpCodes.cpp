// The op-name -> formula tables of the CUDA backend.
#include "cuda/OpCodes.h"

namespace rx::cuda {

int dtypeCode(DType t) {
    switch (t) {
    case DType::Bool: return RX_DT_BOOL;
    case DType::UInt8: return RX_DT_U8;
    case DType::Int8: return RX_DT_I8;
    case DType::Int16: return RX_DT_I16;
    case DType::Int32: return RX_DT_I32;
    case DType::Int64: return RX_DT_I64;
    case DType::Float16: return RX_DT_F16;
    case DType::BFloat16: return RX_DT_BF16;
    case DType::Float32: return RX_DT_F32;
    case DType::Float64: return RX_DT_F64;
    default: return -1;
    }
}

const std::vector<std::pair<std::string, int>>& unaryOpCodes() {
    static const std::vector<std::pair<std::string, int>> t = {
        {"pd_op.exp", RX_U_EXP}, {"pd_op.expm1", RX_U_EXPM1}, {"pd_op.log", RX_U_LOG}, {"pd_op.log1p", RX_U_LOG1P},
        {"pd_op.log2", RX_U_LOG2}, {"pd_op.log10", RX_U_LOG10}, {"pd_op.sin", RX_U_SIN}, {"pd_op.cos", RX_U_COS},
        {"pd_op.tan", RX_U_TAN}, {"pd_op.tanh", RX_U_TANH}, {"pd_op.sinh", RX_U_SINH}, {"pd_op.cosh", RX_U_COSH},
        {"pd_op.asin", RX_U_ASIN}, {"pd_op.acos", RX_U_ACOS}, {"pd_op.atan", RX_U_ATAN}, {"pd_op.asinh", RX_U_ASINH},
        {"pd_op.acosh", RX_U_ACOSH}, {"pd_op.atanh", RX_U_ATANH}, {"pd_op.sqrt", RX_U_SQRT}, {"pd_op.rsqrt", RX_U_RSQRT},
        {"pd_op.square", RX_U_SQUARE}, {"pd_op.reciprocal", RX_U_RECIPROCAL}, {"pd_op.abs", RX_U_ABS},
        {"pd_op.sign", RX_U_SIGN}, {"pd_op.erf", RX_U_ERF}, {"pd_op.erfinv", RX_U_ERFINV}, {"pd_op.sigmoid", RX_U_SIGMOID},
        {"pd_op.relu", RX_U_RELU}, {"pd_op.relu6", RX_U_RELU6}, {"pd_op.silu", RX_U_SILU}, {"pd_op.floor", RX_U_FLOOR},
        {"pd_op.ceil", RX_U_CEIL}, {"pd_op.round", RX_U_ROUND}, {"pd_op.trunc", RX_U_TRUNC}, {"pd_op.frac", RX_U_FRAC},
        {"pd_op.logical_not", RX_U_LOGICAL_NOT}, {"pd_op.bitwise_not", RX_U_BITWISE_NOT}, {"pd_op.isinf", RX_U_ISINF},
        {"pd_op.isnan", RX_U_ISNAN}, {"pd_op.isfinite", RX_U_ISFINITE}, {"pd_op.logsigmoid", RX_U_LOGSIGMOID},
    };
    return t;
}

const std::vector<std::pair<std::string, int>>& binaryOpCodes() {
    static const std::vector<std::pair<std::string, int>> t = {
        {"pd_op.add", RX_B_ADD}, {"pd_op.subtract", RX_B_SUB}, {"pd_op.multiply", RX_B_MUL}, {"pd_op.divide", RX_B_DIV},
        {"pd_op.floor_divide", RX_B_FLOOR_DIV}, {"pd_op.remainder", RX_B_REM}, {"pd_op.maximum", RX_B_MAX},
        {"pd_op.minimum", RX_B_MIN}, {"pd_op.elementwise_pow", RX_B_POW}, {"pd_op.equal", RX_B_EQ},
        {"pd_op.not_equal", RX_B_NE}, {"pd_op.less_than", RX_B_LT}, {"pd_op.less_equal", RX_B_LE},
        {"pd_op.greater_than", RX_B_GT}, {"pd_op.greater_equal", RX_B_GE}, {"pd_op.logical_and", RX_B_AND},
        {"pd_op.logical_or", RX_B_OR}, {"pd_op.logical_xor", RX_B_XOR}, {"pd_op.bitwise_and", RX_B_BAND},
        {"pd_op.bitwise_or", RX_B_BOR}, {"pd_op.bitwise_xor", RX_B_BXOR},
    };
    return t;
}

const std::vector<std::pair<std::string, int>>& unaryGradCodes() {
    static const std::vector<std::pair<std::string, int>> t = {
        {"pd_op.relu_grad", RX_G_RELU}, {"pd_op.sigmoid_grad", RX_G_SIGMOID}, {"pd_op.tanh_grad", RX_G_TANH},
        {"pd_op.exp_grad", RX_G_EXP}, {"pd_op.rsqrt_grad", RX_G_RSQRT}, {"pd_op.sqrt_grad", RX_G_SQRT},
        {"pd_op.silu_grad", RX_G_SILU}, {"pd_op.sin_grad", RX_G_SIN}, {"pd_op.cos_grad", RX_G_COS},
        {"pd_op.square_grad", RX_G_SQUARE}, {"pd_op.log_grad", RX_G_LOG}, {"pd_op.abs_grad", RX_G_ABS},
        {"pd_op.erf_grad", RX_G_ERF},
    };
    return t;
}

}  // namespace rx::cuda
