// PIR reader / writer speed and memory on generated programs of 10k, 100k and 300k ops.
// The text mimics Paddle 3.0-beta (G2) training programs: data ops with the full attribute
// set, elementwise and matmul ops with stop_gradient/transpose flags, multi-result
// layer_norm, full ops with typed scalars, combine/vec types, fetch. Memory is counted by
// replacing operator new/delete: "heap_B_per_op" is what the Program keeps alive per op
// (usable size + 8 B malloc header per block), "peak_B_per_op" the peak during parsing.
// Also: one op with 5k/50k/500k results (linear in results per op) and a tiny file naming
// %67108863 (peak heap not sized by the largest value number).
// Run: build/bench/bench_reader [--benchmark_filter=Parse]
#include <benchmark/benchmark.h>

#include <malloc.h>

#include <atomic>
#include <cstdlib>
#include <map>
#include <new>
#include <string>

#include "model/PirReader.h"
#include "model/PirWriter.h"

namespace {
std::atomic<int64_t> gLive{0};
std::atomic<int64_t> gPeak{0};
bool gCount = true;

void noteAlloc(void* p) {
    if (!gCount || !p) return;
    const int64_t live = gLive.fetch_add(static_cast<int64_t>(malloc_usable_size(p)) + 8) + static_cast<int64_t>(malloc_usable_size(p)) + 8;
    int64_t peak = gPeak.load();
    while (live > peak && !gPeak.compare_exchange_weak(peak, live)) {}
}
void noteFree(void* p) {
    if (!gCount || !p) return;
    gLive.fetch_sub(static_cast<int64_t>(malloc_usable_size(p)) + 8);
}
}  // namespace

void* operator new(size_t n) {
    void* p = std::malloc(n ? n : 1);
    if (!p) throw std::bad_alloc();
    noteAlloc(p);
    return p;
}
void* operator new[](size_t n) { return operator new(n); }
// GCC cannot see that the replaced operator new above is malloc: its mismatch warning is wrong here.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void operator delete(void* p) noexcept {
    noteFree(p);
    std::free(p);
}
#pragma GCC diagnostic pop
void operator delete[](void* p) noexcept { operator delete(p); }
void operator delete(void* p, size_t) noexcept { operator delete(p); }
void operator delete[](void* p, size_t) noexcept { operator delete(p); }

