// The exact mode's branch-and-bound engines (GLPK's and CBC's, or both at once) on one MILP
// built with GLPK's API.
//
// Why both (README "Exact mode"): they close different points. GLPK's search runs many cheap
// nodes; CBC's strong branching closes in a few nodes points GLPK leaves a granule of cost short
// (a 331-candidate LSTM point: 2 nodes), but its root work can take a whole share. GLPK keeps
// the LP relaxations: its dual simplex warm-starts from a basis and stops on an iteration
// count, so the bounds are the same at any load.
#include "algorithms/planner/BranchAndBound.h"

#include <glpk.h>

#include <Cbc_C_Interface.h>
#include <Clp_C_Interface.h>
#include <dlfcn.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cfloat>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <optional>
#include <memory>
#include <string>
#include <thread>
#include <tuple>
#include <type_traits>

namespace rx::planner {

namespace {

// libCbcSolver's C interface, opened on the first search (CMakeLists: no other command loads
// the COIN-OR stack and the LAPACK behind it); null members where it cannot be loaded.
struct CbcLibrary {
    decltype(&Cbc_newModel) newModel = nullptr;
    decltype(&Cbc_deleteModel) deleteModel = nullptr;
    decltype(&Cbc_loadProblem) loadProblem = nullptr;
    decltype(&Cbc_setObjSense) setObjSense = nullptr;
    decltype(&Cbc_setInteger) setInteger = nullptr;
    decltype(&Cbc_setLogLevel) setLogLevel = nullptr;
    decltype(&Cbc_setParameter) setParameter = nullptr;
    decltype(&Cbc_setCutoff) setCutoff = nullptr;
    decltype(&Cbc_setAllowableGap) setAllowableGap = nullptr;
    decltype(&Cbc_setMIPStartI) setMIPStartI = nullptr;
    decltype(&Cbc_solve) solve = nullptr;
    decltype(&Cbc_bestSolution) bestSolution = nullptr;
    decltype(&Cbc_getObjValue) getObjValue = nullptr;
    decltype(&Cbc_getBestPossibleObjValue) getBestPossibleObjValue = nullptr;
    decltype(&Cbc_isAbandoned) isAbandoned = nullptr;
    decltype(&Cbc_isProvenInfeasible) isProvenInfeasible = nullptr;
    decltype(&Cbc_status) status = nullptr;
    decltype(&Cbc_isSecondsLimitReached) isSecondsLimitReached = nullptr;
    bool loaded = false;
    // Clp's C interface, from the same library's dependencies (ClpRelaxation).
    struct Clp {
        decltype(&Clp_newModel) newModel = nullptr;
        decltype(&Clp_deleteModel) deleteModel = nullptr;
        decltype(&Clp_loadProblem) loadProblem = nullptr;
        decltype(&Clp_setLogLevel) setLogLevel = nullptr;
        decltype(&Clp_chgRowLower) chgRowLower = nullptr;
        decltype(&Clp_chgRowUpper) chgRowUpper = nullptr;
        decltype(&Clp_chgColumnLower) chgColumnLower = nullptr;
        decltype(&Clp_chgColumnUpper) chgColumnUpper = nullptr;
        decltype(&Clp_setMaximumIterations) setMaximumIterations = nullptr;
        decltype(&Clp_setMaximumSeconds) setMaximumSeconds = nullptr;
        decltype(&Clp_dual) dual = nullptr;
        decltype(&Clp_status) status = nullptr;
        decltype(&Clp_objectiveValue) objectiveValue = nullptr;
        decltype(&Clp_getRowStatus) getRowStatus = nullptr;
        decltype(&Clp_getColumnStatus) getColumnStatus = nullptr;
        decltype(&Clp_setRowStatus) setRowStatus = nullptr;
        decltype(&Clp_setColumnStatus) setColumnStatus = nullptr;
        decltype(&Clp_scaling) scaling = nullptr;
        decltype(&Clp_setDualObjectiveLimit) setDualObjectiveLimit = nullptr;
        decltype(&Clp_dualRowSolution) dualRowSolution = nullptr;
        decltype(&Clp_getColSolution) getColSolution = nullptr;
        bool loaded = false;
    } clp;
};

const CbcLibrary& cbcLibrary() {
    static const CbcLibrary lib = [] {
        CbcLibrary l;
        void* handle = ::dlopen(RX_CBC_LIBRARY, RTLD_NOW | RTLD_LOCAL);
        if (!handle) return l;
        auto bind = [&](auto& fn, const char* name) {
            fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(::dlsym(handle, name));
            return fn != nullptr;
        };
        l.loaded = bind(l.newModel, "Cbc_newModel") && bind(l.deleteModel, "Cbc_deleteModel") &&
                   bind(l.loadProblem, "Cbc_loadProblem") && bind(l.setObjSense, "Cbc_setObjSense") &&
                   bind(l.setInteger, "Cbc_setInteger") &&
                   bind(l.setLogLevel, "Cbc_setLogLevel") && bind(l.setParameter, "Cbc_setParameter") &&
                   bind(l.setCutoff, "Cbc_setCutoff") && bind(l.setAllowableGap, "Cbc_setAllowableGap") &&
                   bind(l.setMIPStartI, "Cbc_setMIPStartI") &&
                   bind(l.solve, "Cbc_solve") && bind(l.bestSolution, "Cbc_bestSolution") &&
                   bind(l.getObjValue, "Cbc_getObjValue") &&
                   bind(l.getBestPossibleObjValue, "Cbc_getBestPossibleObjValue") &&
                   bind(l.isAbandoned, "Cbc_isAbandoned") && bind(l.isProvenInfeasible, "Cbc_isProvenInfeasible") &&
                   bind(l.status, "Cbc_status") && bind(l.isSecondsLimitReached, "Cbc_isSecondsLimitReached");
        CbcLibrary::Clp& c = l.clp;
        c.loaded = bind(c.newModel, "Clp_newModel") && bind(c.deleteModel, "Clp_deleteModel") &&
                   bind(c.loadProblem, "Clp_loadProblem") && bind(c.setLogLevel, "Clp_setLogLevel") &&
                   bind(c.chgRowLower, "Clp_chgRowLower") && bind(c.chgRowUpper, "Clp_chgRowUpper") &&
                   bind(c.chgColumnLower, "Clp_chgColumnLower") && bind(c.chgColumnUpper, "Clp_chgColumnUpper") &&
                   bind(c.setMaximumIterations, "Clp_setMaximumIterations") &&
                   bind(c.setMaximumSeconds, "Clp_setMaximumSeconds") && bind(c.dual, "Clp_dual") &&
                   bind(c.status, "Clp_status") && bind(c.objectiveValue, "Clp_objectiveValue") &&
                   bind(c.getRowStatus, "Clp_getRowStatus") && bind(c.getColumnStatus, "Clp_getColumnStatus") &&
                   bind(c.setRowStatus, "Clp_setRowStatus") && bind(c.setColumnStatus, "Clp_setColumnStatus") &&
                   bind(c.scaling, "Clp_scaling") &&
                   bind(c.setDualObjectiveLimit, "Clp_setDualObjectiveLimit") &&
                   bind(c.dualRowSolution, "Clp_dualRowSolution") && bind(c.getColSolution, "Clp_getColSolution");
        return l;
    }();
    return lib;
}

struct CbcModelDeleter {
    void operator()(Cbc_Model* m) const { cbcLibrary().deleteModel(m); }
};

// GLPK's bounds of a row or column as CBC's (±DBL_MAX where GLPK has none).
std::pair<double, double> boundsOf(int type, double lo, double hi) {
    switch (type) {
        case GLP_FR: return {-DBL_MAX, DBL_MAX};
        case GLP_LO: return {lo, DBL_MAX};
        case GLP_UP: return {-DBL_MAX, hi};
        case GLP_FX: return {lo, lo};
        default: return {lo, hi};  // GLP_DB
    }
}

std::string secondsText(double s) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f", std::max(0.001, s));
    return buf;
}

// GLPK's tree: its global bound (its best active node's), kept for a search that runs out of
// time; with a gap, the search stops as soon as the bound is that close to its best solution.
struct TreeBound {
    double best = -std::numeric_limits<double>::infinity();
    double absoluteGap = 0;
    bool closedToGap = false;
    std::function<void(double)> boundRaised;  // for the parent of a search's process
    std::function<void()> solutionFound;       // the searched problem holds a new incumbent
};

void trackTreeBound(glp_tree* tree, void* info) {
    auto* tracked = static_cast<TreeBound*>(info);
    const int reason = glp_ios_reason(tree);
    if (reason != GLP_ISELECT && reason != GLP_IBINGO && reason != GLP_IPREPRO) return;
    const double before = tracked->best;
    if (const int node = glp_ios_best_node(tree))
        tracked->best = std::max(tracked->best, glp_ios_node_bound(tree, node));
    glp_prob* searched = glp_ios_get_prob(tree);
    if (tracked->best > before && tracked->boundRaised) tracked->boundRaised(tracked->best);
    if (reason == GLP_IBINGO && tracked->solutionFound) tracked->solutionFound();
    if (tracked->absoluteGap > 0 && std::isfinite(tracked->best) && glp_mip_status(searched) == GLP_FEAS &&
        glp_mip_obj_val(searched) - tracked->best < tracked->absoluteGap) {
        tracked->closedToGap = true;
        glp_ios_terminate(tree);
    }
}

// The objective as a row, at most `cutoff` (none where it is infinite); its index, or 0.
int addCutoffRow(glp_prob* lp, double cutoff) {
    if (!std::isfinite(cutoff)) return 0;
    const int cols = glp_get_num_cols(lp);
    std::vector<int> ind{0};
    std::vector<double> val{0.0};
    for (int j = 1; j <= cols; ++j)
        if (const double c = glp_get_obj_coef(lp, j); c != 0) {
            ind.push_back(j);
            val.push_back(c);
        }
    const int row = glp_add_rows(lp, 1);
    glp_set_mat_row(lp, row, int(ind.size()) - 1, ind.data(), val.data());
    glp_set_row_bnds(lp, row, GLP_UP, 0.0, cutoff - glp_get_obj_coef(lp, 0));
    return row;
}

}  // namespace

