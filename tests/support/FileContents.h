#pragma once
// A file's bytes as the tests compare them (empty when it cannot be opened).
#include <fstream>
#include <iterator>
#include <string>

namespace rx::testing {

inline std::string fileContents(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace rx::testing
