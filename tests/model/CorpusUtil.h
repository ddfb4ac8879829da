#pragma once
// Helpers shared by the model tests: corpus files and text normalisation.
#include <QDir>
#include <QString>

#include <string>
#include <vector>

#include "model/PirReader.h"

namespace rx::test {

inline std::string corpusDir() { return std::string(RX_SHARED_DIR) + "/corpus"; }

// Every file under corpus/ with one of the extensions, sorted (new files are picked up).
inline std::vector<std::string> corpusFiles(const QStringList& patterns) {
    std::vector<std::string> out;
    QDir root(QString::fromStdString(corpusDir()));
    for (const QString& sub : root.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name)) {
        QDir d(root.filePath(sub));
        for (const QString& f : d.entryList(patterns, QDir::Files, QDir::Name)) out.push_back(d.filePath(f).toStdString());
    }
    return out;
}

inline std::string trim(std::string_view s) {
    size_t b = 0, e = s.size();
    while (b < e && (s[b] == ' ' || s[b] == '\t' || s[b] == '\r')) ++b;
    while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t' || s[e - 1] == '\r')) --e;
    return std::string(s.substr(b, e - b));
}

// Lines with comments removed and whitespace at both ends trimmed; empty lines dropped.
inline std::vector<std::string> normalisedLines(std::string_view text) {
    std::vector<std::string> out;
    size_t start = 0;
    while (start <= text.size()) {
        size_t end = text.find('\n', start);
        if (end == std::string_view::npos) end = text.size();
        std::string_view line = text.substr(start, end - start);
        // "//" outside a string starts a comment.
        bool inString = false;
        for (size_t i = 0; i + 1 < line.size(); ++i) {
            if (line[i] == '"') inString = !inString;
            if (!inString && line[i] == '/' && line[i + 1] == '/') { line = line.substr(0, i); break; }
        }
        std::string t = trim(line);
        if (!t.empty()) out.push_back(t);
        start = end + 1;
    }
    return out;
}

inline std::string withoutWhitespace(std::string_view text) {
    std::string out;
    for (const std::string& l : normalisedLines(text))
        for (char c : l)
            if (c != ' ' && c != '\t') out += c;
    return out;
}

}  // namespace rx::test
