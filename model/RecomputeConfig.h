#pragma once
// Every knob of the seed's auto_recompute heuristics as data (docs/FORMATS.md, "Heuristics
// config"). Defaults equal the seed's module constants; JSON keys are the seed's names.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace rx {

struct RecomputeConfig {
    // ---- op classes (ALGORITHM.md §4); names like "pd_op.exp" ----
    std::vector<std::string> recomputableOps;        // DEFAULT_RECOMPUTABLE_OPS (+ view ops by the seed)
    std::vector<std::string> tendingToRecomputeOps;  // TENDING_TO_RECOMPUTE_OPS
    std::vector<std::string> randomOps;              // RANDOM_OPS
    std::vector<std::string> computeIntensiveOps;    // COMPUTE_INTENSIVE_OPS
    std::vector<std::string> viewOps;                // VIEW_OPS (empty in the seed)
    std::vector<std::string> ignoreOps;              // IGNORE_OPS

    // ---- scalar knobs ----
    bool aggressiveRecomputation = false;  // AGGRESSIVE_RECOMPUTATION
    int64_t maxDistFromBw = 3;             // MAX_DIST_FROM_BW
    double minimumWeight = 0.1;            // MINIMUM_WEIGHT (weight of 0-byte tending-to-recompute values)
    double distanceBase = 1.1;             // weight *= base ^ clamp(dist, 1, cap)
    int64_t distanceCap = 100;
    int64_t nonMaterializedFactor = 2;     // weight *= factor when not materialized
    double sizeRatioBan = 4;               // banned when ratio * size(v) < sum of input sizes

    // ---- pins (explorer): value names of the input file, forced by ∞ edges ----
    std::vector<std::string> pinnedSaved;
    std::vector<std::string> pinnedRecomputed;

    // The seed's defaults (same as a default-constructed config's scalars plus the op lists).
    static RecomputeConfig seedDefaults();

    // The seed's derived classes (ALGORITHM.md §4), sorted and unique.
    std::vector<std::string> effectiveRecomputableOps() const;   // recomputable ∪ view
    std::vector<std::string> unrecomputableOps() const;          // random ∪ compute-intensive
    std::vector<std::string> fusibleOps() const;                 // recomputable ∪ view ∪ random

    bool operator==(const RecomputeConfig&) const = default;
};

// Parses the JSON config; missing keys keep the seed's default. Throws rx::Error with
// "file:line:col: message" for malformed JSON, wrong JSON types (naming the expected one),
// numbers outside their range (naming the range) and unknown keys (naming the nearest valid
// key: a typo must not silently do nothing). New keys are added to configKeys() there.
RecomputeConfig parseConfigJson(std::string_view text, const std::string& fileName);
RecomputeConfig readConfigFile(const std::string& path);
void writeConfigFile(const RecomputeConfig& config, const std::string& path);  // atomic
// Writes every key (pretty-printed, stable order).
std::string configToJson(const RecomputeConfig& config);

}  // namespace rx
