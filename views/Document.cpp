#include "views/Document.h"

#include <QElapsedTimer>
#include <QEventLoop>
#include <QFileInfo>
#include <QTimer>
#include <QtConcurrent>
#include <algorithm>

#include "model/PirReader.h"
#include "views/SpecSupport.h"

namespace rx {

namespace {

class ConfigCommand : public QUndoCommand {
public:
    ConfigCommand(Document* doc, RecomputeConfig before, RecomputeConfig after, const QString& text, int mergeId)
        : QUndoCommand(text), doc_(doc), before_(std::move(before)), after_(std::move(after)), mergeId_(mergeId) {}
    void undo() override { doc_->applyConfig(before_); }
    void redo() override { doc_->applyConfig(after_); }
    int id() const override { return mergeId_; }
    // Consecutive edits of one knob are one undo step; back to the start, the step goes away.
    bool mergeWith(const QUndoCommand* other) override {
        const auto* o = static_cast<const ConfigCommand*>(other);
        if (o->mergeId_ != mergeId_ || mergeId_ < 0) return false;
        after_ = o->after_;
        setText(o->text());
        setObsolete(after_ == before_);
        return true;
    }

private:
    Document* doc_;
    RecomputeConfig before_, after_;
    int mergeId_;
};

class SpecCommand : public QUndoCommand {
public:
    SpecCommand(Document* doc, RecomputeSpec before, RecomputeSpec after, const QString& text)
        : QUndoCommand(text), doc_(doc), before_(std::move(before)), after_(std::move(after)) {}
    void undo() override { doc_->applySpec(before_); }
    void redo() override { doc_->applySpec(after_); }

private:
    Document* doc_;
    RecomputeSpec before_, after_;
};

}  // namespace

Document::Document(QObject* parent) : QObject(parent) {
    solvePool_.setMaxThreadCount(1);
    debounce_ = new QTimer(this);
    debounce_->setSingleShot(true);
    debounce_->setInterval(90);
    connect(debounce_, &QTimer::timeout, this, &Document::startSolve);
    connect(&watcher_, &QFutureWatcher<std::shared_ptr<SolveResult>>::finished, this, &Document::onSolveFinished);
}

Document::~Document() {
    // A running solve holds shared pointers to everything it reads: safe to let it finish.
    watcher_.waitForFinished();
}

QString Document::displayName() const {
    return path_.isEmpty() ? tr("untitled") : QFileInfo(path_).fileName();
}

bool Document::open(const QString& path, QString* error) {
    QElapsedTimer timer;
    timer.start();
    try {
        auto program = std::make_shared<Program>(loadProgram(path.toStdString()));
        installProgram(std::move(program), path, timer.nsecsElapsed() / 1e6);
        return true;
    } catch (const std::exception& e) {
        lastError_ = QString::fromUtf8(e.what());
        if (error) *error = lastError_;
        Q_EMIT logMessage(tr("Error: %1").arg(lastError_));
        Q_EMIT loadFailed(lastError_);
        return false;
    }
}

bool Document::openText(const QString& text, const QString& displayName, QString* error) {
    QElapsedTimer timer;
    timer.start();
    try {
        const std::string bytes = text.toStdString();
        auto program = std::make_shared<Program>(parsePir(bytes, displayName.toStdString()));
        installProgram(std::move(program), displayName, timer.nsecsElapsed() / 1e6);
        return true;
    } catch (const std::exception& e) {
        lastError_ = QString::fromUtf8(e.what());
        if (error) *error = lastError_;
        Q_EMIT logMessage(tr("Error: %1").arg(lastError_));
        Q_EMIT loadFailed(lastError_);
        return false;
    }
}

void Document::installProgram(std::shared_ptr<Program> program, const QString& path, double parseMs) {
    // A malformed spec file beside a good program does not refuse the program: the detected
    // split stands in, and specFallback says so once the program is shown.
    ui::LoadedSpec loaded;
    QString specProblem;
    try {
        loaded = ui::loadOrDetectSpec(*program, QFileInfo(path).exists() ? path.toStdString() : std::string());
    } catch (const std::exception& e) {
        specProblem = QString::fromUtf8(e.what());
        loaded.spec = detectSpec(*program);
        loaded.detected = true;
    }
    ++generation_;
    path_ = path;
    program_ = std::move(program);
    spec_ = loaded.spec;
    specDetected_ = loaded.detected;
    result_.reset();
    failed_.reset();
    shownPlan_.clear();
    lastError_.clear();
    parseMs_ = parseMs;
    selection_ = {};
    undo_.clear();
    rebuildSolver();
    Q_EMIT logMessage(tr("Opened %1: %2 ops, %3 values in %4 ms (spec %5)")
                        .arg(displayName())
                        .arg(program_->globalBlock().ops.size())
                        .arg(program_->values().size())
                        .arg(parseMs, 0, 'f', 1)
                        .arg(specDetected_ ? tr("detected") : QString::fromStdString(loaded.specFile)));
    for (const auto& w : program_->warnings()) Q_EMIT logMessage(tr("Warning: %1").arg(QString::fromStdString(w)));
    Q_EMIT programChanged();  // implies a new spec: views rebuild once, not twice
    if (!specProblem.isEmpty()) {
        const QString specFile = QString::fromStdString(specPathBeside(path.toStdString()));
        Q_EMIT logMessage(tr("Warning: %1 is broken (%2); using the detected split").arg(QFileInfo(specFile).fileName(), specProblem));
        Q_EMIT specFallback(specFile, specProblem);
    }
    solveNow();
}

void Document::rebuildSolver() {
    solver_.reset();
    if (!program_) return;
    try {
        solver_ = std::make_shared<const RecomputeSolver>(program_, spec_);
        for (const auto& w : solver_->analysis().warnings()) Q_EMIT logMessage(tr("Analysis: %1").arg(QString::fromStdString(w)));
    } catch (const std::exception& e) {
        Q_EMIT solveFailed(QString::fromUtf8(e.what()));
    }
}

PlanMarks Document::planMarks() const {
    PlanMarks m;
    if (!program_ || !result_ || !result_->ok()) return m;
    const Plan& plan = result_->plan;
    const size_t nv = program_->values().size(), no = program_->ops().size();
    m.valueSaved.assign(nv, 0);
    for (ValueId v : plan.savedValues)
        if (v < nv) m.valueSaved[v] = 1;
    m.opRecomputed.assign(no, 0);
    for (OpId op : plan.recomputeOps)
        if (op < no) m.opRecomputed[op] = 1;
    m.valueBanned.assign(nv, 0);
    m.valuePinned.assign(nv, 0);
    m.valueWeight.assign(nv, -1);
    m.valueDistance.assign(nv, -1);
    for (size_t v = 0; v < plan.reasons.size() && v < nv; ++v) {
        const ValueReason& r = plan.reasons[v];
        m.valueBanned[v] = r.banned;
        m.valuePinned[v] = r.pin != ValueFacts::Pin::None;
    }
    // What the user pinned shows as pinned, whether or not the network could honour it.
    for (const auto* names : {&config_.pinnedSaved, &config_.pinnedRecomputed})
        for (const std::string& n : *names)
            if (const ValueId v = findValue(QString::fromStdString(n)); v != kNoId && v < nv) m.valuePinned[v] = 1;
    for (size_t v = 0; v < plan.reasons.size() && v < nv; ++v) {
        const ValueReason& r = plan.reasons[v];
        if (r.inNetwork) m.valueWeight[v] = double(r.weightUnits) / double(std::max<int64_t>(1, plan.scale));
        if (r.distance >= 0 && r.distance < Analysis::kFarDistance) m.valueDistance[v] = double(r.distance);
    }
    return m;
}

void Document::setConfig(const RecomputeConfig& config, const QString& description, int mergeId) {
    if (config == config_) return;
    undo_.push(new ConfigCommand(this, config_, config, description, mergeId));
}

void Document::setSpec(const RecomputeSpec& spec, const QString& description) {
    undo_.push(new SpecCommand(this, spec_, spec, description));
}

void Document::applyConfig(const RecomputeConfig& config) {
    config_ = config;
    ++generation_;
    Q_EMIT configChanged();
    scheduleSolve();
}

void Document::applySpec(const RecomputeSpec& spec) {
    spec_ = spec;
    specDetected_ = false;
    ++generation_;
    rebuildSolver();
    Q_EMIT specChanged();
    scheduleSolve();
}

int Document::pinOf(ValueId v) const {
    const std::string& name = program_->value(v).name;
    if (std::find(config_.pinnedSaved.begin(), config_.pinnedSaved.end(), name) != config_.pinnedSaved.end()) return 1;
    if (std::find(config_.pinnedRecomputed.begin(), config_.pinnedRecomputed.end(), name) != config_.pinnedRecomputed.end()) return 2;
    return 0;
}

void Document::pinValue(ValueId v, int pin) {
    if (!program_ || v >= program_->values().size()) return;
    RecomputeConfig c = config_;
    const std::string& name = program_->value(v).name;
    auto drop = [&](std::vector<std::string>& list) { list.erase(std::remove(list.begin(), list.end(), name), list.end()); };
    drop(c.pinnedSaved);
    drop(c.pinnedRecomputed);
    if (pin == 1) c.pinnedSaved.push_back(name);
    if (pin == 2) c.pinnedRecomputed.push_back(name);
    const QString n = QString::fromStdString(name);
    setConfig(c, pin == 1 ? tr("Pin %1 saved").arg(n) : pin == 2 ? tr("Pin %1 recomputed").arg(n) : tr("Clear pin of %1").arg(n));
}

SolveAdvice Document::adviceFor(const SolveResult& failed) const {
    SolveAdvice advice;
    if (!program_ || failed.ok() || !failed.network) return advice;
    const Program& p = *program_;
    const FlowNetwork& net = *failed.network;
    const auto& facts = net.facts;
    const auto& path = failed.cut.infinitePath;  // source .. sink over ∞ arcs
    if (path.size() < 3) return advice;
    auto reasonsOf = [&](uint32_t from, uint32_t to) {
        uint16_t bits = 0;
        for (const auto& arc : net.arcs)
            if (arc.from == from && arc.to == to) bits |= arc.reasons;
        return bits;
    };
    // "Always recompute" makes v_in -> v_out ∞ (the value cannot be cut, i.e. saved); the
    // path's first arc says what holds the other end: the first value on it, and why.
    ValueId pinned = kNoId;
    for (size_t i = 1; i + 1 < path.size() && pinned == kNoId; ++i)
        if (reasonsOf(path[i], path[i + 1]) & FlowNetwork::PinRecomputed) pinned = net.nodes[path[i]].value;
    const ValueId held = net.nodes[path[1]].value;
    if (pinned == kNoId || held == kNoId) return advice;
    advice.pinnedValue = pinned;
    const QString pinName = valueName(pinned), heldName = valueName(held);
    const uint16_t why = reasonsOf(path[0], path[1]);
    const OpId def = p.value(held).definingOp;
    const QString op = def == kNoId ? QString() : QString::fromStdString(std::string(p.opName(def)));
    const QString via = held == pinned ? QString() : tr(" (it is recomputed from %1)").arg(heldName);
    // Not recomputable first: it is the config's own list, and one click away.
    if (held < facts.size() && facts[held].banned && facts[held].banRule == BanRule::NotRecomputable && !op.isEmpty()) {
        advice.opToAdd = op;
        advice.message = tr("%1 is not recomputable: add it to the list? (%2 is pinned to be recomputed%3, and %1 is not in "
                            "recomputable_ops.)").arg(op, pinName, via);
        return advice;
    }
    QString reason;
    if (why & FlowNetwork::Ban) reason = QString::fromStdString(banRuleText(held < facts.size() ? facts[held].banRule : BanRule::None));
    else if (why & FlowNetwork::FusionLoopSource)
        reason = tr("%1 (%2) feeds an op that cannot be recomputed on its way to the backward (a fusion loop), so the seed always saves it").arg(heldName, op);
    else if (why & FlowNetwork::Input) reason = tr("%1 is an input of the program").arg(heldName);
    else if (why & FlowNetwork::PinSaved) reason = tr("%1 is pinned to be saved").arg(heldName);
    else reason = tr("%1 must stay saved").arg(heldName);
    advice.message = tr("%1 cannot be recomputed as pinned%2: %3.").arg(pinName, via, reason);
    return advice;
}

void Document::scheduleSolve() { debounce_->start(); }

void Document::solveNow() {
    debounce_->stop();
    startSolve();
}

void Document::startSolve() {
    if (!solver_) return;
    if (watcher_.isRunning()) {  // one solve at a time; the newest edit runs next
        rerunAfter_ = true;
        return;
    }
    runningGeneration_ = generation_;
    solving_ = true;
    Q_EMIT solveStarted();
    auto solver = solver_;
    RecomputeConfig config = config_;
    watcher_.setFuture(QtConcurrent::run(&solvePool_, [solver, config]() -> std::shared_ptr<SolveResult> {
        auto r = std::make_shared<SolveResult>();
        try {
            *r = solver->solve(config);
        } catch (const std::exception& e) {
            r->error = e.what();
        }
        return r;
    }));
}

void Document::onSolveFinished() {
    std::shared_ptr<SolveResult> r = watcher_.result();
    const bool current = runningGeneration_ == generation_;
    solving_ = false;
    if (rerunAfter_ || !current) {
        rerunAfter_ = false;
        if (!current) {
            startSolve();
            return;
        }
    }
    if (!r->ok()) {
        failed_ = r;
        Q_EMIT logMessage(tr("Solve failed: %1").arg(QString::fromStdString(r->error)));
        Q_EMIT solveFailed(QString::fromStdString(r->error));
        return;
    }
    std::vector<ValueId> changed;
    if (result_ && result_->ok()) {
        const auto& a = result_->plan.reasons;
        const auto& b = r->plan.reasons;
        for (size_t v = 0; v < std::min(a.size(), b.size()); ++v)
            if (a[v].side != b[v].side) changed.push_back(ValueId(v));
    }
    result_ = r;
    failed_.reset();
    shownPlan_.clear();
    Q_EMIT logMessage(tr("Solved: cut %1, %2 saved, %3 ops recomputed, %4 ms")
                        .arg(QString::fromStdString(r->plan.cutValueText()))
                        .arg(r->plan.savedValues.size())
                        .arg(r->plan.recomputeOps.size())
                        .arg(r->timings.totalMs, 0, 'f', 1));
    Q_EMIT resultChanged(changed);
}

void Document::showPlan(std::shared_ptr<const SolveResult> result, const QString& description) {
    if (!result || !result->ok()) return;
    std::vector<ValueId> changed;
    if (result_ && result_->ok()) {
        const auto& a = result_->plan.reasons;
        const auto& b = result->plan.reasons;
        for (size_t v = 0; v < std::min(a.size(), b.size()); ++v)
            if (a[v].side != b[v].side) changed.push_back(ValueId(v));
    }
    result_ = std::move(result);
    shownPlan_ = description;
    Q_EMIT logMessage(tr("Showing %1").arg(description));
    Q_EMIT resultChanged(changed);
}

bool Document::waitForSolve(int timeoutMs) {
    QElapsedTimer t;
    t.start();
    while ((solving_ || debounce_->isActive() || watcher_.isRunning()) && t.elapsed() < timeoutMs) {
        QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
        if (watcher_.isRunning()) watcher_.waitForFinished();
        QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
    }
    return !(solving_ || debounce_->isActive());
}

void Document::select(ModelKey key, QObject* origin) {
    if (key == selection_) return;
    selection_ = key;
    Q_EMIT selectionChanged(key, origin);
}

QString Document::valueName(ValueId v) const {
    return program_ && v < program_->values().size() ? QString::fromStdString(program_->value(v).name) : QString();
}

ValueId Document::findValue(const QString& name) const {
    if (!program_) return kNoId;
    if (solver_) return solver_->analysis().findValue(name.toStdString());
    return ui::findValueByName(*program_, name.toStdString());
}

namespace {

// A plan shown from elsewhere (the Pareto panel), undone by showing the one before it.
class PlanCommand : public QUndoCommand {
public:
    PlanCommand(Document* doc, std::shared_ptr<const SolveResult> before, std::shared_ptr<const SolveResult> after,
                const QString& text, qint64 mergeKey)
        : QUndoCommand(text), doc_(doc), before_(std::move(before)), after_(std::move(after)), mergeKey_(mergeKey) {}
    void undo() override { show(before_, QObject::tr("the plan before %1").arg(text()), true); }
    void redo() override { show(after_, text(), false); }
    static constexpr int kId = 0x504c414e;  // "PLAN": apart from ConfigCommand's knob ids
    int id() const override { return mergeKey_ >= 0 ? kId : -1; }
    bool mergeWith(const QUndoCommand* other) override {
        const auto* o = static_cast<const PlanCommand*>(other);
        if (o->mergeKey_ != mergeKey_ || mergeKey_ < 0) return false;
        after_ = o->after_;
        setText(o->text());
        setObsolete(after_ == before_);
        return true;
    }

private:
    void show(const std::shared_ptr<const SolveResult>& result, const QString& description, bool undo) {
        doc_->setPlanStep({true, undo, text(), mergeKey_});
        doc_->showPlan(result, description);
        doc_->setPlanStep({});
    }
    Document* doc_;
    std::shared_ptr<const SolveResult> before_, after_;
    qint64 mergeKey_;
};

}  // namespace

void Document::applyPlan(std::shared_ptr<const SolveResult> result, const QString& description, qint64 mergeKey) {
    if (!result || !result->ok() || result == result_) return;
    undo_.push(new PlanCommand(this, result_, std::move(result), description, mergeKey));
}

}  // namespace rx
