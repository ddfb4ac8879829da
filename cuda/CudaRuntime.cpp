// Device discovery, error checks and the cudaMalloc backing store.
#include "cuda/CudaRuntime.h"

#include "cuda/CudaExecutor.h"
#include "model/Diagnostic.h"

namespace rx::cuda {

void check(cudaError_t e, const std::string& what) {
    if (e == cudaSuccess) return;
    throw Error(what + ": " + cudaGetErrorName(e) + ": " + cudaGetErrorString(e));
}

std::optional<uintptr_t> CudaBackingStore::allocate(size_t bytes) {
    void* p = nullptr;
    cudaError_t e = cudaMalloc(&p, bytes);
    if (e == cudaErrorMemoryAllocation) {
        (void)cudaGetLastError();  // clear the sticky-free error so later calls do not see it
        return std::nullopt;
    }
    check(e, "cudaMalloc of " + std::to_string(bytes) + " bytes");
    return reinterpret_cast<uintptr_t>(p);
}

void CudaBackingStore::release(uintptr_t address, size_t) {
    (void)cudaFree(reinterpret_cast<void*>(address));  // in destructors: never throw
}

int cudaDeviceCount(std::string* why) {
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        if (why) *why = std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e);
        return 0;
    }
    if (n == 0 && why) *why = "the CUDA runtime reports 0 devices";
    return n;
}

std::unique_ptr<CudaExecutor> makeCudaExecutor(const CudaOptions& options) {
    std::string why;
    int n = cudaDeviceCount(&why);
    if (n <= 0) throw Error("no CUDA device: " + why);
    if (options.device < 0 || options.device >= n)
        throw Error("no CUDA device " + std::to_string(options.device) + " (" + std::to_string(n) + " present)");
    return std::make_unique<CudaExecutor>(options);
}

}  // namespace rx::cuda
