#pragma once
// Builds the program view's VisualGraph: ops (rounded boxes) and, when few enough, values
// (ellipses) of the global block; forward and backward in two clusters; saved values,
// recomputed ops and clones marked. Big programs start as an overview of collapsed
// segments (contiguous op ranges) that expand in place on double-click.
#include <QString>
#include <cstdint>
#include <vector>

#include "algorithms/Layers.h"
#include "model/Program.h"
#include "views/VisualGraph.h"

namespace rx {

// Where forward ends and backward starts (global-block op indices), from the spec.
struct ProgramSplit {
    int64_t fwdOpEndIdx = -1;
    int64_t backwardOpStartIdx = -1;
    bool known() const { return backwardOpStartIdx >= 0; }
    bool isBackward(uint32_t pos) const { return known() && int64_t(pos) >= backwardOpStartIdx; }
};

// What the current plan says about values and ops (indexed by ValueId / OpId of the
// program shown). Empty vectors = no plan yet.
struct PlanMarks {
    std::vector<uint8_t> valueSaved;
    std::vector<uint8_t> valueBanned;
    std::vector<uint8_t> valuePinned;
    std::vector<uint8_t> opRecomputed;
    std::vector<uint8_t> valueRecomputed;  // mid-hold: the backward reads it, recomputed (ProgramView fills it)
    std::vector<uint8_t> opClone;       // rewritten program: the op is a clone
    std::vector<double> valueWeight;    // for the weight overlay (<0 = unknown)
    std::vector<double> valueDistance;  // for the distance overlay (<0 = unknown)
    // Per group of ProgramViewOptions::layers: what the plan holds there (layerBytes(), the
    // Layers table's figures). Labels and sizes each layer's bundle; empty = no plan.
    std::vector<LayerBytes> layerBytes;
    static bool at(const std::vector<uint8_t>& v, uint32_t i) { return i < v.size() && v[i]; }
};

enum class Overlay : uint8_t { None, Size, Weight, Distance };

// Segment state of the overview. Positions index the global block's ops.
class ProgramOverview {
public:
    struct Segment {
        uint32_t begin = 0, end = 0;  // [begin, end)
        bool expanded = false;
        QString label;                // "layer 3 · forward" for a detected layer; else empty
        int32_t group = -1;           // block of layers (overview), -1 when not layer-based
        // Further op ranges drawn as the same group: a layer's backward is one group even
        // where its ops are not contiguous (its gradient fetches trail the program).
        std::vector<std::pair<uint32_t, uint32_t>> more;
        uint32_t opCount() const;
        bool contains(uint32_t pos) const;
        // [begin, end) followed by `more`.
        std::vector<std::pair<uint32_t, uint32_t>> ranges() const;
    };
    static constexpr uint32_t kDirectLimit = 600;    // at most this many ops: show them all
    static constexpr uint32_t kTargetGroups = 120;   // first picture of a big program
    // Segment::group of one layer from an expanded block of layers: this + its LayerPartition group.
    static constexpr int32_t kLayerGroupBase = 1 << 20;

    void reset(uint32_t opCount, ProgramSplit split);
    // Structure first: with detected layers (2 or more) a big program's first overview is
    // one group per layer's forward and per layer's backward run, plus embedding and head.
    void reset(uint32_t opCount, ProgramSplit split, const LayerPartition& layers);
    // Expands the segment starting at `begin`: into ops if small, else into sub-segments.
    bool expand(uint32_t begin);
    // Collapses the innermost expanded group holding op position `pos` back into one group
    // (after Show Whole Graph: back to the first overview). False when nothing collapses.
    bool collapse(uint32_t pos);
    // True when `pos` lies in an expanded group that collapse() would fold.
    bool canCollapse(uint32_t pos) const;
    void expandAll();
    bool whole() const;
    size_t visibleUnits() const;
    const std::vector<Segment>& segments() const { return segments_; }

private:
    static void split(uint32_t begin, uint32_t end, uint32_t parts, std::vector<Segment>& out);
    std::vector<Segment> segments_;
    std::vector<std::pair<uint32_t, uint32_t>> expansions_;  // ranges expanded, in order
    uint32_t opCount_ = 0;
    ProgramSplit split_;
    std::vector<Segment> first_;  // the first overview, restored by collapse after Show Whole Graph
    // Layer of each op position and the layers' names, so a block of layers expands into its layers.
    std::vector<int32_t> layerOfPos_;
    QStringList layerName_;
};

struct ProgramViewOptions {
    ProgramSplit split;
    Overlay overlay = Overlay::None;
    int showValues = -1;  // -1 auto (when <= 250 ops shown), 0 off, 1 on
    // The layers of the program shown (of its global block's positions); null when none.
    const LayerPartition* layers = nullptr;
};

VisualGraph buildProgramGraph(const Program& program, const ProgramOverview& overview,
                              const ProgramViewOptions& options, const PlanMarks& marks);

// The layer view (issue 12 item 2): one layer's (or block of layers') forward ops, laid out
// by dot. The values the backward needs from it are ports on their ops (saved, recomputed,
// held as is); the ops the plan recomputes sit in a shaded cluster, so the cluster's border
// is the cut; each port's backward readers are one short stub ("→ 3 backward users", its key
// the first of them) instead of an edge across the program.
struct LayerViewSpec {
    QString name;                                        // "layer 3", "layers 4–5"
    std::vector<std::pair<uint32_t, uint32_t>> forward;  // forward op positions of the layer
    bool empty() const { return forward.empty(); }
    bool contains(uint32_t pos) const;
};

// What the rewritten program adds to a layer view: the clones of the layer's recomputed ops.
struct LayerViewClones {
    const Program* rewritten = nullptr;
    const std::vector<OpId>* clones = nullptr;   // clone ops in `rewritten`
    const std::vector<OpId>* cloneOf = nullptr;  // their originals
};

VisualGraph buildLayerGraph(const Program& program, const LayerPartition& layers, const LayerViewSpec& spec,
                            const ProgramViewOptions& options, const PlanMarks& marks,
                            const LayerViewClones& clones = {});

// "pd_op.matmul" -> "matmul"; keeps other dialects' prefixes ("cinn_op.", "builtin.").
QString shortOpName(std::string_view name);
// "4096×4096 f32"
QString typeSummary(const Program& program, ValueId v);
QString formatBytes(double bytes);
// A layer bundle's label: "held 54.0 KiB" over "6 saved · 16 recomp" (values), two lines so
// it fits between a layer's forward and backward groups.
QString layerHeldText(const LayerBytes& bytes);

}  // namespace rx
