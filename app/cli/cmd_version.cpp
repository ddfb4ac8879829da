// recompute-cli version: the tool's version.
#include <iostream>

#include "app/cli/Command.h"

namespace {
rx::cli::RegisterCommand reg("version", "Print the version", [](CLI::App&) {
    return [] {
        std::cout << "recompute-cli 0.1\n";
        return 0;
    };
});
}  // namespace
