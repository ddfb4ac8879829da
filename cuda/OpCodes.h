#pragma once
// Which Paddle op names map onto which elementwise formula (cuda/ElementwiseOps.cuh), and
// rx::DType onto the kernels' storage codes. The tables mirror CpuExecutor's kernel tables.
#include <string>
#include <utility>
#include <vector>

#include "cuda/ElementwiseCodes.h"
#include "model/Type.h"

namespace rx::cuda {

// RX_DT_* for a real dtype; -1 for dtypes the kernels do not store (complex, fp8, index).
int dtypeCode(DType t);

// Ops whose whole kernel is one formula of one operand (CpuExecutor's unary table).
const std::vector<std::pair<std::string, int>>& unaryOpCodes();
// Ops of two broadcast operands (CpuExecutor's kBinaryOps order: code = index).
const std::vector<std::pair<std::string, int>>& binaryOpCodes();
// Unary grads (a, out_grad) -> x_grad.
const std::vector<std::pair<std::string, int>>& unaryGradCodes();

}  // namespace rx::cuda
