#pragma once
// CUDA runtime plumbing shared by the backend's .cpp files: error checks that throw rx::Error,
// and the caching allocator's real backing store (cudaMalloc / cudaFree).
#include <string>

#include <cuda_runtime_api.h>

#include "cuda/CachingAllocator.h"

namespace rx::cuda {

// Throws rx::Error "<what>: <CUDA error name>: <message>" unless e == cudaSuccess.
void check(cudaError_t e, const std::string& what);

class CudaBackingStore final : public BackingStore {
public:
    std::optional<uintptr_t> allocate(size_t bytes) override;
    void release(uintptr_t address, size_t bytes) override;
};

}  // namespace rx::cuda
