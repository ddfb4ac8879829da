#pragma once
// The one thread that owns every Graphviz graph. cgraph/gvc are not thread-safe (not even
// for reads), so all agopen/gvLayout/agclose calls happen on this worker; callers hand in a
// plain LayoutRequest and get a plain LayoutResult back through a queued signal.
//
// Scheduling: requests are tagged with a channel (one per view). A new request on a channel
// replaces a pending one on that channel and abandons a running one: gvLayout cannot be
// interrupted, so an abandoned job runs to its end on the worker and its result is dropped.
// Views keep abandoned work short by choosing the engine by size (see chooseEngine).
#include <QElapsedTimer>
#include <QObject>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <set>
#include <thread>

#include "views/LayoutTypes.h"

namespace rx {

class LayoutService : public QObject {
    Q_OBJECT
public:
    // Graphviz allows one owner per process, so the service is process-wide.
    static LayoutService& instance();
    ~LayoutService() override;

    // Queues a layout; returns its job id (never 0).
    quint64 submit(const QString& channel, LayoutRequest request);
    // Drops the job's result (pending: removed; running: abandoned).
    void cancel(quint64 job);
    bool isBusy() const;
    // Milliseconds the running job has taken so far (0 if idle).
    qint64 runningElapsedMs() const;

    // Picks the engine for a graph of this size (dot below ~1500 nodes, faster ones above).
    static LayoutEngine chooseEngine(size_t nodes, size_t edges);
    // Runs a layout on the calling thread. Graphviz engines only on the worker thread; the
    // Layered engine is pure C++ and safe anywhere.
    static LayoutResult layoutLayered(const LayoutRequest& request);
    // The Preset engine: the caller placed the nodes; edges are straight, clipped to the boxes.
    static LayoutResult layoutPreset(const LayoutRequest& request);

Q_SIGNALS:
    void started(quint64 job, const QString& channel);
    void finished(quint64 job, const QString& channel, const rx::LayoutResult& result);

private:
    LayoutService();
    struct Job {
        quint64 id;
        QString channel;
        LayoutRequest request;
    };
    void workerLoop();
    LayoutResult runGraphviz(const LayoutRequest& request);
    void deliver(quint64 id, const QString& channel, LayoutResult result);

    mutable std::mutex mutex_;
    std::condition_variable wake_;
    std::deque<Job> pending_;
    std::set<quint64> abandoned_;
    quint64 nextId_ = 1;
    quint64 running_ = 0;
    QString runningChannel_;
    QElapsedTimer runningTimer_;
    bool stop_ = false;
    void* gvc_ = nullptr;  // GVC_t*, touched only by the worker
    std::thread worker_;
};

}  // namespace rx

Q_DECLARE_METATYPE(rx::LayoutResult)
