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
#include "exec/Tensor.h"
#include "model/Diagnostic.h"
#include "model/Program.h"

namespace rx::exec::cpu {

using TensorPtr = std::shared_ptr<const Tensor>;

// A value at run time: one tensor, or a list (vector types from combine / split).
struct Slot {
    TensorPtr tensor;
    std::vector<TensorPtr> list;
    bool isList = false;
    bool set = false;
};

class Context {
public:
    Context(const Program& p, OpId op, std::vector<const Slot*> in, uint64_t seed)
        : program(p), id(op), o(p.op(op)), inputs(std::move(in)), runSeed(seed) {
        outputs.resize(o.results.size());
    }
    const Program& program;
    OpId id;
    const Operation& o;
    std::vector<const Slot*> inputs;
    std::vector<Slot> outputs;
    uint64_t runSeed;

    [[noreturn]] void fail(const std::string& msg) const {
        std::string where = "op " + std::to_string(id) + " (" + std::string(program.opName(id));
        if (!o.results.empty()) where += " -> " + program.value(o.results[0]).name;
        throw Error(where + "): " + msg);
    }
    size_t operandCount() const { return inputs.size(); }
    bool has(size_t i) const { return i < inputs.size() && inputs[i] && inputs[i]->set; }
    const Tensor& x(size_t i) const {
        if (!has(i)) fail("operand " + std::to_string(i) + " is missing");
        if (inputs[i]->isList) fail("operand " + std::to_string(i) + " is a vector, expected a tensor");
        return *inputs[i]->tensor;
    }
    const std::vector<TensorPtr>& list(size_t i) const {
        if (!has(i)) fail("operand " + std::to_string(i) + " is missing");
        if (!inputs[i]->isList) fail("operand " + std::to_string(i) + " is a tensor, expected a vector");
        return inputs[i]->list;
    }
    // Integer contents of an operand: a tensor, or a vector of (0-d / 1-element) tensors.
    Dims ints(size_t i) const {
        Dims out;
        if (!has(i)) fail("operand " + std::to_string(i) + " is missing");
        auto add = [&](const Tensor& t) {
            for (int64_t k = 0; k < t.numel(); ++k) out.push_back(static_cast<int64_t>(t.get(k)));
        };
        if (inputs[i]->isList) for (const TensorPtr& t : inputs[i]->list) add(*t);
        else add(*inputs[i]->tensor);
        return out;
    }
    double scalar(size_t i) const {
        const Tensor& t = x(i);
        if (t.numel() < 1) fail("operand " + std::to_string(i) + " is empty, expected a scalar");
        return t.get(0);
    }
    const Type& resultType(size_t i) const {
        if (i >= o.results.size()) fail("has " + std::to_string(o.results.size()) + " results, expected at least " + std::to_string(i + 1));
        return program.types()[program.value(o.results[i]).type]; }
    bool resultIsNull(size_t i) const { return resultType(i).kind == Type::Kind::Null; }
    DType outDType(size_t i) const {
        const Type& t = resultType(i);
        if (t.kind != Type::Kind::DenseTensor) fail("result " + std::to_string(i) + " is not a dense tensor");
        if (!isSupportedDType(t.dtype)) fail("unsupported dtype " + std::string(dtypeShortName(t.dtype)));
        return t.dtype;
    }
    // Static dims of result i, or nullopt if any is dynamic.
    std::optional<Dims> staticDims(size_t i) const {
        const Type& t = resultType(i);
        if (t.kind != Type::Kind::DenseTensor) return std::nullopt;
        for (int64_t d : t.dims) if (d < 0) return std::nullopt;
        return t.dims;
    }

    const Attribute* attr(std::string_view n) const { return o.attribute(n); }
    bool hasAttr(std::string_view n) const { return attr(n) != nullptr; }
    int64_t attrInt(std::string_view n, int64_t def) const { return rx::exec::attrInt(o, n, def); }
    double attrFloat(std::string_view n, double def) const {
        try { return rx::exec::attrFloat(o, n, def); } catch (const Error& e) { fail(e.what()); }
    }
    bool attrBool(std::string_view n, bool def) const { return rx::exec::attrBool(o, n, def); }
    Dims attrInts(std::string_view n) const { return rx::exec::attrInts(o, n); }
    std::string attrString(std::string_view n, std::string def) const { return rx::exec::attrString(o, n, std::move(def)); }
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
    std::string resultName(size_t i) const { return i < o.results.size() ? program.value(o.results[i]).name : std::string("(no result)"); }

