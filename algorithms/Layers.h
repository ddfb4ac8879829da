#pragma once
// Layer detection for the explorer's structure-first overview. The forward's layers come
// from the ops' `chunk_id` attribute where a program has one, else from name scopes (an
// op's `struct_name` "/Model/DecoderLayer_3/…", or the PyTorch-style names of the
// parameters it reads, "layers.3.mlp.weight"), else from the longest run of a repeated
// op-name motif (period found from the gaps between occurrences of each op name);
// forward ops before the first layer form the "embedding" group, after the last the
// "head / loss" group. Each backward op joins the group whose forward values it reads
// (most bytes), else the group of the backward ops it reads from, else its predecessor's.
#include <cstdint>
#include <string>
#include <vector>

#include "model/Program.h"

namespace rx {

struct Plan;

struct LayerGroup {
    enum class Kind : uint8_t { Embedding, Layer, Head, Other };
    Kind kind = Kind::Other;
    std::string name;               // "embedding", "layer 3", "head / loss"
    uint32_t fwdBegin = 0, fwdEnd = 0;  // forward op positions [fwdBegin, fwdEnd); empty for Other
    uint32_t forwardOps = 0, backwardOps = 0;
};

struct LayerPartition {
    std::vector<LayerGroup> groups;      // forward order: embedding, layers…, head, other
    std::vector<int32_t> groupOfPos;     // per global-block position; -1 = no group
    uint32_t period = 0;                 // ops per layer (motif length); 0 when none found
    std::string source;                  // "chunk_id", "name scope", "motif" or "none"
    size_t layerCount() const;
};

// `fwdOpEndIdx` / `backwardOpStartIdx` as in the spec (-1: unknown; then all ops are forward).
LayerPartition detectLayers(const Program& program, int64_t fwdOpEndIdx, int64_t backwardOpStartIdx);

// Per group, under a plan: bytes of forward values the backward reads (held without
// recompute), of those the plan saves, and of those it recomputes (mid-hold); `held`: what
// the backward keeps under the plan (saved, or read by it and not recomputed), with the
// value counts of the saved and recomputed.
struct LayerBytes {
    int64_t heldForBackward = 0, saved = 0, recomputed = 0;
    int64_t held = 0;
    uint32_t savedValues = 0, recomputedValues = 0;
};
std::vector<LayerBytes> layerBytes(const Program& program, const LayerPartition& layers, const Plan& plan,
                                   int64_t backwardOpStartIdx);

// The same layers on the rewritten program (algorithms/Rewriter.h: originals keep their op
// ids, clones are new ops placed in the backward): an original op keeps its group, a clone
// joins the group of the op it is placed before (the backward that reads it), so the rewritten
// program's overview shows the original's layers. Empty when `layers` has no groups.
LayerPartition layersOfRewritten(const LayerPartition& layers, const Program& program, const Program& rewritten);

}  // namespace rx
