#include "views/LayoutService.h"

#include <QCoreApplication>
#include <QMetaObject>
#include <QPointer>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <numeric>

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

namespace rx {

namespace {

constexpr double kPointsPerInch = 72.0;

char* cstr(const char* s) { return const_cast<char*>(s); }

const char* engineName(LayoutEngine e) {
    switch (e) {
    case LayoutEngine::Sfdp: return "sfdp";
    default: return "dot";
    }
}

}  // namespace

LayoutService& LayoutService::instance() {
    // Deliberately leaked: destroying at static-destruction time would race the worker with
    // Qt's own teardown. The destructor below is still correct for explicit use.
    static LayoutService* service = new LayoutService();
    return *service;
}

LayoutService::LayoutService() {
    qRegisterMetaType<rx::LayoutResult>("rx::LayoutResult");
    worker_ = std::thread([this] { workerLoop(); });
}

LayoutService::~LayoutService() {
    {
        std::lock_guard lock(mutex_);
        stop_ = true;
        pending_.clear();
    }
    wake_.notify_all();
    if (worker_.joinable()) worker_.join();
}

quint64 LayoutService::submit(const QString& channel, LayoutRequest request) {
    quint64 id;
    {
        std::lock_guard lock(mutex_);
        id = nextId_++;
        // Newer requests supersede older ones on the same channel.
        pending_.erase(std::remove_if(pending_.begin(), pending_.end(),
                                      [&](const Job& j) { return j.channel == channel; }),
                       pending_.end());
        if (running_ != 0 && runningChannel_ == channel) abandoned_.insert(running_);
        pending_.push_back(Job{id, channel, std::move(request)});
    }
    wake_.notify_one();
    return id;
}

void LayoutService::cancel(quint64 job) {
    std::lock_guard lock(mutex_);
    auto it = std::find_if(pending_.begin(), pending_.end(), [&](const Job& j) { return j.id == job; });
    if (it != pending_.end()) {
        pending_.erase(it);
        return;
    }
    if (running_ == job) abandoned_.insert(job);
}

bool LayoutService::isBusy() const {
    std::lock_guard lock(mutex_);
    return running_ != 0 || !pending_.empty();
}

qint64 LayoutService::runningElapsedMs() const {
    std::lock_guard lock(mutex_);
    return running_ ? runningTimer_.elapsed() : 0;
}

LayoutEngine LayoutService::chooseEngine(size_t nodes, size_t edges) {
    // Measured: dot with splines takes seconds beyond ~800 nodes; splines=line keeps it
    // near-linear to ~2k; beyond that force-directed or our own layering.
    if (nodes <= 600 && edges <= 1500) return LayoutEngine::Dot;
    if (nodes <= 1500 && edges <= 4000) return LayoutEngine::DotLines;
    if (nodes <= 8000) return LayoutEngine::Sfdp;
    return LayoutEngine::Layered;
}

void LayoutService::workerLoop() {
    // Load Graphviz's plugins now, not inside the first user-visible layout.
    gvc_ = gvContext();
    for (;;) {
        Job job;
        {
            std::unique_lock lock(mutex_);
            wake_.wait(lock, [&] { return stop_ || !pending_.empty(); });
            if (stop_) break;
            job = std::move(pending_.front());
            pending_.pop_front();
            running_ = job.id;
            runningChannel_ = job.channel;
            runningTimer_.start();
        }
        QPointer<LayoutService> self(this);
        QMetaObject::invokeMethod(this, [this, id = job.id, ch = job.channel] { Q_EMIT started(id, ch); },
                                  Qt::QueuedConnection);
        QElapsedTimer timer;
        timer.start();
        LayoutResult result;
        try {
            result = job.request.engine == LayoutEngine::Layered ? layoutLayered(job.request)
                     : job.request.engine == LayoutEngine::Preset ? layoutPreset(job.request)
                                                                  : runGraphviz(job.request);
        } catch (const std::exception& e) {
            result.ok = false;
            result.error = QString::fromUtf8(e.what());
        }
        result.elapsedMs = timer.nsecsElapsed() / 1e6;
        result.engine = job.request.engine;
        bool drop;
        {
            std::lock_guard lock(mutex_);
            drop = abandoned_.erase(job.id) > 0 || stop_;
            running_ = 0;
            runningChannel_.clear();
        }
        if (!drop) deliver(job.id, job.channel, std::move(result));
    }
    if (gvc_) gvFreeContext(static_cast<GVC_t*>(gvc_));
    gvc_ = nullptr;
}

void LayoutService::deliver(quint64 id, const QString& channel, LayoutResult result) {
    QMetaObject::invokeMethod(
        this,
        [this, id, channel, r = std::move(result)] {
            {
                std::lock_guard lock(mutex_);
                if (abandoned_.erase(id) > 0) return;  // cancelled while in the queue
            }
            Q_EMIT finished(id, channel, r);
        },
        Qt::QueuedConnection);
}

LayoutResult LayoutService::runGraphviz(const LayoutRequest& req) {
    if (!gvc_) gvc_ = gvContext();
    GVC_t* gvc = static_cast<GVC_t*>(gvc_);
    LayoutResult out;
    Agraph_t* g = agopen(cstr("g"), Agdirected, nullptr);
    const bool dot = req.engine != LayoutEngine::Sfdp;
    char buf[64];
    agattr(g, AGRAPH, cstr("rankdir"), cstr(req.leftToRight ? "LR" : "TB"));
    std::snprintf(buf, sizeof buf, "%.3f", req.nodeSep / kPointsPerInch);
    agattr(g, AGRAPH, cstr("nodesep"), buf);
    std::snprintf(buf, sizeof buf, "%.3f", req.rankSep / kPointsPerInch);
    agattr(g, AGRAPH, cstr("ranksep"), buf);
    agattr(g, AGRAPH, cstr("splines"), cstr(req.engine == LayoutEngine::Dot ? "spline" : "line"));
    if (!dot) {
        agattr(g, AGRAPH, cstr("overlap"), cstr("prism"));
        agattr(g, AGRAPH, cstr("outputorder"), cstr("edgesfirst"));
    }
    if (dot) agattr(g, AGRAPH, cstr("newrank"), cstr("true"));
    if (dot && req.nodes.size() > 150) {
        // Fewer crossing-minimisation and network-simplex passes: a little less tidy,
        // many times faster on the graphs the overview produces.
        agattr(g, AGRAPH, cstr("mclimit"), cstr("0.3"));
        agattr(g, AGRAPH, cstr("nslimit"), cstr("3"));
        agattr(g, AGRAPH, cstr("nslimit1"), cstr("3"));
    }
    agattr(g, AGNODE, cstr("shape"), cstr("box"));
    agattr(g, AGNODE, cstr("fixedsize"), cstr("true"));
    agattr(g, AGNODE, cstr("label"), cstr(""));
    Agsym_t* symW = agattr(g, AGNODE, cstr("width"), cstr("1"));
    Agsym_t* symH = agattr(g, AGNODE, cstr("height"), cstr("0.4"));
    Agsym_t* symConstraint = agattr(g, AGEDGE, cstr("constraint"), cstr("true"));
    Agsym_t* symWeight = agattr(g, AGEDGE, cstr("weight"), cstr("1"));
    Agsym_t* symMinLen = agattr(g, AGEDGE, cstr("minlen"), cstr("1"));
    agattr(g, AGEDGE, cstr("arrowhead"), cstr("normal"));

    std::vector<Agraph_t*> clusters(req.clusters.size(), nullptr);
    for (size_t i = 0; i < req.clusters.size(); ++i) {
        std::snprintf(buf, sizeof buf, "cluster_%zu", i);
        clusters[i] = agsubg(g, buf, 1);
        // A label of the same size as the one the view draws, so dot reserves its room.
        agsafeset(clusters[i], cstr("label"), const_cast<char*>(req.clusters[i].toUtf8().constData()), cstr(""));
        agsafeset(clusters[i], cstr("labeljust"), cstr("l"), cstr(""));
        agsafeset(clusters[i], cstr("fontsize"), cstr("14"), cstr(""));
        agsafeset(clusters[i], cstr("margin"), cstr("14"), cstr(""));
    }
    std::vector<Agnode_t*> nodes(req.nodes.size());
    for (size_t i = 0; i < req.nodes.size(); ++i) {
        std::snprintf(buf, sizeof buf, "n%zu", i);
        Agnode_t* n = agnode(g, buf, 1);
        nodes[i] = n;
        const LayoutNode& ln = req.nodes[i];
        std::snprintf(buf, sizeof buf, "%.4f", ln.width / kPointsPerInch);
        agxset(n, symW, buf);
        std::snprintf(buf, sizeof buf, "%.4f", ln.height / kPointsPerInch);
        agxset(n, symH, buf);
        if (ln.cluster >= 0 && size_t(ln.cluster) < clusters.size()) agsubnode(clusters[ln.cluster], n, 1);
    }
    std::vector<Agedge_t*> edges(req.edges.size(), nullptr);
    for (size_t i = 0; i < req.edges.size(); ++i) {
        const LayoutEdge& le = req.edges[i];
        if (le.from < 0 || le.to < 0 || size_t(le.from) >= nodes.size() || size_t(le.to) >= nodes.size())
            continue;
        Agedge_t* e = agedge(g, nodes[le.from], nodes[le.to], nullptr, 1);
        edges[i] = e;
        if (!le.constraint) agxset(e, symConstraint, cstr("false"));
        if (le.weight != 1) {
            std::snprintf(buf, sizeof buf, "%d", std::max(0, int(le.weight)));
            agxset(e, symWeight, buf);
        }
        if (le.minLength != 1) {
            std::snprintf(buf, sizeof buf, "%d", std::max(0, le.minLength));
            agxset(e, symMinLen, buf);
        }
    }

    if (dot)
        for (size_t k = 0; k < req.sameRank.size(); ++k) {
            std::snprintf(buf, sizeof buf, "rank_%zu", k);
            Agraph_t* sg = agsubg(g, buf, 1);
            agsafeset(sg, cstr("rank"), cstr("same"), cstr(""));
            for (int i : req.sameRank[k])
                if (i >= 0 && size_t(i) < nodes.size()) agsubnode(sg, nodes[size_t(i)], 1);
        }

    if (const char* dump = std::getenv("RX_LAYOUT_DUMP")) {  // for tuning layouts by hand with `dot`
        if (FILE* f = std::fopen(dump, "w")) {
            agwrite(g, f);
            std::fclose(f);
        }
    }
    if (gvLayout(gvc, g, engineName(req.engine)) != 0) {
        agclose(g);
        out.error = QStringLiteral("Graphviz layout failed");
        return out;
    }
    const boxf bb = GD_bb(g);
    const double top = bb.UR.y;
    auto toScene = [&](pointf p) { return QPointF(p.x - bb.LL.x, top - p.y); };
    out.bounds = QRectF(0, 0, bb.UR.x - bb.LL.x, bb.UR.y - bb.LL.y);
    out.nodeCenter.resize(nodes.size());
    for (size_t i = 0; i < nodes.size(); ++i) out.nodeCenter[i] = toScene(ND_coord(nodes[i]));
    out.edgePath.resize(edges.size());
    out.edgeIsPolyline.assign(edges.size(), false);
    out.edgeArrowTip.resize(edges.size());
    for (size_t i = 0; i < edges.size(); ++i) {
        Agedge_t* e = edges[i];
        const LayoutEdge& le = req.edges[i];
        auto& path = out.edgePath[i];
        if (e && ED_spl(e) && ED_spl(e)->size > 0) {
            const bezier& bz = ED_spl(e)->list[0];
            path.reserve(bz.size);
            for (int k = 0; k < bz.size; ++k) path.push_back(toScene(bz.list[k]));
            out.edgeArrowTip[i] = bz.eflag ? toScene(bz.ep) : (path.empty() ? QPointF() : path.back());
            // A bezier list has 3k+1 points; anything else is drawn as a polyline.
            out.edgeIsPolyline[i] = (path.size() % 3) != 1;
        } else if (le.from >= 0 && size_t(le.from) < nodes.size() && le.to >= 0 && size_t(le.to) < nodes.size()) {
            path = {out.nodeCenter[le.from], out.nodeCenter[le.to]};
            out.edgeIsPolyline[i] = true;
            out.edgeArrowTip[i] = out.nodeCenter[le.to];
        }
    }
    out.clusterRect.assign(clusters.size(), QRectF());
    for (int c = 1; c <= GD_n_cluster(g); ++c) {
        Agraph_t* sg = GD_clust(g)[c];
        const char* name = agnameof(sg);
        size_t idx = 0;
        if (std::sscanf(name, "cluster_%zu", &idx) == 1 && idx < clusters.size()) {
            const boxf cb = GD_bb(sg);
            out.clusterRect[idx] = QRectF(toScene({cb.LL.x, cb.UR.y}), toScene({cb.UR.x, cb.LL.y}));
        }
    }
    if (!dot) {
        // sfdp does not compute cluster boxes: take the hull of the members.
        for (size_t i = 0; i < req.nodes.size(); ++i) {
            const int c = req.nodes[i].cluster;
            if (c < 0 || size_t(c) >= clusters.size()) continue;
            QRectF r(out.nodeCenter[i] - QPointF(req.nodes[i].width / 2, req.nodes[i].height / 2),
                     QSizeF(req.nodes[i].width, req.nodes[i].height));
            out.clusterRect[c] = out.clusterRect[c].isNull() ? r : out.clusterRect[c].united(r);
        }
        for (auto& r : out.clusterRect)
            if (!r.isNull()) r.adjust(-14, -14, 14, 14);
    }
    gvFreeLayout(gvc, g);
    agclose(g);
    out.ok = true;
    return out;
}

LayoutResult LayoutService::layoutLayered(const LayoutRequest& req) {
    // Longest-path layering + one barycentric sweep. Linear in the graph; straight edges.
    LayoutResult out;
    const size_t n = req.nodes.size();
    std::vector<std::vector<int>> succ(n), pred(n);
    std::vector<int> indeg(n, 0);
    for (const auto& e : req.edges) {
        if (e.from < 0 || e.to < 0 || size_t(e.from) >= n || size_t(e.to) >= n || e.from == e.to) continue;
        succ[e.from].push_back(e.to);
        pred[e.to].push_back(e.from);
        ++indeg[e.to];
    }
    std::vector<int> rank(n, 0), queue;
    queue.reserve(n);
    for (size_t i = 0; i < n; ++i)
        if (indeg[i] == 0) queue.push_back(int(i));
    for (size_t head = 0; head < queue.size(); ++head) {
        const int v = queue[head];
        if (req.nodes[v].rankHint >= 0) rank[v] = std::max(rank[v], req.nodes[v].rankHint);
        for (int w : succ[v]) {
            rank[w] = std::max(rank[w], rank[v] + 1);
            if (--indeg[w] == 0) queue.push_back(w);
        }
    }
    int maxRank = 0;
    for (int r : rank) maxRank = std::max(maxRank, r);
    for (size_t i = 0; i < n; ++i)  // nodes on cycles: after everything else
        if (indeg[i] > 0) rank[i] = ++maxRank;
    std::vector<std::vector<int>> layers(maxRank + 1);
    std::vector<double> pos(n, 0);
    for (int v : queue) layers[rank[v]].push_back(v);
    for (size_t i = 0; i < n; ++i)
        if (indeg[i] > 0) layers[rank[i]].push_back(int(i));
    for (auto& layer : layers) {
        std::vector<double> key(layer.size());
        for (size_t k = 0; k < layer.size(); ++k) {
            const int v = layer[k];
            double s = 0;
            for (int p : pred[v]) s += pos[p];
            key[k] = pred[v].empty() ? double(k) : s / pred[v].size();
        }
        std::vector<size_t> order(layer.size());
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return key[a] < key[b]; });
        std::vector<int> sorted(layer.size());
        for (size_t k = 0; k < order.size(); ++k) sorted[k] = layer[order[k]];
        layer = std::move(sorted);
        for (size_t k = 0; k < layer.size(); ++k) pos[layer[k]] = double(k);
    }
    double maxW = 10, maxH = 10;
    for (const auto& nd : req.nodes) {
        maxW = std::max(maxW, nd.width);
        maxH = std::max(maxH, nd.height);
    }
    const double colW = maxW + req.nodeSep, rowH = maxH + req.rankSep;
    size_t widest = 1;
    for (const auto& l : layers) widest = std::max(widest, l.size());
    out.nodeCenter.resize(n);
    for (size_t r = 0; r < layers.size(); ++r) {
        const double offset = (double(widest) - double(layers[r].size())) * colW / 2;
        for (size_t k = 0; k < layers[r].size(); ++k) {
            const QPointF c(offset + k * colW + colW / 2, r * rowH + rowH / 2);
            out.nodeCenter[layers[r][k]] = req.leftToRight ? QPointF(c.y(), c.x()) : c;
        }
    }
    out.bounds = req.leftToRight ? QRectF(0, 0, layers.size() * rowH, widest * colW)
                                 : QRectF(0, 0, widest * colW, layers.size() * rowH);
    out.edgePath.resize(req.edges.size());
    out.edgeIsPolyline.assign(req.edges.size(), true);
    out.edgeArrowTip.resize(req.edges.size());
    for (size_t i = 0; i < req.edges.size(); ++i) {
        const auto& e = req.edges[i];
        if (e.from < 0 || e.to < 0 || size_t(e.from) >= n || size_t(e.to) >= n) continue;
        QPointF a = out.nodeCenter[e.from], b = out.nodeCenter[e.to];
        // Clip to the node boxes so arrow heads sit on the border.
        auto clip = [&](QPointF c, QPointF toward, const LayoutNode& nd) {
            const QPointF d = toward - c;
            const double sx = d.x() == 0 ? 1e9 : (nd.width / 2) / std::abs(d.x());
            const double sy = d.y() == 0 ? 1e9 : (nd.height / 2) / std::abs(d.y());
            const double s = std::min({sx, sy, 1.0});
            return c + d * s;
        };
        const QPointF pa = clip(a, b, req.nodes[e.from]), pb = clip(b, a, req.nodes[e.to]);
        out.edgePath[i] = {pa, pb};
        out.edgeArrowTip[i] = pb;
    }
    out.clusterRect.assign(req.clusters.size(), QRectF());
    for (size_t i = 0; i < n; ++i) {
        const int c = req.nodes[i].cluster;
        if (c < 0 || size_t(c) >= req.clusters.size()) continue;
        QRectF r(out.nodeCenter[i] - QPointF(req.nodes[i].width / 2, req.nodes[i].height / 2),
                 QSizeF(req.nodes[i].width, req.nodes[i].height));
        out.clusterRect[c] = out.clusterRect[c].isNull() ? r : out.clusterRect[c].united(r);
    }
    for (auto& r : out.clusterRect)
        if (!r.isNull()) r.adjust(-12, -12, 12, 12);
    out.ok = true;
    return out;
}

