#pragma once
// conv2d forward and backward (data, filter) through cuDNN 9's convolution API, NCHW, with
// deterministic algorithms only (so two programs' gradients compare bit for bit on the device).
// Workspaces come from the caching allocator.
#include <cstdint>

#include <cuda_runtime_api.h>

#include "cuda/CachingAllocator.h"
#include "model/Type.h"

namespace rx::cuda {

struct ConvGeometry {
    int64_t n = 0, cin = 0, h = 0, w = 0, cout = 0, kh = 0, kw = 0, oh = 0, ow = 0;
    int64_t sh = 1, sw = 1, ph = 0, pw = 0, dh = 1, dw = 1, groups = 1;
};

class CudnnConv {
public:
    CudnnConv(cudaStream_t stream, CachingAllocator& workspace);
    ~CudnnConv();
    CudnnConv(const CudnnConv&) = delete;
    CudnnConv& operator=(const CudnnConv&) = delete;

    // Throw rx::Error with cuDNN's message on failure. f16/bf16/f32 compute in f32, f64 in f64.
    void forward(const ConvGeometry& g, DType t, const void* x, const void* f, void* y);
    void backwardData(const ConvGeometry& g, DType t, const void* f, const void* dy, void* dx);
    void backwardFilter(const ConvGeometry& g, DType t, const void* x, const void* dy, void* df);

private:
    struct Descriptors;
    void* handle_ = nullptr;
    CachingAllocator& workspace_;
};

}  // namespace rx::cuda
