// Budget strings (bytes with units, or fractions) and human-readable figures.
#include "algorithms/planner/Budget.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <limits>

#include "model/Diagnostic.h"

namespace rx::planner {

BudgetSpec parseBudget(std::string_view given, const std::string& what) {
    auto fail = [&]() -> BudgetSpec {
        throw Error(what + " expects bytes (512MiB, 2GB, 1048576) or a fraction 0.0-1.0, found '" +
                    std::string(given) + "'");
    };
    // Spaces around the figure are a shell's or a dialog's, not the figure's (both ends alike).
    std::string_view text = given;
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
    size_t i = 0;
    while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.' ||
                               ((text[i] == 'e' || text[i] == 'E') && i > 0 && i + 1 < text.size() &&
                                (std::isdigit(static_cast<unsigned char>(text[i + 1])) || text[i + 1] == '-'))))
        ++i;
    const std::string number(text.substr(0, i));
    std::string unit(text.substr(i));
    while (!unit.empty() && unit.front() == ' ') unit.erase(unit.begin());
    if (number.empty()) return fail();
    double value = 0;
    try {
        size_t used = 0;
        value = std::stod(number, &used);
        if (used != number.size()) return fail();
    } catch (const std::exception&) {
        return fail();
    }
    if (!std::isfinite(value) || value < 0) return fail();
    const bool integral = number.find_first_of(".eE") == std::string::npos;
    BudgetSpec spec;
    if (unit.empty() && !integral) {
        if (value > 1) throw Error(what + ": a fraction must lie in 0.0-1.0 (bytes are whole numbers), found '" +
                                   std::string(text) + "'");
        spec.isFraction = true;
        spec.fraction = value;
        return spec;
    }
    double scale = 1;
    std::string u;
    for (char c : unit) u += char(std::tolower(static_cast<unsigned char>(c)));
    if (u.empty() || u == "b") scale = 1;
    else if (u == "kb" || u == "k") scale = 1e3;
    else if (u == "mb" || u == "m") scale = 1e6;
    else if (u == "gb" || u == "g") scale = 1e9;
    else if (u == "tb" || u == "t") scale = 1e12;
    else if (u == "kib") scale = 1024.0;
    else if (u == "mib") scale = 1024.0 * 1024;
    else if (u == "gib") scale = 1024.0 * 1024 * 1024;
    else if (u == "tib") scale = 1024.0 * 1024 * 1024 * 1024;
    else throw Error(what + ": unknown unit '" + unit + "' in '" + std::string(text) +
                     "' (expected B, KB, MB, GB, TB, KiB, MiB, GiB or TiB)");
    // A budget beyond any memory (up to 9223372036854775807 and past it) is a budget that never
    // binds: held at 4 EiB, above every peak the memory model can figure (int64), so that the
    // planner's sums of it stay in range.
    const double bytes = value * scale;
    constexpr int64_t kUnbounded = std::numeric_limits<int64_t>::max() / 2;
    spec.bytes = bytes >= double(kUnbounded) ? kUnbounded : int64_t(std::llround(bytes));
    return spec;
}

std::string humanBytes(int64_t bytes) {
    char buf[64];
    const double b = double(bytes);
    const double a = std::fabs(b);
    if (a >= 1024.0 * 1024 * 1024) std::snprintf(buf, sizeof buf, "%.2f GiB", b / (1024.0 * 1024 * 1024));
    else if (a >= 1024.0 * 1024) std::snprintf(buf, sizeof buf, "%.2f MiB", b / (1024.0 * 1024));
    else if (a >= 1024.0) std::snprintf(buf, sizeof buf, "%.2f KiB", b / 1024.0);
    else std::snprintf(buf, sizeof buf, "%lld B", static_cast<long long>(bytes));
    return buf;
}

std::string humanFlops(double flops) {
    char buf[64];
    const double a = std::fabs(flops);
    if (a >= 1e12) std::snprintf(buf, sizeof buf, "%.2f TFLOP", flops / 1e12);
    else if (a >= 1e9) std::snprintf(buf, sizeof buf, "%.2f GFLOP", flops / 1e9);
    else if (a >= 1e6) std::snprintf(buf, sizeof buf, "%.2f MFLOP", flops / 1e6);
    else if (a >= 1e3) std::snprintf(buf, sizeof buf, "%.2f KFLOP", flops / 1e3);
    else std::snprintf(buf, sizeof buf, "%.0f FLOP", flops);
    return buf;
}

}  // namespace rx::planner
