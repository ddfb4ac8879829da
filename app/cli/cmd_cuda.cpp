// recompute-cli cuda-profile PROGRAM [--spec F] [--config F] [--seed N] [--input-dims NAME=DIMS]... [--warmup N] [--steps N]
//                                    [--tf32] [--unfused-only] [--json]
// Solves with the seed's algorithm (or the given config), then runs the original and the
// rewritten program on the GPU, unfused and fused (NVRTC), with the same seeded inputs: checks
// that their fetches are identical, and reports per variant the caching allocator's peak
// allocated / reserved bytes beside the memory model's peak, the median step time, the
// recompute overhead, and the slowest ops. Exit 1 with "no CUDA device" where there is none;
// 3 when the programs' results differ.
#include <rapidjson/ostreamwrapper.h>
#include <rapidjson/prettywriter.h>

#include <algorithm>
#include <iomanip>
#include <iostream>
#include <memory>

#include "algorithms/Solver.h"
#include "exec/Executor.h"
#include "exec/Liveness.h"
#include "exec/Verify.h"
#include "app/cli/Command.h"
#include "app/cli/ProgramToRun.h"
#include "model/JsonWriter.h"
#include "model/Diagnostic.h"
#include "model/PirReader.h"
#include "model/RecomputeConfig.h"
#include "model/RecomputeSpec.h"
#ifdef RX_HAVE_CUDA
#include "cuda/CudaExecutor.h"
#endif

