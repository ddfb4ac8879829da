#pragma once
// Writer for PIR text in any printer generation (docs/FORMATS.md). Unmodified programs print
// back as they were read (value names, attribute spellings, op syntax); ops made by passes
// print in the target generation's default form.
#include <optional>
#include <string>

#include "model/Program.h"

namespace rx {

struct WriteOptions {
    std::optional<Generation> generation;  // default: the generation the program was read in
    bool renumber = false;                 // rename values %0, %1 ... in print order (%arg_N for block args)
};

std::string printProgram(const Program&, const WriteOptions& = {});
void writeProgramFile(const Program&, const std::string& path, const WriteOptions& = {});  // throws rx::Error

// Pieces, for views that show one op or type at a time.
std::string printType(const Program&, TypeId, Generation);
std::string printAttribute(const Attribute&, Generation);

}  // namespace rx
