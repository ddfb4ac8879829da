#pragma once
// The CPU kernel context: what a kernel sees of one op (operands, attributes, declared
// results) and how it stores results; the kernel table every family file registers into;
// and the helpers kernels share (broadcast indices, reduction plans, matmul core ...).
// Internal to the CPU backend (exec/Kernels*.cpp, CpuExecutor.cpp).
#include <complex>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "exec/OpSemantics.h"
#include "exec/OperandSlots.h"
#include "exec/Tensor.h"
#include "model/Diagnostic.h"
#include "model/Program.h"

namespace rx::exec::cpu {

using TensorPtr = std::shared_ptr<const Tensor>;

// A value at run time: one tensor, or a list (vector types from combine / split).
using Slot = SlotOf<TensorPtr>;

// A kernel's view of one op: OpSite (attributes, declared results, the op's normalised
// parameters through OpSemantics) over the CPU tensors of its operands and results.
class Context final : public SlotSite<TensorPtr> {
public:
    Context(const Program& p, OpId op, std::vector<const Slot*> in, uint64_t seed) : SlotSite(p, op, std::move(in)), runSeed(seed) {}
    uint64_t runSeed;

    const Tensor& x(size_t i) const { return *handle(i); }
    Dims operandDims(size_t i) const override { return x(i).dims; }
    Dims ints(size_t i) const override {
        Dims out;
        forEachTensor(i, [&](const Tensor& t) {
            for (int64_t k = 0; k < t.numel(); ++k) out.push_back(static_cast<int64_t>(t.get(k)));
        });
        return out;
    }
    double scalar(size_t i) const override {
        const Tensor& t = x(i);
        if (t.numel() < 1) fail("operand " + std::to_string(i) + " is empty, expected a scalar");
        return t.get(0);
    }
    DType outDType(size_t i) const { return declaredDType(i, [](DType t) { return isSupportedDType(t); }); }
    // Refuses a result of `d` elements above the run's limit before it is allocated (shapes
    // that come from data, e.g. full with a shape operand).
    void requireElements(const Dims& d) const {
        double n = 1;
        for (int64_t x : d) {
            if (x < 0) fail("shape " + dimsString(d) + " has a negative dim");
            n *= static_cast<double>(x);
        }
        if (maxElements > 0 && n > static_cast<double>(maxElements))
            fail("shape " + dimsString(d) + " exceeds the limit of " + std::to_string(maxElements) + " elements per value (RunOptions::maxElementsPerValue)");
    }
    int64_t maxElements = 0;

    void setOut(size_t i, Tensor t) { setOutHandle(i, std::make_shared<const Tensor>(std::move(t))); }
    void setOutShared(size_t i, TensorPtr t) { setOutHandle(i, std::move(t)); }
    void setOutDoubles(size_t i, Dims d, const std::vector<double>& v) { setOut(i, Tensor::fromDoubles(outDType(i), std::move(d), v)); }
};

using Kernel = std::function<void(Context&)>;

// Every kernel by op name; complexAware: ops allowed to see complex tensors.
struct KernelTable {
    std::unordered_map<std::string, Kernel> kernels;
    std::unordered_set<std::string> complexAware;
};

// One registration function per family (Kernels<Family>.cpp); CpuExecutor.cpp calls them
// in this order (Complex last: it extends real kernels).
void registerShapeKernels(KernelTable& table);
void registerElementwiseKernels(KernelTable& table);
void registerReduceKernels(KernelTable& table);
void registerLinalgKernels(KernelTable& table);
void registerConvPoolKernels(KernelTable& table);
void registerNormKernels(KernelTable& table);
void registerRandomKernels(KernelTable& table);
void registerGradsKernels(KernelTable& table);
void registerComplexKernels(KernelTable& table);

inline bool isFloat(DType t) { return isFloatDType(t); }

// ---------- broadcasting and reductions ----------
Dims broadcastDims(const Context& c, const Dims& a, const Dims& b);
// For each output element, the linear index into an input of dims `in` broadcast to `out`.
std::vector<int64_t> broadcastIndex(const Dims& in, const Dims& out);
// Sum `g` (dims `gd`) down to dims `target` (the reverse of broadcasting).
std::vector<double> reduceToShape(const std::vector<double>& g, const Dims& gd, const Dims& target);
// OpSemantics' reduceGeometry plus the output index of every input element.
struct ReducePlan {
    Dims outDims;        // with keepdim
    Dims outDimsNoKeep;
    bool keepdim = false;
    std::vector<int64_t> target;  // output index of every input element
    const Dims& resultDims() const { return keepdim ? outDims : outDimsNoKeep; }
};
ReducePlan planReduce(const Context& c, const Dims& in, size_t axesOperand);

// ---------- elementwise tables ----------
double gelu(double x, bool approx);
double geluGrad(double x, bool approx);
double sigmoid(double x);
double erfinv(double y);
const std::unordered_map<std::string_view, double (*)(double)>& unaryTable();
// The op is resolved to its index in kBinaryOps once per kernel, not per element.
double binaryApply(int op, double a, double b, bool integer);
inline constexpr int kBinaryOpCount = 21;
extern const char* const kBinaryOps[kBinaryOpCount];

// ---------- shapes ----------
Tensor reshaped(const Tensor& t, Dims d);
// `perm` as OpSemantics' transposePerm normalises it.
Tensor transposeTensor(const Tensor& t, const Dims& perm);
Tensor expandTensor(const Tensor& t, const Dims& od);
Tensor concatTensors(Context& c, const std::vector<TensorPtr>& l, size_t axis);
// Splits x as OpSemantics' splitGeometry says and stores the parts as result 0's list.
void splitInto(Context& c, const Tensor& x, const SplitGeom& g);

// ---------- matmul ----------
// Batched matmul with broadcasting of leading dims; rank-1 operands as Paddle promotes them.
std::vector<double> matmulCore(const Context& c, const std::vector<double>& a, Dims ad, bool ta,
                               const std::vector<double>& b, Dims bd, bool tb, Dims& outDims);

// ---------- norms, conv/pool, dropout ----------
struct LnShape { int64_t rows, cols; };
LnShape lnShape(const Context& c, const Dims& d);
Dims statDims(const Context& c, size_t result, int64_t rows);

}  // namespace rx::exec::cpu
