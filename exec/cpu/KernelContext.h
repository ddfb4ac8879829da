#pragma once
// The CPU kernel context: what a kernel sees of one op (operands, attributes, declared
// results) and how it stores results; the kernel table every family file registers into;
// and the helpers kernels share (broadcast indices, reduction plans, matmul core ...).
// Internal to the CPU backend (exec/Kernels*.cpp, CpuExecutor.cpp).
#include <array>
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

// ---------- iteration in place (no per-element index tables) ----------
// Calls fn(k, off) for every element k of `out` (row-major), off[j] being the linear offset
// of the element of input j (of dims *ins[j], broadcast to `out`) that feeds it.
template <size_t N, class Fn>
void forEachBroadcast(const Dims& out, const std::array<const Dims*, N>& ins, Fn&& fn) {
    const int64_t n = numelOf(out);
    std::array<int64_t, N> off{};
    bool same = true;
    for (const Dims* d : ins) same = same && *d == out;
    if (same) {
        for (int64_t k = 0; k < n; ++k) { off.fill(k); fn(k, off); }
        return;
    }
    if (n == 0) return;
    const size_t r = out.size();
    std::array<Dims, N> str;  // per input, by output axis; 0 where broadcast
    for (size_t j = 0; j < N; ++j) {
        const Dims& in = *ins[j];
        Dims full(r, 1);
        for (size_t i = 0; i < in.size(); ++i) full[r - in.size() + i] = in[i];
        str[j] = stridesOf(full);
        for (size_t i = 0; i < r; ++i) if (full[i] == 1) str[j][i] = 0;
    }
    const int64_t inner = r ? out[r - 1] : 1;
    std::array<int64_t, N> innerStride{};
    for (size_t j = 0; j < N; ++j) innerStride[j] = r ? str[j][r - 1] : 0;
    Dims counter(r, 0);
    std::array<int64_t, N> base{};
    for (int64_t k = 0; k < n; k += inner) {
        for (int64_t e = 0; e < inner; ++e) {
            for (size_t j = 0; j < N; ++j) off[j] = base[j] + e * innerStride[j];
            fn(k + e, off);
        }
        for (int i = static_cast<int>(r) - 2; i >= 0; --i) {  // next row: the odometer over the leading axes
            if (++counter[i] < out[i]) { for (size_t j = 0; j < N; ++j) base[j] += str[j][i]; break; }
            for (size_t j = 0; j < N; ++j) base[j] -= str[j][i] * (out[i] - 1);
            counter[i] = 0;
        }
    }
}

// A reduction of `in` to `kept` (in's rank after padding kept with leading 1s; 1 on the
// reduced axes): body(o, visit) for every output element o, where visit(g) calls g(offset)
// for each input element reducing into o, in ascending offset order (the order a sweep of
// the input adds them in, so sums are the same as one).
template <class Body>
void forEachReduction(const Dims& in, Dims kept, Body&& body) {
    const size_t r = in.size();
    if (kept.size() < r) kept.insert(kept.begin(), r - kept.size(), 1);
    const Dims str = stridesOf(in);
    Dims outAxes, outStr, redAxes, redStr;
    for (size_t a = 0; a < r; ++a) {
        if (kept[a] == in[a] && in[a] != 1) { outAxes.push_back(in[a]); outStr.push_back(str[a]); }
        else if (kept[a] == 1 && in[a] != 1) { redAxes.push_back(in[a]); redStr.push_back(str[a]); }
    }
    const int64_t outN = numelOf(outAxes), redN = numelOf(redAxes);
    // The reduced axes are a contiguous run of the input when their strides are 1, d0, d0*d1 ...
    bool contiguous = true;
    for (size_t i = redAxes.size(); i-- > 0;) {
        int64_t expect = 1;
        for (size_t j = i + 1; j < redAxes.size(); ++j) expect *= redAxes[j];
        contiguous = contiguous && redStr[i] == expect;
    }
    Dims oc(outAxes.size(), 0), rc(redAxes.size(), 0);
    int64_t obase = 0;
    for (int64_t o = 0; o < outN; ++o) {
        auto visit = [&](auto&& g) {
            if (contiguous) { for (int64_t e = 0; e < redN; ++e) g(obase + e); return; }
            int64_t off = obase;
            std::fill(rc.begin(), rc.end(), 0);
            for (int64_t e = 0; e < redN; ++e) {
                g(off);
                for (size_t i = redAxes.size(); i-- > 0;) {
                    if (++rc[i] < redAxes[i]) { off += redStr[i]; break; }
                    off -= redStr[i] * (redAxes[i] - 1);
                    rc[i] = 0;
                }
            }
        };
        body(o, visit);
        for (size_t i = outAxes.size(); i-- > 0;) {
            if (++oc[i] < outAxes[i]) { obase += outStr[i]; break; }
            obase -= outStr[i] * (outAxes[i] - 1);
            oc[i] = 0;
        }
    }
}

// A tensor of `outType` and x's dims with out[i] = fn(x[i]), read and stored in place in the
// dtypes' own element types; fn sees each element as loadElement gives it (double for the
// floating dtypes, int64_t for integers and bool) and returns double or int64_t.
template <class Fn>
Tensor mapElements(const Tensor& x, DType outType, Fn&& fn) {
    Tensor out(outType, x.dims);
    const int64_t n = x.numel();
    auto generic = [&] { for (int64_t i = 0; i < n; ++i) out.set(i, static_cast<double>(fn(x.get(i)))); };
    if (outType != x.dtype) { generic(); return out; }
    visitRealDType(x.dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        const T* in = x.data<T>();
        T* o = out.data<T>();
        for (int64_t i = 0; i < n; ++i) o[i] = storeElement<T>(fn(loadElement(in[i])));
    }, generic);
    return out;
}