CutoffRow::CutoffRow(glp_prob* lp, double cutoff) : lp_(lp), row_(addCutoffRow(lp, cutoff)) {}

CutoffRow::~CutoffRow() {
    if (!row_) return;
    const int rows[2] = {0, row_};
    glp_del_rows(lp_, 1, rows);
}

namespace {

// To a socket (forkChild's): a peer that died fails the write (MSG_NOSIGNAL), not the process.
bool writeAll(int fd, const void* data, size_t bytes) {
    const char* p = static_cast<const char*>(data);
    while (bytes > 0) {
        const ssize_t n = ::send(fd, p, bytes, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        p += n;
        bytes -= size_t(n);
    }
    return true;
}

// What a search's child process sends, message by message: a kind, then its payload.
enum class ChildMessage : int32_t {
    Bound = 1,      // a double: every solution below the cut-off costs at least this (so far)
    Incumbent = 2,  // a ResultHeader, then its columns: a solution found on the way
    Result = 3,     // a ResultHeader, then its columns: the search's end
};
struct ResultHeader {
    int32_t status;
    double objective, bound;
    int64_t columns;
};

// The child's end of its socket (forkChild).
class ChildChannel {
public:
    explicit ChildChannel(int fd) : fd_(fd) {}
    void sendBound(double bound) const {
        char buf[sizeof(int32_t) + sizeof(double)];
        const auto k = int32_t(ChildMessage::Bound);
        std::memcpy(buf, &k, sizeof k);
        std::memcpy(buf + sizeof k, &bound, sizeof bound);
        writeAll(fd_, buf, sizeof buf);
    }
    // A search's outcome: an incumbent on the way, or its result at the end.
    bool send(ChildMessage kind, const MilpSearch& r) const {
        const auto k = int32_t(kind);
        const ResultHeader h{int32_t(r.status), r.objective, r.bound, int64_t(r.columns.size())};
        return writeAll(fd_, &k, sizeof k) && writeAll(fd_, &h, sizeof h) &&
               writeAll(fd_, r.columns.data(), r.columns.size() * sizeof(double));
    }

private:
    int fd_;
};

// A search run in a child process: what `search` returns comes back on a socket, with the
// bounds and incumbents it reports on the way. Why a child (searchWithCbc): a crash there
// cannot take the CLI or the explorer with it, its state is its own, and it can be stopped:
// GLPK and CBC check their clocks between nodes only, and one node's solve has run past a
// limit by 15 s. Past `killAfter` seconds the child is killed; the outcome then has no result,
// but what was reported before: the bound, and the last solution found with its columns.
struct ChildOutcome {
    std::optional<MilpSearch> result;     // none: killed, crashed or garbled
    std::optional<MilpSearch> incumbent;  // the last solution reported on the way
    double bound = -std::numeric_limits<double>::infinity();
    bool killed = false;  // past its time, or stopped (SearchLimits::stop); the caller kills it
};

bool readAll(int fd, void* data, size_t bytes) {
    char* p = static_cast<char*>(data);
    while (bytes > 0) {
        const ssize_t n = ::read(fd, p, bytes);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        p += n;
        bytes -= size_t(n);
    }
    return true;
}

// The parent's end: the messages of one search read from `fd` until its result, the end of
// the child's output, `killAfter` seconds or `stop` set (then `outcome.killed`; the caller
// kills it).
ChildOutcome readSearchMessages(int fd, double killAfter, const std::atomic<bool>* stop) {
    ChildOutcome outcome;
    std::vector<char> received;
    size_t parsed = 0;
    bool ended = false;
    // Takes the complete messages received so far.
    auto parse = [&] {
        for (;;) {
            int32_t kind;
            if (received.size() - parsed < sizeof kind) return;
            std::memcpy(&kind, received.data() + parsed, sizeof kind);
            const char* payload = received.data() + parsed + sizeof kind;
            const size_t available = received.size() - parsed - sizeof kind;
            if (kind == int32_t(ChildMessage::Bound)) {
                double value;
                if (available < sizeof value) return;
                std::memcpy(&value, payload, sizeof value);
                outcome.bound = std::max(outcome.bound, value);
                parsed += sizeof kind + sizeof value;
            } else if (kind == int32_t(ChildMessage::Result) || kind == int32_t(ChildMessage::Incumbent)) {
                ResultHeader h;
                if (available < sizeof h) return;
                std::memcpy(&h, payload, sizeof h);
                if (h.columns < 0) {
                    ended = true;  // garbled: no result
                    return;
                }
                const size_t bytes = size_t(h.columns) * sizeof(double);
                if (available < sizeof h + bytes) return;
                MilpSearch r;
                r.status = MilpSearch::Status(h.status);
                r.objective = h.objective;
                r.bound = h.bound;
                r.columns.resize(size_t(h.columns));
                std::memcpy(r.columns.data(), payload + sizeof h, bytes);
                parsed += sizeof kind + sizeof h + bytes;
                if (kind == int32_t(ChildMessage::Incumbent)) {
                    outcome.incumbent = std::move(r);
                    continue;
                }
                outcome.result = std::move(r);
                ended = true;
                return;
            } else {
                ended = true;  // garbled
                return;
            }
        }
    };
    using Clock = std::chrono::steady_clock;
    const auto deadline = Clock::now() + std::chrono::duration<double>(std::max(0.0, killAfter));
    while (!ended) {
        const double left = std::chrono::duration<double>(deadline - Clock::now()).count();
        if (left <= 0 || (stop && stop->load())) {
            outcome.killed = true;
            break;
        }
        pollfd p{fd, POLLIN, 0};
        // Where another thread may stop the search, a look at its flag every 20 ms.
        const int ready = ::poll(&p, 1, int(std::min(left, stop ? 0.02 : 1.0) * 1000) + 1);
        if (ready < 0 && errno == EINTR) continue;
        if (ready < 0) break;
        if (ready == 0) continue;
        char buf[65536];
        const ssize_t n = ::read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;  // end of the child's output
        received.insert(received.end(), buf, buf + n);
        parse();
    }
    return outcome;
}

// Waits for a child (killed first where `kill`); its wait status.
int reap(pid_t pid, bool kill) {
    if (kill) ::kill(pid, SIGKILL);
    int wstatus = 0;
    while (::waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
    }
    return wstatus;
}

// Forks a child that runs `body` on its end of a socket pair whose other end is `parentEnd`;
// the child's pid (-1: none). A socket, not a pipe: the parent writes requests to a long-lived
// child (writeAll, MSG_NOSIGNAL), and one that died makes the write fail, not the process. The
// child is killed with the thread that forked it (a CLI killed outright leaves no search
// behind) and ends with _exit: no exit handlers, no stdio flush, the parent's state is the
// parent's.
pid_t forkChild(int& parentEnd, const std::function<void(int childEnd)>& body) {
    parentEnd = -1;
    int fds[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM, 0, fds) != 0) return -1;
    const pid_t parent = ::getpid();
    const pid_t pid = ::fork();
    if (pid < 0) {
        ::close(fds[0]);
        ::close(fds[1]);
        return -1;
    }
    if (pid == 0) {
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (::getppid() != parent) ::_exit(1);  // it died before the line above
        ::close(fds[0]);
        body(fds[1]);
        ::_exit(0);
    }
    ::close(fds[1]);
    parentEnd = fds[0];
    return pid;
}

ChildOutcome runInChild(double killAfter, const std::atomic<bool>* stop,
                        const std::function<MilpSearch(const ChildChannel&)>& search) {
    int readEnd = -1;
    const pid_t pid = forkChild(readEnd, [&](int writeEnd) {
        const ChildChannel channel(writeEnd);
        if (!channel.send(ChildMessage::Result, search(channel))) ::_exit(1);
    });
    if (pid < 0) return {};
    ChildOutcome outcome = readSearchMessages(readEnd, killAfter, stop);
    ::close(readEnd);
    const int wstatus = reap(pid, outcome.killed);
    if (outcome.killed || !WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 0) outcome.result.reset();
    return outcome;
}

struct PrepDeleter {
    void operator()(glp_prep* prep) const { glp_npp_free_wksp(prep); }
};
struct ProbDeleter {
    void operator()(glp_prob* lp) const { glp_delete_prob(lp); }
};

// GLPK's time limit (tm_lim, milliseconds) for the seconds left: at least one.
int glpkMilliseconds(double seconds) { return int(std::clamp(seconds, 0.001, 1e6) * 1000); }

// The reduced problem's relaxation solved to an optimal basis within `seconds`: Clp's dual
// simplex from the all-slack basis (dual feasible: every cost is non-negative), confirmed by
// GLPK's (no pivot when Clp's optimum is GLPK's), GLPK's alone where Clp is not loaded.
int solveRoot(glp_prob* q, double seconds) {
    using Clock = std::chrono::steady_clock;
    const auto deadline = Clock::now() + std::chrono::duration<double>(std::max(0.0, seconds));
    auto secondsLeft = [&] { return std::chrono::duration<double>(deadline - Clock::now()).count(); };
    glp_std_basis(q);
    if (ClpRelaxation clp(q); clp.usable()) clp.solve(q, std::numeric_limits<int>::max(), std::max(0.001, secondsLeft()));
    glp_smcp smcp;
    glp_init_smcp(&smcp);
    smcp.msg_lev = GLP_MSG_OFF;
    smcp.meth = GLP_DUALP;
    smcp.tm_lim = glpkMilliseconds(secondsLeft());
    return glp_simplex(q, &smcp);
}

// The search itself, in this process; what it finds on the way reported on `channel`.
MilpSearch runGlpk(glp_prob* lp, const SearchLimits& limits, const ChildChannel& channel) {
    MilpSearch out;
    using Clock = std::chrono::steady_clock;
    const auto deadline = Clock::now() + std::chrono::duration<double>(std::max(0.0, limits.seconds));
    auto secondsLeft = [&] { return std::chrono::duration<double>(deadline - Clock::now()).count(); };
    auto noneBelowCutoff = [&] {
        out.status = MilpSearch::Status::NoneBelowCutoff;
        out.bound = limits.cutoff;
        return out;
    };
    const CutoffRow cutoffRow(lp, limits.cutoff);
    // GLPK's preprocessor (fixings propagated, rows made bounds, implied bounds) run here, not
    // inside glp_intopt, which then solves the reduced relaxation by the primal simplex with no
    // clock; here Clp's dual simplex solves it within the time left. Measured against that:
    // a generated 2-layer LLaMA's budget solve at 448260 B given 18 s took 33 s (inside one of
    // GLPK's simplex calls, a gap of 0.2% left) and now ends on time; frontiers at 60 s, one
    // more point proven each on a 4-layer transformer, that LLaMA and a 4-step GRU. Searching
    // the unreduced problem from its kept basis instead took twice as long (LLaMA at 475012 B:
    // proven in 23 s against 11 s).
    const std::unique_ptr<glp_prep, PrepDeleter> prep(glp_npp_alloc_wksp());
    glp_npp_load_prob(prep.get(), lp, GLP_MIP, GLP_OFF);
    const int pre = glp_npp_preprocess1(prep.get(), GLP_ON);
    if (pre == GLP_ENOPFS) return noneBelowCutoff();
    if (pre != 0) return out;  // Failed: no relaxation bounded below
    const std::unique_ptr<glp_prob, ProbDeleter> owned(glp_create_prob());
    glp_prob* q = owned.get();
    glp_npp_build_prob(prep.get(), q);
    if (glp_get_num_rows(q) == 0 || glp_get_num_cols(q) == 0) {
        // Preprocessed away (every column fixed, or no row left to bind them): GLPK's own
        // path settles such a problem without an LP worth the name.
        glp_iocp iocp;
        glp_init_iocp(&iocp);
        iocp.msg_lev = GLP_MSG_OFF;
        iocp.presolve = GLP_ON;
        iocp.tm_lim = glpkMilliseconds(secondsLeft());
        const int ret = glp_intopt(lp, &iocp);
        const int status = glp_mip_status(lp);
        if (ret == GLP_ENOPFS || ret == GLP_ENODFS || (ret == 0 && status == GLP_NOFEAS)) return noneBelowCutoff();
        if (ret == 0 && status == GLP_OPT) {
            out.status = MilpSearch::Status::Optimal;
            out.objective = glp_mip_obj_val(lp);
            out.bound = out.objective - limits.absoluteGap;
            for (int j = 1; j <= glp_get_num_cols(lp); ++j) out.columns.push_back(glp_mip_col_val(lp, j));
        }
        return out;
    }
    const int termOut = glp_term_out(GLP_OFF);  // the scaling's report would go to stdout
    glp_scale_prob(q, GLP_SF_GM | GLP_SF_EQ | GLP_SF_2N | GLP_SF_SKIP);  // as glp_intopt scales it
    glp_term_out(termOut);
    const int rootRet = solveRoot(q, secondsLeft());
    if (rootRet == 0 && glp_get_status(q) == GLP_NOFEAS) return noneBelowCutoff();
    if (rootRet != 0 || glp_get_status(q) != GLP_OPT) {
        out.status = rootRet == GLP_ETMLIM || rootRet == GLP_EITLIM ? MilpSearch::Status::TimedOut : MilpSearch::Status::Failed;
        return out;
    }
    glp_iocp iocp;
    glp_init_iocp(&iocp);
    iocp.msg_lev = GLP_MSG_OFF;
    iocp.presolve = GLP_OFF;  // preprocessed above; the search starts from the root's optimal basis
    // Branching by pseudocosts: Driebeck-Tomlin's (GLPK's default) scans the tableau's rows,
    // dense in the cumulative form; on the 4-layer transformer it explored 8 nodes in 20 s
    // where pseudocosts explored 856.
    iocp.br_tech = GLP_BR_PCH;
    iocp.tm_lim = glpkMilliseconds(secondsLeft());
    TreeBound tree;
    tree.absoluteGap = limits.absoluteGap;
    // The reduced problem's MIP solution taken back to `lp`'s columns (GLPK's postprocessing
    // reads the solution and replays its preprocessing's recoveries, so it can run again for
    // each solution found, as long as the reduced problem has its rows and entries still).
    const int builtRows = glp_get_num_rows(q), builtEntries = glp_get_num_nz(q);
    auto solutionInLp = [&](MilpSearch& into) {
        if (glp_get_num_rows(q) != builtRows || glp_get_num_nz(q) != builtEntries) return false;
        into.objective = glp_mip_obj_val(q);
        glp_npp_postprocess(prep.get(), q);
        glp_npp_obtain_sol(prep.get(), lp);
        const int cols = glp_get_num_cols(lp);
        into.columns.resize(size_t(cols));
        for (int j = 1; j <= cols; ++j) into.columns[size_t(j - 1)] = glp_mip_col_val(lp, j);
        return true;
    };
    tree.boundRaised = [&](double bound) { channel.sendBound(bound); };
    tree.solutionFound = [&] {  // sent whole: a search killed past its time still has it
        MilpSearch incumbent;
        incumbent.status = MilpSearch::Status::TimedOut;
        if (solutionInLp(incumbent)) channel.send(ChildMessage::Incumbent, incumbent);
    };
    iocp.cb_func = trackTreeBound;
    iocp.cb_info = &tree;
    const int ret = glp_intopt(q, &iocp);
    const int status = glp_mip_status(q);
    if (ret == GLP_ENOPFS || ret == GLP_ENODFS || (ret == 0 && status == GLP_NOFEAS)) return noneBelowCutoff();
    const bool found = status == GLP_FEAS || status == GLP_OPT;
    if (found) solutionInLp(out);
    if (std::isfinite(tree.best)) out.bound = tree.best;
    if ((ret == 0 && status == GLP_OPT) || (ret == GLP_ESTOP && tree.closedToGap && found)) {
        out.status = MilpSearch::Status::Optimal;
        out.bound = std::max(out.bound, out.objective - limits.absoluteGap);
    } else if (ret == GLP_ETMLIM) {
        out.status = MilpSearch::Status::TimedOut;
    } else {
        out.status = MilpSearch::Status::Failed;
    }
    return out;
}

// A GLPK problem as arrays, for a search process to rebuild: the objective, the bounds, the
// kinds and the matrix by column; no names, no basis (the search preprocesses and solves its
// root from scratch).
struct ProblemImage {
    int32_t rows = 0, columns = 0, direction = GLP_MIN;
    std::vector<int32_t> rowType, columnType, columnKind, start, index;  // start: by column, `columns` + 1
    std::vector<double> rowLower, rowUpper, columnLower, columnUpper, objective, value;  // objective[0]: constant
};

ProblemImage imageOf(glp_prob* lp) {
    ProblemImage im;
    im.rows = glp_get_num_rows(lp);
    im.columns = glp_get_num_cols(lp);
    im.direction = glp_get_obj_dir(lp);
    for (int r = 1; r <= im.rows; ++r) {
        im.rowType.push_back(glp_get_row_type(lp, r));
        im.rowLower.push_back(glp_get_row_lb(lp, r));
        im.rowUpper.push_back(glp_get_row_ub(lp, r));
    }
    im.objective.push_back(glp_get_obj_coef(lp, 0));
    std::vector<int> ind(size_t(im.rows) + 1);
    std::vector<double> val(size_t(im.rows) + 1);
    im.start.push_back(0);
    for (int c = 1; c <= im.columns; ++c) {
        im.columnType.push_back(glp_get_col_type(lp, c));
        im.columnKind.push_back(glp_get_col_kind(lp, c));
        im.columnLower.push_back(glp_get_col_lb(lp, c));
        im.columnUpper.push_back(glp_get_col_ub(lp, c));
        im.objective.push_back(glp_get_obj_coef(lp, c));
        const int len = glp_get_mat_col(lp, c, ind.data(), val.data());
        im.index.insert(im.index.end(), ind.begin() + 1, ind.begin() + 1 + len);
        im.value.insert(im.value.end(), val.begin() + 1, val.begin() + 1 + len);
        im.start.push_back(int32_t(im.index.size()));
    }
    return im;
}

// The image's objective, bounds and kinds set on `q` (its rows and columns).
void setBoundsAndObjective(glp_prob* q, const ProblemImage& im) {
    glp_set_obj_dir(q, im.direction);
    for (int r = 1; r <= im.rows; ++r)
        glp_set_row_bnds(q, r, im.rowType[size_t(r - 1)], im.rowLower[size_t(r - 1)], im.rowUpper[size_t(r - 1)]);
    glp_set_obj_coef(q, 0, im.objective[0]);
    for (int c = 1; c <= im.columns; ++c) {
        const auto k = size_t(c - 1);
        glp_set_col_kind(q, c, im.columnKind[k] == GLP_CV ? GLP_CV : GLP_IV);  // binary: integral in its bounds
        glp_set_col_bnds(q, c, im.columnType[k], im.columnLower[k], im.columnUpper[k]);
        glp_set_obj_coef(q, c, im.objective[size_t(c)]);
    }
}

bool sameMatrix(const ProblemImage& a, const ProblemImage& b) {
    return a.rows == b.rows && a.columns == b.columns && a.start == b.start && a.index == b.index && a.value == b.value;
}

std::unique_ptr<glp_prob, ProbDeleter> problemOf(const ProblemImage& im) {
    std::unique_ptr<glp_prob, ProbDeleter> lp(glp_create_prob());
    glp_prob* q = lp.get();
    if (im.rows > 0) glp_add_rows(q, im.rows);
    if (im.columns > 0) glp_add_cols(q, im.columns);
    setBoundsAndObjective(q, im);
    // GLPK's arrays are 1-based.
    const size_t entries = im.index.size();
    std::vector<int> ia(entries + 1), ja(entries + 1);
    std::vector<double> ar(entries + 1);
    for (int c = 1; c <= im.columns; ++c)
        for (int32_t e = im.start[size_t(c - 1)]; e < im.start[size_t(c)]; ++e) {
            ia[size_t(e) + 1] = im.index[size_t(e)];
            ja[size_t(e) + 1] = c;
            ar[size_t(e) + 1] = im.value[size_t(e)];
        }
    if (entries > 0) glp_load_matrix(q, int(entries), ia.data(), ja.data(), ar.data());
    return lp;
}

// A request to the search process: the limits its search reads, then the problem.
struct SearchRequestHeader {
    double seconds, cutoff, absoluteGap;
    int32_t rows, columns, direction, entries;
};

template <class T>
void appendArray(std::vector<char>& out, const std::vector<T>& v) {
    const char* p = reinterpret_cast<const char*>(v.data());
    out.insert(out.end(), p, p + v.size() * sizeof(T));
}

std::vector<char> searchRequest(glp_prob* lp, const SearchLimits& limits) {
    const ProblemImage im = imageOf(lp);
    const SearchRequestHeader h{limits.seconds, limits.cutoff, limits.absoluteGap,
                                im.rows,        im.columns,    im.direction,      int32_t(im.index.size())};
    std::vector<char> out(sizeof h);
    std::memcpy(out.data(), &h, sizeof h);
    appendArray(out, im.rowType);
    appendArray(out, im.rowLower);
    appendArray(out, im.rowUpper);
    appendArray(out, im.columnType);
    appendArray(out, im.columnKind);
    appendArray(out, im.columnLower);
    appendArray(out, im.columnUpper);
    appendArray(out, im.objective);
    appendArray(out, im.start);
    appendArray(out, im.index);
    appendArray(out, im.value);
    return out;
}

template <class T>
bool readArray(int fd, std::vector<T>& v, size_t n) {
    v.resize(n);
    return readAll(fd, v.data(), n * sizeof(T));
}

// The next request on `fd` (false: the parent closed it, or it came garbled).
bool readSearchRequest(int fd, SearchLimits& limits, ProblemImage& im) {
    SearchRequestHeader h;
    if (!readAll(fd, &h, sizeof h) || h.rows < 0 || h.columns < 0 || h.entries < 0) return false;
    limits = SearchLimits{};
    limits.seconds = h.seconds;
    limits.cutoff = h.cutoff;
    limits.absoluteGap = h.absoluteGap;
    im.rows = h.rows;
    im.columns = h.columns;
    im.direction = h.direction;
    const auto rows = size_t(h.rows), columns = size_t(h.columns), entries = size_t(h.entries);
    return readArray(fd, im.rowType, rows) && readArray(fd, im.rowLower, rows) && readArray(fd, im.rowUpper, rows) &&
           readArray(fd, im.columnType, columns) && readArray(fd, im.columnKind, columns) &&
           readArray(fd, im.columnLower, columns) && readArray(fd, im.columnUpper, columns) &&
           readArray(fd, im.objective, columns + 1) && readArray(fd, im.start, columns + 1) &&
           readArray(fd, im.index, entries) && readArray(fd, im.value, entries);
}

// GLPK's searches, one after another, in one child process per thread that lives on between
// them. A fork per search cost a third of a point's time: every page the child's allocations
// touched and every page the parent wrote after it faulted (a 2-layer LLaMA point's 16 dear
// subsets: ~0.43 s a search, of which ~0.3 s was the fork's; whole process 275k faults, 30%
// of its time in the kernel). Here the child's memory stays warm; each search gets the
// problem's arrays (~5 MB for a 50k-row model, ~0.05 s to send and rebuild). Killed past a
// search's limit, or dead, it is forked afresh for the next; it ends with its thread. It keeps
// the pages of the moment it was forked (copy-on-write): at most the process's size again.
class GlpkSearchProcess {
public:
    GlpkSearchProcess() = default;
    GlpkSearchProcess(const GlpkSearchProcess&) = delete;
    GlpkSearchProcess& operator=(const GlpkSearchProcess&) = delete;
    ~GlpkSearchProcess() { end(); }
    int id() const { return pid_ > 0 ? int(pid_) : 0; }

