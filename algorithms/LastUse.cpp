// Last use of every value by global-block position (LastUse.h).
#include "algorithms/LastUse.h"

namespace rx {

std::vector<uint32_t> lastUseByGlobalIndex(const Program& program) {
    const auto& gops = program.globalBlock().ops;
    std::vector<uint32_t> lastUse(program.values().size(), 0);
    std::vector<BlockId> stack;
    for (size_t i = 0; i < gops.size(); ++i) {
        const Operation& top = program.op(gops[i]);
        for (ValueId x : top.operands)
            if (x != kNoId) lastUse[x] = uint32_t(i);
        for (const auto& region : top.regions)
            for (BlockId blk : region) stack.push_back(blk);
        while (!stack.empty()) {
            const BlockId blk = stack.back();
            stack.pop_back();
            for (OpId inner : program.block(blk).ops) {
                for (ValueId x : program.op(inner).operands)
                    if (x != kNoId) lastUse[x] = uint32_t(i);
                for (const auto& region : program.op(inner).regions)
                    for (BlockId b2 : region) stack.push_back(b2);
            }
        }
    }
    return lastUse;
}

}  // namespace rx
