#pragma once
// The CUDA backend's public face: a CudaExecutor implementing exec::Executor (run a program on
// the device, fetch its outputs, measure the caching allocator's peaks and per-op times with
// CUDA events), and the factory the CLI and explorer call. No CUDA headers here.
#include <memory>
#include <string>
#include <vector>

#include "exec/Executor.h"

namespace rx::cuda {

struct CudaOptions {
    int device = 0;
    bool fused = false;    // each maximal group of fusible elementwise ops runs as one NVRTC kernel
    bool tf32 = false;     // f32 matmul through TF32 tensor cores (otherwise exact f32 FMA in cuBLAS)
    int warmup = 0;        // full runs before the measured ones
    int steps = 1;         // measured runs; op and step times are their medians
    bool nvtx = true;      // NVTX ranges "op-name %value" around every op
};

struct CudaOpTime {
    OpId op = kNoId;
    double medianMicros = 0;   // CUDA-event time of the op's kernels (a fused group's time is on its first op)
    int fusedGroup = -1;       // index into CudaRunReport::groups, -1 if unfused
};

struct CudaFusedGroup {
    std::vector<OpId> ops;     // in program order; the first one's time covers the group
    int64_t numel = 0;
};

struct CudaRunReport {
    std::string device;
    bool fused = false;
    int steps = 0;
    double stepMsMedian = 0;          // first op's start to last op's end, median over steps
    std::vector<double> stepMs;       // each measured step
    int64_t peakRequestedBytes = 0;   // caching allocator: live requests as asked
    int64_t peakAllocatedBytes = 0;   // live blocks (rounded)
    int64_t peakReservedBytes = 0;    // segments held from cudaMalloc
    double fragmentationAtEnd = 0;
    int64_t kernelLaunches = 0;       // per step
    std::vector<CudaOpTime> ops;      // per executed top-level op
    std::vector<CudaFusedGroup> groups;
};

class CudaExecutor final : public exec::Executor {
public:
    explicit CudaExecutor(const CudaOptions& options = {});  // throws rx::Error without a device
    ~CudaExecutor() override;
    std::string name() const override { return options_.fused ? "cuda-fused" : "cuda"; }
    std::vector<std::string> unsupportedOps(const Program& program) const override;

    const CudaRunReport& lastReport() const { return report_; }
    const CudaOptions& options() const { return options_; }
    static std::vector<std::string> supportedOps();

    struct Impl;

protected:
    std::string label() const override { return "CUDA"; }
    // No complex tensors on the device.
    bool supportsDType(DType t) const override { return exec::isSupportedDType(t) && !exec::isComplexDType(t); }
    exec::RunResult execute(const Program& program, const exec::RunInputs& inputs, const exec::RunOptions& options,
                            const exec::RunControl& control) override;

private:
    CudaOptions options_;
    CudaRunReport report_;
    std::unique_ptr<Impl> impl_;
};

// Number of CUDA devices (0 when the driver or runtime reports none; `why` gets the reason).
int cudaDeviceCount(std::string* why = nullptr);
// The factory: a CudaExecutor, or rx::Error "no CUDA device: ..." when there is none.
std::unique_ptr<CudaExecutor> makeCudaExecutor(const CudaOptions& options = {});

}  // namespace rx::cuda