    ChildOutcome search(const std::vector<char>& request, double killAfter, const std::atomic<bool>* stop) {
        // A process that died while idle fails the write, or ends its output at once without
        // a word: once more with a fresh one.
        using Clock = std::chrono::steady_clock;
        for (int attempt = 0; attempt < 2; ++attempt) {
            if (pid_ < 0 && !start()) return {};
            const auto sent = Clock::now();
            if (!writeAll(socket_, request.data(), request.size())) {
                end();
                continue;
            }
            ChildOutcome outcome = readSearchMessages(socket_, killAfter, stop);
            if (outcome.result) return outcome;
            end();  // killed past its time or stopped, crashed or garbled
            const bool silent = !outcome.killed && !outcome.incumbent && !std::isfinite(outcome.bound);
            if (!(silent && Clock::now() - sent < std::chrono::milliseconds(250))) return outcome;
        }
        return {};
    }

private:
    bool start() {
        pid_ = forkChild(socket_, [](int fd) {
            SearchLimits limits;
            ProblemImage image, last;
            // The last problem, kept: a point's searches mostly differ in bounds only (its dear
            // subsets fixed in turn), and loading the matrix again took ~40 ms of each.
            std::unique_ptr<glp_prob, ProbDeleter> lp;
            while (readSearchRequest(fd, limits, image)) {
                if (lp && sameMatrix(image, last)) setBoundsAndObjective(lp.get(), image);
                else lp = problemOf(image);
                std::swap(image, last);
                const ChildChannel channel(fd);
                if (!channel.send(ChildMessage::Result, runGlpk(lp.get(), limits, channel))) ::_exit(1);
            }
        });
        return pid_ >= 0;
    }
    void end() {
        if (pid_ < 0) return;
        ::close(socket_);
        reap(pid_, true);
        pid_ = -1;
        socket_ = -1;
    }
    pid_t pid_ = -1;
    int socket_ = -1;
};

GlpkSearchProcess& glpkSearchProcess() {
    thread_local GlpkSearchProcess process;
    return process;
}

}  // namespace

