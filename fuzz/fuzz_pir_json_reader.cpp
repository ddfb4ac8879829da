// libFuzzer target: any bytes as Paddle's PIR JSON -> a program that prints as PIR text which
// reads back (or the printer refuses with rx::Error), or rx::Error. Crashes, hangs, leaks
// and UB are bugs.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "model/PirJsonReader.h"
#include "model/PirReader.h"
#include "model/PirWriter.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        const rx::Program p = rx::parsePirJson(text, "fuzz.json");
        std::string printed;
        try {
            printed = rx::printProgram(p);
        } catch (const rx::Error&) {
            return 0;  // refused: something the text grammar cannot carry (named in the message)
        }
        try {
            (void)rx::parsePir(printed, "printed");
        } catch (const rx::Error&) {
            std::abort();  // what we print must read back
        }
    } catch (const rx::Error&) {
    }
    return 0;
}
