// Whole-solve benchmarks (issue 3): a chain of elementwise forward ops with its backward
// (20k forward ops -> 56k ops; 100k forward ops -> 280k ops), parse + analysis + network +
// min cut + plan + rewrite + memory; and a re-solve after a knob change on a 10k-op program.
// Run: build-algo/bench/bench_solve --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <malloc.h>
#include <string_view>

#include "algorithms/Solver.h"
#include "algorithms/zoo/ModelZoo.h"
#include "model/PirReader.h"
#include "model/PirWriter.h"

using namespace rx;

namespace {

// x -> sin -> cos -> sin -> cos -> exp -> ... ; backward: sin' = cos(x) * g, cos' = -sin(x) * g
// (sin + multiply), exp' = y * g.
struct Chain {
    std::shared_ptr<Program> program;
    RecomputeSpec spec;
    std::string text;
};

Chain makeChain(int forwardOps) {
    Chain c;
    c.program = std::make_shared<Program>();
    Program& p = *c.program;
    p.setGeneration(Generation::G2);
    const TypeId t = p.tensorType(DType::Float32, {4096, 4096});
    const std::vector<TypeId> one{t};
    auto add = [&](const char* name, std::vector<ValueId> operands) {
        const OpId op = p.appendOp(Program::kGlobalBlock, name, operands, one,
                                   {{"stop_gradient", Attribute::array({Attribute::boolean(false)})}});
        return p.op(op).results[0];
    };
    std::vector<ValueId> chain{add("pd_op.data", {})};
    static const char* kinds[] = {"pd_op.sin", "pd_op.cos", "pd_op.sin", "pd_op.cos", "pd_op.exp"};
    for (int i = 0; i < forwardOps - 1; ++i) chain.push_back(add(kinds[i % 5], {chain.back()}));
    c.spec.fwdOpEndIdx = int(p.globalBlock().ops.size()) - 1;
    ValueId g = add("pd_op.full", {});
    c.spec.backwardOpStartIdx = int(p.globalBlock().ops.size());
    for (int i = forwardOps - 2; i >= 0; --i) {
        const std::string_view kind = kinds[i % 5];
        const ValueId in = chain[size_t(i)], out = chain[size_t(i) + 1];
        if (kind == "pd_op.exp") g = add("pd_op.multiply", {out, g});
        else g = add("pd_op.multiply", {add(kind == "pd_op.sin" ? "pd_op.cos" : "pd_op.sin", {in}), g});
    }
    c.spec.inputs = {chain.front()};
    c.spec.outputs = {chain.back()};
    p.finish();
    c.text = printProgram(p);
    return c;
}

void wholeSolve(benchmark::State& state) {
    const Chain chain = makeChain(int(state.range(0)));
    const RecomputeConfig config = RecomputeConfig::seedDefaults();
    size_t saved = 0;
    for (auto _ : state) {
        auto program = std::make_shared<Program>(parsePir(chain.text, "chain.pir"));
        RecomputeSolver solver(program, chain.spec);
        const SolveResult r = solver.solve(config);
        if (!r.ok()) state.SkipWithError(r.error.c_str());
        saved = r.plan.savedValues.size();
        benchmark::DoNotOptimize(r.rewritten);
    }
    state.counters["ops"] = double(chain.program->globalBlock().ops.size());
    state.counters["saved"] = double(saved);
}

void solveOnly(benchmark::State& state) {  // without parsing: program already in memory
    const Chain chain = makeChain(int(state.range(0)));
    const RecomputeConfig config = RecomputeConfig::seedDefaults();
    SolveTimings sum;
    double analysisMs = 0;
    int n = 0;
    for (auto _ : state) {
        const auto t0 = std::chrono::steady_clock::now();
        RecomputeSolver solver(chain.program, chain.spec);
        analysisMs += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        const SolveResult r = solver.solve(config);
        if (!r.ok()) state.SkipWithError(r.error.c_str());
        sum.buildMs += r.timings.buildMs; sum.solveMs += r.timings.solveMs; sum.planMs += r.timings.planMs;
        sum.rewriteMs += r.timings.rewriteMs; sum.memoryMs += r.timings.memoryMs;
        ++n;
        benchmark::DoNotOptimize(r.rewritten);
    }
    state.counters["ops"] = double(chain.program->globalBlock().ops.size());
    state.counters["analysis_ms"] = analysisMs / n;
    state.counters["build_ms"] = sum.buildMs / n;
    state.counters["cut_ms"] = sum.solveMs / n;
    state.counters["plan_ms"] = sum.planMs / n;
    state.counters["rewrite_ms"] = sum.rewriteMs / n;
    state.counters["memory_ms"] = sum.memoryMs / n;
}

void resolveAfterKnobChange(benchmark::State& state) {
    const Chain chain = makeChain(int(state.range(0)));
    RecomputeSolver solver(chain.program, chain.spec);
    RecomputeConfig a = RecomputeConfig::seedDefaults(), b = a;
    b.maxDistFromBw = 4;
    b.distanceBase = 1.2;
    (void)solver.solve(a);  // the analysis is built once per program
    bool flip = false;
    for (auto _ : state) {
        const SolveResult r = solver.solve(flip ? a : b);
        flip = !flip;
        if (!r.ok()) state.SkipWithError(r.error.c_str());
        benchmark::DoNotOptimize(r.rewritten);
    }
    state.counters["ops"] = double(chain.program->globalBlock().ops.size());
}

// Re-solve after an edit of the op lists (issue 8: under 100 ms at 280k ops): the analysis
// is reused; the edit moves pd_op.exp out of the recomputable ops and pd_op.matmul out of
// the unrecomputable ones, so the judge runs again too.
// range(1) = 0: the plan only (network, cut, saved / mid-hold / recompute sets), what the
// explorer shows first; 1: with the rewritten program and its memory profile.
void resolveAfterOpListEdit(benchmark::State& state) {
    const Chain chain = makeChain(int(state.range(0)));
    SolveOptions options;
    options.rewrite = options.memory = state.range(1) != 0;
    RecomputeSolver solver(chain.program, chain.spec);
    RecomputeConfig a = RecomputeConfig::seedDefaults(), b = a;
    std::erase(b.recomputableOps, std::string("pd_op.exp"));
    std::erase(b.computeIntensiveOps, std::string("pd_op.matmul"));
    b.computeIntensiveOps.push_back("pd_op.cos");
    (void)solver.solve(a);
    bool flip = false;
    SolveTimings sum;
    int n = 0;
    for (auto _ : state) {
        const SolveResult r = solver.solve(flip ? a : b, options);
        flip = !flip;
        if (!r.ok()) state.SkipWithError(r.error.c_str());
        sum.buildMs += r.timings.buildMs; sum.solveMs += r.timings.solveMs; sum.planMs += r.timings.planMs;
        sum.rewriteMs += r.timings.rewriteMs; sum.memoryMs += r.timings.memoryMs;
        ++n;
        benchmark::DoNotOptimize(r.rewritten);
    }
    state.counters["ops"] = double(chain.program->globalBlock().ops.size());
    state.counters["build_ms"] = sum.buildMs / n;
    state.counters["cut_ms"] = sum.solveMs / n;
    state.counters["plan_ms"] = sum.planMs / n;
    state.counters["rewrite_ms"] = sum.rewriteMs / n;
    state.counters["memory_ms"] = sum.memoryMs / n;
}

void copyProgram(benchmark::State& state) {  // the floor of a pass that returns a new Program
    const Chain chain = makeChain(int(state.range(0)));
    for (auto _ : state) {
        Program copy(*chain.program);
        benchmark::DoNotOptimize(copy.ops().data());
    }
}

void parseOnly(benchmark::State& state) {
    const Chain chain = makeChain(int(state.range(0)));
    for (auto _ : state) {
        Program p = parsePir(chain.text, "chain.pir");
        benchmark::DoNotOptimize(p.ops().data());
    }
}

// The fusion-loop judge alone on zoo programs (ALGORITHM.md §5), ~range(0) ops.
void fusionJudge(benchmark::State& state, const std::string& model) {
    zoo::ZooOptions o;
    o.model = model;
    o.hidden = 64;
    o.heads = 4;
    o.seq = 32;
    o.batch = 2;
    o.layers = 1;
    const size_t one = zoo::generateModel(o).program->globalBlock().ops.size();
    o.layers = 2;
    const size_t perLayer = zoo::generateModel(o).program->globalBlock().ops.size() - one;
    o.layers = std::max<int>(1, int((state.range(0) - int64_t(one)) / int64_t(perLayer)) + 1);
    const zoo::GeneratedProgram g = zoo::generateModel(o);
    const Analysis analysis(g.program, g.spec);
    const OpClasses classes = analysis.classify(RecomputeConfig::seedDefaults());
    FusionJudgeStats stats;
    size_t flagged = 0;
    for (auto _ : state) {
        const std::vector<uint8_t> flags = analysis.fusionLoopFlags(classes, {}, &stats);
        flagged = size_t(std::count(flags.begin(), flags.end(), 1));
    }
    state.counters["ops"] = double(analysis.opCount());
    state.counters["flagged"] = double(flagged);
    state.counters["queries"] = double(stats.queries);
    state.counters["searched"] = double(stats.byLowerSearch + stats.byUpperSearch);
    state.counters["bitsets"] = double(stats.byBitsets);
}

}  // namespace

