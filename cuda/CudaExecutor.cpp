// The CUDA executor: runs the program through the shared block interpreter
// (exec/BlockInterpreter.h: the CPU's lifetimes and control flow; seeded inputs and op semantics
// from exec/OpSemantics), each op's kernels on one stream, timed with CUDA events; values go
// back to the caching allocator after their last use, and the bytes it holds are the measure.
// This is the backend's one adapter onto exec (Executor, RunInputs, Tensor).
#include "cuda/CudaExecutor.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <numeric>
#include <unordered_map>

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <nvtx3/nvToolsExt.h>

#include "exec/BlockInterpreter.h"
#include "exec/OpSemantics.h"
#include "exec/OperandSlots.h"
#include "cuda/CudaRuntime.h"
#ifdef RX_HAVE_CUDNN
#include "cuda/CudnnConv.h"
#endif
#include "cuda/OpCodes.h"
#include "cuda/Fusion.h"
#include "cuda/Kernels.h"
#include "cuda/LifetimePlan.h"
#include "model/Diagnostic.h"

namespace rx::cuda {

using Dims = std::vector<int64_t>;
namespace k = kernels;

using exec::dimsString;
using exec::numelOf;
using exec::stridesOf;

// ---------- device values ----------
struct DevBuffer {
    CachingAllocator* alloc = nullptr;
    uintptr_t address = 0;
    ~DevBuffer() { if (alloc && address) alloc->free(address); }
};

struct DevTensor {
    DType dtype = DType::Float32;
    Dims dims;
    std::shared_ptr<DevBuffer> buffer;                 // shared by aliases (reshape, assign)
    std::shared_ptr<const exec::Tensor> host;          // host copy of small host-made values
    int64_t numel() const { return numelOf(dims); }
    int64_t bytes() const { return numel() * dtypeBytes(dtype); }
    void* data() const { return buffer ? reinterpret_cast<void*>(buffer->address) : nullptr; }
};
using DevPtr = std::shared_ptr<const DevTensor>;

using Slot = exec::SlotOf<DevPtr>;

struct CudaExecutor::Impl {
    CudaBackingStore store;
    CachingAllocator alloc{store};   // every value of a run: its bytes are the run's measured memory
    CachingAllocator staged{store};  // the run's inputs as given, uploaded once before its steps
    cudaStream_t stream = nullptr;
    cublasHandle_t cublas = nullptr;
    int* errorFlag = nullptr;  // device int for index errors
    std::string deviceName;
    FusionCache fusion;
#ifdef RX_HAVE_CUDNN
    std::unique_ptr<CudnnConv> cudnn;  // created by the first conv2d
    CudnnConv& conv() {
        if (!cudnn) cudnn = std::make_unique<CudnnConv>(stream, alloc);
        return *cudnn;
    }
#endif
    int arch = 90;  // compute capability as major*10 + minor, for NVRTC
    int64_t launches = 0;

    ~Impl() {
#ifdef RX_HAVE_CUDNN
        cudnn.reset();
#endif
        if (errorFlag) cudaFree(errorFlag);
        if (cublas) cublasDestroy(cublas);
        if (stream) cudaStreamDestroy(stream);
    }

    DevPtr allocate(DType t, Dims dims) { return allocate(t, std::move(dims), alloc); }
    DevPtr allocate(DType t, Dims dims, CachingAllocator& from) {
        auto d = std::make_shared<DevTensor>();
        d->dtype = t;
        d->dims = std::move(dims);
        d->buffer = std::make_shared<DevBuffer>();
        d->buffer->alloc = &from;
        d->buffer->address = from.allocate(static_cast<size_t>(std::max<int64_t>(d->bytes(), 0)));
        return d;
    }
    DevPtr upload(const exec::Tensor& t, bool keepHost) { return upload(t, keepHost, alloc); }
    DevPtr upload(const exec::Tensor& t, bool keepHost, CachingAllocator& into) {
        DevPtr d = allocate(t.dtype, t.dims, into);
        if (t.byteSize() > 0)
            check(cudaMemcpyAsync(d->data(), t.bytes.data(), static_cast<size_t>(t.byteSize()), cudaMemcpyHostToDevice, stream),
                  "upload");
        // Pageable host-to-device copies are staged before cudaMemcpyAsync returns, so `t`
        // may go away at once: no synchronisation here.
        if (keepHost) const_cast<DevTensor&>(*d).host = std::make_shared<const exec::Tensor>(t);
        return d;
    }
    // A copy of `src` in the run's allocator (its host copy, if any, shared).
    DevPtr copyOnDevice(const DevTensor& src) {
        DevPtr d = allocate(src.dtype, src.dims);
        if (d->bytes() > 0)
            check(cudaMemcpyAsync(d->data(), src.data(), static_cast<size_t>(d->bytes()), cudaMemcpyDeviceToDevice, stream), "input copy");
        const_cast<DevTensor&>(*d).host = src.host;
        return d;
    }
    exec::Tensor download(const DevTensor& d) {
        if (d.host) return *d.host;
        exec::Tensor t(d.dtype, d.dims);
        if (t.byteSize() > 0) {
            check(cudaMemcpyAsync(t.bytes.data(), d.data(), static_cast<size_t>(t.byteSize()), cudaMemcpyDeviceToHost, stream),
                  "download");
            check(cudaStreamSynchronize(stream), "download");
        }
        return t;
    }
    DevPtr alias(const DevPtr& x, Dims dims) {
        auto d = std::make_shared<DevTensor>(*x);
        d->dims = std::move(dims);
        if (d->host) {
            auto h = std::make_shared<exec::Tensor>(*d->host);
            h->dims = d->dims;
            d->host = h;
        }
        return d;
    }
};

namespace {

using Impl = CudaExecutor::Impl;

// ---------- per-op context: OpSite (exec/OpSemantics) over device operands ----------
class Ctx final : public exec::SlotSite<DevPtr> {
public:
    Ctx(Impl& impl, const Program& p, OpId op, std::vector<const Slot*> in, uint64_t seed, bool tf32)
        : SlotSite(p, op, std::move(in)), dev(impl), runSeed(seed), tf32(tf32) {}
    Impl& dev;
    uint64_t runSeed;
    bool tf32;

