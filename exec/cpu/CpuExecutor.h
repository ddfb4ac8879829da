#pragma once
// The CPU reference executor. Every kernel computes in double and stores in the value's
// dtype, in a fixed order, so two runs of the same ops on the same inputs are bit-identical
// (what equivalence checking relies on). Memory: each value is freed after its last use;
// OpRecord::liveBytes / peakBytes follow the program's own accounting (a value holds the
// bytes of its type; `builtin.combine` vectors alias their elements and hold nothing).
#include <string>
#include <vector>

#include "exec/Executor.h"
#include "exec/OpSemantics.h"  // seededInput: what run() feeds inputs not given

namespace rx::exec {

class CpuExecutor final : public Executor {
public:
    std::string name() const override { return "cpu"; }
    std::vector<std::string> unsupportedOps(const Program& program) const override;
    RunResult run(const Program& program, const RunInputs& inputs, const RunOptions& options) override;

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
