#pragma once
// The explorer's access to recompute specs: PROGRAM.spec.json beside a program, or the split
// detected as Paddle's training entry point does it (model/RecomputeSpec.h, FORMATS.md).
#include <string>
#include <string_view>

#include "model/RecomputeSpec.h"

namespace rx::ui {

struct LoadedSpec {
    RecomputeSpec spec;
    bool detected = true;      // false: read from a spec file
    std::string specFile;      // the file it came from, if any
};

// Reads the spec file beside `programPath` if one exists, else detects. Throws rx::Error for
// a malformed spec file.
LoadedSpec loadOrDetectSpec(const Program& program, const std::string& programPath);
// Value lookup by the file's name; kNoId if absent.
ValueId findValueByName(const Program& program, std::string_view name);

}  // namespace rx::ui