// A tensor of dtype t and dims d with out[i] = fn(i) (a double, stored as Tensor::set does).
template <class Fn>
Tensor generatedTensor(DType t, const Dims& d, Fn&& fn) {
    Tensor out(t, d);
    const int64_t n = out.numel();
    visitRealDType(t, [&](auto tag) {
        using T = typename decltype(tag)::type;
        T* o = out.data<T>();
        for (int64_t i = 0; i < n; ++i) o[i] = storeElement<T>(static_cast<double>(fn(i)));
    }, [&] { for (int64_t i = 0; i < n; ++i) out.set(i, static_cast<double>(fn(i))); });
    return out;
}

// A tensor of dtype t and x's dims with out[i] = fn(i, x[i]) (x read as double in place).
template <class Fn>
Tensor generatedTensorFrom(const Tensor& x, DType t, Fn&& fn) {
    auto generic = [&] { return generatedTensor(t, x.dims, [&](int64_t i) { return fn(i, x.get(i)); }); };
    if (x.dtype != t) return generic();
    return visitRealDType(x.dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        const T* in = x.data<T>();
        return generatedTensor(t, x.dims, [&](int64_t i) { return fn(i, static_cast<double>(loadElement(in[i]))); });
    }, generic);
}

// A tensor of dtype t and dims od with out[k] = fn(std::array<double, N> v), v[j] the element
// of input j (broadcast to od) read in place; typed loops when every input is of dtype t.
template <size_t N, class Fn>
Tensor broadcastMap(DType t, const Dims& od, const std::array<const Tensor*, N>& ins, Fn&& fn) {
    Tensor out(t, od);
    std::array<const Dims*, N> dims;
    bool sameType = true;
    for (size_t j = 0; j < N; ++j) { dims[j] = &ins[j]->dims; sameType = sameType && ins[j]->dtype == t; }
    std::array<double, N> v;
    auto generic = [&] {
        forEachBroadcast(od, dims, [&](int64_t k, const auto& off) {
            for (size_t j = 0; j < N; ++j) v[j] = ins[j]->get(off[j]);
            out.set(k, fn(v));
        });
    };
    if (!sameType) { generic(); return out; }
    visitRealDType(t, [&](auto tag) {
        using T = typename decltype(tag)::type;
        std::array<const T*, N> in;
        for (size_t j = 0; j < N; ++j) in[j] = ins[j]->template data<T>();
        T* o = out.data<T>();
        forEachBroadcast(od, dims, [&](int64_t k, const auto& off) {
            for (size_t j = 0; j < N; ++j) v[j] = static_cast<double>(loadElement(in[j][off[j]]));
            o[k] = storeElement<T>(static_cast<double>(fn(v)));
        });
    }, generic);
    return out;
}

// ---------- elementwise tables ----------
double gelu(double x, bool approx);
double geluGrad(double x, bool approx);
double sigmoid(double x);
double erfinv(double y);
const std::unordered_map<std::string_view, double (*)(double)>& unaryTable();
// The op is resolved to its index in kBinaryOps once per kernel, not per element.
double binaryApply(int op, double a, double b, bool integer);
// The same op in integer arithmetic (integer and bool operands): the results binaryApply
// gives for values exact in a double, and exact beyond 2^53 too.
int64_t binaryApplyInt(int op, int64_t a, int64_t b);
inline constexpr int kBinaryOpCount = 21;
extern const char* const kBinaryOps[kBinaryOpCount];

// ---------- shapes ----------
// A tensor of dtype t and dims d with every element v (stored as Tensor::set stores it).
Tensor filledTensor(DType t, const Dims& d, double v);
Tensor reshaped(const Tensor& t, Dims d);
// `perm` as OpSemantics' transposePerm normalises it.
Tensor transposeTensor(const Tensor& t, const Dims& perm);
Tensor expandTensor(const Tensor& t, const Dims& od);
Tensor concatTensors(Context& c, std::span<const TensorPtr> l, size_t axis);
// Splits x as OpSemantics' splitGeometry says and stores the parts as result 0's list.
void splitInto(Context& c, const Tensor& x, const SplitGeom& g);

// ---------- matmul ----------
// Batched matmul geometry: OpSemantics' matmulShape (rank-1 operands promoted, leading dims
// broadcast) and each output batch's operand batch, for the GEMM loop.
struct MatmulGeom {
    int64_t m = 0, n = 0, k = 0, batches = 0;
    bool ta = false, tb = false;
    int64_t aRows = 0, aCols = 0, bRows = 0, bCols = 0;  // as stored
    std::vector<int64_t> aBatch, bBatch;                   // each output batch's operand batch
    Dims outDims;
};
MatmulGeom matmulGeometry(const Context& c, const Dims& a, bool ta, const Dims& b, bool tb);
// out = op(a) * op(b) in the operands' dtype (f32 by sgemm, f64 by dgemm; f16/bf16 per batch
// through f32, integers per batch through f64); `out` holds numelOf(g.outDims) elements of
// dtype `t`, a and b too are of dtype `t`.
void matmulInto(const MatmulGeom& g, DType t, const uint8_t* a, const uint8_t* b, uint8_t* out);
// op(a) * op(b) in dtype t with dims `want` (the product's batch dims summed down to them
// when they are broadcast, as a grad needs); operands of another dtype are converted first
// (unmetered temporaries).
Tensor matmulTensor(const Context& c, const Tensor& a, bool ta, const Tensor& b, bool tb, DType t, const Dims* want = nullptr);
// Sums `from` (dims `fromDims`) down to `to` (the reverse of broadcasting) in from's dtype,
// accumulating each result element in double (int64_t for integers).
Tensor sumToShape(const Tensor& from, const Dims& to);


}  // namespace rx::exec::cpu
