// libFuzzer target: any bytes as a heuristics config -> a config whose JSON form reads back
// to the same text, or rx::Error. Crashes, hangs, leaks and UB are bugs.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "model/Diagnostic.h"
#include "model/RecomputeConfig.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        const rx::RecomputeConfig config = rx::parseConfigJson(text, "fuzz.config.json");
        const std::string written = rx::configToJson(config);
        try {
            if (rx::configToJson(rx::parseConfigJson(written, "written.config.json")) != written) std::abort();
        } catch (const rx::Error&) {
            std::abort();  // what we write must read back
        }
    } catch (const rx::Error&) {
    }
    return 0;
}
