// Generate and solve transformer and LLaMA stacks from ~1k to ~300k ops.
// Run: build/bench/bench_zoo --benchmark_repetitions=3 --benchmark_report_aggregates_only=true
// Figures are medians over the repetitions; counters: ops, layers.
#include "algorithms/Solver.h"  // before any Qt header (Analysis.h has a member named `slots`)

#include <benchmark/benchmark.h>

#include <map>

#include "algorithms/zoo/ModelZoo.h"
#include "model/RecomputeConfig.h"

namespace {

using namespace rx;

zoo::ZooOptions options(const std::string& model, int layers) {
    zoo::ZooOptions o;
    o.model = model;
    o.layers = layers;
    o.hidden = 64;
    o.heads = 4;
    o.seq = 32;
    o.batch = 2;
    return o;
}

// Layers needed for about `targetOps` ops (ops grow linearly with layers).
int layersFor(const std::string& model, int64_t targetOps) {
    static std::map<std::string, std::pair<double, double>> fit;
    auto it = fit.find(model);
    if (it == fit.end()) {
        double one = static_cast<double>(zoo::generateModel(options(model, 1)).program->globalBlock().ops.size());
        double two = static_cast<double>(zoo::generateModel(options(model, 2)).program->globalBlock().ops.size());
        it = fit.emplace(model, std::make_pair(one - (two - one), two - one)).first;
    }
    auto [base, perLayer] = it->second;
    return std::max(1, static_cast<int>((static_cast<double>(targetOps) - base) / perLayer + 0.5));
}

void generate(benchmark::State& state, const std::string& model) {
    int layers = layersFor(model, state.range(0));
    size_t ops = 0;
    for (auto _ : state) {
        zoo::GeneratedProgram g = zoo::generateModel(options(model, layers));
        ops = g.program->globalBlock().ops.size();
        benchmark::DoNotOptimize(g.program.get());
    }
    state.counters["ops"] = static_cast<double>(ops);
    state.counters["layers"] = layers;
}

void solve(benchmark::State& state, const std::string& model) {
    int layers = layersFor(model, state.range(0));
    zoo::GeneratedProgram g = zoo::generateModel(options(model, layers));
    std::shared_ptr<const Program> program = g.program;
    RecomputeConfig config = RecomputeConfig::seedDefaults();
    size_t clones = 0;
    for (auto _ : state) {
        RecomputeSolver solver(program, g.spec);  // analysis included: a fresh program each time
        SolveResult r = solver.solve(config);
        if (!r.ok()) { state.SkipWithError(r.error.c_str()); break; }
        clones = r.clones.size();
    }
    state.counters["ops"] = static_cast<double>(program->globalBlock().ops.size());
    state.counters["recomputed_ops"] = static_cast<double>(clones);
}

void sizes(benchmark::internal::Benchmark* b) {
    for (int64_t n : {1000, 10000, 100000, 300000}) b->Arg(n);
    b->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1);
}

BENCHMARK_CAPTURE(generate, transformer, std::string("transformer"))->Apply(sizes);
BENCHMARK_CAPTURE(generate, llama, std::string("llama"))->Apply(sizes);
BENCHMARK_CAPTURE(solve, transformer, std::string("transformer"))->Apply(sizes);
BENCHMARK_CAPTURE(solve, llama, std::string("llama"))->Apply(sizes);

}  // namespace

BENCHMARK_MAIN();
