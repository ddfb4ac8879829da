#pragma once
// Errors that carry a source position. Everything that reads user input throws
// rx::Error; callers print error.what(), which is already "file:line:col: message".
#include <stdexcept>
#include <string>

namespace rx {

struct SourceLocation {
    std::string file;  // may be empty (e.g. a string parsed from memory)
    int line = 0;      // 1-based; 0 = no position
    int column = 0;    // 1-based
};

class Error : public std::runtime_error {
public:
    explicit Error(const std::string& message) : std::runtime_error(message), message_(message) {}
    Error(SourceLocation where, const std::string& message)
        : std::runtime_error(format(where, message)), where_(std::move(where)), message_(message) {}

    const SourceLocation& where() const { return where_; }
    const std::string& message() const { return message_; }  // without the position prefix

    static std::string format(const SourceLocation& where, const std::string& message) {
        std::string out;
        if (!where.file.empty()) out += where.file + ":";
        if (where.line > 0) out += std::to_string(where.line) + ":" + std::to_string(where.column) + ":";
        if (!out.empty()) out += " ";
        return out + message;
    }

private:
    SourceLocation where_;
    std::string message_;
};

}  // namespace rx