int glpkSearchProcessId() { return glpkSearchProcess().id(); }

namespace {

// GLPK's search of a request (searchRequest) in this thread's search process.
MilpSearch runGlpkRequest(const std::vector<char>& request, const SearchLimits& limits) {
    // In a child process (GlpkSearchProcess), as CBC's: GLPK checks its clock between nodes
    // only, and one of its simplex calls ran 15 s past an 18 s limit (a 2-layer LLaMA point,
    // when glp_intopt still solved the root; a node's solve can still run over). Killed a
    // second (or a tenth) past the limit, the search keeps what it had reported: its bound and
    // the last solution it found, with its columns, which the caller checks and adopts as it
    // does the result of a search out of time.
    const double killAfter = limits.seconds + std::max(1.0, 0.1 * limits.seconds);
    const ChildOutcome child = glpkSearchProcess().search(request, killAfter, limits.stop);
    if (child.result) return *child.result;
    if (!child.killed) return {};  // Failed: the child crashed
    MilpSearch out = child.incumbent.value_or(MilpSearch{});
    out.status = MilpSearch::Status::TimedOut;
    out.bound = child.bound;
    if (child.incumbent) out.bound = std::min(out.bound, child.incumbent->objective);
    return out;
}

}  // namespace

MilpSearch searchWithGlpk(glp_prob* lp, const SearchLimits& limits) {
    clpAvailable();  // libCbcSolver (Clp for the root) opened here, not in the child
    return runGlpkRequest(searchRequest(lp, limits), limits);
}

