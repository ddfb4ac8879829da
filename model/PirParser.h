#pragma once
// Parser for Paddle PIR text in every printer generation (G0-G3, docs/FORMATS.md), laid out
// like MLIR's AsmParser: a lexer (PirLexer.h), then file / program / block / operation /
// type / attribute parsers, each under the grammar production it reads.
#include <functional>
#include <string>
#include <string_view>

#include "model/Program.h"

namespace rx::pir {

// One program of a file, with where it starts and its pass-log banner.
struct ParsedProgram {
    Program program;
    int line = 1;       // 1-based line of its first byte
    std::string title;  // "IRPrinting ... after X pass", or "program N"
};

// Parses the programs of `text` in order (pass logs hold one per pass) and hands each to
// `onProgram(index, parsed)`. Malformed input throws rx::Error "file:line:col: expected X,
// found Y" at its first bad byte; text without any program is an error too.
void parsePrograms(std::string_view text, const std::string& file,
                   const std::function<void(int index, ParsedProgram&& parsed)>& onProgram);

// Printer generation told by the cheapest marks of the text (printers left no other).
Generation detectGeneration(std::string_view text);

}  // namespace rx::pir
