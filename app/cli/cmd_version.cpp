#include <iostream>

#include "app/cli/Command.h"

namespace {
int runVersion(const rx::cli::Arguments&) {
    std::cout << "recompute-cli 0.1\n";
    return 0;
}
rx::cli::RegisterCommand reg({"version", "version", {}, &runVersion});
}  // namespace
