// recompute-cli generate MODEL [--layers N --hidden H --heads A --seq S --batch B --ffn F
//   --dtype f32|f16|bf16|f64 --dropout P --composite|--prim --generation G1|G2|G3
//   --control-flow [--loop-steps N]] -o PROGRAM.pir
// Writes a joint forward+backward training program of the model zoo and PROGRAM.spec.json.
#include <chrono>
#include <iostream>

#include "algorithms/zoo/ModelZoo.h"
#include "app/cli/Command.h"
#include "model/Diagnostic.h"
#include "model/FileIO.h"
#include "model/PirWriter.h"
#include "model/RecomputeSpec.h"

namespace {

using namespace rx;

struct GenerateArgs {
    zoo::ZooOptions zoo;
    std::string dtype, generation, out;
    bool composite = false, prim = false;
};

int runGenerate(GenerateArgs a) {
    zoo::ZooOptions& o = a.zoo;
    if (!a.dtype.empty()) {
        auto t = parseDTypeShort(a.dtype);
        if (!t) t = parseDTypeLong(a.dtype);
        if (!t) throw Error("--dtype expects f32, f16, bf16 or f64, found '" + a.dtype + "'");
        o.dtype = *t;
    }
    o.composite = a.composite;
    if (!a.generation.empty()) {
        auto gen = parseGenerationName(a.generation);
        if (!gen || *gen == Generation::G0) throw Error("--generation expects G1, G2 or G3, found '" + a.generation + "'");
        o.generation = *gen;
    }
    const std::string specPath = specPathBeside(a.out);
    checkOutputPaths({}, {{"-o", a.out}, {"its spec", specPath}});

    auto t0 = std::chrono::steady_clock::now();
    zoo::GeneratedProgram& g = cli::keepUntilExit(std::make_shared<zoo::GeneratedProgram>(zoo::generateModel(o)));
    auto t1 = std::chrono::steady_clock::now();
    // Both written to temporaries before either is renamed into place: a failure (full
    // disk) leaves the old pair as it was; the two renames are the only window.
    AtomicFile programFile(a.out), specFile(specPath);
    programFile.write(printProgram(*g.program));
    specFile.write(specToJson(g.spec, *g.program));
    commitAll({&programFile, &specFile});
    auto t2 = std::chrono::steady_clock::now();
    auto ms = [](auto x, auto y) { return std::chrono::duration<double, std::milli>(y - x).count(); };
    std::cout << "generated " << o.model << ": " << g.program->globalBlock().ops.size() << " ops, "
              << g.parameters.size() << " parameters, forward ends at op " << g.spec.fwdOpEndIdx
              << ", backward starts at op " << g.spec.backwardOpStartIdx << "\n"
              << "wrote " << a.out << " and " << specPath << " (generate " << ms(t0, t1) << " ms, write " << ms(t1, t2) << " ms)\n";
    return 0;
}

// Sizes past these overflowed (4 × hidden, shape products) into programs the reader refuses,
// and two billion layers ran out of memory: refused on the command line instead. A shape's
// elements stay below 2^50 (batch · seq · ffn), 20000 layers make ~5.6M ops.
constexpr int kMaxLayers = 20000;
constexpr int64_t kMaxSize = int64_t(1) << 16;

rx::cli::RegisterCommand reg("generate", "Write a joint forward+backward training program of the model zoo and its spec",
                             [](CLI::App& app) {
                                 auto a = std::make_shared<GenerateArgs>();
                                 zoo::ZooOptions& o = a->zoo;
                                 app.add_option("MODEL", o.model, "mlp, transformer, llama, conv, lstm or gru")->required();
                                 app.add_option("--layers", o.layers, "layers (lstm, gru: stacked cells)")->check(CLI::Range(0, kMaxLayers));
                                 app.add_option("--hidden", o.hidden, "hidden size")->check(CLI::Range(int64_t(0), kMaxSize));
                                 app.add_option("--heads", o.heads, "attention heads")->check(CLI::Range(int64_t(0), kMaxSize));
                                 app.add_option("--seq", o.seq, "sequence length (conv: image side; lstm, gru: time steps unrolled)")->check(CLI::Range(int64_t(0), kMaxSize));
                                 app.add_option("--batch", o.batch, "batch size")->check(CLI::Range(int64_t(0), kMaxSize));
                                 app.add_option("--ffn", o.ffn, "feed-forward size")->check(CLI::Range(int64_t(0), 4 * kMaxSize));
                                 app.add_option("--dtype", a->dtype, "f32, f16, bf16 or f64");
                                 app.add_option("--dropout", o.dropout, "dropout probability")->check(cli::finiteIn(0.0, 1.0));
                                 auto* composite = app.add_flag("--composite", a->composite, "composite ops (default: primitive)");
                                 auto* prim = app.add_flag("--prim", a->prim, "primitive ops (the default)");
                                 composite->excludes(prim);
                                 app.add_option("--generation", a->generation, "printer generation: G1, G2 or G3");
                                 app.add_flag("--control-flow", o.controlFlow,
                                              "add a pd_op.if and a pd_op.while before the loss head, with their backward as "
                                              "Paddle builds it (cf stacks)");
                                 app.add_option("--loop-steps", o.loopSteps, "iterations of --control-flow's while (default 3)")
                                     ->check(CLI::Range(0, 1000000));
                                 app.add_option("-o,--output", a->out, "PROGRAM.pir to write (PROGRAM.spec.json beside it)")
                                     ->required();
                                 return [a] { return runGenerate(*a); };
                             });
}  // namespace
