// Last use of every value by global-block position (LastUse.h).
#include "algorithms/LastUse.h"

#include "exec/Liveness.h"

namespace rx {

std::vector<uint32_t> lastUseByGlobalIndex(const Program& program) {
    // exec/Liveness.h's last uses (a value read by nobody: its definition; callers take the
    // max with the definition anyway).
    const exec::Liveness liveness = exec::analyzeLiveness(program, {});
    std::vector<uint32_t> lastUse(program.values().size(), 0);
    for (ValueId v = 0; v < lastUse.size(); ++v)
        if (liveness.lastUse[v] != exec::Liveness::kNever) lastUse[v] = liveness.lastUse[v];
    return lastUse;
}

}  // namespace rx