bool cbcAvailable() { return cbcLibrary().loaded; }

namespace {

// A GLPK problem as CBC takes it: the matrix by columns, bounds as ±DBL_MAX.
struct CbcInput {
    int rows = 0, cols = 0;
    double objConstant = 0;
    std::vector<int> start{0}, index;
    std::vector<double> value, colLo, colHi, obj, rowLo, rowHi;
    std::vector<int> integer;  // CBC's column indices
};

CbcInput cbcInputOf(glp_prob* lp) {
    CbcInput in;
    in.rows = glp_get_num_rows(lp);
    in.cols = glp_get_num_cols(lp);
    in.objConstant = glp_get_obj_coef(lp, 0);
    in.colLo.resize(size_t(in.cols));
    in.colHi.resize(size_t(in.cols));
    in.obj.resize(size_t(in.cols));
    in.rowLo.resize(size_t(in.rows));
    in.rowHi.resize(size_t(in.rows));
    std::vector<int> ind(size_t(in.rows) + 1);
    std::vector<double> val(ind.size());
    for (int j = 1; j <= in.cols; ++j) {
        const int len = glp_get_mat_col(lp, j, ind.data(), val.data());
        for (int t = 1; t <= len; ++t) {
            in.index.push_back(ind[size_t(t)] - 1);
            in.value.push_back(val[size_t(t)]);
        }
        in.start.push_back(int(in.index.size()));
        std::tie(in.colLo[size_t(j - 1)], in.colHi[size_t(j - 1)]) =
            boundsOf(glp_get_col_type(lp, j), glp_get_col_lb(lp, j), glp_get_col_ub(lp, j));
        in.obj[size_t(j - 1)] = glp_get_obj_coef(lp, j);
        if (glp_get_col_kind(lp, j) != GLP_CV) in.integer.push_back(j - 1);
    }
    for (int i = 1; i <= in.rows; ++i)
        std::tie(in.rowLo[size_t(i - 1)], in.rowHi[size_t(i - 1)]) =
            boundsOf(glp_get_row_type(lp, i), glp_get_row_lb(lp, i), glp_get_row_ub(lp, i));
    return in;
}

// The search itself, in this process.
MilpSearch runCbc(const CbcLibrary& cbc, const CbcInput& in, const SearchLimits& limits) {
    const auto started = std::chrono::steady_clock::now();
    MilpSearch out;
    std::unique_ptr<Cbc_Model, CbcModelDeleter> owned(cbc.newModel());
    Cbc_Model* model = owned.get();
    cbc.loadProblem(model, in.cols, in.rows, in.start.data(), in.index.data(), in.value.data(), in.colLo.data(),
                    in.colHi.data(), in.obj.data(), in.rowLo.data(), in.rowHi.data());
    cbc.setObjSense(model, 1.0);
    for (int j : in.integer) cbc.setInteger(model, j);
    cbc.setLogLevel(model, 0);
    cbc.setParameter(model, "log", "0");
    cbc.setParameter(model, "slogLevel", "0");
    cbc.setParameter(model, "timeMode", "elapsed");  // the limit is wall clock, as the caller's share
    cbc.setParameter(model, "seconds", secondsText(limits.seconds).c_str());
    // Its feasibility pump spent 69 of 97 s on one LSTM point finding nothing below the
    // cut-off: the incumbent comes from the planner's own search (or GLPK's).
    cbc.setParameter(model, "heuristicsOnOff", "off");
    // Its preprocessor (CglPreProcess), stopped by the time limit, reports the model
    // infeasible: a 2-layer LLaMA point with no cut-off at all came back "proven infeasible"
    // with any limit from 0.6 to 1.6 s (README "Exact mode"); it is also where it segfaults.
    cbc.setParameter(model, "preprocess", "off");
    if (limits.threads > 1) cbc.setParameter(model, "threads", std::to_string(limits.threads).c_str());
    if (std::isfinite(limits.cutoff)) cbc.setCutoff(model, limits.cutoff - in.objConstant);
    if (limits.absoluteGap > 0) cbc.setAllowableGap(model, limits.absoluteGap);
    if (!limits.start.empty()) {
        std::vector<int> columns;
        std::vector<double> values;
        for (const auto& [column, value] : limits.start) {
            columns.push_back(column);
            values.push_back(value);
        }
        cbc.setMIPStartI(model, int(columns.size()), columns.data(), values.data());
    }

    cbc.solve(model);

    const double* best = cbc.bestSolution(model);
    if (best) {
        out.columns.assign(best, best + in.cols);
        out.objective = cbc.getObjValue(model) + in.objConstant;
    }
    const double bound = cbc.getBestPossibleObjValue(model);
    if (std::isfinite(bound) && std::abs(bound) < 1e300) out.bound = bound + in.objConstant;
    // A proof that ends past the limit is one the limit may have cut short (above): CBC's clock
    // starts after `started` (this process's CPU time or the wall clock), so a stop on time
    // lands at or past the limit here; small margin for the clocks' granularity.
    const bool pastLimit = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count() >=
                           0.95 * limits.seconds;
    if (cbc.isAbandoned(model)) {
        out.status = MilpSearch::Status::Failed;
    } else if (pastLimit && (cbc.isProvenInfeasible(model) || cbc.status(model) == 0)) {
        out.status = MilpSearch::Status::TimedOut;
        out.bound = -std::numeric_limits<double>::infinity();  // its bound is the claim's
    } else if (cbc.isProvenInfeasible(model) && !best) {
        out.status = MilpSearch::Status::NoneBelowCutoff;
        out.bound = std::isfinite(limits.cutoff) ? limits.cutoff : std::numeric_limits<double>::infinity();
    } else if (cbc.status(model) == 0 && best) {
        out.status = MilpSearch::Status::Optimal;
        out.bound = std::max(out.bound, out.objective - limits.absoluteGap);
    } else if (cbc.isSecondsLimitReached(model) || cbc.status(model) == 1) {
        out.status = MilpSearch::Status::TimedOut;
    } else {
        out.status = MilpSearch::Status::Failed;
    }
    return out;
}

// What CBC's search is given: the problem with the cut-off's row, and its limits.
struct CbcRequest {
    CbcInput in;
    SearchLimits searched;
};

CbcRequest cbcRequestOf(glp_prob* lp, const SearchLimits& limits) {
    // With a start, the search's cut-off admits it (its cost, a relative margin for rounding):
    // what it finds as dear as the start is reported as nothing below the caller's cut-off.
    SearchLimits searched = limits;
    if (!limits.start.empty()) {
        double startCost = glp_get_obj_coef(lp, 0);
        for (const auto& [column, value] : limits.start) startCost += glp_get_obj_coef(lp, column + 1) * value;
        searched.cutoff = std::max(limits.cutoff, startCost + 1e-9 * std::max(1.0, std::abs(startCost)));
    }
    const CutoffRow cutoffRow(lp, searched.cutoff);  // in the model as well as CBC's own cut-off
    return {cbcInputOf(lp), searched};
}

// CBC's search of a request, in a child process; `limits` the caller's (its cut-off, its start).
MilpSearch runCbcRequest(const CbcLibrary& cbc, const CbcRequest& request, const SearchLimits& limits) {
    // In a child process: CBC 2.10 has crashed on these models (a segmentation fault in its
    // preprocessor, on the 4-layer transformer's 846.88 KiB point, every run), which in this
    // process would take the CLI or the explorer with it; and its C interface runs its
    // command-line driver, whose state is the process's: a second search in one process
    // reported a model infeasible in 0.9 s that a fresh one could not bound in 14 s (README
    // "Exact mode", session 20). The child shares the input copy-on-write (runInChild).
    // CBC checks its clock between nodes, not inside its root work: one LSTM point's search,
    // given 4.2 s, ran 15 s (and was killed then, under a looser rule) while the other points
    // waited. Past the limit it could give a bound at most (no proof is taken there), so a
    // grace (its usual overrun is 0.5-1.5 s, a node's) and then the point keeps the bounds it has.
    const ChildOutcome child =
        runInChild(limits.seconds + std::max(2.5, 0.25 * limits.seconds), limits.stop,
                   [&](const ChildChannel&) { return runCbc(cbc, request.in, request.searched); });
    if (!child.result) return {};  // Failed: a crash, or a child past its time
    MilpSearch out = *child.result;
    if (!limits.start.empty() && !out.columns.empty() && !(out.objective < limits.cutoff)) {
        // The start, or a solution as dear: nothing below the cut-off found. Searched to its
        // end, that is the proof none exists (to the gap, as an optimum's: none cheaper by a
        // whole granule of cost; the bound stays the search's).
        if (out.status == MilpSearch::Status::Optimal) out.status = MilpSearch::Status::NoneBelowCutoff;
        out.columns.clear();
        out.objective = std::numeric_limits<double>::infinity();
    }
    return out;
}

}  // namespace

