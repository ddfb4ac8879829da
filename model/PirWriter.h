#pragma once
// Writer for PIR text in any printer generation (docs/FORMATS.md). Unmodified programs print
// back as they were read (value names, attribute spellings, op syntax); ops made by passes
// print in the target generation's default form.
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "model/Program.h"

namespace rx {

struct WriteOptions {
    std::optional<Generation> generation;  // default: the generation the program was read in
    bool renumber = false;                 // rename values %0, %1 ... in print order (%arg_N for block args)
};

// Where printed text goes, in pieces of about kPrintChunkBytes (never split inside an op
// line): a file (AtomicFile::write), a socket, a hash.
using TextSink = std::function<void(std::string_view)>;
inline constexpr size_t kPrintChunkBytes = size_t(1) << 20;

// Streams the program to `sink`: memory stays one chunk however large the program.
void printProgram(const Program&, const TextSink& sink, const WriteOptions& = {});
// The whole text as one string (views, tests, small programs).
std::string printProgram(const Program&, const WriteOptions& = {});
// Streams into model/FileIO's AtomicFile: the file appears complete or not at all.
void writeProgramFile(const Program&, const std::string& path, const WriteOptions& = {});  // throws rx::Error

// Pieces, for views that show one op or type at a time.
std::string printType(const Program&, TypeId, Generation);
std::string printAttribute(const Attribute&, Generation);

}  // namespace rx
