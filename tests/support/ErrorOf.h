#pragma once
// The message of the rx::Error that `work` throws (empty when it throws none): what the
// input-checking tests compare.
#include <functional>
#include <string>

#include "model/Diagnostic.h"

namespace rx::testing {

inline std::string errorOf(const std::function<void()>& work) {
    try {
        work();
    } catch (const Error& e) {
        return e.what();
    }
    return {};
}

}  // namespace rx::testing