MilpSearch searchWithCbc(glp_prob* lp, const SearchLimits& limits) {
    const CbcLibrary& cbc = cbcLibrary();
    if (!cbc.loaded) return {};  // Failed
    return runCbcRequest(cbc, cbcRequestOf(lp, limits), limits);
}

MilpSearch searchWithEither(glp_prob* lp, const SearchLimits& limits) {
    const CbcLibrary& cbc = cbcLibrary();
    if (!cbc.loaded || limits.threads < 2) return searchWithGlpk(lp, limits);
    auto decided = [](const MilpSearch& s) {
        return s.status == MilpSearch::Status::Optimal || s.status == MilpSearch::Status::NoneBelowCutoff;
    };
    // Both requests read `lp` here, on this thread (GLPK's problem is one thread's); the
    // searches then run in their child processes, GLPK's in this thread's search process.
    SearchLimits glpkLimits = limits, cbcLimits = limits;
    glpkLimits.threads = 1;
    cbcLimits.threads = limits.threads - 1;
    std::atomic<bool> stopGlpk{false}, stopCbc{false};
    glpkLimits.stop = &stopGlpk;
    cbcLimits.stop = &stopCbc;
    const std::vector<char> glpkRequest = searchRequest(lp, glpkLimits);
    const CbcRequest cbcRequest = cbcRequestOf(lp, cbcLimits);
    MilpSearch byCbc;
    std::thread cbcThread([&] {
        try {
            byCbc = runCbcRequest(cbc, cbcRequest, cbcLimits);
        } catch (...) {
            byCbc = MilpSearch{};  // Failed (out of memory for its copy): GLPK's goes on
        }
        if (decided(byCbc)) stopGlpk = true;
    });
    MilpSearch byGlpk;
    try {
        byGlpk = runGlpkRequest(glpkRequest, glpkLimits);
    } catch (...) {
        byGlpk = MilpSearch{};
    }
    if (decided(byGlpk)) stopCbc = true;
    cbcThread.join();
    if (decided(byGlpk)) return byGlpk;
    if (decided(byCbc)) return byCbc;
    // Neither decided: the higher bound of the two that ran, the cheaper solution.
    MilpSearch out = byGlpk.objective <= byCbc.objective ? byGlpk : byCbc;
    out.status = byGlpk.status == MilpSearch::Status::Failed && byCbc.status == MilpSearch::Status::Failed
                     ? MilpSearch::Status::Failed
                     : MilpSearch::Status::TimedOut;
    out.bound = -std::numeric_limits<double>::infinity();
    for (const MilpSearch* s : {&byGlpk, &byCbc})
        if (s->status != MilpSearch::Status::Failed) out.bound = std::max(out.bound, s->bound);
    if (!out.columns.empty()) out.bound = std::min(out.bound, out.objective);
    return out;
}

