// A command in the earlier RegisterCommand({name, usage, valueOptions, run}) style, built
// into a probe executable with the CLI's main.cpp: such commands (profile, pareto on other
// branches) must keep working unchanged on CLI11.
#include <iostream>

#include "app/cli/Command.h"
#include "model/Diagnostic.h"

namespace {

int runLegacy(const rx::cli::Arguments& args) {
    for (const auto& p : args.positional) std::cout << "positional " << p << "\n";
    for (const auto& [k, v] : args.options) std::cout << "option " << k << "=" << v << "\n";
    for (const auto& f : args.flags) std::cout << "flag " << f << "\n";
    std::cout << "number " << args.integer("--n", 7, 0) << "\n";
    return args.has("--fail") ? 4 : 0;
}

rx::cli::RegisterCommand reg({"legacy", "legacy POS [--spec F] [--n N] [--flag]", {"--spec", "--n"}, &runLegacy});

}  // namespace
