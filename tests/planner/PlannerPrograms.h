// Programs the planner tests share: the corpus's torch-joint programs with their specs and small generated models.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "algorithms/zoo/ModelZoo.h"
#include "model/PirReader.h"
#include "model/Program.h"
#include "model/RecomputeSpec.h"

namespace rx::test {

struct PlannerProgram {
    std::shared_ptr<const Program> program;
    RecomputeSpec spec;
};

// A torch-joint program of the corpus by name ("transformer_layer.prim"), its spec from the
// spec.json beside it.
inline PlannerProgram torchJointProgram(const std::string& name) {
    const std::string path = std::string(RX_SHARED_DIR) + "/corpus/torch-joint/" + name + ".pir";
    auto program = std::make_shared<Program>(loadProgram(path));
    RecomputeSpec spec = resolveSpec(*program, path, std::nullopt).spec;
    return {std::move(program), std::move(spec)};
}

// A zoo model small enough for exhaustive checks: hidden 32, 2 heads, sequence 8, batch 2.
inline zoo::GeneratedProgram smallTransformer(int layers, const std::string& model = "transformer") {
    zoo::ZooOptions o;
    o.model = model;
    o.layers = layers;
    o.hidden = 32;
    o.heads = 2;
    o.seq = 8;
    o.batch = 2;
    return zoo::generateModel(o);
}

// A name with a dot names a torch-joint program, any other a 2-layer small zoo model.
inline PlannerProgram plannerProgram(const std::string& name) {
    if (name.find('.') != std::string::npos) return torchJointProgram(name);
    const zoo::GeneratedProgram g = smallTransformer(2, name);
    return {g.program, g.spec};
}

}  // namespace rx::test
