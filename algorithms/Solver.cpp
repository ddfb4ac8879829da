#include "algorithms/Solver.h"

#include <chrono>
#include <future>

#include "model/Diagnostic.h"

namespace rx {

namespace {
using Clock = std::chrono::steady_clock;
double msSince(Clock::time_point t) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}
}  // namespace

RecomputeSolver::RecomputeSolver(std::shared_ptr<const Program> program, RecomputeSpec spec,
                                 const NoNeedBufferTable& table)
    : analysis_(std::make_shared<Analysis>(std::move(program), spec, table)) {}

RecomputeSolver::RecomputeSolver(std::shared_ptr<const Analysis> analysis) : analysis_(std::move(analysis)) {}

std::shared_ptr<const std::vector<uint8_t>> RecomputeSolver::fusionLoop(const RecomputeConfig& config,
                                                                         const OpClasses& classes) const {
    // The judge depends only on the unrecomputable ops (and the program): cache by that set.
    const std::vector<std::string> key = config.unrecomputableOps();
    {
        std::lock_guard<std::mutex> lock(mutex_);
        auto it = fusionCache_.find(key);
        if (it != fusionCache_.end()) return it->second;
    }
    auto flags = std::make_shared<const std::vector<uint8_t>>(analysis_->fusionLoopFlags(classes));
    std::lock_guard<std::mutex> lock(mutex_);
    if (fusionCache_.size() >= 16) fusionCache_.clear();
    fusionCache_.emplace(key, flags);
    return flags;
}

SolveResult RecomputeSolver::solve(const RecomputeConfig& config, const SolveOptions& options) const {
    SolveResult res;  // filled in place: returned without copying the plan's per-value reasons
    solveInto(res, config, options, {});
    return res;
}

void RecomputeSolver::solveInto(SolveResult& res, const RecomputeConfig& config, const SolveOptions& options,
                                const SolveStages& stages) const {
    const auto start = Clock::now();
    const Analysis& a = *analysis_;
    const Program& p = a.program();
    auto finish = [&] { res.timings.totalMs = msSince(start); };
    std::vector<ValueId> resident(a.spec().inputs.begin(), a.spec().inputs.end());
    // The rewrite's copy of the program is made on a second core while the cut is solved (the
    // copy needs only the original; a 56k-op chain's copy is a third of its rewrite). Spare
    // capacity for the clones is address space only until the clones use it.
    std::future<std::shared_ptr<Program>> rewriteCopy;
    if (options.rewrite && a.error().empty() && !a.unchanged())
        rewriteCopy = std::async(std::launch::async, [&p] {
            return std::make_shared<Program>(p, p.ops().size() / 2 + 16, p.values().size() / 2 + 16);
        });
    if (options.memory) {
        std::lock_guard<std::mutex> lock(mutex_);
        if (!originalMemory_)
            originalMemory_ = std::make_shared<const MemoryProfile>(profileMemory(p, resident, a.fwdEnd()));
        res.originalMemory = *originalMemory_;
    }
    if (!a.error().empty()) {
        res.error = a.error();
        return finish();
    }
    if (a.unchanged()) {
        res.unchanged = true;
        res.rewritten = a.programPtr();
        res.rewrittenMemory = res.originalMemory;
        return finish();
    }

    auto t = Clock::now();
    const OpClasses classes = a.classify(config);
    const auto fusion = fusionLoop(config, classes);
    std::shared_ptr<FlowNetwork> network;
    try {
        network = std::make_shared<FlowNetwork>(buildFlowNetwork(a, config, classes, *fusion));
    } catch (const Error& e) {  // a config that cannot be represented exactly
        res.error = e.what();
        return finish();
    }
    res.network = network;
    res.seedError = network->seedError;
    res.extension = !res.seedError.empty();
    res.timings.buildMs = msSince(t);

    t = Clock::now();
    res.cut = solveMinCut(*network, p, MinCutOptions{options.reduced});
    res.timings.solveMs = msSince(t);
    if (!res.cut.ok()) {
        res.error = res.cut.error;
        res.plan.warnings = network->warnings;
        return finish();
    }

    t = Clock::now();
    std::string planError;
    res.plan = buildPlan(a, config, classes, *network, res.cut, planError);
    res.timings.planMs = msSince(t);
    if (!planError.empty()) {
        res.error = planError;
        return finish();
    }

    if (stages.planReady) stages.planReady();

    if (options.rewrite) {
        t = Clock::now();
        RewriteResult rw = partitionJointGraph(a, res.plan, rewriteCopy.get());
        res.timings.rewriteMs = msSince(t);
        if (!rw.ok()) {
            res.error = rw.error;
            return finish();
        }
        res.clones = std::move(rw.clones);
        res.cloneOf = std::move(rw.cloneOf);
        res.rewritten = std::move(rw.program);
        if (stages.rewritten) stages.rewritten();
        if (options.memory) {
            t = Clock::now();
            res.rewrittenMemory = profileMemory(*res.rewritten, resident, a.fwdEnd());
            res.timings.memoryMs = msSince(t);
        }
    }
    finish();
}

}  // namespace rx
