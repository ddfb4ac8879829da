// PIR text reading entry points: files, zero-width characters, pass logs' program choice.
#include "model/PirReader.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>

#include "model/FileIO.h"
#include "model/PirJsonReader.h"
#include "model/PirParser.h"

namespace rx {

std::string_view defaultTensorSpelling(Generation g) {
    switch (g) {
    case Generation::G1: return "pd_op.tensor";
    case Generation::G2: return "builtin.tensor";
    default: return "tensor";
    }
}

std::string readTextFile(const std::string& path) {
    return readFile(path);  // model/FileIO: regular files only, bounded size
}

namespace {

// Zero-width characters (U+200B..U+200D, U+2060, U+FEFF) that web pages sprinkle into
// pasted text, even inside names. Returns how many were removed into `out` (0: untouched).
size_t stripZeroWidth(std::string_view text, std::string& out) {
    size_t removed = 0;
    size_t copiedTo = 0;  // text[copiedTo, i) is not yet in `out`
    for (size_t i = 0; i + 2 < text.size(); ++i) {
        // Skip plain ASCII 64 bytes, then eight, at a time (the zero-width characters start
        // with a byte >= 0x80; the blocks' test vectorizes).
        while (i + 64 <= text.size()) {
            uint64_t words[8], any = 0;
            std::memcpy(words, text.data() + i, sizeof words);
            for (uint64_t w : words) any |= w;
            if (any & 0x8080808080808080ull) break;
            i += 64;
        }
        while (i + 8 <= text.size()) {
            uint64_t word;
            std::memcpy(&word, text.data() + i, sizeof word);
            if (word & 0x8080808080808080ull) break;
            i += 8;
        }
        if (i + 2 >= text.size()) break;
        const auto b0 = static_cast<unsigned char>(text[i]);
        if (b0 != 0xE2 && b0 != 0xEF) continue;
        const auto b1 = static_cast<unsigned char>(text[i + 1]), b2 = static_cast<unsigned char>(text[i + 2]);
        const bool zeroWidth = (b0 == 0xE2 && b1 == 0x80 && (b2 == 0x8B || b2 == 0x8C || b2 == 0x8D)) ||
                               (b0 == 0xE2 && b1 == 0x81 && b2 == 0xA0) || (b0 == 0xEF && b1 == 0xBB && b2 == 0xBF);
        if (!zeroWidth) continue;
        if (removed == 0) out.reserve(text.size());
        out.append(text.substr(copiedTo, i - copiedTo));
        copiedTo = i + 3;
        ++removed;
        i += 2;
    }
    if (removed) out.append(text.substr(copiedTo));
    return removed;
}

}  // namespace

std::vector<ProgramListing> listPrograms(std::string_view original, const std::string& fileName) {
    std::string cleaned;
    const std::string_view text = stripZeroWidth(original, cleaned) ? std::string_view(cleaned) : original;
    std::vector<ProgramListing> out;
    pir::parsePrograms(text, fileName, [&](int index, pir::ParsedProgram&& parsed) {
        out.push_back({index, parsed.line, parsed.title, parsed.program.globalBlock().ops.size()});
    });
    return out;
}

Program parsePir(std::string_view original, const std::string& fileName, const ReadOptions& options) {
    std::string cleaned;
    const size_t zeroWidth = stripZeroWidth(original, cleaned);
    const std::string_view text = zeroWidth ? std::string_view(cleaned) : original;
    std::optional<Program> chosen;
    int count = 0;
    pir::parsePrograms(text, fileName, [&](int index, pir::ParsedProgram&& parsed) {
        count = index + 1;
        if (options.programIndex < 0 || options.programIndex == index) {
            chosen.reset();
            chosen.emplace(std::move(parsed.program));
        }
    });
    if (options.programIndex >= count || !chosen)
        throw Error(SourceLocation{fileName, 0, 0},
                    "program " + std::to_string(options.programIndex) + " requested, but the file holds " +
                        std::to_string(count) + " program(s) (0.." + std::to_string(count - 1) + ")");
    if (zeroWidth)
        chosen->addWarning(std::to_string(zeroWidth) +
                                   " zero-width character(s) removed (columns in messages count without them)");
    if (count > 1 && options.programIndex < 0)
        chosen->addWarning("file holds " + std::to_string(count) + " programs; loaded the last (program " +
                                   std::to_string(count - 1) + ")");
    return std::move(*chosen);
}

// Program files are mapped, not copied (FileIO.h: withFileBytes); the parsers keep no view
// of the text.
Program readPirFile(const std::string& path, const ReadOptions& options) {
    std::optional<Program> program;
    withFileBytes(path, [&](std::string_view text) { program.emplace(parsePir(text, path, options)); });
    return std::move(*program);
}

Program loadProgram(const std::string& path, const ReadOptions& options) {
    std::optional<Program> program;
    withFileBytes(path, [&](std::string_view text) {
        // A UTF-8 byte order mark first (both readers accept one) does not decide the format.
        size_t i = text.starts_with("\xEF\xBB\xBF") ? 3 : 0;
        while (i < text.size() && (text[i] == ' ' || text[i] == '\n' || text[i] == '\r' || text[i] == '\t')) ++i;
        if (i < text.size() && text[i] == '{') {
            size_t j = i + 1;
            while (j < text.size() && (text[j] == ' ' || text[j] == '\n' || text[j] == '\r' || text[j] == '\t')) ++j;
            if (j < text.size() && text[j] == '"') {
                program.emplace(parsePirJson(text, path));
                return;
            }
        }
        program.emplace(parsePir(text, path, options));
    });
    return std::move(*program);
}

}  // namespace rx
