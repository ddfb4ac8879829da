// recompute-cli generate MODEL [--layers N --hidden H --heads A --seq S --batch B --ffn F
//   --dtype f32|f16|bf16|f64 --dropout P --composite|--prim --generation G1|G2|G3] -o PROGRAM.pir
// Writes a joint forward+backward training program of the model zoo and PROGRAM.spec.json.
#include <chrono>
#include <iostream>

#include "algorithms/zoo/ModelZoo.h"
#include "app/cli/Command.h"
#include "model/Diagnostic.h"
#include "model/PirWriter.h"
#include "model/RecomputeSpec.h"

namespace {

using namespace rx;

int runGenerate(const cli::Arguments& args) {
    if (args.positional.size() != 1)
        throw Error("usage: recompute-cli generate MODEL [options] -o PROGRAM.pir (models: mlp, transformer, llama, conv)");
    zoo::ZooOptions o;
    o.model = args.positional[0];
    o.layers = static_cast<int>(args.integer("--layers", o.layers));
    o.hidden = args.integer("--hidden", o.hidden);
    o.heads = args.integer("--heads", o.heads);
    o.seq = args.integer("--seq", o.seq);
    o.batch = args.integer("--batch", o.batch);
    o.ffn = args.integer("--ffn", o.ffn);
    if (auto d = args.option("--dtype")) {
        auto t = parseDTypeShort(*d);
        if (!t) t = parseDTypeLong(*d);
        if (!t) throw Error("--dtype expects f32, f16, bf16 or f64, found '" + *d + "'");
        o.dtype = *t;
    }
    o.dropout = args.number("--dropout", o.dropout, 0.0);
    if (args.has("--composite") && args.has("--prim")) throw Error("--composite and --prim exclude each other");
    o.composite = args.has("--composite");
    if (auto g = args.option("--generation")) {
        auto gen = parseGenerationName(*g);
        if (!gen || *gen == Generation::G0) throw Error("--generation expects G1, G2 or G3, found '" + *g + "'");
        o.generation = *gen;
    }
    auto out = args.option("-o");
    if (!out) out = args.option("--output");
    if (!out) throw Error("generate needs -o PROGRAM.pir");

    auto t0 = std::chrono::steady_clock::now();
    zoo::GeneratedProgram g = zoo::generateModel(o);
    auto t1 = std::chrono::steady_clock::now();
    writeProgramFile(*g.program, *out);
    const std::string specPath = specPathBeside(*out);
    writeSpecFile(g.spec, *g.program, specPath);
    auto t2 = std::chrono::steady_clock::now();
    auto ms = [](auto a, auto b) { return std::chrono::duration<double, std::milli>(b - a).count(); };
    std::cout << "generated " << o.model << ": " << g.program->globalBlock().ops.size() << " ops, "
              << g.parameters.size() << " parameters, forward ends at op " << g.spec.fwdOpEndIdx
              << ", backward starts at op " << g.spec.backwardOpStartIdx << "\n"
              << "wrote " << *out << " and " << specPath << " (generate " << ms(t0, t1) << " ms, write " << ms(t1, t2) << " ms)\n";
    return 0;
}

rx::cli::RegisterCommand reg({"generate",
                              "generate MODEL [--layers N --hidden H --heads A --seq S --batch B --ffn F --dtype f32|f16|bf16|f64 "
                              "--dropout P --composite|--prim --generation G1|G2|G3] -o PROGRAM.pir",
                              {"--layers", "--hidden", "--heads", "--seq", "--batch", "--ffn", "--dtype", "--dropout",
                               "--generation", "-o", "--output"},
                              &runGenerate});
}  // namespace
