// Fused elementwise groups: planning over the global block, CUDA source generation, NVRTC
// compilation (cached by source) and launch through the runtime's library API.
#include "cuda/Fusion.h"
#include "exec/OpSemantics.h"

#include <chrono>
#include <set>
#include <sstream>
#include <unordered_map>

#include <nvrtc.h>

#include "cuda/CudaRuntime.h"
#include "model/Diagnostic.h"
#include "model/OpTraits.h"

namespace rx::cuda {

extern const char* const kElementwiseSource;

namespace {

bool staticDenseDims(const Program& p, ValueId v, std::vector<int64_t>& dims) {
    if (v == kNoId) return false;
    const Type& t = p.types()[p.value(v).type];
    if (t.kind != Type::Kind::DenseTensor) return false;
    for (int64_t d : t.dims) if (d < 0) return false;
    dims = t.dims;
    return true;
}

// `in` broadcasts to `out` exactly (exec's broadcast rule: a member reads it in place).
bool broadcastsTo(const std::vector<int64_t>& in, const std::vector<int64_t>& out) {
    const auto b = exec::broadcastShapes(in, out);
    return b && *b == out;
}

}  // namespace

FusionPlan planFusion(const Program& program, const LifetimePlan& plan, const std::function<bool(OpId)>& hasFormula,
                      const std::function<bool(ValueId)>& keep) {
    const size_t nOps = plan.order.size();
    FusionPlan out;
    out.groupAt.assign(nOps, -1);
    // Positions that read each value, to decide which member results must be stored; a read
    // inside a region (an if's or while's block) counts at the op holding it.
    std::unordered_map<ValueId, std::vector<size_t>> readers;
    std::vector<BlockId> nested;
    for (size_t pos = 0; pos < nOps; ++pos) {
        const Operation& top = program.op(plan.order[pos]);
        for (ValueId v : top.operands)
            if (v != kNoId) readers[v].push_back(pos);
        for (const auto& region : top.regions) nested.insert(nested.end(), region.begin(), region.end());
        while (!nested.empty()) {
            const BlockId b = nested.back();
            nested.pop_back();
            for (OpId inner : program.block(b).ops) {
                for (ValueId v : program.op(inner).operands)
                    if (v != kNoId) readers[v].push_back(pos);
                for (const auto& region : program.op(inner).regions) nested.insert(nested.end(), region.begin(), region.end());
            }
        }
    }

    FusionGroup cur;
    std::set<ValueId> produced;
    auto close = [&] {
        if (cur.positions.size() >= 2) {
            size_t first = cur.positions.front(), last = cur.positions.back();
            for (size_t pos : cur.positions) {
                ValueId r = program.op(plan.order[pos]).results[0];
                bool need = plan.resident[r] || keep(r);
                for (size_t reader : readers[r]) need = need || reader < first || reader > last;
                cur.materialize.push_back(need ? 1 : 0);
            }
            int g = static_cast<int>(out.groups.size());
            for (size_t pos : cur.positions) out.groupAt[pos] = g;
            out.groups.push_back(std::move(cur));
        }
        cur = FusionGroup{};
        produced.clear();
    };
    for (size_t pos = 0; pos < nOps; ++pos) {
        OpId op = plan.order[pos];
        const Operation& o = program.op(op);
        std::vector<int64_t> dims;
        bool candidate = hasOpTrait(program.opName(op), OpTrait::Fusible) && o.results.size() == 1 && o.regions.empty() &&
                         staticDenseDims(program, o.results[0], dims) && hasFormula(op);
        if (!candidate) { close(); continue; }
        bool connected = false, fits = true;
        for (ValueId v : o.operands) {
            if (v == kNoId) continue;
            if (produced.count(v)) { connected = true; continue; }
            std::vector<int64_t> d;
            if (!staticDenseDims(program, v, d) || !broadcastsTo(d, dims)) fits = false;
        }
        bool extends = !cur.positions.empty() && cur.positions.back() + 1 == pos && dims == cur.dims && connected && fits;
        if (!extends) {
            close();
            bool selfFits = true;
            for (ValueId v : o.operands) {
                std::vector<int64_t> d;
                if (v != kNoId && (!staticDenseDims(program, v, d) || !broadcastsTo(d, dims))) selfFits = false;
            }
            if (!selfFits) continue;
            cur.dims = dims;
            cur.numel = 1;
            for (int64_t d : dims) cur.numel *= d;
        }
        cur.positions.push_back(pos);
        produced.insert(o.results[0]);
    }
    close();
    return out;
}

std::string fusedSource(const FusedKernelSpec& spec) {
    std::ostringstream s;
    s << kElementwiseSource << "\n";
    s << "extern \"C\" __global__ void rx_fused(long long n";
    for (size_t j = 0; j < spec.externalDtypes.size(); ++j) s << ", const void* __restrict__ e" << j;
    for (size_t j = 0; j < spec.outputs.size(); ++j) s << ", void* __restrict__ o" << j;
    for (size_t m = 0; m < spec.terms.size(); ++m) s << ", double a" << m << ", double b" << m;
    s << ") {\n";
    s << "  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)blockDim.x * gridDim.x) {\n";
    bool needIndex = false;
    for (size_t j = 0; j < spec.externalDtypes.size(); ++j) needIndex = needIndex || !spec.externalContiguous[j];
    const size_t rank = spec.dims.size();
    if (needIndex) {
        s << "    long long rem = i;\n";
        for (size_t k = rank; k-- > 0;) {
            s << "    const long long d" << k << " = rem % " << spec.dims[k] << "LL;";
            if (k > 0) s << " rem /= " << spec.dims[k] << "LL;";
            s << "\n";
        }
    }
    for (size_t j = 0; j < spec.externalDtypes.size(); ++j) {
        std::string off;
        if (spec.externalContiguous[j]) off = "i";
        else {
            for (size_t k = 0; k < rank; ++k)
                if (spec.externalStrides[j][k] != 0)
                    off += (off.empty() ? "" : " + ") + std::string("d") + std::to_string(k) + " * " +
                           std::to_string(spec.externalStrides[j][k]) + "LL";
            if (off.empty()) off = "0";
        }
        s << "    const double x" << j << " = rx_load(e" << j << ", " << spec.externalDtypes[j] << ", " << off << ");\n";
    }
    auto ref = [](int r) { return r >= 0 ? "x" + std::to_string(r) : "t" + std::to_string(-(r + 1)); };
    for (size_t m = 0; m < spec.terms.size(); ++m) {
        const FusedTerm& t = spec.terms[m];
        std::string e;
        if (t.arity <= 1)
            e = "rx_unary(" + std::to_string(t.op) + ", " + (t.arity == 1 ? ref(t.refs[0]) : std::string("0.0")) + ", a" +
                std::to_string(m) + ", b" + std::to_string(m) + ")";
        else if (t.arity == 2)
            e = "rx_binary(" + std::to_string(t.op) + ", " + ref(t.refs[0]) + ", " + ref(t.refs[1]) + ", " +
                (t.integer ? "true" : "false") + ", a" + std::to_string(m) + ")";
        else
            e = "rx_ternary(" + std::to_string(t.op) + ", " + ref(t.refs[0]) + ", " + ref(t.refs[1]) + ", " + ref(t.refs[2]) + ")";
        s << "    const double t" << m << " = rx_quantize(" << t.outDtype << ", " << e << ");\n";
    }
    for (size_t j = 0; j < spec.outputs.size(); ++j)
        s << "    rx_store(o" << j << ", " << spec.terms[static_cast<size_t>(spec.outputs[j])].outDtype << ", i, t"
          << spec.outputs[j] << ");\n";
    s << "  }\n}\n";
    return s.str();
}

std::string compileWithNvrtc(const std::string& source, int arch, const std::string& name) {
    nvrtcProgram prog = nullptr;
    nvrtcResult r = nvrtcCreateProgram(&prog, source.c_str(), name.c_str(), 0, nullptr, nullptr);
    if (r != NVRTC_SUCCESS) throw Error(std::string("nvrtcCreateProgram: ") + nvrtcGetErrorString(r));
    std::string archOpt = "--gpu-architecture=sm_" + std::to_string(arch);
    const char* opts[] = {archOpt.c_str(), "--std=c++17"};
    r = nvrtcCompileProgram(prog, 2, opts);
    if (r != NVRTC_SUCCESS) {
        size_t logSize = 0;
        nvrtcGetProgramLogSize(prog, &logSize);
        std::string log(logSize, '\0');
        if (logSize) nvrtcGetProgramLog(prog, log.data());
        nvrtcDestroyProgram(&prog);
        throw Error("NVRTC failed to compile a fused kernel (" + std::string(nvrtcGetErrorString(r)) + "):\n" + log);
    }
    size_t size = 0;
    nvrtcGetCUBINSize(prog, &size);
    std::string cubin(size, '\0');
    nvrtcGetCUBIN(prog, cubin.data());
    nvrtcDestroyProgram(&prog);
    return cubin;
}

FusionCache::~FusionCache() {
    for (auto& [src, entry] : kernels_) (void)cudaLibraryUnload(entry.first);
}

const void* FusionCache::kernel(const std::string& source, int arch) {
    auto it = kernels_.find(source);
    if (it != kernels_.end()) return reinterpret_cast<const void*>(it->second.second);
    auto t0 = std::chrono::steady_clock::now();
    std::string cubin = compileWithNvrtc(source, arch);
    cudaLibrary_t lib = nullptr;
    check(cudaLibraryLoadData(&lib, cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0), "cudaLibraryLoadData (fused kernel)");
    cudaKernel_t k = nullptr;
    check(cudaLibraryGetKernel(&k, lib, "rx_fused"), "cudaLibraryGetKernel (fused kernel)");
    kernels_[source] = {lib, k};
    compileMs_ += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return reinterpret_cast<const void*>(k);
}

void launchFused(const void* kernel, int64_t n, const std::vector<const void*>& externals, const std::vector<void*>& outputs,
                 const std::vector<double>& params, cudaStream_t stream) {
    if (n <= 0) return;
    long long count = n;
    std::vector<void*> args;
    args.push_back(&count);
    std::vector<const void*> ext = externals;
    std::vector<void*> outs = outputs;
    std::vector<double> ps = params;
    for (auto& p : ext) args.push_back(&p);
    for (auto& p : outs) args.push_back(&p);
    for (auto& p : ps) args.push_back(&p);
    constexpr int threads = 256;
    int64_t blocks = (n + threads - 1) / threads;
    if (blocks > 65535 * 8) blocks = 65535 * 8;
    check(cudaLaunchKernel(kernel, dim3(static_cast<unsigned>(blocks)), dim3(threads), args.data(), 0, stream), "fused kernel launch");
}

}  // namespace rx::cuda
