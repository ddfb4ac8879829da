#pragma once
// Reader for Paddle PIR text as every printer generation wrote it (G0-G3, docs/FORMATS.md):
// files, pass logs and fragments in; the grammar itself is in PirLexer.h / PirParser.h (one
// pass over the bytes, names looked up as views into the text). Malformed input throws
// rx::Error "file:line:col: expected X, found Y" and yields no partial program.
#include <string>
#include <string_view>
#include <vector>

#include "model/Diagnostic.h"
#include "model/Program.h"

namespace rx {

struct ReadOptions {
    int programIndex = -1;  // which program of a multi-program file (pass log); -1 = the last
};

// One program found in a file (pass logs hold one per pass).
struct ProgramListing {
    int index;
    int line;           // 1-based line where the program starts
    std::string title;  // banner text ("IRPrinting on builtin.module after X pass") or "program N"
    size_t opCount;     // ops of its global block
};

std::vector<ProgramListing> listPrograms(std::string_view text, const std::string& fileName);
Program parsePir(std::string_view text, const std::string& fileName, const ReadOptions& = {});
Program readPirFile(const std::string& path, const ReadOptions& = {});  // throws rx::Error
// PIR text or Paddle's PIR JSON, chosen by content.
Program loadProgram(const std::string& path, const ReadOptions& = {});

// Helpers shared with the writer and JSON reader.
std::string readTextFile(const std::string& path);  // throws rx::Error if unreadable
std::string_view defaultTensorSpelling(Generation g);  // "pd_op.tensor", "builtin.tensor", "tensor"

}  // namespace rx