namespace {

using namespace rx;

// Every option of the command, bound by CLI11 (see the definer at the bottom).
struct CudaProfileArgs {
    std::string program, spec, config;  // empty: absent
    uint64_t seed = 0;
    std::vector<std::string> inputDims;  // --input-dims NAME=DIMS
    int warmup = 1, steps = 3;
    bool tf32 = false, unfusedOnly = false, json = false;
};

#ifdef RX_HAVE_CUDA
struct Variant {
    std::string name;   // "original", "rewritten"
    bool fused = false;
    exec::RunResult run;
    cuda::CudaRunReport report;
    int64_t modelPeakBytes = 0;  // the memory model along the run's branches and iterations
};

double mib(int64_t b) { return static_cast<double>(b) / (1024.0 * 1024.0); }

int runCudaProfile(const CudaProfileArgs& args) {
    const std::string& path = args.program;
    auto program = cli::loadProgramToRun(path, args.inputDims);
    ResolvedSpec resolved = resolveSpec(*program, path, args.spec.empty() ? std::nullopt : std::optional(args.spec));
    RecomputeSpec spec = std::move(resolved.spec);
    RecomputeConfig config = RecomputeConfig::seedDefaults();
    if (!args.config.empty()) config = readConfigFile(args.config);
    cuda::CudaOptions co;
    co.warmup = args.warmup;
    co.steps = args.steps;
    co.tf32 = args.tf32;
    auto unfused = cuda::makeCudaExecutor(co);  // "no CUDA device: ..." before any work
    if (auto missing = unfused->unsupportedOps(*program); !missing.empty()) {
        std::string list;
        for (const auto& m : missing) list += (list.empty() ? "" : ", ") + m;
        throw Error(path + ": cannot run on the CUDA executor, no kernel for: " + list);
    }
    RecomputeSolver solver(program, spec);
    SolveResult solved = solver.solve(config);
    if (!solved.ok()) throw Error(path + ": the solver failed: " + solved.error);

    exec::RunInputs inputs;
    inputs.seed = args.seed;
    exec::RunOptions ro;
    ro.residentValues = spec.inputs;  // what the memory model counts as resident
    std::vector<Variant> variants;
    auto profile = [&](cuda::CudaExecutor& ex, const Program& p, const char* name) {
        Variant v;
        v.name = name;
        v.fused = ex.options().fused;
        v.run = ex.run(p, inputs, ro);
        v.report = ex.lastReport();
        v.modelPeakBytes = exec::liveBytesOf(p, exec::analyzeLiveness(p, exec::residentMask(p, ro)), &v.run.controlPath).peakBytes;
        variants.push_back(std::move(v));
    };
    profile(*unfused, *program, "original");
    profile(*unfused, *solved.rewritten, "rewritten");
    if (!args.unfusedOnly) {
        cuda::CudaOptions fo = co;
        fo.fused = true;
        auto fused = cuda::makeCudaExecutor(fo);
        profile(*fused, *program, "original");
        profile(*fused, *solved.rewritten, "rewritten");
    }
    // Same inputs, same kernels: the rewritten program's fetches must equal the original's
    // bit for bit, fused or not, and fused must equal unfused.
    bool equivalent = true;
    std::string firstMismatch;
    for (size_t i = 1; i < variants.size(); ++i) {
        exec::VerifyReport r = exec::compareRuns(variants[0].run, variants[i].run, exec::VerifyOptions{});
        if (!r.equivalent && equivalent) {
            equivalent = false;
            firstMismatch = variants[i].name + (variants[i].fused ? " fused" : " unfused") + ": " + r.summary();
        }
    }
    auto overhead = [&](bool fused) {
        const Variant *o = nullptr, *r = nullptr;
        for (const Variant& v : variants)
            if (v.fused == fused) (v.name == "original" ? o : r) = &v;
        return o && r && o->report.stepMsMedian > 0 ? r->report.stepMsMedian / o->report.stepMsMedian - 1.0 : 0.0;
    };

    if (args.json) {
        rapidjson::OStreamWrapper os(std::cout);
        CheckedJsonWriter<rapidjson::PrettyWriter<rapidjson::OStreamWrapper>> w(os);
        auto str = [&](std::string_view t) { w.String(t.data(), rapidjson::SizeType(t.size())); };
        w.StartObject();
        w.Key("program"), str(path);
        w.Key("device"), str(variants[0].report.device);
        w.Key("equivalent"), w.Bool(equivalent);
        w.Key("recomputed_ops"), w.Int64(int64_t(solved.clones.size()));
        w.Key("model_original_peak_bytes"), w.Int64(solved.originalMemory.peakBytes);
        w.Key("model_rewritten_peak_bytes"), w.Int64(solved.rewrittenMemory.peakBytes);
        w.Key("recompute_overhead_unfused"), w.Double(overhead(false));
        w.Key("recompute_overhead_fused"), w.Double(overhead(true));
        w.Key("variants");
        w.StartArray();
        for (const Variant& v : variants) {
            w.StartObject();
            w.Key("program"), str(v.name);
            w.Key("fused"), w.Bool(v.fused);
            w.Key("steps"), w.Int64(v.report.steps);
            w.Key("step_ms_median"), w.Double(v.report.stepMsMedian);
            w.Key("peak_allocated_bytes"), w.Int64(int64_t(v.report.peakAllocatedBytes));
            w.Key("peak_reserved_bytes"), w.Int64(int64_t(v.report.peakReservedBytes));
            w.Key("peak_requested_bytes"), w.Int64(int64_t(v.report.peakRequestedBytes));
            w.Key("executor_model_peak_bytes"), w.Int64(v.modelPeakBytes);
            w.Key("kernel_launches"), w.Int64(int64_t(v.report.kernelLaunches));
            w.Key("fused_groups"), w.Int64(int64_t(v.report.groups.size()));
            w.Key("ops");
            w.StartArray();
            for (const cuda::CudaOpTime& t : v.report.ops) {
                w.StartObject();
                w.Key("op"), w.Int64(int64_t(t.op));
                w.Key("name"), str((v.name == "original" ? *program : *solved.rewritten).opName(t.op));
                w.Key("us"), w.Double(t.medianMicros);
                if (t.fusedGroup >= 0) w.Key("fused_group"), w.Int64(t.fusedGroup);
                w.EndObject();
            }
            w.EndArray();
            w.EndObject();
        }
        w.EndArray();
        if (!equivalent) w.Key("first_mismatch"), str(firstMismatch);
        w.EndObject();
        os.Flush();
        std::cout << "\n";
    } else {
        std::cout << path << " on " << variants[0].report.device << ": " << solved.clones.size() << " ops recomputed; "
                  << "memory model peak " << std::fixed << std::setprecision(1) << mib(solved.originalMemory.peakBytes) << " -> "
                  << mib(solved.rewrittenMemory.peakBytes) << " MiB\n";
        std::cout << "program    mode     step ms   allocated MiB  reserved MiB  model MiB  launches\n";
        for (const Variant& v : variants)
            std::cout << std::left << std::setw(11) << v.name << std::setw(9) << (v.fused ? "fused" : "unfused") << std::right
                      << std::setw(8) << std::setprecision(3) << v.report.stepMsMedian << std::setw(15) << std::setprecision(1)
                      << mib(v.report.peakAllocatedBytes) << std::setw(14) << mib(v.report.peakReservedBytes) << std::setw(11)
                      << mib(v.modelPeakBytes) << std::setw(10) << v.report.kernelLaunches << "\n";
        std::cout << std::setprecision(1) << "recompute overhead: unfused " << 100.0 * overhead(false) << "%";
        if (!args.unfusedOnly) std::cout << ", fused " << 100.0 * overhead(true) << "%";
        std::cout << "\n" << (equivalent ? "results: identical in every variant" : "results DIFFER: " + firstMismatch) << "\n";
        // the five slowest ops of the rewritten, unfused run
        const Variant& rw = variants[1];
        std::vector<cuda::CudaOpTime> ops = rw.report.ops;
        std::sort(ops.begin(), ops.end(), [](const auto& a, const auto& b) { return a.medianMicros > b.medianMicros; });
        std::cout << "slowest ops (rewritten, unfused):";
        for (size_t i = 0; i < std::min<size_t>(5, ops.size()); ++i)
            std::cout << " " << solved.rewritten->opName(ops[i].op) << " " << std::setprecision(1) << ops[i].medianMicros << "us";
        std::cout << "\n";
    }
    return equivalent ? 0 : 3;
}
#else
int runCudaProfile(const CudaProfileArgs&) {
    cli::delegateToCudaBuild();  // recompute-cli-cuda runs it, when it was built
    throw Error("cuda-profile: this recompute-cli was built without CUDA (nvcc not found or -DRX_WITH_CUDA=OFF)");
}
#endif

rx::cli::RegisterCommand reg(
    "cuda-profile", "Run the original and the rewritten program on the GPU, unfused and fused, and compare them",
    [](CLI::App& app) {
        auto a = std::make_shared<CudaProfileArgs>();
        app.add_option("PROGRAM", a->program, "program to profile (PIR text or JSON)")->required()->check(CLI::ExistingFile);
        app.add_option("--spec", a->spec, "recompute spec (default: PROGRAM.spec.json, else detected)")
            ->check(CLI::ExistingFile);
        app.add_option("--config", a->config, "heuristics config JSON (default: the seed's constants)")
            ->check(CLI::ExistingFile);
        app.add_option("--seed", a->seed, "seed of the generated inputs (default 0)");
        cli::addInputDimsOption(app, a->inputDims);
        app.add_option("--warmup", a->warmup, "untimed steps before measuring (default 1)")->check(CLI::Range(0, 1000));
        app.add_option("--steps", a->steps, "timed steps; the median is reported (default 3)")->check(CLI::Range(1, 1000));
        app.add_flag("--tf32", a->tf32, "allow TF32 tensor-core matmuls");
        app.add_flag("--unfused-only", a->unfusedOnly, "skip the fused (NVRTC) variants");
        app.add_flag("--json", a->json, "one JSON object on stdout");
        return [a] { return runCudaProfile(*a); };
    });
}  // namespace
