// libFuzzer target: any bytes as a recompute spec of a fixed program -> a spec whose JSON
// form reads back to the same spec, or rx::Error. Crashes, hangs, leaks and UB are bugs.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "fuzz/FuzzProgram.h"
#include "model/RecomputeSpec.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const rx::Program& program = rx::fuzz::fixedProgram();
    try {
        const rx::RecomputeSpec spec = rx::parseSpecJson(text, program, "fuzz.spec.json");
        const std::string written = rx::specToJson(spec, program);
        rx::RecomputeSpec again;
        try {
            again = rx::parseSpecJson(written, program, "written.spec.json");
        } catch (const rx::Error&) {
            std::abort();  // what we write must read back
        }
        if (again.fwdOpEndIdx != spec.fwdOpEndIdx || again.backwardOpStartIdx != spec.backwardOpStartIdx) std::abort();
    } catch (const rx::Error&) {
    }
    return 0;
}
