// libFuzzer target: any bytes -> parsePir either returns a program (which then prints and
// reads back) or throws rx::Error. Crashes, hangs, leaks and UB are bugs.
// Build and run: fuzz/run.sh fuzz_pir_reader [SECONDS]   (clang++ only; a 30 s smoke run in ctest)
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "model/PirReader.h"
#include "model/PirWriter.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        const rx::Program p = rx::parsePir(text, "fuzz");
        const std::string printed = rx::printProgram(p);
        try {
            (void)rx::parsePir(printed, "printed");
        } catch (const rx::Error&) {
            std::abort();  // what we print must read back
        }
    } catch (const rx::Error&) {
    }
    return 0;
}