LayoutResult LayoutService::layoutPreset(const LayoutRequest& req) {
    LayoutResult out;
    const size_t n = req.nodes.size();
    if (req.presetCenter.size() != n) {
        out.error = QStringLiteral("preset layout: %1 centres for %2 nodes").arg(req.presetCenter.size()).arg(n);
        return out;
    }
    out.nodeCenter = req.presetCenter;
    QRectF bounds;
    for (size_t i = 0; i < n; ++i) {
        const QRectF r(out.nodeCenter[i] - QPointF(req.nodes[i].width / 2, req.nodes[i].height / 2),
                       QSizeF(req.nodes[i].width, req.nodes[i].height));
        bounds = i == 0 ? r : bounds.united(r);
    }
    out.bounds = bounds;
    out.edgePath.resize(req.edges.size());
    out.edgeIsPolyline.assign(req.edges.size(), true);
    out.edgeArrowTip.resize(req.edges.size());
    auto clip = [](QPointF c, QPointF toward, const LayoutNode& nd) {
        const QPointF d = toward - c;
        const double sx = d.x() == 0 ? 1e9 : (nd.width / 2) / std::abs(d.x());
        const double sy = d.y() == 0 ? 1e9 : (nd.height / 2) / std::abs(d.y());
        return c + d * std::min({sx, sy, 1.0});
    };
    for (size_t i = 0; i < req.edges.size(); ++i) {
        const auto& e = req.edges[i];
        if (e.from < 0 || e.to < 0 || size_t(e.from) >= n || size_t(e.to) >= n) continue;
        const QPointF a = out.nodeCenter[e.from], b = out.nodeCenter[e.to];
        const QPointF pb = clip(b, a, req.nodes[e.to]);
        out.edgePath[i] = {clip(a, b, req.nodes[e.from]), pb};
        out.edgeArrowTip[i] = pb;
    }
    out.clusterRect.assign(req.clusters.size(), QRectF());
    out.ok = true;
    return out;
}

}  // namespace rx