BENCHMARK_CAPTURE(fusionJudge, transformer, std::string("transformer"))->Arg(280000)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(fusionJudge, llama, std::string("llama"))->Arg(280000)->Unit(benchmark::kMillisecond);
BENCHMARK(copyProgram)->Arg(20000)->Unit(benchmark::kMillisecond)->MinTime(0.3);
BENCHMARK(parseOnly)->Arg(20000)->Unit(benchmark::kMillisecond)->MinTime(0.3);
// 20k forward ops -> 56k ops; 100k forward ops -> 280k ops; 3572 forward ops -> 10k ops.
BENCHMARK(wholeSolve)->Arg(20000)->Arg(100000)->Unit(benchmark::kMillisecond)->MinTime(0.5);
// Growth: 35715 forward ops -> 100k ops, 357143 -> 1M ops (exponent = log10 of the ratio).
BENCHMARK(solveOnly)->Arg(20000)->Arg(100000)->Unit(benchmark::kMillisecond)->MinTime(0.5);
BENCHMARK(solveOnly)->Name("growth")->Arg(35715)->Arg(357143)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(resolveAfterOpListEdit)->Args({100000, 0})->Args({100000, 1})->Unit(benchmark::kMillisecond)->MinTime(0.5);
BENCHMARK(resolveAfterKnobChange)->Arg(3572)->Unit(benchmark::kMillisecond)->MinTime(0.5);

// Keeps freed memory in the process (glibc otherwise returns big blocks to the kernel and
// every solve page-faults them in again, which dominates on this VM). RX_BENCH_MALLOC=default
// measures without it.
int main(int argc, char** argv) {
    const char* mode = std::getenv("RX_BENCH_MALLOC");
    if (!mode || std::string_view(mode) != "default") {
        mallopt(M_MMAP_MAX, 0);              // big arrays from the heap, not fresh mmaps
        mallopt(M_TRIM_THRESHOLD, 1 << 30);  // and keep it
    }
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
