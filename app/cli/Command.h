#pragma once
// The CLI is a set of subcommands; each lives in its own cmd_*.cpp and registers itself
// with a static RegisterCommand, so adding a command touches no shared file.
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace rx::cli {

// Parsed arguments: positionals in order, "--key value" options, "--flag" switches.
// Which options take a value is declared by the command (valueOptions).
struct Arguments {
    std::vector<std::string> positional;
    std::map<std::string, std::string> options;  // "--spec" -> "file"
    std::vector<std::string> flags;              // "--json"

    bool has(const std::string& flag) const;
    std::optional<std::string> option(const std::string& key) const;
    // Numeric options: `fallback` when absent; rx::Error naming the option when the value is
    // not a whole number / number, or below `minimum`.
    int64_t integer(const std::string& key, int64_t fallback,
                    int64_t minimum = std::numeric_limits<int64_t>::min()) const;
    double number(const std::string& key, double fallback,
                  double minimum = -std::numeric_limits<double>::infinity()) const;
};

struct Command {
    std::string name;
    std::string usage;                       // one line: "inspect PROGRAM [--json]"
    std::vector<std::string> valueOptions;   // options that take a value, e.g. {"--spec"}
    int (*run)(const Arguments& args) = nullptr;  // exit code; throw rx::Error on bad input
};

std::vector<Command>& commandRegistry();

struct RegisterCommand {
    explicit RegisterCommand(Command c) { commandRegistry().push_back(std::move(c)); }
};

}  // namespace rx::cli
