// recompute-cli: dispatches to the registered subcommands (cmd_*.cpp).
#include <algorithm>
#include <cstdio>
#include <exception>
#include <iostream>
#include <limits>
#include <sstream>

#include <malloc.h>

#include "app/cli/Command.h"
#include "model/Diagnostic.h"

namespace rx::cli {

std::vector<Command>& commandRegistry() {
    static std::vector<Command> commands;
    return commands;
}

bool Arguments::has(const std::string& flag) const {
    return std::find(flags.begin(), flags.end(), flag) != flags.end();
}

std::optional<std::string> Arguments::option(const std::string& key) const {
    auto it = options.find(key);
    if (it == options.end()) return std::nullopt;
    return it->second;
}

namespace {
std::string lowerBound(double minimum) {
    if (minimum == -std::numeric_limits<double>::infinity() ||
        minimum == double(std::numeric_limits<int64_t>::min()))
        return "";
    std::ostringstream out;
    out << " >= " << minimum;
    return out.str();
}
}  // namespace

int64_t Arguments::integer(const std::string& key, int64_t fallback, int64_t minimum) const {
    const auto value = option(key);
    if (!value) return fallback;
    try {
        size_t used = 0;
        const long long n = std::stoll(*value, &used);
        if (used == value->size() && n >= minimum) return n;
    } catch (const std::exception&) {
    }
    throw rx::Error(key + " expects an integer" + lowerBound(double(minimum)) + ", found '" + *value + "'");
}

double Arguments::number(const std::string& key, double fallback, double minimum) const {
    const auto value = option(key);
    if (!value) return fallback;
    try {
        size_t used = 0;
        const double d = std::stod(*value, &used);
        if (used == value->size() && d >= minimum) return d;
    } catch (const std::exception&) {
    }
    throw rx::Error(key + " expects a number" + lowerBound(minimum) + ", found '" + *value + "'");
}

}  // namespace rx::cli

namespace {

void printUsage(std::ostream& out) {
    auto commands = rx::cli::commandRegistry();
    std::sort(commands.begin(), commands.end(), [](auto& a, auto& b) { return a.name < b.name; });
    out << "usage: recompute-cli COMMAND [ARGS...]\n\ncommands:\n";
    for (const auto& c : commands) out << "  " << c.usage << "\n";
}

}  // namespace

int main(int argc, char** argv) {
    using namespace rx::cli;
    // A solve allocates and frees many mid-sized arrays; glibc's default of returning them to
    // the kernel (mmap/trim) makes page faults dominate the run (bench_solve: ~4x wall time).
    mallopt(M_MMAP_MAX, 0);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
    if (argc < 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h") {
        printUsage(argc < 2 ? std::cerr : std::cout);
        return argc < 2 ? 2 : 0;
    }
    const std::string name = argv[1];
    const auto& commands = commandRegistry();
    auto it = std::find_if(commands.begin(), commands.end(), [&](auto& c) { return c.name == name; });
    if (it == commands.end()) {
        std::cerr << "recompute-cli: unknown command '" << name << "'\n";
        printUsage(std::cerr);
        return 2;
    }
    Arguments args;
    for (int i = 2; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--help" || a == "-h") {
            std::cout << "usage: recompute-cli " << it->usage << "\n";
            return 0;
        }
        if (a.rfind("--", 0) == 0 || (a.size() == 2 && a[0] == '-' && std::isalpha(static_cast<unsigned char>(a[1])))) {
            if (auto eq = a.find('='); eq != std::string::npos) {
                args.options[a.substr(0, eq)] = a.substr(eq + 1);
                continue;
            }
            const bool takesValue = std::find(it->valueOptions.begin(), it->valueOptions.end(), a) != it->valueOptions.end();
            if (takesValue) {
                if (i + 1 >= argc) {
                    std::cerr << "recompute-cli " << name << ": option " << a << " needs a value\n";
                    return 2;
                }
                args.options[a] = argv[++i];
            } else {
                args.flags.push_back(a);
            }
        } else {
            args.positional.push_back(a);
        }
    }
    try {
        return it->run(args);
    } catch (const rx::Error& e) {
        std::cerr << e.what() << "\n";
        return 1;
    } catch (const std::exception& e) {
        std::cerr << "recompute-cli " << name << ": " << e.what() << "\n";
        return 1;
    }
}
