#pragma once
// The explorer's document: program, spec, config, the current solve result and the undo
// history. Views observe it through signals; edits go through undoable commands that set a
// new config (or spec) and schedule a debounced re-solve on a worker thread. A solve result
// replaces the current one only if no newer edit came in; a failed load or solve keeps the
// last good state and reports the error.
#include <QFutureWatcher>
#include <QObject>
#include <QThreadPool>
#include <QString>
#include <QUndoStack>
#include <memory>

#include "algorithms/Solver.h"
#include "model/RecomputeConfig.h"
#include "views/ProgramGraph.h"
#include "views/VisualGraph.h"

class QTimer;

namespace rx {

// A failed solve explained in the user's terms, with the one edit that fixes it.
struct SolveAdvice {
    QString message;           // empty: no advice, show the solver's own message
    QString opToAdd;           // add this op to recomputable_ops (empty: none)
    ValueId pinnedValue = kNoId;  // the pin at fault
};

class Document : public QObject {
    Q_OBJECT
public:
    explicit Document(QObject* parent = nullptr);
    ~Document() override;

    // ---- loading (synchronous parse; errors keep the current state) ----
    bool open(const QString& path, QString* error = nullptr);
    bool openText(const QString& text, const QString& displayName, QString* error = nullptr);
    bool hasProgram() const { return program_ != nullptr; }
    const QString& filePath() const { return path_; }
    QString displayName() const;

    const Program& program() const { return *program_; }
    std::shared_ptr<const Program> programPtr() const { return program_; }
    const RecomputeSpec& spec() const { return spec_; }
    bool specDetected() const { return specDetected_; }
    const RecomputeConfig& config() const { return config_; }
    const RecomputeSolver* solver() const { return solver_.get(); }
    // For work off the UI thread: the solver stays alive while a job holds it (a new spec
    // builds a new solver; this one is never changed).
    std::shared_ptr<const RecomputeSolver> solverPtr() const { return solver_; }
    std::shared_ptr<const SolveResult> result() const { return result_; }
    const QString& lastError() const { return lastError_; }
    double lastParseMs() const { return parseMs_; }
    ProgramSplit split() const { return ProgramSplit{spec_.fwdOpEndIdx, spec_.backwardOpStartIdx}; }
    PlanMarks planMarks() const;  // marks of the current result on the original program

    // ---- edits (undoable) ----
    // `mergeId` >= 0: consecutive edits with the same id (one knob) merge into one undo step.
    void setConfig(const RecomputeConfig& config, const QString& description, int mergeId = -1);
    void setSpec(const RecomputeSpec& spec, const QString& description);
    void pinValue(ValueId v, int pin);  // 0 clear, 1 always save, 2 always recompute
    int pinOf(ValueId v) const;
    QUndoStack* undoStack() { return &undo_; }

    // Applied by undo commands: no history entry.
    void applyConfig(const RecomputeConfig& config);
    void applySpec(const RecomputeSpec& spec);

    // ---- solving ----
    void solveNow();                 // skips the debounce
    // Shows a result computed elsewhere (a budget plan from the Pareto panel) in every view
    // until the next edit re-solves. Not an undo step: it changes no config.
    void showPlan(std::shared_ptr<const SolveResult> result, const QString& description);
    // The same as one undo step: Ctrl+Z shows the plan shown before. Consecutive calls with
    // the same `mergeKey` >= 0 (one drag of the budget slider) merge into one step.
    void applyPlan(std::shared_ptr<const SolveResult> result, const QString& description, qint64 mergeKey = -1);
    // While a plan's undo step runs (its redo or undo, inside which showPlan emits
    // resultChanged), what the history calls it and the gesture it belongs to: the views name
    // the change after it and fold one slider drag's steps into one entry.
    struct PlanStep {
        bool active = false;
        bool undo = false;
        QString text;
        qint64 mergeKey = -1;
    };
    const PlanStep& planStep() const { return planStep_; }
    void setPlanStep(PlanStep step) { planStep_ = std::move(step); }
    bool isSolving() const { return solving_; }
    bool waitForSolve(int timeoutMs); // for tests and the CLI-like measurement mode

    // ---- selection shared by every view ----
    ModelKey selection() const { return selection_; }
    void select(ModelKey key, QObject* origin = nullptr);

    QString valueName(ValueId v) const;
    ValueId findValue(const QString& name) const;

    // What showPlan() was told while its plan is the result shown; empty for the config's own solve.
    const QString& shownPlanDescription() const { return shownPlan_; }
    // The newest solve that failed (its network and ∞ path, for the flow view); null after a success.
    std::shared_ptr<const SolveResult> failedResult() const { return failed_; }
    // Why `failed` failed in the user's words (a pin the config's bans contradict), if known.
    SolveAdvice adviceFor(const SolveResult& failed) const;

Q_SIGNALS:
    void programChanged();
    void specChanged();
    void configChanged();
    void solveStarted();
    // `changedSide`: values whose side (saved/recomputed/neither) differs from the previous plan.
    void resultChanged(const std::vector<rx::ValueId>& changedSide);
    void solveFailed(const QString& message);
    void loadFailed(const QString& message);
    // The spec file beside the opened program is broken: the detected split is used instead.
    void specFallback(const QString& specFile, const QString& message);
    void selectionChanged(rx::ModelKey key, QObject* origin);
    void logMessage(const QString& message);

private:
    void installProgram(std::shared_ptr<Program> program, const QString& path, double parseMs);
    void rebuildSolver();
    void scheduleSolve();
    void startSolve();
    void onSolveFinished();

    QString path_;
    std::shared_ptr<const Program> program_;
    RecomputeSpec spec_;
    bool specDetected_ = true;
    RecomputeConfig config_ = RecomputeConfig::seedDefaults();
    std::shared_ptr<const RecomputeSolver> solver_;
    std::shared_ptr<const SolveResult> result_;
    QString lastError_;
    double parseMs_ = 0;
    QUndoStack undo_;
    ModelKey selection_;
    QTimer* debounce_;
    // The solve's own thread: what every view waits on never queues behind a dock's long work
    // (profiles, verifies, frontiers) in the global pool, whatever the core count.
    QThreadPool solvePool_;
    QFutureWatcher<std::shared_ptr<SolveResult>> watcher_;
    quint64 generation_ = 0;      // bumped per edit
    quint64 runningGeneration_ = 0;
    bool solving_ = false;
    bool rerunAfter_ = false;
    QString shownPlan_;
    PlanStep planStep_;
    std::shared_ptr<const SolveResult> failed_;
};

}  // namespace rx
