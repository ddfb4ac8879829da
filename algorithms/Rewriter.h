#pragma once
// partition_joint_graph (docs/ALGORITHM.md §7): clones the recompute subgraph, redirects the
// backward uses of mid-hold values to the clones, places each clone before its anchor and
// marks originals `is_recompute_op` and clones `is_recompute_bw_op`. A pure function: the
// input program is not touched; a new Program comes back.
#include <memory>
#include <string>
#include <vector>

#include "algorithms/Analysis.h"
#include "algorithms/Plan.h"

namespace rx {

struct RewriteResult {
    std::shared_ptr<Program> program;   // null on error
    std::string error;                  // the seed's clone "not found" / placement assertion
    std::vector<OpId> clones;           // clone op ids (in the new program), clone order
    std::vector<OpId> cloneOf;          // original op of each clone
    int64_t fwdOpEndIdx = 0;            // unchanged, as the seed returns it
    bool ok() const { return error.empty(); }
};

RewriteResult partitionJointGraph(const Analysis& analysis, const Plan& plan);
// The same, writing into `copy`: an unedited copy of the analysis' program (Program's copy
// constructor), made ahead of time, e.g. on another thread while the cut is solved.
RewriteResult partitionJointGraph(const Analysis& analysis, const Plan& plan, std::shared_ptr<Program> copy);

}  // namespace rx
