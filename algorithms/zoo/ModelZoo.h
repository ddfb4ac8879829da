#pragma once
// The model zoo: joint forward+backward training programs of any size, built with the IR
// API in the op vocabulary Paddle prints after `decompose` and `ir_grad` (prim mode), or
// with composite ops and their `*_grad` ops. The backward is the true gradient of the
// forward (each op's VJP is written out), the gradient seed (`pd_op.full` of ones) sits
// between forward and backward, parameters are `builtin.parameter`, the input `pd_op.data`,
// and the loss plus every parameter gradient are fetched. Deterministic for equal options.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "model/Program.h"
#include "model/RecomputeSpec.h"

namespace rx::zoo {

struct ZooOptions {
    std::string model = "transformer";   // mlp | transformer | llama | conv | lstm | gru
    int layers = 2;                      // lstm, gru: stacked cells
    int64_t hidden = 64;                 // conv: channels; lstm, gru: input and hidden size
    int64_t heads = 4;
    int64_t seq = 16;                    // conv: image height and width; lstm, gru: time steps unrolled
    int64_t batch = 2;
    int64_t ffn = 0;                     // 0: 4*hidden (llama: 8/3*hidden rounded up to 8)
    DType dtype = DType::Float32;
    bool composite = false;              // composite ops + *_grad ops instead of primitives
    double dropout = 0.1;                // transformer/mlp dropout probability, lstm/gru between layers (0: none)
    Generation generation = Generation::G2;
    // Adds a pd_op.if and a pd_op.while (and their backward as Paddle builds it, with cf
    // stacks) on the hidden state before the loss head.
    bool controlFlow = false;
    int loopSteps = 3;                   // iterations of the while
};

struct GeneratedProgram {
    std::shared_ptr<Program> program;
    RecomputeSpec spec;
    std::vector<ValueId> parameters;     // builtin.parameter values (gradients are fetched)
    std::vector<ValueId> parameterGrads; // same order
    ValueId loss = kNoId;
};

std::vector<std::string> zooModels();
// Throws rx::Error for an unknown model or inconsistent sizes (hidden % heads, ...).
GeneratedProgram generateModel(const ZooOptions& options);

// The spec as docs/FORMATS.md's JSON (value names of the generated program).
std::string specJson(const GeneratedProgram& g);

}  // namespace rx::zoo
