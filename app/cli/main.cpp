// recompute-cli: the registered subcommands (cmd_*.cpp) on one CLI11 app.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <iostream>
#include <limits>
#include <sstream>

#include <unistd.h>

#include "app/cli/Command.h"
#include "app/cli/WarmUp.h"
#include "model/Diagnostic.h"

namespace rx::cli {

std::vector<CommandDefinition>& commandRegistry() {
    static std::vector<CommandDefinition> commands;
    return commands;
}

std::vector<char*>& processArguments() {
    static std::vector<char*> arguments;
    return arguments;
}

void delegateToCudaBuild() {
#ifndef RX_HAVE_CUDA
    std::error_code ec;
    const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (ec) return;
    const std::filesystem::path cudaBuild = self.parent_path() / "recompute-cli-cuda";
    if (::access(cudaBuild.c_str(), X_OK) != 0 || processArguments().empty()) return;
    std::cout.flush();
    std::cerr.flush();
    ::execv(cudaBuild.c_str(), processArguments().data());  // returns only on failure: say why below
#endif
}

}  // namespace rx::cli

namespace {

// Ends the process without destructors or atexit handlers: outputs are committed by then
// and the kept state (keepUntilExit) needs no freeing.
[[noreturn]] void finish(int code) {
    std::cout.flush();
    std::cerr.flush();
    std::fflush(nullptr);
    ::_exit(code);
}

}  // namespace

int main(int argc, char** argv) {
    using namespace rx::cli;
    processArguments().assign(argv, argv + argc);
    processArguments().push_back(nullptr);
    configureHeapForLargeRuns();

    auto& commands = commandRegistry();
    std::sort(commands.begin(), commands.end(), [](auto& a, auto& b) { return a.name < b.name; });
    CLI::App app("Recompute Explorer's command line: inspect, convert, solve, verify and generate PaddlePaddle PIR "
                 "programs.",
                 "recompute-cli");
    app.require_subcommand(1);
    app.set_help_all_flag("--help-all", "Every command's options");
    std::vector<std::pair<CLI::App*, Runner>> runners;
    for (const auto& c : commands) {
        CLI::App* sub = app.add_subcommand(c.name, c.description);
        runners.emplace_back(sub, c.define(*sub));
    }
    // A first word that names no command: say so in the words users know.
    if (argc >= 2 && argv[1][0] != '-' &&
        std::none_of(commands.begin(), commands.end(), [&](auto& c) { return c.name == argv[1]; })) {
        std::cerr << "recompute-cli: unknown command '" << argv[1] << "'\n" << app.help();
        finish(2);
    }
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        finish(app.exit(e));
    } catch (const CLI::CallForAllHelp& e) {
        finish(app.exit(e));
    } catch (const CLI::ParseError& e) {
        app.exit(e);  // prints CLI11's message and the hint to run --help
        finish(2);
    }
    for (auto& [sub, run] : runners) {
        if (!sub->parsed()) continue;
        try {
            finish(run());
        } catch (const CLI::ParseError& e) {  // a legacy command's argument error
            std::cerr << "recompute-cli " << sub->get_name() << ": " << e.what() << "\n";
            finish(2);
        } catch (const rx::Error& e) {
            std::cerr << e.what() << "\n";
            finish(1);
        } catch (const std::exception& e) {
            std::cerr << "recompute-cli " << sub->get_name() << ": " << e.what() << "\n";
            finish(1);
        }
    }
    finish(2);
}
