#include "views/SpecSupport.h"

namespace rx::ui {

ValueId findValueByName(const Program& program, std::string_view name) {
    for (ValueId v = 0; v < program.values().size(); ++v)
        if (program.value(v).name == name) return v;
    return kNoId;
}

LoadedSpec loadOrDetectSpec(const Program& program, const std::string& programPath) {
    ResolvedSpec resolved = resolveSpec(program, programPath);
    LoadedSpec out;
    out.spec = std::move(resolved.spec);
    out.detected = resolved.source.empty();
    out.specFile = std::move(resolved.source);
    return out;
}

}  // namespace rx::ui