namespace {

// A G2 program of `opCount` ops in the global block.
std::string generateProgram(int opCount) {
    std::string s;
    s.reserve(static_cast<size_t>(opCount) * 260);
    s += "{\n";
    int next = 0;
    const auto v = [](int id) { return "%" + std::to_string(id); };
    const std::string act = "builtin.tensor<-1x1024x4096xf16>";
    const std::string w = "builtin.tensor<4096x4096xf16>";
    const std::string row = "builtin.tensor<-1x1024xf32>";
    int ops = 0;
    // Inputs and parameters.
    std::vector<int> acts;
    std::vector<int> weights;
    for (int i = 0; i < 8 && ops < opCount; ++i, ++ops) {
        const int id = next++;
        s += "    (" + v(id) + ") = \"builtin.parameter\" () {is_distributed:[false],is_parameter:[true],need_clip:[true],parameter_name:\"linear_" +
             std::to_string(i) + ".w_0\",persistable:[true],stop_gradient:[false],trainable:[true]} : () -> " + w + "\n";
        weights.push_back(id);
    }
    if (ops < opCount) {
        const int id = next++;
        s += "    (" + v(id) + ") = \"pd_op.data\" () {dtype:(pd_op.DataType)float16,name:\"x\",place:(pd_op.Place)Place(gpu:0),shape:(pd_op.IntArray)[-1,1024,4096],stop_gradient:[false]} : () -> " + act + "\n";
        acts.push_back(id);
        ++ops;
    }
    int k = 0;
    while (ops < opCount) {
        const int x = acts[acts.size() - 1 - (k % std::min<size_t>(acts.size(), 4))];
        const int wid = weights[static_cast<size_t>(k) % weights.size()];
        switch (k % 8) {
        case 0: {
            const int id = next++;
            s += "    (" + v(id) + ") = \"pd_op.matmul\" (" + v(x) + ", " + v(wid) + ") {stop_gradient:[false],transpose_x:false,transpose_y:false} : (" + act + ", " + w + ") -> " + act + "\n";
            acts.push_back(id);
            break;
        }
        case 1: {
            const int id = next++;
            s += "    (" + v(id) + ") = \"pd_op.full\" () {dtype:(pd_op.DataType)float32,place:(pd_op.Place)Place(cpu),shape:(pd_op.IntArray)[1],stop_gradient:[true],value:(Double)0.5} : () -> builtin.tensor<1xf32>\n";
            const int id2 = next++;
            s += "    (" + v(id2) + ") = \"pd_op.scale\" (" + v(x) + ", " + v(id) + ") {bias:(Float)0,bias_after_scale:true,stop_gradient:[false]} : (" + act + ", builtin.tensor<1xf32>) -> " + act + "\n";
            acts.push_back(id2);
            ++ops;
            break;
        }
        case 2: {
            const int id = next++;
            s += "    (" + v(id) + ") = \"pd_op.gelu\" (" + v(x) + ") {approximate:false,stop_gradient:[false]} : (" + act + ") -> " + act + "\n";
            acts.push_back(id);
            break;
        }
        case 3: {
            const int a = next++, b = next++, c = next++;
            s += "    (" + v(a) + ", " + v(b) + ", " + v(c) + ") = \"pd_op.layer_norm\" (" + v(x) + ", <<NULL VALUE>>, <<NULL VALUE>>) {begin_norm_axis:(Int32)2,epsilon:(Float)1e-05,stop_gradient:[false,false,false]} : (" + act +
                 ", <<NULL TYPE>>, <<NULL TYPE>>) -> " + act + ", " + row + ", " + row + "\n";
            acts.push_back(a);
            break;
        }
        case 4: {
            const int id = next++;
            const int y = acts[acts.size() - 2];
            s += "    (" + v(id) + ") = \"pd_op.add\" (" + v(x) + ", " + v(y) + ") {stop_gradient:[false]} : (" + act + ", " + act + ") -> " + act + "\n";
            acts.push_back(id);
            break;
        }
        case 5: {
            const int id = next++;
            s += "    (" + v(id) + ") = \"pd_op.full_int_array\" () {dtype:(pd_op.DataType)int64,place:(pd_op.Place)Place(cpu),stop_gradient:[true],value:[(Int64)0,(Int64)2,(Int64)1]} : () -> builtin.tensor<3xi64>\n";
            const int id2 = next++;
            s += "    (" + v(id2) + ") = \"pd_op.transpose\" (" + v(x) + ") {perm:[(Int32)0,(Int32)2,(Int32)1],stop_gradient:[false]} : (" + act + ") -> builtin.tensor<-1x4096x1024xf16>\n";
            ++ops;
            const int id3 = next++;
            s += "    (" + v(id3) + ") = \"pd_op.transpose\" (" + v(id2) + ") {perm:[(Int32)0,(Int32)2,(Int32)1],stop_gradient:[false]} : (builtin.tensor<-1x4096x1024xf16>) -> " + act + "\n";
            ++ops;
            acts.push_back(id3);
            break;
        }
        case 6: {
            const int y = acts[acts.size() - 2];
            const int id = next++;
            s += "    (" + v(id) + ") = \"builtin.combine\" (" + v(x) + ", " + v(y) + ") {} : (" + act + ", " + act + ") -> vec[" + act + "," + act + "]\n";
            const int id2 = next++;
            s += "    (" + v(id2) + ") = \"pd_op.add_n\" (" + v(id) + ") {stop_gradient:[false]} : (vec[" + act + "," + act + "]) -> " + act + "\n";
            ++ops;
            acts.push_back(id2);
            break;
        }
        case 7: {
            const int id = next++;
            s += "    (" + v(id) + ") = \"pd_op.dropout\" (" + v(x) + ", <<NULL VALUE>>) {is_test:false,mode:\"upscale_in_train\",p:(Float)0.1,seed:(Int32)0,stop_gradient:[false]} : (" + act + ", <<NULL TYPE>>) -> " + act + "\n";
            acts.push_back(id);
            break;
        }
        }
        ++ops;
        ++k;
        if (acts.size() > 64) acts.erase(acts.begin(), acts.begin() + 32);
    }
    s += "}\n";
    return s;
}

const std::string& programText(int ops) {
    static std::map<int, std::string> cache;
    auto it = cache.find(ops);
    if (it == cache.end()) it = cache.emplace(ops, generateProgram(ops)).first;
    return it->second;
}

void BM_ParsePir(benchmark::State& state) {
    const int n = static_cast<int>(state.range(0));
    const std::string& text = programText(n);
    int64_t kept = 0, peak = 0;
    size_t ops = 0;
    for (auto _ : state) {
        const int64_t before = gLive.load();
        gPeak.store(before);
        rx::Program p = rx::parsePir(text, "generated.pir");
        kept = gLive.load() - before;
        peak = gPeak.load() - before;
        ops = p.globalBlock().ops.size();
        benchmark::DoNotOptimize(p.ops().data());
        state.PauseTiming();
        { rx::Program drop = std::move(p); }
        state.ResumeTiming();
    }
    state.counters["ops"] = static_cast<double>(ops);
    state.counters["heap_B_per_op"] = static_cast<double>(kept) / static_cast<double>(ops);
    state.counters["peak_B_per_op"] = static_cast<double>(peak) / static_cast<double>(ops);
    state.counters["text_B_per_op"] = static_cast<double>(text.size()) / static_cast<double>(ops);
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(text.size()));
}

