#include "exec/Executor.h"

namespace rx::exec {

const FetchedValue* RunResult::fetch(std::string_view valueName) const {
    for (const FetchedValue& f : fetches)
        if (f.valueName == valueName || f.fetchName == valueName) return &f;
    return nullptr;
}

}  // namespace rx::exec