    void needResult(size_t i) const {
        if (i >= outputs.size()) fail("has " + std::to_string(outputs.size()) + " results, the kernel writes result " + std::to_string(i));
    }
    void setOut(size_t i, Tensor t) {
        needResult(i);
        outputs[i].tensor = std::make_shared<const Tensor>(std::move(t));
        outputs[i].set = true;
    }
    void setOutShared(size_t i, TensorPtr t) { needResult(i); outputs[i].tensor = std::move(t); outputs[i].set = true; }
    void setOutList(size_t i, std::vector<TensorPtr> l) {
        needResult(i);
        outputs[i].list = std::move(l); outputs[i].isList = true; outputs[i].set = true;
    }
    void setOutDoubles(size_t i, Dims d, const std::vector<double>& v) { setOut(i, Tensor::fromDoubles(outDType(i), std::move(d), v)); }
    int64_t normAxis(int64_t axis, size_t rank) const {
        int64_t r = static_cast<int64_t>(rank);
        int64_t a = axis < 0 ? axis + r : axis;
        if (a < 0 || a >= std::max<int64_t>(r, 1)) fail("axis " + std::to_string(axis) + " out of range for rank " + std::to_string(r));
        return a;
    }
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

// ---------- seeded values ----------
uint64_t mix64(uint64_t x);
uint64_t hashString(const std::string& s, uint64_t seed);
// Uniform double in [0,1) from a counter-based generator (same value for same key, index).
double uniformAt(uint64_t key, uint64_t index);
bool isFloat(DType t);

// ---------- broadcasting and reductions ----------
Dims broadcastDims(const Context& c, const Dims& a, const Dims& b);
// For each output element, the linear index into an input of dims `in` broadcast to `out`.
std::vector<int64_t> broadcastIndex(const Dims& in, const Dims& out);
// Sum `g` (dims `gd`) down to dims `target` (the reverse of broadcasting).
std::vector<double> reduceToShape(const std::vector<double>& g, const Dims& gd, const Dims& target);
struct ReducePlan {
    Dims outDims;        // with keepdim
    Dims outDimsNoKeep;
    std::vector<int64_t> target;  // output index of every input element
};
ReducePlan planReduce(const Context& c, const Dims& in, Dims axes, bool reduceAll);

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
Dims inferReshape(const Context& c, const Dims& in, Dims shape);
Tensor reshaped(const Tensor& t, Dims d);
Tensor transposeTensor(const Context& c, const Tensor& t, const Dims& permIn);
Tensor expandTensor(const Tensor& t, const Dims& od);
Tensor concatTensors(Context& c, const std::vector<TensorPtr>& l, int64_t axisIn);
// Splits x along axis into sections (one -1 inferred) and stores them as result 0's list.
void splitInto(Context& c, const Tensor& x, Dims sections, int64_t axisIn);

// ---------- matmul ----------
// Batched matmul with broadcasting of leading dims; rank-1 operands as Paddle promotes them.
std::vector<double> matmulCore(const Context& c, const std::vector<double>& a, Dims ad, bool ta,
                               const std::vector<double>& b, Dims bd, bool tb, Dims& outDims);

// ---------- norms, conv/pool, dropout ----------
struct LnShape { int64_t rows, cols; };
LnShape lnShape(const Context& c, const Dims& d);
Dims statDims(const Context& c, size_t result, int64_t rows);
FailFn failOf(const Context& c);
Conv2dGeom convGeom(const Context& c, const Dims& x, const Dims& f);
PoolGeom poolGeom(const Context& c, const Dims& x, Dims ksize);
// Window of output (i, j): [h0, h1) x [w0, w1) clipped to the input; `count` is the divisor.
void poolWindow(const PoolGeom& g, int64_t i, int64_t j, int64_t& h0, int64_t& h1, int64_t& w0, int64_t& w1, int64_t& count);
double dropoutP(const Context& c);

}  // namespace rx::exec::cpu