// Clp's basis statuses (ClpSimplex::Status) and GLPK's: a row's refer to its activity in both.
namespace {
enum ClpStatus { kClpFree = 0, kClpBasic = 1, kClpAtUpper = 2, kClpAtLower = 3, kClpSuperBasic = 4, kClpFixed = 5 };
int clpStatusOf(int glpkStatus) {
    switch (glpkStatus) {
        case GLP_BS: return kClpBasic;
        case GLP_NU: return kClpAtUpper;
        case GLP_NF: return kClpFree;
        case GLP_NS: return kClpFixed;
        default: return kClpAtLower;
    }
}
int glpkStatusOf(int clpStatus) {
    switch (clpStatus) {
        case kClpBasic: return GLP_BS;
        case kClpAtUpper: return GLP_NU;
        case kClpFree: return GLP_NF;
        case kClpFixed: return GLP_NS;
        default: return GLP_NL;  // glp_set_*_stat corrects it to the bound the row or column has
    }
}
}  // namespace

bool clpAvailable() { return cbcLibrary().clp.loaded; }

ClpRelaxation::ClpRelaxation(glp_prob* lp) {
    const CbcLibrary::Clp& clp = cbcLibrary().clp;
    if (!clp.loaded) return;
    const int rows = glp_get_num_rows(lp), cols = glp_get_num_cols(lp);
    // Kept by column for lagrangianBound as well as loaded into Clp.
    std::vector<int> ind(static_cast<size_t>(rows) + 1);
    std::vector<double> val(static_cast<size_t>(rows) + 1);
    start_.assign(1, 0);
    cost_.assign(static_cast<size_t>(cols), 0.0);
    for (int c = 1; c <= cols; ++c) {
        const int len = glp_get_mat_col(lp, c, ind.data(), val.data());
        for (int t = 1; t <= len; ++t) {
            index_.push_back(ind[size_t(t)] - 1);
            value_.push_back(val[size_t(t)]);
        }
        start_.push_back(int(index_.size()));
        cost_[size_t(c - 1)] = glp_get_obj_coef(lp, c);
    }
    Clp_Simplex* model = clp.newModel();
    if (!model) return;
    clp.setLogLevel(model, 0);
    // Unscaled: the model is in MiB with 0-1 columns already; Clp's default scaling made the
    // 1-layer LSTM's 20 bounds 4.5x slower (28 s, 6.3 s unscaled; GLPK 24 s).
    clp.scaling(model, 0);
    const Bounds b = boundsOfProblem(lp);
    clp.loadProblem(model, cols, rows, start_.data(), index_.data(), value_.data(), b.columnLower.data(),
                    b.columnUpper.data(), cost_.data(), b.rowLower.data(), b.rowUpper.data());
    model_ = model;
    rows_ = rows;
    columns_ = cols;
}

