#pragma once
// The recompute spec: where the forward ends and the backward begins, and which values are
// the forward's inputs, outputs and the backward's incoming gradients (Paddle's
// auto_recompute arguments). Read from PROGRAM.spec.json (docs/FORMATS.md) or detected the
// way Paddle's training entry point does it.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/Program.h"

namespace rx {

struct RecomputeSpec {
    int fwdOpEndIdx = -1;          // index in the global block of the forward's last op
    int backwardOpStartIdx = -1;   // index of the backward's first op
    std::vector<ValueId> inputs, outputs, gradOutputs;
    bool detected = false;         // true: made by detectSpec, not read from a file
    std::vector<std::string> notes;  // what detection found or assumed, for the user
};

// Reads a spec; value names are those of the program's file. Throws rx::Error naming
// unknown values, bad indices or malformed JSON.
RecomputeSpec readSpecFile(const std::string& path, const Program&);
RecomputeSpec parseSpecJson(std::string_view json, const Program&, const std::string& fileName);
std::string specToJson(const RecomputeSpec&, const Program&);
void writeSpecFile(const RecomputeSpec&, const Program&, const std::string& path);

// FORMATS.md: inputs = results of pd_op.data / builtin.parameter; outputs = operands of
// pd_op.fetch; fwd_op_end_idx = highest index of an op defining an output (or the last op
// with op_role 0 where op_role attributes exist); backward starts right after.
RecomputeSpec detectSpec(const Program&);

// "x.pir" -> "x.spec.json" in the same folder, whether or not it exists.
std::string specPathBeside(const std::string& programPath);
// specPathBeside(programPath), if that file exists.
std::optional<std::string> specPathFor(const std::string& programPath);

// The spec a command or the explorer works with: the given spec file, else PROGRAM.spec.json
// beside the program, else detection. `source` is the file read, empty when detected.
struct ResolvedSpec {
    RecomputeSpec spec;
    std::string source;
};
ResolvedSpec resolveSpec(const Program&, const std::string& programPath,
                         const std::optional<std::string>& specFile = std::nullopt);

}  // namespace rx
