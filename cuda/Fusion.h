#pragma once
// Fused mode: each maximal run of consecutive, connected ops with the Fusible trait
// (model/OpTraits.h) that share one output shape becomes one kernel,
// generated as CUDA C++ from cuda/ElementwiseOps.cuh's formulas and compiled with NVRTC at run
// time (cached by source). Values used only inside a group never reach memory; each member
// rounds to its dtype as its unfused kernel would store it, so fused == unfused bit for bit.
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "cuda/LifetimePlan.h"
#include "model/Program.h"

namespace rx::cuda {

struct FusionGroup {
    std::vector<size_t> positions;       // consecutive positions of the global block
    std::vector<int64_t> dims;           // every member's result dims
    int64_t numel = 0;
    std::vector<uint8_t> materialize;    // per member (parallel to positions): its result is needed after the group
};

struct FusionPlan {
    std::vector<FusionGroup> groups;
    std::vector<int> groupAt;            // per position: group index or -1
    int groupOf(size_t pos) const { return pos < groupAt.size() ? groupAt[pos] : -1; }
};

// `hasFormula(op)`: the backend can express the op as one elementwise term. `keep(v)`: the
// value must be materialized anyway (captured, fetched through keepAllValues).
FusionPlan planFusion(const Program& program, const LifetimePlan& plan, const std::function<bool(OpId)>& hasFormula,
                      const std::function<bool(ValueId)>& keep);

// One fused kernel, as data: externals (dtype, broadcast strides), terms in order, outputs.
struct FusedTerm {
    int arity = 1;
    int op = 0;
    int refs[3] = {0, 0, 0};   // >= 0: external index; < 0: term -(ref + 1)
    int outDtype = 0;
    bool integer = false;
};
struct FusedKernelSpec {
    std::vector<int64_t> dims;
    std::vector<int> externalDtypes;
    std::vector<std::vector<int64_t>> externalStrides;  // aligned to dims, 0 on broadcast dims
    std::vector<uint8_t> externalContiguous;
    std::vector<FusedTerm> terms;
    std::vector<int> outputs;                           // term indices stored to memory
};

// The kernel's CUDA C++ source: extern "C" __global__ rx_fused(long long n, externals...,
// outputs..., p0/p1 per term). Pure text; NVRTC compiles it.
std::string fusedSource(const FusedKernelSpec& spec);

// NVRTC: compile `source` for sm_<arch> (e.g. 90) to a CUBIN. Works without a device. Throws
// rx::Error with NVRTC's log on failure.
std::string compileWithNvrtc(const std::string& source, int arch, const std::string& name = "rx_fused.cu");

// Loaded kernels by source text, for the executor's device.
class FusionCache {
public:
    FusionCache() = default;
    ~FusionCache();
    FusionCache(const FusionCache&) = delete;
    FusionCache& operator=(const FusionCache&) = delete;
    // Compiles on first use; later calls with the same source return the loaded kernel.
    const void* kernel(const std::string& source, int arch);
    size_t compiled() const { return kernels_.size(); }
    double compileMs() const { return compileMs_; }

private:
    std::map<std::string, std::pair<cudaLibrary_t, cudaKernel_t>> kernels_;
    double compileMs_ = 0;
};

// Launches a loaded fused kernel: n elements, the external and output pointers, p0/p1 per term.
void launchFused(const void* kernel, int64_t n, const std::vector<const void*>& externals,
                 const std::vector<void*>& outputs, const std::vector<double>& params, cudaStream_t stream);

}  // namespace rx::cuda
