// The planning problem: candidate ops, the rewriter's placement replayed on positions
// (simulatePeak), normalised recompute sets, their Plans and measured figures, the bound.
#include "algorithms/planner/BudgetPlanner.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "algorithms/Layers.h"
#include "algorithms/MemoryModel.h"
#include "algorithms/Rewriter.h"
#include "algorithms/planner/Budget.h"
#include "exec/Liveness.h"
#include "algorithms/planner/PlannerInternal.h"
#include "model/Diagnostic.h"
#include "model/OpTraits.h"

namespace rx::planner {

using detail::contains;
using detail::sideEffecting;


BudgetPlanner::BudgetPlanner(std::shared_ptr<const Program> program, RecomputeSpec spec, RecomputeConfig config,
                             CostModel costs, PlannerOptions options)
    : program_(std::move(program)), spec_(std::move(spec)), config_(std::move(config)), costs_(std::move(costs)),
      options_(options) {
    const Program& p = *program_;
    if (spec_.fwdOpEndIdx < 0 || spec_.backwardOpStartIdx < 0 ||
        size_t(spec_.fwdOpEndIdx) >= p.globalBlock().ops.size())
        throw Error("the recompute spec has no forward/backward split inside the program (fwd_op_end_idx " +
                    std::to_string(spec_.fwdOpEndIdx) + ", backward_op_start_idx " +
                    std::to_string(spec_.backwardOpStartIdx) + ", " + std::to_string(p.globalBlock().ops.size()) +
                    " ops)");
    RecomputeSpec analysisSpec = spec_;
    analysis_ = std::make_shared<Analysis>(program_, analysisSpec);
    if (costs_.flops(0) == 0 && costs_.bytesMoved(0) == 0 && !costs_.measured()) costs_ = CostModel::fromTypes(p);
    // One liveness analysis for the original's profile and the simulation's tables.
    resident_ = exec::residentValuesOf(p, spec_.inputs);  // the memory model's resident set
    const exec::Liveness liveness = exec::analyzeLiveness(p, resident_);
    original_ = profileMemoryFrom(p, liveness, spec_.fwdOpEndIdx);
    for (OpId op : p.globalBlock().ops) totalFlops_ += costs_.flops(op);
    buildCandidates();
    prepareSimulation(liveness);
    // Every plan's figures come from the simulation, the original's from the memory model:
    // they agree on the set that recomputes nothing, or no figure could be trusted. With
    // control flow the model follows one path (an if yielding a value from outside it
    // aliases that value there) where the simulation counts each result's own bytes; every
    // plan then failed the original's peak and the floor came out as 2^63 bytes.
    // (Without control flow they are equal by construction, and a 1M-op program skips the replay.)
    if (const int64_t simulated = exec::hasControlFlow(p) ? simulatePeak(RecomputeSet(candidates_.size(), 0)) : original_.peakBytes;
        original_.ok() && simulated != original_.peakBytes)
        throw Error("budget planning cannot model this program's memory: its peak is " + humanBytes(original_.peakBytes) +
                    " (" + std::to_string(original_.peakBytes) + " bytes) in the memory model, which follows one path through "
                    "its control flow, and " + humanBytes(simulated) + " (" + std::to_string(simulated) +
                    " bytes) in the planner's simulation of the same program (each control-flow result its own storage); "
                    "plan it with the seed's mode (solve without --budget)");
}

void BudgetPlanner::prepareSimulation(const exec::Liveness& liveness) {
    const Program& p = *program_;
    const Analysis& a = *analysis_;
    const size_t nv = p.values().size();
    valueLastUse_.assign(nv, 0);
    valueLastFixedUse_.assign(nv, 0);
    lastRedirectedUse_.assign(nv, kNoId);
    defIndex_.assign(nv, kNoId);
    for (OpId op : a.globalOps())
        for (ValueId r : p.op(op).results) defIndex_[r] = a.opIndex(op);
    for (ValueId v = 0; v < nv; ++v) {
        if (defIndex_[v] == kNoId) continue;
        for (const Use& use : p.uses(v)) {
            if (use.ancestor == kNoId) continue;
            const uint32_t i = a.opIndex(use.ancestor);
            if (i == kNoId) continue;
            valueLastUse_[v] = std::max(valueLastUse_[v], i);
            if (use.user == use.ancestor && a.isBackwardRangeOp(use.user))
                lastRedirectedUse_[v] = lastRedirectedUse_[v] == kNoId ? i : std::max(lastRedirectedUse_[v], i);
            else
                valueLastFixedUse_[v] = std::max(valueLastFixedUse_[v], i);
        }
    }
    // Storage as exec/Liveness.h counts it: an alias (builtin.split, combine, slice, fetch) owns
    // no bytes. The replay follows storage buffer by buffer: it keeps the values' own readers
    // and the liveness's buffers (which value allocated each, and which each value refers to).
    bufferOwner_.assign(liveness.buffers.size(), kNoId);
    bufferBytes_.assign(liveness.buffers.size(), 0);
    bufferResident_.assign(liveness.buffers.size(), 0);
    for (uint32_t b = 0; b < liveness.buffers.size(); ++b) {
        bufferOwner_[b] = liveness.buffers[b].owner;
        bufferBytes_[b] = liveness.buffers[b].bytes;
        bufferResident_[b] = liveness.buffers[b].death == exec::Liveness::kNever;
    }
    valueBufferOff_.assign(nv + 1, 0);
    valueBuffers_.clear();
    for (ValueId v = 0; v < nv; ++v) {
        if (v < liveness.buffersOf.size())
            for (uint32_t b : liveness.buffersOf[v]) valueBuffers_.push_back(b);
        valueBufferOff_[v + 1] = uint32_t(valueBuffers_.size());
    }
    ownedBytes_.assign(nv, 0);
    for (ValueId v = 0; v < nv; ++v) {
        if (defIndex_[v] == kNoId) continue;
        ownedBytes_[v] = liveness.ownedBytes(v);
    }
    firstBackwardUse_.assign(candidates_.size(), kNoId);
    for (uint32_t k = 0; k < candidates_.size(); ++k) {
        const Operation& o = p.op(candidates_[k]);
        for (const Use& use : p.uses(o.results[0]))
            if (use.ancestor != kNoId && a.isBackwardRangeOp(use.ancestor))
                firstBackwardUse_[k] = std::min(firstBackwardUse_[k], a.opIndex(use.ancestor));
    }
    cloneCandidateOf_.assign(nv, kNoId);
    for (ValueId v = 0; v < nv; ++v) {
        const OpId d = p.value(v).definingOp;
        if (!maskValue_[v] && d != kNoId) cloneCandidateOf_[v] = candidateIndex_[d];
    }
    globalResults_.clear();
    const auto gops = a.globalOps();
    for (uint32_t i = 0; i < gops.size(); ++i)
        for (ValueId r : p.op(gops[i]).results) globalResults_.push_back({i, r, candidateIndex_[gops[i]]});
    const size_t nc = candidates_.size();
    cloneNeeded_.assign(nc, 0);
    operandCandidateOff_.assign(nc + 1, 0);
    consumerCandidateOff_.assign(nc + 1, 0);
    operandCandidates_.clear();
    consumerCandidates_.clear();
    for (uint32_t k = 0; k < nc; ++k) {
        const Operation& o = p.op(candidates_[k]);
        forCloneResults(k, [&](ValueId r) { cloneNeeded_[k] = cloneNeeded_[k] || neededByBackward_[r]; });
        for (ValueId x : o.operands) {
            if (x == kNoId || x >= nv) continue;
            const OpId d = p.value(x).definingOp;
            if (d != kNoId && candidateIndex_[d] != kNoId) operandCandidates_.push_back(candidateIndex_[d]);
        }
        operandCandidateOff_[k + 1] = uint32_t(operandCandidates_.size());
        for (ValueId r : o.results) {
            if (maskValue_[r]) continue;  // a saved mask: its readers read the original
            for (const Use& use : p.uses(r))
                if (use.ancestor != kNoId && candidateIndex_[use.ancestor] != kNoId)
                    consumerCandidates_.push_back(candidateIndex_[use.ancestor]);
        }
        consumerCandidateOff_[k + 1] = uint32_t(consumerCandidates_.size());
    }
}

// The rewritten program's live ranges replayed on positions: calls emit(from, to, bytes,
// kind, source) for every range of non-resident storage (kind Clone: `source` is the cloned
// op; Original: the value), and with `residents` for resident storage too (kind Resident,
// alive from its definition to the end, as exec/Liveness counts it); `opAt`, when given,
// receives the original op at each position. Returns the position count, 0 when the
// rewriter would fail.
template <class Emit>
size_t BudgetPlanner::replayLiveRanges(const RecomputeSet& inR, bool residents, Emit&& emit,
                                       std::vector<OpId>* opAt) const {
    const Program& p = *program_;
    const Analysis& a = *analysis_;
    const auto gops = a.globalOps();
    const size_t n = gops.size();
    // Clones in program order and their anchors (ALGORITHM.md §7, as Rewriter.cpp places them).
    std::vector<uint32_t> clones;  // candidate indices
    for (uint32_t k = 0; k < inR.size(); ++k)
        if (inR[k]) clones.push_back(k);
    const size_t nc = clones.size();
    std::vector<uint32_t> cloneSlot(candidates_.size(), kNoId);
    for (uint32_t c = 0; c < nc; ++c) cloneSlot[clones[c]] = c;
    auto producerSlot = [&](ValueId x) -> uint32_t {
        if (x == kNoId || x >= p.values().size()) return kNoId;
        const uint32_t k = cloneCandidateOf_[x];  // kNoId for a mask: it stays the original
        return k == kNoId ? kNoId : cloneSlot[k];
    };
    std::vector<uint32_t> anchor(nc);
    for (uint32_t c = 0; c < nc; ++c) anchor[c] = firstBackwardUse_[clones[c]];
    for (size_t c = nc; c-- > 0;)
        forCloneOperands(clones[c], [&](ValueId x) {
            const uint32_t s = producerSlot(x);
            if (s != kNoId && anchor[c] != kNoId) anchor[s] = std::min(anchor[s], anchor[c]);
        });
    // Positions: clones sit before their anchor, same anchor in clone order.
    std::vector<uint32_t> before(n + 1, 0);
    for (uint32_t c = 0; c < nc; ++c) {
        if (anchor[c] == kNoId) return 0;  // the rewriter would fail
        ++before[anchor[c] + 1];
    }
    for (size_t i = 0; i < n; ++i) before[i + 1] += before[i];  // clones anchored before op i
    auto pos = [&](uint32_t i) { return i + before[i + 1]; };   // original op i
    std::vector<uint32_t> clonePos(nc), rank(n, 0);
    for (uint32_t c = 0; c < nc; ++c) clonePos[c] = anchor[c] + before[anchor[c]] + rank[anchor[c]]++;
    if (opAt) {
        opAt->assign(n + nc, kNoId);
        for (uint32_t i = 0; i < n; ++i) (*opAt)[pos(i)] = gops[i];
        for (uint32_t c = 0; c < nc; ++c) (*opAt)[clonePos[c]] = candidates_[clones[c]];
    }

    // Readers among the clones: of original values (subgraph inputs) and of clone results.
    std::vector<uint32_t> cloneRead(p.values().size(), kNoId), cloneResultRead(p.values().size(), kNoId);
    for (uint32_t c = 0; c < nc; ++c)
        forCloneOperands(clones[c], [&](ValueId x) {
            if (x == kNoId || x >= p.values().size()) return;
            auto& last = producerSlot(x) != kNoId ? cloneResultRead[x] : cloneRead[x];
            last = last == kNoId ? clonePos[c] : std::max(last, clonePos[c]);
        });
    // Storage as exec/Liveness.h counts it, buffer by buffer: each lives from the op (original
    // or clone) allocating it to the last reader of any value referring to it, aliases
    // included (builtin.split/combine/slice, fetch). A cloned alias refers to the clones'
    // buffers along its alias chain while the producers are cloned, else to the originals'.
    const size_t nb = bufferOwner_.size();
    std::vector<uint32_t> originalEnd(nb, 0), cloneEnd(nb, 0);
    // Whether value v (the clone's when `clone`, else the original) refers to the clone's copy
    // of buffer b: follow the alias op's operand holding b, read as the rewriter reads it (a
    // clone reads its producers' clones; a backward op reads a recomputed value's clone).
    auto refersToClone = [&](auto& self, ValueId v, bool clone, uint32_t b) -> bool {
        if (bufferOwner_[b] == v) return clone;
        const OpId def = p.value(v).definingOp;
        for (ValueId x : p.op(def).operands) {
            if (x == kNoId || x >= p.values().size()) continue;
            const auto xb = valueBuffers(x);
            if (std::find(xb.begin(), xb.end(), b) == xb.end()) continue;
            const bool readsClone = producerSlot(x) != kNoId && (clone || a.isBackwardRangeOp(def));
            return self(self, x, readsClone, b);
        }
        return false;
    };
    // Clone results: read from the clone to their last reader (clones and redirected backward uses).
    for (uint32_t c = 0; c < nc; ++c)
        forCloneResults(clones[c], [&](ValueId r) {
            if (resident_[r]) return;
            uint32_t last = clonePos[c];
            if (neededByBackward_[r] && lastRedirectedUse_[r] != kNoId) last = std::max(last, pos(lastRedirectedUse_[r]));
            if (cloneResultRead[r] != kNoId) last = std::max(last, cloneResultRead[r]);
            for (uint32_t b : valueBuffers(r)) {
                uint32_t& end = refersToClone(refersToClone, r, true, b) ? cloneEnd[b] : originalEnd[b];
                end = std::max(end, last);
            }
        });
    // Original values: read to their last use the rewriter keeps, and by clones.
    for (const GlobalResult& g : globalResults_) {
        const uint32_t i = g.index;
        const ValueId r = g.value;
        if (resident_[r]) continue;
        const uint32_t s = g.candidate == kNoId ? kNoId : cloneSlot[g.candidate];
        uint32_t last = (s != kNoId && neededByBackward_[r] && !maskValue_[r]) ? valueLastFixedUse_[r] : valueLastUse_[r];
        last = std::max<uint32_t>(pos(i), pos(std::max<uint32_t>(last, i)));
        if (cloneRead[r] != kNoId) last = std::max(last, cloneRead[r]);
        for (uint32_t b : valueBuffers(r)) {
            uint32_t& end = refersToClone(refersToClone, r, false, b) ? cloneEnd[b] : originalEnd[b];
            end = std::max(end, last);
        }
    }
    for (uint32_t c = 0; c < nc; ++c)
        forCloneResults(clones[c], [&](ValueId r) {
            if (resident_[r]) return;
            for (uint32_t b : valueBuffers(r))
                if (bufferOwner_[b] == r && bufferBytes_[b])
                    emit(clonePos[c], std::max(clonePos[c], cloneEnd[b]), bufferBytes_[b], RangeKind::Clone,
                         candidates_[clones[c]]);
        });
    const uint32_t endPos = uint32_t(n + nc - 1);
    for (uint32_t b = 0; b < nb; ++b) {
        const ValueId owner = bufferOwner_[b];
        if (!bufferBytes_[b] || defIndex_[owner] == kNoId) continue;
        const uint32_t from = pos(defIndex_[owner]);
        if (bufferResident_[b]) {
            if (residents) emit(from, endPos, bufferBytes_[b], RangeKind::Resident, owner);
            continue;
        }
        emit(from, std::max(from, originalEnd[b]), bufferBytes_[b], RangeKind::Original, owner);
    }
    return n + nc;
}

int64_t BudgetPlanner::simulatePeak(const std::vector<uint8_t>& inR, uint32_t* peakPositions) const {
    std::vector<int64_t> delta(analysis_->globalOps().size() + inR.size() + 2, 0);
    const size_t positions = replayLiveRanges(
        inR, /*residents=*/false,
        [&](uint32_t from, uint32_t to, int64_t bytes, RangeKind, uint32_t) {
            delta[from] += bytes;
            delta[std::max(from, to) + 1] -= bytes;
        },
        nullptr);
    if (!positions) return std::numeric_limits<int64_t>::max();  // the rewriter would fail
    int64_t cur = 0, peak = 0;
    uint32_t atPeak = 0;
    for (size_t i = 0; i < positions; ++i) {
        cur += delta[i];
        if (cur > peak) { peak = cur; atPeak = 0; }
        atPeak += cur == peak;
    }
    if (peakPositions) *peakPositions = atPeak;
    return peak + original_.residentBytes;
}

int64_t BudgetPlanner::replayedActivationPeakAtOriginalOps(const RecomputeSet& inR) const {
    std::vector<int64_t> delta(analysis_->globalOps().size() + inR.size() + 2, 0);
    std::vector<OpId> opAt;
    const size_t positions = replayLiveRanges(
        inR, /*residents=*/false,
        [&](uint32_t from, uint32_t to, int64_t bytes, RangeKind, uint32_t) {
            delta[from] += bytes;
            delta[std::max(from, to) + 1] -= bytes;
        },
        &opAt);
    if (!positions) return -1;
    // A clone repeats a forward op the program ran earlier: an op's first position is its original.
    std::vector<uint8_t> seen(program_->ops().size(), 0);
    int64_t cur = 0, peak = 0;
    for (size_t i = 0; i < positions; ++i) {
        cur += delta[i];
        if (opAt[i] < seen.size() && !seen[opAt[i]]) {
            seen[opAt[i]] = 1;
            peak = std::max(peak, cur);
        }
    }
    return peak;
}

BudgetPlanner::RecomputeSet BudgetPlanner::setOfCandidateOps(const std::vector<OpId>& ops) const {
    RecomputeSet inR(candidates_.size(), 0);
    for (OpId op : ops)
        if (op < candidateIndex_.size() && candidateIndex_[op] != kNoId) inR[candidateIndex_[op]] = 1;
    return inR;
}

std::pair<int64_t, int64_t> BudgetPlanner::replayedAndRewrittenPeak(const std::vector<OpId>& recomputeOps) {
    RecomputeSet inR = setOfCandidateOps(recomputeOps);
    inR = normalise(inR);
    const int64_t replayed = evaluate(inR).peak;
    const RewriteResult rw = partitionJointGraph(*analysis_, rxPlan(inR));
    if (!rw.ok()) return {replayed, -1};
    const MemoryProfile m = profileMemory(*rw.program, spec_.inputs, spec_.fwdOpEndIdx);
    return {replayed, m.ok() ? m.peakBytes : -1};
}

PeakBreakdown BudgetPlanner::simulatedBreakdown(const RecomputeSet& inR) const {
    // As peakBreakdown reads the rewritten program's liveness: the first position of the
    // highest live bytes (resident storage counted from its definition), then the
    // non-resident ranges alive there by who allocated them.
    const Program& p = *program_;
    struct Range {
        uint32_t from, to;
        int64_t bytes;
        RangeKind kind;
        uint32_t source;
    };
    std::vector<Range> ranges;
    std::vector<OpId> opAt;
    const size_t positions = replayLiveRanges(
        inR, /*residents=*/true,
        [&](uint32_t from, uint32_t to, int64_t bytes, RangeKind kind, uint32_t source) {
            ranges.push_back({from, std::max(from, to), bytes, kind, source});
        },
        &opAt);
    if (!positions) throw Error("rewriting the plan failed: a recomputed op has no backward user to anchor it");
    std::vector<int64_t> delta(positions + 1, 0);
    for (const Range& r : ranges) {
        delta[r.from] += r.bytes;
        delta[r.to + 1] -= r.bytes;
    }
    int64_t live = 0, peak = 0;
    uint32_t at = 0;
    for (size_t i = 0; i < positions; ++i) {
        live += delta[i];
        if (live > peak) { peak = live; at = uint32_t(i); }
    }
    std::vector<uint8_t> fetched(p.values().size(), 0);
    for (OpId op : analysis_->globalOps())
        if (isFetchOp(p.opName(op)))
            for (ValueId x : p.op(op).operands)
                if (x != kNoId && x < fetched.size()) fetched[x] = 1;
    PeakBreakdown out;
    out.peakOpIndex = at;
    if (at < opAt.size() && opAt[at] != kNoId) out.peakOpName = std::string(p.opName(opAt[at]));
    out.inBackward = int64_t(at) > analysis_->fwdEnd();
    for (const Range& r : ranges) {
        if (r.kind == RangeKind::Resident || r.from > at || r.to < at) continue;
        if (r.kind == RangeKind::Clone) out.recomputed += r.bytes;
        else if (int64_t(r.from) <= analysis_->fwdEnd()) out.forwardValues += r.bytes;
        else if (fetched[r.source]) out.outputs += r.bytes;
        else out.backwardTemporaries += r.bytes;
    }
    return out;
}

void BudgetPlanner::buildCandidates() {
    const Program& p = *program_;
    const Analysis& a = *analysis_;
    const auto gops = a.globalOps();
    const int64_t fwdEnd = a.fwdEnd(), bwdStart = a.bwdStart();

    auto isForwardDef = [&](ValueId v) {
        if (v == kNoId || v >= p.values().size() || resident_[v]) return false;
        const OpId d = p.value(v).definingOp;
        return d != kNoId && p.op(d).parentBlock == Program::kGlobalBlock && int64_t(a.opIndex(d)) <= fwdEnd;
    };

    neededByBackward_.assign(p.values().size(), 0);
    std::vector<ValueId> stack;
    for (OpId op : gops) {
        if (int64_t(a.opIndex(op)) > fwdEnd) break;
        for (ValueId r : p.op(op).results) {
            if (!isForwardDef(r)) continue;
            for (const Use& use : p.uses(r))
                if (use.ancestor != kNoId && int64_t(a.opIndex(use.ancestor)) >= bwdStart) {
                    neededByBackward_[r] = 1;
                    stack.push_back(r);
                    break;
                }
        }
    }

    const std::vector<std::string> random = config_.randomOps;
    recomputable_.assign(p.ops().size(), 0);
    std::vector<uint8_t> inCone(p.ops().size(), 0), seen(p.values().size(), 0);
    for (ValueId v : stack) seen[v] = 1;
    while (!stack.empty()) {
        const ValueId v = stack.back();
        stack.pop_back();
        const OpId d = p.value(v).definingOp;
        if (inCone[d]) continue;
        inCone[d] = 1;
        for (ValueId x : p.op(d).operands)
            if (isForwardDef(x) && !seen[x]) { seen[x] = 1; stack.push_back(x); }
    }
    candidateIndex_.assign(p.ops().size(), kNoId);
    maskValue_.assign(p.values().size(), 0);
    for (OpId op : gops) {
        if (!inCone[op]) continue;
        coneOps_.push_back(op);
        const Operation& o = p.op(op);
        const std::string_view name = p.opName(op);
        // --recompute-random lifts the random ban for the ops it can recompute faithfully.
        const RandomCloneForm form = randomCloneForm(p, op, options_.randomRecompute);
        bool ok = o.regions.empty() && !o.results.empty() &&
                  (form != RandomCloneForm::Never || (!sideEffecting(name) && !contains(random, name)));
        for (ValueId r : o.results) ok = ok && !resident_[r];
        // Operands must be reachable by the clone: global values (nested ones cannot be).
        for (ValueId x : o.operands)
            if (x != kNoId && p.value(x).block != Program::kGlobalBlock) ok = false;
        if (!ok) continue;
        recomputable_[op] = 1;
        candidateIndex_[op] = uint32_t(candidates_.size());
        candidates_.push_back(op);
        ValueId mask = kNoId;
        if (form == RandomCloneForm::ApplyMask) {
            mask = maskApplication(p, op).mask;
            maskValue_[mask] = 1;
        }
        cloneMask_.push_back(mask);
    }

    net_ = buildNetwork(nullptr);

    resultBytes_.assign(candidates_.size(), 0);
    for (uint32_t k = 0; k < candidates_.size(); ++k)
        forCloneResults(k, [&](ValueId r) { resultBytes_[k] += p.valueBytes(r); });
    int64_t neededBytes = 0;
    double candidateCost = 0;
    for (ValueId v = 0; v < p.values().size(); ++v)
        if (neededByBackward_[v]) neededBytes += p.valueBytes(v);
    for (OpId op : candidates_) candidateCost += costs_.cost(op);
    lambdaScale_ = candidateCost > 0 ? double(std::max<int64_t>(neededBytes, 1)) / candidateCost : 1.0;
}

void BudgetPlanner::findLayerInputs() {
    // Layers as the explorer shows them (algorithms/Layers.h). A layer's inputs: forward
    // activations defined before it (in another group) that its ops read: the residual
    // stream between blocks, and whatever the block reads from the embedding.
    if (layersDone_) return;
    layersDone_ = true;
    const Program& p = *program_;
    const Analysis& a = *analysis_;
    const auto gops = a.globalOps();
    const LayerPartition layers = detectLayers(p, a.fwdEnd(), a.bwdStart());
    inLayer_.assign(candidates_.size(), 0);
    std::vector<uint8_t> taken(p.values().size(), 0);
    for (const LayerGroup& g : layers.groups) {
        if (g.kind != LayerGroup::Kind::Layer) continue;
        for (uint32_t i = g.fwdBegin; i < g.fwdEnd && i < gops.size(); ++i) {
            if (candidateIndex_[gops[i]] != kNoId) inLayer_[candidateIndex_[gops[i]]] = 1;
            for (ValueId x : p.op(gops[i]).operands) {
                if (x == kNoId || x >= p.values().size() || resident_[x] || taken[x]) continue;
                const uint32_t d = defIndex_[x];
                if (d == kNoId || d >= g.fwdBegin || int64_t(d) > a.fwdEnd() || !p.valueBytes(x)) continue;
                taken[x] = 1;
                layerInputs_.push_back(x);
            }
        }
    }
    sortValuesByName(p, layerInputs_);
}

std::vector<uint8_t> BudgetPlanner::normalise(const std::vector<uint8_t>& wantedIn) const {
    std::vector<uint8_t> wanted = wantedIn;
    const size_t nc = candidates_.size();
    for (;;) {
        // Close: recompute a wanted op only when the backward or another recomputed op needs it.
        std::vector<uint8_t> inR(nc, 0);
        std::vector<uint32_t> stack;
        for (uint32_t k = 0; k < nc; ++k)
            if (wanted[k] && cloneNeeded_[k]) { inR[k] = 1; stack.push_back(k); }
        while (!stack.empty()) {
            const uint32_t k = stack.back();
            stack.pop_back();
            for (uint32_t i = operandCandidateOff_[k]; i < operandCandidateOff_[k + 1]; ++i) {
                const uint32_t d = operandCandidates_[i];
                if (wanted[d] && !inR[d]) { inR[d] = 1; stack.push_back(d); }
            }
        }
        // The rewriter places a clone before the first backward user of its first result or
        // before the earliest placed clone using it (ALGORITHM.md §7); drop ops it cannot place.
        std::vector<uint8_t> anchored(nc, 0);
        bool allAnchored = true;
        for (size_t k = nc; k-- > 0;) {
            if (!inR[k]) continue;
            bool ok = firstBackwardUse_[k] != kNoId;
            for (uint32_t i = consumerCandidateOff_[k]; i < consumerCandidateOff_[k + 1] && !ok; ++i) {
                const uint32_t c = consumerCandidates_[i];
                ok = inR[c] && anchored[c];
            }
            anchored[k] = ok;
            if (!ok) { allAnchored = false; wanted[k] = 0; }
        }
        if (allAnchored) return inR;
    }
}

Plan BudgetPlanner::rxPlan(const std::vector<uint8_t>& inR) const {
    const Program& p = *program_;
    Plan plan;
    plan.randomRecompute = options_.randomRecompute;
    std::vector<uint8_t> produced(p.values().size(), 0), input(p.values().size(), 0);
    for (uint32_t k = 0; k < candidates_.size(); ++k)
        if (inR[k]) {
            plan.recomputeOps.push_back(candidates_[k]);
            forCloneResults(k, [&](ValueId r) { produced[r] = 1; });
        }
    for (OpId op : plan.recomputeOps) {
        const uint32_t k = candidateIndex_[op];
        forCloneOperands(k, [&](ValueId x) {
            if (x != kNoId && !produced[x] && !input[x]) { input[x] = 1; plan.subgraphInputs.push_back(x); }
        });
        forCloneResults(k, [&](ValueId r) {
            if (neededByBackward_[r]) {
                plan.midHoldValues.push_back(r);
                plan.memorySavedBytes += p.valueBytes(r);
            }
        });
    }
    for (ValueId x : plan.subgraphInputs)
        if (!resident_[x]) plan.savedValues.push_back(x);
    sortValuesByName(p, plan.savedValues);
    sortValuesByName(p, plan.midHoldValues);
    sortValuesByName(p, plan.subgraphInputs);
    plan.maxRecomputeDepth = plan.recomputeOps.size();
    return plan;
}

const BudgetPlanner::Evaluated& BudgetPlanner::evaluate(const RecomputeSet& inR) {
    if (auto it = measured_.find(inR); it != measured_.end()) return it->second;
    Evaluated e;
    e.inR = inR;
    e.cost = recomputeCostOf(inR);
    e.peak = simulatePeak(inR, &e.peakPositions);
    e.activation = e.peak == std::numeric_limits<int64_t>::max() ? e.peak : e.peak - original_.residentBytes;
    return measured_.emplace(inR, std::move(e)).first->second;
}

double BudgetPlanner::recomputeCostOf(const RecomputeSet& inR) const {
    double cost = 0;
    for (uint32_t k = 0; k < candidates_.size(); ++k)
        if (inR[k]) cost += costs_.cost(candidates_[k]);
    return cost;
}

std::optional<BudgetPlanner::RecomputeSet> BudgetPlanner::candidateSet(const BudgetPlan& plan) const {
    RecomputeSet inR(candidates_.size(), 0);
    for (OpId op : plan.recomputeOps) {
        if (op >= candidateIndex_.size() || candidateIndex_[op] == kNoId) return std::nullopt;
        inR[candidateIndex_[op]] = 1;
    }
    if (normalise(inR) != inR) return std::nullopt;
    return inR;
}

std::optional<BudgetPlanner::RecomputeSet> BudgetPlanner::replayableSet(const Plan& plan) const {
    RecomputeSet inR(candidates_.size(), 0);
    for (OpId op : plan.recomputeOps) {
        if (op >= candidateIndex_.size() || candidateIndex_[op] == kNoId) return std::nullopt;
        inR[candidateIndex_[op]] = 1;
    }
    if (normalise(inR) != inR) return std::nullopt;
    const Plan own = rxPlan(inR);
    auto same = [](std::vector<ValueId> x, std::vector<ValueId> y) {
        std::sort(x.begin(), x.end());
        std::sort(y.begin(), y.end());
        return x == y;
    };
    if (!same(own.midHoldValues, plan.midHoldValues) || !same(own.subgraphInputs, plan.subgraphInputs))
        return std::nullopt;
    return inR;
}

BudgetPlan BudgetPlanner::makePlan(const std::vector<uint8_t>& inR, const std::string& source) {
    const Program& p = *program_;
    const Evaluated& e = evaluate(inR);
    BudgetPlan out;
    out.source = source;
    out.plan = rxPlan(inR);
    out.recomputeOps = out.plan.recomputeOps;
    out.recomputedValues = out.plan.midHoldValues;
    // Saved: needed values the forward keeps, plus the clones' non-resident inputs.
    std::vector<uint8_t> produced(p.values().size(), 0), saved(p.values().size(), 0);
    for (OpId op : out.recomputeOps) forCloneResults(candidateIndex_[op], [&](ValueId r) { produced[r] = 1; });
    for (ValueId v = 0; v < p.values().size(); ++v)
        if (neededByBackward_[v] && !produced[v]) saved[v] = 1;
    for (ValueId x : out.plan.savedValues) saved[x] = 1;
    for (ValueId v = 0; v < p.values().size(); ++v)
        if (saved[v]) out.savedValues.push_back(v);
    sortValuesByName(p, out.savedValues);
    // Figures by the rewriter's placement replayed on positions (simulatePeak, equal to
    // profileMemory of the rewritten program: tests check it on every zoo model): building
    // and profiling a copy of the program per plan cost a 1M-op frontier most of its time.
    if (e.peak == std::numeric_limits<int64_t>::max())
        throw Error("rewriting the " + source + " plan failed: a recomputed op has no backward user to anchor it");
    out.peakBytes = e.peak;
    out.activationPeakBytes = e.activation;
    out.recomputeCost = e.cost;
    for (OpId op : out.recomputeOps) out.recomputeFlops += costs_.flops(op);
    return out;
}

int64_t BudgetPlanner::savedBytes(const std::vector<uint8_t>& inR) const {
    const Program& p = *program_;
    const Plan plan = rxPlan(inR);
    std::vector<uint8_t> produced(p.values().size(), 0);
    for (OpId op : plan.recomputeOps) forCloneResults(candidateIndex_[op], [&](ValueId r) { produced[r] = 1; });
    int64_t bytes = 0;
    for (ValueId v = 0; v < p.values().size(); ++v)
        if (neededByBackward_[v] && !produced[v]) bytes += p.valueBytes(v);
    for (ValueId x : plan.savedValues)
        if (!neededByBackward_[x] || produced[x]) bytes += p.valueBytes(x);
    return bytes;
}

int64_t BudgetPlanner::simulatedPeakOf(const BudgetPlan& plan) const {
    std::vector<uint8_t> inR(candidates_.size(), 0);
    for (OpId op : plan.recomputeOps) {
        if (op >= candidateIndex_.size() || candidateIndex_[op] == kNoId) return -1;
        inR[candidateIndex_[op]] = 1;
    }
    return simulatePeak(inR);
}

BudgetPlanner::BufferReferrers BudgetPlanner::bufferReferrers() const {
    const size_t nv = program_->values().size();
    BufferReferrers out;
    out.offset.assign(bufferOwner_.size() + 1, 0);
    auto counted = [&](ValueId v) { return defIndex_[v] != kNoId && !resident_[v]; };
    for (ValueId v = 0; v < nv; ++v)
        if (counted(v))
            for (uint32_t b : valueBuffers(v)) ++out.offset[b + 1];
    for (size_t b = 0; b < bufferOwner_.size(); ++b) out.offset[b + 1] += out.offset[b];
    out.values.resize(out.offset.back());
    std::vector<uint32_t> next(out.offset.begin(), out.offset.end() - 1);
    for (ValueId v = 0; v < nv; ++v)  // ascending within each buffer, as the MILP's rows are built
        if (counted(v))
            for (uint32_t b : valueBuffers(v)) out.values[next[b]++] = v;
    return out;
}

int64_t BudgetPlanner::activationLowerBound() const {
    const Program& p = *program_;
    const Analysis& a = *analysis_;
    const size_t n = a.globalOps().size();
    // Storage buffer by buffer, as replayLiveRanges counts it, over what every plan must keep
    // (a plan clones a candidate op once; clones read forward values only and sit before
    // backward ops). A value referring to a buffer (its owner, or an alias of it:
    // builtin.split, slice, fetch) keeps some copy alive while it is read:
    // - a value defined in the forward refers to the original copy, so its uses the rewriter
    //   never redirects hold that copy from the owner's op on;
    // - its redirected backward uses all read the clone when its op is cloned, the original
    //   otherwise: one copy from the first to the last;
    // - a value defined in the backward refers to one copy from its op to its last use.
    // The aliases' uses are why it goes by buffer: a pd_op.split owning a GRU's three gates
    // has no backward use itself, its builtin.split results do.
    const BufferReferrers referrers = bufferReferrers();
    std::vector<int64_t> delta(n + 2, 0);
    std::vector<std::pair<uint32_t, uint32_t>> held;  // one buffer's spans, by op index
    for (uint32_t b = 0; b < bufferOwner_.size(); ++b) {
        const ValueId owner = bufferOwner_[b];
        if (!bufferBytes_[b] || bufferResident_[b] || owner == kNoId || defIndex_[owner] == kNoId || resident_[owner])
            continue;
        const uint32_t d = defIndex_[owner];
        uint32_t originalEnd = d;
        held.clear();
        for (ValueId v : referrers.of(b)) {
            if (a.isBackwardRangeOp(p.value(v).definingOp)) {
                held.emplace_back(defIndex_[v], std::max(defIndex_[v], valueLastUse_[v]));
                continue;
            }
            uint32_t first = kNoId, last = 0;
            for (const Use& use : p.uses(v)) {
                if (use.ancestor == kNoId) continue;
                const uint32_t i = a.opIndex(use.ancestor);
                if (i == kNoId) continue;
                const bool redirected = cloneCandidateOf_[v] != kNoId && use.user == use.ancestor &&
                                        a.isBackwardRangeOp(use.user);
                if (!redirected) {
                    originalEnd = std::max(originalEnd, i);
                } else {
                    first = std::min(first, i);
                    last = std::max(last, i);
                }
            }
            if (first != kNoId) held.emplace_back(first, last);
        }
        held.emplace_back(d, originalEnd);
        // The spans' union, each op counted once.
        std::sort(held.begin(), held.end());
        uint32_t from = held[0].first, to = held[0].second;
        for (size_t s = 1; s <= held.size(); ++s) {
            if (s < held.size() && held[s].first <= to + 1) {
                to = std::max(to, held[s].second);
                continue;
            }
            delta[from] += bufferBytes_[b];
            delta[size_t(to) + 1] -= bufferBytes_[b];
            if (s < held.size()) std::tie(from, to) = held[s];
        }
    }
    // Every operand of an op lies in one of these spans, so the bound includes what the op reads.
    int64_t live = 0, bound = 0;
    for (size_t i = 0; i < n; ++i) {
        live += delta[i];
        bound = std::max(bound, live);
    }
    return bound;
}
}  // namespace rx::planner