    const DevPtr& xp(size_t i) const { return handle(i); }
    const DevTensor& x(size_t i) const { return *xp(i); }
    Dims operandDims(size_t i) const override { return x(i).dims; }
    // Integer contents of an operand (copied to the host when it has no host copy).
    Dims ints(size_t i) const override {
        Dims out;
        forEachTensor(i, [&](const DevTensor& t) {
            exec::Tensor h = dev.download(t);
            for (int64_t j = 0; j < h.numel(); ++j) out.push_back(static_cast<int64_t>(h.get(j)));
        });
        return out;
    }
    double scalar(size_t i) const override {
        const DevTensor& t = x(i);
        if (t.numel() < 1) fail("operand " + std::to_string(i) + " is empty, expected a scalar");
        return dev.download(t).get(0);
    }
    DType outDType(size_t i) const {
        return declaredDType(i, [](DType t) { return exec::isSupportedDType(t) && !exec::isComplexDType(t); });
    }
    void setOut(size_t i, DevPtr t) { setOutHandle(i, std::move(t)); }
    cudaStream_t stream() const { return dev.stream; }
    void launched(int n = 1) { dev.launches += n; }
};

using Kernel = std::function<void(Ctx&)>;

// ---------- shared helpers ----------
void checkRank(const Ctx& c, size_t rank) {
    if (rank > static_cast<size_t>(k::kMaxRank)) c.fail("rank " + std::to_string(rank) + " exceeds the CUDA kernels' " + std::to_string(k::kMaxRank));
}

// An operand broadcast to `out` dims.
k::Operand operandFor(const Ctx& c, const DevTensor& t, const Dims& out) {
    checkRank(c, out.size());
    k::Operand op;
    op.data = t.data();
    op.dtype = dtypeCode(t.dtype);
    op.contiguous = t.dims == out;
    size_t r = out.size();
    Dims full(r, 1);
    for (size_t i = 0; i < t.dims.size(); ++i) full[r - t.dims.size() + i] = t.dims[i];
    Dims s = stridesOf(full);
    for (size_t i = 0; i < r; ++i) op.strides[i] = full[i] == 1 ? 0 : s[i];
    return op;
}

k::ElementwiseLaunch launchFor(const Ctx& c, int arity, int op, const std::vector<const DevTensor*>& ins, const DevTensor& out) {
    checkRank(c, out.dims.size());
    k::ElementwiseLaunch l;
    l.arity = arity;
    l.op = op;
    for (int i = 0; i < arity; ++i) l.in[i] = operandFor(c, *ins[static_cast<size_t>(i)], out.dims);
    l.out = out.data();
    l.outDtype = dtypeCode(out.dtype);
    l.rank = static_cast<int>(out.dims.size());
    for (int i = 0; i < l.rank; ++i) l.dims[i] = out.dims[static_cast<size_t>(i)];
    l.numel = out.numel();
    l.integer = !exec::isFloatDType(out.dtype) && out.dtype != DType::Bool;
    return l;
}

DevPtr unaryOp(Ctx& c, int op, const DevTensor& x, DType outT, double p0 = 0, double p1 = 0) {
    DevPtr out = c.dev.allocate(outT, x.dims);
    k::ElementwiseLaunch l = launchFor(c, 1, op, {&x}, *out);
    l.p0 = p0;
    l.p1 = p1;
    k::elementwise(l, c.stream());
    c.launched();
    return out;
}

DevPtr binaryOp(Ctx& c, int op, const DevTensor& a, const DevTensor& b, DType outT, Dims od, double p0 = 0) {
    DevPtr out = c.dev.allocate(outT, std::move(od));
    k::ElementwiseLaunch l = launchFor(c, 2, op, {&a, &b}, *out);
    l.p0 = p0;
    k::elementwise(l, c.stream());
    c.launched();
    return out;
}

DevPtr ternaryOp(Ctx& c, int op, const DevTensor& a, const DevTensor& b, const DevTensor& d, DType outT, Dims od) {
    DevPtr out = c.dev.allocate(outT, std::move(od));
    k::ElementwiseLaunch l = launchFor(c, 3, op, {&a, &b, &d}, *out);
    k::elementwise(l, c.stream());
    c.launched();
    return out;
}

DevPtr fill(Ctx& c, DType t, Dims dims, double v) {
    DevPtr out = c.dev.allocate(t, std::move(dims));
    k::ElementwiseLaunch l;
    l.arity = 0;
    l.op = RX_U_FILL;
    l.out = out->data();
    l.outDtype = dtypeCode(t);
    l.numel = out->numel();
    l.p0 = v;
    k::elementwise(l, c.stream());
    c.launched();
    return out;
}

// Small host-made values (shape arguments, scalars): built exactly as the CPU builds them,
// uploaded, and their host copy kept so later ops read them without a device round trip.
DevPtr hostValue(Ctx& c, DType t, Dims dims, const std::vector<double>& v) {
    return c.dev.upload(exec::Tensor::fromDoubles(t, std::move(dims), v), true);
}

// Reduce `x` (dense) over `reduceAxis` flags into `out` (kept axes in order).
k::Reduce reduceGeometry(Ctx& c, int kind, const DevTensor& x, const std::vector<bool>& reduceAxis, const DevTensor& out) {
    k::Reduce r;
    r.kind = kind;
    r.x = x.data();
    r.xDtype = dtypeCode(x.dtype);
    r.out = out.data();
    r.outDtype = dtypeCode(out.dtype);
    Dims s = stridesOf(x.dims);
    r.outCount = 1;
    r.reducedCount = 1;
    for (size_t i = 0; i < x.dims.size(); ++i) {
        if (reduceAxis[i]) {
            r.reducedDims[r.reducedRank] = x.dims[i];
            r.reducedStrides[r.reducedRank++] = s[i];
            r.reducedCount *= x.dims[i];
        } else {
            r.keptDims[r.keptRank] = x.dims[i];
            r.keptStrides[r.keptRank++] = s[i];
            r.outCount *= x.dims[i];
        }
    }
    checkRank(c, x.dims.size());
    return r;
}

void reduceInto(Ctx& c, int kind, const DevTensor& x, const std::vector<bool>& reduceAxis, const DevTensor& out) {
    k::reduce(reduceGeometry(c, kind, x, reduceAxis, out), c.stream());
    c.launched();
}

// Sum `g` down to `target` dims (reverse of broadcasting), storing `outT`.
DevPtr reduceToShape(Ctx& c, const DevTensor& g, const Dims& target, DType outT) {
    exec::checkReducible(g.dims, target, c.failFn());
    if (g.dims == target) return unaryOp(c, RX_U_CAST, g, outT);
    const size_t r = g.dims.size();
    std::vector<bool> red(r, false);  // the axes target broadcasts along
    for (size_t i = 0; i < r; ++i) red[i] = (i < r - target.size() ? 1 : target[i - (r - target.size())]) == 1 && g.dims[i] != 1;
    DevPtr out = c.dev.allocate(outT, target);
    reduceInto(c, 0, g, red, *out);
    return out;
}

int elemBytes(DType t) { return dtypeBytes(t); }

// out (dims `dims`, dense) <- x's elements at offset `begin` with x's strides (slice/transpose).
void copyView(Ctx& c, const DevTensor& src, const Dims& dims, const Dims& srcStrides, int64_t srcOffset, void* dst,
              const Dims& dstStrides, int64_t dstOffset) {
    checkRank(c, dims.size());
    k::StridedCopy sc;
    sc.src = src.data();
    sc.dst = dst;
    sc.elemBytes = elemBytes(src.dtype);
    sc.rank = static_cast<int>(dims.size());
    for (size_t i = 0; i < dims.size(); ++i) {
        sc.dims[i] = dims[i];
        sc.srcStrides[i] = srcStrides[i];
        sc.dstStrides[i] = dstStrides[i];
    }
    sc.srcOffset = srcOffset;
    sc.dstOffset = dstOffset;
    k::stridedCopy(sc, c.stream());
    c.launched();
}

// `perm` as exec::transposePerm normalises it.
DevPtr transposeTensor(Ctx& c, const DevTensor& t, const Dims& perm) {
    size_t r = t.dims.size();
    Dims od = exec::permutedDims(t.dims, perm), inStr = stridesOf(t.dims), srcStr(r);
    for (size_t i = 0; i < r; ++i) srcStr[i] = inStr[static_cast<size_t>(perm[i])];
    DevPtr out = c.dev.allocate(t.dtype, od);
    copyView(c, t, od, srcStr, 0, out->data(), stridesOf(od), 0);
    return out;
}

DevPtr expandTensor(Ctx& c, const DevTensor& t, const Dims& od) {
    DevPtr out = c.dev.allocate(t.dtype, od);
    k::Operand op = operandFor(c, t, od);
    Dims src(op.strides, op.strides + od.size());
    copyView(c, t, od, src, 0, out->data(), stridesOf(od), 0);
    return out;
}

void requireIndexOk(Ctx& c, const char* what) {
    int flag = 0;
    check(cudaMemcpyAsync(&flag, c.dev.errorFlag, sizeof(int), cudaMemcpyDeviceToHost, c.stream()), what);
    check(cudaStreamSynchronize(c.stream()), what);
    if (flag) {
        check(cudaMemsetAsync(c.dev.errorFlag, 0, sizeof(int), c.stream()), what);
        c.fail(std::string(what) + " index out of range");
    }
}

// ---------- matmul (cuBLAS) ----------
struct Gemm {
    int64_t m, n, k, batch;
    bool ta, tb;
};

cudaDataType_t cublasType(const Ctx& c, DType t) {
    switch (t) {
    case DType::Float32: return CUDA_R_32F;
    case DType::Float64: return CUDA_R_64F;
    case DType::Float16: return CUDA_R_16F;
    case DType::BFloat16: return CUDA_R_16BF;
    default: c.fail("matmul of " + std::string(dtypeShortName(t)) + " tensors (cuBLAS takes f16, bf16, f32, f64)");
    }
}

// Row-major batched C[b] = op(A[b]) * op(B[b]) through cuBLAS's column-major GEMM:
// C^T = op(B)^T op(A)^T, so B goes first. Batch strides of 0 broadcast an operand.
void gemm(Ctx& c, const void* A, const void* B, void* C, DType t, int64_t m, int64_t n, int64_t kk, bool ta, bool tb,
          int64_t batch, int64_t strideA, int64_t strideB) {
    cudaDataType_t dt = cublasType(c, t);
    cublasComputeType_t compute = t == DType::Float64 ? CUBLAS_COMPUTE_64F
                                  : (t == DType::Float32 && !c.tf32) ? CUBLAS_COMPUTE_32F
                                  : t == DType::Float32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
    double oneD = 1.0, zeroD = 0.0;
    float oneF = 1.0f, zeroF = 0.0f;
    const void* alpha = t == DType::Float64 ? static_cast<const void*>(&oneD) : static_cast<const void*>(&oneF);
    const void* beta = t == DType::Float64 ? static_cast<const void*>(&zeroD) : static_cast<const void*>(&zeroF);
    int64_t lda = ta ? m : kk, ldb = tb ? kk : n;
    cublasStatus_t st = cublasGemmStridedBatchedEx(
        c.dev.cublas, tb ? CUBLAS_OP_T : CUBLAS_OP_N, ta ? CUBLAS_OP_T : CUBLAS_OP_N, static_cast<int>(n), static_cast<int>(m),
        static_cast<int>(kk), alpha, B, dt, static_cast<int>(ldb), strideB, A, dt, static_cast<int>(lda), strideA, beta, C, dt,
        static_cast<int>(n), m * n, static_cast<int>(batch), compute, CUBLAS_GEMM_DEFAULT);
    if (st != CUBLAS_STATUS_SUCCESS) c.fail(std::string("cuBLAS GEMM failed: ") + cublasGetStatusString(st));
    c.launched();
}

// matmul(a, b) with exec::matmulShape's rules: 1-d operands promoted, batch dims broadcast.
DevPtr matmul(Ctx& c, const DevPtr& aIn, const DevPtr& bIn, bool transposeA, bool transposeB, DType outT) {
    const exec::MatmulShape s = exec::matmulShape(aIn->dims, transposeA, bIn->dims, transposeB, c.failFn());
    if (aIn->dtype != bIn->dtype) c.fail("matmul of different dtypes");
    const Dims& ad = s.a;
    const Dims& bd = s.b;
    const Dims& batch = s.batch;
    const bool ta = s.transposeA, tb = s.transposeB;
    const int64_t m = s.m, n = s.n, kk = s.k;
    int64_t nb = numelOf(batch), na = numelOf(s.aBatch), nbb = numelOf(s.bBatch);
    DevPtr a = aIn, b = bIn;
    // cuBLAS strides broadcast only a whole operand; anything else is materialised first.
    auto expandBatch = [&](const DevPtr& t, const Dims& td, int64_t count) -> DevPtr {
        if (count == nb || count == 1) return t;
        Dims full = batch;
        full.push_back(td[td.size() - 2]);
        full.push_back(td[td.size() - 1]);
        DevTensor view = *t;
        view.dims = td;
        return expandTensor(c, view, full);
    };
    a = expandBatch(a, ad, na);
    b = expandBatch(b, bd, nbb);
    if (na != nb && na != 1) na = nb;
    if (nbb != nb && nbb != 1) nbb = nb;
    const Dims& od = s.outDims;
    DevPtr out = c.dev.allocate(outT, od);
    if (m * n == 0) return out;
    if (kk == 0) return fill(c, outT, od, 0.0);
    gemm(c, a->data(), b->data(), out->data(), outT, m, n, kk, ta, tb, nb, na == 1 ? 0 : m * kk, nbb == 1 ? 0 : kk * n);
    return out;
}


// ---------- fused groups ----------
// The one-term formula of an op, or false: code, arity, which operands are tensors, params.
struct TermOf {
    int arity = 1, op = 0;
    std::vector<size_t> tensorOperands;
    double p0 = 0, p1 = 0;
};

const std::unordered_map<std::string, int>& formulaNames() {
    static const std::unordered_map<std::string, int> names = [] {
        std::unordered_map<std::string, int> m;
        for (const auto& [n, c] : unaryOpCodes()) m[n] = 1;
        for (const auto& [n, c] : binaryOpCodes()) m[n] = 2;
        for (const char* n : {"pd_op.scale", "pd_op.pow", "pd_op.cast", "pd_op.gelu", "pd_op.clip"}) m[n] = 1;
        m["pd_op.where"] = 3;
        return m;
    }();
    return names;
}

bool hasFormula(const Program& p, OpId op) {
    auto it = formulaNames().find(std::string(p.opName(op)));
    if (it == formulaNames().end()) return false;
    // every tensor operand is a dense tensor (no vectors)
    for (ValueId v : p.op(op).operands)
        if (v != kNoId && p.types()[p.value(v).type].kind != Type::Kind::DenseTensor) return false;
    return dtypeCode(p.types()[p.value(p.op(op).results[0]).type].dtype) >= 0;
}

TermOf termOf(Ctx& c) {
    std::string name(c.program.opName(c.id));
    TermOf t;
    t.tensorOperands = {0};
    for (const auto& [n, code] : unaryOpCodes()) if (n == name) { t.op = code; return t; }
    for (const auto& [n, code] : binaryOpCodes())
        if (n == name) { t.arity = 2; t.op = code; t.tensorOperands = {0, 1}; return t; }
    if (name == "pd_op.scale") {
        const exec::ScaleParams p = exec::scaleParams(c);
        t.p0 = p.scale;
        t.p1 = p.bias;
        t.op = p.biasAfterScale ? RX_U_SCALE_AFTER : RX_U_SCALE_BEFORE;
    } else if (name == "pd_op.pow") {
        t.op = RX_U_POW;
        t.p0 = exec::powParams(c).exponent;
    } else if (name == "pd_op.cast") {
        t.op = c.outDType(0) == DType::Bool ? RX_U_CAST_BOOL : RX_U_CAST;
    } else if (name == "pd_op.gelu") {
        t.op = RX_U_GELU;
        t.p0 = exec::geluParams(c).approximate ? 1 : 0;
    } else if (name == "pd_op.clip") {
        const exec::ClipParams p = exec::clipParams(c);
        t.op = RX_U_CLIP;
        t.p0 = p.min;
        t.p1 = p.max;
    } else if (name == "pd_op.where") {
        t.arity = 3;
        t.op = RX_T_WHERE;
        t.tensorOperands = {0, 1, 2};
    } else {
        c.fail("no fused formula");
    }
    return t;
}

// Runs group `g` at its first position: one NVRTC kernel; results of members that are needed
// later are stored, the others exist only as types (no buffer).
void runFusedGroup(Impl& dev, const Program& program, const LifetimePlan& plan, const FusionGroup& g,
                   const std::vector<Slot>& slots, uint64_t seed, bool tf32, std::unordered_map<size_t, DevPtr>& pending) {
    FusedKernelSpec spec;
    spec.dims = g.dims;
    std::vector<const void*> extPtrs;
    std::unordered_map<ValueId, int> extIndex;
    std::unordered_map<ValueId, int> termIndex;
    std::vector<double> params;
    std::vector<void*> outPtrs;
    std::vector<DevPtr> results;
    for (size_t m = 0; m < g.positions.size(); ++m) {
        OpId op = plan.order[g.positions[m]];
        const Operation& o = program.op(op);
        std::vector<const Slot*> in;
        for (ValueId v : o.operands) in.push_back(v != kNoId && slots[v].set ? &slots[v] : nullptr);
        Ctx c(dev, program, op, std::move(in), seed, tf32);
        TermOf t = termOf(c);
        for (size_t i = 0; i < o.operands.size(); ++i)
            if (std::find(t.tensorOperands.begin(), t.tensorOperands.end(), i) == t.tensorOperands.end() &&
                termIndex.count(o.operands[i]))
                c.fail("a scalar operand computed inside its fused group");
        FusedTerm term;
        term.arity = t.arity;
        term.op = t.op;
        DType outT = c.outDType(0);
        term.outDtype = dtypeCode(outT);
        term.integer = !exec::isFloatDType(outT) && outT != DType::Bool;
        for (size_t k2 = 0; k2 < t.tensorOperands.size(); ++k2) {
            ValueId v = o.operands.at(t.tensorOperands[k2]);
            if (auto it = termIndex.find(v); it != termIndex.end()) { term.refs[k2] = -(it->second + 1); continue; }
            auto it = extIndex.find(v);
            if (it == extIndex.end()) {
                const DevTensor& x = c.x(t.tensorOperands[k2]);
                k::Operand opnd = operandFor(c, x, g.dims);
                it = extIndex.emplace(v, static_cast<int>(spec.externalDtypes.size())).first;
                spec.externalDtypes.push_back(opnd.dtype);
                spec.externalStrides.emplace_back(opnd.strides, opnd.strides + g.dims.size());
                spec.externalContiguous.push_back(opnd.contiguous ? 1 : 0);
                extPtrs.push_back(x.data());
            }
            term.refs[k2] = it->second;
        }
        termIndex[o.results[0]] = static_cast<int>(m);
        spec.terms.push_back(term);
        params.push_back(t.p0);
        params.push_back(t.p1);
        DevPtr r;
        if (g.materialize[m]) {
            r = dev.allocate(outT, g.dims);
            spec.outputs.push_back(static_cast<int>(m));
            outPtrs.push_back(r->data());
        } else {
            auto v = std::make_shared<DevTensor>();
            v->dtype = outT;
            v->dims = g.dims;
            r = v;
        }
        pending[g.positions[m]] = r;
    }
    const void* kernel = dev.fusion.kernel(fusedSource(spec), dev.arch);
    launchFused(kernel, g.numel, extPtrs, outPtrs, params, dev.stream);
    dev.launches += 1;
}

// ---------- kernels ----------
std::unordered_map<std::string, Kernel> buildKernels() {
    std::unordered_map<std::string, Kernel> kt;

    // -- sources and plumbing --
    kt["pd_op.full"] = [](Ctx& c) {
        Dims shape = exec::fullShape(c);
        const double v = exec::fullValue(c);
        int64_t n = numelOf(shape);
        if (n <= 64) c.setOut(0, hostValue(c, c.outDType(0), shape, std::vector<double>(static_cast<size_t>(n), v)));
        else c.setOut(0, fill(c, c.outDType(0), shape, v));
    };
    kt["pd_op.full_int_array"] = [](Ctx& c) {
        const Dims v = exec::fullIntArrayValues(c);
        c.setOut(0, hostValue(c, c.outDType(0), {static_cast<int64_t>(v.size())}, std::vector<double>(v.begin(), v.end())));
    };
    kt["pd_op.full_like"] = [](Ctx& c) {
        c.setOut(0, fill(c, c.outDType(0), c.x(0).dims, exec::fullValue(c)));
    };
    kt["pd_op.full_with_tensor"] = [](Ctx& c) {
        double v = c.scalar(0);
        Dims shape = exec::fullWithTensorShape(c);
        c.setOut(0, fill(c, c.outDType(0), shape, v));
    };
    kt["pd_op.arange"] = [](Ctx& c) {
        const exec::ArangeParams p = exec::arangeParams(c);
        DevPtr out = c.dev.allocate(c.outDType(0), {p.length});
        k::arange(out->data(), dtypeCode(out->dtype), p.length, p.start, p.step, c.stream());
        c.launched();
        c.setOut(0, out);
    };
    auto shapeKernel = [](Ctx& c) {
        const DevTensor& x = c.x(0);
        c.setOut(0, hostValue(c, c.outDType(0), {static_cast<int64_t>(x.dims.size())}, std::vector<double>(x.dims.begin(), x.dims.end())));
    };
    kt["pd_op.shape"] = shapeKernel;
    kt["pd_op.shape64"] = shapeKernel;
    auto identity = [](Ctx& c) { c.setOut(0, c.xp(0)); };
    kt["pd_op.assign"] = identity;
    kt["pd_op.fetch"] = identity;
    kt["pd_op.assign_grad"] = identity;
    for (std::string_view name : opsWithTrait(OpTrait::Collective))
        kt[std::string(name)] = identity;  // one rank: the tensor as it is (CpuExecutor's rule)
    kt["builtin.shadow_output"] = [](Ctx&) {};
    kt["builtin.combine"] = [](Ctx& c) {
        std::vector<DevPtr> l;
        for (size_t i = 0; i < c.operandCount(); ++i) l.push_back(c.xp(i));
        c.setOutList(0, std::move(l));
    };
    kt["builtin.split"] = [](Ctx& c) {
        const auto& l = c.list(0);
        exec::checkVectorSplit(c, l.size());
        for (size_t i = 0; i < l.size(); ++i) c.setOut(i, l[i]);
    };
    kt["builtin.slice"] = [](Ctx& c) { c.setOut(0, c.list(0)[exec::vectorSliceIndex(c, c.list(0).size())]); };

    // -- elementwise --
    for (const auto& [name, code] : unaryOpCodes()) {
        int op = code;
        kt[name] = [op](Ctx& c) { c.setOut(0, unaryOp(c, op, c.x(0), c.outDType(0))); };
    }
    kt["pd_op.gelu"] = [](Ctx& c) { c.setOut(0, unaryOp(c, RX_U_GELU, c.x(0), c.outDType(0), exec::geluParams(c).approximate ? 1 : 0)); };
    kt["pd_op.pow"] = [](Ctx& c) { c.setOut(0, unaryOp(c, RX_U_POW, c.x(0), c.outDType(0), exec::powParams(c).exponent)); };
    kt["pd_op.scale"] = [](Ctx& c) {
        const exec::ScaleParams p = exec::scaleParams(c);
        c.setOut(0, unaryOp(c, p.biasAfterScale ? RX_U_SCALE_AFTER : RX_U_SCALE_BEFORE, c.x(0), c.outDType(0), p.scale, p.bias));
    };
    kt["pd_op.clip"] = [](Ctx& c) {
        const exec::ClipParams p = exec::clipParams(c);
        c.setOut(0, unaryOp(c, RX_U_CLIP, c.x(0), c.outDType(0), p.min, p.max));
    };
    kt["pd_op.cast"] = [](Ctx& c) {
        DType t = c.outDType(0);
        c.setOut(0, unaryOp(c, t == DType::Bool ? RX_U_CAST_BOOL : RX_U_CAST, c.x(0), t));
    };
    kt["pd_op.cast_grad"] = [](Ctx& c) { c.setOut(0, unaryOp(c, RX_U_CAST, c.x(1), c.outDType(0))); };
    for (const auto& [name, code] : binaryOpCodes()) {
        int op = code;
        kt[name] = [op](Ctx& c) {
            const DevTensor& a = c.x(0);
            const DevTensor& b = c.x(1);
            c.setOut(0, binaryOp(c, op, a, b, c.outDType(0), c.broadcast(a.dims, b.dims)));
        };
    }
    kt["pd_op.where"] = [](Ctx& c) {
        const DevTensor& cond = c.x(0);
        const DevTensor& a = c.x(1);
        const DevTensor& b = c.x(2);
        c.setOut(0, ternaryOp(c, RX_T_WHERE, cond, a, b, c.outDType(0), exec::whereDims(cond.dims, a.dims, b.dims, c.failFn())));
    };
    kt["pd_op.add_n"] = [](Ctx& c) {
        // accumulate in f64 as the CPU does, round once at the end
        const auto& l = c.list(0);
        std::vector<Dims> parts;
        for (const DevPtr& t : l) parts.push_back(t->dims);
        const Dims od = exec::addNDims(c, parts);
        DevPtr acc = unaryOp(c, RX_U_CAST, *l[0], DType::Float64);
        for (size_t i = 1; i < l.size(); ++i) acc = binaryOp(c, RX_B_ADD, *acc, *l[i], DType::Float64, od);
        c.setOut(0, unaryOp(c, RX_U_CAST, *acc, c.outDType(0)));
    };
    auto triKernel = [](bool lower) {
        return [lower](Ctx& c) {
            const DevTensor& x = c.x(0);
            const exec::TriangleParams p = exec::triangleParams(c, x.dims);
            DevPtr out = c.dev.allocate(c.outDType(0), x.dims);
            if (out->dtype != x.dtype) c.fail("tril/triu change the dtype");
            k::triangle(x.data(), dtypeCode(x.dtype), out->data(), x.numel(), p.rows, p.cols, p.diagonal, lower, c.stream());
            c.launched();
            c.setOut(0, out);
        };
    };
    kt["pd_op.tril"] = triKernel(true);
    kt["pd_op.triu"] = triKernel(false);

    // -- shape ops: views share the buffer (as Paddle's reshape does) --
    auto xshapeOut = [](Ctx& c, const Dims& xd) {
        if (c.wants(1)) c.setOut(1, c.dev.allocate(c.outDType(1), exec::xshapeDims(xd)));
    };
    auto reshapeKernel = [xshapeOut](Ctx& c) {
        const DevPtr& x = c.xp(0);
        c.setOut(0, c.dev.alias(x, exec::reshapeDims(c)));
        xshapeOut(c, x->dims);
    };
    kt["pd_op.reshape"] = reshapeKernel;
    kt["pd_op.view_shape"] = reshapeKernel;
    auto squeezeLike = [xshapeOut](bool squeeze) {
        return [squeeze, xshapeOut](Ctx& c) {
            const DevPtr& x = c.xp(0);
            Dims od = squeeze ? exec::squeezeDims(c) : exec::unsqueezeDims(c);
            c.setOut(0, c.dev.alias(x, od));
            xshapeOut(c, x->dims);
        };
    };
    kt["pd_op.squeeze"] = squeezeLike(true);
    kt["pd_op.unsqueeze"] = squeezeLike(false);
    kt["pd_op.flatten"] = [xshapeOut](Ctx& c) {
        const DevPtr& x = c.xp(0);
        c.setOut(0, c.dev.alias(x, exec::flattenDims(c)));
        xshapeOut(c, x->dims);
    };
    kt["pd_op.reshape_grad"] = [](Ctx& c) {
        const DevPtr& g = c.xp(1);
        c.setOut(0, c.dev.alias(g, exec::reshapeGradDims(c, c.x(0).dims, g->numel())));
    };
    for (const char* name : {"pd_op.squeeze_grad", "pd_op.unsqueeze_grad", "pd_op.flatten_grad"}) kt[name] = kt["pd_op.reshape_grad"];
    kt["pd_op.transpose"] = [](Ctx& c) { c.setOut(0, transposeTensor(c, c.x(0), exec::transposePerm(c, c.x(0).dims.size(), false))); };
    kt["pd_op.transpose_grad"] = [](Ctx& c) { c.setOut(0, transposeTensor(c, c.x(0), exec::transposePerm(c, c.x(0).dims.size(), true))); };
    kt["pd_op.expand"] = [](Ctx& c) {
        c.setOut(0, expandTensor(c, c.x(0), exec::expandDims(c)));
    };
    kt["pd_op.expand_as"] = [](Ctx& c) {
        c.setOut(0, expandTensor(c, c.x(0), exec::expandAsDims(c)));
    };
    kt["pd_op.expand_grad"] = [](Ctx& c) { c.setOut(0, reduceToShape(c, c.x(1), c.x(0).dims, c.outDType(0))); };
    kt["pd_op.expand_as_grad"] = kt["pd_op.expand_grad"];
    kt["pd_op.slice"] = [](Ctx& c) {
        const DevTensor& x = c.x(0);
        const exec::SliceGeom g = exec::sliceGeometry(c, x.dims, 1);
        const Dims& begin = g.begin;
        const Dims& size = g.size;
        size_t r = x.dims.size();
        Dims inStr = stridesOf(x.dims);
        int64_t off = 0;
        for (size_t i = 0; i < r; ++i) off += begin[i] * inStr[i];
        DevPtr out = c.dev.allocate(x.dtype, size);
        copyView(c, x, size, inStr, off, out->data(), stridesOf(size), 0);
        const_cast<DevTensor&>(*out).dims = g.outDims;
        c.setOut(0, out);
    };
    auto concatTensors = [](Ctx& c, std::span<const DevPtr> l, size_t axis, DType outT) {
        if (l.empty()) c.fail("concat of an empty vector");
        std::vector<Dims> parts;
        for (const DevPtr& t : l) {
            if (t->dtype != outT) c.fail("concat of " + std::string(dtypeShortName(t->dtype)) + " into " + std::string(dtypeShortName(outT)));
            parts.push_back(t->dims);
        }
        Dims od = exec::concatDims(c, parts, axis);
        DevPtr out = c.dev.allocate(outT, od);
        Dims os = stridesOf(od);
        int64_t off = 0;
        for (const DevPtr& t : l) {
            copyView(c, *t, t->dims, stridesOf(t->dims), 0, out->data(), os, off * os[axis]);
            off += t->dims[axis];
        }
        return out;
    };
    kt["pd_op.concat"] = [concatTensors](Ctx& c) {
        const auto& l = c.list(0);
        if (l.empty()) c.fail("concat of an empty vector");
        c.setOut(0, concatTensors(c, l, exec::concatAxis(c, 1, l[0]->dims.size()), c.outDType(0)));
    };
    kt["pd_op.stack"] = [concatTensors](Ctx& c) {
        const auto& l = c.list(0);
        std::vector<Dims> dims;
        for (const DevPtr& t : l) dims.push_back(t->dims);
        const exec::StackGeom g = exec::stackGeometry(c, dims);
        std::vector<DevPtr> us;
        for (size_t i = 0; i < l.size(); ++i) us.push_back(c.dev.alias(l[i], g.parts[i]));
        c.setOut(0, concatTensors(c, us, g.axis, c.outDType(0)));
    };
    auto splitInto = [](Ctx& c, const DevTensor& x, const exec::SplitGeom& g) {
        const size_t axis = g.axis;
        Dims xs = stridesOf(x.dims);
        std::vector<DevPtr> parts;
        int64_t off = 0;
        for (size_t i = 0; i < g.sections.size(); ++i) {
            const Dims& d = g.parts[i];
            DevPtr t = c.dev.allocate(x.dtype, d);
            copyView(c, x, d, xs, off * xs[axis], t->data(), stridesOf(d), 0);
            off += g.sections[i];
            parts.push_back(t);
        }
        c.setOutList(0, std::move(parts));
    };
    kt["pd_op.split"] = [splitInto](Ctx& c) {
        splitInto(c, c.x(0), exec::splitGeometry(c));
    };
    kt["pd_op.split_with_num"] = [splitInto](Ctx& c) {
        splitInto(c, c.x(0), exec::splitGeometry(c));
    };
    kt["pd_op.concat_grad"] = [splitInto](Ctx& c) {  // (x vec, out_grad, axis) -> vec of grads
        std::vector<Dims> xs;
        for (const DevPtr& t : c.list(0)) xs.push_back(t->dims);
        splitInto(c, c.x(1), exec::concatGradGeometry(c, c.x(1).dims, xs));
    };
    kt["pd_op.split_grad"] = [concatTensors](Ctx& c) {  // (out_grad vec, axis) -> x_grad
        const auto& l = c.list(0);
        if (l.empty()) c.fail("split_grad of an empty vector");
        c.setOut(0, concatTensors(c, l, exec::concatAxis(c, 1, l[0]->dims.size()), c.outDType(0)));
    };
    kt["pd_op.slice_grad"] = [](Ctx& c) {  // (input, out_grad, starts, ends) {axes}: zeros + the slice
        const DevTensor& x = c.x(0);
        const DevTensor& g = c.x(1);
        const exec::SliceGeom sg = exec::sliceGeometry(c, x.dims, 2);
        const Dims& begin = sg.begin;
        const Dims& size = sg.size;
        size_t r = x.dims.size();
        if (numelOf(size) != g.numel()) c.fail("out_grad " + dimsString(g.dims) + " does not match the slice " + dimsString(sg.outDims));
        DType outT = c.outDType(0);
        if (outT != g.dtype) c.fail("slice_grad changes the dtype");
        DevPtr out = fill(c, outT, x.dims, 0.0);
        Dims os = stridesOf(x.dims);
        int64_t off = 0;
        for (size_t i = 0; i < r; ++i) off += begin[i] * os[i];
        copyView(c, g, size, stridesOf(size), 0, out->data(), os, off);
        c.setOut(0, out);
    };
    kt["pd_op.gather"] = [](Ctx& c) {
        const DevTensor& x = c.x(0);
        const DevTensor& index = c.x(1);
        const exec::GatherGeom g = exec::gatherGeometry(c, x.dims, index.numel());
        DevPtr out = c.dev.allocate(x.dtype, g.outDims);
        k::gather(x.data(), index.data(), dtypeCode(index.dtype), out->data(), g.lanes.outer, g.lanes.n, index.numel(), g.lanes.inner,
                  elemBytes(x.dtype), c.dev.errorFlag, c.stream());
        c.launched();
        requireIndexOk(c, "gather");
        c.setOut(0, out);
    };
    kt["pd_op.embedding"] = [](Ctx& c) {
        const DevTensor& ids = c.x(0);
        const DevTensor& w = c.x(1);
        Dims od = exec::embeddingDims(c, ids.dims, w.dims);
        DevPtr out = c.dev.allocate(w.dtype, od);
        k::embedding(ids.data(), dtypeCode(ids.dtype), w.data(), out->data(), ids.numel(), w.dims[0], w.dims[1],
                     exec::embeddingParams(c).paddingIdx, elemBytes(w.dtype), c.dev.errorFlag, c.stream());
        c.launched();
        requireIndexOk(c, "embedding");
        c.setOut(0, out);
    };

    // -- reductions --
    auto reduceKernel = [](int kind) {
        return [kind](Ctx& c) {
            const DevTensor& x = c.x(0);
            const exec::ReduceGeom rg = exec::reduceGeometry(c, x.dims, 1);
            DevPtr out = c.dev.allocate(c.outDType(0), rg.outDims());
            reduceInto(c, kind, x, rg.reduced, *out);
            c.setOut(0, out);
        };
    };
    for (const auto& [name, kind] : exec::reductionKinds()) kt[name] = reduceKernel(kind);
    auto reduceGrad = [](bool mean) {
        return [mean](Ctx& c) {
            const DevTensor& x = c.x(0);
            const DevTensor& g = c.x(1);
            const Dims kd = exec::reduceGeometry(c, x.dims, 2).keptDims;
            if (numelOf(kd) != g.numel()) c.fail("gradient does not match the reduced shape");
            double scale = mean ? static_cast<double>(numelOf(kd)) / static_cast<double>(std::max<int64_t>(x.numel(), 1)) : 1.0;
            DevTensor gv = g;
            gv.dims = kd;
            DevPtr out = c.dev.allocate(c.outDType(0), x.dims);
            k::ElementwiseLaunch l = launchFor(c, 1, RX_U_MUL_CONST, {&gv}, *out);
            l.p0 = scale;
            k::elementwise(l, c.stream());
            c.launched();
            c.setOut(0, out);
        };
    };
    kt["pd_op.sum_grad"] = reduceGrad(false);
    kt["pd_op.mean_grad"] = reduceGrad(true);

    // -- matmul --
    kt["pd_op.matmul"] = [](Ctx& c) {
        const exec::MatmulParams p = exec::matmulParams(c);
        c.setOut(0, matmul(c, c.xp(0), c.xp(1), p.transposeX, p.transposeY, c.outDType(0)));
    };
    kt["pd_op.matmul_grad"] = [](Ctx& c) {
        const DevPtr& x = c.xp(0);
        const DevPtr& y = c.xp(1);
        const DevPtr& g = c.xp(2);
        const exec::MatmulParams p = exec::matmulParams(c);
        const bool tx = p.transposeX, ty = p.transposeY;
        if (x->dims.size() < 2 || y->dims.size() < 2) c.fail("matmul_grad supports rank >= 2 only");
        if (c.wants(0)) {
            DevPtr dx = tx ? matmul(c, y, g, ty, true, x->dtype) : matmul(c, g, y, false, !ty, x->dtype);
            c.setOut(0, reduceToShape(c, *dx, x->dims, c.outDType(0)));
        }
        if (c.wants(1)) {
            DevPtr dy = ty ? matmul(c, g, x, true, tx, y->dtype) : matmul(c, x, g, !tx, false, y->dtype);
            c.setOut(1, reduceToShape(c, *dy, y->dims, c.outDType(1)));
        }
    };

    // -- elementwise grads: full-size gradients in f64, reduced once to the operand's shape --
    auto binaryGrad = [](int kind) {  // 0 add, 1 subtract, 2 multiply, 3 divide
        return [kind](Ctx& c) {
            const DevTensor& x = c.x(0);
            const DevTensor& y = c.x(1);
            const DevTensor& g = c.x(c.operandCount() - 1);
            const Dims& od = g.dims;
            if (c.wants(0)) {
                DevPtr dx = kind <= 1 ? unaryOp(c, RX_U_CAST, g, DType::Float64)
                            : binaryOp(c, kind == 2 ? RX_B_MUL : RX_B_DIV, g, y, DType::Float64, od);
                c.setOut(0, reduceToShape(c, *dx, x.dims, c.outDType(0)));
            }
            if (c.wants(1)) {
                DevPtr dy = kind == 0 ? unaryOp(c, RX_U_CAST, g, DType::Float64)
                            : kind == 1 ? unaryOp(c, RX_U_MUL_CONST, g, DType::Float64, -1.0)
                            : kind == 2 ? binaryOp(c, RX_B_MUL, g, x, DType::Float64, od)
                                        : ternaryOp(c, RX_B_NEG_MUL_DIV_SQ, x, y, g, DType::Float64, od);
                c.setOut(1, reduceToShape(c, *dy, y.dims, c.outDType(1)));
            }
        };
    };
    kt["pd_op.add_grad"] = binaryGrad(0);
    kt["pd_op.subtract_grad"] = binaryGrad(1);
    kt["pd_op.multiply_grad"] = binaryGrad(2);
    kt["pd_op.divide_grad"] = binaryGrad(3);
    for (const auto& [name, code] : unaryGradCodes()) {
        int op = code;
        kt[name] = [op](Ctx& c) {
            const DevTensor& a = c.x(0);
            const DevTensor& g = c.x(c.operandCount() - 1);
            if (a.dims != g.dims) c.fail("gradient shape differs from the input");
            c.setOut(0, binaryOp(c, op, a, g, c.outDType(0), a.dims));
        };
    }
    kt["pd_op.gelu_grad"] = [](Ctx& c) {
        const DevTensor& x = c.x(0);
        c.setOut(0, binaryOp(c, RX_G_GELU, x, c.x(1), c.outDType(0), x.dims, exec::geluParams(c).approximate ? 1 : 0));
    };
    kt["pd_op.pow_grad"] = [](Ctx& c) {
        const DevTensor& x = c.x(0);
        c.setOut(0, binaryOp(c, RX_G_POW, x, c.x(1), c.outDType(0), x.dims, exec::powParams(c).exponent));
    };
    kt["pd_op.scale_grad"] = [](Ctx& c) {
        c.setOut(0, unaryOp(c, RX_U_MUL_CONST, c.x(0), c.outDType(0), exec::scaleParams(c).scale));
    };

    // -- softmax --
    auto softmaxGeom = [](Ctx& c, const DevTensor& x, int64_t& outer, int64_t& n, int64_t& inner) {
        const exec::AxisLanes lanes = exec::softmaxLanes(c, x.dims);
        outer = lanes.outer;
        n = lanes.n;
        inner = lanes.inner;
    };
    auto softmaxLike = [softmaxGeom](int kind) {
        return [kind, softmaxGeom](Ctx& c) {
            const DevTensor& x = c.x(0);
            int64_t outer, n, inner;
            softmaxGeom(c, x, outer, n, inner);
            DevPtr out = c.dev.allocate(x.dtype, x.dims);
            k::softmax(kind, x.data(), dtypeCode(x.dtype), out->data(), outer, n, inner, c.stream());
            c.launched();
            c.setOut(0, out);
        };
    };
    kt["pd_op.softmax"] = softmaxLike(0);
    kt["pd_op.log_softmax"] = softmaxLike(1);
    auto softmaxGradLike = [softmaxGeom](int kind) {
        return [kind, softmaxGeom](Ctx& c) {
            const DevTensor& y = c.x(0);
            const DevTensor& g = c.x(1);
            if (g.dims != y.dims || g.dtype != y.dtype) c.fail("softmax_grad operands differ");
            int64_t outer, n, inner;
            softmaxGeom(c, y, outer, n, inner);
            DevPtr out = c.dev.allocate(y.dtype, y.dims);
            k::softmaxGrad(kind, y.data(), g.data(), dtypeCode(y.dtype), out->data(), outer, n, inner, c.stream());
            c.launched();
            c.setOut(0, out);
        };
    };
    kt["pd_op.softmax_grad"] = softmaxGradLike(0);
    kt["pd_op.log_softmax_grad"] = softmaxGradLike(1);

    // -- layer norm --
    kt["pd_op.layer_norm"] = [](Ctx& c) {
        const DevTensor& x = c.x(0);
        const exec::RowNormParams p = exec::rowNormParams(c, x.dims);
        const int64_t rows = p.rows, cols = p.cols;
        const DevTensor* scale = c.has(1) ? &c.x(1) : nullptr;
        const DevTensor* bias = c.has(2) ? &c.x(2) : nullptr;
        if ((scale && scale->numel() != cols) || (bias && bias->numel() != cols))
            c.fail("layer_norm scale/bias size differs from the normalized size");
        DevPtr out = c.dev.allocate(c.outDType(0), x.dims);
        DevPtr mean = c.wants(1) ? c.dev.allocate(c.outDType(1), exec::rowStatDims(c, 1, rows)) : nullptr;
        DevPtr var = c.wants(2) ? c.dev.allocate(c.outDType(2), exec::rowStatDims(c, 2, rows)) : nullptr;
        if (mean && var && mean->dtype != var->dtype) c.fail("layer_norm mean and variance differ in dtype");
        int statDt = mean ? dtypeCode(mean->dtype) : var ? dtypeCode(var->dtype) : dtypeCode(DType::Float32);
        k::layerNorm(x.data(), dtypeCode(x.dtype), scale ? scale->data() : nullptr, scale ? dtypeCode(scale->dtype) : 0,
                     bias ? bias->data() : nullptr, bias ? dtypeCode(bias->dtype) : 0, out->data(), dtypeCode(out->dtype),
                     mean ? mean->data() : nullptr, var ? var->data() : nullptr, statDt, rows, cols,
                     p.epsilon, c.stream());
        c.launched();
        c.setOut(0, out);
        if (mean) c.setOut(1, mean);
        if (var) c.setOut(2, var);
    };
    kt["pd_op.layer_norm_grad"] = [](Ctx& c) {  // (x, scale, bias, mean, variance, out_grad)
        const DevTensor& x = c.x(0);
        const exec::RowNormParams p = exec::rowNormParams(c, x.dims);
        const int64_t rows = p.rows, cols = p.cols;
        const DevTensor* scale = c.has(1) ? &c.x(1) : nullptr;
        const DevTensor& mean = c.x(3);
        const DevTensor& var = c.x(4);
        const DevTensor& g = c.x(5);
        if (mean.numel() != rows || var.numel() != rows) c.fail("layer_norm_grad statistics size mismatch");
        if (mean.dtype != var.dtype) c.fail("layer_norm_grad mean and variance differ in dtype");
        DevPtr dx = c.wants(0) ? c.dev.allocate(c.outDType(0), x.dims) : nullptr;
        DevPtr ds = c.wants(1) && scale ? c.dev.allocate(c.outDType(1), scale->dims) : nullptr;
        DevPtr db = c.wants(2) && c.has(2) ? c.dev.allocate(c.outDType(2), c.x(2).dims) : nullptr;
        if (ds && db && ds->dtype != db->dtype) c.fail("layer_norm_grad scale and bias grads differ in dtype");
        int paramDt = ds ? dtypeCode(ds->dtype) : db ? dtypeCode(db->dtype) : 0;
        k::layerNormGrad(x.data(), dtypeCode(x.dtype), scale ? scale->data() : nullptr, scale ? dtypeCode(scale->dtype) : 0,
                         mean.data(), var.data(), dtypeCode(mean.dtype), g.data(), dtypeCode(g.dtype), dx ? dx->data() : nullptr,
                         dx ? dtypeCode(dx->dtype) : 0, ds ? ds->data() : nullptr, db ? db->data() : nullptr, paramDt, rows, cols,
                         p.epsilon, c.stream());
        c.launched(2);
        if (dx) c.setOut(0, dx);
        if (ds) c.setOut(1, ds);
        if (db) c.setOut(2, db);
    };

    // -- seeded random ops: the CPU executor's keys and generator --
    kt["pd_op.dropout"] = [](Ctx& c) {
        const DevTensor& x = c.x(0);
        const exec::DropoutParams d = exec::dropoutParams(c, c.runSeed);
        const double p = d.p;
        const bool isTest = d.isTest, upscale = d.upscale;
        DevPtr mask = c.wants(1) ? c.dev.allocate(c.outDType(1), x.dims) : nullptr;
        if (isTest) {
            c.setOut(0, upscale ? unaryOp(c, RX_U_CAST, x, x.dtype) : unaryOp(c, RX_U_MUL_CONST, x, x.dtype, 1.0 - p));
            if (mask) { c.setOut(1, fill(c, mask->dtype, x.dims, 1.0)); }
            return;
        }
        const uint64_t key = d.key;
        DevPtr out = c.dev.allocate(x.dtype, x.dims);
        k::dropout(x.data(), dtypeCode(x.dtype), out->data(), mask ? mask->data() : nullptr, mask ? dtypeCode(mask->dtype) : 0,
                   x.numel(), key, p, upscale, c.stream());
        c.launched();
        c.setOut(0, out);
        if (mask) c.setOut(1, mask);
    };
    kt["pd_op.dropout_grad"] = [](Ctx& c) {  // (mask, out_grad[, p])
        const DevTensor& mask = c.x(0);
        const DevTensor& g = c.x(1);
        const exec::DropoutParams d = exec::dropoutParams(c);
        const double p = d.p;
        const bool isTest = d.isTest, upscale = d.upscale;
        if (isTest) {
            c.setOut(0, upscale ? unaryOp(c, RX_U_CAST, g, c.outDType(0)) : unaryOp(c, RX_U_MUL_CONST, g, c.outDType(0), 1.0 - p));
            return;
        }
        if (mask.dims != g.dims) c.fail("dropout_grad mask and gradient differ in shape");
        c.setOut(0, binaryOp(c, RX_G_DROPOUT, mask, g, c.outDType(0), g.dims, upscale ? 1.0 - p : 1.0));
    };
    kt["pd_op.uniform"] = [](Ctx& c) {
        const exec::RandomParams r = exec::uniformParams(c, c.runSeed);
        DevPtr out = c.dev.allocate(c.outDType(0), r.shape);
        k::uniform(out->data(), dtypeCode(out->dtype), out->numel(), r.key, r.low, r.high, c.stream());
        c.launched();
        c.setOut(0, out);
    };
    kt["pd_op.randint"] = [](Ctx& c) {
        const exec::RandomParams r = exec::randintParams(c, c.runSeed);
        DevPtr out = c.dev.allocate(c.outDType(0), r.shape);
        k::randint(out->data(), dtypeCode(out->dtype), out->numel(), r.key, static_cast<int64_t>(r.low), static_cast<int64_t>(r.high), c.stream());
        c.launched();
        c.setOut(0, out);
    };
    // -- composed from the elementwise primitives, intermediates in f64 as the CPU computes --
    auto maskedGrads = [](Ctx& c, const DevTensor& mask, const DevTensor& g, const DevTensor& x, const DevTensor& y) {
        DevPtr zero = fill(c, DType::Float64, {}, 0.0);
        if (c.wants(0))
            c.setOut(0, reduceToShape(c, *ternaryOp(c, RX_T_WHERE, mask, g, *zero, DType::Float64, g.dims), x.dims, c.outDType(0)));
        if (c.wants(1))
            c.setOut(1, reduceToShape(c, *ternaryOp(c, RX_T_WHERE, mask, *zero, g, DType::Float64, g.dims), y.dims, c.outDType(1)));
    };
    kt["pd_op.where_grad"] = [maskedGrads](Ctx& c) {  // (cond, x, y, out_grad) -> x_grad, y_grad
        maskedGrads(c, c.x(0), c.x(3), c.x(1), c.x(2));
    };
    auto pairGrad = [maskedGrads](bool isMax) {  // (x, y, out_grad): to x where x wins strictly
        return [isMax, maskedGrads](Ctx& c) {
            const DevTensor& x = c.x(0);
            const DevTensor& y = c.x(1);
            const DevTensor& g = c.x(2);
            DevPtr toX = binaryOp(c, isMax ? RX_B_GT : RX_B_LT, x, y, DType::Bool, g.dims);
            maskedGrads(c, *toX, g, x, y);
        };
    };
    kt["pd_op.maximum_grad"] = pairGrad(true);
    kt["pd_op.minimum_grad"] = pairGrad(false);
    // real tensors: real and conj are the identity, imag zero, angle 0 or pi (the CPU's rules)
    kt["pd_op.real"] = [](Ctx& c) { c.setOut(0, unaryOp(c, RX_U_CAST, c.x(0), c.outDType(0))); };
    kt["pd_op.conj"] = kt["pd_op.real"];
    kt["pd_op.imag"] = [](Ctx& c) { c.setOut(0, fill(c, c.outDType(0), c.x(0).dims, 0.0)); };
    kt["pd_op.angle"] = [](Ctx& c) {
        const DevTensor& x = c.x(0);
        DevPtr zero = fill(c, DType::Float64, {}, 0.0), pi = fill(c, DType::Float64, {}, M_PI);
        DevPtr neg = binaryOp(c, RX_B_LT, x, *zero, DType::Bool, x.dims);
        c.setOut(0, ternaryOp(c, RX_T_WHERE, *neg, *pi, *zero, c.outDType(0), x.dims));
    };
    auto anyAll = [](bool any) {  // any = max of (x != 0), all = min
        return [any](Ctx& c) {
            const DevTensor& x = c.x(0);
            const exec::ReduceGeom rg = exec::reduceGeometry(c, x.dims, 1);
            DevPtr b = unaryOp(c, RX_U_CAST_BOOL, x, DType::Float64);
            DevPtr out = c.dev.allocate(c.outDType(0), rg.outDims());
            reduceInto(c, any ? 2 : 3, *b, rg.reduced, *out);
            c.setOut(0, out);
        };
    };
    kt["pd_op.any"] = anyAll(true);
    kt["pd_op.all"] = anyAll(false);
    kt["pd_op.logit"] = [](Ctx& c) {  // log(p / (1 - p)), p = clamp(x, eps, 1 - eps) when eps > 0
        const DevTensor& x = c.x(0);
        const double eps = exec::logitParams(c).eps;
        DevPtr p = unaryOp(c, eps > 0 ? RX_U_CLIP : RX_U_CAST, x, DType::Float64, eps, 1.0 - eps);
        DevPtr one = fill(c, DType::Float64, {}, 1.0);
        DevPtr q = binaryOp(c, RX_B_SUB, *one, *p, DType::Float64, x.dims);
        DevPtr ratio = binaryOp(c, RX_B_DIV, *p, *q, DType::Float64, x.dims);
        c.setOut(0, unaryOp(c, RX_U_LOG, *ratio, c.outDType(0)));
    };
    kt["pd_op.swiglu"] = [](Ctx& c) {  // silu(x) * y; without y, x's last axis holds [x | y]
        const DevPtr& x = c.xp(0);
        DevPtr a = x, b;
        const exec::SwigluGeom g = exec::swigluGeometry(c, x->dims, false);
        const Dims& od = g.outDims;
        if (g.hasY) {
            b = c.xp(1);
        } else {
            Dims xs = stridesOf(x->dims);
            DevPtr lo = c.dev.allocate(x->dtype, od), hi = c.dev.allocate(x->dtype, od);
            copyView(c, *x, od, xs, 0, lo->data(), stridesOf(od), 0);
            copyView(c, *x, od, xs, od.back(), hi->data(), stridesOf(od), 0);
            a = lo;
            b = hi;
        }
        DevPtr silu = unaryOp(c, RX_U_SILU, *a, DType::Float64);
        c.setOut(0, binaryOp(c, RX_B_MUL, *silu, *b, c.outDType(0), od));
    };

    kt["pd_op.elementwise_pow_grad"] = [](Ctx& c) {  // (x, y, out_grad)
        const DevTensor& x = c.x(0);
        const DevTensor& y = c.x(1);
        const DevTensor& g = c.x(2);
        if (c.wants(0))
            c.setOut(0, reduceToShape(c, *ternaryOp(c, RX_T_POW_GRAD_X, x, y, g, DType::Float64, g.dims), x.dims, c.outDType(0)));
        if (c.wants(1))
            c.setOut(1, reduceToShape(c, *ternaryOp(c, RX_T_POW_GRAD_Y, x, y, g, DType::Float64, g.dims), y.dims, c.outDType(1)));
    };
    kt["pd_op.embedding_grad"] = [](Ctx& c) {  // (x ids, weight, out_grad) {padding_idx}
        const DevTensor& ids = c.x(0);
        const DevTensor& w = c.x(1);
        const DevTensor& g = c.x(2);
        const Dims od = exec::embeddingDims(c, ids.dims, w.dims);
        const int64_t width = w.dims[1];
        if (g.numel() != numelOf(od)) c.fail("out_grad " + dimsString(g.dims) + " is not the embedding's " + dimsString(od));
        DevPtr acc = fill(c, DType::Float64, w.dims, 0.0);
        k::embeddingGrad(ids.data(), dtypeCode(ids.dtype), ids.numel(), g.data(), dtypeCode(g.dtype),
                         static_cast<double*>(acc->data()), w.dims[0], width, exec::embeddingParams(c).paddingIdx, c.dev.errorFlag, c.stream());
        c.launched();
        requireIndexOk(c, "embedding_grad");
        c.setOut(0, unaryOp(c, RX_U_CAST, *acc, c.outDType(0)));
    };
    auto extremumGradOp = [](Ctx& c) {  // (x, out, out_grad, axis) {keepdim, reduce_all}: to the first extremum
        const DevTensor& x = c.x(0);
        const DevTensor& out = c.x(1);
        const DevTensor& g = c.x(2);
        const exec::ReduceGeom rg = exec::reduceGeometry(c, x.dims, 3);
        const std::vector<bool>& red = rg.reduced;
        if (numelOf(rg.keptDims) != g.numel() || out.numel() != g.numel()) c.fail("gradient does not match the reduced shape");
        DevPtr dx = fill(c, c.outDType(0), x.dims, 0.0);
        k::Reduce geo = reduceGeometry(c, 0, x, red, *dx);
        k::extremumGrad(geo, out.data(), dtypeCode(out.dtype), g.data(), dtypeCode(g.dtype), dx->data(), dtypeCode(dx->dtype), c.stream());
        c.launched();
        c.setOut(0, dx);
    };
    kt["pd_op.max_grad"] = extremumGradOp;
    kt["pd_op.min_grad"] = extremumGradOp;

    // -- conv2d (cuDNN), batch_norm, pool2d: geometry from exec/OpSemantics --
#ifdef RX_HAVE_CUDNN
    auto convGeom = [](Ctx& c, const Dims& x, const Dims& f) {
        const exec::Conv2dGeom e = exec::conv2dGeometry(c, x, f);
        if (e.ph0 != e.ph1 || e.pw0 != e.pw1)
            c.fail("paddings " + dimsString({e.ph0, e.ph1, e.pw0, e.pw1}) + ": asymmetric conv2d padding (cuDNN pads both sides alike)");
        ConvGeometry g;
        g.n = e.n; g.cin = e.cin; g.h = e.h; g.w = e.w; g.cout = e.cout; g.kh = e.kh; g.kw = e.kw; g.oh = e.oh; g.ow = e.ow;
        g.sh = e.sh; g.sw = e.sw; g.ph = e.ph0; g.pw = e.pw0; g.dh = e.dh; g.dw = e.dw; g.groups = e.groups;
        return g;
    };
    kt["pd_op.conv2d"] = [convGeom](Ctx& c) {
        const DevTensor& x = c.x(0);
        const DevTensor& f = c.x(1);
        if (x.dtype != f.dtype || c.outDType(0) != x.dtype) c.fail("conv2d of mixed dtypes");
        ConvGeometry g = convGeom(c, x.dims, f.dims);
        DevPtr out = c.dev.allocate(x.dtype, {g.n, g.cout, g.oh, g.ow});
        c.dev.conv().forward(g, x.dtype, x.data(), f.data(), out->data());
        c.launched();
        c.setOut(0, out);
    };
    kt["pd_op.conv2d_grad"] = [convGeom](Ctx& c) {
        const DevTensor& x = c.x(0);
        const DevTensor& f = c.x(1);
        const DevTensor& gy = c.x(2);
        ConvGeometry g = convGeom(c, x.dims, f.dims);
        if (gy.dims != Dims{g.n, g.cout, g.oh, g.ow}) c.fail("conv2d_grad output gradient has the wrong shape");
        if (x.dtype != f.dtype || gy.dtype != x.dtype) c.fail("conv2d_grad of mixed dtypes");
        if (c.wants(0)) {
            DevPtr dx = c.dev.allocate(x.dtype, x.dims);
            c.dev.conv().backwardData(g, x.dtype, f.data(), gy.data(), dx->data());
            c.launched();
            c.setOut(0, dx);
        }
        if (c.wants(1)) {
            DevPtr df = c.dev.allocate(f.dtype, f.dims);
            c.dev.conv().backwardFilter(g, x.dtype, x.data(), gy.data(), df->data());
            c.launched();
            c.setOut(1, df);
        }
    };
#endif
    auto batchNorm = [](Ctx& c) {
        const DevTensor& x = c.x(0);
        const exec::ChannelNormParams p = exec::batchNormParams(c, x.dims);
        k::BatchNorm b;
        b.ch = p.channels;
        b.n = p.batch;
        b.sp = p.spatial;
        b.eps = p.epsilon;
        b.momentum = p.momentum;
        b.useGlobal = p.useGlobalStats;
        const DevTensor& rm = c.x(1);
        const DevTensor& rv = c.x(2);
        const DevTensor* scale = c.has(3) ? &c.x(3) : nullptr;
        const DevTensor* bias = c.has(4) ? &c.x(4) : nullptr;
        if (rm.numel() != b.ch || rv.numel() != b.ch || (scale && scale->numel() != b.ch) || (bias && bias->numel() != b.ch))
            c.fail("batch_norm statistics do not match the channel count");
        if (rm.dtype != rv.dtype || (scale && bias && scale->dtype != bias->dtype)) c.fail("batch_norm statistics differ in dtype");
        b.x = x.data(); b.xDt = dtypeCode(x.dtype);
        b.rm = rm.data(); b.rv = rv.data(); b.statInDt = dtypeCode(rm.dtype);
        b.scale = scale ? scale->data() : nullptr; b.bias = bias ? bias->data() : nullptr;
        b.paramDt = scale ? dtypeCode(scale->dtype) : bias ? dtypeCode(bias->dtype) : 0;
        DevPtr out = c.dev.allocate(c.outDType(0), x.dims);
        b.out = out->data(); b.outDt = dtypeCode(out->dtype);
        std::vector<DevPtr> stats(5);
        int statDt = -1;
        for (size_t i = 1; i <= 4; ++i) {
            if (!c.wants(i)) continue;
            Dims dd = c.staticDims(i).value_or(Dims{b.ch});
            if (numelOf(dd) != b.ch) { c.setOut(i, c.dev.allocate(c.outDType(i), dd)); continue; }  // reserve space, no data
            stats[i] = c.dev.allocate(c.outDType(i), {b.ch});
            if (statDt >= 0 && dtypeCode(stats[i]->dtype) != statDt) c.fail("batch_norm statistics outputs differ in dtype");
            statDt = dtypeCode(stats[i]->dtype);
            c.setOut(i, stats[i]);
        }
        b.statOutDt = statDt < 0 ? 0 : statDt;
        b.meanOut = stats[1] ? stats[1]->data() : nullptr;
        b.varOut = stats[2] ? stats[2]->data() : nullptr;
        b.savedMean = stats[3] ? stats[3]->data() : nullptr;
        b.savedInv = stats[4] ? stats[4]->data() : nullptr;
        k::batchNorm(b, c.stream());
        c.launched();
        c.setOut(0, out);
        if (c.wants(5)) c.setOut(5, c.dev.allocate(c.outDType(5), c.staticDims(5).value_or(Dims{0})));
    };
    kt["pd_op.batch_norm"] = batchNorm;
    kt["pd_op.batch_norm_"] = batchNorm;
    kt["pd_op.batchnorm"] = batchNorm;
    kt["pd_op.batch_norm_grad"] = [](Ctx& c) {
        // (x, scale, bias, mean_out, variance_out, saved_mean, saved_inv_std, reserve_space, out_grad)
        const DevTensor& x = c.x(0);
        const exec::ChannelNormParams p = exec::batchNormParams(c, x.dims);
        const int64_t ch = p.channels, nb = p.batch, sp = p.spatial;
        const DevTensor* scale = c.has(1) ? &c.x(1) : nullptr;
        const DevTensor& mean = c.x(5);
        const DevTensor& inv = c.x(6);
        const DevTensor& gy = c.x(c.operandCount() - 1);
        if (mean.numel() != ch || inv.numel() != ch || mean.dtype != inv.dtype) c.fail("batch_norm_grad statistics do not match the channels");
        DevPtr dx = c.wants(0) ? c.dev.allocate(c.outDType(0), x.dims) : nullptr;
        DevPtr ds = c.wants(1) ? c.dev.allocate(c.outDType(1), {ch}) : nullptr;
        DevPtr db = c.wants(2) ? c.dev.allocate(c.outDType(2), {ch}) : nullptr;
        if (ds && db && ds->dtype != db->dtype) c.fail("batch_norm_grad scale and bias grads differ in dtype");
        k::batchNormGrad(x.data(), dtypeCode(x.dtype), scale ? scale->data() : nullptr, scale ? dtypeCode(scale->dtype) : 0,
                         mean.data(), inv.data(), dtypeCode(mean.dtype), gy.data(), dtypeCode(gy.dtype), dx ? dx->data() : nullptr,
                         dx ? dtypeCode(dx->dtype) : 0, ds ? ds->data() : nullptr, db ? db->data() : nullptr,
                         ds ? dtypeCode(ds->dtype) : db ? dtypeCode(db->dtype) : 0, nb, ch, sp, c.stream());
        c.launched();
        if (dx) c.setOut(0, dx);
        if (ds) c.setOut(1, ds);
        if (db) c.setOut(2, db);
    };
    kt["pd_op.pool2d"] = [](Ctx& c) {
        const DevTensor& x = c.x(0);
        k::PoolGeometry g = exec::pool2dGeometry(c, x.dims, 1);
        if (c.outDType(0) != x.dtype) c.fail("pool2d changes the dtype");
        DevPtr out = c.dev.allocate(x.dtype, {g.n, g.ch, g.oh, g.ow});
        k::pool2d(g, x.data(), dtypeCode(x.dtype), out->data(), c.stream());
        c.launched();
        c.setOut(0, out);
    };
    kt["pd_op.pool2d_grad"] = [](Ctx& c) {  // (x, out, out_grad, kernel_size)
        const DevTensor& x = c.x(0);
        const DevTensor& y = c.x(1);
        const DevTensor& gy = c.x(2);
        k::PoolGeometry g = exec::pool2dGeometry(c, x.dims, 3);
        if (y.dtype != x.dtype || gy.dtype != x.dtype || y.dims != Dims{g.n, g.ch, g.oh, g.ow} || gy.dims != y.dims)
            c.fail("pool2d_grad operands do not match the pooling");
        DevPtr acc = fill(c, DType::Float64, x.dims, 0.0);  // f64 sums in the CPU's order, one rounding
        k::pool2dGrad(g, x.data(), y.data(), gy.data(), dtypeCode(x.dtype), static_cast<double*>(acc->data()), c.stream());
        c.launched();
        c.setOut(0, unaryOp(c, RX_U_CAST, *acc, c.outDType(0)));
    };
    return kt;
}

const std::unordered_map<std::string, Kernel>& kernelTable() {
    static const std::unordered_map<std::string, Kernel> table = buildKernels();
    return table;
}

double median(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

std::vector<std::string> CudaExecutor::supportedOps() {
    std::vector<std::string> names = exec::interpretedOpNames();
    for (std::string_view name : opsWithTrait(OpTrait::Input)) names.emplace_back(name);
    for (const auto& [name, kernel] : kernelTable()) names.push_back(name);
    std::sort(names.begin(), names.end());
    return names;
}

CudaExecutor::CudaExecutor(const CudaOptions& options) : options_(options), impl_(std::make_unique<Impl>()) {
    std::string why;
    int n = cudaDeviceCount(&why);
    if (n <= 0) throw Error("no CUDA device: " + why);
    check(cudaSetDevice(options_.device), "cudaSetDevice(" + std::to_string(options_.device) + ")");
    cudaDeviceProp prop{};
    check(cudaGetDeviceProperties(&prop, options_.device), "cudaGetDeviceProperties");
    impl_->deviceName = prop.name;
    impl_->arch = prop.major * 10 + prop.minor;
    check(cudaStreamCreateWithFlags(&impl_->stream, cudaStreamNonBlocking), "cudaStreamCreate");
    if (cublasCreate(&impl_->cublas) != CUBLAS_STATUS_SUCCESS) throw Error("cublasCreate failed");
    cublasSetStream(impl_->cublas, impl_->stream);
    check(cudaMalloc(reinterpret_cast<void**>(&impl_->errorFlag), sizeof(int)), "cudaMalloc");
    check(cudaMemset(impl_->errorFlag, 0, sizeof(int)), "cudaMemset");
}

CudaExecutor::~CudaExecutor() = default;

std::vector<std::string> CudaExecutor::unsupportedOps(const Program& program) const {
    return exec::unsupportedOpsOf(
        program,
        [](const Operation& o, std::string_view name) { return exec::backendRuns(o, name, kernelTable().count(std::string(name)) > 0); },
        [](std::string_view) { return false; });  // no complex kernels on the device
}

namespace {

// One step of a run on the device, as the block interpreter's backend (exec/BlockInterpreter.h):
// kernels (and fused groups, at top-level positions only) on the executor's stream, CUDA
// events around each top-level op, and the bytes the caching allocator holds as the measure.
class CudaStep {
public:
    using Handle = DevPtr;

    struct Setup {
        Impl& dev;
        const Program& program;
        const exec::RunOptions& options;
        const exec::RunControl& control;
        const CudaOptions& settings;
        const LifetimePlan& plan;
        const FusionPlan& fusion;
        const std::unordered_map<ValueId, DevPtr>& staged;  // inputs parked on the device
        const std::unordered_map<std::string, bool>& capture;
        std::vector<cudaEvent_t>& events;                   // 1 + 2 * position: start; 2 + 2 * position: end
        uint64_t seed;
    };
    CudaStep(const Setup& setup, bool returned, exec::RunResult& result) : s_(setup), returned_(returned), result_(result) {}
    void attach(std::vector<Slot>& values) { slots_ = &values; }

    void runKernel(OpId op, size_t position, std::vector<const Slot*> in, std::vector<Slot>& out) {
        const Program& program = s_.program;
        const Operation& o = program.op(op);
        const std::string_view name = program.opName(op);
        Ctx ctx(s_.dev, program, op, std::move(in), s_.seed, s_.settings.tf32);
        const int group = position == exec::kInsideRegion ? -1 : s_.fusion.groupOf(position);
        if (isInputOp(name)) {
            // The run's own copy, allocated here as the CPU backend copies a given input.
            ctx.setOut(0, s_.dev.copyOnDevice(*s_.staged.at(o.results[0])));
        } else if (group >= 0) {
            const FusionGroup& g = s_.fusion.groups[static_cast<size_t>(group)];
            if (g.positions.front() == position) runFusedGroup(s_.dev, program, s_.plan, g, *slots_, s_.seed, s_.settings.tf32, pending_);
            ctx.setOut(0, pending_.at(position));
            pending_.erase(position);
        } else {
            kernelTable().at(std::string(name))(ctx);
        }
        check(cudaGetLastError(), "op " + std::to_string(op) + " (" + std::string(name) + ") launch");
        out = std::move(ctx.outputs);
    }
    // A condition: one element copied to the host (a stream synchronisation).
    bool truthOf(OpId, const DevPtr& t) { return s_.dev.download(*t).get(0) != 0.0; }
    DevPtr boolFlag(OpId, bool value) {
        return s_.dev.upload(exec::Tensor::fromDoubles(DType::Bool, {1}, {value ? 1.0 : 0.0}), true);
    }

    void beginOp(size_t position, OpId op) {
        if (s_.settings.nvtx) {
            const Operation& o = s_.program.op(op);
            const std::string range =
                std::string(s_.program.opName(op)) + (o.results.empty() ? std::string() : " " + s_.program.value(o.results[0]).name);
            nvtxRangePushA(range.c_str());
        }
        check(cudaEventRecord(s_.events[1 + 2 * position], s_.dev.stream), "cudaEventRecord");
        s_.dev.alloc.startPeakWindow();
    }
    int64_t opPeakBytes() const { return s_.dev.alloc.stats().windowPeakRequestedBytes; }
    void endOp(size_t position, OpId op) {
        check(cudaEventRecord(s_.events[2 + 2 * position], s_.dev.stream), "cudaEventRecord");
        if (s_.settings.nvtx) nvtxRangePop();
        if (returned_) record(op);
    }
    int64_t heldBytes() const { return s_.dev.alloc.stats().requestedBytes; }
    void opFinished(size_t position, const exec::OpRecord& rec) {
        result_.ops.push_back(rec);
        if (returned_) s_.control.opDone(position + 1);  // progress of the step that is returned
    }

private:
    const Setup& s_;
    bool returned_;
    exec::RunResult& result_;
    std::vector<Slot>* slots_ = nullptr;
    std::unordered_map<size_t, DevPtr> pending_;  // fused members' results, by position

    // Fetches and captured values of the returned step, copied to the host.
    void record(OpId op) {
        const Program& program = s_.program;
        const exec::RunOptions& options = s_.options;
        const std::vector<Slot>& slots = *slots_;
        const Operation& o = program.op(op);
        if (isFetchOp(program.opName(op))) {
            ValueId v = o.operands.empty() ? kNoId : o.operands[0];
            if (v != kNoId && slots[v].set && !slots[v].isList) {
                exec::FetchedValue f;
                f.fetchName = exec::fetchName(program, op);
                f.valueName = program.value(v).name;
                f.tensor = s_.dev.download(*slots[v].tensor);
                // With a sink the host copy lives only for the call (RunOptions::fetchSink).
                if (options.fetchSink) options.fetchSink(exec::FetchView{false, f.fetchName, f.valueName, f.tensor});
                else result_.fetches.push_back(std::move(f));
            }
        }
        for (ValueId res : o.results)
            if (slots[res].set && !slots[res].isList && (options.keepAllValues || s_.capture.count(program.value(res).name))) {
                if (options.fetchSink) {
                    const exec::Tensor host = s_.dev.download(*slots[res].tensor);
                    options.fetchSink(exec::FetchView{true, {}, program.value(res).name, host});
                } else {
                    result_.values[program.value(res).name] = s_.dev.download(*slots[res].tensor);
                }
            }
    }
};

}  // namespace

exec::RunResult CudaExecutor::execute(const Program& program, const exec::RunInputs& inputs, const exec::RunOptions& options,
                                      const exec::RunControl& control) {
    Impl& dev = *impl_;
    LifetimePlan plan = planLifetimes(program, options.residentValues, options.inputsResident);
    const size_t nOps = plan.order.size();
    std::unordered_map<std::string, bool> capture;
    for (const std::string& n : options.captureValues) capture[n] = true;
    FusionPlan fusionPlan;
    if (options_.fused)
        fusionPlan = planFusion(
            program, plan, [&](OpId op) { return hasFormula(program, op); },
            [&](ValueId v) { return options.keepAllValues || capture.count(program.value(v).name) > 0; });

    // Inputs go up once, before any timed step, into their own allocator (the host's data
    // parked on the device, as RunInputs is on the host): each step's input op copies them into
    // the run's allocator, so the step's measured bytes hold them from their op on, as the CPU's.
    dev.staged.emptyCache();
    std::unordered_map<ValueId, DevPtr> staged;
    std::vector<std::string> generated;
    int64_t inputBytes = 0;
    for (OpId op : plan.order) {
        std::string_view name = program.opName(op);
        if (!isInputOp(name)) continue;
        const Operation& o = program.op(op);
        if (o.results.empty()) throw Error("op " + std::to_string(op) + " (" + std::string(name) + "): input op without a result");
        const Type& t = program.types()[program.value(o.results[0]).type];
        std::string iname = exec::inputName(program, op);
        auto fail = [&](const std::string& msg) {
            throw Error("op " + std::to_string(op) + " (" + std::string(name) + " -> " + program.value(o.results[0]).name + "): " + msg);
        };
        if (t.kind != Type::Kind::DenseTensor) fail("input of a non-tensor type");
        auto it = inputs.byName.find(iname);
        exec::Tensor host;
        if (it != inputs.byName.end()) {
            if (it->second.dtype != t.dtype) fail("input " + iname + " given as " + it->second.shapeString());
            for (size_t i = 0; i < t.dims.size(); ++i)
                if (t.dims.size() != it->second.dims.size() || (t.dims[i] >= 0 && t.dims[i] != it->second.dims[i]))
                    fail("input " + iname + " given as " + it->second.shapeString() + ", declared " + dimsString(t.dims));
            host = it->second;
        } else {
            for (int64_t d : t.dims)
                if (d < 0) fail("input " + iname + " has a dynamic shape " + dimsString(t.dims) +
                                    ": bind its dims before the run (exec::bindInputDims, the CLI's --input-dims)");
            host = exec::seededInputFor(program, op, inputs.seed);
            generated.push_back(iname);
        }
        inputBytes += host.byteSize();
        staged[o.results[0]] = dev.upload(host, host.numel() <= 64, dev.staged);
    }
    check(cudaStreamSynchronize(dev.stream), "input upload");

    const int warmup = std::max(0, options_.warmup), steps = std::max(1, options_.steps);
    std::vector<cudaEvent_t> events(2 * nOps + 2);
    for (auto& e : events) check(cudaEventCreate(&e), "cudaEventCreate");
    struct EventGuard {
        std::vector<cudaEvent_t>& ev;
        ~EventGuard() { for (auto e : ev) if (e) cudaEventDestroy(e); }
    } guard{events};

    std::vector<std::vector<double>> opMicros(nOps);
    std::vector<double> stepMs;
    exec::RunResult result;
    // Peaks of this run only: segments cached by an earlier run (all free by now) go back.
    dev.alloc.emptyCache();
    dev.alloc.resetPeaks();
    const CudaStep::Setup setup{dev, program, options, control, options_, plan, fusionPlan, staged, capture, events, inputs.seed};
    for (int step = 0; step < warmup + steps; ++step) {
        const bool measured = step >= warmup;
        const bool last = step == warmup + steps - 1;
        exec::RunResult r;
        r.inputBytes = inputBytes;
        r.generatedInputs = generated;
        dev.launches = 0;
        check(cudaEventRecord(events[0], dev.stream), "cudaEventRecord");
        {
            // The step's values live in the interpreter and go back to the allocator with it.
            CudaStep backend(setup, last, r);
            exec::BlockInterpreter<CudaStep> interpreter(program, backend, options, control, r);
            backend.attach(interpreter.valueSlots());
            interpreter.runGlobalBlock(plan.dieAfter);
        }
        check(cudaEventRecord(events[2 * nOps + 1], dev.stream), "cudaEventRecord");
        check(cudaEventSynchronize(events[2 * nOps + 1]), "step " + std::to_string(step));
        if (measured) {
            float ms = 0;
            check(cudaEventElapsedTime(&ms, events[0], events[2 * nOps + 1]), "cudaEventElapsedTime");
            stepMs.push_back(ms);
            for (size_t pos = 0; pos < r.ops.size(); ++pos) {
                float t = 0;
                check(cudaEventElapsedTime(&t, events[1 + 2 * pos], events[2 + 2 * pos]), "cudaEventElapsedTime");
                opMicros[pos].push_back(1000.0 * t);
            }
        }
        if (last || r.cancelled) { result = std::move(r); break; }
    }
    staged.clear();
    dev.staged.emptyCache();

    report_ = CudaRunReport{};
    report_.device = dev.deviceName;
    report_.fused = options_.fused;
    report_.steps = static_cast<int>(stepMs.size());
    report_.stepMs = stepMs;
    report_.stepMsMedian = median(stepMs);
    report_.peakRequestedBytes = dev.alloc.stats().peakRequestedBytes;
    report_.peakAllocatedBytes = dev.alloc.stats().peakAllocatedBytes;
    report_.peakReservedBytes = dev.alloc.stats().peakReservedBytes;
    report_.fragmentationAtEnd = dev.alloc.fragmentation();
    report_.kernelLaunches = dev.launches;
    for (size_t pos = 0; pos < result.ops.size(); ++pos) {
        CudaOpTime t;
        t.op = result.ops[pos].op;
        t.medianMicros = median(opMicros[pos]);
        t.fusedGroup = fusionPlan.groupOf(pos);
        report_.ops.push_back(t);
        result.ops[pos].micros = options.recordOpTimes ? t.medianMicros : 0.0;
    }
    if (!options.keepOpRecords) result.ops = {};  // the report above needed them; the caller does not
    for (const FusionGroup& g : fusionPlan.groups) {
        CudaFusedGroup cg;
        for (size_t pos : g.positions) cg.ops.push_back(plan.order[pos]);
        cg.numel = g.numel;
        report_.groups.push_back(std::move(cg));
    }
    result.totalMs = report_.stepMsMedian;
    return result;
}

}  // namespace rx::cuda
