#pragma once
// The explorer's access to recompute specs: loads PROGRAM.spec.json beside a program or
// detects the split as Paddle's training entry point does (FORMATS.md).
#include <string>

#include "algorithms/Analysis.h"  // RecomputeSpec (model/RecomputeSpec.h when present)

namespace rx::ui {

struct LoadedSpec {
    RecomputeSpec spec;
    bool detected = true;      // false: read from a spec file
    std::string specFile;      // the file it came from, if any
};

std::string specFileFor(const std::string& programPath);
// Reads the spec file beside `programPath` if one exists, else detects. Throws rx::Error for
// a malformed spec file.
LoadedSpec loadOrDetectSpec(const Program& program, const std::string& programPath);
RecomputeSpec detectProgramSpec(const Program& program);
RecomputeSpec readProgramSpec(const std::string& path, const Program& program);
std::string programSpecToJson(const RecomputeSpec& spec, const Program& program);
// Value lookup by the file's name; kNoId if absent.
ValueId findValueByName(const Program& program, std::string_view name);

}  // namespace rx::ui
