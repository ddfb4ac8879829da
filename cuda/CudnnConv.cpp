// cuDNN convolution: descriptors per call (shapes are static per op), the first deterministic
// algorithm cuDNN's heuristics rank, workspace from the caching allocator.
#include "cuda/CudnnConv.h"

#include <cudnn.h>

#include <string>

#include "model/Diagnostic.h"

namespace rx::cuda {

namespace {

void ck(cudnnStatus_t s, const char* what) {
    if (s != CUDNN_STATUS_SUCCESS) throw Error(std::string("cuDNN ") + what + ": " + cudnnGetErrorString(s));
}

cudnnDataType_t dataType(DType t) {
    switch (t) {
    case DType::Float32: return CUDNN_DATA_FLOAT;
    case DType::Float64: return CUDNN_DATA_DOUBLE;
    case DType::Float16: return CUDNN_DATA_HALF;
    case DType::BFloat16: return CUDNN_DATA_BFLOAT16;
    default: throw Error("conv2d of " + std::string(dtypeShortName(t)) + " tensors (cuDNN takes f16, bf16, f32, f64)");
    }
}

struct Workspace {
    CachingAllocator& alloc;
    uintptr_t address = 0;
    Workspace(CachingAllocator& a, size_t bytes) : alloc(a) { if (bytes) address = a.allocate(bytes); }
    ~Workspace() { if (address) alloc.free(address); }
    void* data() const { return reinterpret_cast<void*>(address); }
};

constexpr size_t kMaxWorkspace = size_t(512) << 20;

}  // namespace

struct CudnnConv::Descriptors {
    cudnnTensorDescriptor_t x = nullptr, y = nullptr;
    cudnnFilterDescriptor_t f = nullptr;
    cudnnConvolutionDescriptor_t conv = nullptr;
    Descriptors(const ConvGeometry& g, DType t) {
        cudnnDataType_t dt = dataType(t);
        cudnnDataType_t compute = t == DType::Float64 ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
        ck(cudnnCreateTensorDescriptor(&x), "tensor descriptor");
        ck(cudnnCreateTensorDescriptor(&y), "tensor descriptor");
        ck(cudnnCreateFilterDescriptor(&f), "filter descriptor");
        ck(cudnnCreateConvolutionDescriptor(&conv), "convolution descriptor");
        ck(cudnnSetTensor4dDescriptor(x, CUDNN_TENSOR_NCHW, dt, int(g.n), int(g.cin), int(g.h), int(g.w)), "input shape");
        ck(cudnnSetTensor4dDescriptor(y, CUDNN_TENSOR_NCHW, dt, int(g.n), int(g.cout), int(g.oh), int(g.ow)), "output shape");
        ck(cudnnSetFilter4dDescriptor(f, dt, CUDNN_TENSOR_NCHW, int(g.cout), int(g.cin / g.groups), int(g.kh), int(g.kw)), "filter shape");
        ck(cudnnSetConvolution2dDescriptor(conv, int(g.ph), int(g.pw), int(g.sh), int(g.sw), int(g.dh), int(g.dw),
                                           CUDNN_CROSS_CORRELATION, compute), "convolution");
        ck(cudnnSetConvolutionGroupCount(conv, int(g.groups)), "group count");
        // No tensor-core math for f32/f64: results stay close to the CPU's f64 reference.
        ck(cudnnSetConvolutionMathType(conv, t == DType::Float32 || t == DType::Float64 ? CUDNN_FMA_MATH : CUDNN_DEFAULT_MATH),
           "math type");
        int n = 0, c = 0, h = 0, w = 0;
        ck(cudnnGetConvolution2dForwardOutputDim(conv, x, f, &n, &c, &h, &w), "output size");
        if (n != g.n || c != g.cout || h != g.oh || w != g.ow)
            throw Error("cuDNN computes a " + std::to_string(n) + "x" + std::to_string(c) + "x" + std::to_string(h) + "x" +
                        std::to_string(w) + " conv2d output, the op declares another shape");
    }
    ~Descriptors() {
        cudnnDestroyTensorDescriptor(x);
        cudnnDestroyTensorDescriptor(y);
        cudnnDestroyFilterDescriptor(f);
        cudnnDestroyConvolutionDescriptor(conv);
    }
};

CudnnConv::CudnnConv(cudaStream_t stream, CachingAllocator& workspace) : workspace_(workspace) {
    cudnnHandle_t h = nullptr;
    ck(cudnnCreate(&h), "create");
    ck(cudnnSetStream(h, stream), "set stream");
    handle_ = h;
}

CudnnConv::~CudnnConv() { if (handle_) cudnnDestroy(static_cast<cudnnHandle_t>(handle_)); }

void CudnnConv::forward(const ConvGeometry& g, DType t, const void* x, const void* f, void* y) {
    Descriptors d(g, t);
    auto h = static_cast<cudnnHandle_t>(handle_);
    cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    int found = 0;
    ck(cudnnGetConvolutionForwardAlgorithm_v7(h, d.x, d.f, d.conv, d.y, CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &found, perf), "forward algorithm");
    for (int i = 0; i < found; ++i) {
        if (perf[i].status != CUDNN_STATUS_SUCCESS || perf[i].determinism != CUDNN_DETERMINISTIC || perf[i].memory > kMaxWorkspace) continue;
        Workspace ws(workspace_, perf[i].memory);
        double a64 = 1, b64 = 0;
        float a32 = 1, b32 = 0;
        const void* alpha = t == DType::Float64 ? static_cast<const void*>(&a64) : &a32;
        const void* beta = t == DType::Float64 ? static_cast<const void*>(&b64) : &b32;
        ck(cudnnConvolutionForward(h, alpha, d.x, x, d.f, f, d.conv, perf[i].algo, ws.data(), perf[i].memory, beta, d.y, y), "forward");
        return;
    }
    throw Error("cuDNN has no deterministic conv2d forward algorithm for this shape");
}

void CudnnConv::backwardData(const ConvGeometry& g, DType t, const void* f, const void* dy, void* dx) {
    Descriptors d(g, t);
    auto h = static_cast<cudnnHandle_t>(handle_);
    cudnnConvolutionBwdDataAlgoPerf_t perf[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
    int found = 0;
    ck(cudnnGetConvolutionBackwardDataAlgorithm_v7(h, d.f, d.y, d.conv, d.x, CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &found, perf),
       "backward data algorithm");
    for (int i = 0; i < found; ++i) {
        if (perf[i].status != CUDNN_STATUS_SUCCESS || perf[i].determinism != CUDNN_DETERMINISTIC || perf[i].memory > kMaxWorkspace) continue;
        Workspace ws(workspace_, perf[i].memory);
        double a64 = 1, b64 = 0;
        float a32 = 1, b32 = 0;
        const void* alpha = t == DType::Float64 ? static_cast<const void*>(&a64) : &a32;
        const void* beta = t == DType::Float64 ? static_cast<const void*>(&b64) : &b32;
        ck(cudnnConvolutionBackwardData(h, alpha, d.f, f, d.y, dy, d.conv, perf[i].algo, ws.data(), perf[i].memory, beta, d.x, dx),
           "backward data");
        return;
    }
    throw Error("cuDNN has no deterministic conv2d backward-data algorithm for this shape");
}

void CudnnConv::backwardFilter(const ConvGeometry& g, DType t, const void* x, const void* dy, void* df) {
    Descriptors d(g, t);
    auto h = static_cast<cudnnHandle_t>(handle_);
    cudnnConvolutionBwdFilterAlgoPerf_t perf[CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT];
    int found = 0;
    ck(cudnnGetConvolutionBackwardFilterAlgorithm_v7(h, d.x, d.y, d.conv, d.f, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, &found, perf),
       "backward filter algorithm");
    for (int i = 0; i < found; ++i) {
        if (perf[i].status != CUDNN_STATUS_SUCCESS || perf[i].determinism != CUDNN_DETERMINISTIC || perf[i].memory > kMaxWorkspace) continue;
        Workspace ws(workspace_, perf[i].memory);
        double a64 = 1, b64 = 0;
        float a32 = 1, b32 = 0;
        const void* alpha = t == DType::Float64 ? static_cast<const void*>(&a64) : &a32;
        const void* beta = t == DType::Float64 ? static_cast<const void*>(&b64) : &b32;
        ck(cudnnConvolutionBackwardFilter(h, alpha, d.x, x, d.y, dy, d.conv, perf[i].algo, ws.data(), perf[i].memory, beta, d.f, df),
           "backward filter");
        return;
    }
    throw Error("cuDNN has no deterministic conv2d backward-filter algorithm for this shape");
}

}  // namespace rx::cuda