// One op with `range(0)` results (split-like), then a user of its last result: the reader
// must stay linear in results per op (a pairwise duplicate check took 4.5 s at 50k).
void BM_ParseWideOp(benchmark::State& state) {
    const auto n = static_cast<size_t>(state.range(0));
    std::string results, types;
    for (size_t i = 0; i < n; ++i) {
        if (i) {
            results += ", ";
            types += ", ";
        }
        results += "%" + std::to_string(i);
        types += "builtin.tensor<4xf32>";
    }
    const std::string text = "{\n    (" + results + ") = \"pd_op.split\" () {} : () -> " + types + "\n}\n";
    for (auto _ : state) {
        rx::Program p = rx::parsePir(text, "wide.pir");
        benchmark::DoNotOptimize(p.values().data());
    }
    state.counters["results"] = static_cast<double>(n);
}

// A 160-byte file naming %67108863: peak heap while reading must not follow the number.
void BM_ParseHugeValueNumber(benchmark::State& state) {
    const std::string text =
        "{\n    (%67108863) = \"pd_op.data\" () {} : () -> builtin.tensor<4xf32>\n"
        "    (%1) = \"pd_op.relu\" (%67108863) {} : (builtin.tensor<4xf32>) -> builtin.tensor<4xf32>\n}\n";
    int64_t peak = 0;
    for (auto _ : state) {
        const int64_t before = gLive.load();
        gPeak.store(before);
        {
            rx::Program p = rx::parsePir(text, "huge.pir");
            benchmark::DoNotOptimize(p.values().data());
        }
        peak = gPeak.load() - before;
    }
    state.counters["text_B"] = static_cast<double>(text.size());
    state.counters["peak_B"] = static_cast<double>(peak);
}

void BM_PrintPir(benchmark::State& state) {
    const int n = static_cast<int>(state.range(0));
    const rx::Program p = rx::parsePir(programText(n), "generated.pir");
    size_t bytes = 0;
    for (auto _ : state) {
        std::string out = rx::printProgram(p);
        bytes = out.size();
        benchmark::DoNotOptimize(out.data());
    }
    state.counters["ops"] = static_cast<double>(p.globalBlock().ops.size());
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(bytes));
}

void BM_PrintPirRenumberG3(benchmark::State& state) {
    const int n = static_cast<int>(state.range(0));
    const rx::Program p = rx::parsePir(programText(n), "generated.pir");
    rx::WriteOptions o;
    o.generation = rx::Generation::G3;
    o.renumber = true;
    for (auto _ : state) {
        std::string out = rx::printProgram(p, o);
        benchmark::DoNotOptimize(out.data());
    }
}

}  // namespace

BENCHMARK(BM_ParsePir)->Arg(10000)->Arg(100000)->Arg(300000)->Unit(benchmark::kMillisecond)->MinTime(0.5);
BENCHMARK(BM_ParseWideOp)->Arg(5000)->Arg(50000)->Arg(500000)->Unit(benchmark::kMillisecond)->MinTime(0.2);
BENCHMARK(BM_ParseHugeValueNumber)->Unit(benchmark::kMicrosecond)->MinTime(0.1);
BENCHMARK(BM_PrintPir)->Arg(10000)->Arg(100000)->Arg(300000)->Unit(benchmark::kMillisecond)->MinTime(0.5);
BENCHMARK(BM_PrintPirRenumberG3)->Arg(100000)->Unit(benchmark::kMillisecond)->MinTime(0.5);

BENCHMARK_MAIN();
