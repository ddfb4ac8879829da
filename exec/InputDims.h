// Binding the dynamic dims (-1) of a program's inputs to sizes, so that a run can make them.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "model/Program.h"

namespace rx::exec {

// One input's dims as a user gives them: "NAME=D0xD1x..." (a scalar: "NAME=").
struct InputDims {
    std::string name;
    std::vector<int64_t> dims;
};

// Throws rx::Error naming `option` (none where empty) and what was expected.
InputDims parseInputDims(std::string_view text, std::string_view option = "--input-dims");

// The inputs of the global block (data, feed, parameter ops) whose declared type has a
// dynamic dim, by name, with their declared dims.
std::vector<InputDims> dynamicInputs(const Program& program);

// Gives each named input the dims given for it: the same rank as declared, and every dim
// declared fixed the same (a dynamic one any size from 1). Throws rx::Error naming the input
// (and, for a name no input has, the inputs there are). The ops reading them keep their
// declared types: the executors take sizes from their operands.
void bindInputDims(Program& program, const std::vector<InputDims>& given);

}  // namespace rx::exec