ClpRelaxation::~ClpRelaxation() {
    if (model_) cbcLibrary().clp.deleteModel(static_cast<Clp_Simplex*>(model_));
}

ClpRelaxation::Bounds ClpRelaxation::boundsOfProblem(glp_prob* lp) {
    Bounds b;
    const int rows = glp_get_num_rows(lp), cols = glp_get_num_cols(lp);
    for (int r = 1; r <= rows; ++r) {
        const auto [lo, hi] = boundsOf(glp_get_row_type(lp, r), glp_get_row_lb(lp, r), glp_get_row_ub(lp, r));
        b.rowLower.push_back(lo);
        b.rowUpper.push_back(hi);
    }
    for (int c = 1; c <= cols; ++c) {
        const auto [lo, hi] = boundsOf(glp_get_col_type(lp, c), glp_get_col_lb(lp, c), glp_get_col_ub(lp, c));
        b.columnLower.push_back(lo);
        b.columnUpper.push_back(hi);
    }
    return b;
}

bool ClpRelaxation::matches(glp_prob* lp) const {
    return model_ && glp_get_num_rows(lp) == rows_ && glp_get_num_cols(lp) == columns_;
}

ClpRelaxation::Result ClpRelaxation::solve(glp_prob* lp, int iterationLimit, double seconds, double objectiveLimit) {
    const CbcLibrary::Clp& clp = cbcLibrary().clp;
    if (!matches(lp)) return {};
    auto* model = static_cast<Clp_Simplex*>(model_);
    Bounds b = boundsOfProblem(lp);
    clp.chgRowLower(model, b.rowLower.data());
    clp.chgRowUpper(model, b.rowUpper.data());
    clp.chgColumnLower(model, b.columnLower.data());
    clp.chgColumnUpper(model, b.columnUpper.data());
    if (!warm_) {  // the first solve starts from GLPK's basis (the caller's choice of start)
        for (int r = 0; r < rows_; ++r) clp.setRowStatus(model, r, clpStatusOf(glp_get_row_stat(lp, r + 1)));
        for (int c = 0; c < columns_; ++c) clp.setColumnStatus(model, c, clpStatusOf(glp_get_col_stat(lp, c + 1)));
    }
    clp.setMaximumIterations(model, std::max(1, iterationLimit));
    clp.setMaximumSeconds(model, std::max(0.001, seconds));
    clp.setDualObjectiveLimit(model, objectiveLimit);
    clp.dual(model, 0);
    Result out;
    switch (clp.status(model)) {
        case 0: out.status = Result::Status::Optimal; break;
        case 1: out.status = Result::Status::Infeasible; break;
        case 3: out.status = Result::Status::Stopped; break;
        default: out.status = Result::Status::Failed; break;
    }
    if (out.status == Result::Status::Optimal || out.status == Result::Status::Infeasible) {
        const double* duals = clp.dualRowSolution(model);
        if (duals) out.rowDuals.assign(duals, duals + rows_);
    }
    if (out.status == Result::Status::Optimal) {
        out.objective = clp.objectiveValue(model);
        if (const double* columns = clp.getColSolution(model)) out.columns.assign(columns, columns + columns_);
        for (int r = 0; r < rows_; ++r) glp_set_row_stat(lp, r + 1, glpkStatusOf(clp.getRowStatus(model, r)));
        for (int c = 0; c < columns_; ++c) glp_set_col_stat(lp, c + 1, glpkStatusOf(clp.getColumnStatus(model, c)));
        warm_ = true;
    } else {
        warm_ = false;  // the next solve starts from the caller's basis again
    }
    return out;
}

FixedColumnsBound ClpRelaxation::lagrangianBound(glp_prob* lp, std::vector<double> y, const std::vector<uint32_t>& fixed) const {
    FixedColumnsBound out;
    const int rows = glp_get_num_rows(lp), cols = glp_get_num_cols(lp);
    if (!matches(lp) || y.size() != size_t(rows)) return out;
    double base = glp_get_obj_coef(lp, 0);
    for (int r = 1; r <= rows; ++r) {
        double& v = y[size_t(r - 1)];
        const int type = glp_get_row_type(lp, r);
        const bool hasLower = type == GLP_LO || type == GLP_DB || type == GLP_FX;
        const bool hasUpper = type == GLP_UP || type == GLP_DB || type == GLP_FX;
        if ((v > 0 && !hasLower) || (v < 0 && !hasUpper) || !std::isfinite(v)) v = 0;
        if (v > 0) base += v * glp_get_row_lb(lp, r);
        else if (v < 0) base += v * glp_get_row_ub(lp, r);
    }
    std::vector<int> fixedIndex(size_t(cols) + 1, -1);
    for (size_t i = 0; i < fixed.size(); ++i) fixedIndex[fixed[i] + 1] = int(i);
    out.perFixed.assign(fixed.size(), 0.0);
    for (int c = 1; c <= cols; ++c) {
        // The matrix and objective as loaded (walking GLPK's column lists took ~30 ms a call
        // on the 8-step LSTM's model).
        double d = cost_[size_t(c - 1)];
        for (int t = start_[size_t(c - 1)]; t < start_[size_t(c)]; ++t) d -= value_[size_t(t)] * y[size_t(index_[size_t(t)])];
        if (fixedIndex[size_t(c)] >= 0) {
            out.perFixed[size_t(fixedIndex[size_t(c)])] = d;
            continue;
        }
        const int type = glp_get_col_type(lp, c);
        if (d > 0) {
            if (type == GLP_FR || type == GLP_UP) return out;  // unbounded below: no bound
            base += d * glp_get_col_lb(lp, c);
        } else if (d < 0) {
            if (type == GLP_FR || type == GLP_LO) return out;
            base += d * glp_get_col_ub(lp, c);
        }
    }
    out.base = base;
    return out;
}

}  // namespace rx::planner
