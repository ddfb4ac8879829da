#pragma once
// The CLI is a set of subcommands on CLI11 (help, validation, `--key=value`); each lives in
// its own cmd_*.cpp and registers itself, so adding a command touches no shared file.
//
// How a command registers: a static RegisterCommand with the command's name, a one-line
// description and a function that declares the CLI11 subcommand's positionals and options
// (bound to storage it owns) and returns what runs after a successful parse:
//
//   namespace {
//   struct InspectArgs { std::string program; bool json = false; };
//   int runInspect(const InspectArgs& a);  // exit code; throws rx::Error on bad input
//   rx::cli::RegisterCommand reg("inspect", "What is in a program", [](CLI::App& app) {
//       auto a = std::make_shared<InspectArgs>();
//       app.add_option("PROGRAM", a->program, "PIR text or JSON")->required();
//       app.add_flag("--json", a->json, "one JSON object on stdout");
//       return [a] { return runInspect(*a); };
//   });
//   }  // namespace
//
// Exit codes: 0 success; 1 bad input or a failed run (rx::Error text on stderr, already
// "file:line:col: message" where a position applies); 2 bad command line (CLI11's message);
// a command may return others (verify: 3 = programs differ).
#include <CLI/CLI.hpp>

#include "model/Diagnostic.h"
#include "model/Program.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace rx::cli {

using Runner = std::function<int()>;
using Definer = std::function<Runner(CLI::App&)>;

struct CommandDefinition {
    std::string name;
    std::string description;
    Definer define;
};

std::vector<CommandDefinition>& commandRegistry();

struct RegisterCommand {
    RegisterCommand(std::string name, std::string description, Definer define) {
        commandRegistry().push_back({std::move(name), std::move(description), std::move(define)});
    }
};

// For options that name a file or a value: `--report ""` is a mistake (an unset variable in a
// script), not "no report", so it is refused (exit 2) rather than run doing nothing.
inline const CLI::Validator kNonEmpty(
    [](std::string& value) { return value.empty() ? std::string("expects a value, found an empty string") : std::string(); },
    "NONEMPTY", "non-empty");

// For a floating-point option: a finite number in [lo, hi]. CLI11's Range and
// NonNegativeNumber let NaN through (every comparison with it is false: `--exact-seconds nan`
// ran without a time limit) and print an unbounded range as 309 digits.
inline std::string formatBound(double x) {
    char text[32];
    std::snprintf(text, sizeof text, "%g", x);
    return text;
}
inline CLI::Validator finiteIn(double lo, double hi) {
    return CLI::Validator(
        [lo, hi](std::string& text) -> std::string {
            double value = 0;
            if (!CLI::detail::lexical_cast(text, value)) return "expects a number, found '" + text + "'";
            if (!std::isfinite(value)) return "expects a finite number, found '" + text + "'";
            if (value < lo || value > hi) {
                if (hi == std::numeric_limits<double>::max()) return "expects a number of at least " + formatBound(lo) + ", found '" + text + "'";
                return "expects a number in [" + formatBound(lo) + ", " + formatBound(hi) + "], found '" + text + "'";
            }
            return {};
        },
        "FLOAT in [" + formatBound(lo) + " - " + (hi == std::numeric_limits<double>::max() ? std::string("inf") : formatBound(hi)) + "]",
        "finite range");
}
inline CLI::Validator finiteNonNegative() { return finiteIn(0.0, std::numeric_limits<double>::max()); }

// The reader's warnings (a fragment, undefined values, ops without types) on stderr as
// "PATH: warning: ...": a command that plans or runs a program says what it guessed.
inline void printReaderWarnings(const std::string& path, const Program& program) {
    for (const auto& warning : program.warnings()) std::cerr << path << ": warning: " << warning << "\n";
}

// Runs `work`; an rx::Error it throws is thrown again naming `path` first ("PATH: ..."): for
// the library's errors about a program that name its op or field but not its file.
template <class Work>
decltype(auto) namingFile(const std::string& path, Work&& work) {
    try {
        return work();
    } catch (const Error& e) {
        throw Error(path + ": " + e.what());
    }
}

// Keeps `object` alive until the process ends: recompute-cli exits without running
// destructors (a big program's millions of blocks take longer to free than to solve), so
// commands hand their large state here instead of letting it be torn down at return.
template <class T>
T& keepUntilExit(std::shared_ptr<T> object) {
    static auto* kept = new std::vector<std::shared_ptr<void>>();  // never freed, by design
    kept->push_back(object);
    return *object;
}

// The process's command line as main() received it (argv, null-terminated).
std::vector<char*>& processArguments();

// In the CUDA-free recompute-cli: runs this same command line in recompute-cli-cuda, the CUDA
// build of the same commands beside this binary, and does not return; returns when there is
// none (and always in the CUDA build itself). Only CUDA runs pay for loading the CUDA
// libraries (0.3 s and 180 MB at every start when they were linked into recompute-cli).
void delegateToCudaBuild();

}  // namespace rx::cli
