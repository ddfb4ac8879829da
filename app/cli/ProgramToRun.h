// Loading a program to run it (verify, profile, cuda-profile): the reader's warnings, the
// inputs' dims from --input-dims, and an input left dynamic refused before any work.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "app/cli/Command.h"
#include "exec/InputDims.h"
#include "exec/OpSemantics.h"
#include "model/PirReader.h"

namespace rx::cli {

// --input-dims NAME=DIMS, repeatable; a malformed one is a command-line error (exit 2).
inline CLI::Option* addInputDimsOption(CLI::App& app, std::vector<std::string>& into) {
    return app
        .add_option("--input-dims", into,
                    "an input's dims where the program declares some dynamic (-1), NAME=D0xD1... (e.g. x=4x30); repeatable")
        ->check(CLI::Validator(
            [](std::string& text) -> std::string {
                try {
                    exec::parseInputDims(text, "");  // CLI11 names the option
                } catch (const Error& e) {
                    return e.what();
                }
                return {};
            },
            "NAME=DIMS", "input dims"));
}

inline std::shared_ptr<Program> loadProgramToRun(const std::string& path, const std::vector<std::string>& inputDims) {
    auto program = std::make_shared<Program>(loadProgram(path));
    printReaderWarnings(path, *program);
    std::vector<exec::InputDims> given;
    for (const std::string& text : inputDims) given.push_back(exec::parseInputDims(text));
    namingFile(path, [&] { exec::bindInputDims(*program, given); });
    // A run makes every input from its declared dims: one left dynamic would fail there, after
    // the solve; said here, with the option that binds it.
    if (const std::vector<exec::InputDims> dynamic = exec::dynamicInputs(*program); !dynamic.empty()) {
        const exec::InputDims& first = dynamic.front();
        std::string example;
        for (int64_t d : first.dims) example += (example.empty() ? "" : "x") + std::to_string(d < 0 ? 1 : d);
        std::string more;
        for (size_t i = 1; i < dynamic.size(); ++i) more += (more.empty() ? "" : ", ") + dynamic[i].name;
        throw Error(path + ": input " + first.name + " has a dynamic shape " + exec::dimsString(first.dims) +
                    ": give its dims with --input-dims " + first.name + "=" + example + " (any size from 1 where it is -1)" +
                    (more.empty() ? std::string() : "; dynamic too: " + more));
    }
    return program;
}

}  // namespace rx::cli
