#pragma once
// The CPU reference executor. Kernels compute in the value's dtype: storage is read and
// written in place as its element type, each element through double for the floating dtypes
// and int64_t for integers, f32 matmul by sgemm (KernelContext.h; conv/pool, complex, the
// norms other than layer_norm and a few grads still go through double vectors). Ops run in a
// fixed order, so two runs of the same ops on the same inputs are bit-identical
// (what equivalence checking relies on). Memory: a value's reference drops after its last use
// (exec/Liveness.h); OpRecord::liveBytes / peakBytes are measured, the bytes tensor storage
// holds (exec/Tensor.h StorageMeter), so they can disagree with the liveness model.
#include <string>
#include <vector>

#include "exec/Executor.h"
#include "exec/OpSemantics.h"  // seededInput: what run() feeds inputs not given

namespace rx::exec {

class CpuExecutor final : public Executor {
public:
    std::string name() const override { return "cpu"; }
    std::vector<std::string> unsupportedOps(const Program& program) const override;

protected:
    std::string label() const override { return "CPU"; }
    RunResult execute(const Program& program, const RunInputs& inputs, const RunOptions& options,
                      const RunControl& control) override;

public:

    // Every op name this backend has a kernel for, sorted.
    static std::vector<std::string> supportedOps();

    // What a run would cost: the largest value (elements) and the multiply-adds of matmul
    // and conv2d ops (static shapes only). run() refuses programs over RunOptions' limits.
    struct Cost {
        int64_t largestElements = 0;
        std::string largestValue;
        int64_t multiplyAdds = 0;
    };
    static Cost estimateCost(const Program& program);
};

}  // namespace rx::exec
