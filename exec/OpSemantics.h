#pragma once
// Op semantics shared by every executor backend: attribute readers, broadcasting, conv/pool
// geometry, and the check pass that validates every op (operand and result counts and kinds,
// attributes, shapes) and propagates shapes to bound a run's bytes before any op runs.
// Qt-free and kernel-free: the CPU backend and the CUDA backend both call it.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/Program.h"

namespace rx::exec {

using Dims = std::vector<int64_t>;

int64_t numelOf(const Dims& d);
std::string dimsString(const Dims& d);
// Row-major strides of `d`.
Dims stridesOf(const Dims& d);
// Numpy broadcasting of two shapes; nullopt when they do not broadcast.
std::optional<Dims> broadcastShapes(const Dims& a, const Dims& b);

// Attribute readers with Paddle's loose printing (ints printed as floats, bools as ints ...).
int64_t attrInt(const Operation& o, std::string_view name, int64_t fallback);
double attrFloat(const Operation& o, std::string_view name, double fallback);
bool attrBool(const Operation& o, std::string_view name, bool fallback);
Dims attrInts(const Operation& o, std::string_view name);
std::string attrString(const Operation& o, std::string_view name, std::string fallback);

// A failure callback that throws (never returns); used by geometry helpers so the CPU
// kernel context and the check pass word their errors the same way.
using FailFn = std::function<void(const std::string&)>;

// conv2d geometry (NCHW input, OIHW filter), validated: strides, dilations > 0, groups
// divide the channels, paddings >= 0, a non-empty output.
struct Conv2dGeom {
    int64_t n, cin, h, w, cout, kh, kw, oh, ow, sh, sw, ph0, ph1, pw0, pw1, dh, dw, groups;
};
Conv2dGeom conv2dGeometry(const Operation& o, const Dims& x, const Dims& filter, const FailFn& fail);

// pool2d geometry (NCHW), validated: kernel and strides > 0, paddings >= 0, non-empty output.
struct PoolGeom {
    int64_t n, ch, h, w, kh, kw, sh, sw, ph0, ph1, pw0, pw1, oh, ow;
    bool avg, exclusive, adaptive;
};
PoolGeom pool2dGeometry(const Operation& o, const Dims& x, Dims kernelSize, const FailFn& fail);

// Limits of one run, in real bytes (shapes propagated, not only declared). 0 = no limit.
struct RunLimits {
    int64_t maxBytesPerValue = int64_t(1) << 31;    // 2 GiB
    int64_t maxTotalBytes = int64_t(6) << 30;       // live bytes at any point, 6 GiB
    int64_t maxElementsPerValue = int64_t(1) << 28;
    int64_t maxMultiplyAdds = int64_t(2'000'000'000'000);
};

// What the check pass learned: shapes by value (nullopt = only known at run time), the
// largest value, the peak of live bytes under free-after-last-use, the multiply-adds.
struct ProgramCheck {
    std::vector<std::optional<Dims>> shapes;   // by ValueId
    int64_t largestBytes = 0;
    std::string largestValue;
    int64_t peakBytes = 0;
    int64_t multiplyAdds = 0;
};

// Validates every op of the global block and propagates shapes; throws rx::Error naming
// the op index, op name and the attribute or operand at fault ("op 7 (pd_op.conv2d ->
// %12): attribute strides = [0,1]: every stride must be > 0"). Limits are checked on the
// propagated shapes. `residentValues` (by ValueId, may be empty) never die.
ProgramCheck checkProgram(const Program& program, const RunLimits& limits, const std::vector<uint8_t>& residentValues = {});

// The error prefix for op `op`: "op 7 (pd_op.conv2d -> %12)".
std::string opWhere(const Program& program, OpId op);

}  // namespace rx::exec
